//! Segment reductions and the other kernels of TF's `tf.math` reductions that DGL's standard
//! library builds on (stdlib/_segments.dgl; docs/language.md "TensorFlow"): the reduction of
//! the rows of `data` into `num_segments` segments by segment id, the check of sorted segment
//! ids, a permutation's inverse and the running log-sum-exp along an axis. The kernels know
//! nothing of tapes: the library gives each its gradient.

use super::array::{Array, DType};
use super::budget;
use super::error::{tensor_bail, TensorResult as R};
use super::shape_str;
use ndarray::{ArrayD, Axis, IxDyn};

/// How the rows of a segment are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentOp {
    /// The sum; an empty segment is 0.
    Sum,
    /// The product; an empty segment is 1.
    Prod,
    /// The largest element; an empty segment is the dtype's lowest value (TF's fill).
    Max,
    /// The smallest element; an empty segment is the dtype's highest value.
    Min,
    /// The sum over the count (int dtypes: truncated toward 0, as C's division); an empty
    /// segment is 0.
    Mean,
}

impl SegmentOp {
    /// The op of a name (`"sum"`, `"prod"`, `"max"`, `"min"`, `"mean"`).
    pub fn from_name(name: &str) -> Option<SegmentOp> {
        Some(match name {
            "sum" => SegmentOp::Sum,
            "prod" => SegmentOp::Prod,
            "max" => SegmentOp::Max,
            "min" => SegmentOp::Min,
            "mean" => SegmentOp::Mean,
            _ => return None,
        })
    }
}

/// The lowest and highest finite values of a float dtype, as f64.
fn float_bounds(dtype: DType) -> (f64, f64) {
    let top = match dtype {
        DType::F16 => 65504.0,
        DType::F32 => f32::MAX as f64,
        _ => f64::MAX,
    };
    (-top, top)
}

/// Combines row `r` of `vals` (rows of `inner` elements) into segment `ids[r]` of the result;
/// a negative id drops its row (TF's unsorted segment ops drop them). The caller has checked
/// every id is below `n`.
fn accumulate<T: Copy>(vals: &[T], ids: &[i64], inner: usize, n: usize, init: T, f: impl Fn(T, T) -> T) -> Vec<T> {
    let mut out = vec![init; n * inner];
    for (r, &id) in ids.iter().enumerate() {
        if id < 0 {
            continue;
        }
        let o = id as usize * inner;
        for (d, &s) in out[o..o + inner].iter_mut().zip(&vals[r * inner..(r + 1) * inner]) {
            *d = f(*d, s);
        }
    }
    out
}

/// How many rows fall in each segment.
fn counts(ids: &[i64], n: usize) -> Vec<u64> {
    let mut c = vec![0u64; n];
    for &id in ids {
        if id >= 0 {
            c[id as usize] += 1;
        }
    }
    c
}

/// `data`'s rows (its first `ids.len()` elements' worth of leading axes, `lead` axes) reduced
/// into `n` segments by `op`: the result has shape `[n] + data.shape[lead:]` and data's dtype.
/// Floats accumulate in float64 and round once; ints accumulate in int64 and wrap to their
/// width, as TF's integer kernels do.
///
/// Errors: TypeError for bool data; ValueError (or MemoryError) for a result over the budget.
pub fn segment_reduce(data: &Array, ids: &[i64], lead: usize, n: usize, op: SegmentOp) -> R<Array> {
    let dtype = data.dtype();
    if dtype == DType::Bool {
        tensor_bail!(Type, "segment reductions take numbers, not bool");
    }
    let tail = &data.shape()[lead..];
    let inner: usize = tail.iter().product();
    let mut shape = vec![n];
    shape.extend_from_slice(tail);
    budget::check_shape(&shape)?;
    budget::check_elements(n.saturating_mul(inner), 8)?;
    if dtype.is_float() {
        let vals = data.to_f64_vec();
        let (lo, hi) = float_bounds(dtype);
        let out = match op {
            SegmentOp::Sum => accumulate(&vals, ids, inner, n, 0.0, |a, b| a + b),
            SegmentOp::Prod => accumulate(&vals, ids, inner, n, 1.0, |a, b| a * b),
            // NaN wins, as in a NaN-propagating max.
            SegmentOp::Max => accumulate(&vals, ids, inner, n, lo, |a, b| if b > a || b.is_nan() { b } else { a }),
            SegmentOp::Min => accumulate(&vals, ids, inner, n, hi, |a, b| if b < a || b.is_nan() { b } else { a }),
            SegmentOp::Mean => {
                let mut s = accumulate(&vals, ids, inner, n, 0.0, |a, b| a + b);
                for (seg, c) in counts(ids, n).into_iter().enumerate() {
                    for v in &mut s[seg * inner..(seg + 1) * inner] {
                        *v /= c.max(1) as f64;
                    }
                }
                s
            }
        };
        return Ok(Array::from_f64(dtype, &shape, out));
    }
    let vals = data.to_i64_vec()?;
    let (lo, hi) = dtype.int_range().unwrap_or((i64::MIN, i64::MAX));
    let out = match op {
        SegmentOp::Sum => accumulate(&vals, ids, inner, n, 0, i64::wrapping_add),
        SegmentOp::Prod => accumulate(&vals, ids, inner, n, 1, i64::wrapping_mul),
        SegmentOp::Max => accumulate(&vals, ids, inner, n, lo, i64::max),
        SegmentOp::Min => accumulate(&vals, ids, inner, n, hi, i64::min),
        SegmentOp::Mean => {
            let mut s = accumulate(&vals, ids, inner, n, 0, i64::wrapping_add);
            for (seg, c) in counts(ids, n).into_iter().enumerate() {
                for v in &mut s[seg * inner..(seg + 1) * inner] {
                    // Rust's `/` truncates toward 0, as TF's integer mean does.
                    *v = if c == 0 { 0 } else { v.wrapping_div(c as i64) };
                }
            }
            s
        }
    };
    let wide = ArrayD::from_shape_vec(IxDyn(&shape), out).expect("the shape holds n * inner elements");
    Ok(Array::I64(wide).narrowed_to(dtype))
}

/// The number of segments sorted segment ids name (the last id plus one; 0 for none), after
/// checking they are non-negative and non-decreasing, as TF's sorted segment ops require.
///
/// Errors: ValueError naming the first id out of order or negative.
pub fn sorted_segment_count(ids: &[i64]) -> R<usize> {
    let mut last = 0i64;
    for (i, &id) in ids.iter().enumerate() {
        if id < 0 {
            tensor_bail!(Value, "segment id {id} (at position {i}) is negative: segment ids must be >= 0");
        }
        if id < last {
            tensor_bail!(
                Value,
                "segment ids are not sorted: segment_ids[{i}] = {id} follows {last} (use the unsorted_segment_ ops)"
            );
        }
        last = id;
    }
    Ok(ids.last().map_or(0, |&l| l as usize + 1))
}

/// The inverse of a permutation of `0..n` given as a vector of int32 or int64: `y[x[i]] = i`,
/// in x's dtype.
///
/// Errors: ShapeError unless x is a vector; TypeError for other dtypes; ValueError for an
/// entry outside `[0, n)` or one that repeats.
pub fn invert_permutation(x: &Array) -> R<Array> {
    if !matches!(x.dtype(), DType::I32 | DType::I64) {
        tensor_bail!(Type, "invert_permutation takes an int32 or int64 vector, not {}", x.dtype());
    }
    if x.ndim() != 1 {
        tensor_bail!(Shape, "invert_permutation takes a vector, got shape {}", shape_str(x.shape()));
    }
    let v = x.to_i64_vec()?;
    let n = v.len();
    let mut inv = vec![-1i64; n];
    for (i, &p) in v.iter().enumerate() {
        if p < 0 || p as usize >= n {
            tensor_bail!(Value, "invert_permutation: {p} (at position {i}) is not between 0 and {n}");
        }
        if inv[p as usize] >= 0 {
            tensor_bail!(Value, "invert_permutation: {p} is duplicated in the input");
        }
        inv[p as usize] = i as i64;
    }
    let wide = ArrayD::from_shape_vec(IxDyn(&[n]), inv).expect("n elements");
    Ok(Array::I64(wide).narrowed_to(x.dtype()))
}

/// `log(exp(a) + exp(b))` without overflow; -inf is the identity, NaN propagates.
fn log_add_exp(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let m = a.max(b);
    if m == f64::INFINITY {
        return if a.is_nan() || b.is_nan() { f64::NAN } else { m };
    }
    m + (-(a - b).abs()).exp().ln_1p()
}

/// The running log-sum-exp of a float tensor along `axis` (already normalised): element `i`
/// is `log(sum(exp(x[j])))` over `j <= i` (`j < i` when `exclusive`; from the other end when
/// `reverse`), accumulated step by step in float64, so no prefix underflows however far its
/// values are from the rest (an empty sum is -inf).
///
/// Errors: TypeError for a dtype other than a float.
pub fn cumulative_logsumexp(x: &Array, axis: usize, exclusive: bool, reverse: bool) -> R<Array> {
    if !x.dtype().is_float() {
        tensor_bail!(Type, "cumulative_logsumexp takes float16, float32 or float64, not {}", x.dtype());
    }
    let shape = x.shape().to_vec();
    let mut a = ArrayD::from_shape_vec(IxDyn(&shape), x.to_f64_vec()).expect("the shape's elements");
    for mut lane in a.lanes_mut(Axis(axis)) {
        let n = lane.len();
        let mut acc = f64::NEG_INFINITY;
        for k in 0..n {
            let i = if reverse { n - 1 - k } else { k };
            let v = lane[i];
            if exclusive {
                lane[i] = acc;
                acc = log_add_exp(acc, v);
            } else {
                acc = log_add_exp(acc, v);
                lane[i] = acc;
            }
        }
    }
    Ok(Array::from_f64(x.dtype(), &shape, a.iter().copied().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(shape: &[usize], v: &[f64]) -> Array {
        Array::from_f64(DType::F32, shape, v.to_vec())
    }

    #[test]
    fn empty_segments_get_the_identity_of_their_op() {
        let d = f32s(&[4], &[1.0, 2.0, 3.0, 4.0]);
        let ids = [3, 0, 3, 0];
        let max = segment_reduce(&d, &ids, 1, 4, SegmentOp::Max).unwrap().to_f64_vec();
        assert_eq!(max, vec![4.0, -(f32::MAX as f64), -(f32::MAX as f64), 3.0]);
        let prod = segment_reduce(&d, &ids, 1, 4, SegmentOp::Prod).unwrap().to_f64_vec();
        assert_eq!(prod, vec![8.0, 1.0, 1.0, 3.0]);
    }

    #[test]
    fn an_int_mean_truncates_toward_zero_and_negative_ids_are_dropped() {
        let d = Array::from_f64(DType::I32, &[4], vec![-3.0, 0.0, 5.0, 9.0]);
        let m = segment_reduce(&d, &[0, 0, -1, 1], 1, 2, SegmentOp::Mean).unwrap();
        assert_eq!((m.dtype(), m.to_f64_vec()), (DType::I32, vec![-1.0, 9.0]));
    }

    #[test]
    fn sorted_ids_are_checked() {
        assert_eq!(sorted_segment_count(&[0, 0, 2]).unwrap(), 3);
        assert_eq!(sorted_segment_count(&[]).unwrap(), 0);
        assert!(sorted_segment_count(&[1, 0]).is_err());
        assert!(sorted_segment_count(&[-1, 0]).is_err());
    }

    #[test]
    fn a_running_log_sum_exp_keeps_far_apart_prefixes() {
        let x = Array::from_f64(DType::F64, &[2], vec![-1000.0, 1000.0]);
        let y = cumulative_logsumexp(&x, 0, false, false).unwrap().to_f64_vec();
        assert_eq!(y, vec![-1000.0, 1000.0]);
        let e = cumulative_logsumexp(&x, 0, true, true).unwrap().to_f64_vec();
        assert_eq!(e, vec![1000.0, f64::NEG_INFINITY]);
    }
}
