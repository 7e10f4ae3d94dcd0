//! The REPL (LANGUAGE.md §8): `>>> ` / `... ` prompts, blocks ended by a
//! blank line, `repr` echo of expression values, errors that never end the
//! session, persistent history, and Tab completion of names and attributes.

use crate::runtime::value::{Globals, Value};
use crate::runtime::{Failure, Interp};
use crate::syntax::ast::StmtKind;
use crate::syntax::layout::needs_more_input;
use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::Ordering;

const KEYWORDS: &[&str] = &[
    "def", "return", "if", "elif", "else", "while", "for", "in", "not", "and", "or", "is", "break", "continue", "pass",
    "class", "with", "as", "import", "from", "assert", "raise", "try", "except", "finally", "global", "nonlocal",
    "lambda", "del", "True", "False", "None",
];

/// What Tab can complete: names in scope, and the attributes of each name's value.
#[derive(Default)]
struct Completions {
    names: Vec<String>,
    attrs: HashMap<String, Vec<String>>,
}

struct DglHelper {
    completions: Rc<RefCell<Completions>>,
}

impl Completer for DglHelper {
    type Candidate = String;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        let start = before.rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).map_or(0, |i| i + 1);
        let word = &before[start..];
        let c = self.completions.borrow();
        if let Some((obj, partial)) = word.rsplit_once('.') {
            let attrs = c.attrs.get(obj).cloned().unwrap_or_default();
            let mut hits: Vec<String> = attrs.into_iter().filter(|a| a.starts_with(partial)).collect();
            hits.sort();
            return Ok((start + obj.len() + 1, hits));
        }
        let mut hits: Vec<String> = c.names.iter().filter(|n| n.starts_with(word)).cloned().collect();
        hits.sort();
        hits.dedup();
        Ok((start, hits))
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

/// Attribute names Tab offers after `value.`.
fn attribute_names(v: &Value) -> Vec<String> {
    let fixed: &[&str] = match v {
        Value::Tensor(_) => &["shape", "dtype", "ndim", "numpy", "item", "tolist"],
        Value::Variable(_) => &[
            "shape",
            "dtype",
            "ndim",
            "numpy",
            "item",
            "tolist",
            "name",
            "trainable",
            "assign",
            "assign_add",
            "assign_sub",
            "read_value",
        ],
        Value::Tape(_) => &["watch", "gradient", "jacobian", "stats", "watched_variables", "stop_recording", "reset"],
        Value::List(_) => {
            &["append", "extend", "pop", "insert", "index", "count", "remove", "reverse", "copy", "clear", "sort"]
        }
        Value::Dict(_) => &["keys", "values", "items", "get", "pop", "update", "setdefault", "copy"],
        Value::Str(_) => &["format", "join", "split", "upper", "lower", "strip", "startswith", "endswith", "replace"],
        _ => &[],
    };
    let mut out: Vec<String> = fixed.iter().map(|s| s.to_string()).collect();
    match v {
        Value::Instance(i) => {
            out.extend(i.attrs.borrow().keys().map(|k| k.name().to_string()));
            let mut c = Some(i.class.clone());
            while let Some(class) = c {
                out.extend(class.attrs.borrow().keys().map(|k| k.name().to_string()));
                c = class.base.clone();
            }
        }
        Value::Module(m) => out.extend(m.globals.bound().iter().map(|(k, _)| k.name().to_string())),
        Value::Class(c) => out.extend(c.attrs.borrow().keys().map(|k| k.name().to_string())),
        _ => {}
    }
    out.sort();
    out.dedup();
    out
}

fn refresh(c: &RefCell<Completions>, rt: &Interp, globals: &Globals) {
    let mut c = c.borrow_mut();
    c.names = KEYWORDS.iter().map(|s| s.to_string()).collect();
    c.names.extend(rt.builtins.keys().map(|k| k.name().to_string()));
    c.attrs.clear();
    for (k, v) in globals.bound() {
        c.names.push(k.name().to_string());
        c.attrs.insert(k.name().to_string(), attribute_names(&v));
    }
}

/// Whether `entry` starts with a decorator line (`@custom_gradient`): the
/// `def` or `class` it decorates follows, so the entry goes on to a blank line.
fn opens_decorated_block(entry: &str) -> bool {
    entry.trim_start().starts_with('@')
}

/// Runs one REPL entry; an expression statement's value is echoed with `repr`.
/// Every entry is resolved against the session's one module, so its globals persist.
fn run_entry(rt: &mut Interp, text: &str, globals: &Rc<Globals>) -> Result<Option<String>, Failure> {
    let id = rt.sources.add("<repl>", None, text);
    let block = crate::syntax::parse_module(text).map_err(|e| Failure::Syntax(id, e))?;
    rt.src = id;
    rt.frame = "<module>".into();
    if let [stmt] = block.as_slice() {
        if let StmtKind::Expr(e) = &stmt.kind {
            let mut frame = rt.module_frame(&block, globals);
            let v = rt.eval(e, &mut frame).map_err(Failure::Runtime)?;
            return match v {
                Value::None => Ok(None),
                v => rt.repr_of(&v).map(Some).map_err(Failure::Runtime),
            };
        }
    }
    rt.exec_module(&block, globals).map_err(Failure::Runtime)?;
    Ok(None)
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
        let mut rt = Interp::new(out);
        rt.color = std::io::stderr().is_terminal();
        rt.argv = vec!["".into()];
        let globals = Rc::new(Globals::default());
        let completions = Rc::new(RefCell::new(Completions::default()));
        refresh(&completions, &rt, &globals);
        let mut rl: Editor<DglHelper, DefaultHistory> = match Editor::new() {
            Ok(e) => e,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "Error: IOError: cannot start the line editor: {e}");
                return 2;
            }
        };
        rl.set_helper(Some(DglHelper { completions: completions.clone() }));
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
            match run_entry(&mut rt, &entry, &globals) {
                Ok(Some(text)) => {
                    let _ = rt.write_out(&format!("{text}\n"));
                }
                Ok(None) => {}
                Err(f) => {
                    let _ = rt.out.borrow_mut().flush();
                    let _ = write!(std::io::stderr(), "{}", rt.report(&f));
                }
            }
            let _ = rt.out.borrow_mut().flush();
            refresh(&completions, &rt, &globals);
        }
        0
    })
}
