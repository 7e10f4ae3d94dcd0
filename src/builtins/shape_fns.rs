//! Reductions beyond sum/mean/max/min, running sums and products, norms and clipping
//! by norm, named as TensorFlow's without the prefix. The differentiable
//! ones record through the autodiff [`Recorder`](crate::autodiff::Recorder)'s
//! operations (`autodiff/ops/reduce.rs`).

use crate::autodiff::ops::axis_slice;
use crate::autodiff::ops::reduce::NormOrd;
use crate::bail;
use crate::builtins::{Native, Signature};
use crate::error::R;
use crate::runtime::value::{Args, Dialect, Value};
use crate::runtime::Interp;
use crate::tensor::reductions::{self, Running};
use crate::tensor::shape::{norm_axis, reduce_axes};
use crate::tensor::{Array, DType, Tensor};
use ndarray::{ArrayD, IxDyn, SliceInfoElem};
use std::rc::Rc;

/// `reduce_*(input_tensor, axis=None, keepdims=False)`
const REDUCE: Signature = Signature::new(&["input_tensor: TensorLike", "axis: Axes = None", "keepdims: bool = False"]);
/// `cumsum(x, axis=0, exclusive=False, reverse=False)` and `cumprod`
const RUNNING: Signature =
    Signature::new(&["x: TensorLike", "axis: int = 0", "exclusive: bool = False", "reverse: bool = False"]);

/// Registers this file's functions.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&REDUCE_PROD);
    reg(&REDUCE_VARIANCE);
    reg(&REDUCE_STD);
    reg(&REDUCE_ALL);
    reg(&REDUCE_ANY);
    reg(&ARGMIN);
    reg(&CUMSUM);
    reg(&CUMPROD);
    reg(&MOMENTS);
    reg(&NORM);
    reg(&GLOBAL_NORM);
    reg(&CLIP_BY_NORM);
    reg(&CLIP_BY_GLOBAL_NORM);
    reg(&SPLIT);
    reg(&UNSTACK);
    reg(&REVERSE);
    reg(&BROADCAST_TO);
    reg(&SHAPE);
    reg(&SIZE);
    reg(&RANK);
    reg(&MESHGRID);
    reg(&PAD);
}

static REDUCE_PROD: Native =
    Native::with("reduce_prod", REDUCE, reduce_prod).spelled(&["tf.math.reduce_prod", "tf.reduce_prod", "np.prod"]);

/// `reduce_prod(input_tensor, axis=None, keepdims=False)`: product over `axis`.
///
/// Shapes: x [d0, …, dn] → the reduced dims dropped (kept as 1 with keepdims).
/// Dtypes: float32, float64, int64; the result has x's dtype. Floats multiply in float64.
/// Gradient: upstream times the product of the other elements of each group (exact at zeros).
/// Errors: ShapeError for an axis out of range or repeated; TypeError on bool; ValueError
/// when an int64 product overflows (TF wraps around).
/// See: tf.math.reduce_prod.
fn reduce_prod(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = REDUCE.bind(rt, args)?;
    let (t, axes, keep) = (a.tensor("input_tensor")?, a.axes("axis")?, a.bool_or("keepdims", false)?);
    Ok(Value::Tensor(rt.ad.reduce_prod(&t, axes.as_deref(), keep)?))
}

static REDUCE_VARIANCE: Native = Native::with("reduce_variance", REDUCE, |rt, args| reduce_moment(rt, args, false))
    .spelled(&["tf.math.reduce_variance"]);
static REDUCE_STD: Native =
    Native::with("reduce_std", REDUCE, |rt, args| reduce_moment(rt, args, true)).spelled(&["tf.math.reduce_std"]);

/// `reduce_variance(input_tensor, axis=None, keepdims=False)`: mean of (x − mean)² over
/// `axis` (population variance); `reduce_std`: its square root.
///
/// Shapes: as `reduce_mean`. Dtypes: float32, float64 (float64 accumulation).
/// Gradient: through mean, subtraction and square (and sqrt for std: NaN where the variance is 0, as TF).
/// Errors: TypeError for int64 or bool; ShapeError for a bad axis.
/// See: tf.math.reduce_variance, tf.math.reduce_std.
fn reduce_moment(rt: &mut Interp, args: &mut Args, std: bool) -> R<Value> {
    let mut a = REDUCE.bind(rt, args)?;
    let (t, axes, keep) = (a.tensor("input_tensor")?, a.axes("axis")?, a.bool_or("keepdims", false)?);
    if std && !t.dtype().is_float() {
        bail!(Type, "reduce_std takes a float tensor, not {} (use cast)", t.dtype());
    }
    let var = rt.ad.variance(&t, axes.as_deref(), keep)?;
    Ok(Value::Tensor(if std { rt.ad.unary(crate::tensor::kernels::Unary::Sqrt, &var)? } else { var }))
}

static REDUCE_ALL: Native = Native::with("reduce_all", REDUCE, |rt, args| reduce_logical(rt, args, false)).spelled(&[
    "tf.math.reduce_all",
    "tf.reduce_all",
]);
static REDUCE_ANY: Native = Native::with("reduce_any", REDUCE, |rt, args| reduce_logical(rt, args, true)).spelled(&[
    "tf.math.reduce_any",
    "tf.reduce_any",
]);

/// `reduce_all(input_tensor, axis=None, keepdims=False)` / `reduce_any(…)`: logical
/// and / or over `axis`; an empty group gives True / False.
///
/// Shapes: as `reduce_sum`. Dtypes: bool in, bool out. Gradient: none (bool).
/// Errors: TypeError for a tensor that is not bool; ShapeError for a bad axis.
/// See: tf.math.reduce_all, tf.math.reduce_any.
fn reduce_logical(rt: &mut Interp, args: &mut Args, any: bool) -> R<Value> {
    let mut a = REDUCE.bind(rt, args)?;
    let (t, axes, keep) = (a.tensor("input_tensor")?, a.axes("axis")?, a.bool_or("keepdims", false)?);
    let axes = reduce_axes(axes.as_deref(), t.shape().len())?;
    Ok(Value::Tensor(Tensor::new(reductions::reduce_logical(&t.data, &axes, keep, any)?)))
}

static ARGMIN: Native = Native::new(
    "argmin",
    &["input: TensorLike", "axis: int | None = None", "output_type: DType | None = int64", "name=None"],
    argmin,
)
.spelled(&["tf.math.argmin", "tf.argmin"]);

/// `argmin(input, axis=None, output_type=int64)`: the indices of the smallest values along `axis`
/// (0 by default, as TF; first index on ties; NaN is never chosen, as TF).
///
/// Shapes: x [d0, …, dn] → `axis` dropped. Dtypes: any in; int64 out, or `output_type` (int32 or int64). Gradient: none.
/// Errors: ShapeError for an axis out of range; ValueError for an empty axis.
/// See: tf.math.argmin.
fn argmin(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = ARGMIN.bind(rt, args)?;
    let (t, axis) = (a.tensor("input")?, a.opt_int("axis")?.unwrap_or(0));
    let dtype = a.index_dtype("output_type", DType::I64)?;
    let axis = norm_axis(axis, t.shape().len())?;
    let out = Tensor::new(reductions::argmin(&t.data, axis)?.narrowed_to(dtype));
    rt.ad.note("argmin", &[&t], &[&out]);
    Ok(Value::Tensor(out))
}

static CUMSUM: Native = Native::with("cumsum", RUNNING, |rt, args| running(rt, args, Running::Sum))
    .spelled(&["tf.math.cumsum", "tf.cumsum"]);
static CUMPROD: Native =
    Native::with("cumprod", RUNNING, |rt, args| running(rt, args, Running::Prod)).spelled(&["tf.math.cumprod"]);

/// `cumsum(x, axis=0, exclusive=False, reverse=False)` / `cumprod(…)`: running sums or
/// products along `axis`; `exclusive` leaves each element out of its own result (the
/// first becomes 0 or 1), `reverse` runs from the end.
///
/// Shapes: same as x. Dtypes: float32, float64 (float64 accumulation), int64 (exact or an error).
/// Gradient: cumsum: the cumsum of upstream in the other direction; cumprod: that of
/// upstream × result, divided by x (0 where x is 0, as TF).
/// Errors: ShapeError for an axis out of range (a scalar has none); TypeError on bool;
/// ValueError on int64 overflow (TF wraps around).
/// See: tf.math.cumsum, tf.math.cumprod.
fn running(rt: &mut Interp, args: &mut Args, op: Running) -> R<Value> {
    let mut a = RUNNING.bind(rt, args)?;
    let (t, axis) = (a.tensor("x")?, a.int_or("axis", 0)?);
    let (exclusive, reverse) = (a.bool_or("exclusive", false)?, a.bool_or("reverse", false)?);
    Ok(Value::Tensor(rt.ad.cumulative(op, &t, axis, exclusive, reverse)?))
}

static MOMENTS: Native =
    Native::new("moments", &["x: TensorLike", "axes: Axes", "shift=None", "keepdims: bool = False"], moments)
        .spelled(&["tf.nn.moments"]);

/// `moments(x, axes, shift=None, keepdims=False)`: `(mean, variance)` over `axes`.
///
/// Shapes: as `reduce_mean` over `axes`. Dtypes: float32, float64.
/// Gradient: through both; unlike TF (which stops the gradient through the mean inside the
/// variance), second derivatives are the true ones. `shift` is accepted and unused, as in TF 2.
/// Errors: TypeError for int64 or bool (TF truncates integer means); ShapeError for a bad axis.
/// See: tf.nn.moments.
fn moments(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = MOMENTS.bind(rt, args)?;
    let (t, axes) = (a.tensor("x")?, a.axes("axes")?);
    let _shift = a.opt("shift")?;
    let keep = a.bool_or("keepdims", false)?;
    let Some(axes) = axes else { bail!(Type, "moments: axes must be an int or a list of ints, not None") };
    let (m, v) = rt.ad.moments(&t, &axes, keep)?;
    Ok(Value::tuple(vec![Value::Tensor(m), Value::Tensor(v)]))
}

static NORM: Native =
    Native::new("norm", &["tensor: TensorLike", "ord='euclidean'", "axis: Axes = None", "keepdims=False"], norm)
        .spelled(&["tf.norm", "tf.linalg.norm", "np.linalg.norm"]);

/// `norm(tensor, ord='euclidean', axis=None, keepdims=False)`: a vector norm over `axis`
/// (an int, or None for every element), or a matrix norm over a pair of axes.
///
/// `ord`: vectors take 'euclidean', 2, 1, inf or any p > 0; matrices 'fro', 'euclidean', 1
/// (largest column sum of |x|), inf (largest row sum) or 2 (the spectral norm: the largest
/// singular value, from a Jacobi eigen-decomposition of the Gram matrix in float64).
/// Shapes: the norm's axes dropped (kept as 1 with keepdims). Dtypes: float32, float64.
/// Gradient: through the composite (Euclidean: NaN at an all-zero group, as TF); the
/// spectral norm's is g·u vᵀ (u, v the top singular vectors), first order only.
/// Errors: TypeError for int64 or bool; ValueError for an unsupported `ord` or `axis`.
/// See: tf.norm, tf.linalg.norm.
fn norm(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = NORM.bind(rt, args)?;
    let t = a.tensor("tensor")?;
    let ord = a.value_or("ord", Value::Str("euclidean".into()))?;
    let axes = a.axes("axis")?;
    let keep = match a.opt("keepdims")? {
        None | Some(Value::None) => false,
        Some(v) => rt.bool_arg(&v)?,
    };
    let matrix = matches!(&axes, Some(x) if x.len() == 2);
    let kind = if matrix { "matrix" } else { "vector" };
    let bad = |o: &dyn std::fmt::Display| crate::err!(Value, "norm: ord={o} is not a supported {kind} norm");
    // ord=2 of a matrix: the spectral norm (autodiff/ops/linalg.rs).
    if matrix && matches!(ord, Value::Int(2)) || matches!(ord, Value::Float(f) if f == 2.0 && matrix) {
        let axes = axes.unwrap_or_default();
        return Ok(Value::Tensor(rt.ad.matrix_spectral_norm(&t, (axes[0], axes[1]), keep)?));
    }
    let ord = match &ord {
        Value::Str(s) if &**s == "euclidean" => NormOrd::Euclidean,
        Value::Str(s) if &**s == "fro" && matrix => NormOrd::Euclidean,
        Value::Str(s) => return Err(bad(&format!("'{s}'"))),
        Value::Int(_) | Value::Float(_) => {
            let p = match ord {
                Value::Int(i) => i as f64,
                Value::Float(f) => f,
                _ => unreachable!("matched above"),
            };
            match p {
                _ if p == 1.0 => NormOrd::One,
                _ if p == f64::INFINITY => NormOrd::Inf,
                _ if p == 2.0 && !matrix => NormOrd::Euclidean,
                _ if p > 0.0 && p.is_finite() && !matrix => NormOrd::P(p),
                _ => return Err(bad(&p)),
            }
        }
        other => bail!(Type, "norm: ord must be a string or a number, not {}", other.type_name()),
    };
    Ok(Value::Tensor(rt.ad.norm(&t, ord, axes.as_deref(), keep)?))
}

/// The tensors of a list or tuple argument, `None` entries kept as `None` (TF skips them).
fn tensors_or_none(rt: &mut Interp, v: &Value, what: &str) -> R<Vec<Option<Tensor>>> {
    if !matches!(v, Value::List(_) | Value::Tuple(_)) {
        bail!(Type, "{what}: t_list must be a list or tuple of tensors, not {}", v.type_name());
    }
    let items = rt.iterate(v)?;
    items
        .iter()
        .map(|x| match x {
            Value::None => Ok(None),
            Value::Tensor(_) | Value::Variable(_) => rt.to_tensor(x, None).map(Some),
            other => bail!(Type, "{what}: t_list must hold tensors, found a {}", other.type_name()),
        })
        .collect()
}

static GLOBAL_NORM: Native = Native::new("global_norm", &["t_list"], global_norm).spelled(&["tf.linalg.global_norm"]);

/// `global_norm(t_list)`: sqrt(Σ ‖t‖²) over the tensors of a list (`None` entries skipped).
///
/// Shapes: any → scalar. Dtypes: float32 or float64, one for all (an empty list gives float32 0.0).
/// Gradient: t / global_norm to each tensor.
/// Errors: TypeError when t_list is not a list/tuple, for int64/bool, or for mixed dtypes.
/// See: tf.linalg.global_norm.
fn global_norm(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let v = GLOBAL_NORM.bind(rt, args)?.value("t_list")?;
    let ts: Vec<Tensor> = tensors_or_none(rt, &v, "global_norm")?.into_iter().flatten().collect();
    Ok(Value::Tensor(rt.ad.global_norm(&ts)?))
}

static CLIP_BY_NORM: Native =
    Native::new("clip_by_norm", &["t: TensorLike", "clip_norm", "axes: Axes = None"], clip_by_norm)
        .spelled(&["tf.clip_by_norm"]);

/// `clip_by_norm(t, clip_norm, axes=None)`: t scaled so that its Euclidean norm over
/// `axes` (None: all) is at most `clip_norm`: `t * clip_norm / max(‖t‖, clip_norm)`.
///
/// Shapes: same as t; clip_norm a scalar (or broadcasting to the kept-dims norm).
/// Dtypes: float32, float64; clip_norm takes t's dtype.
/// Gradient: through the composite; finite at an all-zero group (TF's safe norm).
/// Errors: TypeError for int64/bool; ShapeError if clip_norm would change t's shape.
/// See: tf.clip_by_norm.
fn clip_by_norm(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = CLIP_BY_NORM.bind(rt, args)?;
    let (t, c, axes) = (a.tensor("t")?, a.value("clip_norm")?, a.axes("axes")?);
    if !t.dtype().is_float() {
        bail!(Type, "clip_by_norm takes a float tensor, not {} (use cast)", t.dtype());
    }
    let c = rt.to_tensor(&c, Some(t.dtype()))?;
    Ok(Value::Tensor(rt.ad.clip_by_norm(&t, &c, axes.as_deref())?))
}

static CLIP_BY_GLOBAL_NORM: Native =
    Native::new("clip_by_global_norm", &["t_list", "clip_norm", "use_norm=None"], clip_by_global_norm)
        .spelled(&["tf.clip_by_global_norm"]);

/// `clip_by_global_norm(t_list, clip_norm, use_norm=None)`: `(clipped_list, global_norm)`,
/// each tensor scaled by `clip_norm / max(global_norm, clip_norm)`; `None` entries stay
/// `None`; an infinite or NaN norm makes every clipped tensor NaN (TF).
///
/// Shapes: each as its tensor; the norm a scalar. Dtypes: float32, float64, one for all.
/// Gradient: through the scaling and the norm (TF does not stop it either).
/// Errors: TypeError when t_list is not a list/tuple, for int64/bool or mixed dtypes.
/// See: tf.clip_by_global_norm.
fn clip_by_global_norm(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = CLIP_BY_GLOBAL_NORM.bind(rt, args)?;
    let (v, c, use_norm) = (a.value("t_list")?, a.value("clip_norm")?, a.non_none("use_norm")?);
    let slots = tensors_or_none(rt, &v, "clip_by_global_norm")?;
    let ts: Vec<Tensor> = slots.iter().flatten().cloned().collect();
    let dtype = ts.first().map_or(DType::F32, |t| t.dtype());
    let c = rt.to_tensor(&c, Some(dtype))?;
    let use_norm = match use_norm {
        Some(n) => Some(rt.to_tensor(&n, Some(dtype))?),
        None => None,
    };
    let (clipped, norm) = rt.ad.clip_by_global_norm(&ts, &c, use_norm)?;
    let mut clipped = clipped.into_iter();
    let list = slots
        .iter()
        .map(|s| match s {
            Some(_) => Value::Tensor(clipped.next().expect("one per tensor")),
            None => Value::None,
        })
        .collect();
    Ok(Value::tuple(vec![Value::list(list), Value::Tensor(norm)]))
}

static SPLIT: Native =
    Native::new("split", &["value: TensorLike", "num_or_size_splits", "axis: int = 0", "num=None"], split)
        .spelled(&["tf.split"]);

/// `split(value, num_or_size_splits, axis=0)`: a list of pieces along `axis`, either
/// `num_or_size_splits` equal pieces (an int) or pieces of the listed sizes (one may be -1:
/// the rest).
///
/// Shapes: x [.., d, ..] → pieces [.., d_i, ..]. Dtypes: any, kept.
/// Gradient: each piece's gradient in its place (zeros for unused pieces).
/// Errors: ShapeError for an axis out of range; ValueError when the count does not divide d,
/// the sizes do not add up to d, more than one size is -1, or `num_or_size_splits` is a scalar
/// tensor (as TF).
/// See: tf.split.
fn split(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SPLIT.bind(rt, args)?;
    let (t, n, axis) = (a.tensor("value")?, a.value("num_or_size_splits")?, a.int_or("axis", 0)?);
    let _num = a.opt("num")?;
    let axis = norm_axis(axis, t.shape().len())?;
    let d = t.shape()[axis];
    let sizes: Vec<usize> = match &n {
        Value::Int(k) => {
            if *k <= 0 || d % *k as usize != 0 {
                bail!(Value, "split: {d} elements along axis {axis} do not split into {k} equal pieces");
            }
            vec![d / *k as usize; *k as usize]
        }
        // TF refuses a rank-0 tensor here (it would read as one size); so does DGL, with a way out.
        Value::Tensor(_) | Value::Variable(_) if rt.to_tensor(&n, None)?.shape().is_empty() => bail!(
            Value,
            "split: num_or_size_splits must be an int or a list of sizes, not a scalar tensor (for that many equal pieces, pass int(n))"
        ),
        other => {
            let given = rt.shape_arg(other)?;
            let unknown: Vec<usize> = (0..given.len()).filter(|&i| given[i] == -1).collect();
            if unknown.len() > 1 || given.iter().any(|&s| s < -1) {
                bail!(Value, "split: sizes {given:?} may hold one -1 and no other negative size");
            }
            let known: i64 = given.iter().filter(|&&s| s >= 0).sum();
            let rest = d as i64 - known;
            if (unknown.is_empty() && rest != 0) || rest < 0 {
                bail!(Value, "split: sizes {given:?} do not add up to {d}, the length of axis {axis}");
            }
            given.iter().map(|&s| if s == -1 { rest as usize } else { s as usize }).collect()
        }
    };
    let mut pieces = Vec::with_capacity(sizes.len());
    let mut start = 0isize;
    for s in sizes {
        let end = start + s as isize;
        let info = axis_slice(t.shape().len(), axis, SliceInfoElem::Slice { start, end: Some(end), step: 1 });
        pieces.push(Value::Tensor(rt.ad.index(&t, info)?));
        start = end;
    }
    Ok(Value::list(pieces))
}

static UNSTACK: Native =
    Native::new("unstack", &["value: TensorLike", "num: int | None = None", "axis: int = 0"], unstack)
        .spelled(&["tf.unstack"]);

/// `unstack(value, num=None, axis=0)`: the slices along `axis`, as a list.
///
/// Shapes: x [.., d, ..] → d tensors [.., ..]. Dtypes: any, kept.
/// Gradient: the slices' gradients stacked back (zeros for unused slices).
/// Errors: ShapeError for an axis out of range or a scalar; ValueError when `num` is not d.
/// See: tf.unstack.
fn unstack(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = UNSTACK.bind(rt, args)?;
    let (t, num, axis) = (a.tensor("value")?, a.opt_int("num")?, a.int_or("axis", 0)?);
    let axis = norm_axis(axis, t.shape().len())?;
    let d = t.shape()[axis];
    if let Some(n) = num {
        if n != d as i64 {
            bail!(Value, "unstack: num={n} but axis {axis} has length {d}");
        }
    }
    let mut out = Vec::with_capacity(d);
    for i in 0..d {
        let info = axis_slice(t.shape().len(), axis, SliceInfoElem::Index(i as isize));
        out.push(Value::Tensor(rt.ad.index(&t, info)?));
    }
    Ok(Value::list(out))
}

static REVERSE: Native =
    Native::new("reverse", &["tensor: TensorLike", "axis: Axes"], reverse).spelled(&["tf.reverse"]);

/// `reverse(tensor, axis)`: the order of the elements along each of `axis` (a list) reversed.
///
/// Shapes and dtypes: kept. Gradient: the upstream gradient reversed the same way.
/// Errors: ShapeError for an axis out of range; ValueError for a repeated axis.
/// See: tf.reverse.
fn reverse(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = REVERSE.bind(rt, args)?;
    let (t, axes) = (a.tensor("tensor")?, a.axes("axis")?.unwrap_or_default());
    let nd = t.shape().len();
    let mut flip = vec![false; nd];
    for &ax in &axes {
        let ax = norm_axis(ax, nd)?;
        if std::mem::replace(&mut flip[ax], true) {
            bail!(Value, "reverse: axis {ax} is repeated in {axes:?}");
        }
    }
    let info: Vec<SliceInfoElem> =
        flip.iter().map(|&f| SliceInfoElem::Slice { start: 0, end: None, step: if f { -1 } else { 1 } }).collect();
    Ok(Value::Tensor(rt.ad.index(&t, Rc::new(info))?))
}

static BROADCAST_TO: Native =
    Native::new("broadcast_to", &["input: TensorLike", "shape: Shape"], broadcast_to).spelled(&["tf.broadcast_to"]);

/// `broadcast_to(input, shape)`: x repeated along its size-1 (or missing leading) axes.
///
/// Shapes: x → `shape` (NumPy's rules, x's shape broadcasting to it). Dtypes: any, kept.
/// Gradient: the upstream gradient summed back to x's shape.
/// Errors: ShapeError when x does not broadcast to `shape`; ValueError for a negative or
/// over-budget shape.
/// See: tf.broadcast_to.
fn broadcast_to(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = BROADCAST_TO.bind(rt, args)?;
    let (t, dims) = (a.tensor("input")?, a.dims("shape")?);
    let joint = crate::tensor::shape::broadcast_shapes(t.shape(), &dims)?;
    if joint != dims {
        bail!(
            Shape,
            "cannot broadcast shape {} to {}",
            crate::tensor::shape_str(t.shape()),
            crate::tensor::shape_str(&dims)
        );
    }
    let out = rt.ad.broadcast_to(&t, &dims)?;
    // A result that is x itself still gets its own id, as every op's result does.
    Ok(Value::Tensor(if out.id == t.id { rt.ad.identity(&t) } else { out }))
}

/// What [`shape_fn`] reports.
#[derive(Clone, Copy)]
enum Measure {
    Shape,
    Size,
    Rank,
}

const SHAPE_FN_SIG: Signature = Signature::new(&["input: TensorLike", "out_type: DType | None = None"]);
static SHAPE: Native =
    Native::with("shape", SHAPE_FN_SIG, |rt, args| shape_fn(rt, args, Measure::Shape)).spelled(&["tf.shape"]);
static SIZE: Native =
    Native::with("size", SHAPE_FN_SIG, |rt, args| shape_fn(rt, args, Measure::Size)).spelled(&["tf.size"]);
static RANK: Native = Native::with("rank", SHAPE_FN_SIG, |rt, args| shape_fn(rt, args, Measure::Rank))
    .spelled(&["tf.rank"])
    // Arguments TF's op lacks (dtype=, out_type=, the other mapping op's options), and
    // DGL's dtypes for fill and rank.
    .exported_as("dgl_tf.rank");

/// `shape(input)`, `size(input)`, `rank(input)`: a tensor's dimensions (a vector), element
/// count and number of axes (scalars).
///
/// Dtypes: any input; int64 results, or `out_type` (int32 or int64); int32 when called as
/// `tf.shape`, `tf.size`, `tf.rank`, as TF's default.
/// Gradient: none. Errors: none for a tensor (numbers and lists are converted first).
/// See: tf.shape, tf.size, tf.rank.
fn shape_fn(rt: &mut Interp, args: &mut Args, m: Measure) -> R<Value> {
    let default = if rt.dialect == Dialect::Tf { DType::I32 } else { DType::I64 };
    let mut a = SHAPE_FN_SIG.bind(rt, args)?;
    let t = a.tensor("input")?;
    let dtype = a.opt_dtype("out_type")?.unwrap_or(default);
    if !dtype.is_int() {
        bail!(Type, "out_type must be int32 or int64, not {dtype}");
    }
    let int = |v: usize| Array::I64(ArrayD::from_elem(IxDyn(&[]), v as i64));
    let out = match m {
        Measure::Shape => Array::I64(
            ArrayD::from_shape_vec(IxDyn(&[t.shape().len()]), t.shape().iter().map(|&d| d as i64).collect())
                .expect("one entry per axis"),
        ),
        Measure::Size => int(t.len()),
        Measure::Rank => int(t.shape().len()),
    };
    Ok(Value::Tensor(Tensor::new(out.narrowed_to(dtype))))
}

static MESHGRID: Native = Native::new("meshgrid", &["*args", "indexing='xy'"], meshgrid).spelled(&["tf.meshgrid"]);

/// `meshgrid(*args, indexing='xy')`: N coordinate grids from N vectors. With 'xy' (the
/// default) the first two grid axes are swapped, as for plotting; 'ij' is matrix indexing.
///
/// Shapes: vectors of lengths n0, n1, … → N tensors [n1, n0, n2, …] ('xy') or [n0, n1, …] ('ij').
/// Dtypes: any, one for all (numbers and lists become float32). Gradient: each grid summed
/// back to its vector.
/// Errors: ValueError for another `indexing`; TypeError for mixed dtypes; ValueError over budget.
/// See: tf.meshgrid.
fn meshgrid(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = MESHGRID.bind(rt, args)?;
    let indexing = a.value_or("indexing", Value::Str("xy".into()))?;
    let items = std::mem::take(&mut a.rest);
    drop(a);
    let xy = match &indexing {
        Value::Str(s) if &**s == "xy" => true,
        Value::Str(s) if &**s == "ij" => false,
        other => bail!(Value, "meshgrid: indexing must be 'xy' or 'ij', not {}", rt.repr_of(other)?),
    };
    let mut vecs = Vec::with_capacity(items.len());
    for v in &items {
        let t = rt.to_tensor(v, None)?;
        if let Some(first) = vecs.first() {
            let first: &Tensor = first;
            if first.dtype() != t.dtype() {
                bail!(Type, "meshgrid: inputs must share one dtype, got {} and {}", first.dtype(), t.dtype());
            }
        }
        vecs.push(rt.ad.reshape_to(&t, &[t.len()])?);
    }
    let n = vecs.len();
    // The grid axis of input i: 'xy' swaps the first two.
    let axis_of = |i: usize| if xy && n >= 2 && i < 2 { 1 - i } else { i };
    let mut full = vec![0usize; n];
    for (i, v) in vecs.iter().enumerate() {
        full[axis_of(i)] = v.len();
    }
    crate::tensor::budget::check_shape(&full)?;
    let mut out = Vec::with_capacity(n);
    for (i, v) in vecs.iter().enumerate() {
        let mut shape = vec![1usize; n];
        shape[axis_of(i)] = v.len();
        let r = rt.ad.reshape_to(v, &shape)?;
        let b = rt.ad.broadcast_to(&r, &full)?;
        out.push(Value::Tensor(b));
    }
    Ok(Value::list(out))
}

static PAD: Native =
    Native::new("pad", &["tensor: TensorLike", "paddings", "mode='CONSTANT'", "constant_values=0"], pad)
        .spelled(&["tf.pad"]);

/// `pad(tensor, paddings, mode='CONSTANT', constant_values=0)`: `paddings[i] = [before, after]`
/// elements added on axis i: copies of `constant_values` ('CONSTANT'), a mirror image that
/// leaves out the edge element ('REFLECT') or repeats it ('SYMMETRIC'). Mode names are
/// case-insensitive, as in TF.
///
/// Shapes: x [d0, …] → [d0 + before0 + after0, …]. Dtypes: any, kept (constant_values takes it).
/// Gradient: the upstream gradient of the copied elements added back to x (none to the constant).
/// Errors: ValueError for paddings that are not [rank, 2] non-negative ints, an unknown mode,
/// REFLECT padding ≥ d (SYMMETRIC: > d), or an over-budget result.
/// See: tf.pad.
fn pad(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = PAD.bind(rt, args)?;
    let (t, p) = (a.tensor("tensor")?, a.value("paddings")?);
    let mode = a.value_or("mode", Value::Str("CONSTANT".into()))?;
    let cv = a.value_or("constant_values", Value::Int(0))?;
    drop(a);
    let mode = match &mode {
        Value::Str(s) => s.to_ascii_uppercase(),
        other => bail!(Type, "pad: mode must be a string, not {}", other.type_name()),
    };
    if !matches!(mode.as_str(), "CONSTANT" | "REFLECT" | "SYMMETRIC") {
        bail!(Value, "pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', not '{mode}'");
    }
    let rows = match &p {
        Value::Tensor(pt) => {
            let flat = pt.data.to_i64_vec()?;
            if pt.shape() != [t.shape().len(), 2] {
                bail!(
                    Value,
                    "pad: paddings must have shape ({}, 2), got {}",
                    t.shape().len(),
                    crate::tensor::shape_str(pt.shape())
                );
            }
            flat.chunks(2).map(|c| (c[0], c[1])).collect::<Vec<_>>()
        }
        other => {
            let items = rt.iterate(other)?;
            let mut rows = Vec::with_capacity(items.len());
            for it in &items {
                let pair = rt.shape_arg(it)?;
                if pair.len() != 2 {
                    bail!(Value, "pad: each row of paddings must be [before, after], got {pair:?}");
                }
                rows.push((pair[0], pair[1]));
            }
            rows
        }
    };
    if rows.len() != t.shape().len() {
        bail!(
            Value,
            "pad: paddings needs one [before, after] row per axis: got {} for rank {}",
            rows.len(),
            t.shape().len()
        );
    }
    let mut target = Vec::with_capacity(rows.len());
    for (&(b, e), &d) in rows.iter().zip(t.shape()) {
        if b < 0 || e < 0 {
            bail!(Value, "pad: paddings must be non-negative, got [{b}, {e}]");
        }
        let limit = match mode.as_str() {
            "REFLECT" => d as i64 - 1,
            "SYMMETRIC" => d as i64,
            _ => i64::MAX,
        };
        if b > limit || e > limit {
            bail!(Value, "pad: {mode} padding [{b}, {e}] is too large for an axis of length {d}");
        }
        target.push((d as u128 + b as u128 + e as u128).min(usize::MAX as u128) as usize);
    }
    crate::tensor::budget::check_shape(&target)?;
    let cv = rt.to_tensor(&cv, Some(t.dtype()))?;
    if cv.len() != 1 {
        bail!(Value, "pad: constant_values must be a scalar, got shape {}", crate::tensor::shape_str(cv.shape()));
    }
    let cv = cv.data.first_f64();
    let t_id = t.id;
    let mut x = t;
    for (axis, &(b, e)) in rows.iter().enumerate() {
        if b == 0 && e == 0 {
            continue;
        }
        let (b, e) = (b as usize, e as usize);
        let d = x.shape()[axis];
        let nd = x.shape().len();
        // One side: a constant block, or a reversed run [lo, hi) of x along the axis.
        let side = |rt: &mut Interp, n: usize, lo: usize, x: &Tensor| -> R<Tensor> {
            if mode == "CONSTANT" {
                let mut shape = x.shape().to_vec();
                shape[axis] = n;
                return Ok(Tensor::new(Array::full(x.dtype(), &shape, cv)));
            }
            let sl = SliceInfoElem::Slice { start: lo as isize, end: Some((lo + n) as isize), step: -1 };
            rt.ad.index(x, axis_slice(nd, axis, sl))
        };
        let (lo_b, lo_e) = match mode.as_str() {
            "REFLECT" => (1, d - 1 - e),
            // CONSTANT never reads x (its padding may exceed d): saturate instead of underflowing.
            _ => (0, d.saturating_sub(e)),
        };
        let before = side(rt, b, lo_b, &x)?;
        let after = side(rt, e, lo_e, &x)?;
        x = rt.ad.concat(&[before, x.clone(), after], axis as i64)?;
    }
    // Nothing padded: still a fresh result, as every op's is.
    Ok(Value::Tensor(if x.id == t_id { rt.ad.identity(&x) } else { x }))
}
