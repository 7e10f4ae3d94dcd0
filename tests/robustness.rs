//! No input may panic, hang or overflow the native stack (LANGUAGE.md §7):
//! random bytes, deeply nested brackets and operators, very long files and
//! deep recursion all end in a result or a clear error.

use std::cell::RefCell;
use std::rc::Rc;

/// Runs `src` as a script; returns (exit code, stderr).
fn run(src: String) -> (i32, String) {
    dgl::with_big_stack(move || {
        let out: dgl::runtime::Output = Rc::new(RefCell::new(Vec::<u8>::new()));
        let mut rt = dgl::runtime::Interp::new(out);
        let r = dgl::run_program(&mut rt, "fuzz.dgl", None, &src, vec![]);
        (r.code, r.stderr)
    })
}

fn lcg(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *seed >> 33
}

#[test]
fn random_bytes_never_panic() {
    let mut seed = 7;
    let alphabet: Vec<char> =
        "abcxyz0123456789 \t\n()[]{}:,.;+-*/%@=<>!'\"#\\_fiedlsrtnwop\u{e9}\u{1F600}".chars().collect();
    for case in 0..400 {
        let len = (lcg(&mut seed) % 200) as usize;
        let src: String = (0..len).map(|_| alphabet[(lcg(&mut seed) as usize) % alphabet.len()]).collect();
        let (code, err) = run(src.clone());
        assert!(code == 0 || err.starts_with("Error: "), "case {case}: {src:?} gave {code} and {err}");
    }
}

#[test]
fn token_soup_from_real_programs_never_panics() {
    let words = [
        "def",
        "f",
        "(",
        ")",
        ":",
        "\n",
        "    ",
        "return",
        "x",
        "+",
        "1",
        "if",
        "else",
        "for",
        "in",
        "range",
        "[",
        "]",
        "with",
        "GradientTape",
        "as",
        "t",
        "=",
        "constant",
        "1.0",
        ",",
        "lambda",
        "class",
        "C",
        "**",
        "not",
        "*",
        "print",
        "f\"{x}\"",
        "'s'",
        "while",
        "break",
        "try",
        "except",
        "ValueError",
        "@",
        "recompute_grad",
        ".",
    ];
    let mut seed = 11;
    for case in 0..400 {
        let len = (lcg(&mut seed) % 60) as usize;
        let src: String =
            (0..len).map(|_| words[(lcg(&mut seed) as usize) % words.len()]).collect::<Vec<_>>().join(" ");
        let (code, err) = run(src.clone());
        assert!(code == 0 || err.starts_with("Error: "), "case {case}: {src:?} gave {code} and {err}");
    }
}

#[test]
fn deep_nesting_is_a_clear_error() {
    for src in [
        "(".repeat(100_000),
        "[".repeat(100_000) + &"]".repeat(100_000),
        "x = ".to_string() + &"-".repeat(100_000) + "1",
        "x = ".to_string() + &"not ".repeat(100_000) + "True",
        "x = 1".to_string() + &" ** 1".repeat(100_000),
        "x = 1".to_string() + &" + 1".repeat(100_000),
        "x = f".to_string() + &"()".repeat(100_000),
        (0..300).map(|i| " ".repeat(i) + "if True:\n").collect::<String>() + &" ".repeat(300) + "pass\n",
    ] {
        let (code, err) = run(src);
        assert_eq!(code, 2, "{err}");
        assert!(err.starts_with("Error: SyntaxError: "), "{err}");
    }
}

#[test]
fn long_files_run() {
    let src = "x = 0\n".to_string() + &"x = x + 1\n".repeat(100_000) + "assert x == 100000\n";
    let (code, err) = run(src);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn deep_recursion_is_a_recursion_error() {
    let (code, err) = run("def f(n):\n    return f(n + 1)\nf(0)\n".into());
    assert_eq!(code, 1);
    assert!(err.starts_with("Error: RecursionError: "), "{err}");
    let (code, err) = run("x = []\nfor i in range(100000):\n    x = [x]\nprint(x)\n".into());
    assert_eq!(code, 1);
    assert!(err.starts_with("Error: RecursionError: "), "{err}");
}

#[test]
fn huge_allocations_are_clear_errors() {
    for src in [
        "zeros([100000, 100000])",
        "[0] * 10 ** 12",
        "'ab' * 10 ** 12",
        "matmul(ones([100000, 1]), ones([1, 100000]))",
        "list(range(10 ** 12))",
    ] {
        let (code, err) = run(src.into());
        assert_eq!(code, 1, "{src}: {err}");
        assert!(err.starts_with("Error: ValueError: "), "{src}: {err}");
    }
}

/// Random format specs × random values (issue #7, class 10): every one ends in
/// a result or a ValueError/TypeError, never a panic, and no result is longer
/// than the width and precision limit allows.
#[test]
fn random_format_specs_never_panic() {
    let pieces = [
        "<",
        ">",
        "^",
        "=",
        "*",
        "0",
        "+",
        "-",
        " ",
        "z",
        "#",
        ",",
        "_",
        ".",
        "1",
        "2",
        "9",
        "12",
        "70000",
        "999999999999",
        "1000000",
        "e",
        "E",
        "f",
        "F",
        "g",
        "G",
        "%",
        "n",
        "d",
        "b",
        "o",
        "x",
        "X",
        "c",
        "s",
        "é",
    ];
    let values = [
        "0",
        "-1",
        "7",
        "1234567",
        "-9223372036854775807 - 1",
        "9223372036854775807",
        "True",
        "0.0",
        "-0.0",
        "0.5",
        "-2.5",
        "1e300",
        "-1e-300",
        "5e-324",
        "1.7976931348623157e308",
        "float('inf')",
        "-float('inf')",
        "float('nan')",
        "-float('nan')",
        "'ab'",
        "''",
        "None",
        "[1]",
        "constant(1.5)",
        "constant([1, 2])",
    ];
    let mut seed = 23;
    for case in 0..1500 {
        let n = 1 + (lcg(&mut seed) % 6) as usize;
        let spec: String = (0..n).map(|_| pieces[(lcg(&mut seed) as usize) % pieces.len()]).collect();
        let value = values[(lcg(&mut seed) as usize) % values.len()];
        let src = format!("s = '{{:{spec}}}'.format({value})\nassert len(s) <= 2000100\n");
        let (code, err) = run(src.clone());
        let clean = code == 0 || err.starts_with("Error: ValueError: ") || err.starts_with("Error: TypeError: ");
        assert!(clean, "case {case}: {src:?} gave {code} and {err}");
    }
}

#[test]
fn huge_format_widths_are_value_errors() {
    for src in
        ["f'{1:999999999999}'", "f'{1.0:.70000000f}'", "'{:>1000001}'.format('a')", "f'{2:99999999999999999999999}'"]
    {
        let (code, err) = run(src.into());
        assert_eq!(code, 1, "{src}: {err}");
        assert!(err.starts_with("Error: ValueError: format "), "{src}: {err}");
        assert!(err.contains("is too large (the limit is 1000000)"), "{src}: {err}");
    }
}
