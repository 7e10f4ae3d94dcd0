//! Arithmetic and comparison of Python numbers (ints, bools, floats), exact as CPython's:
//! the operators of [`super::ops`] come here once both operands are numbers.

use super::convert::{int_checked, int_pow};
use super::value::Value;
use crate::bail;
use crate::error::R;
use crate::syntax::ast::BinOp;

pub(super) fn is_number(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Bool(_) | Value::Float(_))
}

/// The one comparison of two numbers (ints, bools, floats), exact as CPython's:
/// an int and a float compare by value, never through float64 (so
/// `9007199254740993 != 9007199254740992.0`). `None` when either is NaN.
pub fn num_cmp(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Float(x), _) => int_float_cmp(as_int(b), *x).map(std::cmp::Ordering::reverse),
        (_, Value::Float(y)) => int_float_cmp(as_int(a), *y),
        _ => Some(as_int(a).cmp(&as_int(b))),
    }
}

/// `i` compared with `f`, exactly.
fn int_float_cmp(i: i64, f: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    if f.is_nan() {
        return None;
    }
    // 2^63 is exact in float64; at or beyond ±2^63 (infinities too) the int is on one side.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f >= TWO_63 {
        return Some(Ordering::Less);
    }
    if f < -TWO_63 {
        return Some(Ordering::Greater);
    }
    // In range: the integral part is an exact i64; the fraction breaks a tie.
    let t = f.trunc();
    match i.cmp(&(t as i64)) {
        Ordering::Equal => 0.0f64.partial_cmp(&(f - t)),
        o => Some(o),
    }
}

pub(super) fn as_int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Bool(b) => *b as i64,
        _ => 0,
    }
}

pub(super) fn as_float(v: &Value) -> f64 {
    match v {
        Value::Float(f) => *f,
        Value::Int(i) => *i as f64,
        Value::Bool(b) => *b as u8 as f64,
        _ => 0.0,
    }
}

pub(super) fn int_op(op: BinOp, x: i64, y: i64) -> R<Value> {
    let text = || format!("{x} {} {y}", op.symbol());
    Ok(match op {
        BinOp::Add => Value::Int(int_checked(x.checked_add(y), text)?),
        BinOp::Sub => Value::Int(int_checked(x.checked_sub(y), text)?),
        BinOp::Mul => Value::Int(int_checked(x.checked_mul(y), text)?),
        BinOp::Div => {
            if y == 0 {
                bail!(ZeroDivision, "division by zero");
            }
            Value::Float(super::convert::int_true_div(x, y))
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if y == 0 {
                bail!(ZeroDivision, "integer division or modulo by zero");
            }
            if op == BinOp::Mod && y == -1 {
                // Exact even for x = -2^63, whose quotient by -1 does not fit.
                return Ok(Value::Int(0));
            }
            let q = int_checked(x.checked_div(y), text)?;
            let r = x - q * y;
            let (q, r) = if r != 0 && ((r < 0) != (y < 0)) { (q - 1, r + y) } else { (q, r) };
            Value::Int(if op == BinOp::FloorDiv { q } else { r })
        }
        BinOp::Pow => {
            if y < 0 {
                if x == 0 {
                    bail!(ZeroDivision, "0 cannot be raised to a negative power");
                }
                Value::Float((x as f64).powf(y as f64))
            } else {
                Value::Int(int_pow(x, y)?)
            }
        }
        BinOp::MatMul => bail!(Type, "unsupported operand types for @: 'int' and 'int'"),
        BinOp::BitAnd => Value::Int(x & y),
        BinOp::BitOr => Value::Int(x | y),
        BinOp::BitXor => Value::Int(x ^ y),
        BinOp::LShift | BinOp::RShift if y < 0 => bail!(Value, "negative shift count"),
        // A shift that loses bits does not fit in int64: an error, never a wrap.
        BinOp::LShift => match x {
            0 => Value::Int(0),
            _ => Value::Int(int_checked((y < 64).then(|| x << y).filter(|r| r >> y == x), text)?),
        },
        // Python's `>>` floors (an arithmetic shift); past 63 bits only the sign is left.
        BinOp::RShift => Value::Int(x >> y.min(63)),
    })
}

/// Python's `divmod` of two floats: `(q, r)` with `q` integral, `r` of `y`'s sign,
/// `q * y + r == x` as closely as floating point allows (the quotient is computed
/// from the exact remainder, so `divmod(1.0, 0.1)` is `(9.0, 0.09999999999999995)`).
pub fn float_divmod(x: f64, y: f64) -> (f64, f64) {
    let mut r = x % y;
    let mut q = (x - r) / y;
    if r != 0.0 {
        if (y < 0.0) != (r < 0.0) {
            r += y;
            q -= 1.0;
        }
    } else {
        r = 0.0f64.copysign(y);
    }
    if q == 0.0 {
        return (0.0f64.copysign(x / y), r);
    }
    let f = q.floor();
    (if q - f > 0.5 { f + 1.0 } else { f }, r)
}

pub(super) fn float_op(op: BinOp, x: f64, y: f64) -> R<Value> {
    Ok(Value::Float(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y == 0.0 {
                bail!(ZeroDivision, "float division by zero");
            }
            x / y
        }
        BinOp::FloorDiv => {
            if y == 0.0 {
                bail!(ZeroDivision, "float floor division by zero");
            }
            float_divmod(x, y).0
        }
        BinOp::Mod => {
            if y == 0.0 {
                bail!(ZeroDivision, "float modulo by zero");
            }
            float_divmod(x, y).1
        }
        BinOp::Pow => {
            if x == 0.0 && y < 0.0 {
                bail!(ZeroDivision, "0.0 cannot be raised to a negative power");
            }
            // A negative number to a fractional power is complex, as in CPython (which hands
            // it to the complex power); (-inf) ** 0.5 is C's pow: inf (or 0.0 for a negative
            // power), not complex.
            if x < 0.0 && x.is_finite() && y.is_finite() && y.fract() != 0.0 {
                let (re, im) = super::complex::pow((x, 0.0), (y, 0.0))?;
                return Ok(Value::Complex(re, im));
            }
            let r = x.powf(y);
            // Only `**` raises on overflow, as CPython: `*` and `+` give inf.
            if r.is_infinite() && x.is_finite() && y.is_finite() {
                bail!(Overflow, "(34, 'Numerical result out of range')");
            }
            r
        }
        BinOp::MatMul => bail!(Type, "unsupported operand types for @: 'float' and 'float'"),
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::LShift | BinOp::RShift => {
            bail!(Type, "unsupported operand types for {}: 'float' and 'float'", op.symbol())
        }
    }))
}

/// Adds one to a number written as ASCII decimal digits, in place; true when it carried out
/// of the first digit (all nines became all zeros), which the caller writes as a leading 1.
pub fn increment_decimal(digits: &mut [u8]) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return false;
        }
    }
    true
}
