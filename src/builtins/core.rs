//! Python's builtins (LANGUAGE.md §2): `print`, `len`, `range`, conversions,
//! `min`/`max`/`sum`, `sorted`, `isinstance`, …

use crate::runtime::convert::{float_to_int, int_add};
use crate::runtime::error::R;
use crate::runtime::index::range_len;
use crate::runtime::intern::intern;
use crate::runtime::value::{Args, Dict, HashKey, NativeFn, Value};
use crate::runtime::Interp;
use crate::tensor::kernels::Unary;
use crate::{bail, err};
use std::cell::RefCell;
use std::rc::Rc;

/// Builtins whose value also names a type (for `isinstance`, `type`, `repr`).
pub const TYPE_NAMES: &[&str] =
    &["int", "float", "str", "bool", "list", "tuple", "dict", "Variable", "Tensor", "range"];

pub fn register(reg: &mut impl FnMut(&str, NativeFn)) {
    reg("print", print);
    reg("len", len);
    reg("range", range);
    reg("enumerate", enumerate);
    reg("zip", zip);
    reg("list", list);
    reg("tuple", tuple);
    reg("dict", dict);
    reg("str", str_);
    reg("repr", repr);
    reg("int", int);
    reg("float", float);
    reg("bool", bool_);
    reg("abs", abs);
    reg("min", min);
    reg("max", max);
    reg("sum", sum);
    reg("round", round);
    reg("sorted", sorted);
    reg("reversed", reversed);
    reg("isinstance", isinstance);
    reg("hasattr", hasattr);
    reg("getattr", getattr);
    reg("type", type_);
    reg("argv", argv);
    reg("property", property);
    reg("Tensor", tensor_type);
}

/// `print(*args, sep=' ', end='\n')`
fn print(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let sep = match a.kwarg("sep") {
        None | Some(Value::None) => " ".to_string(),
        Some(Value::Str(s)) => s.to_string(),
        Some(other) => bail!(Type, "sep must be None or a string, not {}", other.type_name()),
    };
    let end = match a.kwarg("end") {
        None | Some(Value::None) => "\n".to_string(),
        Some(Value::Str(s)) => s.to_string(),
        Some(other) => bail!(Type, "end must be None or a string, not {}", other.type_name()),
    };
    a.no_more_kw()?;
    let mut parts = Vec::new();
    for v in a.rest() {
        parts.push(rt.str_of(&v)?);
    }
    let text = parts.join(&sep) + &end;
    rt.write_out(&text)?;
    Ok(Value::None)
}

fn len(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["x"], 1)?;
    let x = x.unwrap();
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
        Value::Tuple(t) => t.len(),
        Value::Dict(d) => d.borrow().len(),
        Value::Range(a, b, s) => {
            let n = range_len(*a, *b, *s);
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
        Value::Instance(_) => {
            let m = rt.get_attr(&x, intern("__len__"))?;
            let r = rt.call_value(&m, vec![], vec![])?;
            return Ok(r);
        }
        other => bail!(Type, "object of type '{}' has no len()", other.type_name()),
    } as i64))
}

fn range(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x, y, z] = a.bind(["start", "stop", "step"], 1)?;
    let x = rt.int_arg(&x.unwrap(), "range() argument")?;
    let (start, stop) = match y {
        Some(y) => (x, rt.int_arg(&y, "range() argument")?),
        None => (0, x),
    };
    let step = match z {
        Some(z) => rt.int_arg(&z, "range() argument")?,
        None => 1,
    };
    if step == 0 {
        bail!(Value, "range() arg 3 must not be zero");
    }
    Ok(Value::Range(start, stop, step))
}

fn enumerate(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x, start] = a.bind(["iterable", "start"], 1)?;
    let start = match start {
        Some(s) => rt.int_arg(&s, "start")?,
        None => 0,
    };
    let items = rt.iterate(&x.unwrap())?;
    Ok(Value::list(
        items
            .into_iter()
            .enumerate()
            .map(|(i, v)| Ok(Value::tuple(vec![Value::Int(int_add(start, i as i64)?), v])))
            .collect::<R<Vec<_>>>()?,
    ))
}

fn zip(rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.no_more_kw()?;
    let lists: Vec<Vec<Value>> = a.rest().iter().map(|v| rt.iterate(v)).collect::<R<_>>()?;
    let n = lists.iter().map(|l| l.len()).min().unwrap_or(0);
    Ok(Value::list((0..n).map(|i| Value::tuple(lists.iter().map(|l| l[i].clone()).collect())).collect()))
}

fn list(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["iterable"], 0)?;
    Ok(Value::list(match x {
        Some(x) => rt.iterate(&x)?,
        None => vec![],
    }))
}

fn tuple(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["iterable"], 0)?;
    Ok(Value::tuple(match x {
        Some(x) => rt.iterate(&x)?,
        None => vec![],
    }))
}

fn dict(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let kw = std::mem::take(&mut a.kw);
    let [x] = a.bind(["items"], 0)?;
    let mut d = Dict::default();
    if let Some(x) = x {
        let items = match &x {
            Value::Dict(src) => src.borrow().values().map(|(k, v)| Value::tuple(vec![k.clone(), v.clone()])).collect(),
            other => rt.iterate(other)?,
        };
        for item in items {
            let kv = rt.iterate(&item)?;
            if kv.len() != 2 {
                bail!(Value, "dict() needs (key, value) pairs, got a sequence of length {}", kv.len());
            }
            let h = rt.hash_key(&kv[0])?;
            crate::runtime::value::dict_store(&mut d, h, kv[0].clone(), kv[1].clone());
        }
    }
    for (k, v) in kw {
        crate::runtime::value::dict_store(&mut d, HashKey::Str(k.clone()), Value::Str(k), v);
    }
    Ok(Value::Dict(Rc::new(RefCell::new(d))))
}

fn str_(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["object"], 0)?;
    Ok(Value::Str(match x {
        Some(x) => rt.str_of(&x)?.into(),
        None => "".into(),
    }))
}

fn repr(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["object"], 1)?;
    Ok(Value::Str(rt.repr_of(&x.unwrap())?.into()))
}

fn int(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["x"], 0)?;
    Ok(Value::Int(match x {
        None => 0,
        Some(Value::Int(i)) => i,
        Some(Value::Bool(b)) => b as i64,
        Some(Value::Float(f)) => float_to_int(f)?,
        Some(Value::Str(s)) => s
            .trim()
            .replace('_', "")
            .parse()
            .map_err(|_| err!(Value, "invalid literal for int(): {}", crate::runtime::format::str_repr(&s)))?,
        Some(v @ (Value::Tensor(_) | Value::Variable(_))) => {
            let t = rt.to_tensor(&v, None)?;
            if t.len() != 1 {
                bail!(Type, "int() argument must be a number or a one-element tensor");
            }
            t.data.first_i64()?
        }
        Some(other) => bail!(Type, "int() argument must be a string or a number, not '{}'", other.type_name()),
    }))
}

fn float(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["x"], 0)?;
    Ok(Value::Float(match x {
        None => 0.0,
        Some(Value::Str(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "nan" => f64::NAN,
            "inf" | "+inf" | "infinity" => f64::INFINITY,
            "-inf" | "-infinity" => f64::NEG_INFINITY,
            t => t.parse().map_err(|_| {
                err!(Value, "could not convert string to float: {}", crate::runtime::format::str_repr(&s))
            })?,
        },
        Some(v) => rt.float_arg(&v, "float() argument")?,
    }))
}

fn bool_(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["x"], 0)?;
    Ok(Value::Bool(match x {
        Some(x) => rt.truthy(&x)?,
        None => false,
    }))
}

/// `abs(x)`: Python's for numbers, the tensor op for tensors.
fn abs(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["x"], 1)?;
    match x.unwrap() {
        Value::Int(i) => Ok(Value::Int(i.checked_abs().ok_or_else(|| err!(Value, "integer overflow"))?)),
        Value::Bool(b) => Ok(Value::Int(b as i64)),
        Value::Float(f) => Ok(Value::Float(f.abs())),
        v @ (Value::Tensor(_) | Value::Variable(_)) => {
            let t = rt.to_tensor(&v, None)?;
            Ok(Value::Tensor(rt.unary(Unary::Abs, &t)?))
        }
        other => bail!(Type, "bad operand type for abs(): '{}'", other.type_name()),
    }
}

fn extreme(rt: &mut Interp, a: &mut Args, want: std::cmp::Ordering) -> R<Value> {
    let key = a.kwarg("key");
    let default = a.kwarg("default");
    a.no_more_kw()?;
    let args = a.rest();
    let items = if args.len() == 1 { rt.iterate(&args[0])? } else { args };
    if items.is_empty() {
        return match default {
            Some(d) => Ok(d),
            None => bail!(Value, "{}() arg is an empty sequence", a.fname),
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

fn min(rt: &mut Interp, a: &mut Args) -> R<Value> {
    extreme(rt, a, std::cmp::Ordering::Less)
}

fn max(rt: &mut Interp, a: &mut Args) -> R<Value> {
    extreme(rt, a, std::cmp::Ordering::Greater)
}

fn sum(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [items, start] = a.bind(["iterable", "start"], 1)?;
    let mut acc = start.unwrap_or(Value::Int(0));
    for x in rt.iterate(&items.unwrap())? {
        acc = rt.binary_op(crate::syntax::ast::BinOp::Add, acc, x)?;
    }
    Ok(acc)
}

/// `round(x, ndigits=None)`: half to even, as Python.
fn round(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x, nd] = a.bind(["number", "ndigits"], 1)?;
    let x = x.unwrap();
    let nd = match nd {
        None | Some(Value::None) => None,
        Some(v) => Some(rt.int_arg(&v, "ndigits")?),
    };
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
                // round(1234.5, -2) == 1200.0: half to even on the scaled value.
                let p = 10f64.powi(n.saturating_neg().min(400) as i32);
                if p.is_infinite() {
                    return Ok(Value::Float(0.0 * f));
                }
                let r = (f / p).round_ties_even() * p;
                if r.is_infinite() {
                    bail!(Value, "rounded value too large to represent");
                }
                return Ok(Value::Float(r));
            }
            // Format-and-parse rounds the decimal value correctly, as Python does.
            let n = n.min(330) as usize;
            let s = format!("{f:.n$}");
            Ok(Value::Float(s.parse().unwrap_or(f)))
        }
    }
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
    i64::try_from(q * p).map_err(|_| err!(Value, "integer overflow: round({i}, {n}) is out of the int64 range"))
}

fn sorted(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [items, key, reverse] = a.bind(["iterable", "key", "reverse"], 1)?;
    let items = rt.iterate(&items.unwrap())?;
    let reverse = match reverse {
        Some(r) => rt.truthy(&r)?,
        None => false,
    };
    let mut keyed = Vec::with_capacity(items.len());
    for x in items {
        let k = match &key {
            Some(Value::None) | None => x.clone(),
            Some(f) => rt.call_value(f, vec![x.clone()], vec![])?,
        };
        keyed.push((k, x));
    }
    // Python's sort asks only `<`, in a stable merge sort: any answers, even inconsistent
    // ones (NaN, a user's __lt__), give some order of the same items, never a panic.
    let keyed = merge_sort(keyed, &mut |p: &(Value, Value), q: &(Value, Value)| {
        if reverse {
            rt.less(&p.0, &q.0).map(|b| !b)
        } else {
            rt.less(&q.0, &p.0).map(|b| !b)
        }
    })?;
    Ok(Value::list(keyed.into_iter().map(|(_, x)| x).collect()))
}

/// A stable merge sort by a fallible `in_order(p, q)` ("p may stay before q"); it calls the
/// comparison O(n log n) times and terminates whatever the comparison answers.
pub fn merge_sort<T: Clone>(items: Vec<T>, in_order: &mut impl FnMut(&T, &T) -> R<bool>) -> R<Vec<T>> {
    let mut items = items;
    let n = items.len();
    let mut width = 1;
    while width < n {
        let mut merged = Vec::with_capacity(n);
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, mid);
            while i < mid && j < end {
                if in_order(&items[i], &items[j])? {
                    merged.push(items[i].clone());
                    i += 1;
                } else {
                    merged.push(items[j].clone());
                    j += 1;
                }
            }
            merged.extend_from_slice(&items[i..mid]);
            merged.extend_from_slice(&items[j..end]);
            start = end;
        }
        items = merged;
        width *= 2;
    }
    Ok(items)
}

fn reversed(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [items] = a.bind(["sequence"], 1)?;
    let mut v = rt.iterate(&items.unwrap())?;
    v.reverse();
    Ok(Value::list(v))
}

/// Whether `v` is an instance of the type value `t`.
fn instance_of(v: &Value, t: &Value) -> R<bool> {
    Ok(match t {
        Value::Class(c) => matches!(v, Value::Instance(i) if i.class.is_subclass_of(c)),
        Value::Builtin(b) if TYPE_NAMES.contains(&b.name.as_ref()) => match b.name.as_ref() {
            "int" => matches!(v, Value::Int(_) | Value::Bool(_)),
            "float" => matches!(v, Value::Float(_)),
            "bool" => matches!(v, Value::Bool(_)),
            name => v.type_name() == name,
        },
        Value::ErrorType(None) => {
            matches!(v, Value::Exception(_)) || matches!(v, Value::Instance(i) if i.class.error_kind.is_some())
        }
        Value::ErrorType(Some(k)) => {
            matches!(v, Value::Exception(e) if e.kind() == *k)
                || matches!(v, Value::Instance(i) if i.class.error_kind == Some(*k))
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

fn isinstance(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [v, t] = a.bind(["object", "classinfo"], 2)?;
    Ok(Value::Bool(instance_of(&v.unwrap(), &t.unwrap())?))
}

fn attr_name(v: &Value) -> R<crate::runtime::intern::Sym> {
    match v {
        Value::Str(s) => Ok(intern(s)),
        other => bail!(Type, "attribute name must be a string, not {}", other.type_name()),
    }
}

fn hasattr(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [o, n] = a.bind(["object", "name"], 2)?;
    let name = attr_name(&n.unwrap())?;
    match rt.get_attr(&o.unwrap(), name) {
        Ok(_) => Ok(Value::Bool(true)),
        Err(e) if e.kind() == crate::runtime::error::ErrorKind::Attribute => Ok(Value::Bool(false)),
        Err(e) => Err(e),
    }
}

fn getattr(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [o, n, default] = a.bind(["object", "name", "default"], 2)?;
    let name = attr_name(&n.unwrap())?;
    match rt.get_attr(&o.unwrap(), name) {
        Err(e) if e.kind() == crate::runtime::error::ErrorKind::Attribute && default.is_some() => Ok(default.unwrap()),
        r => r,
    }
}

/// `type(x)`: the class, or the builtin that names x's type.
fn type_(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [v] = a.bind(["object"], 1)?;
    let v = v.unwrap();
    Ok(match &v {
        Value::Instance(i) => Value::Class(i.class.clone()),
        Value::Exception(e) => Value::ErrorType(Some(e.kind())),
        other => {
            let name = other.type_name();
            match rt.builtins.get(&intern(&name)) {
                Some(b) if TYPE_NAMES.contains(&name.as_str()) => b.clone(),
                _ => Value::Str(name.into()),
            }
        }
    })
}

fn argv(rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    Ok(Value::list(rt.argv.iter().map(|s| Value::str(s)).collect()))
}

/// `property(getter)`, usable as a decorator.
fn property(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [g] = a.bind(["fget"], 1)?;
    Ok(Value::Property(Rc::new(g.unwrap())))
}

/// `Tensor` names the type for `isinstance`; tensors are made with `constant`.
fn tensor_type(_rt: &mut Interp, _a: &mut Args) -> R<Value> {
    bail!(Type, "Tensor cannot be called: make tensors with constant(value, dtype=...)")
}
