//! Calls (argument binding, classes, bound methods) and attribute access.

use super::exec::store_slot;
use super::value::{Args, Builtin, BuiltinKind, Frame, Function, Instance, Value};
use super::{Interp, MAX_DEPTH};
use crate::error::{ErrorKind, Exc, R};
use crate::intern::{intern, sym, Sym};
use crate::source::Span;
use crate::syntax::ast::ParamKind;
use crate::{bail, err};
use std::cell::RefCell;
use std::rc::Rc;

impl Interp {
    /// Gives an error its location: the span itself if it has none yet (a
    /// native raised it here), else this call site joins its traceback.
    pub fn locate(&self, mut e: Exc, span: Span) -> Exc {
        if e.0.at.is_none() {
            e.0.at = Some((self.run.src, span));
        } else {
            e.0.trace.push((self.run.src, span, self.run.frame.to_string()));
        }
        e
    }

    /// Calls any callable value.
    pub fn call_value(&mut self, f: &Value, pos: Vec<Value>, kw: Vec<(Rc<str>, Value)>) -> R<Value> {
        if let Value::Func(func) = f {
            return self.call_function(func, pos, kw);
        }
        // Every call counts toward the depth, not only calls of user functions: chains of
        // wrappers, bound methods and instances whose __call__ is another callable too.
        if self.run.depth >= MAX_DEPTH {
            bail!(Recursion, "maximum recursion depth exceeded ({MAX_DEPTH} nested calls)");
        }
        super::stack_guard("in a call")?;
        self.run.depth += 1;
        let r = self.call_other(f, pos, kw);
        self.run.depth -= 1;
        r
    }

    /// Calls a callable that is not a user function.
    fn call_other(&mut self, f: &Value, pos: Vec<Value>, kw: Vec<(Rc<str>, Value)>) -> R<Value> {
        match f {
            Value::Func(func) => self.call_function(func, pos, kw),
            Value::Builtin(b) => {
                if self.trace.is_some() {
                    if let Some(r) = self.traced_native(b, &pos, &kw) {
                        return r;
                    }
                }
                match &b.kind {
                    BuiltinKind::Native(native, dialect) => self.call_native(b, native, *dialect, pos, kw),
                    BuiltinKind::Method(this, native) => {
                        let mut args = Args { this: Some(this.clone()), pos, kw, fname: b.name.clone() };
                        (native.call)(self, &mut args)
                    }
                    BuiltinKind::CustomGradient(inner) => self.call_custom_gradient(inner, pos, kw),
                    BuiltinKind::Recompute(inner, check) => self.call_recompute(inner, *check, pos, kw),
                    BuiltinKind::PassThrough(inner) => self.call_pass_through(inner, pos, kw),
                    // Python 3.10+: a staticmethod object is callable as its function.
                    BuiltinKind::StaticMethod(inner) => self.call_value(inner, pos, kw),
                    BuiltinKind::ClassMethod(_) => bail!(Type, "'classmethod' object is not callable"),
                    // `type(None)()` is None, as in CPython; the other unnamed types make nothing.
                    BuiltinKind::Type if &*b.name == "NoneType" => {
                        if !pos.is_empty() || !kw.is_empty() {
                            bail!(Type, "NoneType takes no arguments");
                        }
                        Ok(Value::None)
                    }
                    BuiltinKind::Type => bail!(Type, "cannot create '{}' instances", b.name),
                }
            }
            Value::Method(m) => {
                let (this, func) = (&m.0, &m.1);
                let mut all = Vec::with_capacity(pos.len() + 1);
                all.push(this.clone());
                all.extend(pos);
                self.call_value(func, all, kw)
            }
            Value::Class(c) => {
                let inst = Value::Instance(Rc::new(Instance { class: c.clone(), attrs: RefCell::default() }));
                if c.error_kind.is_some() {
                    // An exception keeps its constructor's arguments as `args`, whatever
                    // __init__ does (Python's BaseException.__new__).
                    if !kw.is_empty() && c.lookup(sym::INIT).is_none() {
                        bail!(Type, "{}() takes no keyword arguments", c.name);
                    }
                    // As BaseException.__new__ sets it: not through a class's own `__setattr__`.
                    self.set_attr_plain(&inst, sym::ARGS, Value::tuple(pos.clone()))?;
                    if c.lookup(sym::INIT).is_none() {
                        return Ok(inst);
                    }
                }
                match c.lookup(sym::INIT) {
                    // `object.__init__` takes no arguments beyond the instance.
                    Some(init) if is_object_init(&init) => {
                        if !pos.is_empty() || !kw.is_empty() {
                            bail!(Type, "{}() takes no arguments", c.name)
                        }
                    }
                    Some(init) => {
                        let mut all = Vec::with_capacity(pos.len() + 1);
                        all.push(inst.clone());
                        all.extend(pos);
                        let r = self.call_value(&init, all, kw)?;
                        if !matches!(r, Value::None) {
                            bail!(Type, "__init__() should return None, not '{}'", r.type_name());
                        }
                    }
                    None if !pos.is_empty() || !kw.is_empty() => {
                        bail!(Type, "{}() takes no arguments", c.name)
                    }
                    None => {}
                }
                Ok(inst)
            }
            Value::Instance(i) => match i.class.lookup(sym::CALL) {
                Some(call) => {
                    let mut all = Vec::with_capacity(pos.len() + 1);
                    all.push(f.clone());
                    all.extend(pos);
                    self.call_value(&call, all, kw)
                }
                None => bail!(Type, "'{}' object is not callable", i.class.name),
            },
            Value::ErrorType(kind) => {
                if let Some((name, _)) = kw.first() {
                    bail!(Type, "{}() takes no keyword arguments (got '{name}')", kind.name());
                }
                // TF's op errors are made as `InvalidArgumentError(node_def, op, message)`:
                // the message is the third argument (and `args` is empty, as TF's).
                let tf_form = matches!(kind, ErrorKind::OpError | ErrorKind::InvalidArgument) && pos.len() == 3;
                let pos = if tf_form { vec![pos[2].clone()] } else { pos };
                let msg = self.exception_text(*kind, &pos)?;
                let mut e = Exc::new(*kind, msg);
                super::value::set_exception_args(&mut e, if tf_form { vec![] } else { pos });
                Ok(Value::Exception(Rc::new(e)))
            }
            // `np.float32(0.5)`: a NumPy scalar (an array argument converts elementwise).
            Value::DType(d) => {
                let [x] =
                    <[Value; 1]>::try_from(pos).map_err(|_| err!(Type, "{}() takes exactly one argument", d.name()))?;
                if !kw.is_empty() {
                    bail!(Type, "{}() takes no keyword arguments", d.name());
                }
                let a = self.numpy_array_of(&x)?.try_cast(*d)?;
                Ok(super::numpy::NdArray::result(a))
            }
            other => bail!(Type, "'{}' object is not callable", other.type_name()),
        }
    }

    /// Calls a native function reached under `dialect`.
    pub(crate) fn call_native(
        &mut self,
        b: &Rc<Builtin>,
        native: &'static super::native::Native,
        dialect: super::value::Dialect,
        pos: Vec<Value>,
        kw: Vec<(Rc<str>, Value)>,
    ) -> R<Value> {
        let mut args = Args { this: None, pos, kw, fname: b.name.clone() };
        let outer = std::mem::replace(&mut self.dialect, dialect);
        let r = (native.call)(self, &mut args);
        self.dialect = outer;
        match dialect {
            // `np.` functions give NumPy values (runtime/numpy.rs).
            super::value::Dialect::NumPy => {
                // The name the user wrote: the builtin's NumPy spelling (`np.sum`).
                let name = || {
                    let spelled = native.spellings.iter().copied().find(|s| s.starts_with("np."));
                    spelled.unwrap_or_else(|| super::numpy::numpy_call_name(&b.name))
                };
                r.map(|v| self.numpy_result(name, v, false))
            }
            _ => r,
        }
    }

    /// Calls a user function: binds parameters (Python's rules), runs the body.
    pub fn call_function(&mut self, func: &Rc<Function>, pos: Vec<Value>, kw: Vec<(Rc<str>, Value)>) -> R<Value> {
        if self.run.depth >= MAX_DEPTH {
            bail!(Recursion, "maximum recursion depth exceeded ({MAX_DEPTH} nested calls)");
        }
        super::stack_guard("in a call")?;
        let Some(layout) = func.def.layout.get() else { bail!(Runtime, "{}() was never resolved", func.name) };
        let mut frame = Frame::new(layout, &func.captured, func.globals.clone());
        if func.positional_only && kw.is_empty() && pos.len() == layout.params.len() {
            // The common call: one positional argument per plain parameter.
            for (slot, v) in layout.params.iter().zip(pos) {
                store_slot(&mut frame, *slot, v);
            }
        } else {
            let params = self.bind_params(func, pos, kw)?;
            for (slot, v) in layout.params.iter().zip(params) {
                if let Some(v) = v {
                    store_slot(&mut frame, *slot, v);
                }
            }
        }
        frame.func = Some(func.clone());
        if func.def.generator {
            return self.make_generator(func, frame);
        }
        let saved_site = self.ad.site();
        self.run.depth += 1;
        let r = self.running_in(func.source, func.name.clone(), |rt| rt.exec_block(&func.def.body, &mut frame));
        self.run.depth -= 1;
        self.ad.set_site(saved_site);
        match r? {
            super::exec::Flow::Return(v) => Ok(v),
            _ => Ok(Value::None),
        }
    }

    /// Binds arguments to parameters (Python's rules): each parameter's value, in order
    /// (`None` only for a bare `*`).
    fn bind_params(&mut self, func: &Function, pos: Vec<Value>, kw: Vec<(Rc<str>, Value)>) -> R<Vec<Option<Value>>> {
        let def = &func.def;
        let fname = &func.name;
        let mut vars: Vec<Option<Value>> = vec![None; def.params.len()];
        let mut pos = pos.into_iter();
        let mut varargs = None;
        let mut varkw = None;
        let mut filled = vec![false; def.params.len()];
        for (i, p) in def.params.iter().enumerate() {
            match p.kind {
                ParamKind::Normal => {
                    if let Some(v) = pos.next() {
                        vars[i] = Some(v);
                        filled[i] = true;
                    }
                }
                ParamKind::VarArgs => varargs = Some(i),
                ParamKind::VarKw => varkw = Some(i),
                ParamKind::KwOnly => {}
            }
        }
        let extra: Vec<Value> = pos.collect();
        match varargs {
            Some(i) if def.params[i].name.name().as_ref() != "*" => {
                vars[i] = Some(Value::tuple(extra));
                filled[i] = true;
            }
            _ if !extra.is_empty() => {
                let n = def.params.iter().filter(|p| p.kind == ParamKind::Normal).count();
                bail!(
                    Type,
                    "{}() takes {} positional argument{} but {} {} given",
                    fname,
                    n,
                    if n == 1 { "" } else { "s" },
                    n + extra.len(),
                    if n + extra.len() == 1 { "was" } else { "were" }
                );
            }
            _ => {}
        }
        let mut kwdict = super::value::Dict::default();
        for (k, v) in kw {
            let sym = intern(&k);
            let slot = def
                .params
                .iter()
                .position(|p| p.name == sym && matches!(p.kind, ParamKind::Normal | ParamKind::KwOnly));
            match slot {
                Some(i) => {
                    if filled[i] {
                        bail!(Type, "{}() got multiple values for argument '{}'", fname, k);
                    }
                    vars[i] = Some(v);
                    filled[i] = true;
                }
                None if varkw.is_some() => {
                    let k = crate::text::Text::from(k);
                    kwdict.insert(super::value::HashKey::Str(k.clone()), (Value::Str(k), v));
                }
                None => {
                    let e = err!(Type, "{}() got an unexpected keyword argument '{}'", fname, k);
                    let params: Vec<String> = def.params.iter().map(|p| p.name.to_string()).collect();
                    return Err(super::suggest::with_hint(e, &k, params.iter().map(String::as_str)));
                }
            }
        }
        if let Some(i) = varkw {
            vars[i] = Some(Value::Dict(Rc::new(RefCell::new(kwdict))));
            filled[i] = true;
        }
        let mut missing = Vec::new();
        for (i, p) in def.params.iter().enumerate() {
            if filled[i] || p.kind == ParamKind::VarArgs {
                continue;
            }
            match &func.defaults[i] {
                Some(d) => vars[i] = Some(d.clone()),
                None => missing.push(format!("'{}'", p.name)),
            }
        }
        if !missing.is_empty() {
            let n = missing.len();
            let list = match n {
                1 => missing[0].clone(),
                _ => format!("{} and {}", missing[..n - 1].join(", "), missing[n - 1]),
            };
            bail!(Type, "{}() missing {} required argument{}: {}", fname, n, if n == 1 { "" } else { "s" }, list);
        }
        Ok(vars)
    }

    /// `obj.name`
    pub fn get_attr(&mut self, obj: &Value, name: Sym) -> R<Value> {
        // Compared as symbols: every attribute read passes here.
        match name {
            // `x.__class__` is `type(x)` for every value (a user class may not redefine it).
            sym::CLASS => {
                let ty = self.builtins.get(&intern("type")).cloned();
                if let Some(ty) = ty {
                    return self.call_value(&ty, vec![obj.clone()], vec![]);
                }
            }
            // An instance's own attributes as a dict (a copy: DGL's are not a dict object).
            sym::DICT if matches!(obj, Value::Instance(_)) => {
                let Value::Instance(inst) = obj else { unreachable!() };
                let mut d = super::value::Dict::default();
                let attrs: Vec<(Sym, Value)> = inst.attrs.borrow().iter().map(|(k, v)| (*k, v.clone())).collect();
                for (k, v) in attrs {
                    let key = crate::text::Text::from(k.name());
                    super::value::dict_store(&mut d, super::value::HashKey::Str(key.clone()), Value::Str(key), v)?;
                }
                return Ok(Value::Dict(Rc::new(std::cell::RefCell::new(d))));
            }
            _ => {}
        }
        match obj {
            Value::Instance(inst) => {
                // One lookup in the class: a property there comes before the instance's own
                // attributes, anything else after them.
                let class_attr = inst.class.lookup(name);
                if let Some(p @ Value::Property(_)) = class_attr {
                    return self.bind_class_attr(p, obj);
                }
                if let Some(v) = inst.attrs.borrow().get(&name) {
                    return Ok(v.clone());
                }
                match class_attr {
                    Some(v) => self.bind_class_attr(v, obj),
                    // CPython: `__getattr__` is asked for an attribute that normal lookup lacks.
                    None => match inst.class.lookup(sym::GETATTR) {
                        Some(m) if name != sym::GETATTR => {
                            self.call_value(&m, vec![obj.clone(), Value::Str(name.name().into())], vec![])
                        }
                        _ => bail!(Attribute, "'{}' object has no attribute '{}'", inst.class.name, name),
                    },
                }
            }
            Value::Class(c) => match c.lookup(name) {
                Some(Value::Builtin(b))
                    if matches!(b.kind, BuiltinKind::StaticMethod(_) | BuiltinKind::ClassMethod(_)) =>
                {
                    self.bind_class_attr(Value::Builtin(b), obj)
                }
                Some(v) => Ok(v),
                None if name == sym::NAME => Ok(Value::Str(c.name.clone().into())),
                None if matches!(&*name.name(), "__mro__" | "__bases__" | "__base__") => {
                    Ok(self.class_bases(obj, name))
                }
                // A class without a docstring of its own (builtin classes); user classes have it in attrs.
                None if name == sym::DOC => Ok(Value::None),
                None => bail!(Attribute, "type object '{}' has no attribute '{}'", c.name, name),
            },
            Value::Module(m) => match m.globals.get(name) {
                Some(v) => Ok(v),
                None if name == sym::DOC => Ok(m.doc.clone().map_or(Value::None, |d| Value::Str(d.into()))),
                None if name == sym::NAME => Ok(Value::Str(m.name.clone().into())),
                None => match m.hooks {
                    Some(h) => (h.missing)(self, m, name),
                    None => bail!(Attribute, "module '{}' has no attribute '{}'", m.name, name),
                },
            },
            Value::Super(s) => match s.0.lookup(name) {
                Some(v) => self.bind_class_attr(v, &s.1),
                // `super().__init__(*args)` in an exception class: the builtin base sets `args`.
                None if s.0.error_kind.is_some() && name == sym::INIT => Ok(Value::Builtin(Rc::new(Builtin {
                    name: "__init__".into(),
                    kind: BuiltinKind::Method(s.1.clone(), &EXCEPTION_INIT),
                }))),
                // Every class derives from `object`: `super().__setattr__` reaches its method.
                None => match self.builtins.get(&intern("object")) {
                    Some(Value::Class(o)) if name == sym::SETATTR => {
                        let m = o.lookup(name).expect("object.__setattr__");
                        self.bind_class_attr(m, &s.1)
                    }
                    _ => bail!(Attribute, "'super' object has no attribute '{}'", name),
                },
            },
            Value::ErrorType(_) if matches!(&*name.name(), "__mro__" | "__bases__" | "__base__") => {
                Ok(self.class_bases(obj, name))
            }
            Value::Func(f) if name == sym::NAME => Ok(Value::Str(f.name.clone().into())),
            Value::Func(f) if name == sym::DOC => Ok(f.def.doc.clone().map_or(Value::None, |d| Value::Str(d.into()))),
            Value::NdArray(n) => match super::numpy::attr(self, obj, n, name)? {
                Some(v) => Ok(v),
                None => bail!(Attribute, "'{}' object has no attribute '{}'", obj.type_name(), name),
            },
            _ => match (self.hooks.builtin_attr)(self, obj, name)? {
                Some(v) => Ok(v),
                None => match self.builtin_dunder(obj, &name.name()) {
                    Some(v) => Ok(v),
                    None => bail!(Attribute, "'{}' object has no attribute '{}'", obj.type_name(), name),
                },
            },
        }
    }

    /// `C.__mro__` (C and its bases in order, `object` last), `C.__bases__` and `C.__base__`
    /// of a user class or a builtin exception class (the tree of docs/language.md "Exceptions").
    fn class_bases(&self, class: &Value, name: Sym) -> Value {
        let object = self.builtins.get(&intern("object")).cloned().unwrap_or(Value::None);
        let mut mro = Vec::new();
        let mut next = Some(class.clone());
        while let Some(c) = next.take() {
            match &c {
                Value::Class(k) if is_object_class(k) => break,
                // The class standing for a builtin kind that a user class derives from.
                Value::Class(k) if k.base.is_none() && k.error_kind.is_some_and(|e| e.name() == &*k.name) => {
                    next = k.error_kind.map(Value::ErrorType);
                }
                Value::Class(k) => {
                    next = k.base.clone().map(Value::Class);
                    mro.push(c);
                }
                Value::ErrorType(k) => {
                    next = k.parent().map(Value::ErrorType);
                    mro.push(c);
                }
                _ => break,
            }
        }
        mro.push(object.clone());
        match &*name.name() {
            "__mro__" => Value::tuple(mro),
            "__base__" => mro.get(1).cloned().unwrap_or(Value::None),
            _ => Value::tuple(mro.get(1).cloned().into_iter().collect()),
        }
    }

    /// A class attribute read through an instance: functions bind, properties compute.
    pub(crate) fn bind_class_attr(&mut self, v: Value, this: &Value) -> R<Value> {
        match v {
            Value::Func(_) => Ok(Value::Method(Rc::new((this.clone(), v)))),
            // A decorated method (custom_gradient, recompute_grad, grad_pass_through) binds
            // the receiver into the function it wraps, so `self` is not one of its inputs
            // (TensorFlow's decorators bind the same way).
            Value::Builtin(b) => {
                let bind = |f: &Value| Value::Method(Rc::new((this.clone(), f.clone())));
                let kind = match &b.kind {
                    BuiltinKind::StaticMethod(f) => return Ok(f.clone()),
                    // Bound to the class, whether read through the class or an instance.
                    BuiltinKind::ClassMethod(f) => {
                        let class = match this {
                            Value::Instance(i) => Value::Class(i.class.clone()),
                            other => other.clone(),
                        };
                        return Ok(Value::Method(Rc::new((class, f.clone()))));
                    }
                    BuiltinKind::CustomGradient(f) => BuiltinKind::CustomGradient(bind(f)),
                    BuiltinKind::Recompute(f, check) => BuiltinKind::Recompute(bind(f), *check),
                    BuiltinKind::PassThrough(f) => BuiltinKind::PassThrough(bind(f)),
                    // `super().__setattr__(name, value)` binds the instance, as CPython's does.
                    _ if &*b.name == "object.__setattr__" => {
                        return Ok(Value::Method(Rc::new((this.clone(), Value::Builtin(b)))))
                    }
                    _ => return Ok(Value::Builtin(b)),
                };
                Ok(Value::Builtin(Rc::new(Builtin { name: b.name.clone(), kind })))
            }
            // A descriptor (an instance whose class defines `__get__`, such as a `tf.function`
            // on a method) gives what its `__get__(this, type(this))` returns.
            Value::Instance(ref i) if i.class.lookup(sym::GET).is_some() && matches!(this, Value::Instance(_)) => {
                let get = i.class.lookup(sym::GET).expect("checked");
                let owner = match this {
                    Value::Instance(t) => Value::Class(t.class.clone()),
                    _ => Value::None,
                };
                self.call_value(&get, vec![v.clone(), this.clone(), owner], vec![])
            }
            Value::Property(p) => match &p[0] {
                Value::None => bail!(Attribute, "property of '{}' object has no getter", this.type_name()),
                getter => self.call_value(getter, vec![this.clone()], vec![]),
            },
            other => Ok(other),
        }
    }

    /// `obj.name = v`: a class's own `__setattr__(self, name, value)` when it defines one
    /// (docs/language.md "Classes"), else [`Interp::set_attr_plain`].
    pub fn set_attr(&mut self, obj: &Value, name: Sym, v: Value) -> R<()> {
        if let Value::Instance(inst) = obj {
            if let Some(hook) = inst.class.lookup(sym::SETATTR) {
                if !is_object_setattr(&hook) {
                    let args = vec![obj.clone(), Value::Str(name.name().into()), v];
                    return self.call_value(&hook, args, vec![]).map(drop);
                }
            }
        }
        self.set_attr_plain(obj, name, v)
    }

    /// `object.__setattr__(obj, name, v)`: a property's setter, else the instance's own attribute.
    pub fn set_attr_plain(&mut self, obj: &Value, name: Sym, v: Value) -> R<()> {
        match obj {
            Value::Instance(inst) => {
                if let Some(Value::Property(p)) = inst.class.lookup(name) {
                    return match &p[1] {
                        Value::None => {
                            bail!(Attribute, "property '{}' of '{}' object has no setter", name, inst.class.name)
                        }
                        setter => self.call_value(setter, vec![obj.clone(), v], vec![]).map(drop),
                    };
                }
                inst.attrs.borrow_mut().insert(name, v);
                Ok(())
            }
            Value::Class(c) => {
                c.attrs.borrow_mut().insert(name, v);
                Ok(())
            }
            Value::Module(m) => {
                self.set_global(&m.globals, name, v);
                Ok(())
            }
            other => Err(err!(Attribute, "cannot set attribute '{}' of a '{}' object", name, other.type_name())),
        }
    }

    /// `del obj.name`: a property's deleter, an instance's own attribute, a class attribute.
    /// Errors: AttributeError when there is no such attribute to delete.
    pub fn del_attr(&mut self, obj: &Value, name: Sym) -> R<()> {
        match obj {
            Value::Instance(inst) => {
                if let Some(Value::Property(p)) = inst.class.lookup(name) {
                    return match &p[2] {
                        Value::None => {
                            bail!(Attribute, "property '{}' of '{}' object has no deleter", name, inst.class.name)
                        }
                        deleter => self.call_value(deleter, vec![obj.clone()], vec![]).map(drop),
                    };
                }
                if inst.attrs.borrow_mut().shift_remove(&name).is_none() {
                    bail!(Attribute, "'{}' object has no attribute '{}'", inst.class.name, name);
                }
                Ok(())
            }
            Value::Class(c) => {
                if c.attrs.borrow_mut().remove(&name).is_none() {
                    bail!(Attribute, "type object '{}' has no attribute '{}'", c.name, name);
                }
                Ok(())
            }
            other => Err(err!(Attribute, "'{}' object has no attribute '{}'", other.type_name(), name)),
        }
    }

    /// `super()` inside a method: the defining class's base, bound to the first argument.
    pub fn make_super(&mut self, env: &Frame) -> R<Value> {
        let Some(f) = &env.func else { bail!(Runtime, "super() is only valid inside a method") };
        let owner = f.owner.borrow().as_ref().and_then(|w| w.upgrade());
        let Some(class) = owner else { bail!(Runtime, "super() is only valid inside a method") };
        // The first parameter, as Python's zero-argument super() takes it.
        let first = f.def.params.first().zip(f.def.layout.get().and_then(|l| l.params.first().copied()));
        let this = first.and_then(|(p, slot)| super::eval::load(p.name, slot, env).ok());
        let Some(this) = this else { bail!(Runtime, "super(): no arguments") };
        self.super_above(&class, this)
    }

    /// `super(Class, obj)`, Python's two-argument form (common in TF code:
    /// `super(MyModel, self).__init__()`): `Class`'s base, bound to `obj`, which must be an
    /// instance of `Class` or of a subclass. Errors: TypeError otherwise.
    pub fn make_super_of(&mut self, class: Value, obj: Value) -> R<Value> {
        let Value::Class(class) = class else {
            bail!(Type, "super() argument 1 must be a class, not {}", class.type_name())
        };
        let fits = matches!(&obj, Value::Instance(i) if i.class.is_subclass_of(&class));
        if !fits {
            bail!(Type, "super(type, obj): obj must be an instance or subtype of type");
        }
        self.super_above(&class, obj)
    }

    fn super_above(&mut self, class: &Rc<super::value::Class>, this: Value) -> R<Value> {
        // A class without a base derives from `object` (its `__init__` does nothing).
        let object = match self.builtins.get(&intern("object")) {
            Some(Value::Class(o)) => Some(o.clone()),
            _ => None,
        };
        let Some(base) = class.base.clone().or(object) else {
            bail!(Attribute, "'super' object: class '{}' has no base class", class.name)
        };
        Ok(Value::Super(Rc::new((base, this))))
    }
}

/// Whether `c` is the builtin `object` class (every value is an instance of it).
pub fn is_object_class(c: &super::value::Class) -> bool {
    c.base.is_none() && &*c.name == "object" && c.attrs.borrow().get(&intern("__init__")).is_some_and(is_object_init)
}

/// Whether `v` is `object.__init__` (the builtins layer names it so).
pub fn is_object_init(v: &Value) -> bool {
    matches!(v, Value::Builtin(b) if &*b.name == "object.__init__")
}

/// Whether `v` is `object.__setattr__` (the builtins layer names it so).
pub fn is_object_setattr(v: &Value) -> bool {
    matches!(v, Value::Builtin(b) if &*b.name == "object.__setattr__")
}

static EXCEPTION_INIT: super::native::Native = super::native::Native::new("__init__", &["*args"], exception_init);

/// `BaseException.__init__(self, *args)`: keeps the arguments as `self.args`.
fn exception_init(rt: &mut Interp, a: &mut Args) -> R<Value> {
    if !a.kw.is_empty() {
        bail!(Type, "__init__() takes no keyword arguments");
    }
    let this = a.this.clone().expect("a bound method has a receiver");
    let args = Value::tuple(std::mem::take(&mut a.pos));
    rt.set_attr_plain(&this, sym::ARGS, args)?;
    Ok(Value::None)
}
