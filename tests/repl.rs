//! The REPL as a user meets it (LANGUAGE.md §8), driving the real binary in
//! a pseudo-terminal: prompts, expression echo, multi-line blocks, open
//! brackets, errors that keep the session, Ctrl-C, Tab completion, Ctrl-D,
//! and history that persists across sessions.

use rexpect::session::PtySession;
use std::process::Command;

fn start(state: &std::path::Path) -> PtySession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dgl"));
    cmd.env("XDG_STATE_HOME", state).env("HOME", state).env("TERM", "xterm");
    let mut p = rexpect::session::spawn_command(cmd, Some(10_000)).expect("dgl starts in a pty");
    p.exp_string(">>> ").expect("first prompt");
    p
}

#[test]
fn a_session() {
    let state = std::env::temp_dir().join(format!("dgl-repl-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state).unwrap();

    let mut p = start(&state);
    // Expression statements echo their repr; None is not shown.
    p.send_line("1 + 2").unwrap();
    p.exp_string("3").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("constant([1.0, 2.0]) * 2").unwrap();
    p.exp_string("tensor([2.0, 4.0])").unwrap();
    p.exp_string(">>> ").unwrap();

    // A block continues with '... ' and ends at a blank line.
    p.send_line("def f(x):").unwrap();
    p.exp_string("... ").unwrap();
    p.send_line("    return x * 2").unwrap();
    p.exp_string("... ").unwrap();
    p.send_line("").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("f(21)").unwrap();
    p.exp_string("42").unwrap();
    p.exp_string(">>> ").unwrap();

    // Unclosed brackets continue too.
    p.send_line("print((1,").unwrap();
    p.exp_string("... ").unwrap();
    p.send_line("2))").unwrap();
    p.exp_string("(1, 2)").unwrap();
    p.exp_string(">>> ").unwrap();

    // Errors are reported and the session goes on.
    p.send_line("1 / 0").unwrap();
    p.exp_string("ZeroDivisionError: division by zero").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("f(2)").unwrap();
    p.exp_string("4").unwrap();
    p.exp_string(">>> ").unwrap();

    // Ctrl-C abandons the current input.
    p.send("x = (1").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("KeyboardInterrupt").unwrap();
    p.exp_string(">>> ").unwrap();

    // Ctrl-C interrupts a running statement; the session goes on.
    p.send_line("while True: pass").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    p.send_control('c').unwrap();
    p.exp_string("KeyboardInterrupt: interrupted").unwrap();
    p.exp_string(">>> ").unwrap();

    // Tab completes names and attributes.
    p.send_line("numbers = [1]").unwrap();
    p.exp_string(">>> ").unwrap();
    for keys in ["numb", "\t", ".appe", "\t", "(2)\r"] {
        // Typed as a person would: completion runs between keystrokes.
        p.send(keys).unwrap();
        p.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    // The line editor redraws as it completes; `numbers` below shows the call ran.
    p.exp_string(">>> numbers.append").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("numbers").unwrap();
    p.exp_string("[1, 2]").unwrap();
    p.exp_string(">>> ").unwrap();

    // Ctrl-D exits.
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();

    // History persists across sessions.
    let history = std::fs::read_to_string(state.join("dgl/history")).expect("history file");
    assert!(history.contains("f(21)"), "{history}");
    let mut p = start(&state);
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}
