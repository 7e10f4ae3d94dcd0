//! What a document defines, read from its syntax tree (never by running it): the
//! names in scope at a point, for completion, and the `def`s and classes with their
//! signatures and docstrings, for hover.

use crate::syntax::ast::{Block, ClassDef, Expr, ExprKind, FuncDef, ParamKind, Stmt, StmtKind};
use std::collections::BTreeMap;

/// Names bound at byte `offset`: the module's names, then those of every `def` whose
/// body holds `offset` (its parameters and its assignments), innermost last.
pub fn names_in_scope(block: &Block, offset: usize) -> Vec<String> {
    let mut out = Vec::new();
    bound_names(block, &mut out);
    let mut body = block;
    // Descend through the defs and classes around `offset`.
    while let Some(inner) = enclosing(body, offset) {
        match inner {
            Enclosing::Def(f) => {
                out.extend(f.params.iter().map(|p| p.name.name().to_string()));
                bound_names(&f.body, &mut out);
                body = &f.body;
            }
            // A class body's names are not in scope inside it methods, but are at its own level.
            Enclosing::Class(c) => {
                bound_names(&c.body, &mut out);
                body = &c.body;
            }
        }
    }
    out
}

/// The function whose call last bound `name` in scope at `offset`, when it is a plain
/// name (`t = GradientTape()`, `with GradientTape() as t`, `x = constant(…)` give
/// `GradientTape`, `GradientTape`, `constant`); None when the last binding is anything else.
pub fn constructor_of(block: &Block, name: &str, offset: usize) -> Option<String> {
    let mut found = None;
    let mut body = block;
    loop {
        last_binding(body, name, &mut found);
        match enclosing(body, offset) {
            Some(Enclosing::Def(f)) => {
                if f.params.iter().any(|p| &*p.name.name() == name) {
                    found = None;
                }
                body = &f.body;
            }
            Some(Enclosing::Class(c)) => body = &c.body,
            None => return found.flatten(),
        }
    }
}

/// Records in `found` each binding of `name` in `block`, in order (`Some(None)`: bound by
/// something other than a call of a name).
fn last_binding(block: &Block, name: &str, found: &mut Option<Option<String>>) {
    let is_name = |e: &Expr| matches!(&e.kind, ExprKind::Name(n, _) if &*n.name() == name);
    let callee = |e: &Expr| match &e.kind {
        ExprKind::Call(f, _) => match &f.kind {
            ExprKind::Name(n, _) => Some(n.name().to_string()),
            _ => None,
        },
        _ => None,
    };
    for stmt in block {
        match &stmt.kind {
            StmtKind::Assign(targets, value) if targets.iter().any(is_name) => *found = Some(callee(value)),
            StmtKind::With(items, body) => {
                for (value, target) in items {
                    if target.as_ref().is_some_and(is_name) {
                        *found = Some(callee(value));
                    }
                }
                last_binding(body, name, found);
            }
            StmtKind::If(arms, orelse) => {
                arms.iter().for_each(|(_, b)| last_binding(b, name, found));
                orelse.iter().for_each(|b| last_binding(b, name, found));
            }
            StmtKind::For(_, _, body, orelse) | StmtKind::While(_, body, orelse) => {
                last_binding(body, name, found);
                orelse.iter().for_each(|b| last_binding(b, name, found));
            }
            StmtKind::Def(f) if &*f.name.name() == name => *found = Some(None),
            StmtKind::Class(c) if &*c.name.name() == name => *found = Some(None),
            _ => {}
        }
    }
}

/// `import nn as layers` → `layers` → `nn`: each name a module import binds, with the module.
pub fn imported_modules(block: &Block) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for stmt in block {
        if let StmtKind::Import(items) = &stmt.kind {
            for (path, alias, _) in items {
                let dotted: Vec<String> = path.iter().map(|s| s.name().to_string()).collect();
                match alias {
                    Some(a) => out.insert(a.name().to_string(), dotted.join(".")),
                    None => out.insert(dotted[0].clone(), dotted[0].clone()),
                };
            }
        }
    }
    out
}

/// The hover text of `name` if the document defines it as a `def` or class in scope at
/// `offset`: its signature in a Python code block, then its docstring.
pub fn hover_text(block: &Block, text: &str, name: &str, offset: usize) -> Option<String> {
    let mut found = None;
    let mut body = block;
    loop {
        for stmt in body {
            match &stmt.kind {
                StmtKind::Def(f) if &*f.name.name() == name => found = Some(describe_def(f, text)),
                StmtKind::Class(c) if &*c.name.name() == name => found = Some(describe_class(c, text)),
                _ => {}
            }
        }
        match enclosing(body, offset) {
            Some(Enclosing::Def(f)) => body = &f.body,
            Some(Enclosing::Class(c)) => body = &c.body,
            None => return found,
        }
    }
}

enum Enclosing<'a> {
    Def(&'a FuncDef),
    Class(&'a ClassDef),
}

/// The `def` or class statement of `block` whose text holds `offset`.
fn enclosing(block: &Block, offset: usize) -> Option<Enclosing<'_>> {
    let holds = |s: &Stmt| (s.span.start as usize) <= offset && offset <= s.span.end as usize;
    block.iter().filter(|s| holds(s)).find_map(|s| match &s.kind {
        StmtKind::Def(f) => Some(Enclosing::Def(f)),
        StmtKind::Class(c) => Some(Enclosing::Class(c)),
        _ => None,
    })
}

/// The names the statements of `block` bind at their own level (nested blocks of `if`,
/// `for`, `while`, `with` and `try` included, as Python's scoping has it).
fn bound_names(block: &Block, out: &mut Vec<String>) {
    for stmt in block {
        match &stmt.kind {
            StmtKind::Def(f) => out.push(f.name.name().to_string()),
            StmtKind::Class(c) => out.push(c.name.name().to_string()),
            StmtKind::Assign(targets, _) => targets.iter().for_each(|t| target_names(t, out)),
            StmtKind::AugAssign(t, _, _) => target_names(t, out),
            StmtKind::For(t, _, body, orelse) => {
                target_names(t, out);
                bound_names(body, out);
                orelse.iter().for_each(|b| bound_names(b, out));
            }
            StmtKind::While(_, body, orelse) => {
                bound_names(body, out);
                orelse.iter().for_each(|b| bound_names(b, out));
            }
            StmtKind::If(arms, orelse) => {
                arms.iter().for_each(|(_, b)| bound_names(b, out));
                orelse.iter().for_each(|b| bound_names(b, out));
            }
            StmtKind::With(items, body) => {
                items.iter().filter_map(|(_, t)| t.as_ref()).for_each(|t| target_names(t, out));
                bound_names(body, out);
            }
            StmtKind::Try { body, handlers, orelse, finally } => {
                bound_names(body, out);
                for h in handlers {
                    out.extend(h.name.map(|n| n.name().to_string()));
                    bound_names(&h.body, out);
                }
                orelse.iter().chain(finally).for_each(|b| bound_names(b, out));
            }
            StmtKind::Import(items) => {
                for (path, alias, _) in items {
                    out.extend(alias.or(path.first().copied()).map(|s| s.name().to_string()));
                }
            }
            StmtKind::FromImport(_, items) => {
                out.extend(items.iter().map(|(name, alias, _, _)| alias.unwrap_or(*name).name().to_string()))
            }
            _ => {}
        }
    }
}

/// The names an assignment target binds (`a`, `a, (b, *c)`; not `x[i]` or `o.a`).
fn target_names(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name(n, _) => out.push(n.name().to_string()),
        ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().for_each(|x| target_names(x, out)),
        ExprKind::Starred(x) => target_names(x, out),
        _ => {}
    }
}

/// `def f(a, b=1, *args, k, **kw)` as written (defaults as their source text).
fn signature(f: &FuncDef, text: &str) -> String {
    let mut parts = Vec::new();
    let mut star_written = false;
    for p in &f.params {
        let name = p.name.name();
        let default = p.default.as_ref().map(|d| format!("={}", source_of(d, text)));
        match p.kind {
            ParamKind::Normal => parts.push(format!("{name}{}", default.unwrap_or_default())),
            ParamKind::VarArgs => {
                star_written = true;
                parts.push(format!("*{name}"));
            }
            ParamKind::KwOnly => {
                if !star_written {
                    star_written = true;
                    parts.push("*".into());
                }
                parts.push(format!("{name}{}", default.unwrap_or_default()));
            }
            ParamKind::VarKw => parts.push(format!("**{name}")),
        }
    }
    format!("def {}({})", f.name.name(), parts.join(", "))
}

fn source_of(e: &Expr, text: &str) -> String {
    text.get(e.span.start as usize..e.span.end as usize).unwrap_or("…").to_string()
}

fn with_doc(code: String, doc: Option<String>) -> String {
    match doc {
        Some(d) => format!("```python\n{code}\n```\n\n{d}"),
        None => format!("```python\n{code}\n```"),
    }
}

fn describe_def(f: &FuncDef, text: &str) -> String {
    // The parser keeps a def's docstring apart from its body, already cleaned (help/docstring.rs).
    with_doc(signature(f, text), f.doc.as_deref().map(String::from))
}

fn describe_class(c: &ClassDef, text: &str) -> String {
    let base = c.base.as_ref().map(|b| format!("({})", source_of(b, text))).unwrap_or_default();
    let init = c.body.iter().find_map(|s| match &s.kind {
        StmtKind::Def(f) if &*f.name.name() == "__init__" => Some(signature(f, text)),
        _ => None,
    });
    let code = match init {
        Some(sig) => format!("class {}{base}\n    {sig}", c.name.name()),
        None => format!("class {}{base}", c.name.name()),
    };
    with_doc(code, c.doc.as_deref().map(String::from))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "import nn as layers\nimport optim\nrate = 0.1\n\
        def step(w, g, lr=rate, *rest, clip, **kw):\n    \"\"\"One update.\n\n    Returns w.\"\"\"\n    \
        delta = lr * g\n    return w - delta\n\nclass Model(layers.Module):\n    def __init__(self, n):\n        \
        self.n = n\nfor i, (a, b) in []:\n    pass\n";

    #[test]
    fn scope_follows_the_cursor() {
        let block = crate::syntax::parse_module(DOC).expect("parses");
        let top = names_in_scope(&block, 0);
        assert_eq!(top, ["layers", "optim", "rate", "step", "Model", "i", "a", "b"]);
        let inside = names_in_scope(&block, DOC.find("return").unwrap());
        assert!(inside.ends_with(&["w", "g", "lr", "rest", "clip", "kw", "delta"].map(String::from)), "{inside:?}");
        let modules = imported_modules(&block);
        assert_eq!(modules.get("layers").map(String::as_str), Some("nn"));
    }

    #[test]
    fn a_name_made_by_a_call_knows_its_constructor() {
        let doc = "t = 1\nwith GradientTape() as t:\n    x = constant(1.0)\ny = x.numpy()\ndef f(t):\n    return t\n";
        let block = crate::syntax::parse_module(doc).expect("parses");
        assert_eq!(constructor_of(&block, "t", 0).as_deref(), Some("GradientTape"));
        assert_eq!(constructor_of(&block, "x", 0).as_deref(), Some("constant"));
        assert_eq!(constructor_of(&block, "y", 0), None); // a method call
        assert_eq!(constructor_of(&block, "t", doc.find("return").unwrap()), None);
        // a parameter
    }

    #[test]
    fn hover_shows_signature_and_docstring() {
        let block = crate::syntax::parse_module(DOC).expect("parses");
        let h = hover_text(&block, DOC, "step", 0).expect("a def");
        assert_eq!(h, "```python\ndef step(w, g, lr=rate, *rest, clip, **kw)\n```\n\nOne update.\n\nReturns w.");
        let h = hover_text(&block, DOC, "Model", 0).expect("a class");
        assert_eq!(h, "```python\nclass Model(layers.Module)\n    def __init__(self, n)\n```");
        assert!(hover_text(&block, DOC, "delta", 0).is_none());
    }
}
