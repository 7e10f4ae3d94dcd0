//! NumPy item assignment (`a[index] = v`) and `np.random`'s functions given random indices,
//! values and arguments — wrong shapes, dtypes, out-of-range ints, empty arrays, NaN, huge
//! sizes — end in a result or a clear error, never a panic or an internal error
//! (docs/language.md §7 and "NumPy arrays").

/// Runs `src` as a script ([`dgl::testing::run_text`]); returns (exit code, stderr).
fn run(src: &str) -> (i32, String) {
    let out = dgl::testing::run_text(src);
    (out.code, out.stderr)
}

fn lcg(seed: &mut u64) -> usize {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*seed >> 33) as usize
}

const ARRAYS: &[&str] = &[
    "np.zeros((2, 3))",
    "np.arange(6)",
    "np.arange(24).reshape(2, 3, 4)",
    "np.zeros(0)",
    "np.zeros((0, 2))",
    "np.array([True, False, True])",
    "np.ones(4, dtype=np.float32)",
    "np.zeros(3, dtype=np.uint8)",
    "np.zeros(2, dtype=np.int32)",
    "np.float64(1.0)",
];

const INDICES: &[&str] = &[
    "0", "-1", "5", "-7", "(0, 1)", "(1, -1, 0)", "slice(None)", "...", "None", "(..., 0)", "(None, 0)",
    "[0, 2]", "[]", "[True, False, True]", "np.array([0, 0])", "np.array([5])", "np.array([True, False])",
    "np.array([[0, 1]])", "2.5", "'x'", "(0, [0, 1])", "(slice(0, 2), 1)", "np.int64(1)", "True",
];

const VALUES: &[&str] = &[
    "0", "2.7", "-2.7", "float('nan')", "float('inf')", "2 ** 62", "-300", "True", "None", "'3'", "'x'",
    "[1, 2]", "[1, 2, 3]", "[[1], [2]]", "[]", "np.arange(4)", "np.ones((3, 1))", "np.zeros((1, 1, 1, 1))",
    "np.array([True])", "constant([1.0, 2.0])",
];

#[test]
fn random_item_assignments_end_in_a_result_or_a_clear_error() {
    let mut seed = 5;
    for case in 0..600 {
        let a = ARRAYS[lcg(&mut seed) % ARRAYS.len()];
        let i = INDICES[lcg(&mut seed) % INDICES.len()];
        let v = VALUES[lcg(&mut seed) % VALUES.len()];
        let aug = if lcg(&mut seed) % 4 == 0 { "+" } else { "" };
        let src = format!("import numpy as np\na = {a}\na[{i}] {aug}= {v}\nprint(a)\n");
        let (code, err) = run(&src);
        assert!(
            code == 0 || (err.starts_with("Error: ") && !err.contains("internal error")),
            "case {case}: {src:?} gave {code} and {err}"
        );
    }
}

const CALLS: &[&str] = &[
    "np.random.rand({s})",
    "np.random.randn({s})",
    "np.random.random({s})",
    "np.random.uniform({x}, {x}, {s})",
    "np.random.normal({x}, {x}, {s})",
    "np.random.randint({x}, {x}, {s})",
    "np.random.choice({x}, {s})",
    "np.random.choice({x}, {s}, replace=False)",
    "np.random.choice({x}, {s}, p={x})",
    "np.random.permutation({x})",
    "np.random.shuffle({x})",
    "np.random.seed({x})",
    "np.random.default_rng({x}).integers({x}, {x}, {s})",
    "np.random.default_rng({x}).normal({x}, {x}, {s})",
    "np.random.default_rng(0).choice({x}, {s}, replace=False)",
    "np.random.default_rng(0).choice({x}, {s}, False, {x})",
    "np.random.RandomState({x}).rand({s})",
    "np.random.binomial({x}, {x}, {s})",
    "np.random.default_rng(1).binomial({x}, {x}, {s})",
];

const ARGS: &[&str] = &[
    "0", "1", "3", "-1", "2 ** 40", "2 ** 62", "2.5", "float('nan')", "float('inf')", "None", "'x'", "[]",
    "[0.5, 0.5]", "[1, 2, 3]", "[-1, 2]", "np.arange(4)", "np.zeros((2, 2))", "np.array([0.2, 0.8])",
    "(2, 3)", "(0,)", "(-1, 2)", "(2 ** 40, 2 ** 40)", "np.float64(1.0)",
];

#[test]
fn random_np_random_calls_end_in_a_result_or_a_clear_error() {
    let mut seed = 9;
    for case in 0..500 {
        let call = CALLS[lcg(&mut seed) % CALLS.len()];
        let mut src = call.to_string();
        while let Some(k) = src.find("{x}").or_else(|| src.find("{s}")) {
            let arg = ARGS[lcg(&mut seed) % ARGS.len()];
            src.replace_range(k..k + 3, arg);
        }
        let src = format!("import numpy as np\nprint({src})\n");
        let (code, err) = run(&src);
        assert!(
            code == 0 || (err.starts_with("Error: ") && !err.contains("internal error")),
            "case {case}: {src:?} gave {code} and {err}"
        );
    }
}
