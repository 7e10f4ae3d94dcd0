//! Expressions to Python text: the same syntax (DGL is a Python subset), builtin names
//! through [`super::names`], f-string fields through DGL's `str`/`format`, and the tensor
//! methods TF lacks (`item`, `numpy`, `tolist`) through the support module.

use super::names::{self, Mapping};
use super::Exporter;
use crate::syntax::ast::*;

/// Binding strength, as in Python's grammar (higher binds tighter).
const LAMBDA: u8 = 0;
const IFELSE: u8 = 1;
const OR: u8 = 2;
const AND: u8 = 3;
const NOT: u8 = 4;
const CMP: u8 = 5;
const UNARY: u8 = 12;
const POW: u8 = 13;
const ATOM: u8 = 14;

fn binop_prec(op: BinOp) -> u8 {
    match op {
        BinOp::BitOr => 6,
        BinOp::BitXor => 7,
        BinOp::BitAnd => 8,
        BinOp::LShift | BinOp::RShift => 9,
        BinOp::Add | BinOp::Sub => 10,
        BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod | BinOp::MatMul => 11,
        BinOp::Pow => POW,
    }
}

fn cmp_text(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::In => "in",
        CmpOp::NotIn => "not in",
        CmpOp::Is => "is",
        CmpOp::IsNot => "is not",
    }
}

/// A Python string literal for `s`, in double quotes unless it holds more of them than
/// single ones.
pub fn py_str(s: &str) -> String {
    py_str_quoted(s, if s.contains('"') && !s.contains('\'') { '\'' } else { '"' })
}

/// A Python string literal for `s` in the quote `q`.
pub fn py_str_quoted(s: &str, q: char) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// A float literal Python reads back to the same number.
fn py_float(f: f64) -> String {
    // A literal too large for a float (`1e400`) is infinite; Python has no literal for it.
    if f.is_nan() {
        return "float(\"nan\")".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "float(\"inf\")" } else { "-float(\"inf\")" }.into();
    }
    let s = format!("{f:?}");
    if s.contains(['.', 'e', 'E', 'n', 'i']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// An imaginary literal as Python writes it (`4j`, `1.5j`, `1e+16j`); one too large for a
/// float (`1e400j`) as the complex number it is, as Python has no literal for it.
fn py_imag(f: f64) -> String {
    if f.is_infinite() {
        return "complex(0.0, float(\"inf\"))".into();
    }
    format!("{}j", crate::runtime::complex::part_text(f, false))
}

/// How deep an exported expression may nest (CPython 3.11 fails near 3000 levels).
pub const MAX_PYTHON_EXPR_DEPTH: usize = 1000;

impl Exporter<'_> {
    /// `e` as Python text.
    pub fn expr(&mut self, e: &Expr) -> String {
        self.expr_at(e, LAMBDA)
    }

    /// `obj` as the receiver of an attribute (`obj.name`): an atom, and an int literal in
    /// parentheses, since Python reads `5.__class__` as the float `5.` and a name.
    fn receiver(&mut self, obj: &Expr) -> String {
        match obj.kind {
            ExprKind::Int(i) => format!("({i})"),
            _ => self.expr_at(obj, ATOM),
        }
    }

    /// `e` as Python text, parenthesised if it binds more loosely than `min`.
    fn expr_at(&mut self, e: &Expr, min: u8) -> String {
        let (text, prec) = self.expr_prec(e);
        if prec < min {
            format!("({text})")
        } else {
            text
        }
    }

    fn expr_prec(&mut self, e: &Expr) -> (String, u8) {
        // CPython's compiler recurses once per level of an expression and stops near 3000
        // ("maximum recursion depth exceeded during compilation"): a deeper expression,
        // which DGL evaluates, would give a script Python cannot compile.
        self.expr_depth += 1;
        if self.expr_depth == MAX_PYTHON_EXPR_DEPTH {
            self.refuse(
                e.span,
                format!("an expression nested more than {MAX_PYTHON_EXPR_DEPTH} deep"),
                "Python's compiler cannot compile it; split it with intermediate variables".into(),
            );
        }
        let out = self.expr_prec_inner(e);
        self.expr_depth -= 1;
        out
    }

    fn expr_prec_inner(&mut self, e: &Expr) -> (String, u8) {
        let text = match &e.kind {
            ExprKind::Name(n, _) => self.name(&n.name(), e.span),
            ExprKind::Int(i) => i.to_string(),
            ExprKind::Float(f) => py_float(*f),
            ExprKind::Imag(f) => py_imag(*f),
            ExprKind::Str(s) if self.in_fstring => py_str_quoted(s, '\''),
            ExprKind::Str(s) => py_str(s),
            ExprKind::Bool(b) => (if *b { "True" } else { "False" }).to_string(),
            ExprKind::None => "None".to_string(),
            ExprKind::Ellipsis => "...".to_string(),
            ExprKind::FString(parts) => self.fstring(parts),
            ExprKind::List(items) => format!("[{}]", self.list(items)),
            ExprKind::Tuple(items) => match items.len() {
                1 => format!("({},)", self.expr(&items[0])),
                _ => format!("({})", self.list(items)),
            },
            // DGL's sets keep insertion order (Python's print in hash order): dgl_tf.set.
            ExprKind::Set(items) => format!("dgl_tf.set([{}])", self.list(items)),
            ExprKind::Dict(pairs) => {
                let parts: Vec<String> =
                    pairs.iter().map(|(k, v)| format!("{}: {}", self.expr(k), self.expr(v))).collect();
                format!("{{{}}}", parts.join(", "))
            }
            ExprKind::Starred(x) => format!("*{}", self.expr_at(x, ATOM)),
            ExprKind::Yield(None) => return ("(yield)".into(), ATOM),
            ExprKind::Yield(Some(x)) => return (format!("(yield {})", self.expr(x)), ATOM),
            ExprKind::YieldFrom(x) => return (format!("(yield from {})", self.expr(x)), ATOM),
            ExprKind::GenExp(def, first) => format!("({})", self.genexp(def, first)),
            ExprKind::Attr(obj, name) => match self.foreign_attr(e) {
                Some(text) => text,
                None => self.attr(obj, &name.name(), e.span),
            },
            ExprKind::Index(obj, index) => {
                let obj = self.expr_at(obj, ATOM);
                let index = match &index.kind {
                    ExprKind::Tuple(items) if !items.is_empty() => {
                        let parts: Vec<String> = items.iter().map(|i| self.subscript(i)).collect();
                        if parts.len() == 1 {
                            format!("{},", parts[0])
                        } else {
                            parts.join(", ")
                        }
                    }
                    _ => self.subscript(index),
                };
                format!("{obj}[{index}]")
            }
            ExprKind::Slice(..) => self.subscript(e),
            ExprKind::Call(f, args) => self.call(f, args, e.span),
            ExprKind::Unary(op, x) => {
                let sym = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Pos => "+",
                    UnaryOp::Invert => "~",
                };
                return (format!("{sym}{}", self.expr_at(x, UNARY)), UNARY);
            }
            ExprKind::Not(x) => return (format!("not {}", self.expr_at(x, NOT)), NOT),
            ExprKind::Binary(op, a, b) => {
                let p = binop_prec(*op);
                let (l, r) = if *op == BinOp::Pow {
                    (self.expr_at(a, ATOM), self.expr_at(b, UNARY))
                } else {
                    (self.expr_at(a, p), self.expr_at(b, p + 1))
                };
                return (format!("{l} {} {r}", op.symbol()), p);
            }
            ExprKind::Compare(first, rest) => {
                let mut s = self.expr_at(first, CMP + 1);
                for (op, x) in rest {
                    s.push_str(&format!(" {} {}", cmp_text(*op), self.expr_at(x, CMP + 1)));
                }
                return (s, CMP);
            }
            ExprKind::And(a, b) => return (format!("{} and {}", self.expr_at(a, AND), self.expr_at(b, AND + 1)), AND),
            ExprKind::Or(a, b) => return (format!("{} or {}", self.expr_at(a, OR), self.expr_at(b, OR + 1)), OR),
            ExprKind::IfElse(cond, a, b) => {
                let s =
                    format!("{} if {} else {}", self.expr_at(a, OR), self.expr_at(cond, OR), self.expr_at(b, IFELSE));
                return (s, IFELSE);
            }
            ExprKind::Lambda(def) => {
                self.push_scope(super::scope::function_scope(def));
                self.fn_depth += 1;
                let params = self.params(&def.params);
                let body = match def.body.first().map(|s| &s.kind) {
                    Some(StmtKind::Return(Some(x))) => self.expr(x),
                    Some(StmtKind::Expr(x)) => self.expr(x),
                    _ => "None".to_string(),
                };
                self.fn_depth -= 1;
                self.pop_scope();
                let head = if params.is_empty() { "lambda".to_string() } else { format!("lambda {params}") };
                return (format!("{head}: {body}"), LAMBDA);
            }
            ExprKind::Comp(kind, elt, fors, _) => {
                self.push_scope(super::scope::comp_scope(fors));
                let elt_text = match kind {
                    CompKind::Dict(value) => format!("{}: {}", self.expr(elt), self.expr(value)),
                    _ => self.expr(elt),
                };
                let tail = self.comp_fors(fors);
                self.pop_scope();
                match kind {
                    CompKind::List => format!("[{elt_text}{tail}]"),
                    CompKind::Set => format!("dgl_tf.set({elt_text}{tail})"),
                    CompKind::Dict(_) => format!("{{{elt_text}{tail}}}"),
                }
            }
        };
        (text, ATOM)
    }

    fn list(&mut self, items: &[Expr]) -> String {
        items.iter().map(|i| self.expr(i)).collect::<Vec<_>>().join(", ")
    }

    fn subscript(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Slice(a, b, c) => {
                let mut s = String::new();
                if let Some(a) = a {
                    s.push_str(&self.expr(a));
                }
                s.push(':');
                if let Some(b) = b {
                    s.push_str(&self.expr(b));
                }
                if let Some(c) = c {
                    s.push(':');
                    s.push_str(&self.expr(c));
                }
                s
            }
            _ => self.expr(e),
        }
    }

    fn comp_fors(&mut self, fors: &[CompFor]) -> String {
        let mut s = String::new();
        for f in fors {
            s.push_str(&format!(" for {} in {}", self.target(&f.target), self.expr_at(&f.iter, OR)));
            for c in &f.conds {
                s.push_str(&format!(" if {}", self.expr_at(c, OR)));
            }
        }
        s
    }

    /// A generator expression back from its desugared form (parser/expr.rs `genexp`): loops
    /// and ifs around `yield elt`, the first loop over the parameter `.0`.
    fn genexp(&mut self, def: &FuncDef, first: &Expr) -> String {
        let mut fors: Vec<CompFor> = vec![];
        let mut body = &def.body;
        let elt = loop {
            match body.first().map(|s| &s.kind) {
                Some(StmtKind::For(target, iter, inner, _)) => {
                    let iter = if fors.is_empty() { first.clone() } else { iter.clone() };
                    fors.push(CompFor { target: target.clone(), iter, conds: vec![] });
                    body = inner;
                }
                Some(StmtKind::If(arms, None)) if arms.len() == 1 => {
                    if let Some(f) = fors.last_mut() {
                        f.conds.push(arms[0].0.clone());
                    }
                    body = &arms[0].1;
                }
                Some(StmtKind::Expr(Expr { kind: ExprKind::Yield(Some(x)), .. })) => break (**x).clone(),
                _ => break Expr { kind: ExprKind::None, span: def.span },
            }
        };
        self.push_scope(super::scope::comp_scope(&fors));
        let elt = self.expr(&elt);
        let tail = self.comp_fors(&fors);
        self.pop_scope();
        format!("{elt}{tail}")
    }

    /// An assignment or loop target (a name, `x[i]`, `obj.a`, a tuple of them).
    pub fn target(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Tuple(items) | ExprKind::List(items) if !items.is_empty() => {
                let parts: Vec<String> = items.iter().map(|i| self.inner_target(i)).collect();
                if parts.len() == 1 {
                    format!("{},", parts[0])
                } else {
                    parts.join(", ")
                }
            }
            _ => self.inner_target(e),
        }
    }

    /// A target inside a tuple target: a nested tuple keeps its parentheses.
    fn inner_target(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Tuple(_) | ExprKind::List(_) => format!("({})", self.target(e)),
            ExprKind::Starred(x) => format!("*{}", self.inner_target(x)),
            ExprKind::Name(n, _) => self.local_name(&n.name()),
            ExprKind::Attr(obj, n) => format!("{}.{}", self.receiver(obj), n.name()),
            _ => self.expr_at(e, ATOM),
        }
    }

    /// Parameters of a def or lambda (a bare `*` before keyword-only ones).
    pub fn params(&mut self, params: &[Param]) -> String {
        let mut parts = vec![];
        let mut star = false;
        for p in params {
            let name = self.local_name(&p.name.name());
            match p.kind {
                ParamKind::VarArgs => {
                    star = true;
                    parts.push(format!("*{name}"));
                }
                ParamKind::KwOnly if !star => {
                    star = true;
                    parts.push("*".into());
                    parts.push(self.param_with_default(&name, p));
                }
                ParamKind::VarKw => parts.push(format!("**{name}")),
                _ => parts.push(self.param_with_default(&name, p)),
            }
        }
        parts.join(", ")
    }

    fn param_with_default(&mut self, name: &str, p: &Param) -> String {
        match &p.default {
            Some(d) => format!("{name}={}", self.expr(d)),
            None => name.to_string(),
        }
    }

    /// A name read: the user's binding, else the builtin's exported form.
    fn name(&mut self, n: &str, span: crate::source::Span) -> String {
        if self.is_bound(n) {
            if let Some(source) = self.foreign_values.get(n).cloned() {
                return self.source_ref(&source, span);
            }
            if let Some(path) = self.foreign_modules.get(n).cloned() {
                // A bridge module used as a value: TF's (or NumPy's) own module.
                let lib = super::foreign_library(&path);
                let shown = lib.shown(&path);
                return if lib.alias == "np" { format!("__import__('numpy'){}", &shown[2..]) } else { shown };
            }
            return self.local_name(n);
        }
        self.builtin_ref(n, span)
    }

    /// The exported form of DGL's builtin `n`.
    fn builtin_ref(&mut self, n: &str, span: crate::source::Span) -> String {
        if let Some((_, nearest)) = names::FIGURES.iter().find(|(f, _)| *f == n) {
            self.refuse_inspection(span, format!("`{n}` (DGL's figures)"), format!("nearest in Python: {nearest}"));
            return n.to_string();
        }
        let lazy = crate::runtime::import::LAZY_BUILTINS.iter().find(|(b, _)| *b == n);
        if let (Some((_, m)), false) = (lazy, names::is_override(n)) {
            if !self.lazy.iter().any(|l| l == m) {
                self.lazy.push(m.to_string());
            }
            return format!("dgl_stdlib.{m}.{n}");
        }
        match names::builtin(n) {
            Some(Mapping::Python) | None => n.to_string(),
            Some(Mapping::Expr(e)) => e,
            Some(Mapping::Refused(nearest)) if names::INSPECTION.contains(&n) => {
                self.refuse_inspection(span, format!("`{n}` (DGL only)"), nearest);
                n.to_string()
            }
            Some(Mapping::Refused(nearest)) => {
                self.refuse(span, format!("`{n}` (DGL only)"), nearest);
                n.to_string()
            }
        }
    }

    /// A name the program binds, renamed if it would hide a name the script itself needs.
    pub fn local_name(&self, n: &str) -> String {
        if names::RESERVED.contains(&n) {
            format!("{n}_")
        } else {
            n.to_string()
        }
    }

    /// A value `import tensorflow as tf` (or numpy) gives a name: the table's source, a
    /// builtin (`reduce_sum`) or a stdlib module's attribute (`nn.Dense`).
    fn source_ref(&mut self, source: &str, span: crate::source::Span) -> String {
        match source.split_once('.') {
            Some(("linalg", attr)) => format!("tf.linalg.{attr}"),
            // The TF-only natives (`tf.print`) are TF's own functions; `tf.Variable` makes
            // Variables whose `name` reads as TF's, unlike DGL's `Variable` (dgl_tf.TFVariable).
            Some(("_tf_native", "Variable")) => "dgl_tf.TFVariable".into(),
            Some(("_tf_native", attr)) => format!("tf.{attr}"),
            Some(("_tf_errors", attr)) => format!("tf.errors.{attr}"),
            // tf.math's segment reductions and their kin follow TF's semantics: TF's own ops.
            Some(("_segments", attr)) => format!("tf.math.{attr}"),
            // Ragged and sparse tensors follow TF's: TF's own classes and functions.
            Some(("_ragged", "RaggedTensor")) => "tf.RaggedTensor".to_string(),
            Some(("_ragged", attr)) => format!("tf.ragged.{}", attr.trim_start_matches("ragged_")),
            Some(("_sparse", attr)) => format!("tf.sparse.{attr}"),
            // DGL draws the model's graph itself; Keras's needs pydot and Graphviz: a picture,
            // like DGL's figures, so `--drop-inspection` may leave it out.
            Some(("_keras_utils", "plot_model")) => {
                self.refuse_inspection(
                    span,
                    "`keras.utils.plot_model` (DGL's drawing)".into(),
                    "nearest in TensorFlow: Keras's own `keras.utils.plot_model`, which needs pydot and Graphviz".into(),
                );
                "plot_model".into()
            }
            Some((module @ ("math" | "time" | "sys"), attr)) => {
                if !self.py_modules.iter().any(|l| l == module) {
                    self.py_modules.push(module.to_string());
                }
                format!("{module}.{attr}")
            }
            Some((module, attr)) => {
                if !self.lazy.iter().any(|l| l == module) {
                    self.lazy.push(module.to_string());
                }
                format!("dgl_stdlib.{module}.{attr}")
            }
            None => self.builtin_ref(source, span),
        }
    }

    /// `tf.keras.layers.Dense` where `tf` is `import tensorflow as tf`: the DGL value the
    /// import bridge binds (src/builtins/modules/tensorflow.rs), exported as that value is.
    /// None when `e` is no such chain.
    fn foreign_attr(&mut self, e: &Expr) -> Option<String> {
        let mut parts = vec![];
        let mut x = e;
        while let ExprKind::Attr(obj, n) = &x.kind {
            parts.push(n.name().to_string());
            x = obj;
        }
        let ExprKind::Name(root, _) = &x.kind else { return None };
        let root = root.name();
        let mut path = self.foreign_modules.get(&*root)?.clone();
        if !self.is_bound(&root) {
            return None;
        }
        parts.reverse();
        let lib = super::foreign_library(&path);
        for (i, attr) in parts.iter().enumerate() {
            let child = format!("{path}.{attr}");
            if lib.modules().contains(&child.as_str()) {
                path = child;
                continue;
            }
            let Some(entry) = lib.entries(&path).find(|en| en.name == attr.as_str()) else {
                let shown = lib.shown(&child);
                self.refuse(e.span, format!("`{shown}`"), "DGL has no such name (its import bridge lacks it)".into());
                return Some(format!("{}.{}", lib.shown(&path), parts[i..].join(".")));
            };
            // Reached through `tf.`, these builtins follow TF's dtype rules in DGL too: TF's own op.
            let value = if lib.alias == "tf" && names::TF_RULES_EXPORT_AS_TF.contains(&entry.source) {
                lib.shown(&child)
            } else if lib.alias == "np" {
                // NumPy's functions give NumPy values in DGL as in NumPy: NumPy's own.
                format!("__import__('numpy'){}", &lib.shown(&child)[2..])
            } else {
                self.source_ref(entry.source, e.span)
            };
            let rest: Vec<&String> = parts[i + 1..].iter().collect();
            return Some(if rest.is_empty() {
                value
            } else {
                format!("{value}.{}", rest.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("."))
            });
        }
        // A module itself, used as a value: TF's own module of that name.
        Some(lib.shown(&path).replacen(lib.alias, if lib.alias == "np" { "np" } else { "tf" }, 1))
    }

    fn attr(&mut self, obj: &Expr, name: &str, span: crate::source::Span) -> String {
        if let Some((_, nearest)) = names::TAPE_METHODS.iter().find(|(m, _)| *m == name) {
            if self.is_tape(obj) {
                self.refuse_inspection(span, format!("`tape.{name}`"), nearest.to_string());
            }
        }
        if name == "name" {
            // A Variable's name without TF's `:0` suffix, as DGL shows it.
            return format!("dgl_tf.name({})", self.expr(obj));
        }
        format!("{}.{name}", self.receiver(obj))
    }

    fn call(&mut self, f: &Expr, args: &[Arg], span: crate::source::Span) -> String {
        if let Some(text) = self.distributed_call(f, args, span) {
            return text;
        }
        // The tensor methods TF's tensors lack go through dgl_tf, which calls an object's
        // own method when it is not a tensor.
        if let ExprKind::Attr(obj, m) = &f.kind {
            let m = m.name();
            if matches!(&*m, "item" | "numpy" | "tolist") && args.is_empty() {
                return format!("dgl_tf.{m}({})", self.expr(obj));
            }
        }
        let callee = self.expr_at(f, ATOM);
        let args = self.call_args_renamed(args, names::keyword_renames(&callee));
        format!("{callee}({args})")
    }

    /// The arguments of a call, as Python text between its parentheses.
    pub(super) fn call_args(&mut self, args: &[Arg]) -> String {
        self.call_args_renamed(args, &[])
    }

    /// [`Self::call_args`], with the keywords the called TF op spells differently renamed
    /// (`(DGL's, TF's)` pairs).
    fn call_args_renamed(&mut self, args: &[Arg], renames: &[(&str, &str)]) -> String {
        let parts: Vec<String> = args
            .iter()
            .map(|a| match a {
                Arg::Pos(x) => self.expr(x),
                Arg::Star(x) => format!("*{}", self.expr_at(x, ATOM)),
                Arg::Kw(k, x) => {
                    let k = k.name();
                    let k = renames.iter().find(|(d, _)| **d == *k).map_or(&*k, |(_, t)| t);
                    format!("{k}={}", self.expr(x))
                }
                Arg::StarStar(x) => format!("**{}", self.expr_at(x, ATOM)),
            })
            .collect();
        parts.join(", ")
    }

    /// A format spec (which may hold fields of its own) as a Python string expression.
    fn spec(&mut self, spec: &[FPart]) -> String {
        match spec {
            [FPart::Text(t)] => py_str_quoted(t, '\''),
            _ => {
                let outer = std::mem::replace(&mut self.in_fstring, true);
                let s = self.fstring(spec);
                self.in_fstring = outer;
                s
            }
        }
    }

    /// An f-string whose fields go through DGL's `str`, `repr` and `format` (imported from
    /// dgl_tf), so tensors and floats print as DGL prints them.
    fn fstring(&mut self, parts: &[FPart]) -> String {
        let mut pieces: Vec<(bool, String)> = vec![]; // (is_field, text)
        for p in parts {
            match p {
                FPart::Text(t) => pieces.push((false, t.to_string())),
                FPart::Field { expr, repr, spec } => {
                    let outer = std::mem::replace(&mut self.in_fstring, true);
                    let x = self.expr(expr);
                    self.in_fstring = outer;
                    let field = if *repr && spec.is_empty() {
                        format!("repr({x})")
                    } else if *repr {
                        let spec = self.spec(spec);
                        format!("format(repr({x}), {spec})")
                    } else if spec.is_empty() {
                        format!("str({x})")
                    } else if let Some(t) = native_spec(spec) {
                        // A spec with an explicit presentation type formats as Python does
                        // (and a scalar tensor through NumPy): the field stays as written.
                        pieces.push((true, format!("{x}:{t}")));
                        continue;
                    } else {
                        let spec = self.spec(spec);
                        format!("format({x}, {spec})")
                    };
                    pieces.push((true, field));
                }
            }
        }
        if pieces.iter().all(|(f, _)| !f) {
            return py_str(&pieces.iter().map(|(_, t)| t.as_str()).collect::<String>());
        }
        // Python 3.11 allows neither the f-string's quote nor a backslash inside a field:
        // such fields make the string a concatenation instead.
        let quote = '"';
        if pieces.iter().any(|(f, t)| *f && (t.contains(quote) || t.contains('\\') || t.contains('#'))) {
            let items: Vec<String> = pieces.iter().map(|(f, t)| if *f { t.clone() } else { py_str(t) }).collect();
            return format!("({})", items.join(" + "));
        }
        let mut s = String::from("f\"");
        for (field, t) in pieces {
            if field {
                s.push('{');
                s.push_str(&t);
                s.push('}');
            } else {
                let lit = py_str(&t);
                let inner = &lit[1..lit.len() - 1];
                let inner = if lit.starts_with('\'') {
                    inner.replace("\\'", "'").replace('"', "\\\"")
                } else {
                    inner.to_string()
                };
                s.push_str(&inner.replace('{', "{{").replace('}', "}}"));
            }
        }
        s.push('"');
        s
    }
}

/// A literal format spec that Python formats as DGL does: one ending in an explicit
/// presentation type other than the general ones (`.4f`, `2d`, `.1%`, `>8s`), with no nested
/// field. DGL's text differs from Python's only where no type (or `g`, `n`) is given.
fn native_spec(spec: &[FPart]) -> Option<String> {
    let [FPart::Text(t)] = spec else { return None };
    let last = t.chars().last()?;
    ("bcdeEfFosxX%".contains(last) && !t.contains(['{', '}', '"', '\'', '\\'])).then(|| t.to_string())
}
