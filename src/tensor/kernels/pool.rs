//! The one rayon thread pool (`DGL_NUM_THREADS`, default every core) that large
//! elementwise kernels, pairwise sums and GEMM share, and the chunked loops over it:
//! each splits its work so that results are identical to one thread's.

/// Elements from which an elementwise kernel or a reduction splits its work over the
/// thread pool (2^18: 1 MiB of float32; below it, waking a thread costs more than it saves).
pub const PARALLEL_ELEMENTS: usize = 1 << 18;

/// Whether `n` elements of work are worth the thread pool (and the pool has more than one thread).
pub fn parallel_for(n: usize) -> bool {
    n >= PARALLEL_ELEMENTS && pool_threads() > 1
}

/// The thread count of the one rayon pool, set once from [`num_threads`] (`DGL_NUM_THREADS`).
pub fn pool_threads() -> usize {
    static READY: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *READY.get_or_init(|| {
        let n = num_threads();
        // A pool already built (by an embedding program) is used as it is.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n).build_global();
        rayon::current_num_threads().min(n)
    })
}

/// The chunk of a slice of `n` elements that one task of the thread pool takes: a few per thread,
/// so an unevenly loaded core does not hold the others up.
pub fn par_chunk_len(n: usize) -> usize {
    n.div_ceil(pool_threads() * 4).max(4096)
}

/// `out[i] = f(xs[i], ys[i])` in chunks over the thread pool; the same pairs and the same
/// results as the sequential loop, whatever the number of threads.
pub(super) fn par_zip<T: Copy + Send + Sync + Default>(xs: &[T], ys: &[T], f: impl Fn(T, T) -> T + Sync) -> Vec<T> {
    use rayon::prelude::*;
    let mut out = vec![T::default(); xs.len()];
    let chunk = par_chunk_len(xs.len());
    out.par_chunks_mut(chunk).zip(xs.par_chunks(chunk)).zip(ys.par_chunks(chunk)).for_each(|((o, x), y)| {
        for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
            *o = f(x, y);
        }
    });
    out
}

/// `out[i] = f(xs[i])` in chunks over the thread pool (a scalar operand is captured by `f`).
pub(super) fn par_map<T: Copy + Send + Sync + Default>(xs: &[T], f: impl Fn(T) -> T + Sync) -> Vec<T> {
    use rayon::prelude::*;
    let mut out = vec![T::default(); xs.len()];
    let chunk = par_chunk_len(xs.len());
    out.par_chunks_mut(chunk).zip(xs.par_chunks(chunk)).for_each(|(o, x)| {
        for (o, &x) in o.iter_mut().zip(x) {
            *o = f(x);
        }
    });
    out
}

/// Threads for large kernels: `DGL_NUM_THREADS` when set to a positive number, else every core.
pub fn num_threads() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("DGL_NUM_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}
