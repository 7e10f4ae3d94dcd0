//! The `dgl` binary: the command line of `cli.rs`.

fn main() {
    fix_mmap_threshold();
    std::process::exit(dgl::cli::main());
}

/// Large tensors (1 MiB and up) always get pages of their own from the kernel and give them
/// back when freed. glibc otherwise raises its mmap threshold each time such a block is freed,
/// after which big tensors come from the heap, fragment it and raise peak memory (B3: +14 to
/// +25 MiB at batch 2048 once the GEMM's work buffers came and went; 20 MiB below the old
/// figures with the threshold fixed).
fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}
