//! Expressions: atoms, postfix calls/indexing/attributes, operators by
//! precedence, conditional expressions and lambdas; also parameter lists
//! and assignment/loop targets.

use super::fstring::parse_fstring;
use super::*;
use chumsky::prelude::*;
use std::rc::Rc;

/// A single expression (`test` in Python's grammar).
pub fn expr<'t>() -> P<'t, Expr> {
    recursive(|expr| {
        let literal = select! {
            Tok::Float(s) => ExprKind::Float(s.parse().unwrap_or(f64::NAN)),
            Tok::Str(s) => ExprKind::Str(s),
            Tok::True => ExprKind::Bool(true),
            Tok::False => ExprKind::Bool(false),
            Tok::None => ExprKind::None,
            Tok::Ellipsis => ExprKind::Ellipsis,
        }
        .map_with(|k, e| mk(k, e.span()));
        // Literal problems are reported without failing the parse, so the
        // message names the literal rather than listing alternatives.
        let int = select! { Tok::Int(s) => s }.validate(|s, e, emitter| {
            let v = s.parse::<i64>().unwrap_or_else(|_| {
                emitter.emit(Rich::custom(e.span(), format!("integer literal {s} is too large for int64")));
                0
            });
            mk(ExprKind::Int(v), e.span())
        });
        // Adjacent string literals concatenate, as in Python.
        let strings = select! { Tok::Str(s) => s }
            .repeated()
            .at_least(2)
            .collect::<Vec<_>>()
            .map_with(|parts, e| mk(ExprKind::Str(parts.concat().into()), e.span()));
        let fstring = select! { Tok::FStr(s) => s }.validate(|raw, e, emitter| {
            let span: SimpleSpan = e.span();
            let parts = parse_fstring(&raw, span.start + 2).unwrap_or_else(|err| {
                emitter.emit(Rich::custom(SimpleSpan::from(err.span.range()), err.message));
                vec![]
            });
            mk(ExprKind::FString(parts), span)
        });
        let var = name().map_with(|n, e| mk(ExprKind::Name(n), e.span()));

        let items = expr.clone().separated_by(tok(Tok::Comma)).allow_trailing().collect::<Vec<_>>();

        // Targets of `for` in comprehensions: `x` or `a, b`.
        let target = target_list(expr.clone());
        let comp_for = tok(Tok::For)
            .ignore_then(target.clone())
            .then_ignore(tok(Tok::In))
            .then(or_test(expr.clone()))
            .then(tok(Tok::If).ignore_then(or_test(expr.clone())).repeated().collect::<Vec<_>>())
            .map(|((target, iter), conds)| CompFor { target, iter, conds });
        let list_comp = expr
            .clone()
            .then(comp_for.repeated().at_least(1).collect::<Vec<_>>())
            .delimited_by(tok(Tok::LBracket), tok(Tok::RBracket))
            .map_with(|(elt, fors), e| mk(ExprKind::ListComp(Box::new(elt), fors), e.span()));
        let list = items
            .clone()
            .delimited_by(tok(Tok::LBracket), tok(Tok::RBracket))
            .map_with(|xs, e| mk(ExprKind::List(xs), e.span()));
        let dict = expr
            .clone()
            .then_ignore(tok(Tok::Colon))
            .then(expr.clone())
            .separated_by(tok(Tok::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(tok(Tok::LBrace), tok(Tok::RBrace))
            .map_with(|kvs, e| mk(ExprKind::Dict(kvs), e.span()));
        // `()`, `(x)`, `(x,)`, `(x, y)`.
        let paren = expr
            .clone()
            .then(tok(Tok::Comma).ignore_then(items.clone()).or_not())
            .or_not()
            .delimited_by(tok(Tok::LParen), tok(Tok::RParen))
            .map_with(|inner, e| match inner {
                None => mk(ExprKind::Tuple(vec![]), e.span()),
                Some((first, None)) => first,
                Some((first, Some(rest))) => {
                    let mut xs = vec![first];
                    xs.extend(rest);
                    mk(ExprKind::Tuple(xs), e.span())
                }
            });
        let atom = choice((int, strings, literal, fstring, var, list_comp, list, dict, paren))
            .labelled("an expression")
            .boxed();

        // Calls, indexing and attributes bind tightest.
        let arg = choice((
            tok(Tok::DoubleStar).ignore_then(expr.clone()).map(Arg::StarStar),
            tok(Tok::Star).ignore_then(expr.clone()).map(Arg::Star),
            name().then_ignore(tok(Tok::Assign)).then(expr.clone()).map(|(k, v)| Arg::Kw(k, v)),
            expr.clone().map(Arg::Pos),
        ));
        let call = arg
            .separated_by(tok(Tok::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(tok(Tok::LParen), tok(Tok::RParen))
            .map_with(|args, e| (Postfix::Call(args), e.span()));
        let bound = expr.clone().or_not().map(|x| x.map(Box::new));
        let slice = bound
            .clone()
            .then_ignore(tok(Tok::Colon))
            .then(bound.clone())
            .then(tok(Tok::Colon).ignore_then(bound.clone()).or_not())
            .map_with(|((a, b), c), e| mk(ExprKind::Slice(a, b, c.flatten()), e.span()));
        let subscript = slice.or(expr.clone());
        let index = subscript
            .separated_by(tok(Tok::Comma))
            .at_least(1)
            .allow_trailing()
            .collect::<Vec<_>>()
            .map_with(|mut xs, e| if xs.len() == 1 { xs.pop().unwrap() } else { mk(ExprKind::Tuple(xs), e.span()) })
            .delimited_by(tok(Tok::LBracket), tok(Tok::RBracket))
            .map_with(|i, e| (Postfix::Index(i), e.span()));
        let attr = tok(Tok::Dot).ignore_then(name()).map_with(|n, e| (Postfix::Attr(n), e.span()));
        let primary = atom
            .foldl(choice((call, index, attr)).repeated(), |lhs, (post, span)| {
                let span = Span::from(span).to(lhs.span);
                let kind = match post {
                    Postfix::Call(args) => ExprKind::Call(Box::new(lhs), args),
                    Postfix::Index(i) => ExprKind::Index(Box::new(lhs), Box::new(i)),
                    Postfix::Attr(n) => ExprKind::Attr(Box::new(lhs), n),
                };
                Expr { kind, span }
            })
            .boxed();

        // `-x ** 2` is `-(x ** 2)`; `a ** -b` is allowed.
        let unary = recursive(|unary| {
            let power = primary.clone().then(tok(Tok::DoubleStar).ignore_then(unary.clone()).or_not()).map(
                |(base, exp): (Expr, Option<Expr>)| match exp {
                    None => base,
                    Some(exp) => {
                        let span = base.span.to(exp.span);
                        Expr { kind: ExprKind::Binary(BinOp::Pow, Box::new(base), Box::new(exp)), span }
                    }
                },
            );
            let sign = select! { Tok::Minus => UnaryOp::Neg, Tok::Plus => UnaryOp::Pos }
                .map_with(|op, e| (op, Span::from(e.span())))
                .then(unary)
                .map(|((op, span), x)| {
                    let span = span.to(x.span);
                    Expr { kind: ExprKind::Unary(op, Box::new(x)), span }
                });
            sign.or(power)
        })
        .boxed();

        let binary = |lower: P<'t, Expr>, ops: P<'t, BinOp>| -> P<'t, Expr> {
            lower
                .clone()
                .foldl(ops.then(lower).repeated(), |a, (op, b)| {
                    let span = a.span.to(b.span);
                    Expr { kind: ExprKind::Binary(op, Box::new(a), Box::new(b)), span }
                })
                .boxed()
        };
        let term = binary(
            unary,
            select! {
                Tok::Star => BinOp::Mul, Tok::Slash => BinOp::Div, Tok::DoubleSlash => BinOp::FloorDiv,
                Tok::Percent => BinOp::Mod, Tok::At => BinOp::MatMul,
            }
            .boxed(),
        );
        let arith = binary(term, select! { Tok::Plus => BinOp::Add, Tok::Minus => BinOp::Sub }.boxed());

        let cmp_op = choice((
            tok(Tok::Not).then(tok(Tok::In)).to(CmpOp::NotIn),
            tok(Tok::Is).then(tok(Tok::Not)).to(CmpOp::IsNot),
            select! {
                Tok::Lt => CmpOp::Lt, Tok::Le => CmpOp::Le, Tok::Gt => CmpOp::Gt, Tok::Ge => CmpOp::Ge,
                Tok::Eq => CmpOp::Eq, Tok::Ne => CmpOp::Ne, Tok::In => CmpOp::In, Tok::Is => CmpOp::Is,
            },
        ));
        let comparison = arith
            .clone()
            .then(cmp_op.then(arith).repeated().collect::<Vec<_>>())
            .map(|(first, rest)| {
                if rest.is_empty() {
                    first
                } else {
                    let span = first.span.to(rest.last().unwrap().1.span);
                    Expr { kind: ExprKind::Compare(Box::new(first), rest), span }
                }
            })
            .boxed();
        let not_test = recursive(|not_test| {
            tok(Tok::Not)
                .map_with(|_, e| Span::from(e.span()))
                .then(not_test)
                .map(|(s, x): (Span, Expr)| {
                    let span = s.to(x.span);
                    Expr { kind: ExprKind::Not(Box::new(x)), span }
                })
                .or(comparison)
        })
        .boxed();
        // `a and b and c`, `a or b`: left-nested, short-circuiting at run time.
        let logical = |lower: P<'t, Expr>, op: Tok, make: fn(Box<Expr>, Box<Expr>) -> ExprKind| -> P<'t, Expr> {
            lower
                .clone()
                .foldl(tok(op).ignore_then(lower).repeated(), move |a, b| {
                    let span = a.span.to(b.span);
                    Expr { kind: make(Box::new(a), Box::new(b)), span }
                })
                .boxed()
        };
        let and_test = logical(not_test, Tok::And, ExprKind::And);
        let or_test = logical(and_test, Tok::Or, ExprKind::Or);
        let conditional = or_test
            .clone()
            .then(tok(Tok::If).ignore_then(or_test).then_ignore(tok(Tok::Else)).then(expr.clone()).or_not())
            .map(|(a, rest)| match rest {
                None => a,
                Some((cond, b)) => {
                    let span = a.span.to(b.span);
                    Expr { kind: ExprKind::IfElse(Box::new(cond), Box::new(a), Box::new(b)), span }
                }
            });
        let lambda = tok(Tok::Lambda)
            .ignore_then(params(expr.clone()))
            .then_ignore(tok(Tok::Colon))
            .then(expr.clone())
            .map_with(|(params, body), e| {
                let span: Span = e.span().into();
                let ret = Stmt { span: body.span, kind: StmtKind::Return(Some(body)) };
                let def = FuncDef {
                    name: intern("<lambda>"),
                    params,
                    body: vec![ret],
                    decorators: vec![],
                    globals: vec![],
                    nonlocals: vec![],
                    span,
                };
                Expr { kind: ExprKind::Lambda(Rc::new(def)), span }
            });
        lambda.or(conditional).labelled("an expression")
    })
    .boxed()
}

pub(super) enum Postfix {
    Call(Vec<Arg>),
    Index(Expr),
    Attr(Sym),
}

/// The `or_test` level (no conditional expression), as comprehensions need.
/// Built from the full expression and validated not to be conditional/lambda.
pub(super) fn or_test<'t>(expr: impl Parser<'t, In<'t>, Expr, Ex<'t>> + Clone + 't) -> P<'t, Expr> {
    // A comprehension clause `for x in xs if c` would otherwise read `xs if c else …`;
    // parse a full expression only when it is not followed by a dangling `if`.
    expr.try_map(|e, span| match e.kind {
        ExprKind::IfElse(..) => Err(Rich::custom(span, "conditional expression needs parentheses here")),
        _ => Ok(e),
    })
    .boxed()
}

/// `a` or `(a, b)`: one target, as after `with … as`.
pub(super) fn single_target<'t>(expr: impl Parser<'t, In<'t>, Expr, Ex<'t>> + Clone + 't) -> P<'t, Expr> {
    select! { Tok::Name(n) => intern(&n) }
        .map_with(|n, e| mk(ExprKind::Name(n), e.span()))
        .or(expr
            .separated_by(tok(Tok::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(tok(Tok::LParen), tok(Tok::RParen))
            .map_with(|xs, e| mk(ExprKind::Tuple(xs), e.span())))
        .boxed()
}

/// `a`, `a, b`, `(a, b)` as loop targets.
pub(super) fn target_list<'t>(expr: impl Parser<'t, In<'t>, Expr, Ex<'t>> + Clone + 't) -> P<'t, Expr> {
    // Names only (not full expressions), so that `in` is not read as an operator.
    let single = select! { Tok::Name(n) => intern(&n) }.map_with(|n, e| mk(ExprKind::Name(n), e.span())).or(expr
        .clone()
        .separated_by(tok(Tok::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(tok(Tok::LParen), tok(Tok::RParen))
        .map_with(|xs, e| mk(ExprKind::Tuple(xs), e.span())));
    single
        .separated_by(tok(Tok::Comma))
        .at_least(1)
        .allow_trailing()
        .collect::<Vec<_>>()
        .map_with(|mut xs, e| if xs.len() == 1 { xs.pop().unwrap() } else { mk(ExprKind::Tuple(xs), e.span()) })
        .boxed()
}

/// Parameter lists of `def` and `lambda`: `a, b=1, *args, c=2, **kwargs`.
pub(super) fn params<'t>(expr: impl Parser<'t, In<'t>, Expr, Ex<'t>> + Clone + 't) -> P<'t, Vec<Param>> {
    let param = choice((
        tok(Tok::DoubleStar).ignore_then(name()).map_with(|n, e| Param {
            name: n,
            default: None,
            kind: ParamKind::VarKw,
            span: e.span().into(),
        }),
        tok(Tok::Star).ignore_then(name().or_not()).map_with(|n, e| Param {
            name: n.unwrap_or_else(|| intern("*")),
            default: None,
            kind: ParamKind::VarArgs,
            span: e.span().into(),
        }),
        name().then(tok(Tok::Assign).ignore_then(expr).or_not()).map_with(|(n, d), e| Param {
            name: n,
            default: d,
            kind: ParamKind::Normal,
            span: e.span().into(),
        }),
    ));
    param
        .separated_by(tok(Tok::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .validate(|mut ps: Vec<Param>, e, emitter| {
            let mut after_star = false;
            let mut seen_default = false;
            for p in ps.iter_mut() {
                match p.kind {
                    ParamKind::VarArgs => after_star = true,
                    ParamKind::Normal if after_star => p.kind = ParamKind::KwOnly,
                    ParamKind::Normal => {
                        if p.default.is_some() {
                            seen_default = true;
                        } else if seen_default {
                            emitter.emit(Rich::custom(
                                e.span(),
                                "a parameter without a default follows one with a default",
                            ));
                        }
                    }
                    _ => {}
                }
            }
            ps
        })
        .boxed()
}

/// `expr, expr` (a tuple when there is a comma, trailing or not).
pub(super) fn expr_list<'t>() -> P<'t, Expr> {
    expr()
        .then(tok(Tok::Comma).ignore_then(expr()).repeated().collect::<Vec<_>>())
        .then(tok(Tok::Comma).or_not())
        .map_with(|((first, rest), trailing), e| {
            if rest.is_empty() && trailing.is_none() {
                first
            } else {
                let mut xs = vec![first];
                xs.extend(rest);
                mk(ExprKind::Tuple(xs), e.span())
            }
        })
        .boxed()
}
