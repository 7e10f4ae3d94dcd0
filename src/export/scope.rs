//! Which names a program binds, scope by scope, so that the exporter tells the user's names
//! from DGL's builtins (a user's `abs = 3` is theirs; an unbound `abs` is the builtin).

use crate::syntax::ast::*;
use std::collections::HashSet;

/// The names bound at module level: assignments, defs, classes, imports, loop and `with`
/// targets, `except … as` names, and names a function declares `global`.
pub fn module_scope(body: &[Stmt]) -> HashSet<String> {
    let mut names = HashSet::new();
    block(body, &mut names, true);
    names
}

/// The names a call of `def` binds: its parameters and what its body binds (minus names it
/// declares `global`).
pub fn function_scope(def: &FuncDef) -> HashSet<String> {
    let mut names: HashSet<String> = def.params.iter().map(|p| p.name.name().to_string()).collect();
    block(&def.body, &mut names, false);
    for g in &def.globals {
        names.remove(&*g.name());
    }
    names
}

/// The names a class body binds (visible in the class body only, not in its methods).
pub fn class_scope(class: &ClassDef) -> HashSet<String> {
    let mut names = HashSet::new();
    block(&class.body, &mut names, false);
    names
}

/// The loop variables of a comprehension.
pub fn comp_scope(fors: &[CompFor]) -> HashSet<String> {
    let mut names = HashSet::new();
    for f in fors {
        target(&f.target, &mut names);
    }
    names
}

fn block(body: &[Stmt], names: &mut HashSet<String>, module: bool) {
    for s in body {
        stmt(s, names, module);
    }
}

fn stmt(s: &Stmt, names: &mut HashSet<String>, module: bool) {
    match &s.kind {
        StmtKind::Assign(targets, _) => targets.iter().for_each(|t| target(t, names)),
        StmtKind::AugAssign(t, _, _) => target(t, names),
        StmtKind::If(arms, orelse) => {
            arms.iter().for_each(|(_, b)| block(b, names, module));
            orelse.iter().for_each(|b| block(b, names, module));
        }
        StmtKind::While(_, b, orelse) => {
            block(b, names, module);
            orelse.iter().for_each(|b| block(b, names, module));
        }
        StmtKind::For(t, _, b, orelse) => {
            target(t, names);
            block(b, names, module);
            orelse.iter().for_each(|b| block(b, names, module));
        }
        StmtKind::Def(def) => {
            names.insert(def.name.name().to_string());
            if module {
                globals_of(&def.body, &def.globals, names);
            }
        }
        StmtKind::Class(c) => {
            names.insert(c.name.name().to_string());
        }
        StmtKind::With(items, b) => {
            items.iter().filter_map(|(_, t)| t.as_ref()).for_each(|t| target(t, names));
            block(b, names, module);
        }
        StmtKind::Import(items) => {
            for (path, alias, _) in items {
                let bound = alias.as_ref().map(|a| a.name().to_string()).unwrap_or_else(|| path[0].name().to_string());
                names.insert(bound);
            }
        }
        StmtKind::FromImport(_, items) => {
            for (n, alias, _, _) in items {
                names.insert(alias.as_ref().unwrap_or(n).name().to_string());
            }
        }
        StmtKind::Try { body, handlers, orelse, finally } => {
            block(body, names, module);
            for h in handlers {
                if let Some(n) = &h.name {
                    names.insert(n.name().to_string());
                }
                block(&h.body, names, module);
            }
            orelse.iter().for_each(|b| block(b, names, module));
            finally.iter().for_each(|b| block(b, names, module));
        }
        StmtKind::Global(ns) if module => ns.iter().for_each(|n| {
            names.insert(n.name().to_string());
        }),
        _ => {}
    }
}

/// Names a function (or a function nested in it) declares `global`: module names too.
fn globals_of(body: &[Stmt], globals: &[crate::intern::Sym], names: &mut HashSet<String>) {
    for g in globals {
        names.insert(g.name().to_string());
    }
    for s in body {
        if let StmtKind::Def(def) = &s.kind {
            globals_of(&def.body, &def.globals, names);
        }
    }
}

fn target(e: &Expr, names: &mut HashSet<String>) {
    match &e.kind {
        ExprKind::Name(n, _) => {
            names.insert(n.name().to_string());
        }
        ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().for_each(|i| target(i, names)),
        ExprKind::Starred(x) => target(x, names),
        _ => {}
    }
}
