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
    match tie_to_even(x) {
        None => fmt_float(x, |v| format!("{v}"), |v| format!("{v:e}")),
        // The even one of two shortest texts at the same distance: its digits, parsed back,
        // are `x` itself, so Rust prints it as written.
        Some(text) => {
            let even: f64 = text.parse().unwrap_or(x);
            fmt_float(even, |_| plain_from_exp(&text), |_| text.clone())
        }
    }
}

/// When `x`'s exact value lies halfway between two shortest decimal texts that both read
/// back as `x`, the one whose last digit is even, in exponent form (`-9.007199254740992e14`);
/// `None` otherwise. CPython's repr breaks such ties to even (`9007199254740992.0 * -0.1` is
/// `-900719925474099.2`, exactly `…099.25`), Rust's shortest formatting away from zero.
fn tie_to_even(x: f64) -> Option<String> {
    if !x.is_finite() || x == 0.0 {
        return None;
    }
    let s = format!("{:e}", x.abs());
    let (mantissa, exp) = s.split_once('e')?;
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let last = *digits.as_bytes().last()? - b'0';
    if last % 2 == 0 {
        return None;
    }
    let n = digits.len();
    // The exact digits of x to well past the shortest ones: a tie is a 5 and then only zeros.
    let exact = format!("{:.*e}", n + 24, x.abs());
    let exact_digits: String = exact.split_once('e')?.0.chars().filter(|c| *c != '.').collect();
    let (head, tail) = exact_digits.split_at(n.min(exact_digits.len()));
    if !(tail.starts_with('5') && tail[1..].bytes().all(|b| b == b'0')) {
        return None;
    }
    // Confirm the tail is exactly zero beyond the digits looked at (a double's expansion has
    // at most 767 significant digits).
    let full = format!("{:.*e}", 800, x.abs());
    let full_digits: String = full.split_once('e')?.0.chars().filter(|c| *c != '.').collect();
    if !full_digits[n + 1..].bytes().all(|b| b == b'0') {
        return None;
    }
    // `head` is the lower neighbour (truncated), `head + 1` the upper: Rust chose the odd one.
    let (mut even, mut exp): (String, i32) = (head.to_string(), exp.parse().ok()?);
    if head == digits {
        let up = head.parse::<u64>().ok()? + 1;
        even = up.to_string();
        if even.len() > n {
            even.truncate(n);
            exp += 1;
        }
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let text = match even.len() {
        1 => format!("{sign}{even}e{exp}"),
        _ => format!("{sign}{}.{}e{exp}", &even[..1], even[1..].trim_end_matches('0')),
    };
    let text = text.replace(".e", "e");
    (text.parse::<f64>().ok() == Some(x)).then_some(text)
}

/// `1.25e2` as plain decimal text (`125.0`'s digits, without the `.0` `fmt_float` adds).
fn plain_from_exp(text: &str) -> String {
    let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let point = 1 + exp;
    let body = if point <= 0 {
        format!("0.{}{}", "0".repeat((-point) as usize), digits)
    } else if point as usize >= digits.len() {
        format!("{}{}", digits, "0".repeat(point as usize - digits.len()))
    } else {
        format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

/// A float16 at its own precision (`0.1`, not `0.0999755859375`): the fewest significant digits
/// that read back as the same float16, in [`fmt_f64`]'s layout.
pub fn fmt_f16(x: half::f16) -> String {
    let v = x.to_f64();
    if !v.is_finite() || v == 0.0 {
        return fmt_f64(v);
    }
    let digits = (1..=5)
        .map(|p| format!("{:.*e}", p - 1, v))
        .find(|text| text.parse::<f64>().is_ok_and(|back| half::f16::from_f64(back) == x))
        .unwrap_or_else(|| format!("{v:e}"));
    fmt_f64(digits.parse().unwrap_or(v))
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
