//! Elementwise math, logic and activation functions, named as TensorFlow's without
//! the `tf.math.`/`tf.nn.` prefix. The older elementwise functions (`exp`, `sign`, `relu`, …)
//! and the comparisons are in `tensor_fns.rs`.

use crate::autodiff::ops::nn::Activation;
use crate::bail;
use crate::builtins::{Native, Signature};
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::activations::{self, FloatClass, Logical};
use crate::tensor::kernels::{Binary, Unary};
use crate::tensor::Tensor;

/// `f(x)`: the elementwise functions of one tensor.
const UNARY: Signature = Signature::new(&["x: TensorLike"]);
/// `f(x, y)`: the broadcasting functions of two tensors.
const BINARY: Signature = Signature::new(&["x: TensorLike", "y: TensorLike"]);
/// `f(features)`: the activations without parameters (TF names the argument `features`).
const FEATURES: Signature = Signature::new(&["features: TensorLike"]);

/// Registers the functions of this file.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&FLOOR);
    reg(&CEIL);
    reg(&ROUND);
    reg(&RSQRT);
    reg(&ERF);
    reg(&SQUARED_DIFFERENCE);
    reg(&LOGICAL_AND);
    reg(&LOGICAL_OR);
    reg(&LOGICAL_XOR);
    reg(&LOGICAL_NOT);
    reg(&IS_NAN);
    reg(&IS_INF);
    reg(&IS_FINITE);
    reg(&LEAKY_RELU);
    reg(&ELU);
    reg(&SELU);
    reg(&GELU);
    reg(&SWISH);
    reg(&SILU);
    reg(&SOFTSIGN);
    reg(&RELU6);
    reg(&LOG_SIGMOID);
}

static FLOOR: Native = Native::with("floor", UNARY, |rt, a| unary(rt, a, Unary::Floor)).spelled(&[
    "tf.math.floor",
    "tf.floor",
    "np.floor",
]);
static CEIL: Native =
    Native::with("ceil", UNARY, |rt, a| unary(rt, a, Unary::Ceil)).spelled(&["tf.math.ceil", "np.ceil"]);
static RSQRT: Native = Native::with("rsqrt", UNARY, |rt, a| unary(rt, a, Unary::Rsqrt)).spelled(&["tf.math.rsqrt"]);
static ERF: Native = Native::with("erf", UNARY, |rt, a| unary(rt, a, Unary::Erf)).spelled(&["tf.math.erf"]);

/// `floor(x)`, `ceil(x)`, `rsqrt(x)`, `erf(x)`: elementwise.
///
/// Shapes: x's. Dtypes: float32, float64; the result has x's dtype.
/// Gradient: floor and ceil have none (None, as TF); rsqrt: −½ x^(−3/2) (zero where the
/// upstream gradient is zero, as TF's RsqrtGrad); erf: 2/√π e^(−x²).
/// Errors: TypeError for int64 or bool x (TF accepts float dtypes only).
/// See: tf.math.floor, tf.math.ceil, tf.math.rsqrt, tf.math.erf.
fn unary(rt: &mut Interp, args: &mut Args, op: Unary) -> R<Value> {
    let t = UNARY.bind(rt, args)?.tensor("x")?;
    Ok(Value::Tensor(rt.ad.unary(op, &t)?))
}

static ROUND: Native = Native::with("round", super::core::ROUND_SIG, round)
    .spelled(&["tf.math.round", "tf.round"])
    // Dense gradients, as DGL's (TF's gradient of a gather is IndexedSlices).
    .exported_as("dgl_tf.round");

/// `round(x)`: a tensor rounded half to even (TF's banker's rounding: round(2.5) is 2.0,
/// round(−0.5) is −0.0); a Python number goes to Python's `round(number, ndigits=None)`.
///
/// Shapes: x's. Dtypes: float32, float64, int64 (returned unchanged, as TF).
/// Gradient: none (None, as TF).
/// Errors: TypeError for a bool tensor.
/// See: tf.math.round.
fn round(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let first = args.pos.first().or_else(|| args.kw.iter().find(|(k, _)| &**k == "number").map(|(_, v)| v));
    if !matches!(first, Some(Value::Tensor(_) | Value::Variable(_))) {
        return super::core::round(rt, args);
    }
    let mut a = ROUND.bind(rt, args)?;
    // `number` is declared for Python's round too (any value), so the tensor converts here.
    let (number, ndigits) = (a.value("number")?, a.non_none("ndigits")?);
    if ndigits.is_some() {
        bail!(Type, "round() of a tensor takes no ndigits (TF's round rounds to an integer)");
    }
    let t = rt.tensor_arg(&number)?;
    Ok(Value::Tensor(rt.ad.unary(Unary::Round, &t)?))
}

static SQUARED_DIFFERENCE: Native =
    Native::with("squared_difference", BINARY, squared_difference).spelled(&["tf.math.squared_difference"]);

/// `squared_difference(x, y)`: (x − y)² elementwise, with broadcasting.
///
/// Shapes: broadcast(x, y). Dtypes: float32, float64, int64 (exact or ValueError on overflow).
/// Gradient: 2(x − y) to x and −2(x − y) to y, summed back over broadcast axes.
/// Errors: TypeError on mixed dtypes or bool; ShapeError when the shapes do not broadcast.
/// See: tf.math.squared_difference.
fn squared_difference(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = BINARY.bind(rt, args)?;
    let (x, y) = (a.tensor_like("x")?, a.tensor_like("y")?);
    let (x, y) = rt.tensor_pair(&x, &y)?;
    let d = rt.ad.binary(Binary::Sub, &x, &y)?;
    Ok(Value::Tensor(rt.ad.unary(Unary::Square, &d)?))
}

static LOGICAL_AND: Native = Native::with("logical_and", BINARY, |rt, a| logical(rt, a, Logical::And)).spelled(&[
    "tf.math.logical_and",
    "tf.logical_and",
    "np.logical_and",
]);
static LOGICAL_OR: Native = Native::with("logical_or", BINARY, |rt, a| logical(rt, a, Logical::Or)).spelled(&[
    "tf.math.logical_or",
    "tf.logical_or",
    "np.logical_or",
]);
static LOGICAL_XOR: Native = Native::with("logical_xor", BINARY, |rt, a| logical(rt, a, Logical::Xor))
    .spelled(&["tf.math.logical_xor", "np.logical_xor"]);

/// `logical_and(x, y)`, `logical_or(x, y)`, `logical_xor(x, y)`: elementwise, with broadcasting.
///
/// Shapes: broadcast(x, y). Dtypes: bool only; the result is bool.
/// Gradient: none (bool).
/// Errors: TypeError unless both are bool (TF does not cast to bool); ShapeError when the
/// shapes do not broadcast.
/// See: tf.math.logical_and, tf.math.logical_or, tf.math.logical_xor.
fn logical(rt: &mut Interp, args: &mut Args, op: Logical) -> R<Value> {
    let mut a = BINARY.bind(rt, args)?;
    let (x, y) = (a.tensor("x")?, a.tensor("y")?);
    Ok(Value::Tensor(Tensor::new(activations::logical(op, &x.data, &y.data)?)))
}

static LOGICAL_NOT: Native = Native::with("logical_not", UNARY, logical_not).spelled(&[
    "tf.math.logical_not",
    "tf.logical_not",
    "np.logical_not",
]);

/// `logical_not(x)`: elementwise negation.
///
/// Shapes: x's. Dtypes: bool only.
/// Gradient: none (bool).
/// Errors: TypeError unless x is bool.
/// See: tf.math.logical_not.
fn logical_not(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let t = UNARY.bind(rt, args)?.tensor("x")?;
    Ok(Value::Tensor(Tensor::new(activations::logical_not(&t.data)?)))
}

static IS_NAN: Native =
    Native::with("is_nan", UNARY, |rt, a| classify(rt, a, FloatClass::Nan)).spelled(&["tf.math.is_nan", "np.isnan"]);
static IS_INF: Native =
    Native::with("is_inf", UNARY, |rt, a| classify(rt, a, FloatClass::Inf)).spelled(&["tf.math.is_inf", "np.isinf"]);
static IS_FINITE: Native = Native::with("is_finite", UNARY, |rt, a| classify(rt, a, FloatClass::Finite))
    .spelled(&["tf.math.is_finite", "np.isfinite"]);

/// `is_nan(x)`, `is_inf(x)`, `is_finite(x)`: which elements are NaN, ±inf, neither.
///
/// Shapes: x's. Dtypes: float32, float64; the result is bool.
/// Gradient: none (bool).
/// Errors: TypeError for int64 or bool x (TF accepts float dtypes only).
/// See: tf.math.is_nan, tf.math.is_inf, tf.math.is_finite.
fn classify(rt: &mut Interp, args: &mut Args, class: FloatClass) -> R<Value> {
    let t = UNARY.bind(rt, args)?.tensor("x")?;
    Ok(Value::Tensor(Tensor::new(activations::classify(class, &t.data)?)))
}

static ELU: Native = Native::with("elu", FEATURES, |rt, a| activation(rt, a, Activation::Elu))
    .spelled(&["tf.nn.elu", "tf.keras.activations.elu"]);
static SELU: Native = Native::with("selu", FEATURES, |rt, a| activation(rt, a, Activation::Selu))
    .spelled(&["tf.nn.selu", "tf.keras.activations.selu"]);
static SOFTSIGN: Native = Native::with("softsign", FEATURES, |rt, a| activation(rt, a, Activation::Softsign))
    .spelled(&["tf.nn.softsign", "tf.math.softsign", "tf.keras.activations.softsign"])
    // Sets in insertion order, as DGL's (a Python set iterates and prints in hash order).
    .exported_as("dgl_tf.softsign");
static RELU6: Native = Native::with("relu6", FEATURES, |rt, a| activation(rt, a, Activation::Relu6))
    .spelled(&["tf.nn.relu6", "tf.keras.activations.relu6"]);

/// `elu(features)`, `selu(features)`, `softsign(features)`, `relu6(features)`: activations.
///
/// Shapes: x's. Dtypes: float32, float64; the result has x's dtype.
/// Gradient: elu: 1 for x ≥ 0, eˣ below; selu: scale for x ≥ 0, scale·alpha·eˣ below;
/// softsign: 1/(1 + |x|)²; relu6: 1 strictly inside (0, 6), else 0 (TF's at the kinks).
/// Errors: TypeError for int64 or bool features.
/// See: tf.nn.elu, tf.nn.selu, tf.nn.softsign, tf.nn.relu6.
fn activation(rt: &mut Interp, args: &mut Args, act: Activation) -> R<Value> {
    let t = FEATURES.bind(rt, args)?.tensor("features")?;
    Ok(Value::Tensor(rt.ad.activation(act, &t)?))
}

static LEAKY_RELU: Native = Native::new("leaky_relu", &["features: TensorLike", "alpha: float = 0.2"], leaky_relu)
    .spelled(&["tf.nn.leaky_relu", "tf.keras.activations.leaky_relu"]);

/// `leaky_relu(features, alpha=0.2)`: x where x > 0, else alpha·x.
///
/// Shapes: x's. Dtypes: float32, float64; the result has x's dtype.
/// Gradient: 1 where x > 0, alpha elsewhere (alpha at 0, as TF).
/// Errors: TypeError for int64 or bool features, or a non-number alpha.
/// See: tf.nn.leaky_relu.
fn leaky_relu(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = LEAKY_RELU.bind(rt, args)?;
    let (t, alpha) = (a.tensor("features")?, a.float_or("alpha", 0.2)?);
    Ok(Value::Tensor(rt.ad.activation(Activation::LeakyRelu(alpha), &t)?))
}

static GELU: Native = Native::new("gelu", &["features: TensorLike", "approximate: bool = False"], gelu)
    .spelled(&["tf.nn.gelu", "tf.keras.activations.gelu"]);

/// `gelu(features, approximate=False)`: x·Φ(x), Φ the standard normal CDF:
/// ½x(1 + erf(x/√2)), or with approximate=True ½x(1 + tanh(√(2/π)(x + 0.044715x³))).
///
/// Shapes: x's. Dtypes: float32, float64; the result has x's dtype.
/// Gradient: through the formula (as TF, which composes it of the same operations).
/// Errors: TypeError for int64 or bool features.
/// See: tf.nn.gelu.
fn gelu(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = GELU.bind(rt, args)?;
    let (t, approximate) = (a.tensor("features")?, a.bool_or("approximate", false)?);
    Ok(Value::Tensor(rt.ad.activation(Activation::Gelu { approximate }, &t)?))
}

const SWISH_SIG: Signature = Signature::new(&["features: TensorLike", "beta: float = 1.0"]);
static SWISH: Native = Native::with("swish", SWISH_SIG, swish).spelled(&["tf.nn.swish", "tf.keras.activations.swish"]);
static SILU: Native = Native::with("silu", SWISH_SIG, swish).spelled(&["tf.nn.silu", "tf.keras.activations.silu"]);

/// `swish(features, beta=1.0)`, `silu(features, beta=1.0)`: x·σ(beta·x).
///
/// Shapes: x's. Dtypes: float32, float64; the result has x's dtype.
/// Gradient: σ(βx)(1 + βx(1 − σ(βx))).
/// Errors: TypeError for int64 or bool features, or a non-number beta.
/// See: tf.nn.swish, tf.nn.silu.
fn swish(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SWISH_SIG.bind(rt, args)?;
    let (t, beta) = (a.tensor("features")?, a.float_or("beta", 1.0)?);
    Ok(Value::Tensor(rt.ad.activation(Activation::Swish(beta), &t)?))
}

static LOG_SIGMOID: Native = Native::with("log_sigmoid", UNARY, log_sigmoid)
    .spelled(&["tf.math.log_sigmoid", "tf.keras.activations.log_sigmoid"]);

/// `log_sigmoid(x)`: log σ(x) = −softplus(−x), without overflow for large |x|.
///
/// Shapes: x's. Dtypes: float32, float64; the result has x's dtype.
/// Gradient: σ(−x).
/// Errors: TypeError for int64 or bool x.
/// See: tf.math.log_sigmoid.
fn log_sigmoid(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let t = UNARY.bind(rt, args)?.tensor("x")?;
    Ok(Value::Tensor(rt.ad.activation(Activation::LogSigmoid, &t)?))
}
