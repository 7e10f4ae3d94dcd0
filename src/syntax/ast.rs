//! The abstract syntax tree. Every node carries the [`Span`] of its source
//! text; variants read like the grammar (docs/language.md §2).

use crate::intern::Sym;
use crate::source::Span;
use std::cell::{Cell, OnceCell};
use std::rc::Rc;

pub use super::resolve::{CellInit, Layout, Slot};

pub type Block = Vec<Stmt>;

#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    /// `name`, with where it lives (set by the resolver).
    Name(Sym, Cell<Slot>),
    /// `1`, `1_000`
    Int(i64),
    /// `1.5`, `.5`, `1e-3`
    Float(f64),
    /// `4j`, `1.5j`: an imaginary literal, the complex number with this imaginary part
    /// and a real part of 0.0 (docs/language.md §3)
    Imag(f64),
    /// `'a'`, `"a"`
    Str(crate::text::Text),
    /// `True`, `False`
    Bool(bool),
    /// `None`
    None,
    /// `...`
    Ellipsis,
    /// `f"text {expr!r:spec}"`
    FString(Vec<FPart>),
    /// `[a, b]`
    List(Vec<Expr>),
    /// `(a, b)`, `a, b`
    Tuple(Vec<Expr>),
    /// `{k: v}`
    Dict(Vec<(Expr, Expr)>),
    /// `{a, b}` (never empty: `{}` is a dict)
    Set(Vec<Expr>),
    /// `*xs` inside a list, tuple or set display, or as an assignment target
    Starred(Box<Expr>),
    /// `yield [value]` (only inside a function, which it makes a generator)
    Yield(Option<Box<Expr>>),
    /// `yield from iterable`
    YieldFrom(Box<Expr>),
    /// `(elt for x in xs if cond)`: a generator function of one parameter (`.0`, the
    /// first iterable, evaluated where the expression stands), called at once.
    GenExp(Rc<FuncDef>, Box<Expr>),
    /// `obj.name`
    Attr(Box<Expr>, Sym),
    /// `x[index]`; a multi-part index is a `Tuple`.
    Index(Box<Expr>, Box<Expr>),
    /// `start:stop:step` inside an index
    Slice(Option<Box<Expr>>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// `f(a, *xs, k=v, **kw)`
    Call(Box<Expr>, Vec<Arg>),
    /// `-x`, `+x`
    Unary(UnaryOp, Box<Expr>),
    /// `not x`
    Not(Box<Expr>),
    /// `a + b`
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a < b <= c`
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    /// `a and b`
    And(Box<Expr>, Box<Expr>),
    /// `a or b`
    Or(Box<Expr>, Box<Expr>),
    /// `a if cond else b`
    IfElse(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `lambda x, y: body`
    Lambda(Rc<FuncDef>),
    /// `[elt for x in xs if cond]`, `{elt for …}`, `{key: value for …}`; the resolver lists
    /// the cells that each run of the comprehension makes afresh (its variables captured
    /// by lambdas inside it).
    Comp(CompKind, Box<Expr>, Vec<CompFor>, Box<OnceCell<Vec<u32>>>),
}

/// What a comprehension builds.
#[derive(Debug, Clone)]
pub enum CompKind {
    /// `[elt for …]`
    List,
    /// `{elt for …}`
    Set,
    /// `{elt: value for …}`: the element is the key.
    Dict(Box<Expr>),
}

#[derive(Debug, Clone)]
pub enum FPart {
    Text(Rc<str>),
    /// `{expr!r:spec}`; the spec may hold fields of its own (`{x:{width}.{prec}f}`).
    Field {
        expr: Expr,
        repr: bool,
        spec: Vec<FPart>,
    },
}

#[derive(Debug, Clone)]
pub struct CompFor {
    pub target: Expr,
    pub iter: Expr,
    pub conds: Vec<Expr>,
}

#[derive(Debug, Clone)]
pub enum Arg {
    /// `f(x)`
    Pos(Expr),
    /// `f(*xs)`
    Star(Expr),
    /// `f(k=v)`
    Kw(Sym, Expr),
    /// `f(**kw)`
    StarStar(Expr),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UnaryOp {
    Neg,
    Pos,
    /// `~x`
    Invert,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    MatMul,
    BitAnd,
    BitOr,
    BitXor,
    LShift,
    RShift,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::MatMul => "@",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    In,
    NotIn,
    Is,
    IsNot,
}

#[derive(Debug, Clone)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum StmtKind {
    /// `expr`
    Expr(Expr),
    /// `a = b = value`; targets are names, `x[i]`, `obj.a` or tuples of them.
    Assign(Vec<Expr>, Expr),
    /// `target += value`
    AugAssign(Expr, BinOp, Expr),
    /// `if c: … elif c: … else: …`
    If(Vec<(Expr, Block)>, Option<Block>),
    /// `while c: … [else: …]` (the else block runs when the loop ends without `break`)
    While(Expr, Block, Option<Block>),
    /// `for a, b in xs: … [else: …]`
    For(Expr, Expr, Block, Option<Block>),
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `pass`
    Pass,
    /// `return [value]`
    Return(Option<Expr>),
    /// `@dec def f(…): …`
    Def(Rc<FuncDef>),
    /// `@dec class C(Base): …`
    Class(Rc<ClassDef>),
    /// `with a as x, b: …`
    With(Vec<(Expr, Option<Expr>)>, Block),
    /// `import a.b [as c]`; each with the slot of the name it binds.
    Import(Vec<(Vec<Sym>, Option<Sym>, Cell<Slot>)>),
    /// `from a import b [as c], …`; each with the slot of the name it binds.
    FromImport(Vec<Sym>, Vec<(Sym, Option<Sym>, Span, Cell<Slot>)>),
    /// `assert cond[, msg]`
    Assert(Expr, Option<Expr>),
    /// `raise [exc]`
    Raise(Option<Expr>),
    /// `try: … except KIND as e: … else: … finally: …`
    Try { body: Block, handlers: Vec<Handler>, orelse: Option<Block>, finally: Option<Block> },
    /// `global a, b`
    Global(Vec<Sym>),
    /// `nonlocal a, b`
    Nonlocal(Vec<Sym>),
    /// `del x[i]`, `del name`
    Del(Vec<Expr>),
}

#[derive(Debug, Clone)]
pub struct Handler {
    pub kind: Option<Expr>,
    pub name: Option<Sym>,
    /// Where `name` lives.
    pub slot: Cell<Slot>,
    pub body: Block,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// `a` or `a=default`
    Normal,
    /// `*args`
    VarArgs,
    /// a parameter after `*` or `*args`
    KwOnly,
    /// `**kwargs`
    VarKw,
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: Sym,
    pub default: Option<Expr>,
    pub kind: ParamKind,
    pub span: Span,
}

/// A `def` or `lambda`.
#[derive(Debug)]
pub struct FuncDef {
    pub name: Sym,
    pub params: Vec<Param>,
    pub body: Block,
    pub decorators: Vec<Expr>,
    /// The body holds a `yield`: a call makes a generator instead of running it.
    pub generator: bool,
    /// Names declared `global` in the body.
    pub globals: Vec<Sym>,
    /// Names declared `nonlocal` in the body.
    pub nonlocals: Vec<Sym>,
    /// The docstring (the body's first statement when it is a string literal, taken out of
    /// the body so a call never evaluates it), cleaned as `inspect.cleandoc` does.
    pub doc: Option<Rc<str>>,
    pub span: Span,
    /// Where the `def` binds its name in the enclosing scope.
    pub slot: Cell<Slot>,
    /// The frame of a call (set by the resolver).
    pub layout: OnceCell<Layout>,
}

#[derive(Debug)]
pub struct ClassDef {
    pub name: Sym,
    pub base: Option<Expr>,
    pub body: Block,
    pub decorators: Vec<Expr>,
    /// The docstring, as for [`FuncDef::doc`] (the class body still runs once, without it).
    pub doc: Option<Rc<str>>,
    pub span: Span,
    /// Where the class statement binds its name in the enclosing scope.
    pub slot: Cell<Slot>,
    /// The frame of the class body (set by the resolver).
    pub layout: OnceCell<Layout>,
}
