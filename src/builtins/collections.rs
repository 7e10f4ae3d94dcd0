//! Methods of lists, dicts and strings (docs/language.md §2), with Python's behaviour
//! (the rest of the string methods are in strings.rs).

use super::{receiver, Native, Signature, NO_ARGS};
use crate::bail;
use crate::error::R;
use crate::runtime::value::{Args, Dict, HashKey, Value};
use crate::runtime::Interp;
use std::cell::RefCell;
use std::rc::Rc;

/// No parameters: `xs.copy()`, `d.keys()`, `s.upper()`.
/// `(value)`: `xs.index`, `xs.count`, `xs.remove`.
const VALUE: Signature = Signature::new(&["value"]);
/// `(key, default=None)`: `d.get`, `d.setdefault`.
const KEY_DEFAULT: Signature = Signature::new(&["key", "default=None"]);

pub(super) fn this_list(a: &Args) -> R<Rc<RefCell<Vec<Value>>>> {
    match receiver(a)? {
        Value::List(l) => Ok(l.clone()),
        other => bail!(Runtime, "internal error: a list method bound to a {}", other.type_name()),
    }
}

pub(super) static LIST_APPEND: Native = Native::new("append", &["object"], list_append);

/// `xs.append(object)`
pub(super) fn list_append(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let l = this_list(args)?;
    let x = LIST_APPEND.bind(rt, args)?.value("object")?;
    let mut l = l.borrow_mut();
    crate::tensor::budget::grow("a list", &mut l, 1)?;
    l.push(x);
    Ok(Value::None)
}

pub(super) static LIST_EXTEND: Native = Native::new("extend", &["iterable"], list_extend);

/// `xs.extend(iterable)`
pub(super) fn list_extend(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let l = this_list(args)?;
    let x = LIST_EXTEND.bind(rt, args)?.value("iterable")?;
    let items = rt.iterate(&x)?;
    let mut l = l.borrow_mut();
    crate::tensor::budget::grow("a list", &mut l, items.len())?;
    l.extend(items);
    Ok(Value::None)
}

pub(super) static LIST_POP: Native = Native::new("pop", &["index=-1"], list_pop);

/// `xs.pop(index=-1)`. Errors: IndexError for an empty list or an index out of range.
pub(super) fn list_pop(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let l = this_list(args)?;
    let i = LIST_POP.bind(rt, args)?.opt("index")?;
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

pub(super) static LIST_INSERT: Native = Native::new("insert", &["index: int", "object"], list_insert);

/// `xs.insert(index, object)`: an index past either end inserts at that end.
pub(super) fn list_insert(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let l = this_list(args)?;
    let mut a = LIST_INSERT.bind(rt, args)?;
    let (i, x) = (a.int("index")?, a.value("object")?);
    let n = l.borrow().len() as i64;
    let k = if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
    let mut l = l.borrow_mut();
    crate::tensor::budget::grow("a list", &mut l, 1)?;
    l.insert(k, x);
    Ok(Value::None)
}

/// The position of the first item equal to `x`. Errors: ValueError when there is none.
fn position(rt: &mut Interp, args: &mut Args) -> R<(Rc<RefCell<Vec<Value>>>, usize)> {
    let l = this_list(args)?;
    let x = VALUE.bind(rt, args)?.value("value")?;
    let items = l.borrow().clone();
    for (i, v) in items.iter().enumerate() {
        if v.is(&x) || rt.values_equal(v, &x)? {
            return Ok((l, i));
        }
    }
    let r = rt.repr_of(&x)?;
    bail!(Value, "{r} is not in list")
}

pub(super) static LIST_INDEX: Native =
    Native::new("index", &["value", "start: int | None = None", "stop: int | None = None"], list_index);

/// `xs.index(value, start=0, stop=len(xs))`: the position of the first equal item in
/// `xs[start:stop]` (negative bounds count from the end, as in a slice).
/// Errors: ValueError when there is none.
pub(super) fn list_index(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let l = this_list(args)?;
    let mut b = LIST_INDEX.bind(rt, args)?;
    let (x, start, stop) = (b.value("value")?, b.opt_int("start")?, b.opt_int("stop")?);
    let items = l.borrow().clone();
    if let Some(i) = super::numbers::position_between(rt, &items, &x, start, stop)? {
        return Ok(Value::Int(i));
    }
    let r = rt.repr_of(&x)?;
    bail!(Value, "{r} is not in list")
}

pub(super) static LIST_COUNT: Native = Native::with("count", VALUE, list_count);

/// `xs.count(value)`
pub(super) fn list_count(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let l = this_list(args)?;
    let x = VALUE.bind(rt, args)?.value("value")?;
    let items = l.borrow().clone();
    let mut n = 0;
    for v in &items {
        if rt.values_equal(v, &x)? {
            n += 1;
        }
    }
    Ok(Value::Int(n))
}

pub(super) static LIST_REMOVE: Native = Native::with("remove", VALUE, list_remove);

/// `xs.remove(value)`: the first equal item. Errors: ValueError when there is none.
pub(super) fn list_remove(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let (l, i) = position(rt, args)?;
    l.borrow_mut().remove(i);
    Ok(Value::None)
}

pub(super) static LIST_REVERSE: Native = Native::with("reverse", NO_ARGS, list_reverse);

/// `xs.reverse()`: in place.
pub(super) fn list_reverse(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let l = this_list(args)?;
    NO_ARGS.bind(rt, args)?;
    l.borrow_mut().reverse();
    Ok(Value::None)
}

pub(super) static LIST_COPY: Native = Native::with("copy", NO_ARGS, list_copy);

/// `xs.copy()`: a shallow copy.
pub(super) fn list_copy(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let l = this_list(args)?;
    NO_ARGS.bind(rt, args)?;
    let items = l.borrow().clone();
    Ok(Value::list(items))
}

pub(super) static LIST_CLEAR: Native = Native::with("clear", NO_ARGS, list_clear);

/// `xs.clear()`
pub(super) fn list_clear(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let l = this_list(args)?;
    NO_ARGS.bind(rt, args)?;
    l.borrow_mut().clear();
    Ok(Value::None)
}

pub(super) static LIST_SORT: Native = Native::new("sort", &["*", "key=None", "reverse: bool = False"], list_sort);

/// `xs.sort(*, key=None, reverse=False)`: in place, stable, through `sorted`.
pub(super) fn list_sort(rt: &mut Interp, args: &mut Args) -> R<Value> {
    // CPython: sort takes its arguments by keyword only.
    let l = this_list(args)?;
    let mut a = LIST_SORT.bind(rt, args)?;
    if !a.rest.is_empty() {
        bail!(Type, "sort() takes no positional arguments");
    }
    let (key, reverse) = (a.non_none("key")?, a.bool_or("reverse", false)?);
    let items = l.borrow().clone();
    let v = sort_values(rt, items, key.as_ref(), reverse)?;
    *l.borrow_mut() = v;
    Ok(Value::None)
}

/// `items` in order by `key(item)` (the item itself without one), descending when `reverse`:
/// what `sorted` and `list.sort` do. Python's sort asks only `<`, in a stable merge sort: any
/// answers, even inconsistent ones (NaN, a user's __lt__), give some order of the same items,
/// never a panic.
pub(super) fn sort_values(rt: &mut Interp, items: Vec<Value>, key: Option<&Value>, reverse: bool) -> R<Vec<Value>> {
    let mut keyed = Vec::with_capacity(items.len());
    for x in items {
        let k = match key {
            None => x.clone(),
            Some(f) => rt.call_value(f, vec![x.clone()], vec![])?,
        };
        keyed.push((k, x));
    }
    let keyed = merge_sort(keyed, &mut |p: &(Value, Value), q: &(Value, Value)| {
        if reverse {
            rt.less(&p.0, &q.0).map(|b| !b)
        } else {
            rt.less(&q.0, &p.0).map(|b| !b)
        }
    })?;
    Ok(keyed.into_iter().map(|(_, x)| x).collect())
}

/// A stable merge sort by a fallible `in_order(p, q)` ("p may stay before q"); it calls the
/// comparison O(n log n) times and terminates whatever the comparison answers.
fn merge_sort<T: Clone>(items: Vec<T>, in_order: &mut impl FnMut(&T, &T) -> R<bool>) -> R<Vec<T>> {
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

pub(super) fn this_dict(a: &Args) -> R<Rc<RefCell<crate::runtime::value::Dict>>> {
    match receiver(a)? {
        Value::Dict(d) => Ok(d.clone()),
        other => bail!(Runtime, "internal error: a dict method bound to a {}", other.type_name()),
    }
}

pub(super) static DICT_KEYS: Native = Native::with("keys", NO_ARGS, dict_keys);

/// `d.keys()`: a list, in insertion order.
pub(super) fn dict_keys(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this_dict(args)?;
    NO_ARGS.bind(rt, args)?;
    let keys = d.borrow().values().map(|(k, _)| k.clone()).collect();
    Ok(Value::list(keys))
}

pub(super) static DICT_VALUES: Native = Native::with("values", NO_ARGS, dict_values);

/// `d.values()`: a list, in insertion order.
pub(super) fn dict_values(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this_dict(args)?;
    NO_ARGS.bind(rt, args)?;
    let values = d.borrow().values().map(|(_, v)| v.clone()).collect();
    Ok(Value::list(values))
}

pub(super) static DICT_ITEMS: Native = Native::with("items", NO_ARGS, dict_items);

/// `d.items()`: a list of `(key, value)` tuples, in insertion order.
pub(super) fn dict_items(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this_dict(args)?;
    NO_ARGS.bind(rt, args)?;
    let items = d.borrow().values().map(|(k, v)| Value::tuple(vec![k.clone(), v.clone()])).collect();
    Ok(Value::list(items))
}

pub(super) static DICT_GET: Native = Native::with("get", KEY_DEFAULT, dict_get);

/// `d.get(key, default=None)`
pub(super) fn dict_get(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this_dict(args)?;
    let mut a = KEY_DEFAULT.bind(rt, args)?;
    let (k, default) = (a.value("key")?, a.value_or("default", Value::None)?);
    let key = rt.hash_key(&k)?;
    let found = d.borrow().get(&key).map(|(_, v)| v.clone());
    Ok(found.unwrap_or(default))
}

pub(super) static DICT_POP: Native = Native::new("pop", &["key", "default=None"], dict_pop);

/// `d.pop(key[, default])`. Errors: KeyError when the key is absent and no default is given.
pub(super) fn dict_pop(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this_dict(args)?;
    let mut a = DICT_POP.bind(rt, args)?;
    let (kv, default) = (a.value("key")?, a.opt("default")?);
    let key = rt.hash_key(&kv)?;
    let found = d.borrow_mut().shift_remove(&key).map(|(_, v)| v);
    match (found, default) {
        (Some(v), _) | (None, Some(v)) => Ok(v),
        (None, None) => Err(rt.key_error(&kv)),
    }
}

pub(super) static DICT_UPDATE: Native = Native::new("update", &["other=()", "**kwargs"], dict_update);

/// `d.update(other=(), **kwargs)`: every entry of `other` (a dict or (key, value) pairs), in its
/// order, then the keywords.
pub(super) fn dict_update(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this_dict(args)?;
    let kw = std::mem::take(&mut args.kw);
    let other = DICT_UPDATE.bind(rt, args)?.opt("other")?;
    let mut new = d.borrow().clone();
    merge_into(rt, &mut new, other, kw)?;
    *d.borrow_mut() = new;
    Ok(Value::None)
}

/// Adds to `d` the entries of `items` (a dict, or an iterable of (key, value) pairs) and
/// then the keywords: what `dict(items, **kw)` and `d.update(items, **kw)` share.
/// Errors: ValueError for an element that is not a pair, TypeError for one that is not
/// iterable (CPython's messages name the element's position).
pub(super) fn merge_into(rt: &mut Interp, d: &mut Dict, items: Option<Value>, kw: Vec<(Rc<str>, Value)>) -> R<()> {
    if let Some(x) = items {
        let items: Vec<Value> = match &x {
            Value::Dict(src) => src.borrow().values().map(|(k, v)| Value::tuple(vec![k.clone(), v.clone()])).collect(),
            other => rt.iterate(other)?,
        };
        for (i, item) in items.into_iter().enumerate() {
            let kv = match rt.iterate(&item) {
                Ok(kv) => kv,
                Err(e) if e.kind() == crate::error::ErrorKind::Type => {
                    bail!(Type, "cannot convert dictionary update sequence element #{i} to a sequence")
                }
                Err(e) => return Err(e),
            };
            if kv.len() != 2 {
                bail!(Value, "dictionary update sequence element #{i} has length {}; 2 is required", kv.len());
            }
            let h = rt.hash_key(&kv[0])?;
            crate::runtime::value::dict_store(d, h, kv[0].clone(), kv[1].clone())?;
        }
    }
    for (k, v) in kw {
        let k = crate::text::Text::from(k);
        crate::runtime::value::dict_store(d, HashKey::Str(k.clone()), Value::Str(k), v)?;
    }
    Ok(())
}

pub(super) static DICT_SETDEFAULT: Native = Native::with("setdefault", KEY_DEFAULT, dict_setdefault);

/// `d.setdefault(key, default=None)`: the value, after storing `default` if the key was absent.
pub(super) fn dict_setdefault(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this_dict(args)?;
    let mut a = KEY_DEFAULT.bind(rt, args)?;
    let (kv, default) = (a.value("key")?, a.value_or("default", Value::None)?);
    let key = rt.hash_key(&kv)?;
    let existing = d.borrow().get(&key).map(|(_, v)| v.clone());
    Ok(match existing {
        Some(v) => v,
        None => {
            d.borrow_mut().insert(key, (kv, default.clone()));
            default
        }
    })
}

pub(super) static DICT_COPY: Native = Native::with("copy", NO_ARGS, dict_copy);

/// `d.copy()`: a shallow copy.
pub(super) fn dict_copy(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this_dict(args)?;
    NO_ARGS.bind(rt, args)?;
    let copy = d.borrow().clone();
    Ok(Value::Dict(Rc::new(RefCell::new(copy))))
}

pub(super) static DICT_CLEAR: Native = Native::with("clear", NO_ARGS, dict_clear);

/// `d.clear()`: removes every entry.
pub(super) fn dict_clear(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this_dict(args)?;
    NO_ARGS.bind(rt, args)?;
    d.borrow_mut().clear();
    Ok(Value::None)
}

pub(super) static DICT_POPITEM: Native = Native::with("popitem", NO_ARGS, dict_popitem);

/// `d.popitem()`: removes and returns the last inserted `(key, value)` pair.
/// Errors: KeyError "popitem(): dictionary is empty".
pub(super) fn dict_popitem(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this_dict(args)?;
    NO_ARGS.bind(rt, args)?;
    let last = d.borrow_mut().pop();
    match last {
        Some((_, (k, v))) => Ok(Value::tuple(vec![k, v])),
        None => Err(rt.key_error(&Value::str("popitem(): dictionary is empty"))),
    }
}

pub(super) static DICT_FROMKEYS: Native = Native::new("fromkeys", &["iterable", "value=None"], dict_fromkeys);

/// `dict.fromkeys(iterable, value=None)`: a new dict with each item as a key, every one
/// holding `value` (the same object). Read on a dict, the dict is not used, as CPython's
/// class method.
pub(super) fn dict_fromkeys(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = DICT_FROMKEYS.bind(rt, args)?;
    let (items, value) = (a.value("iterable")?, a.value_or("value", Value::None)?);
    let mut d = crate::runtime::value::Dict::default();
    for k in rt.iterate(&items)? {
        let h = rt.hash_key(&k)?;
        crate::runtime::value::dict_store(&mut d, h, k, value.clone())?;
    }
    Ok(Value::Dict(Rc::new(RefCell::new(d))))
}
