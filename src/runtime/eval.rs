//! Expressions.

use super::generator::Generator;
use super::index::Iter;
use super::value::{Dict, Frame, Global, Set, Value};
use super::Interp;
use crate::err;
use crate::error::{Exc, R};
use crate::intern::sym;
use crate::intern::Sym;
use crate::syntax::ast::*;
use crate::syntax::resolve::Slot;
use std::cell::RefCell;
use std::rc::Rc;

impl Interp {
    pub fn eval(&mut self, e: &Expr, env: &mut Frame) -> R<Value> {
        super::stack_guard("while evaluating an expression").map_err(|x| x.at(self.run.src, e.span))?;
        match &e.kind {
            ExprKind::Name(n, slot) => match load(*n, slot.get(), env) {
                Ok(v) => Ok(v),
                // Builtins written in DGL (`Module`) load on their first use.
                Err(x) => match self.lazy_builtin(*n, slot.get(), env) {
                    Ok(Some(v)) => Ok(v),
                    Ok(None) => Err(self.name_hint(x, *n, env).at(self.run.src, e.span)),
                    Err(x) => Err(x.at(self.run.src, e.span)),
                },
            },
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            ExprKind::Float(f) => Ok(Value::Float(*f)),
            ExprKind::Imag(f) => Ok(Value::Complex(0.0, *f)),
            ExprKind::Str(s) => Ok(Value::Str(s.clone())),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::None => Ok(Value::None),
            ExprKind::Ellipsis => Ok(Value::Ellipsis),
            ExprKind::FString(parts) => Ok(Value::Str(self.fstring(parts, env)?.into())),
            ExprKind::List(xs) => Ok(Value::list(self.display(xs, env)?)),
            ExprKind::Tuple(xs) => Ok(Value::tuple(self.display(xs, env)?)),
            ExprKind::Set(xs) => {
                let items = self.display(xs, env)?;
                let mut set = Set::default();
                for (x, item) in xs.iter().cycle().zip(items) {
                    let h = self.hash_key(&item).map_err(|err| err.at(self.run.src, x.span))?;
                    set.entry(h).or_insert(item);
                }
                Ok(Value::Set(Rc::new(RefCell::new(set))))
            }
            ExprKind::Starred(_) => Err(err!(Syntax, "can't use starred expression here").at(self.run.src, e.span)),
            ExprKind::Yield(v) => {
                let v = match v {
                    Some(x) => self.eval(x, env)?,
                    None => Value::None,
                };
                self.yield_value(v).map_err(|x| x.at(self.run.src, e.span))
            }
            ExprKind::YieldFrom(x) => {
                let it = self.eval(x, env)?;
                self.yield_from(&it).map_err(|err| self.locate(err, e.span))
            }
            // CPython evaluates the first iterable, and calls iter() on it, where the
            // expression stands; the rest runs lazily.
            ExprKind::GenExp(def, first) => {
                let it = self.eval(first, env)?;
                let it = match it {
                    Value::Generator(_) => it,
                    other => {
                        let iter = self.iter_of(&other).map_err(|x| x.at(self.run.src, first.span))?;
                        match iter {
                            Iter::Next(obj) => obj,
                            iter => Value::Generator(Rc::new(Generator::native("iterator", iter))),
                        }
                    }
                };
                let f = self.make_function(def, env)?;
                let Value::Func(f) = f else { unreachable!("make_function makes a function") };
                self.call_function(&f, vec![it], vec![]).map_err(|x| self.locate(x, e.span))
            }
            ExprKind::Dict(kvs) => {
                let mut d = Dict::default();
                for (k, v) in kvs {
                    let kv = self.eval(k, env)?;
                    let vv = self.eval(v, env)?;
                    let h = self.hash_key(&kv).map_err(|x| x.at(self.run.src, k.span))?;
                    super::value::dict_store(&mut d, h, kv, vv)?;
                }
                Ok(Value::Dict(Rc::new(RefCell::new(d))))
            }
            ExprKind::Attr(obj, name) => {
                let o = match &obj.kind {
                    // `v[0, 1].assign(x)`: an attribute of a subscript of a Variable, which the
                    // builtins read on the Variable and the index themselves (TF's sliced
                    // assignment) before the subscript is taken.
                    ExprKind::Index(base, index) => {
                        let b = self.eval(base, env)?;
                        let i = self.eval(index, env)?;
                        if matches!(b, Value::Variable(_)) {
                            let hook = self.hooks.subscript_attr;
                            if let Some(v) = hook(self, &b, &i, *name).map_err(|x| self.locate(x, e.span))? {
                                return Ok(v);
                            }
                        }
                        self.get_item(&b, &i).map_err(|x| self.locate(x, obj.span))?
                    }
                    _ => self.eval(obj, env)?,
                };
                self.get_attr(&o, *name).map_err(|x| self.locate(self.attr_hint(x, &o, *name), e.span))
            }
            ExprKind::Index(obj, index) => {
                let o = self.eval(obj, env)?;
                let i = self.eval(index, env)?;
                self.get_item(&o, &i).map_err(|x| self.locate(x, e.span))
            }
            ExprKind::Slice(a, b, c) => {
                let mut parts = [Value::None, Value::None, Value::None];
                for (slot, x) in parts.iter_mut().zip([a, b, c]) {
                    if let Some(x) = x {
                        *slot = self.eval(x, env)?;
                        // An instance with `__index__` is a slice bound, as in Python.
                        if let Some(i) = self.index_dunder(slot).map_err(|err| self.locate(err, x.span))? {
                            *slot = Value::Int(i);
                        }
                    }
                }
                Ok(Value::Slice(Rc::new(parts)))
            }
            ExprKind::Call(func, args) => {
                if let ExprKind::Name(sym::SUPER, slot) = &func.kind {
                    if load(sym::SUPER, slot.get(), env).is_err() {
                        let made = match args.as_slice() {
                            [] => self.make_super(env),
                            [Arg::Pos(class), Arg::Pos(obj)] => {
                                let (class, obj) = (self.eval(class, env)?, self.eval(obj, env)?);
                                self.make_super_of(class, obj)
                            }
                            _ => Err(crate::err!(
                                Type,
                                "super() takes no arguments in a method, or two: super(Class, self)"
                            )),
                        };
                        return made.map_err(|x| x.at(self.run.src, e.span));
                    }
                }
                let f = self.eval(func, env)?;
                let (pos, kw) = self.eval_args(args, env)?;
                self.call_value(&f, pos, kw).map_err(|x| self.locate(x, e.span))
            }
            ExprKind::Unary(op, x) => {
                let v = self.eval(x, env)?;
                self.unary_op(*op, v).map_err(|x| x.at(self.run.src, e.span))
            }
            ExprKind::Not(x) => {
                let v = self.eval(x, env)?;
                Ok(Value::Bool(!self.truthy(&v).map_err(|x| x.at(self.run.src, e.span))?))
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a, env)?;
                let y = self.eval(b, env)?;
                self.binary_op(*op, x, y).map_err(|x| self.locate(x, e.span))
            }
            ExprKind::Compare(first, rest) => {
                let mut left = self.eval(first, env)?;
                let mut result = Value::Bool(true);
                for (op, right) in rest {
                    let r = self.eval(right, env)?;
                    result = self.compare_op(*op, &left, &r).map_err(|x| x.at(self.run.src, e.span))?;
                    if rest.len() > 1 && !self.truthy(&result).map_err(|x| x.at(self.run.src, e.span))? {
                        return Ok(result);
                    }
                    left = r;
                }
                Ok(result)
            }
            ExprKind::And(a, b) => {
                let x = self.eval(a, env)?;
                if !self.truthy(&x).map_err(|x| x.at(self.run.src, a.span))? {
                    return Ok(x);
                }
                self.eval(b, env)
            }
            ExprKind::Or(a, b) => {
                let x = self.eval(a, env)?;
                if self.truthy(&x).map_err(|x| x.at(self.run.src, a.span))? {
                    return Ok(x);
                }
                self.eval(b, env)
            }
            ExprKind::IfElse(c, a, b) => {
                let cv = self.eval(c, env)?;
                if self.truthy(&cv).map_err(|x| x.at(self.run.src, c.span))? {
                    self.eval(a, env)
                } else {
                    self.eval(b, env)
                }
            }
            ExprKind::Lambda(def) => self.make_function(def, env),
            ExprKind::Comp(kind, elt, fors, fresh) => {
                // The comprehension's variables have slots of their own in this frame; the
                // cells among them (captured by lambdas inside) are new for each run.
                for &c in fresh.get().map(|v| v.as_slice()).unwrap_or_default() {
                    if let Some(cell) = env.cells.get_mut(c as usize) {
                        *cell = Default::default();
                    }
                }
                let mut out = Built::new(kind);
                self.comprehend(kind, elt, fors, env, &mut out)?;
                Ok(out.finish())
            }
        }
    }

    /// The items of a list, tuple or set display, `*xs` spliced in.
    fn display(&mut self, xs: &[Expr], env: &mut Frame) -> R<Vec<Value>> {
        let mut v = Vec::with_capacity(xs.len());
        for x in xs {
            match &x.kind {
                ExprKind::Starred(inner) => {
                    let it = self.eval(inner, env)?;
                    let items = self.iterate(&it).map_err(|err| match err.kind() {
                        crate::error::ErrorKind::Type if !matches!(it, Value::Instance(_)) => {
                            err!(Type, "Value after * must be an iterable, not {}", it.type_name())
                                .at(self.run.src, inner.span)
                        }
                        _ => err.at(self.run.src, inner.span),
                    })?;
                    crate::tensor::budget::grow("a list", &mut v, items.len())?;
                    v.extend(items);
                }
                _ => v.push(self.eval(x, env)?),
            }
        }
        Ok(v)
    }

    /// The text of an f-string; a field's spec may hold fields of its own.
    fn fstring(&mut self, parts: &[FPart], env: &mut Frame) -> R<String> {
        let mut out = String::new();
        for p in parts {
            match p {
                FPart::Text(t) => out.push_str(t),
                FPart::Field { expr, repr, spec } => {
                    let v = self.eval(expr, env)?;
                    let spec = if spec.is_empty() { String::new() } else { self.fstring(spec, env)? };
                    let s = self.format_field(&v, *repr, &spec).map_err(|x| x.at(self.run.src, expr.span))?;
                    out.push_str(&s);
                }
            }
        }
        Ok(out)
    }

    fn comprehend(&mut self, kind: &CompKind, elt: &Expr, fors: &[CompFor], env: &mut Frame, out: &mut Built) -> R<()> {
        let Some((first, rest)) = fors.split_first() else {
            let x = self.eval(elt, env)?;
            return match (kind, out) {
                (CompKind::List, Built::List(v)) => {
                    crate::tensor::budget::grow("a list", v, 1).map_err(|err| self.locate(err.into(), elt.span))?;
                    v.push(x);
                    Ok(())
                }
                (CompKind::Set, Built::Set(set)) => {
                    let h = self.hash_key(&x).map_err(|err| err.at(self.run.src, elt.span))?;
                    crate::tensor::budget::grow_map("a set", set.len(), set.capacity(), super::value::SET_ENTRY_BYTES)
                        .map_err(|err| self.locate(err.into(), elt.span))?;
                    set.entry(h).or_insert(x);
                    Ok(())
                }
                (CompKind::Dict(value), Built::Dict(d)) => {
                    let h = self.hash_key(&x).map_err(|err| err.at(self.run.src, elt.span))?;
                    let v = self.eval(value, env)?;
                    super::value::dict_store(d, h, x, v)?;
                    Ok(())
                }
                _ => Err(err!(Runtime, "internal error: comprehension kind mismatch")),
            };
        };
        let it = self.eval(&first.iter, env)?;
        let mut items = self.iter_of(&it).map_err(|x| x.at(self.run.src, first.iter.span))?;
        'items: while let Some(item) = self.iter_next(&mut items).map_err(|x| self.locate(x, first.iter.span))? {
            self.check_interrupt().map_err(|x| x.at(self.run.src, first.iter.span))?;
            self.assign(&first.target, item, env)?;
            for c in &first.conds {
                let v = self.eval(c, env)?;
                if !self.truthy(&v).map_err(|x| x.at(self.run.src, c.span))? {
                    continue 'items;
                }
            }
            self.comprehend(kind, elt, rest, env, out)?;
        }
        Ok(())
    }

    fn eval_args(&mut self, args: &[Arg], env: &mut Frame) -> R<(Vec<Value>, Vec<(Rc<str>, Value)>)> {
        let mut pos = Vec::with_capacity(args.len());
        let mut kw = Vec::new();
        for a in args {
            match a {
                Arg::Pos(e) => pos.push(self.eval(e, env)?),
                Arg::Star(e) => {
                    let v = self.eval(e, env)?;
                    pos.extend(self.iterate(&v).map_err(|x| x.at(self.run.src, e.span))?);
                }
                Arg::Kw(k, e) => kw.push((k.name(), self.eval(e, env)?)),
                Arg::StarStar(e) => match self.eval(e, env)? {
                    Value::Dict(d) => {
                        for (k, v) in d.borrow().values() {
                            match k {
                                Value::Str(s) => kw.push((s.into(), v.clone())),
                                _ => return Err(err!(Type, "keywords must be strings").at(self.run.src, e.span)),
                            }
                        }
                    }
                    other => {
                        return Err(err!(Type, "argument after ** must be a dict, not {}", other.type_name())
                            .at(self.run.src, e.span))
                    }
                },
            }
        }
        Ok((pos, kw))
    }
}

/// What a comprehension is building.
enum Built {
    List(Vec<Value>),
    Set(Set),
    Dict(Dict),
}

impl Built {
    fn new(kind: &CompKind) -> Built {
        match kind {
            CompKind::List => Built::List(Vec::new()),
            CompKind::Set => Built::Set(Set::default()),
            CompKind::Dict(_) => Built::Dict(Dict::default()),
        }
    }

    fn finish(self) -> Value {
        match self {
            Built::List(v) => Value::list(v),
            Built::Set(s) => Value::Set(Rc::new(RefCell::new(s))),
            Built::Dict(d) => Value::Dict(Rc::new(RefCell::new(d))),
        }
    }
}

/// Reads the variable `name` from where the resolver put it.
#[inline]
pub fn load(name: Sym, slot: Slot, env: &Frame) -> R<Value> {
    match slot {
        Slot::Local(i) | Slot::OuterLocal(i) => {
            if let Some(Some(v)) = env.locals.get(i as usize) {
                return Ok(v.clone());
            }
        }
        Slot::Global(i) => {
            if let Some(v) = global(env, i) {
                return Ok(v);
            }
        }
        Slot::Cell(i) | Slot::Free(i) => {
            if let Some(v) = cell(env, i) {
                return Ok(v);
            }
        }
        Slot::ClassGlobal(i) | Slot::ClassFree(i) => {
            if let Some(v) = env.class_ns.as_ref().and_then(|ns| ns.get(&name)) {
                return Ok(v.clone());
            }
            let found = if matches!(slot, Slot::ClassGlobal(_)) { global(env, i) } else { cell(env, i) };
            if let Some(v) = found {
                return Ok(v);
            }
        }
        Slot::Unresolved => {}
    }
    Err(unbound(name, slot))
}

/// The global `i` of the running module, or else the builtin of that name.
#[inline]
fn global(env: &Frame, i: u32) -> Option<Value> {
    let slots = env.globals.slots.borrow();
    match slots.get(i as usize) {
        Some(Global { value: Some(v), .. }) | Some(Global { value: None, builtin: Some(v) }) => Some(v.clone()),
        _ => None,
    }
}

/// The value in cell `i` of the running frame, if bound.
#[inline]
fn cell(env: &Frame, i: u32) -> Option<Value> {
    match env.cells.get(i as usize) {
        Some(c) => c.borrow().clone(),
        None => None,
    }
}

/// The NameError for reading (or deleting) an unbound variable, in CPython's words.
#[cold]
#[inline(never)]
pub fn unbound(name: Sym, slot: Slot) -> Exc {
    match slot {
        Slot::Local(_) | Slot::Cell(_) => {
            err!(UnboundLocal, "cannot access local variable '{}' where it is not associated with a value", name)
        }
        Slot::OuterLocal(_) | Slot::Free(_) | Slot::ClassFree(_) => err!(
            Name,
            "cannot access free variable '{}' where it is not associated with a value in enclosing scope",
            name
        ),
        Slot::Global(_) | Slot::ClassGlobal(_) | Slot::Unresolved => err!(Name, "name '{}' is not defined", name),
    }
}
