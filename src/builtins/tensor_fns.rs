//! Tensor functions (docs/language.md §4), named as TensorFlow's without the prefix.

use crate::bail;
use crate::builtins::{Native, Signature};
use crate::error::R;
use crate::runtime::index::indices_of;
use crate::runtime::value::{Args, Dialect, Value};
use crate::runtime::Interp;
use crate::tensor::kernels::{self, Binary, Compare, Reduce, Unary};
use crate::tensor::shape::norm_axis;
use crate::tensor::{Array, DType, Tensor};
use ndarray::{ArrayD, IxDyn};

/// `f(x)`: the elementwise unary functions.
const UNARY: Signature = Signature::new(&["x: TensorLike"]);
/// `f(x, y)`: the broadcasting binary functions and comparisons.
const BINARY: Signature = Signature::new(&["x: TensorLike", "y: TensorLike"]);
/// `reduce_*(input_tensor, axis=None, keepdims=False)`
const REDUCE: Signature = Signature::new(&["input_tensor: TensorLike", "axis: Axes = None", "keepdims: bool = False"]);

/// Registers the tensor functions of docs/language.md §4.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&CONSTANT);
    reg(&CONVERT_TO_TENSOR);
    reg(&ZEROS);
    reg(&ONES);
    reg(&FILL);
    reg(&ZEROS_LIKE);
    reg(&ONES_LIKE);
    reg(&EYE);
    reg(&RANGE_TENSOR);
    reg(&LINSPACE);
    reg(&ONE_HOT);
    macro_rules! unary {
        ($($name:literal => $op:path [$($spelled:literal),*]);*) => {$({
            static DECLARED: Native = Native::with($name, UNARY, |rt, args| {
                let t = UNARY.bind(rt, args)?.tensor("x")?;
                Ok(Value::Tensor(rt.ad.unary($op, &t)?))
            })
            .spelled(&[$($spelled),*]);
            reg(&DECLARED);
        })*};
    }
    unary!(
        "neg" => Unary::Neg [];
        "negative" => Unary::Neg ["tf.negative", "tf.math.negative", "np.negative"];
        "exp" => Unary::Exp ["tf.exp", "tf.math.exp", "np.exp"];
        "log" => Unary::Log ["tf.math.log", "np.log"];
        "log1p" => Unary::Log1p ["tf.math.log1p", "np.log1p"];
        "sqrt" => Unary::Sqrt ["tf.sqrt", "tf.math.sqrt", "np.sqrt"];
        "square" => Unary::Square ["tf.square", "tf.math.square", "np.square"];
        "sin" => Unary::Sin ["tf.math.sin", "tf.sin", "np.sin"];
        "cos" => Unary::Cos ["tf.math.cos", "tf.cos", "np.cos"];
        "tan" => Unary::Tan ["tf.math.tan", "tf.tan", "np.tan"];
        "tanh" => Unary::Tanh ["tf.math.tanh", "tf.nn.tanh", "tf.tanh", "tf.keras.activations.tanh", "np.tanh"];
        "sigmoid" => Unary::Sigmoid ["tf.math.sigmoid", "tf.nn.sigmoid", "tf.sigmoid", "tf.keras.activations.sigmoid"];
        "relu" => Unary::Relu ["tf.nn.relu", "tf.keras.activations.relu"];
        "softplus" => Unary::Softplus ["tf.math.softplus", "tf.nn.softplus", "tf.keras.activations.softplus"];
        "sign" => Unary::Sign ["tf.math.sign", "tf.sign", "np.sign"];
        "reciprocal" => Unary::Reciprocal ["tf.math.reciprocal"];
        "asin" => Unary::Asin ["tf.math.asin", "tf.asin", "np.arcsin"];
        "acos" => Unary::Acos ["tf.math.acos", "tf.acos", "np.arccos"];
        "atan" => Unary::Atan ["tf.math.atan", "tf.atan", "np.arctan"];
        "sinh" => Unary::Sinh ["tf.math.sinh", "tf.sinh", "np.sinh"];
        "cosh" => Unary::Cosh ["tf.math.cosh", "tf.cosh", "np.cosh"];
        "asinh" => Unary::Asinh ["tf.math.asinh", "tf.asinh", "np.arcsinh"];
        "acosh" => Unary::Acosh ["tf.math.acosh", "tf.acosh", "np.arccosh"];
        "atanh" => Unary::Atanh ["tf.math.atanh", "tf.atanh", "np.arctanh"];
        "expm1" => Unary::Expm1 ["tf.math.expm1", "np.expm1"];
        "erfc" => Unary::Erfc ["tf.math.erfc"]
    );
    macro_rules! binary {
        ($($name:literal => $op:path [$($spelled:literal),*]);*) => {$({
            static DECLARED: Native = Native::with($name, BINARY, |rt, args| {
                let mut a = BINARY.bind(rt, args)?;
                let (x, y) = (a.tensor_like("x")?, a.tensor_like("y")?);
                let (x, y) = rt.tensor_pair(&x, &y)?;
                Ok(Value::Tensor(rt.ad.binary($op, &x, &y)?))
            })
            .spelled(&[$($spelled),*]);
            reg(&DECLARED);
        })*};
    }
    binary!(
        "add" => Binary::Add ["tf.add", "tf.math.add", "np.add"];
        "subtract" => Binary::Sub ["tf.subtract", "tf.math.subtract", "np.subtract"];
        "multiply" => Binary::Mul ["tf.multiply", "tf.math.multiply", "np.multiply"];
        "divide" => Binary::Div ["tf.divide", "tf.math.divide", "tf.math.truediv", "np.divide"];
        "maximum" => Binary::Maximum ["tf.maximum", "tf.math.maximum", "np.maximum"];
        "minimum" => Binary::Minimum ["tf.minimum", "tf.math.minimum", "np.minimum"];
        "floordiv" => Binary::FloorDiv ["tf.math.floordiv"];
        "floormod" => Binary::Mod ["tf.math.floormod", "tf.math.mod"]
    );
    macro_rules! reduce {
        ($($name:literal => $op:path [$($spelled:literal),*] $(as $export:literal)?);*) => {$({
            static DECLARED: Native = Native::with($name, REDUCE, |rt, args| {
                let mut a = REDUCE.bind(rt, args)?;
                let (t, axes, keep) = (a.tensor("input_tensor")?, a.axes("axis")?, a.bool_or("keepdims", false)?);
                // NumPy sums narrow ints in the platform int (docs/language.md "NumPy arrays").
                let t = if rt.dialect == Dialect::NumPy && matches!($op, Reduce::Sum) && t.dtype().is_narrow() && t.dtype().is_int() {
                    Tensor::new(t.data.cast(DType::I64))
                } else {
                    t
                };
                Ok(Value::Tensor(rt.ad.reduce($op, &t, axes.as_deref(), keep)?))
            })
            .spelled(&[$($spelled),*])
            // Float sums accumulate in float64 in DGL (exact on millions of float32 terms): the
            // support module carries reduce_sum's and reduce_mean's.
            $(.exported_as($export))?;
            reg(&DECLARED);
        })*};
    }
    reduce!(
        "reduce_sum" => Reduce::Sum ["tf.math.reduce_sum", "tf.reduce_sum", "np.sum"] as "dgl_tf.reduce_sum";
        "reduce_mean" => Reduce::Mean ["tf.math.reduce_mean", "tf.reduce_mean"] as "dgl_tf.reduce_mean";
        "reduce_max" => Reduce::Max ["tf.math.reduce_max", "tf.reduce_max", "np.max", "np.amax"];
        "reduce_min" => Reduce::Min ["tf.math.reduce_min", "tf.reduce_min", "np.min", "np.amin"]
    );
    reg(&REDUCE_LOGSUMEXP);
    reg(&ARGMAX);
    reg(&MATMUL);
    reg(&RESHAPE);
    reg(&TRANSPOSE);
    reg(&EXPAND_DIMS);
    reg(&SQUEEZE);
    reg(&STACK);
    reg(&CONCAT);
    reg(&GATHER);
    reg(&TILE);
    reg(&SOFTMAX);
    reg(&LOG_SOFTMAX);
    reg(&SPARSE_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS);
    reg(&SOFTMAX_CROSS_ENTROPY_WITH_LOGITS);
    reg(&CAST);
    reg(&WHERE);
    reg(&CLIP_BY_VALUE);
    reg(&EQUAL);
    reg(&NOT_EQUAL);
    reg(&LESS);
    reg(&LESS_EQUAL);
    reg(&GREATER);
    reg(&GREATER_EQUAL);
}

static CONSTANT: Native = Native::with("constant", CONSTANT_ARGS_SIG, constant)
    .spelled(&["tf.constant"])
    // DGL's dtype rules (numbers become float32; int ranges int64), docs/language.md §4.
    .exported_as("dgl_tf.constant");

/// `constant(value, dtype=None, shape=None, name=None)`: a tensor from a number, (nested) list
/// or tensor.
///
/// Shapes: value's; with `shape`, a one-element value fills it, a value with as many elements
/// is reshaped to it (row-major), as TF.
/// Dtypes: `dtype`, else a tensor's own, else float32 for Python numbers and lists.
/// Gradient: none (a new constant).
/// Errors: ValueError for ragged lists; TypeError for non-numeric values, and for a `shape`
/// whose element count is neither 1 nor the value's (TF's error kind).
/// See: tf.constant.
fn constant(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let (v, dtype, shape) = constant_args(rt, args)?;
    make_constant(rt, v, dtype, shape)
}

const CONSTANT_ARGS_SIG: Signature =
    Signature::new(&["value", "dtype: DType | None = None", "shape=None", "name=None"]);

fn constant_args(rt: &mut Interp, args: &mut Args) -> R<(Value, Option<DType>, Option<Vec<usize>>)> {
    let mut a = CONSTANT_ARGS_SIG.bind(rt, args)?;
    let (v, dtype) = (a.value("value")?, a.opt_dtype("dtype")?);
    let shape = match a.non_none("shape")? {
        Some(s) => Some(rt.dims_arg(&s)?),
        None => None,
    };
    Ok((v, dtype, shape))
}

static CONVERT_TO_TENSOR: Native = Native::new(
    "convert_to_tensor",
    &["value", "dtype: DType | None = None", "dtype_hint: DType | None = None", "name=None", "*", "shape=None"],
    convert_to_tensor,
)
    .spelled(&["tf.convert_to_tensor"])
    // DGL's dtype rules (numbers become float32; int ranges int64), docs/language.md §4.
    .exported_as("dgl_tf.convert_to_tensor");

/// `convert_to_tensor(value, dtype=None, dtype_hint=None, name=None, *, shape=None)`:
/// [`constant`], except that a Variable is read as `v.read_value()` reads it, so gradients
/// flow back to it as through TF's conversion (`constant(v)` is a snapshot, as `tf.constant(v)`
/// is). A `dtype` other than the Variable's converts the value read (recorded,
/// differentiable). `dtype_hint`, as TF's, is the dtype a Python value becomes when it can
/// (`convert_to_tensor(2, dtype_hint=float32)` is `2.0`), else it converts as without it
/// (`2.5` with an int32 hint stays float32); a tensor keeps its dtype.
fn convert_to_tensor(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = CONVERT_TO_TENSOR.bind(rt, args)?;
    let (v, mut dtype, hint) = (a.value("value")?, a.opt_dtype("dtype")?, a.opt_dtype("dtype_hint")?);
    let shape = match a.non_none("shape")? {
        Some(s) => Some(rt.dims_arg(&s)?),
        None => None,
    };
    if let (None, Some(h), false) = (dtype, hint, matches!(v, Value::Tensor(_) | Value::Variable(_))) {
        // A hint widens within what TF converts without loss: ints to any int or float dtype,
        // floats to any float dtype, bools to bool only.
        let own = rt.to_tensor(&v, None)?.dtype();
        let fits = (own.is_int() && (h.is_int() || h.is_float())) || (own.is_float() && h.is_float()) || own == h;
        if fits && rt.to_tensor(&v, Some(h)).is_ok() {
            dtype = Some(h);
        }
    }
    match (&v, shape) {
        (Value::Variable(var), None) => {
            let read = rt.read_variable(var);
            let t = rt.ad.identity(&read);
            match dtype {
                Some(d) if d != t.dtype() => Ok(Value::Tensor(rt.ad.cast(&t, d)?)),
                _ => Ok(Value::Tensor(t)),
            }
        }
        (_, shape) => make_constant(rt, v, dtype, shape),
    }
}

fn make_constant(rt: &mut Interp, v: Value, dtype: Option<DType>, shape: Option<Vec<usize>>) -> R<Value> {
    let t = match &v {
        Value::Tensor(t) => match dtype {
            Some(d) => Tensor::new(t.data.try_cast(d)?),
            None => t.clone(),
        },
        Value::Variable(_) => {
            let t = rt.to_tensor(&v, None)?;
            Tensor::new(t.data.try_cast(dtype.unwrap_or(t.dtype()))?)
        }
        // TF's rules infer the dtype of Python values (`tf.constant([1, 2])` is int32).
        _ if dtype.is_none() && rt.dialect == Dialect::Tf => rt.to_tensor(&v, None)?,
        _ => rt.to_tensor(&v, Some(dtype.unwrap_or(DType::F32)))?,
    };
    let Some(dims) = shape else { return Ok(Value::Tensor(t)) };
    let want: usize = dims.iter().product();
    if t.shape() == dims.as_slice() {
        Ok(Value::Tensor(t))
    } else if t.len() == want {
        Ok(Value::Tensor(Tensor::new(crate::tensor::kernels::reshape(&t.data, &dims))))
    } else if t.len() == 1 {
        let scalar = Tensor::new(crate::tensor::kernels::reshape(&t.data, &[]));
        let filled = rt.ad.broadcast_to(&scalar, &dims)?;
        Ok(Value::Tensor(Tensor::new((*filled.data).clone())))
    } else {
        bail!(
            Type,
            "constant() got a value of {} elements (shape {}) and a shape {} of {want} elements",
            t.len(),
            crate::tensor::shape_str(t.shape()),
            crate::tensor::shape_str(&dims)
        )
    }
}

const FILLED_SIG: Signature = Signature::new(&["shape: Shape", "dtype: DType | None = float32"]);

/// `zeros`/`ones(shape, dtype=float32)`
fn filled(rt: &mut Interp, args: &mut Args, v: f64) -> R<Value> {
    let mut a = FILLED_SIG.bind(rt, args)?;
    let (dims, dtype) = (a.dims("shape")?, a.opt_dtype("dtype")?.unwrap_or(DType::F32));
    Ok(Value::Tensor(Tensor::new(Array::full(dtype, &dims, v))))
}

static ZEROS: Native = Native::with("zeros", FILLED_SIG, zeros).spelled(&["tf.zeros"]);

fn zeros(rt: &mut Interp, args: &mut Args) -> R<Value> {
    filled(rt, args, 0.0)
}

static ONES: Native = Native::with("ones", FILLED_SIG, ones).spelled(&["tf.ones"]);

fn ones(rt: &mut Interp, args: &mut Args) -> R<Value> {
    filled(rt, args, 1.0)
}

static FILL: Native = Native::new("fill", &["dims: Shape", "value", "dtype: DType | None = None"], fill)
    .spelled(&["tf.fill"])
    // Arguments TF's op lacks (dtype=, out_type=, the other mapping op's options), and
    // DGL's dtypes for fill and rank.
    .exported_as("dgl_tf.fill");

/// `fill(shape, value)`: the value's type decides the dtype (float32, or int64 for a Python
/// int; int32 as `tf.fill`, TF's), as TF.
fn fill(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = FILL.bind(rt, args)?;
    let (dims, value, dtype) = (a.dims("dims")?, a.value("value")?, a.opt_dtype("dtype")?);
    let default = match value {
        Value::Int(i) if rt.dialect == Dialect::Tf && i32::try_from(i).is_ok() => DType::I32,
        Value::Int(_) => DType::I64,
        Value::Bool(_) => DType::Bool,
        Value::Tensor(ref t) => t.dtype(),
        _ => DType::F32,
    };
    let dtype = dtype.unwrap_or(default);
    if dtype == DType::I64 {
        // Exact: an int64 fill never passes through float64.
        let i = match &value {
            Value::Int(i) => *i,
            _ => rt.to_tensor(&value, Some(DType::I64))?.data.first_i64()?,
        };
        return Ok(Value::Tensor(Tensor::new(Array::I64(ArrayD::from_elem(IxDyn(&dims), i)))));
    }
    let v = rt.float_arg(&value, "value")?;
    Ok(Value::Tensor(Tensor::new(Array::full(dtype, &dims, v))))
}

const LIKE_SIG: Signature = Signature::new(&["input: TensorLike", "dtype: DType | None = None"]);

/// `zeros_like`/`ones_like(input, dtype=None)`
fn like(rt: &mut Interp, args: &mut Args, v: f64) -> R<Value> {
    let mut a = LIKE_SIG.bind(rt, args)?;
    let t = a.tensor("input")?;
    let dtype = a.opt_dtype("dtype")?.unwrap_or(t.dtype());
    Ok(Value::Tensor(Tensor::new(Array::full(dtype, t.shape(), v))))
}

static ZEROS_LIKE: Native =
    Native::with("zeros_like", LIKE_SIG, zeros_like).spelled(&["tf.zeros_like", "np.zeros_like"]);

fn zeros_like(rt: &mut Interp, args: &mut Args) -> R<Value> {
    like(rt, args, 0.0)
}

static ONES_LIKE: Native = Native::with("ones_like", LIKE_SIG, ones_like).spelled(&["tf.ones_like", "np.ones_like"]);

fn ones_like(rt: &mut Interp, args: &mut Args) -> R<Value> {
    like(rt, args, 1.0)
}

static EYE: Native =
    Native::new("eye", &["num_rows: int", "num_columns: int | None = None", "dtype: DType | None = float32"], eye)
        .spelled(&["tf.eye", "tf.linalg.eye"]);

/// `eye(num_rows, num_columns=None, dtype=float32)`: ones on the diagonal.
fn eye(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = EYE.bind(rt, args)?;
    let n = a.int("num_rows")?;
    let m = a.opt_int("num_columns")?.unwrap_or(n);
    let dtype = a.opt_dtype("dtype")?.unwrap_or(DType::F32);
    let dims = rt.dims_arg(&Value::list(vec![Value::Int(n), Value::Int(m)]))?;
    let vals = (0..dims[0] * dims[1]).map(|k| if k / dims[1] == k % dims[1] { 1.0 } else { 0.0 }).collect();
    Ok(Value::Tensor(Tensor::new(Array::from_f64(dtype, &dims, vals))))
}

/// The dtype TF infers for one scalar argument of `range_tensor` or `linspace`: a Python
/// int is int64 (int32 as `tf.range`, TF's), a Python float float32, a tensor its own dtype.
///
/// Errors: TypeError for a bool or any other value, or a tensor with more than one element.
fn scalar_dtype(rt: &mut Interp, v: &Value, what: &str) -> R<DType> {
    let d = match v {
        Value::Int(_) if rt.dialect == Dialect::Tf => DType::I32,
        Value::Int(_) => DType::I64,
        Value::Float(_) => DType::F32,
        Value::Tensor(_) | Value::Variable(_) => {
            let t = rt.to_tensor(v, None)?;
            if t.len() != 1 {
                bail!(Type, "{what} must be a scalar, got shape {}", crate::tensor::shape_str(t.shape()));
            }
            t.dtype()
        }
        other => bail!(Type, "{what} must be a number, not {}", other.type_name()),
    };
    if d == DType::Bool {
        bail!(Type, "{what} must be a number, not a bool tensor");
    }
    Ok(d)
}

/// An int64 scalar argument exactly (a Python int or an int64 tensor; callers checked it).
fn exact_int(rt: &mut Interp, v: &Value) -> R<i128> {
    match v {
        Value::Int(i) => Ok(*i as i128),
        other => Ok(rt.to_tensor(other, None)?.data.first_i64()? as i128),
    }
}

static RANGE_TENSOR: Native =
    Native::new("range_tensor", &["start", "limit=None", "delta=1", "dtype: DType | None = None"], range_tensor)
        .spelled(&["tf.range"])
        // DGL's dtype rules (numbers become float32; int ranges int64), docs/language.md §4.
        .exported_as("dgl_tf.range_tensor");

/// `range_tensor(start, limit=None, delta=1, dtype=None)`: TF's `tf.range`.
///
/// Dtype: `dtype` when given, else the widest of the arguments' dtypes in TF's order
/// int32 < int64 < float32 < float64, a Python int counting as int64 (int32 as `tf.range`)
/// and a Python float as float32
/// (`range_tensor(0, constant(3.0, dtype=float64))` is float64, `range_tensor(0, 3, 0.5)`
/// float32, as in TF). Int64 ranges are exact over the whole int64 range.
///
/// Naming: DGL's `range` is Python's (a range of ints, docs/language.md §2), so TF's
/// `tf.range(…)` is written `range_tensor(…)`.
///
/// Errors: TypeError for a non-number or a non-scalar tensor argument; ValueError for a
/// zero delta or a range too large to hold.
fn range_tensor(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = RANGE_TENSOR.bind(rt, args)?;
    let (start, limit, delta, dtype) = (a.value("start")?, a.opt("limit")?, a.opt("delta")?, a.opt_dtype("dtype")?);
    let limit = limit.filter(|l| !matches!(l, Value::None));
    let delta = delta.filter(|d| !matches!(d, Value::None));
    // `range_tensor(n)` counts from 0 to n.
    let (lo, hi) = match limit {
        Some(l) => (start, l),
        None => (Value::Int(0), start),
    };
    let step = delta.unwrap_or(Value::Int(1));
    // The widest in TF's order int32 < int64 < float32 < float64.
    let order = |d: DType| [DType::I32, DType::I64, DType::F32, DType::F64].iter().position(|&o| o == d);
    let mut inferred = DType::I32;
    for (v, what) in [(&lo, "range_tensor start"), (&hi, "range_tensor limit"), (&step, "range_tensor delta")] {
        let d = scalar_dtype(rt, v, what)?;
        if order(d) > order(inferred) {
            inferred = d;
        }
    }
    let dtype = dtype.unwrap_or(inferred);
    if inferred.is_int() && dtype.is_int() {
        // Exact in i128: int64 ranges never pass through float64.
        let (lo, hi, step) = (exact_int(rt, &lo)?, exact_int(rt, &hi)?, exact_int(rt, &step)?);
        if step == 0 {
            bail!(Value, "range_tensor: delta must not be zero");
        }
        let count =
            if step > 0 { (hi - lo + step - 1).div_euclid(step) } else { (lo - hi - step - 1).div_euclid(-step) };
        let count = count.max(0).min(usize::MAX as i128) as usize;
        crate::tensor::budget::check_shape(&[count])?;
        let vals: Vec<i64> = (0..count).map(|i| (lo + i as i128 * step) as i64).collect();
        let a = Array::I64(ArrayD::from_shape_vec(IxDyn(&[count]), vals).expect("1-d"));
        return Ok(Value::Tensor(Tensor::new(a.narrowed_to(dtype))));
    }
    let (s, l, d) = (rt.float_arg(&lo, "start")?, rt.float_arg(&hi, "limit")?, rt.float_arg(&step, "delta")?);
    if d == 0.0 {
        bail!(Value, "range_tensor: delta must not be zero");
    }
    let n = ((l - s) / d).ceil().max(0.0);
    if !n.is_finite() || n > crate::tensor::shape::MAX_ELEMENTS as f64 {
        bail!(Value, "range_tensor of {n} elements is too large");
    }
    let n = n as usize;
    let vals = (0..n).map(|i| s + i as f64 * d).collect();
    Ok(Value::Tensor(Tensor::new(Array::from_f64(dtype, &[n], vals))))
}

static LINSPACE: Native =
    Native::new("linspace", &["start", "stop", "num: int", "name=None", "axis: int | None = 0"], linspace)
        .spelled(&["tf.linspace"]);

/// `linspace(start, stop, num)`: `num` evenly spaced values from `start` to `stop`, both
/// ends included; shape `[num]`.
///
/// Dtype: as TF's `tf.linspace`, `start`'s: a float32 or float64 tensor keeps its dtype, a
/// Python float is float32, and an int start (a Python int or an int64 tensor) gives float64.
/// `stop` must have `start`'s dtype: a Python int converts to any, a Python float only to a
/// float dtype.
///
/// Errors: ValueError when `stop` is a tensor of another dtype than `start`'s (TF's
/// "Tensor conversion requested dtype …"); TypeError for a Python float `stop` with an int
/// `start`, a non-number or a non-scalar argument; ValueError for a negative `num`.
fn linspace(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = LINSPACE.bind(rt, args)?;
    let (start, stop, n) = (a.value("start")?, a.value("stop")?, a.int("num")?);
    let axis = a.opt_int("axis")?.unwrap_or(0);
    if axis != 0 && axis != -1 {
        bail!(Value, "linspace: axis {axis} is out of range for a 1-d result");
    }
    let (ds, de) = (scalar_dtype(rt, &start, "linspace start")?, scalar_dtype(rt, &stop, "linspace stop")?);
    match &stop {
        Value::Int(_) => {}
        Value::Float(_) if ds.is_float() => {}
        Value::Float(f) => {
            bail!(Type, "linspace: cannot convert stop {} to start's dtype {ds}", crate::tensor::scalar::fmt_f64(*f))
        }
        _ if de != ds => {
            bail!(Value, "linspace: stop has dtype {de}, but start has dtype {ds}; cast one of them (TF converts stop to start's dtype)")
        }
        _ => {}
    }
    let dtype = if ds.is_float() { ds } else { DType::F64 };
    let (s, e) = (rt.float_arg(&start, "start")?, rt.float_arg(&stop, "stop")?);
    let n = rt.dims_arg(&Value::Int(n))?[0];
    let vals = (0..n).map(|i| if n == 1 { s } else { s + (e - s) * i as f64 / (n - 1) as f64 }).collect();
    Ok(Value::Tensor(Tensor::new(Array::from_f64(dtype, &[n], vals))))
}

static ONE_HOT: Native = Native::new("one_hot", &["indices", "depth: int", "dtype: DType | None = float32"], one_hot)
    .spelled(&["tf.one_hot"]);

/// `one_hot(indices, depth)`: float32 rows, zero rows for out-of-range indices.
fn one_hot(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = ONE_HOT.bind(rt, args)?;
    let (idx, depth, dtype) = (a.value("indices")?, a.int("depth")?, a.opt_dtype("dtype")?.unwrap_or(DType::F32));
    let t = index_tensor(rt, &idx, "one_hot indices")?;
    let depth = rt.dims_arg(&Value::Int(depth))?[0];
    let mut out_shape = t.shape().to_vec();
    out_shape.push(depth);
    crate::tensor::shape::check_size(&out_shape)?;
    let k = indices_of(&t)?;
    let ind = ArrayD::from_shape_vec(IxDyn(t.shape()), k).expect("same count");
    Ok(Value::Tensor(Tensor::new(kernels::one_hot(&ind, depth, dtype))))
}

static REDUCE_LOGSUMEXP: Native = Native::with("reduce_logsumexp", REDUCE, reduce_logsumexp)
    .spelled(&["tf.math.reduce_logsumexp", "tf.reduce_logsumexp"]);

/// `reduce_logsumexp(x, axis=None, keepdims=False)`: log Σ exp, stabilised by the max.
fn reduce_logsumexp(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = REDUCE.bind(rt, args)?;
    let (t, axes, keep) = (a.tensor("input_tensor")?, a.axes("axis")?, a.bool_or("keepdims", false)?);
    let axes_n = crate::tensor::shape::reduce_axes(axes.as_deref(), t.shape().len())?;
    // The max is a constant shift (not recorded): its gradient contributions cancel.
    let m = Tensor::new(kernels::reduce(Reduce::Max, &t.data, &axes_n, true)?);
    let finite = Tensor::new(match &*m.data {
        Array::F32(x) => Array::F32(x.mapv(|v| if v.is_finite() { v } else { 0.0 })),
        Array::F64(x) => Array::F64(x.mapv(|v| if v.is_finite() { v } else { 0.0 })),
        other => other.clone(),
    });
    let shifted = rt.ad.binary(Binary::Sub, &t, &finite)?;
    let e = rt.ad.unary(Unary::Exp, &shifted)?;
    let s = rt.ad.reduce(Reduce::Sum, &e, axes.as_deref(), true)?;
    let l = rt.ad.unary(Unary::Log, &s)?;
    let out = rt.ad.binary(Binary::Add, &l, &finite)?;
    if keep {
        return Ok(Value::Tensor(out));
    }
    let shape = crate::tensor::shape::reduced_shape(t.shape(), &axes_n, false);
    Ok(Value::Tensor(rt.ad.reshape_to(&out, &shape)?))
}

static ARGMAX: Native = Native::new(
    "argmax",
    &["input: TensorLike", "axis: int | None = None", "output_type: DType | None = int64", "name=None"],
    argmax,
)
.spelled(&["tf.math.argmax", "tf.argmax"]);

/// `argmax(input, axis=None, output_type=int64)`: the indices of the largest values along `axis` (0 by
/// default, as TF), int64 or `output_type` (int32 or int64).
fn argmax(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = ARGMAX.bind(rt, args)?;
    let (t, axis) = (a.tensor("input")?, a.opt_int("axis")?.unwrap_or(0));
    let dtype = a.index_dtype("output_type", DType::I64)?;
    let axis = norm_axis(axis, t.shape().len())?;
    let out = Tensor::new(kernels::argmax(&t.data, axis)?.narrowed_to(dtype));
    rt.ad.note("argmax", &[&t], &[&out]);
    Ok(Value::Tensor(out))
}

static MATMUL: Native = Native::new(
    "matmul",
    &["a: TensorLike", "b: TensorLike", "*", "transpose_a: bool = False", "transpose_b: bool = False"],
    matmul,
)
.spelled(&["tf.linalg.matmul", "tf.matmul", "np.matmul"]);

/// `matmul(a, b, *, transpose_a=False, transpose_b=False)`: `transpose_*` swaps the last two
/// axes of that operand first (a recorded transpose, so gradients flow as usual). The flags are
/// keyword-only here (TF also takes them by position), so that `matmul(a, b, c)` stays the
/// TypeError it was (the declaration's `*`).
/// Errors: ShapeError for a transposed operand of rank below 2, and matmul's own.
fn matmul(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = MATMUL.bind(rt, args)?;
    let (x, y) = (a.tensor_like("a")?, a.tensor_like("b")?);
    let (ta, tb) = (a.bool_or("transpose_a", false)?, a.bool_or("transpose_b", false)?);
    let (mut x, mut y) = rt.tensor_pair(&x, &y)?;
    for (t, flag, name) in [(&mut x, ta, "a"), (&mut y, tb, "b")] {
        if flag {
            let n = t.shape().len();
            if n < 2 {
                bail!(
                    Shape,
                    "matmul: transpose_{name} needs rank 2 or more, got shape {}",
                    crate::tensor::shape_str(t.shape())
                );
            }
            let mut perm: Vec<i64> = (0..n as i64).collect();
            perm.swap(n - 2, n - 1);
            *t = rt.ad.transpose(t, Some(perm))?;
        }
    }
    Ok(Value::Tensor(rt.ad.matmul(&x, &y)?))
}

static RESHAPE: Native =
    Native::new("reshape", &["tensor: TensorLike", "shape: Shape"], reshape).spelled(&["tf.reshape", "np.reshape"]);

/// `reshape(tensor, shape)`: one entry may be -1.
fn reshape(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = RESHAPE.bind(rt, args)?;
    let (t, s) = (a.tensor("tensor")?, a.shape("shape")?);
    Ok(Value::Tensor(rt.ad.reshape(&t, &s)?))
}

static TRANSPOSE: Native = Native::new("transpose", &["a: TensorLike", "perm: Shape | None = None"], transpose)
    .spelled(&["tf.transpose", "np.transpose"]);

/// `transpose(a, perm=None)`: reversed axes by default.
fn transpose(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = TRANSPOSE.bind(rt, args)?;
    let (t, perm) = (a.tensor("a")?, a.opt_shape("perm")?);
    Ok(Value::Tensor(rt.ad.transpose(&t, perm)?))
}

static EXPAND_DIMS: Native = Native::new("expand_dims", &["input: TensorLike", "axis: int"], expand_dims)
    .spelled(&["tf.expand_dims", "np.expand_dims"]);

/// `expand_dims(input, axis)`: a new axis of size 1.
fn expand_dims(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = EXPAND_DIMS.bind(rt, args)?;
    let (t, axis) = (a.tensor("input")?, a.int("axis")?);
    let axis = norm_axis(axis, t.shape().len() + 1)?;
    let mut shape = t.shape().to_vec();
    shape.insert(axis, 1);
    Ok(Value::Tensor(rt.ad.reshape_to(&t, &shape)?))
}

static SQUEEZE: Native =
    Native::new("squeeze", &["input: TensorLike", "axis: Axes = None"], squeeze).spelled(&["tf.squeeze", "np.squeeze"]);

/// `squeeze(input, axis=None)`: drops axes of size 1 (all of them by default).
fn squeeze(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SQUEEZE.bind(rt, args)?;
    let (t, axes) = (a.tensor("input")?, a.axes("axis")?);
    let n = t.shape().len();
    let drop: Vec<usize> = match axes {
        None => (0..n).filter(|&i| t.shape()[i] == 1).collect(),
        Some(list) => {
            let mut v = Vec::new();
            for ax in list {
                let ax = norm_axis(ax, n)?;
                if t.shape()[ax] != 1 {
                    bail!(Value, "cannot squeeze axis {} of size {}", ax, t.shape()[ax]);
                }
                v.push(ax);
            }
            v
        }
    };
    let shape: Vec<usize> = (0..n).filter(|i| !drop.contains(i)).map(|i| t.shape()[i]).collect();
    Ok(Value::Tensor(rt.ad.reshape_to(&t, &shape)?))
}

fn tensor_list(rt: &mut Interp, v: &Value) -> R<Vec<Tensor>> {
    let items = rt.iterate(v)?;
    let mut out = Vec::with_capacity(items.len());
    let mut dtype = None;
    for x in &items {
        if let Value::Tensor(t) = x {
            dtype.get_or_insert(t.dtype());
        }
    }
    for x in &items {
        out.push(match x {
            Value::Tensor(_) | Value::Variable(_) => rt.to_tensor(x, None)?,
            other => rt.to_tensor(other, dtype)?,
        });
    }
    Ok(out)
}

static STACK: Native = Native::new("stack", &["values", "axis: int = 0"], stack).spelled(&["tf.stack"]);

/// `stack(values, axis=0)`
fn stack(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = STACK.bind(rt, args)?;
    let (xs, axis) = (a.value("values")?, a.int_or("axis", 0)?);
    let xs = tensor_list(rt, &xs)?;
    Ok(Value::Tensor(rt.ad.stack(&xs, axis)?))
}

static CONCAT: Native = Native::new("concat", &["values", "axis: int"], concat).spelled(&["tf.concat"]);

/// `concat(values, axis)`
fn concat(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = CONCAT.bind(rt, args)?;
    let (xs, axis) = (a.value("values")?, a.int("axis")?);
    let xs = tensor_list(rt, &xs)?;
    Ok(Value::Tensor(rt.ad.concat(&xs, axis)?))
}

/// Index arguments: int32 and int64 tensors, Python ints and lists of ints, as an int64
/// tensor (docs/language.md §4).
pub(crate) fn index_tensor(rt: &mut Interp, v: &Value, what: &str) -> R<Tensor> {
    if let Value::Tensor(t) = v {
        if !t.dtype().is_int() {
            bail!(Type, "{what} must be int32 or int64, not {} (use cast)", t.dtype());
        }
        return Ok(Tensor::new(t.data.cast(DType::I64)));
    }
    rt.to_tensor(v, Some(DType::I64))
}

static TILE: Native = Native::new("tile", &["input: TensorLike", "multiples: Shape"], tile)
    .spelled(&["tf.tile", "np.tile"])
    // Sets in insertion order, as DGL's (a Python set iterates and prints in hash order).
    .exported_as("dgl_tf.tile");

/// `tile(input, multiples)`
fn tile(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = TILE.bind(rt, args)?;
    let (t, m) = (a.tensor("input")?, a.dims("multiples")?);
    Ok(Value::Tensor(rt.ad.tile(&t, &m)?))
}

static GATHER: Native =
    Native::new("gather", &["params: TensorLike", "indices", "axis: int | None = 0"], gather).spelled(&["tf.gather"]);

/// `gather(params, indices, axis=0)`: indices are int64 tensors, ints or lists of ints.
fn gather(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = GATHER.bind(rt, args)?;
    let (t, idx, axis) = (a.tensor("params")?, a.value("indices")?, a.opt_int("axis")?.unwrap_or(0));
    let it = index_tensor(rt, &idx, "gather indices")?;
    let axis = norm_axis(axis, t.shape().len())?;
    let n = t.shape()[axis] as i64;
    let mut indices = Vec::with_capacity(it.len());
    for k in indices_of(&it)? {
        if k < 0 || k >= n {
            bail!(Index, "gather index {k} is out of bounds for axis {axis} with size {n}");
        }
        indices.push(k as usize);
    }
    let mut out_shape = t.shape()[..axis].to_vec();
    out_shape.extend_from_slice(it.shape());
    out_shape.extend_from_slice(&t.shape()[axis + 1..]);
    crate::tensor::budget::check_shape(&out_shape)?;
    Ok(Value::Tensor(rt.ad.gather(&t, std::rc::Rc::new(indices), it.shape(), axis)?))
}

const SOFTMAX_IMPL_SIG: Signature = Signature::new(&["logits: TensorLike", "axis: int | None = None"]);

/// `softmax`/`log_softmax(logits, axis=None)`: along the last axis by default.
fn softmax_impl(rt: &mut Interp, args: &mut Args, log: bool) -> R<Value> {
    let mut a = SOFTMAX_IMPL_SIG.bind(rt, args)?;
    let (t, axis) = (a.tensor("logits")?, a.opt_int("axis")?.unwrap_or(-1));
    Ok(Value::Tensor(rt.ad.softmax(&t, axis, log)?))
}

static SOFTMAX: Native = Native::with("softmax", SOFTMAX_IMPL_SIG, softmax).spelled(&[
    "tf.nn.softmax",
    "tf.math.softmax",
    "tf.keras.activations.softmax",
]);

fn softmax(rt: &mut Interp, args: &mut Args) -> R<Value> {
    softmax_impl(rt, args, false)
}

static LOG_SOFTMAX: Native = Native::with("log_softmax", SOFTMAX_IMPL_SIG, log_softmax).spelled(&[
    "tf.nn.log_softmax",
    "tf.math.log_softmax",
    "tf.keras.activations.log_softmax",
]);

fn log_softmax(rt: &mut Interp, args: &mut Args) -> R<Value> {
    softmax_impl(rt, args, true)
}

/// `(labels, logits)`: the two cross-entropy functions.
const XENT: Signature = Signature::new(&["labels", "logits: TensorLike"]);

static SPARSE_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS: Native =
    Native::with("sparse_softmax_cross_entropy_with_logits", XENT, sparse_xent)
        .spelled(&["tf.nn.sparse_softmax_cross_entropy_with_logits"]);

/// `sparse_softmax_cross_entropy_with_logits(labels, logits)`: per-example loss.
fn sparse_xent(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = XENT.bind(rt, args)?;
    let (labels, logits) = (a.value("labels")?, a.tensor("logits")?);
    let labels = index_tensor(rt, &labels, "labels")?;
    Ok(Value::Tensor(rt.ad.sparse_xent(&labels, &logits)?))
}

static SOFTMAX_CROSS_ENTROPY_WITH_LOGITS: Native = Native::with("softmax_cross_entropy_with_logits", XENT, xent)
    .spelled(&["tf.nn.softmax_cross_entropy_with_logits"])
    // TF's oneDNN conv2d gives a wrong shape where the VALID output is empty.
    .exported_as("dgl_tf.softmax_cross_entropy_with_logits");

/// `softmax_cross_entropy_with_logits(labels, logits)`: −Σ labels · log_softmax(logits) over the last axis.
fn xent(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = XENT.bind(rt, args)?;
    let (labels, logits) = (a.value("labels")?, a.tensor("logits")?);
    let labels = rt.to_tensor(&labels, Some(logits.dtype()))?;
    let ls = rt.ad.softmax(&logits, -1, true)?;
    let p = rt.ad.mul(&labels, &ls)?;
    let s = rt.ad.reduce(Reduce::Sum, &p, Some(&[-1]), false)?;
    Ok(Value::Tensor(rt.ad.unary(Unary::Neg, &s)?))
}

static CAST: Native =
    Native::new("cast", &["x: TensorLike", "dtype: DType"], cast).spelled(&["tf.cast", "tf.dtypes.cast"]);

/// `cast(x, dtype)`
fn cast(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = CAST.bind(rt, args)?;
    let (t, d) = (a.tensor("x")?, a.dtype("dtype")?);
    Ok(Value::Tensor(rt.ad.cast(&t, d)?))
}

static WHERE: Native = Native::new("where", &["condition", "x=None", "y=None"], where_)
    .spelled(&["tf.where", "np.where"])
    // DGL's semantics, carried by the support module (dgl_tf.py).
    .exported_as("dgl_tf.where");

/// `where(condition, x, y)`: x where the condition holds, else y (broadcasting).
/// `where(condition)`: the int64 coordinates [n, rank] of the true (non-zero) elements,
/// in row-major order (no gradient).
/// Errors: ValueError when only one of x and y is given.
fn where_(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = WHERE.bind(rt, args)?;
    let (c, x, y) = (a.value("condition")?, a.non_none("x")?, a.non_none("y")?);
    let (x, y) = match (x, y) {
        (Some(x), Some(y)) => (x, y),
        (None, None) => {
            let c = rt.to_tensor(&c, None)?;
            return Ok(Value::Tensor(Tensor::new(crate::tensor::indexing::true_coordinates(&c.data))));
        }
        _ => bail!(Value, "where: x and y must both be given or both be None"),
    };
    // A numeric condition converts (non-zero is True) where TF refuses it: docs/language.md §4 makes
    // `constant([True, False])` float32, and `where` of it must keep working.
    let c = rt.to_tensor(&c, Some(DType::Bool))?;
    let (x, y) = rt.tensor_pair(&x, &y)?;
    Ok(Value::Tensor(rt.ad.where_(&c, &x, &y)?))
}

static CLIP_BY_VALUE: Native =
    Native::new("clip_by_value", &["t: TensorLike", "clip_value_min", "clip_value_max"], clip_by_value)
        .spelled(&["tf.clip_by_value", "np.clip"]);

/// `clip_by_value(x, lo, hi)` = `maximum(minimum(x, hi), lo)`, as TF computes it: so
/// NaN anywhere propagates, `lo > hi` gives `lo`, and the gradients are those of
/// minimum and maximum (1 to x inside [lo, hi], bounds included, 0 outside or at NaN).
fn clip_by_value(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let numpy = rt.dialect == Dialect::NumPy;
    let mut a = CLIP_BY_VALUE.bind(rt, args)?;
    let (t, lo, hi) = (a.tensor_like("t")?, a.value("clip_value_min")?, a.value("clip_value_max")?);
    if numpy && ![&t, &lo, &hi].iter().any(|v| matches!(v, Value::Tensor(_) | Value::Variable(_))) {
        return numpy_clip(rt, &t, &lo, &hi);
    }
    let t = rt.tensor_arg(&t)?;
    clip_tf(rt, t, lo, hi)
}

/// `np.clip(a, lo, hi)` of NumPy values: `minimum(maximum(a, lo), hi)` as NumPy computes it (so
/// `lo > hi` gives `hi`), the three operands promoted together by NumPy 2's rules (Python
/// numbers weak: an int8 array clipped by ints stays int8, by a float becomes float64) and
/// broadcast together; a `None` bound is no bound.
///
/// Errors: ValueError when both bounds are None; ShapeError when the shapes do not broadcast.
fn numpy_clip(rt: &mut Interp, t: &Value, lo: &Value, hi: &Value) -> R<Value> {
    let mut vals = vec![t];
    vals.extend([lo, hi].into_iter().filter(|v| !matches!(v, Value::None)));
    if vals.len() == 1 {
        bail!(Value, "One of max or min must be given");
    }
    let ops = rt.numpy_operands(&vals)?;
    let mut out = ops[0].clone();
    let mut rest = ops[1..].iter();
    if !matches!(lo, Value::None) {
        out = Tensor::new(kernels::binary(Binary::Maximum, &out.data, &rest.next().expect("the lower bound").data)?);
    }
    if !matches!(hi, Value::None) {
        out = Tensor::new(kernels::binary(Binary::Minimum, &out.data, &rest.next().expect("the upper bound").data)?);
    }
    Ok(Value::Tensor(out))
}

/// TF's `clip_by_value` of the tensor `t` (the bounds take its dtype and broadcast to its shape).
fn clip_tf(rt: &mut Interp, t: Tensor, lo: Value, hi: Value) -> R<Value> {
    let lo = rt.to_tensor(&lo, Some(t.dtype()))?;
    let hi = rt.to_tensor(&hi, Some(t.dtype()))?;
    // The bounds broadcast to x's shape, never x to theirs (TF: the result has x's shape).
    let lo_b = rt.ad.broadcast_to(&lo, t.shape())?;
    let hi_b = rt.ad.broadcast_to(&hi, t.shape())?;
    let capped = rt.ad.binary(Binary::Minimum, &t, &hi_b)?;
    Ok(Value::Tensor(rt.ad.binary(Binary::Maximum, &capped, &lo_b)?))
}

static EQUAL: Native = Native::with("equal", BINARY, |rt, a| compare(rt, a, Compare::Eq)).spelled(&[
    "tf.equal",
    "tf.math.equal",
    "np.equal",
]);
static NOT_EQUAL: Native = Native::with("not_equal", BINARY, |rt, a| compare(rt, a, Compare::Ne)).spelled(&[
    "tf.not_equal",
    "tf.math.not_equal",
    "np.not_equal",
]);
static LESS: Native =
    Native::with("less", BINARY, |rt, a| compare(rt, a, Compare::Lt)).spelled(&["tf.less", "tf.math.less", "np.less"]);
static LESS_EQUAL: Native = Native::with("less_equal", BINARY, |rt, a| compare(rt, a, Compare::Le)).spelled(&[
    "tf.less_equal",
    "tf.math.less_equal",
    "np.less_equal",
]);
static GREATER: Native = Native::with("greater", BINARY, |rt, a| compare(rt, a, Compare::Gt)).spelled(&[
    "tf.greater",
    "tf.math.greater",
    "np.greater",
]);
static GREATER_EQUAL: Native = Native::with("greater_equal", BINARY, |rt, a| compare(rt, a, Compare::Ge)).spelled(&[
    "tf.greater_equal",
    "tf.math.greater_equal",
    "np.greater_equal",
]);

/// `equal(x, y)` and the other comparisons: bool tensors, broadcasting.
fn compare(rt: &mut Interp, args: &mut Args, op: Compare) -> R<Value> {
    let mut a = BINARY.bind(rt, args)?;
    let (x, y) = (a.tensor_like("x")?, a.tensor_like("y")?);
    let (x, y) = rt.tensor_pair(&x, &y)?;
    let out = Tensor::new(kernels::compare(op, &x.data, &y.data)?);
    rt.ad.note(crate::autodiff::tools::notes::comparison_name(op), &[&x, &y], &[&out]);
    Ok(Value::Tensor(out))
}
