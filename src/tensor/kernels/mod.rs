//! Numeric kernels over [`Array`](super::Array): elementwise with broadcasting, reductions,
//! linear algebra, shape ops and neural-network functions. Pure functions of
//! their inputs: no tape, no ids.
//!
//! One file per family: pool.rs (the one rayon thread pool and its chunked loops),
//! binary.rs (binary ops and comparisons under broadcasting), unary.rs (functions of
//! one tensor), reduce.rs (the one reduction kernel: sum, mean, max, min, argmax),
//! matmul.rs (matrix products through gemm.rs), shape.rs (reshape, transpose,
//! broadcast_to, concat, tile, stack), nn.rs (softmax, one_hot). Every kernel is
//! re-exported here: callers name `kernels::binary`, `kernels::Reduce`, … whatever
//! file holds it.

mod binary;
mod matmul;
mod nn;
mod pool;
mod reduce;
mod shape;
mod unary;

#[cfg(test)]
mod tests;

pub(in crate::tensor) use binary::zip_bcast;
pub use binary::{binary, binary_name, binary_owned, binary_rc, compare, Binary, Compare};
pub use matmul::{matmul, matmul_2d_transposed};
pub use nn::{one_hot, softmax};
pub use pool::{num_threads, par_chunk_len, parallel_for, pool_threads, PARALLEL_ELEMENTS};
pub(crate) use reduce::{arg_extreme, fold_axes};
pub use reduce::{argmax, pairwise_sum, reduce, sum_f64, Accumulate, Reduce};
pub use shape::{broadcast_to, concat, reshape, stack, tile, transpose};
pub use unary::{unary, unary_name, unary_owned, Unary};
