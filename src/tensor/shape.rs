//! Shape arithmetic: NumPy broadcasting, axis normalisation, reshape with `-1`.

use super::error::{tensor_bail, TensorResult as R};
use super::shape_str;

pub use super::budget::{check_shape, MAX_ELEMENTS};

/// Errors: ValueError when `shape` is over budget (see [`check_shape`]).
pub fn check_size(shape: &[usize]) -> R<()> {
    check_shape(shape)
}

/// The broadcast shape of `a` and `b` (NumPy rules).
///
/// Errors: ShapeError `cannot broadcast shapes (2, 3) and (4,)` (docs/language.md §4).
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> R<Vec<usize>> {
    if a == b {
        return Ok(a.to_vec());
    }
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            tensor_bail!(Shape, "cannot broadcast shapes {} and {}", shape_str(a), shape_str(b));
        };
    }
    check_size(&out)?;
    Ok(out)
}

/// Axes of `out_shape` that were broadcast from `in_shape` (to be summed over
/// when a gradient flows back), and whether the result needs a reshape.
pub fn broadcast_axes(in_shape: &[usize], out_shape: &[usize]) -> Vec<usize> {
    let lead = out_shape.len() - in_shape.len();
    (0..out_shape.len()).filter(|&i| i < lead || (in_shape[i - lead] == 1 && out_shape[i] != 1)).collect()
}

/// Normalises a possibly negative axis for rank `ndim`.
///
/// Errors: ShapeError when out of range.
pub fn norm_axis(axis: i64, ndim: usize) -> R<usize> {
    let n = ndim as i64;
    if axis < -n || axis >= n {
        tensor_bail!(Shape, "axis {axis} is out of range for a tensor of rank {ndim}");
    }
    Ok(if axis < 0 { (axis + n) as usize } else { axis as usize })
}

/// Normalised, sorted, de-duplicated reduction axes; `None` means all axes.
pub fn reduce_axes(axes: Option<&[i64]>, ndim: usize) -> R<Vec<usize>> {
    match axes {
        None => Ok((0..ndim).collect()),
        Some(list) => {
            let mut out = Vec::with_capacity(list.len());
            for &a in list {
                let a = norm_axis(a, ndim)?;
                if out.contains(&a) {
                    tensor_bail!(Shape, "axis {a} is repeated in the reduction axes");
                }
                out.push(a);
            }
            out.sort_unstable();
            Ok(out)
        }
    }
}

/// The shape after reducing `axes` of `shape`, with or without kept dims.
pub fn reduced_shape(shape: &[usize], axes: &[usize], keepdims: bool) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| if axes.contains(&i) { keepdims.then_some(1) } else { Some(d) })
        .collect()
}

/// Resolves a reshape target with at most one `-1`.
///
/// Errors: ValueError when the element counts differ or more than one `-1` is given.
pub fn reshape_target(from: &[usize], to: &[i64]) -> R<Vec<usize>> {
    let total: usize = from.iter().product();
    let mut unknown = None;
    let mut known = 1usize;
    for (i, &d) in to.iter().enumerate() {
        if d == -1 {
            if unknown.is_some() {
                tensor_bail!(Value, "reshape: only one dimension can be -1");
            }
            unknown = Some(i);
        } else if d < 0 {
            tensor_bail!(Value, "reshape: negative dimension {d}");
        } else {
            known = known.saturating_mul(d as usize);
        }
    }
    let mut out: Vec<usize> = to.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(i) = unknown {
        if known == 0 || total % known != 0 {
            tensor_bail!(Value, "cannot reshape a tensor of shape {} into {}", shape_str(from), target_str(to));
        }
        out[i] = total / known;
    } else if known != total {
        tensor_bail!(Value, "cannot reshape a tensor of shape {} into {}", shape_str(from), target_str(to));
    }
    // A zero in `from` lets any target of zero elements through: bound its other dimensions too.
    check_shape(&out)?;
    Ok(out)
}

fn target_str(to: &[i64]) -> String {
    match to.len() {
        1 => format!("({},)", to[0]),
        _ => format!("({})", to.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast_shapes(&[2, 1], &[3]).unwrap(), vec![2, 3]);
        assert_eq!(broadcast_shapes(&[], &[4, 5]).unwrap(), vec![4, 5]);
        let e = broadcast_shapes(&[2, 3], &[4]).unwrap_err();
        assert_eq!(e.message, "cannot broadcast shapes (2, 3) and (4,)");
        assert_eq!(e.kind, super::super::error::TensorErrorKind::Shape);
    }

    #[test]
    fn broadcast_axes_names_leading_and_stretched_dims() {
        assert_eq!(broadcast_axes(&[3], &[2, 3]), vec![0]);
        assert_eq!(broadcast_axes(&[2, 1], &[2, 3]), vec![1]);
        assert_eq!(broadcast_axes(&[2, 3], &[2, 3]), Vec::<usize>::new());
    }

    #[test]
    fn reshape_infers_one_dimension() {
        assert_eq!(reshape_target(&[2, 3], &[3, -1]).unwrap(), vec![3, 2]);
        assert!(reshape_target(&[2, 3], &[4, -1]).is_err());
        assert!(reshape_target(&[2, 3], &[-1, -1]).is_err());
    }
}
