//! Random tensors (docs/language.md §4), named as TensorFlow's `tf.random.*` without the
//! prefix (and with TF 1's `random_` names where DGL always had them). Every op takes `seed=`:
//! with `set_seed(g)` and `seed=s` its draws are a function of (g, s, the op's call count),
//! as TF's op seeds are; without one it draws from the global stream. Both live in
//! `Interp::rng` (`tensor/random.rs`), which `recompute_grad` replays.

use crate::bail;
use crate::builtins::{Bound, Native, Signature};
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::random::RandomState;
use crate::tensor::{Array, DType, Tensor};
use ndarray::{ArrayD, IxDyn};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// Registers this file's functions.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&SET_SEED);
    reg(&RANDOM_NORMAL);
    reg(&TRUNCATED_NORMAL);
    reg(&RANDOM_UNIFORM);
    reg(&RANDOM_SHUFFLE);
    reg(&SHUFFLE);
    reg(&RANDOM_CATEGORICAL);
    reg(&CATEGORICAL);
}

static SET_SEED: Native = Native::new("set_seed", &["seed: int"], set_seed)
    .spelled(&["tf.random.set_seed"])
    // DGL's draws, replayed from the .npz written beside the script.
    .exported_as("dgl_tf.set_seed");

/// `set_seed(seed)`: the global seed (TF's `tf.random.set_seed`). Same seed, same numbers on
/// every run; the op-seed call counts start again from zero, as in TF.
fn set_seed(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = SET_SEED.bind(rt, args)?.int("seed")?;
    rt.rng = RandomState::seeded(s);
    Ok(Value::None)
}

/// The `seed=` argument: an int or None.
fn op_seed(a: &mut Bound) -> R<Option<i64>> {
    a.opt_int("seed")
}

const NORMAL_SIG: Signature = Signature::new(&[
    "shape: Shape",
    "mean: float = 0.0",
    "stddev: float = 1.0",
    "dtype: DType | None = float32",
    "seed: int | None = None",
    "name=None",
]);
static RANDOM_NORMAL: Native = Native::with("random_normal", NORMAL_SIG, |rt, a| normal(rt, a, "random_normal", false))
    .spelled(&["tf.random.normal"])
    // DGL's draws, replayed from the .npz written beside the script.
    .exported_as("dgl_tf.random_normal");
static TRUNCATED_NORMAL: Native =
    Native::with("truncated_normal", NORMAL_SIG, |rt, a| normal(rt, a, "truncated_normal", true))
        .spelled(&["tf.random.truncated_normal"])
        // DGL's draws, replayed from the .npz written beside the script.
        .exported_as("dgl_tf.truncated_normal");

/// `random_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None)` and
/// `truncated_normal(…)` (same parameters).
///
/// Shapes: `shape`. Dtypes: float32, float64.
/// Values: mean + stddev·z with z standard normal; truncated_normal redraws each z with
/// |z| > 2, as TF (so its variance is stddev²·0.7737…).
/// Gradient: none (a new tensor).
/// Errors: TypeError for a non-float dtype; ValueError for a negative dimension.
/// See: tf.random.normal, tf.random.truncated_normal.
fn normal(rt: &mut Interp, args: &mut Args, name: &'static str, truncated: bool) -> R<Value> {
    let mut a = NORMAL_SIG.bind(rt, args)?;
    let dims = a.dims("shape")?;
    let (mean, std) = (a.float_or("mean", 0.0)?, a.float_or("stddev", 1.0)?);
    let dtype = a.opt_dtype("dtype")?.unwrap_or(DType::F32);
    let seed = op_seed(&mut a)?;
    if !dtype.is_float() {
        bail!(Type, "{name} needs a float dtype (float32 or float64), got {dtype}");
    }
    let n: usize = dims.iter().product();
    crate::tensor::budget::check_elements(n, dtype.size())?;
    let mut rng = rt.rng.stream(name, seed);
    let vals = Array::from_f64_fn(dtype, &dims, || {
        let mut z: f64 = StandardNormal.sample(&mut rng);
        while truncated && z.abs() > 2.0 {
            z = StandardNormal.sample(&mut rng);
        }
        mean + std * z
    });
    Ok(Value::Tensor(rt.drawn(name, Tensor::new(vals))))
}

static RANDOM_UNIFORM: Native = Native::new(
    "random_uniform",
    &[
        "shape: Shape",
        "minval=0",
        "maxval=None",
        "dtype: DType | None = float32",
        "seed: int | None = None",
        "name=None",
    ],
    random_uniform,
)
.spelled(&["tf.random.uniform"])
// DGL's draws, replayed from the .npz written beside the script.
.exported_as("dgl_tf.random_uniform");

/// `random_uniform(shape, minval=0, maxval=None, dtype=float32, seed=None)`: uniform on
/// [minval, maxval).
///
/// Shapes: `shape`. Dtypes: float32, float64 (maxval defaults to 1); int64 (maxval required,
/// each integer of [minval, maxval) equally likely).
/// Gradient: none (a new tensor).
/// Errors: ValueError for an int64 dtype without maxval or with minval ≥ maxval (TF's
/// InvalidArgumentError), TypeError for bool.
/// See: tf.random.uniform.
fn random_uniform(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = RANDOM_UNIFORM.bind(rt, args)?;
    let dims = a.dims("shape")?;
    let (minval, maxval) = (a.non_none("minval")?, a.non_none("maxval")?);
    let dtype = a.opt_dtype("dtype")?.unwrap_or(DType::F32);
    let seed = op_seed(&mut a)?;
    let n: usize = dims.iter().product();
    crate::tensor::budget::check_elements(n, dtype.size())?;
    match dtype {
        DType::F16 | DType::F32 | DType::F64 => {
            let lo = match minval {
                Some(v) => rt.float_arg(&v, "minval")?,
                None => 0.0,
            };
            let hi = match maxval {
                Some(v) => rt.float_arg(&v, "maxval")?,
                None => 1.0,
            };
            let mut rng = rt.rng.stream("random_uniform", seed);
            // The formula unseeded programs have always drawn with (their numbers stay the same).
            let vals = Array::from_f64_fn(dtype, &dims, || lo + (hi - lo) * rng.random::<f64>());
            Ok(Value::Tensor(rt.drawn("random_uniform", Tensor::new(vals))))
        }
        DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => {
            let Some(maxval) = maxval else {
                bail!(Value, "random_uniform needs maxval for an integer dtype ({dtype})");
            };
            let hi = rt.int_arg(&maxval, "maxval")?;
            let lo = match minval {
                Some(v) => rt.int_arg(&v, "minval")?,
                None => 0,
            };
            if lo >= hi {
                bail!(Value, "random_uniform needs minval < maxval, got {lo} >= {hi}");
            }
            let mut rng = rt.rng.stream("random_uniform", seed);
            let vals: Vec<i64> = (0..n).map(|_| rng.random_range(lo..hi)).collect();
            let t = Array::I64(ArrayD::from_shape_vec(IxDyn(&dims), vals).expect("n values")).narrowed_to(dtype);
            Ok(Value::Tensor(rt.drawn("random_uniform", Tensor::new(t))))
        }
        DType::Bool => bail!(Type, "random_uniform needs a float or int dtype, got bool"),
    }
}

const SHUFFLE_SIG: Signature = Signature::new(&["value: TensorLike", "seed: int | None = None", "name=None"]);
static RANDOM_SHUFFLE: Native = Native::with("random_shuffle", SHUFFLE_SIG, |rt, a| shuffle(rt, a, "random_shuffle"))
    // DGL's draws, replayed from the .npz written beside the script.
    .exported_as("dgl_tf.random_shuffle");
static SHUFFLE: Native = Native::with("shuffle", SHUFFLE_SIG, |rt, a| shuffle(rt, a, "shuffle"))
    .spelled(&["tf.random.shuffle"])
    // DGL's draws, replayed from the .npz written beside the script.
    .exported_as("dgl_tf.random_shuffle");

/// `random_shuffle(value, seed=None)` (also `shuffle`): the slices of `value` along axis 0 in a
/// uniformly random order.
///
/// Shapes: value's (a scalar is returned as it is). Dtypes: any.
/// Gradient: none (TF registers none: the result is a new tensor).
/// See: tf.random.shuffle.
fn shuffle(rt: &mut Interp, args: &mut Args, name: &'static str) -> R<Value> {
    let mut a = SHUFFLE_SIG.bind(rt, args)?;
    let t = a.tensor("value")?;
    let seed = op_seed(&mut a)?;
    if t.shape().is_empty() {
        return Ok(Value::Tensor(t.renamed()));
    }
    let rows = t.shape()[0];
    let mut order: Vec<usize> = (0..rows).collect();
    let mut rng = rt.rng.stream(name, seed);
    // Fisher–Yates, from the end.
    for i in (1..rows).rev() {
        let j = rng.random_range(0..=i);
        order.swap(i, j);
    }
    let out = crate::map_dtype!(&*t.data, x => x.select(ndarray::Axis(0), &order));
    Ok(Value::Tensor(rt.drawn("random_shuffle", Tensor::new(out))))
}

const CATEGORICAL_SIG: Signature = Signature::new(&[
    "logits: TensorLike",
    "num_samples: int",
    "dtype: DType | None = None",
    "seed: int | None = None",
    "name=None",
]);
static RANDOM_CATEGORICAL: Native =
    Native::with("random_categorical", CATEGORICAL_SIG, |rt, a| categorical(rt, a, "random_categorical"))
        // DGL's draws, replayed from the .npz written beside the script.
        .exported_as("dgl_tf.categorical");
static CATEGORICAL: Native = Native::with("categorical", CATEGORICAL_SIG, |rt, a| categorical(rt, a, "categorical"))
    .spelled(&["tf.random.categorical"])
    // DGL's draws, replayed from the .npz written beside the script.
    .exported_as("dgl_tf.categorical");

/// `categorical(logits, num_samples, dtype=None, seed=None)` (also `random_categorical`):
/// `num_samples` class indices per row, class k drawn with probability softmax(logits)[k].
///
/// Shapes: logits [batch, classes] → [batch, num_samples]. Dtypes: logits float32/float64;
/// the samples int64, or `dtype` (int32 or int64).
/// Gradient: none (integer samples).
/// Errors: ShapeError for logits not of rank 2; ValueError for a negative num_samples, no
/// classes, or another dtype (TF's wording: accepted dtypes are int32 and int64).
/// See: tf.random.categorical.
fn categorical(rt: &mut Interp, args: &mut Args, name: &'static str) -> R<Value> {
    let mut a = CATEGORICAL_SIG.bind(rt, args)?;
    let (logits, k) = (a.tensor("logits")?, a.int("num_samples")?);
    let dtype = match a.opt_dtype("dtype")? {
        None => DType::I64,
        Some(d) if d.is_int() => d,
        Some(d) => bail!(Value, "{name}: dtype must be int32 or int64, got {d}"),
    };
    let seed = op_seed(&mut a)?;
    let s = logits.shape();
    if s.len() != 2 {
        bail!(Shape, "{name} needs logits of rank 2 [batch, classes], got shape {}", crate::tensor::shape_str(s));
    }
    if !logits.dtype().is_float() {
        bail!(Type, "{name} needs float logits, got {}", logits.dtype());
    }
    if k < 0 {
        bail!(Value, "{name}: num_samples must be non-negative, got {k}");
    }
    let (batch, classes) = (s[0], s[1]);
    if classes == 0 && batch > 0 && k > 0 {
        bail!(Value, "{name} needs at least one class, got logits of shape {}", crate::tensor::shape_str(s));
    }
    let k = k as usize;
    crate::tensor::budget::check_shape(&[batch, k])?;
    let lv = logits.data.try_to_f64_vec()?;
    let mut rng = rt.rng.stream(name, seed);
    let mut out = Vec::with_capacity(batch * k);
    for row in lv.chunks(classes.max(1)).take(batch) {
        // Unnormalised probabilities exp(l − max) and their running sums: a uniform draw on
        // [0, total) picks the first class whose running sum exceeds it (a −inf logit never).
        let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut cum = Vec::with_capacity(classes);
        let mut total = 0.0;
        for &l in row {
            total += if l == f64::NEG_INFINITY { 0.0 } else { (l - m).exp() };
            cum.push(total);
        }
        for _ in 0..k {
            let u = rng.random::<f64>() * total;
            let c = cum.partition_point(|&c| c <= u).min(classes - 1);
            out.push(c as i64);
        }
    }
    let t = Array::I64(ArrayD::from_shape_vec(IxDyn(&[batch, k]), out).expect("batch·k")).narrowed_to(dtype);
    Ok(Value::Tensor(rt.drawn("categorical", Tensor::new(t))))
}
