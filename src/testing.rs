//! The golden runner shared by `dgl test` and `cargo test` (tests/golden.rs):
//! each `X.dgl` with an `X.out` beside it is run in-process; its stdout must
//! equal `X.out`, and its diagnostics `X.err` when that file exists.

use crate::runtime::INTERRUPTED;
use std::cell::RefCell;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

/// What one case printed.
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Runs one `.dgl` file in-process with captured output.
pub fn run_case(path: &Path) -> Outcome {
    let path = path.to_path_buf();
    crate::with_big_stack(move || run_here(&path))
}

/// Runs a case on the calling thread (which needs a big stack).
fn run_here(path: &Path) -> Outcome {
    // Cases are named by file name so that .err files do not depend on the working directory.
    let display = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    captured(|out| {
        let text = match crate::files::read_source(path) {
            Ok(t) => t,
            Err(message) => return crate::RunResult { stderr: format!("Error: IOError: {message}\n"), code: 2 },
        };
        crate::run_script(&mut checked_interp(out), path, &display, &text, &[])
    })
}

/// An interpreter for a test: every `recompute_grad` recomputation is checked against its
/// forward pass unless the function says `check=False`.
fn checked_interp(out: crate::runtime::Output) -> crate::runtime::Interp {
    let mut rt = crate::runtime::Interp::new(out);
    rt.set_config(rt.config().with_check_recompute(true).with_quiet_progress(true));
    rt
}

/// Runs source text named `gen.dgl` in-process, on a big stack, with captured output
/// (for tests that generate programs).
pub fn run_text(text: &str) -> Outcome {
    let text = text.to_string();
    crate::with_big_stack(move || {
        captured(|out| crate::run_program(&mut checked_interp(out), "gen.dgl", None, &text, vec![]))
    })
}

/// Runs `run` with stdout captured in memory.
fn captured(run: impl FnOnce(crate::runtime::Output) -> crate::RunResult) -> Outcome {
    let buf = Rc::new(RefCell::new(Vec::<u8>::new()));
    let r = run(buf.clone());
    let stdout = String::from_utf8_lossy(&buf.borrow()).into_owned();
    Outcome { stdout, stderr: r.stderr, code: r.code }
}

/// A case that did not finish within its time limit.
pub struct TimedOut;

/// Runs a case with a time limit. Past the limit the interpreter is asked to
/// stop through the flag Ctrl-C sets (it polls it in loops, calls and the
/// backward pass); a case that still does not stop within a grace period (it
/// caught the interrupt, or sits in one long kernel) is abandoned on its
/// thread, and the run goes on.
pub fn run_case_within(path: &Path, limit: Duration) -> Result<Outcome, TimedOut> {
    let (tx, rx) = mpsc::channel();
    let p = path.to_path_buf();
    let spawned = std::thread::Builder::new().stack_size(crate::STACK_BYTES).spawn(move || {
        let _ = tx.send(run_here(&p));
    });
    let Ok(handle) = spawned else {
        return Ok(Outcome {
            stdout: String::new(),
            stderr: "Error: cannot start a thread for the case\n".into(),
            code: 2,
        });
    };
    match rx.recv_timeout(limit) {
        Ok(o) => {
            let _ = handle.join();
            Ok(o)
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            INTERRUPTED.store(true, Ordering::Relaxed);
            let stopped = rx.recv_timeout(GRACE).is_ok();
            INTERRUPTED.store(false, Ordering::Relaxed);
            if stopped {
                let _ = handle.join();
            }
            Err(TimedOut)
        }
        // The case's thread ended without an outcome: it panicked (the panic hook has reported it).
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            let _ = handle.join();
            Ok(Outcome {
                stdout: String::new(),
                stderr: "Error: internal error: the case panicked\n".into(),
                code: 101,
            })
        }
    }
}

/// How long a timed-out case may take to stop after being interrupted.
const GRACE: Duration = Duration::from_secs(2);

/// Compares a case with its expectations; `Err` holds a readable report with a unified diff.
pub fn check_case(path: &Path) -> Result<(), String> {
    compare(path, &run_case(path))
}

/// Compares what a case printed with its `.out` (and `.err`, when present).
pub fn compare(path: &Path, got: &Outcome) -> Result<(), String> {
    let out_path = path.with_extension("out");
    let err_path = path.with_extension("err");
    // Bounded, regular files only: an expected file that is a link to /dev/zero cannot hang the run.
    let expected_out = crate::files::read_source(&out_path)?;
    if got.stdout != expected_out {
        return Err(format!(
            "stdout differs from {}\n{}{}",
            out_path.display(),
            diff(&expected_out, &got.stdout),
            stderr_note(got)
        ));
    }
    if err_path.exists() {
        let expected_err = crate::files::read_source(&err_path)?;
        if got.stderr != expected_err {
            return Err(format!("stderr differs from {}\n{}", err_path.display(), diff(&expected_err, &got.stderr)));
        }
    } else if got.code != 0 {
        return Err(format!("exited with status {} (no .err file expects an error)\n{}", got.code, got.stderr));
    }
    Ok(())
}

fn stderr_note(o: &Outcome) -> String {
    if o.stderr.is_empty() {
        String::new()
    } else {
        format!("stderr:\n{}", o.stderr)
    }
}

fn diff(expected: &str, got: &str) -> String {
    similar::TextDiff::from_lines(expected, got)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

/// One entry `discover` found: a case to run, or a case that cannot be (its files are
/// not what a case needs), with the message naming the file at fault.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    Case(PathBuf),
    Bad(PathBuf, String),
}

/// What a path that must be a readable regular file is instead, if anything.
/// `metadata` follows a symlink and does not open the file, so a FIFO cannot block here.
fn not_a_file(p: &Path) -> Option<String> {
    let shown = p.display();
    match std::fs::metadata(p) {
        Ok(m) if m.is_file() => match std::fs::File::open(p) {
            Ok(_) => None,
            Err(e) => Some(format!("cannot read '{shown}': {e}")),
        },
        Ok(m) if m.is_dir() => Some(format!("'{shown}' is a folder, not a file")),
        Ok(_) => Some(format!("'{shown}' is not a regular file (a FIFO, device or socket)")),
        Err(_) if std::fs::symlink_metadata(p).is_ok() => Some(format!("'{shown}' is a broken symlink")),
        Err(e) => Some(format!("cannot read '{shown}': {e}")),
    }
}

/// Whether anything (a file, a folder, a broken symlink) is at `p`.
fn exists(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

/// The case `X.dgl` is (`X.dgl` with an `X.out` beside it, whatever each is), checked:
/// `X.dgl`, `X.out` and `X.err` (when there is one) must be readable regular files.
/// The script must be UTF-8 text too (else `--bless` would bless the read error); an
/// expectation's text is checked where it is compared, naming the file.
fn case_at(p: &Path) -> Option<Found> {
    if p.extension().is_none_or(|e| e != "dgl") || !exists(&p.with_extension("out")) {
        return None;
    }
    let mut files = vec![p.to_path_buf(), p.with_extension("out")];
    if exists(&p.with_extension("err")) {
        files.push(p.with_extension("err"));
    }
    let why = files.iter().find_map(|f| not_a_file(f)).or_else(|| crate::files::read_source(p).err());
    Some(match why {
        Some(why) => Found::Bad(p.to_path_buf(), why),
        None => Found::Case(p.to_path_buf()),
    })
}

/// Every case under `paths` (files or folders, recursively), sorted within each
/// folder. A symlinked folder is followed once: folders are identified by their
/// canonical path, so a symlink loop cannot make the walk go round forever. A case
/// whose files are not readable regular files, and a folder that cannot be listed, are
/// found as `Bad` with the reason, never skipped.
pub fn discover(paths: &[PathBuf]) -> Vec<Found> {
    fn walk(p: &Path, seen: &mut HashSet<PathBuf>, out: &mut Vec<Found>) {
        if let Some(found) = case_at(p) {
            out.push(found);
            return;
        }
        if !p.is_dir() {
            return;
        }
        // A folder that is another case's `X.out` or `X.err` was reported with that case.
        let sibling_case = |ext: &str| p.extension().is_some_and(|e| e == ext) && exists(&p.with_extension("dgl"));
        if sibling_case("out") || sibling_case("err") {
            return;
        }
        let first_visit = std::fs::canonicalize(p).is_ok_and(|real| seen.insert(real));
        if !first_visit {
            return;
        }
        let listed =
            std::fs::read_dir(p).and_then(|rd| rd.map(|e| e.map(|e| e.path())).collect::<io::Result<Vec<_>>>());
        match listed {
            Ok(mut entries) => {
                entries.sort();
                for e in entries {
                    walk(&e, seen, out);
                }
            }
            Err(e) => out.push(Found::Bad(p.to_path_buf(), format!("cannot list the folder '{}': {e}", p.display()))),
        }
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for p in paths {
        walk(p, &mut seen, &mut out);
    }
    out
}

/// What `dgl test` was asked to do.
pub struct Options {
    /// Files or folders; `tests/` when empty.
    pub paths: Vec<PathBuf>,
    /// Write each case's output as its expectation.
    pub bless: bool,
    /// A case running longer than this fails (and is stopped).
    pub timeout: Duration,
}

/// `dgl test [PATH…] [--bless] [--timeout SECONDS]`: one line per case on
/// `out`, then `N passed, N failed`; problems with the run itself on `err`.
/// Returns the exit status: 0 all passed, 1 some failed, 2 for a path that does
/// not exist or holds no case (docs/language.md §1: bad usage). Errors: `out` or
/// `err` could not be written (the caller decides how to end).
pub fn main(opts: Options, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let paths = if opts.paths.is_empty() { vec![PathBuf::from("tests")] } else { opts.paths };
    for p in &paths {
        if std::fs::metadata(p).is_err() {
            writeln!(err, "Error: IOError: no such file or folder: '{}'", p.display())?;
            return Ok(2);
        }
        if discover(std::slice::from_ref(p)).is_empty() {
            writeln!(err, "Error: no test cases in '{}' (a case is X.dgl with X.out beside it)", p.display())?;
            return Ok(2);
        }
    }
    let cases = discover(&paths);
    let limit = opts.timeout;
    let (mut passed, mut failed) = (0, 0);
    let mut first_failure = None;
    for found in &cases {
        let case = match found {
            Found::Case(case) => case,
            Found::Bad(case, why) => {
                writeln!(out, "FAIL {} ({why})", case.display())?;
                writeln!(err, "Error: IOError: {why}")?;
                first_failure.get_or_insert((case.clone(), why.clone()));
                failed += 1;
                continue;
            }
        };
        let got = match run_case_within(case, limit) {
            Ok(o) => o,
            Err(TimedOut) => {
                writeln!(out, "FAIL {} (timed out after {} s)", case.display(), limit.as_secs_f64())?;
                first_failure.get_or_insert((case.clone(), format!("timed out after {} s", limit.as_secs_f64())));
                failed += 1;
                continue;
            }
        };
        if opts.bless {
            match bless(case, &got) {
                Ok(()) => {
                    writeln!(out, "blessed {}", case.display())?;
                    passed += 1;
                }
                Err(message) => {
                    writeln!(out, "FAIL {}", case.display())?;
                    writeln!(err, "Error: IOError: {message}")?;
                    first_failure.get_or_insert((case.clone(), message));
                    failed += 1;
                }
            }
            continue;
        }
        match compare(case, &got) {
            Ok(()) => {
                writeln!(out, "ok   {}", case.display())?;
                passed += 1;
            }
            Err(report) => {
                writeln!(out, "FAIL {}", case.display())?;
                first_failure.get_or_insert((case.clone(), report));
                failed += 1;
            }
        }
    }
    if let Some((case, report)) = first_failure {
        writeln!(out, "\nfirst failure: {}\n{}", case.display(), report)?;
    }
    writeln!(out, "{passed} passed, {failed} failed")?;
    out.flush()?;
    Ok(if failed > 0 { 1 } else { 0 })
}

/// Writes a case's output as its expectations (`.out`, and `.err` when it
/// failed or already has one), each atomically. Errors: a message naming the file.
fn bless(case: &Path, got: &Outcome) -> Result<(), String> {
    let write = |path: PathBuf, text: &str| {
        crate::files::write_atomic(&path, |w| w.write_all(text.as_bytes()))
            .map_err(|e| format!("cannot write '{}': {e}", path.display()))
    };
    write(case.with_extension("out"), &got.stdout)?;
    if got.code != 0 || case.with_extension("err").exists() {
        write(case.with_extension("err"), &got.stderr)?;
    }
    Ok(())
}
