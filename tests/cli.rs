//! The `dgl` binary as a user runs it (docs/language.md §1): exit statuses,
//! `argv()`, `-c`, `run`, `check`, `test`, `--version`.

use std::path::PathBuf;
use std::process::{Command, Output};

fn dgl(args: &[&str], dir: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dgl")).args(args).current_dir(dir).output().expect("dgl runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dgl-cli-{}-{}", name, std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn exit_statuses_follow_the_contract() {
    let d = temp_dir("exit");
    std::fs::write(d.join("ok.dgl"), "print('hi')\n").unwrap();
    std::fs::write(d.join("runtime.dgl"), "print('before')\nprint(1 / 0)\n").unwrap();
    std::fs::write(d.join("syntax.dgl"), "print('never')\nif x\n").unwrap();
    let ok = dgl(&["ok.dgl"], &d);
    assert_eq!((ok.status.code(), text(&ok.stdout)), (Some(0), "hi\n".into()));
    let rt = dgl(&["runtime.dgl"], &d);
    assert_eq!(rt.status.code(), Some(1));
    assert_eq!(text(&rt.stdout), "before\n");
    assert!(text(&rt.stderr).starts_with("Error: ZeroDivisionError: division by zero"));
    let syn = dgl(&["syntax.dgl"], &d);
    assert_eq!(syn.status.code(), Some(2));
    assert_eq!(text(&syn.stdout), "", "a syntax error runs nothing");
    assert!(text(&syn.stderr).starts_with("Error: SyntaxError: "));
    let missing = dgl(&["nope.dgl"], &d);
    assert_eq!(missing.status.code(), Some(2));
    let bad_flag = dgl(&["--no-such-flag"], &d);
    assert_eq!(bad_flag.status.code(), Some(2));
}

#[test]
fn argv_run_and_c() {
    let d = temp_dir("argv");
    std::fs::write(d.join("args.dgl"), "print(argv())\n").unwrap();
    let a = dgl(&["args.dgl", "x", "--flag"], &d);
    assert_eq!(text(&a.stdout), "['args.dgl', 'x', '--flag']\n");
    let b = dgl(&["run", "args.dgl", "1"], &d);
    assert_eq!(text(&b.stdout), "['args.dgl', '1']\n");
    let c = dgl(&["-c", "print(1 + 2, argv()[0])"], &d);
    assert_eq!((c.status.code(), text(&c.stdout)), (Some(0), "3 -c\n".into()));
}

#[test]
fn check_reports_every_syntax_error() {
    let d = temp_dir("check");
    std::fs::write(d.join("three.dgl"), "x = 1 +\nfor i in range(3)\n    print(i)\nprint(1 2)\ny = 4\n").unwrap();
    let out = dgl(&["check", "three.dgl"], &d);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr).matches("Error: SyntaxError").count(), 3, "{}", text(&out.stderr));
    std::fs::write(d.join("fine.dgl"), "x = 1\n").unwrap();
    assert_eq!(dgl(&["check", "fine.dgl"], &d).status.code(), Some(0));
}

#[test]
fn test_runner_counts_and_fails() {
    let d = temp_dir("golden");
    std::fs::create_dir_all(d.join("cases/sub")).unwrap();
    std::fs::write(d.join("cases/a.dgl"), "print(1)\n").unwrap();
    std::fs::write(d.join("cases/a.out"), "1\n").unwrap();
    std::fs::write(d.join("cases/sub/b.dgl"), "print(2)\n").unwrap();
    std::fs::write(d.join("cases/sub/b.out"), "3\n").unwrap();
    std::fs::write(d.join("cases/sub/c.dgl"), "print('x')\nundefined\n").unwrap();
    std::fs::write(d.join("cases/sub/c.out"), "x\n").unwrap();
    std::fs::write(d.join("cases/sub/c.err"), "").unwrap();
    std::fs::write(d.join("cases/helper.dgl"), "# no .out: not a case\n").unwrap();
    let out = dgl(&["test", "cases"], &d);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout.ends_with("1 passed, 2 failed\n"), "{stdout}");
    assert!(stdout.contains("-2\n+3") || stdout.contains("-3\n+2"), "a unified diff of the first mismatch: {stdout}");
    let bless = dgl(&["test", "--bless", "cases"], &d);
    assert_eq!(bless.status.code(), Some(0));
    let again = dgl(&["test", "cases"], &d);
    assert!(text(&again.stdout).ends_with("3 passed, 0 failed\n"), "{}", text(&again.stdout));
    assert!(std::fs::read_to_string(d.join("cases/sub/c.err")).unwrap().starts_with("Error: NameError"));
}

#[test]
fn version_and_help() {
    let d = temp_dir("version");
    let v = dgl(&["--version"], &d);
    assert_eq!(v.status.code(), Some(0));
    assert!(text(&v.stdout).starts_with("dgl "));
    let h = dgl(&["--help"], &d);
    assert!(text(&h.stdout).contains("Usage"));
}

#[test]
fn ctrl_c_interrupts_a_running_script() {
    let d = temp_dir("ctrlc");
    // A broad `except Exception` does not swallow the interrupt (issue 7, class 5).
    let spin = "print('spinning')\nwhile True:\n    try:\n        x = [1] * 10\n    except Exception:\n        pass\n";
    std::fs::write(d.join("spin.dgl"), spin).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_dgl"))
        .arg("spin.dgl")
        .current_dir(&d)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("Error: KeyboardInterrupt: interrupted"), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "spinning\n");
}

#[test]
fn modules_are_found_through_dgl_path() {
    let d = temp_dir("dglpath");
    std::fs::create_dir_all(d.join("lib")).unwrap();
    std::fs::create_dir_all(d.join("app")).unwrap();
    std::fs::write(d.join("lib/shared_util.dgl"), "answer = 41 + 1\n").unwrap();
    std::fs::write(d.join("lib/nn.dgl"), "shadow = True\n").unwrap();
    std::fs::write(
        d.join("app/main.dgl"),
        "import shared_util\nimport nn\nprint(shared_util.answer, hasattr(nn, 'shadow'))\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dgl"))
        .arg("app/main.dgl")
        .current_dir(&d)
        .env("DGL_PATH", d.join("lib"))
        .output()
        .unwrap();
    // DGL_PATH comes before the built-in standard library (docs/language.md §6).
    assert_eq!(text(&out.stdout), "42 True\n", "{}", text(&out.stderr));
    let without = Command::new(env!("CARGO_BIN_EXE_dgl"))
        .arg("app/main.dgl")
        .current_dir(&d)
        .env_remove("DGL_PATH")
        .output()
        .unwrap();
    assert!(text(&without.stderr).starts_with("Error: ImportError: No module named 'shared_util'"));
}

#[test]
fn a_syntax_error_in_an_imported_module_exits_2() {
    let d = temp_dir("import-syntax");
    std::fs::write(d.join("bad_mod.dgl"), "def f(:\n    pass\n").unwrap();
    std::fs::write(d.join("main.dgl"), "print('start')\nimport bad_mod\n").unwrap();
    let r = dgl(&["main.dgl"], &d);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
    assert!(text(&r.stderr).starts_with("Error: SyntaxError: "), "{}", text(&r.stderr));
    assert!(text(&r.stderr).contains("bad_mod.dgl:1:"), "{}", text(&r.stderr));
}

#[test]
fn a_raised_syntax_error_exits_1_like_any_runtime_error() {
    // Only a failed parse exits 2; raising SyntaxError (or a subclass), even
    // one caught from a failed import and raised again as a new error, is a runtime error (as CPython).
    let d = temp_dir("raise-syntax");
    std::fs::write(d.join("bad_mod.dgl"), "def f(:\n    pass\n").unwrap();
    let programs = [
        "raise SyntaxError('x')\n",
        "class E(SyntaxError):\n    pass\nraise E('y')\n",
        "def f():\n    raise SyntaxError('z')\nf()\n",
        "try:\n    import bad_mod\nexcept SyntaxError as e:\n    raise SyntaxError('again')\n",
    ];
    for p in programs {
        std::fs::write(d.join("main.dgl"), p).unwrap();
        let r = dgl(&["main.dgl"], &d);
        assert_eq!(r.status.code(), Some(1), "{p}: {}", text(&r.stderr));
        assert!(text(&r.stderr).starts_with("Error: "), "{}", text(&r.stderr));
        let c = dgl(&["-c", p], &d);
        assert_eq!(c.status.code(), Some(1), "{p}: {}", text(&c.stderr));
    }
}

#[test]
fn a_leading_byte_order_mark_is_ignored() {
    let d = temp_dir("bom");
    std::fs::write(d.join("bom.dgl"), "\u{feff}x = 1\nprint(x)\n").unwrap();
    let r = dgl(&["bom.dgl"], &d);
    assert_eq!((r.status.code(), text(&r.stdout)), (Some(0), "1\n".into()), "{}", text(&r.stderr));
    let c = dgl(&["check", "bom.dgl"], &d);
    assert_eq!(c.status.code(), Some(0), "{}", text(&c.stderr));
}

#[test]
fn control_characters_reach_the_terminal_escaped() {
    let d = temp_dir("controls");
    std::fs::write(d.join("esc.dgl"), "x = 1\x1b[2J\0\nprint(x)\n").unwrap();
    for args in [&["esc.dgl"][..], &["check", "esc.dgl"][..]] {
        let r = dgl(args, &d);
        let err = text(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{err}");
        assert!(err.starts_with("Error: SyntaxError: unexpected character '\\x1b'"), "{err}");
        assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err:?}");
    }
}

/// Runs dgl with stdout (or stderr) sent to /dev/full, a disk that is always full.
#[cfg(target_os = "linux")]
fn dgl_full(args: &[&str], dir: &std::path::Path, full_stderr: bool) -> Output {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dgl"));
    cmd.args(args).current_dir(dir);
    if full_stderr {
        cmd.stderr(full).stdout(std::process::Stdio::piped());
    } else {
        cmd.stdout(full).stderr(std::process::Stdio::piped());
    }
    cmd.output().expect("dgl runs")
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_an_io_error_not_a_panic() {
    let d = temp_dir("full");
    std::fs::create_dir_all(d.join("cases")).unwrap();
    std::fs::write(d.join("cases/a.dgl"), "print(1)\n").unwrap();
    std::fs::write(d.join("cases/a.out"), "1\n").unwrap();
    std::fs::write(d.join("ok.dgl"), "print('hi')\n").unwrap();
    std::fs::write(d.join("partial.dgl"), "print('no newline', end='')\n").unwrap();
    for args in [
        &["ok.dgl"][..],
        &["partial.dgl"],
        &["-c", "print(1)"],
        &["check", "ok.dgl"],
        &["test", "cases"],
        &["test", "--bless", "cases"],
        &["--help"],
    ] {
        let out = dgl_full(args, &d, false);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.starts_with("Error: IOError: "), "{args:?}: {err}");
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // Errors reported to a full stderr: nothing can be said, but no panic and no success.
    std::fs::write(d.join("bad.dgl"), "print(1 / 0)\n").unwrap();
    std::fs::write(d.join("syntax.dgl"), "if x\n").unwrap();
    for (args, code) in [(&["bad.dgl"][..], 1), (&["syntax.dgl"], 2), (&["check", "syntax.dgl"], 2), (&["nope.dgl"], 2)]
    {
        let out = dgl_full(args, &d, true);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
    }
}

/// Runs dgl with stdout a pipe whose reader has already gone.
#[cfg(unix)]
fn dgl_closed_pipe(args: &[&str], dir: &std::path::Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dgl"))
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let d = temp_dir("pipe");
    std::fs::create_dir_all(d.join("cases")).unwrap();
    for i in 0..3 {
        std::fs::write(d.join(format!("cases/c{i}.dgl")), "print(1)\n").unwrap();
        std::fs::write(d.join(format!("cases/c{i}.out")), "1\n").unwrap();
    }
    std::fs::write(d.join("loud.dgl"), "while True:\n    print('y' * 100)\n").unwrap();
    for args in [&["test", "cases"][..], &["loud.dgl"], &["-c", "for i in range(100000):\n    print(i)"]] {
        let out = dgl_closed_pipe(args, &d);
        // Like a Unix filter: ended by SIGPIPE, or status 141 where the signal is not delivered.
        let quiet_end = out.status.signal() == Some(libc::SIGPIPE) || out.status.code() == Some(141);
        assert!(quiet_end, "{args:?}: {:?}", out.status);
        assert_eq!(text(&out.stderr), "", "{args:?}");
    }
}

#[test]
fn check_on_200_kb_of_garbage_is_fast() {
    let d = temp_dir("garbage");
    // A seeded mix of stray characters, operators and brackets: thousands of errors.
    let alphabet = b"$?!`x1 (+)[]{}:\n'\"";
    let mut seed = 5u64;
    let bytes: Vec<u8> = (0..200_000)
        .map(|_| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            alphabet[(seed >> 33) as usize % alphabet.len()]
        })
        .collect();
    std::fs::write(d.join("garbage.dgl"), &bytes).unwrap();
    let start = std::time::Instant::now();
    let r = dgl(&["check", "garbage.dgl"], &d);
    // A hang guard only: the target is well under a second.
    assert!(start.elapsed() < std::time::Duration::from_secs(20), "took {:?}", start.elapsed());
    assert_eq!(r.status.code(), Some(2));
    assert!(text(&r.stderr).starts_with("Error: SyntaxError: "));
}

#[test]
fn test_runner_refuses_missing_and_empty_paths() {
    let d = temp_dir("paths");
    std::fs::create_dir_all(d.join("empty")).unwrap();
    std::fs::write(d.join("empty/helper.dgl"), "x = 1\n").unwrap();
    let missing = dgl(&["test", "/no/such/dir"], &d);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("no such file or folder: '/no/such/dir'"), "{}", text(&missing.stderr));
    assert!(!text(&missing.stdout).contains("passed"));
    let empty = dgl(&["test", "empty"], &d);
    assert_eq!(empty.status.code(), Some(2));
    assert!(text(&empty.stderr).contains("no test cases in 'empty'"), "{}", text(&empty.stderr));
    let not_a_case = dgl(&["test", "empty/helper.dgl"], &d);
    assert_eq!(not_a_case.status.code(), Some(2));
}

#[cfg(unix)]
#[test]
fn test_runner_survives_symlink_loops() {
    let d = temp_dir("loops");
    std::fs::create_dir_all(d.join("cases/sub")).unwrap();
    std::fs::write(d.join("cases/sub/a.dgl"), "print(1)\n").unwrap();
    std::fs::write(d.join("cases/sub/a.out"), "1\n").unwrap();
    std::os::unix::fs::symlink("..", d.join("cases/sub/up")).unwrap();
    std::os::unix::fs::symlink("self", d.join("cases/self")).unwrap();
    let out = dgl(&["test", "cases"], &d);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).ends_with("1 passed, 0 failed\n"), "{}", text(&out.stdout));
}

#[test]
fn test_runner_times_out_a_case_and_goes_on() {
    let d = temp_dir("timeout");
    std::fs::create_dir_all(d.join("cases")).unwrap();
    std::fs::write(d.join("cases/a_spin.dgl"), "while True:\n    pass\n").unwrap();
    std::fs::write(d.join("cases/a_spin.out"), "").unwrap();
    // This one catches the interrupt and keeps going: it is abandoned.
    std::fs::write(
        d.join("cases/b_stubborn.dgl"),
        "while True:\n    try:\n        while True:\n            pass\n    except Exception:\n        pass\n",
    )
    .unwrap();
    std::fs::write(d.join("cases/b_stubborn.out"), "").unwrap();
    std::fs::write(d.join("cases/c_ok.dgl"), "print(3)\n").unwrap();
    std::fs::write(d.join("cases/c_ok.out"), "3\n").unwrap();
    let start = std::time::Instant::now();
    let out = dgl(&["test", "--timeout", "1", "cases"], &d);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL cases/a_spin.dgl (timed out after 1 s)"), "{stdout}");
    assert!(stdout.contains("FAIL cases/b_stubborn.dgl (timed out after 1 s)"), "{stdout}");
    assert!(stdout.contains("ok   cases/c_ok.dgl"), "{stdout}");
    assert!(stdout.ends_with("1 passed, 2 failed\n"), "{stdout}");
    // A hang guard only: the run needs about 4 s.
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    let bad = dgl(&["test", "--timeout", "-1", "cases"], &d);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn bless_fails_loudly() {
    let d = temp_dir("bless");
    std::fs::create_dir_all(d.join("cases")).unwrap();
    std::fs::write(d.join("cases/a.dgl"), "print(1)\nundefined\n").unwrap();
    std::fs::write(d.join("cases/a.out"), "old\n").unwrap();
    // An .err that is a folder cannot be replaced by a file.
    std::fs::create_dir_all(d.join("cases/a.err")).unwrap();
    let out = dgl(&["test", "--bless", "cases"], &d);
    assert_eq!(out.status.code(), Some(1));
    assert!(!text(&out.stdout).contains("blessed"), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("'cases/a.err' is a folder, not a file"), "{}", text(&out.stderr));
}

/// A case whose files are not readable regular files (issue 24, item 11) is reported by
/// the name of the file at fault, in a run and in a bless, and the other cases still run.
#[cfg(unix)]
#[test]
fn bad_case_files_are_named_never_skipped() {
    let d = temp_dir("badcases");
    std::fs::create_dir_all(d.join("only")).unwrap();
    std::fs::write(d.join("only/a.dgl"), "print(1)\n").unwrap();
    std::fs::create_dir_all(d.join("only/a.out")).unwrap();
    for bless in [false, true] {
        let args: &[&str] = if bless { &["test", "--bless", "only"] } else { &["test", "only"] };
        let out = dgl(args, &d);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
        assert!(stdout.contains("FAIL only/a.dgl ('only/a.out' is a folder, not a file)"), "{stdout}");
        assert!(stderr.contains("'only/a.out' is a folder"), "{stderr}");
        assert!(!stderr.contains("no test cases"), "{stderr}");
    }
    std::fs::create_dir_all(d.join("cases/b.dgl")).unwrap();
    std::fs::write(d.join("cases/b.out"), "").unwrap();
    std::fs::write(d.join("cases/c.dgl"), "print(1)\n").unwrap();
    std::os::unix::fs::symlink("nowhere.out", d.join("cases/c.out")).unwrap();
    std::fs::write(d.join("cases/e.dgl"), b"print('\xff')\n").unwrap();
    std::fs::write(d.join("cases/e.out"), "").unwrap();
    std::fs::write(d.join("cases/f.dgl"), "print(1)\n").unwrap();
    std::fs::write(d.join("cases/f.out"), "1\n").unwrap();
    std::os::unix::fs::symlink("nowhere.err", d.join("cases/f.err")).unwrap();
    std::fs::write(d.join("cases/ok.dgl"), "print(2)\n").unwrap();
    std::fs::write(d.join("cases/ok.out"), "2\n").unwrap();
    let out = dgl(&["test", "cases"], &d);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    for line in [
        "FAIL cases/b.dgl ('cases/b.dgl' is a folder, not a file)",
        "FAIL cases/c.dgl ('cases/c.out' is a broken symlink)",
        "FAIL cases/e.dgl ('cases/e.dgl' is not UTF-8 text)",
        "FAIL cases/f.dgl ('cases/f.err' is a broken symlink)",
        "ok   cases/ok.dgl",
    ] {
        assert!(stdout.contains(line), "{line} is not in:\n{stdout}");
    }
    assert!(stdout.ends_with("1 passed, 4 failed\n"), "{stdout}");
}

#[cfg(unix)]
#[test]
fn scripts_that_cannot_be_read_sanely_are_refused() {
    let d = temp_dir("special");
    for path in ["/dev/zero", "/dev/null"] {
        let out = dgl(&[path], &d);
        assert_eq!(out.status.code(), Some(2), "{path}");
        assert!(text(&out.stderr).starts_with("Error: IOError: cannot run"), "{path}: {}", text(&out.stderr));
    }
    let fifo = d.join("fifo.dgl");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let start = std::time::Instant::now();
    let out = dgl(&["fifo.dgl"], &d);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not a regular file"), "{}", text(&out.stderr));
    assert!(start.elapsed() < std::time::Duration::from_secs(30), "a FIFO must not block");
    let check = dgl(&["check", "/dev/zero"], &d);
    assert_eq!(check.status.code(), Some(2));
    // A file over the 64 MiB limit (sparse: no disk used) is refused before it is read.
    let big = std::fs::File::create(d.join("big.dgl")).unwrap();
    big.set_len((64 << 20) + 1).unwrap();
    let out = dgl(&["big.dgl"], &d);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("larger than the 64 MiB limit"), "{}", text(&out.stderr));
}

#[test]
fn save_npy_replaces_files_whole() {
    let d = temp_dir("npy");
    let script = "x = constant([1.0, 2.0, 3.0])\nsave_npy('x.npy', x)\nsave_npy('x.npy', x * 2)\nprint(load_npy('x.npy'))\n\
                  try:\n    save_npy('missing/x.npy', x)\nexcept IOError as e:\n    print('IOError')\nprint(load_npy('x.npy'))\n";
    std::fs::write(d.join("s.dgl"), script).unwrap();
    let out = dgl(&["s.dgl"], &d);
    assert_eq!(text(&out.stdout), "[2.0, 4.0, 6.0]\nIOError\n[2.0, 4.0, 6.0]\n", "{}", text(&out.stderr));
    // No temporary files are left beside it.
    let names: Vec<_> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // A file cut short says so.
    let bytes = std::fs::read(d.join("x.npy")).unwrap();
    std::fs::write(d.join("short.npy"), &bytes[..bytes.len() - 3]).unwrap();
    std::fs::write(d.join("head.npy"), &bytes[..20]).unwrap();
    for f in ["short.npy", "head.npy"] {
        let out = dgl(&["-c", &format!("load_npy('{}')", d.join(f).display())], &d);
        assert!(text(&out.stderr).contains("is truncated"), "{f}: {}", text(&out.stderr));
    }
}

#[test]
fn expected_files_that_never_end_fail_their_case() {
    // An .err that is a link to /dev/zero was read forever (found by fuzzing).
    let d = temp_dir("zero-err");
    std::fs::write(d.join("a.dgl"), "print(1)\n").unwrap();
    std::fs::write(d.join("a.out"), "1\n").unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("a.err")).unwrap();
    let r = dgl(&["test", "."], &d);
    assert_eq!(r.status.code(), Some(1), "{}", text(&r.stdout));
    assert!(text(&r.stdout).contains("not a regular file"), "{}", text(&r.stdout));
}

/// `input(prompt)` reads a line of stdin without its newline, after writing the prompt;
/// at the end of the input it is an EOFError (issue 9). `sys.argv` is `argv()`, and
/// `print(..., file=sys.stderr)` reaches stderr.
#[test]
fn input_reads_stdin_lines_then_eof_error() {
    use std::io::Write;
    let d = temp_dir("input");
    std::fs::write(
        d.join("ask.dgl"),
        "import sys\nname = input('name? ')\nprint('hi', name, sys.argv[1:])\nprint('note', file=sys.stderr)\n\
         try:\n    input()\nexcept EOFError as e:\n    print('EOFError:', e)\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_dgl"))
        .args(["ask.dgl", "x"])
        .current_dir(&d)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("dgl runs");
    child.stdin.take().unwrap().write_all(b"Ann\r\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "name? hi Ann ['x']\nEOFError: EOF when reading a line\n");
    assert_eq!(text(&out.stderr), "note\n");
}

/// What a program prints and draws names its files relative to the script's folder, so it is
/// byte for byte the same from any working directory (issue 24, item 15): the tape's listing
/// (`print(tape)`, `tape.summary()`), `tape.explain`, and the labels `tape.draw` writes.
#[test]
fn output_names_files_the_same_from_any_folder() {
    let d = temp_dir("relative");
    std::fs::create_dir_all(d.join("sub/helpers")).unwrap();
    std::fs::write(d.join("sub/helpers/m.dgl"), "def square(x):\n    return x * x\n").unwrap();
    std::fs::write(
        d.join("sub/prog.dgl"),
        "from helpers.m import square\nx = Variable(3.0)\ns = constant(2.0)\nwith GradientTape() as tape:\n    \
         y = square(x) * s\nprint(tape)\nprint(tape.summary())\nprint(tape.explain(y, s))\n\
         tape.draw('tape.svg')\nprint(tape.gradient(y, x))\n",
    )
    .unwrap();
    let absolute = d.join("sub/prog.dgl");
    let mut runs = vec![];
    for (args, dir) in [
        (vec!["sub/prog.dgl".to_string()], d.clone()),
        (vec!["prog.dgl".to_string()], d.join("sub")),
        (vec![absolute.display().to_string()], d.join("sub/helpers")),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = dgl(&args, &dir);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let svg = std::fs::read_to_string(d.join("sub/tape.svg")).expect("the drawing");
        runs.push((text(&out.stdout), svg));
    }
    let (stdout, svg) = &runs[0];
    assert!(stdout.contains("helpers/m.dgl:2") && stdout.contains("prog.dgl:5"), "{stdout}");
    assert!(!stdout.contains("sub/") && !svg.contains("sub/"), "{stdout}\n{svg}");
    assert!(svg.contains("prog.dgl:5"), "{svg}");
    for run in &runs[1..] {
        assert_eq!(run, &runs[0]);
    }
}
