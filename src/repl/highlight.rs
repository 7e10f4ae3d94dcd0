//! Colours for the line being typed, from the language's own lexer (syntax/token.rs):
//! keywords, builtins, strings, numbers, comments, a `%magic` name, brackets that close
//! nothing (or the wrong thing), and the bracket pairing the one at the cursor.
//!
//! The text is always incomplete while it is typed: an unterminated string colours to
//! the end of its line (a triple-quoted one to the end of the text) and lexing goes on
//! after it, so no input makes highlighting fail. Only ANSI SGR sequences are added, so
//! the coloured text has the display width of the plain one (rustyline's requirement).

use crate::syntax::token::Tok;
use logos::Logos;
use std::collections::HashSet;
use std::ops::Range;

/// What a stretch of the line is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Keyword,
    Builtin,
    Str,
    Number,
    Comment,
    Magic,
    /// A closing bracket that closes nothing, or a different kind of bracket.
    Mismatched,
    /// The bracket at the cursor and the one it pairs with.
    Paired,
}

impl Class {
    /// The ANSI SGR parameters of the class (a palette readable on dark and light terminals).
    fn sgr(self) -> &'static str {
        match self {
            Class::Keyword => "35",
            Class::Builtin => "36",
            Class::Str => "32",
            Class::Number => "33",
            Class::Comment => "90",
            Class::Magic => "1;35",
            Class::Mismatched => "1;31",
            Class::Paired => "1;4;34",
        }
    }
}

/// Longer text is shown plain: lexing it again at every keystroke would make typing lag
/// after a huge paste (bytes).
pub const MAX_HIGHLIGHTED: usize = 64 * 1024;

/// The classes of the stretches of `text[from..]`, in order, not overlapping. `text[..from]`
/// is the entry typed on earlier lines, lexed for context only (a bracket opened there may
/// close here). `cursor`, a byte offset into `text[from..]`, marks the bracket whose pair
/// is shown (`None`: no pair, as on the final redraw).
pub fn classify(
    text: &str,
    from: usize,
    cursor: Option<usize>,
    builtins: &HashSet<String>,
) -> Vec<(Range<usize>, Class)> {
    let mut spans = Vec::new();
    let mut brackets: Vec<(usize, char)> = Vec::new();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    if let Some(magic) = magic_name(&text[from..]) {
        spans.push((from + magic.start..from + magic.end, Class::Magic));
    }
    let mut at = 0;
    while at < text.len() {
        let mut lex = Tok::lexer(&text[at..]);
        let mut gap_start = at;
        let mut resume = text.len();
        while let Some(tok) = lex.next() {
            let span = at + lex.span().start..at + lex.span().end;
            comments(text, gap_start..span.start, &mut spans);
            gap_start = span.end;
            let class = match tok {
                Ok(Tok::Str(_) | Tok::FStr(_)) => Some(Class::Str),
                Ok(Tok::Int(_) | Tok::Float(_) | Tok::Imag(_)) => Some(Class::Number),
                Ok(Tok::Name(n)) if builtins.contains(&*n) => Some(Class::Builtin),
                Ok(Tok::Name(_)) => None,
                Ok(t @ (Tok::LParen | Tok::LBracket | Tok::LBrace)) => {
                    brackets.push((span.start, opening(&t)));
                    None
                }
                Ok(t @ (Tok::RParen | Tok::RBracket | Tok::RBrace)) => {
                    match brackets.last() {
                        Some(&(open, kind)) if kind == opening(&t) => {
                            brackets.pop();
                            pairs.push((open, span.start));
                        }
                        _ => spans.push((span.clone(), Class::Mismatched)),
                    }
                    None
                }
                Ok(t) if t.text().chars().next().is_some_and(|c| c.is_ascii_alphabetic()) => Some(Class::Keyword),
                Ok(_) => None,
                Err(()) => {
                    // An unterminated string runs to the end of its line (triple quotes: of
                    // the text); lexing starts again after it.
                    let rest = &text[span.start..];
                    let body = rest.trim_start_matches(['f', 'F']);
                    if body.starts_with("\"\"\"") || body.starts_with("'''") {
                        spans.push((span.start..text.len(), Class::Str));
                        resume = text.len();
                        break;
                    }
                    if body.starts_with(['"', '\'']) {
                        let end = rest.find('\n').map_or(text.len(), |i| span.start + i);
                        spans.push((span.start..end, Class::Str));
                        resume = end;
                        break;
                    }
                    None
                }
            };
            if let Some(c) = class {
                spans.push((span, c));
            }
        }
        if resume == text.len() {
            comments(text, gap_start..text.len(), &mut spans);
        }
        at = resume;
    }
    if let Some(cursor) = cursor {
        let at_cursor = |p: usize| pairs.iter().find(|(a, b)| *a == p || *b == p).copied();
        let here = from + cursor;
        let found = at_cursor(here).or_else(|| here.checked_sub(1).and_then(at_cursor));
        if let Some((a, b)) = found {
            spans.push((a..a + 1, Class::Paired));
            spans.push((b..b + 1, Class::Paired));
        }
    }
    // Only what lies in the line being shown; a later class wins where two overlap.
    let mut shown: Vec<(Range<usize>, Class)> = spans
        .into_iter()
        .filter(|(r, _)| r.end > from)
        .map(|(r, c)| (r.start.max(from) - from..r.end - from, c))
        .collect();
    shown.sort_by_key(|(r, _)| r.start);
    let mut out: Vec<(Range<usize>, Class)> = Vec::with_capacity(shown.len());
    for (r, c) in shown {
        // Tokens never overlap; a name inside a `%magic` keeps the magic's colour.
        if out.last().is_none_or(|(last, _)| last.end <= r.start) {
            out.push((r, c));
        }
    }
    out
}

/// The `%name` (or `%%name`) that opens a magic line, as a byte range of `line`.
fn magic_name(line: &str) -> Option<Range<usize>> {
    let body = line.strip_prefix('%')?;
    let body = body.strip_prefix('%').unwrap_or(body);
    let start = line.len() - body.len();
    let len = body.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(body.len());
    (len > 0).then_some(0..start + len)
}

/// Comments in a stretch the lexer skipped (whitespace, comments, line continuations).
fn comments(text: &str, gap: Range<usize>, spans: &mut Vec<(Range<usize>, Class)>) {
    let mut at = gap.start;
    while let Some(i) = text[at..gap.end].find('#') {
        let start = at + i;
        let end = text[start..gap.end].find('\n').map_or(gap.end, |j| start + j);
        spans.push((start..end, Class::Comment));
        at = end;
    }
}

fn opening(t: &Tok) -> char {
    match t {
        Tok::LParen | Tok::RParen => '(',
        Tok::LBracket | Tok::RBracket => '[',
        _ => '{',
    }
}

/// `line` with the ANSI colours of its classes.
pub fn paint(line: &str, spans: &[(Range<usize>, Class)]) -> String {
    let mut out = String::with_capacity(line.len() + spans.len() * 10);
    let mut at = 0;
    for (r, c) in spans {
        if r.start < at || r.end > line.len() || !line.is_char_boundary(r.start) || !line.is_char_boundary(r.end) {
            continue;
        }
        out.push_str(&line[at..r.start]);
        out.push_str(&format!("\x1b[{}m{}\x1b[0m", c.sgr(), &line[r.clone()]));
        at = r.end;
    }
    out.push_str(&line[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classes as `text:Class` pairs, for readable expectations.
    fn show(text: &str, from: usize, cursor: Option<usize>) -> Vec<String> {
        let builtins: HashSet<String> = ["print", "constant"].iter().map(|s| s.to_string()).collect();
        classify(text, from, cursor, &builtins)
            .into_iter()
            .map(|(r, c)| format!("{}:{c:?}", &text[from..][r]))
            .collect()
    }

    #[test]
    fn tokens_get_their_classes() {
        assert_eq!(
            show("if x: print('a', 1.5)  # note", 0, None),
            ["if:Keyword", "print:Builtin", "'a':Str", "1.5:Number", "# note:Comment"]
        );
        assert_eq!(show("None and f\"{x}\"", 0, None), ["None:Keyword", "and:Keyword", "f\"{x}\":Str"]);
        assert_eq!(show("%timeit f(1)", 0, None), ["%timeit:Magic", "1:Number"]);
    }

    #[test]
    fn unterminated_strings_colour_to_the_end_and_lexing_goes_on() {
        assert_eq!(show("x = 'abc", 0, None), ["'abc:Str"]);
        assert_eq!(show("s = \"ab\\\"\nprint(2)", 0, None), ["\"ab\\\":Str", "print:Builtin", "2:Number"]);
        assert_eq!(show("'''doc\nmore", 0, None), ["'''doc\nmore:Str"]);
        assert_eq!(show("f'{x", 0, None), ["f'{x:Str"]);
    }

    #[test]
    fn brackets_that_close_nothing_are_marked_and_the_pair_at_the_cursor_shown() {
        assert_eq!(show("f(x])", 0, None), ["]:Mismatched"]);
        assert_eq!(show(")", 0, None), ["):Mismatched"]);
        // A bracket opened on an earlier line of the entry closes here.
        assert_eq!(show("f(1,\n2)", 5, None), ["2:Number"]);
        // The cursor after `)`: that bracket and the `(` it closes.
        assert_eq!(show("f(g(1))", 0, Some(7)), ["(:Paired", "1:Number", "):Paired"]);
        assert_eq!(show("f(g(1))", 0, Some(3)), ["(:Paired", "1:Number", "):Paired"]);
    }

    #[test]
    fn any_bytes_are_classified_without_panicking() {
        let builtins = HashSet::new();
        for text in
            ["\"", "'''", "f\"", "#", "\\", "é'ü", "((((", "]]]]", "\u{0}\u{7f}'", "1e", "0x", "%", "%%", "'\n'"]
        {
            for from in 0..=text.len() {
                if text.is_char_boundary(from) {
                    let spans = classify(text, from, Some(text.len() - from), &builtins);
                    let _ = paint(&text[from..], &spans);
                }
            }
        }
    }

    #[test]
    fn paint_adds_only_colour() {
        let line = "print('é')";
        let spans = show_spans(line);
        let painted = paint(line, &spans);
        let plain: String = strip_sgr(&painted);
        assert_eq!(plain, line);
    }

    fn show_spans(line: &str) -> Vec<(Range<usize>, Class)> {
        let builtins: HashSet<String> = ["print"].iter().map(|s| s.to_string()).collect();
        classify(line, 0, None, &builtins)
    }

    fn strip_sgr(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for d in chars.by_ref() {
                    if d == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }
}
