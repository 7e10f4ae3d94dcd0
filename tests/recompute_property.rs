//! Property test (issue 7, class 2; docs/language.md §5): a program whose blocks
//! are wrapped in `recompute_grad` has the same first and second derivatives
//! as the same program without it — with respect to its inputs, to watched
//! tensors the blocks capture from the enclosing scope, and to Variables the
//! blocks read, including a Variable passed to a block that also reads it.
//!
//! Programs are generated from a seed, run twice in-process (blocks plain and
//! blocks recomputed), and the printed gradients compared number by number.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// An expression of shape [3] (or a scalar broadcast to it) over `vars`.
fn expr(rng: &mut ChaCha8Rng, vars: &[&str], depth: u32) -> String {
    if depth == 0 || rng.random_bool(0.25) {
        return vars[rng.random_range(0..vars.len())].to_string();
    }
    let a = expr(rng, vars, depth - 1);
    match rng.random_range(0..10) {
        0 => format!("sin({a})"),
        1 => format!("tanh({a})"),
        2 => format!("sigmoid({a})"),
        3 => format!("softplus({a})"),
        4 => format!("square({a}) * 0.5"),
        5 => format!("exp({a} * 0.3)"),
        6 => format!("({a} + {})", expr(rng, vars, depth - 1)),
        7 => format!("({a} * {})", expr(rng, vars, depth - 1)),
        8 => format!("({a} - {})", expr(rng, vars, depth - 1)),
        _ => format!("(reduce_sum({a}) * {})", expr(rng, vars, depth - 1)),
    }
}

/// A program with two blocks (the second may call the first) and nested tapes;
/// `wrap` is `recompute_grad` or the plain identity decorator.
fn program(seed: u64, wrap: &str) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let b0 = expr(&mut rng, &["h", "w", "c", "h"], 3);
    let b1_vars: &[&str] = &["h", "k", "B0(h)", "B0(k)", "w"];
    let b1 = expr(&mut rng, b1_vars, 3);
    let top_vars: &[&str] = &["B0(x)", "B1(x, c)", "B1(B0(x), w)", "B0(w)", "x", "c"];
    let top = expr(&mut rng, top_vars, 3);
    format!(
        "def plain(f):\n    return f\n\
         x = constant([0.3, -0.7, 1.1], dtype=float64)\n\
         c = constant(0.4, dtype=float64)\n\
         w = Variable(constant(1.3, dtype=float64))\n\
         def b0(h):\n    return {b0}\n\
         def b1(h, k):\n    return {b1}\n\
         B0 = {wrap}(b0)\n\
         B1 = {wrap}(b1)\n\
         with GradientTape(persistent=True) as outer:\n\
         \x20   outer.watch([x, c])\n\
         \x20   with GradientTape(persistent=True) as inner:\n\
         \x20       inner.watch([x, c])\n\
         \x20       y = reduce_sum({top})\n\
         \x20   g = inner.gradient(y, [x, c, w], unconnected_gradients='zero')\n\
         \x20   s = reduce_sum(g[0] * g[0]) + g[1] * g[1] + g[2] * g[2]\n\
         print(y)\n\
         print(g)\n\
         print(outer.gradient(s, [x, c, w], unconnected_gradients='zero'))\n"
    )
}

fn run(src: &str) -> String {
    let r = dgl::testing::run_text(src);
    assert_eq!(r.code, 0, "program failed:\n{src}\n{}", r.stderr);
    r.stdout
}

/// The numbers in a printout, and the text with each number replaced by `#`.
fn numbers(s: &str) -> (Vec<f64>, String) {
    let mut nums = Vec::new();
    let mut shape = String::new();
    let mut cur = String::new();
    for ch in s.chars().chain(std::iter::once(' ')) {
        let numeric =
            ch.is_ascii_digit() || ch == '.' || ch == 'e' || (ch == '-' && (cur.is_empty() || cur.ends_with('e')));
        if numeric && !(ch == 'e' && cur.is_empty()) {
            cur.push(ch);
        } else {
            if !cur.is_empty() {
                nums.push(cur.parse::<f64>().unwrap_or_else(|_| panic!("not a number: {cur:?} in {s}")));
                shape.push('#');
                cur.clear();
            }
            shape.push(ch);
        }
    }
    (nums, shape)
}

#[test]
fn recomputed_blocks_have_the_plain_blocks_first_and_second_derivatives() {
    let cases = 1500;
    for seed in 0..cases {
        let plain = run(&program(seed, "plain"));
        let recomputed = run(&program(seed, "recompute_grad"));
        let (a, shape_a) = numbers(&plain);
        let (b, shape_b) = numbers(&recomputed);
        assert_eq!(
            shape_a,
            shape_b,
            "seed {seed}:\n{}\nplain:\n{plain}\nrecomputed:\n{recomputed}",
            program(seed, "X")
        );
        for (p, r) in a.iter().zip(&b) {
            let scale = p.abs().max(1.0);
            assert!(
                (p - r).abs() <= 1e-9 * scale,
                "seed {seed}: {p} vs {r}\n{}\nplain:\n{plain}\nrecomputed:\n{recomputed}",
                program(seed, "X")
            );
        }
    }
}
