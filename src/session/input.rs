//! What a user types at a prompt or into a cell, beyond code (IPython's conventions):
//! `%magic` lines, `%%magic` cells, and help queries (`x?`, `?x`, `x??`). The REPL and the
//! Jupyter kernel both run entries through [`Session::run_input`].
//!
//! An entry is cut into parts at the lines (at column 0) that are magics or help
//! queries; the code between them runs as usual, with the line numbers it has in the
//! entry, so a traceback points at the right line of `<input-N>`.

use super::magics;
use super::Session;
use crate::intern::intern;
use crate::runtime::value::Value;
use crate::runtime::Failure;

/// One part of an entry.
#[derive(Debug, PartialEq, Eq)]
pub enum Part<'a> {
    /// Code, starting at line `line` (0-based) of the entry.
    Code { line: usize, text: &'a str },
    /// `%name args` (a line magic), at line `line`.
    Magic { line: usize, name: &'a str, args: &'a str },
    /// `%%name args` on an entry's first line: `body` is the rest of the entry.
    CellMagic { name: &'a str, args: &'a str, body: &'a str },
    /// `name?`, `?name` or `name??`: the help text of a (dotted) name.
    Help(&'a str),
}

/// The name a help query asks about: `x?`, `?x`, `x??`, `x.attr?` (None if `line` is not one).
pub fn help_query(line: &str) -> Option<&str> {
    let t = line.trim();
    let name = if let Some(rest) = t.strip_prefix('?') {
        rest.strip_prefix('?').unwrap_or(rest)
    } else {
        let rest = t.strip_suffix('?')?;
        rest.strip_suffix('?').unwrap_or(rest)
    };
    let name = name.trim();
    let dotted = !name.is_empty()
        && name.split('.').all(|p| {
            p.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && p.chars().all(|c| c.is_alphanumeric() || c == '_')
        });
    dotted.then_some(name)
}

/// `%name args` → (name, args); `None` if `line` is not a line magic.
pub fn line_magic(line: &str) -> Option<(&str, &str)> {
    let body = line.strip_prefix('%')?;
    if body.starts_with('%') {
        return None;
    }
    let end = body.find(char::is_whitespace).unwrap_or(body.len());
    Some((&body[..end], body[end..].trim()))
}

/// The parts of an entry, in order.
pub fn parts(text: &str) -> Vec<Part<'_>> {
    if let Some(body) = text.strip_prefix("%%") {
        let (first, rest) = body.split_once('\n').unwrap_or((body, ""));
        let end = first.find(char::is_whitespace).unwrap_or(first.len());
        return vec![Part::CellMagic { name: &first[..end], args: first[end..].trim(), body: rest }];
    }
    let mut out = Vec::new();
    let mut code_start: Option<(usize, usize)> = None; // (line, byte offset)
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let at = offset;
        offset += line.len();
        let stripped = line.trim_end_matches(['\n', '\r']);
        // A line inside an open bracket or string of the code before it is code.
        let inside = code_start.is_some_and(|(_, s)| unclosed(&text[s..at]));
        let special = !inside && !stripped.starts_with([' ', '\t']);
        let part =
            match (special.then(|| line_magic(stripped)).flatten(), special.then(|| help_query(stripped)).flatten()) {
                (Some((name, args)), _) => Some(Part::Magic { line: i, name, args }),
                (None, Some(name)) => Some(Part::Help(name)),
                _ => None,
            };
        match part {
            Some(p) => {
                if let Some((l, s)) = code_start.take() {
                    out.push(Part::Code { line: l, text: &text[s..at] });
                }
                out.push(p);
            }
            None if code_start.is_none() => code_start = Some((i, at)),
            None => {}
        }
    }
    if let Some((l, s)) = code_start {
        out.push(Part::Code { line: l, text: &text[s..] });
    }
    out
}

/// Whether `code` ends inside brackets, a string or a `\\` continuation (so that its next
/// line continues it, whatever that line starts with).
fn unclosed(code: &str) -> bool {
    if code.trim_end_matches([' ', '\t', '\n', '\r']).ends_with('\\') {
        return true;
    }
    match crate::syntax::layout::layout(code) {
        Ok(l) => l.open_brackets,
        Err(errs) => errs.iter().any(|e| e.message.ends_with("was never closed")),
    }
}

impl Session {
    /// Runs one entry as typed at a prompt or into a notebook cell: code (as [`Session::run`]),
    /// `%magic` lines and `%%magic` cells (magics.rs; `%help` lists them), and help queries
    /// (`x?` writes what `help(x)` prints). Returns the value to echo: the last part's, when
    /// that is an expression (or a magic giving one, as `%time EXPR`). An echoed value
    /// becomes `_` (the one before `__`, the one before that `___`), as in Python's REPL.
    ///
    /// Errors: the first part that fails stops the entry; its syntax error or exception.
    pub fn run_input(&mut self, text: &str) -> Result<Option<Value>, Failure> {
        let parts = parts(text);
        if parts.iter().all(|p| matches!(p, Part::Code { .. })) {
            let v = self.run(text)?;
            self.remember(&v);
            return Ok(v);
        }
        self.count += 1;
        let mut last = None;
        for part in parts {
            last = match part {
                Part::Code { line, text } => {
                    // Blank lines before the code keep its line numbers those of the entry.
                    let padded = format!("{}{text}", "\n".repeat(line));
                    self.run_part(&padded)?
                }
                Part::Magic { name, args, .. } => magics::run(self, name, args, None)?,
                Part::CellMagic { name, args, body } => magics::run(self, &format!("%{name}"), args, Some(body))?,
                Part::Help(name) => {
                    self.show_help(name)?;
                    None
                }
            };
        }
        self.remember(&last);
        Ok(last)
    }

    /// Runs code as part of the current entry (`<input-N>`, N = `count`).
    pub(super) fn run_part(&mut self, text: &str) -> Result<Option<Value>, Failure> {
        let name = Self::entry_name(self.count);
        let (id, block) = self.compile(&name, text)?;
        self.exec_entry(id, &block)
    }

    /// Writes the help text of `name` (what `help(name)` prints).
    ///
    /// Errors: NameError when nothing of that name is known.
    pub fn show_help(&mut self, name: &str) -> Result<(), Failure> {
        match self.inspect(name, name.len()) {
            Some(mut text) => {
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                self.rt.write_out(&text).map_err(Failure::Runtime)
            }
            None => Err(Failure::Runtime(crate::err!(Name, "no help for '{name}': the name is not defined"))),
        }
    }

    /// `_`, `__`, `___`: the last three echoed values.
    fn remember(&mut self, v: &Option<Value>) {
        let Some(v) = v else { return };
        let globals = self.globals.clone();
        for (to, from) in [("___", "__"), ("__", "_")] {
            if let Some(old) = globals.get(intern(from)) {
                self.rt.set_global(&globals, intern(to), old);
            }
        }
        self.rt.set_global(&globals, intern("_"), v.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_queries_are_recognised() {
        assert_eq!(help_query("x?"), Some("x"));
        assert_eq!(help_query("?x"), Some("x"));
        assert_eq!(help_query("x??"), Some("x"));
        assert_eq!(help_query(" tape.gradient? "), Some("tape.gradient"));
        for not in ["?", "x", "1?", "a b?", "x.?", "f()?", "x ? y"] {
            assert_eq!(help_query(not), None, "{not}");
        }
    }

    fn session() -> (Session, std::rc::Rc<std::cell::RefCell<Vec<u8>>>) {
        let buf = std::rc::Rc::new(std::cell::RefCell::new(Vec::<u8>::new()));
        (Session::new(buf.clone()), buf)
    }

    fn taken(buf: &std::rc::Rc<std::cell::RefCell<Vec<u8>>>) -> String {
        String::from_utf8(std::mem::take(&mut *buf.borrow_mut())).expect("utf-8")
    }

    #[test]
    fn a_help_query_writes_what_help_prints() {
        let (mut s, out) = session();
        s.run("def double(a):\n    'Twice a.'\n    return 2 * a\n").expect("runs");
        let f = s.lookup("double").expect("defined");
        let mut expected = crate::help::help_text(&mut s.rt, &f);
        if !expected.ends_with('\n') {
            expected.push('\n');
        }
        for query in ["double?", "?double", "double??"] {
            assert!(s.run_input(query).expect("runs").is_none());
            assert_eq!(taken(&out), expected, "{query}");
        }
        assert!(s.run_input("nothing_here?").is_err());
    }

    #[test]
    fn magic_lines_run_between_the_code_of_a_cell_and_keep_its_line_numbers() {
        let (mut s, out) = session();
        let v = s.run_input("x = 2\n%time y = x * 3\ny + 1\n").expect("runs");
        assert_eq!(s.repr(&v.expect("a value")).expect("repr"), "7");
        assert!(taken(&out).contains("Wall time: "));
        // `_` is the value echoed last.
        assert_eq!(s.run_input("_ * 2").ok().flatten().map(|v| s.repr(&v).expect("repr")), Some("14".into()));
        let e = s.run_input("%who\nz = 1\nundefined_name\n").expect_err("a NameError");
        assert_eq!(taken(&out), "x  y\n");
        assert!(s.report(&e).contains("<input-3>:3"), "{}", s.report(&e));
    }

    #[test]
    fn entries_are_cut_at_magic_lines() {
        assert_eq!(parts("x = 1\n"), [Part::Code { line: 0, text: "x = 1\n" }]);
        assert_eq!(
            parts("x = 1\n%time y = x\nprint(y)\n"),
            [
                Part::Code { line: 0, text: "x = 1\n" },
                Part::Magic { line: 1, name: "time", args: "y = x" },
                Part::Code { line: 2, text: "print(y)\n" },
            ]
        );
        assert_eq!(
            parts("%%timeit -n 2\nx = 1\ny = 2\n"),
            [Part::CellMagic { name: "timeit", args: "-n 2", body: "x = 1\ny = 2\n" }]
        );
        // `%` continuing an open bracket, or indented, is code.
        assert_eq!(parts("x = (7\n% 4)\n"), [Part::Code { line: 0, text: "x = (7\n% 4)\n" }]);
        assert_eq!(parts("x?\n"), [Part::Help("x")]);
        // A block ended by the magic line (a cell needs no blank line).
        assert_eq!(
            parts("if x:\n    y\n%who\n"),
            [Part::Code { line: 0, text: "if x:\n    y\n" }, Part::Magic { line: 2, name: "who", args: "" }]
        );
    }
}
