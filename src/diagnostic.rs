//! The one diagnostic renderer: every syntax and runtime error goes through
//! [`render`], which writes an ariadne report whose first line is
//! `Error: KIND: MESSAGE` (docs/language.md §7).

use crate::source::{SourceId, SourceMap, Span};
use ariadne::{Config, Label, Report, ReportKind};
use std::borrow::Cow;
use std::collections::HashMap;

/// A located problem, ready to render.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The user-facing kind, e.g. `SyntaxError`, `ShapeError`.
    pub kind: String,
    pub message: String,
    /// Where the error happened; `None` for errors with no source position.
    pub at: Option<(SourceId, Span)>,
    /// The label text under the marked span.
    pub label: Option<String>,
    /// Call sites, outermost first, innermost last: (source, span, function name).
    pub trace: Vec<(SourceId, Span, String)>,
    /// When the error was raised inside the standard library and `at` is the user's call into
    /// it: the library's call sites, outermost first, and last where it was raised.
    pub library: Vec<(SourceId, Span, String)>,
}

/// The prefix of the standard library's source names (`<stdlib>/nn.dgl`).
const STDLIB: &str = "<stdlib>";

impl Diagnostic {
    /// The diagnostic pointing at the user's line first: when the error was raised inside the
    /// standard library (docs/language.md §7), `at` becomes the innermost call site in the
    /// user's own code, and the library's frames move to [`Diagnostic::library`].
    pub fn user_first(mut self, sources: &SourceMap) -> Diagnostic {
        let in_library = |s: SourceId| sources.get(s).name.starts_with(STDLIB);
        let Some((src, span)) = self.at else { return self };
        if !in_library(src) {
            return self;
        }
        let Some(k) = self.trace.iter().rposition(|(s, _, _)| !in_library(*s)) else { return self };
        let mut library = self.trace.split_off(k + 1);
        library.push((src, span, String::new()));
        let (user_src, user_span, _) = self.trace[k].clone();
        self.at = Some((user_src, user_span));
        self.label = Some("in the standard library, called here".into());
        self.library = library;
        self
    }
}

/// Renders `diag` as text. `color` is for terminals only: golden files compare plain text.
pub fn render(sources: &SourceMap, diag: &Diagnostic, color: bool) -> String {
    render_all(sources, std::slice::from_ref(diag), color)
}

/// Renders several diagnostics (`dgl check` reports every syntax error).
///
/// Each file is indexed into lines once for all of them: indexing it again
/// per diagnostic made 200 KB of garbage take minutes.
pub fn render_all(sources: &SourceMap, diags: &[Diagnostic], color: bool) -> String {
    let mut shown: HashMap<SourceId, Shown> = HashMap::new();
    let mut show = |id: SourceId| {
        shown.entry(id).or_insert_with(|| Shown::new(&sources.get(id).text));
    };
    for d in diags {
        if let Some((src, _)) = d.at {
            show(src);
            d.trace.iter().for_each(|(s, _, _)| show(*s));
        }
    }
    // Every file under its id, shown with its escaped text.
    let offsets: HashMap<SourceId, Shown> = shown;
    let files: Vec<(FileKey, String)> = offsets
        .iter()
        .map(|(id, s)| (FileKey { id: *id, name: sources.get(*id).name.clone() }, s.text.clone()))
        .collect();
    let mut cache = ariadne::sources(files);
    let mut out = String::new();
    for diag in diags {
        out.push_str(&render_one(sources, diag, color, &offsets, &mut cache));
    }
    out
}

fn render_one(
    sources: &SourceMap,
    diag: &Diagnostic,
    color: bool,
    shown: &HashMap<SourceId, Shown>,
    cache: &mut impl ariadne::Cache<FileKey>,
) -> String {
    let header = format!("{}: {}", diag.kind, escape_controls(&diag.message, &['\n', '\t']));
    let Some((src, span)) = diag.at else {
        return format!("Error: {header}\n");
    };
    let file = sources.get(src);
    let key = FileKey { id: src, name: file.name.clone() };
    let range = shown[&src].range(clamp(span, file.text.len()));
    let label = escape_controls(diag.label.as_deref().unwrap_or("here"), &[]).into_owned();
    let mut report = Report::build(ReportKind::Error, (key.clone(), range.clone()))
        .with_config(Config::default().with_color(color).with_index_type(ariadne::IndexType::Byte))
        .with_message(&header)
        .with_label(Label::new((key, range)).with_message(label));
    if !diag.trace.is_empty() {
        let mut note = String::from("call stack, innermost last:");
        for (s, sp, func) in &diag.trace {
            let f = sources.get(*s);
            let (line, col) = f.line_col(sp.start as usize);
            note.push_str(&format!("\n  {}:{}:{} in {}", f.name, line, col, func));
        }
        report = report.with_note(note);
    }
    if !diag.library.is_empty() {
        let mut note = String::from("raised in the standard library, innermost last:");
        for (s, sp, func) in &diag.library {
            let f = sources.get(*s);
            let (line, col) = f.line_col(sp.start as usize);
            let within = if func.is_empty() { String::new() } else { format!(" in {func}") };
            note.push_str(&format!("\n  {}:{}:{}{within}", f.name, line, col));
        }
        report = report.with_note(note);
    }
    let mut out = Vec::new();
    if report.finish().write(cache, &mut out).is_err() {
        return format!("Error: {header}\n");
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A file in ariadne's cache: keyed by its id (REPL entries share a name),
/// displayed by its name.
#[derive(Clone, Debug)]
struct FileKey {
    id: SourceId,
    name: String,
}

impl PartialEq for FileKey {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for FileKey {}

impl std::hash::Hash for FileKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.id.hash(h)
    }
}

impl std::fmt::Display for FileKey {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// A source text as quoted in reports: control characters (which would
/// drive the terminal, or split lines differently from the lexer) are
/// written as Python-style escapes, and byte offsets are moved to match.
struct Shown {
    text: String,
    /// (offset in the original text of an escaped character, bytes added by
    /// the escapes up to and including it), in order.
    shifts: Vec<(usize, usize)>,
}

impl Shown {
    fn new(text: &str) -> Shown {
        let mut shifts = Vec::new();
        let mut out = String::with_capacity(text.len());
        let mut added = 0;
        for (i, c) in text.char_indices() {
            // `\r\n` is a line break that the lexer accepts too.
            let keep = matches!(c, '\n' | '\t') || (c == '\r' && text[i + 1..].starts_with('\n'));
            match escape_char(c) {
                Some(esc) if !keep => {
                    added += esc.len() - c.len_utf8();
                    shifts.push((i, added));
                    out.push_str(&esc);
                }
                _ => out.push(c),
            }
        }
        Shown { text: out, shifts }
    }

    /// Where the original byte range lies in the shown text.
    fn range(&self, r: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let at = |o: usize| {
            let n = self.shifts.partition_point(|&(i, _)| i < o);
            o + if n == 0 { 0 } else { self.shifts[n - 1].1 }
        };
        at(r.start)..at(r.end)
    }
}

/// The Python-style escape of a control character (`'\x1b'`, `'\u2028'`),
/// or `None` for a character that prints as itself.
pub fn escape_char(c: char) -> Option<String> {
    match c {
        '\n' => Some("\\n".into()),
        '\r' => Some("\\r".into()),
        '\t' => Some("\\t".into()),
        '\0'..='\x1f' | '\x7f'..='\u{9f}' => Some(format!("\\x{:02x}", c as u32)),
        // Line and paragraph separators and the byte order mark: invisible,
        // and the first two break lines in some renderers.
        '\u{2028}' | '\u{2029}' | '\u{feff}' => Some(format!("\\u{:04x}", c as u32)),
        _ => None,
    }
}

/// `text` with its control characters escaped, except those in `keep`.
pub fn escape_controls<'a>(text: &'a str, keep: &[char]) -> Cow<'a, str> {
    if !text.chars().any(|c| !keep.contains(&c) && escape_char(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match escape_char(c) {
            Some(esc) if !keep.contains(&c) => out.push_str(&esc),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn clamp(span: Span, len: usize) -> std::ops::Range<usize> {
    let start = (span.start as usize).min(len);
    let end = (span.end as usize).clamp(start, len);
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_spans_follow() {
        let shown = Shown::new("a\x1bb\r\nc\u{2028}d");
        assert_eq!(shown.text, "a\\x1bb\r\nc\\u2028d");
        assert_eq!(shown.range(1..2), 1..5);
        assert_eq!(shown.range(2..3), 5..6);
        assert_eq!(shown.range(6..9), 9..15);
        assert_eq!(shown.range(9..10), 15..16);
        assert_eq!(escape_controls("unexpected character '\0'", &[]), "unexpected character '\\x00'");
        assert_eq!(escape_controls("a\nb", &['\n']), "a\nb");
    }

    #[test]
    fn reports_never_carry_raw_control_bytes() {
        let mut sources = SourceMap::default();
        let id = sources.add("t.dgl", None, "x = 1\x1b\0\n");
        let d = Diagnostic {
            kind: "SyntaxError".into(),
            message: "unexpected character '\x1b'".into(),
            at: Some((id, Span::new(5, 6))),
            label: None,
            trace: vec![],
            library: vec![],
        };
        let text = render(&sources, &d, false);
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
        assert!(text.starts_with("Error: SyntaxError: unexpected character '\\x1b'"), "{text}");
        assert!(text.contains("x = 1\\x1b\\x00"), "{text}");
    }
}
