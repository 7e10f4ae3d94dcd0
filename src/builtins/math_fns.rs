//! Elementwise math, logic and activation functions, named as TensorFlow's without
//! the `tf.math.`/`tf.nn.` prefix. The older elementwise functions (`exp`, `sign`, `relu`, …)
//! and the comparisons are in `tensor_fns.rs`.

use crate::autodiff::ops::nn::Activation;
use crate::builtins::Signature;
use crate::error::R;
use crate::runtime::value::{Args, NativeFn, Value};
use crate::runtime::Interp;
use crate::tensor::activations::{self, FloatClass, Logical};
use crate::tensor::kernels::{Binary, Unary};
use crate::tensor::Tensor;

/// `f(x)`: the elementwise functions of one tensor.
static UNARY: Signature = Signature::new(&["x"], 1);
/// `f(x, y)`: the broadcasting functions of two tensors.
static BINARY: Signature = Signature::new(&["x", "y"], 2);
/// `f(features)`: the activations without parameters (TF names the argument `features`).
static FEATURES: Signature = Signature::new(&["features"], 1);

/// Registers the functions of this file.
pub fn register(reg: &mut impl FnMut(&str, NativeFn)) {
    reg("floor", |rt, a| unary(rt, a, Unary::Floor));
    reg("ceil", |rt, a| unary(rt, a, Unary::Ceil));
    reg("round", round);
    reg("rsqrt", |rt, a| unary(rt, a, Unary::Rsqrt));
    reg("erf", |rt, a| unary(rt, a, Unary::Erf));
    reg("squared_difference", squared_difference);
    reg("logical_and", |rt, a| logical(rt, a, Logical::And));
    reg("logical_or", |rt, a| logical(rt, a, Logical::Or));
    reg("logical_xor", |rt, a| logical(rt, a, Logical::Xor));
    reg("logical_not", logical_not);
    reg("is_nan", |rt, a| classify(rt, a, FloatClass::Nan));
    reg("is_inf", |rt, a| classify(rt, a, FloatClass::Inf));
    reg("is_finite", |rt, a| classify(rt, a, FloatClass::Finite));
    reg("leaky_relu", leaky_relu);
    reg("elu", |rt, a| activation(rt, a, Activation::Elu));
    reg("selu", |rt, a| activation(rt, a, Activation::Selu));
    reg("gelu", gelu);
    reg("swish", swish);
    reg("silu", swish);
    reg("softsign", |rt, a| activation(rt, a, Activation::Softsign));
    reg("relu6", |rt, a| activation(rt, a, Activation::Relu6));
    reg("log_sigmoid", log_sigmoid);
}

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

/// `round(x)`: a tensor rounded half to even (TF's banker's rounding: round(2.5) is 2.0,
/// round(−0.5) is −0.0); a Python number goes to Python's `round(number, ndigits=None)`.
///
/// Shapes: x's. Dtypes: float32, float64, int64 (returned unchanged, as TF).
/// Gradient: none (None, as TF).
/// Errors: TypeError for a bool tensor.
/// See: tf.math.round.
fn round(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let first = args.pos.first().or_else(|| args.kw.iter().find(|(k, _)| &**k == "x").map(|(_, v)| v));
    if !matches!(first, Some(Value::Tensor(_) | Value::Variable(_))) {
        return super::core::round(rt, args);
    }
    unary(rt, args, Unary::Round)
}

/// `squared_difference(x, y)`: (x − y)² elementwise, with broadcasting.
///
/// Shapes: broadcast(x, y). Dtypes: float32, float64, int64 (exact or ValueError on overflow).
/// Gradient: 2(x − y) to x and −2(x − y) to y, summed back over broadcast axes.
/// Errors: TypeError on mixed dtypes or bool; ShapeError when the shapes do not broadcast.
/// See: tf.math.squared_difference.
fn squared_difference(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = BINARY.bind(rt, args)?;
    let (x, y) = (a.value("x")?, a.value("y")?);
    let (x, y) = rt.tensor_pair(&x, &y)?;
    let d = rt.ad.binary(Binary::Sub, &x, &y)?;
    Ok(Value::Tensor(rt.ad.unary(Unary::Square, &d)?))
}

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

/// `leaky_relu(features, alpha=0.2)`: x where x > 0, else alpha·x.
///
/// Shapes: x's. Dtypes: float32, float64; the result has x's dtype.
/// Gradient: 1 where x > 0, alpha elsewhere (alpha at 0, as TF).
/// Errors: TypeError for int64 or bool features, or a non-number alpha.
/// See: tf.nn.leaky_relu.
fn leaky_relu(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["features", "alpha"], 1);
    let mut a = SIG.bind(rt, args)?;
    let (t, alpha) = (a.tensor("features")?, a.float_or("alpha", 0.2)?);
    Ok(Value::Tensor(rt.ad.activation(Activation::LeakyRelu(alpha), &t)?))
}

/// `gelu(features, approximate=False)`: x·Φ(x), Φ the standard normal CDF:
/// ½x(1 + erf(x/√2)), or with approximate=True ½x(1 + tanh(√(2/π)(x + 0.044715x³))).
///
/// Shapes: x's. Dtypes: float32, float64; the result has x's dtype.
/// Gradient: through the formula (as TF, which composes it of the same operations).
/// Errors: TypeError for int64 or bool features.
/// See: tf.nn.gelu.
fn gelu(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["features", "approximate"], 1);
    let mut a = SIG.bind(rt, args)?;
    let (t, approximate) = (a.tensor("features")?, a.bool_or("approximate", false)?);
    Ok(Value::Tensor(rt.ad.activation(Activation::Gelu { approximate }, &t)?))
}

/// `swish(features, beta=1.0)`, `silu(features, beta=1.0)`: x·σ(beta·x).
///
/// Shapes: x's. Dtypes: float32, float64; the result has x's dtype.
/// Gradient: σ(βx)(1 + βx(1 − σ(βx))).
/// Errors: TypeError for int64 or bool features, or a non-number beta.
/// See: tf.nn.swish, tf.nn.silu.
fn swish(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["features", "beta"], 1);
    let mut a = SIG.bind(rt, args)?;
    let (t, beta) = (a.tensor("features")?, a.float_or("beta", 1.0)?);
    Ok(Value::Tensor(rt.ad.activation(Activation::Swish(beta), &t)?))
}

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
