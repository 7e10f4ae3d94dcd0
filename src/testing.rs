//! The golden runner shared by `dgl test` and `cargo test` (tests/golden.rs):
//! each `X.dgl` with an `X.out` beside it is run in-process; its stdout must
//! equal `X.out`, and its diagnostics `X.err` when that file exists.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// What one case printed.
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Runs one `.dgl` file in-process with captured output.
pub fn run_case(path: &Path) -> Outcome {
    let path = path.to_path_buf();
    crate::with_big_stack(move || {
        let buf = Rc::new(RefCell::new(Vec::<u8>::new()));
        let out: crate::runtime::Output = buf.clone();
        // Cases are named by file name so that .err files do not depend on the working directory.
        let display = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        let r = crate::run_file(&path, &display, &[], out, false);
        let stdout = String::from_utf8_lossy(&buf.borrow()).into_owned();
        Outcome { stdout, stderr: r.stderr, code: r.code }
    })
}

/// Compares a case with its expectations; `Err` holds a readable report with a unified diff.
pub fn check_case(path: &Path) -> Result<(), String> {
    let out_path = path.with_extension("out");
    let err_path = path.with_extension("err");
    let expected_out =
        std::fs::read_to_string(&out_path).map_err(|e| format!("cannot read {}: {e}", out_path.display()))?;
    let got = run_case(path);
    if got.stdout != expected_out {
        return Err(format!(
            "stdout differs from {}\n{}{}",
            out_path.display(),
            diff(&expected_out, &got.stdout),
            stderr_note(&got)
        ));
    }
    if err_path.exists() {
        let expected_err =
            std::fs::read_to_string(&err_path).map_err(|e| format!("cannot read {}: {e}", err_path.display()))?;
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

/// Every `X.dgl` with an `X.out` under `paths` (files or folders, recursively), sorted.
pub fn discover(paths: &[PathBuf]) -> Vec<PathBuf> {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) {
        if p.is_dir() {
            if let Ok(rd) = std::fs::read_dir(p) {
                let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
                entries.sort();
                for e in entries {
                    walk(&e, out);
                }
            }
        } else if p.extension().is_some_and(|e| e == "dgl") && p.with_extension("out").exists() {
            out.push(p.to_path_buf());
        }
    }
    let mut out = Vec::new();
    for p in paths {
        walk(p, &mut out);
    }
    out
}

/// `dgl test [PATH…] [--bless]`: one line per case, then `N passed, N failed`.
pub fn main(paths: Vec<PathBuf>, bless: bool) -> i32 {
    let paths = if paths.is_empty() { vec![PathBuf::from("tests")] } else { paths };
    let cases = discover(&paths);
    let (mut passed, mut failed) = (0, 0);
    let mut first_failure = None;
    for case in &cases {
        if bless {
            let o = run_case(case);
            let _ = std::fs::write(case.with_extension("out"), &o.stdout);
            if o.code != 0 || case.with_extension("err").exists() {
                let _ = std::fs::write(case.with_extension("err"), &o.stderr);
            }
            println!("blessed {}", case.display());
            passed += 1;
            continue;
        }
        match check_case(case) {
            Ok(()) => {
                println!("ok   {}", case.display());
                passed += 1;
            }
            Err(report) => {
                println!("FAIL {}", case.display());
                first_failure.get_or_insert((case.clone(), report));
                failed += 1;
            }
        }
    }
    if let Some((case, report)) = first_failure {
        println!("\nfirst failure: {}\n{}", case.display(), report);
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        1
    } else {
        0
    }
}
