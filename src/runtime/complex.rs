//! Complex numbers (`5 + 4j`, `complex(1, 2)`), exact as CPython 3.11's: the arithmetic of
//! its complexobject.c (the same formulas in the same order, so the same bits), the text of
//! `repr` and the string `complex()` reads (docs/language.md §3 "Complex numbers").
//!
//! A complex number is a Python value only: DGL's tensors have no complex dtype
//! (docs/language.md §4), so one meeting a tensor or a NumPy value is
//! [`no_complex_tensor`]'s TypeError.

use super::value::Value;
use crate::error::{Exc, R};
use crate::syntax::ast::BinOp;

/// The TypeError of a complex number (or a list holding one) made into a tensor or NumPy
/// value, or combined with one: the one message for that gap.
pub fn no_complex_tensor() -> Exc {
    crate::err!(
        Type,
        "complex numbers cannot become a tensor: DGL has no complex64 or complex128 dtype (its dtypes are {})",
        super::convert::DTYPE_NAMES
    )
}

/// The parts of a number as a complex number (`Py_complex` of an int, a bool, a float or
/// a complex); `None` for any other value.
pub fn parts(v: &Value) -> Option<(f64, f64)> {
    match v {
        Value::Complex(re, im) => Some((*re, *im)),
        Value::Float(f) => Some((*f, 0.0)),
        Value::Int(i) => Some((*i as f64, 0.0)),
        Value::Bool(b) => Some((*b as u8 as f64, 0.0)),
        _ => None,
    }
}

type C = (f64, f64);

/// `a * b` (CPython's `_Py_c_prod`).
fn prod(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// `a / b` (CPython 3.11's `_Py_c_quot`: Smith's method, scaled by the larger part of b);
/// `None` when b is zero.
fn quot(a: C, b: C) -> Option<C> {
    let (abs_re, abs_im) = (b.0.abs(), b.1.abs());
    if abs_re >= abs_im {
        if abs_re == 0.0 {
            return None;
        }
        let ratio = b.1 / b.0;
        let denom = b.0 + b.1 * ratio;
        Some(((a.0 + a.1 * ratio) / denom, (a.1 - a.0 * ratio) / denom))
    } else if abs_im >= abs_re {
        let ratio = b.0 / b.1;
        let denom = b.0 * ratio + b.1;
        Some(((a.0 * ratio + a.1) / denom, (a.1 * ratio - a.0) / denom))
    } else {
        // A part of b is NaN.
        Some((f64::NAN, f64::NAN))
    }
}

/// `x ** n` for n >= 0 by repeated squaring (CPython's `c_powu`).
fn powu(x: C, n: i64) -> C {
    let (mut r, mut p, mut mask) = ((1.0, 0.0), x, 1i64);
    while mask > 0 && n >= mask {
        if n & mask != 0 {
            r = prod(r, p);
        }
        mask <<= 1;
        p = prod(p, p);
    }
    r
}

/// Why a complex power failed (CPython's errno).
enum PowError {
    /// EDOM: zero to a negative or complex power.
    Domain,
}

/// `a ** b` as CPython's `_Py_c_pow`: in polar form.
fn pow_polar(a: C, b: C) -> Result<C, PowError> {
    if b.0 == 0.0 && b.1 == 0.0 {
        return Ok((1.0, 0.0));
    }
    if a.0 == 0.0 && a.1 == 0.0 {
        if b.1 != 0.0 || b.0 < 0.0 {
            return Err(PowError::Domain);
        }
        return Ok((0.0, 0.0));
    }
    let vabs = a.0.hypot(a.1);
    let mut len = vabs.powf(b.0);
    let at = a.1.atan2(a.0);
    let mut phase = at * b.0;
    if b.1 != 0.0 {
        len /= (at * b.1).exp();
        phase += b.1 * vabs.ln();
    }
    // C's cos and sin of an infinite angle set errno to EDOM, which CPython reports as
    // the zero-power error (its one EDOM message).
    if phase.is_infinite() {
        return Err(PowError::Domain);
    }
    Ok((len * phase.cos(), len * phase.sin()))
}

/// `a ** b` (CPython 3.11's `complex_pow`): an integral real exponent up to 100 in size by
/// repeated multiplication, any other in polar form.
///
/// Errors: ZeroDivisionError "0.0 to a negative or complex power"; OverflowError "complex
/// exponentiation" when a part of the result is infinite (even from an infinite operand, as
/// CPython's errno check has it).
pub fn pow(a: C, b: C) -> R<C> {
    let r = if b.1 == 0.0 && b.0 == b.0.floor() && b.0.abs() <= 100.0 {
        let n = b.0 as i64;
        if n > 0 {
            Ok(powu(a, n))
        } else {
            quot((1.0, 0.0), powu(a, -n)).ok_or(PowError::Domain)
        }
    } else {
        pow_polar(a, b)
    };
    match r {
        Err(PowError::Domain) => Err(crate::err!(ZeroDivision, "0.0 to a negative or complex power")),
        Ok(p) if p.0.is_infinite() || p.1.is_infinite() => Err(crate::err!(Overflow, "complex exponentiation")),
        Ok(p) => Ok(p),
    }
}

/// `a op b` where both are numbers and one is complex; `None` for an operator complex
/// numbers do not have (`//`, `%`, `@`, the bitwise ones: the caller's TypeError).
///
/// Errors: ZeroDivisionError "complex division by zero"; those of [`pow`].
pub fn binary(op: BinOp, a: C, b: C) -> Option<R<Value>> {
    let r = match op {
        BinOp::Add => (a.0 + b.0, a.1 + b.1),
        BinOp::Sub => (a.0 - b.0, a.1 - b.1),
        BinOp::Mul => prod(a, b),
        BinOp::Div => match quot(a, b) {
            Some(r) => r,
            None => return Some(Err(crate::err!(ZeroDivision, "complex division by zero"))),
        },
        BinOp::Pow => match pow(a, b) {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        },
        _ => return None,
    };
    Some(Ok(Value::Complex(r.0, r.1)))
}

/// `abs(z)` (CPython's `_Py_c_abs`): an infinite part gives inf even beside a NaN.
///
/// Errors: OverflowError "absolute value too large" when finite parts give an infinite length.
pub fn abs(re: f64, im: f64) -> R<f64> {
    if re.is_infinite() || im.is_infinite() {
        return Ok(f64::INFINITY);
    }
    if re.is_nan() || im.is_nan() {
        return Ok(f64::NAN);
    }
    let r = re.hypot(im);
    if r.is_infinite() {
        return Err(crate::err!(Overflow, "absolute value too large"));
    }
    Ok(r)
}

/// A part of a complex number as CPython's `repr` writes it: the shortest digits that read
/// back (the float's), without the float's `.0`, an exponent with its sign and at least two
/// digits (`1e+16`, `1e-05`); `signed` writes `+` before a non-negative part (and NaN,
/// whose sign is never shown).
pub fn part_text(x: f64, signed: bool) -> String {
    let neg = x.is_sign_negative() && !x.is_nan();
    let sign = if neg {
        "-"
    } else if signed {
        "+"
    } else {
        ""
    };
    format!("{sign}{}", unsigned_repr(x.abs()))
}

/// The repr digits of a non-negative float in CPython's layout, without a `.0`.
pub fn unsigned_repr(a: f64) -> String {
    if a.is_nan() {
        return "nan".into();
    }
    let t = crate::tensor::scalar::fmt_f64(a);
    match t.split_once('e') {
        Some((m, e)) => {
            let (esign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e.trim_start_matches('+')),
            };
            format!("{}e{esign}{digits:0>2}", m.strip_suffix(".0").unwrap_or(m))
        }
        None => t.strip_suffix(".0").unwrap_or(&t).to_string(),
    }
}

/// `repr(z)`: `4j` when the real part is +0.0, else `(re±imj)` (`(-0-1j)`, `(1+nanj)`).
pub fn repr(re: f64, im: f64) -> String {
    if re == 0.0 && re.is_sign_positive() {
        format!("{}j", part_text(im, false))
    } else {
        format!("({}{}j)", part_text(re, false), part_text(im, true))
    }
}

/// A float at the start of `s` as C's `strtod` reads one for CPython's
/// `PyOS_string_to_double` (a sign, digits with an optional point and exponent, or
/// `inf`/`infinity`/`nan` in any case); its value and the bytes it took (0 for none).
fn float_prefix(s: &[u8]) -> (f64, usize) {
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let word = |w: &str| s.len() >= i + w.len() && s[i..i + w.len()].eq_ignore_ascii_case(w.as_bytes());
    let neg = s.first() == Some(&b'-');
    let signed = |x: f64| if neg { -x } else { x };
    if word("infinity") {
        return (signed(f64::INFINITY), i + 8);
    }
    if word("inf") {
        return (signed(f64::INFINITY), i + 3);
    }
    if word("nan") {
        return (signed(f64::NAN), i + 3);
    }
    let start = i;
    let digits = |mut k: usize| {
        while k < s.len() && s[k].is_ascii_digit() {
            k += 1;
        }
        k
    };
    let int_end = digits(i);
    let mut end = int_end;
    let mut any = int_end > start;
    if end < s.len() && s[end] == b'.' {
        let frac_end = digits(end + 1);
        any |= frac_end > end + 1;
        end = frac_end;
    }
    if !any {
        return (0.0, 0);
    }
    if end < s.len() && matches!(s[end], b'e' | b'E') {
        let mut k = end + 1;
        if k < s.len() && matches!(s[k], b'+' | b'-') {
            k += 1;
        }
        let exp_end = digits(k);
        if exp_end > k {
            end = exp_end;
        }
    }
    let text = std::str::from_utf8(&s[..end]).unwrap_or("0");
    (text.parse().unwrap_or(0.0), end)
}

/// `complex(s)` of a string (CPython's `complex_from_string_inner`): `re`, `imj`, `re±imj`,
/// in parentheses or not, with spaces around; `j` alone and a sign before it are ±1j.
/// Underscores go between digits only. `None` for a malformed string.
pub fn parse(text: &str) -> Option<C> {
    let text = strip_underscores(text)?;
    let s = text.trim_matches(|c: char| c.is_whitespace()).as_bytes();
    let s = match s.first() {
        Some(b'(') => s[1..].strip_suffix(b")")?.trim_ascii(),
        _ => s,
    };
    let is_j = |k: usize| matches!(s.get(k), Some(b'j' | b'J'));
    let sign_one = |c: u8| if c == b'+' { 1.0 } else { -1.0 };
    let (mut re, mut im, mut i) = (0.0, 0.0, 0);
    let (z, n) = float_prefix(s);
    if n > 0 {
        i = n;
        match s.get(i) {
            Some(&c @ (b'+' | b'-')) => {
                re = z;
                let (y, m) = float_prefix(&s[i..]);
                if m > 0 {
                    im = y;
                    i += m;
                } else {
                    im = sign_one(c);
                    i += 1;
                }
                if !is_j(i) {
                    return None;
                }
                i += 1;
            }
            Some(b'j' | b'J') => {
                im = z;
                i += 1;
            }
            _ => re = z,
        }
    } else {
        if let Some(&c @ (b'+' | b'-')) = s.first() {
            im = sign_one(c);
            i = 1;
        } else {
            im = 1.0;
        }
        if !is_j(i) {
            return None;
        }
        i += 1;
    }
    (i == s.len()).then_some((re, im))
}

/// `s` with the underscores between digits taken out (CPython's
/// `_Py_string_to_number_with_underscores`); `None` when one is anywhere else.
fn strip_underscores(s: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !s.contains('_') {
        return Some(s.into());
    }
    let b = s.as_bytes();
    for (k, &c) in b.iter().enumerate() {
        if c == b'_' && !(k > 0 && b[k - 1].is_ascii_digit() && b.get(k + 1).is_some_and(u8::is_ascii_digit)) {
            return None;
        }
    }
    Some(s.replace('_', "").into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repr_follows_cpython() {
        assert_eq!(repr(0.0, 4.0), "4j");
        assert_eq!(repr(5.0, 4.0), "(5+4j)");
        assert_eq!(repr(-0.0, -1.0), "(-0-1j)");
        assert_eq!(repr(1.0, f64::NAN), "(1+nanj)");
        assert_eq!(repr(f64::INFINITY, f64::NEG_INFINITY), "(inf-infj)");
        assert_eq!(repr(0.0, 1e16), "1e+16j");
        assert_eq!(repr(0.0, 1.5e-7), "1.5e-07j");
        assert_eq!(repr(0.0, -0.0), "-0j");
        assert_eq!(repr(1e300, 0.1), "(1e+300+0.1j)");
    }

    #[test]
    fn strings_parse_as_cpython_reads_them() {
        assert_eq!(parse("1+2j"), Some((1.0, 2.0)));
        assert_eq!(parse(" (1-2.5e1J) "), Some((1.0, -25.0)));
        assert_eq!(parse("j"), Some((0.0, 1.0)));
        assert_eq!(parse("-j"), Some((0.0, -1.0)));
        assert_eq!(parse("3+j"), Some((3.0, 1.0)));
        assert_eq!(parse("1_0j"), Some((0.0, 10.0)));
        assert_eq!(parse("infj"), Some((0.0, f64::INFINITY)));
        assert_eq!(parse("2"), Some((2.0, 0.0)));
        for bad in ["", "1+", "1+2", "1 + 2j", "(1+2j", "1e+j", "1__0j", "j1", "()"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn division_and_powers_follow_cpython() {
        assert_eq!(quot((1.0, 0.0), (0.0, 0.0)), None);
        assert_eq!(quot((1.0, 2.0), (3.0, 4.0)), Some((0.44, 0.08)));
        assert_eq!(pow((0.0, 1.0), (2.0, 0.0)).unwrap(), (-1.0, 0.0));
        assert!(pow((0.0, 0.0), (-1.0, 0.0)).is_err());
    }
}
