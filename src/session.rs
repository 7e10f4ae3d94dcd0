//! One interactive session: an interpreter and the module its entries share.
//! The REPL (repl.rs), the Jupyter kernel and the language server all drive
//! DGL through this, so that an entry runs, completes and is inspected the
//! same way in each.
//!
//! - [`Session::run`] runs one entry (a REPL entry or a notebook cell) and returns
//!   the value of its last statement when that is an expression (IPython's rule).
//! - [`is_complete`] says whether an entry can run yet (the REPL's `... ` prompt,
//!   the kernel's `is_complete_request`).
//! - [`Session::complete`] lists what a name or `value.attr` prefix can become.
//! - [`Session::inspect`] gives the help text of the name under the cursor.
//! - [`Session::run_input`] (input.rs) runs what a user types: code, `%magics`
//!   (magics.rs: `%time`, `%timeit`, `%who`, `%run`, `%tape`), `x?` help queries.
//! - [`Session::display_text`] is the REPL's echo: `repr`, with a tensor too wide for
//!   one line laid out NumPy-style over several.

pub mod input;
pub mod magics;

use crate::runtime::value::{Globals, Value};
use crate::runtime::{Failure, Interp, Output};
use crate::source::SourceId;
use crate::syntax::ast::{Block, StmtKind};
use std::rc::Rc;

/// Python's keywords, which completion offers beside the names in scope.
pub const KEYWORDS: &[&str] = &[
    "def", "return", "if", "elif", "else", "while", "for", "in", "not", "and", "or", "is", "break", "continue", "pass",
    "class", "with", "as", "import", "from", "assert", "raise", "try", "except", "finally", "global", "nonlocal",
    "lambda", "del", "True", "False", "None", "yield",
];

/// Whether an entry can run (the kernel's `is_complete_reply` statuses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completeness {
    /// It parses as it stands (or its error will not go away with more lines: see `Invalid`).
    Complete,
    /// Open brackets, a trailing `\`, or a block not yet ended: the next line's indent.
    Incomplete { indent: String },
    /// A syntax error that more input cannot fix.
    Invalid,
}

/// An interpreter and the one module its entries run in.
pub struct Session {
    pub rt: Interp,
    pub globals: Rc<Globals>,
    /// Entries run so far (the next entry is number `count + 1`).
    pub count: usize,
}

impl Session {
    /// A session writing the program's output to `out`.
    pub fn new(out: Output) -> Session {
        let mut rt = Interp::new(out);
        rt.argv = vec!["".into()];
        Session { rt, globals: Rc::new(Globals::default()), count: 0 }
    }

    /// The source name of entry number `n`, as tracebacks show it.
    pub fn entry_name(n: usize) -> String {
        format!("<input-{n}>")
    }

    /// Runs one entry. Every statement runs in the session's module, so names persist
    /// across entries; when the last statement is an expression its value is returned
    /// (`None` values are not), for the REPL to echo and the kernel to show as
    /// `execute_result`.
    ///
    /// Errors: the syntax error (nothing runs) or the uncaught exception.
    pub fn run(&mut self, text: &str) -> Result<Option<Value>, Failure> {
        self.count += 1;
        let (id, block) = self.compile(&Self::entry_name(self.count), text)?;
        self.exec_entry(id, &block)
    }

    /// Adds `text` to the sources as `name` and parses it.
    ///
    /// Errors: the syntax error.
    pub fn compile(&mut self, name: &str, text: &str) -> Result<(SourceId, Block), Failure> {
        let id = self.rt.sources.add(name, None, text);
        let block = crate::syntax::parse_module(text).map_err(|e| Failure::Syntax(id, e))?;
        Ok((id, block))
    }

    /// Runs a parsed entry in the session's module; the value of its last statement when
    /// that is an expression whose value is not None.
    ///
    /// Errors: the uncaught exception.
    pub fn exec_entry(&mut self, id: SourceId, block: &Block) -> Result<Option<Value>, Failure> {
        let mut frame = self.rt.module_frame(block, &self.globals);
        let Some((last, init)) = block.split_last() else { return Ok(None) };
        let v = self.rt.running_in(id, "<module>".into(), |rt| match &last.kind {
            StmtKind::Expr(e) => {
                rt.exec_block(init, &mut frame)?;
                rt.eval(e, &mut frame)
            }
            _ => rt.exec_block(block, &mut frame).map(|_| Value::None),
        });
        match v.map_err(Failure::Runtime)? {
            Value::None => Ok(None),
            v => Ok(Some(v)),
        }
    }

    /// `repr(v)`, as the REPL echoes a value.
    pub fn repr(&mut self, v: &Value) -> Result<String, Failure> {
        self.rt.repr_of(v).map_err(Failure::Runtime)
    }

    /// The text the REPL echoes for `v`: its `repr`, except that a tensor (or Variable)
    /// whose one-line repr is wider than `width` columns is laid out NumPy-style over
    /// several lines, with its shape and dtype (format/wide.rs). `print` and `repr` keep
    /// the one-line form (docs/language.md §3).
    ///
    /// Errors: whatever `repr` raises (a user `__repr__`).
    pub fn display_text(&mut self, v: &Value, width: usize) -> Result<String, Failure> {
        let one_line = self.repr(v)?;
        if one_line.chars().count() <= width {
            return Ok(one_line);
        }
        Ok(match v {
            Value::Tensor(t) => crate::runtime::format::wide_repr(&t.data, "tensor", "", width),
            Value::Variable(var) => {
                let name = var
                    .name
                    .as_ref()
                    .map_or(String::new(), |n| format!(", name={}", crate::runtime::format::str_repr(n)));
                crate::runtime::format::wide_repr(&var.peek().data, "Variable", &name, width)
            }
            _ => one_line,
        })
    }

    /// The rendered diagnostic of a failure (in colour when the interpreter's configuration says so).
    pub fn report(&self, f: &Failure) -> String {
        self.rt.report(f)
    }

    /// What `text[..pos]` ends with can become: the byte offset where the completed
    /// word starts and the sorted candidates (names in scope, keywords and builtins;
    /// after `name.`, the attributes of that name's value).
    pub fn complete(&self, text: &str, pos: usize) -> (usize, Vec<String>) {
        let pos = pos.min(text.len());
        let pos = (0..=pos).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let before = &text[..pos];
        let start = before.rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).map_or(0, |i| i + 1);
        let word = &before[start..];
        if let Some((obj, partial)) = word.rsplit_once('.') {
            let mut hits: Vec<String> = match self.lookup(obj) {
                // What `dir(v)` lists (help/values.rs), as IPython completes from `dir`.
                Some(v) => {
                    crate::help::dir_names(&self.rt, &v).into_iter().filter(|a| a.starts_with(partial)).collect()
                }
                None => vec![],
            };
            hits.sort();
            hits.dedup();
            return (start + obj.len() + 1, hits);
        }
        let mut hits: Vec<String> = self.names().into_iter().filter(|n| n.starts_with(word)).collect();
        hits.sort();
        hits.dedup();
        (start, hits)
    }

    /// Every name an entry can use: keywords, builtins and the session's globals.
    pub fn names(&self) -> Vec<String> {
        let mut out: Vec<String> = KEYWORDS.iter().map(|s| s.to_string()).collect();
        out.extend(self.rt.builtins.keys().map(|k| k.name().to_string()));
        out.extend(self.globals.bound().iter().map(|(k, _)| k.name().to_string()));
        out
    }

    /// The value a dotted name (`x`, `model.layers`) has now, without running user code:
    /// globals, then builtins, then module and instance attributes.
    pub fn lookup(&self, dotted: &str) -> Option<Value> {
        let mut parts = dotted.split('.');
        let first = crate::intern::intern(parts.next()?);
        let mut v = self.globals.get(first).or_else(|| self.rt.builtins.get(&first).cloned())?;
        for p in parts {
            v = stored_attr(&v, crate::intern::intern(p))?;
        }
        Some(v)
    }

    /// The help text for the name or dotted name that ends at (or spans) byte `pos` of
    /// `text` (`reduce_sum`, `x.numpy`, `tape.gradient`): what `help(x)` prints; for a value that
    /// is data (a tensor, a list, an instance) what `x?` shows: its type, shape, dtype and a preview.
    pub fn inspect(&mut self, text: &str, pos: usize) -> Option<String> {
        let mut pos = pos.min(text.len());
        while !text.is_char_boundary(pos) {
            pos -= 1;
        }
        let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
        let (before, after) = text.split_at(pos);
        let start = before.char_indices().rev().find(|&(_, c)| !is_word(c)).map_or(0, |(i, c)| i + c.len_utf8());
        let end = after.char_indices().find(|&(_, c)| !is_word(c)).map_or(text.len(), |(i, _)| pos + i);
        let word = text[start..end].trim_matches('.');
        if word.is_empty() {
            return None;
        }
        if let Some(v) = self.lookup(word) {
            // A value is described (`x?` on a tensor: its type, shape, dtype, a preview); a
            // function, class or module is documented.
            if let Some(text) = crate::help::describe_object(&mut self.rt, &v) {
                return Some(text);
            }
            return Some(crate::help::help_text(&mut self.rt, &v));
        }
        // `x.attr` whose receiver is known: the method's own entry (`Tensor.numpy`).
        if let Some((obj, attr)) = word.rsplit_once('.') {
            let v = self.lookup(obj)?;
            return crate::help::attribute_help(&mut self.rt, &v, attr);
        }
        crate::help::lookup(word)
    }
}

/// A value's rich representations, IPython's display protocol: `(MIME type, data)` pairs,
/// `text/plain` (its `repr`) first, then whatever the value's `_repr_svg_`, `_repr_png_`
/// (base64 text), `_repr_html_`, `_repr_markdown_` and `_repr_latex_` methods return (a
/// method returning None is skipped). The kernel sends these as `execute_result` and
/// `display_data`.
///
/// Errors: whatever `repr` or a `_repr_*_` method raises.
pub fn mime_bundle(rt: &mut Interp, v: &Value) -> crate::error::R<Vec<(String, String)>> {
    let mut out = vec![("text/plain".to_string(), rt.repr_of(v)?)];
    if let Value::Instance(_) = v {
        for (method, mime) in [
            ("_repr_svg_", "image/svg+xml"),
            ("_repr_png_", "image/png"),
            ("_repr_html_", "text/html"),
            ("_repr_markdown_", "text/markdown"),
            ("_repr_latex_", "text/latex"),
        ] {
            let name = crate::intern::intern(method);
            let Ok(f) = rt.get_attr(v, name) else { continue };
            match rt.call_value(&f, vec![], vec![])? {
                Value::None => {}
                Value::Str(s) => out.push((mime.to_string(), s.to_string())),
                other => {
                    return Err(crate::err!(Type, "{method}() must return a str or None, not {}", other.type_name()))
                }
            }
        }
    }
    Ok(out)
}

/// Whether `text` is a complete entry, and if not, the indent its next line wants.
/// Whether a notebook cell's value is kept from its output: IPython shows the value of a
/// cell's last expression unless the cell ends with `;` (`plt.legend();`), comments aside.
pub fn ends_with_semicolon(text: &str) -> bool {
    use crate::syntax::token::Tok;
    use logos::Logos;
    let last = Tok::lexer(text).filter_map(Result::ok).filter(|t| !matches!(t, Tok::Newline)).last();
    matches!(last, Some(Tok::Semicolon))
}

/// The REPL's rule (`needs_more_input`): open brackets, a trailing `\` or a block not
/// yet ended by a blank line wait for more; an entry that fails to parse otherwise is
/// `Invalid` (running it reports the error).
pub fn is_complete(text: &str) -> Completeness {
    // A `%magic` line or an `x?` query is whole as typed (the REPL's rule too).
    let first = text.lines().next().unwrap_or("");
    if text.trim_end().lines().count() <= 1
        && (input::line_magic(first).is_some() || input::help_query(first).is_some())
    {
        return Completeness::Complete;
    }
    if crate::syntax::layout::needs_more_input(text) {
        return Completeness::Incomplete { indent: next_indent(text) };
    }
    match crate::syntax::parse_module(text) {
        Ok(_) => Completeness::Complete,
        Err(_) => Completeness::Invalid,
    }
}

/// The indent of the line after `text`'s last non-blank line: one level (4 spaces)
/// deeper after a line ending in `:`, the same otherwise.
pub fn next_indent(text: &str) -> String {
    let Some(last) = text.lines().rev().find(|l| !l.trim().is_empty()) else { return String::new() };
    let indent: String = last.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let code = last.split('#').next().unwrap_or("").trim_end();
    if code.ends_with(':') {
        format!("{indent}    ")
    } else {
        indent
    }
}

/// Attribute `name` of `v` as stored, without running user code (no property, no
/// `__getattr__`): a module's global, an instance's own attribute, a class's. What
/// completion and hover may read of a live value or a stdlib module.
pub fn stored_attr(v: &Value, name: crate::intern::Sym) -> Option<Value> {
    match v {
        Value::Module(m) => m.globals.get(name),
        Value::Instance(i) => i.attrs.borrow().get(&name).cloned(),
        Value::Class(c) => c.attrs.borrow().get(&name).cloned(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    fn session() -> (Session, Rc<RefCell<Vec<u8>>>) {
        let buf = Rc::new(RefCell::new(Vec::<u8>::new()));
        (Session::new(buf.clone()), buf)
    }

    #[test]
    fn a_cell_ending_with_a_semicolon_is_quiet() {
        assert!(ends_with_semicolon("plt.legend();"));
        assert!(ends_with_semicolon("x = 1\nplt.title('a;b');  # shown? no\n\n"));
        assert!(!ends_with_semicolon("x = 1; y = 2\ny"));
        assert!(!ends_with_semicolon("s = 'a;'\ns  # ;"));
    }

    #[test]
    fn a_cell_runs_every_statement_and_returns_its_last_expression() {
        let (mut s, out) = session();
        let v = s.run("x = 2\nprint('hi')\nx * 3\n").expect("runs").expect("a value");
        assert_eq!(s.repr(&v).expect("repr"), "6");
        assert_eq!(String::from_utf8(out.borrow().clone()).expect("utf-8"), "hi\n");
        // Names persist; a statement last gives no value, nor does an expression that is None.
        assert!(s.run("y = x + 1").expect("runs").is_none());
        assert!(s.run("print(y)").expect("runs").is_none());
        assert_eq!(s.count, 3);
        match s.run("1 +") {
            Err(Failure::Syntax(..)) => {}
            _ => panic!("a syntax error"),
        }
        let e = s.run("undefined_name").expect_err("a NameError");
        assert!(s.report(&e).contains("<input-5>"), "{}", s.report(&e));
    }

    #[test]
    fn completeness_follows_the_repl() {
        assert_eq!(is_complete("x = 1\n"), Completeness::Complete);
        assert_eq!(is_complete("def f(x):\n"), Completeness::Incomplete { indent: "    ".into() });
        assert_eq!(is_complete("f(1,\n"), Completeness::Incomplete { indent: String::new() });
        assert_eq!(is_complete("x = = 1\n"), Completeness::Invalid);
    }

    #[test]
    fn completion_lists_names_and_attributes() {
        let (mut s, _) = session();
        s.run("xs = [1]\nreduce_me = 1").expect("runs");
        let (start, hits) = s.complete("y = reduce_", 11);
        assert_eq!(start, 4);
        assert!(hits.contains(&"reduce_sum".to_string()) && hits.contains(&"reduce_me".to_string()), "{hits:?}");
        let (start, hits) = s.complete("xs.ap", 5);
        assert_eq!((start, hits), (3, vec!["append".to_string()]));
        // After `value.` completion offers what dir(value) lists: a class's inherited methods too.
        s.run("class A:\n    def method_of_a(self):\n        pass\nclass B(A):\n    pass\n").expect("runs");
        assert_eq!(s.complete("B.method", 8).1, vec!["method_of_a".to_string()]);
    }
}
