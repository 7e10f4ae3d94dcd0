//! TF's elementwise special functions and the rest of `tf.math`'s elementwise names DGL lacked:
//! the gamma family (`lgamma`, `digamma`, `polygamma`, `igamma`, `igammac`, `lbeta`,
//! `betainc`, `zeta`), the inverse error functions (`erfinv`, `erfcinv`, `ndtri`), the modified
//! Bessel functions (`bessel_i0`, …, also under `tf.math.special`), the rest of
//! `tf.math.special` (the Bessel functions J, Y and K, `dawsn`, `expint`, the Fresnel integrals,
//! `spence`), `atan2`, `rint`, `nextafter`, `multiply_no_nan`, `reciprocal_no_nan`,
//! `scalar_mul`, and `conj`/`real`/`imag`/`angle` on real tensors (DGL has no complex dtypes;
//! docs/language.md §4). Kernels: tensor/special/; gradients: autodiff/ops/special.rs.

use super::{Native, Signature};
use crate::bail;
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::kernels::{self, Binary, Compare, Reduce};
use crate::tensor::special::Special;
use crate::tensor::{DType, Tensor};

/// Registers the functions of this file.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    for n in [
        &LGAMMA,
        &DIGAMMA,
        &ERFINV,
        &ERFCINV,
        &NDTRI,
        &BESSEL_I0,
        &BESSEL_I0E,
        &BESSEL_I1,
        &BESSEL_I1E,
        &BESSEL_J0,
        &BESSEL_J1,
        &BESSEL_Y0,
        &BESSEL_Y1,
        &BESSEL_K0,
        &BESSEL_K0E,
        &BESSEL_K1,
        &BESSEL_K1E,
        &DAWSN,
        &EXPINT,
        &FRESNEL_COS,
        &FRESNEL_SIN,
        &SPENCE,
        &RINT,
        &RECIPROCAL_NO_NAN,
        &ATAN2,
        &POLYGAMMA,
        &IGAMMA,
        &IGAMMAC,
        &ZETA,
        &NEXTAFTER,
        &MULTIPLY_NO_NAN,
        &BETAINC,
        &LBETA,
        &SCALAR_MUL,
        &CONJ,
        &REAL,
        &IMAG,
        &ANGLE,
    ] {
        reg(n);
    }
}

/// `f(x, name=None)`.
const X: Signature = Signature::new(&["x: TensorLike", "name=None"]);

static LGAMMA: Native = Native::with("lgamma", X, |rt, a| unary(rt, a, Special::Lgamma)).spelled(&["tf.math.lgamma"]);
static DIGAMMA: Native =
    Native::with("digamma", X, |rt, a| unary(rt, a, Special::Digamma)).spelled(&["tf.math.digamma"]);
static ERFINV: Native = Native::with("erfinv", X, |rt, a| unary(rt, a, Special::Erfinv)).spelled(&["tf.math.erfinv"]);
static ERFCINV: Native =
    Native::with("erfcinv", X, |rt, a| unary(rt, a, Special::Erfcinv)).spelled(&["tf.math.erfcinv"]);
static NDTRI: Native = Native::with("ndtri", X, |rt, a| unary(rt, a, Special::Ndtri)).spelled(&["tf.math.ndtri"]);
static BESSEL_I0: Native = Native::with("bessel_i0", X, |rt, a| unary(rt, a, Special::BesselI0))
    .spelled(&["tf.math.bessel_i0", "tf.math.special.bessel_i0"]);
static BESSEL_I0E: Native = Native::with("bessel_i0e", X, |rt, a| unary(rt, a, Special::BesselI0e))
    .spelled(&["tf.math.bessel_i0e", "tf.math.special.bessel_i0e"]);
static BESSEL_I1: Native = Native::with("bessel_i1", X, |rt, a| unary(rt, a, Special::BesselI1))
    .spelled(&["tf.math.bessel_i1", "tf.math.special.bessel_i1"]);
static BESSEL_I1E: Native = Native::with("bessel_i1e", X, |rt, a| unary(rt, a, Special::BesselI1e))
    .spelled(&["tf.math.bessel_i1e", "tf.math.special.bessel_i1e"]);
static RINT: Native = Native::with("rint", X, |rt, a| unary(rt, a, Special::Rint)).spelled(&["tf.math.rint"]);
static RECIPROCAL_NO_NAN: Native = Native::with("reciprocal_no_nan", X, |rt, a| unary(rt, a, Special::ReciprocalNoNan))
    .spelled(&["tf.math.reciprocal_no_nan"]);

/// `lgamma(x)`, `digamma(x)`, `erfinv(x)`, `erfcinv(x)`, `ndtri(x)`, `bessel_i0(x)`,
/// `bessel_i0e(x)`, `bessel_i1(x)`, `bessel_i1e(x)`, `rint(x)`, `reciprocal_no_nan(x)`:
/// elementwise, in float64, rounded once to x's dtype.
///
/// Shapes: x's. Dtypes: float32, float64, and float16 where TF has a half kernel (lgamma,
/// digamma, the Bessel functions, reciprocal_no_nan); the result has x's dtype.
/// Gradient: lgamma: ψ(x); digamma: polygamma(1, x); erfinv: √π/2·e^(y²); erfcinv:
/// −√π/2·e^(y²); ndtri: √(2π)·e^(y²/2); bessel_i0: I₁(x); bessel_i0e: I₁e(x) − sign(x)·y;
/// bessel_i1: I₀(x) − y/x, and 1 at x = 0 (TF's value; the derivative is ½); bessel_i1e:
/// I₀e(x) − y·(sign(x) + 1/x), ½ at 0; reciprocal_no_nan: −1/x², 0 at x = 0; rint: None (TF).
/// Errors: TypeError for int or bool x, and float16 where TF has no kernel.
/// See: tf.math.lgamma and the others of the same names.
fn unary(rt: &mut Interp, args: &mut Args, f: Special) -> R<Value> {
    let mut a = X.bind(rt, args)?;
    let x = a.tensor("x")?;
    let _ = a.opt("name")?;
    Ok(Value::Tensor(rt.ad.special(f, &[&x])?))
}

static BESSEL_J0: Native =
    Native::with("bessel_j0", X, |rt, a| special(rt, a, Special::BesselJ0)).spelled(&["tf.math.special.bessel_j0"]);
static BESSEL_J1: Native =
    Native::with("bessel_j1", X, |rt, a| special(rt, a, Special::BesselJ1)).spelled(&["tf.math.special.bessel_j1"]);
static BESSEL_Y0: Native =
    Native::with("bessel_y0", X, |rt, a| special(rt, a, Special::BesselY0)).spelled(&["tf.math.special.bessel_y0"]);
static BESSEL_Y1: Native =
    Native::with("bessel_y1", X, |rt, a| special(rt, a, Special::BesselY1)).spelled(&["tf.math.special.bessel_y1"]);
static BESSEL_K0: Native =
    Native::with("bessel_k0", X, |rt, a| special(rt, a, Special::BesselK0)).spelled(&["tf.math.special.bessel_k0"]);
static BESSEL_K0E: Native = Native::with("bessel_k0e", X, |rt, a| special(rt, a, Special::BesselK0e))
    .spelled(&["tf.math.special.bessel_k0e"]);
static BESSEL_K1: Native =
    Native::with("bessel_k1", X, |rt, a| special(rt, a, Special::BesselK1)).spelled(&["tf.math.special.bessel_k1"]);
static BESSEL_K1E: Native = Native::with("bessel_k1e", X, |rt, a| special(rt, a, Special::BesselK1e))
    .spelled(&["tf.math.special.bessel_k1e"]);
static DAWSN: Native = Native::with("dawsn", X, |rt, a| special(rt, a, Special::Dawsn)).spelled(&["tf.math.special.dawsn"]);
static EXPINT: Native =
    Native::with("expint", X, |rt, a| special(rt, a, Special::Expint)).spelled(&["tf.math.special.expint"]);
static FRESNEL_COS: Native = Native::with("fresnel_cos", X, |rt, a| special(rt, a, Special::FresnelCos))
    .spelled(&["tf.math.special.fresnel_cos"]);
static FRESNEL_SIN: Native = Native::with("fresnel_sin", X, |rt, a| special(rt, a, Special::FresnelSin))
    .spelled(&["tf.math.special.fresnel_sin"]);
static SPENCE: Native =
    Native::with("spence", X, |rt, a| special(rt, a, Special::Spence)).spelled(&["tf.math.special.spence"]);

/// `tf.math.special`'s other functions of one tensor: `bessel_j0(x)`, `bessel_j1(x)`,
/// `bessel_y0(x)`, `bessel_y1(x)`, `bessel_k0(x)`, `bessel_k0e(x)` (K₀(x)eˣ), `bessel_k1(x)`,
/// `bessel_k1e(x)`, `dawsn(x)` (Dawson's integral), `expint(x)` (Ei), `fresnel_cos(x)`,
/// `fresnel_sin(x)`, `spence(x)` (Li₂(1 − x)): elementwise, in float64 within a few ulps
/// (J and Y near their zeros past 30: within an ulp or so of their envelope √(2/πx)), rounded
/// once to x's dtype.
///
/// Shapes: x's. Dtypes: float32, float64, and float16 for the Bessel functions (TF has no
/// half kernel for the others); the result has x's dtype.
/// Values at the edges, as TF 2.21: J and Y are NaN at ±inf; Y is −inf for x ≤ 0; K is +inf
/// for x ≤ 0 and 0 at +inf; expint is −inf at 0 and NaN for x < 0 and at +inf; spence is NaN for x < 0 and
/// at +inf; dawsn and the Fresnel integrals give +0 at ±0; NaN gives NaN.
/// Gradient (TF's): J₀: −J₁; J₁: J₀ − y/x, ½ at 0; Y₀: −Y₁; Y₁: Y₀ − y/x; K₀: −K₁; K₀e:
/// y − K₁e; K₁: −K₀ − y/x; K₁e: y(1 − 1/x) − K₀e; dawsn: 1 − 2xy; expint: eˣ/x;
/// fresnel_cos: cos(πx²/2); fresnel_sin: sin(πx²/2); spence: ln x/(1 − x), −1 at x = 1.
/// Errors: TypeError for int or bool x, and float16 for the non-Bessel ones.
/// See: tf.math.special.bessel_j0 and the others of the same names.
fn special(rt: &mut Interp, args: &mut Args, f: Special) -> R<Value> {
    unary(rt, args, f)
}

static ATAN2: Native = Native::new("atan2", &["y: TensorLike", "x: TensorLike", "name=None"], |rt, a| {
    binary(rt, a, &ATAN2, Special::Atan2, ["y", "x"])
})
.spelled(&["tf.math.atan2", "tf.atan2"]);
static POLYGAMMA: Native = Native::new("polygamma", &["a: TensorLike", "x: TensorLike", "name=None"], |rt, a| {
    binary(rt, a, &POLYGAMMA, Special::Polygamma, ["a", "x"])
})
.spelled(&["tf.math.polygamma"]);
static IGAMMA: Native = Native::new("igamma", &["a: TensorLike", "x: TensorLike", "name=None"], |rt, a| {
    binary(rt, a, &IGAMMA, Special::Igamma, ["a", "x"])
})
.spelled(&["tf.math.igamma"]);
static IGAMMAC: Native = Native::new("igammac", &["a: TensorLike", "x: TensorLike", "name=None"], |rt, a| {
    binary(rt, a, &IGAMMAC, Special::Igammac, ["a", "x"])
})
.spelled(&["tf.math.igammac"]);
static ZETA: Native = Native::new("zeta", &["x: TensorLike", "q: TensorLike", "name=None"], |rt, a| {
    binary(rt, a, &ZETA, Special::Zeta, ["x", "q"])
})
.spelled(&["tf.math.zeta"]);
static NEXTAFTER: Native = Native::new("nextafter", &["x1: TensorLike", "x2: TensorLike", "name=None"], |rt, a| {
    binary(rt, a, &NEXTAFTER, Special::NextAfter, ["x1", "x2"])
})
.spelled(&["tf.math.nextafter"]);
static MULTIPLY_NO_NAN: Native =
    Native::new("multiply_no_nan", &["x: TensorLike", "y: TensorLike", "name=None"], |rt, a| {
        binary(rt, a, &MULTIPLY_NO_NAN, Special::MulNoNan, ["x", "y"])
    })
    .spelled(&["tf.math.multiply_no_nan"]);

/// `atan2(y, x)`, `polygamma(a, x)`, `igamma(a, x)`, `igammac(a, x)`, `zeta(x, q)`,
/// `nextafter(x1, x2)`, `multiply_no_nan(x, y)`: elementwise with broadcasting, in float64,
/// rounded once to the inputs' dtype (nextafter steps in the dtype itself).
///
/// Shapes: broadcast of the two. Dtypes: float32, float64 (float16 too for atan2 and
/// multiply_no_nan, as TF); both the same (a Python number takes the tensor's dtype).
/// Gradient: atan2: x/(x²+y²) to y, −y/(x²+y²) to x; polygamma: polygamma(a+1, x) to x,
/// None to a; igamma: ∂P/∂a to a (which has no gradient itself: None, where TF raises
/// LookupError) and e^(−x)x^(a−1)/Γ(a) to x; igammac: their negatives; zeta: −x·ζ(x+1, q) to q,
/// None to x; nextafter: 1 to x1, 0 to x2; multiply_no_nan: multiply_no_nan(g, y) to x and
/// multiply_no_nan(x, g) to y; each summed back over broadcast axes.
/// Errors: TypeError for int, bool or mixed dtypes; ShapeError when the shapes do not broadcast.
/// See: tf.math.atan2 and the others of the same names.
fn binary(rt: &mut Interp, args: &mut Args, decl: &'static Native, f: Special, names: [&str; 2]) -> R<Value> {
    let mut a = decl.bind(rt, args)?;
    let (x, y) = (a.tensor_like(names[0])?, a.tensor_like(names[1])?);
    let _ = a.opt("name")?;
    let (x, y) = rt.tensor_pair(&x, &y)?;
    Ok(Value::Tensor(rt.ad.special(f, &[&x, &y])?))
}

static BETAINC: Native =
    Native::new("betainc", &["a: TensorLike", "b: TensorLike", "x: TensorLike", "name=None"], betainc)
        .spelled(&["tf.math.betainc"]);

/// `betainc(a, b, x)`: the regularized incomplete beta function I_x(a, b) elementwise.
///
/// Shapes: a, b and x each a scalar or all of one shape (TF does not broadcast them further).
/// Dtypes: float32, float64, all the same (a Python number takes the tensors' dtype).
/// Gradient: to x, x^(a−1)(1−x)^(b−1)/B(a, b); None to a and b (TF).
/// Errors: TypeError for int, bool or mixed dtypes; ShapeError for two different non-scalar shapes.
/// See: tf.math.betainc.
fn betainc(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = BETAINC.bind(rt, args)?;
    let vals = [a.tensor_like("a")?, a.tensor_like("b")?, a.tensor_like("x")?];
    let _ = a.opt("name")?;
    let hint = match vals.iter().find(|v| matches!(v, Value::Tensor(_) | Value::Variable(_))) {
        Some(v) => Some(rt.to_tensor(v, None)?.dtype()),
        None => None,
    };
    let mut ts = Vec::with_capacity(3);
    for v in &vals {
        ts.push(rt.to_tensor(v, hint)?);
    }
    Ok(Value::Tensor(rt.ad.special(Special::Betainc, &[&ts[0], &ts[1], &ts[2]])?))
}

static LBETA: Native = Native::with("lbeta", X, lbeta).spelled(&["tf.math.lbeta"]);

/// `lbeta(x)`: ln|B(x)| over the last axis, Σ lgamma(xᵢ) − lgamma(Σ xᵢ) (−inf for an empty
/// last axis, as TF).
///
/// Shapes: x [d0, …, dn] → [d0, …, dn−1]. Dtypes: float16, float32, float64.
/// Gradient: ψ(xᵢ) − ψ(Σ x) (composed of lgamma and reduce_sum).
/// Errors: TypeError for int or bool x; ValueError for a scalar (no last axis).
/// See: tf.math.lbeta.
fn lbeta(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = LBETA.bind(rt, args)?.tensor("x")?;
    if x.shape().is_empty() {
        bail!(Value, "lbeta: x must have at least one axis, got a scalar");
    }
    let lg = rt.ad.special(Special::Lgamma, &[&x])?;
    let first = rt.ad.reduce(Reduce::Sum, &lg, Some(&[-1]), false)?;
    let total = rt.ad.reduce(Reduce::Sum, &x, Some(&[-1]), false)?;
    let second = rt.ad.special(Special::Lgamma, &[&total])?;
    Ok(Value::Tensor(rt.ad.binary(Binary::Sub, &first, &second)?))
}

static SCALAR_MUL: Native =
    Native::new("scalar_mul", &["scalar: TensorLike", "x: TensorLike", "name=None"], scalar_mul)
        .spelled(&["tf.math.scalar_mul", "tf.scalar_mul"]);

/// `scalar_mul(scalar, x)`: x times a scalar, which takes x's dtype.
///
/// Shapes: x's. Dtypes: x's (int too: `scalar_mul(2, x)` of an int32 x is int32).
/// Gradient: the scalar times the upstream gradient to x, and Σ g·x to a scalar tensor.
/// Errors: ValueError when the scalar is not 0-D; TypeError when it does not convert to x's dtype.
/// See: tf.math.scalar_mul.
fn scalar_mul(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SCALAR_MUL.bind(rt, args)?;
    let (s, x) = (a.tensor_like("scalar")?, a.tensor_like("x")?);
    let _ = a.opt("name")?;
    let x = rt.to_tensor(&x, None)?;
    let s = rt.to_tensor(&s, Some(x.dtype()))?;
    if !s.shape().is_empty() {
        bail!(Value, "scalar_mul: the scalar must be 0-D, got shape {}", crate::tensor::shape_str(s.shape()));
    }
    Ok(Value::Tensor(rt.ad.mul(&s, &x)?))
}

static CONJ: Native = Native::with("conj", X, |rt, a| real_part(rt, a, "x")).spelled(&["tf.math.conj"]);
static REAL: Native = Native::new("real", &["input: TensorLike", "name=None"], |rt, a| real_part(rt, a, "input"))
    .spelled(&["tf.math.real"]);

/// `conj(x)`, `real(input)`: a real tensor is its own conjugate and real part (DGL has no
/// complex dtypes), returned as it is.
///
/// Shapes: x's. Dtypes: every numeric dtype; the result has x's.
/// Gradient: the upstream gradient (identity).
/// Errors: TypeError for a bool tensor (as TF).
/// See: tf.math.conj, tf.math.real.
fn real_part(rt: &mut Interp, args: &mut Args, param: &str) -> R<Value> {
    let decl = if param == "x" { &CONJ } else { &REAL };
    let mut a = decl.bind(rt, args)?;
    let x = a.tensor(param)?;
    let _ = a.opt("name")?;
    if x.dtype() == DType::Bool {
        bail!(Type, "{}: the input must be a numeric tensor, got bool", decl.name);
    }
    Ok(Value::Tensor(x))
}

static IMAG: Native = Native::new("imag", &["input: TensorLike", "name=None"], imag).spelled(&["tf.math.imag"]);

/// `imag(input)`: the imaginary part of a real tensor, zeros of its shape and dtype.
///
/// Shapes: input's. Dtypes: every dtype (a bool input gives False, as TF).
/// Gradient: None (TF: the zeros do not depend on the input).
/// See: tf.math.imag.
fn imag(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = IMAG.bind(rt, args)?;
    let x = a.tensor("input")?;
    let _ = a.opt("name")?;
    Ok(Value::Tensor(Tensor::zeros(x.dtype(), x.shape())))
}

static ANGLE: Native = Native::new("angle", &["input: TensorLike", "name=None"], angle).spelled(&["tf.math.angle"]);

/// `angle(input)`: the argument of a real number: π where it is negative, else 0 (−0, +0 and
/// NaN give 0, as TF's).
///
/// Shapes: input's. Dtypes: float16, float32, float64; the result has input's dtype.
/// Gradient: None (TF).
/// Errors: TypeError for int or bool input (TF cannot convert π to them).
/// See: tf.math.angle.
fn angle(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = ANGLE.bind(rt, args)?;
    let x = a.tensor("input")?;
    let _ = a.opt("name")?;
    if !x.dtype().is_float() {
        bail!(Type, "angle: cannot convert π to a {} tensor (angle needs a float tensor)", x.dtype());
    }
    let zero = rt.ad.scalar(x.dtype(), 0.0);
    let negative = Tensor::new(kernels::compare(Compare::Lt, &x.data, &zero.data)?);
    let pi = rt.ad.constant_like(&x, std::f64::consts::PI);
    let zeros = rt.ad.constant_like(&x, 0.0);
    Ok(Value::Tensor(rt.ad.where_(&negative, &pi, &zeros)?))
}
