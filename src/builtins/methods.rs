//! Attributes and methods of builtin values: tensors, Variables, tapes,
//! lists, dicts, strings (LANGUAGE.md §2–§5).

use crate::autodiff::Tape;
use crate::runtime::error::R;
use crate::runtime::intern::Sym;
use crate::runtime::ops::shape_value;
use crate::runtime::value::{Args, Builtin, BuiltinKind, HashKey, NativeFn, Value};
use crate::runtime::Interp;
use crate::tensor::{Array, DType, Tensor};
use crate::{bail, err};
use std::cell::RefCell;
use std::rc::Rc;

fn method(this: &Value, name: &str, f: NativeFn) -> Value {
    Value::Builtin(Rc::new(Builtin { name: name.into(), kind: BuiltinKind::Method(this.clone(), f) }))
}

/// `obj.name` for builtin values; `None` when there is no such attribute.
pub fn attr(rt: &mut Interp, obj: &Value, name: Sym) -> R<Option<Value>> {
    let n = name.name();
    let n = n.as_ref();
    Ok(Some(match obj {
        Value::Tensor(t) => match tensor_attr(t, n) {
            Some(v) => v,
            None => match tensor_method(n) {
                Some(f) => method(obj, n, f),
                None => return Ok(None),
            },
        },
        Value::Variable(v) => match n {
            "name" => v.name.as_ref().map_or(Value::None, |s| Value::Str(s.clone())),
            "trainable" => Value::Bool(v.trainable),
            "assign" => method(obj, n, var_assign),
            "assign_add" => method(obj, n, var_assign_add),
            "assign_sub" => method(obj, n, var_assign_sub),
            "read_value" | "value" => method(obj, n, var_read),
            _ => {
                let t = v.peek();
                match tensor_attr(&t, n) {
                    Some(v) => v,
                    None => match tensor_method(n) {
                        Some(f) => method(obj, n, f),
                        None => return Ok(None),
                    },
                }
            }
        },
        Value::Tape(_) => match n {
            "watch" => method(obj, n, tape_watch),
            "gradient" => method(obj, n, tape_gradient),
            "jacobian" => method(obj, n, tape_jacobian),
            "stats" => method(obj, n, tape_stats),
            "watched_variables" => method(obj, n, tape_watched_variables),
            "stop_recording" => method(obj, n, |_, _| Ok(Value::StopRecording)),
            "reset" => method(obj, n, tape_reset),
            _ => return Ok(None),
        },
        Value::List(_) => match n {
            "append" => method(obj, n, list_append),
            "extend" => method(obj, n, list_extend),
            "pop" => method(obj, n, list_pop),
            "insert" => method(obj, n, list_insert),
            "index" => method(obj, n, list_index),
            "count" => method(obj, n, list_count),
            "remove" => method(obj, n, list_remove),
            "reverse" => method(obj, n, list_reverse),
            "copy" => method(obj, n, list_copy),
            "clear" => method(obj, n, list_clear),
            "sort" => method(obj, n, list_sort),
            _ => return Ok(None),
        },
        Value::Dict(_) => match n {
            "keys" => method(obj, n, dict_keys),
            "values" => method(obj, n, dict_values),
            "items" => method(obj, n, dict_items),
            "get" => method(obj, n, dict_get),
            "pop" => method(obj, n, dict_pop),
            "update" => method(obj, n, dict_update),
            "setdefault" => method(obj, n, dict_setdefault),
            "copy" => method(obj, n, dict_copy),
            _ => return Ok(None),
        },
        Value::Str(_) => match n {
            "format" => method(obj, n, str_format),
            "join" => method(obj, n, str_join),
            "split" => method(obj, n, str_split),
            "upper" => method(obj, n, |_, a| Ok(Value::str(&this_str(a)?.to_uppercase()))),
            "lower" => method(obj, n, |_, a| Ok(Value::str(&this_str(a)?.to_lowercase()))),
            "strip" => method(obj, n, |_, a| Ok(Value::str(this_str(a)?.trim()))),
            "startswith" => method(obj, n, str_startswith),
            "endswith" => method(obj, n, str_endswith),
            "replace" => method(obj, n, str_replace),
            _ => return Ok(None),
        },
        Value::Builtin(b) => match (&b.kind, n) {
            (BuiltinKind::Recompute(f) | BuiltinKind::CustomGradient(f) | BuiltinKind::PassThrough(f), "__wrapped__") => {
                f.clone()
            }
            (_, "__name__") => Value::Str(b.name.clone()),
            _ => return Ok(None),
        },
        Value::Exception(e) => match n {
            "args" => Value::tuple(vec![Value::str(e.message())]),
            _ => return Ok(None),
        },
        Value::DType(d) => match n {
            "name" => Value::str(d.name()),
            "is_floating" => Value::Bool(d.is_float()),
            _ => return Ok(None),
        },
        _ => {
            let _ = rt;
            return Ok(None);
        }
    }))
}

fn tensor_attr(t: &Tensor, n: &str) -> Option<Value> {
    Some(match n {
        "shape" => shape_value(t.shape()),
        "dtype" => Value::DType(t.dtype()),
        "ndim" => Value::Int(t.shape().len() as i64),
        "T" => return None,
        _ => return None,
    })
}

fn tensor_method(n: &str) -> Option<NativeFn> {
    Some(match n {
        "numpy" | "tolist" => tensor_numpy,
        "item" => tensor_item,
        _ => return None,
    })
}

/// A Python number of the tensor's kind.
fn py_number(dtype: DType, x: f64) -> Value {
    match dtype {
        DType::I64 => Value::Int(x as i64),
        DType::Bool => Value::Bool(x != 0.0),
        _ => Value::Float(x),
    }
}

/// `numpy()` / `tolist()`: nested lists of Python numbers (a number for a scalar).
fn tensor_numpy(rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    let t = rt.to_tensor(&a.this(), None)?;
    let vals = t.data.to_f64_vec();
    fn build(shape: &[usize], vals: &[f64], dtype: DType) -> Value {
        match shape.split_first() {
            None => py_number(dtype, vals[0]),
            Some((&n, rest)) => {
                let stride: usize = rest.iter().product();
                Value::list((0..n).map(|i| build(rest, &vals[i * stride..(i + 1) * stride], dtype)).collect())
            }
        }
    }
    Ok(build(t.shape(), &vals, t.dtype()))
}

/// `item()`: the Python number of a one-element tensor.
fn tensor_item(rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    let t = rt.to_tensor(&a.this(), None)?;
    if t.len() != 1 {
        bail!(Value, "item() needs a tensor with one element, got shape {}", crate::tensor::shape_str(t.shape()));
    }
    Ok(py_number(t.dtype(), t.data.first_f64()))
}

fn this_var(a: &Args) -> Rc<crate::autodiff::Variable> {
    match a.this() {
        Value::Variable(v) => v,
        _ => unreachable!("Variable methods are bound to Variables"),
    }
}

/// The new value for a Variable update, in the Variable's dtype.
fn update_value(rt: &mut Interp, a: &mut Args, op: Option<crate::tensor::kernels::Binary>) -> R<Value> {
    let [v] = a.bind(["value"], 1)?;
    let var = this_var(a);
    let cur = var.peek();
    // Python numbers and lists take the Variable's dtype; a tensor of another
    // dtype is a ValueError (LANGUAGE.md §5), raised by `Variable::set`.
    let v = v.unwrap();
    let new = match &v {
        Value::Tensor(_) | Value::Variable(_) => (*rt.to_tensor(&v, None)?.data).clone(),
        other => (*rt.to_tensor(other, Some(cur.dtype()))?.data).clone(),
    };
    let value = match op {
        Some(op) => {
            if new.shape() != cur.shape() {
                bail!(
                    Value,
                    "cannot update a Variable of shape {} with a value of shape {}",
                    crate::tensor::shape_str(cur.shape()),
                    crate::tensor::shape_str(new.shape())
                );
            }
            crate::tensor::kernels::binary(op, &cur.data, &new)?
        }
        None => new,
    };
    var.set(value)?;
    Ok(Value::Variable(var))
}

/// `v.assign(value)`: returns the Variable (TF returns the updated variable).
fn var_assign(rt: &mut Interp, a: &mut Args) -> R<Value> {
    update_value(rt, a, None)
}

fn var_assign_add(rt: &mut Interp, a: &mut Args) -> R<Value> {
    update_value(rt, a, Some(crate::tensor::kernels::Binary::Add))
}

fn var_assign_sub(rt: &mut Interp, a: &mut Args) -> R<Value> {
    update_value(rt, a, Some(crate::tensor::kernels::Binary::Sub))
}

/// `v.read_value()`: the current value as a tensor (a read, so tapes watch it).
fn var_read(rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    let v = this_var(a);
    let t = rt.read_variable(&v);
    Ok(Value::Tensor(rt.identity(&t)))
}

fn this_tape(a: &Args) -> Rc<RefCell<Tape>> {
    match a.this() {
        Value::Tape(t) => t,
        _ => unreachable!("tape methods are bound to tapes"),
    }
}

/// `tape.watch(x)`: a tensor, a Variable, or a (nested) list of them.
fn tape_watch(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["tensor"], 1)?;
    let tape = this_tape(a);
    fn watch(rt: &mut Interp, tape: &Rc<RefCell<Tape>>, v: &Value) -> R<()> {
        match v {
            Value::Tensor(t) => {
                if t.dtype().is_float() {
                    tape.borrow_mut().watched.insert(t.id);
                }
            }
            Value::Variable(var) => tape.borrow_mut().watch_variable(var),
            Value::List(_) | Value::Tuple(_) => {
                for x in rt.iterate(v)? {
                    watch(rt, tape, &x)?;
                }
            }
            other => bail!(Type, "watch() needs tensors or Variables, not {}", other.type_name()),
        }
        Ok(())
    }
    watch(rt, &tape, &x.unwrap())?;
    Ok(Value::None)
}

/// The leaves of a (nested) structure of sources, in order.
fn flatten_sources(rt: &mut Interp, v: &Value, out: &mut Vec<Value>) -> R<()> {
    match v {
        Value::List(_) | Value::Tuple(_) => {
            for x in rt.iterate(v)? {
                flatten_sources(rt, &x, out)?;
            }
        }
        Value::Dict(d) => {
            let vals: Vec<Value> = d.borrow().values().map(|(_, v)| v.clone()).collect();
            for x in vals {
                flatten_sources(rt, &x, out)?;
            }
        }
        other => out.push(other.clone()),
    }
    Ok(())
}

/// Rebuilds `like`'s structure from results in order.
fn unflatten(like: &Value, it: &mut impl Iterator<Item = Value>) -> Value {
    match like {
        Value::List(l) => Value::list(l.borrow().iter().map(|x| unflatten(x, it)).collect()),
        Value::Tuple(t) => Value::tuple(t.iter().map(|x| unflatten(x, it)).collect()),
        Value::Dict(d) => {
            let mut out = crate::runtime::value::Dict::default();
            for (k, (kv, v)) in d.borrow().iter() {
                out.insert(k.clone(), (kv.clone(), unflatten(v, it)));
            }
            Value::Dict(Rc::new(RefCell::new(out)))
        }
        _ => it.next().unwrap_or(Value::None),
    }
}

/// `tape.gradient(target, sources, output_gradients=None, unconnected_gradients='none')`
fn tape_gradient(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [target, sources, output_gradients, unconnected] =
        a.bind(["target", "sources", "output_gradients", "unconnected_gradients"], 2)?;
    let tape = this_tape(a);
    let zero = match unconnected {
        None | Some(Value::None) => false,
        Some(Value::Str(s)) if s.as_ref() == "none" => false,
        Some(Value::Str(s)) if s.as_ref() == "zero" => true,
        Some(other) => {
            let r = rt.repr_of(&other)?;
            bail!(Value, "unconnected_gradients must be 'none' or 'zero', not {r}")
        }
    };
    let mut tv = Vec::new();
    flatten_sources(rt, &target.unwrap(), &mut tv)?;
    let targets: Vec<Tensor> = tv.iter().map(|t| rt.to_tensor(t, None)).collect::<R<_>>()?;
    let ogs = match output_gradients {
        None | Some(Value::None) => None,
        Some(v) => {
            let mut flat = Vec::new();
            flatten_sources(rt, &v, &mut flat)?;
            Some(flat.iter().map(|t| rt.to_tensor(t, None)).collect::<R<Vec<_>>>()?)
        }
    };
    let sources = sources.unwrap();
    let mut leaves = Vec::new();
    flatten_sources(rt, &sources, &mut leaves)?;
    let mut ids = Vec::with_capacity(leaves.len());
    let mut metas = Vec::with_capacity(leaves.len());
    for s in &leaves {
        let t = match s {
            Value::Variable(v) => v.peek(),
            Value::Tensor(t) => t.clone(),
            other => bail!(Type, "gradient sources must be tensors or Variables, not {}", other.type_name()),
        };
        ids.push(t.id);
        metas.push(t);
    }
    let grads = rt.gradient(&tape, &targets, &ids, ogs)?;
    let results = grads.into_iter().zip(&metas).map(|(g, src)| {
        if !src.dtype().is_float() {
            return Value::None;
        }
        match g {
            Some(g) => Value::Tensor(g),
            None if zero => Value::Tensor(Tensor::new(Array::zeros(src.dtype(), src.shape()))),
            None => Value::None,
        }
    });
    Ok(unflatten(&sources, &mut results.collect::<Vec<_>>().into_iter()))
}

/// `tape.jacobian(target, source)`: one gradient per target element, stacked.
fn tape_jacobian(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [target, source] = a.bind(["target", "sources"], 2)?;
    let tape = this_tape(a);
    let y = rt.to_tensor(&target.unwrap(), None)?;
    let src = match source.unwrap() {
        Value::Variable(v) => v.peek(),
        Value::Tensor(t) => t,
        other => bail!(Type, "jacobian source must be a tensor or Variable, not {}", other.type_name()),
    };
    // A non-persistent tape answers once: treat the whole jacobian as that one use.
    let persistent = tape.borrow().persistent;
    if tape.borrow().used {
        bail!(Runtime, "a non-persistent GradientTape can only be used to compute one set of gradients (use persistent=True)");
    }
    tape.borrow_mut().persistent = true;
    let n = y.len();
    let mut rows = Vec::with_capacity(n);
    let mut result = Ok(());
    for i in 0..n {
        let mut onehot = vec![0.0; n];
        onehot[i] = 1.0;
        let og = Tensor::new(Array::from_f64(y.dtype(), y.shape(), onehot));
        match rt.gradient(&tape, std::slice::from_ref(&y), &[src.id], Some(vec![og])) {
            Ok(g) => rows.push(g.into_iter().next().flatten().unwrap_or_else(|| Tensor::new(Array::zeros(src.dtype(), src.shape())))),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    tape.borrow_mut().persistent = persistent;
    if !persistent {
        tape.borrow_mut().used = true;
        rt.tapes.retain(|t| !Rc::ptr_eq(t, &tape));
    }
    result?;
    let mut shape = y.shape().to_vec();
    shape.extend_from_slice(src.shape());
    if rows.is_empty() {
        return Ok(Value::Tensor(Tensor::new(Array::zeros(src.dtype(), &shape))));
    }
    let stacked = rt.stack(&rows, 0)?;
    Ok(Value::Tensor(rt.reshape_to(&stacked, &shape)?))
}

/// `tape.stats()`: `{'ops': …, 'saved_tensors': …, 'saved_bytes': …}`.
fn tape_stats(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    let (ops, saved, bytes) = this_tape(a).borrow().stats();
    let mut d = crate::runtime::value::Dict::default();
    for (k, v) in [("ops", ops), ("saved_tensors", saved), ("saved_bytes", bytes)] {
        d.insert(HashKey::Str(k.into()), (Value::str(k), Value::Int(v as i64)));
    }
    Ok(Value::Dict(Rc::new(RefCell::new(d))))
}

fn tape_watched_variables(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    let vars = this_tape(a).borrow().watched_variables.clone();
    Ok(Value::tuple(vars.into_iter().map(Value::Variable).collect()))
}

/// `tape.reset()`: forget everything recorded and watched.
fn tape_reset(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    let tape = this_tape(a);
    let mut t = tape.borrow_mut();
    t.entries.clear();
    t.watched.clear();
    t.watched_variables.clear();
    t.used = false;
    Ok(Value::None)
}

fn this_list(a: &Args) -> Rc<RefCell<Vec<Value>>> {
    match a.this() {
        Value::List(l) => l,
        _ => unreachable!("list methods are bound to lists"),
    }
}

fn list_append(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["object"], 1)?;
    this_list(a).borrow_mut().push(x.unwrap());
    Ok(Value::None)
}

fn list_extend(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["iterable"], 1)?;
    let items = rt.iterate(&x.unwrap())?;
    this_list(a).borrow_mut().extend(items);
    Ok(Value::None)
}

fn list_pop(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [i] = a.bind(["index"], 0)?;
    let l = this_list(a);
    let n = l.borrow().len();
    if n == 0 {
        bail!(Index, "pop from empty list");
    }
    let k = match i {
        Some(i) => rt.list_index(&i, n)?,
        None => n - 1,
    };
    let v = l.borrow_mut().remove(k);
    Ok(v)
}

fn list_insert(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [i, x] = a.bind(["index", "object"], 2)?;
    let l = this_list(a);
    let n = l.borrow().len() as i64;
    let i = rt.int_arg(&i.unwrap(), "index")?;
    let k = if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
    l.borrow_mut().insert(k, x.unwrap());
    Ok(Value::None)
}

fn list_index(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["value"], 1)?;
    let x = x.unwrap();
    let items = this_list(a).borrow().clone();
    for (i, v) in items.iter().enumerate() {
        if v.is(&x) || rt.values_equal(v, &x)? {
            return Ok(Value::Int(i as i64));
        }
    }
    let r = rt.repr_of(&x)?;
    bail!(Value, "{r} is not in list")
}

fn list_count(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["value"], 1)?;
    let x = x.unwrap();
    let items = this_list(a).borrow().clone();
    let mut n = 0;
    for v in &items {
        if rt.values_equal(v, &x)? {
            n += 1;
        }
    }
    Ok(Value::Int(n))
}

fn list_remove(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let Value::Int(i) = list_index(rt, a)? else { unreachable!() };
    this_list(a).borrow_mut().remove(i as usize);
    Ok(Value::None)
}

fn list_reverse(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    this_list(a).borrow_mut().reverse();
    Ok(Value::None)
}

fn list_copy(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    Ok(Value::list(this_list(a).borrow().clone()))
}

fn list_clear(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    this_list(a).borrow_mut().clear();
    Ok(Value::None)
}

fn list_sort(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let l = this_list(a);
    let items = l.borrow().clone();
    let kw = std::mem::take(&mut a.kw);
    let sorted_fn = rt.builtins[&crate::runtime::intern::intern("sorted")].clone();
    if let Value::List(s) = rt.call_value(&sorted_fn, vec![Value::list(items)], kw)? {
        let v = s.borrow().clone();
        *l.borrow_mut() = v;
    }
    Ok(Value::None)
}

fn this_dict(a: &Args) -> Rc<RefCell<crate::runtime::value::Dict>> {
    match a.this() {
        Value::Dict(d) => d,
        _ => unreachable!("dict methods are bound to dicts"),
    }
}

fn dict_keys(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    Ok(Value::list(this_dict(a).borrow().values().map(|(k, _)| k.clone()).collect()))
}

fn dict_values(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    Ok(Value::list(this_dict(a).borrow().values().map(|(_, v)| v.clone()).collect()))
}

fn dict_items(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    Ok(Value::list(this_dict(a).borrow().values().map(|(k, v)| Value::tuple(vec![k.clone(), v.clone()])).collect()))
}

fn dict_get(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [k, default] = a.bind(["key", "default"], 1)?;
    let key = HashKey::of(&k.unwrap())?;
    let found = this_dict(a).borrow().get(&key).map(|(_, v)| v.clone());
    Ok(found.or(default).unwrap_or(Value::None))
}

fn dict_pop(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [k, default] = a.bind(["key", "default"], 1)?;
    let kv = k.unwrap();
    let key = HashKey::of(&kv)?;
    let found = this_dict(a).borrow_mut().shift_remove(&key).map(|(_, v)| v);
    match (found, default) {
        (Some(v), _) | (None, Some(v)) => Ok(v),
        (None, None) => {
            let r = rt.repr_of(&kv)?;
            Err(err!(Key, "{r}"))
        }
    }
}

fn dict_update(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [other] = a.bind(["other"], 1)?;
    let Value::Dict(o) = other.unwrap() else { bail!(Type, "update() needs a dict") };
    let items: Vec<_> = o.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let _ = rt;
    let d = this_dict(a);
    for (k, v) in items {
        d.borrow_mut().insert(k, v);
    }
    Ok(Value::None)
}

fn dict_setdefault(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [k, default] = a.bind(["key", "default"], 1)?;
    let kv = k.unwrap();
    let key = HashKey::of(&kv)?;
    let d = this_dict(a);
    let existing = d.borrow().get(&key).map(|(_, v)| v.clone());
    Ok(match existing {
        Some(v) => v,
        None => {
            let v = default.unwrap_or(Value::None);
            d.borrow_mut().insert(key, (kv, v.clone()));
            v
        }
    })
}

fn dict_copy(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    Ok(Value::Dict(Rc::new(RefCell::new(this_dict(a).borrow().clone()))))
}

fn this_str(a: &Args) -> R<Rc<str>> {
    match a.this() {
        Value::Str(s) => Ok(s),
        _ => unreachable!("str methods are bound to strings"),
    }
}

/// `"{} {:.2f} {name}".format(…)`
fn str_format(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let s = this_str(a)?;
    let pos = a.rest();
    let kw = std::mem::take(&mut a.kw);
    let mut out = String::new();
    let mut auto = 0;
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '{' if chars.get(i + 1) == Some(&'{') => {
                out.push('{');
                i += 2;
            }
            '}' if chars.get(i + 1) == Some(&'}') => {
                out.push('}');
                i += 2;
            }
            '{' => {
                let close = chars[i..].iter().position(|&c| c == '}').map(|p| p + i);
                let Some(close) = close else { bail!(Value, "single '{{' encountered in format string") };
                let field: String = chars[i + 1..close].iter().collect();
                let (name, spec) = field.split_once(':').unwrap_or((&field, ""));
                let (name, repr) = match name.strip_suffix("!r") {
                    Some(n) => (n, true),
                    None => (name.strip_suffix("!s").unwrap_or(name), false),
                };
                let v = if name.is_empty() {
                    auto += 1;
                    pos.get(auto - 1).cloned().ok_or_else(|| err!(Index, "replacement index {} out of range", auto - 1))?
                } else if let Ok(k) = name.parse::<usize>() {
                    pos.get(k).cloned().ok_or_else(|| err!(Index, "replacement index {k} out of range"))?
                } else {
                    kw.iter().find(|(k, _)| k.as_ref() == name).map(|(_, v)| v.clone()).ok_or_else(|| err!(Key, "'{name}'"))?
                };
                out.push_str(&rt.format_field(&v, repr, spec)?);
                i = close + 1;
            }
            '}' => bail!(Value, "single '}}' encountered in format string"),
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(Value::str(&out))
}

fn str_join(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [items] = a.bind(["iterable"], 1)?;
    let sep = this_str(a)?;
    let mut parts = Vec::new();
    for x in rt.iterate(&items.unwrap())? {
        match x {
            Value::Str(s) => parts.push(s.to_string()),
            other => bail!(Type, "sequence item {}: expected str instance, {} found", parts.len(), other.type_name()),
        }
    }
    Ok(Value::str(&parts.join(&sep)))
}

fn str_split(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [sep] = a.bind(["sep"], 0)?;
    let s = this_str(a)?;
    let parts: Vec<Value> = match sep {
        None | Some(Value::None) => s.split_whitespace().map(Value::str).collect(),
        Some(Value::Str(p)) if p.is_empty() => bail!(Value, "empty separator"),
        Some(Value::Str(p)) => s.split(p.as_ref()).map(Value::str).collect(),
        Some(other) => bail!(Type, "split() separator must be a string, not {}", other.type_name()),
    };
    Ok(Value::list(parts))
}

fn str_startswith(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [p] = a.bind(["prefix"], 1)?;
    match p.unwrap() {
        Value::Str(p) => Ok(Value::Bool(this_str(a)?.starts_with(p.as_ref()))),
        other => bail!(Type, "startswith() needs a string, not {}", other.type_name()),
    }
}

fn str_endswith(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [p] = a.bind(["suffix"], 1)?;
    match p.unwrap() {
        Value::Str(p) => Ok(Value::Bool(this_str(a)?.ends_with(p.as_ref()))),
        other => bail!(Type, "endswith() needs a string, not {}", other.type_name()),
    }
}

fn str_replace(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [old, new] = a.bind(["old", "new"], 2)?;
    match (old.unwrap(), new.unwrap()) {
        (Value::Str(o), Value::Str(n)) => Ok(Value::str(&this_str(a)?.replace(o.as_ref(), &n))),
        _ => bail!(Type, "replace() needs strings"),
    }
}
