//! Expressions: atoms, postfix calls/indexing/attributes, operators by
//! precedence, conditional expressions and lambdas; also parameter lists
//! and assignment/loop targets.

use super::fstring::parse_fstring;
use super::validate::{check_params, check_target, contains_yield, TargetUse};
use super::*;
use chumsky::prelude::*;
use chumsky::recursive::{Indirect, Recursive};
use std::rc::Rc;

/// A single expression (`test` in Python's grammar).
pub fn expr<'t>() -> P<'t, Expr> {
    grammar().expr
}

/// The expression grammar's entry points that statements need.
pub(super) struct Grammar<'t> {
    /// A full expression (`test`).
    pub expr: P<'t, Expr>,
    /// `a`, `a, b`, `obj.x, y[i]`: the targets of a `for` loop, checked as
    /// assignment targets.
    pub for_targets: P<'t, Expr>,
    /// `yield …` / `yield from …`.
    pub yield_expr: P<'t, Expr>,
}

/// Builds the expression grammar.
///
/// Every bracketed construct parses its first element once and then decides
/// what it is (`[x]` or `[x for …]`, `a[i]` or `a[i:j]`): trying one reading
/// and then re-parsing the same prefix for the next doubled the work at each
/// nesting level, so 40 nested `[(` never finished.
pub(super) fn grammar<'t>() -> Grammar<'t> {
    let mut expr: Recursive<Indirect<'t, 't, In<'t>, Expr, Ex<'t>>> = Recursive::declare();
    let mut or_test_decl: Recursive<Indirect<'t, 't, In<'t>, Expr, Ex<'t>>> = Recursive::declare();
    let mut primary_decl: Recursive<Indirect<'t, 't, In<'t>, Expr, Ex<'t>>> = Recursive::declare();
    let for_targets = target_list(primary_decl.clone().boxed());
    let yield_expr_out;
    {
        let literal = select! {
            Tok::Float(s) => ExprKind::Float(s.parse().unwrap_or(f64::NAN)),
            Tok::Imag(s) => ExprKind::Imag(s.parse().unwrap_or(f64::NAN)),
            Tok::Str(s) => ExprKind::Str(s.into()),
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
        // Adjacent string literals concatenate, as in Python; with an f-string among them the
        // whole is one f-string (`"a " f"{x}"`).
        let strings = select! { Tok::Str(s) => (false, s), Tok::FStr(s) => (true, s) }
            .map_with(|(f, s), e| (f, s, e.span()))
            .repeated()
            .at_least(2)
            .collect::<Vec<(bool, Rc<str>, SimpleSpan)>>()
            .validate(|pieces, e, emitter| {
                if !pieces.iter().any(|p| p.0) {
                    let text: String = pieces.iter().map(|p| &*p.1).collect();
                    return mk(ExprKind::Str(text.into()), e.span());
                }
                let mut parts = vec![];
                for (f, raw, span) in pieces {
                    if f {
                        match parse_fstring(&raw, span.start + 2) {
                            Ok(p) => parts.extend(p),
                            Err(err) => emitter.emit(Rich::custom(SimpleSpan::from(err.span.range()), err.message)),
                        }
                    } else {
                        parts.push(FPart::Text(raw));
                    }
                }
                mk(ExprKind::FString(parts), e.span())
            });
        let fstring = select! { Tok::FStr(s) => s }.validate(|raw, e, emitter| {
            let span: SimpleSpan = e.span();
            let parts = parse_fstring(&raw, span.start + 2).unwrap_or_else(|err| {
                emitter.emit(Rich::custom(SimpleSpan::from(err.span.range()), err.message));
                vec![]
            });
            mk(ExprKind::FString(parts), span)
        });
        let var = name().map_with(|n, e| mk(ExprKind::Name(n, Cell::default()), e.span()));

        // `*xs` inside a display (and, through `expr_list`, in assignment targets).
        let star_or_expr = tok(Tok::Star)
            .map_with(|_, e| Span::from(e.span()))
            .then(expr.clone())
            .map(|(s, x): (Span, Expr)| {
                let span = s.to(x.span);
                Expr { kind: ExprKind::Starred(Box::new(x)), span }
            })
            .or(expr.clone())
            .boxed();
        let items = star_or_expr.clone().separated_by(tok(Tok::Comma)).allow_trailing().collect::<Vec<_>>();

        // `for TARGETS in OR_TEST [if OR_TEST]…`: the iterable and conditions
        // are `or_test`s, so `xs if c` is a condition, while a parenthesized
        // `(a if c else b)` is an ordinary atom.
        let comp_for = tok(Tok::For)
            .ignore_then(for_targets.clone())
            .then_ignore(tok(Tok::In))
            .then(or_test_decl.clone())
            .then(tok(Tok::If).ignore_then(or_test_decl.clone()).repeated().collect::<Vec<_>>())
            .map(|((target, iter), conds)| CompFor { target, iter, conds });
        let comp_fors = comp_for.repeated().at_least(1).collect::<Vec<_>>().boxed();
        // `yield`, `yield a, b`, `yield from xs`: a statement, an assignment's value, or parenthesized.
        let yield_expr = tok(Tok::Yield)
            .ignore_then(choice((
                tok(Tok::From).ignore_then(expr.clone()).map(|x| ExprKind::YieldFrom(Box::new(x))),
                items_tuple(star_or_expr.clone()).or_not().map(|x| ExprKind::Yield(x.map(Box::new))),
            )))
            .map_with(|k, e| mk(k, e.span()))
            .boxed();
        yield_expr_out = Some(yield_expr.clone());
        // `[]`, `[a, b]`, `[x for x in xs]`: the first element once, then a
        // `for` makes it a comprehension.
        let list = star_or_expr
            .clone()
            .then(choice((
                comp_fors.clone().map(ListTail::Comp),
                tok(Tok::Comma).ignore_then(items.clone()).or_not().map(|r| ListTail::Items(r.unwrap_or_default())),
            )))
            .or_not()
            .delimited_by(tok(Tok::LBracket), tok(Tok::RBracket))
            .validate(|inner, e, emitter| match inner {
                None => mk(ExprKind::List(vec![]), e.span()),
                Some((first, ListTail::Comp(fors))) => {
                    no_star_in_comprehension(&first, emitter);
                    mk(ExprKind::Comp(CompKind::List, Box::new(first), fors, Box::default()), e.span())
                }
                Some((first, ListTail::Items(rest))) => {
                    let mut xs = vec![first];
                    xs.extend(rest);
                    mk(ExprKind::List(xs), e.span())
                }
            });
        // `{}`, `{k: v, …}`, `{k: v for …}`, `{a, b}`, `{a for …}`: the first element once.
        let kv_items = tok(Tok::Comma)
            .ignore_then(
                expr.clone()
                    .then_ignore(tok(Tok::Colon))
                    .then(expr.clone())
                    .separated_by(tok(Tok::Comma))
                    .allow_trailing()
                    .collect::<Vec<_>>(),
            )
            .or_not()
            .map(Option::unwrap_or_default);
        let brace = star_or_expr
            .clone()
            .then(choice((
                tok(Tok::Colon)
                    .ignore_then(expr.clone())
                    .then(choice((comp_fors.clone().map(BraceTail::DictComp), kv_items.map(BraceTail::Dict)))),
                comp_fors.clone().map(|f| (mk(ExprKind::None, SimpleSpan::from(0..0)), BraceTail::SetComp(f))),
                tok(Tok::Comma)
                    .ignore_then(items.clone())
                    .or_not()
                    .map(|r| (mk(ExprKind::None, SimpleSpan::from(0..0)), BraceTail::Set(r.unwrap_or_default()))),
            )))
            .or_not()
            .delimited_by(tok(Tok::LBrace), tok(Tok::RBrace))
            .validate(|inner, e, emitter| {
                let Some((first, (value, tail))) = inner else { return mk(ExprKind::Dict(vec![]), e.span()) };
                let kind = match tail {
                    BraceTail::Dict(_) | BraceTail::DictComp(_) if matches!(first.kind, ExprKind::Starred(_)) => {
                        emitter.emit(Rich::custom(
                            SimpleSpan::from(first.span.range()),
                            "cannot use a starred expression in a dictionary key",
                        ));
                        ExprKind::Dict(vec![])
                    }
                    BraceTail::Dict(rest) => {
                        let mut kvs = vec![(first, value)];
                        kvs.extend(rest);
                        ExprKind::Dict(kvs)
                    }
                    BraceTail::DictComp(fors) => {
                        ExprKind::Comp(CompKind::Dict(Box::new(value)), Box::new(first), fors, Box::default())
                    }
                    BraceTail::SetComp(fors) => {
                        no_star_in_comprehension(&first, emitter);
                        ExprKind::Comp(CompKind::Set, Box::new(first), fors, Box::default())
                    }
                    BraceTail::Set(rest) => {
                        let mut xs = vec![first];
                        xs.extend(rest);
                        ExprKind::Set(xs)
                    }
                };
                mk(kind, e.span())
            });
        // `()`, `(x)`, `(x,)`, `(x, y)`, `(x for x in xs)`, `(yield x)`.
        let paren = choice((
            yield_expr.clone().map(ParenTail::Yield),
            star_or_expr
                .clone()
                .then(choice((
                    comp_fors.clone().map(ParenTail::Gen),
                    tok(Tok::Comma).ignore_then(items.clone()).map(ParenTail::Items),
                    empty().to(ParenTail::One),
                )))
                .map(|(first, tail)| ParenTail::First(Box::new(first), Box::new(tail))),
        ))
        .or_not()
        .delimited_by(tok(Tok::LParen), tok(Tok::RParen))
        .validate(|inner, e, emitter| match inner {
            None => mk(ExprKind::Tuple(vec![]), e.span()),
            Some(ParenTail::Yield(y)) => y,
            Some(ParenTail::First(first, tail)) => match *tail {
                ParenTail::Gen(fors) => {
                    no_star_in_comprehension(&first, emitter);
                    genexp(*first, fors, e.span().into())
                }
                ParenTail::Items(rest) => {
                    let mut xs = vec![*first];
                    xs.extend(rest);
                    mk(ExprKind::Tuple(xs), e.span())
                }
                _ => {
                    if let ExprKind::Starred(_) = first.kind {
                        emitter.emit(Rich::custom(
                            SimpleSpan::from(first.span.range()),
                            "cannot use starred expression here",
                        ));
                    }
                    *first
                }
            },
            Some(_) => mk(ExprKind::None, e.span()),
        });
        let atom = choice((int, strings, literal, fstring, var, list, brace, paren)).labelled("an expression").boxed();

        // Calls, indexing and attributes bind tightest.
        // `f(x for x in xs)`: a generator expression needs no parentheses of its own
        // when it is the only argument.
        let arg = choice((
            tok(Tok::DoubleStar).ignore_then(expr.clone()).map(|x| (Arg::StarStar(x), false)),
            tok(Tok::Star).ignore_then(expr.clone()).map(|x| (Arg::Star(x), false)),
            name().then_ignore(tok(Tok::Assign)).then(expr.clone()).map(|(k, v)| (Arg::Kw(k, v), false)),
            expr.clone().then(comp_fors.clone().or_not()).map_with(|(x, fors), e| match fors {
                None => (Arg::Pos(x), false),
                Some(fors) => (Arg::Pos(genexp(x, fors, e.span().into())), true),
            }),
        ));
        let call = arg
            .separated_by(tok(Tok::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(tok(Tok::LParen), tok(Tok::RParen))
            .validate(|args: Vec<(Arg, bool)>, e, emitter| {
                if args.len() > 1 {
                    if let Some((Arg::Pos(g), _)) = args.iter().find(|(_, bare)| *bare) {
                        emitter.emit(Rich::custom(
                            SimpleSpan::from(g.span.range()),
                            "Generator expression must be parenthesized",
                        ));
                    }
                }
                let args: Vec<Arg> = args.into_iter().map(|(a, _)| a).collect();
                (Postfix::Call(args), e.span())
            });
        // `i`, `a:b`, `a:b:c`, `:b`, `::c`: a leading expression is parsed
        // once, then a ':' makes it a slice.
        let bound = expr.clone().or_not().map(|x| x.map(Box::new));
        let slice_tail = tok(Tok::Colon).ignore_then(bound.clone()).then(tok(Tok::Colon).ignore_then(bound).or_not());
        let subscript = choice((
            slice_tail.clone().map_with(|(stop, step), e| mk(ExprKind::Slice(None, stop, step.flatten()), e.span())),
            expr.clone().then(slice_tail.or_not()).map_with(|(start, tail), e| match tail {
                None => start,
                Some((stop, step)) => mk(ExprKind::Slice(Some(Box::new(start)), stop, step.flatten()), e.span()),
            }),
        ));
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
        primary_decl.define(primary.clone());

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
            let sign = select! { Tok::Minus => UnaryOp::Neg, Tok::Plus => UnaryOp::Pos, Tok::Tilde => UnaryOp::Invert }
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
        // Python's precedence, tightest first: shifts, `&`, `^`, `|`, then comparisons.
        let shift = binary(arith, select! { Tok::LShift => BinOp::LShift, Tok::RShift => BinOp::RShift }.boxed());
        let bit_and = binary(shift, select! { Tok::Amp => BinOp::BitAnd }.boxed());
        let bit_xor = binary(bit_and, select! { Tok::Caret => BinOp::BitXor }.boxed());
        let bit_or = binary(bit_xor, select! { Tok::Pipe => BinOp::BitOr }.boxed());

        let cmp_op = choice((
            tok(Tok::Not).then(tok(Tok::In)).to(CmpOp::NotIn),
            tok(Tok::Is).then(tok(Tok::Not)).to(CmpOp::IsNot),
            select! {
                Tok::Lt => CmpOp::Lt, Tok::Le => CmpOp::Le, Tok::Gt => CmpOp::Gt, Tok::Ge => CmpOp::Ge,
                Tok::Eq => CmpOp::Eq, Tok::Ne => CmpOp::Ne, Tok::In => CmpOp::In, Tok::Is => CmpOp::Is,
            },
        ));
        let comparison = bit_or
            .clone()
            .then(cmp_op.then(bit_or).repeated().collect::<Vec<_>>())
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
        let or_test_for_comp = or_test.clone();
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
                let body = vec![ret];
                let def = FuncDef {
                    name: intern("<lambda>"),
                    params,
                    generator: contains_yield(&body),
                    body,
                    decorators: vec![],
                    doc: None,
                    globals: vec![],
                    nonlocals: vec![],
                    span,
                    slot: Cell::default(),
                    layout: OnceCell::new(),
                };
                Expr { kind: ExprKind::Lambda(Rc::new(def)), span }
            });
        or_test_decl.define(or_test_for_comp);
        expr.define(lambda.or(conditional).labelled("an expression"));
    }
    Grammar { expr: expr.boxed(), for_targets, yield_expr: yield_expr_out.unwrap() }
}

/// `a, b` as one expression (a tuple when there is a comma).
fn items_tuple<'t>(item: P<'t, Expr>) -> P<'t, Expr> {
    item.clone()
        .then(tok(Tok::Comma).ignore_then(item).repeated().collect::<Vec<_>>())
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

/// CPython: "iterable unpacking cannot be used in comprehension".
fn no_star_in_comprehension<'t>(first: &Expr, emitter: &mut chumsky::input::Emitter<Rich<'t, Tok, SimpleSpan>>) {
    if let ExprKind::Starred(_) = first.kind {
        emitter.emit(Rich::custom(
            SimpleSpan::from(first.span.range()),
            "iterable unpacking cannot be used in comprehension",
        ));
    }
}

/// `(elt for t in it …)` as a generator function of one parameter, `.0` (the first
/// iterable, evaluated where the expression stands, as CPython does), whose body is
/// the loops with their conditions around `yield elt`.
fn genexp(elt: Expr, fors: Vec<CompFor>, span: Span) -> Expr {
    let zero = intern(".0");
    let first_iter = fors[0].iter.clone();
    let mut body = vec![Stmt {
        span: elt.span,
        kind: StmtKind::Expr(Expr { span: elt.span, kind: ExprKind::Yield(Some(Box::new(elt))) }),
    }];
    for (k, f) in fors.into_iter().enumerate().rev() {
        for c in f.conds.into_iter().rev() {
            let s = c.span;
            body = vec![Stmt { span: s, kind: StmtKind::If(vec![(c, body)], None) }];
        }
        let iter =
            if k == 0 { Expr { span: f.iter.span, kind: ExprKind::Name(zero, Cell::default()) } } else { f.iter };
        body = vec![Stmt { span, kind: StmtKind::For(f.target, iter, body, None) }];
    }
    let def = FuncDef {
        name: intern("<genexpr>"),
        params: vec![Param { name: zero, default: None, kind: ParamKind::Normal, span }],
        body,
        decorators: vec![],
        doc: None,
        generator: true,
        globals: vec![],
        nonlocals: vec![],
        span,
        slot: Cell::default(),
        layout: OnceCell::new(),
    };
    Expr { kind: ExprKind::GenExp(Rc::new(def), Box::new(first_iter)), span }
}

#[derive(Clone)]
enum BraceTail {
    Dict(Vec<(Expr, Expr)>),
    DictComp(Vec<CompFor>),
    SetComp(Vec<CompFor>),
    Set(Vec<Expr>),
}

#[derive(Clone)]
enum ParenTail {
    Yield(Expr),
    First(Box<Expr>, Box<ParenTail>),
    Gen(Vec<CompFor>),
    Items(Vec<Expr>),
    One,
}

#[derive(Clone)]
enum ListTail {
    Comp(Vec<CompFor>),
    Items(Vec<Expr>),
}

pub(super) enum Postfix {
    Call(Vec<Arg>),
    Index(Expr),
    Attr(Sym),
}

/// The target after `with … as`: any expression the target validator accepts.
pub(super) fn single_target<'t>(expr: P<'t, Expr>) -> P<'t, Expr> {
    expr.validate(|target, _, emitter| {
        if let Err((span, message)) = check_target(&target, TargetUse::Bind) {
            emitter.emit(Rich::custom(SimpleSpan::from(span.range()), message));
        }
        target
    })
    .boxed()
}

/// `a`, `a, b`, `(a, b)`, `obj.x, y[i]` as loop targets: primaries (not
/// full expressions, so that `in` is not read as an operator), checked by the
/// one target validator.
fn target_list<'t>(primary: P<'t, Expr>) -> P<'t, Expr> {
    let item = tok(Tok::Star)
        .ignore_then(primary.clone())
        .map_with(|x, e| mk(ExprKind::Starred(Box::new(x)), e.span()))
        .or(primary)
        .boxed();
    item.clone()
        .then(tok(Tok::Comma).ignore_then(item).repeated().collect::<Vec<_>>())
        .then(tok(Tok::Comma).or_not())
        .validate(|((first, rest), trailing), e, emitter| {
            let target = if rest.is_empty() && trailing.is_none() {
                first
            } else {
                let mut xs = vec![first];
                xs.extend(rest);
                mk(ExprKind::Tuple(xs), e.span())
            };
            if let Err((span, message)) = check_target(&target, TargetUse::Bind) {
                emitter.emit(Rich::custom(SimpleSpan::from(span.range()), message));
            }
            target
        })
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
        .validate(|mut ps: Vec<Param>, _, emitter| {
            if let Err((span, message)) = check_params(&ps) {
                emitter.emit(Rich::custom(SimpleSpan::from(span.range()), message));
            }
            // A plain parameter after `*` or `*args` is keyword-only.
            let mut after_star = false;
            for p in ps.iter_mut() {
                match p.kind {
                    ParamKind::VarArgs => after_star = true,
                    ParamKind::Normal if after_star => p.kind = ParamKind::KwOnly,
                    _ => {}
                }
            }
            ps
        })
        .boxed()
}

/// `expr, *expr` (a tuple when there is a comma, trailing or not).
pub(super) fn expr_list<'t>() -> P<'t, Expr> {
    let item = tok(Tok::Star)
        .ignore_then(expr())
        .map_with(|x, e| mk(ExprKind::Starred(Box::new(x)), e.span()))
        .or(expr())
        .boxed();
    items_tuple(item)
}
