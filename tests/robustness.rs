//! No input may panic, hang or overflow the native stack (docs/language.md §7):
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
        "yield",
        "from",
        "{",
        "}",
        "&",
        "|",
        "^",
        "~",
        "<<",
        ">>",
        "set",
        "next",
        "iter",
        "staticmethod",
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

/// Pieces of programs using generators, sets, starred targets and bitwise operators.
const PIECES: &[&str] = &[
    "def g(n):\n    i = 0\n    while True:\n        yield i\n        i += 1\n        if i > n:\n            return i\n",
    "def h(xs):\n    for x in xs:\n        try:\n            yield 10 // x\n        finally:\n            pass\n",
    "def r(n):\n    if n > 0:\n        yield from r(n - 1)\n    yield n\n",
    "def e():\n    x = yield 1\n    while x:\n        x = yield x\n",
    "it = g(3)\n",
    "it = h([1, 0, 2])\n",
    "it = r(5)\n",
    "it = e()\n",
    "it = (x * x for x in range(5) if x & 1)\n",
    "it = iter([1, 2, 3])\n",
    "it = iter(range(4))\n",
    "print(next(it))\n",
    "print(next(it, None))\n",
    "print(list(it))\n",
    "print(it.send(3))\n",
    "it.close()\n",
    "it = None\n",
    "for v in it:\n    if v:\n        break\n",
    "a, *b = it\n",
    "*a, b, c = it\n",
    "print(sum(it), 3 in it)\n",
    "s = {1, 2, 3}\n",
    "s = set(it)\n",
    "s.add(len(s))\n",
    "s.remove(7)\n",
    "print(s | {4}, s & {1}, s - {2}, s ^ {9}, s <= {1, 2}, s.pop())\n",
    "print({x % 3 for x in it}, {x: x for x in s})\n",
    "print([*s, *it], (*s,))\n",
    "n = 5 << 61\n",
    "n = -7 >> 2 ^ ~3 & 12 | 1\n",
    "n = 1 << -1\n",
    "print(f'{n=} {s!r:>20}')\n",
    "it = g(10 ** 4)\nprint(next(it))\n",
    "def loop():\n    yield from loop()\n",
    "print(list(loop()))\n",
];

/// Random programs built from [`PIECES`]: every one ends in output or an error report,
/// never a panic, a crash of a generator's stack, or a hang.
#[test]
fn generated_generator_programs_never_panic() {
    let mut seed = 29;
    for case in 0..300 {
        let len = 1 + (lcg(&mut seed) % 12) as usize;
        // The definitions first, so that most pieces find what they use.
        let mut src: String = PIECES[..5].concat() + "s = {1, 2, 3}\n";
        src.extend((0..len).map(|_| PIECES[(lcg(&mut seed) as usize) % PIECES.len()]));
        let (code, err) = run(src.clone());
        assert!(code == 0 || (code == 1 && err.starts_with("Error: ")), "case {case}: {src}\n gave {code} and {err}");
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

/// One level of nesting: text before and after the inner expression.
const NESTINGS: &[(&str, &str)] = &[
    ("[", "]"),
    ("(", ")"),
    ("{1: ", "}"),
    ("a[", "]"),
    ("f(", ")"),
    ("[x for x in ", "]"),
    ("(a if c else ", ")"),
    ("a[1:", "]"),
    ("a[::", "]"),
    ("(lambda: ", ")"),
    ("[(", ")]"),
    ("f([", "])"),
    ("a[a[", "]]"),
    ("-", ""),
    ("(not ", ")"),
    ("{", "}"),
    ("{1, ", "}"),
    ("(x for x in ", ")"),
    ("f(x for x in ", ")"),
    ("{x for x in ", "}"),
    ("{x: 1 for x in ", "}"),
    ("[*", "]"),
    ("~", ""),
    ("(1 << ", ")"),
    ("(1 & ", " | 2 ^ 3)"),
];

/// A seeded random mix of `depth` nesting levels around `1`.
fn nested(seed: &mut u64, depth: usize) -> String {
    let levels: Vec<usize> = (0..depth).map(|_| lcg(seed) as usize % NESTINGS.len()).collect();
    let mut src = String::from("x = ");
    levels.iter().for_each(|&k| src.push_str(NESTINGS[k].0));
    src.push('1');
    levels.iter().rev().for_each(|&k| src.push_str(NESTINGS[k].1));
    src.push('\n');
    src
}

fn brackets(src: &str) -> usize {
    src.chars().filter(|c| "([{".contains(*c)).count()
}

/// Parsing is linear in the nesting depth (issue #7, class 9): each bracketed
/// prefix is parsed once. Within the nesting limit every mix parses; past it
/// the layout pass refuses it, as CPython does. Timings are only a hang guard.
#[test]
fn mixed_nesting_parses_in_linear_time() {
    let mut seed = 17;
    let start = std::time::Instant::now();
    for depth in [10, 20, 40, 80, 120, 160, 1000] {
        for case in 0..10 {
            let src = nested(&mut seed, depth);
            let t = std::time::Instant::now();
            let parsed = dgl::syntax::parse_module(&src);
            assert!(
                t.elapsed() < std::time::Duration::from_secs(10),
                "depth {depth} case {case} took {:?}",
                t.elapsed()
            );
            if brackets(&src) < dgl::syntax::layout::MAX_NESTING {
                assert!(parsed.is_ok(), "depth {depth} case {case}: {src}\n{:?}", parsed.err());
            } else {
                let errs = parsed.expect_err(&src);
                assert_eq!(errs[0].message, "too many nested parentheses", "{src}");
            }
        }
    }
    // 1,000 levels of the once-exponential kinds, and an error deep inside them.
    for (open, close) in [
        ("[(", ")]"),
        ("a[", "]"),
        ("f([", "])"),
        ("[x for x in (a if c else ", ")]"),
        ("(x for x in (", "))"),
        ("{(", ")}"),
        ("{x: (", ") for x in y}"),
    ] {
        let src = format!("x = {}\n", open.repeat(1000));
        assert_eq!(dgl::syntax::parse_module(&src).unwrap_err()[0].message, "too many nested parentheses");
        let src = format!("x = {}1 +{}\n", open.repeat(45), close.repeat(45));
        let errs = dgl::syntax::parse_module(&src).unwrap_err();
        assert!(errs[0].message.starts_with("expected an expression"), "{:?}", errs[0]);
    }
    assert!(start.elapsed() < std::time::Duration::from_secs(30), "took {:?}", start.elapsed());
}

/// Truncated and spliced nesting mixes, with control characters sprinkled
/// in: every input ends in success or a SyntaxError report (never a panic
/// or a hang), and no report carries a raw control character.
#[test]
fn nesting_mixes_and_control_characters_never_panic() {
    let controls = ['\0', '\x07', '\x08', '\x0b', '\x0c', '\r', '\x1b', '\x7f', '\u{85}', '\u{2028}', '\u{feff}'];
    let mut seed = 23;
    for case in 0..300 {
        let depth = 1 + lcg(&mut seed) as usize % 60;
        let mut chars: Vec<char> = nested(&mut seed, depth).chars().collect();
        match lcg(&mut seed) % 4 {
            0 => chars.truncate(lcg(&mut seed) as usize % chars.len()),
            1 => {
                let at = lcg(&mut seed) as usize % chars.len();
                chars.insert(at, controls[lcg(&mut seed) as usize % controls.len()]);
            }
            2 => {
                let at = lcg(&mut seed) as usize % chars.len();
                chars.remove(at);
            }
            _ => {
                let at = lcg(&mut seed) as usize % chars.len();
                let extra: Vec<char> = nested(&mut seed, 3).chars().collect();
                chars.splice(at..at, extra);
            }
        }
        let src: String = chars.into_iter().collect();
        let (report, code) = dgl::check_source("fuzz.dgl", &src, false);
        assert!(
            code == 0 || (code == 2 && report.starts_with("Error: SyntaxError: ")),
            "case {case}: {src:?}\n{report}"
        );
        assert!(!report.chars().any(|c| c.is_control() && c != '\n'), "case {case}: {src:?}\n{report:?}");
        let (code, err) = run(src.clone());
        assert!(code != 2 || err.starts_with("Error: SyntaxError: "), "case {case}: {src:?}\n{err}");
        assert!(code == 0 || err.starts_with("Error: "), "case {case}: {src:?}\n{err}");
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
        // OverflowError: a Python int expression such as `2**63 - 1` leaves 64 bits (docs/language.md §3).
        // MemoryError: on a machine with little memory free, a 1 GiB tensor may pass the limit.
        let allowed = ["ValueError", "ShapeError", "TypeError", "IndexError", "OverflowError", "MemoryError"];
        assert!(
            code == 0 || allowed.iter().any(|k| err.starts_with(&format!("Error: {k}: "))),
            "case {case}: {call} gave {code} and {err}"
        );
        assert!(start.elapsed() < std::time::Duration::from_secs(300), "hang guard: case {case}: {call}");
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
        // OverflowError: CPython's kind for `format(2**63 - 1, 'c')`.
        let clean = code == 0
            || err.starts_with("Error: ValueError: ")
            || err.starts_with("Error: TypeError: ")
            || err.starts_with("Error: OverflowError: ");
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

/// A seeded int and a float near it: around 0, 2^53 and ±2^63, off by a
/// fraction or one ulp, or of a random exponent.
fn int_float_pair(seed: &mut u64) -> (i64, f64) {
    let r = lcg(seed);
    let i: i64 = match r % 5 {
        0 => (lcg(seed) as i64 % 2001) - 1000,
        1 => (1i64 << 53) + (lcg(seed) as i64 % 9) - 4,
        2 => i64::MAX - (lcg(seed) as i64 % 2000),
        3 => i64::MIN + (lcg(seed) as i64 % 2000),
        _ => ((lcg(seed) << 31) ^ lcg(seed)) as i64 * if lcg(seed) % 2 == 0 { 1 } else { -1 },
    };
    let base = i as f64;
    let f = match lcg(seed) % 6 {
        0 => base,
        1 => f64::from_bits(base.to_bits() + 1),
        2 => f64::from_bits(base.to_bits().saturating_sub(1)),
        3 => base + 0.5,
        4 => base - 0.25,
        _ => {
            (lcg(seed) as f64 / 7.0)
                * 2f64.powi((lcg(seed) % 140) as i32 - 40)
                * if lcg(seed) % 2 == 0 { 1.0 } else { -1.0 }
        }
    };
    (i, f)
}

/// int/float `==`, `<`, `<=`, `>`, `>=` are exact (CPython's rule), checked
/// against an i128 oracle: below 2^100 a float's floor is an exact i128.
#[test]
fn int_float_comparisons_are_exact() {
    let mut seed = 31;
    let mut src = String::new();
    let mut want = String::new();
    for _ in 0..600 {
        let (i, f) = int_float_pair(&mut seed);
        assert!(f.is_finite());
        let (lt, eq) = if f.abs() >= 2f64.powi(100) {
            (f > 0.0, false)
        } else {
            let fl = f.floor() as i128;
            let frac = f != f.floor();
            ((i as i128) < fl || ((i as i128) == fl && frac), (i as i128) == fl && !frac)
        };
        let gt = !lt && !eq;
        src.push_str(&format!(
            "print({i} == {f:?}, {i} < {f:?}, {i} <= {f:?}, {f:?} > {i}, {i} > {f:?}, {i} >= {f:?})\n"
        ));
        let py = |b: bool| if b { "True" } else { "False" };
        want.push_str(&format!("{} {} {} {} {} {}\n", py(eq), py(lt), py(lt || eq), py(lt), py(gt), py(gt || eq)));
    }
    let out = dgl::testing::run_text(&src);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for (k, (got, exp)) in out.stdout.lines().zip(want.lines()).enumerate() {
        assert_eq!(got, exp, "line {}: {}", k + 1, src.lines().nth(k).unwrap_or(""));
    }
    assert_eq!(out.stdout.lines().count(), 600);
}

/// A float becomes an int64 element exactly when it is integral and in range:
/// otherwise a TypeError (a fraction) or a ValueError (out of range), never a truncation.
#[test]
fn floats_to_int64_elements_are_exact_or_errors() {
    let mut seed = 37;
    for case in 0..300 {
        let (_, f) = int_float_pair(&mut seed);
        let src = format!("print(int(constant({f:?}, dtype=int64)), int(constant([{f:?}], dtype=int64)[0]))\n");
        let out = dgl::testing::run_text(&src);
        if f.fract() != 0.0 {
            assert!(
                out.stderr.starts_with("Error: TypeError: cannot convert "),
                "case {case}: {src} gave {}",
                out.stderr
            );
        } else if !(-(2f64.powi(63))..2f64.powi(63)).contains(&f) {
            assert!(out.stderr.starts_with("Error: ValueError: "), "case {case}: {src} gave {}", out.stderr);
        } else {
            assert_eq!(out.stdout, format!("{0} {0}\n", f as i64), "case {case}: {src}");
        }
    }
}

/// How one run of the `dgl` binary ended.
struct Ended {
    /// The exit status, or `None` when a signal ended it (an abort).
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: std::time::Duration,
}

/// The binary under test: `DGL_BIN` (say, a release build) or the one cargo built.
fn dgl_bin() -> String {
    std::env::var("DGL_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_dgl").to_string())
}

/// Runs `dgl ARGS… FILE` on the script `src` (written to a scratch file) with its address
/// space limited to `kib` KiB (`ulimit -v`); a run still going after `limit` fails.
fn run_limited(name: &str, src: &[u8], args: &[&str], kib: u64, limit: std::time::Duration) -> Ended {
    use std::io::Read;
    let dir = std::env::temp_dir().join(format!("dgl-robust-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("prog.dgl");
    std::fs::write(&file, src).unwrap();
    let start = std::time::Instant::now();
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(dgl_bin())
        .args(args)
        .arg(&file)
        .env_remove("DGL_MEMORY_LIMIT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sh runs");
    // Drain the pipes on threads so that a chatty child never blocks.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let st = child.wait().unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            panic!("{name}: still running after {limit:?} ({st:?}):\n{}", String::from_utf8_lossy(src));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let took = start.elapsed();
    let _ = std::fs::remove_dir_all(&dir);
    Ended { code: status.code(), stdout: t_out.join().unwrap(), stderr: t_err.join().unwrap(), took }
}

/// One generated allocation-heavy program (issue 24, item 9): growth loops, comprehensions,
/// huge repetitions, string building, dict and set growth, huge tensors; half of them inside
/// a `try` that catches MemoryError and then goes on allocating a little.
fn allocation_program(seed: &mut u64) -> String {
    let pick = |seed: &mut u64, xs: &[&str]| xs[lcg(seed) as usize % xs.len()].to_string();
    let item = pick(
        seed,
        &[
            "i",
            "[i] * 1000",
            "str(i) * 100",
            "(i,) * 500",
            "{i: i}",
            "[0.5] * 10000",
            "zeros([100, 100])",
            "'x' * 4096",
        ],
    );
    let big = pick(seed, &["10**6", "10**7", "10**8", "10**9", "10**12", "10**18", "2**40"]);
    let dims = pick(seed, &["[2**28]", "[2**14, 2**14]", "[2**13, 2**14, 2]", "[2**28 + 1]", "[2**27]", "[2**20, 64]"]);
    let body = match lcg(seed) % 16 {
        0 => format!("xs = []\nwhile True:\n    i = len(xs)\n    xs.append({item})\n"),
        1 => format!("xs = [{item} for i in range({big})]\n"),
        2 => format!("xs = [[0] * 100 for i in range({big})]\n"),
        3 => format!("xs = [0] * {big}\n"),
        4 => format!("s = 'ab' * {big}\n"),
        5 => format!("t = (1, 2) * {big}\nprint(len([] * {big}), len(() * {big}), len('' * {big}))\n"),
        6 => format!("xs = []\nwhile True:\n    xs += [{item} for i in range(1000)]\n"),
        7 => "s = ''\nwhile True:\n    s += 'x' * 1000000\n".to_string(),
        8 => "d = {}\ni = 0\nwhile True:\n    d[i] = [i] * 100\n    i += 1\n".to_string(),
        9 => "st = set()\ni = 0\nwhile True:\n    st.add((i, str(i) * 50))\n    i += 1\n".to_string(),
        10 => format!("xs = list(range({big}))\n"),
        11 => format!("s = ','.join([str(i) * 1000 for i in range({big})])\n"),
        12 => format!("x = random_normal({dims})\nprint(x.shape)\n"),
        13 => format!("x = zeros({dims})\ny = x + 1.0\nz = y * y\nprint(z.shape)\n"),
        14 => "ts = []\nwhile True:\n    ts.append(ones([1000, 1000]) * 2.0)\n".to_string(),
        _ => format!("xs = [0]\nwhile True:\n    xs *= 2\n    ys = xs + [{item} for i in range(3)]\n"),
    };
    if lcg(seed) % 2 == 0 {
        let indented: String = body.lines().map(|l| format!("    {l}\n")).collect();
        format!(
            "try:\n{indented}except MemoryError as e:\n    print('caught', type(e).__name__)\n\
             xs = None\nafter = [i for i in range(1000)]\nprint('after', len(after))\n"
        )
    } else {
        body
    }
}

/// How an allocation-heavy program may end: it succeeded, or an uncaught MemoryError or
/// ValueError (a size past DGL's limits) ended it with status 1 and a report. An abort, a
/// panic or another error fails.
fn check_allocation_run(case: usize, src: &str, e: &Ended) {
    let ok = match e.code {
        Some(0) => true,
        Some(1) => e.stderr.starts_with("Error: MemoryError: ") || e.stderr.starts_with("Error: ValueError: "),
        _ => false,
    };
    assert!(ok, "case {case}: status {:?} after {:?}\n{src}\nstderr: {}", e.code, e.took, e.stderr);
    if e.stdout.contains("caught") {
        assert!(e.stdout.contains("after 1000"), "case {case}: the program did not go on\n{src}\n{}", e.stdout);
    }
}

/// A sample of generated allocation-heavy programs under a small address space: each ends
/// in a MemoryError, a ValueError or success, never an abort (issue 24, item 9). The limit
/// (1.5 GiB, of which the interpreter's stack reserves 1 GiB and the threads some more)
/// leaves DGL some tens of megabytes, so every program meets it quickly.
#[test]
fn allocation_heavy_programs_never_abort() {
    let mut seed = 24;
    for case in 0..24 {
        let src = allocation_program(&mut seed);
        let e =
            run_limited(&format!("alloc{case}"), src.as_bytes(), &[], 1_550_000, std::time::Duration::from_secs(60));
        check_allocation_run(case, &src, &e);
    }
}

/// Kernels' work copies of a tensor of the largest size (a float64 copy is twice a float32
/// tensor's bytes) ask the memory limit first: under `ulimit -v 4000000` each of these ended
/// in an abort ("memory allocation of 2147483648 bytes failed") before, and must end in a
/// MemoryError or ValueError (issue 24, item 9).
#[test]
fn kernel_work_copies_of_huge_tensors_are_checked() {
    let programs = [
        "x = zeros([2**28])\ny = sort(x)\n",
        "x = zeros([2**28])\ny = argsort(x)\n",
        "import linalg\nx = zeros([2**14, 2**14])\ny = linalg.det(x)\n",
        "x = zeros([2**26])\ny = x.numpy()\n",
        "x = zeros([2**14, 2**14])\ny = transpose(x)\nz = transpose(y + 1.0)\n",
    ];
    for (case, src) in programs.iter().enumerate() {
        let e =
            run_limited(&format!("copy{case}"), src.as_bytes(), &[], 4_000_000, std::time::Duration::from_secs(120));
        check_allocation_run(case, src, &e);
    }
}

/// The acceptance run of issue 24: 200 generated allocation-heavy programs under
/// `ulimit -v 4000000`, none aborting. Slow in a debug build; run it on a release build:
/// `DGL_BIN=target/release/dgl cargo test --test robustness -- --ignored two_hundred`.
#[test]
#[ignore]
fn two_hundred_allocation_heavy_programs_under_ulimit() {
    let mut seed = 4_000_000;
    let (mut memory_errors, mut value_errors) = (0, 0);
    for case in 0..200 {
        let src = allocation_program(&mut seed);
        let e = run_limited(&format!("big{case}"), src.as_bytes(), &[], 4_000_000, std::time::Duration::from_secs(300));
        check_allocation_run(case, &src, &e);
        memory_errors += (e.stderr.contains("MemoryError") || e.stdout.contains("caught MemoryError")) as usize;
        value_errors += e.stderr.contains("ValueError") as usize;
    }
    eprintln!("200 programs, none aborted: {memory_errors} met a MemoryError, {value_errors} a ValueError");
}

/// Building a string piece by piece takes time linear in its length (issue 24, item 9: the
/// generated `s += 'x' * 1000000` loops copied the whole string on every `+=`, half a
/// terabyte before the 1 GiB limit). 5,000 appends of 10 KB copied 125 GB that way; in
/// place they copy 50 MB a few times.
#[test]
fn appending_to_a_string_is_linear() {
    for (name, step) in [("+=", "s += piece"), ("= s +", "s = s + piece"), ("list +=", "xs += [piece]")] {
        let start = std::time::Instant::now();
        let src = format!(
            "s = ''\nxs = []\npiece = 'x' * 10000\nfor i in range(5000):\n    {step}\n\
             assert len(s) in (0, 50000000) and len(xs) in (0, 5000)\n"
        );
        let (code, err) = run(src);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(start.elapsed() < std::time::Duration::from_secs(10), "{name}: took {:?}", start.elapsed());
    }
}

/// Repetition of an empty sequence is immediate whatever the count (issue 24, item 10).
#[test]
fn repeating_empty_sequences_is_immediate() {
    let start = std::time::Instant::now();
    let (code, err) = run("assert len([] * 10**18) == 0\nassert len(() * 10**18) == 0\n\
         assert len('' * 10**18) == 0\nxs = []\nxs *= 10**18\nassert xs == []\n\
         assert len([] * 2**62) == 0\nassert len(10**18 * ()) == 0\n"
        .into());
    assert_eq!(code, 0, "{err}");
    assert!(start.elapsed() < std::time::Duration::from_secs(5), "took {:?}", start.elapsed());
}

/// A hostile text of about `n` bytes for the lexer, the layout pass or the parser's recovery.
fn hostile_text(kind: usize, n: usize) -> Vec<u8> {
    match kind {
        0 => vec![b'$'; n],
        1 => b"$ ".repeat(n / 2),
        2 => vec![b'('; n],
        3 => vec![b'['; n],
        4 => vec![b'"'; n + 1],
        5 => vec![b'\\'; n],
        6 => b"'''".repeat(n / 3 | 1),
        7 => vec![b')'; n],
        8 => format!("x = 1{}\n", "+".repeat(n)).into_bytes(),
        9 => format!("x = {}1\n", "1+".repeat(n / 2)).into_bytes(),
        10 => (0..n / 100).map(|i| format!("{}if x:\n", " ".repeat(i))).collect::<String>().into_bytes(),
        11 => "a ".repeat(n / 2).into_bytes(),
        12 => "a;".repeat(n / 2).into_bytes(),
        13 => vec![0u8; n],
        14 => vec![0xffu8; n],
        15 => b"$?!`\x01(".repeat(n / 6),
        16 => b"'a\n".repeat(n / 3),
        17 => b"x = $\n".repeat(n / 6),
        _ => b"def f(:\n".repeat(n / 8),
    }
}

/// Hostile texts (issue 24, item 10): `dgl check` on 20 KB of each ends quickly with a clear
/// report of bounded size (one error per character on one long line made a report, and a
/// run time, quadratic in the size: a minute for 20 KB of `$`).
#[test]
fn pathological_source_is_checked_quickly() {
    for kind in 0..19 {
        let src = hostile_text(kind, 20_000);
        let e = run_limited(&format!("lex{kind}"), &src, &["check"], 8_000_000, std::time::Duration::from_secs(60));
        let head: String = e.stderr.chars().take(400).collect();
        assert!(matches!(e.code, Some(0) | Some(2)), "kind {kind}: status {:?}\n{head}", e.code);
        if e.code == Some(2) {
            assert!(e.stderr.contains("Error"), "kind {kind}: {head}");
            assert!(e.stderr.len() < 4_000_000, "kind {kind}: a report of {} bytes", e.stderr.len());
        }
        assert!(e.took < std::time::Duration::from_secs(10), "kind {kind}: 20 KB took {:?}", e.took);
    }
}
