//! Elementwise functions of one tensor ([`Unary`]): float32/float64, and int64
//! where they are defined; float32 exp, tanh and sigmoid through math.rs.

use super::binary::from_vec;
use crate::tensor::array::Array;
use crate::tensor::error::{tensor_bail, TensorResult as R};
use ndarray::ArrayD;
use num_traits::Float;

/// Elementwise float functions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unary {
    Neg,
    Abs,
    Exp,
    Log,
    Log1p,
    Sqrt,
    Square,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sigmoid,
    Relu,
    Softplus,
    Sign,
    /// 1 where x > 0, else 0 (the derivative of relu, TF's choice at 0).
    Step,
    Reciprocal,
    /// Rounds down; no gradient (TF: None).
    Floor,
    /// Rounds up; no gradient (TF: None).
    Ceil,
    /// Rounds half to even (TF's banker's rounding); no gradient (TF: None).
    Round,
    /// 1 / √x.
    Rsqrt,
    /// The error function, 2/√π ∫₀ˣ e^(−t²) dt.
    Erf,
    /// 1 − erf(x), accurate where erf(x) is near 1.
    Erfc,
    /// eˣ − 1, accurate near 0.
    Expm1,
    /// The inverse sine, in [−π/2, π/2]; NaN outside [−1, 1].
    Asin,
    /// The inverse cosine, in [0, π]; NaN outside [−1, 1].
    Acos,
    /// The inverse tangent, in (−π/2, π/2).
    Atan,
    Sinh,
    Cosh,
    Asinh,
    /// NaN below 1.
    Acosh,
    /// ±inf at ±1, NaN beyond.
    Atanh,
}

#[inline(always)]
fn float_unary<T: Float>(op: Unary) -> impl Fn(T) -> T {
    move |x: T| {
        let one = T::one();
        let zero = T::zero();
        match op {
            Unary::Neg => -x,
            Unary::Abs => x.abs(),
            Unary::Exp => x.exp(),
            Unary::Log => x.ln(),
            Unary::Log1p => x.ln_1p(),
            Unary::Sqrt => x.sqrt(),
            Unary::Square => x * x,
            Unary::Sin => x.sin(),
            Unary::Cos => x.cos(),
            Unary::Tan => x.tan(),
            Unary::Tanh => x.tanh(),
            Unary::Sigmoid => {
                // Stable for large |x|.
                if x >= zero {
                    one / (one + (-x).exp())
                } else {
                    let e = x.exp();
                    e / (one + e)
                }
            }
            // max(x, 0) with NaN propagated, as TF.
            Unary::Relu => {
                if x > zero || x.is_nan() {
                    x
                } else {
                    zero
                }
            }
            Unary::Softplus => {
                // log(1 + e^x) without overflow.
                if x > zero {
                    x + (-x).exp().ln_1p()
                } else {
                    x.exp().ln_1p()
                }
            }
            Unary::Sign => {
                if x > zero {
                    one
                } else if x < zero {
                    -one
                } else if x.is_nan() {
                    x
                } else {
                    zero
                }
            }
            Unary::Step => {
                if x > zero {
                    one
                } else {
                    zero
                }
            }
            Unary::Reciprocal => one / x,
            Unary::Floor => x.floor(),
            Unary::Ceil => x.ceil(),
            Unary::Round => crate::tensor::activations::round_half_even(x),
            Unary::Rsqrt => one / x.sqrt(),
            Unary::Erf => crate::tensor::activations::erf(x),
            Unary::Erfc => crate::tensor::activations::erfc(x),
            Unary::Expm1 => x.exp_m1(),
            Unary::Asin => x.asin(),
            Unary::Acos => x.acos(),
            Unary::Atan => x.atan(),
            Unary::Sinh => x.sinh(),
            Unary::Cosh => x.cosh(),
            Unary::Asinh => x.asinh(),
            Unary::Acosh => x.acosh(),
            Unary::Atanh => x.atanh(),
        }
    }
}

/// `f` over every element, as a slice loop when `x` is contiguous.
fn map_float<T: Copy>(x: &ArrayD<T>, f: impl Fn(T) -> T) -> ArrayD<T> {
    match x.as_slice() {
        Some(xs) => from_vec(x.shape(), xs.iter().map(|&v| f(v)).collect()),
        None => x.mapv(f),
    }
}

/// [`float_unary`] over an array, with the operation chosen outside the element loop.
fn float_unary_array<T: Float>(op: Unary, x: &ArrayD<T>) -> ArrayD<T> {
    macro_rules! per_op {
        ($($v:ident)*) => {
            match op {
                $(Unary::$v => map_float(x, |v| float_unary::<T>(Unary::$v)(v)),)*
            }
        };
    }
    per_op!(Neg Abs Exp Log Log1p Sqrt Square Sin Cos Tan Tanh Sigmoid Relu Softplus Sign Step Reciprocal Floor Ceil Round Rsqrt
        Erf Erfc Expm1 Asin Acos Atan Sinh Cosh Asinh Acosh Atanh)
}

/// `f(x)` elementwise. Neg, Abs, Square, Sign, Relu and Round also work on int64.
/// float32 exp, tanh and sigmoid go through [`crate::tensor::math`] (vectorized, at
/// most 1 ulp from the correctly rounded value); the rest through std.
///
/// Errors: TypeError on bool, or on int64 for transcendental functions.
pub fn unary(op: Unary, a: &Array) -> R<Array> {
    crate::tensor::budget::check_elements(a.len(), a.dtype().size())?;
    Ok(match a {
        Array::F32(x) => Array::F32(match (op, x.as_slice()) {
            (Unary::Exp, Some(xs)) => from_vec(x.shape(), crate::tensor::math::exp_f32_slice(xs)),
            (Unary::Tanh, Some(xs)) => from_vec(x.shape(), crate::tensor::math::tanh_f32_slice(xs)),
            (Unary::Sigmoid, Some(xs)) => from_vec(x.shape(), crate::tensor::math::sigmoid_f32_slice(xs)),
            (Unary::Exp, None) => x.mapv(crate::tensor::math::exp_f32),
            (Unary::Tanh, None) => x.mapv(crate::tensor::math::tanh_f32),
            (Unary::Sigmoid, None) => x.mapv(crate::tensor::math::sigmoid_f32),
            _ => float_unary_array(op, x),
        }),
        Array::F64(x) => Array::F64(float_unary_array(op, x)),
        narrow @ crate::narrow_array!() => unary(op, &a.widened())?.narrowed_to(narrow.dtype()),
        Array::I64(x) => Array::I64(match op {
            // Negating or squaring can leave the int64 range: exact or an error, never wrapped.
            Unary::Neg | Unary::Abs | Unary::Square => {
                let f = |v: i64| match op {
                    Unary::Neg => v.checked_neg(),
                    Unary::Abs => v.checked_abs(),
                    _ => v.checked_mul(v),
                };
                if let Some(&bad) = x.iter().find(|&&v| f(v).is_none()) {
                    tensor_bail!(Value, "integer overflow in an int64 tensor {} of {}", unary_name(op), bad);
                }
                x.mapv(|v| f(v).unwrap_or(0))
            }
            Unary::Sign => x.mapv(|v| v.signum()),
            Unary::Relu => x.mapv(|v| v.max(0)),
            // TF: rounding an integer tensor returns it unchanged.
            Unary::Round => x.clone(),
            _ => tensor_bail!(Type, "{} needs a float tensor, got int64 (use cast)", unary_name(op)),
        }),
        Array::Bool(_) => tensor_bail!(Type, "{} is not defined on bool tensors", unary_name(op)),
    })
}

/// [`unary`] consuming `a`: a contiguous float `a` receives the result in its own buffer (no
/// allocation); anything else is computed as [`unary`] does. The values are [`unary`]'s.
///
/// Errors: as [`unary`].
pub fn unary_owned(op: Unary, a: Array) -> R<Array> {
    fn in_place<T: Float>(op: Unary, xs: &mut [T]) {
        macro_rules! per_op {
            ($($v:ident)*) => {
                match op {
                    $(Unary::$v => {
                        let f = |v| float_unary::<T>(Unary::$v)(v);
                        for x in xs.iter_mut() {
                            *x = f(*x);
                        }
                    })*
                }
            };
        }
        per_op!(Neg Abs Exp Log Log1p Sqrt Square Sin Cos Tan Tanh Sigmoid Relu Softplus Sign Step Reciprocal Floor Ceil Round Rsqrt
        Erf Erfc Expm1 Asin Acos Atan Sinh Cosh Asinh Acosh Atanh)
    }
    match a {
        Array::F32(mut x) if x.is_standard_layout() => {
            let xs = x.as_slice_mut().expect("standard layout is contiguous");
            match op {
                Unary::Exp => crate::tensor::math::exp_f32_in_place(xs),
                Unary::Tanh => crate::tensor::math::tanh_f32_in_place(xs),
                Unary::Sigmoid => crate::tensor::math::sigmoid_f32_in_place(xs),
                _ => in_place(op, xs),
            }
            Ok(Array::F32(x))
        }
        Array::F64(mut x) if x.is_standard_layout() => {
            in_place(op, x.as_slice_mut().expect("standard layout is contiguous"));
            Ok(Array::F64(x))
        }
        a => unary(op, &a),
    }
}

/// The name messages use for `op`.
pub fn unary_name(op: Unary) -> &'static str {
    match op {
        Unary::Neg => "neg",
        Unary::Abs => "abs",
        Unary::Exp => "exp",
        Unary::Log => "log",
        Unary::Log1p => "log1p",
        Unary::Sqrt => "sqrt",
        Unary::Square => "square",
        Unary::Sin => "sin",
        Unary::Cos => "cos",
        Unary::Tan => "tan",
        Unary::Tanh => "tanh",
        Unary::Sigmoid => "sigmoid",
        Unary::Relu => "relu",
        Unary::Softplus => "softplus",
        Unary::Sign => "sign",
        Unary::Step => "step",
        Unary::Reciprocal => "reciprocal",
        Unary::Floor => "floor",
        Unary::Ceil => "ceil",
        Unary::Round => "round",
        Unary::Rsqrt => "rsqrt",
        Unary::Erf => "erf",
        Unary::Erfc => "erfc",
        Unary::Expm1 => "expm1",
        Unary::Asin => "asin",
        Unary::Acos => "acos",
        Unary::Atan => "atan",
        Unary::Sinh => "sinh",
        Unary::Cosh => "cosh",
        Unary::Asinh => "asinh",
        Unary::Acosh => "acosh",
        Unary::Atanh => "atanh",
    }
}
