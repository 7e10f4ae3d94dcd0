//! Rules the grammar leaves to a check of the tree, with CPython's messages:
//! what may be assigned to, augmented or deleted (one target validator for
//! `=`, `+=`, `del`, `for` and `with … as`), and the statements that must sit
//! inside a loop (`break`, `continue`) or a function (`return`).

use super::*;

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
        ExprKind::Name(_) | ExprKind::Index(..) | ExprKind::Attr(..) => Ok(()),
        ExprKind::Tuple(xs) | ExprKind::List(xs) if how != TargetUse::AugAssign => {
            xs.iter().try_for_each(|x| check_target(x, how))
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
        ExprKind::Name(_) => "name",
        ExprKind::Attr(..) => "attribute",
        ExprKind::Index(..) => "subscript",
        ExprKind::Slice(..) => "slice",
        ExprKind::Call(..) => "function call",
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => "literal",
        ExprKind::Bool(true) => "True",
        ExprKind::Bool(false) => "False",
        ExprKind::None => "None",
        ExprKind::Ellipsis => "ellipsis",
        ExprKind::FString(_) => "f-string expression",
        ExprKind::List(_) => "list",
        ExprKind::Tuple(_) => "tuple",
        ExprKind::Dict(_) => "dict literal",
        ExprKind::ListComp(..) => "list comprehension",
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
