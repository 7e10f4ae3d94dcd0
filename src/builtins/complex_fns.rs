//! Python's `complex`: the constructor and a complex number's attributes (`z.real`, `z.imag`,
//! `z.conjugate()`). The arithmetic, text and string reading are runtime/complex.rs
//! (docs/language.md §3 "Complex numbers").

use super::{receiver, Native, NO_ARGS};
use crate::bail;
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;

pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&COMPLEX);
}

static COMPLEX: Native = Native::new("complex", &["real=0", "imag=0"], complex);

/// `complex(real=0, imag=0)`: `real + imag*1j` from numbers (complex ones too, combined as
/// CPython does: `complex(1j, 1j)` is `(-1+1j)`), or the number a string writes (`'1+2j'`,
/// `'(3-4J)'`, `' j '`).
///
/// Errors: ValueError "complex() arg is a malformed string"; TypeError for a string beside a
/// second argument, and for arguments that are not numbers (CPython's messages).
fn complex(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = COMPLEX.bind(rt, args)?;
    let (real, imag) = (a.opt("real")?, a.opt("imag")?);
    if let Some(Value::Str(s)) = &real {
        if imag.is_some() {
            bail!(Type, "complex() can't take second arg if first is a string");
        }
        let text = super::pyfuncs::ascii_number_text(s);
        return match crate::runtime::complex::parse(&text) {
            Some((re, im)) => Ok(Value::Complex(re, im)),
            None => bail!(Value, "complex() arg is a malformed string"),
        };
    }
    if let Some(Value::Str(_)) = &imag {
        bail!(Type, "complex() second arg can't be a string");
    }
    let part = |rt: &mut Interp, v: &Value, first: bool| -> R<(f64, f64)> {
        if let Some(p) = crate::runtime::complex::parts(v) {
            return Ok(p);
        }
        match rt.convert_dunder(v, &["__float__", "__index__"], false)? {
            Some(Value::Float(f)) => Ok((f, 0.0)),
            Some(Value::Int(i)) => Ok((i as f64, 0.0)),
            _ if first => bail!(
                Type,
                "complex() first argument must be a string or a number, not '{}'",
                v.type_name()
            ),
            _ => bail!(Type, "complex() second argument must be a number, not '{}'", v.type_name()),
        }
    };
    let (mut cr, cr_complex) = match &real {
        Some(v) => (part(rt, v, true)?, matches!(v, Value::Complex(..))),
        None => ((0.0, 0.0), false),
    };
    // CPython's correction for parts that are themselves complex.
    let mut ci = match &imag {
        Some(v) => part(rt, v, false)?,
        None => (cr.1, 0.0),
    };
    if matches!(imag, Some(Value::Complex(..))) {
        cr.0 -= ci.1;
    }
    if cr_complex && imag.is_some() {
        ci.0 += cr.1;
    }
    Ok(Value::Complex(cr.0, ci.0))
}

/// A complex method's receiver's parts.
fn this_complex(a: &Args) -> R<(f64, f64)> {
    match receiver(a)? {
        Value::Complex(re, im) => Ok((*re, *im)),
        other => bail!(Runtime, "internal error: a complex method bound to a {}", other.type_name()),
    }
}

pub(super) static COMPLEX_CONJUGATE: Native = Native::with("conjugate", NO_ARGS, conjugate);

/// `z.conjugate()`: the imaginary part negated.
fn conjugate(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let (re, im) = this_complex(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::Complex(re, -im))
}

/// `z.real` (`real` true) and `z.imag`: a float.
pub(super) fn part(v: &Value, real: bool) -> Option<Value> {
    match v {
        Value::Complex(re, im) => Some(Value::Float(if real { *re } else { *im })),
        _ => None,
    }
}
