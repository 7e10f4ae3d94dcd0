//! Reductions beyond sum/mean/max/min (which live in `kernels/reduce.rs`): products,
//! logical all/any, argmin, and the running (cumulative) sums and products.
//! Float products accumulate in float64, as the sums of `kernels::fold_axes` do.

use super::array::Array;
use super::error::{tensor_bail, tensor_err, TensorResult as R};
use super::kernels::{fold_axes, Accumulate};
use super::shape::reduced_shape;
use ndarray::{ArrayD, Axis, IxDyn};

/// Product over `axes` (normalised, sorted); an empty product is 1.
///
/// Floats multiply in float64 and round once; int64 products are exact or a ValueError; the
/// narrower ints (int32, int16, int8, uint8) wrap as TF's do: their product is computed modulo
/// 2^64 in int64, whose low bits are the exact product's.
/// Errors: TypeError on bool tensors; ValueError on int64 overflow.
pub fn reduce_prod(a: &Array, axes: &[usize], keepdims: bool) -> R<Array> {
    fn float<T: Accumulate>(x: &ArrayD<T>, axes: &[usize], keepdims: bool) -> ArrayD<T> {
        let shape = reduced_shape(x.shape(), axes, keepdims);
        let step = |p: f64, v: T| p * v.widen();
        let vals = fold_axes(x, axes, 1.0f64, step, |p, r| r.iter().fold(p, |p, &v| step(p, v)));
        ArrayD::from_shape_vec(IxDyn(&shape), vals.into_iter().map(T::narrow).collect()).expect("one per cell")
    }
    // int64 products: checked (int64's rule), or wrapping for the narrow ints widened to int64.
    fn int(x: &ArrayD<i64>, axes: &[usize], keepdims: bool, wrap: bool) -> R<Array> {
        let shape = reduced_shape(x.shape(), axes, keepdims);
        // None marks an overflowed cell; the error is raised after the fold.
        let step =
            |p: Option<i64>, v: i64| p.and_then(|p| if wrap { Some(p.wrapping_mul(v)) } else { p.checked_mul(v) });
        let vals = fold_axes(x, axes, Some(1i64), step, |p, r| r.iter().fold(p, |p, &v| step(p, v)));
        let vals: Vec<i64> = vals
            .into_iter()
            .collect::<Option<_>>()
            .ok_or_else(|| tensor_err!(Value, "integer overflow: an int64 product is out of range"))?;
        Ok(Array::I64(ArrayD::from_shape_vec(IxDyn(&shape), vals).expect("one per cell")))
    }
    Ok(match a {
        Array::F32(x) => Array::F32(float(x, axes, keepdims)),
        Array::F64(x) => Array::F64(float(x, axes, keepdims)),
        Array::I64(x) => int(x, axes, keepdims, false)?,
        narrow @ crate::narrow_array!() if narrow.dtype().is_int() => {
            let wide = narrow.widened();
            let Array::I64(x) = &*wide else { unreachable!("narrow ints widen to int64") };
            int(x, axes, keepdims, true)?.narrowed_to(narrow.dtype())
        }
        narrow @ crate::narrow_array!() => reduce_prod(&a.widened(), axes, keepdims)?.narrowed_to(narrow.dtype()),
        Array::Bool(_) => tensor_bail!(Type, "reduce_prod: cannot reduce a bool tensor (use cast)"),
    })
}

/// `reduce_all` (`any = false`) or `reduce_any` over `axes` of a bool tensor.
///
/// Errors: TypeError for any other dtype (TF takes only bool).
pub fn reduce_logical(a: &Array, axes: &[usize], keepdims: bool, any: bool) -> R<Array> {
    let Array::Bool(x) = a else {
        let name = if any { "reduce_any" } else { "reduce_all" };
        tensor_bail!(Type, "{name} takes a bool tensor, not {} (compare or cast first)", a.dtype());
    };
    let shape = reduced_shape(x.shape(), axes, keepdims);
    let step = move |acc: bool, v: bool| if any { acc || v } else { acc && v };
    let vals = fold_axes(x, axes, !any, step, |acc, r| r.iter().fold(acc, |acc, &v| step(acc, v)));
    Ok(Array::Bool(ArrayD::from_shape_vec(IxDyn(&shape), vals).expect("one per cell")))
}

/// Index of the smallest element along `axis` (first on ties), as int64.
///
/// As TF's (the mirror of `kernels::argmax`): the search starts at index 0 with
/// the dtype's largest finite value and moves only to a strictly smaller element,
/// so NaN is never chosen (an all-NaN lane gives 0).
/// Errors: ValueError for an empty axis.
pub fn argmin(a: &Array, axis: usize) -> R<Array> {
    super::kernels::arg_extreme(a, axis, false)
}

/// Which running reduction [`cumulative`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Running {
    Sum,
    Prod,
}

/// `cumsum`/`cumprod` along `axis`: element i of a lane combines the elements
/// before it (`exclusive`: strictly before, the first gets 0 or 1), counted from
/// the lane's end when `reverse`. Same shape and dtype as `a`.
///
/// Floats accumulate in float64 and round each partial result once; the narrower ints wrap,
/// as TF's do (see [`reduce_prod`]).
/// Errors: TypeError on bool; ValueError on int64 overflow.
pub fn cumulative(op: Running, a: &Array, axis: usize, exclusive: bool, reverse: bool) -> R<Array> {
    // One lane: writes the running values of `src` into `dst` in the chosen order.
    fn lane<S: Copy, A: Copy>(
        src: ndarray::ArrayView1<S>,
        mut dst: ndarray::ArrayViewMut1<A>,
        init: A,
        exclusive: bool,
        reverse: bool,
        step: &impl Fn(A, S) -> A,
    ) {
        let n = src.len();
        let mut acc = init;
        for k in 0..n {
            let i = if reverse { n - 1 - k } else { k };
            if exclusive {
                dst[i] = acc;
                acc = step(acc, src[i]);
            } else {
                acc = step(acc, src[i]);
                dst[i] = acc;
            }
        }
    }
    fn float<T: Accumulate>(x: &ArrayD<T>, axis: usize, exclusive: bool, reverse: bool, op: Running) -> ArrayD<T> {
        let mut acc = ArrayD::<f64>::zeros(x.raw_dim());
        let init = if op == Running::Sum { 0.0 } else { 1.0 };
        let step = |s: f64, v: T| if op == Running::Sum { s + v.widen() } else { s * v.widen() };
        for (src, dst) in x.lanes(Axis(axis)).into_iter().zip(acc.lanes_mut(Axis(axis))) {
            lane(src, dst, init, exclusive, reverse, &step);
        }
        acc.mapv(T::narrow)
    }
    // int64 running values: checked (int64's rule), or wrapping for the narrow ints widened to int64.
    fn int(x: &ArrayD<i64>, axis: usize, exclusive: bool, reverse: bool, op: Running, wrap: bool) -> R<ArrayD<i64>> {
        let mut acc = ArrayD::<Option<i64>>::from_elem(x.raw_dim(), None);
        let init = Some(if op == Running::Sum { 0 } else { 1 });
        let step = |s: Option<i64>, v: i64| {
            s.and_then(|s| match (op, wrap) {
                (Running::Sum, false) => s.checked_add(v),
                (Running::Prod, false) => s.checked_mul(v),
                (Running::Sum, true) => Some(s.wrapping_add(v)),
                (Running::Prod, true) => Some(s.wrapping_mul(v)),
            })
        };
        for (src, dst) in x.lanes(Axis(axis)).into_iter().zip(acc.lanes_mut(Axis(axis))) {
            lane(src, dst, init, exclusive, reverse, &step);
        }
        if acc.iter().any(Option::is_none) {
            let what = if op == Running::Sum { "cumsum" } else { "cumprod" };
            tensor_bail!(Value, "integer overflow: an int64 {what} is out of range");
        }
        Ok(acc.mapv(|v| v.unwrap_or(0)))
    }
    Ok(match a {
        Array::F32(x) => Array::F32(float(x, axis, exclusive, reverse, op)),
        Array::F64(x) => Array::F64(float(x, axis, exclusive, reverse, op)),
        Array::I64(x) => Array::I64(int(x, axis, exclusive, reverse, op, false)?),
        narrow @ crate::narrow_array!() if narrow.dtype().is_int() => {
            let wide = narrow.widened();
            let Array::I64(x) = &*wide else { unreachable!("narrow ints widen to int64") };
            Array::I64(int(x, axis, exclusive, reverse, op, true)?).narrowed_to(narrow.dtype())
        }
        narrow @ crate::narrow_array!() => {
            cumulative(op, &a.widened(), axis, exclusive, reverse)?.narrowed_to(narrow.dtype())
        }
        Array::Bool(_) => tensor_bail!(Type, "cannot take a running sum or product of a bool tensor (use cast)"),
    })
}
