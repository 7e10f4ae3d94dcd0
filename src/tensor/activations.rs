//! Scalar helpers of the elementwise math kernels ([`super::kernels::Unary`]'s Round and Erf)
//! and the bool kernels: `logical_and`/`or`/`xor`/`not` and the float classifications
//! `is_nan`, `is_inf`, `is_finite`.

use super::array::Array;
use super::error::{tensor_bail, TensorResult as R};
use super::kernels::zip_bcast;
use num_traits::Float;

/// `x` rounded to the nearest integer, ties to the even one (TF's `round`, IEEE's
/// roundTiesToEven). NaN and ±inf are returned as they are; a zero result keeps x's sign
/// (TF: round(−0.4) is −0.0).
pub fn round_half_even<T: Float>(x: T) -> T {
    let two = T::one() + T::one();
    let half = T::one() / two;
    let f = x.floor();
    let frac = x - f;
    // Only a finite x reaches the comparisons with a meaningful fraction: for ±inf,
    // inf − inf is NaN, every comparison is false and f (±inf) is returned below.
    let r = if frac < half {
        f
    } else if frac > half {
        f + T::one()
    } else if (f / two).floor() * two == f {
        f
    } else {
        f + T::one()
    };
    if r.is_nan() || x.is_infinite() {
        return x;
    }
    if r == T::zero() && x.is_sign_negative() {
        -T::zero()
    } else {
        r
    }
}

/// The error function, evaluated in float64 (libm's `erf`, within 1 ulp there) and rounded
/// once to T: a float32 result is the correctly rounded value in all but rare ties. TF's
/// float32 `erf` is a rational approximation a few ulps from it (erf(2.5) is 0.99959296
/// there, 0.99959308 here, 0.999593048 exactly); float64 results agree with TF's.
pub fn erf<T: Float>(x: T) -> T {
    let v = x.to_f64().unwrap_or(f64::NAN);
    T::from(libm::erf(v)).unwrap_or_else(T::nan)
}

/// The complementary error function 1 − erf(x), computed in float64 (libm's, accurate where
/// erf(x) is near 1) and rounded to `T`.
pub fn erfc<T: Float>(x: T) -> T {
    let v = x.to_f64().unwrap_or(f64::NAN);
    T::from(libm::erfc(v)).unwrap_or_else(T::nan)
}

/// Logical operations of two bool tensors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Logical {
    And,
    Or,
    Xor,
}

impl Logical {
    fn name(self) -> &'static str {
        match self {
            Logical::And => "logical_and",
            Logical::Or => "logical_or",
            Logical::Xor => "logical_xor",
        }
    }
}

/// `a op b` elementwise with broadcasting, on bool tensors.
///
/// Errors: TypeError unless both are bool (TF: no implicit cast to bool);
/// ShapeError when the shapes do not broadcast.
pub fn logical(op: Logical, a: &Array, b: &Array) -> R<Array> {
    let (Array::Bool(x), Array::Bool(y)) = (a, b) else {
        tensor_bail!(Type, "{} needs bool tensors, got {} and {}", op.name(), a.dtype(), b.dtype());
    };
    Ok(Array::Bool(match op {
        Logical::And => zip_bcast(x, y, |p, q| p && q)?,
        Logical::Or => zip_bcast(x, y, |p, q| p || q)?,
        Logical::Xor => zip_bcast(x, y, |p, q| p != q)?,
    }))
}

/// `a & b`, `a | b`, `a ^ b` on int64 tensors: bitwise, with broadcasting (TF's
/// `bitwise_and`/`bitwise_or`/`bitwise_xor`, what its tensors' `&`, `|`, `^` run for ints).
///
/// Errors: TypeError unless both are int64; ShapeError when the shapes do not broadcast.
pub fn bitwise(op: Logical, a: &Array, b: &Array) -> R<Array> {
    if a.dtype() == b.dtype() && a.dtype().is_narrow() && a.dtype().is_int() {
        return Ok(bitwise(op, &a.widened(), &b.widened())?.narrowed_to(a.dtype()));
    }
    let (Array::I64(x), Array::I64(y)) = (a, b) else {
        let name = match op {
            Logical::And => "&",
            Logical::Or => "|",
            Logical::Xor => "^",
        };
        tensor_bail!(
            Type,
            "unsupported operand dtypes for {}: {} and {} (bool or int64 tensors)",
            name,
            a.dtype(),
            b.dtype()
        );
    };
    Ok(Array::I64(match op {
        Logical::And => zip_bcast(x, y, |p, q| p & q)?,
        Logical::Or => zip_bcast(x, y, |p, q| p | q)?,
        Logical::Xor => zip_bcast(x, y, |p, q| p ^ q)?,
    }))
}

/// `~x` on a tensor: `logical_not` of a bool tensor, bitwise inversion of an int64 one
/// (TF's `invert`).
///
/// Errors: TypeError for float tensors (TF accepts integer and bool dtypes only).
pub fn invert(a: &Array) -> R<Array> {
    match a {
        Array::Bool(x) => Ok(Array::Bool(x.mapv(|v| !v))),
        Array::I64(x) => Ok(Array::I64(x.mapv(|v| !v))),
        narrow @ (Array::U8(_) | Array::I8(_) | Array::I16(_) | Array::I32(_)) => {
            Ok(invert(&narrow.widened())?.narrowed_to(narrow.dtype()))
        }
        _ => tensor_bail!(Type, "bad operand dtype for unary ~: {} (bool or int64 tensors)", a.dtype()),
    }
}

/// `logical_not(x)`: elementwise negation of a bool tensor.
///
/// Errors: TypeError unless x is bool.
pub fn logical_not(a: &Array) -> R<Array> {
    let Array::Bool(x) = a else {
        tensor_bail!(Type, "logical_not needs a bool tensor, got {}", a.dtype());
    };
    Ok(Array::Bool(x.mapv(|v| !v)))
}

/// Which class of float value [`classify`] tests for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FloatClass {
    Nan,
    Inf,
    Finite,
}

impl FloatClass {
    fn name(self) -> &'static str {
        match self {
            FloatClass::Nan => "is_nan",
            FloatClass::Inf => "is_inf",
            FloatClass::Finite => "is_finite",
        }
    }

    fn test<T: Float>(self, v: T) -> bool {
        match self {
            FloatClass::Nan => v.is_nan(),
            FloatClass::Inf => v.is_infinite(),
            FloatClass::Finite => v.is_finite(),
        }
    }
}

/// `is_nan`/`is_inf`/`is_finite(x)`: a bool tensor of x's shape.
///
/// Errors: TypeError unless x is float (TF accepts float dtypes only).
pub fn classify(class: FloatClass, a: &Array) -> R<Array> {
    Ok(Array::Bool(match a {
        Array::F32(x) => x.mapv(|v| class.test(v)),
        Array::F64(x) => x.mapv(|v| class.test(v)),
        Array::F16(x) => x.mapv(|v| class.test(v.to_f64())),
        _ => tensor_bail!(Type, "{} needs a float tensor, got {}", class.name(), a.dtype()),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_half_even_ties_and_edges() {
        let xs = [-2.5f64, -1.5, -0.5, 0.5, 1.5, 2.5, -0.7, 0.0, 3.7, 4503599627370497.0];
        let want: [f64; 10] = [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, -1.0, 0.0, 4.0, 4503599627370497.0];
        for (x, w) in xs.iter().zip(want) {
            let r = round_half_even(*x);
            assert_eq!(r.to_bits(), w.to_bits(), "round({x}) = {r}");
        }
        assert!(round_half_even(f32::NAN).is_nan());
        assert_eq!(round_half_even(f32::NEG_INFINITY), f32::NEG_INFINITY);
    }
}
