//! `printf`-style formatting, `"%d %s %.3f" % args` (Python's `str.__mod__`):
//! conversions `%[(key)][flags][width][.precision]type` with flags `-+ #0`, `*`
//! for a width or precision taken from the arguments, and the types
//! `d i u o x X e E f F g G c s r a %`, with CPython 3.11's output and messages.
//! Float conversions share the digit code of the format-spec mini-language (spec.rs).

use super::spec::{self, Spec, MAX_WIDTH};
use crate::error::R;
use crate::runtime::value::{HashKey, Value};
use crate::runtime::Interp;
use crate::{bail, err};

/// Where conversions take their values from.
enum Source {
    /// A tuple's items (or the one non-tuple value), in order.
    Items(Vec<Value>, usize),
    /// `%(key)s` with a dict.
    Map,
}

/// One conversion's flags.
#[derive(Default)]
struct Flags {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
}

impl Interp {
    /// `fmt % args`. A tuple supplies one value per conversion; a dict supplies
    /// `%(key)s` values (and is itself the value of a plain `%s`); any other value is
    /// the single argument.
    ///
    /// Errors: TypeError "not enough arguments for format string", "not all arguments
    /// converted during string formatting", "format requires a mapping", "%d format: a
    /// real number is required, not str"; ValueError "unsupported format character 'q'
    /// (0x71) at index 1", "incomplete format"; KeyError for a missing key.
    pub fn percent_format(&mut self, fmt: &str, args: &Value) -> R<String> {
        let items = match args {
            Value::Tuple(t) => t.to_vec(),
            other => vec![other.clone()],
        };
        let is_tuple = matches!(args, Value::Tuple(_));
        // CPython checks leftover arguments only when they are not a mapping or sequence-like value.
        let lenient = matches!(args, Value::Dict(_) | Value::List(_));
        let mut src = Source::Items(items, 0);
        let chars: Vec<char> = fmt.chars().collect();
        let mut out = String::with_capacity(fmt.len());
        let mut i = 0;
        let mut used_key = false;
        while i < chars.len() {
            if chars[i] != '%' {
                out.push(chars[i]);
                i += 1;
                continue;
            }
            i += 1;
            let at = |i: usize| chars.get(i).copied();
            // `%%` is a literal percent only as these two characters: with a key, flag, width,
            // precision or length between them, `%` is a conversion type that takes a value and
            // is unsupported, as in CPython.
            if at(i) == Some('%') {
                out.push('%');
                i += 1;
                continue;
            }
            let mut value_from_key = None;
            if at(i) == Some('(') {
                // A list counts as a mapping here, as in CPython (it has `__getitem__`), and fails
                // only at the lookup.
                if !lenient {
                    bail!(Type, "format requires a mapping");
                }
                // The key ends at the `)` that balances the opening one: "%(a(b))s" is key "a(b)".
                let mut depth = 0usize;
                let close = chars[i..]
                    .iter()
                    .position(|&c| {
                        depth = match c {
                            '(' => depth + 1,
                            ')' => depth - 1,
                            _ => depth,
                        };
                        depth == 0
                    })
                    .map(|p| p + i);
                let Some(close) = close else { bail!(Value, "incomplete format key") };
                let Value::Dict(d) = args else {
                    bail!(Type, "{} indices must be integers or slices, not str", args.type_name())
                };
                let key: String = chars[i + 1..close].iter().collect();
                let v = d.borrow().get(&HashKey::Str(key.as_str().into())).map(|(_, v)| v.clone());
                value_from_key = match v {
                    Some(v) => Some(v),
                    None => return Err(self.key_error(&Value::str(&key))),
                };
                used_key = true;
                src = Source::Map;
                i = close + 1;
            }
            let mut f = Flags::default();
            while let Some(c @ ('-' | '+' | ' ' | '#' | '0')) = at(i) {
                match c {
                    '-' => f.left = true,
                    '+' => f.plus = true,
                    ' ' => f.space = true,
                    '#' => f.alt = true,
                    _ => f.zero = true,
                }
                i += 1;
            }
            let width;
            if at(i) == Some('*') {
                let w = star_arg(&next_value(&mut src)?)?;
                if w < 0 {
                    f.left = true;
                }
                width = bounded(w.unsigned_abs() as usize)?;
                i += 1;
            } else {
                (width, i) = digits(&chars, i)?;
            }
            let mut precision = None;
            if at(i) == Some('.') {
                i += 1;
                if at(i) == Some('*') {
                    let p = star_arg(&next_value(&mut src)?)?;
                    precision = Some(bounded(p.max(0) as usize)?);
                    i += 1;
                } else {
                    let (p, next) = digits(&chars, i)?;
                    precision = Some(p);
                    i = next;
                }
            }
            // One of C's length modifiers is accepted and ignored, as CPython does ("%ld").
            if matches!(at(i), Some('h' | 'l' | 'L')) {
                i += 1;
            }
            let Some(ty) = at(i) else { bail!(Value, "incomplete format") };
            let type_index = i;
            i += 1;
            // The value is taken before the type is checked: "%5%" % () lacks an argument.
            let v = match value_from_key.take() {
                Some(v) => v,
                None => next_value(&mut src)?,
            };
            if !"diuoxXeEfFgGcsra".contains(ty) {
                // The index counts characters; a character outside printable ASCII shows as '?'.
                let shown = if (' '..='~').contains(&ty) { ty } else { '?' };
                bail!(Value, "unsupported format character '{shown}' (0x{:x}) at index {type_index}", ty as u32);
            }
            let text = self.convert(&v, ty, &f, width, precision)?;
            out.push_str(&text);
        }
        if let Source::Items(items, used) = &src {
            if !used_key && *used < items.len() && (is_tuple || !lenient) {
                bail!(Type, "not all arguments converted during string formatting");
            }
        }
        Ok(out)
    }

    /// One conversion of `v` by type `ty`.
    fn convert(&mut self, v: &Value, ty: char, f: &Flags, width: usize, precision: Option<usize>) -> R<String> {
        let sign = if f.plus {
            Some('+')
        } else if f.space {
            Some(' ')
        } else {
            None
        };
        let number = self.percent_number(v);
        match ty {
            'd' | 'i' | 'u' | 'o' | 'x' | 'X' => {
                let i = match number {
                    Some(Value::Int(i)) => i,
                    Some(Value::Float(x)) if matches!(ty, 'd' | 'i' | 'u') => crate::runtime::convert::float_to_int(x)?,
                    _ if matches!(ty, 'd' | 'i' | 'u') => {
                        bail!(Type, "%{ty} format: a real number is required, not {}", v.type_name())
                    }
                    _ => bail!(Type, "%{ty} format: an integer is required, not {}", v.type_name()),
                };
                Ok(int_text(i, ty, f, sign, width, precision))
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let x = match number {
                    Some(Value::Int(i)) => i as f64,
                    Some(Value::Float(x)) => x,
                    _ => bail!(Type, "must be real number, not {}", v.type_name()),
                };
                let spec = Spec::printf_float(f.left, f.zero, sign, f.alt, width, precision.unwrap_or(6), ty);
                spec::format_float(x, &spec, "float")
            }
            'c' => {
                let ch = match v {
                    Value::Int(i) => match u32::try_from(*i).ok().and_then(char::from_u32) {
                        Some(c) => c,
                        None => bail!(Overflow, "%c arg not in range(0x110000)"),
                    },
                    Value::Str(s) if s.chars().count() == 1 => s.chars().next().unwrap_or(' '),
                    _ => bail!(Type, "%c requires int or char"),
                };
                Ok(pad_text(ch.to_string(), f.left, width))
            }
            _ => {
                let text = match ty {
                    's' => self.str_of(v)?,
                    'a' => ascii(&self.repr_of(v)?),
                    _ => self.repr_of(v)?,
                };
                let text = match precision {
                    Some(p) => text.chars().take(p).collect(),
                    None => text,
                };
                Ok(pad_text(text, f.left, width))
            }
        }
    }

    /// A number's value for a numeric conversion: ints and bools as `Int`, floats
    /// and one-element float tensors and NumPy values as `Float` (an int one as `Int`).
    fn percent_number(&mut self, v: &Value) -> Option<Value> {
        match v {
            Value::Int(i) => Some(Value::Int(*i)),
            Value::Bool(b) => Some(Value::Int(*b as i64)),
            Value::Float(x) => Some(Value::Float(*x)),
            Value::Tensor(_) | Value::Variable(_) | Value::NdArray(_) => {
                let t = self.to_tensor(v, None).ok()?;
                (t.len() == 1).then(|| match t.data.first_elem() {
                    crate::tensor::Elem::Bool(b) => Value::Int(b as i64),
                    e => Value::from_elem(e),
                })
            }
            _ => None,
        }
    }
}

/// The next positional value. Errors: TypeError "not enough arguments for format string".
fn next_value(src: &mut Source) -> R<Value> {
    match src {
        Source::Items(items, used) => {
            let v = items.get(*used).cloned().ok_or_else(|| err!(Type, "not enough arguments for format string"))?;
            *used += 1;
            Ok(v)
        }
        Source::Map => bail!(Type, "not enough arguments for format string"),
    }
}

/// A `*` width or precision. Errors: TypeError "* wants int" (CPython's wording).
fn star_arg(v: &Value) -> R<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(*b as i64),
        _ => bail!(Type, "* wants int"),
    }
}

/// A decimal number at `chars[i]` (0 when there is none), bounded by [`MAX_WIDTH`].
fn digits(chars: &[char], mut i: usize) -> R<(usize, usize)> {
    let mut n = 0usize;
    while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
        n = n.saturating_mul(10).saturating_add(d as usize);
        i += 1;
    }
    Ok((bounded(n)?, i))
}

fn bounded(n: usize) -> R<usize> {
    if n > MAX_WIDTH {
        bail!(Value, "format width or precision {n} is too large (the limit is {MAX_WIDTH})");
    }
    Ok(n)
}

/// `%d`, `%o`, `%x`, `%X`: sign, `#` prefix, digits zero-padded to the precision,
/// then the width (zeros after the sign and prefix with the `0` flag, unless `-`).
fn int_text(i: i64, ty: char, f: &Flags, sign: Option<char>, width: usize, precision: Option<usize>) -> String {
    let a = i.unsigned_abs();
    let (mut digits, prefix) = match ty {
        'o' => (format!("{a:o}"), "0o"),
        'x' => (format!("{a:x}"), "0x"),
        'X' => (format!("{a:X}"), "0X"),
        _ => (a.to_string(), ""),
    };
    if let Some(p) = precision {
        if digits.len() < p {
            digits = "0".repeat(p - digits.len()) + &digits;
        }
    }
    let sign = if i < 0 { "-".to_string() } else { sign.map(String::from).unwrap_or_default() };
    let head = format!("{sign}{}", if f.alt { prefix } else { "" });
    let len = head.len() + digits.len();
    if f.zero && !f.left && width > len {
        return format!("{head}{}{digits}", "0".repeat(width - len));
    }
    pad_text(head + &digits, f.left, width)
}

/// `text` padded with spaces to `width` characters, on the right when `left`.
fn pad_text(text: String, left: bool, width: usize) -> String {
    let n = width.saturating_sub(text.chars().count());
    if n == 0 {
        return text;
    }
    let fill = " ".repeat(n);
    if left {
        text + &fill
    } else {
        fill + &text
    }
}

/// `ascii()`: a repr with every non-ASCII character escaped (`\xe9`, `\u20ac`, `\U0001f600`).
pub fn ascii(repr: &str) -> String {
    let mut out = String::with_capacity(repr.len());
    for c in repr.chars() {
        match c as u32 {
            0..=0x7f => out.push(c),
            n @ 0x80..=0xff => out.push_str(&format!("\\x{n:02x}")),
            n @ 0x100..=0xffff => out.push_str(&format!("\\u{n:04x}")),
            n => out.push_str(&format!("\\U{n:08x}")),
        }
    }
    out
}
