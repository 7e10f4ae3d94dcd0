//! Neural-network functions: softmax and log-softmax along an axis, one_hot.

use super::reduce::{reduce_float, sum_f64, Accumulate};
use super::Reduce;
use crate::tensor::array::{Array, DType};
use crate::tensor::error::{tensor_bail, TensorResult as R};
use ndarray::{ArrayD, IxDyn, Zip};

/// softmax along `axis`, computed stably (max subtracted); the denominator is
/// summed by the one reduction kernel, in float64.
pub fn softmax(a: &Array, axis: usize, log: bool) -> R<Array> {
    fn go<T: Accumulate>(x: &ArrayD<T>, axis: usize, log: bool) -> ArrayD<T> {
        let m = reduce_float(Reduce::Max, x, &[axis], true).mapv(|v| if v.is_finite() { v } else { T::zero() });
        let mb = m.broadcast(x.raw_dim()).expect("keepdims shape broadcasts");
        let e = Zip::from(x).and(&mb).map_collect(|&v, &m| (v - m).exp());
        let s = ArrayD::from_shape_vec(m.raw_dim(), sum_f64(&e, &[axis])).expect("one sum per lane");
        let sb = s.broadcast(x.raw_dim()).expect("keepdims shape broadcasts");
        if log {
            Zip::from(x).and(&mb).and(&sb).map_collect(|&v, &m, &s| v - m - T::narrow(s.ln()))
        } else {
            // e is ours alone: the probabilities overwrite it.
            let mut e = e;
            Zip::from(&mut e).and(&sb).for_each(|v, &s| *v = T::narrow(v.widen() / s));
            e
        }
    }
    Ok(match a {
        Array::F32(x) => Array::F32(go(x, axis, log)),
        Array::F64(x) => Array::F64(go(x, axis, log)),
        // float16 computes in float32 and rounds back, as every float16 kernel (docs/language.md §4).
        Array::F16(_) => softmax(&a.widened(), axis, log)?.narrowed_to(a.dtype()),
        _ => tensor_bail!(Type, "softmax needs a float tensor, got {}", a.dtype()),
    })
}

/// One-hot rows: indices [...] → [..., depth] float32; out-of-range indices give a zero row (as TF).
pub fn one_hot(indices: &ArrayD<i64>, depth: usize, dtype: DType) -> Array {
    let mut shape = indices.shape().to_vec();
    shape.push(depth);
    let mut out = ArrayD::<f64>::zeros(IxDyn(&shape));
    for (i, &k) in indices.iter().enumerate() {
        if k >= 0 && (k as usize) < depth {
            out.as_slice_mut().unwrap()[i * depth + k as usize] = 1.0;
        }
    }
    Array::F64(out).cast(dtype)
}
