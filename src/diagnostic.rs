//! The one diagnostic renderer: every syntax and runtime error goes through
//! [`render`], which writes an ariadne report whose first line is
//! `Error: KIND: MESSAGE` (LANGUAGE.md §7).

use crate::source::{SourceId, SourceMap, Span};
use ariadne::{Config, Label, Report, ReportKind};

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
}

/// Renders `diag` as text. `color` is for terminals only: golden files compare plain text.
pub fn render(sources: &SourceMap, diag: &Diagnostic, color: bool) -> String {
    let mut out = Vec::new();
    let header = format!("{}: {}", diag.kind, diag.message);
    match diag.at {
        Some((src, span)) => {
            let file = sources.get(src);
            let name = file.name.clone();
            let text = file.text.clone();
            let range = clamp(span, text.len());
            let mut report = Report::build(ReportKind::Error, (name.clone(), range.clone()))
                .with_config(Config::default().with_color(color).with_index_type(ariadne::IndexType::Byte))
                .with_message(&header)
                .with_label(
                    Label::new((name.clone(), range)).with_message(diag.label.clone().unwrap_or_else(|| "here".into())),
                );
            if !diag.trace.is_empty() {
                let mut note = String::from("call stack, innermost last:");
                for (s, sp, func) in &diag.trace {
                    let f = sources.get(*s);
                    let (line, col) = f.line_col(sp.start as usize);
                    note.push_str(&format!("\n  {}:{}:{} in {}", f.name, line, col, func));
                }
                report = report.with_note(note);
            }
            let mut files = vec![(name, text.to_string())];
            for (s, _, _) in &diag.trace {
                let f = sources.get(*s);
                if !files.iter().any(|(n, _)| *n == f.name) {
                    files.push((f.name.clone(), f.text.to_string()));
                }
            }
            if report.finish().write(ariadne::sources(files), &mut out).is_err() {
                return format!("Error: {header}\n");
            }
            String::from_utf8_lossy(&out).into_owned()
        }
        None => format!("Error: {header}\n"),
    }
}

fn clamp(span: Span, len: usize) -> std::ops::Range<usize> {
    let start = (span.start as usize).min(len);
    let end = (span.end as usize).clamp(start, len);
    start..end
}
