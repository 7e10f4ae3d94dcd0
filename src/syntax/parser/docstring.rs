//! Docstrings (Python's rule): when the first statement of a `def`, a `class` or a module is a
//! string literal, that string is the object's `__doc__`. The parser takes it out of a def's or
//! class's body, so a call never evaluates it; a module's is read from its first tokens.

use super::super::ast::{Block, ExprKind, Stmt, StmtKind};
use super::super::token::Tok;
use logos::Logos;
use std::rc::Rc;

/// Takes the docstring statement out of `body` and returns its text, cleaned by [`cleandoc`].
/// A body that held only the docstring keeps a `pass` in its place (a block is never empty).
pub fn take(body: &mut Block) -> Option<Rc<str>> {
    let first = body.first()?;
    let StmtKind::Expr(e) = &first.kind else { return None };
    let ExprKind::Str(s) = &e.kind else { return None };
    let doc: Rc<str> = cleandoc(s).into();
    let span = first.span;
    body.remove(0);
    if body.is_empty() {
        body.push(Stmt { kind: StmtKind::Pass, span });
    }
    Some(doc)
}

/// The docstring of a module's source text: its first statement, when that is a string
/// literal (or adjacent literals) alone on its line(s). Reads only the first few tokens.
pub fn module_docstring(text: &str) -> Option<Rc<str>> {
    let mut parts = String::new();
    let mut lexer = Tok::lexer(text).skip_while(|t| matches!(t, Ok(Tok::Newline)));
    loop {
        match lexer.next() {
            Some(Ok(Tok::Str(s))) => parts.push_str(&s),
            Some(Ok(Tok::Newline)) | None if !parts.is_empty() => return Some(cleandoc(&parts).into()),
            _ => return None,
        }
    }
}

/// A docstring with its indentation removed, as Python's `inspect.cleandoc` does: tabs
/// expanded to 8 columns, the first line's leading blanks dropped, the common indentation of
/// the other lines removed, leading and trailing empty lines dropped.
pub fn cleandoc(doc: &str) -> String {
    let expanded = expand_tabs(doc);
    let mut lines: Vec<&str> = expanded.split('\n').collect();
    let margin = lines[1..]
        .iter()
        .filter(|l| !l.trim_start().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    lines[0] = lines[0].trim_start();
    for line in lines.iter_mut().skip(1) {
        // The margin counts spaces, which are single bytes, so this slices on a char boundary.
        *line = line.get(margin.min(line.len())..).unwrap_or("");
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let start = lines.iter().position(|l| !l.is_empty()).unwrap_or(lines.len());
    lines[start..].join("\n")
}

/// Tabs expanded to the next multiple of 8 columns, line by line (`str.expandtabs()`).
fn expand_tabs(s: &str) -> String {
    if !s.contains('\t') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut col = 0;
    for c in s.chars() {
        match c {
            '\t' => {
                let n = 8 - col % 8;
                out.extend(std::iter::repeat(' ').take(n));
                col += n;
            }
            '\n' | '\r' => {
                out.push(c);
                col = 0;
            }
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleandoc_follows_inspect() {
        // Checked against CPython 3.11's inspect.cleandoc.
        assert_eq!(cleandoc("Summary.\n\n    Body\n      more\n    "), "Summary.\n\nBody\n  more");
        assert_eq!(cleandoc("\n    First\n    Second\n"), "First\nSecond");
        assert_eq!(cleandoc("  one line  "), "one line  ");
        assert_eq!(cleandoc("a\n\tb"), "a\nb");
        assert_eq!(cleandoc(""), "");
    }

    #[test]
    fn a_module_docstring_is_its_first_statement() {
        assert_eq!(module_docstring("\n# c\n\"\"\"Doc.\n  x\"\"\"\nimport y").as_deref(), Some("Doc.\nx"));
        assert_eq!(module_docstring("'a' 'b'\n").as_deref(), Some("ab"));
        assert_eq!(module_docstring("'a' + x\n"), None);
        assert_eq!(module_docstring("x = 1\n'no'\n"), None);
    }
}
