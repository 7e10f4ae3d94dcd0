//! Performance figures, printed and never asserted (run `cargo bench`).
//!
//! - scalar ops recorded on a tape, through the interpreter and through the
//!   op API directly (the target: under 0.25 µs per recorded op);
//! - one epoch of the digits MLP with recompute-checkpointed blocks;
//! - kernels alone (no tape, no interpreter): GEMM at the B2 digits MLP's
//!   sizes and at 1024², elementwise same-shape and bias-row broadcast, the
//!   float32 transcendentals, and sums by axis, at B2-like and 1M-element sizes.

use dgl::autodiff::Host;
use dgl::runtime::Interp;
use dgl::tensor::kernels::{self, Binary, Reduce, Unary};
use dgl::tensor::{Array, DType, Tensor};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

fn interp() -> Interp {
    Interp::new(Rc::new(RefCell::new(std::io::sink())))
}

/// Runs DGL source with its folder set to `dir`; returns the seconds taken.
fn time_script(src: &str, dir: &std::path::Path) -> f64 {
    let src = src.to_string();
    let dir = dir.to_path_buf();
    dgl::with_big_stack(move || {
        let mut rt = interp();
        let start = Instant::now();
        let r = dgl::run_program(&mut rt, "bench.dgl", Some(&dir.join("bench.dgl")), &src, vec![]);
        assert_eq!(r.code, 0, "benchmark script failed: {}", r.stderr);
        start.elapsed().as_secs_f64()
    })
}

fn scalar_loop_in_dgl(n: usize) {
    let with_tape = format!(
        "x = constant(1.0)\nwith GradientTape() as t:\n    t.watch(x)\n    y = x\n    for i in range({n}):\n        y = y * 1.0000001\nt.gradient(y, x)\n"
    );
    let empty_loop = format!("y = 1.0\nfor i in range({n}):\n    y = y * 1.0000001\n");
    let dir = std::env::temp_dir();
    let taped = time_script(&with_tape, &dir);
    let baseline = time_script(&empty_loop, &dir);
    println!(
        "scalar op loop in DGL: {:.3} µs per iteration (record + backward), of which {:.3} µs is the loop with float arithmetic",
        taped / n as f64 * 1e6,
        baseline / n as f64 * 1e6
    );
}

fn scalar_ops_direct(n: usize) {
    let mut rt = interp();
    let x = Tensor::new(Array::scalar(DType::F32, 1.0));
    let k = Tensor::new(Array::scalar(DType::F32, 1.0000001));
    let tape = Rc::new(RefCell::new(dgl::autodiff::Tape::new(false, true)));
    tape.borrow_mut().watch(x.id);
    rt.recorder().enter(&tape).unwrap();
    let start = Instant::now();
    let mut y = x.clone();
    for _ in 0..n {
        y = rt.recorder().binary(Binary::Mul, &y, &k).unwrap();
    }
    let forward = start.elapsed().as_secs_f64();
    rt.recorder().exit(&tape);
    let start = Instant::now();
    rt.gradient(&tape, &[y], &[x.id], None).unwrap();
    let backward = start.elapsed().as_secs_f64();
    println!(
        "scalar op through the op API: {:.3} µs per recorded op forward, {:.3} µs per op backward",
        forward / n as f64 * 1e6,
        backward / n as f64 * 1e6
    );
}

fn digits_epoch() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let script = std::fs::read_to_string(root.join("03_digits_mlp.dgl")).expect("examples/03_digits_mlp.dgl");
    // The example trains 20 epochs; time it with 1 epoch and with 21, and report the difference / 20.
    let one = script.replace("epochs = 20", "epochs = 1");
    let many = script.replace("epochs = 20", "epochs = 21");
    let t1 = time_script(&one, &root);
    let t21 = time_script(&many, &root);
    println!("digits MLP (1498 images, batch 100, recompute blocks): {:.1} ms per epoch; whole example with 20 epochs {:.2} s", (t21 - t1) / 20.0 * 1e3, t1 + (t21 - t1) * 19.0 / 20.0);
}

/// Median seconds of `reps` runs of `f` (after one warm-up run).
fn median_secs(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(|a, b| a.total_cmp(b));
    t[t.len() / 2]
}

/// A float32 array of `shape` with values in [-2, 2).
fn f32_array(shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    let values = (0..n).map(|i| ((i * 7919) % 4000) as f64 / 1000.0 - 2.0).collect();
    Array::from_f64(DType::F32, shape, values)
}

fn kernel_figures(reps: usize) {
    println!("kernels (median of {reps}):");
    // B2's forward and backward products: [128, 64]·[64, 256], [128, 256]·[256, 256],
    // [128, 256]·[256, 10], the weight gradients xᵀ·g and the input gradients g·Wᵀ; then 1024².
    for (n, k, m) in [
        (128, 64, 256),
        (128, 256, 256),
        (128, 256, 10),
        (64, 128, 256),
        (256, 128, 256),
        (256, 128, 10),
        (128, 10, 256),
        (1024, 1024, 1024),
    ] {
        let (a, b) = (f32_array(&[n, k]), f32_array(&[k, m]));
        let t = median_secs(reps, || drop(kernels::matmul(&a, &b).unwrap()));
        println!(
            "  matmul f32 {n}x{k} @ {k}x{m}: {:8.1} µs, {:6.1} GFLOP/s",
            t * 1e6,
            2.0 * (n * k * m) as f64 / t / 1e9
        );
    }
    for (m, n) in [(128, 256), (1000, 1000)] {
        let (a, b, row) = (f32_array(&[m, n]), f32_array(&[m, n]), f32_array(&[n]));
        let per = |t: f64| t / (m * n) as f64 * 1e9;
        let t = median_secs(reps, || drop(kernels::binary(Binary::Mul, &a, &b).unwrap()));
        println!("  mul f32 [{m}, {n}] * [{m}, {n}]: {:.3} ns/element", per(t));
        let t = median_secs(reps, || drop(kernels::binary(Binary::Add, &a, &row).unwrap()));
        println!("  add f32 [{m}, {n}] + [{n}] (bias row): {:.3} ns/element", per(t));
        let t = median_secs(reps, || drop(kernels::binary_owned(Binary::Add, a.clone(), &row).unwrap()));
        println!("  add f32 [{m}, {n}] + [{n}], owned (incl. a copy of a): {:.3} ns/element", per(t));
        for op in [Unary::Tanh, Unary::Exp, Unary::Sigmoid] {
            let t = median_secs(reps, || drop(kernels::unary(op, &a).unwrap()));
            println!("  {} f32 [{m}, {n}]: {:.3} ns/element", kernels::unary_name(op), per(t));
        }
        for axis in [0, 1] {
            let t = median_secs(reps, || drop(kernels::reduce(Reduce::Sum, &a, &[axis], false).unwrap()));
            println!("  reduce_sum f32 [{m}, {n}] axis {axis}: {:.3} ns/element", per(t));
        }
    }
}

/// One forward + backward step of conv2d at issue 9's size: [64, 8, 8, 16] * [3, 3, 16, 32], SAME,
/// gradients w.r.t. input and filters (im2col + GEMM, three GEMMs per step).
fn conv2d_step(reps: usize) {
    let script = |n: usize| {
        format!(
            "set_seed(1)\nx = random_normal([64, 8, 8, 16])\nw = Variable(random_normal([3, 3, 16, 32]) * 0.1)\n\
             for i in range({n}):\n    with GradientTape() as t:\n        t.watch(x)\n        y = conv2d(x, w, 1, 'SAME')\n\
             \x20       l = reduce_sum(y * y)\n    g = t.gradient(l, [x, w])\n"
        )
    };
    let dir = std::env::temp_dir();
    let once = time_script(&script(1), &dir);
    let many = time_script(&script(reps + 1), &dir);
    println!(
        "conv2d [64, 8, 8, 16] x [3, 3, 16, 32] SAME forward + backward: {:.3} ms per step",
        (many - once) / reps as f64 * 1e3
    );
}

fn main() {
    // `cargo test` runs benches in test mode with `--bench`-less args: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let n = if quick { 1_000 } else { 200_000 };
    scalar_loop_in_dgl(n);
    scalar_ops_direct(n);
    kernel_figures(if quick { 3 } else { 51 });
    conv2d_step(if quick { 2 } else { 200 });
    if !quick {
        digits_epoch();
    }
}
