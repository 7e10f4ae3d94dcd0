//! More of Python's builtins: `chr`, `ord`, `callable`, `divmod`, `pow`,
//! `hex`/`oct`/`bin`, `hash`, `any`/`all`, `map`, `filter`, with CPython 3.11's
//! results and messages. Like `zip` and `enumerate` (docs/language.md §2), `map` and
//! `filter` return lists, computed at once.

use super::{Native, Signature};
use crate::error::R;
use crate::runtime::convert::int_checked;
use crate::runtime::numeric::float_divmod;
use crate::runtime::value::{Args, HashKey, Value};
use crate::runtime::Interp;
use crate::syntax::ast::BinOp;
use crate::{bail, err};

pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&CHR);
    reg(&ORD);
    reg(&CALLABLE);
    reg(&DIVMOD);
    reg(&POW);
    reg(&HEX);
    reg(&OCT);
    reg(&BIN);
    reg(&HASH);
    reg(&ANY);
    reg(&ALL);
    reg(&MAP);
    reg(&FILTER);
    reg(&FORMAT);
}

static FORMAT: Native = Native::new("format", &["value", "format_spec=''"], format);

/// `format(value, format_spec='')`: the value formatted by the format-spec
/// mini-language, as in an f-string field (numbers, strings, one-element tensors).
///
/// Errors: ValueError for a bad spec; TypeError for a spec on another type.
fn format(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = FORMAT.bind(rt, args)?;
    let (v, spec) = (a.value("value")?, a.opt("format_spec")?);
    let spec = match spec {
        None => "".into(),
        Some(Value::Str(s)) => s,
        Some(other) => bail!(Type, "format() argument 2 must be str, not {}", other.type_name()),
    };
    Ok(Value::str(&rt.format_field(&v, false, &spec)?))
}

/// An int argument where a float is a TypeError in CPython's words
/// ("'float' object cannot be interpreted as an integer").
fn index_arg(rt: &mut Interp, v: &Value) -> R<i64> {
    match crate::runtime::convert::int_of(v, crate::runtime::convert::IntUse::Index) {
        Some(i) => i,
        None => match rt.index_dunder(v)? {
            Some(i) => Ok(i),
            None => bail!(Type, "'{}' object cannot be interpreted as an integer", v.type_name()),
        },
    }
}

static CHR: Native = Native::new("chr", &["i"], chr);

/// `chr(i)`: the one-character string of code point `i`.
///
/// Errors: ValueError "chr() arg not in range(0x110000)" (surrogates too, which a
/// Rust string cannot hold); TypeError for a non-int.
fn chr(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let v = CHR.bind(rt, args)?.value("i")?;
    let i = index_arg(rt, &v)?;
    match u32::try_from(i).ok().and_then(char::from_u32) {
        Some(c) => Ok(Value::str(c.encode_utf8(&mut [0; 4]))),
        None if (0xD800..0xE000).contains(&i) => {
            bail!(Value, "chr() arg is a surrogate, which DGL strings cannot hold")
        }
        None => bail!(Value, "chr() arg not in range(0x110000)"),
    }
}

static ORD: Native = Native::new("ord", &["c"], ord);

/// `ord(c)`: the code point of a one-character string.
///
/// Errors: TypeError for a longer string or a non-string (CPython's wording).
fn ord(rt: &mut Interp, args: &mut Args) -> R<Value> {
    match ORD.bind(rt, args)?.value("c")? {
        Value::Str(s) => {
            let mut it = s.chars();
            match (it.next(), it.next()) {
                (Some(c), None) => Ok(Value::Int(c as i64)),
                _ => bail!(Type, "ord() expected a character, but string of length {} found", s.chars().count()),
            }
        }
        other => bail!(Type, "ord() expected string of length 1, but {} found", other.type_name()),
    }
}

static CALLABLE: Native = Native::new("callable", &["obj"], callable);

/// `callable(obj)`: whether `obj(...)` can be called (functions, builtins, methods,
/// classes, error types, instances whose class defines `__call__`).
fn callable(rt: &mut Interp, args: &mut Args) -> R<Value> {
    Ok(Value::Bool(match CALLABLE.bind(rt, args)?.value("obj")? {
        Value::Func(_) | Value::Builtin(_) | Value::Method(_) | Value::Class(_) | Value::ErrorType(_) => true,
        Value::Instance(i) => i.class.lookup(crate::intern::intern("__call__")).is_some(),
        _ => false,
    }))
}

static DIVMOD: Native = Native::new("divmod", &["a", "b"], divmod);

/// `divmod(a, b)`: `(a // b, a % b)`; ints give ints (floor division, the
/// remainder takes b's sign), a float gives floats.
///
/// Errors: ZeroDivisionError for b == 0; OverflowError for `divmod(-2**63, -1)`;
/// TypeError for non-numbers.
fn divmod(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = DIVMOD.bind(rt, args)?;
    let (x, y) = (a.value("a")?, a.value("b")?);
    match (&x, &y) {
        (Value::Float(_), Value::Int(_) | Value::Float(_) | Value::Bool(_))
        | (Value::Int(_) | Value::Bool(_), Value::Float(_)) => {
            let (p, q) = (rt.float_arg(&x, "a")?, rt.float_arg(&y, "b")?);
            if q == 0.0 {
                bail!(ZeroDivision, "float divmod()");
            }
            let (d, m) = float_divmod(p, q);
            Ok(Value::tuple(vec![Value::Float(d), Value::Float(m)]))
        }
        (Value::Int(_) | Value::Bool(_), Value::Int(_) | Value::Bool(_)) => {
            let d = rt.binary_op(BinOp::FloorDiv, x.clone(), y.clone())?;
            let m = rt.binary_op(BinOp::Mod, x, y)?;
            Ok(Value::tuple(vec![d, m]))
        }
        _ => bail!(Type, "unsupported operand type(s) for divmod(): '{}' and '{}'", x.type_name(), y.type_name()),
    }
}

static POW: Native =
    Native::new("pow", &["base", "exp", "mod=None"], pow).spelled(&["tf.pow", "tf.math.pow", "np.power"]);
/// TF's `pow(x, y, name=None)`, which `pow` of a tensor is.
const TF_POW: Signature = Signature::new(&["x: TensorLike", "y: TensorLike", "name=None"]);

/// `pow(base, exp, mod=None)`: `base ** exp`; with `mod`, `base ** exp % mod`
/// computed without the large intermediate (a negative `exp` uses the modular
/// inverse, as CPython 3.8+). Ints give ints; a negative exponent without `mod` a float.
///
/// Errors: OverflowError when an int result leaves 64 bits; ValueError "pow() 3rd
/// argument cannot be 0" and "base is not invertible for the given modulus";
/// TypeError "pow() 3rd argument not allowed unless all arguments are integers".
///
/// A tensor, Variable or list among the first two arguments (positional, or `x=`/`y=`)
/// makes it TF's elementwise `pow(x, y)` (docs/language.md §4), as `round` does.
fn pow(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let tensorish = |v: &Value| matches!(v, Value::Tensor(_) | Value::Variable(_) | Value::List(_));
    if args.pos.iter().take(2).any(tensorish) || args.kw.iter().any(|(k, _)| matches!(&**k, "x" | "y")) {
        let mut a = TF_POW.bind(rt, args)?;
        let (x, y) = (a.tensor_like("x")?, a.tensor_like("y")?);
        let (x, y) = rt.tensor_pair(&x, &y)?;
        return Ok(Value::Tensor(rt.ad.binary(crate::tensor::kernels::Binary::Pow, &x, &y)?));
    }
    let mut a = POW.bind(rt, args)?;
    let (b, e, m) = (a.value("base")?, a.value("exp")?, a.non_none("mod")?);
    let Some(m) = m else { return rt.binary_op(BinOp::Pow, b, e) };
    if matches!(b, Value::Complex(..)) || matches!(e, Value::Complex(..)) {
        bail!(Value, "complex modulo");
    }
    let int = |v: &Value| match v {
        Value::Int(i) => Some(*i),
        Value::Bool(x) => Some(*x as i64),
        _ => None,
    };
    let (Some(b), Some(e), Some(m)) = (int(&b), int(&e), int(&m)) else {
        bail!(Type, "pow() 3rd argument not allowed unless all arguments are integers")
    };
    if m == 0 {
        bail!(Value, "pow() 3rd argument cannot be 0");
    }
    let n = (m as i128).abs();
    let mut base = (b as i128).rem_euclid(n);
    if e < 0 {
        base = mod_inverse(base, n).ok_or_else(|| err!(Value, "base is not invertible for the given modulus"))?;
    }
    let mut k = e.unsigned_abs();
    let mut r: i128 = 1 % n;
    while k > 0 {
        if k & 1 == 1 {
            r = r * base % n;
        }
        base = base * base % n;
        k >>= 1;
    }
    // CPython's result has the modulus's sign (in (m, 0] for a negative m).
    if m < 0 && r != 0 {
        r -= n;
    }
    Ok(Value::Int(r as i64))
}

/// The inverse of `a` modulo `n` (both non-negative, n > 0), if gcd(a, n) == 1.
fn mod_inverse(a: i128, n: i128) -> Option<i128> {
    let (mut r0, mut r1, mut s0, mut s1) = (a, n, 1i128, 0i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (s0, s1) = (s1, s0 - q * s1);
    }
    (r0 == 1 || n == 1).then(|| s0.rem_euclid(n))
}

const RADIX_SIG: Signature = Signature::new(&["number"]);
static HEX: Native = Native::with("hex", RADIX_SIG, |rt, a| radix(rt, a, 16, "0x"));
static OCT: Native = Native::with("oct", RADIX_SIG, |rt, a| radix(rt, a, 8, "0o"));
static BIN: Native = Native::with("bin", RADIX_SIG, |rt, a| radix(rt, a, 2, "0b"));

/// `hex(x)`, `oct(x)`, `bin(x)`: an int in base 16, 8 or 2 with its prefix (`-0x1f`).
fn radix(rt: &mut Interp, args: &mut Args, base: u32, prefix: &str) -> R<Value> {
    let v = RADIX_SIG.bind(rt, args)?.value("number")?;
    let i = index_arg(rt, &v)?;
    let a = i.unsigned_abs();
    let digits = match base {
        16 => format!("{a:x}"),
        8 => format!("{a:o}"),
        _ => format!("{a:b}"),
    };
    Ok(Value::str(&format!("{}{prefix}{digits}", if i < 0 { "-" } else { "" })))
}

/// The Mersenne prime 2^61 - 1: CPython hashes numbers modulo it.
const HASH_MODULUS: u128 = (1 << 61) - 1;

/// The hash of a number: its value modulo 2^61 - 1 (with its sign), so equal
/// numbers hash equal across int, float and bool, and small ints hash to themselves
/// (as in CPython, -1 becomes -2).
fn number_hash(x: f64) -> i64 {
    if x.is_nan() {
        return 0;
    }
    if x.is_infinite() {
        return if x > 0.0 { 314_159 } else { -314_159 };
    }
    // |x| = mantissa * 2^exp exactly, with a 53-bit integer mantissa.
    let bits = x.abs().to_bits();
    let (raw_exp, frac) = ((bits >> 52) as i64, bits & ((1 << 52) - 1));
    let (mantissa, exp) = if raw_exp == 0 { (frac, -1074) } else { (frac | (1 << 52), raw_exp - 1075) };
    // 2^61 ≡ 1 (mod 2^61 - 1), so 2^exp ≡ 2^(exp mod 61).
    let shift = exp.rem_euclid(61) as u32;
    let h = ((mantissa as u128 % HASH_MODULUS) << shift) % HASH_MODULUS;
    signed_hash(h as i64, x < 0.0)
}

fn signed_hash(h: i64, neg: bool) -> i64 {
    let h = if neg { -h } else { h };
    if h == -1 {
        -2
    } else {
        h
    }
}

fn int_hash(i: i64) -> i64 {
    let h = (i.unsigned_abs() as u128 % HASH_MODULUS) as i64;
    signed_hash(h, i < 0)
}

static HASH: Native = Native::new("hash", &["obj"], hash);

/// `hash(obj)`: numbers hash as CPython's (`hash(1) == hash(1.0) == 1`); strings,
/// tuples and other hashable values by a fixed hash of their contents (CPython's
/// string hashes change per run; DGL's are the same on every run).
///
/// Errors: TypeError "unhashable type: 'list'".
fn hash(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let v = HASH.bind(rt, args)?.value("obj")?;
    Ok(Value::Int(match &v {
        Value::Int(i) => int_hash(*i),
        Value::Bool(b) => *b as i64,
        Value::Float(f) => number_hash(*f),
        // CPython's: the real part's hash plus 1000003 times the imaginary part's, wrapping,
        // so a complex with a zero imaginary part hashes as its real part.
        Value::Complex(re, im) => {
            let h = (number_hash(*re) as u64).wrapping_add((number_hash(*im) as u64).wrapping_mul(1_000_003)) as i64;
            signed_hash(h, false)
        }
        _ => {
            use std::hash::{Hash, Hasher};
            let key: HashKey = rt.hash_key(&v)?;
            let mut h = rustc_hash::FxHasher::default();
            key.hash(&mut h);
            signed_hash((h.finish() >> 3) as i64, false)
        }
    }))
}

const ANY_ALL_SIG: Signature = Signature::new(&["iterable"]);
static ANY: Native = Native::with("any", ANY_ALL_SIG, |rt, a| any_all(rt, a, true));
static ALL: Native = Native::with("all", ANY_ALL_SIG, |rt, a| any_all(rt, a, false));

/// `any(iterable)` (`want` true) and `all(iterable)`: short-circuit on the first
/// item whose truth value is `want`.
fn any_all(rt: &mut Interp, args: &mut Args, want: bool) -> R<Value> {
    let items = ANY_ALL_SIG.bind(rt, args)?.value("iterable")?;
    for x in rt.iterate(&items)? {
        if rt.truthy(&x)? == want {
            return Ok(Value::Bool(want));
        }
    }
    Ok(Value::Bool(!want))
}

static MAP: Native = Native::new("map", &["*args"], map);

/// `map(function, *iterables)`: a list of `function(x, y, …)` over the iterables
/// in step, as long as the shortest (a list, like `zip`: docs/language.md §2).
///
/// Errors: TypeError "map() must have at least two arguments."
fn map(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut given = std::mem::take(&mut MAP.bind(rt, args)?.rest);
    if given.len() < 2 {
        bail!(Type, "map() must have at least two arguments.");
    }
    let f = given.remove(0);
    let lists: Vec<Vec<Value>> = given.iter().map(|v| rt.iterate(v)).collect::<R<_>>()?;
    let n = lists.iter().map(Vec::len).min().unwrap_or(0);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(rt.call_value(&f, lists.iter().map(|l| l[i].clone()).collect(), vec![])?);
    }
    Ok(Value::list(out))
}

static FILTER: Native = Native::new("filter", &["function", "iterable"], filter);

/// `filter(function, iterable)`: a list of the items for which `function(item)` is
/// true (the items that are true themselves when `function` is None).
fn filter(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = FILTER.bind(rt, args)?;
    let (f, items) = (a.value("function")?, a.value("iterable")?);
    let mut out = Vec::new();
    for x in rt.iterate(&items)? {
        let keep = match &f {
            Value::None => rt.truthy(&x)?,
            f => {
                let r = rt.call_value(f, vec![x.clone()], vec![])?;
                rt.truthy(&r)?
            }
        };
        if keep {
            out.push(x);
        }
    }
    Ok(Value::list(out))
}

/// The one place number text is normalised before `int()` and `float()` read it, as CPython
/// does: every non-ASCII Unicode decimal digit (category Nd: '٣', '１') becomes its ASCII digit
/// and every non-ASCII whitespace character (U+00A0, U+3000, …) a space; ASCII stays as it is
/// (so the ASCII separators U+001C–U+001F, whitespace to `str.isspace`, are not a number's).
pub fn ascii_number_text(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_ascii() {
        return std::borrow::Cow::Borrowed(text);
    }
    let map = |c: char| match super::decimal_digits::decimal_value(c) {
        _ if c.is_ascii() => c,
        Some(d) => char::from(b'0' + d as u8),
        None if super::strings::is_py_space(c) => ' ',
        None => c,
    };
    std::borrow::Cow::Owned(text.chars().map(map).collect())
}

/// The whitespace a number's text may have around it (after [`ascii_number_text`]): C's
/// `isspace`, space, tab, newline, vertical tab, form feed and carriage return.
fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// `int(text, base)`: digits in `base` (2–36, or 0 for a literal's own prefix),
/// with an optional sign, `0x`/`0o`/`0b` prefix matching the base, `_` between
/// digits and whitespace around, as CPython. `None` when the text is not such a number.
///
/// Errors: OverflowError when the value leaves 64 bits.
pub fn parse_int(text: &str, base: u32) -> R<Option<i64>> {
    let ascii = ascii_number_text(text);
    let t = ascii.trim_matches(is_c_space);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = t.to_ascii_lowercase();
    let prefixed = |p: &str| lower.starts_with(p);
    let (base, digits) = match base {
        0 if prefixed("0x") => (16, &t[2..]),
        0 if prefixed("0o") => (8, &t[2..]),
        0 if prefixed("0b") => (2, &t[2..]),
        0 => {
            // A base-0 literal may not have leading zeros ("010" is invalid, "000" is 0).
            if t.len() > 1 && t.starts_with('0') && t.chars().any(|c| c != '0' && c != '_') {
                return Ok(None);
            }
            (10, t)
        }
        16 if prefixed("0x") => (16, &t[2..]),
        8 if prefixed("0o") => (8, &t[2..]),
        2 if prefixed("0b") => (2, &t[2..]),
        b => (b, t),
    };
    // After a prefix an underscore may come first ("0x_ff"); otherwise only between digits.
    let digits = if digits.len() != t.len() { digits.strip_prefix('_').unwrap_or(digits) } else { digits };
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return Ok(None);
    }
    let mut v: i128 = 0;
    for c in digits.chars().filter(|&c| c != '_') {
        let Some(d) = c.to_digit(base) else { return Ok(None) };
        // Past 64 bits the value only has to stay out of range: every digit is still checked.
        v = (v * base as i128 + d as i128).min(1 << 65);
    }
    let v = if neg { -v } else { v };
    int_checked(i64::try_from(v).ok(), || format!("int({})", crate::runtime::format::str_repr(text))).map(Some)
}

/// `float(text)`: CPython's grammar: whitespace around, an optional sign, then `inf`,
/// `infinity` or `nan` in any case, or a decimal number — digits with an optional point and
/// an optional exponent, `_` only between two digits. `None` when the text is not one;
/// the value is correctly rounded.
pub fn parse_float(text: &str) -> Option<f64> {
    let ascii = ascii_number_text(text);
    let t = ascii.trim_matches(is_c_space);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let x = match body.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => f64::INFINITY,
        "nan" => f64::NAN,
        _ => {
            let b = body.as_bytes();
            // Underscores only between digits; the rest is the literal grammar.
            let ok_underscores = b.iter().enumerate().all(|(i, &c)| {
                c != b'_' || (i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit())
            });
            let plain: String = body.chars().filter(|&c| c != '_').collect();
            if !ok_underscores || !is_decimal_literal(&plain) {
                return None;
            }
            plain.parse::<f64>().ok()?
        }
    };
    Some(if neg { -x } else { x })
}

/// `digits [. digits] [e [sign] digits]`, with digits on at least one side of the point.
fn is_decimal_literal(t: &str) -> bool {
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    let exp_ok = exp.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exp_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_divmod_matches_python() {
        assert_eq!(float_divmod(1.0, 0.1), (9.0, 0.09999999999999995));
        assert_eq!(float_divmod(-7.5, 2.0), (-4.0, 0.5));
        assert_eq!(float_divmod(7.5, -2.0), (-4.0, -0.5));
        let (q, r) = float_divmod(-4.0, 2.0);
        assert_eq!((q, r.to_bits()), (-2.0, 0.0f64.to_bits()));
    }

    #[test]
    fn number_hashes_match_python() {
        assert_eq!(number_hash(1.0), 1);
        assert_eq!(number_hash(1.5), 1_152_921_504_606_846_977);
        assert_eq!(number_hash(-1.0), -2);
        assert_eq!(number_hash(0.1), 230_584_300_921_369_408);
        assert_eq!(int_hash(-1), -2);
        assert_eq!(int_hash(1 << 61), 1);
    }

    #[test]
    fn int_text_in_bases() {
        assert_eq!(parse_int(" 0x_ff ", 0).unwrap(), Some(255));
        assert_eq!(parse_int("1_000", 10).unwrap(), Some(1000));
        assert_eq!(parse_int("010", 0).unwrap(), None);
        assert_eq!(parse_int("-zz", 36).unwrap(), Some(-1295));
        assert_eq!(parse_int("1__0", 10).unwrap(), None);
        assert!(parse_int("99999999999999999999", 10).is_err());
        assert_eq!(parse_int("-9223372036854775808", 10).unwrap(), Some(i64::MIN));
    }

    #[test]
    fn float_text_as_cpython() {
        assert_eq!(parse_float("1_0.5"), Some(10.5));
        assert_eq!(parse_float(" -InFinity\n"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("1e1_0"), Some(1e10));
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("5."), Some(5.0));
        for bad in ["1_", "_1", "1__0", "1_.5", "1._5", ".", "e5", "1e", "1e+", "0x10", "in f", "nan1", "--1", ""] {
            assert_eq!(parse_float(bad), None, "{bad:?}");
        }
    }
}
