//! Sorting kernels: the permutations behind `sort`, `argsort` and `top_k`, the first
//! occurrences behind `unique`, and the flat gather/scatter (`take`, `take_add`) through
//! which those results — and `gather_nd`, `scatter_nd`, `boolean_mask` — are computed.
//!
//! Order: every sort here is stable (equal elements keep their input order, in either
//! direction), and NaN sorts above +inf (all NaNs equal). TF's CPU kernels compare with
//! `<`, for which NaN is unordered, so where NaNs fall in TF's result depends on its
//! algorithm; a total order is what NumPy and XLA use.

use super::error::{tensor_bail, TensorResult as R};
use super::Array;
use ndarray::{ArrayD, IxDyn};
use std::cmp::Ordering;

/// NaN-last total order on floats (NaN above +inf; -0.0 equals 0.0, as `<` says).
fn cmp_f64(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Sort keys of an array, compared exactly (int64 as integers, floats in [`cmp_f64`]'s order).
enum Keys {
    Float(Vec<f64>),
    Int(Vec<i64>),
}

impl Keys {
    fn of(a: &Array, what: &str) -> R<Keys> {
        // The keys are a copy of 8 bytes an element.
        super::budget::check_elements(a.len(), 8)?;
        Ok(match a {
            Array::F32(_) | Array::F64(_) => Keys::Float(a.to_f64_vec()),
            Array::I64(x) => Keys::Int(x.iter().copied().collect()),
            Array::Bool(_) => tensor_bail!(Type, "{what} takes a float or int64 tensor, not bool"),
            narrow @ crate::narrow_array!() => return Keys::of(&narrow.widened(), what),
        })
    }

    fn cmp(&self, i: usize, j: usize) -> Ordering {
        match self {
            Keys::Float(v) => cmp_f64(v[i], v[j]),
            Keys::Int(v) => v[i].cmp(&v[j]),
        }
    }
}

/// For each position of the result of sorting `a` along `axis` and keeping the first `k`
/// entries of each row (`k = n` for a full sort), the flat index of the input element it
/// holds, in row-major order of the result (shape: `a`'s with `axis` resized to `k`).
/// Stable; `descending` reverses the order but not the order of ties.
///
/// Errors: TypeError for bool.
pub fn sort_perm(a: &Array, axis: usize, k: usize, descending: bool, what: &str) -> R<Vec<usize>> {
    let keys = Keys::of(a, what)?;
    let shape = a.shape();
    let n = shape[axis];
    let pre: usize = shape[..axis].iter().product();
    let post: usize = shape[axis + 1..].iter().product();
    let mut out = vec![0usize; pre * k * post];
    let mut row: Vec<usize> = Vec::with_capacity(n);
    for p in 0..pre {
        for q in 0..post {
            let base = p * n * post + q;
            row.clear();
            row.extend((0..n).map(|j| base + j * post));
            if descending {
                row.sort_by(|&x, &y| keys.cmp(y, x));
            } else {
                row.sort_by(|&x, &y| keys.cmp(x, y));
            }
            for (j, &src) in row.iter().take(k).enumerate() {
                out[p * k * post + j * post + q] = src;
            }
        }
    }
    Ok(out)
}

/// `unique` of a 1-D array: the index of each distinct value's first occurrence (in
/// first-occurrence order), and for each element the position of its value among them.
/// Floats compare by bits after folding -0.0 into 0.0 (NaNs with one bit pattern are one value).
///
/// Errors: TypeError for bool (as TF, which has no bool unique kernel).
pub fn unique(a: &Array) -> R<(Vec<usize>, Vec<i64>)> {
    let bits: Vec<u64> = match a {
        Array::F32(x) => x.iter().map(|&v| if v == 0.0 { 0 } else { v.to_bits() as u64 }).collect(),
        Array::F64(x) => x.iter().map(|&v| if v == 0.0 { 0 } else { v.to_bits() }).collect(),
        Array::I64(x) => x.iter().map(|&v| v as u64).collect(),
        Array::Bool(_) => tensor_bail!(Type, "unique takes a float or int64 tensor, not bool"),
        narrow @ crate::narrow_array!() => return unique(&narrow.widened()),
    };
    let mut seen: rustc_hash::FxHashMap<u64, i64> = Default::default();
    let mut first = Vec::new();
    let mut idx = Vec::with_capacity(bits.len());
    for (i, b) in bits.into_iter().enumerate() {
        let next = first.len() as i64;
        let at = *seen.entry(b).or_insert(next);
        if at == next {
            first.push(i);
        }
        idx.push(at);
    }
    Ok((first, idx))
}

/// `out.flat[i] = a.flat[idx[i]]`, reshaped to `shape` (callers check the indices
/// and that `shape` has `idx.len()` elements).
pub fn take(a: &Array, idx: &[usize], shape: &[usize]) -> Array {
    fn go<T: Clone>(a: &ArrayD<T>, idx: &[usize], shape: &[usize]) -> ArrayD<T> {
        let a = a.as_standard_layout();
        let s = a.as_slice().expect("standard layout is contiguous");
        let v: Vec<T> = idx.iter().map(|&i| s[i].clone()).collect();
        ArrayD::from_shape_vec(IxDyn(shape), v).expect("the caller matched the shape")
    }
    crate::map_dtype!(a, x => go(x, idx, shape))
}

/// Zeros of `shape` with `g.flat[i]` added at `idx[i]` (duplicates add up): the VJP of
/// [`take`] and the forward of `scatter_nd`.
///
/// Bools combine with a logical or. Errors: ValueError when an int64 sum overflows.
pub fn take_add(g: &Array, idx: &[usize], shape: &[usize]) -> R<Array> {
    fn go<T: Copy + Default + std::ops::AddAssign>(g: &ArrayD<T>, idx: &[usize], shape: &[usize]) -> ArrayD<T> {
        let n: usize = shape.iter().product();
        let mut z = vec![T::default(); n];
        for (&i, &v) in idx.iter().zip(g.iter()) {
            z[i] += v;
        }
        ArrayD::from_shape_vec(IxDyn(shape), z).expect("shape matches the count")
    }
    Ok(match g {
        Array::F32(x) => Array::F32(go(x, idx, shape)),
        Array::F64(x) => Array::F64(go(x, idx, shape)),
        Array::I64(x) => {
            let n: usize = shape.iter().product();
            let mut z = vec![0i64; n];
            for (&i, &v) in idx.iter().zip(x.iter()) {
                z[i] = match z[i].checked_add(v) {
                    Some(s) => s,
                    None => tensor_bail!(Value, "int64 overflow adding scattered updates"),
                };
            }
            Array::I64(ArrayD::from_shape_vec(IxDyn(shape), z).expect("shape matches the count"))
        }
        narrow @ crate::narrow_array!() => take_add(&g.widened(), idx, shape)?.narrowed_to(narrow.dtype()),
        // Bools add as a logical or (TF's bool scatter_nd).
        Array::Bool(x) => {
            let n: usize = shape.iter().product();
            let mut z = vec![false; n];
            for (&i, &v) in idx.iter().zip(x.iter()) {
                z[i] |= v;
            }
            Array::Bool(ArrayD::from_shape_vec(IxDyn(shape), z).expect("shape matches the count"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(v: &[f64]) -> Array {
        Array::from_f64(crate::tensor::DType::F64, &[v.len()], v.to_vec())
    }

    #[test]
    fn sorts_are_stable_with_nan_last() {
        let a = arr(&[3.0, f64::NAN, 1.0, f64::NEG_INFINITY, 2.0, f64::NAN, 1.0]);
        assert_eq!(sort_perm(&a, 0, 7, false, "sort").unwrap(), vec![3, 2, 6, 4, 0, 1, 5]);
        assert_eq!(sort_perm(&a, 0, 7, true, "sort").unwrap(), vec![1, 5, 0, 4, 2, 6, 3]);
        let b = arr(&[1.0, 2.0, 1.0, 2.0, 1.0]);
        assert_eq!(sort_perm(&b, 0, 3, true, "top_k").unwrap(), vec![1, 3, 0]);
    }

    #[test]
    fn sorts_along_an_inner_axis() {
        // [[3, 1], [2, 4]] sorted along axis 0: column-wise.
        let a = Array::from_f64(crate::tensor::DType::F64, &[2, 2], vec![3.0, 1.0, 2.0, 4.0]);
        assert_eq!(sort_perm(&a, 0, 2, false, "sort").unwrap(), vec![2, 1, 0, 3]);
    }

    #[test]
    fn unique_keeps_first_occurrence_order() {
        let (first, idx) = unique(&arr(&[4.0, 1.0, 4.0, 0.0, -0.0, 1.0])).unwrap();
        assert_eq!(first, vec![0, 1, 3]);
        assert_eq!(idx, vec![0, 1, 0, 2, 2, 1]);
    }
}
