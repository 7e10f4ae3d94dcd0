//! Methods of ints, floats, tuples and ranges (docs/python.md "Builtins and modules"), with
//! CPython 3.11's behaviour within DGL's 64-bit ints: a result that does not fit is an
//! OverflowError (docs/python.md "Where DGL differs from CPython, on purpose").

use super::{receiver, Native, Signature, NO_ARGS};
use crate::bail;
use crate::error::R;
use crate::runtime::index::range_len;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;

/// `(value)`: `tuple.index`, `tuple.count`, `range.index`, `range.count`.
const VALUE: Signature = Signature::new(&["value"]);

/// The int an int method reads (a bool is an int).
fn this_int(a: &Args) -> R<i64> {
    match receiver(a)?.clone() {
        Value::Int(i) => Ok(i),
        Value::Bool(b) => Ok(b as i64),
        other => bail!(Runtime, "internal error: an int method bound to a {}", other.type_name()),
    }
}

fn this_float(a: &Args) -> R<f64> {
    match receiver(a)?.clone() {
        Value::Float(f) => Ok(f),
        other => bail!(Runtime, "internal error: a float method bound to a {}", other.type_name()),
    }
}

pub(super) static INT_BIT_LENGTH: Native = Native::with("bit_length", NO_ARGS, int_bit_length);

/// `i.bit_length()`: the number of bits of |i| (0 for 0).
pub(super) fn int_bit_length(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let i = this_int(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::Int((64 - i.unsigned_abs().leading_zeros()) as i64))
}

pub(super) static INT_BIT_COUNT: Native = Native::with("bit_count", NO_ARGS, int_bit_count);

/// `i.bit_count()`: the number of one bits of |i|.
pub(super) fn int_bit_count(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let i = this_int(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::Int(i.unsigned_abs().count_ones() as i64))
}

pub(super) static INT_CONJUGATE: Native = Native::with("conjugate", NO_ARGS, int_conjugate);

/// `i.conjugate()`: the int itself (a bool gives its int).
pub(super) fn int_conjugate(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let i = this_int(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::Int(i))
}

pub(super) static INT_AS_INTEGER_RATIO: Native = Native::with("as_integer_ratio", NO_ARGS, int_as_integer_ratio);

/// `i.as_integer_ratio()`: `(i, 1)`.
pub(super) fn int_as_integer_ratio(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let i = this_int(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::tuple(vec![Value::Int(i), Value::Int(1)]))
}

/// `real` and `numerator` of an int: the int (a bool gives its int).
pub(super) fn int_itself(v: &Value) -> Option<Value> {
    match v {
        Value::Int(i) => Some(Value::Int(*i)),
        Value::Bool(b) => Some(Value::Int(*b as i64)),
        _ => None,
    }
}

/// `imag` of an int: 0; `denominator`: 1.
pub(super) fn int_const(v: &Value, c: i64) -> Option<Value> {
    matches!(v, Value::Int(_) | Value::Bool(_)).then_some(Value::Int(c))
}

/// `real` of a float: the float; `imag`: 0.0.
pub(super) fn float_part(v: &Value, real: bool) -> Option<Value> {
    match v {
        Value::Float(f) => Some(Value::Float(if real { *f } else { 0.0 })),
        _ => None,
    }
}

pub(super) static FLOAT_IS_INTEGER: Native = Native::with("is_integer", NO_ARGS, float_is_integer);

/// `x.is_integer()`: finite with no fraction.
pub(super) fn float_is_integer(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = this_float(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::Bool(x.is_finite() && x.fract() == 0.0))
}

pub(super) static FLOAT_CONJUGATE: Native = Native::with("conjugate", NO_ARGS, float_conjugate);

/// `x.conjugate()`: the float itself.
pub(super) fn float_conjugate(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = this_float(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::Float(x))
}

/// The exact value of a finite float as `m * 2**e` with m odd (or 0).
fn mantissa_exponent(x: f64) -> (i64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = (bits & ((1u64 << 52) - 1)) as i64;
    let (mut m, mut e) = if exp == 0 { (frac, -1074) } else { (frac | (1 << 52), exp - 1075) };
    if m == 0 {
        return (0, 0);
    }
    let tz = m.trailing_zeros() as i32;
    m >>= tz;
    e += tz;
    (if x < 0.0 { -m } else { m }, e)
}

pub(super) static FLOAT_AS_INTEGER_RATIO: Native = Native::with("as_integer_ratio", NO_ARGS, float_as_integer_ratio);

/// `x.as_integer_ratio()`: the exact value as `(numerator, denominator)` in lowest terms,
/// the denominator positive.
///
/// Errors: OverflowError for an infinity, ValueError for NaN (CPython's messages), and
/// OverflowError when a part does not fit in 64 bits (DGL's ints).
pub(super) fn float_as_integer_ratio(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = this_float(args)?;
    NO_ARGS.bind(rt, args)?;
    if x.is_nan() {
        bail!(Value, "cannot convert NaN to integer ratio");
    }
    if x.is_infinite() {
        bail!(Overflow, "cannot convert Infinity to integer ratio");
    }
    let (m, e) = mantissa_exponent(x);
    let too_big = || {
        crate::err!(
            Overflow,
            "integer overflow: {}.as_integer_ratio() does not fit in 64 bits",
            crate::runtime::format::fmt_f64(x)
        )
    };
    let (n, d) = if e >= 0 {
        let n = (m as i128) << e.min(100);
        (i64::try_from(n).map_err(|_| too_big())?, 1)
    } else if -e <= 62 {
        (m, 1i64 << -e)
    } else {
        return Err(too_big());
    };
    Ok(Value::tuple(vec![Value::Int(n), Value::Int(d)]))
}

pub(super) static FLOAT_HEX: Native = Native::with("hex", NO_ARGS, float_hex);

/// `x.hex()`: `[-]0x1.<13 hex digits>p<exponent>` (`0x0.…p-1022` for a subnormal,
/// `0x0.0p+0` for zero), `inf`, `-inf`, `nan`.
pub(super) fn float_hex(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = this_float(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::str(&hex_of(x)))
}

pub fn hex_of(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    if x == 0.0 {
        return format!("{sign}0x0.0p+0");
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (lead, e) = if exp == 0 { (0, -1022) } else { (1, exp - 1023) };
    format!("{sign}0x{lead}.{frac:013x}p{e:+}")
}

pub(super) static FLOAT_FROMHEX: Native = Native::new("fromhex", &["string"], float_fromhex);

/// `float.fromhex(string)`: the float a hexadecimal text names (what `hex` writes, and
/// more: no `0x`, no fraction or exponent, `inf`/`nan`, whitespace around), correctly
/// rounded (ties to even).
///
/// Errors: ValueError "invalid hexadecimal floating-point string"; OverflowError
/// "hexadecimal value too large to represent as a float".
pub(super) fn float_fromhex(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let v = FLOAT_FROMHEX.bind(rt, args)?.value("string")?;
    let Value::Str(s) = v else { bail!(Type, "fromhex() argument must be str, not {}", v.type_name()) };
    parse_hex_float(&s).map(Value::Float)
}

pub fn parse_hex_float(text: &str) -> R<f64> {
    let invalid = || crate::err!(Value, "invalid hexadecimal floating-point string");
    let t = text.trim_matches(super::strings::is_py_space);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let signed = |x: f64| if neg { -x } else { x };
    let lower = t.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity") {
        return Ok(signed(f64::INFINITY));
    }
    if lower == "nan" {
        return Ok(signed(f64::NAN));
    }
    let body = lower.strip_prefix("0x").unwrap_or(&lower);
    let (digits, exp) = match body.split_once('p') {
        Some((d, e)) => {
            let (sign, mag) = match e.as_bytes().first() {
                Some(b'-') => (-1, &e[1..]),
                Some(b'+') => (1, &e[1..]),
                _ => (1, e),
            };
            if mag.is_empty() || !mag.bytes().all(|b| b.is_ascii_digit()) {
                return Err(invalid());
            }
            // Exponents past any float's range saturate (the result is 0 or an overflow anyway).
            (d, sign * mag.parse::<i64>().unwrap_or(1 << 40).min(1 << 40))
        }
        None => (body, 0),
    };
    let (int_part, frac_part) = digits.split_once('.').unwrap_or((digits, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(invalid());
    }
    if !int_part.bytes().chain(frac_part.bytes()).all(|b| b.is_ascii_hexdigit()) {
        return Err(invalid());
    }
    // value = M * 2^(exp - 4 * frac digits), M the digits as one integer: keep its leading
    // 64 bits and whether any bit below them is set.
    let mut m: u64 = 0;
    let mut dropped_bits: i64 = 0;
    let mut sticky = false;
    for c in int_part.bytes().chain(frac_part.bytes()) {
        let d = (c as char).to_digit(16).unwrap_or(0) as u64;
        if m >> 60 == 0 {
            m = m << 4 | d;
        } else {
            dropped_bits += 4;
            sticky |= d != 0;
        }
    }
    let e2 = exp + dropped_bits - 4 * frac_part.len() as i64;
    let x = compose(m, sticky, e2);
    if x.is_infinite() {
        bail!(Overflow, "hexadecimal value too large to represent as a float");
    }
    Ok(signed(x))
}

/// The float nearest `(m + δ) * 2^e`, ties to even, where δ in (0, 1) when `sticky` (below
/// m's last bit), else 0.
fn compose(m: u64, sticky: bool, e: i64) -> f64 {
    if m == 0 {
        return 0.0;
    }
    // Normalise m to 64 significant bits.
    let lz = m.leading_zeros() as i64;
    let m = m << lz;
    let e = e - lz;
    // The value is m * 2^e with m in [2^63, 2^64): its binary exponent is e + 63.
    let top = e + 63;
    if top > 1023 {
        return f64::INFINITY;
    }
    // Bits kept: 53 for a normal result, fewer below 2^-1022.
    let keep = if top >= -1022 { 53 } else { 53 - (-1022 - top) };
    if keep < 0 {
        return 0.0;
    }
    let shift = (64 - keep) as u32; // 11..=64
    let (kept, rest) = if shift >= 64 { (0u64, m) } else { (m >> shift, m << (64 - shift)) };
    let half = 1u64 << 63;
    let round_up = if shift == 64 {
        // Everything is below the last kept bit, which weighs 2^(e+64): m * 2^e ≥ half of it.
        m > half || (m == half && sticky)
    } else {
        rest > half || (rest == half && (sticky || kept & 1 == 1))
    };
    let kept = kept + round_up as u64;
    // kept * 2^(e + shift), exactly representable (kept ≤ 2^53).
    let scale = e + shift as i64;
    (kept as f64) * pow2(scale)
}

/// 2^k as a float, for k in the range where `kept * 2^k` is exact or overflows.
fn pow2(k: i64) -> f64 {
    if k > 1023 {
        return f64::INFINITY;
    }
    if k >= -1022 {
        return f64::from_bits(((k + 1023) as u64) << 52);
    }
    // Below the normal range: split so that each factor is a normal power of two.
    f64::from_bits(((k + 1023 + 200) as u64) << 52) * f64::from_bits(((1023 - 200) as u64) << 52)
}

/// The items a tuple method reads.
fn this_tuple(a: &Args) -> R<std::rc::Rc<[Value]>> {
    match receiver(a)?.clone() {
        Value::Tuple(t) => Ok(t),
        other => bail!(Runtime, "internal error: a tuple method bound to a {}", other.type_name()),
    }
}

pub(super) static TUPLE_INDEX: Native =
    Native::new("index", &["value", "start: int | None = None", "stop: int | None = None"], tuple_index);

/// `t.index(value, start=0, stop=len)`: the first position of an equal item.
/// Errors: ValueError "tuple.index(x): x not in tuple".
pub(super) fn tuple_index(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let t = this_tuple(args)?;
    let mut b = TUPLE_INDEX.bind(rt, args)?;
    let (x, start, stop) = (b.value("value")?, b.opt_int("start")?, b.opt_int("stop")?);
    match position_between(rt, &t, &x, start, stop)? {
        Some(i) => Ok(Value::Int(i)),
        None => bail!(Value, "tuple.index(x): x not in tuple"),
    }
}

/// The position of the first item equal to `x` in `items[start:stop]` (bounds as a
/// slice's: negative ones count from the end, both clamped): what `list.index` and
/// `tuple.index` search.
pub(super) fn position_between(
    rt: &mut Interp,
    items: &[Value],
    x: &Value,
    start: Option<i64>,
    stop: Option<i64>,
) -> R<Option<i64>> {
    let n = items.len() as i64;
    let fix = |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) };
    let (a, z) = (start.map_or(0, fix), stop.map_or(n, fix));
    for i in a..z.max(a) {
        let v = &items[i as usize];
        if v.is(x) || rt.values_equal(v, x)? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

pub(super) static TUPLE_COUNT: Native = Native::with("count", VALUE, tuple_count);

/// `t.count(value)`: the number of equal items.
pub(super) fn tuple_count(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let t = this_tuple(args)?;
    let x = VALUE.bind(rt, args)?.value("value")?;
    let mut n = 0;
    for v in t.iter() {
        if v.is(&x) || rt.values_equal(v, &x)? {
            n += 1;
        }
    }
    Ok(Value::Int(n))
}

fn this_range(a: &Args) -> R<[i64; 3]> {
    match receiver(a)?.clone() {
        Value::Range(r) => Ok(*r),
        other => bail!(Runtime, "internal error: a range method bound to a {}", other.type_name()),
    }
}

/// The position of the int `x` in `range(a, b, s)`, if it is one of its values.
fn range_position(r: [i64; 3], x: i64) -> Option<i64> {
    let [a, b, s] = r;
    let (a, x, s) = (a as i128, x as i128, s as i128);
    let k = (x - a) / s;
    ((x - a) % s == 0 && k >= 0 && (k as u128) < range_len(r[0], b, r[2]) as u128).then_some(k as i64)
}

/// The int value of `x` when it is an int (or bool, or an integral float that compares
/// equal), for a range's membership.
fn as_int(x: &Value) -> Option<i64> {
    match x {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(*b as i64),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Some(*f as i64),
        _ => None,
    }
}

pub(super) static RANGE_INDEX: Native = Native::with("index", VALUE, range_index);

/// `r.index(value)`. Errors: ValueError "5 is not in range".
pub(super) fn range_index(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let r = this_range(args)?;
    let x = VALUE.bind(rt, args)?.value("value")?;
    match as_int(&x).and_then(|i| range_position(r, i)) {
        Some(k) => Ok(Value::Int(k)),
        None => {
            let text = rt.repr_of(&x)?;
            bail!(Value, "{text} is not in range")
        }
    }
}

pub(super) static RANGE_COUNT: Native = Native::with("count", VALUE, range_count);

/// `r.count(value)`: 1 when `value` is one of the range's values, else 0.
pub(super) fn range_count(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let r = this_range(args)?;
    let x = VALUE.bind(rt, args)?.value("value")?;
    Ok(Value::Int(as_int(&x).and_then(|i| range_position(r, i)).is_some() as i64))
}

/// `r.start`, `r.stop`, `r.step`.
pub(super) fn range_part(v: &Value, k: usize) -> Option<Value> {
    match v {
        Value::Range(r) => Some(Value::Int(r[k])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_rounds_to_even() {
        for x in [1.0, 3.0, 0.1, -2.5, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e-310] {
            assert_eq!(parse_hex_float(&hex_of(x)).unwrap(), x, "{x}");
        }
        assert_eq!(hex_of(1.0), "0x1.0000000000000p+0");
        assert_eq!(hex_of(5e-324), "0x0.0000000000001p-1022");
        // 1 + 2^-53 is a tie: to even (1.0); 1 + 3 * 2^-54 rounds up.
        assert_eq!(parse_hex_float("0x1.00000000000008").unwrap(), 1.0);
        assert_eq!(parse_hex_float("0x1.000000000000080001").unwrap(), 1.0 + f64::EPSILON);
        assert_eq!(parse_hex_float("0x1.00000000000018").unwrap(), 1.0 + 2.0 * f64::EPSILON);
        assert_eq!(parse_hex_float("0x1p-1075").unwrap(), 0.0);
        assert_eq!(parse_hex_float("0x1.1p-1075").unwrap(), 5e-324);
        assert_eq!(parse_hex_float("0x.8p1").unwrap(), 1.0);
        assert!(parse_hex_float("0x1p1024").is_err());
        assert!(parse_hex_float("0x").is_err());
    }
}

/// `s.start`, `s.stop`, `s.step` of a slice object (`None` for a part left out).
pub(super) fn slice_part(v: &Value, i: usize) -> Option<Value> {
    match v {
        Value::Slice(s) => Some(s[i].clone()),
        _ => None,
    }
}

pub(super) static SLICE_INDICES: Native = Native::new("indices", &["length: int"], slice_indices);

/// `s.indices(length)`: the `(start, stop, step)` the slice selects from a sequence of
/// `length` items, each clamped into range as indexing does, as Python's `slice.indices`.
/// Errors: ValueError for a negative length or a zero step; TypeError for parts that are
/// not ints or None.
pub(super) fn slice_indices(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = match &args.this {
        Some(Value::Slice(s)) => s.clone(),
        _ => bail!(Runtime, "internal error: slice.indices bound to something else"),
    };
    let n = SLICE_INDICES.bind(rt, args)?.int("length")?;
    if n < 0 {
        bail!(Value, "length should not be negative");
    }
    let part = |v: &Value| -> R<Option<i64>> {
        match v {
            Value::None => Ok(None),
            other => match crate::runtime::convert::int_of(other, crate::runtime::convert::IntUse::Index) {
                Some(i) => i.map(Some),
                None => bail!(Type, "slice indices must be integers or None or have an __index__ method"),
            },
        }
    };
    let step = part(&s[2])?.unwrap_or(1);
    if step == 0 {
        bail!(Value, "slice step cannot be zero");
    }
    let (lower, upper) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let clamp = |v: Option<i64>, default: i64| match v {
        None => default,
        Some(i) if i < 0 => i.saturating_add(n).max(lower),
        Some(i) => i.min(upper),
    };
    let start = clamp(part(&s[0])?, if step > 0 { lower } else { upper });
    let stop = clamp(part(&s[1])?, if step > 0 { upper } else { lower });
    Ok(Value::tuple(vec![Value::Int(start), Value::Int(stop), Value::Int(step)]))
}
