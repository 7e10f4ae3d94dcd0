//! The REPL (LANGUAGE.md §8): `>>> ` / `... ` prompts, blocks ended by a
//! blank line, `repr` echo of expression values, errors that never end the
//! session, persistent history, and Tab completion of names and attributes.

use crate::session::Session;
use crate::syntax::layout::needs_more_input;
use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::Ordering;

/// Tab completes from the session (session.rs: names in scope, keywords, builtins, attributes).
struct DglHelper {
    session: Rc<RefCell<Session>>,
}

impl Completer for DglHelper {
    type Candidate = String;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        // While an entry runs the session is borrowed; no completion is asked for then.
        Ok(self.session.try_borrow().map(|s| s.complete(line, pos)).unwrap_or((pos, vec![])))
    }
}

impl Hinter for DglHelper {
    type Hint = String;
}
impl Highlighter for DglHelper {}
impl Validator for DglHelper {}
impl Helper for DglHelper {}

/// Where history persists: the user's state directory.
fn history_path() -> Option<PathBuf> {
    let dir = dirs::state_dir().or_else(dirs::data_local_dir)?.join("dgl");
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join("history"))
}

/// Whether `entry` starts with a decorator line (`@custom_gradient`): the
/// `def` or `class` it decorates follows, so the entry goes on to a blank line.
fn opens_decorated_block(entry: &str) -> bool {
    entry.trim_start().starts_with('@')
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

/// Runs the REPL until Ctrl-D; returns the exit status.
pub fn main() -> i32 {
    crate::with_big_stack(move || {
        let out: crate::runtime::Output = Rc::new(RefCell::new(std::io::LineWriter::new(std::io::stdout())));
        let mut session = Session::new(out);
        session.rt.color = std::io::stderr().is_terminal();
        let session = Rc::new(RefCell::new(session));
        let mut rl: Editor<DglHelper, DefaultHistory> = match Editor::new() {
            Ok(e) => e,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "Error: IOError: cannot start the line editor: {e}");
                return 2;
            }
        };
        rl.set_helper(Some(DglHelper { session: session.clone() }));
        claim_sigint();
        let history = history_path();
        if let Some(h) = &history {
            let _ = rl.load_history(h);
        }
        let _ = writeln!(std::io::stdout(), "DGL {} — Ctrl-D exits", env!("CARGO_PKG_VERSION"));
        'session: loop {
            let mut entry = String::new();
            let mut prompt = ">>> ";
            loop {
                match rl.readline(prompt) {
                    Ok(line) => {
                        let blank = line.trim().is_empty();
                        entry.push_str(&line);
                        entry.push('\n');
                        if !needs_more_input(&entry) && !(opens_decorated_block(&entry) && !blank) {
                            break;
                        }
                        prompt = "... ";
                    }
                    Err(ReadlineError::Interrupted) => {
                        let _ = writeln!(std::io::stdout(), "KeyboardInterrupt");
                        continue 'session;
                    }
                    // Ctrl-D at `... ` ends the block, which runs (or reports its error), as in Python.
                    Err(ReadlineError::Eof) if !entry.is_empty() => {
                        break;
                    }
                    Err(ReadlineError::Eof) => break 'session,
                    // Bytes that are not UTF-8 (a stray key, a paste in another encoding): report and go on.
                    Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                        let _ = writeln!(
                            std::io::stderr(),
                            "Error: IOError: the input line is not UTF-8 text; it was discarded"
                        );
                        continue 'session;
                    }
                    Err(e) => {
                        let _ = writeln!(std::io::stderr(), "Error: IOError: cannot read input: {e}");
                        break 'session;
                    }
                }
            }
            if entry.trim().is_empty() {
                continue;
            }
            let _ = rl.add_history_entry(entry.trim_end());
            // Appended at once, not saved at exit: a crash, a SIGHUP or a second
            // session running beside this one loses nothing.
            if let Some(h) = &history {
                let _ = rl.append_history(h);
            }
            crate::runtime::INTERRUPTED.store(false, Ordering::Relaxed);
            let mut s = session.borrow_mut();
            let result = s.run(&entry).and_then(|v| v.map(|v| s.repr(&v)).transpose());
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
        0
    })
}
