//! Source files and spans.
//!
//! A [`Span`] is a byte range inside one source file; the file is named by a
//! [`SourceId`] that indexes the [`SourceMap`]. Line and column numbers are
//! computed only when a diagnostic is rendered (STYLE.md: spans, not line numbers).

use std::path::PathBuf;
use std::rc::Rc;

/// Index of a file in the [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SourceId(pub u32);

/// A byte range `start..end` in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl From<chumsky::span::SimpleSpan> for Span {
    fn from(s: chumsky::span::SimpleSpan) -> Span {
        Span::new(s.start, s.end)
    }
}

/// One loaded source text: a script, a module, REPL input or `-c` code.
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics (the path as given, or `<repl>`, `<string>`), as
    /// Python's tracebacks name files.
    pub name: String,
    /// The name written into what a program prints or draws (the places of tape entries
    /// in `print(tape)`, `tape.draw`, `tape.explain`, the checkpoint advice): relative to
    /// the script's folder, so the output is the same from any working directory. The
    /// script itself is its file name; a module is already named relative to the script's
    /// folder (runtime/import.rs); `<stdlib>/…`, `<repl>`, `<string>` are their names.
    pub label: String,
    /// The file's location on disk, when it has one; relative paths in the
    /// script resolve against its folder (docs/language.md §4, Data).
    pub path: Option<PathBuf>,
    pub text: Rc<str>,
}

impl SourceFile {
    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[line_start..].chars().count() + 1)
    }
}

/// Every source text the interpreter has seen, so diagnostics can quote any of them.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<Rc<SourceFile>>,
}

impl SourceMap {
    pub fn add(&mut self, name: impl Into<String>, path: Option<PathBuf>, text: &str) -> SourceId {
        let name = name.into();
        let label = name.clone();
        self.files.push(Rc::new(SourceFile { name, path, label, text: text.into() }));
        SourceId(self.files.len() as u32 - 1)
    }

    /// Adds a script run as the program (or by `%run`): labelled by its file name.
    pub fn add_script(&mut self, name: impl Into<String>, path: Option<PathBuf>, text: &str) -> SourceId {
        let name = name.into();
        let label = match path.as_deref().and_then(|p| p.file_name()) {
            Some(file) => file.to_string_lossy().into_owned(),
            None => name.clone(),
        };
        self.files.push(Rc::new(SourceFile { name, path, label, text: text.into() }));
        SourceId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: SourceId) -> &Rc<SourceFile> {
        &self.files[id.0 as usize]
    }
}
