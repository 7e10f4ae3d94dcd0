//! The REPL (docs/language.md §8): `>>> ` / `... ` prompts, blocks ended by a blank line,
//! `repr` echo of expression values (a wide tensor NumPy-style over several lines), errors
//! that never end the session, persistent history with hints from it, Tab completion
//! that lists candidates, syntax colours (highlight.rs), auto-indent (indent.rs), `_`
//! for the last value, `exit`/`quit`, and what `Session::run_input` adds to code:
//! `%magics` and `x?` help.

mod editor;
pub mod highlight;
pub mod indent;

use crate::session::input::{help_query, line_magic};
use crate::session::Session;
use crate::syntax::layout::needs_more_input;
use editor::DglHelper;
use rustyline::config::{ColorMode, CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{
    Cmd, ConditionalEventHandler, Editor, Event, EventContext, EventHandler, KeyCode, KeyEvent, Modifiers, Movement,
    RepeatCount,
};
use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where history persists: the user's state directory.
fn history_path() -> Option<PathBuf> {
    let dir = dirs::state_dir().or_else(dirs::data_local_dir)?.join("dgl");
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join("history"))
}

/// Whether `entry` (its lines so far) can run: a `%magic` line or a help query at once;
/// a `%%magic` cell, a block, or a decorated definition at a blank line; anything else
/// when no bracket, string or block is left open.
fn entry_complete(entry: &str, blank: bool) -> bool {
    let first = entry.lines().next().unwrap_or("");
    if first.starts_with("%%") || entry.trim_start().starts_with('@') {
        return blank;
    }
    if line_magic(first).is_some() || help_query(first).is_some() {
        return true;
    }
    !needs_more_input(entry)
}

/// `exit`, `quit`, `exit()`, `quit(N)`… typed as a whole entry (and not a name the session
/// bound): the exit status. In a script these names are not defined (a script ends at its
/// end, or with an uncaught error's status); they are the REPL's, as in Python.
fn exit_request(entry: &str, session: &Session) -> Option<i32> {
    let t = entry.trim();
    let (name, args) = match t.split_once('(') {
        Some((name, rest)) => (name.trim_end(), Some(rest.strip_suffix(')')?.trim())),
        None => (t, None),
    };
    if !matches!(name, "exit" | "quit") || session.globals.get(crate::intern::intern(name)).is_some() {
        return None;
    }
    match args {
        None | Some("") => Some(0),
        Some(n) => n.parse::<i32>().ok(),
    }
}

/// Whether colour may be used on `stream`: a terminal, with `NO_COLOR` unset or empty.
fn color_on(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The terminal's width in columns (`COLUMNS`, else 80, when it cannot be asked).
fn terminal_width() -> usize {
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ only writes the winsize struct it is given.
        let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
        if unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0 && ws.ws_col > 0 {
            return ws.ws_col as usize;
        }
    }
    std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).filter(|&c| c > 0).unwrap_or(80)
}

/// Ctrl-C while a statement runs: only sets the flag (async-signal-safe).
#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    crate::runtime::INTERRUPTED.store(true, Ordering::Relaxed);
}

/// rustyline installs its own SIGINT handler for the editor's lifetime; put
/// ours back so Ctrl-C interrupts running statements (while a line is read,
/// the terminal is raw and rustyline sees Ctrl-C as a key).
fn claim_sigint() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigint as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
    }
}

/// Ctrl-D on a `... ` line holding only its pre-filled indent ends input as on an empty
/// line (rustyline's Ctrl-D deletes a character on a line that is not empty): the line is
/// accepted and the flag tells `read_entry` it was Ctrl-D.
struct EofOnIndent(Arc<AtomicBool>);

impl ConditionalEventHandler for EofOnIndent {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        if ctx.line().is_empty() || !ctx.line().trim().is_empty() {
            return None;
        }
        self.0.store(true, Ordering::Relaxed);
        Some(Cmd::AcceptLine)
    }
}

/// Backspace in a line's indentation (only spaces before the cursor) deletes one level (4
/// spaces, or what there is): after an auto-indent it dedents, as docs/getting-started.md
/// says; elsewhere it deletes one character.
struct DedentOnBackspace;

impl ConditionalEventHandler for DedentOnBackspace {
    fn handle(&self, _: &Event, n: RepeatCount, positive: bool, ctx: &EventContext) -> Option<Cmd> {
        let before = ctx.line().get(..ctx.pos())?;
        if !positive || n != 1 || before.is_empty() || !before.bytes().all(|b| b == b' ') {
            return None;
        }
        // `Dedent` (by the editor's indent size, one level) moves the cursor with the text;
        // a `Kill(BackwardChar(4))` would have its count reset to the key's repeat count (1).
        Some(Cmd::Dedent(Movement::WholeLine))
    }
}

/// How soon after the key before it a key must come to count as input that was already
/// waiting (a paste the terminal did not bracket, lines typed ahead): a burst is handled in
/// microseconds, a person types a key after Enter 50 ms later at the very fastest.
const BURST: Duration = Duration::from_millis(30);

/// Keys arriving in a burst: the first key of a `... ` line that still shows only its
/// pre-filled indent, when it comes in the same burst as the Enter before it, is text that
/// carries its own indentation (a pasted line): `dropped` tells `read_entry` to take the
/// pre-filled indent off the line. Every other key goes on as usual.
#[derive(Default)]
struct Burst {
    /// When the last key was handled.
    last: Mutex<Option<Instant>>,
    /// The pre-filled indent of the line being read, until its first key.
    prefill: Mutex<Option<String>>,
    dropped: AtomicBool,
}

/// The editor's handle on the shared `Burst`.
struct BurstKeys(Arc<Burst>);

impl ConditionalEventHandler for BurstKeys {
    fn handle(&self, evt: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        let this = &self.0;
        let now = Instant::now();
        let last = this.last.lock().ok()?.replace(now);
        let prefill = this.prefill.lock().ok()?.take()?;
        let in_burst = last.is_some_and(|t| now.duration_since(t) < BURST);
        if !in_burst || prefill.is_empty() || ctx.line() != prefill {
            return None;
        }
        if matches!(evt.get(0), Some(KeyEvent(KeyCode::Char(_), Modifiers::NONE))) {
            // The key goes in after the indent as usual; `read_entry` takes the indent off.
            this.dropped.store(true, Ordering::Relaxed);
        }
        None
    }
}

/// Whether `line`, arriving after the lines of `entry`, ends the block `entry` holds and
/// starts the next entry: a line at column 0 (not `else`, `elif`, `except`, `finally`,
/// which continue a statement) once a block body has begun (an indented line), with no
/// bracket, string or `\` continuation open. This is how a block pasted without bracketed
/// paste ends at the statement that follows it, as in CPython 3.13's REPL (CPython 3.11's
/// needs a blank line and reports a SyntaxError otherwise); typing at column 0 ends a block
/// too. A decorator line, or a header whose body has not begun, is not ended.
fn ends_block(entry: &str, line: &str) -> bool {
    if entry.is_empty() || entry.starts_with("%%") || line.trim().is_empty() || line.starts_with([' ', '\t']) {
        return false;
    }
    if matches!(indent::first_word(line), "else" | "elif" | "except" | "finally") {
        return false;
    }
    if entry.trim_end().ends_with('\\') {
        return false;
    }
    let laid = crate::syntax::layout::layout(entry);
    laid.is_ok_and(|l| !l.open_brackets && l.tokens.iter().any(|(t, _)| *t == crate::syntax::token::Tok::Indent))
}

/// What reading one entry ended with.
enum Read {
    Entry(String),
    Abandoned,
    End,
}

/// Reads one entry: a `>>> ` line, then `... ` lines, each pre-filled with its indent,
/// until the entry is complete. `pending` holds a line that ended the entry before this
/// one (`ends_block`): this entry starts with it.
fn read_entry(
    rl: &mut Editor<DglHelper, DefaultHistory>,
    eof: &AtomicBool,
    burst: &Burst,
    pending: &mut Option<String>,
) -> Read {
    let mut entry = String::new();
    if let Some(line) = pending.take() {
        entry.push_str(&line);
        entry.push('\n');
        if entry_complete(&entry, false) {
            return Read::Entry(entry);
        }
    }
    loop {
        // Without a terminal the editor reads lines as they are and shows no pre-filled text.
        let (prompt, prefill) = match (entry.is_empty(), std::io::stdin().is_terminal()) {
            (true, _) => (">>> ", String::new()),
            (false, true) => ("... ", indent::prefill(&entry)),
            (false, false) => ("... ", String::new()),
        };
        if let Some(h) = rl.helper_mut() {
            h.entry.clone_from(&entry);
        }
        if let Ok(mut p) = burst.prefill.lock() {
            *p = Some(prefill.clone());
        }
        burst.dropped.store(false, Ordering::Relaxed);
        match rl.readline_with_initial(prompt, (&prefill, "")) {
            Ok(_) if eof.swap(false, Ordering::Relaxed) => {
                return if entry.is_empty() { Read::End } else { Read::Entry(entry) };
            }
            Ok(typed) => {
                // A pasted line comes after the pre-filled indent (Burst): it is as it came.
                let line = match (burst.dropped.swap(false, Ordering::Relaxed), typed.strip_prefix(prefill.as_str())) {
                    (true, Some(pasted)) => pasted.to_string(),
                    _ => indent::settle(&entry, &prefill, &typed),
                };
                if line != typed {
                    redraw(rl, prompt, &typed, &line);
                }
                if ends_block(&entry, &line) {
                    *pending = Some(line);
                    return Read::Entry(entry);
                }
                let blank = line.trim().is_empty();
                entry.push_str(if blank { "" } else { &line });
                entry.push('\n');
                if entry.trim().is_empty() {
                    entry.clear();
                    continue;
                }
                if entry_complete(&entry, blank) {
                    return Read::Entry(entry);
                }
            }
            Err(ReadlineError::Interrupted) => {
                let _ = writeln!(std::io::stdout(), "KeyboardInterrupt");
                return Read::Abandoned;
            }
            // Ctrl-D at `... ` ends the block, which runs (or reports its error), as in Python.
            Err(ReadlineError::Eof) if !entry.is_empty() => return Read::Entry(entry),
            Err(ReadlineError::Eof) => return Read::End,
            // Bytes that are not UTF-8 (a stray key, a paste in another encoding): report and go on.
            Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                let _ =
                    writeln!(std::io::stderr(), "Error: IOError: the input line is not UTF-8 text; it was discarded");
                return Read::Abandoned;
            }
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "Error: IOError: cannot read input: {e}");
                return Read::End;
            }
        }
    }
}

/// Shows a line as it joined the entry where the editor showed it as typed (pasted
/// indentation that replaced the pre-filled one): the row above is written again. Only
/// a line that fits one row is redrawn; a longer one stays as typed.
fn redraw(rl: &Editor<DglHelper, DefaultHistory>, prompt: &str, typed: &str, line: &str) {
    let out = std::io::stdout();
    if !out.is_terminal() || typed.contains('\n') || prompt.len() + typed.chars().count() >= terminal_width() {
        return;
    }
    let shown = rl.helper().map_or(std::borrow::Cow::Borrowed(line), |h| h.colored(line, None));
    let mut out = out.lock();
    let _ = write!(out, "\x1b[1A\r\x1b[2K{prompt}{shown}\r\n");
    let _ = out.flush();
}

/// Runs the REPL until Ctrl-D or `exit`; returns the exit status.
pub fn main() -> i32 {
    crate::with_big_stack(move || {
        let out: crate::runtime::Output = Rc::new(RefCell::new(std::io::LineWriter::new(std::io::stdout())));
        let mut session = Session::new(out);
        let config = session.rt.config().with_color(color_on(std::io::stderr().is_terminal()));
        session.rt.set_config(config);
        let session = Rc::new(RefCell::new(session));
        let color = color_on(std::io::stdout().is_terminal());
        let config = Config::builder()
            .completion_type(CompletionType::List)
            .indent_size(indent::LEVEL.len() as u8)
            .color_mode(if color { ColorMode::Enabled } else { ColorMode::Disabled })
            .build();
        let mut rl: Editor<DglHelper, DefaultHistory> = match Editor::with_config(config) {
            Ok(e) => e,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "Error: IOError: cannot start the line editor: {e}");
                return 2;
            }
        };
        rl.set_helper(Some(DglHelper::new(session.clone(), color)));
        let eof = Arc::new(AtomicBool::new(false));
        rl.bind_sequence(KeyEvent::ctrl('D'), EventHandler::Conditional(Box::new(EofOnIndent(eof.clone()))));
        for backspace in [KeyEvent(KeyCode::Backspace, Modifiers::NONE), KeyEvent::ctrl('H')] {
            rl.bind_sequence(backspace, EventHandler::Conditional(Box::new(DedentOnBackspace)));
        }
        let burst = Arc::new(Burst::default());
        rl.bind_sequence(Event::Any, EventHandler::Conditional(Box::new(BurstKeys(burst.clone()))));
        let mut pending = None;
        claim_sigint();
        let history = history_path();
        if let Some(h) = &history {
            let _ = rl.load_history(h);
        }
        let _ = writeln!(
            std::io::stdout(),
            "DGL {} — Ctrl-D or exit ends, %help lists the magics",
            env!("CARGO_PKG_VERSION")
        );
        loop {
            let entry = match read_entry(&mut rl, &eof, &burst, &mut pending) {
                Read::Entry(e) => e,
                Read::Abandoned => continue,
                Read::End => break 0,
            };
            let _ = rl.add_history_entry(entry.trim_end());
            // Appended at once, not saved at exit: a crash, a SIGHUP or a second
            // session running beside this one loses nothing.
            if let Some(h) = &history {
                let _ = rl.append_history(h);
            }
            if let Some(code) = exit_request(&entry, &session.borrow()) {
                break code;
            }
            crate::runtime::INTERRUPTED.store(false, Ordering::Relaxed);
            let mut s = session.borrow_mut();
            let width = terminal_width();
            let result = s.run_input(&entry).and_then(|v| v.map(|v| s.display_text(&v, width)).transpose());
            match result {
                Ok(Some(text)) => {
                    let _ = s.rt.write_out(&format!("{text}\n"));
                }
                Ok(None) => {}
                Err(f) => {
                    let _ = s.rt.out.borrow_mut().flush();
                    let _ = write!(std::io::stderr(), "{}", s.report(&f));
                }
            }
            let _ = s.rt.out.borrow_mut().flush();
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_end_where_python_and_ipython_end_them() {
        assert!(entry_complete("x = 1\n", false));
        assert!(!entry_complete("def f():\n", false));
        assert!(entry_complete("def f():\n    pass\n\n", true));
        assert!(entry_complete("%time for i in range(3): pass\n", false));
        assert!(entry_complete("reduce_sum?\n", false));
        assert!(!entry_complete("%%time\n", false));
        assert!(!entry_complete("%%time\nx = 1\n", false));
        assert!(entry_complete("%%time\nx = 1\n\n", true));
        assert!(!entry_complete("@custom_gradient\n", false));
    }

    #[test]
    fn a_column_0_line_ends_a_block_that_has_a_body() {
        assert!(ends_block("def f():\n    return 5\n", "print(f())"));
        assert!(ends_block("if a:\n    y = [1,\n2]\n", "print(y)"));
        assert!(ends_block("@d\ndef f():\n    pass\n", "x = 1"));
        for (entry, line) in [
            ("if a:\n    b\n", "else:"),
            ("try:\n    b\n", "except E:"),
            ("if a:\n    b\n", "    c"),
            ("if a:\n    b\n", ""),
            ("@d\n", "def f():"),
            ("def f():\n", "x"),
            ("if a:\n    y = [1,\n", "2]"),
            ("if a:\n    s = '''\n", "text"),
            ("if a:\n    s = 1 + \\\n", "2"),
            ("%%time\nfor i in r:\n    pass\n", "x"),
            ("", "x"),
        ] {
            assert!(!ends_block(entry, line), "{entry:?} then {line:?}");
        }
    }

    #[test]
    fn exit_and_quit_end_the_session_unless_rebound() {
        let mut s = Session::new(Rc::new(RefCell::new(Vec::<u8>::new())));
        for (entry, code) in [
            ("exit\n", Some(0)),
            ("quit()\n", Some(0)),
            ("exit(3)\n", Some(3)),
            ("exit_code\n", None),
            ("exit(x)\n", None),
        ] {
            assert_eq!(exit_request(entry, &s), code, "{entry}");
        }
        s.run("exit = 5").expect("runs");
        assert_eq!(exit_request("exit\n", &s), None);
        assert_eq!(exit_request("quit\n", &s), Some(0));
    }
}
