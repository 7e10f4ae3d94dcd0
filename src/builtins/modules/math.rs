//! `import math`: Python's `math` module on DGL's 64-bit numbers, with CPython
//! 3.11's results and errors (ValueError "math domain error" outside a function's
//! domain, OverflowError "math range error" when a finite argument's result is
//! too large). Arguments are Python numbers or one-element tensors.

use crate::builtins::{Native, Signature};
use crate::error::R;
use crate::runtime::convert::int_checked;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::syntax::ast::BinOp;
use crate::{bail, err};

const X: Signature = Signature::new(&["x"]);
const XY: Signature = Signature::new(&["x", "y"]);

/// The module's names and values.
pub fn build(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    let mut v: Vec<(&'static str, Value)> = vec![
        ("pi", Value::Float(std::f64::consts::PI)),
        ("e", Value::Float(std::f64::consts::E)),
        ("tau", Value::Float(std::f64::consts::TAU)),
        ("inf", Value::Float(f64::INFINITY)),
        ("nan", Value::Float(f64::NAN)),
    ];
    let fns = FNS;
    for b in fns {
        v.push((b.name, b.value()));
    }
    Ok(v)
}

/// The module's functions.
pub const FNS: &[&Native] = &[
    &SQRT, &EXP, &LOG, &LOG2, &LOG10, &LOG1P, &SIN, &COS, &TAN, &ASIN, &ACOS, &ATAN, &ATAN2, &SINH, &COSH, &TANH,
    &FABS, &DEGREES, &RADIANS, &FLOOR, &CEIL, &TRUNC, &POW, &ISCLOSE, &ISNAN, &ISINF, &ISFINITE, &FACTORIAL, &GCD,
    &HYPOT, &PROD, &FSUM, &COMB, &COPYSIGN, &MODF, &FREXP, &LDEXP, &FMOD, &REMAINDER, &NEXTAFTER, &ULP, &ISQRT, &LCM,
    &PERM, &DIST, &EXPM1, &EXP2, &CBRT, &ERF, &ERFC, &ASINH, &ACOSH, &ATANH, &GAMMA, &LGAMMA,
];

/// A real-number argument. Errors: TypeError "must be real number, not str" (CPython's).
fn real(rt: &mut Interp, v: &Value) -> R<f64> {
    match v {
        Value::Int(_)
        | Value::Float(_)
        | Value::Bool(_)
        | Value::Tensor(_)
        | Value::Variable(_)
        | Value::NdArray(_) => rt.float_arg(v, "math argument"),
        // An instance with `__float__` (or `__index__`) is a real number, as in CPython.
        other => match rt.convert_dunder(other, &["__float__", "__index__"], false)? {
            Some(Value::Float(f)) => Ok(f),
            Some(Value::Int(i)) => Ok(i as f64),
            _ => bail!(Type, "must be real number, not {}", other.type_name()),
        },
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

static SQRT: Native = Native::with("sqrt", X, |rt, a| unary(rt, a, f64::sqrt));
static EXP: Native = Native::with("exp", X, |rt, a| unary(rt, a, f64::exp));
static SIN: Native = Native::with("sin", X, |rt, a| unary(rt, a, f64::sin));
static COS: Native = Native::with("cos", X, |rt, a| unary(rt, a, f64::cos));
static TAN: Native = Native::with("tan", X, |rt, a| unary(rt, a, f64::tan));
static ASIN: Native = Native::with("asin", X, |rt, a| unary(rt, a, f64::asin));
static ACOS: Native = Native::with("acos", X, |rt, a| unary(rt, a, f64::acos));
static ATAN: Native = Native::with("atan", X, |rt, a| unary(rt, a, f64::atan));
static SINH: Native = Native::with("sinh", X, |rt, a| unary(rt, a, f64::sinh));
static COSH: Native = Native::with("cosh", X, |rt, a| unary(rt, a, f64::cosh));
static TANH: Native = Native::with("tanh", X, |rt, a| unary(rt, a, f64::tanh));
static FABS: Native = Native::with("fabs", X, |rt, a| unary(rt, a, f64::abs));
static DEGREES: Native = Native::with("degrees", X, |rt, a| unary(rt, a, f64::to_degrees));
static RADIANS: Native = Native::with("radians", X, |rt, a| unary(rt, a, f64::to_radians));

fn unary(rt: &mut Interp, args: &mut Args, f: fn(f64) -> f64) -> R<Value> {
    let x = arg(rt, args)?;
    checked(f(x), x.is_finite(), x.is_nan())
}

static LOG2: Native = Native::with("log2", X, |rt, a| log_like(rt, a, f64::log2));
static LOG10: Native = Native::with("log10", X, |rt, a| log_like(rt, a, f64::log10));

/// `log2`, `log10`: a domain error at and below zero (where libm gives -inf or NaN).
fn log_like(rt: &mut Interp, args: &mut Args, f: fn(f64) -> f64) -> R<Value> {
    let x = arg(rt, args)?;
    if x <= 0.0 {
        return Err(domain_error());
    }
    Ok(Value::Float(f(x)))
}

static LOG: Native = Native::new("log", &["x", "base=None"], log);

/// `math.log(x, base=e)`. Errors: ValueError "math domain error" for x <= 0, base <= 0,
/// and ZeroDivisionError "float division by zero" for base 1, as CPython.
fn log(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = LOG.bind(rt, args)?;
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

static LOG1P: Native = Native::with("log1p", X, log1p);

/// `math.log1p(x)`: ln(1 + x), accurate near 0. Errors: domain error for x <= -1.
fn log1p(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = arg(rt, args)?;
    if x <= -1.0 {
        return Err(domain_error());
    }
    Ok(Value::Float(x.ln_1p()))
}

static ATAN2: Native = Native::new("atan2", &["y", "x"], atan2);

/// `math.atan2(y, x)`: the angle of (x, y) in radians, in [-pi, pi].
fn atan2(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = ATAN2.bind(rt, args)?;
    let (y, x) = (a.value("y")?, a.value("x")?);
    Ok(Value::Float(real(rt, &y)?.atan2(real(rt, &x)?)))
}

static COPYSIGN: Native = Native::with("copysign", XY, copysign);

/// `math.copysign(x, y)`: |x| with y's sign.
fn copysign(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = XY.bind(rt, args)?;
    let (x, y) = (a.value("x")?, a.value("y")?);
    Ok(Value::Float(real(rt, &x)?.copysign(real(rt, &y)?)))
}

static FLOOR: Native = Native::with("floor", X, |rt, a| to_int(rt, a, f64::floor));
static CEIL: Native = Native::with("ceil", X, |rt, a| to_int(rt, a, f64::ceil));
static TRUNC: Native = Native::with("trunc", X, |rt, a| to_int(rt, a, f64::trunc));

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

static POW: Native = Native::with("pow", XY, pow);

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

static ISCLOSE: Native = Native::new("isclose", &["a", "b", "rel_tol: float = 1e-09", "abs_tol: float = 0.0"], isclose);

/// `math.isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0)`:
/// `|a - b| <= max(rel_tol * max(|a|, |b|), abs_tol)`; infinities are close only to themselves.
///
/// Errors: ValueError "tolerances must be non-negative".
fn isclose(rt: &mut Interp, args: &mut Args) -> R<Value> {
    if args.pos.len() > 2 {
        bail!(Type, "isclose() takes exactly 2 positional arguments ({} given)", args.pos.len());
    }
    let mut s = ISCLOSE.bind(rt, args)?;
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

static ISNAN: Native = Native::with("isnan", X, |rt, a| class(rt, a, f64::is_nan));
static ISINF: Native = Native::with("isinf", X, |rt, a| class(rt, a, f64::is_infinite));
static ISFINITE: Native = Native::with("isfinite", X, |rt, a| class(rt, a, f64::is_finite));

fn class(rt: &mut Interp, args: &mut Args, f: fn(f64) -> bool) -> R<Value> {
    Ok(Value::Bool(f(arg(rt, args)?)))
}

static FACTORIAL: Native = Native::new("factorial", &["n"], factorial);

/// `math.factorial(n)`: n! for an int n >= 0.
///
/// Errors: ValueError "factorial() not defined for negative values"; OverflowError past 20!.
fn factorial(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let n = integer(&FACTORIAL.bind(rt, args)?.value("n")?)?;
    if n < 0 {
        bail!(Value, "factorial() not defined for negative values");
    }
    let mut r: i64 = 1;
    for k in 2..=n {
        r = int_checked(r.checked_mul(k), || format!("factorial({n})"))?;
    }
    Ok(Value::Int(r))
}

static GCD: Native = Native::new("gcd", &["*integers"], gcd);

/// `math.gcd(*integers)`: the greatest common divisor (0 with no arguments), non-negative.
fn gcd(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let given = std::mem::take(&mut GCD.bind(rt, args)?.rest);
    let mut g: u64 = 0;
    for v in &given {
        let mut b = integer(v)?.unsigned_abs();
        while b != 0 {
            (g, b) = (b, g % b);
        }
    }
    int_checked(i64::try_from(g).ok(), || format!("gcd of {}", given.len())).map(Value::Int)
}

static HYPOT: Native = Native::new("hypot", &["*coordinates"], hypot);

/// `math.hypot(*coordinates)`: the Euclidean norm, correctly rounded (as CPython 3.11's
/// is): the coordinates scaled by a power of two, their squares summed in double-double
/// arithmetic, the square root corrected to the nearest float. An infinity wins over NaN.
fn hypot(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let given = std::mem::take(&mut HYPOT.bind(rt, args)?.rest);
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

static PROD: Native = Native::new("prod", &["iterable", "start=1"], prod);

/// `math.prod(iterable, *, start=1)`: `start * x0 * x1 * …` with the `*` operator
/// (ints stay exact, or OverflowError).
fn prod(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = PROD.bind(rt, args)?;
    let (items, mut acc) = (a.value("iterable")?, a.value_or("start", Value::Int(1))?);
    for x in rt.iterate(&items)? {
        acc = rt.binary_op(BinOp::Mul, acc, x)?;
    }
    Ok(acc)
}

static FSUM: Native = Native::new("fsum", &["seq"], fsum);

/// `math.fsum(iterable)`: the correctly rounded sum, kept exactly as a list of
/// non-overlapping partial sums (Shewchuk's method) until the end.
///
/// Errors: OverflowError "intermediate overflow in fsum"; ValueError "-inf + inf in fsum".
fn fsum(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let items = FSUM.bind(rt, args)?.value("seq")?;
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

static COMB: Native = Native::new("comb", &["n", "k"], comb);

/// `math.comb(n, k)`: the number of ways to choose k of n items (0 when k > n).
///
/// Errors: ValueError "n must be a non-negative integer" (and for k); OverflowError past 64 bits.
fn comb(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = COMB.bind(rt, args)?;
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

/// The C library's functions that CPython's `math` calls (so results are CPython's on the same
/// platform, as `sin` or `exp` through Rust's float methods are).
mod c_libm {
    mod sys {
        extern "C" {
            pub fn erf(x: f64) -> f64;
            pub fn erfc(x: f64) -> f64;
            pub fn expm1(x: f64) -> f64;
            pub fn exp2(x: f64) -> f64;
            // Rust's runtime (compiler-builtins) defines a `cbrt` of its own that the linker
            // takes first; glibc's `cbrtf64` is its `cbrt` under another name.
            #[cfg_attr(all(target_os = "linux", target_env = "gnu"), link_name = "cbrtf64")]
            pub fn cbrt(x: f64) -> f64;
            pub fn asinh(x: f64) -> f64;
            pub fn acosh(x: f64) -> f64;
            pub fn atanh(x: f64) -> f64;
            pub fn tgamma(x: f64) -> f64;
            pub fn lgamma(x: f64) -> f64;
        }
    }
    macro_rules! safe {
        ($($f:ident)*) => {$(
            pub fn $f(x: f64) -> f64 {
                // SAFETY: a pure C99 <math.h> function of one double (lgamma also writes the
                // C library's `signgam`, which nothing reads).
                unsafe { sys::$f(x) }
            }
        )*};
    }
    safe!(erf erfc expm1 exp2 cbrt asinh acosh atanh tgamma lgamma);
}

static EXPM1: Native = Native::with("expm1", X, |rt, a| libm_1(rt, a, c_libm::expm1, true));
static EXP2: Native = Native::with("exp2", X, |rt, a| libm_1(rt, a, c_libm::exp2, true));
static CBRT: Native = Native::with("cbrt", X, |rt, a| libm_1(rt, a, c_libm::cbrt, false));
static ERF: Native = Native::with("erf", X, |rt, a| libm_1(rt, a, c_libm::erf, false));
static ERFC: Native = Native::with("erfc", X, |rt, a| libm_1(rt, a, c_libm::erfc, false));
static ASINH: Native = Native::with("asinh", X, |rt, a| libm_1(rt, a, c_libm::asinh, false));
static ACOSH: Native = Native::with("acosh", X, |rt, a| libm_1(rt, a, c_libm::acosh, false));
static ATANH: Native = Native::with("atanh", X, |rt, a| libm_1(rt, a, c_libm::atanh, false));

/// A function of one float from the C library ([`c_libm`]), checked as CPython checks its libm calls: NaN from a non-NaN argument is ValueError "math
/// domain error"; infinity from a finite argument is OverflowError "math range error" where the
/// function can overflow (`expm1`, `exp2`), else a domain error (`atanh(1.0)`).
fn libm_1(rt: &mut Interp, args: &mut Args, f: fn(f64) -> f64, can_overflow: bool) -> R<Value> {
    let x = arg(rt, args)?;
    let r = f(x);
    if r.is_infinite() && x.is_finite() && !can_overflow {
        return Err(domain_error());
    }
    checked(r, x.is_finite(), x.is_nan())
}

static GAMMA: Native = Native::with("gamma", X, gamma);

/// `math.gamma(x)`. Errors: ValueError "math domain error" at 0, a negative integer and -inf;
/// OverflowError "math range error" when the result is too large (x > 171.6…, or x tiny).
fn gamma(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = arg(rt, args)?;
    if x == f64::NEG_INFINITY || (x <= 0.0 && x == x.floor()) {
        return Err(domain_error());
    }
    // (n-1)! exactly for n up to 23 (each is a float), as CPython gives.
    if (1.0..=23.0).contains(&x) && x == x.floor() {
        return Ok(Value::Float((1..x as u128).product::<u128>() as f64));
    }
    checked(c_libm::tgamma(x), x.is_finite(), x.is_nan())
}

static LGAMMA: Native = Native::with("lgamma", X, lgamma);

/// `math.lgamma(x)`: ln |Γ(x)|. Errors: ValueError "math domain error" at 0 and the negative
/// integers (poles); OverflowError "math range error" when a finite x's result is too large.
fn lgamma(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = arg(rt, args)?;
    if x.is_infinite() {
        return Ok(Value::Float(f64::INFINITY));
    }
    if x <= 0.0 && x == x.floor() {
        return Err(domain_error());
    }
    checked(c_libm::lgamma(x), x.is_finite(), x.is_nan())
}

static MODF: Native = Native::with("modf", X, modf);

/// `math.modf(x)`: `(fractional part, integer part)`, both floats with x's sign (exact).
fn modf(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = arg(rt, args)?;
    let (frac, int) = if x.is_infinite() {
        (0.0f64.copysign(x), x)
    } else {
        let t = x.trunc();
        ((x - t).copysign(x), t)
    };
    Ok(Value::tuple(vec![Value::Float(frac), Value::Float(int)]))
}

static FREXP: Native = Native::with("frexp", X, frexp);

/// `math.frexp(x)`: `(m, e)` with `x == m * 2**e` and `0.5 <= |m| < 1` (`(x, 0)` for 0, an
/// infinity and NaN), exact.
fn frexp(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = arg(rt, args)?;
    let (m, e) = if x == 0.0 || !x.is_finite() {
        (x, 0)
    } else {
        let e = exponent(x);
        (scale(x, -e), e)
    };
    Ok(Value::tuple(vec![Value::Float(m), Value::Int(e as i64)]))
}

static LDEXP: Native = Native::new("ldexp", &["x", "i"], ldexp);

/// `math.ldexp(x, i)`: `x * 2**i`, rounded once (to a subnormal or to zero when it underflows).
///
/// Errors: TypeError when `i` is not an int (a float too, as CPython); OverflowError "math
/// range error" when a finite x's result is too large.
fn ldexp(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = LDEXP.bind(rt, args)?;
    let (xv, iv) = (a.value("x")?, a.value("i")?);
    let x = real(rt, &xv)?;
    let i = match iv {
        Value::Int(i) => i,
        Value::Bool(b) => b as i64,
        other => bail!(Type, "ldexp() expected an int as its second argument, not {}", other.type_name()),
    };
    let r = ldexp_f64(x, i);
    checked(r, x.is_finite(), x.is_nan())
}

/// `x * 2**k` correctly rounded (exact unless the result is subnormal, zero or infinite).
pub fn ldexp_f64(x: f64, k: i64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    // x = m * 2^(e-1) with m in [1, 2): the result's exponent is e - 1 + k.
    let e = exponent(x) as i64;
    let m = scale(x, 1 - e as i32);
    let t = (e - 1).saturating_add(k);
    if t > 1023 {
        return f64::INFINITY.copysign(x);
    }
    if t >= -1022 {
        return m * f64::from_bits(((t + 1023) as u64) << 52);
    }
    if t < -1076 {
        return 0.0f64.copysign(x);
    }
    // A subnormal result: m * 2^(t + 1074) is exact (|t + 1074| <= 52 keeps it normal), and
    // the one multiplication by 2^-1074 rounds it once.
    scale(m, (t + 1074) as i32) * f64::from_bits(1)
}

static FMOD: Native = Native::with("fmod", XY, fmod);

/// `math.fmod(x, y)`: C's fmod, the exact remainder with x's sign (x when y is infinite).
///
/// Errors: ValueError "math domain error" for y == 0 or an infinite x.
fn fmod(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let (x, y) = two(rt, args)?;
    if y.is_infinite() && x.is_finite() {
        return Ok(Value::Float(x));
    }
    checked(x % y, true, x.is_nan() || y.is_nan())
}

static REMAINDER: Native = Native::with("remainder", XY, remainder);

/// `math.remainder(x, y)`: IEEE 754's remainder, `x - n*y` with n the integer nearest x/y
/// (ties to even), exact.
///
/// Errors: ValueError "math domain error" for y == 0 or an infinite x.
fn remainder(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let (x, y) = two(rt, args)?;
    if x.is_nan() || y.is_nan() {
        return Ok(Value::Float(f64::NAN));
    }
    if x.is_infinite() || y == 0.0 {
        return Err(domain_error());
    }
    Ok(Value::Float(ieee_remainder(x, y)))
}

/// IEEE 754's remainder of finite x by non-zero y (x when y is infinite).
pub fn ieee_remainder(x: f64, y: f64) -> f64 {
    if y.is_infinite() {
        return x;
    }
    let (ax, ay) = (x.abs(), y.abs());
    // m = |x| - q*|y| exactly, q = trunc(|x| / |y|); the answer is m or m - |y|.
    let m = ax % ay;
    let c = ay - m; // exact: both in [0, ay]
    let r = if m < c {
        m
    } else if m > c {
        -c
    } else {
        // A tie: keep the even quotient. q is odd exactly when |x| mod 2|y| is at least |y|
        // (when 2|y| overflows, |x| < 2|y| and q is 1 exactly when |x| >= |y|).
        let two_y = 2.0 * ay;
        let q_odd = if two_y.is_finite() { ax % two_y >= ay } else { ax >= ay };
        if q_odd {
            -c
        } else {
            m
        }
    };
    // remainder(-x, y) == -remainder(x, y), zero included.
    r * 1.0f64.copysign(x)
}

static NEXTAFTER: Native = Native::with("nextafter", XY, nextafter);

/// `math.nextafter(x, y)`: the float next to x in y's direction (y itself when x == y).
fn nextafter(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let (x, y) = two(rt, args)?;
    Ok(Value::Float(if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == y {
        y
    } else if y > x {
        x.next_up()
    } else {
        x.next_down()
    }))
}

static ULP: Native = Native::with("ulp", X, ulp);

/// `math.ulp(x)`: the gap from |x| to the next float away from zero (to the one below for the
/// largest float); NaN and infinities are themselves (inf for -inf).
fn ulp(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = arg(rt, args)?.abs();
    Ok(Value::Float(if !x.is_finite() {
        x
    } else if x == f64::MAX {
        x - x.next_down()
    } else {
        x.next_up() - x
    }))
}

fn two(rt: &mut Interp, args: &mut Args) -> R<(f64, f64)> {
    let mut a = XY.bind(rt, args)?;
    let (x, y) = (a.value("x")?, a.value("y")?);
    Ok((real(rt, &x)?, real(rt, &y)?))
}

static ISQRT: Native = Native::new("isqrt", &["n"], isqrt);

/// `math.isqrt(n)`: the largest int whose square is at most n.
///
/// Errors: ValueError "isqrt() argument must be nonnegative"; TypeError for a non-int.
fn isqrt(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let n = integer(&ISQRT.bind(rt, args)?.value("n")?)?;
    if n < 0 {
        bail!(Value, "isqrt() argument must be nonnegative");
    }
    Ok(Value::Int(isqrt_u64(n as u64) as i64))
}

/// floor(sqrt(n)), exact for every u64.
pub fn isqrt_u64(n: u64) -> u64 {
    let mut r = (n as f64).sqrt() as u64;
    // The float estimate is within one of the answer: correct it in integers.
    while r.checked_mul(r).is_none_or(|s| s > n) {
        r -= 1;
    }
    while (r + 1).checked_mul(r + 1).is_some_and(|s| s <= n) {
        r += 1;
    }
    r
}

static LCM: Native = Native::new("lcm", &["*integers"], lcm);

/// `math.lcm(*integers)`: the least common multiple (1 with no arguments, 0 if any is 0),
/// non-negative. Errors: OverflowError past 64 bits.
fn lcm(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let given = std::mem::take(&mut LCM.bind(rt, args)?.rest);
    let ns: Vec<i64> = given.iter().map(integer).collect::<R<_>>()?;
    let mut l: u128 = 1;
    for &n in &ns {
        let b = n.unsigned_abs() as u128;
        if b == 0 || l == 0 {
            l = 0;
            continue;
        }
        let (mut g, mut h) = (l, b);
        while h != 0 {
            (g, h) = (h, g % h);
        }
        l = l / g * b;
        if l > i64::MAX as u128 {
            let text = ns.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
            return int_checked(None, || format!("lcm({text})")).map(Value::Int);
        }
    }
    Ok(Value::Int(l as i64))
}

static PERM: Native = Native::new("perm", &["n", "k=None"], perm);

/// `math.perm(n, k=None)`: the number of ways to arrange k of n items in order (n! without k,
/// 0 when k > n).
///
/// Errors: ValueError "n must be a non-negative integer" (and for k); OverflowError past 64 bits.
fn perm(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = PERM.bind(rt, args)?;
    let n = integer(&a.value("n")?)?;
    let k = match a.opt("k")? {
        None | Some(Value::None) => None,
        Some(v) => Some(integer(&v)?),
    };
    if n < 0 {
        bail!(Value, "n must be a non-negative integer");
    }
    let k = k.unwrap_or(n);
    if k < 0 {
        bail!(Value, "k must be a non-negative integer");
    }
    if k > n {
        return Ok(Value::Int(0));
    }
    let mut r: i64 = 1;
    for f in (n - k + 1)..=n {
        r = int_checked(r.checked_mul(f), || format!("perm({n}, {k})"))?;
    }
    Ok(Value::Int(r))
}

static DIST: Native = Native::new("dist", &["p", "q"], dist);

/// `math.dist(p, q)`: the Euclidean distance between two points given as iterables of the same
/// length, correctly rounded (the [`norm`] of the differences, as [`hypot`]).
///
/// Errors: ValueError "both points must have the same number of dimensions".
fn dist(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = DIST.bind(rt, args)?;
    let (p, q) = (a.value("p")?, a.value("q")?);
    let (p, q) = (rt.iterate(&p)?, rt.iterate(&q)?);
    if p.len() != q.len() {
        bail!(Value, "both points must have the same number of dimensions");
    }
    let mut d = Vec::with_capacity(p.len());
    for (a, b) in p.iter().zip(&q) {
        d.push((real(rt, a)? - real(rt, b)?).abs());
    }
    Ok(Value::Float(norm(&d)))
}
