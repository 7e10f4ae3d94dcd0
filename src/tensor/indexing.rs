//! Index-valued kernels: coordinates of selected elements.

use super::array::Array;
use ndarray::{ArrayD, IxDyn};

/// The coordinates of the true (non-zero) elements of `a`, row-major, as an int64
/// [count, rank] array: one-argument `where`. NaN counts as non-zero, as in TF.
pub fn true_coordinates(a: &Array) -> Array {
    let hits: Vec<bool> = match &*a.widened() {
        Array::Bool(x) => x.iter().copied().collect(),
        Array::F32(x) => x.iter().map(|&v| v != 0.0).collect(),
        Array::F64(x) => x.iter().map(|&v| v != 0.0).collect(),
        Array::I64(x) => x.iter().map(|&v| v != 0).collect(),
        narrow => unreachable!("{} widens to a wide dtype", narrow.dtype()),
    };
    let shape = a.shape();
    let rank = shape.len();
    let mut out = Vec::new();
    let mut count = 0usize;
    for (flat, _) in hits.iter().enumerate().filter(|(_, &h)| h) {
        // Row-major unravel of `flat`.
        let start = out.len();
        let mut rem = flat;
        out.resize(start + rank, 0i64);
        for d in (0..rank).rev() {
            out[start + d] = (rem % shape[d]) as i64;
            rem /= shape[d];
        }
        count += 1;
    }
    Array::I64(ArrayD::from_shape_vec(IxDyn(&[count, rank]), out).expect("rank entries per hit"))
}
