//! The `dgl` binary as a user runs it (LANGUAGE.md §1): exit statuses,
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
    // DGL_PATH comes before the built-in standard library (LANGUAGE.md §6).
    assert_eq!(text(&out.stdout), "42 True\n", "{}", text(&out.stderr));
    let without = Command::new(env!("CARGO_BIN_EXE_dgl"))
        .arg("app/main.dgl")
        .current_dir(&d)
        .env_remove("DGL_PATH")
        .output()
        .unwrap();
    assert!(text(&without.stderr).starts_with("Error: NameError: no module named 'shared_util'"));
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
