//! TensorFlow's functions that have no bare DGL name, reached only through
//! `import tensorflow as tf` (docs/language.md §6): `tf.print`, and `tf.Variable`, DGL's
//! `Variable` with TF's names. They are declared under the
//! key `tf.name` (builtins::declared) and live in the native module `_tf_native`.

use super::Native;
use crate::error::R;
use crate::runtime::file::{FileObj, Stream};
use crate::runtime::format::percent_g;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::Array;
use crate::{bail, err};

/// The TF-only natives, for `declared()` (keys `tf.print`, …).
pub(super) const NATIVES: [&Native; 2] = [&TF_PRINT, &TF_VARIABLE];

static TF_VARIABLE: Native =
    Native::with("Variable", super::autodiff_fns::VARIABLE_SIG, |rt, a| super::autodiff_fns::variable(rt, a, true))
        .spelled(&["tf.Variable"]);

/// The native module `_tf_native` that `tf.print` and the other TF-only names are bound from
/// (builtins/modules/foreign.rs).
pub(crate) fn build(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    Ok(NATIVES.iter().map(|n| (n.name, n.value())).collect())
}

static TF_PRINT: Native = Native::new(
    "print",
    &["*inputs", "output_stream=sys.stderr", "summarize: int = 3", "sep=' '", "end='\\n'", "name=None"],
    tf_print,
)
.spelled(&["tf.print"]);

/// `tf.print(*inputs, output_stream=sys.stderr, summarize=3, sep=' ', end='\n')`: writes the
/// inputs as TF's PrintV2 does. A tensor (or Variable) prints as TF's summary: `[1 2.5]`,
/// rows on lines of their own, at most `summarize` entries at each end of each axis with `...`
/// between (`summarize=-1`: all), float32 elements as C's `%.6g` (`%.9g` when that does not
/// read back), float64 as `%.15g` (`%.17g`), bools as `1`/`0`. A string prints as it is; a
/// list, tuple or dict prints as Python's `str`, with the tensors in it as their summaries.
///
/// In a notebook (the Jupyter kernel) the default stream is standard output, as TF's
/// interactive logging makes it under IPython.
///
/// Errors: TypeError when `output_stream` is not an open file (`sys.stdout`, `sys.stderr` or
/// one from `open`), or `sep`/`end` is not a string.
fn tf_print(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = TF_PRINT.bind(rt, args)?;
    let stream = a.non_none("output_stream")?;
    let limit = a.int_or("summarize", 3)?;
    let (sep, end) = (a.non_none("sep")?, a.non_none("end")?);
    let _ = a.opt("name")?;
    let inputs = std::mem::take(&mut a.rest);
    let text_of = |v: Option<Value>, what: &str, default: &str| match v {
        None => Ok(default.to_string()),
        Some(Value::Str(s)) => Ok(s.to_string()),
        Some(other) => Err(err!(Type, "tf.print() {what} must be a string, not {}", other.type_name())),
    };
    let (sep, end) = (text_of(sep, "sep", " ")?, text_of(end, "end", "\n")?);
    let limit = usize::try_from(limit).ok();
    let mut parts = Vec::with_capacity(inputs.len());
    for v in &inputs {
        parts.push(match v {
            Value::Str(s) => s.to_string(),
            v => printed(rt, v, limit)?,
        });
    }
    let text = parts.join(&sep) + &end;
    match stream {
        // In a notebook TF's interactive logging sends it to standard output, as here.
        None if rt.interactive_logging() => rt.file_write(&FileObj::new("<stdout>", "w", Stream::Stdout), &text)?,
        None => rt.file_write(&FileObj::new("<stderr>", "w", Stream::Stderr), &text)?,
        Some(Value::File(f)) => rt.file_write(&f, &text)?,
        Some(other) => {
            bail!(Type, "tf.print() output_stream must be an open file such as sys.stdout, not {}", other.type_name())
        }
    };
    Ok(Value::None)
}

/// One input as tf.print writes it: a tensor's summary; a container as Python's `str` with
/// the tensors in it summarised; anything else as `str` at the top and `repr` inside.
fn printed(rt: &mut Interp, v: &Value, limit: Option<usize>) -> R<String> {
    match v {
        Value::Tensor(t) => Ok(summary(&t.data, limit)),
        Value::Variable(var) => Ok(summary(&var.peek().data, limit)),
        // A NumPy value is converted to a tensor first, as TF's PrintV2 input is.
        Value::NdArray(n) => Ok(summary(&n.data(), limit)),
        Value::List(_) | Value::Tuple(_) | Value::Dict(_) => inner(rt, v, limit),
        Value::Float(x) => Ok(python_float(*x)),
        v => rt.str_of(v),
    }
}

/// A Python float as CPython writes it, which is what tf.print writes: DGL's text with the
/// exponent signed and of two digits at least (`1e-08`, `1e+20`; docs/language.md §3 spells
/// them `1e-8`, `1e20`).
fn python_float(x: f64) -> String {
    let text = crate::tensor::scalar::fmt_f64(x);
    match text.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = exp.strip_prefix('-').map_or(('+', exp), |d| ('-', d));
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => text,
    }
}

/// A value inside a container: tensors summarised, other leaves as `repr`.
fn inner(rt: &mut Interp, v: &Value, limit: Option<usize>) -> R<String> {
    let items = |rt: &mut Interp, xs: &[Value]| -> R<Vec<String>> { xs.iter().map(|x| inner(rt, x, limit)).collect() };
    match v {
        Value::Tensor(_) | Value::Variable(_) | Value::NdArray(_) | Value::Float(_) => printed(rt, v, limit),
        Value::List(xs) => {
            let xs = xs.borrow().clone();
            Ok(format!("[{}]", items(rt, &xs)?.join(", ")))
        }
        Value::Tuple(xs) if xs.len() == 1 => Ok(format!("({},)", inner(rt, &xs[0], limit)?)),
        Value::Tuple(xs) => Ok(format!("({})", items(rt, xs)?.join(", "))),
        Value::Dict(d) => {
            let pairs: Vec<(Value, Value)> = d.borrow().values().cloned().collect();
            let mut out = Vec::with_capacity(pairs.len());
            for (k, v) in pairs {
                out.push(format!("{}: {}", rt.repr_of(&k)?, inner(rt, &v, limit)?));
            }
            Ok(format!("{{{}}}", out.join(", ")))
        }
        v => rt.repr_of(v),
    }
}

/// A tensor as TF's PrintV2 summarises it (see [`tf_print`]).
pub fn summary(a: &Array, limit: Option<usize>) -> String {
    let shape = a.shape().to_vec();
    let text: Box<dyn Fn(usize) -> String> = match a {
        Array::F16(x) => {
            let xs: Vec<f32> = x.iter().map(|v| v.to_f32()).collect();
            Box::new(move |i| float_text(xs[i] as f64, 6, 9, |s| s.parse::<f32>().ok().map(f64::from)))
        }
        Array::F32(x) => {
            let xs: Vec<f32> = x.iter().copied().collect();
            Box::new(move |i| float_text(xs[i] as f64, 6, 9, |s| s.parse::<f32>().ok().map(f64::from)))
        }
        Array::F64(x) => {
            let xs: Vec<f64> = x.iter().copied().collect();
            Box::new(move |i| float_text(xs[i], 15, 17, |s| s.parse::<f64>().ok()))
        }
        Array::U8(_) | Array::I8(_) | Array::I16(_) | Array::I32(_) | Array::I64(_) => {
            let xs = a.to_i64_vec().unwrap_or_default();
            Box::new(move |i| xs[i].to_string())
        }
        Array::Bool(x) => {
            let xs: Vec<bool> = x.iter().copied().collect();
            Box::new(move |i| if xs[i] { "1" } else { "0" }.to_string())
        }
    };
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    block(&shape, &strides, 0, 0, limit, &*text)
}

/// The summary of the sub-tensor at `base` whose first axis is `depth`.
fn block(
    shape: &[usize],
    strides: &[usize],
    depth: usize,
    base: usize,
    limit: Option<usize>,
    text: &dyn Fn(usize) -> String,
) -> String {
    let rank = shape.len();
    if depth == rank {
        return text(base);
    }
    let n = shape[depth];
    let (head, tail) = match limit {
        Some(l) if n > 2 * l => (l, l),
        _ => (n, 0),
    };
    let elided = head + tail < n;
    let part = |i: usize| block(shape, strides, depth + 1, base + i * strides[depth], limit, text);
    let first: Vec<String> = (0..head).map(part).collect();
    let last: Vec<String> = (n - tail..n).filter(|_| elided).map(part).collect();
    if depth + 1 == rank {
        let mut out = format!("[{}", first.join(" "));
        if elided {
            out.push_str(" ...");
            if !last.is_empty() {
                out.push(' ');
                out.push_str(&last.join(" "));
            }
        }
        return out + "]";
    }
    // Rows of a matrix go on lines of their own; blocks of higher rank have blank lines between.
    let sep = "\n".repeat(rank - depth - 1) + &" ".repeat(depth + 1);
    let mut rows = first;
    if elided {
        rows.push("...".into());
        rows.extend(last);
    }
    format!("[{}]", rows.join(&sep))
}

/// C's `%.{short}g` of `x` when it reads back as the same value, else `%.{long}g` (TF's
/// FloatToBuffer and DoubleToBuffer); `nan`, `inf`, `-inf`, and `-0` for negative zero.
fn float_text(x: f64, short: usize, long: usize, read: impl Fn(&str) -> Option<f64>) -> String {
    // NaN never reads back as itself (NaN != NaN): its text is the same at either precision.
    if x.is_nan() {
        return "nan".into();
    }
    let s = percent_g(x, short);
    if read(&s) == Some(x) {
        s
    } else {
        percent_g(x, long)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_written_as_printf_writes_them() {
        let inf = |p| float_text(f64::INFINITY, p, p + 3, |s| s.parse::<f64>().ok());
        assert_eq!((inf(6), float_text(f64::NAN, 6, 9, |s| s.parse::<f64>().ok())), ("inf".into(), "nan".into()));
        // Values checked against C's printf.
        let cases = [
            (1.0 / 3.0, 6, "0.333333"),
            (0.1, 6, "0.1"),
            (1e-8, 6, "1e-08"),
            (123456792.0, 6, "1.23457e+08"),
            (123456792.0, 9, "123456792"),
            (1e20, 6, "1e+20"),
            (12345.677734375, 9, "12345.6777"),
            (0.0001, 6, "0.0001"),
            (1e-5, 6, "1e-05"),
            (100000.0, 6, "100000"),
            (1234567.0, 6, "1.23457e+06"),
            (2.5, 6, "2.5"),
            (-1.5e15, 15, "-1.5e+15"),
        ];
        for (x, p, want) in cases {
            assert_eq!(percent_g(x, p), want, "%.{p}g of {x}");
        }
    }

    #[test]
    fn a_python_float_is_written_as_cpython_writes_it() {
        for (x, want) in [(1e-8, "1e-08"), (1e20, "1e+20"), (1.5e-7, "1.5e-07"), (0.1, "0.1"), (1e100, "1e+100")] {
            assert_eq!(python_float(x), want);
        }
    }
}
