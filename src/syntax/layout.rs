//! The layout pass: raw tokens → logical lines with `Newline`, `Indent` and
//! `Dedent`, following CPython's algorithm (a stack of indentation widths;
//! newlines inside brackets are ignored; a tab in indentation is an error).

use super::token::Tok;
use crate::source::Span;
use logos::Logos;

/// Nesting deeper than this is refused, so that no input can exhaust the
/// parser's stack (docs/language.md §7).
pub const MAX_NESTING: usize = 200;

/// Operators allowed in one logical line. Chains like `1+1+…` or `----x`
/// nest the syntax tree; past this the line is refused rather than risking
/// the native stack when it is evaluated (docs/language.md §7).
pub const MAX_LINE_OPERATORS: usize = 10_000;

/// A syntax error found before parsing.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutError {
    pub message: String,
    pub span: Span,
}

/// The tokens of a source text, laid out; plus whether the text ended inside
/// open brackets (the REPL keeps reading when it did).
#[derive(Debug)]
pub struct Layout {
    pub tokens: Vec<(Tok, Span)>,
    pub open_brackets: bool,
}

/// Lexes and lays out `src`.
pub fn layout(src: &str) -> Result<Layout, Vec<LayoutError>> {
    lay_out(src, false)
}

/// Lexes an f-string field `{…}`: like the inside of brackets, its
/// whitespace and line breaks carry no layout (`f"{ x}"` is `x`).
pub fn layout_field(src: &str) -> Result<Layout, Vec<LayoutError>> {
    lay_out(src, true)
}

/// Python ignores a UTF-8 byte order mark at the start of a file.
const BOM: char = '\u{feff}';

fn lay_out(src: &str, field: bool) -> Result<Layout, Vec<LayoutError>> {
    let mut out: Vec<(Tok, Span)> = Vec::new();
    let mut errors = Vec::new();
    let mut widths = vec![0usize];
    let mut brackets: Vec<(Tok, Span)> = Vec::new();
    let mut at_line_start = !field;
    let mut line_ops = 0usize;

    let mut lexer = Tok::lexer(src);
    let bom = if src.starts_with(BOM) { BOM.len_utf8() } else { 0 };
    lexer.bump(bom);
    while let Some(result) = lexer.next() {
        let span = Span::new(lexer.span().start, lexer.span().end);
        let tok = match result {
            Ok(tok) => tok,
            Err(()) => {
                let slice = lexer.slice();
                if slice.starts_with(['"', '\'']) || slice.starts_with("f\"") || slice.starts_with("f'") {
                    errors.push(LayoutError { message: "unterminated string literal".to_string(), span });
                } else if let Some(run) = errors.last_mut().filter(|e| e.span.end == span.start && run_of_bad(e)) {
                    // A run of characters the lexer refuses is one error, not one per character.
                    // (its message is written once the run ends: `name_runs`)
                    run.span = Span::new(run.span.start as usize, span.end as usize);
                } else {
                    errors.push(LayoutError { message: bad_run_message(slice), span });
                }
                if errors.len() > MAX_ERRORS {
                    return Err(too_many(errors, src));
                }
                continue;
            }
        };
        if tok == Tok::Newline {
            if brackets.is_empty() && !at_line_start && !field {
                out.push((Tok::Newline, span));
                at_line_start = true;
                line_ops = 0;
            }
            continue;
        }
        if is_operator(&tok) {
            line_ops += 1;
            if line_ops > MAX_LINE_OPERATORS {
                errors.push(LayoutError {
                    message: format!(
                        "this line is too complex (more than {MAX_LINE_OPERATORS} operators); split it up"
                    ),
                    span,
                });
                name_runs(&mut errors, src);
                return Err(errors);
            }
        }
        if at_line_start && brackets.is_empty() {
            at_line_start = false;
            let line_start = src[..span.start as usize].rfind('\n').map_or(bom, |i| i + 1);
            // The line's leading blanks: a character the lexer refused may come before this
            // token, and counting it as indent would report a second, spurious error.
            let before = &src[line_start..span.start as usize];
            let indent = &before[..before.len() - before.trim_start_matches([' ', '\t']).len()];
            if let Some(tab) = indent.find('\t') {
                let at = line_start + tab;
                errors.push(LayoutError {
                    message: "tab in indentation (indent with spaces)".into(),
                    span: Span::new(at, at + 1),
                });
            }
            let width = indent.chars().count();
            let top = *widths.last().unwrap();
            let here = Span::new(span.start as usize, span.start as usize);
            if width > top {
                if out.is_empty() || out.last().map(|t| &t.0) != Some(&Tok::Newline) {
                    errors.push(LayoutError { message: "unexpected indent".into(), span });
                } else {
                    widths.push(width);
                    if widths.len() > MAX_NESTING {
                        errors.push(LayoutError { message: "too many nested blocks".into(), span });
                        name_runs(&mut errors, src);
                        return Err(errors);
                    }
                    out.push((Tok::Indent, here));
                }
            } else if width < top {
                while *widths.last().unwrap() > width {
                    widths.pop();
                    out.push((Tok::Dedent, here));
                }
                if *widths.last().unwrap() != width {
                    errors.push(LayoutError {
                        message: "unindent does not match any outer indentation level".into(),
                        span,
                    });
                }
            }
        }
        match tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => {
                brackets.push((tok.clone(), span));
                if brackets.len() > MAX_NESTING {
                    errors.push(LayoutError { message: "too many nested parentheses".into(), span });
                    name_runs(&mut errors, src);
                    return Err(errors);
                }
            }
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                let expected = match tok {
                    Tok::RParen => Tok::LParen,
                    Tok::RBracket => Tok::LBracket,
                    _ => Tok::LBrace,
                };
                match brackets.pop() {
                    Some((open, _)) if open == expected => {}
                    Some((open, open_span)) => {
                        errors.push(LayoutError { message: format!("closing {tok} does not match {open}"), span });
                        let _ = open_span;
                    }
                    None => errors.push(LayoutError { message: format!("unmatched {tok}"), span }),
                }
                if errors.len() > MAX_ERRORS {
                    return Err(too_many(errors, src));
                }
            }
            _ => {}
        }
        out.push((tok, span));
    }
    let end = Span::new(src.len(), src.len());
    let open_brackets = !brackets.is_empty();
    // After a lexing error the brackets are unreliable: report the lexing error alone.
    if let (Some((open, span)), true) = (brackets.last(), errors.is_empty()) {
        errors.push(LayoutError { message: format!("{open} was never closed"), span: *span });
    }
    if !errors.is_empty() {
        name_runs(&mut errors, src);
        return Err(errors);
    }
    if !field && !out.is_empty() && out.last().map(|t| &t.0) != Some(&Tok::Newline) {
        out.push((Tok::Newline, end));
    }
    while widths.len() > 1 {
        widths.pop();
        out.push((Tok::Dedent, end));
    }
    Ok(Layout { tokens: out, open_brackets })
}

/// The most errors one text reports; past them the rest of the text is not read (each
/// error is rendered with its line, so thousands of them on one long line would make a
/// report of quadratic size).
pub const MAX_ERRORS: usize = 100;

/// The first [`MAX_ERRORS`] errors, and one saying that reading stopped there.
fn too_many(mut errors: Vec<LayoutError>, src: &str) -> Vec<LayoutError> {
    errors.truncate(MAX_ERRORS);
    name_runs(&mut errors, src);
    let at = errors.last().map_or(Span::new(0, 0), |e| e.span);
    errors.push(LayoutError {
        message: format!("too many syntax errors (more than {MAX_ERRORS}): the rest of the text was not read"),
        span: Span::new(at.end as usize, at.end as usize),
    });
    errors
}

/// Writes the message of each run of refused characters that grew past one character.
fn name_runs(errors: &mut [LayoutError], src: &str) {
    for e in errors.iter_mut().filter(|e| run_of_bad(e)) {
        if let Some(run) = src.get(e.span.start as usize..e.span.end as usize) {
            e.message = bad_run_message(run);
        }
    }
}

/// Whether `e` reports characters the lexer refused (a run may grow).
fn run_of_bad(e: &LayoutError) -> bool {
    e.message.starts_with("unexpected character")
}

/// The error for a run of refused characters: the character, or the run's start.
fn bad_run_message(run: &str) -> String {
    let mut chars = run.chars();
    let first = chars.next().unwrap_or('?');
    match run.chars().count() {
        0 | 1 => format!("unexpected character '{first}'"),
        n if run.chars().all(|c| c == first) => format!("unexpected characters '{first}' ({n} in a row)"),
        n => {
            let shown: String = run.chars().take(8).collect();
            let more = if n > 8 { "…" } else { "" };
            format!("unexpected characters '{shown}{more}' ({n} in a row)")
        }
    }
}

/// Tokens that can nest an expression: operators, attribute access, calls, indexing.
fn is_operator(t: &Tok) -> bool {
    use Tok::*;
    matches!(
        t,
        Plus | Minus
            | Star
            | DoubleStar
            | Slash
            | DoubleSlash
            | Percent
            | At
            | Eq
            | Ne
            | Lt
            | Le
            | Gt
            | Ge
            | Not
            | And
            | Or
            | Is
            | In
            | If
            | Lambda
            | Dot
            | LParen
            | LBracket
            | LBrace
            | Amp
            | Pipe
            | Caret
            | Tilde
            | LShift
            | RShift
            | Yield
    )
}

/// True when `src` is an unfinished REPL entry: open brackets, a trailing
/// `\`, or a block (a compound statement) not yet ended by a blank line.
pub fn needs_more_input(src: &str) -> bool {
    if src.trim_end_matches([' ', '\t', '\n']).ends_with('\\') {
        return true;
    }
    match layout(src) {
        Err(errs) => errs.iter().any(|e| e.message.ends_with("was never closed")),
        Ok(l) => {
            let block = l.tokens.iter().any(|(t, _)| *t == Tok::Indent)
                || l.tokens
                    .iter()
                    .rev()
                    .find(|(t, _)| !matches!(t, Tok::Newline | Tok::Dedent))
                    .is_some_and(|(t, _)| *t == Tok::Colon);
            l.open_brackets || (block && !src.ends_with("\n\n"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> String {
        layout(src)
            .unwrap()
            .tokens
            .iter()
            .map(|(t, _)| match t {
                Tok::Newline => "NL".to_string(),
                Tok::Indent => "IN".to_string(),
                Tok::Dedent => "DE".to_string(),
                Tok::Name(n) => n.to_string(),
                Tok::Int(n) | Tok::Float(n) => n.clone(),
                other => other.text().to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn radix_literals_read_as_their_values() {
        // Generated values across the whole int64 range, each written in hex, octal and
        // binary with Python's prefixes in either case and underscores between digits.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for i in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = (x >> (i % 64)) & i64::MAX as u64;
            let texts = [
                format!("0x{v:x}"),
                format!("0X{v:X}"),
                format!("0o{v:o}"),
                format!("0b{v:b}"),
                // an underscore after the prefix and between every two digits
                format!("0x_{}", format!("{v:x}").chars().map(String::from).collect::<Vec<_>>().join("_")),
            ];
            for t in texts {
                assert_eq!(kinds(&t), format!("{v} NL"), "{t}");
            }
        }
    }

    #[test]
    fn blocks_get_indent_and_dedent() {
        assert_eq!(kinds("if a:\n    b\nc\n"), "if a : NL IN b NL DE c NL");
    }

    #[test]
    fn nested_blocks_close_at_end_of_input() {
        assert_eq!(kinds("if a:\n  if b:\n    c"), "if a : NL IN if b : NL IN c NL DE DE");
    }

    #[test]
    fn newlines_inside_brackets_are_ignored() {
        assert_eq!(kinds("f(a,\n      b)\n"), "f ( a , b ) NL");
    }

    #[test]
    fn blank_and_comment_lines_are_ignored() {
        assert_eq!(kinds("a\n\n   # note\nb\n"), "a NL b NL");
    }

    #[test]
    fn backslash_continues_a_line() {
        assert_eq!(kinds("a = 1 + \\\n    2\n"), "a = 1 + 2 NL");
    }

    #[test]
    fn tab_in_indentation_is_an_error() {
        let errs = layout("if a:\n\tb\n").unwrap_err();
        assert_eq!(errs[0].message, "tab in indentation (indent with spaces)");
    }

    #[test]
    fn inconsistent_dedent_is_an_error() {
        let errs = layout("if a:\n    b\n  c\n").unwrap_err();
        assert_eq!(errs[0].message, "unindent does not match any outer indentation level");
    }

    #[test]
    fn deep_brackets_are_refused_not_overflowed() {
        let src = "(".repeat(100_000);
        let errs = layout(&src).unwrap_err();
        assert_eq!(errs[0].message, "too many nested parentheses");
    }

    #[test]
    fn overlong_operator_chains_are_refused() {
        let src = "x = ".to_string() + &"-".repeat(20_000) + "1\n";
        assert!(layout(&src).unwrap_err()[0].message.starts_with("this line is too complex"));
        let ok = "x = ".to_string() + &"1 + ".repeat(5_000) + "1\n";
        assert!(layout(&ok).is_ok());
    }

    #[test]
    fn a_leading_byte_order_mark_is_ignored() {
        assert_eq!(kinds("\u{feff}if a:\n    b\n"), "if a : NL IN b NL DE");
        assert!(layout("a\n\u{feff}b\n").is_err());
    }

    #[test]
    fn a_refused_character_is_one_error_wherever_it_stands() {
        // Each refused character gives exactly one error, at the start of a line (indented or
        // not), mid-line or alone: it must not count as indent.
        for (src, at) in [
            ("def f():\n    \u{20ac} = 1\n    return 2\n", 13),
            ("\u{20ac} = 1\nx = 2\n", 0),
            ("if a:\n    b = 1 \u{20ac}\n    c\n", 16),
            ("if a:\n    b\n    \u{20ac}\n", 16),
        ] {
            let errs = layout(src).expect_err("refused");
            assert_eq!(errs.len(), 1, "{src:?}: {:?}", errs.iter().map(|e| &e.message).collect::<Vec<_>>());
            assert_eq!(
                (errs[0].message.as_str(), errs[0].span.start as usize),
                ("unexpected character '\u{20ac}'", at)
            );
        }
    }

    #[test]
    fn f_string_fields_have_no_layout() {
        let l = layout_field(" x +\n 1 ").unwrap();
        assert_eq!(l.tokens.len(), 3);
    }

    #[test]
    fn repl_input_completeness() {
        assert!(needs_more_input("def f():"));
        assert!(needs_more_input("def f():\n    return 1\n"));
        assert!(!needs_more_input("def f():\n    return 1\n\n"));
        assert!(needs_more_input("print((1,"));
        assert!(!needs_more_input("print((1,\n2))\n"));
        assert!(!needs_more_input("x = 1"));
        assert!(needs_more_input("x = 1 + \\\n"));
    }
}
