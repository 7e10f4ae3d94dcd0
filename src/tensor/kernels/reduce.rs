//! Sum, mean, max and min over axes through the one reduction kernel
//! ([`fold_axes`]), float sums accumulated in float64 (pairwise along a contiguous
//! axis); argmax, and the search argmin shares with it.

use super::pool::parallel_for;
use crate::tensor::array::Array;
use crate::tensor::error::{tensor_bail, tensor_err, TensorResult as R};
use crate::tensor::shape::reduced_shape;
use ndarray::{ArrayD, Axis, IxDyn};
use num_traits::Float;

/// Reductions over sorted, distinct axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reduce {
    Sum,
    Mean,
    Max,
    Min,
}

/// Float element types whose sums accumulate in float64 (docs/language.md §4:
/// reductions are as accurate as TF's and NumPy's; a float64 accumulator keeps
/// the relative error of a float32 sum of 10^7 same-sign terms near 1e-9).
pub trait Accumulate: Float + Send + Sync {
    fn widen(self) -> f64;
    fn narrow(v: f64) -> Self;
}

impl Accumulate for f32 {
    fn widen(self) -> f64 {
        self as f64
    }
    fn narrow(v: f64) -> f32 {
        v as f32
    }
}

impl Accumulate for f64 {
    fn widen(self) -> f64 {
        self
    }
    fn narrow(v: f64) -> f64 {
        v
    }
}

/// Pairwise (cascade) sum of a contiguous run in float64: blocks of at most
/// 128 terms summed with eight interleaved partial sums, blocks combined as a
/// binary tree, so the rounding error grows with log n, not n.
pub fn pairwise_sum<T: Accumulate>(xs: &[T]) -> f64 {
    const BLOCK: usize = 128;
    if xs.len() < 8 {
        return xs.iter().fold(0.0, |s, &x| s + x.widen());
    }
    if xs.len() <= BLOCK {
        let mut r = [0.0f64; 8];
        let chunks = xs.chunks_exact(8);
        let tail = chunks.remainder();
        for c in chunks {
            for k in 0..8 {
                r[k] += c[k].widen();
            }
        }
        let head = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        return tail.iter().fold(head, |s, &x| s + x.widen());
    }
    let mut half = xs.len() / 2;
    half -= half % 8;
    // The same tree of partial sums either way, so the result does not depend on threads.
    if parallel_for(xs.len()) {
        let (l, r) = rayon::join(|| pairwise_sum(&xs[..half]), || pairwise_sum(&xs[half..]));
        return l + r;
    }
    pairwise_sum(&xs[..half]) + pairwise_sum(&xs[half..])
}

/// The one reduction kernel: folds the elements of `a` over `axes` (sorted,
/// distinct) into accumulators of type `A`, one per output cell, and returns
/// them in row-major order of the keepdims shape.
///
/// `step` adds one element to an accumulator; `run` adds a contiguous run of
/// the last axis when that axis is reduced (where a pairwise sum can work).
/// Walking the input in memory order keeps every access sequential, whichever
/// axes are reduced: reducing axis 0 of [10^7, 2] streams rows into two accumulators.
pub(crate) fn fold_axes<T: Copy, A: Copy>(
    a: &ArrayD<T>,
    axes: &[usize],
    init: A,
    step: impl Fn(A, T) -> A,
    run: impl Fn(A, &[T]) -> A,
) -> Vec<A> {
    let shape = a.shape();
    let keep = reduced_shape(shape, axes, true);
    let mut acc = vec![init; keep.iter().product()];
    if a.is_empty() {
        return acc;
    }
    let x = a.as_standard_layout();
    let data = x.as_slice().expect("standard layout is contiguous");
    if shape.is_empty() {
        acc[0] = step(acc[0], data[0]);
        return acc;
    }
    // Output strides over the input's axes: 0 on a reduced axis.
    let nd = shape.len();
    let mut ostride = vec![0usize; nd];
    let mut s = 1;
    for d in (0..nd).rev() {
        if !axes.contains(&d) {
            ostride[d] = s;
            s *= shape[d];
        }
    }
    let last = shape[nd - 1];
    let last_reduced = axes.contains(&(nd - 1));
    let mut idx = vec![0usize; nd - 1];
    let mut off = 0usize;
    for row in data.chunks_exact(last) {
        if last_reduced {
            acc[off] = run(acc[off], row);
        } else {
            for (cell, &v) in acc[off..off + last].iter_mut().zip(row) {
                *cell = step(*cell, v);
            }
        }
        // Advance the odometer over the leading axes, keeping `off` in step.
        for d in (0..nd - 1).rev() {
            idx[d] += 1;
            off += ostride[d];
            if idx[d] < shape[d] {
                break;
            }
            off -= ostride[d] * shape[d];
            idx[d] = 0;
        }
    }
    acc
}

/// Sums over `axes` in float64 (see [`fold_axes`], [`pairwise_sum`]), keepdims shape.
pub fn sum_f64<T: Accumulate>(a: &ArrayD<T>, axes: &[usize]) -> Vec<f64> {
    fold_axes(a, axes, 0.0f64, |s, x| s + x.widen(), |s, r| s + pairwise_sum(r))
}

pub(super) fn reduce_float<T: Accumulate>(op: Reduce, a: &ArrayD<T>, axes: &[usize], keepdims: bool) -> ArrayD<T> {
    let shape = reduced_shape(a.shape(), axes, keepdims);
    let vals: Vec<T> = match op {
        Reduce::Sum => sum_f64(a, axes).into_iter().map(T::narrow).collect(),
        Reduce::Mean => {
            let n: usize = axes.iter().map(|&d| a.shape()[d]).product();
            sum_f64(a, axes).into_iter().map(|s| T::narrow(s / n as f64)).collect()
        }
        // NaN wins, as in TF.
        Reduce::Max => {
            let f = |m: T, x: T| if x > m || x.is_nan() { x } else { m };
            fold_axes(a, axes, T::neg_infinity(), f, |m, r| r.iter().fold(m, |m, &x| f(m, x)))
        }
        Reduce::Min => {
            let f = |m: T, x: T| if x < m || x.is_nan() { x } else { m };
            fold_axes(a, axes, T::infinity(), f, |m, r| r.iter().fold(m, |m, &x| f(m, x)))
        }
    };
    ArrayD::from_shape_vec(IxDyn(&shape), vals).expect("one value per output cell")
}

/// Reduces `a` over `axes` (normalised, sorted).
///
/// Float sums and means accumulate in float64 (pairwise along a contiguous axis).
/// int64 sums are exact or an error.
/// Errors: TypeError on bool tensors; ValueError for max/min of an empty int64
/// tensor and for an int64 sum outside the int64 range.
pub fn reduce(op: Reduce, a: &Array, axes: &[usize], keepdims: bool) -> R<Array> {
    Ok(match a {
        Array::F32(x) => Array::F32(reduce_float(op, x, axes, keepdims)),
        Array::F64(x) => Array::F64(reduce_float(op, x, axes, keepdims)),
        Array::I64(x) => {
            if x.is_empty() && matches!(op, Reduce::Max | Reduce::Min) {
                tensor_bail!(Value, "cannot reduce an empty int64 tensor");
            }
            let shape = reduced_shape(x.shape(), axes, keepdims);
            let vals: Vec<i64> = match op {
                Reduce::Sum | Reduce::Mean => {
                    // At most 2^28 terms of magnitude below 2^63: an i128 cannot overflow.
                    let n: usize = axes.iter().map(|&d| x.shape()[d]).product();
                    let sums =
                        fold_axes(x, axes, 0i128, |s, v| s + v as i128, |s, r| r.iter().fold(s, |s, &v| s + v as i128));
                    let mut out = Vec::with_capacity(sums.len());
                    for s in sums {
                        let s = if op == Reduce::Mean {
                            if n == 0 {
                                tensor_bail!(Value, "cannot take the mean of an empty int64 tensor");
                            }
                            s / n as i128
                        } else {
                            s
                        };
                        out.push(i64::try_from(s).map_err(|_| {
                            tensor_err!(Value, "integer overflow: an int64 sum of {s} is out of range")
                        })?);
                    }
                    out
                }
                Reduce::Max => fold_axes(x, axes, i64::MIN, |m, v| m.max(v), |m, r| r.iter().fold(m, |m, &v| m.max(v))),
                Reduce::Min => fold_axes(x, axes, i64::MAX, |m, v| m.min(v), |m, r| r.iter().fold(m, |m, &v| m.min(v))),
            };
            Array::I64(ArrayD::from_shape_vec(IxDyn(&shape), vals).expect("one value per output cell"))
        }
        narrow @ crate::narrow_array!() => reduce(op, &a.widened(), axes, keepdims)?.narrowed_to(narrow.dtype()),
        Array::Bool(_) => tensor_bail!(Type, "cannot reduce a bool tensor (use cast)"),
    })
}

/// Index of the largest element along `axis` (first on ties), as int64.
///
/// As TF: the search starts at index 0 with the dtype's lowest finite value
/// and moves only to a strictly larger element, so NaN is never chosen (an
/// all-NaN lane gives 0), nor is -inf over index 0.
pub fn argmax(a: &Array, axis: usize) -> R<Array> {
    arg_extreme(a, axis, true)
}

/// The index of the first largest (`largest`) or smallest element along `axis`, as int64:
/// the search starts at index 0 with the dtype's most extreme finite value on the other
/// side and moves only to a strictly better element, so NaN is never chosen (TF's rule,
/// shared by [`argmax`] and `reductions::argmin`).
///
/// Errors: ValueError for an empty axis.
pub(crate) fn arg_extreme(a: &Array, axis: usize, largest: bool) -> R<Array> {
    fn go<T: PartialOrd + Copy>(x: &ArrayD<T>, axis: usize, start: T, largest: bool) -> ArrayD<i64> {
        x.map_axis(Axis(axis), |lane| {
            let (mut best, mut top) = (0usize, start);
            for (i, &v) in lane.iter().enumerate() {
                if if largest { v > top } else { v < top } {
                    best = i;
                    top = v;
                }
            }
            best as i64
        })
    }
    if a.shape().get(axis).copied().unwrap_or(0) == 0 {
        tensor_bail!(Value, "{} of an empty axis", if largest { "argmax" } else { "argmin" });
    }
    Ok(Array::I64(match a {
        Array::F32(x) => go(x, axis, if largest { f32::MIN } else { f32::MAX }, largest),
        Array::F64(x) => go(x, axis, if largest { f64::MIN } else { f64::MAX }, largest),
        Array::I64(x) => go(x, axis, if largest { i64::MIN } else { i64::MAX }, largest),
        Array::Bool(x) => go(x, axis, !largest, largest),
        narrow => return arg_extreme(&narrow.widened(), axis, largest),
    }))
}
