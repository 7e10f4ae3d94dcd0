//! Scalar conversions the kernels share with the runtime: the one float → int
//! conversion and the float text of messages (`runtime::convert` and
//! `runtime::format` re-export them, so there is still one of each).

use super::error::{tensor_bail, TensorResult};

/// The one float → int conversion (Python's `int(x)`: truncation toward zero),
/// exact or an error, never a saturated or wrapped value.
///
/// Errors: ValueError `cannot convert float NaN to integer`, `cannot convert
/// float infinity to integer` (Python's OverflowError; DGL ints are 64-bit, so
/// a float outside [-2^63, 2^63) is out of range too).
pub fn float_to_int(f: f64) -> TensorResult<i64> {
    if f.is_nan() {
        tensor_bail!(Value, "cannot convert float NaN to integer");
    }
    if f.is_infinite() {
        tensor_bail!(Value, "cannot convert float infinity to integer");
    }
    let t = f.trunc();
    // 2^63 is exactly representable; every float below it and at or above -2^63 fits.
    if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&t) {
        tensor_bail!(Value, "float {} is out of range for a 64-bit int", fmt_f64(f));
    }
    Ok(t as i64)
}

/// A float64 as Python prints it, in the contract's exponent style: the
/// shortest text that reads back, `.0` when integral, exponent form below
/// 1e-4 and from 1e16 on (`1e-8`, `1e20`).
pub fn fmt_f64(x: f64) -> String {
    fmt_float(x, |v| format!("{v}"), |v| format!("{v:e}"))
}

/// A float32 at its own precision (`0.1`, not `0.10000000149011612`).
pub fn fmt_f32(x: f32) -> String {
    fmt_float(x as f64, |_| format!("{x}"), |_| format!("{x:e}"))
}

fn fmt_float(x: f64, plain: impl Fn(f64) -> String, exp: impl Fn(f64) -> String) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        return exp(x);
    }
    let s = plain(x);
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}
