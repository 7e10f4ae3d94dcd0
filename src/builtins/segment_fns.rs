//! The native module `_segment_kernels`: the kernels under the segment reductions and the
//! other `tf.math` reductions written in DGL (stdlib/_segments.dgl, which gives each its
//! gradient and TF's names; docs/language.md "TensorFlow"). Each takes and returns plain
//! tensors and records nothing: the library wraps the differentiable ones in
//! `custom_gradient`.

use super::Native;
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::segments::{self, SegmentOp};
use crate::tensor::sobol;
use crate::tensor::{shape_str, DType, Tensor};
use crate::{bail, err};

/// The module's names and values.
pub(crate) fn build(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    Ok(vec![
        ("reduce", REDUCE.value()),
        ("sorted_count", SORTED_COUNT.value()),
        ("invert_permutation", INVERT_PERMUTATION.value()),
        ("cumulative_logsumexp", CUMULATIVE_LOGSUMEXP.value()),
        ("sobol_sample", SOBOL_SAMPLE.value()),
    ])
}

/// Segment ids as i64, after checking their dtype (int32 or int64, as TF takes them).
fn segment_ids(t: &Tensor, what: &str) -> R<Vec<i64>> {
    if !matches!(t.dtype(), DType::I32 | DType::I64) {
        bail!(Type, "{what} must be int32 or int64, not {}", t.dtype());
    }
    Ok(t.data.to_i64_vec()?)
}

static REDUCE: Native =
    Native::new("reduce", &["data: TensorLike", "segment_ids: TensorLike", "num_segments: int", "op"], reduce);

/// `reduce(data, segment_ids, num_segments, op)`: `data`'s rows reduced by segment id (`op`:
/// "sum", "prod", "max", "min" or "mean"), shape `[num_segments] + data.shape[ids.ndim:]`;
/// rows with a negative id are dropped, as TF's unsorted segment ops drop them.
///
/// Errors: TypeError for ids that are not int32/int64 or bool data; ShapeError when data's
/// shape does not start with the ids' shape; ValueError for a negative `num_segments`;
/// IndexError for an id at or past `num_segments`.
fn reduce(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = REDUCE.bind(rt, args)?;
    let (data, ids_t) = (a.tensor("data")?, a.tensor("segment_ids")?);
    let n = a.int("num_segments")?;
    let op = match a.value("op")? {
        Value::Str(s) => SegmentOp::from_name(&s.to_string()),
        _ => None,
    }
    .ok_or_else(|| err!(Runtime, "internal error: an unknown segment op"))?;
    let ids = segment_ids(&ids_t, "segment_ids")?;
    let lead = ids_t.shape().len();
    if !data.shape().starts_with(ids_t.shape()) {
        bail!(
            Shape,
            "data.shape = {} does not start with segment_ids.shape = {}",
            shape_str(data.shape()),
            shape_str(ids_t.shape())
        );
    }
    if n < 0 {
        bail!(Value, "num_segments must not be negative, got {n}");
    }
    if let Some((i, &id)) = ids.iter().enumerate().find(|(_, &id)| id >= n) {
        bail!(Index, "segment_ids[{i}] = {id} is out of range [0, {n})");
    }
    let n = usize::try_from(n).map_err(|_| err!(Value, "num_segments {n} is too large"))?;
    Ok(Value::Tensor(Tensor::new(segments::segment_reduce(&data.data, &ids, lead, n, op)?)))
}

static SORTED_COUNT: Native =
    Native::new("sorted_count", &["data: TensorLike", "segment_ids: TensorLike"], sorted_count);

/// `sorted_count(data, segment_ids)`: the number of segments of TF's sorted segment ops (the
/// last id plus one), after checking the ids are a vector as long as `data`'s first axis,
/// non-negative and sorted.
///
/// Errors: TypeError for ids that are not int32/int64; ShapeError for ids that are not a vector
/// or not as long as data's first axis; ValueError for a negative id or one out of order.
fn sorted_count(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SORTED_COUNT.bind(rt, args)?;
    let (data, ids_t) = (a.tensor("data")?, a.tensor("segment_ids")?);
    let ids = segment_ids(&ids_t, "segment_ids")?;
    if ids_t.shape().len() != 1 {
        bail!(Shape, "segment_ids must be a vector, got shape {}", shape_str(ids_t.shape()));
    }
    if data.shape().first() != Some(&ids.len()) {
        bail!(
            Shape,
            "segment_ids (shape {}) must be as long as the first axis of data (shape {})",
            shape_str(ids_t.shape()),
            shape_str(data.shape())
        );
    }
    Ok(Value::Int(segments::sorted_segment_count(&ids)? as i64))
}

static INVERT_PERMUTATION: Native = Native::new("invert_permutation", &["x: TensorLike"], invert_permutation);

/// `invert_permutation(x)`: `y` with `y[x[i]] = i`, in x's dtype (int32 or int64).
///
/// Errors: as [`segments::invert_permutation`].
fn invert_permutation(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = INVERT_PERMUTATION.bind(rt, args)?.tensor("x")?;
    Ok(Value::Tensor(Tensor::new(segments::invert_permutation(&x.data)?)))
}

static CUMULATIVE_LOGSUMEXP: Native = Native::new(
    "cumulative_logsumexp",
    &["x: TensorLike", "axis: int", "exclusive: bool", "reverse: bool"],
    cumulative_logsumexp,
);

/// `cumulative_logsumexp(x, axis, exclusive, reverse)`: the running log-sum-exp along `axis`.
///
/// Errors: ShapeError for an axis outside `[-rank, rank)` (a scalar has none); TypeError for
/// a dtype other than a float.
fn cumulative_logsumexp(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = CUMULATIVE_LOGSUMEXP.bind(rt, args)?;
    let x = a.tensor("x")?;
    let axis = a.int("axis")?;
    let (exclusive, reverse) = (a.bool_or("exclusive", false)?, a.bool_or("reverse", false)?);
    let rank = x.shape().len() as i64;
    if axis < -rank || axis >= rank {
        bail!(
            Shape,
            "cumulative_logsumexp: axis {axis} is out of range [{}, {rank}) for shape {}",
            -rank,
            shape_str(x.shape())
        );
    }
    let axis = if axis < 0 { axis + rank } else { axis } as usize;
    Ok(Value::Tensor(Tensor::new(segments::cumulative_logsumexp(&x.data, axis, exclusive, reverse)?)))
}

static SOBOL_SAMPLE: Native =
    Native::new("sobol_sample", &["dim: int", "num_results: int", "skip: int", "dtype: DType"], sobol_sample);

/// `sobol_sample(dim, num_results, skip, dtype)`: `[num_results, dim]` Sobol' points.
///
/// Errors: as [`sobol::sobol_sample`].
fn sobol_sample(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SOBOL_SAMPLE.bind(rt, args)?;
    let (dim, num, skip) = (a.int("dim")?, a.int("num_results")?, a.int("skip")?);
    let dtype = a.dtype("dtype")?;
    Ok(Value::Tensor(Tensor::new(sobol::sobol_sample(dim, num, skip, dtype)?)))
}
