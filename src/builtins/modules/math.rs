//! `import math`: Python's `math` module on DGL's 64-bit numbers, with CPython
//! 3.11's results and errors (ValueError "math domain error" outside a function's
//! domain, OverflowError "math range error" when a finite argument's result is
//! too large). Arguments are Python numbers or one-element tensors.

use crate::builtins::Signature;
use crate::runtime::convert::int_checked;
use crate::runtime::error::R;
use crate::runtime::value::{Args, NativeFn, Value};
use crate::runtime::Interp;
use crate::syntax::ast::BinOp;
use crate::{bail, err};

static X: Signature = Signature::new(&["x"], 1);
static XY: Signature = Signature::new(&["x", "y"], 2);

/// The module's names and values.
pub fn build(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    let mut v: Vec<(&'static str, Value)> = vec![
        ("pi", Value::Float(std::f64::consts::PI)),
        ("e", Value::Float(std::f64::consts::E)),
        ("tau", Value::Float(std::f64::consts::TAU)),
        ("inf", Value::Float(f64::INFINITY)),
        ("nan", Value::Float(f64::NAN)),
    ];
    let fns: &[(&'static str, NativeFn)] = &[
        ("sqrt", |rt, a| unary(rt, a, f64::sqrt)),
        ("exp", |rt, a| unary(rt, a, f64::exp)),
        ("log", log),
        ("log2", |rt, a| log_like(rt, a, f64::log2)),
        ("log10", |rt, a| log_like(rt, a, f64::log10)),
        ("log1p", log1p),
        ("sin", |rt, a| unary(rt, a, f64::sin)),
        ("cos", |rt, a| unary(rt, a, f64::cos)),
        ("tan", |rt, a| unary(rt, a, f64::tan)),
        ("asin", |rt, a| unary(rt, a, f64::asin)),
        ("acos", |rt, a| unary(rt, a, f64::acos)),
        ("atan", |rt, a| unary(rt, a, f64::atan)),
        ("atan2", atan2),
        ("sinh", |rt, a| unary(rt, a, f64::sinh)),
        ("cosh", |rt, a| unary(rt, a, f64::cosh)),
        ("tanh", |rt, a| unary(rt, a, f64::tanh)),
        ("fabs", |rt, a| unary(rt, a, f64::abs)),
        ("degrees", |rt, a| unary(rt, a, f64::to_degrees)),
        ("radians", |rt, a| unary(rt, a, f64::to_radians)),
        ("floor", |rt, a| to_int(rt, a, f64::floor)),
        ("ceil", |rt, a| to_int(rt, a, f64::ceil)),
        ("trunc", |rt, a| to_int(rt, a, f64::trunc)),
        ("pow", pow),
        ("isclose", isclose),
        ("isnan", |rt, a| class(rt, a, f64::is_nan)),
        ("isinf", |rt, a| class(rt, a, f64::is_infinite)),
        ("isfinite", |rt, a| class(rt, a, f64::is_finite)),
        ("factorial", factorial),
        ("gcd", gcd),
        ("hypot", hypot),
        ("prod", prod),
        ("fsum", fsum),
        ("comb", comb),
        ("copysign", copysign),
    ];
    for &(name, f) in fns {
        v.push((name, Value::native(name, f)));
    }
    Ok(v)
}

/// A real-number argument. Errors: TypeError "must be real number, not str" (CPython's).
fn real(rt: &mut Interp, v: &Value) -> R<f64> {
    match v {
        Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Tensor(_) | Value::Variable(_) => {
            rt.float_arg(v, "math argument")
        }
        other => bail!(Type, "must be real number, not {}", other.type_name()),
    }
}

/// An integer argument. Errors: TypeError "'float' object cannot be interpreted as an integer".
fn integer(v: &Value) -> R<i64> {
    // Python's __index__: a scalar int tensor counts (as a TF tensor does), a Variable not.
    match crate::runtime::convert::int_of(v, crate::runtime::convert::IntUse::Index) {
        Some(i) => i,
        None => bail!(Type, "'{}' object cannot be interpreted as an integer", v.type_name()),
    }
}

fn domain_error() -> crate::error::Exc {
    err!(Value, "math domain error")
}

/// A float result checked as CPython checks libm's: NaN from a non-NaN argument is a
/// domain error, infinity from finite arguments a range error.
fn checked(r: f64, args_finite: bool, args_nan: bool) -> R<Value> {
    if r.is_nan() && !args_nan {
        return Err(domain_error());
    }
    if r.is_infinite() && args_finite {
        bail!(Overflow, "math range error");
    }
    Ok(Value::Float(r))
}

fn arg(rt: &mut Interp, args: &mut Args) -> R<f64> {
    let v = X.bind(rt, args)?.value("x")?;
    real(rt, &v)
}

fn unary(rt: &mut Interp, args: &mut Args, f: fn(f64) -> f64) -> R<Value> {
    let x = arg(rt, args)?;
    checked(f(x), x.is_finite(), x.is_nan())
}

/// `log2`, `log10`: a domain error at and below zero (where libm gives -inf or NaN).
fn log_like(rt: &mut Interp, args: &mut Args, f: fn(f64) -> f64) -> R<Value> {
    let x = arg(rt, args)?;
    if x <= 0.0 {
        return Err(domain_error());
    }
    Ok(Value::Float(f(x)))
}

/// `math.log(x, base=e)`. Errors: ValueError "math domain error" for x <= 0, base <= 0,
/// and ZeroDivisionError "float division by zero" for base 1, as CPython.
fn log(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["x", "base"], 1);
    let mut a = SIG.bind(rt, args)?;
    let (x, base) = (a.value("x")?, a.opt("base")?);
    let x = real(rt, &x)?;
    if x <= 0.0 {
        return Err(domain_error());
    }
    match base {
        None => Ok(Value::Float(x.ln())),
        Some(b) => {
            let b = real(rt, &b)?;
            if b <= 0.0 {
                return Err(domain_error());
            }
            let d = b.ln();
            if d == 0.0 {
                bail!(ZeroDivision, "float division by zero");
            }
            Ok(Value::Float(x.ln() / d))
        }
    }
}

/// `math.log1p(x)`: ln(1 + x), accurate near 0. Errors: domain error for x <= -1.
fn log1p(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = arg(rt, args)?;
    if x <= -1.0 {
        return Err(domain_error());
    }
    Ok(Value::Float(x.ln_1p()))
}

/// `math.atan2(y, x)`: the angle of (x, y) in radians, in [-pi, pi].
fn atan2(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["y", "x"], 2);
    let mut a = SIG.bind(rt, args)?;
    let (y, x) = (a.value("y")?, a.value("x")?);
    Ok(Value::Float(real(rt, &y)?.atan2(real(rt, &x)?)))
}

/// `math.copysign(x, y)`: |x| with y's sign.
fn copysign(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = XY.bind(rt, args)?;
    let (x, y) = (a.value("x")?, a.value("y")?);
    Ok(Value::Float(real(rt, &x)?.copysign(real(rt, &y)?)))
}

/// `floor`, `ceil`, `trunc`: an int (ints pass through unchanged).
///
/// Errors: ValueError "cannot convert float NaN to integer"; OverflowError "cannot
/// convert float infinity to integer", and for a finite float beyond 64 bits.
fn to_int(rt: &mut Interp, args: &mut Args, f: fn(f64) -> f64) -> R<Value> {
    let v = X.bind(rt, args)?.value("x")?;
    if let Value::Int(i) = v {
        return Ok(Value::Int(i));
    }
    let x = real(rt, &v)?;
    if x.is_nan() {
        bail!(Value, "cannot convert float NaN to integer");
    }
    if x.is_infinite() {
        bail!(Overflow, "cannot convert float infinity to integer");
    }
    let r = f(x);
    let fits = (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&r);
    int_checked(fits.then_some(r as i64), || crate::runtime::format::fmt_f64(r)).map(Value::Int)
}

/// `math.pow(x, y)`: always a float. Errors: ValueError for 0 to a negative power and
/// a negative base to a fractional power; OverflowError when a finite result overflows.
fn pow(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = XY.bind(rt, args)?;
    let (x, y) = (a.value("x")?, a.value("y")?);
    let (x, y) = (real(rt, &x)?, real(rt, &y)?);
    if x == 0.0 && y < 0.0 && y.is_finite() {
        return Err(domain_error());
    }
    // C's pow(1, nan) and pow(x, 0) are 1, and CPython keeps them.
    checked(x.powf(y), x.is_finite() && y.is_finite(), x.is_nan() || y.is_nan())
}

/// `math.isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0)`:
/// `|a - b| <= max(rel_tol * max(|a|, |b|), abs_tol)`; infinities are close only to themselves.
///
/// Errors: ValueError "tolerances must be non-negative".
fn isclose(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["a", "b", "rel_tol", "abs_tol"], 2);
    if args.pos.len() > 2 {
        bail!(Type, "isclose() takes exactly 2 positional arguments ({} given)", args.pos.len());
    }
    let mut s = SIG.bind(rt, args)?;
    let (a, b) = (s.value("a")?, s.value("b")?);
    let (rel, abs) = (s.float_or("rel_tol", 1e-9)?, s.float_or("abs_tol", 0.0)?);
    let (a, b) = (real(rt, &a)?, real(rt, &b)?);
    if rel < 0.0 || abs < 0.0 {
        bail!(Value, "tolerances must be non-negative");
    }
    if a == b {
        return Ok(Value::Bool(true));
    }
    if a.is_infinite() || b.is_infinite() {
        return Ok(Value::Bool(false));
    }
    let d = (a - b).abs();
    Ok(Value::Bool(d <= rel * b.abs() || d <= rel * a.abs() || d <= abs))
}

fn class(rt: &mut Interp, args: &mut Args, f: fn(f64) -> bool) -> R<Value> {
    Ok(Value::Bool(f(arg(rt, args)?)))
}

/// `math.factorial(n)`: n! for an int n >= 0.
///
/// Errors: ValueError "factorial() not defined for negative values"; OverflowError past 20!.
fn factorial(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["n"], 1);
    let n = integer(&SIG.bind(rt, args)?.value("n")?)?;
    if n < 0 {
        bail!(Value, "factorial() not defined for negative values");
    }
    let mut r: i64 = 1;
    for k in 2..=n {
        r = int_checked(r.checked_mul(k), || format!("factorial({n})"))?;
    }
    Ok(Value::Int(r))
}

/// `math.gcd(*integers)`: the greatest common divisor (0 with no arguments), non-negative.
fn gcd(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::varargs(&[]);
    let given = std::mem::take(&mut SIG.bind(rt, args)?.rest);
    let mut g: u64 = 0;
    for v in &given {
        let mut b = integer(v)?.unsigned_abs();
        while b != 0 {
            (g, b) = (b, g % b);
        }
    }
    int_checked(i64::try_from(g).ok(), || format!("gcd of {}", given.len())).map(Value::Int)
}

/// `math.hypot(*coordinates)`: the Euclidean norm, correctly rounded (as CPython 3.11's
/// is): the coordinates scaled by a power of two, their squares summed in double-double
/// arithmetic, the square root corrected to the nearest float. An infinity wins over NaN.
fn hypot(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::varargs(&[]);
    let given = std::mem::take(&mut SIG.bind(rt, args)?.rest);
    let xs: Vec<f64> = given.iter().map(|v| real(rt, v)).collect::<R<_>>()?;
    Ok(Value::Float(norm(&xs)))
}

/// The correctly rounded Euclidean norm of `xs` (see [`hypot`]).
pub fn norm(xs: &[f64]) -> f64 {
    if xs.iter().any(|x| x.is_infinite()) {
        return f64::INFINITY;
    }
    if xs.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    let m = xs.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if m == 0.0 {
        return 0.0;
    }
    // Scale so that the largest magnitude is in [0.5, 1): squares neither overflow nor
    // lose bits to underflow (a coordinate that underflows is below 2^-1000 of the norm).
    let e = exponent(m);
    let scaled: Vec<f64> = xs.iter().map(|&x| scale(x, -e)).collect();
    // The sum of squares as hi + lo: each square exact as p + q (fma), added with two-sum.
    let (mut hi, mut lo) = (0.0f64, 0.0f64);
    for &x in &scaled {
        let p = x * x;
        let q = x.mul_add(x, -p);
        let s = hi + p;
        let err = if hi.abs() >= p.abs() { (hi - s) + p } else { (p - s) + hi };
        hi = s;
        lo += err + q;
    }
    let (h, l) = (hi + lo, lo - ((hi + lo) - hi));
    // One Newton step on the square root of h + l, then the nearest float by the midpoints.
    let r0 = h.sqrt();
    let a = r0 * r0;
    let b = r0.mul_add(r0, -a);
    let mut r = r0 + (((h - a) - b) + l) / (2.0 * r0);
    // sqrt(S) lies above the midpoint of r and its successor: S - mid^2 > 0.
    let above_mid = |c: f64| -> f64 {
        let u = c.next_up() - c;
        let a = c * c;
        let b = c.mul_add(c, -a);
        (((h - a) - b) + l) - c * u - u * u / 4.0
    };
    for _ in 0..3 {
        let d = above_mid(r);
        if d > 0.0 || (d == 0.0 && r.to_bits() & 1 == 1) {
            r = r.next_up();
            continue;
        }
        let p = r.next_down();
        let d = above_mid(p);
        if d < 0.0 || (d == 0.0 && p.to_bits() & 1 == 0) {
            r = p;
            continue;
        }
        break;
    }
    scale(r, e)
}

/// The exponent k with |x| in [2^(k-1), 2^k), for a finite non-zero x.
fn exponent(x: f64) -> i32 {
    let bits = x.abs().to_bits();
    let biased = (bits >> 52) as i32;
    if biased == 0 {
        // Subnormal: 2^-1074 times the fraction.
        -1074 + (64 - bits.leading_zeros() as i32)
    } else {
        biased - 1022
    }
}

/// x * 2^k, in steps that keep each factor a normal float (exact unless the result
/// overflows or is subnormal).
fn scale(mut x: f64, mut k: i32) -> f64 {
    while k != 0 {
        let step = k.clamp(-1000, 1000);
        x *= f64::from_bits(((step + 1023) as u64) << 52);
        k -= step;
    }
    x
}

/// `math.prod(iterable, *, start=1)`: `start * x0 * x1 * …` with the `*` operator
/// (ints stay exact, or OverflowError).
fn prod(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["iterable", "start"], 1);
    let mut a = SIG.bind(rt, args)?;
    let (items, mut acc) = (a.value("iterable")?, a.value_or("start", Value::Int(1))?);
    for x in rt.iterate(&items)? {
        acc = rt.binary_op(BinOp::Mul, acc, x)?;
    }
    Ok(acc)
}

/// `math.fsum(iterable)`: the correctly rounded sum, kept exactly as a list of
/// non-overlapping partial sums (Shewchuk's method) until the end.
///
/// Errors: OverflowError "intermediate overflow in fsum"; ValueError "-inf + inf in fsum".
fn fsum(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["seq"], 1);
    let items = SIG.bind(rt, args)?.value("seq")?;
    let xs: Vec<f64> = rt.iterate(&items)?.iter().map(|v| real(rt, v)).collect::<R<_>>()?;
    let mut special = 0.0f64;
    let mut partials: Vec<f64> = Vec::new();
    for &x in &xs {
        if !x.is_finite() {
            special += x;
            continue;
        }
        let mut x = x;
        let mut kept = 0;
        for i in 0..partials.len() {
            let mut y = partials[i];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        if !x.is_finite() {
            bail!(Overflow, "intermediate overflow in fsum");
        }
        partials.truncate(kept);
        partials.push(x);
    }
    if special != 0.0 || special.is_nan() {
        if special.is_nan() && xs.iter().all(|x| !x.is_nan()) {
            bail!(Value, "-inf + inf in fsum");
        }
        return Ok(Value::Float(special));
    }
    // Add the partials from the largest down; the last step rounds half-even correctly
    // by looking at the sign of the next partial when the remainder is exactly half an ulp.
    let mut hi = 0.0;
    if !partials.is_empty() {
        let mut n = partials.len() - 1;
        hi = partials[n];
        let mut lo = 0.0;
        while n > 0 {
            n -= 1;
            let x = hi;
            let y = partials[n];
            hi = x + y;
            let yr = hi - x;
            lo = y - yr;
            if lo != 0.0 {
                break;
            }
        }
        if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            if y == x - hi {
                hi = x;
            }
        }
    }
    Ok(Value::Float(hi))
}

/// `math.comb(n, k)`: the number of ways to choose k of n items (0 when k > n).
///
/// Errors: ValueError "n must be a non-negative integer" (and for k); OverflowError past 64 bits.
fn comb(rt: &mut Interp, args: &mut Args) -> R<Value> {
    static SIG: Signature = Signature::new(&["n", "k"], 2);
    let mut a = SIG.bind(rt, args)?;
    let (n, k) = (integer(&a.value("n")?)?, integer(&a.value("k")?)?);
    if n < 0 {
        bail!(Value, "n must be a non-negative integer");
    }
    if k < 0 {
        bail!(Value, "k must be a non-negative integer");
    }
    if k > n {
        return Ok(Value::Int(0));
    }
    let k = k.min(n - k);
    // r stays C(n - k + i, i) after step i, exact in 128 bits while it fits in 64.
    let mut r: i128 = 1;
    for i in 1..=k as i128 {
        r = r * (n as i128 - k as i128 + i) / i;
        if r > i64::MAX as i128 {
            return int_checked(None, || format!("comb({n}, {k})")).map(Value::Int);
        }
    }
    Ok(Value::Int(r as i64))
}
