//! The only place values become text (docs/language.md §3): `str`, `repr`,
//! float formatting, tensor printing with summarisation, f-string specs.

use super::value::Value;
use super::Interp;
use crate::bail;
use crate::error::R;
use crate::intern::intern;
use crate::tensor::{Array, DType};

mod fields;
// The NumPy array value's printing; its callers arrive with that value.
#[allow(dead_code)]
pub(crate) mod numpy;
mod percent;
pub use percent::ascii;
mod printable;
mod spec;
pub mod tape;
mod wide;

pub use wide::wide_repr;

/// Tensors with more elements than this print summarised (docs/language.md §3).
const SUMMARY_THRESHOLD: usize = 1000;
/// Entries kept at each end of each axis when summarised.
const EDGE_ITEMS: usize = 3;

pub use crate::tensor::scalar::{fmt_f32, fmt_f64};

fn fmt_elem(a: &Array, i: usize) -> String {
    match a {
        Array::F32(x) => fmt_f32(x.as_slice_memory_order().map_or_else(|| *x.iter().nth(i).unwrap(), |s| s[i])),
        Array::F64(x) => fmt_f64(x.as_slice_memory_order().map_or_else(|| *x.iter().nth(i).unwrap(), |s| s[i])),
        Array::F16(x) => crate::tensor::scalar::fmt_f16(*x.iter().nth(i).unwrap()),
        Array::U8(x) => x.iter().nth(i).unwrap().to_string(),
        Array::I8(x) => x.iter().nth(i).unwrap().to_string(),
        Array::I16(x) => x.iter().nth(i).unwrap().to_string(),
        Array::I32(x) => x.iter().nth(i).unwrap().to_string(),
        Array::I64(x) => x.iter().nth(i).unwrap().to_string(),
        Array::Bool(x) => {
            if *x.iter().nth(i).unwrap() {
                "True".into()
            } else {
                "False".into()
            }
        }
    }
}

/// A tensor's values on one line: `[[1.0, 2.0], [3.0, 4.0]]`, summarised past 1,000 elements.
pub fn tensor_text(a: &Array) -> String {
    let std = standard_layout(a);
    let shape = std.shape().to_vec();
    if shape.is_empty() {
        return fmt_elem(&std, 0);
    }
    let summarise = std.len() > SUMMARY_THRESHOLD;
    let mut out = String::new();
    write_axis(&std, &shape, 0, 0, summarise, &mut out);
    out
}

/// A row-major copy of `a`, so that a flat index walks it in print order.
fn standard_layout(a: &Array) -> Array {
    crate::map_dtype!(a, x => x.as_standard_layout().into_owned())
}

fn write_axis(a: &Array, shape: &[usize], axis: usize, offset: usize, summarise: bool, out: &mut String) {
    let n = shape[axis];
    let stride: usize = shape[axis + 1..].iter().product();
    let indices: Vec<Option<usize>> = if summarise && n > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS).map(Some).chain([None]).chain((n - EDGE_ITEMS..n).map(Some)).collect()
    } else {
        (0..n).map(Some).collect()
    };
    out.push('[');
    for (k, i) in indices.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        match i {
            None => out.push_str("..."),
            Some(i) if axis + 1 == shape.len() => out.push_str(&fmt_elem(a, offset + i)),
            Some(i) => write_axis(a, shape, axis + 1, offset + i * stride, summarise, out),
        }
    }
    out.push(']');
}

fn tensor_repr(a: &Array) -> String {
    match a.dtype() {
        DType::F32 => format!("tensor({})", tensor_text(a)),
        d => format!("tensor({}, dtype={})", tensor_text(a), d),
    }
}

impl Interp {
    /// `str(v)`
    pub fn str_of(&mut self, v: &Value) -> R<String> {
        Ok(match v {
            Value::Str(s) => s.to_string(),
            Value::Tensor(t) => super::trace::symbolic_text(t).unwrap_or_else(|| tensor_text(&t.data)),
            Value::Variable(var) => tensor_text(&var.peek().data),
            Value::NdArray(n) => n.str(),
            Value::NpDType(d) => d.name().into(),
            Value::Exception(e) => e.message().to_string(),
            // The summary table (its first and last rows for a long tape); repr stays short.
            Value::Tape(t) => self.tape_summary(&t.borrow(), Some(tape::STR_ROWS)),
            Value::Instance(_) => match self.user_text(v, "__str__")? {
                Some(s) => s,
                None => match self.exception_args(v) {
                    Some(args) => {
                        let kind = match v {
                            Value::Instance(i) => i.class.error_kind.unwrap_or(crate::error::ErrorKind::Exception),
                            _ => crate::error::ErrorKind::Exception,
                        };
                        self.exception_text(kind, &args)?
                    }
                    None => self.repr_of(v)?,
                },
            },
            other => self.repr_of(other)?,
        })
    }

    /// `repr(v)`
    pub fn repr_of(&mut self, v: &Value) -> R<String> {
        if matches!(v, Value::List(_) | Value::Tuple(_) | Value::Dict(_) | Value::Set(_) | Value::FrozenSet(_)) {
            // A container already being printed is shown as `[...]` / `{...}` (as Python);
            // an absurdly deep one is a RecursionError, not a native stack overflow.
            let id = v.identity();
            if self.run.printing.contains(&id) {
                return Ok(if matches!(v, Value::Dict(_)) { "{...}" } else { "[...]" }.into());
            }
            self.run.printing.push(id);
            let r = self.nested("while printing a nested container", |rt| rt.repr_value(v));
            self.run.printing.pop();
            return r;
        }
        self.repr_value(v)
    }

    fn repr_value(&mut self, v: &Value) -> R<String> {
        Ok(match v {
            Value::None => "None".into(),
            Value::Bool(b) => {
                if *b {
                    "True".into()
                } else {
                    "False".into()
                }
            }
            Value::Int(i) => i.to_string(),
            Value::Float(f) => fmt_f64(*f),
            Value::Complex(re, im) => super::complex::repr(*re, *im),
            Value::Str(s) => str_repr(s),
            Value::List(l) => {
                let items = l.borrow().clone();
                format!("[{}]", self.join_reprs(&items)?)
            }
            Value::Tuple(t) => match t.len() {
                1 => format!("({},)", self.repr_of(&t[0])?),
                _ => format!("({})", self.join_reprs(t)?),
            },
            // A TensorShape prints as its tuple everywhere (`(2, 3)`, in a list too), as the
            // language's contract has it (docs/language.md §4; TF's repr is `TensorShape([2, 3])`).
            Value::Shape(d) => self.repr_of(&Value::Tuple(d.clone()))?,
            // `{1, 2}`; the empty set has no display of its own.
            // A frozenset wraps the display: `frozenset({1, 2})`, `frozenset()`.
            Value::Set(x) | Value::FrozenSet(x) => {
                let items: Vec<Value> = x.borrow().values().cloned().collect();
                let name = if matches!(v, Value::Set(_)) { "set" } else { "frozenset" };
                match (items.is_empty(), name) {
                    (true, _) => format!("{name}()"),
                    (false, "set") => format!("{{{}}}", self.join_reprs(&items)?),
                    (false, _) => format!("{name}({{{}}})", self.join_reprs(&items)?),
                }
            }
            Value::Generator(g) if g.is_generator() => format!("<generator object {}>", g.name),
            Value::Generator(g) => format!("<{} object>", g.type_name()),
            Value::Dict(d) => {
                let items: Vec<(Value, Value)> = d.borrow().values().cloned().collect();
                let mut parts = Vec::with_capacity(items.len());
                for (k, v) in items {
                    parts.push(format!("{}: {}", self.repr_of(&k)?, self.repr_of(&v)?));
                }
                format!("{{{}}}", parts.join(", "))
            }
            Value::Range(r) => {
                let [a, b, s] = **r;
                if s == 1 {
                    format!("range({a}, {b})")
                } else {
                    format!("range({a}, {b}, {s})")
                }
            }
            Value::Slice(s) => {
                format!("slice({}, {}, {})", self.repr_of(&s[0])?, self.repr_of(&s[1])?, self.repr_of(&s[2])?)
            }
            Value::Ellipsis => "Ellipsis".into(),
            Value::Func(f) => format!("<function {}>", f.def.name),
            // NumPy's types print with their module (`<class 'numpy.ndarray'>`).
            Value::Builtin(b)
                if matches!(b.kind, super::value::BuiltinKind::Type)
                    && super::value::NUMPY_TYPES.contains(&&*b.name) =>
            {
                format!("<class 'numpy.{}'>", b.name)
            }
            Value::Builtin(b) if super::value::is_type_object(b) => {
                format!("<class '{}'>", b.name)
            }
            Value::Builtin(b) => match &b.kind {
                // A method read on its type: `str.upper`.
                super::value::BuiltinKind::Method(Value::Builtin(t), _) if super::value::is_type_object(t) => {
                    format!("<method '{}' of '{}' objects>", b.name, t.name)
                }
                _ => format!("<built-in function {}>", b.name),
            },
            Value::Method(m) => {
                let name = match &m.1 {
                    Value::Func(f) => f.def.name.name(),
                    _ => "?".into(),
                };
                format!("<bound method {} of {} object>", name, m.0.type_name())
            }
            Value::Class(c) => format!("<class '{}'>", c.name),
            Value::Instance(i) => match self.user_text(v, "__repr__")? {
                Some(s) => s,
                None => match self.exception_args(v) {
                    Some(args) => {
                        let mut parts = Vec::with_capacity(args.len());
                        for a in &args {
                            parts.push(self.repr_of(a)?);
                        }
                        format!("{}({})", i.class.name, parts.join(", "))
                    }
                    None => format!("<{} object>", i.class.name),
                },
            },
            Value::Module(m) => format!("<module '{}'>", m.name),
            Value::Tensor(t) => super::trace::symbolic_repr(t).unwrap_or_else(|| tensor_repr(&t.data)),
            Value::NdArray(n) => n.repr(),
            Value::Variable(var) => {
                let t = var.peek();
                let mut s = format!("Variable({}", tensor_text(&t.data));
                if t.dtype() != DType::F32 {
                    s.push_str(&format!(", dtype={}", t.dtype()));
                }
                if let Some(n) = &var.name {
                    s.push_str(&format!(", name={}", str_repr(n)));
                }
                s.push(')');
                s
            }
            Value::Tape(_) => "<GradientTape>".into(),
            Value::StopRecording(_) => "<stop_recording>".into(),
            Value::Accumulator(_) => "<ForwardAccumulator>".into(),
            Value::DType(d) if self.config().tf_dtypes() => format!("<dtype: '{}'>", d.name()),
            Value::DType(d) => d.name().into(),
            Value::NpDType(d) => format!("dtype('{}')", d.name()),
            Value::ErrorType(k) => format!("<class '{}'>", k.name()),
            Value::Exception(e) => {
                let args = super::value::exception_args(e);
                format!("{}({})", e.kind().name(), self.join_reprs(&args)?)
            }
            Value::Property(_) => "<property>".into(),
            Value::Super(s) => format!("<super: {}>", s.0.name),
            Value::File(f) => {
                format!("<_io.TextIOWrapper name={} mode={} encoding='UTF-8'>", str_repr(&f.name), str_repr(&f.mode))
            }
        })
    }

    fn join_reprs(&mut self, items: &[Value]) -> R<String> {
        let mut parts = Vec::with_capacity(items.len());
        for x in items {
            parts.push(self.repr_of(x)?);
        }
        Ok(parts.join(", "))
    }

    /// The KeyError for a missing `key`: its message is the key's repr and its `args` the
    /// key itself, as CPython's (`KeyError('k')`, printed `'k'`).
    pub fn key_error(&mut self, key: &Value) -> crate::error::Exc {
        let mut e = match self.repr_of(key) {
            Ok(r) => crate::error::Exc::new(crate::error::ErrorKind::Key, r),
            Err(e) => return e,
        };
        super::value::set_exception_args(&mut e, vec![key.clone()]);
        e
    }

    /// `str()` of an exception constructed with `args`: nothing, the one argument's str
    /// (its repr for a KeyError, which names a key), or the tuple's repr, as CPython.
    pub fn exception_text(&mut self, kind: crate::error::ErrorKind, args: &[Value]) -> R<String> {
        match args {
            [] => Ok(String::new()),
            [one] if kind.is_a(crate::error::ErrorKind::Key) => self.repr_of(one),
            [one] => self.str_of(one),
            _ => self.repr_of(&Value::tuple(args.to_vec())),
        }
    }

    /// The `args` of an instance of an exception class.
    fn exception_args(&mut self, v: &Value) -> Option<Vec<Value>> {
        let Value::Instance(i) = v else { return None };
        i.class.error_kind?;
        match i.attrs.borrow().get(&intern("args")) {
            Some(Value::Tuple(t)) => Some(t.to_vec()),
            _ => Some(Vec::new()),
        }
    }

    /// A user class's `__str__`/`__repr__`, if it defines one.
    fn user_text(&mut self, v: &Value, method: &str) -> R<Option<String>> {
        let Value::Instance(i) = v else { return Ok(None) };
        if i.class.lookup(intern(method)).is_none() {
            return Ok(None);
        }
        let m = self.get_attr(v, intern(method))?;
        match self.call_value(&m, vec![], vec![])? {
            Value::Str(s) => Ok(Some(s.to_string())),
            other => bail!(Type, "{} returned non-string (type {})", method, other.type_name()),
        }
    }

    /// One f-string field: `{v}`, `{v!r}`, `{v:.4f}`; `str.format` fields too.
    ///
    /// A spec follows Python's format-spec mini-language (see `spec.rs`); a
    /// one-element tensor formats as its Python number.
    /// Errors: ValueError for a bad spec; TypeError for a spec on a value that
    /// is not a number or a string (as Python's `object.__format__`).
    pub fn format_field(&mut self, v: &Value, repr: bool, spec_text: &str) -> R<String> {
        if repr {
            let s = self.repr_of(v)?;
            return spec::format_str(&s, &spec::parse(spec_text, "str")?);
        }
        // A class's own `__format__(spec)` (docs/python.md "Classes").
        if let Some(r) = self.call_dunder(v, "__format__", vec![Value::str(spec_text)])? {
            return match r {
                Value::Str(s) => Ok(s.to_string()),
                other => bail!(Type, "__format__ must return a str, not {}", other.type_name()),
            };
        }
        if spec_text.is_empty() {
            return self.str_of(v);
        }
        let v = match v {
            Value::Tensor(_) | Value::Variable(_) => {
                let t = self.to_tensor(v, None)?;
                if t.len() != 1 {
                    bail!(
                        Type,
                        "unsupported format string passed to a tensor of shape {}",
                        crate::tensor::shape_str(t.shape())
                    );
                }
                Value::from_elem(t.data.first_elem())
            }
            // A NumPy scalar formats as its Python number; an array takes no spec (NumPy's).
            Value::NdArray(n) if n.scalar || n.data().shape().is_empty() => Value::from_elem(n.data().first_elem()),
            other => other.clone(),
        };
        let type_name = v.type_name();
        let parsed = spec::parse(spec_text, &type_name)?;
        match &v {
            Value::Int(i) => spec::format_int(*i, &parsed, &type_name),
            Value::Bool(b) => spec::format_int(*b as i64, &parsed, &type_name),
            Value::Float(x) => spec::format_float(*x, &parsed, &type_name),
            Value::Complex(re, im) => spec::format_complex(*re, *im, &parsed),
            Value::Str(s) => spec::format_str(s, &parsed),
            _ => bail!(Type, "unsupported format string passed to {type_name}.__format__"),
        }
    }
}

/// `'%.{precision}g' % x`: C's `printf("%.*g")` of a float, as Python's `%`-formatting writes
/// it (`1e-08`, `123456792`, `-0`, `nan`). tf.print writes its float elements so.
pub fn percent_g(x: f64, precision: usize) -> String {
    let spec = spec::Spec::printf_float(false, false, None, false, 0, precision, 'g');
    // A `g` spec is always valid: the fallback never shows.
    spec::format_float(x, &spec, "float").unwrap_or_else(|_| fmt_f64(x))
}

/// Python's `repr` of a string: single quotes unless the text has a single quote and no
/// double quote; backslash, the quote, tab, newline and carriage return escaped by name;
/// every other character that is not printable (see [`is_printable`]) as `\xNN`,
/// `\uNNNN` or `\UNNNNNNNN`, the shortest that holds it (docs/python.md "Builtins and modules").
/// Every repr of a str (containers, the REPL's echo, `!r`, messages) comes through here.
pub fn str_repr(s: &str) -> String {
    use std::fmt::Write;
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c if (c as u32) < 0x100 => write!(out, "\\x{:02x}", c as u32).unwrap_or(()),
            c if (c as u32) < 0x10000 => write!(out, "\\u{:04x}", c as u32).unwrap_or(()),
            c => write!(out, "\\U{:08x}", c as u32).unwrap_or(()),
        }
    }
    out.push(quote);
    out
}

/// CPython 3.11's `str.isprintable` for one character: false for the Unicode categories
/// "Other" (Cc, Cf, Cs, Co, Cn) and "Separator" (Zl, Zp, Zs) except the ASCII space, by
/// the table of Unicode 14.0 that tools/gen_unicode_printable.py generates.
pub fn is_printable(c: char) -> bool {
    let c = c as u32;
    if (0x20..0x7f).contains(&c) {
        return true;
    }
    let table = printable::NOT_PRINTABLE;
    // The last range starting at or before c holds it, if any does.
    let i = table.partition_point(|&(lo, _)| lo <= c);
    !(i > 0 && c <= table[i - 1].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_the_contract_says() {
        assert_eq!(fmt_f64(6.0), "6.0");
        assert_eq!(fmt_f64(0.1), "0.1");
        assert_eq!(fmt_f64(1e-8), "1e-8");
        assert_eq!(fmt_f64(1e20), "1e20");
        assert_eq!(fmt_f64(f64::NAN), "nan");
        assert_eq!(fmt_f64(f64::NEG_INFINITY), "-inf");
        assert_eq!(fmt_f64(0.1f32 as f64), "0.10000000149011612");
        assert_eq!(fmt_f32(0.1), "0.1");
        assert_eq!(fmt_f64(1e16), "1e16");
        assert_eq!(fmt_f64(123456789.0), "123456789.0");
    }

    #[test]
    fn large_tensors_are_summarised() {
        let a = Array::from_f64(DType::F32, &[1001], (0..1001).map(|i| i as f64).collect());
        assert_eq!(tensor_text(&a), "[0.0, 1.0, 2.0, ..., 998.0, 999.0, 1000.0]");
    }
}
