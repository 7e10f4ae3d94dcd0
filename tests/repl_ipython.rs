//! The REPL's IPython-grade features (issue 11, item 4) as a user meets them, driving the
//! real binary in a pseudo-terminal: colours (and `NO_COLOR`), auto-indent, history hints,
//! completion lists, `_`, `exit`/`quit`, the magics, `x?`, wide tensors, tracebacks that
//! name the entry.

use rexpect::session::PtySession;
use std::process::Command;
use std::time::Duration;

/// A REPL in a pty with a fresh state dir; `env` adds variables (`NO_COLOR`).
fn start(name: &str, env: &[(&str, &str)]) -> PtySession {
    let state = std::env::temp_dir().join(format!("dgl-repl-ipy-{}-{}", name, std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dgl"));
    cmd.env("XDG_STATE_HOME", &state).env("HOME", &state).env("TERM", "xterm").env("COLUMNS", "80");
    cmd.env_remove("NO_COLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut p = rexpect::session::spawn_command(cmd, Some(10_000)).expect("dgl starts in a pty");
    p.exp_string(">>> ").expect("first prompt");
    p
}

/// Types `keys` as a person would: the editor redraws between keystrokes.
fn typed(p: &mut PtySession, keys: &str) {
    p.send(keys).unwrap();
    p.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
}

/// Ctrl-C abandons the line; waits for the next prompt (input sent before it may be
/// dropped with the abandoned line).
fn interrupt(p: &mut PtySession) {
    p.send_control('c').unwrap();
    p.exp_string("KeyboardInterrupt").unwrap();
    p.exp_string(">>> ").unwrap();
    std::thread::sleep(Duration::from_millis(200));
}

fn end(mut p: PtySession) {
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn typed_code_is_coloured_from_the_lexer() {
    let mut p = start("colour", &[]);
    // A builtin in cyan, a string in green, a number in yellow, as the line is typed.
    typed(&mut p, "print('a', 1)");
    p.exp_string("\x1b[36mprint\x1b[").unwrap();
    p.exp_string("\x1b[32m'a'\x1b[").unwrap();
    p.exp_string("\x1b[33m1\x1b[").unwrap();
    typed(&mut p, "\r");
    p.exp_string("a 1").unwrap();
    // An unterminated string is coloured to the end of the line while typed.
    typed(&mut p, "x = 'abc");
    p.exp_string("\x1b[32m'abc\x1b[").unwrap();
    interrupt(&mut p);
    // A bracket that closes the wrong thing is bold red.
    typed(&mut p, "f(1])");
    p.exp_string("\x1b[1;31m]\x1b[").unwrap();
    interrupt(&mut p);
    // The history hint: the rest of the latest entry starting with the line, in grey.
    typed(&mut p, "print('hinted', 42)\r");
    p.exp_string("hinted 42").unwrap();
    typed(&mut p, "print('hin");
    p.exp_string("\x1b[90mted', 42)").unwrap();
    interrupt(&mut p);
    end(p);
}

#[test]
fn no_color_turns_colours_off() {
    let mut p = start("nocolor", &[("NO_COLOR", "1")]);
    typed(&mut p, "print('plain', 7)\r");
    // The line as typed, with no colour codes inside it.
    let echo = p.exp_string("plain 7").unwrap();
    assert!(echo.contains("print('plain', 7)") && !echo.contains("\x1b[3"), "{echo:?}");
    end(p);
}

#[test]
fn continuation_lines_are_indented_and_clauses_dedented() {
    let mut p = start("indent", &[("NO_COLOR", "1")]);
    typed(&mut p, "def sign(a):\r");
    // The next line starts one level deeper, pre-filled.
    p.exp_string("...     ").unwrap();
    typed(&mut p, "if a > 0:\r");
    p.exp_string("...         ").unwrap();
    typed(&mut p, "return 'positive'\r");
    // After `return`: one level back, where `else` belongs.
    typed(&mut p, "else:\r");
    typed(&mut p, "return 'not positive'\r");
    // A blank line (the pre-filled indent only) ends the block.
    typed(&mut p, "\r");
    p.exp_string(">>> ").unwrap();
    typed(&mut p, "print(sign(3), sign(-1))\r");
    p.exp_string("positive not positive").unwrap();
    // Lines arriving with their own indentation (a paste, typed ahead) keep it.
    p.send("if 1 > 2:\n    print('no')\nelse:\n    print('pasted', 9)\n\n").unwrap();
    p.exp_string("pasted 9").unwrap();
    p.exp_string(">>> ").unwrap();
    end(p);
}

#[test]
fn tab_lists_candidates_and_magics() {
    let mut p = start("complete", &[("NO_COLOR", "1")]);
    typed(&mut p, "reduce_m");
    typed(&mut p, "\t");
    typed(&mut p, "\t");
    // Several candidates: the second Tab lists them all.
    p.exp_string("reduce_max").unwrap();
    p.exp_string("reduce_mean").unwrap();
    p.exp_string("reduce_min").unwrap();
    interrupt(&mut p);
    typed(&mut p, "%tim");
    typed(&mut p, "\t");
    typed(&mut p, "\t");
    p.exp_string("%timeit").unwrap();
    interrupt(&mut p);
    end(p);
}

#[test]
fn underscore_holds_the_last_value_and_exit_ends() {
    let mut p = start("underscore", &[("NO_COLOR", "1")]);
    p.send_line("6 * 7").unwrap();
    p.exp_string("42").unwrap();
    p.send_line("print('none', None)").unwrap();
    p.exp_string("none None").unwrap();
    // `_` is the last echoed value (a None result does not replace it), `__` the one before.
    p.send_line("_ + 1").unwrap();
    p.exp_string("43").unwrap();
    p.send_line("print('older', __)").unwrap();
    p.exp_string("older 42").unwrap();
    p.send_line("exit").unwrap();
    p.exp_eof().unwrap();
    let mut p = start("quit", &[("NO_COLOR", "1")]);
    p.send_line("quit()").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn tracebacks_name_the_entry_they_come_from() {
    let mut p = start("entries", &[("NO_COLOR", "1")]);
    p.send_line("x = 1").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("%who").unwrap();
    p.exp_string("x").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("def f():\n    return 1 / 0\n").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("f()").unwrap();
    p.exp_string("ZeroDivisionError").unwrap();
    p.exp_string("<input-3>:2").unwrap();
    p.exp_string("<input-4>:1").unwrap();
    p.exp_string(">>> ").unwrap();
    end(p);
}

#[test]
fn magics_time_who_run_and_tape() {
    let mut p = start("magics", &[("NO_COLOR", "1")]);
    p.send_line("%time 20 + 22").unwrap();
    p.exp_string("CPU time: ").unwrap();
    p.exp_string("Wall time: ").unwrap();
    p.exp_string("42").unwrap();
    p.send_line("%timeit -n 3 -r 2 y = 1").unwrap();
    // (rexpect reads the output as Latin-1: the `±` is left out of the expectation.)
    p.exp_string(" per loop (mean ").unwrap();
    p.exp_string(" std over 2 runs of 3 loops)").unwrap();
    p.send_line("%timeit 1 / 0").unwrap();
    p.exp_string("ZeroDivisionError").unwrap();
    // An endless statement: Ctrl-C stops it.
    p.send_line("%timeit while True: pass").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    p.send_control('c').unwrap();
    p.exp_string("KeyboardInterrupt").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("%who").unwrap();
    p.exp_string("y").unwrap();
    p.send_line("%nosuch").unwrap();
    p.exp_string("NameError: unknown magic '%nosuch'").unwrap();
    p.send_line("%help").unwrap();
    p.exp_string("%timeit [-n N]").unwrap();
    p.exp_string(">>> ").unwrap();

    // %run: argv, output, and the script's names join the session.
    let dir = std::env::temp_dir().join(format!("dgl-repl-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.dgl");
    std::fs::write(&script, "print('args', argv()[1:])\nfrom_script = 5\n").unwrap();
    p.send_line(&format!("%run {} a 'b c'", script.display())).unwrap();
    p.exp_string("args ['a', 'b c']").unwrap();
    p.send_line("from_script * 2").unwrap();
    p.exp_string("10").unwrap();
    let failing = dir.join("failing.dgl");
    std::fs::write(&failing, "z = 1\nundefined_in_script\n").unwrap();
    p.send_line(&format!("%run {}", failing.display())).unwrap();
    p.exp_string("failing.dgl:2").unwrap();
    p.send_line(&format!("%run {}", dir.join("missing.dgl").display())).unwrap();
    p.exp_string("IOError: cannot open").unwrap();
    let binary = dir.join("binary.dgl");
    std::fs::write(&binary, b"\xff\xfe\x00\x01").unwrap();
    p.send_line(&format!("%run {}", binary.display())).unwrap();
    p.exp_string("is not UTF-8 text").unwrap();

    // %tape: the summary of the tape used last.
    p.send_line("%tape").unwrap();
    p.exp_string("no GradientTape has been used").unwrap();
    p.send_line("w = Variable([1.0, 2.0])\nwith GradientTape() as t:\n    loss = reduce_sum(w * w)\n").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("%tape").unwrap();
    p.exp_string("GradientTape(persistent=False): 2 ops").unwrap();
    p.exp_string("reduce_sum").unwrap();
    p.exp_string(">>> ").unwrap();
    end(p);
}

#[test]
fn help_queries_show_the_help_text() {
    let mut p = start("help", &[("NO_COLOR", "1")]);
    p.send_line("def documented(a):\n    'Doubles a.'\n    return 2 * a\n").unwrap();
    p.exp_string(">>> ").unwrap();
    for query in ["documented?", "?documented", "documented??"] {
        p.send_line(query).unwrap();
        p.exp_string("documented(a)").unwrap();
        p.exp_string("Doubles a.").unwrap();
        p.exp_string(">>> ").unwrap();
    }
    p.send_line("nothing_of_this_name?").unwrap();
    p.exp_string("NameError: no help for 'nothing_of_this_name'").unwrap();
    end(p);
}

#[test]
fn wide_tensors_are_echoed_over_lines_and_printed_on_one() {
    let mut p = start("wide", &[("NO_COLOR", "1")]);
    p.send_line("m = reshape(cast(constant(list(range(60))), int64), [3, 20])").unwrap();
    p.exp_string(">>> ").unwrap();
    p.send_line("m").unwrap();
    p.exp_string("tensor([[ 0,  1,  2,").unwrap();
    p.exp_string("\r\n        [20, 21,").unwrap();
    p.exp_string("shape=(3, 20), dtype=int64)").unwrap();
    p.send_line("print(m[:2, :3])").unwrap();
    p.exp_string("[[0, 1, 2], [20, 21, 22]]").unwrap();
    p.send_line("m[0, :3]").unwrap();
    p.exp_string("tensor([0, 1, 2], dtype=int64)").unwrap();
    end(p);
}
