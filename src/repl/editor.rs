//! The line editor's helper (rustyline's Completer, Hinter, Highlighter and Validator):
//! Tab completion from the live session, `%magic` names and `%run` file names; the rest
//! of the latest history entry that starts with the line, in grey (Right arrow takes it);
//! syntax colours and bracket pairs (highlight.rs).

use super::highlight::{classify, paint, MAX_HIGHLIGHTED};
use crate::session::magics::MAGICS;
use crate::session::Session;
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::{Hinter, HistoryHinter};
use rustyline::validate::Validator;
use rustyline::{Context, Helper};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

/// What the editor asks the REPL for while a line is typed.
pub struct DglHelper {
    pub session: Rc<RefCell<Session>>,
    /// The lines of the entry typed before the one being edited (context for colours: a
    /// string or bracket opened there).
    pub entry: String,
    /// Whether the line may be coloured (a terminal, and `NO_COLOR` unset).
    pub color: bool,
    /// Builtin names, coloured as such (read once, at start).
    builtins: HashSet<String>,
    history: HistoryHinter,
    files: FilenameCompleter,
    /// Whether the bracket pair at the cursor is shown (not on the final redraw of a line).
    show_pair: Cell<bool>,
}

impl DglHelper {
    /// A helper completing from `session`; `color` as the REPL decided (terminal, `NO_COLOR`).
    pub fn new(session: Rc<RefCell<Session>>, color: bool) -> DglHelper {
        let builtins = session.borrow().rt.builtins.keys().map(|k| k.name().to_string()).collect();
        DglHelper {
            session,
            entry: String::new(),
            color,
            builtins,
            history: HistoryHinter::new(),
            files: FilenameCompleter::new(),
            show_pair: Cell::new(false),
        }
    }

    /// `line` coloured, as the editor shows it (plain without colour).
    pub fn colored<'l>(&self, line: &'l str, pos: Option<usize>) -> Cow<'l, str> {
        if !self.color || self.entry.len() + line.len() > MAX_HIGHLIGHTED {
            return Cow::Borrowed(line);
        }
        let text = format!("{}{line}", self.entry);
        let spans = classify(&text, self.entry.len(), pos, &self.builtins);
        Cow::Owned(paint(line, &spans))
    }
}

fn pair(s: String) -> Pair {
    Pair { display: s.clone(), replacement: s }
}

impl Completer for DglHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let pos = pos.min(line.len());
        let before = line.get(..pos).unwrap_or(line);
        if self.entry.is_empty() && before.starts_with("%run ") {
            return self.files.complete(line, pos, ctx);
        }
        if self.entry.is_empty() && before.starts_with('%') && !before.contains(char::is_whitespace) {
            let hits = MAGICS.iter().map(|(m, _)| m.to_string()).filter(|m| m.starts_with(before)).map(pair).collect();
            return Ok((0, hits));
        }
        // While an entry runs the session is borrowed; no completion is asked for then.
        let (start, hits) = self.session.try_borrow().map(|s| s.complete(line, pos)).unwrap_or((pos, vec![]));
        Ok((start, hits.into_iter().map(pair).collect()))
    }
}

impl Hinter for DglHelper {
    type Hint = String;

    /// The rest of the latest history entry starting with the line; of a multi-line entry,
    /// the rest of its first line only (a hint is shown on the line being edited).
    fn hint(&self, line: &str, pos: usize, ctx: &Context<'_>) -> Option<String> {
        if line.trim().is_empty() {
            return None;
        }
        let hint = self.history.hint(line, pos, ctx)?;
        let first = hint.split('\n').next().unwrap_or("");
        (!first.is_empty()).then(|| first.to_string())
    }
}

impl Highlighter for DglHelper {
    fn highlight<'l>(&self, line: &'l str, pos: usize) -> Cow<'l, str> {
        self.colored(line, self.show_pair.get().then_some(pos))
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if self.color {
            Cow::Owned(format!("\x1b[90m{hint}\x1b[0m"))
        } else {
            Cow::Borrowed(hint)
        }
    }

    /// Every keystroke redraws the line in colour (a character typed may open a string or
    /// close a bracket far from it); the final redraw drops the bracket pair.
    /// Past `MAX_HIGHLIGHTED` the line is plain and a typed character needs no redraw.
    fn highlight_char(&self, line: &str, _pos: usize, kind: CmdKind) -> bool {
        self.show_pair.set(kind != CmdKind::ForcedRefresh);
        self.color && self.entry.len() + line.len() <= MAX_HIGHLIGHTED
    }
}

/// Enter always ends the line: the REPL decides whether the entry goes on (a `... ` line).
impl Validator for DglHelper {}

impl Helper for DglHelper {}
