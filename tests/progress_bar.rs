//! `progress(iterable)` as users meet it (issue 11, item 5), on the real binary: a bar
//! redrawn in place on a terminal (a pseudo-terminal here), plain lines when stderr is a
//! pipe, nothing under the golden runner (`dgl test`) unless the call says `disable=False`,
//! and nothing with `disable=True`. The loop's own output is never changed.

use rexpect::session::spawn_command;
use std::path::PathBuf;
use std::process::Command;

/// A script in a fresh folder; returns its path.
fn script(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dgl-progress-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.dgl"));
    std::fs::write(&path, text).unwrap();
    path
}

const LOOP: &str =
    "import time\nfor i in progress(range(12), desc=\"epochs\"):\n    time.sleep(0.03)\nprint(\"trained\")\n";

#[test]
fn a_terminal_sees_a_bar_redrawn_in_place() {
    let path = script("tty", LOOP);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dgl"));
    cmd.arg(&path).env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(20_000)).expect("dgl starts in a pty");
    // The first draw at 0 of 12; redraws in place (`\r`, no newline) part of the way; the
    // final state with its ETA and rate, ended by a newline; then the loop's own output.
    // (rexpect reads bytes one by one, so the bar's UTF-8 blocks are matched as `[^|]`.)
    p.exp_string("\repochs:   0%|").unwrap();
    p.exp_regex(r"\repochs: +[1-9]\d?%\|[^|\n]+\| \d+/12 \[00:0\d<00:0\d, [0-9.]+it/s\]").unwrap();
    p.exp_regex(r"\repochs: 100%\|[^|\n]+\| 12/12 \[00:0\d<00:00, [0-9.]+it/s\]\r?\n").unwrap();
    p.exp_string("trained").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn a_pipe_sees_plain_lines() {
    let path = script("pipe", LOOP);
    let out = Command::new(env!("CARGO_BIN_EXE_dgl")).arg(&path).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout, "trained\n");
    // A short loop writes only its final line: no `\r`, one line per write.
    assert!(!err.contains('\r'), "{err:?}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err:?}");
    assert!(lines[0].starts_with("epochs: 100%|█████████████████████████| 12/12 [00:0"), "{err:?}");
    assert!(lines[0].ends_with("it/s]"), "{err:?}");
}

#[test]
fn unknown_lengths_count_items() {
    let path = script("gen", "for x in progress((i for i in range(7)), desc=\"batches\"):\n    pass\n");
    let out = Command::new(env!("CARGO_BIN_EXE_dgl")).arg(&path).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("batches: 7it [00:00, "), "{err:?}");
}

#[test]
fn the_golden_runner_is_silent_unless_asked() {
    let quiet = script("quiet", LOOP);
    std::fs::write(quiet.with_extension("out"), "trained\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dgl")).arg("test").arg(&quiet).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("epochs"), "{:?}", out.stderr);

    let asked = script("asked", &LOOP.replace("desc=\"epochs\"", "desc=\"epochs\", disable=False"));
    std::fs::write(asked.with_extension("out"), "trained\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dgl")).arg("test").arg(&asked).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("epochs: 100%"), "{:?}", out.stderr);
}

#[test]
fn disable_true_draws_nothing() {
    let path = script("off", &LOOP.replace("desc=\"epochs\"", "desc=\"epochs\", disable=True"));
    let out = Command::new(env!("CARGO_BIN_EXE_dgl")).arg(&path).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "trained\n");
}
