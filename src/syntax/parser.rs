//! The chumsky parser: laid-out tokens → [`ast`](super::ast) statements.
//!
//! Blocks arrive as balanced `Indent … Dedent` tokens from the layout pass, so
//! the grammar below reads like Python's (LANGUAGE.md §2). Errors are
//! reported in source terms: "expected ':', found newline".

use super::ast::*;
use super::layout::{layout, LayoutError};
use super::token::Tok;
use crate::runtime::intern::{intern, Sym};
use crate::source::Span;
use chumsky::input::MappedInput;
use chumsky::prelude::*;
use chumsky::recovery::via_parser;
use std::rc::Rc;

type In<'t> = MappedInput<'t, Tok, SimpleSpan, &'t [(Tok, SimpleSpan)]>;
type Ex<'t> = extra::Err<Rich<'t, Tok, SimpleSpan>>;
type P<'t, O> = Boxed<'t, 't, In<'t>, O, Ex<'t>>;

/// A syntax error with its location.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    pub message: String,
    pub span: Span,
}

impl From<LayoutError> for SyntaxError {
    fn from(e: LayoutError) -> Self {
        SyntaxError { message: e.message, span: e.span }
    }
}

/// Parses a whole module (script, module file or REPL entry).
pub fn parse_module(src: &str) -> Result<Block, Vec<SyntaxError>> {
    let laid = layout(src).map_err(|es| es.into_iter().map(SyntaxError::from).collect::<Vec<_>>())?;
    let toks: Vec<(Tok, SimpleSpan)> =
        laid.tokens.into_iter().map(|(t, s)| (t, SimpleSpan::from(s.range()))).collect();
    let eoi = SimpleSpan::from(src.len()..src.len());
    let (out, errs) = module().parse(toks.as_slice().split_token_span(eoi)).into_output_errors();
    if !errs.is_empty() || out.is_none() {
        return Err(errs.into_iter().map(|e| convert(e, src)).collect());
    }
    Ok(out.unwrap())
}

/// Parses one expression that starts at byte `offset` of its file (f-string fields).
fn parse_expr_at(src: &str, offset: usize) -> Result<Expr, SyntaxError> {
    let shift = |s: Span| Span::new(s.start as usize + offset, s.end as usize + offset);
    let laid = layout(src).map_err(|es| {
        let e = es.into_iter().next().unwrap();
        SyntaxError { message: e.message, span: shift(e.span) }
    })?;
    let toks: Vec<(Tok, SimpleSpan)> = laid
        .tokens
        .into_iter()
        .filter(|(t, _)| *t != Tok::Newline)
        .map(|(t, s)| (t, SimpleSpan::from(shift(s).range())))
        .collect();
    let eoi = SimpleSpan::from(offset + src.len()..offset + src.len());
    let result = match expr().then_ignore(end()).parse(toks.as_slice().split_token_span(eoi)).into_result() {
        Ok(e) => Ok(e),
        Err(errs) => {
            let e = &errs[0];
            Err(SyntaxError { message: format!("in f-string field: {}", describe(e)), span: (*e.span()).into() })
        }
    };
    result
}

fn convert(e: Rich<'_, Tok, SimpleSpan>, _src: &str) -> SyntaxError {
    SyntaxError { message: describe(&e), span: (*e.span()).into() }
}

/// "expected X, found Y" in source terms.
fn describe(e: &Rich<'_, Tok, SimpleSpan>) -> String {
    use chumsky::error::{RichPattern, RichReason};
    match e.reason() {
        RichReason::Custom(msg) => msg.clone(),
        RichReason::ExpectedFound { expected, found } => {
            let mut names: Vec<String> = expected
                .iter()
                .map(|p| match p {
                    RichPattern::Token(t) => format!("{}", &**t),
                    RichPattern::Label(l) => l.to_string(),
                    RichPattern::Identifier(i) => format!("'{i}'"),
                    RichPattern::Any => "something".into(),
                    RichPattern::SomethingElse => "something else".into(),
                    RichPattern::EndOfInput => "end of input".into(),
                    _ => "something else".into(),
                })
                .collect();
            names.sort();
            names.dedup();
            // Tokens that would merely continue an expression are noise next to
            // what the statement structurally needs ("':' after the condition").
            let structural: Vec<String> =
                names.iter().filter(|n| !is_continuation(n)).cloned().collect();
            if !structural.is_empty() {
                names = structural;
            }
            let found = match found {
                Some(t) => format!("{}", &**t),
                None => "end of input".into(),
            };
            match names.len() {
                0 => format!("unexpected {found}"),
                1 => format!("expected {}, found {found}", names[0]),
                _ => {
                    let last = names.pop().unwrap();
                    format!("expected {} or {last}, found {found}", names.join(", "))
                }
            }
        }
    }
}

/// Expectations that only say an expression could go on.
fn is_continuation(name: &str) -> bool {
    const OPS: &[&str] = &[
        "'('", "'['", "'.'", "'**'", "'*'", "'/'", "'//'", "'%'", "'@'", "'+'", "'-'", "'<'", "'<='", "'>'",
        "'>='", "'=='", "'!='", "'if'", "'and'", "'or'", "'not'", "'is'", "'in'", "'='", "'+='", "'-='",
        "'*='", "'/='", "'//='", "'%='", "'**='", "'@='", "','", "';'", "something else", "'else'",
    ];
    OPS.contains(&name)
}

fn mk(kind: ExprKind, span: SimpleSpan) -> Expr {
    Expr { kind, span: span.into() }
}

fn name<'t>() -> P<'t, Sym> {
    select! { Tok::Name(n) => intern(&n) }.labelled("a name").boxed()
}

fn tok<'t>(t: Tok) -> P<'t, ()> {
    just(t).ignored().boxed()
}

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

        let items = expr
            .clone()
            .separated_by(tok(Tok::Comma))
            .allow_trailing()
            .collect::<Vec<_>>();

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
            .map_with(|mut xs, e| {
                if xs.len() == 1 {
                    xs.pop().unwrap()
                } else {
                    mk(ExprKind::Tuple(xs), e.span())
                }
            })
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
            let power = primary
                .clone()
                .then(tok(Tok::DoubleStar).ignore_then(unary.clone()).or_not())
                .map(|(base, exp): (Expr, Option<Expr>)| match exp {
                    None => base,
                    Some(exp) => {
                        let span = base.span.to(exp.span);
                        Expr { kind: ExprKind::Binary(BinOp::Pow, Box::new(base), Box::new(exp)), span }
                    }
                });
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

enum Postfix {
    Call(Vec<Arg>),
    Index(Expr),
    Attr(Sym),
}

/// The `or_test` level (no conditional expression), as comprehensions need.
/// Built from the full expression and validated not to be conditional/lambda.
fn or_test<'t>(expr: impl Parser<'t, In<'t>, Expr, Ex<'t>> + Clone + 't) -> P<'t, Expr> {
    // A comprehension clause `for x in xs if c` would otherwise read `xs if c else …`;
    // parse a full expression only when it is not followed by a dangling `if`.
    expr.try_map(|e, span| match e.kind {
        ExprKind::IfElse(..) => Err(Rich::custom(span, "conditional expression needs parentheses here")),
        _ => Ok(e),
    })
    .boxed()
}

/// `a` or `(a, b)`: one target, as after `with … as`.
fn single_target<'t>(expr: impl Parser<'t, In<'t>, Expr, Ex<'t>> + Clone + 't) -> P<'t, Expr> {
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
fn target_list<'t>(expr: impl Parser<'t, In<'t>, Expr, Ex<'t>> + Clone + 't) -> P<'t, Expr> {
    // Names only (not full expressions), so that `in` is not read as an operator.
    let single = select! { Tok::Name(n) => intern(&n) }
        .map_with(|n, e| mk(ExprKind::Name(n), e.span()))
        .or(expr
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
fn params<'t>(expr: impl Parser<'t, In<'t>, Expr, Ex<'t>> + Clone + 't) -> P<'t, Vec<Param>> {
    let param = choice((
        tok(Tok::DoubleStar)
            .ignore_then(name())
            .map_with(|n, e| Param { name: n, default: None, kind: ParamKind::VarKw, span: e.span().into() }),
        tok(Tok::Star)
            .ignore_then(name().or_not())
            .map_with(|n, e| Param {
                name: n.unwrap_or_else(|| intern("*")),
                default: None,
                kind: ParamKind::VarArgs,
                span: e.span().into(),
            }),
        name()
            .then(tok(Tok::Assign).ignore_then(expr).or_not())
            .map_with(|(n, d), e| Param { name: n, default: d, kind: ParamKind::Normal, span: e.span().into() }),
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
fn expr_list<'t>() -> P<'t, Expr> {
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

fn module<'t>() -> P<'t, Block> {
    statements().then_ignore(end()).boxed()
}

fn statements<'t>() -> P<'t, Block> {
    recursive(|stmts| {
        // What follows a block header's ':' — an indented block, or statements on the same line.
        let body = choice((
            tok(Tok::Newline).ignore_then(
                stmts.clone().delimited_by(tok(Tok::Indent).labelled("an indented block"), tok(Tok::Dedent)),
            ),
            simple_line(),
        ))
        .boxed();
        let compound = compound(body);
        // Recovery (`dgl check` reports every error): skip the rest of the bad
        // line and any indented block hanging off it, then carry on.
        let skip_block = recursive(|skip_block| {
            tok(Tok::Indent)
                .then(choice((skip_block, none_of([Tok::Indent, Tok::Dedent]).ignored())).repeated())
                .then(tok(Tok::Dedent))
                .ignored()
        });
        let skip_line = none_of([Tok::Newline, Tok::Indent, Tok::Dedent])
            .repeated()
            .then(tok(Tok::Newline))
            .then(skip_block.or_not())
            .to(Vec::new());
        compound
            .or(simple_line())
            .recover_with(via_parser(skip_line))
            .repeated()
            .at_least(1)
            .collect::<Vec<Block>>()
            .map(|v| v.concat())
    })
    .or(end().to(Vec::new()))
    .boxed()
}

/// `':'` then a body; `what` names the colon in errors ("':' after the condition").
fn block<'t>(body: &P<'t, Block>, what: &'static str) -> P<'t, Block> {
    tok(Tok::Colon).labelled(what).ignore_then(body.clone()).boxed()
}

/// `small; small; small NEWLINE`
fn simple_line<'t>() -> P<'t, Block> {
    simple_stmt()
        .separated_by(tok(Tok::Semicolon))
        .at_least(1)
        .allow_trailing()
        .collect::<Vec<_>>()
        .then_ignore(tok(Tok::Newline).labelled("newline"))
        .boxed()
}

fn st(kind: StmtKind, span: SimpleSpan) -> Stmt {
    Stmt { kind, span: span.into() }
}

fn dotted<'t>() -> P<'t, Vec<Sym>> {
    name().separated_by(tok(Tok::Dot)).at_least(1).collect::<Vec<_>>().boxed()
}

fn simple_stmt<'t>() -> P<'t, Stmt> {
    let keyword = |t: Tok, k: StmtKind| tok(t).map_with(move |_, e| st(k.clone(), e.span()));
    let ret = tok(Tok::Return)
        .ignore_then(expr_list().or_not())
        .map_with(|v, e| st(StmtKind::Return(v), e.span()));
    let raise = tok(Tok::Raise).ignore_then(expr().or_not()).map_with(|v, e| st(StmtKind::Raise(v), e.span()));
    let names = name().separated_by(tok(Tok::Comma)).at_least(1).collect::<Vec<_>>();
    let global = tok(Tok::Global).ignore_then(names.clone()).map_with(|n, e| st(StmtKind::Global(n), e.span()));
    let nonlocal = tok(Tok::Nonlocal).ignore_then(names).map_with(|n, e| st(StmtKind::Nonlocal(n), e.span()));
    let import = tok(Tok::Import)
        .ignore_then(
            dotted()
                .then(tok(Tok::As).ignore_then(name()).or_not())
                .separated_by(tok(Tok::Comma))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .map_with(|m, e| st(StmtKind::Import(m), e.span()));
    let import_names = name()
        .then(tok(Tok::As).ignore_then(name()).or_not())
        .map_with(|(n, a), e| (n, a, Span::from(e.span())))
        .separated_by(tok(Tok::Comma))
        .at_least(1)
        .allow_trailing()
        .collect::<Vec<_>>();
    let from = tok(Tok::From)
        .ignore_then(dotted())
        .then_ignore(tok(Tok::Import))
        .then(
            import_names
                .clone()
                .delimited_by(tok(Tok::LParen), tok(Tok::RParen))
                .or(import_names),
        )
        .map_with(|(m, ns), e| st(StmtKind::FromImport(m, ns), e.span()));
    let assert = tok(Tok::Assert)
        .ignore_then(expr())
        .then(tok(Tok::Comma).ignore_then(expr()).or_not())
        .map_with(|(c, m), e| st(StmtKind::Assert(c, m), e.span()));
    let del = tok(Tok::Del)
        .ignore_then(expr().separated_by(tok(Tok::Comma)).at_least(1).collect::<Vec<_>>())
        .map_with(|ts, e| st(StmtKind::Del(ts), e.span()));
    let aug = select! {
        Tok::PlusEq => BinOp::Add, Tok::MinusEq => BinOp::Sub, Tok::StarEq => BinOp::Mul,
        Tok::SlashEq => BinOp::Div, Tok::DoubleSlashEq => BinOp::FloorDiv, Tok::PercentEq => BinOp::Mod,
        Tok::DoubleStarEq => BinOp::Pow, Tok::AtEq => BinOp::MatMul,
    };
    let expr_stmt = expr_list()
        .then(choice((
            aug.then(expr_list()).map(Tail::Aug),
            tok(Tok::Assign).ignore_then(expr_list()).repeated().at_least(1).collect::<Vec<_>>().map(Tail::Assign),
            empty().to(Tail::None),
        )))
        .try_map_with(|(first, tail), e| {
            let span = e.span();
            Ok(match tail {
                Tail::None => st(StmtKind::Expr(first), span),
                Tail::Aug((op, value)) => {
                    check_target(&first, false).map_err(|m| Rich::custom(first.span.range().into(), m))?;
                    st(StmtKind::AugAssign(first, op, value), span)
                }
                Tail::Assign(mut rest) => {
                    let value = rest.pop().unwrap();
                    let mut targets = vec![first];
                    targets.extend(rest);
                    for t in &targets {
                        check_target(t, true).map_err(|m| Rich::custom(t.span.range().into(), m))?;
                    }
                    st(StmtKind::Assign(targets, value), span)
                }
            })
        });
    choice((
        keyword(Tok::Pass, StmtKind::Pass),
        keyword(Tok::Break, StmtKind::Break),
        keyword(Tok::Continue, StmtKind::Continue),
        ret,
        raise,
        global,
        nonlocal,
        import,
        from,
        assert,
        del,
        expr_stmt,
    ))
    .labelled("a statement")
    .boxed()
}

#[derive(Clone)]
enum Tail {
    None,
    Aug((BinOp, Expr)),
    Assign(Vec<Expr>),
}

/// Names, `x[i]`, `obj.a`, and (for plain assignment) tuples and lists of them.
fn check_target(e: &Expr, allow_tuple: bool) -> Result<(), String> {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Index(..) | ExprKind::Attr(..) => Ok(()),
        ExprKind::Tuple(xs) | ExprKind::List(xs) if allow_tuple => {
            xs.iter().try_for_each(|x| check_target(x, true))
        }
        ExprKind::Call(..) => Err("cannot assign to a function call".into()),
        _ => Err("cannot assign to this expression".into()),
    }
}

fn compound<'t>(body: P<'t, Block>) -> P<'t, Block> {
    let if_stmt = tok(Tok::If)
        .ignore_then(expr())
        .then(block(&body, "':' after the condition"))
        .then(
            tok(Tok::Elif)
                .ignore_then(expr())
                .then(block(&body, "':' after the condition"))
                .repeated()
                .collect::<Vec<_>>(),
        )
        .then(tok(Tok::Else).ignore_then(block(&body, "':' after 'else'")).or_not())
        .map_with(|(((c, b), elifs), orelse), e| {
            let mut arms = vec![(c, b)];
            arms.extend(elifs);
            st(StmtKind::If(arms, orelse), e.span())
        });
    let loop_else = tok(Tok::Else).ignore_then(block(&body, "':' after 'else'")).or_not();
    let while_stmt = tok(Tok::While)
        .ignore_then(expr())
        .then(block(&body, "':' after the condition"))
        .then(loop_else.clone())
        .map_with(|((c, b), orelse), e| st(StmtKind::While(c, b, orelse), e.span()));
    let for_stmt = tok(Tok::For)
        .ignore_then(target_list(expr()))
        .then_ignore(tok(Tok::In))
        .then(expr_list())
        .then(block(&body, "':' after the loop header"))
        .then(loop_else)
        .map_with(|(((t, it), b), orelse), e| st(StmtKind::For(t, it, b, orelse), e.span()));
    let with_stmt = tok(Tok::With)
        .ignore_then(
            expr()
                .then(tok(Tok::As).ignore_then(single_target(expr())).or_not())
                .separated_by(tok(Tok::Comma))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .then(block(&body, "':' after the with items"))
        .map_with(|(items, b), e| st(StmtKind::With(items, b), e.span()));
    let handler = tok(Tok::Except)
        .ignore_then(expr().then(tok(Tok::As).ignore_then(name()).or_not()).or_not())
        .then(block(&body, "':' after the except clause"))
        .map_with(|(k, body), e| {
            let (kind, name) = match k {
                Some((k, n)) => (Some(k), n),
                None => (None, None),
            };
            Handler { kind, name, body, span: e.span().into() }
        });
    let try_stmt = tok(Tok::Try)
        .ignore_then(block(&body, "':' after 'try'"))
        .then(handler.repeated().collect::<Vec<_>>())
        .then(tok(Tok::Else).ignore_then(block(&body, "':' after 'else'")).or_not())
        .then(tok(Tok::Finally).ignore_then(block(&body, "':' after 'finally'")).or_not())
        .try_map_with(|(((body, handlers), orelse), finally), e| {
            if handlers.is_empty() && finally.is_none() {
                return Err(Rich::custom(e.span(), "expected 'except' or 'finally' after the try block"));
            }
            Ok(st(StmtKind::Try { body, handlers, orelse, finally }, e.span()))
        });
    let decorators = tok(Tok::At)
        .ignore_then(expr())
        .then_ignore(tok(Tok::Newline))
        .repeated()
        .collect::<Vec<_>>();
    let def = tok(Tok::Def)
        .ignore_then(name())
        .then(params(expr()).delimited_by(tok(Tok::LParen), tok(Tok::RParen)))
        .then_ignore(tok(Tok::Arrow).ignore_then(expr()).or_not())
        .then(block(&body, "':' after the parameters"))
        .map_with(|((n, ps), body), e| (n, ps, body, Span::from(e.span())));
    let class = tok(Tok::Class)
        .ignore_then(name())
        .then(expr().or_not().delimited_by(tok(Tok::LParen), tok(Tok::RParen)).or_not())
        .then(block(&body, "':' after the class name"))
        .map_with(|((n, base), body), e| (n, base.flatten(), body, Span::from(e.span())));
    let decorated = decorators
        .then(def.map(Ok).or(class.map(Err)))
        .map_with(|(decorators, item), e| match item {
            Ok((name, params, body, span)) => {
                let (globals, nonlocals) = declarations(&body);
                let def = FuncDef { name, params, body, decorators, globals, nonlocals, span };
                st(StmtKind::Def(Rc::new(def)), e.span())
            }
            Err((name, base, body, span)) => {
                let def = ClassDef { name, base, body, decorators, span };
                st(StmtKind::Class(Rc::new(def)), e.span())
            }
        });
    choice((if_stmt, while_stmt, for_stmt, with_stmt, try_stmt, decorated)).map(|s| vec![s]).boxed()
}

/// The `global` and `nonlocal` names declared directly in a function body
/// (not in nested functions).
fn declarations(body: &Block) -> (Vec<Sym>, Vec<Sym>) {
    let mut globals = Vec::new();
    let mut nonlocals = Vec::new();
    fn walk(b: &Block, g: &mut Vec<Sym>, n: &mut Vec<Sym>) {
        for s in b {
            match &s.kind {
                StmtKind::Global(xs) => g.extend(xs),
                StmtKind::Nonlocal(xs) => n.extend(xs),
                StmtKind::If(arms, orelse) => {
                    arms.iter().for_each(|(_, b)| walk(b, g, n));
                    if let Some(b) = orelse {
                        walk(b, g, n);
                    }
                }
                StmtKind::While(_, b, orelse) | StmtKind::For(_, _, b, orelse) => {
                    walk(b, g, n);
                    if let Some(b) = orelse {
                        walk(b, g, n);
                    }
                }
                StmtKind::With(_, b) => walk(b, g, n),
                StmtKind::Try { body, handlers, orelse, finally } => {
                    walk(body, g, n);
                    handlers.iter().for_each(|h| walk(&h.body, g, n));
                    for b in [orelse, finally].into_iter().flatten() {
                        walk(b, g, n);
                    }
                }
                _ => {}
            }
        }
    }
    walk(body, &mut globals, &mut nonlocals);
    (globals, nonlocals)
}

/// Splits an f-string body into text and `{expr!r:spec}` fields; `offset` is
/// the body's byte offset in the file, so field errors point into the string.
fn parse_fstring(raw: &str, offset: usize) -> Result<Vec<FPart>, SyntaxError> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        let c = bytes[i];
        if c == b'{' && bytes.get(i + 1) == Some(&b'{') {
            text.push('{');
            i += 2;
        } else if c == b'}' && bytes.get(i + 1) == Some(&b'}') {
            text.push('}');
            i += 2;
        } else if c == b'{' {
            if !text.is_empty() {
                parts.push(FPart::Text(super::token::unescape_body(&std::mem::take(&mut text)).into()));
            }
            // Find the closing brace at depth 0, and the `!r` / `:spec` split points.
            let start = i + 1;
            let mut depth = 0;
            let mut j = start;
            let mut colon = None;
            let mut bang = None;
            while j < raw.len() {
                match bytes[j] {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' => depth -= 1,
                    b'}' if depth == 0 => break,
                    b'}' => depth -= 1,
                    b':' if depth == 0 && colon.is_none() => colon = Some(j),
                    b'!' if depth == 0 && colon.is_none() && bytes.get(j + 1) != Some(&b'=') => bang = Some(j),
                    _ => {}
                }
                j += 1;
            }
            if j >= raw.len() {
                return Err(SyntaxError {
                    message: "f-string: expected '}'".into(),
                    span: Span::new(offset + i, offset + raw.len()),
                });
            }
            let expr_end = bang.or(colon).unwrap_or(j);
            let repr = match bang {
                Some(b) => {
                    let conv = &raw[b + 1..colon.unwrap_or(j)];
                    if conv != "r" && conv != "s" {
                        return Err(SyntaxError {
                            message: format!("f-string: unknown conversion '!{conv}'"),
                            span: Span::new(offset + b, offset + colon.unwrap_or(j)),
                        });
                    }
                    conv == "r"
                }
                None => false,
            };
            let spec = colon.map_or("", |c| &raw[c + 1..j]);
            let src = &raw[start..expr_end];
            if src.trim().is_empty() {
                return Err(SyntaxError {
                    message: "f-string: empty expression".into(),
                    span: Span::new(offset + i, offset + j + 1),
                });
            }
            let expr = parse_expr_at(src, offset + start)?;
            parts.push(FPart::Field { expr, repr, spec: spec.into() });
            i = j + 1;
        } else if c == b'}' {
            return Err(SyntaxError {
                message: "f-string: single '}' is not allowed".into(),
                span: Span::new(offset + i, offset + i + 1),
            });
        } else {
            let ch = raw[i..].chars().next().unwrap();
            text.push(ch);
            i += ch.len_utf8();
        }
    }
    if !text.is_empty() {
        parts.push(FPart::Text(super::token::unescape_body(&text).into()));
    }
    Ok(parts)
}
