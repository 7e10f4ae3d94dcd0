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

/// Dimensions a hostile script might pass: zero, tiny, negative, just over
/// the element budget, and far past every integer width that matters.
const HOSTILE_DIMS: &[&str] =
    &["0", "1", "2", "3", "-1", "2**20", "2**28 + 1", "2**31", "2**32", "2**40", "2**62", "2**63 - 1", "-2**63"];

fn hostile_shape(seed: &mut u64) -> String {
    let rank = (lcg(seed) % 5) as usize;
    let dims: Vec<&str> = (0..rank).map(|_| HOSTILE_DIMS[lcg(seed) as usize % HOSTILE_DIMS.len()]).collect();
    format!("[{}]", dims.join(", "))
}

/// Thousands of seeded shape-taking calls with hostile dimensions (issue #7,
/// classes 6 and 7): each ends in a value, a ValueError or a ShapeError (a
/// TypeError or IndexError where an argument has the wrong kind), never a
/// panic, an overflow or an allocation failure.
#[test]
fn hostile_shapes_end_in_a_value_or_a_shape_or_value_error() {
    let mut seed = 2026;
    let start = std::time::Instant::now();
    for case in 0..3000 {
        let s1 = hostile_shape(&mut seed);
        let s2 = hostile_shape(&mut seed);
        let d = HOSTILE_DIMS[lcg(&mut seed) as usize % HOSTILE_DIMS.len()];
        let a = ["0", "1", "-1", "2", "-3", "2**40"][lcg(&mut seed) as usize % 6];
        let call = match lcg(&mut seed) % 26 {
            0 => format!("zeros({s1})"),
            1 => format!("ones({s1}, dtype=int64)"),
            2 => format!("fill({s1}, 1.5)"),
            3 => format!("fill({s1}, 7)"),
            4 => format!("reshape(zeros({s1}), {s2})"),
            5 => format!("tile(ones({s1}), {s2})"),
            6 => format!("zeros({s1}) + ones({s2})"),
            7 => format!("matmul(ones({s1}), ones({s2}))"),
            8 => format!("concat([zeros({s1}), zeros({s2})], axis={a})"),
            9 => format!("stack([zeros({s1}), zeros({s1})], axis={a})"),
            10 => format!("reduce_sum(zeros({s1}), axis={a})"),
            11 => format!("reduce_mean(ones({s1}), axis={a}, keepdims=True)"),
            12 => format!("reduce_max(zeros({s1}, dtype=int64))"),
            13 => format!("softmax(zeros({s1}), axis={a})"),
            14 => format!("one_hot({s1}, {d})"),
            15 => format!("range_tensor({d})"),
            16 => format!("linspace(0.0, 1.0, {d})"),
            17 => format!("random_normal({s1})"),
            18 => format!("random_uniform({s1}, dtype=float64)"),
            19 => format!("eye({d}, {a})"),
            20 => format!("constant([zeros({s1}), zeros({s1})])"),
            21 => format!("print(zeros({s1}))"),
            22 => format!("gather(zeros({s1}), {s2}, axis={a})"),
            23 => format!("expand_dims(zeros({s1}), {a})"),
            24 => format!("reduce_logsumexp(zeros({s1}), axis={a})"),
            _ => format!("transpose(zeros({s1}))"),
        };
        let (code, err) = run(format!("x = {call}\n"));
        let allowed = ["ValueError", "ShapeError", "TypeError", "IndexError"];
        assert!(
            code == 0 || allowed.iter().any(|k| err.starts_with(&format!("Error: {k}: "))),
            "case {case}: {call} gave {code} and {err}"
        );
        assert!(start.elapsed() < std::time::Duration::from_secs(300), "hang guard: case {case}: {call}");
    }
}
