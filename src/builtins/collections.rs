//! Methods of lists, dicts and strings (LANGUAGE.md §2), with Python's behaviour.

use crate::runtime::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::{bail, err};
use std::cell::RefCell;
use std::rc::Rc;

pub(super) fn this_list(a: &Args) -> Rc<RefCell<Vec<Value>>> {
    match a.this() {
        Value::List(l) => l,
        _ => unreachable!("list methods are bound to lists"),
    }
}

pub(super) fn list_append(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["object"], 1)?;
    this_list(a).borrow_mut().push(x.unwrap());
    Ok(Value::None)
}

pub(super) fn list_extend(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [x] = a.bind(["iterable"], 1)?;
    let items = rt.iterate(&x.unwrap())?;
    this_list(a).borrow_mut().extend(items);
    Ok(Value::None)
}

pub(super) fn list_pop(rt: &mut Interp, a: &mut Args) -> R<Value> {
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

pub(super) fn list_insert(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [i, x] = a.bind(["index", "object"], 2)?;
    let l = this_list(a);
    let n = l.borrow().len() as i64;
    let i = rt.int_arg(&i.unwrap(), "index")?;
    let k = if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
    l.borrow_mut().insert(k, x.unwrap());
    Ok(Value::None)
}

pub(super) fn list_index(rt: &mut Interp, a: &mut Args) -> R<Value> {
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

pub(super) fn list_count(rt: &mut Interp, a: &mut Args) -> R<Value> {
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

pub(super) fn list_remove(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let Value::Int(i) = list_index(rt, a)? else { unreachable!() };
    this_list(a).borrow_mut().remove(i as usize);
    Ok(Value::None)
}

pub(super) fn list_reverse(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    this_list(a).borrow_mut().reverse();
    Ok(Value::None)
}

pub(super) fn list_copy(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    Ok(Value::list(this_list(a).borrow().clone()))
}

pub(super) fn list_clear(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    this_list(a).borrow_mut().clear();
    Ok(Value::None)
}

pub(super) fn list_sort(rt: &mut Interp, a: &mut Args) -> R<Value> {
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

pub(super) fn this_dict(a: &Args) -> Rc<RefCell<crate::runtime::value::Dict>> {
    match a.this() {
        Value::Dict(d) => d,
        _ => unreachable!("dict methods are bound to dicts"),
    }
}

pub(super) fn dict_keys(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    Ok(Value::list(this_dict(a).borrow().values().map(|(k, _)| k.clone()).collect()))
}

pub(super) fn dict_values(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    Ok(Value::list(this_dict(a).borrow().values().map(|(_, v)| v.clone()).collect()))
}

pub(super) fn dict_items(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    Ok(Value::list(this_dict(a).borrow().values().map(|(k, v)| Value::tuple(vec![k.clone(), v.clone()])).collect()))
}

pub(super) fn dict_get(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [k, default] = a.bind(["key", "default"], 1)?;
    let key = rt.hash_key(&k.unwrap())?;
    let found = this_dict(a).borrow().get(&key).map(|(_, v)| v.clone());
    Ok(found.or(default).unwrap_or(Value::None))
}

pub(super) fn dict_pop(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [k, default] = a.bind(["key", "default"], 1)?;
    let kv = k.unwrap();
    let key = rt.hash_key(&kv)?;
    let found = this_dict(a).borrow_mut().shift_remove(&key).map(|(_, v)| v);
    match (found, default) {
        (Some(v), _) | (None, Some(v)) => Ok(v),
        (None, None) => {
            let r = rt.repr_of(&kv)?;
            Err(err!(Key, "{r}"))
        }
    }
}

pub(super) fn dict_update(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [other] = a.bind(["other"], 1)?;
    let Value::Dict(o) = other.unwrap() else { bail!(Type, "update() needs a dict") };
    let items: Vec<_> = o.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let _ = rt;
    let d = this_dict(a);
    for (h, (k, v)) in items {
        crate::runtime::value::dict_store(&mut d.borrow_mut(), h, k, v);
    }
    Ok(Value::None)
}

pub(super) fn dict_setdefault(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [k, default] = a.bind(["key", "default"], 1)?;
    let kv = k.unwrap();
    let key = rt.hash_key(&kv)?;
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

pub(super) fn dict_copy(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    a.bind([], 0)?;
    Ok(Value::Dict(Rc::new(RefCell::new(this_dict(a).borrow().clone()))))
}

pub(super) fn this_str(a: &Args) -> R<Rc<str>> {
    match a.this() {
        Value::Str(s) => Ok(s),
        _ => unreachable!("str methods are bound to strings"),
    }
}

/// `"{} {:.2f} {name}".format(…)`
pub(super) fn str_format(rt: &mut Interp, a: &mut Args) -> R<Value> {
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
                    pos.get(auto - 1)
                        .cloned()
                        .ok_or_else(|| err!(Index, "replacement index {} out of range", auto - 1))?
                } else if let Ok(k) = name.parse::<usize>() {
                    pos.get(k).cloned().ok_or_else(|| err!(Index, "replacement index {k} out of range"))?
                } else {
                    kw.iter()
                        .find(|(k, _)| k.as_ref() == name)
                        .map(|(_, v)| v.clone())
                        .ok_or_else(|| err!(Key, "'{name}'"))?
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

pub(super) fn str_join(rt: &mut Interp, a: &mut Args) -> R<Value> {
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

pub(super) fn str_split(_rt: &mut Interp, a: &mut Args) -> R<Value> {
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

pub(super) fn str_startswith(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [p] = a.bind(["prefix"], 1)?;
    match p.unwrap() {
        Value::Str(p) => Ok(Value::Bool(this_str(a)?.starts_with(p.as_ref()))),
        other => bail!(Type, "startswith() needs a string, not {}", other.type_name()),
    }
}

pub(super) fn str_endswith(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [p] = a.bind(["suffix"], 1)?;
    match p.unwrap() {
        Value::Str(p) => Ok(Value::Bool(this_str(a)?.ends_with(p.as_ref()))),
        other => bail!(Type, "endswith() needs a string, not {}", other.type_name()),
    }
}

pub(super) fn str_replace(_rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [old, new] = a.bind(["old", "new"], 2)?;
    match (old.unwrap(), new.unwrap()) {
        (Value::Str(o), Value::Str(n)) => Ok(Value::str(&this_str(a)?.replace(o.as_ref(), &n))),
        _ => bail!(Type, "replace() needs strings"),
    }
}

/// `s.strip(chars=None)` and its one-sided forms: whitespace, or any of `chars`.
pub(super) fn str_strip(a: &mut Args, left: bool, right: bool) -> R<Value> {
    let [chars] = a.bind(["chars"], 0)?;
    let s = this_str(a)?;
    let set: Option<Vec<char>> = match chars {
        None | Some(Value::None) => None,
        Some(Value::Str(c)) => Some(c.chars().collect()),
        Some(other) => bail!(Type, "{}() arg must be None or str, not {}", a.fname, other.type_name()),
    };
    let strip = |c: char| set.as_ref().map_or(c.is_whitespace(), |set| set.contains(&c));
    let mut t: &str = &s;
    if left {
        t = t.trim_start_matches(strip);
    }
    if right {
        t = t.trim_end_matches(strip);
    }
    Ok(Value::str(t))
}
