//! Reductions beyond sum/mean/max/min, running sums and products, norms and clipping
//! by norm (issue 9), named as TensorFlow's without the prefix. The differentiable
//! ones record through the autodiff [`Recorder`](crate::autodiff::Recorder)'s
//! operations (`autodiff/ops/reduce.rs`).

use crate::autodiff::ops::reduce::NormOrd;
use crate::bail;
use crate::builtins::Signature;
use crate::runtime::error::R;
use crate::runtime::value::{Args, NativeFn, Value};
use crate::runtime::Interp;
use crate::tensor::reductions::{self, Running};
use crate::tensor::shape::{norm_axis, reduce_axes};
use crate::tensor::Tensor;

/// `reduce_*(input_tensor, axis=None, keepdims=False)`
static REDUCE: Signature = Signature::new(&["input_tensor", "axis", "keepdims"], 1);
/// `cumsum(x, axis=0, exclusive=False, reverse=False)` and `cumprod`
static RUNNING: Signature = Signature::new(&["x", "axis", "exclusive", "reverse"], 1);

/// Registers this file's functions.
pub fn register(reg: &mut impl FnMut(&str, NativeFn)) {
    reg("reduce_prod", reduce_prod);
    reg("reduce_variance", |rt, args| reduce_moment(rt, args, false));
    reg("reduce_std", |rt, args| reduce_moment(rt, args, true));
    reg("reduce_all", |rt, args| reduce_logical(rt, args, false));
    reg("reduce_any", |rt, args| reduce_logical(rt, args, true));
    reg("argmin", argmin);
    reg("cumsum", |rt, args| running(rt, args, Running::Sum));
    reg("cumprod", |rt, args| running(rt, args, Running::Prod));
    reg("moments", moments);
    reg("norm", norm);
    reg("global_norm", global_norm);
    reg("clip_by_norm", clip_by_norm);
    reg("clip_by_global_norm", clip_by_global_norm);
}

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
    Ok(Value::Tensor(if std { rt.unary(crate::tensor::kernels::Unary::Sqrt, &var)? } else { var }))
}

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

/// `argmin(input, axis=None)`: int64 indices of the smallest values along `axis`
/// (0 by default, as TF; first index on ties; NaN is never chosen, as TF).
///
/// Shapes: x [d0, …, dn] → `axis` dropped. Dtypes: any in, int64 out. Gradient: none.
/// Errors: ShapeError for an axis out of range; ValueError for an empty axis.
/// See: tf.math.argmin.
fn argmin(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["input", "axis"], 1);
    let mut a = SIG.bind(rt, args)?;
    let (t, axis) = (a.tensor("input")?, a.opt_int("axis")?.unwrap_or(0));
    let axis = norm_axis(axis, t.shape().len())?;
    Ok(Value::Tensor(Tensor::new(reductions::argmin(&t.data, axis)?)))
}

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

/// `moments(x, axes, shift=None, keepdims=False)`: `(mean, variance)` over `axes`.
///
/// Shapes: as `reduce_mean` over `axes`. Dtypes: float32, float64.
/// Gradient: through both; unlike TF (which stops the gradient through the mean inside the
/// variance), second derivatives are the true ones. `shift` is accepted and unused, as in TF 2.
/// Errors: TypeError for int64 or bool (TF truncates integer means); ShapeError for a bad axis.
/// See: tf.nn.moments.
fn moments(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["x", "axes", "shift", "keepdims"], 2);
    let mut a = SIG.bind(rt, args)?;
    let (t, axes) = (a.tensor("x")?, a.axes("axes")?);
    let _shift = a.opt("shift")?;
    let keep = a.bool_or("keepdims", false)?;
    let Some(axes) = axes else { bail!(Type, "moments: axes must be an int or a list of ints, not None") };
    let (m, v) = rt.ad.moments(&t, &axes, keep)?;
    Ok(Value::tuple(vec![Value::Tensor(m), Value::Tensor(v)]))
}

/// `norm(tensor, ord='euclidean', axis=None, keepdims=False)`: a vector norm over `axis`
/// (an int, or None for every element), or a matrix norm over a pair of axes.
///
/// `ord`: vectors take 'euclidean', 2, 1, inf or any p > 0; matrices 'fro', 'euclidean', 1
/// (largest column sum of |x|) or inf (largest row sum).
/// Shapes: the norm's axes dropped (kept as 1 with keepdims). Dtypes: float32, float64.
/// Gradient: through the composite (Euclidean: NaN at an all-zero group, as TF).
/// Errors: TypeError for int64 or bool; ValueError for an unsupported `ord` (ord=2 of a
/// matrix, TF's spectral norm, is not implemented) or `axis`.
/// See: tf.norm, tf.linalg.norm.
fn norm(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["tensor", "ord", "axis", "keepdims"], 1);
    let mut a = SIG.bind(rt, args)?;
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

/// `global_norm(t_list)`: sqrt(Σ ‖t‖²) over the tensors of a list (`None` entries skipped).
///
/// Shapes: any → scalar. Dtypes: float32 or float64, one for all (an empty list gives float32 0.0).
/// Gradient: t / global_norm to each tensor.
/// Errors: TypeError when t_list is not a list/tuple, for int64/bool, or for mixed dtypes.
/// See: tf.linalg.global_norm.
fn global_norm(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["t_list"], 1);
    let v = SIG.bind(rt, args)?.value("t_list")?;
    let ts: Vec<Tensor> = tensors_or_none(rt, &v, "global_norm")?.into_iter().flatten().collect();
    Ok(Value::Tensor(rt.ad.global_norm(&ts)?))
}

/// `clip_by_norm(t, clip_norm, axes=None)`: t scaled so that its Euclidean norm over
/// `axes` (None: all) is at most `clip_norm`: `t * clip_norm / max(‖t‖, clip_norm)`.
///
/// Shapes: same as t; clip_norm a scalar (or broadcasting to the kept-dims norm).
/// Dtypes: float32, float64; clip_norm takes t's dtype.
/// Gradient: through the composite; finite at an all-zero group (TF's safe norm).
/// Errors: TypeError for int64/bool; ShapeError if clip_norm would change t's shape.
/// See: tf.clip_by_norm.
fn clip_by_norm(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["t", "clip_norm", "axes"], 2);
    let mut a = SIG.bind(rt, args)?;
    let (t, c, axes) = (a.tensor("t")?, a.value("clip_norm")?, a.axes("axes")?);
    if !t.dtype().is_float() {
        bail!(Type, "clip_by_norm takes a float tensor, not {} (use cast)", t.dtype());
    }
    let c = rt.to_tensor(&c, Some(t.dtype()))?;
    Ok(Value::Tensor(rt.ad.clip_by_norm(&t, &c, axes.as_deref())?))
}

/// `clip_by_global_norm(t_list, clip_norm, use_norm=None)`: `(clipped_list, global_norm)`,
/// each tensor scaled by `clip_norm / max(global_norm, clip_norm)`; `None` entries stay
/// `None`; an infinite or NaN norm makes every clipped tensor NaN (TF).
///
/// Shapes: each as its tensor; the norm a scalar. Dtypes: float32, float64, one for all.
/// Gradient: through the scaling and the norm (TF does not stop it either).
/// Errors: TypeError when t_list is not a list/tuple, for int64/bool or mixed dtypes.
/// See: tf.clip_by_global_norm.
fn clip_by_global_norm(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["t_list", "clip_norm", "use_norm"], 2);
    let mut a = SIG.bind(rt, args)?;
    let (v, c, use_norm) = (a.value("t_list")?, a.value("clip_norm")?, a.non_none("use_norm")?);
    let slots = tensors_or_none(rt, &v, "clip_by_global_norm")?;
    let ts: Vec<Tensor> = slots.iter().flatten().cloned().collect();
    let dtype = ts.first().map_or(crate::tensor::DType::F32, |t| t.dtype());
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
