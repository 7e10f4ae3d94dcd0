//! The chumsky parser: laid-out tokens → [`ast`](super::ast) statements.
//!
//! Blocks arrive as balanced `Indent … Dedent` tokens from the layout pass, so
//! the grammar below reads like Python's (docs/language.md §2). Errors are
//! reported in source terms: "expected ':', found newline".

mod docstring;
mod expr;
mod fstring;
mod stmt;
mod validate;

pub use docstring::{cleandoc, module_docstring};
pub use expr::expr;
use stmt::module;

use super::ast::*;
use super::layout::{layout, layout_field, LayoutError};
use super::token::Tok;
use crate::intern::{intern, Sym};
use crate::source::Span;
use chumsky::input::MappedInput;
use chumsky::prelude::*;
use std::cell::{Cell, OnceCell};

pub(super) type In<'t> = MappedInput<'t, Tok, SimpleSpan, &'t [(Tok, SimpleSpan)]>;
pub(super) type Ex<'t> = extra::Err<Rich<'t, Tok, SimpleSpan>>;
pub(super) type P<'t, O> = Boxed<'t, 't, In<'t>, O, Ex<'t>>;

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
    match parse_module_recovering(src) {
        (Some(block), errors) if errors.is_empty() => Ok(block),
        (_, errors) if errors.is_empty() => {
            Err(vec![SyntaxError { message: "invalid syntax".into(), span: Span::new(0, 0) }])
        }
        (_, errors) => Err(errors),
    }
}

/// Parses a whole module and keeps what the grammar's recovery made of it (each bad
/// statement skipped with the indented block hanging off it; every span is still the
/// source's) beside the errors. No tree when the layout pass failed (a bad character, an
/// unclosed bracket or string, bad indentation): there are no tokens to parse then.
pub fn parse_module_recovering(src: &str) -> (Option<Block>, Vec<SyntaxError>) {
    let laid = match layout(src) {
        Ok(laid) => laid,
        Err(es) => return (None, es.into_iter().map(SyntaxError::from).collect()),
    };
    let toks: Vec<(Tok, SimpleSpan)> = laid.tokens.into_iter().map(|(t, s)| (t, SimpleSpan::from(s.range()))).collect();
    let eoi = SimpleSpan::from(src.len()..src.len());
    let (out, errs) = module().parse(toks.as_slice().split_token_span(eoi)).into_output_errors();
    // Grammar errors come first (a run reports only the first error, and
    // CPython's parser, too, fails before its compiler checks contexts).
    let mut errors: Vec<SyntaxError> = errs.into_iter().map(|e| convert(e, src)).collect();
    if let Some(block) = &out {
        // CPython's symbol table (nonlocal) runs before its compiler (contexts).
        errors.extend(validate::check_declarations(block));
        errors.extend(validate::check_nonlocals(block));
        errors.extend(validate::check_context(block));
    }
    (out, errors)
}

/// Parses one expression that starts at byte `offset` of its file (f-string fields).
pub(super) fn parse_expr_at(src: &str, offset: usize) -> Result<Expr, SyntaxError> {
    let shift = |s: Span| Span::new(s.start as usize + offset, s.end as usize + offset);
    let laid = layout_field(src).map_err(|es| {
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

pub(super) fn convert(e: Rich<'_, Tok, SimpleSpan>, _src: &str) -> SyntaxError {
    SyntaxError { message: describe(&e), span: (*e.span()).into() }
}

/// "expected X, found Y" in source terms.
pub(super) fn describe(e: &Rich<'_, Tok, SimpleSpan>) -> String {
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
            let structural: Vec<String> = names.iter().filter(|n| !is_continuation(n)).cloned().collect();
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
pub(super) fn is_continuation(name: &str) -> bool {
    const OPS: &[&str] = &[
        "'('",
        "'['",
        "'.'",
        "'**'",
        "'*'",
        "'/'",
        "'//'",
        "'%'",
        "'@'",
        "'+'",
        "'-'",
        "'<'",
        "'<='",
        "'>'",
        "'>='",
        "'=='",
        "'!='",
        "'if'",
        "'and'",
        "'or'",
        "'not'",
        "'is'",
        "'in'",
        "'='",
        "'+='",
        "'-='",
        "'*='",
        "'/='",
        "'//='",
        "'%='",
        "'**='",
        "'@='",
        "','",
        "';'",
        "something else",
        "'else'",
        "'for'",
        "'&'",
        "'|'",
        "'^'",
        "'<<'",
        "'>>'",
        "'&='",
        "'|='",
        "'^='",
        "'<<='",
        "'>>='",
    ];
    OPS.contains(&name)
}

pub(super) fn mk(kind: ExprKind, span: SimpleSpan) -> Expr {
    Expr { kind, span: span.into() }
}

pub(super) fn name<'t>() -> P<'t, Sym> {
    select! { Tok::Name(n) => intern(&n) }.labelled("a name").boxed()
}

pub(super) fn tok<'t>(t: Tok) -> P<'t, ()> {
    just(t).ignored().boxed()
}
