//! Attributes and methods of builtin values: tensors, Variables, tapes,
//! lists, dicts, strings (LANGUAGE.md §2–§5).

use super::collections::*;
use super::tape_methods::*;
use crate::bail;
use crate::runtime::error::R;
use crate::runtime::index::shape_value;
use crate::runtime::intern::Sym;
use crate::runtime::value::{Args, Builtin, BuiltinKind, NativeFn, Value};
use crate::runtime::Interp;
use crate::tensor::{DType, Tensor};
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
            "stop_recording" => method(obj, n, tape_stop_recording),
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
            "upper" => method(obj, n, |_, a| {
                let [] = a.bind([], 0)?;
                Ok(Value::str(&this_str(a)?.to_uppercase()))
            }),
            "lower" => method(obj, n, |_, a| {
                let [] = a.bind([], 0)?;
                Ok(Value::str(&this_str(a)?.to_lowercase()))
            }),
            "strip" => method(obj, n, |_, a| str_strip(a, true, true)),
            "lstrip" => method(obj, n, |_, a| str_strip(a, true, false)),
            "rstrip" => method(obj, n, |_, a| str_strip(a, false, true)),
            "startswith" => method(obj, n, str_startswith),
            "endswith" => method(obj, n, str_endswith),
            "replace" => method(obj, n, str_replace),
            _ => return Ok(None),
        },
        Value::Builtin(b) => match (&b.kind, n) {
            (
                BuiltinKind::Recompute(f) | BuiltinKind::CustomGradient(f) | BuiltinKind::PassThrough(f),
                "__wrapped__",
            ) => f.clone(),
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
