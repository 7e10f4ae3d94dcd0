//! Statements: simple statements on logical lines, compound statements with
//! their labelled `:` and blocks, and recovery at statements (so `dgl check`
//! reports every error).

use super::expr::{expr, expr_list, grammar, params, single_target};
use super::validate::{check_target, TargetUse};
use super::*;
use chumsky::prelude::*;
use chumsky::recovery::via_parser;
use std::rc::Rc;

pub(super) fn module<'t>() -> P<'t, Block> {
    statements().then_ignore(end()).boxed()
}

pub(super) fn statements<'t>() -> P<'t, Block> {
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
pub(super) fn block<'t>(body: &P<'t, Block>, what: &'static str) -> P<'t, Block> {
    tok(Tok::Colon).labelled(what).ignore_then(body.clone()).boxed()
}

/// `small; small; small NEWLINE`
pub(super) fn simple_line<'t>() -> P<'t, Block> {
    simple_stmt()
        .separated_by(tok(Tok::Semicolon))
        .at_least(1)
        .allow_trailing()
        .collect::<Vec<_>>()
        .then_ignore(tok(Tok::Newline).labelled("newline"))
        .boxed()
}

pub(super) fn st(kind: StmtKind, span: SimpleSpan) -> Stmt {
    Stmt { kind, span: span.into() }
}

pub(super) fn dotted<'t>() -> P<'t, Vec<Sym>> {
    name().separated_by(tok(Tok::Dot)).at_least(1).collect::<Vec<_>>().boxed()
}

pub(super) fn simple_stmt<'t>() -> P<'t, Stmt> {
    let keyword = |t: Tok, k: StmtKind| tok(t).map_with(move |_, e| st(k.clone(), e.span()));
    let ret = tok(Tok::Return).ignore_then(expr_list().or_not()).map_with(|v, e| st(StmtKind::Return(v), e.span()));
    let raise = tok(Tok::Raise).ignore_then(expr().or_not()).map_with(|v, e| st(StmtKind::Raise(v), e.span()));
    let names = name().separated_by(tok(Tok::Comma)).at_least(1).collect::<Vec<_>>();
    let global = tok(Tok::Global).ignore_then(names.clone()).map_with(|n, e| st(StmtKind::Global(n), e.span()));
    let nonlocal = tok(Tok::Nonlocal).ignore_then(names).map_with(|n, e| st(StmtKind::Nonlocal(n), e.span()));
    let import = tok(Tok::Import)
        .ignore_then(
            dotted()
                .then(tok(Tok::As).ignore_then(name()).or_not())
                .map(|(path, alias)| (path, alias, Cell::default()))
                .separated_by(tok(Tok::Comma))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .map_with(|m, e| st(StmtKind::Import(m), e.span()));
    let import_names = name()
        .then(tok(Tok::As).ignore_then(name()).or_not())
        .map_with(|(n, a), e| (n, a, Span::from(e.span()), Cell::default()))
        .separated_by(tok(Tok::Comma))
        .at_least(1)
        .allow_trailing()
        .collect::<Vec<_>>();
    let from = tok(Tok::From)
        .ignore_then(dotted())
        .then_ignore(tok(Tok::Import))
        .then(import_names.clone().delimited_by(tok(Tok::LParen), tok(Tok::RParen)).or(import_names))
        .map_with(|(m, ns), e| st(StmtKind::FromImport(m, ns), e.span()));
    let assert = tok(Tok::Assert)
        .ignore_then(expr())
        .then(tok(Tok::Comma).ignore_then(expr()).or_not())
        .map_with(|(c, m), e| st(StmtKind::Assert(c, m), e.span()));
    let del = tok(Tok::Del)
        .ignore_then(expr().separated_by(tok(Tok::Comma)).at_least(1).allow_trailing().collect::<Vec<_>>())
        .validate(|ts, e, emitter| {
            for t in &ts {
                report_target(t, TargetUse::Delete, emitter);
            }
            st(StmtKind::Del(ts), e.span())
        });
    let aug = select! {
        Tok::PlusEq => BinOp::Add, Tok::MinusEq => BinOp::Sub, Tok::StarEq => BinOp::Mul,
        Tok::SlashEq => BinOp::Div, Tok::DoubleSlashEq => BinOp::FloorDiv, Tok::PercentEq => BinOp::Mod,
        Tok::DoubleStarEq => BinOp::Pow, Tok::AtEq => BinOp::MatMul,
        Tok::AmpEq => BinOp::BitAnd, Tok::PipeEq => BinOp::BitOr, Tok::CaretEq => BinOp::BitXor,
        Tok::LShiftEq => BinOp::LShift, Tok::RShiftEq => BinOp::RShift,
    };
    // A value: `a, b`, or `yield …` (`x = yield v`).
    let value = grammar().yield_expr.or(expr_list()).boxed();
    let expr_stmt = value
        .clone()
        .then(choice((
            aug.then(value.clone()).map(Tail::Aug),
            tok(Tok::Assign).ignore_then(value).repeated().at_least(1).collect::<Vec<_>>().map(Tail::Assign),
            empty().to(Tail::None),
        )))
        // Bad targets are reported without failing the statement, so the
        // message is the validator's rather than a list of alternatives.
        .validate(|(first, tail), e, emitter| {
            let span = e.span();
            match tail {
                Tail::None => {
                    report_starred_value(&first, emitter);
                    st(StmtKind::Expr(first), span)
                }
                Tail::Aug((op, value)) => {
                    report_target(&first, TargetUse::AugAssign, emitter);
                    st(StmtKind::AugAssign(first, op, value), span)
                }
                Tail::Assign(mut rest) => {
                    let value = rest.pop().unwrap();
                    report_starred_value(&value, emitter);
                    let mut targets = vec![first];
                    targets.extend(rest);
                    for t in &targets {
                        report_target(t, TargetUse::Assign, emitter);
                    }
                    st(StmtKind::Assign(targets, value), span)
                }
            }
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
pub(super) enum Tail {
    None,
    Aug((BinOp, Expr)),
    Assign(Vec<Expr>),
}

/// A bare `*x` as a value (only displays and targets may hold one).
fn report_starred_value<'t>(value: &Expr, emitter: &mut chumsky::input::Emitter<Rich<'t, Tok, SimpleSpan>>) {
    if let ExprKind::Starred(_) = value.kind {
        emitter.emit(Rich::custom(SimpleSpan::from(value.span.range()), "can't use starred expression here"));
    }
}

/// Emits the target validator's error for `target`, if any.
fn report_target<'t>(target: &Expr, how: TargetUse, emitter: &mut chumsky::input::Emitter<Rich<'t, Tok, SimpleSpan>>) {
    if let Err((span, message)) = check_target(target, how) {
        emitter.emit(Rich::custom(SimpleSpan::from(span.range()), message));
    }
}

pub(super) fn compound<'t>(body: P<'t, Block>) -> P<'t, Block> {
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
        .ignore_then(grammar().for_targets)
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
            Handler { kind, name, slot: Cell::default(), body, span: e.span().into() }
        });
    // After the body comes at least one clause: handlers (then `else`, `finally`), or
    // `finally` alone. The clauses are required by the grammar, not checked afterwards, so
    // a malformed clause is reported where it goes wrong (`except as e:` at its `as`).
    let finally = tok(Tok::Finally).ignore_then(block(&body, "':' after 'finally'"));
    let with_handlers = handler
        .repeated()
        .at_least(1)
        .collect::<Vec<_>>()
        .then(tok(Tok::Else).ignore_then(block(&body, "':' after 'else'")).or_not())
        .then(finally.clone().or_not());
    let finally_only = finally.map(|f| ((Vec::new(), None), Some(f)));
    let try_stmt =
        tok(Tok::Try).ignore_then(block(&body, "':' after 'try'")).then(with_handlers.or(finally_only)).map_with(
            |(body, ((handlers, orelse), finally)), e| st(StmtKind::Try { body, handlers, orelse, finally }, e.span()),
        );
    let decorators = tok(Tok::At).ignore_then(expr()).then_ignore(tok(Tok::Newline)).repeated().collect::<Vec<_>>();
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
    let decorated = decorators.then(def.map(Ok).or(class.map(Err))).map_with(|(decorators, item), e| match item {
        Ok((name, params, mut body, span)) => {
            let doc = super::docstring::take(&mut body);
            let (globals, nonlocals) = declarations(&body);
            let def = FuncDef {
                name,
                params,
                generator: super::validate::contains_yield(&body),
                body,
                decorators,
                doc,
                globals,
                nonlocals,
                span,
                slot: Cell::default(),
                layout: OnceCell::new(),
            };
            st(StmtKind::Def(Rc::new(def)), e.span())
        }
        Err((name, base, mut body, span)) => {
            let doc = super::docstring::take(&mut body);
            let def =
                ClassDef { name, base, body, decorators, doc, span, slot: Cell::default(), layout: OnceCell::new() };
            st(StmtKind::Class(Rc::new(def)), e.span())
        }
    });
    choice((if_stmt, while_stmt, for_stmt, with_stmt, try_stmt, decorated)).map(|s| vec![s]).boxed()
}

/// The `global` and `nonlocal` names declared directly in a function body
/// (not in nested functions).
pub(super) fn declarations(body: &Block) -> (Vec<Sym>, Vec<Sym>) {
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
