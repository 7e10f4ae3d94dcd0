//! Shape ops that move elements: reshape, transpose, broadcast_to, concat, tile
//! and stack (the shape rules themselves are tensor/shape.rs).

use crate::tensor::array::Array;
use crate::tensor::error::{tensor_bail, TensorResult as R};
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::shape_str;
use ndarray::{Axis, IxDyn};

/// Reshapes to `shape` (element counts already checked).
pub fn reshape(a: &Array, shape: &[usize]) -> Array {
    crate::map_dtype!(a, x => x.as_standard_layout().into_owned().into_shape_with_order(IxDyn(shape)).expect("count checked"))
}

/// Permutes axes; `perm` is a checked permutation.
pub fn transpose(a: &Array, perm: &[usize]) -> Array {
    crate::map_dtype!(a, x => x.view().permuted_axes(IxDyn(perm)).as_standard_layout().into_owned())
}

/// Broadcasts to `shape` (checked by the caller), materialised.
pub fn broadcast_to(a: &Array, shape: &[usize]) -> R<Array> {
    crate::tensor::shape::check_size(shape)?;
    let target = broadcast_shapes(a.shape(), shape)?;
    if target != shape {
        tensor_bail!(Shape, "cannot broadcast shape {} to {}", shape_str(a.shape()), shape_str(shape));
    }
    Ok(crate::map_dtype!(a, x => x.broadcast(IxDyn(shape)).unwrap().to_owned()))
}

/// Joins arrays of one dtype along an existing axis.
///
/// Errors: ShapeError when the other dimensions differ; TypeError on mixed dtypes.
pub fn concat(parts: &[&Array], axis: usize) -> R<Array> {
    let first = parts[0];
    for p in parts {
        if p.dtype() != first.dtype() {
            tensor_bail!(Type, "concat: cannot mix {} and {} tensors", first.dtype(), p.dtype());
        }
        if p.ndim() != first.ndim()
            || p.shape().iter().zip(first.shape()).enumerate().any(|(i, (x, y))| i != axis && x != y)
        {
            tensor_bail!(
                Shape,
                "concat: shapes {} and {} differ outside axis {}",
                shape_str(first.shape()),
                shape_str(p.shape()),
                axis
            );
        }
    }
    let mut out_shape = first.shape().to_vec();
    out_shape[axis] = parts.iter().try_fold(0usize, |n, p| n.checked_add(p.shape()[axis])).unwrap_or(usize::MAX);
    crate::tensor::budget::check_shape(&out_shape)?;
    macro_rules! cat {
        ($v:ident) => {{
            let views: Vec<_> = parts
                .iter()
                .map(|p| match p {
                    Array::$v(x) => x.view(),
                    _ => unreachable!(),
                })
                .collect();
            Array::$v(ndarray::concatenate(Axis(axis), &views).expect("shapes checked"))
        }};
    }
    Ok(match first {
        Array::F32(_) => cat!(F32),
        Array::F64(_) => cat!(F64),
        Array::F16(_) => cat!(F16),
        Array::U8(_) => cat!(U8),
        Array::I8(_) => cat!(I8),
        Array::I16(_) => cat!(I16),
        Array::I32(_) => cat!(I32),
        Array::I64(_) => cat!(I64),
        Array::Bool(_) => cat!(Bool),
    })
}

/// Tiles `a`: `multiples[i]` copies along axis i (one entry per axis, checked by the caller).
///
/// Errors: ValueError when the result is over budget (see [`crate::tensor::budget::check_shape`]).
pub fn tile(a: &Array, multiples: &[usize]) -> R<Array> {
    let shape: Vec<usize> =
        a.shape().iter().zip(multiples).map(|(&d, &m)| d.checked_mul(m).unwrap_or(usize::MAX)).collect();
    crate::tensor::budget::check_shape(&shape)?;
    if shape.contains(&0) {
        return Ok(Array::zeros(a.dtype(), &shape));
    }
    let mut data = a.clone();
    for (axis, &m) in multiples.iter().enumerate() {
        if m != 1 {
            data = concat(&std::iter::repeat_n(&data, m).collect::<Vec<_>>(), axis)?;
        }
    }
    Ok(data)
}

/// Stacks arrays of one shape along a new axis.
pub fn stack(parts: &[&Array], axis: usize) -> R<Array> {
    let first = parts[0];
    for p in parts {
        if p.shape() != first.shape() {
            tensor_bail!(Shape, "stack: shapes {} and {} differ", shape_str(first.shape()), shape_str(p.shape()));
        }
    }
    let expanded: Vec<Array> = parts
        .iter()
        .map(|p| {
            let mut s = p.shape().to_vec();
            s.insert(axis, 1);
            reshape(p, &s)
        })
        .collect();
    concat(&expanded.iter().collect::<Vec<_>>(), axis)
}
