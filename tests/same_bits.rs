//! docs/language.md "Same bits on every CPU": the committed outputs hold on every vector path
//! this binary contains and at one and two threads. `DGL_ISA` forces a narrower path than this
//! CPU's widest, so the paths of an AVX2-only machine (and the portable one) run here too; the
//! plain golden run (tests/golden.rs) covers the widest path at the default thread count.

use dgl::tensor::cpu::Isa;
use std::process::Command;

/// Runs `dgl test` on `dirs` with the path and thread count given, and fails with its report.
fn golden_on(isa: Isa, threads: usize, dirs: &[&str]) {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(env!("CARGO_BIN_EXE_dgl"))
        .arg("test")
        .args(dirs)
        .current_dir(root)
        .env("DGL_ISA", isa.name())
        .env("DGL_NUM_THREADS", threads.to_string())
        .output()
        .expect("dgl runs");
    assert!(
        out.status.success(),
        "golden cases differ on the {} path at {threads} thread(s):\n{}{}",
        isa.name(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The examples (digits MLP and CNN training, regression, Hessians) and the tensor and autodiff
/// cases, on each vector path at one and two threads.
#[test]
fn golden_outputs_hold_on_every_vector_path_and_thread_count() {
    for isa in Isa::available().into_iter().filter(|&i| i != Isa::Portable) {
        for threads in [1, 2] {
            golden_on(isa, threads, &["examples", "tests/tensor", "tests/autodiff"]);
        }
    }
}

/// The portable path (scalar fused multiply-adds, the reference the vector paths match) on the
/// tensor and autodiff cases; the examples' training runs are left to the vector paths, since
/// the portable path is far slower.
#[test]
fn golden_outputs_hold_on_the_portable_path() {
    golden_on(Isa::Portable, 2, &["tests/tensor", "tests/autodiff"]);
}
