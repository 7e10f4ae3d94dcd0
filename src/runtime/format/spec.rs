//! Format specs (`f"{x:>10.3e}"`, `'{:,}'.format(n)`): Python's format-spec
//! mini-language, `[[fill]align][sign][z][#][0][width][grouping][.precision][type]`,
//! for int, bool, float and str, with CPython's `format()` output and messages.
//!
//! Every spec goes through [`parse`] and one of [`format_int`], [`format_float`],
//! [`format_str`]; none of them can panic: non-finite floats are handled before
//! any digit is looked at, and width and precision are bounded before anything
//! is allocated.

use crate::bail;
use crate::error::R;

/// The largest width or precision a spec may ask for (characters). CPython
/// accepts anything up to `sys.maxsize` and then tries to allocate it; a
/// million is far beyond any sane log line and keeps a result under a few MB.
pub const MAX_WIDTH: usize = 1_000_000;

/// A parsed spec.
#[derive(Debug, Default, Clone)]
pub struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    /// `z`: a negative zero (after rounding) prints as a positive one.
    coerce_zero: bool,
    /// `#`: base prefixes, and a decimal point that always shows.
    alt: bool,
    /// `0` before the width: sign-aware zero padding.
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

impl Spec {
    /// The spec of a `%`-conversion of a float (`%-+08.3f`): `left` is the `-` flag,
    /// `zero` the `0` flag (ignored when `left`), `sign` `'+'`, `' '` or none.
    pub fn printf_float(
        left: bool,
        zero: bool,
        sign: Option<char>,
        alt: bool,
        width: usize,
        precision: usize,
        ty: char,
    ) -> Spec {
        Spec {
            align: left.then_some('<'),
            sign,
            alt,
            zero: zero && !left,
            width: width.min(MAX_WIDTH),
            precision: Some(precision.min(MAX_WIDTH)),
            ty: Some(ty),
            ..Spec::default()
        }
    }
}

/// Parses `spec` for a value of type `type_name` (named in error messages).
///
/// Errors: ValueError for a malformed spec, or a width or precision over [`MAX_WIDTH`].
pub fn parse(spec: &str, type_name: &str) -> R<Spec> {
    let c: Vec<char> = spec.chars().collect();
    let at = |i: usize| c.get(i).copied();
    let is_align = |ch: Option<char>| matches!(ch, Some('<' | '>' | '=' | '^'));
    let mut s = Spec::default();
    let mut i = 0;
    if is_align(at(1)) {
        s.fill = at(0);
        s.align = at(1);
        i = 2;
    } else if is_align(at(0)) {
        s.align = at(0);
        i = 1;
    }
    if let Some(ch @ ('+' | '-' | ' ')) = at(i) {
        s.sign = Some(ch);
        i += 1;
    }
    if at(i) == Some('z') {
        s.coerce_zero = true;
        i += 1;
    }
    if at(i) == Some('#') {
        s.alt = true;
        i += 1;
    }
    // CPython: a `0` before the width pads with zeros unless a fill was given.
    if s.fill.is_none() && at(i) == Some('0') {
        s.zero = true;
        i += 1;
    }
    let (width, next) = number(&c, i, "width")?;
    s.width = width.unwrap_or(0);
    i = next;
    if let Some(g @ (',' | '_')) = at(i) {
        s.grouping = Some(g);
        i += 1;
        if matches!(at(i), Some(',' | '_')) && at(i) != Some(g) {
            bail!(Value, "Cannot specify both ',' and '_'.");
        }
    }
    if at(i) == Some('.') {
        let (p, next) = number(&c, i + 1, "precision")?;
        match p {
            Some(p) => s.precision = Some(p),
            None => bail!(Value, "Format specifier missing precision"),
        }
        i = next;
    }
    match c.len() - i {
        0 => {}
        1 => s.ty = at(i),
        _ => bail!(Value, "Invalid format specifier '{spec}' for object of type '{type_name}'"),
    }
    if let Some(g) = s.grouping {
        let ok = match s.ty {
            None | Some('d' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => true,
            Some('b' | 'o' | 'x' | 'X') => g == '_',
            _ => false,
        };
        if !ok {
            bail!(Value, "Cannot specify '{g}' with '{}'.", s.ty.unwrap_or(' '));
        }
    }
    Ok(s)
}

/// The decimal number starting at `c[i]`, if any, bounded by [`MAX_WIDTH`]
/// before it can overflow; returns it and the index after it.
fn number(c: &[char], mut i: usize, what: &str) -> R<(Option<usize>, usize)> {
    let start = i;
    let mut n: usize = 0;
    while let Some(d) = c.get(i).and_then(|ch| ch.to_digit(10)) {
        n = n.saturating_mul(10).saturating_add(d as usize);
        i += 1;
    }
    if i == start {
        return Ok((None, i));
    }
    if n > MAX_WIDTH {
        let digits: String = c[start..i].iter().collect();
        bail!(Value, "format {what} {digits} is too large (the limit is {MAX_WIDTH})");
    }
    Ok((Some(n), i))
}

/// `format(text, spec)` for a string.
pub fn format_str(text: &str, spec: &Spec) -> R<String> {
    if let Some(t) = spec.ty.filter(|&t| t != 's') {
        bail!(Value, "Unknown format code '{t}' for object of type 'str'");
    }
    // CPython's order of checks, so that the first complaint is the same.
    if let Some(g) = spec.grouping {
        bail!(Value, "Cannot specify '{g}' with 's'.");
    }
    match spec.sign {
        Some(' ') => bail!(Value, "Space not allowed in string format specifier"),
        Some(_) => bail!(Value, "Sign not allowed in string format specifier"),
        None => {}
    }
    if spec.coerce_zero {
        bail!(Value, "Negative zero coercion (z) not allowed in string format specifier");
    }
    if spec.alt {
        bail!(Value, "Alternate form (#) not allowed in string format specifier");
    }
    if spec.align == Some('=') {
        bail!(Value, "'=' alignment not allowed in string format specifier");
    }
    let body: String = match spec.precision {
        Some(p) => text.chars().take(p).collect(),
        None => text.to_string(),
    };
    Ok(pad(Parts { sign: "", prefix: "", digits: body, rest: String::new() }, spec, '<', None))
}

/// `format(i, spec)` for an int (or a bool, `type_name` "bool").
pub fn format_int(i: i64, spec: &Spec, type_name: &str) -> R<String> {
    let ty = spec.ty;
    if let Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') = ty {
        // Python converts to float first (exactly, to the nearest float).
        return format_float(i as f64, spec, type_name);
    }
    let (radix, prefix) = match ty {
        None | Some('d' | 'n') => (10, ""),
        Some('b') => (2, "0b"),
        Some('o') => (8, "0o"),
        Some('x') => (16, "0x"),
        Some('X') => (16, "0X"),
        Some('c') => (0, ""),
        Some(t) => bail!(Value, "Unknown format code '{t}' for object of type '{type_name}'"),
    };
    if spec.precision.is_some() {
        bail!(Value, "Precision not allowed in integer format specifier");
    }
    if spec.coerce_zero {
        bail!(Value, "Negative zero coercion (z) not allowed in integer format specifier");
    }
    if ty == Some('c') {
        if spec.sign.is_some() {
            bail!(Value, "Sign not allowed with integer format specifier 'c'");
        }
        if spec.alt {
            bail!(Value, "Alternate form (#) not allowed with integer format specifier 'c'");
        }
        let ch = u32::try_from(i).ok().and_then(char::from_u32);
        let Some(ch) = ch else { bail!(Overflow, "%c arg not in range(0x110000)") };
        return Ok(pad(Parts { sign: "", prefix: "", digits: ch.to_string(), rest: String::new() }, spec, '>', None));
    }
    let a = i.unsigned_abs();
    let digits = match ty {
        Some('b') => format!("{a:b}"),
        Some('o') => format!("{a:o}"),
        Some('x') => format!("{a:x}"),
        Some('X') => format!("{a:X}"),
        _ => a.to_string(),
    };
    let group = spec.grouping.map(|g| (g, if radix == 10 { 3 } else { 4 }));
    let prefix = if spec.alt { prefix } else { "" };
    Ok(pad(Parts { sign: sign_text(i < 0, spec), prefix, digits, rest: String::new() }, spec, '>', group))
}

/// `format(x, spec)` for a float (`type_name` names the original value's type).
pub fn format_float(x: f64, spec: &Spec, type_name: &str) -> R<String> {
    let ty = spec.ty;
    if let Some(t) = ty.filter(|t| !matches!(t, 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'n' | '%')) {
        bail!(Value, "Unknown format code '{t}' for object of type '{type_name}'");
    }
    let upper = matches!(ty, Some('E' | 'F' | 'G'));
    // '%' shows x * 100 (computed in floating point, as CPython does), which may overflow to inf.
    let shown = if ty == Some('%') { x * 100.0 } else { x };
    // CPython never shows the sign of a NaN.
    let mut neg = shown.is_sign_negative() && !shown.is_nan();
    let body = if !shown.is_finite() {
        // Checked first: the digit handling below assumes a finite number.
        let word = match (shown.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        if ty == Some('%') {
            format!("{word}%")
        } else {
            word.to_string()
        }
    } else {
        let a = shown.abs();
        let p = spec.precision;
        let body = match ty {
            Some('f' | 'F') => fixed(a, p.unwrap_or(6), spec.alt),
            Some('%') => fixed(a, p.unwrap_or(6), spec.alt) + "%",
            Some('e' | 'E') => scientific(a, p.unwrap_or(6), spec.alt, false),
            Some('g' | 'G' | 'n') => general(a, p.unwrap_or(6).max(1), spec.alt, false),
            // No type and a precision: like 'g', but with at least one digit after the point.
            None if p.is_some() => general(a, p.unwrap_or(6).max(1), spec.alt, true),
            // No type, no precision: str(x), as Python defines it; DGL's str writes exponents as `1e20`.
            _ => super::fmt_f64(a),
        };
        if spec.coerce_zero && !body.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
            neg = false;
        }
        if upper {
            body.to_uppercase()
        } else {
            body
        }
    };
    let split = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(body.len());
    let (digits, rest) = body.split_at(split);
    // Grouping applies to the integer digits of a finite number only ("inf" has none).
    let group = spec.grouping.filter(|_| shown.is_finite()).map(|g| (g, 3));
    let parts = Parts { sign: sign_text(neg, spec), prefix: "", digits: digits.to_string(), rest: rest.to_string() };
    Ok(pad(parts, spec, '>', group))
}

/// `format(z, spec)` for a complex number, as CPython's `format_complex_internal`: each part
/// formatted as a float by the spec's type (no type: as `repr` writes it, `g` with a
/// precision), the imaginary part always signed unless the real part is left out (no type
/// and a real part of +0.0), in parentheses when there is no type; the whole padded to the
/// width (right-aligned by default).
///
/// Errors: ValueError for zero padding, `=` alignment, or a type other than
/// `e E f F g G n` (CPython's messages).
pub fn format_complex(re: f64, im: f64, spec: &Spec) -> R<String> {
    if spec.zero || spec.fill == Some('0') {
        bail!(Value, "Zero padding is not allowed in complex format specifier");
    }
    if spec.align == Some('=') {
        bail!(Value, "'=' alignment flag is not allowed in complex format specifier");
    }
    if let Some(t) = spec.ty.filter(|t| !matches!(t, 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'n')) {
        bail!(Value, "Unknown format code '{t}' for object of type 'complex'");
    }
    let repr_style = spec.ty.is_none() && spec.precision.is_none();
    let skip_re = spec.ty.is_none() && re == 0.0 && re.is_sign_positive();
    let parens = spec.ty.is_none() && !skip_re;
    let part = |x: f64, sign: Option<char>| -> R<String> {
        let mut s = Spec { sign, width: 0, fill: None, align: Some('<'), zero: false, ..spec.clone() };
        if spec.ty.is_none() && spec.precision.is_some() {
            s.ty = Some('g');
        }
        if !repr_style {
            return format_float(x, &s, "complex");
        }
        // CPython's repr digits ('r'): a float's shortest digits without its `.0`.
        let neg = x.is_sign_negative() && !x.is_nan() && !(spec.coerce_zero && x == 0.0);
        let body = super::super::complex::unsigned_repr(x.abs());
        let split = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(body.len());
        let (digits, rest) = body.split_at(split);
        let group_by = spec.grouping.filter(|_| x.is_finite()).map(|g| (g, 3));
        let parts = Parts { sign: sign_text(neg, &s), prefix: "", digits: digits.to_string(), rest: rest.to_string() };
        Ok(pad(parts, &s, '<', group_by))
    };
    let re_text = if skip_re { String::new() } else { part(re, spec.sign)? };
    let im_text = part(im, if skip_re { spec.sign } else { Some('+') })?;
    let body = if parens { format!("({re_text}{im_text}j)") } else { format!("{re_text}{im_text}j") };
    let n = spec.width.saturating_sub(body.chars().count());
    let fill = spec.fill.unwrap_or(' ');
    let fills = |k: usize| std::iter::repeat_n(fill, k).collect::<String>();
    Ok(match spec.align.unwrap_or('>') {
        '<' => format!("{body}{}", fills(n)),
        '^' => format!("{}{body}{}", fills(n / 2), fills(n - n / 2)),
        _ => format!("{}{body}", fills(n)),
    })
}

fn sign_text(neg: bool, spec: &Spec) -> &'static str {
    match (neg, spec.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    }
}

/// `a` with `p` decimals (exact, round-half-even on the binary value, as CPython).
fn fixed(a: f64, p: usize, alt: bool) -> String {
    let mut t = exact_fixed(a, p);
    if alt && p == 0 {
        t.push('.');
    }
    t
}

/// `a` as `d.ddde±XX` with `p` decimals; `strip` removes trailing zeros ('g').
fn scientific(a: f64, p: usize, alt: bool, strip: bool) -> String {
    let (mut m, exp) = exact_scientific(a, p);
    if strip && !alt && m.contains('.') {
        m = m.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    if alt && !m.contains('.') {
        m.push('.');
    }
    format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
}

/// 'g' with `p` significant digits: fixed notation when the exponent `e` (after
/// rounding) satisfies -4 <= e < p, else scientific; trailing zeros removed
/// unless `#`. `dot0` (no type with a precision): fixed only while e < p - 1,
/// and an integral result keeps `.0`.
fn general(a: f64, p: usize, alt: bool, dot0: bool) -> String {
    let exp = exact_scientific(a, p - 1).1 as i64;
    let limit = if dot0 { p as i64 - 1 } else { p as i64 };
    if exp < -4 || exp >= limit {
        return scientific(a, p - 1, alt, true);
    }
    let decimals = (p as i64 - 1 - exp) as usize;
    let mut t = exact_fixed(a, decimals);
    if alt {
        if !t.contains('.') {
            t.push('.');
        }
    } else if t.contains('.') {
        t = t.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    if dot0 && !t.contains('.') {
        t.push_str(".0");
    }
    t
}

/// Digits a finite f64 can have after the point: its exact binary value ends
/// within 1,074 decimals (the smallest subnormal is 2^-1074), so any digit
/// past this one is a zero.
const EXACT_DECIMALS: usize = 1100;
/// Significant digits past which a finite f64's exact expansion is all zeros (it has at most 767).
const EXACT_DIGITS: usize = 800;

/// `a` with `p` decimals. Rust's formatter refuses precisions above 65,535
/// (it panics), so large ones format the exact digits and append the zeros.
fn exact_fixed(a: f64, p: usize) -> String {
    let q = p.min(EXACT_DECIMALS);
    let mut t = format!("{a:.q$}");
    t.extend(std::iter::repeat_n('0', p - q));
    t
}

/// `a` as a mantissa with `p` decimals and a decimal exponent, for any `p`.
fn exact_scientific(a: f64, p: usize) -> (String, i32) {
    let q = p.min(EXACT_DIGITS);
    let t = format!("{a:.q$e}");
    let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
    let mut m = m.to_string();
    m.extend(std::iter::repeat_n('0', p - q));
    (m, e.parse().unwrap_or(0))
}

/// A number in pieces: sign, base prefix, integer digits, and the rest
/// (fraction, exponent, `%`); for strings, `digits` holds the text.
struct Parts {
    sign: &'static str,
    prefix: &'static str,
    digits: String,
    rest: String,
}

/// Groups `digits` by `size` from the right with `sep`, padding with zeros to
/// at least `min_width` characters, as CPython does for `0` padding with
/// grouping (`format(1234, '08,')` is `0,001,234`: never a leading separator).
fn group(digits: &str, sep: Option<char>, size: usize, min_width: usize) -> String {
    let Some(sep) = sep else {
        let zeros = min_width.saturating_sub(digits.len());
        return "0".repeat(zeros) + digits;
    };
    let mut out: Vec<char> = Vec::new();
    let mut remaining: Vec<char> = digits.chars().collect();
    let mut min_width = min_width as isize;
    let mut first = true;
    loop {
        let len = size.min(remaining.len().max(min_width.max(1) as usize));
        if !first {
            out.push(sep);
        }
        first = false;
        let take = remaining.len().min(len);
        let zeros = len - take;
        let cut = remaining.len() - take;
        out.extend(remaining.drain(cut..).rev());
        out.extend(std::iter::repeat_n('0', zeros));
        min_width -= len as isize;
        if remaining.is_empty() && min_width <= 0 {
            break;
        }
        min_width -= 1;
    }
    out.iter().rev().collect()
}

/// Assembles `parts` padded to the spec's width with its fill and alignment
/// (`default_align` when none is given); `group` is (separator, group size).
fn pad(parts: Parts, spec: &Spec, default_align: char, group_by: Option<(char, usize)>) -> String {
    let fill = spec.fill.unwrap_or(if spec.zero { '0' } else { ' ' });
    let align = spec.align.unwrap_or(if spec.zero && default_align == '>' { '=' } else { default_align });
    let fixed_len = parts.sign.len() + parts.prefix.len() + parts.rest.chars().count();
    // Zero padding between the sign and the digits takes part in grouping.
    let min_width =
        if fill == '0' && align == '=' && group_by.is_some() { spec.width.saturating_sub(fixed_len) } else { 0 };
    let digits = match group_by {
        Some((sep, size)) => group(&parts.digits, Some(sep), size, min_width),
        None => parts.digits,
    };
    let len = fixed_len + digits.chars().count();
    let n = spec.width.saturating_sub(len);
    let fills = |k: usize| std::iter::repeat_n(fill, k).collect::<String>();
    let (sign, prefix, rest) = (parts.sign, parts.prefix, parts.rest);
    match align {
        '<' => format!("{sign}{prefix}{digits}{rest}{}", fills(n)),
        '^' => format!("{}{sign}{prefix}{digits}{rest}{}", fills(n / 2), fills(n - n / 2)),
        '=' => format!("{sign}{prefix}{}{digits}{rest}", fills(n)),
        _ => format!("{}{sign}{prefix}{digits}{rest}", fills(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64, spec: &str) -> String {
        format_float(x, &parse(spec, "float").unwrap(), "float").unwrap()
    }
    fn i(x: i64, spec: &str) -> String {
        format_int(x, &parse(spec, "int").unwrap(), "int").unwrap()
    }

    #[test]
    fn number_specs_follow_python() {
        assert_eq!(f(1.23456, ".4f"), "1.2346");
        assert_eq!(i(42, "5d"), "   42");
        assert_eq!(f(0.5, ".1%"), "50.0%");
        assert_eq!(f(12345.678, ",.2f"), "12,345.68");
        assert_eq!(f(-1.5e-5, ".2e"), "-1.50e-05");
        assert_eq!(i(-7, "04d"), "-007");
        assert_eq!(f(0.000123456, "g"), "0.000123456");
        assert_eq!(f(9.9999995, ".6g"), "10");
        assert_eq!(f(9.9999995, ".6"), "10.0");
        assert_eq!(i(1234, "08,"), "0,001,234");
        assert_eq!(i(-255, "#010x"), "-0x00000ff");
        assert_eq!(f(-0.0001, "z.2f"), "0.00");
    }

    #[test]
    fn non_finite_values_never_panic() {
        for x in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN] {
            for spec in [".3e", "E", ".2f", "F", "g", "G", ".3", "%", "010,.1f", "z", "#.0e", "+^12,"] {
                let s = f(x, spec);
                assert!(s.contains("inf") || s.contains("nan") || s.contains("INF") || s.contains("NAN"), "{s}");
            }
        }
        assert_eq!(f(f64::NAN, ".2f"), "nan");
        assert_eq!(f(f64::INFINITY, "010.2f"), "0000000inf");
    }

    #[test]
    fn huge_widths_are_refused_before_allocating() {
        assert!(parse("999999999999", "int").is_err());
        assert!(parse(".70000000f", "float").is_err());
        assert!(parse("99999999999999999999999999", "int").is_err());
        assert!(parse(".1000000f", "float").is_ok());
    }
}
