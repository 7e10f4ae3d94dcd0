//! Property test (issue 10, item 3): a non-persistent tape frees each entry's saved
//! tensors once its backward step has run, and `peak_backward_bytes` measures the pass.
//! Random chains of blocks (elementwise functions, products with a Variable, matmuls,
//! some blocks wrapped in `recompute_grad`, some inside a second-order tape) must give
//! the same gradients whether the tape releases as it goes (non-persistent) or keeps
//! everything (persistent), and the measured peaks must obey what holds by construction:
//! the peak is at least what the tape saved before `gradient` and at least the gradients
//! it returns (a persistent tape's, at least both together); releasing never raises it; a
//! used non-persistent tape holds nothing.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One block `h -> …` of the chain, as DGL statements on `h` (indented for a def body).
fn block(rng: &mut ChaCha8Rng) -> String {
    let mut body = String::new();
    for _ in 0..rng.random_range(1..4) {
        let line = match rng.random_range(0..7) {
            0 => "h = tanh(h)",
            1 => "h = sin(h) * w",
            2 => "h = h @ m * 0.5",
            3 => "h = h * h * 0.25 + h",
            4 => "h = exp(h * 0.1) - w",
            5 => "h = sigmoid(h) + reduce_mean(h, axis=0)",
            _ => "h = relu(h) + 0.1 * h",
        };
        body.push_str(&format!("    {line}\n"));
    }
    body
}

/// A program that checks the properties itself and prints `ok` or what failed.
fn program(rng: &mut ChaCha8Rng, seed: u64) -> String {
    let (rows, cols) = (rng.random_range(1..6), rng.random_range(1..6));
    let n_blocks = rng.random_range(1..6);
    let mut p = format!(
        "set_seed({seed})\nx = random_normal([{rows}, {cols}])\nw = Variable(random_normal([{cols}]))\n\
         m = random_normal([{cols}, {cols}])\nblocks = []\n"
    );
    for i in 0..n_blocks {
        p.push_str(&format!("def block{i}(h):\n{}    return h\n", block(rng)));
        let wrap = rng.random_bool(0.5);
        p.push_str(&format!(
            "blocks.append({})\n",
            if wrap { format!("recompute_grad(block{i})") } else { format!("block{i}") }
        ));
    }
    let second_order = rng.random_bool(0.3);
    p.push_str(
        r#"
def chain(h):
    for f in blocks:
        h = f(h)
    return reduce_sum(h * h)

def nbytes(ts):
    return sum([len(reshape(t, [-1])) * 4 for t in ts if t is not None])

def run(persistent):
    with GradientTape(persistent=persistent) as tape:
        tape.watch(x)
        y = chain(x)
        before = tape.stats()["saved_bytes"]
    g = tape.gradient(y, [x, w])
    st = tape.stats()
    return g, before, st["peak_backward_bytes"], st["saved_bytes"]

def second(persistent):
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            y = chain(x)
        gx = tape.gradient(y, x)
        z = reduce_sum(gx * gx)
    return outer.gradient(z, [x, w])

problems = []
g1, before1, peak1, after1 = run(False)
g2, before2, peak2, after2 = run(True)
for a, b in zip(g1, g2):
    if (a is None) != (b is None) or (a is not None and reduce_max(abs(a - b)).item() > 1e-5 * (1.0 + reduce_max(abs(b)).item())):
        problems.append("gradients differ with and without release")
if before1 != before2:
    problems.append(f"saved bytes differ: {before1} vs {before2}")
if peak1 < before1 or peak2 < before2:
    problems.append(f"peak below saved bytes: {peak1} < {before1} or {peak2} < {before2}")
if peak1 < nbytes(g1):
    problems.append(f"peak {peak1} below the returned gradients' {nbytes(g1)}")
# A persistent tape holds all it saved to the end, when the answers are alive too.
if peak2 < before2 + nbytes(g2):
    problems.append(f"persistent peak {peak2} below saved {before2} + gradients {nbytes(g2)}")
if peak1 > peak2:
    problems.append(f"releasing raised the peak: {peak1} > {peak2}")
if after1 != 0 or after2 != before2:
    problems.append(f"after gradient: non-persistent holds {after1}, persistent {after2} of {before2}")
"#,
    );
    if second_order {
        p.push_str(
            r#"
for a, b in zip(second(False), second(True)):
    if (a is None) != (b is None) or (a is not None and reduce_max(abs(a - b)).item() > 1e-4 * (1.0 + reduce_max(abs(b)).item())):
        problems.append("second-order gradients differ with and without release")
"#,
        );
    }
    p.push_str("print('ok' if not problems else problems)\n");
    p
}

#[test]
fn releasing_saved_tensors_changes_no_gradient_and_the_peak_obeys_its_bounds() {
    let seed: u64 = std::env::var("DGL_PROPTEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for case in 0..60 {
        let p = program(&mut rng, case);
        let out = dgl::testing::run_text(&p);
        assert_eq!(
            out.stdout.trim(),
            "ok",
            "seed {seed}, case {case}:\n{p}\n--- output:\n{}\n{}",
            out.stdout,
            out.stderr
        );
    }
}
