//! Rules the grammar leaves to a check of the tree, with CPython's messages:
//! what may be assigned to, augmented or deleted (one target validator for
//! `=`, `+=`, `del`, `for` and `with … as`), and the statements that must sit
//! inside a loop (`break`, `continue`) or a function (`return`); parameter
//! lists (one check for `def` and `lambda`); and `nonlocal` declarations,
//! which need a binding in an enclosing function.

use super::*;
use std::collections::HashSet;

/// How a target is used; it decides what is allowed and the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TargetUse {
    /// `TARGET = value`
    Assign,
    /// `TARGET += value`: a single name, attribute or subscript.
    AugAssign,
    /// `del TARGET`
    Delete,
    /// `for TARGET in`, `with … as TARGET`, comprehensions.
    Bind,
}

/// Names, `x[i]`, `obj.a`, and (except for augmented assignment) tuples and
/// lists of them; anything else is an error naming what it is, at its span.
pub(super) fn check_target(e: &Expr, how: TargetUse) -> Result<(), (Span, String)> {
    match &e.kind {
        ExprKind::Name(..) | ExprKind::Index(..) | ExprKind::Attr(..) => Ok(()),
        ExprKind::Tuple(xs) | ExprKind::List(xs) if how != TargetUse::AugAssign => {
            let mut starred = xs.iter().filter(|x| matches!(x.kind, ExprKind::Starred(_)));
            if let (Some(_), Some(second)) = (starred.next(), starred.next()) {
                if how != TargetUse::Delete {
                    return Err((second.span, "multiple starred expressions in assignment".into()));
                }
            }
            xs.iter().try_for_each(|x| match &x.kind {
                ExprKind::Starred(inner) if how != TargetUse::Delete => check_target(inner, how),
                _ => check_target(x, how),
            })
        }
        ExprKind::Starred(_) if how == TargetUse::Assign || how == TargetUse::Bind => {
            Err((e.span, "starred assignment target must be in a list or tuple".into()))
        }
        _ => {
            let what = describe(e);
            let message = match how {
                TargetUse::AugAssign => format!("'{what}' is an illegal expression for augmented assignment"),
                TargetUse::Delete => format!("cannot delete {what}"),
                // CPython suggests `==` when the target could have been a comparison's operand.
                TargetUse::Assign if could_be_compared(e) => {
                    format!("cannot assign to {what} here. Maybe you meant '==' instead of '='?")
                }
                TargetUse::Assign | TargetUse::Bind => format!("cannot assign to {what}"),
            };
            Err((e.span, message))
        }
    }
}

/// What an expression is, in CPython's words.
fn describe(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Name(..) => "name",
        ExprKind::Attr(..) => "attribute",
        ExprKind::Index(..) => "subscript",
        ExprKind::Slice(..) => "slice",
        ExprKind::Call(..) => "function call",
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Imag(_) | ExprKind::Str(_) => "literal",
        ExprKind::Bool(true) => "True",
        ExprKind::Bool(false) => "False",
        ExprKind::None => "None",
        ExprKind::Ellipsis => "ellipsis",
        ExprKind::FString(_) => "f-string expression",
        ExprKind::List(_) => "list",
        ExprKind::Tuple(_) => "tuple",
        ExprKind::Dict(_) => "dict literal",
        ExprKind::Set(_) => "set display",
        ExprKind::Starred(_) => "starred",
        ExprKind::Yield(_) | ExprKind::YieldFrom(_) => "yield expression",
        ExprKind::GenExp(..) => "generator expression",
        ExprKind::Comp(CompKind::List, ..) => "list comprehension",
        ExprKind::Comp(CompKind::Set, ..) => "set comprehension",
        ExprKind::Comp(CompKind::Dict(_), ..) => "dict comprehension",
        ExprKind::Compare(..) => "comparison",
        ExprKind::IfElse(..) => "conditional expression",
        ExprKind::Lambda(_) => "lambda",
        ExprKind::Unary(..) | ExprKind::Binary(..) | ExprKind::Not(_) | ExprKind::And(..) | ExprKind::Or(..) => {
            "expression"
        }
    }
}

/// Operands of a comparison (not `not`, `and`, `or`, comparisons, conditionals,
/// lambdas or the named constants), for which `=` may be a mistyped `==`.
fn could_be_compared(e: &Expr) -> bool {
    !matches!(
        e.kind,
        ExprKind::Not(_)
            | ExprKind::And(..)
            | ExprKind::Or(..)
            | ExprKind::Compare(..)
            | ExprKind::IfElse(..)
            | ExprKind::Lambda(_)
            | ExprKind::Bool(_)
            | ExprKind::None
    )
}

/// A parameter list of a `def` or `lambda`, in the order CPython reports:
/// first its shape (at most one `*`, nothing after `**`, a name after a bare
/// `*`, no parameter without a default after one with a default before the
/// `*`), then repeated names. The error is at the offending parameter.
pub(super) fn check_params(ps: &[Param]) -> Result<(), (Span, String)> {
    let mut star: Option<&Param> = None;
    let mut after_star = 0;
    let mut seen_varkw = false;
    let mut seen_default = false;
    for p in ps {
        if seen_varkw {
            return Err((p.span, "arguments cannot follow var-keyword argument".into()));
        }
        match p.kind {
            ParamKind::VarKw => {
                if star.is_some_and(|s| s.name == intern("*")) && after_star == 0 {
                    return Err((p.span, "named arguments must follow bare *".into()));
                }
                seen_varkw = true;
            }
            ParamKind::VarArgs if star.is_some() => {
                return Err((p.span, "* argument may appear only once".into()));
            }
            ParamKind::VarArgs => star = Some(p),
            _ if star.is_some() => after_star += 1,
            _ if p.default.is_some() => seen_default = true,
            _ if seen_default => return Err((p.span, "non-default argument follows default argument".into())),
            _ => {}
        }
    }
    if let Some(s) = star.filter(|s| s.name == intern("*") && after_star == 0 && !seen_varkw) {
        return Err((s.span, "named arguments must follow bare *".into()));
    }
    let mut names = HashSet::new();
    for p in ps.iter().filter(|p| p.name != intern("*")) {
        if !names.insert(p.name) {
            return Err((p.span, format!("duplicate argument '{}' in function definition", p.name)));
        }
    }
    Ok(())
}

/// `nonlocal` declarations, in source order: not at module level (nor in a
/// class body directly at module level: there it finds no binding), and each
/// name must be bound in an enclosing function (a parameter, an assignment
/// target, an import, a `def`/`class` name, a `for`/`with`/`except` target,
/// `del`, or its own `nonlocal`), not merely declared `global` there.
/// Class bodies between are skipped, as in CPython; comprehension variables
/// are the comprehension's own.
pub(super) fn check_nonlocals(block: &Block) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    scope(block, &mut Vec::new(), ScopeKind::Module, &mut errors);
    errors
}

#[derive(Clone, Copy, PartialEq)]
enum ScopeKind {
    Module,
    Class,
    Function,
}

/// Checks the `nonlocal` statements that belong to the scope of `body`
/// (`enclosing` holds the names bound in each enclosing function and, for a
/// function, its own last), then the scopes nested in it.
fn scope(body: &Block, enclosing: &mut Vec<HashSet<Sym>>, kind: ScopeKind, errors: &mut Vec<SyntaxError>) {
    let mut stmts = Vec::new();
    own_statements(body, &mut stmts);
    for s in &stmts {
        if let StmtKind::Nonlocal(names) = &s.kind {
            if kind == ScopeKind::Module {
                errors.push(SyntaxError {
                    message: "nonlocal declaration not allowed at module level".into(),
                    span: s.span,
                });
                continue;
            }
            // A function's own bindings are last in `enclosing`; they do not count.
            let outer = if kind == ScopeKind::Function { &enclosing[..enclosing.len() - 1] } else { &enclosing[..] };
            if let Some(n) = names.iter().find(|n| !outer.iter().any(|b| b.contains(n))) {
                errors.push(SyntaxError { message: format!("no binding for nonlocal '{n}' found"), span: s.span });
            }
        }
    }
    for s in &stmts {
        match &s.kind {
            StmtKind::Def(def) => {
                let mut bound: HashSet<Sym> = def.params.iter().map(|p| p.name).collect();
                let mut inner = Vec::new();
                own_statements(&def.body, &mut inner);
                inner.iter().for_each(|s| bindings(s, &mut bound));
                for g in &def.globals {
                    bound.remove(g);
                }
                enclosing.push(bound);
                scope(&def.body, enclosing, ScopeKind::Function, errors);
                enclosing.pop();
            }
            StmtKind::Class(class) => scope(&class.body, enclosing, ScopeKind::Class, errors),
            _ => {}
        }
    }
}

/// The statements of a scope, nested blocks included, nested `def` and
/// `class` bodies excluded.
fn own_statements<'a>(body: &'a Block, out: &mut Vec<&'a Stmt>) {
    for s in body {
        out.push(s);
        match &s.kind {
            StmtKind::If(arms, orelse) => {
                arms.iter().for_each(|(_, b)| own_statements(b, out));
                if let Some(b) = orelse {
                    own_statements(b, out);
                }
            }
            StmtKind::While(_, b, orelse) | StmtKind::For(_, _, b, orelse) => {
                own_statements(b, out);
                if let Some(b) = orelse {
                    own_statements(b, out);
                }
            }
            StmtKind::With(_, b) => own_statements(b, out),
            StmtKind::Try { body, handlers, orelse, finally } => {
                own_statements(body, out);
                handlers.iter().for_each(|h| own_statements(&h.body, out));
                for b in [orelse, finally].into_iter().flatten() {
                    own_statements(b, out);
                }
            }
            _ => {}
        }
    }
}

/// The names one statement binds in its own scope (not in nested blocks,
/// which [`own_statements`] lists separately).
fn bindings(s: &Stmt, bound: &mut HashSet<Sym>) {
    fn target(e: &Expr, bound: &mut HashSet<Sym>) {
        match &e.kind {
            ExprKind::Name(n, _) => {
                bound.insert(*n);
            }
            ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().for_each(|x| target(x, bound)),
            ExprKind::Starred(x) => target(x, bound),
            _ => {}
        }
    }
    match &s.kind {
        StmtKind::Assign(targets, _) => targets.iter().for_each(|t| target(t, bound)),
        StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _, _) => target(t, bound),
        StmtKind::Del(ts) => ts.iter().for_each(|t| target(t, bound)),
        StmtKind::With(items, _) => items.iter().filter_map(|(_, t)| t.as_ref()).for_each(|t| target(t, bound)),
        StmtKind::Def(def) => {
            bound.insert(def.name);
        }
        StmtKind::Class(class) => {
            bound.insert(class.name);
        }
        StmtKind::Import(items) => {
            for (path, alias, _) in items {
                if let Some(n) = alias.or_else(|| path.first().copied()) {
                    bound.insert(n);
                }
            }
        }
        StmtKind::FromImport(_, items) => {
            for (n, alias, _, _) in items {
                bound.insert(alias.unwrap_or(*n));
            }
        }
        StmtKind::Try { handlers, .. } => {
            bound.extend(handlers.iter().filter_map(|h| h.name));
        }
        StmtKind::Nonlocal(names) => bound.extend(names.iter().copied()),
        _ => {}
    }
}

/// The sub-expressions of `e` that run in its own scope (a lambda's or a generator
/// expression's body runs in a scope of its own; the first iterable of a generator
/// expression does not).
fn children(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    match &e.kind {
        ExprKind::Name(..)
        | ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Imag(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::None
        | ExprKind::Ellipsis => {}
        ExprKind::FString(parts) => fstring_children(parts, &mut out),
        ExprKind::List(xs) | ExprKind::Tuple(xs) | ExprKind::Set(xs) => out.extend(xs),
        ExprKind::Dict(kvs) => kvs.iter().for_each(|(k, v)| out.extend([k, v])),
        ExprKind::Attr(x, _) | ExprKind::Unary(_, x) | ExprKind::Not(x) | ExprKind::Starred(x) => out.push(x),
        ExprKind::YieldFrom(x) => out.push(x),
        ExprKind::Yield(x) => out.extend(x.as_deref()),
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            out.extend([&**a, &**b])
        }
        ExprKind::Slice(a, b, c) => out.extend([a, b, c].into_iter().flatten().map(|x| &**x)),
        ExprKind::Call(f, args) => {
            out.push(f);
            for a in args {
                match a {
                    Arg::Pos(x) | Arg::Star(x) | Arg::Kw(_, x) | Arg::StarStar(x) => out.push(x),
                }
            }
        }
        ExprKind::Compare(first, rest) => {
            out.push(first);
            out.extend(rest.iter().map(|(_, x)| x));
        }
        ExprKind::IfElse(c, a, b) => out.extend([&**c, &**a, &**b]),
        ExprKind::Lambda(def) => out.extend(def.params.iter().filter_map(|p| p.default.as_ref())),
        ExprKind::GenExp(_, first) => out.push(first),
        ExprKind::Comp(kind, elt, fors, _) => {
            out.push(elt);
            if let CompKind::Dict(v) = kind {
                out.push(v);
            }
            for f in fors {
                out.push(&f.target);
                out.push(&f.iter);
                out.extend(&f.conds);
            }
        }
    }
    out
}

fn fstring_children<'a>(parts: &'a [FPart], out: &mut Vec<&'a Expr>) {
    for p in parts {
        if let FPart::Field { expr, spec, .. } = p {
            out.push(expr);
            fstring_children(spec, out);
        }
    }
}

/// The expressions a statement evaluates in its own scope (a nested `def` or
/// `class` contributes its decorators, defaults and base, not its body).
fn stmt_exprs(s: &Stmt) -> Vec<&Expr> {
    match &s.kind {
        StmtKind::Expr(e) => vec![e],
        StmtKind::Assign(ts, v) => ts.iter().chain([v]).collect(),
        StmtKind::AugAssign(t, _, v) => vec![t, v],
        StmtKind::If(arms, _) => arms.iter().map(|(c, _)| c).collect(),
        StmtKind::While(c, ..) => vec![c],
        StmtKind::For(t, it, ..) => vec![t, it],
        StmtKind::Return(v) | StmtKind::Raise(v) => v.iter().collect(),
        StmtKind::Def(def) => {
            def.decorators.iter().chain(def.params.iter().filter_map(|p| p.default.as_ref())).collect()
        }
        StmtKind::Class(c) => c.decorators.iter().chain(c.base.iter()).collect(),
        StmtKind::With(items, _) => items.iter().flat_map(|(c, t)| std::iter::once(c).chain(t.iter())).collect(),
        StmtKind::Assert(c, m) => std::iter::once(c).chain(m.iter()).collect(),
        StmtKind::Try { handlers, .. } => handlers.iter().filter_map(|h| h.kind.as_ref()).collect(),
        StmtKind::Del(ts) => ts.iter().collect(),
        StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Pass
        | StmtKind::Import(_)
        | StmtKind::FromImport(..)
        | StmtKind::Global(_)
        | StmtKind::Nonlocal(_) => vec![],
    }
}

/// The first `yield` among the expressions of `e`, and whether it sits inside a
/// comprehension (and which kind).
fn find_yield<'a>(e: &'a Expr, comp: Option<&'static str>) -> Option<(&'a Expr, Option<&'static str>)> {
    // An explicit stack: expressions may nest thousands deep.
    let mut stack = vec![(e, comp)];
    while let Some((e, comp)) = stack.pop() {
        if matches!(e.kind, ExprKind::Yield(_) | ExprKind::YieldFrom(_)) {
            return Some((e, comp));
        }
        let inner = match &e.kind {
            ExprKind::Comp(CompKind::List, ..) => Some("list comprehension"),
            ExprKind::Comp(CompKind::Set, ..) => Some("set comprehension"),
            ExprKind::Comp(CompKind::Dict(_), ..) => Some("dict comprehension"),
            _ => comp,
        };
        for c in children(e).into_iter().rev() {
            stack.push((c, inner));
        }
    }
    None
}

/// Whether a function body holds a `yield` of its own (which makes it a generator).
pub(super) fn contains_yield(body: &Block) -> bool {
    let mut stmts = Vec::new();
    own_statements(body, &mut stmts);
    stmts.iter().any(|s| stmt_exprs(s).into_iter().any(|e| find_yield(e, None).is_some()))
}

/// `global`/`nonlocal` declarations that come after a use of the name in the same
/// scope, or name a parameter (CPython's messages), in source order; nested function
/// and class bodies are checked as scopes of their own.
pub(super) fn check_declarations(block: &Block) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    declaration_scope(block, &[], &mut errors);
    errors
}

fn declaration_scope(body: &Block, params: &[Sym], errors: &mut Vec<SyntaxError>) {
    let mut stmts = Vec::new();
    own_statements(body, &mut stmts);
    let mut assigned: HashSet<Sym> = HashSet::new();
    let mut used: HashSet<Sym> = HashSet::new();
    for s in &stmts {
        let (names, what) = match &s.kind {
            StmtKind::Global(ns) => (ns, "global"),
            StmtKind::Nonlocal(ns) => (ns, "nonlocal"),
            _ => {
                let mut bound = HashSet::new();
                bindings(s, &mut bound);
                for e in stmt_exprs(s) {
                    names_read(e, &mut used);
                }
                assigned.extend(bound);
                continue;
            }
        };
        for n in names {
            let problem = if params.contains(n) {
                Some(format!("name '{n}' is parameter and {what}"))
            } else if assigned.contains(n) {
                Some(format!("name '{n}' is assigned to before {what} declaration"))
            } else if used.contains(n) {
                Some(format!("name '{n}' is used prior to {what} declaration"))
            } else {
                None
            };
            if let Some(message) = problem {
                errors.push(SyntaxError { message, span: s.span });
            }
        }
    }
    for s in &stmts {
        match &s.kind {
            StmtKind::Def(def) => {
                let ps: Vec<Sym> = def.params.iter().map(|p| p.name).collect();
                declaration_scope(&def.body, &ps, errors);
            }
            StmtKind::Class(c) => declaration_scope(&c.body, &[], errors),
            _ => {}
        }
    }
}

/// The names an expression reads (or binds, as a target) in its own scope.
fn names_read(e: &Expr, out: &mut HashSet<Sym>) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        if let ExprKind::Name(n, _) = &e.kind {
            out.insert(*n);
        }
        stack.extend(children(e));
    }
}

/// `break`/`continue` outside a loop and `return` outside a function, in
/// source order. A `def` or `class` body starts afresh: a `break` in a
/// function defined inside a loop is still outside a loop, and a `return`
/// in a class body is outside a function (as in CPython).
pub(super) fn check_context(block: &Block) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    walk(block, false, false, &mut errors);
    errors
}

fn walk(block: &Block, in_loop: bool, in_func: bool, errors: &mut Vec<SyntaxError>) {
    for s in block {
        let misplaced = match &s.kind {
            StmtKind::Break if !in_loop => Some("'break' outside loop"),
            StmtKind::Continue if !in_loop => Some("'continue' not properly in loop"),
            StmtKind::Return(_) if !in_func => Some("'return' outside function"),
            _ => None,
        };
        if let Some(message) = misplaced {
            errors.push(SyntaxError { message: message.into(), span: s.span });
        }
        // CPython's messages for a `yield` where no generator can hold it.
        for e in stmt_exprs(s) {
            if let Some((y, comp)) = find_yield(e, None) {
                let message = match comp {
                    Some(kind) => format!("'yield' inside {kind}"),
                    None if !in_func => "'yield' outside function".into(),
                    None => continue,
                };
                errors.push(SyntaxError { message, span: y.span });
            }
        }
        match &s.kind {
            StmtKind::If(arms, orelse) => {
                arms.iter().for_each(|(_, b)| walk(b, in_loop, in_func, errors));
                if let Some(b) = orelse {
                    walk(b, in_loop, in_func, errors);
                }
            }
            // A loop's `else` block is not part of the loop.
            StmtKind::While(_, b, orelse) | StmtKind::For(_, _, b, orelse) => {
                walk(b, true, in_func, errors);
                if let Some(b) = orelse {
                    walk(b, in_loop, in_func, errors);
                }
            }
            StmtKind::With(_, b) => walk(b, in_loop, in_func, errors),
            StmtKind::Try { body, handlers, orelse, finally } => {
                walk(body, in_loop, in_func, errors);
                handlers.iter().for_each(|h| walk(&h.body, in_loop, in_func, errors));
                for b in [orelse, finally].into_iter().flatten() {
                    walk(b, in_loop, in_func, errors);
                }
            }
            StmtKind::Def(def) => walk(&def.body, false, true, errors),
            StmtKind::Class(class) => walk(&class.body, false, false, errors),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse_module;

    fn first_error(src: &str) -> String {
        match parse_module(src) {
            Ok(_) => "ok".into(),
            Err(errs) => errs[0].message.clone(),
        }
    }

    #[test]
    fn loop_and_function_statements_need_their_context() {
        assert_eq!(first_error("break\n"), "'break' outside loop");
        assert_eq!(first_error("if True:\n    continue\n"), "'continue' not properly in loop");
        assert_eq!(first_error("return 1\n"), "'return' outside function");
        assert_eq!(first_error("for i in x:\n    def g():\n        break\n"), "'break' outside loop");
        assert_eq!(first_error("def f():\n    class A:\n        return 1\n"), "'return' outside function");
        assert_eq!(first_error("for i in x:\n    pass\nelse:\n    break\n"), "'break' outside loop");
        assert_eq!(first_error("while x:\n    try:\n        break\n    finally:\n        continue\n"), "ok");
        assert_eq!(first_error("def f():\n    for i in x:\n        if i:\n            return i\n"), "ok");
        assert_eq!(first_error("f = lambda: 1\n"), "ok");
    }

    #[test]
    fn parameter_lists_are_checked_for_def_and_lambda() {
        // Messages as CPython 3.11's compile().
        let cases = [
            ("def f(a, a):\n    pass\n", "duplicate argument 'a' in function definition"),
            ("f = lambda a, a: 1\n", "duplicate argument 'a' in function definition"),
            ("def f(a, *a):\n    pass\n", "duplicate argument 'a' in function definition"),
            ("def f(*, a, a):\n    pass\n", "duplicate argument 'a' in function definition"),
            ("def f(a, **a):\n    pass\n", "duplicate argument 'a' in function definition"),
            ("def f(*a, *b):\n    pass\n", "* argument may appear only once"),
            ("def f(*, *b):\n    pass\n", "* argument may appear only once"),
            ("def f(**k, a):\n    pass\n", "arguments cannot follow var-keyword argument"),
            ("def f(**k, **j):\n    pass\n", "arguments cannot follow var-keyword argument"),
            ("def f(**k, *a):\n    pass\n", "arguments cannot follow var-keyword argument"),
            ("def f(**k, a=1, a):\n    pass\n", "arguments cannot follow var-keyword argument"),
            ("def f(a=1, b):\n    pass\n", "non-default argument follows default argument"),
            ("f = lambda a=1, b: 0\n", "non-default argument follows default argument"),
            ("def f(*):\n    pass\n", "named arguments must follow bare *"),
            ("def f(*, **k):\n    pass\n", "named arguments must follow bare *"),
            ("f = lambda *: 1\n", "named arguments must follow bare *"),
        ];
        for (src, message) in cases {
            assert_eq!(first_error(src), message, "{src}");
        }
        let fine = [
            "def f(a, b=1, *c, d, e=2, **f):\n    pass\n",
            "def f(a=1, *, b):\n    pass\n",
            "def f(*a, b=1, c):\n    pass\n",
            "def f(**k,):\n    pass\n",
            "f = lambda *a, **k: 0\n",
        ];
        for ok in fine {
            assert_eq!(first_error(ok), "ok", "{ok}");
        }
    }

    #[test]
    fn nonlocal_needs_a_binding_in_an_enclosing_function() {
        let cases = [
            ("nonlocal q\n", "nonlocal declaration not allowed at module level"),
            ("if True:\n    nonlocal q\n", "nonlocal declaration not allowed at module level"),
            ("def f():\n    nonlocal q\n", "no binding for nonlocal 'q' found"),
            ("class C:\n    nonlocal q\n", "no binding for nonlocal 'q' found"),
            ("def g(q):\n    def f():\n        nonlocal q, r\n", "no binding for nonlocal 'r' found"),
            ("def g():\n    global q\n    def f():\n        nonlocal q\n", "no binding for nonlocal 'q' found"),
            (
                "def g():\n    y = [q for q in x]\n    def f():\n        nonlocal q\n",
                "no binding for nonlocal 'q' found",
            ),
            (
                "def g():\n    def h():\n        nonlocal q\n        q = 1\n    def f():\n        nonlocal q\n",
                "no binding for nonlocal 'q' found",
            ),
            ("nonlocal q\nreturn 1\n", "nonlocal declaration not allowed at module level"),
        ];
        for (src, message) in cases {
            assert_eq!(first_error(src), message, "{src}");
        }
        let fine = [
            "def g():\n    q = 1\n    def f():\n        nonlocal q\n",
            "def g(q):\n    def f():\n        nonlocal q\n",
            "def g():\n    q = 1\n    class C:\n        def f():\n            nonlocal q\n",
            "def g():\n    q = 1\n    def h():\n        nonlocal q\n        def f():\n            nonlocal q\n",
            "def g():\n    for a, (b, q) in x:\n        pass\n    def f():\n        nonlocal q\n",
            "def g():\n    import m as q\n    def f():\n        nonlocal q\n",
            "def g():\n    try:\n        pass\n    except E as q:\n        pass\n    def f():\n        nonlocal q\n",
            "def g():\n    with a as q:\n        pass\n    def f():\n        nonlocal q\n",
            "def g():\n    def q():\n        pass\n    def f():\n        nonlocal q\n",
        ];
        for ok in fine {
            assert_eq!(first_error(ok), "ok", "{ok}");
        }
    }

    #[test]
    fn declarations_come_before_uses() {
        // Messages as CPython 3.11's compile().
        let cases = [
            ("def f():\n    x = 1\n    global x\n", "name 'x' is assigned to before global declaration"),
            ("def f():\n    print(x)\n    global x\n", "name 'x' is used prior to global declaration"),
            ("def f(x):\n    global x\n", "name 'x' is parameter and global"),
            ("x = 1\nglobal x\n", "name 'x' is assigned to before global declaration"),
            (
                "def f():\n    for x in y:\n        pass\n    global x\n",
                "name 'x' is assigned to before global declaration",
            ),
            (
                "def g():\n    x = 1\n    def f():\n        x = 2\n        nonlocal x\n",
                "name 'x' is assigned to before nonlocal declaration",
            ),
            ("def g():\n    x = 1\n    def f(x):\n        nonlocal x\n", "name 'x' is parameter and nonlocal"),
        ];
        for (src, message) in cases {
            assert_eq!(first_error(src), message, "{src}");
        }
        for ok in ["def f():\n    global x\n    x = 1\n", "def f():\n    def g():\n        x = 1\n    global x\n"] {
            assert_eq!(first_error(ok), "ok", "{ok}");
        }
    }

    #[test]
    fn starred_and_yield_rules() {
        let cases = [
            ("a, *b, *c = x\n", "multiple starred expressions in assignment"),
            ("*a = x\n", "starred assignment target must be in a list or tuple"),
            ("*a\n", "can't use starred expression here"),
            ("x = *a\n", "can't use starred expression here"),
            ("yield 1\n", "'yield' outside function"),
            ("class C:\n    yield 1\n", "'yield' outside function"),
            ("def f():\n    return [(yield x) for x in y]\n", "'yield' inside list comprehension"),
            ("def f():\n    return {(yield x) for x in y}\n", "'yield' inside set comprehension"),
            ("f(x for x in y, 1)\n", "Generator expression must be parenthesized"),
            ("[*x for x in y]\n", "iterable unpacking cannot be used in comprehension"),
            ("x = f'{1:{2:{3}}}'\n", "f-string: expressions nested too deeply"),
        ];
        for (src, message) in cases {
            assert_eq!(first_error(src), message, "{src}");
        }
        let fine = [
            "a, *b = x\n",
            "[a, *b] = x\n",
            "for a, *b in x:\n    pass\n",
            "x = *a, *b\n",
            "def f():\n    x = yield\n    yield from g()\n    y = (yield 1) + 1\n",
            "f = lambda: (yield)\n",
            "f(x for x in y)\n",
            "x = {1, 2}, {}, {1: 2}, {k: v for k, v in y}, {a for a in b}\n",
            "x = 1 << 2 | 3 & ~4 ^ 5 >> 1\n",
            "x = f'{a=} {b!r:>{w}}'\n",
        ];
        for ok in fine {
            assert_eq!(first_error(ok), "ok", "{ok}");
        }
    }

    #[test]
    fn one_validator_for_every_kind_of_target() {
        let cases = [
            ("del f()\n", "cannot delete function call"),
            ("del a + b\n", "cannot delete expression"),
            ("del 1\n", "cannot delete literal"),
            ("del [a, f()]\n", "cannot delete function call"),
            ("f() = 1\n", "cannot assign to function call here. Maybe you meant '==' instead of '='?"),
            ("a + b = 1\n", "cannot assign to expression here. Maybe you meant '==' instead of '='?"),
            ("a, f() = 1, 2\n", "cannot assign to function call here. Maybe you meant '==' instead of '='?"),
            ("a < b = 1\n", "cannot assign to comparison"),
            ("None = 1\n", "cannot assign to None"),
            ("1 += 1\n", "'literal' is an illegal expression for augmented assignment"),
            ("f() += 1\n", "'function call' is an illegal expression for augmented assignment"),
            ("(a, b) += 1\n", "'tuple' is an illegal expression for augmented assignment"),
            ("for f() in x:\n    pass\n", "cannot assign to function call"),
            ("y = [q for f() in x]\n", "cannot assign to function call"),
            ("with a as f():\n    pass\n", "cannot assign to function call"),
        ];
        for (src, message) in cases {
            assert_eq!(first_error(src), message, "{src}");
        }
        for ok in ["del a, b[0], c.d\n", "a, (b, c) = x\n", "for a.b, c[0] in x:\n    pass\n", "x[1:2] += y\n"] {
            assert_eq!(first_error(ok), "ok", "{ok}");
        }
    }
}
