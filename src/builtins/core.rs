//! Python's builtins (docs/language.md §2): `print`, `len`, `range`, conversions,
//! `min`/`max`/`sum`, `sorted`, `isinstance`, …

use crate::builtins::{Native, Signature, NO_ARGS};
use crate::error::R;
use crate::intern::intern;
use crate::runtime::convert::{float_to_int, int_add, int_checked};
use crate::runtime::index::range_len;
use crate::runtime::value::{Args, Dict, Value};
use crate::runtime::Interp;
use crate::tensor::kernels::Unary;
use crate::{bail, err};
use std::cell::RefCell;
use std::rc::Rc;

pub use crate::runtime::value::TYPE_NAMES;
use crate::runtime::value::is_type_object;

pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&PRINT);
    reg(&LEN);
    reg(&RANGE);
    reg(&ENUMERATE);
    reg(&ZIP);
    reg(&LIST);
    reg(&TUPLE);
    reg(&DICT);
    reg(&STR);
    reg(&REPR);
    reg(&ASCII);
    reg(&SLICE);
    reg(&INT);
    reg(&FLOAT);
    reg(&BOOL);
    reg(&ABS);
    reg(&MIN);
    reg(&MAX);
    reg(&SUM);
    reg(&SORTED);
    reg(&REVERSED);
    reg(&ISINSTANCE);
    reg(&ISSUBCLASS);
    reg(&HASATTR);
    reg(&GETATTR);
    reg(&SETATTR);
    reg(&DELATTR);
    reg(&ID);
    reg(&TYPE);
    reg(&ARGV);
    reg(&PROPERTY);
}

static PRINT: Native =
    Native::new("print", &["*args", "sep=' '", "end='\\n'", "file=None", "flush: bool = False"], print);

/// `print(*args, sep=' ', end='\n', file=None, flush=False)`: writes `str` of each
/// argument to `file` (an open file or `sys.stdout`/`sys.stderr`; the program's
/// stdout when None), through the interpreter's writers.
///
/// Errors: TypeError for a non-string `sep`/`end` or a `file` that is not a file;
/// the file's own errors (a closed file, a full disk).
fn print(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = PRINT.bind(rt, args)?;
    // CPython's wording: "sep must be None or a string, not int".
    let text_or = |v: Option<Value>, name: &str, default: &str| match v {
        None => Ok(default.to_string()),
        Some(Value::Str(s)) => Ok(s.to_string()),
        Some(other) => Err(err!(Type, "{name} must be None or a string, not {}", other.type_name())),
    };
    let sep = text_or(a.non_none("sep")?, "sep", " ")?;
    let end = text_or(a.non_none("end")?, "end", "\n")?;
    let (file, flush) = (a.non_none("file")?, a.bool_or("flush", false)?);
    let items = std::mem::take(&mut a.rest);
    let mut parts = Vec::new();
    for v in items {
        parts.push(rt.str_of(&v)?);
    }
    let text = parts.join(&sep) + &end;
    match file {
        None => {
            rt.write_out(&text)?;
            if flush {
                let _ = rt.out.borrow_mut().flush();
            }
        }
        Some(Value::File(f)) => {
            rt.file_write(&f, &text)?;
            if flush {
                rt.file_flush(&f)?;
            }
        }
        Some(other) => bail!(Type, "print() file must be an open file, not {}", other.type_name()),
    }
    Ok(Value::None)
}

static LEN: Native = Native::new("len", &["obj"], len);

/// `len(obj)`
fn len(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = LEN.bind(rt, args)?.value("obj")?;
    if let Some(n) = rt.call_dunder(&x, "__len__", vec![])? {
        return match n {
            Value::Int(i) if i >= 0 => Ok(Value::Int(i)),
            Value::Int(_) => bail!(Value, "__len__() should return >= 0"),
            other => bail!(Type, "'{}' object cannot be interpreted as an integer", other.type_name()),
        };
    }
    Ok(Value::Int(match &x {
        Value::Str(s) => s.chars().count(),
        Value::List(l) => l.borrow().len(),
        Value::Tuple(t) | Value::Shape(t) => t.len(),
        Value::Dict(d) => d.borrow().len(),
        Value::Set(s) | Value::FrozenSet(s) => s.borrow().len(),
        Value::Range(r) => {
            let n = range_len(r[0], r[1], r[2]);
            if n > i64::MAX as usize {
                bail!(Value, "range has more than {} items", i64::MAX);
            }
            n
        }
        Value::Tensor(_) | Value::Variable(_) => {
            let t = rt.to_tensor(&x, None)?;
            match t.shape().first() {
                Some(&n) => n,
                None => bail!(Type, "len() of a scalar tensor"),
            }
        }
        Value::NdArray(n) => match n.data().shape().first() {
            Some(&len) if !n.scalar => len,
            _ => bail!(Type, "len() of unsized object"),
        },
        Value::Instance(_) => {
            return rt.call_special(&x, "__len__", vec![], |t| err!(Type, "object of type '{t}' has no len()"));
        }
        other => bail!(Type, "object of type '{}' has no len()", other.type_name()),
    } as i64))
}

static RANGE: Native = Native::new("range", &["start", "stop=None", "step=1"], range);

/// `range(stop)`, `range(start, stop, step=1)`
fn range(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = RANGE.bind(rt, args)?;
    let (x, y, z) = (a.value("start")?, a.opt("stop")?, a.opt("step")?);
    const WHAT: &str = "range() argument";
    let x = rt.int_arg(&x, WHAT)?;
    let (start, stop) = match y {
        Some(y) => (x, rt.int_arg(&y, WHAT)?),
        None => (0, x),
    };
    let step = match z {
        Some(z) => rt.int_arg(&z, WHAT)?,
        None => 1,
    };
    if step == 0 {
        bail!(Value, "range() arg 3 must not be zero");
    }
    Ok(Value::Range(Rc::new([start, stop, step])))
}

static ENUMERATE: Native = Native::new("enumerate", &["iterable", "start: int = 0"], enumerate);

/// `enumerate(iterable, start=0)`: a list of `(index, item)` pairs.
fn enumerate(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = ENUMERATE.bind(rt, args)?;
    let (x, start) = (a.value("iterable")?, a.int_or("start", 0)?);
    let items = rt.iterate(&x)?;
    Ok(Value::list(
        items
            .into_iter()
            .enumerate()
            .map(|(i, v)| Ok(Value::tuple(vec![Value::Int(int_add(start, i as i64)?), v])))
            .collect::<R<Vec<_>>>()?,
    ))
}

static ZIP: Native = Native::new("zip", &["*iterables"], zip);

/// `zip(*iterables)`: a list of tuples, as long as the shortest.
fn zip(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let iterables = std::mem::take(&mut ZIP.bind(rt, args)?.rest);
    // Item by item, through the iterator protocol: an endless generator zipped with a
    // list stops with the list.
    let mut iters = iterables.iter().map(|v| rt.iter_of(v)).collect::<R<Vec<_>>>()?;
    let mut out = Vec::new();
    if iters.is_empty() {
        return Ok(Value::list(out));
    }
    'rows: loop {
        let mut row = Vec::with_capacity(iters.len());
        for it in iters.iter_mut() {
            match rt.iter_next(it)? {
                Some(v) => row.push(v),
                None => break 'rows,
            }
        }
        out.push(Value::tuple(row));
        if out.len() % 4096 == 0 {
            rt.check_interrupt()?;
        }
    }
    Ok(Value::list(out))
}

static LIST: Native = Native::new("list", &["iterable=()"], list);

/// `list(iterable=())`
fn list(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = LIST.bind(rt, args)?.opt("iterable")?;
    Ok(Value::list(match x {
        Some(x) => rt.iterate(&x)?,
        None => vec![],
    }))
}

static TUPLE: Native = Native::new("tuple", &["iterable=()"], tuple);

/// `tuple(iterable=())`
fn tuple(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = TUPLE.bind(rt, args)?.opt("iterable")?;
    Ok(Value::tuple(match x {
        Some(x) => rt.iterate(&x)?,
        None => vec![],
    }))
}

static DICT: Native = Native::new("dict", &["items=()"], dict);

/// `dict(items=(), **kwargs)`: from a dict or (key, value) pairs, then the keywords.
fn dict(rt: &mut Interp, args: &mut Args) -> R<Value> {
    // Every keyword is an entry (even `items=`), so they are taken before binding.
    let kw = std::mem::take(&mut args.kw);
    let x = DICT.bind(rt, args)?.opt("items")?;
    let mut d = Dict::default();
    super::collections::merge_into(rt, &mut d, x, kw)?;
    Ok(Value::Dict(Rc::new(RefCell::new(d))))
}

static STR: Native = Native::new("str", &["object=''"], str_);

/// `str(object='')`
fn str_(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = STR.bind(rt, args)?.opt("object")?;
    Ok(Value::Str(match x {
        Some(x) => rt.str_of(&x)?.into(),
        None => "".into(),
    }))
}

static REPR: Native = Native::new("repr", &["obj"], repr);

/// `repr(obj)`
fn repr(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = REPR.bind(rt, args)?.value("obj")?;
    Ok(Value::Str(rt.repr_of(&x)?.into()))
}

static ASCII: Native = Native::new("ascii", &["obj"], ascii);

/// `ascii(obj)`: `repr(obj)` with every non-ASCII character escaped (`\xe9`, `\u20ac`,
/// `\U0001f600`), as Python's `ascii`.
fn ascii(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = ASCII.bind(rt, args)?.value("obj")?;
    let r = rt.repr_of(&x)?;
    Ok(Value::str(&crate::runtime::format::ascii(&r)))
}

static SLICE: Native = Native::new("slice", &["start", "stop=None", "step=None"], slice);

/// `slice(stop)`, `slice(start, stop[, step])`: the object `xs[start:stop:step]` indexes
/// with; its parts may be any values (`None` for one left out), as Python's `slice`.
/// Errors: TypeError for no arguments or more than three.
fn slice(_rt: &mut Interp, args: &mut Args) -> R<Value> {
    if !args.kw.is_empty() {
        bail!(Type, "slice() takes no keyword arguments");
    }
    let parts = match std::mem::take(&mut args.pos).as_slice() {
        [stop] => [Value::None, stop.clone(), Value::None],
        [start, stop] => [start.clone(), stop.clone(), Value::None],
        [start, stop, step] => [start.clone(), stop.clone(), step.clone()],
        [] => bail!(Type, "slice expected at least 1 argument, got 0"),
        more => bail!(Type, "slice expected at most 3 arguments, got {}", more.len()),
    };
    Ok(Value::Slice(Rc::new(parts)))
}

static INT: Native = Native::new("int", &["x=0", "base=10"], int);

/// `int(x=0, base=10)`: from a number, a string of digits in `base` (2–36, or 0
/// for a literal's prefix: `int('0x1f', 0)`) or a one-element tensor; floats truncate.
///
/// Errors: ValueError "invalid literal for int() with base 10: 'x'"; OverflowError
/// when the value leaves 64 bits; TypeError "int() can't convert non-string with
/// explicit base"; ValueError "int() base must be >= 2 and <= 36, or 0".
fn int(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = INT.bind(rt, args)?;
    let (x, base) = (a.opt("x")?, a.opt("base")?);
    if let Some(b) = base {
        let b = rt.int_arg(&b, "base")?;
        if b != 0 && !(2..=36).contains(&b) {
            bail!(Value, "int() base must be >= 2 and <= 36, or 0");
        }
        return match x {
            Some(Value::Str(s)) => super::pyfuncs::parse_int(&s, b as u32)?.map(Value::Int).ok_or_else(|| {
                err!(Value, "invalid literal for int() with base {b}: {}", crate::runtime::format::str_repr(&s))
            }),
            None => bail!(Type, "int() missing string argument"),
            Some(_) => bail!(Type, "int() can't convert non-string with explicit base"),
        };
    }
    Ok(Value::Int(match x {
        None => 0,
        Some(Value::Int(i)) => i,
        Some(Value::Bool(b)) => b as i64,
        Some(Value::Float(f)) => float_to_int(f)?,
        Some(Value::Str(s)) => super::pyfuncs::parse_int(&s, 10)?.ok_or_else(|| {
            err!(Value, "invalid literal for int() with base 10: {}", crate::runtime::format::str_repr(&s))
        })?,
        Some(v @ (Value::Tensor(_) | Value::Variable(_) | Value::NdArray(_))) => {
            let t = rt.to_tensor(&v, None)?;
            if t.len() != 1 {
                bail!(Type, "int() argument must be a number or a one-element tensor");
            }
            rt.ad.note("int()", &[&t], &[]);
            t.data.first_i64()?
        }
        Some(other) => match rt.convert_dunder(&other, &["__int__", "__index__", "__trunc__"], true)? {
            Some(Value::Int(i)) => i,
            _ => bail!(
                Type,
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                other.type_name()
            ),
        },
    }))
}

static FLOAT: Native = Native::new("float", &["x=0.0"], float);

/// `float(x=0.0)`: from a number, a string (`'nan'`, `'inf'` too) or a one-element tensor.
fn float(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = FLOAT.bind(rt, args)?.opt("x")?;
    Ok(Value::Float(match x {
        None => 0.0,
        Some(Value::Str(s)) => super::pyfuncs::parse_float(&s).ok_or_else(|| {
            err!(Value, "could not convert string to float: {}", crate::runtime::format::str_repr(&s))
        })?,
        Some(Value::Complex(..)) => {
            bail!(Type, "float() argument must be a string or a real number, not 'complex'")
        }
        Some(v) => {
            if let Value::Tensor(t) = &v {
                rt.ad.note("float()", &[t], &[]);
            }
            rt.float_arg(&v, "float() argument")?
        }
    }))
}

static BOOL: Native = Native::new("bool", &["x: bool = False"], bool_).spelled(&["np.bool_"]);

/// `bool(x=False)`: Python's truth value.
fn bool_(rt: &mut Interp, args: &mut Args) -> R<Value> {
    Ok(Value::Bool(BOOL.bind(rt, args)?.bool_or("x", false)?))
}

static ABS: Native = Native::new("abs", &["x"], abs).spelled(&["tf.abs", "tf.math.abs", "np.abs", "np.absolute"]);

/// `abs(x)`: Python's for numbers, the tensor op for tensors.
fn abs(rt: &mut Interp, args: &mut Args) -> R<Value> {
    match ABS.bind(rt, args)?.value("x")? {
        Value::Int(i) => Ok(Value::Int(int_checked(i.checked_abs(), || format!("abs({i})"))?)),
        Value::Bool(b) => Ok(Value::Int(b as i64)),
        Value::Float(f) => Ok(Value::Float(f.abs())),
        Value::Complex(re, im) => Ok(Value::Float(crate::runtime::complex::abs(re, im)?)),
        v @ (Value::Tensor(_) | Value::Variable(_)) => {
            let t = rt.to_tensor(&v, None)?;
            Ok(Value::Tensor(rt.ad.unary(Unary::Abs, &t)?))
        }
        Value::NdArray(n) => rt.numpy_unary(Unary::Abs, &n),
        other => match rt.call_dunder(&other, "__abs__", vec![])? {
            Some(r) => Ok(r),
            None => bail!(Type, "bad operand type for abs(): '{}'", other.type_name()),
        },
    }
}

const EXTREME_SIG: Signature = Signature::new(&["*args", "key=None", "default=None"]);

/// `min`/`max(iterable, *, key=None, default=…)` or `min`/`max(a, b, *args, key=None)`.
fn extreme(rt: &mut Interp, args: &mut Args, want: std::cmp::Ordering) -> R<Value> {
    let fname = args.fname.clone();
    let mut a = EXTREME_SIG.bind(rt, args)?;
    let (key, default, given) = (a.non_none("key")?, a.opt("default")?, std::mem::take(&mut a.rest));
    if given.is_empty() {
        // CPython: "max expected at least 1 argument, got 0".
        bail!(Type, "{fname} expected at least 1 argument, got 0");
    }
    if given.len() > 1 && default.is_some() {
        bail!(Type, "Cannot specify a default for {fname}() with multiple positional arguments");
    }
    let items = if given.len() == 1 { rt.iterate(&given[0])? } else { given };
    if items.is_empty() {
        return match default {
            Some(d) => Ok(d),
            None => bail!(Value, "{fname}() arg is an empty sequence"),
        };
    }
    let mut best = items[0].clone();
    let mut best_key = match &key {
        Some(k) => rt.call_value(k, vec![best.clone()], vec![])?,
        None => best.clone(),
    };
    for x in items.into_iter().skip(1) {
        let k = match &key {
            Some(k) => rt.call_value(k, vec![x.clone()], vec![])?,
            None => x.clone(),
        };
        // Python's max keeps the first of equals and asks `k > best`; min asks `k < best`.
        let better = match want {
            std::cmp::Ordering::Greater => rt.less(&best_key, &k)?,
            _ => rt.less(&k, &best_key)?,
        };
        if better {
            best = x;
            best_key = k;
        }
    }
    Ok(best)
}

static MIN: Native = Native::with("min", EXTREME_SIG, min);

fn min(rt: &mut Interp, a: &mut Args) -> R<Value> {
    extreme(rt, a, std::cmp::Ordering::Less)
}

static MAX: Native = Native::with("max", EXTREME_SIG, max);

fn max(rt: &mut Interp, a: &mut Args) -> R<Value> {
    extreme(rt, a, std::cmp::Ordering::Greater)
}

static SUM: Native = Native::new("sum", &["iterable", "start=0"], sum);

/// `sum(iterable, start=0)`: `start + x0 + x1 + …` with the `+` operator.
fn sum(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SUM.bind(rt, args)?;
    let (items, mut acc) = (a.value("iterable")?, a.value_or("start", Value::Int(0))?);
    if let Value::Str(_) = acc {
        bail!(Type, "sum() can't sum strings [use ''.join(seq) instead]");
    }
    for x in rt.iterate(&items)? {
        acc = rt.binary_op(crate::syntax::ast::BinOp::Add, acc, x)?;
    }
    Ok(acc)
}

/// `round(number, ndigits=None)`, declared with its tensor form in math_fns.rs.
pub(super) const ROUND_SIG: Signature = Signature::new(&["number", "ndigits=None"]);

/// `round(x, ndigits=None)`: half to even, as Python.
pub(crate) fn round(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = ROUND_SIG.bind(rt, args)?;
    let (x, nd_value) = (a.value("number")?, a.opt("ndigits")?);
    if let Value::Instance(_) = x {
        let args = nd_value.into_iter().collect();
        return match rt.call_dunder(&x, "__round__", args)? {
            Some(r) => Ok(r),
            None => bail!(Type, "type {} doesn't define __round__ method", x.type_name()),
        };
    }
    let nd = match nd_value {
        None | Some(Value::None) => None,
        Some(v) => Some(rt.int_arg(&v, "ndigits")?),
    };
    // A NumPy scalar rounds as NumPy's `__round__`: to `ndigits` decimals in its own dtype;
    // an array has no `__round__` (NumPy's `np.round` rounds arrays).
    if let Value::NdArray(n) = &x {
        if !n.scalar {
            bail!(Type, "type numpy.ndarray doesn't define __round__ method");
        }
        if let Some(digits) = nd {
            return crate::runtime::numpy::round_decimals(n, digits);
        }
    }
    if let Value::Int(i) = x {
        return Ok(Value::Int(match nd {
            Some(n) if n < 0 => round_int(i, n)?,
            _ => i,
        }));
    }
    let f = rt.float_arg(&x, "round() argument")?;
    match nd {
        None => Ok(Value::Int(float_to_int(f.round_ties_even())?)),
        Some(n) => {
            if !f.is_finite() {
                return Ok(Value::Float(f));
            }
            if n < 0 {
                return round_float_left(f, n.unsigned_abs()).map(Value::Float);
            }
            // Format-and-parse rounds the decimal value correctly, as Python does.
            let n = n.min(330) as usize;
            let s = format!("{f:.n$}");
            Ok(Value::Float(s.parse().unwrap_or(f)))
        }
    }
}

/// `round(f, -m)` for a finite float: the multiple of 10^m nearest to f's exact value, ties
/// to even, then the float nearest to that (CPython's result: `round(1234.5, -2)` is 1200.0,
/// and a float near the top of the range stays itself rather than picking up the error of
/// scaling by 10^m). Beyond 10^308 every float rounds to a zero of its sign.
///
/// Errors: OverflowError "rounded value too large to represent" when the multiple is
/// beyond the largest float.
fn round_float_left(f: f64, m: u64) -> R<f64> {
    if m > 308 {
        return Ok(0.0 * f);
    }
    let m = m as usize;
    // The exact decimal digits of the integral part (Rust formats the exact binary value).
    let text = format!("{:.0}", f.abs());
    let digits = format!("{text:0>width$}", width = m + 1).into_bytes();
    let (head, tail) = digits.split_at(digits.len() - m);
    let half = std::iter::once(b'5').chain(std::iter::repeat(b'0')).take(m);
    let up = match tail.iter().copied().cmp(half) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => {
            // An exact half: the fraction of f decides first, then the even neighbour.
            f.fract() != 0.0 || head.last().is_some_and(|d| (d - b'0') % 2 == 1)
        }
        std::cmp::Ordering::Less => false,
    };
    let mut head = head.to_vec();
    if up && crate::runtime::numeric::increment_decimal(&mut head) {
        head.insert(0, b'1');
    }
    head.extend(std::iter::repeat(b'0').take(m));
    let r: f64 = String::from_utf8_lossy(&head).parse().unwrap_or(f64::INFINITY);
    if r.is_infinite() {
        bail!(Overflow, "rounded value too large to represent");
    }
    Ok(if f.is_sign_negative() { -r } else { r })
}

/// `round(i, n)` for an int and n < 0: the nearest multiple of 10^-n, ties to even (exact in i128).
///
/// Errors: ValueError when the rounded value leaves the int64 range.
fn round_int(i: i64, n: i64) -> R<i64> {
    if n < -19 {
        return Ok(0);
    }
    let p = 10i128.pow(n.unsigned_abs() as u32);
    let x = i as i128;
    let (q, r) = (x.div_euclid(p), x.rem_euclid(p));
    let q = if 2 * r > p || (2 * r == p && q % 2 != 0) { q + 1 } else { q };
    int_checked(i64::try_from(q * p).ok(), || format!("round({i}, {n})"))
}

static SORTED: Native = Native::new("sorted", &["iterable", "key=None", "reverse: bool = False"], sorted);

/// `sorted(iterable, key=None, reverse=False)`: a new list, stable.
pub(super) fn sorted(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SORTED.bind(rt, args)?;
    let (items, key, reverse) = (a.value("iterable")?, a.non_none("key")?, a.bool_or("reverse", false)?);
    let items = rt.iterate(&items)?;
    Ok(Value::list(super::collections::sort_values(rt, items, key.as_ref(), reverse)?))
}

static REVERSED: Native = Native::new("reversed", &["sequence"], reversed);

/// `reversed(sequence)`: a new list in reverse order.
fn reversed(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let items = REVERSED.bind(rt, args)?.value("sequence")?;
    if let Some(r) = rt.call_dunder(&items, "__reversed__", vec![])? {
        return Ok(r);
    }
    let mut v = rt.iterate(&items)?;
    v.reverse();
    Ok(Value::list(v))
}

/// Whether `v` is an instance of the type value `t`.
fn instance_of(v: &Value, t: &Value) -> R<bool> {
    Ok(match t {
        // Everything is an object.
        Value::Class(c) if super::lang::is_object_class(c) => true,
        Value::Class(c) => matches!(v, Value::Instance(i) if i.class.is_subclass_of(c)),
        Value::Builtin(b) if is_type_object(b) => match b.name.as_ref() {
            "int" => matches!(v, Value::Int(_) | Value::Bool(_)),
            "float" => matches!(v, Value::Float(_)),
            "bool" => matches!(v, Value::Bool(_)),
            "type" => {
                matches!(v, Value::Class(_) | Value::ErrorType(_))
                    || matches!(v, Value::Builtin(b) if is_type_object(b))
            }
            "function" => matches!(v, Value::Func(_)),
            "builtin_function_or_method" => matches!(v, Value::Builtin(b) if !is_type_object(b)),
            name => v.type_name() == name,
        },
        Value::ErrorType(k) => {
            matches!(v, Value::Exception(e) if e.kind().is_a(*k))
                || matches!(v, Value::Instance(i) if i.class.error_kind.is_some_and(|e| e.is_a(*k)))
        }
        Value::Tuple(ts) => {
            for t in ts.iter() {
                if instance_of(v, t)? {
                    return Ok(true);
                }
            }
            false
        }
        other => bail!(Type, "isinstance() arg 2 must be a type or tuple of types, not {}", other.type_name()),
    })
}

static ISINSTANCE: Native = Native::new("isinstance", &["obj", "class_or_tuple"], isinstance);

/// `isinstance(obj, class_or_tuple)`
fn isinstance(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = ISINSTANCE.bind(rt, args)?;
    Ok(Value::Bool(instance_of(&a.value("obj")?, &a.value("class_or_tuple")?)?))
}

/// Whether `v` is a class: a user class, a builtin exception class or a builtin type object.
fn is_class(v: &Value) -> bool {
    matches!(v, Value::Class(_) | Value::ErrorType(_)) || matches!(v, Value::Builtin(b) if is_type_object(b))
}

/// Whether the class `c` is `t` or derives from it (the exception tree of docs/language.md
/// "Exceptions"; user classes through their bases; `bool` derives from `int`; every class
/// from `object`).
fn subclass_of(c: &Value, t: &Value) -> R<bool> {
    if let Value::Tuple(ts) = t {
        for t in ts.iter() {
            if subclass_of(c, t)? {
                return Ok(true);
            }
        }
        return Ok(false);
    }
    if !is_class(t) {
        bail!(Type, "issubclass() arg 2 must be a class or tuple of classes, not {}", t.type_name());
    }
    if !is_class(c) {
        bail!(Type, "issubclass() arg 1 must be a class, not {}", c.type_name());
    }
    Ok(match (c, t) {
        (_, Value::Class(o)) if super::lang::is_object_class(o) => true,
        (Value::Class(a), Value::Class(b)) => a.is_subclass_of(b),
        (Value::Class(a), Value::ErrorType(k)) => a.error_kind.is_some_and(|e| e.is_a(*k)),
        (Value::ErrorType(a), Value::ErrorType(b)) => a.is_a(*b),
        (Value::Builtin(a), Value::Builtin(b)) => a.name == b.name || (&*a.name == "bool" && &*b.name == "int"),
        _ => false,
    })
}

static ISSUBCLASS: Native = Native::new("issubclass", &["cls", "class_or_tuple"], issubclass);

/// `issubclass(cls, class_or_tuple)`
fn issubclass(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = ISSUBCLASS.bind(rt, args)?;
    Ok(Value::Bool(subclass_of(&a.value("cls")?, &a.value("class_or_tuple")?)?))
}

fn attr_name(v: &Value) -> R<crate::intern::Sym> {
    match v {
        Value::Str(s) => Ok(intern(s)),
        other => bail!(Type, "attribute name must be a string, not {}", other.type_name()),
    }
}

static HASATTR: Native = Native::new("hasattr", &["obj", "name"], hasattr);

/// `hasattr(obj, name)`: whether reading the attribute raises no AttributeError.
fn hasattr(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = HASATTR.bind(rt, args)?;
    let (o, name) = (a.value("obj")?, attr_name(&a.value("name")?)?);
    match rt.get_attr(&o, name) {
        Ok(_) => Ok(Value::Bool(true)),
        Err(e) if e.kind() == crate::error::ErrorKind::Attribute => Ok(Value::Bool(false)),
        Err(e) => Err(e),
    }
}

static GETATTR: Native = Native::new("getattr", &["object", "name", "default=None"], getattr);

/// `getattr(object, name, default=…)`: the default instead of an AttributeError.
fn getattr(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = GETATTR.bind(rt, args)?;
    let (o, name, default) = (a.value("object")?, attr_name(&a.value("name")?)?, a.opt("default")?);
    match (rt.get_attr(&o, name), default) {
        (Err(e), Some(d)) if e.kind() == crate::error::ErrorKind::Attribute => Ok(d),
        (r, _) => r,
    }
}

static TYPE: Native = Native::new("type", &["object"], type_)
    // DGL's builtins are built-in functions, whatever implements them in the script.
    .exported_as("dgl_tf.type_of");

/// `type(x)`: x's type object, printed as CPython prints it (`<class 'NoneType'>`).
/// An instance gives its class, an error its error type, a value of a builtin type
/// that builtin (`int`, `list`, `Tensor`), a class or a type object `type` itself, and
/// a value of any other kind that kind's type object (`NoneType`, `function`,
/// `builtin_function_or_method`, `module`, `generator`…), one object per kind, so that
/// `type(None) is type(None)` and `isinstance(f, type(g))` hold as in CPython.
fn type_(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let v = TYPE.bind(rt, args)?.value("object")?;
    let name = match &v {
        Value::Instance(i) => return Ok(Value::Class(i.class.clone())),
        Value::Exception(e) => return Ok(Value::ErrorType(e.kind())),
        Value::Class(_) | Value::ErrorType(_) => "type".to_string(),
        Value::Builtin(b) if is_type_object(b) => "type".to_string(),
        Value::Builtin(_) => "builtin_function_or_method".to_string(),
        other => other.type_name(),
    };
    match rt.builtins.get(&intern(&name)) {
        Some(b @ Value::Builtin(t)) if is_type_object(t) => return Ok(b.clone()),
        _ => {}
    }
    // A kind with no type object of its own (a tape's context): its name.
    Ok(rt.unnamed_type(&name).unwrap_or_else(|| Value::Str(name.into())))
}

static ARGV: Native = Native::with("argv", NO_ARGS, argv)
    // DGL's semantics, carried by the support module (dgl_tf.py).
    .exported_as("dgl_tf.argv");

/// `argv()`: the script's command-line arguments, as strings.
fn argv(rt: &mut Interp, args: &mut Args) -> R<Value> {
    super::NO_ARGS.bind(rt, args)?;
    Ok(Value::list(rt.argv.iter().map(|s| Value::str(s)).collect()))
}

static SETATTR: Native = Native::new("setattr", &["obj", "name", "value"], setattr);

/// `setattr(obj, name, value)`: `obj.name = value` with the name as a string.
/// Errors: TypeError when `name` is not a str; the assignment's own errors.
fn setattr(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SETATTR.bind(rt, args)?;
    let (obj, name, v) = (a.value("obj")?, a.value("name")?, a.value("value")?);
    let Value::Str(name) = name else { bail!(Type, "attribute name must be string, not '{}'", name.type_name()) };
    rt.set_attr(&obj, intern(&name), v)?;
    Ok(Value::None)
}

static DELATTR: Native = Native::new("delattr", &["obj", "name"], delattr);

/// `delattr(obj, name)`: `del obj.name` with the name as a string.
/// Errors: TypeError when `name` is not a str; AttributeError when there is no such attribute.
fn delattr(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = DELATTR.bind(rt, args)?;
    let (obj, name) = (a.value("obj")?, a.value("name")?);
    let Value::Str(name) = name else { bail!(Type, "attribute name must be string, not '{}'", name.type_name()) };
    rt.del_attr(&obj, intern(&name))?;
    Ok(Value::None)
}

static ID: Native = Native::new("id", &["obj"], id);

/// `id(obj)`: an int that identifies the object while it lives (its address for objects
/// with identity; for a number, None or a bool, one made from its value, so equal numbers
/// of one type share it).
fn id(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let v = ID.bind(rt, args)?.value("obj")?;
    let n = match v.identity() {
        0 => {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            v.type_name().hash(&mut h);
            format!("{:?}", crate::runtime::value::HashKey::of(&v).ok()).hash(&mut h);
            h.finish() >> 2
        }
        addr => addr as u64,
    };
    Ok(Value::Int((n & (i64::MAX as u64)) as i64))
}

static PROPERTY: Native = Native::new("property", &["fget=None", "fset=None", "fdel=None", "doc=None"], property);

/// `property(fget=None, fset=None, fdel=None, doc=None)`, usable as a decorator; its
/// `setter`/`getter`/`deleter` methods make a copy with that function replaced (Python's).
fn property(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = PROPERTY.bind(rt, args)?;
    let parts = [a.value_or("fget", Value::None)?, a.value_or("fset", Value::None)?, a.value_or("fdel", Value::None)?];
    Ok(Value::Property(Rc::new(parts)))
}

pub(super) static TENSOR: Native = Native::new("Tensor", &["*args", "**kwargs"], tensor_type);

/// `Tensor` names the type for `isinstance`; tensors are made with `constant`.
fn tensor_type(_rt: &mut Interp, _args: &mut Args) -> R<Value> {
    bail!(Type, "Tensor cannot be called: make tensors with constant(value, dtype=...)")
}
