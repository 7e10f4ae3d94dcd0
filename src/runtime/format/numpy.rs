//! NumPy values as text: `str` and `repr` of a NumPy array and of a NumPy scalar. This
//! mirrors NumPy 2's array printing under NumPy's default print options (precision 8,
//! floatmode 'maxprec', sign '-', linewidth 75, threshold 1000, edgeitems 3), byte for byte:
//! `[1.  2.5]`, `array([1, 2], dtype=int32)`, `np.float32(0.6931472)`.
//!
//! Every dtype goes through one of three element formats chosen by kind (float, int, bool),
//! reading the values through [`Array::elems`], so a new dtype needs no change here.

use crate::tensor::{Array, Elem};
use ndarray::Axis;

/// Characters per line before NumPy wraps (its `linewidth`).
const LINE_WIDTH: usize = 75;
/// Arrays with more elements than this print summarised (NumPy's `threshold`).
const THRESHOLD: usize = 1000;
/// Entries kept at each end of each summarised axis (NumPy's `edgeitems`).
const EDGE_ITEMS: usize = 3;
/// Most digits after the point (or after the mantissa's point) an element prints with.
const PRECISION: usize = 8;

/// NumPy's `str(a)`: `[1. 2.]`, `[[1 2]\n [3 4]]`, `[ True False]`; a 0-d array prints as
/// its scalar's str.
pub(crate) fn numpy_str(a: &Array) -> String {
    if a.ndim() == 0 {
        return numpy_scalar_str(a);
    }
    str_text(&View::of(a))
}

/// NumPy's `repr(a)`: `array([1., 2.], dtype=float32)`, `array([1, 2])` (float64, int64 and
/// bool carry no `dtype=`), `array(3.)` for 0-d, `array([], shape=(0, 3), dtype=float64)`
/// when empty, and `shape=` too when summarised.
pub(crate) fn numpy_repr(a: &Array) -> String {
    repr_text(&View::of(a))
}

/// A NumPy scalar's repr (what `a[0]`, `np.float32(x)` and `a.sum()` give): `np.float32(6.0)`,
/// `np.int64(3)`, `np.True_`. `a` is 0-d or holds one element (the first one is shown).
pub(crate) fn numpy_scalar_repr(a: &Array) -> String {
    let dtype = a.dtype();
    scalar_repr(dtype.name(), Kind::of(dtype.name(), dtype.is_float()), a.first_elem())
}

/// A NumPy scalar's str, as Python prints the number: `6.0`, `3`, `True`, `1e-05`, and a
/// float32 at its own precision (`0.6931472`).
pub(crate) fn numpy_scalar_str(a: &Array) -> String {
    let dtype = a.dtype();
    scalar_str(Kind::of(dtype.name(), dtype.is_float()), a.first_elem())
}

/// What printing reads of an array.
struct View<'a> {
    dtype: &'a str,
    kind: Kind,
    shape: Vec<usize>,
    /// More than `THRESHOLD` elements: the array prints summarised.
    summarised: bool,
    /// The elements printed, in row-major order: all of them, or when summarised the
    /// corners only (each axis longer than twice `EDGE_ITEMS` cut to its first and last
    /// `EDGE_ITEMS`; NumPy sizes the element format from these alone).
    elems: Vec<Elem>,
}

impl View<'static> {
    fn of(a: &Array) -> View<'static> {
        let dtype = a.dtype();
        let summarised = a.len() > THRESHOLD;
        // A summarised array is cut to its corners before its elements are read.
        let corners = if summarised { corners(a) } else { None };
        View {
            dtype: dtype.name(),
            kind: Kind::of(dtype.name(), dtype.is_float()),
            shape: a.shape().to_vec(),
            summarised,
            elems: corners.as_ref().unwrap_or(a).elems(),
        }
    }
}

/// The corners of `a`: every axis longer than twice `EDGE_ITEMS` cut to its first and last
/// `EDGE_ITEMS`; `None` when no axis is that long.
fn corners(a: &Array) -> Option<Array> {
    let mut cut: Option<Array> = None;
    for (axis, &n) in a.shape().iter().enumerate() {
        if n > 2 * EDGE_ITEMS {
            let kept: Vec<usize> = (0..EDGE_ITEMS).chain(n - EDGE_ITEMS..n).collect();
            let from = cut.as_ref().unwrap_or(a);
            cut = Some(crate::map_dtype!(from, x => x.select(Axis(axis), &kept)));
        }
    }
    cut
}

/// How a dtype's elements print.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Float(FloatKind),
    Int,
    Bool,
}

impl Kind {
    fn of(name: &str, is_float: bool) -> Kind {
        match name {
            _ if is_float => Kind::Float(FloatKind::of(name)),
            "bool" => Kind::Bool,
            _ => Kind::Int,
        }
    }
}

fn str_text(v: &View) -> String {
    if v.shape.is_empty() {
        return scalar_str(v.kind, v.elems[0]);
    }
    if v.elems.is_empty() {
        return "[]".into();
    }
    array_text(v, " ", "", LINE_WIDTH)
}

fn repr_text(v: &View) -> String {
    const PREFIX: &str = "array(";
    let shape = &v.shape[..];
    let empty = v.elems.is_empty();
    let body = if empty {
        "[]".to_string()
    } else {
        // The closing `)` counts against the line width.
        array_text(v, ", ", PREFIX, LINE_WIDTH - 1)
    };
    let mut extras = Vec::new();
    if (empty && shape != [0]) || v.summarised {
        extras.push(format!("shape={}", shape_tuple(shape)));
    }
    if !dtype_is_implied(v.dtype) || empty {
        extras.push(format!("dtype={}", v.dtype));
    }
    if extras.is_empty() {
        return format!("{PREFIX}{body})");
    }
    let head = format!("{PREFIX}{body},");
    let extra = format!("{})", extras.join(", "));
    let last_line = head.len() - head.rfind('\n').map_or(0, |i| i + 1);
    // The extras go on a line of their own when they would pass the line width.
    let spacer = if last_line + extra.len() + 1 > LINE_WIDTH {
        format!("\n{}", " ".repeat(PREFIX.len()))
    } else {
        " ".to_string()
    };
    format!("{head}{spacer}{extra}")
}

fn scalar_repr(dtype: &str, kind: Kind, e: Elem) -> String {
    match (kind, e) {
        (Kind::Bool, Elem::Bool(true)) => "np.True_".into(),
        (Kind::Bool, _) => "np.False_".into(),
        _ => format!("np.{dtype}({})", scalar_str(kind, e)),
    }
}

fn scalar_str(kind: Kind, e: Elem) -> String {
    match (kind, e) {
        (Kind::Float(k), e) => scalar_float_str(elem_f64(e), k),
        (Kind::Bool, e) => if elem_f64(e) != 0.0 { "True" } else { "False" }.into(),
        (Kind::Int, Elem::Int(i)) => i.to_string(),
        (Kind::Int, e) => (elem_f64(e) as i64).to_string(),
    }
}

/// float64, int64 and bool are the dtypes NumPy's repr leaves implied.
fn dtype_is_implied(dtype: &str) -> bool {
    matches!(dtype, "float64" | "int64" | "bool")
}

/// A shape as Python prints a tuple: `(2000,)`, `(0, 3)`.
fn shape_tuple(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

// ---------------------------------------------------------------------------------------
// The array layout: brackets, separators, wrapping and summarisation.

/// The bracketed text of `v` (non-empty, or 0-d) with `sep` between elements; continuation
/// lines are indented past `prefix` and the brackets, lines wrap before `width` columns.
fn array_text(v: &View, sep: &str, prefix: &str, width: usize) -> String {
    let shape = &v.shape;
    let format = ElemFormat::new(v.kind, &v.elems, shape.is_empty());
    // Strides into the elements kept, whose summarised axes hold twice `EDGE_ITEMS`.
    let mut strides = vec![1; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * kept_len(shape[axis + 1], v.summarised);
    }
    let layout = Layout { shape, strides: &strides, elems: &v.elems, format: &format, sep, summarised: v.summarised };
    let hanging = " ".repeat(1 + prefix.len());
    layout.axis_text(0, 0, &hanging, width as isize)
}

/// How many entries of an axis of `len` the kept elements hold.
fn kept_len(len: usize, summarised: bool) -> usize {
    if summarised && len > 2 * EDGE_ITEMS {
        2 * EDGE_ITEMS
    } else {
        len
    }
}

struct Layout<'a> {
    shape: &'a [usize],
    strides: &'a [usize],
    elems: &'a [Elem],
    format: &'a ElemFormat,
    sep: &'a str,
    summarised: bool,
}

impl Layout<'_> {
    /// The sub-array at `offset` from `axis` on: a row of words wrapped at `width` on the
    /// last axis, rows separated by newlines (one more per axis left) above it.
    fn axis_text(&self, axis: usize, offset: usize, hanging: &str, width: isize) -> String {
        if axis == self.shape.len() {
            return self.format.format(self.elems[offset]);
        }
        let next_hanging = format!("{hanging} ");
        // The closing bracket takes a column from every nested line.
        let next_width = width - 1;
        let len = self.shape[axis];
        let stride = self.strides[axis];
        let summary = self.summarised && 2 * EDGE_ITEMS < len;
        // Positions among the kept entries: `EDGE_ITEMS` each side of the `...`, or all.
        let len = kept_len(len, self.summarised);
        let (leading, trailing) = if summary { (EDGE_ITEMS, EDGE_ITEMS) } else { (0, len) };
        let sub = |i: usize| self.axis_text(axis + 1, offset + i * stride, &next_hanging, next_width);
        let mut s = String::new();
        if axis + 1 == self.shape.len() {
            let elem_width = width - self.sep.trim_end().len().max(1) as isize;
            let mut line = hanging.to_string();
            for i in 0..leading {
                extend_line(&mut s, &mut line, &sub(i), elem_width, hanging);
                line += self.sep;
            }
            if summary {
                extend_line(&mut s, &mut line, "...", elem_width, hanging);
                line += self.sep;
            }
            for i in len - trailing..len - 1 {
                extend_line(&mut s, &mut line, &sub(i), elem_width, hanging);
                line += self.sep;
            }
            extend_line(&mut s, &mut line, &sub(len - 1), elem_width, hanging);
            s += &line;
        } else {
            let line_sep = format!("{}{}", self.sep.trim_end(), "\n".repeat(self.shape.len() - axis - 1));
            for i in 0..leading {
                s += hanging;
                s += &sub(i);
                s += &line_sep;
            }
            if summary {
                s += hanging;
                s += "...";
                s += &line_sep;
            }
            for i in len - trailing..len - 1 {
                s += hanging;
                s += &sub(i);
                s += &line_sep;
            }
            s += hanging;
            s += &sub(len - 1);
        }
        format!("[{}]", &s[hanging.len()..])
    }
}

/// Appends `word` to `line`, first moving to a new line (started by `hanging`) when the
/// word would pass `width` and the line holds more than its indent.
fn extend_line(s: &mut String, line: &mut String, word: &str, width: isize, hanging: &str) {
    let wrap = (line.len() + word.len()) as isize > width && line.len() > hanging.len();
    if wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = hanging.to_string();
    }
    line.push_str(word);
}

// ---------------------------------------------------------------------------------------
// Element formats: one width for every element of an array.

enum ElemFormat {
    /// Right-aligned to the widest of the shown elements.
    Int {
        width: usize,
    },
    /// `True` padded to `False`'s width, except in a 0-d array.
    Bool {
        padded: bool,
    },
    Float(FloatFormat),
}

impl ElemFormat {
    fn new(kind: Kind, shown: &[Elem], zero_d: bool) -> ElemFormat {
        match kind {
            Kind::Float(k) => {
                let values: Vec<f64> = shown.iter().map(|&e| elem_f64(e)).collect();
                return ElemFormat::Float(FloatFormat::new(k, &values));
            }
            Kind::Bool => return ElemFormat::Bool { padded: !zero_d },
            Kind::Int => {}
        }
        let ints = shown.iter().map(|&e| match e {
            Elem::Int(i) => i,
            other => elem_f64(other) as i64,
        });
        let (lo, hi) = ints.fold((i64::MAX, i64::MIN), |(lo, hi), i| (lo.min(i), hi.max(i)));
        let width = if shown.is_empty() { 0 } else { lo.to_string().len().max(hi.to_string().len()) };
        ElemFormat::Int { width }
    }

    fn format(&self, e: Elem) -> String {
        match self {
            ElemFormat::Int { width } => {
                let text = match e {
                    Elem::Int(i) => i.to_string(),
                    other => (elem_f64(other) as i64).to_string(),
                };
                format!("{text:>width$}")
            }
            ElemFormat::Bool { padded } => match (e, padded) {
                (Elem::Bool(false), _) => "False".into(),
                (_, true) => " True".into(),
                (_, false) => "True".into(),
            },
            ElemFormat::Float(f) => f.format(elem_f64(e)),
        }
    }
}

fn elem_f64(e: Elem) -> f64 {
    match e {
        Elem::Float(x) => x,
        Elem::Int(i) => i as f64,
        Elem::Bool(b) => b as u8 as f64,
    }
}

/// The precision a float dtype's values are stored at: digits are the fewest that read back
/// as the same value of that type.
#[derive(Clone, Copy, PartialEq, Debug)]
enum FloatKind {
    Half,
    Single,
    Double,
}

impl FloatKind {
    fn of(dtype: &str) -> FloatKind {
        match dtype {
            "float16" => FloatKind::Half,
            "float32" => FloatKind::Single,
            _ => FloatKind::Double,
        }
    }

    /// `x` rounded to this type (NumPy compares and divides in the array's own dtype).
    fn round(self, x: f64) -> f64 {
        match self {
            FloatKind::Half => round_to_half(x),
            FloatKind::Single => x as f32 as f64,
            FloatKind::Double => x,
        }
    }

    /// From this magnitude on, an array prints in scientific notation: 10 to the power of
    /// the type's decimal precision (`finfo(dtype).precision`), at most 1e8.
    fn exp_cutoff(self) -> f64 {
        match self {
            FloatKind::Half => 1e3,
            FloatKind::Single => 1e6,
            FloatKind::Double => 1e8,
        }
    }

    /// From this magnitude on, a scalar prints in scientific notation: 10 to the power of the
    /// type's decimal precision for float16 and float32, 1e16 (as Python's float) for float64.
    fn scalar_exp_cutoff(self) -> f64 {
        match self {
            FloatKind::Half => 1e3,
            FloatKind::Single => 1e6,
            FloatKind::Double => 1e16,
        }
    }
}

/// The nearest float16 to `x` (ties to even), as an f64.
fn round_to_half(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let a = x.abs();
    // Halfway between float16's largest finite value (65504) and the next step rounds up.
    if a >= 65520.0 {
        return f64::INFINITY.copysign(x);
    }
    let exp = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(-14);
    let ulp = 2f64.powi(exp - 10);
    ((a / ulp).round_ties_even() * ulp).copysign(x)
}

/// How one array's floats print: positional (`12.5  `) or scientific (`1.25e+01`), with the
/// integer part padded to `pad_left` and the fraction (or mantissa fraction and exponent)
/// to `pad_right`.
struct FloatFormat {
    kind: FloatKind,
    scientific: bool,
    pad_left: usize,
    pad_right: usize,
    /// Scientific only: the mantissa's fraction digits and the exponent's digits.
    mantissa_digits: usize,
    exp_digits: usize,
}

impl FloatFormat {
    fn new(kind: FloatKind, values: &[f64]) -> FloatFormat {
        let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let nonzero = finite.iter().filter(|&&x| x != 0.0).map(|x| x.abs());
        let (min, max) = nonzero.fold((f64::INFINITY, 0.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
        // NumPy goes scientific when the values span more than 1000x or are very large or
        // very small (compared in the array's dtype).
        let scientific =
            max > 0.0 && (max >= kind.exp_cutoff() || min < kind.round(1e-4) || kind.round(max / min) > 1000.0);
        let mut f = FloatFormat { kind, scientific, pad_left: 0, pad_right: 0, mantissa_digits: 0, exp_digits: 0 };
        if !finite.is_empty() {
            if scientific {
                for &x in &finite {
                    let d = capped_scientific(x, kind, PRECISION);
                    f.pad_left = f.pad_left.max(1 + d.neg as usize);
                    f.mantissa_digits = f.mantissa_digits.max(d.digits.len() - 1);
                    f.exp_digits = f.exp_digits.max(exponent_text(d.exp).len() - 1);
                }
                f.pad_right = f.exp_digits + 2 + f.mantissa_digits;
            } else {
                for &x in &finite {
                    let (int, frac) = positional_parts(&capped_positional(x, kind));
                    f.pad_left = f.pad_left.max(int.len());
                    f.pad_right = f.pad_right.max(frac.len());
                }
            }
        }
        // nan and inf right-align in the same width, which they may widen.
        if finite.len() != values.len() {
            let neg_inf = values.contains(&f64::NEG_INFINITY) as usize;
            let offset = f.pad_right + 1;
            f.pad_left = f.pad_left.max((3 + neg_inf).saturating_sub(offset));
        }
        f
    }

    fn format(&self, x: f64) -> String {
        let width = self.pad_left + self.pad_right + 1;
        if !x.is_finite() {
            return format!("{:>width$}", nonfinite_text(x));
        }
        if self.scientific {
            let mut d = capped_scientific(x, self.kind, self.mantissa_digits);
            // Digits past the shortest are x's own (rounded), not zeros: a float32's
            // 0.008583508 prints as 8.5835084e-03 beside a value needing 7 digits.
            if d.digits.len() - 1 < self.mantissa_digits {
                d = parse_exp_text(&format!("{:.*e}", self.mantissa_digits, x));
            }
            let sign = if d.neg { "-" } else { "" };
            let mut frac: String = d.digits[1..].iter().map(|&b| b as char).collect();
            while frac.len() < self.mantissa_digits {
                frac.push('0');
            }
            let exp = exponent_text(d.exp);
            let exp = format!("{}{:0>w$}", &exp[..1], &exp[1..], w = self.exp_digits);
            let int = format!("{sign}{}", d.digits[0] as char);
            format!("{int:>w$}.{frac}e{exp}", w = self.pad_left)
        } else {
            let (int, frac) = positional_parts(&capped_positional(x, self.kind));
            format!("{int:>l$}.{frac:<r$}", l = self.pad_left, r = self.pad_right)
        }
    }
}

fn nonfinite_text(x: f64) -> &'static str {
    if x.is_nan() {
        "nan"
    } else if x > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// An exponent as NumPy writes it: sign always, at least two digits (`+05`, `-123`).
fn exponent_text(exp: i32) -> String {
    format!("{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
}

/// A Python float's str for a NumPy scalar of `kind`: the shortest digits that read back as
/// the same value of that type, positional from 1e-4 up to the type's cutoff (`0.1`, `3.0`),
/// scientific outside (`1e-05`, `1.5e+16`, a float32's `1e+06`).
fn scalar_float_str(x: f64, kind: FloatKind) -> String {
    if !x.is_finite() {
        return nonfinite_text(x).into();
    }
    let d = shortest(x, kind);
    let a = x.abs();
    if a == 0.0 || (1e-4..kind.scalar_exp_cutoff()).contains(&a) {
        let (int, frac) = positional_parts(&d);
        let frac = if frac.is_empty() { "0".to_string() } else { frac };
        format!("{int}.{frac}")
    } else {
        let sign = if d.neg { "-" } else { "" };
        let frac: String = d.digits[1..].iter().map(|&b| b as char).collect();
        let point = if frac.is_empty() { "" } else { "." };
        format!("{sign}{}{point}{frac}e{}", d.digits[0] as char, exponent_text(d.exp))
    }
}

// ---------------------------------------------------------------------------------------
// Decimal digits: the shortest that read back, cut to at most `PRECISION` digits.

/// `±d.ddd × 10^exp`, without trailing zeros (zero is the digit `0`).
#[derive(Clone, Debug, PartialEq)]
struct Digits {
    neg: bool,
    digits: Vec<u8>,
    exp: i32,
}

/// Parses Rust's `{:e}` text (`-1.25e-3`) into digits, trailing zeros dropped.
fn parse_exp_text(text: &str) -> Digits {
    let neg = text.starts_with('-');
    let (mantissa, exp) = text.trim_start_matches('-').split_once('e').unwrap_or((text, "0"));
    let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    let exp = if digits == [b'0'] { 0 } else { exp.parse().unwrap_or(0) };
    Digits { neg, digits, exp }
}

fn digits_value(d: &Digits) -> f64 {
    let text: String = d.digits.iter().map(|&b| b as char).collect();
    let v: f64 = format!("{}.{}e{}", &text[..1], &text[1..], d.exp).parse().unwrap_or(f64::NAN);
    if d.neg {
        -v
    } else {
        v
    }
}

/// The fewest significant digits that read back as `x` in `kind`; of two such texts equally
/// near `x`, the one ending in an even digit (as NumPy's Dragon4 and CPython choose).
fn shortest(x: f64, kind: FloatKind) -> Digits {
    let d = match kind {
        FloatKind::Double => parse_exp_text(&format!("{x:e}")),
        FloatKind::Single => parse_exp_text(&format!("{:e}", x as f32)),
        FloatKind::Half => half_shortest(x),
    };
    if x == 0.0 {
        return Digits { neg: x.is_sign_negative(), digits: vec![b'0'], exp: 0 };
    }
    even_of_tie(d, x, kind)
}

/// A float16's shortest digits: at the fewest digits where a decimal next to `x` reads back
/// as `x`, the nearest such (ties to even). The decimals on both sides are tried, since at a
/// power of two the values below lie closer than those above.
fn half_shortest(x: f64) -> Digits {
    let a = x.abs();
    for p in 1..=17 {
        let text = format!("{:.*e}", p - 1, a);
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let m: u64 = mantissa.replace('.', "").parse().unwrap_or(0);
        let scale = exp.parse::<i32>().unwrap_or(0) - (p as i32 - 1);
        let best = [m.saturating_sub(1), m, m + 1]
            .into_iter()
            .filter(|&c| c > 0)
            .map(|c| (c, format!("{c}e{scale}").parse::<f64>().unwrap_or(f64::NAN)))
            .filter(|&(_, v)| round_to_half(v) == a)
            .min_by(|(c1, v1), (c2, v2)| {
                let (d1, d2) = ((v1 - a).abs(), (v2 - a).abs());
                d1.total_cmp(&d2).then((c1 % 2).cmp(&(c2 % 2)))
            });
        if let Some((c, _)) = best {
            let text = c.to_string();
            let exp = scale + text.len() as i32 - 1;
            let digits = text.trim_end_matches('0').as_bytes().to_vec();
            return Digits { neg: x.is_sign_negative(), digits, exp };
        }
    }
    parse_exp_text(&format!("{x:e}"))
}

/// When `x` lies exactly halfway between `d` and its neighbour at the same length and both
/// read back as `x`, the one whose last digit is even.
fn even_of_tie(d: Digits, x: f64, kind: FloatKind) -> Digits {
    let n = d.digits.len();
    if (d.digits[n - 1] - b'0').is_multiple_of(2) {
        return d;
    }
    // x's exact digits well past the n-th: a tie is a 5 and then only zeros.
    let exact = parse_exp_text(&format!("{:.*e}", n + 40, x));
    if exact.exp != d.exp || exact.digits.len() != n + 1 || exact.digits[n] != b'5' {
        return d;
    }
    let low = exact.digits[..n].to_vec();
    let other = if low == d.digits {
        let mut high = low;
        if crate::runtime::numeric::increment_decimal(&mut high) {
            return d;
        }
        high
    } else {
        low
    };
    let mut candidate = Digits { neg: d.neg, digits: other, exp: d.exp };
    while candidate.digits.len() > 1 && candidate.digits.last() == Some(&b'0') {
        candidate.digits.pop();
    }
    if kind.round(digits_value(&candidate)) == x {
        candidate
    } else {
        d
    }
}

/// Scientific digits of `x`: the shortest, or `x` rounded (ties to even) to `frac` digits
/// after the mantissa's point when the shortest needs more.
fn capped_scientific(x: f64, kind: FloatKind, frac: usize) -> Digits {
    let d = shortest(x, kind);
    if d.digits.len() - 1 <= frac {
        return d;
    }
    parse_exp_text(&format!("{:.*e}", frac, x))
}

/// Positional digits of `x`: the shortest, or `x` rounded (ties to even) to `PRECISION`
/// digits after the point when the shortest needs more.
fn capped_positional(x: f64, kind: FloatKind) -> Digits {
    let d = shortest(x, kind);
    let frac = d.digits.len() as i32 - 1 - d.exp;
    if frac <= PRECISION as i32 {
        return d;
    }
    let neg = x.is_sign_negative();
    let text = format!("{:.*}", PRECISION, x.abs());
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let all: String = format!("{int}{frac}");
    let lead = all.bytes().take_while(|&b| b == b'0').count();
    if lead == all.len() {
        return Digits { neg, digits: vec![b'0'], exp: 0 };
    }
    let mut digits: Vec<u8> = all.bytes().skip(lead).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    Digits { neg, digits, exp: int.len() as i32 - 1 - lead as i32 }
}

/// The signed integer part and the fraction digits of positional digits (`-12`, `5`).
fn positional_parts(d: &Digits) -> (String, String) {
    let sign = if d.neg { "-" } else { "" };
    let text: String = d.digits.iter().map(|&b| b as char).collect();
    if d.exp < 0 {
        let zeros = "0".repeat((-d.exp - 1) as usize);
        return (format!("{sign}0"), if text == "0" { String::new() } else { format!("{zeros}{text}") });
    }
    let point = d.exp as usize + 1;
    if text.len() <= point {
        (format!("{sign}{text}{}", "0".repeat(point - text.len())), String::new())
    } else {
        (format!("{sign}{}", &text[..point]), text[point..].to_string())
    }
}

#[cfg(test)]
#[path = "numpy_tests.rs"]
mod tests;
