//! Builtins of the language's own protocols: iteration (`iter`, `next`, generator
//! methods), sets (`set` and its methods), `staticmethod`, `classmethod` and `object`.

use super::{Native, Signature, NO_ARGS};
use crate::error::{ErrorKind, Exc, R};
use crate::intern::intern;
use crate::runtime::generator::{Generator, Step};
use crate::runtime::index::Iter;
use crate::runtime::value::{Args, Builtin, BuiltinKind, Class, Set, Value};
use crate::runtime::Interp;
use crate::{bail, err};
use std::cell::RefCell;
use std::rc::Rc;

pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&ITER);
    reg(&NEXT);
    reg(&SET);
    reg(&FROZENSET);
    reg(&STATICMETHOD);
    reg(&CLASSMETHOD);
}

/// Installs `object`, the base every class may name (`class A(object):`).
pub fn install(rt: &mut Interp) {
    let init = OBJECT_INIT.value_named("object.__init__");
    let mut attrs = rustc_hash::FxHashMap::default();
    attrs.insert(intern("__init__"), init);
    attrs.insert(intern("__setattr__"), OBJECT_SETATTR.value_named("object.__setattr__"));
    let object = Class { name: "object".into(), base: None, attrs: RefCell::new(attrs), error_kind: None };
    rt.builtins.insert(intern("object"), Value::Class(Rc::new(object)));
}

pub use crate::runtime::call::is_object_class;

static OBJECT_INIT: Native = Native::new("__init__", &[], object_init);

/// `object.__init__(self)`: does nothing; reached by `super().__init__()` (unbound: no
/// arguments) or `object.__init__(self)`.
/// Errors: TypeError for any further argument (CPython's message).
fn object_init(_rt: &mut Interp, args: &mut Args) -> R<Value> {
    if args.pos.len() > 1 || !args.kw.is_empty() {
        bail!(Type, "object.__init__() takes exactly one argument (the instance to initialize)");
    }
    Ok(Value::None)
}

static OBJECT_SETATTR: Native = Native::new("__setattr__", &["self", "name", "value"], object_setattr);

/// `object.__setattr__(self, name, value)`: sets the attribute as `self.name = value` does
/// without the class's own `__setattr__` (a property's setter still runs), so that a
/// `__setattr__` can store what it was given.
/// Errors: TypeError when `name` is not a string; AttributeError for an object whose
/// attributes cannot be set.
fn object_setattr(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut b = OBJECT_SETATTR.bind(rt, args)?;
    let this = b.value("self")?;
    let name = match b.value("name")? {
        Value::Str(s) => intern(&s),
        other => bail!(Type, "attribute name must be string, not '{}'", other.type_name()),
    };
    let value = b.value("value")?;
    rt.set_attr_plain(&this, name, value)?;
    Ok(Value::None)
}

static ITER: Native = Native::new("iter", &["object"], iter);

/// `iter(object)`: an iterator over `object`. A generator or an iterator object (one
/// whose class has `__next__`) is its own iterator; `__iter__` is called when defined;
/// lists, tuples, strings, dicts (their keys), sets, ranges and tensors get an iterator
/// over their items (taken when `iter` is called).
/// Errors: TypeError if `object` is not iterable.
/// See: Python's `iter`.
fn iter(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = ITER.bind(rt, args)?.value("object")?;
    if let Value::Generator(_) = x {
        return Ok(x);
    }
    let name = match &x {
        Value::Dict(_) => "dict_keyiterator".to_string(),
        Value::Str(_) => "str_ascii_iterator".to_string(),
        other => format!("{}_iterator", other.type_name()),
    };
    Ok(match rt.iter_of(&x)? {
        Iter::Next(obj) => obj,
        Iter::Gen(g) => Value::Generator(g),
        it => Value::Generator(Rc::new(Generator::native(&name, it))),
    })
}

static NEXT: Native = Native::new("next", &["iterator", "default=None"], next);

/// `next(iterator[, default])`: the iterator's next item; at its end, `default` if given.
/// Errors: StopIteration at the end without a default (with a generator's return value
/// as its message, as `str(e)` shows in CPython); TypeError if `iterator` is not one.
/// See: Python's `next`.
fn next(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = NEXT.bind(rt, args)?;
    let (it, default) = (a.value("iterator")?, a.opt("default")?);
    let end = |value: Value, default: Option<Value>, rt: &mut Interp| -> R<Value> {
        match default {
            Some(d) => Ok(d),
            None => Err(stop_iteration(rt, &value)?),
        }
    };
    match &it {
        Value::Generator(g) => match rt.resume(g, Value::None)? {
            Step::Yielded(v) => Ok(v),
            Step::Returned(v) => end(v, default, rt),
        },
        Value::Instance(i) if i.class.lookup(intern("__next__")).is_some() => {
            match rt.call_dunder(&it, "__next__", vec![]) {
                Ok(Some(v)) => Ok(v),
                Ok(None) => unreachable!("the class has __next__"),
                Err(e) if e.kind() == ErrorKind::StopIteration && default.is_some() => Ok(default.unwrap()),
                Err(e) => Err(e),
            }
        }
        other => bail!(Type, "'{}' object is not an iterator", other.type_name()),
    }
}

/// The StopIteration that ends a generator which returned `value` (its message is
/// `str(value)`, empty for `None`).
fn stop_iteration(rt: &mut Interp, value: &Value) -> R<Exc> {
    let msg = match value {
        Value::None => String::new(),
        v => rt.str_of(v)?,
    };
    let mut e = Exc::new(ErrorKind::StopIteration, msg);
    // `e.value` and `e.args`: the returned value itself (no args for `None`).
    let args = if matches!(value, Value::None) { vec![] } else { vec![value.clone()] };
    crate::runtime::value::set_exception_args(&mut e, args);
    Ok(e)
}

pub(super) static GENERATOR_SEND: Native = Native::new("send", &["value"], generator_send);

/// `g.send(value)`: resumes the generator with `value` as the result of the `yield`
/// it stopped at; returns the next value it yields.
/// Errors: StopIteration when it returns; TypeError for a non-None value sent to a
/// generator that has not started.
pub(super) fn generator_send(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let g = this_generator(args)?;
    let v = GENERATOR_SEND.bind(rt, args)?.value("value")?;
    match rt.resume(&g, v)? {
        Step::Yielded(v) => Ok(v),
        Step::Returned(v) => Err(stop_iteration(rt, &v)?),
    }
}

pub(super) static GENERATOR_THROW: Native = Native::new("throw", &["typ", "val=None", "tb=None"], generator_throw);

/// `g.throw(value)` (or `g.throw(type, value)`): raises the exception at the `yield` where
/// `g` is suspended; the value it yields next.
/// Errors: StopIteration when it returns instead; the exception (or what the body raises)
/// when it leaves by an error; TypeError for a value that is not an exception.
pub(super) fn generator_throw(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let g = this_generator(args)?;
    let mut a = GENERATOR_THROW.bind(rt, args)?;
    let typ = a.value("typ")?;
    let val = a.value_or("val", Value::None)?;
    // `throw(ValueError, "message")` raises ValueError("message"), as CPython's old form.
    let raised = match (&typ, val) {
        (Value::ErrorType(_) | Value::Class(_), v) if !matches!(v, Value::None) => {
            rt.call_value(&typ, vec![v], vec![])?
        }
        (_, _) => typ,
    };
    let e = rt.exception_from(raised)?;
    match rt.generator_throw(&g, e)? {
        Step::Yielded(v) => Ok(v),
        Step::Returned(v) => Err(stop_iteration(rt, &v)?),
    }
}

pub(super) static GENERATOR_CLOSE: Native = Native::with("close", NO_ARGS, generator_close);

/// `g.close()`: raises GeneratorExit at the `yield` where `g` is suspended, so its
/// `finally` blocks run. Errors: RuntimeError if it yields again.
pub(super) fn generator_close(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let g = this_generator(args)?;
    super::NO_ARGS.bind(rt, args)?;
    rt.generator_close(&g)?;
    Ok(Value::None)
}

pub(super) static GENERATOR_NEXT: Native = Native::with("__next__", NO_ARGS, generator_next);

/// `g.__next__()`: as `next(g)`.
pub(super) fn generator_next(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let g = this_generator(args)?;
    super::NO_ARGS.bind(rt, args)?;
    match rt.resume(&g, Value::None)? {
        Step::Yielded(v) => Ok(v),
        Step::Returned(v) => Err(stop_iteration(rt, &v)?),
    }
}

fn this_generator(a: &Args) -> R<Rc<Generator>> {
    match &a.this {
        Some(Value::Generator(g)) => Ok(g.clone()),
        _ => Err(err!(Runtime, "internal error: a generator method bound to something else")),
    }
}

static STATICMETHOD: Native = Native::new("staticmethod", &["function"], staticmethod);

/// `staticmethod(function)`: read through its class or an instance, the function itself
/// (no receiver is bound).
fn staticmethod(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let f = STATICMETHOD.bind(rt, args)?.value("function")?;
    Ok(Value::Builtin(Rc::new(Builtin { name: "staticmethod".into(), kind: BuiltinKind::StaticMethod(f) })))
}

static CLASSMETHOD: Native = Native::new("classmethod", &["function"], classmethod);

/// `classmethod(function)`: read through its class or an instance (of a subclass too),
/// the function with that class bound as its first argument.
fn classmethod(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let f = CLASSMETHOD.bind(rt, args)?.value("function")?;
    Ok(Value::Builtin(Rc::new(Builtin { name: "classmethod".into(), kind: BuiltinKind::ClassMethod(f) })))
}

static SET: Native = Native::new("set", &["iterable=()"], set)
    // Sets in insertion order, as DGL's (a Python set iterates and prints in hash order).
    .exported_as("dgl_tf.set");

/// `set(iterable=())`: a new set of the iterable's items.
/// Errors: TypeError for an unhashable item (a list, dict or set).
/// See: Python's `set`; the iteration order is [`Set`]'s.
fn set(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = SET.bind(rt, args)?.opt("iterable")?;
    let mut s = Set::default();
    if let Some(x) = x {
        add_all(rt, &mut s, &x)?;
    }
    Ok(Value::Set(Rc::new(RefCell::new(s))))
}

fn add_all(rt: &mut Interp, s: &mut Set, items: &Value) -> R<()> {
    for item in rt.iterate(items)? {
        let h = rt.hash_key(&item)?;
        s.entry(h).or_insert(item);
    }
    Ok(())
}

fn this_set(a: &Args) -> R<Rc<RefCell<Set>>> {
    match &a.this {
        Some(Value::Set(s) | Value::FrozenSet(s)) => Ok(s.clone()),
        _ => Err(err!(Runtime, "internal error: a set method bound to something else")),
    }
}

static FROZENSET: Native = Native::new("frozenset", &["iterable=()"], frozenset);

/// `frozenset(iterable=())`: an immutable, hashable set of the iterable's items.
/// Errors: TypeError for an unhashable item. See: Python's `frozenset`.
fn frozenset(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = FROZENSET.bind(rt, args)?.opt("iterable")?;
    if let Some(f @ Value::FrozenSet(_)) = &x {
        return Ok(f.clone());
    }
    let mut s = Set::default();
    if let Some(x) = x {
        add_all(rt, &mut s, &x)?;
    }
    Ok(Value::FrozenSet(Rc::new(RefCell::new(s))))
}

/// A new set of the receiver's type: the read-only methods of a frozenset give frozensets.
fn like_this(a: &Args, s: Set) -> Value {
    match &a.this {
        Some(Value::FrozenSet(_)) => Value::FrozenSet(Rc::new(RefCell::new(s))),
        _ => Value::Set(Rc::new(RefCell::new(s))),
    }
}

const ELEM: Signature = Signature::new(&["elem"]);
const OTHER: Signature = Signature::new(&["other"]);

pub(super) static SET_ADD: Native = Native::with("add", ELEM, set_add);

/// `s.add(elem)`. Errors: TypeError for an unhashable element.
pub(super) fn set_add(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_set(args)?;
    let x = ELEM.bind(rt, args)?.value("elem")?;
    let h = rt.hash_key(&x)?;
    let mut s = s.borrow_mut();
    crate::tensor::budget::grow_map("a set", s.len(), s.capacity(), crate::runtime::value::SET_ENTRY_BYTES)?;
    s.entry(h).or_insert(x);
    Ok(Value::None)
}

pub(super) static SET_REMOVE: Native = Native::with("remove", ELEM, set_remove);

/// `s.remove(elem)`. Errors: KeyError (the element's repr) when it is not there.
pub(super) fn set_remove(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_set(args)?;
    let x = ELEM.bind(rt, args)?.value("elem")?;
    let h = rt.hash_key(&x)?;
    if s.borrow_mut().shift_remove(&h).is_none() {
        return Err(rt.key_error(&x));
    }
    Ok(Value::None)
}

pub(super) static SET_DISCARD: Native = Native::with("discard", ELEM, set_discard);

/// `s.discard(elem)`: removes it if it is there.
pub(super) fn set_discard(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_set(args)?;
    let x = ELEM.bind(rt, args)?.value("elem")?;
    let h = rt.hash_key(&x)?;
    s.borrow_mut().shift_remove(&h);
    Ok(Value::None)
}

pub(super) static SET_POP: Native = Native::with("pop", NO_ARGS, set_pop);

/// `s.pop()`: removes and returns the first element in iteration order.
/// Errors: KeyError for an empty set.
pub(super) fn set_pop(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_set(args)?;
    super::NO_ARGS.bind(rt, args)?;
    let first = s.borrow_mut().shift_remove_index(0);
    match first {
        Some((_, v)) => Ok(v),
        None => Err(rt.key_error(&Value::str("pop from an empty set"))),
    }
}

pub(super) static SET_CLEAR: Native = Native::with("clear", NO_ARGS, set_clear);

/// `s.clear()`
pub(super) fn set_clear(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_set(args)?;
    super::NO_ARGS.bind(rt, args)?;
    s.borrow_mut().clear();
    Ok(Value::None)
}

pub(super) static FROZENSET_COPY: Native = Native::with("copy", NO_ARGS, set_copy);

/// `s.copy()`
pub(super) fn set_copy(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_set(args)?;
    super::NO_ARGS.bind(rt, args)?;
    if let Some(f @ Value::FrozenSet(_)) = &args.this {
        return Ok(f.clone());
    }
    let copy = s.borrow().clone();
    Ok(Value::Set(Rc::new(RefCell::new(copy))))
}

pub(super) static SET_UPDATE: Native = Native::new("update", &["*others"], set_update);

/// `s.update(*iterables)`: adds every item of each.
pub(super) fn set_update(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_set(args)?;
    no_keywords(args)?;
    let mut new = s.borrow().clone();
    for x in std::mem::take(&mut args.pos) {
        add_all(rt, &mut new, &x)?;
    }
    *s.borrow_mut() = new;
    Ok(Value::None)
}

fn no_keywords(args: &Args) -> R<()> {
    if !args.kw.is_empty() {
        bail!(Type, "{}() takes no keyword arguments", args.fname);
    }
    Ok(())
}

/// The items of each argument as a set (any iterable, as CPython's set methods take).
fn others(rt: &mut Interp, args: &mut Args) -> R<Vec<Set>> {
    no_keywords(args)?;
    let mut out = Vec::new();
    for x in std::mem::take(&mut args.pos) {
        let mut s = Set::default();
        add_all(rt, &mut s, &x)?;
        out.push(s);
    }
    Ok(out)
}

pub(super) static FROZENSET_UNION: Native = Native::new("union", &["*others"], set_union);

/// `s.union(*others)`: a new set of the elements in `s` or any of them.
pub(super) fn set_union(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut out = this_set(args)?.borrow().clone();
    for o in others(rt, args)? {
        for (k, v) in o {
            out.entry(k).or_insert(v);
        }
    }
    Ok(like_this(args, out))
}

pub(super) static FROZENSET_INTERSECTION: Native = Native::new("intersection", &["*others"], set_intersection);

/// `s.intersection(*others)`: a new set of the elements of `s` in all of them.
pub(super) fn set_intersection(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut out = this_set(args)?.borrow().clone();
    for o in others(rt, args)? {
        out.retain(|k, _| o.contains_key(k));
    }
    Ok(like_this(args, out))
}

pub(super) static FROZENSET_DIFFERENCE: Native = Native::new("difference", &["*others"], set_difference);

/// `s.difference(*others)`: a new set of the elements of `s` in none of them.
pub(super) fn set_difference(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut out = this_set(args)?.borrow().clone();
    for o in others(rt, args)? {
        out.retain(|k, _| !o.contains_key(k));
    }
    Ok(like_this(args, out))
}

pub(super) static FROZENSET_SYMMETRIC_DIFFERENCE: Native =
    Native::with("symmetric_difference", OTHER, set_symmetric_difference);

/// `s.symmetric_difference(other)`: the elements in exactly one of the two.
pub(super) fn set_symmetric_difference(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_set(args)?.borrow().clone();
    let x = OTHER.bind(rt, args)?.value("other")?;
    let mut o = Set::default();
    add_all(rt, &mut o, &x)?;
    let mut out: Set = s.iter().filter(|(k, _)| !o.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())).collect();
    for (k, v) in o {
        if !s.contains_key(&k) {
            out.insert(k, v);
        }
    }
    Ok(like_this(args, out))
}

/// The set `other` names (any iterable), for the comparisons below.
fn other_set(rt: &mut Interp, args: &mut Args) -> R<(Rc<RefCell<Set>>, Set)> {
    let s = this_set(args)?;
    let x = OTHER.bind(rt, args)?.value("other")?;
    let mut o = Set::default();
    add_all(rt, &mut o, &x)?;
    Ok((s, o))
}

pub(super) static FROZENSET_ISSUBSET: Native = Native::with("issubset", OTHER, set_issubset);

/// `s.issubset(other)`: every element of `s` is in `other`.
pub(super) fn set_issubset(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let (s, o) = other_set(rt, args)?;
    let r = s.borrow().keys().all(|k| o.contains_key(k));
    Ok(Value::Bool(r))
}

pub(super) static FROZENSET_ISSUPERSET: Native = Native::with("issuperset", OTHER, set_issuperset);

/// `s.issuperset(other)`: every element of `other` is in `s`.
pub(super) fn set_issuperset(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let (s, o) = other_set(rt, args)?;
    let r = o.keys().all(|k| s.borrow().contains_key(k));
    Ok(Value::Bool(r))
}

pub(super) static FROZENSET_ISDISJOINT: Native = Native::with("isdisjoint", OTHER, set_isdisjoint);

/// `s.isdisjoint(other)`: no element in common.
pub(super) fn set_isdisjoint(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let (s, o) = other_set(rt, args)?;
    let r = !s.borrow().keys().any(|k| o.contains_key(k));
    Ok(Value::Bool(r))
}

pub(super) static SET_INTERSECTION_UPDATE: Native =
    Native::new("intersection_update", &["*others"], set_intersection_update);

/// `s.intersection_update(*others)`: keeps the elements in all of them.
pub(super) fn set_intersection_update(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_set(args)?;
    for o in others(rt, args)? {
        s.borrow_mut().retain(|k, _| o.contains_key(k));
    }
    Ok(Value::None)
}

pub(super) static SET_DIFFERENCE_UPDATE: Native = Native::new("difference_update", &["*others"], set_difference_update);

/// `s.difference_update(*others)`: removes the elements in any of them.
pub(super) fn set_difference_update(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_set(args)?;
    for o in others(rt, args)? {
        s.borrow_mut().retain(|k, _| !o.contains_key(k));
    }
    Ok(Value::None)
}

pub(super) static SET_SYMMETRIC_DIFFERENCE_UPDATE: Native =
    Native::with("symmetric_difference_update", OTHER, set_symmetric_difference_update);

/// `s.symmetric_difference_update(other)`: the elements in exactly one of the two.
pub(super) fn set_symmetric_difference_update(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let s = this_set(args)?;
    let x = OTHER.bind(rt, args)?.value("other")?;
    let mut o = Set::default();
    add_all(rt, &mut o, &x)?;
    let mut s = s.borrow_mut();
    for (k, v) in o {
        if s.shift_remove(&k).is_none() {
            s.insert(k, v);
        }
    }
    Ok(Value::None)
}
