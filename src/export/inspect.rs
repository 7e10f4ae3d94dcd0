//! Tape inspection in a program: the tapes it makes, and with `--drop-inspection` the
//! statements that only inspect them (`tape.stats()`, `recompute_ledger()`, `print(tape)`),
//! plus, transitively, the statements that use what those computed.

use super::names::{INSPECTION, TAPE_METHODS};
use crate::syntax::ast::*;
use std::collections::HashSet;

/// Names bound to a GradientTape: `with GradientTape() as t`, `t = GradientTape()`.
pub fn tape_names(body: &[Stmt]) -> HashSet<String> {
    let mut tapes = HashSet::new();
    walk_stmts(body, &mut |s| match &s.kind {
        StmtKind::With(items, _) => {
            for (ctx, target) in items {
                if let (true, Some(Expr { kind: ExprKind::Name(n, _), .. })) = (makes_tape(ctx), target) {
                    tapes.insert(n.name().to_string());
                }
            }
        }
        StmtKind::Assign(targets, value) if makes_tape(value) => {
            for t in targets {
                if let ExprKind::Name(n, _) = &t.kind {
                    tapes.insert(n.name().to_string());
                }
            }
        }
        _ => {}
    });
    tapes
}

fn makes_tape(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call(f, _) => match &f.kind {
            ExprKind::Name(n, _) => &*n.name() == "GradientTape",
            ExprKind::Attr(_, n) => &*n.name() == "GradientTape",
            _ => false,
        },
        _ => false,
    }
}

/// Every statement of `body`, nested blocks included, in source order.
pub(super) fn walk_stmts<'a>(body: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for s in body {
        f(s);
        for b in sub_blocks(s) {
            walk_stmts(b, f);
        }
    }
}

fn sub_blocks<'a>(s: &'a Stmt) -> Vec<&'a Block> {
    match &s.kind {
        StmtKind::If(arms, orelse) => arms.iter().map(|(_, b)| b).chain(orelse.iter()).collect(),
        StmtKind::While(_, b, orelse) | StmtKind::For(_, _, b, orelse) => {
            std::iter::once(b).chain(orelse.iter()).collect()
        }
        StmtKind::With(_, b) => vec![b],
        StmtKind::Def(d) => vec![&d.body],
        StmtKind::Class(c) => vec![&c.body],
        StmtKind::Try { body, handlers, orelse, finally } => std::iter::once(body)
            .chain(handlers.iter().map(|h| &h.body))
            .chain(orelse.iter())
            .chain(finally.iter())
            .collect(),
        _ => vec![],
    }
}

/// The expressions a statement evaluates itself (not those of its nested blocks), and the
/// names it binds.
pub(super) fn own_exprs(s: &Stmt) -> (Vec<&Expr>, Vec<&Expr>) {
    match &s.kind {
        StmtKind::Expr(e) => (vec![e], vec![]),
        StmtKind::Assign(targets, v) => {
            // `d[k] = v` reads d and k too.
            let mut reads = vec![v];
            for t in targets {
                if !matches!(t.kind, ExprKind::Name(..)) {
                    reads.push(t);
                }
            }
            (reads, targets.iter().collect())
        }
        StmtKind::AugAssign(t, _, v) => (vec![t, v], vec![t]),
        StmtKind::If(arms, _) => (arms.iter().map(|(c, _)| c).collect(), vec![]),
        StmtKind::While(c, _, _) => (vec![c], vec![]),
        StmtKind::For(t, i, _, _) => (vec![i], vec![t]),
        StmtKind::With(items, _) => {
            (items.iter().map(|(c, _)| c).collect(), items.iter().filter_map(|(_, t)| t.as_ref()).collect())
        }
        StmtKind::Return(Some(e)) => (vec![e], vec![]),
        StmtKind::Assert(c, m) => (std::iter::once(c).chain(m.iter()).collect(), vec![]),
        StmtKind::Del(ts) => (ts.iter().collect(), vec![]),
        _ => (vec![], vec![]),
    }
}

pub(super) fn walk_expr<'e>(e: &'e Expr, f: &mut impl FnMut(&'e Expr)) {
    f(e);
    match &e.kind {
        ExprKind::FString(parts) => {
            for p in parts {
                if let FPart::Field { expr, spec, .. } = p {
                    walk_expr(expr, f);
                    for s in spec {
                        if let FPart::Field { expr, .. } = s {
                            walk_expr(expr, f);
                        }
                    }
                }
            }
        }
        ExprKind::List(xs) | ExprKind::Tuple(xs) | ExprKind::Set(xs) => xs.iter().for_each(|x| walk_expr(x, f)),
        ExprKind::Dict(ps) => ps.iter().for_each(|(k, v)| {
            walk_expr(k, f);
            walk_expr(v, f);
        }),
        ExprKind::Starred(x) | ExprKind::YieldFrom(x) | ExprKind::Unary(_, x) | ExprKind::Not(x) => walk_expr(x, f),
        ExprKind::Yield(Some(x)) => walk_expr(x, f),
        ExprKind::GenExp(_, x) => walk_expr(x, f),
        ExprKind::Attr(x, _) => walk_expr(x, f),
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        ExprKind::Slice(a, b, c) => [a, b, c].into_iter().flatten().for_each(|x| walk_expr(x, f)),
        ExprKind::Call(callee, args) => {
            walk_expr(callee, f);
            for a in args {
                match a {
                    Arg::Pos(x) | Arg::Star(x) | Arg::Kw(_, x) | Arg::StarStar(x) => walk_expr(x, f),
                }
            }
        }
        ExprKind::Compare(a, rest) => {
            walk_expr(a, f);
            rest.iter().for_each(|(_, x)| walk_expr(x, f));
        }
        ExprKind::IfElse(a, b, c) => [a, b, c].into_iter().for_each(|x| walk_expr(x, f)),
        ExprKind::Comp(kind, elt, fors, _) => {
            walk_expr(elt, f);
            if let CompKind::Dict(v) = kind {
                walk_expr(v, f);
            }
            for c in fors {
                walk_expr(&c.iter, f);
                c.conds.iter().for_each(|x| walk_expr(x, f));
            }
        }
        _ => {}
    }
}

/// Whether `e` inspects a tape: an inspection builtin, a tape method TF lacks, or a tape
/// printed or formatted.
fn inspects(e: &Expr, tapes: &HashSet<String>) -> bool {
    let is_tape = |x: &Expr| matches!(&x.kind, ExprKind::Name(n, _) if tapes.contains(&*n.name()));
    let mut found = false;
    walk_expr(e, &mut |x| match &x.kind {
        ExprKind::Call(f, args) => match &f.kind {
            ExprKind::Name(n, _) => {
                let n = n.name();
                if INSPECTION.contains(&&*n)
                    || (matches!(&*n, "print" | "str" | "repr")
                        && args.iter().any(|a| matches!(a, Arg::Pos(p) if is_tape(p))))
                {
                    found = true;
                }
            }
            ExprKind::Attr(obj, m) if is_tape(obj) && TAPE_METHODS.iter().any(|(t, _)| *t == &*m.name()) => {
                found = true
            }
            _ => {}
        },
        ExprKind::FString(parts) => {
            if parts.iter().any(|p| matches!(p, FPart::Field { expr, .. } if is_tape(expr))) {
                found = true;
            }
        }
        _ => {}
    });
    found
}

fn reads_any(e: &Expr, names: &HashSet<String>) -> bool {
    let mut found = false;
    walk_expr(e, &mut |x| {
        if let ExprKind::Name(n, _) = &x.kind {
            if names.contains(&*n.name()) {
                found = true;
            }
        }
    });
    found
}

fn bind_roots(e: &Expr, out: &mut HashSet<String>) {
    match &e.kind {
        ExprKind::Name(n, _) => {
            out.insert(n.name().to_string());
        }
        ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().for_each(|x| bind_roots(x, out)),
        ExprKind::Starred(x) | ExprKind::Index(x, _) | ExprKind::Attr(x, _) => bind_roots(x, out),
        _ => {}
    }
}

/// The statements (by start offset) that only inspect a tape, and those that use what they
/// computed (a name bound by a left-out statement is left out wherever it is read).
pub fn droppable(body: &[Stmt]) -> HashSet<u32> {
    let tapes = tape_names(body);
    let mut tainted: HashSet<String> = HashSet::new();
    let mut dropped: HashSet<u32> = HashSet::new();
    loop {
        let before = (tainted.len(), dropped.len());
        visit(body, &tapes, &mut tainted, &mut dropped);
        if (tainted.len(), dropped.len()) == before {
            return dropped;
        }
    }
}

fn visit(body: &[Stmt], tapes: &HashSet<String>, tainted: &mut HashSet<String>, dropped: &mut HashSet<u32>) {
    for s in body {
        if dropped.contains(&s.span.start) {
            continue;
        }
        let (reads, binds) = own_exprs(s);
        if reads.iter().any(|e| inspects(e, tapes) || reads_any(e, tainted)) {
            dropped.insert(s.span.start);
            for b in binds {
                bind_roots(b, tainted);
            }
            if let StmtKind::AugAssign(t, _, _) = &s.kind {
                bind_roots(t, tainted);
            }
            if let StmtKind::Assign(targets, _) = &s.kind {
                targets.iter().for_each(|t| bind_roots(t, tainted));
            }
            continue;
        }
        for b in sub_blocks(s) {
            visit(b, tapes, tainted, dropped);
        }
    }
}

/// Whether any statement of `body` (nested blocks included) reads the name `n`.
pub fn block_reads(body: &[Stmt], n: &str) -> bool {
    let names: HashSet<String> = std::iter::once(n.to_string()).collect();
    let mut found = false;
    walk_stmts(body, &mut |s| {
        let (reads, _) = own_exprs(s);
        if reads.iter().any(|e| reads_any(e, &names)) {
            found = true;
        }
    });
    found
}
