//! The segment reductions and tf.math's other reductions (stdlib/_segments.dgl) given random
//! arguments — wrong dtypes and shapes, empty tensors, NaN, negative and huge ids and counts —
//! end in a result or a clear error, never a panic or an internal error (docs/language.md §7).

/// Runs `src` as a script ([`dgl::testing::run_text`]); returns (exit code, stderr).
fn run(src: &str) -> (i32, String) {
    let out = dgl::testing::run_text(src);
    (out.code, out.stderr)
}

fn lcg(seed: &mut u64) -> usize {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*seed >> 33) as usize
}

const FUNCTIONS: &[(&str, usize)] = &[
    ("segment_sum", 2),
    ("segment_mean", 2),
    ("segment_max", 2),
    ("segment_min", 2),
    ("segment_prod", 2),
    ("unsorted_segment_sum", 3),
    ("unsorted_segment_mean", 3),
    ("unsorted_segment_max", 3),
    ("unsorted_segment_min", 3),
    ("unsorted_segment_prod", 3),
    ("unsorted_segment_sqrt_n", 3),
    ("bincount", 1),
    ("confusion_matrix", 2),
    ("cumulative_logsumexp", 1),
    ("in_top_k", 3),
    ("invert_permutation", 1),
    ("is_non_decreasing", 1),
    ("is_strictly_increasing", 1),
    ("accumulate_n", 1),
    ("polyval", 2),
    ("approx_max_k", 2),
    ("approx_min_k", 2),
    ("sobol_sample", 2),
];

const ARGUMENTS: &[&str] = &[
    "constant([1.0, 2.0, 3.0])",
    "constant([[1.0, float('nan')], [3.0, 4.0]])",
    "constant([], dtype=int64)",
    "zeros([0, 3])",
    "constant([0, 0, 1], dtype=int64)",
    "constant([2, -1, 0], dtype=int32)",
    "constant([True, False], dtype=bool)",
    "[0, 1, 1]",
    "[[0, 1], [1, 0]]",
    "[]",
    "[-5, 3]",
    "[2 ** 40]",
    "2 ** 62",
    "-7",
    "0",
    "3",
    "2.5",
    "None",
    "'x'",
    "constant(1.0)",
    "[constant([1.0]), constant([2.0, 3.0])]",
    "constant([[0.1, 0.9], [0.5, 0.5]])",
];

#[test]
fn random_arguments_end_in_a_result_or_a_clear_error() {
    let mut seed = 11;
    for case in 0..400 {
        let (name, arity) = FUNCTIONS[lcg(&mut seed) % FUNCTIONS.len()];
        let args: Vec<&str> = (0..arity).map(|_| ARGUMENTS[lcg(&mut seed) % ARGUMENTS.len()]).collect();
        let src = format!("print({name}({}))\n", args.join(", "));
        let (code, err) = run(&src);
        assert!(
            code == 0 || (err.starts_with("Error: ") && !err.contains("internal error")),
            "case {case}: {src:?} gave {code} and {err}"
        );
    }
}
