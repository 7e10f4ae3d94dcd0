//! The resolver: between parsing and running, every name becomes a [`Slot`],
//! so the evaluator indexes arrays instead of looking names up.
//!
//! Scoping is CPython 3.11's. A name bound anywhere in a function body (an
//! assignment, augmented assignment, `for`/`with`/`except … as` target,
//! `def`, `class`, `import`, `del`, a parameter) is local to the whole body
//! unless declared `global` or `nonlocal`. A name a nested function reads from
//! an enclosing function lives in a cell that both share (capture by
//! reference). Class bodies keep their names in the class namespace; functions
//! inside them skip it. Comprehensions are scopes of their own whose first
//! iterable belongs to the enclosing scope. Everything else is global: an
//! index into the module's table ([`GlobalNames`]), whose unbound entries fall
//! back to the builtin of that name when read.
//!
//! Frames: a module, a function call and a class body each run in a frame of
//! plain locals and cells ([`Layout`]). A comprehension runs in the frame of
//! the scope around it (its variables get slots of their own there, and the
//! cells among them are made afresh by each run), so it needs no frame.

use super::ast::*;
use crate::intern::Sym;
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::{Cell, OnceCell};

/// Where a name lives, as the evaluator finds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Slot {
    /// Not resolved yet (only before [`resolve_module`] has run).
    #[default]
    Unresolved,
    /// A plain local of the running frame.
    Local(u32),
    /// A plain local of the running frame, named from a comprehension inside
    /// the scope that owns it (an unbound one is a "free variable" to Python).
    OuterLocal(u32),
    /// A cell of the running frame that its own scope binds.
    Cell(u32),
    /// A cell of the running frame that belongs to an enclosing scope.
    Free(u32),
    /// An entry of the module's global table; unbound, a builtin of that name.
    Global(u32),
    /// In a class body: the class namespace, then the global entry, then the builtin.
    ClassGlobal(u32),
    /// In a class body: the class namespace, then this cell of an enclosing function.
    ClassFree(u32),
}

/// How a frame's cell comes to be when the frame is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellInit {
    /// A new, empty cell.
    Own,
    /// The cell of this index in the frame where the function or class was defined.
    Free(u32),
}

/// The frame a function call, class body or module runs in.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// How many plain locals.
    pub locals: u32,
    /// The cells, in slot order.
    pub cells: Vec<CellInit>,
    /// Where each parameter lives (functions only), in parameter order.
    pub params: Vec<Slot>,
}

/// A module's global names: each gets an index for good. The REPL resolves
/// every entry against the same table, so it only grows.
#[derive(Debug, Default)]
pub struct GlobalNames {
    index: FxHashMap<Sym, u32>,
    names: Vec<Sym>,
}

impl GlobalNames {
    /// The index of `name`, adding it if it is new.
    pub fn slot(&mut self, name: Sym) -> u32 {
        if let Some(&i) = self.index.get(&name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name);
        self.index.insert(name, i);
        i
    }

    /// The index of `name`, if it has one.
    pub fn get(&self, name: Sym) -> Option<u32> {
        self.index.get(&name).copied()
    }

    /// Every name, in index order.
    pub fn names(&self) -> &[Sym] {
        &self.names
    }
}

/// Resolves a module body (a script, an imported module, one REPL entry)
/// against its global table; returns the layout of the module's frame.
/// The parser has already rejected misplaced `nonlocal` declarations. A parsed
/// body is resolved once: the layouts of its functions and classes are set for good.
pub fn resolve_module(block: &[Stmt], globals: &mut GlobalNames) -> Layout {
    let mut r = Resolver {
        globals,
        scopes: vec![Scope::new(Kind::Module, 0)],
        units: vec![Unit { parent: 0, locals: 0, cells: Vec::new(), free: FxHashMap::default(), target: None }],
        vars: Vec::new(),
        pending: Vec::new(),
        comps: Vec::new(),
        params: Vec::new(),
    };
    r.block(block);
    r.finish()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Module,
    Function,
    Class,
    Comprehension,
}

/// A scope being resolved.
struct Scope {
    kind: Kind,
    /// The frame its names live in.
    unit: usize,
    /// Its own variables (functions and comprehensions), by name.
    vars: FxHashMap<Sym, usize>,
    /// The names a class body binds.
    class_bound: FxHashSet<Sym>,
    globals: FxHashSet<Sym>,
    nonlocals: FxHashSet<Sym>,
}

impl Scope {
    fn new(kind: Kind, unit: usize) -> Scope {
        Scope {
            kind,
            unit,
            vars: FxHashMap::default(),
            class_bound: FxHashSet::default(),
            globals: FxHashSet::default(),
            nonlocals: FxHashSet::default(),
        }
    }
}

/// A frame being laid out.
struct Unit<'a> {
    parent: usize,
    locals: u32,
    cells: Vec<CellInit>,
    /// Cells of enclosing frames' variables, by variable.
    free: FxHashMap<usize, u32>,
    target: Option<&'a OnceCell<Layout>>,
}

/// A variable of a function or comprehension scope.
struct Var {
    unit: usize,
    /// Read or written from another frame: it must live in a cell.
    cell: bool,
    slot: u32,
}

/// What a name refers to, before slots are numbered.
enum Ref {
    Var { var: usize, from: usize, outer: bool },
    Global(u32),
    ClassGlobal(u32),
    ClassFree { var: usize, from: usize },
}

struct Resolver<'a, 'g> {
    globals: &'g mut GlobalNames,
    scopes: Vec<Scope>,
    units: Vec<Unit<'a>>,
    vars: Vec<Var>,
    pending: Vec<(&'a Cell<Slot>, Ref)>,
    /// Each comprehension's fresh-cell list and its variables.
    comps: Vec<(&'a OnceCell<Vec<u32>>, Vec<usize>)>,
    /// Each function frame's parameter variables.
    params: Vec<(usize, Vec<usize>)>,
}

impl<'a, 'g> Resolver<'a, 'g> {
    fn new_var(&mut self, scope: usize, name: Sym) -> usize {
        if let Some(&v) = self.scopes[scope].vars.get(&name) {
            return v;
        }
        let v = self.vars.len();
        self.vars.push(Var { unit: self.scopes[scope].unit, cell: false, slot: 0 });
        self.scopes[scope].vars.insert(name, v);
        v
    }

    fn new_unit(&mut self, target: &'a OnceCell<Layout>) -> usize {
        let parent = self.scopes.last().expect("a scope").unit;
        self.units.push(Unit {
            parent,
            locals: 0,
            cells: Vec::new(),
            free: FxHashMap::default(),
            target: Some(target),
        });
        self.units.len() - 1
    }

    /// The variable an enclosing function or comprehension binds `name` to,
    /// from scope `i` outward (class bodies skipped); `None`: a global.
    fn enclosing(&self, i: usize, name: Sym) -> Option<usize> {
        for s in self.scopes[..=i].iter().rev() {
            match s.kind {
                Kind::Class => continue,
                Kind::Module => return None,
                Kind::Function | Kind::Comprehension => {
                    if s.globals.contains(&name) {
                        return None;
                    }
                    if let Some(&v) = s.vars.get(&name) {
                        return Some(v);
                    }
                }
            }
        }
        None
    }

    fn var_ref(&mut self, var: usize, outer: bool) -> Ref {
        let from = self.scopes.last().expect("a scope").unit;
        if self.vars[var].unit != from {
            self.vars[var].cell = true;
        }
        Ref::Var { var, from, outer }
    }

    /// Resolves one use (read, write or `del`) of `name` in the innermost scope.
    fn name(&mut self, name: Sym, slot: &'a Cell<Slot>) {
        let i = self.scopes.len() - 1;
        let s = &self.scopes[i];
        let r = match s.kind {
            Kind::Module => Ref::Global(self.globals.slot(name)),
            _ if s.globals.contains(&name) => Ref::Global(self.globals.slot(name)),
            Kind::Class if s.nonlocals.contains(&name) => match self.enclosing(i - 1, name) {
                Some(v) => self.var_ref(v, true),
                None => Ref::ClassGlobal(self.globals.slot(name)),
            },
            Kind::Class if s.class_bound.contains(&name) => Ref::ClassGlobal(self.globals.slot(name)),
            Kind::Class => match self.enclosing(i - 1, name) {
                Some(var) => {
                    self.vars[var].cell = true;
                    Ref::ClassFree { var, from: s.unit }
                }
                None => Ref::ClassGlobal(self.globals.slot(name)),
            },
            Kind::Function | Kind::Comprehension => match s.vars.get(&name) {
                Some(&v) => self.var_ref(v, false),
                None => match self.enclosing(i - 1, name) {
                    Some(v) => self.var_ref(v, true),
                    None => Ref::Global(self.globals.slot(name)),
                },
            },
        };
        self.pending.push((slot, r));
    }

    fn block(&mut self, block: &'a [Stmt]) {
        for s in block {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &'a Stmt) {
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Assign(targets, value) => {
                self.expr(value);
                targets.iter().for_each(|t| self.expr(t));
            }
            StmtKind::AugAssign(t, _, v) => {
                self.expr(t);
                self.expr(v);
            }
            StmtKind::If(arms, orelse) => {
                for (c, b) in arms {
                    self.expr(c);
                    self.block(b);
                }
                if let Some(b) = orelse {
                    self.block(b);
                }
            }
            StmtKind::While(c, b, orelse) => {
                self.expr(c);
                self.block(b);
                if let Some(b) = orelse {
                    self.block(b);
                }
            }
            StmtKind::For(t, it, b, orelse) => {
                self.expr(it);
                self.expr(t);
                self.block(b);
                if let Some(b) = orelse {
                    self.block(b);
                }
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Pass | StmtKind::Global(_) | StmtKind::Nonlocal(_) => {}
            StmtKind::Return(v) => {
                if let Some(v) = v {
                    self.expr(v);
                }
            }
            StmtKind::Def(def) => {
                def.decorators.iter().for_each(|d| self.expr(d));
                self.function(def);
                self.name(def.name, &def.slot);
            }
            StmtKind::Class(class) => {
                class.decorators.iter().for_each(|d| self.expr(d));
                if let Some(b) = &class.base {
                    self.expr(b);
                }
                self.class(class);
                self.name(class.name, &class.slot);
            }
            StmtKind::With(items, b) => {
                for (ctx, target) in items {
                    self.expr(ctx);
                    if let Some(t) = target {
                        self.expr(t);
                    }
                }
                self.block(b);
            }
            StmtKind::Import(items) => {
                for (path, alias, slot) in items {
                    if let Some(n) = alias.or_else(|| path.first().copied()) {
                        self.name(n, slot);
                    }
                }
            }
            StmtKind::FromImport(_, items) => {
                for (n, alias, _, slot) in items {
                    self.name(alias.unwrap_or(*n), slot);
                }
            }
            StmtKind::Assert(c, m) => {
                self.expr(c);
                if let Some(m) = m {
                    self.expr(m);
                }
            }
            StmtKind::Raise(v) => {
                if let Some(v) = v {
                    self.expr(v);
                }
            }
            StmtKind::Try { body, handlers, orelse, finally } => {
                self.block(body);
                for h in handlers {
                    if let Some(k) = &h.kind {
                        self.expr(k);
                    }
                    if let Some(n) = h.name {
                        self.name(n, &h.slot);
                    }
                    self.block(&h.body);
                }
                for b in [orelse, finally].into_iter().flatten() {
                    self.block(b);
                }
            }
            StmtKind::Del(ts) => ts.iter().for_each(|t| self.expr(t)),
        }
    }

    /// A `def` or `lambda`: defaults in the enclosing scope, the body in its own.
    fn function(&mut self, def: &'a FuncDef) {
        for p in &def.params {
            if let Some(d) = &p.default {
                self.expr(d);
            }
        }
        let unit = self.new_unit(&def.layout);
        let mut scope = Scope::new(Kind::Function, unit);
        let mut bound = Vec::new();
        declarations(&def.body, &mut bound, &mut scope.globals, &mut scope.nonlocals);
        self.scopes.push(scope);
        let i = self.scopes.len() - 1;
        let params: Vec<usize> = def.params.iter().map(|p| self.new_var(i, p.name)).collect();
        for n in bound {
            let s = &self.scopes[i];
            if !s.globals.contains(&n) && !s.nonlocals.contains(&n) {
                self.new_var(i, n);
            }
        }
        self.params.push((unit, params));
        self.block(&def.body);
        self.scopes.pop();
    }

    fn class(&mut self, class: &'a ClassDef) {
        let unit = self.new_unit(&class.layout);
        let mut scope = Scope::new(Kind::Class, unit);
        let mut bound = Vec::new();
        declarations(&class.body, &mut bound, &mut scope.globals, &mut scope.nonlocals);
        scope.class_bound =
            bound.into_iter().filter(|n| !scope.globals.contains(n) && !scope.nonlocals.contains(n)).collect();
        self.scopes.push(scope);
        self.block(&class.body);
        self.scopes.pop();
    }

    fn expr(&mut self, e: &'a Expr) {
        match &e.kind {
            ExprKind::Name(n, slot) => self.name(*n, slot),
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Imag(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::None
            | ExprKind::Ellipsis => {}
            ExprKind::FString(parts) => self.fstring(parts),
            ExprKind::List(xs) | ExprKind::Tuple(xs) | ExprKind::Set(xs) => xs.iter().for_each(|x| self.expr(x)),
            ExprKind::Starred(x) | ExprKind::YieldFrom(x) => self.expr(x),
            ExprKind::Yield(x) => {
                if let Some(x) = x {
                    self.expr(x);
                }
            }
            // The first iterable is evaluated here; the rest is the generator function's.
            ExprKind::GenExp(def, first) => {
                self.expr(first);
                self.function(def);
            }
            ExprKind::Dict(kvs) => {
                for (k, v) in kvs {
                    self.expr(k);
                    self.expr(v);
                }
            }
            ExprKind::Attr(obj, _) => self.expr(obj),
            ExprKind::Index(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Slice(a, b, c) => {
                for x in [a, b, c].into_iter().flatten() {
                    self.expr(x);
                }
            }
            ExprKind::Call(f, args) => {
                self.expr(f);
                for a in args {
                    match a {
                        Arg::Pos(e) | Arg::Star(e) | Arg::Kw(_, e) | Arg::StarStar(e) => self.expr(e),
                    }
                }
            }
            ExprKind::Unary(_, x) | ExprKind::Not(x) => self.expr(x),
            ExprKind::Binary(_, a, b) | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Compare(first, rest) => {
                self.expr(first);
                rest.iter().for_each(|(_, x)| self.expr(x));
            }
            ExprKind::IfElse(c, a, b) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Lambda(def) => self.function(def),
            ExprKind::Comp(kind, elt, fors, fresh) => {
                let Some(first) = fors.first() else { return };
                self.expr(&first.iter);
                let unit = self.scopes.last().expect("a scope").unit;
                self.scopes.push(Scope::new(Kind::Comprehension, unit));
                let i = self.scopes.len() - 1;
                let mut bound = Vec::new();
                fors.iter().for_each(|f| targets(&f.target, &mut bound));
                let vars: Vec<usize> = bound.into_iter().map(|n| self.new_var(i, n)).collect();
                for (k, f) in fors.iter().enumerate() {
                    if k > 0 {
                        self.expr(&f.iter);
                    }
                    self.expr(&f.target);
                    f.conds.iter().for_each(|c| self.expr(c));
                }
                self.expr(elt);
                if let CompKind::Dict(v) = kind {
                    self.expr(v);
                }
                self.scopes.pop();
                self.comps.push((&**fresh, vars));
            }
        }
    }

    fn fstring(&mut self, parts: &'a [FPart]) {
        for p in parts {
            if let FPart::Field { expr, spec, .. } = p {
                self.expr(expr);
                self.fstring(spec);
            }
        }
    }

    /// The cell in frame `unit` of variable `var`: its own, or one passed
    /// down from the frame where it is defined.
    fn cell_of(&mut self, unit: usize, var: usize) -> u32 {
        if self.vars[var].unit == unit {
            return self.vars[var].slot;
        }
        if let Some(&c) = self.units[unit].free.get(&var) {
            return c;
        }
        let outer = self.cell_of(self.units[unit].parent, var);
        let u = &mut self.units[unit];
        let c = u.cells.len() as u32;
        u.cells.push(CellInit::Free(outer));
        u.free.insert(var, c);
        c
    }

    /// Numbers the slots, fills in every name and layout; returns the module's.
    fn finish(mut self) -> Layout {
        for v in &mut self.vars {
            let u = &mut self.units[v.unit];
            if v.cell {
                v.slot = u.cells.len() as u32;
                u.cells.push(CellInit::Own);
            } else {
                v.slot = u.locals;
                u.locals += 1;
            }
        }
        for (slot, r) in std::mem::take(&mut self.pending) {
            slot.set(match r {
                Ref::Global(g) => Slot::Global(g),
                Ref::ClassGlobal(g) => Slot::ClassGlobal(g),
                Ref::ClassFree { var, from } => Slot::ClassFree(self.cell_of(from, var)),
                Ref::Var { var, from, outer } => {
                    let v = &self.vars[var];
                    match (v.unit == from, v.cell, outer) {
                        (true, false, false) => Slot::Local(v.slot),
                        (true, false, true) => Slot::OuterLocal(v.slot),
                        (true, true, false) => Slot::Cell(v.slot),
                        (true, true, true) => Slot::Free(v.slot),
                        (false, ..) => Slot::Free(self.cell_of(from, var)),
                    }
                }
            });
        }
        for (fresh, vars) in &self.comps {
            let cells = vars.iter().filter(|&&v| self.vars[v].cell).map(|&v| self.vars[v].slot).collect();
            let _ = fresh.set(cells);
        }
        let mut params: FxHashMap<usize, Vec<Slot>> = FxHashMap::default();
        for (unit, ps) in &self.params {
            let slots = ps
                .iter()
                .map(|&p| {
                    let v = &self.vars[p];
                    if v.cell {
                        Slot::Cell(v.slot)
                    } else {
                        Slot::Local(v.slot)
                    }
                })
                .collect();
            params.insert(*unit, slots);
        }
        let mut module = Layout::default();
        for (i, u) in self.units.into_iter().enumerate() {
            let layout = Layout { locals: u.locals, cells: u.cells, params: params.remove(&i).unwrap_or_default() };
            match u.target {
                Some(t) => {
                    let _ = t.set(layout);
                }
                None => module = layout,
            }
        }
        module
    }
}

/// The names a scope's own statements bind (nested blocks included, nested
/// `def`/`class` bodies and comprehensions excluded), and its declarations.
fn declarations(body: &Block, bound: &mut Vec<Sym>, globals: &mut FxHashSet<Sym>, nonlocals: &mut FxHashSet<Sym>) {
    for s in body {
        match &s.kind {
            StmtKind::Assign(ts, _) => ts.iter().for_each(|t| targets(t, bound)),
            StmtKind::AugAssign(t, ..) => targets(t, bound),
            StmtKind::Del(ts) => ts.iter().for_each(|t| targets(t, bound)),
            StmtKind::For(t, _, b, orelse) => {
                targets(t, bound);
                declarations(b, bound, globals, nonlocals);
                if let Some(b) = orelse {
                    declarations(b, bound, globals, nonlocals);
                }
            }
            StmtKind::While(_, b, orelse) => {
                declarations(b, bound, globals, nonlocals);
                if let Some(b) = orelse {
                    declarations(b, bound, globals, nonlocals);
                }
            }
            StmtKind::If(arms, orelse) => {
                arms.iter().for_each(|(_, b)| declarations(b, bound, globals, nonlocals));
                if let Some(b) = orelse {
                    declarations(b, bound, globals, nonlocals);
                }
            }
            StmtKind::With(items, b) => {
                items.iter().filter_map(|(_, t)| t.as_ref()).for_each(|t| targets(t, bound));
                declarations(b, bound, globals, nonlocals);
            }
            StmtKind::Try { body, handlers, orelse, finally } => {
                declarations(body, bound, globals, nonlocals);
                for h in handlers {
                    bound.extend(h.name);
                    declarations(&h.body, bound, globals, nonlocals);
                }
                for b in [orelse, finally].into_iter().flatten() {
                    declarations(b, bound, globals, nonlocals);
                }
            }
            StmtKind::Def(def) => bound.push(def.name),
            StmtKind::Class(class) => bound.push(class.name),
            StmtKind::Import(items) => {
                bound.extend(items.iter().filter_map(|(path, alias, _)| alias.or_else(|| path.first().copied())))
            }
            StmtKind::FromImport(_, items) => bound.extend(items.iter().map(|(n, alias, ..)| alias.unwrap_or(*n))),
            StmtKind::Global(ns) => globals.extend(ns.iter().copied()),
            StmtKind::Nonlocal(ns) => nonlocals.extend(ns.iter().copied()),
            StmtKind::Expr(_)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Pass
            | StmtKind::Return(_)
            | StmtKind::Assert(..)
            | StmtKind::Raise(_) => {}
        }
    }
}

/// The names an assignment target binds (`x[i]` and `obj.a` bind none).
fn targets(e: &Expr, bound: &mut Vec<Sym>) {
    match &e.kind {
        ExprKind::Name(n, _) => bound.push(*n),
        ExprKind::Starred(x) => targets(x, bound),
        ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().for_each(|x| targets(x, bound)),
        _ => {}
    }
}
