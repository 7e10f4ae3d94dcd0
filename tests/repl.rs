//! The REPL as a user meets it (docs/language.md §8), driving the real binary in
//! a pseudo-terminal: prompts, expression echo, multi-line blocks, open
//! brackets, errors that keep the session, Ctrl-C, Tab completion, Ctrl-D,
//! and history that persists across sessions.

use rexpect::session::PtySession;
use std::process::Command;

fn start(state: &std::path::Path) -> PtySession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dgl"));
    cmd.env("XDG_STATE_HOME", state).env("HOME", state).env("TERM", "xterm");
    let mut p = rexpect::session::spawn_command(cmd, Some(10_000)).expect("dgl starts in a pty");
    prompt(&mut p);
    p
}

/// Waits until the line editor has taken the terminal for the next line: it turns bracketed
/// paste on (`ESC [?2004h`) each time it starts reading one, after the terminal is raw. A
/// prompt's text alone does not say so: the editor redraws `>>> ` and `... ` with every key
/// of the line being typed, and between lines the terminal is briefly cooked, where a
/// Ctrl-D becomes a NUL byte the editor ignores. Every control key a test sends, and every
/// "the entry has run" a test relies on, waits here first.
fn ready(p: &mut PtySession) {
    p.exp_string("\x1b[?2004h").expect("the editor reads the next line");
}

/// Waits for the next `>>> ` prompt (a new entry), drawn by a new read of the editor.
fn prompt(p: &mut PtySession) {
    ready(p);
    p.exp_string(">>> ").expect("a >>> prompt");
}

/// Waits for the next `... ` prompt (a continuation line), drawn by a new read of the editor.
fn more(p: &mut PtySession) {
    ready(p);
    p.exp_string("... ").expect("a ... prompt");
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
    prompt(&mut p);
    p.send_line("constant([1.0, 2.0]) * 2").unwrap();
    p.exp_string("tensor([2.0, 4.0])").unwrap();
    prompt(&mut p);

    // A block continues with '... ' and ends at a blank line.
    p.send_line("def f(x):").unwrap();
    more(&mut p);
    p.send_line("    return x * 2").unwrap();
    more(&mut p);
    p.send_line("").unwrap();
    prompt(&mut p);
    p.send_line("f(21)").unwrap();
    p.exp_string("42").unwrap();
    prompt(&mut p);

    // Unclosed brackets continue too.
    p.send_line("print((1,").unwrap();
    more(&mut p);
    p.send_line("2))").unwrap();
    p.exp_string("(1, 2)").unwrap();
    prompt(&mut p);

    // Errors are reported and the session goes on.
    p.send_line("1 / 0").unwrap();
    p.exp_string("ZeroDivisionError: division by zero").unwrap();
    prompt(&mut p);
    p.send_line("f(2)").unwrap();
    p.exp_string("4").unwrap();
    prompt(&mut p);

    // Ctrl-C abandons the current input.
    p.send("x = (1").unwrap();
    p.send_control('c').unwrap();
    p.exp_string("KeyboardInterrupt").unwrap();
    prompt(&mut p);

    // Ctrl-C interrupts a running statement; the session goes on.
    p.send_line("while True: pass").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    p.send_control('c').unwrap();
    p.exp_string("KeyboardInterrupt: interrupted").unwrap();
    prompt(&mut p);

    // Tab completes names and attributes.
    p.send_line("numbers = [1]").unwrap();
    prompt(&mut p);
    for keys in ["numb", "\t", ".appe", "\t", "(2)\r"] {
        // Typed as a person would: completion runs between keystrokes.
        p.send(keys).unwrap();
        p.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    // The line editor redraws as it completes; `numbers` below shows the call ran.
    p.exp_string(">>> numbers.append").unwrap();
    prompt(&mut p);
    p.send_line("numbers").unwrap();
    p.exp_string("[1, 2]").unwrap();
    prompt(&mut p);

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

/// Types `line` and Enter: a block when it ends in a newline (the Enter is then the blank
/// line that ends it), each of its lines read at a `... ` prompt. Waits for `output` (`>>> `
/// when the entry prints nothing) and for the prompt of the next entry.
fn run_entry(p: &mut PtySession, line: &str, output: &str) {
    p.send_line(line).unwrap();
    for _ in 0..line.matches('\n').count() {
        more(p);
    }
    if output != ">>> " {
        p.exp_string(output).unwrap();
    }
    prompt(p);
}

fn fresh_state(name: &str) -> std::path::PathBuf {
    let state = std::env::temp_dir().join(format!("dgl-repl-{}-{}", name, std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(&state).unwrap();
    state
}

#[test]
fn input_typed_ahead_is_kept() {
    let state = fresh_state("ahead");
    let mut p = start(&state);
    // Several lines in one write (a paste without bracketed paste): none is dropped.
    p.send("x = 1\ny = 20\nprint(x + y)\n").unwrap();
    p.flush().unwrap();
    p.exp_string("21").unwrap();
    prompt(&mut p);
    // Typing ahead while a statement runs.
    p.send("for i in range(300000):\n    pass\n\nprint('after', i)\nprint('and more')\n").unwrap();
    p.flush().unwrap();
    p.exp_string("after 299999").unwrap();
    p.exp_string("and more").unwrap();
    prompt(&mut p);
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn decorators_open_a_block() {
    let state = fresh_state("decorator");
    let mut p = start(&state);
    p.send_line("@custom_gradient").unwrap();
    more(&mut p);
    p.send_line("def triple(x):").unwrap();
    more(&mut p);
    p.send_line("    return x, lambda u: u * 3").unwrap();
    more(&mut p);
    p.send_line("").unwrap();
    prompt(&mut p);
    p.send_line("x = constant(2.0)").unwrap();
    prompt(&mut p);
    p.send_line("with GradientTape() as t:\n    t.watch(x)\n    y = triple(x)\n").unwrap();
    prompt(&mut p);
    p.send_line("t.gradient(y, x)").unwrap();
    p.exp_string("tensor(3.0)").unwrap();
    prompt(&mut p);
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn ctrl_d_in_a_block_runs_it_and_the_session_goes_on() {
    // As python3's REPL does: the block runs (or its error is reported).
    let state = fresh_state("eofblock");
    let mut p = start(&state);
    p.send_line("if True:").unwrap();
    more(&mut p);
    p.send_line("    print('ran', 5)").unwrap();
    more(&mut p);
    p.send_control('d').unwrap();
    p.exp_string("ran 5").unwrap();
    prompt(&mut p);
    p.send_line("def f():").unwrap();
    more(&mut p);
    p.send_control('d').unwrap();
    p.exp_string("SyntaxError").unwrap();
    prompt(&mut p);
    p.send_line("print('still', 7)").unwrap();
    p.exp_string("still 7").unwrap();
    prompt(&mut p);
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn invalid_utf8_is_reported_and_the_session_goes_on() {
    use std::io::Write;
    let state = fresh_state("utf8");
    let mut p = start(&state);
    p.writer.write_all(b"\xff\xfe\n").unwrap();
    p.writer.flush().unwrap();
    p.exp_string("not UTF-8").unwrap();
    prompt(&mut p);
    p.send_line("print('alive', 1 + 1)").unwrap();
    p.exp_string("alive 2").unwrap();
    prompt(&mut p);
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn history_survives_a_killed_session_and_a_concurrent_one() {
    let state = fresh_state("history");
    let mut a = start(&state);
    let mut b = start(&state);
    a.send_line("alpha_entry = 1").unwrap();
    prompt(&mut a);
    b.send_line("beta_entry = 2").unwrap();
    prompt(&mut b);
    // Session a dies without a clean exit; session b ends normally.
    a.process.kill(rexpect::process::Signal::SIGKILL).unwrap();
    b.send_control('d').unwrap();
    b.exp_eof().unwrap();
    let history = std::fs::read_to_string(state.join("dgl/history")).expect("history file");
    assert!(history.contains("alpha_entry = 1"), "{history}");
    assert!(history.contains("beta_entry = 2"), "{history}");
}

#[test]
fn entries_share_one_module_and_redefinitions_are_seen() {
    // Every entry is resolved against the session's one module: a function sees a
    // global defined by a later entry, and a redefinition replaces the old binding.
    let state = fresh_state("redefine");
    let mut p = start(&state);
    for (line, expected) in [
        ("def g():\n    return h() * 10\n", ">>> "),
        ("def h():\n    return 1\n", ">>> "),
        ("print('first', g() + 3)", "first 13"),
        ("def h():\n    return 2\n", ">>> "),
        ("print('second', g() + 3)", "second 23"),
        // Shadowing a builtin, then deleting the shadow, as in Python.
        ("len = lambda v: 40", ">>> "),
        ("print('shadowed', len('ab') + 2)", "shadowed 42"),
        ("del len", ">>> "),
        ("print('builtin', len('ab') + 5)", "builtin 7"),
        // A closure made in one entry keeps its cell across entries.
        ("def counter():\n    n = 0\n    def inc():\n        nonlocal n\n        n += 1\n        return n\n    return inc\n", ">>> "),
        ("c = counter()", ">>> "),
        ("c()", ">>> "),
        ("print('count', c() * 100)", "count 200"),
        // `global` from a function binds the session's name.
        ("def setter():\n    global made\n    made = 'by setter'\n", ">>> "),
        ("setter()", ">>> "),
        ("print('made', made.upper())", "made BY SETTER"),
        // Reading a local before it is bound.
        ("def bad():\n    v = v + 1\n", ">>> "),
        ("bad()", "cannot access local variable 'v' where it is not associated with a value"),
        ("print('alive', 3 * 3)", "alive 9"),
    ] {
        run_entry(&mut p, line, expected);
    }
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn generators_live_across_entries() {
    // A generator made in one entry is resumed by later ones (its stack waits in between);
    // generator functions, decorated methods and set displays are ordinary blocks and values.
    let state = fresh_state("generators");
    let mut p = start(&state);
    for (line, expected) in [
        ("def count():\n    i = 0\n    while True:\n        yield i\n        i += 1\n", ">>> "),
        ("g = count()", ">>> "),
        ("next(g)", ">>> "),
        ("print('next', next(g) * 10)", "next 10"),
        ("class C:\n    @staticmethod\n    def s(x):\n        return x + 1\n", ">>> "),
        ("print('static', C.s(next(g)))", "static 3"),
        ("{1, 2} | {3}", "{1, 2, 3}"),
        ("print('squares', sum(x * x for x in range(4)))", "squares 14"),
        ("g = None", ">>> "),
        ("print('alive', 3 & 6)", "alive 2"),
    ] {
        run_entry(&mut p, line, expected);
    }
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

/// Running out of memory is a MemoryError like any other error: the session goes on, with
/// what it had built still there (issue 24, item 9). `DGL_MEMORY_LIMIT` makes the limit small.
#[test]
fn a_memory_error_keeps_the_session() {
    let state = fresh_state("memory");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dgl"));
    cmd.env("XDG_STATE_HOME", &state).env("HOME", &state).env("TERM", "xterm").env("DGL_MEMORY_LIMIT", "64M");
    let mut p = rexpect::session::spawn_command(cmd, Some(20_000)).expect("dgl starts in a pty");
    prompt(&mut p);
    p.send_line("rows = []").unwrap();
    prompt(&mut p);
    p.send_line("while True: rows.append([0] * 100000)").unwrap();
    p.send_line("").unwrap();
    p.exp_string("MemoryError: out of memory").unwrap();
    prompt(&mut p);
    p.send_line("print(len(rows) > 10)").unwrap();
    p.exp_string("True").unwrap();
    prompt(&mut p);
    p.send_line("rows = None").unwrap();
    prompt(&mut p);
    p.send_line("print(len([1] * 1000000) + 1)").unwrap();
    p.exp_string("1000001").unwrap();
    prompt(&mut p);
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

/// Types `keys` as a person would: the editor handles them, and redraws, before the next.
fn typed(p: &mut PtySession, keys: &str) {
    p.send(keys).unwrap();
    p.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
}

/// Backspace in a line's indentation deletes one level, so after the auto-indent it dedents
/// (issue 24, item 14); elsewhere it deletes one character.
#[test]
fn backspace_in_the_indent_dedents() {
    let state = fresh_state("dedent");
    let mut p = start(&state);
    typed(&mut p, "b = 0\r");
    typed(&mut p, "if False:\r");
    typed(&mut p, "if True:\r");
    typed(&mut p, "a = 1\r");
    // The line starts with 8 spaces; one Backspace leaves 4: `b = 2` is in `if False`.
    typed(&mut p, "\x7f");
    typed(&mut p, "b = 2\r");
    typed(&mut p, "\r");
    prompt(&mut p);
    typed(&mut p, "print('b is', b)\r");
    p.exp_string("b is 0").unwrap();
    // Outside the indentation it deletes one character.
    typed(&mut p, "print(123\x7f4)\r");
    // Its output, not the line as redrawn (which shows `124` too).
    p.exp_string("\n124\r\n").unwrap();
    prompt(&mut p);
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

/// A block pasted without bracketed paste (one write) ends at the column-0 line after it,
/// which is the next entry, as in CPython 3.13's REPL; a typed column-0 line ends it too.
#[test]
fn a_column_0_line_ends_a_pasted_block() {
    let state = fresh_state("pasteend");
    let mut p = start(&state);
    p.send("def f():\n    return 5\nprint('first', f() + 1)\nx = 2\nfor i in range(2):\n    x = x * 10\nprint('second', x)\n")
        .unwrap();
    p.flush().unwrap();
    p.exp_string("first 6").unwrap();
    p.exp_string("second 200").unwrap();
    prompt(&mut p);
    // Clauses continue their statement; an open bracket is not ended by a column-0 line.
    p.send("if x > 1000:\n    y = 'big'\nelse:\n    y = [1,\n2]\nprint('third', y)\n").unwrap();
    p.flush().unwrap();
    p.exp_string("third [1, 2]").unwrap();
    prompt(&mut p);
    // Typed: deleting the pre-filled indent and typing at column 0 ends the block.
    typed(&mut p, "if True:\r");
    typed(&mut p, "z = 3\r");
    typed(&mut p, "\x7f");
    typed(&mut p, "print('fourth', z)\r");
    p.exp_string("fourth 3").unwrap();
    prompt(&mut p);
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

/// Ctrl-L clears the screen and redraws the line being edited at the top.
#[test]
fn ctrl_l_clears_the_screen() {
    let state = fresh_state("ctrll");
    let mut p = start(&state);
    typed(&mut p, "print('kept'");
    p.send_control('l').unwrap();
    p.exp_string("\x1b[H\x1b[J").unwrap();
    // The line is drawn again (in colour) at the top.
    p.exp_string("'kept'").unwrap();
    typed(&mut p, ")\r");
    p.exp_string("\nkept\r\n").unwrap();
    prompt(&mut p);
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}

/// `x?` on a value describes the object (its type, shape, dtype, length, string form), as
/// IPython does; on a function it shows the documentation.
#[test]
fn a_question_mark_describes_a_value() {
    let state = fresh_state("describe");
    let mut p = start(&state);
    p.send_line("t = constant([[1.0, 2.0], [3.0, 4.0]])").unwrap();
    prompt(&mut p);
    p.send_line("t?").unwrap();
    p.exp_string("Type:        Tensor").unwrap();
    p.exp_string("Shape:       (2, 2)").unwrap();
    p.exp_string("Dtype:       float32").unwrap();
    p.exp_string("String form: tensor([[1.0, 2.0], [3.0, 4.0]])").unwrap();
    p.exp_string("Docstring:   The type of tensors").unwrap();
    prompt(&mut p);
    p.send_line("xs = ['a', 2]").unwrap();
    prompt(&mut p);
    p.send_line("xs?").unwrap();
    p.exp_string("Type:        list").unwrap();
    p.exp_string("Length:      2").unwrap();
    p.exp_string("String form: ['a', 2]").unwrap();
    prompt(&mut p);
    p.send_line("reduce_sum?").unwrap();
    p.exp_string("reduce_sum(").unwrap();
    prompt(&mut p);
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();
}
