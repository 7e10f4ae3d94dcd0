//! Statements: assignment, control flow, definitions, `with`, `try`.

use super::eval::unbound;
use super::value::{
    raised_instance, raised_value, set_raised_instance, Class, Frame, Function, Global, Globals, Value,
};
use super::Interp;
use crate::error::{ErrorKind, Exc, R};
use crate::intern::sym;
use crate::intern::Sym;
use crate::syntax::ast::*;
use crate::syntax::resolve::Slot;
use crate::{bail, err};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::rc::Rc;

/// How a statement finished.
pub enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
}

impl Interp {
    /// Resolves and runs a module body with the module's `globals`; a stray
    /// `return`/`break` at top level is ignored.
    pub fn exec_module(&mut self, block: &[Stmt], globals: &Rc<Globals>) -> R<Value> {
        let mut frame = self.module_frame(block, globals);
        // An import runs inside the importing statement: what that statement records after
        // the import points at it again, not at the module's last statement.
        let site = self.ad.site();
        let r = self.exec_block(block, &mut frame);
        self.ad.set_site(site);
        match r? {
            Flow::Return(v) => Ok(v),
            _ => Ok(Value::None),
        }
    }

    /// Resolves a module body against `globals` (which may grow: a REPL entry
    /// defines new names) and makes the frame it runs in.
    pub fn module_frame(&mut self, block: &[Stmt], globals: &Rc<Globals>) -> Frame {
        let layout = crate::syntax::resolve::resolve_module(block, &mut globals.names.borrow_mut());
        self.sync_globals(globals);
        self.run.scope = Some(globals.clone());
        Frame::new(&layout, &[], globals.clone())
    }

    /// Gives every new global name its table entry, with the builtin it falls back to.
    fn sync_globals(&self, globals: &Globals) {
        let names = globals.names.borrow();
        let mut slots = globals.slots.borrow_mut();
        for n in &names.names()[slots.len()..] {
            slots.push(Global { value: None, builtin: self.builtins.get(n).cloned() });
        }
    }

    /// Binds `module.name` (a new name gets a table entry).
    pub fn set_global(&mut self, globals: &Globals, name: Sym, v: Value) {
        let i = globals.names.borrow_mut().slot(name);
        self.sync_globals(globals);
        let old = globals.slots.borrow_mut().get_mut(i as usize).map(|g| g.value.replace(v));
        drop(old);
    }

    pub fn exec_block(&mut self, block: &[Stmt], env: &mut Frame) -> R<Flow> {
        for s in block {
            let flow = self.exec(s, env);
            // Generators dropped while suspended are closed between statements (src/runtime/generator.rs).
            if super::generator::any_dropped() {
                self.close_dropped_generators();
            }
            match flow? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, s: &Stmt, env: &mut Frame) -> R<Flow> {
        // Entries recorded by this statement point at it (`tape.summary()`, `tape.explain`).
        self.ad.set_site(crate::autodiff::tape::Site { src: self.run.src, pos: s.span.start });
        if let Some(o) = self.observer.as_mut() {
            if !o.runs(self.run.src, s.span.start) {
                return Ok(Flow::Normal);
            }
        }
        match &s.kind {
            StmtKind::Expr(e) => {
                self.eval(e, env)?;
            }
            StmtKind::Assign(targets, value) => {
                if let Some(r) = self.assigned_append(targets, value, env) {
                    return r.map(|()| Flow::Normal);
                }
                let v = self.eval(value, env)?;
                if let [target] = targets.as_slice() {
                    self.assign(target, v, env)?;
                } else {
                    for t in targets {
                        self.assign(t, v.clone(), env)?;
                    }
                }
            }
            StmtKind::AugAssign(target, op, value) => {
                if let Some(r) = self.augmented_append(target, *op, value, env, s.span) {
                    return r.map(|()| Flow::Normal);
                }
                let cur = self.eval(target, env)?;
                let rhs = self.eval(value, env)?;
                let new = self.inplace_op(*op, cur, rhs).map_err(|e| e.at(self.run.src, s.span))?;
                self.assign(target, new, env)?;
            }
            StmtKind::If(arms, orelse) => {
                for (i, (cond, body)) in arms.iter().enumerate() {
                    let c = self.eval(cond, env)?;
                    if self.is_symbolic(&c) {
                        // AutoGraph: an `elif` chain is the `else` of this `if`.
                        let rest = &arms[i + 1..];
                        return if rest.is_empty() {
                            self.autograph_if(&c, body, orelse.as_deref(), env, cond.span)
                        } else {
                            let tail = [Stmt { kind: StmtKind::If(rest.to_vec(), orelse.clone()), span: s.span }];
                            self.autograph_if(&c, body, Some(&tail), env, cond.span)
                        };
                    }
                    if self.truthy(&c).map_err(|e| e.at(self.run.src, cond.span))? {
                        return self.exec_block(body, env);
                    }
                }
                if let Some(b) = orelse {
                    return self.exec_block(b, env);
                }
            }
            StmtKind::While(cond, body, orelse) => {
                loop {
                    let c = self.eval(cond, env)?;
                    if self.is_symbolic(&c) {
                        if orelse.is_some() {
                            return Err(super::autograph::loop_error().at(self.run.src, cond.span));
                        }
                        return self.autograph_loop(None, Some(cond), body, env, cond.span);
                    }
                    if !self.truthy(&c).map_err(|e| e.at(self.run.src, cond.span))? {
                        break;
                    }
                    if let Some(flow) = self.loop_body(body, env, s)? {
                        return Ok(flow);
                    }
                }
                if let Some(b) = orelse {
                    return self.exec_block(b, env);
                }
            }
            StmtKind::For(target, iter, body, orelse) => {
                let it = self.eval(iter, env)?;
                if self.is_symbolic(&it) {
                    if orelse.is_some() {
                        return Err(super::autograph::loop_error().at(self.run.src, iter.span));
                    }
                    return self.autograph_loop(Some((target, &it)), None, body, env, iter.span);
                }
                // Ranges, generators and iterator objects are walked lazily; everything
                // else is materialised first.
                let mut items = self.iter_of(&it).map_err(|e| self.locate(e, iter.span))?;
                while let Some(item) = self.iter_next(&mut items).map_err(|e| self.locate(e, iter.span))? {
                    self.assign(target, item, env)?;
                    if let Some(flow) = self.loop_body(body, env, s)? {
                        return Ok(flow);
                    }
                }
                if let Some(b) = orelse {
                    return self.exec_block(b, env);
                }
            }
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Pass | StmtKind::Global(_) | StmtKind::Nonlocal(_) => {}
            StmtKind::Return(v) => {
                let v = match v {
                    Some(e) => self.eval(e, env)?,
                    None => Value::None,
                };
                return Ok(Flow::Return(v));
            }
            StmtKind::Def(def) => {
                let f = self.make_function(def, env)?;
                let f = self.decorate(&def.decorators, f, env)?;
                store(def.name, def.slot.get(), f, env);
            }
            StmtKind::Class(def) => {
                let c = self.make_class(def, env)?;
                let c = self.decorate(&def.decorators, c, env)?;
                store(def.name, def.slot.get(), c, env);
            }
            StmtKind::With(items, body) => return self.exec_with(items, body, env),
            StmtKind::Import(mods) => {
                for (path, alias, slot) in mods {
                    let parts: Vec<String> = path.iter().map(|p| p.name().to_string()).collect();
                    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
                    let ms = self.import_path(&parts).map_err(|e| self.locate(e, s.span))?;
                    // `import a.b` binds `a` (with `b` its attribute), as in Python;
                    // `import a.b as c` binds `c` to `a.b`.
                    let m = if alias.is_some() { ms.last() } else { ms.first() };
                    let m = m.expect("an import path has at least one part").clone();
                    store(alias.unwrap_or(path[0]), slot.get(), Value::Module(m), env);
                }
            }
            StmtKind::FromImport(path, names) => {
                let name = path.iter().map(|p| p.name().to_string()).collect::<Vec<_>>().join(".");
                let parts: Vec<String> = path.iter().map(|p| p.name().to_string()).collect();
                let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
                let ms = self.import_path(&parts).map_err(|e| self.locate(e, s.span))?;
                let m = ms.last().expect("an import path has at least one part").clone();
                for (n, alias, span, slot) in names {
                    let v = match (m.globals.get(*n), m.hooks) {
                        (Some(v), _) => v,
                        // A hooked module binds the name now, or says why it cannot.
                        (None, Some(h)) => (h.missing)(self, &m, *n).map_err(|mut e| {
                            if e.0.kind == ErrorKind::Attribute {
                                e.0.kind = ErrorKind::Import;
                                e.0.message = format!("cannot import name '{n}' from '{name}': {}", e.0.message);
                            }
                            e.at(self.run.src, *span)
                        })?,
                        // `from a import b` with `b` a submodule (a file `a/b.dgl`), as in Python.
                        (None, None) if self.is_submodule(&name, &n.name()) => {
                            let mut sub = parts.clone();
                            let n_name = n.name().to_string();
                            sub.push(&n_name);
                            let ms = self.import_path(&sub).map_err(|e| e.at(self.run.src, *span))?;
                            Value::Module(ms.last().expect("the submodule").clone())
                        }
                        (None, None) => {
                            let e = err!(Import, "cannot import name '{}' from '{}'", n, name);
                            let names = m.names();
                            return Err(super::suggest::with_hint(e, &n.to_string(), names.iter().map(String::as_str))
                                .at(self.run.src, *span));
                        }
                    };
                    store(alias.unwrap_or(*n), slot.get(), v, env);
                }
            }
            StmtKind::Assert(cond, msg) => {
                let c = self.eval(cond, env)?;
                if !self.truthy(&c).map_err(|e| e.at(self.run.src, cond.span))? {
                    let m = match msg {
                        Some(m) => {
                            let v = self.eval(m, env)?;
                            self.str_of(&v)?
                        }
                        None => String::new(),
                    };
                    return Err(Exc::new(ErrorKind::Assertion, m).at(self.run.src, cond.span));
                }
            }
            StmtKind::Raise(v) => {
                let exc = match v {
                    None => match self.run.handling.last() {
                        Some(e) => return Err(e.clone()),
                        None => err!(Runtime, "no active exception to re-raise"),
                    },
                    Some(e) => {
                        let v = self.eval(e, env)?;
                        self.exception_from(v).map_err(|x| x.at(self.run.src, e.span))?
                    }
                };
                return Err(exc.at(self.run.src, s.span));
            }
            StmtKind::Try { body, handlers, orelse, finally } => {
                return self.exec_try(body, handlers, orelse.as_deref(), finally.as_deref(), env)
            }
            StmtKind::Del(targets) => {
                for t in targets {
                    self.delete(t, env)?;
                }
            }
        }
        Ok(Flow::Normal)
    }

    /// One pass of a loop body: `None` to go on, `Some(flow)` to leave the
    /// loop (`break` leaves it normally and skips its `else` block).
    fn loop_body(&mut self, body: &[Stmt], env: &mut Frame, stmt: &Stmt) -> R<Option<Flow>> {
        self.check_interrupt().map_err(|e| e.at(self.run.src, stmt.span))?;
        Ok(match self.exec_block(body, env)? {
            Flow::Break => Some(Flow::Normal),
            Flow::Return(v) => Some(Flow::Return(v)),
            Flow::Normal | Flow::Continue => None,
        })
    }

    /// Assigns to a target: a name, `x[i]`, `obj.attr`, or a tuple/list to unpack.
    pub fn assign(&mut self, target: &Expr, v: Value, env: &mut Frame) -> R<()> {
        match &target.kind {
            ExprKind::Name(n, slot) => {
                store(*n, slot.get(), v, env);
                Ok(())
            }
            ExprKind::Attr(obj, name) => {
                let o = self.eval(obj, env)?;
                self.set_attr(&o, *name, v).map_err(|e| e.at(self.run.src, target.span))
            }
            ExprKind::Index(obj, index) => {
                let o = self.eval(obj, env)?;
                let i = self.eval(index, env)?;
                self.set_item(&o, i, v).map_err(|e| e.at(self.run.src, target.span))
            }
            ExprKind::Tuple(ts) | ExprKind::List(ts) => {
                let own_error = matches!(v, Value::Instance(_)) && self.instance_iterable(&v);
                let items = self.iterate(&v).map_err(|e| match e.kind() {
                    ErrorKind::Type if !own_error => {
                        err!(Type, "cannot unpack non-iterable {} object", v.type_name()).at(self.run.src, target.span)
                    }
                    _ => e.at(self.run.src, target.span),
                })?;
                let star = ts.iter().position(|t| matches!(t.kind, ExprKind::Starred(_)));
                let Some(star) = star else {
                    // CPython's messages.
                    if items.len() > ts.len() {
                        return Err(err!(Value, "too many values to unpack (expected {})", ts.len())
                            .at(self.run.src, target.span));
                    }
                    if items.len() < ts.len() {
                        return Err(err!(
                            Value,
                            "not enough values to unpack (expected {}, got {})",
                            ts.len(),
                            items.len()
                        )
                        .at(self.run.src, target.span));
                    }
                    for (t, item) in ts.iter().zip(items) {
                        self.assign(t, item, env)?;
                    }
                    return Ok(());
                };
                // `a, *rest, z = xs`: the starred target takes what the others leave, as a list.
                let fixed = ts.len() - 1;
                if items.len() < fixed {
                    return Err(err!(
                        Value,
                        "not enough values to unpack (expected at least {}, got {})",
                        fixed,
                        items.len()
                    )
                    .at(self.run.src, target.span));
                }
                let after = fixed - star;
                let mut items = items;
                let tail = items.split_off(items.len() - after);
                let middle = items.split_off(star);
                for (t, item) in ts[..star].iter().zip(items) {
                    self.assign(t, item, env)?;
                }
                if let ExprKind::Starred(inner) = &ts[star].kind {
                    self.assign(inner, Value::list(middle), env)?;
                }
                for (t, item) in ts[star + 1..].iter().zip(tail) {
                    self.assign(t, item, env)?;
                }
                Ok(())
            }
            _ => Err(err!(Syntax, "cannot assign to this expression").at(self.run.src, target.span)),
        }
    }

    fn delete(&mut self, target: &Expr, env: &mut Frame) -> R<()> {
        match &target.kind {
            ExprKind::Name(n, slot) => delete(*n, slot.get(), env).map_err(|e| e.at(self.run.src, target.span)),
            ExprKind::Index(obj, index) => {
                let o = self.eval(obj, env)?;
                let i = self.eval(index, env)?;
                self.del_item(&o, &i).map_err(|e| e.at(self.run.src, target.span))
            }
            ExprKind::Attr(obj, name) => {
                let o = self.eval(obj, env)?;
                self.del_attr(&o, *name).map_err(|e| e.at(self.run.src, target.span))
            }
            ExprKind::Tuple(ts) | ExprKind::List(ts) => {
                for t in ts {
                    self.delete(t, env)?;
                }
                Ok(())
            }
            _ => Err(err!(Syntax, "cannot delete this expression").at(self.run.src, target.span)),
        }
    }

    /// `del obj[i]`: list items and slices, dict keys, a class's `__delitem__`.
    /// Errors: IndexError, KeyError; TypeError for a value without item deletion.
    pub fn del_item(&mut self, o: &Value, i: &Value) -> R<()> {
        let i = i.clone();
        match o {
            Value::List(l) if matches!(i, Value::Slice(_)) => {
                let Value::Slice(s) = &i else { return Ok(()) };
                self.del_slice(l, s)
            }
            Value::List(l) => {
                let n = l.borrow().len();
                let k = self.list_index(&i, n)?;
                l.borrow_mut().remove(k);
                Ok(())
            }
            Value::Dict(d) => {
                let key = self.hash_key(&i)?;
                if d.borrow_mut().shift_remove(&key).is_none() {
                    return Err(self.key_error(&i));
                }
                Ok(())
            }
            Value::Instance(_) => self
                .call_special(&o, "__delitem__", vec![i], |t| err!(Type, "'{t}' object doesn't support item deletion"))
                .map(drop),
            other => Err(err!(Type, "'{}' object doesn't support item deletion", other.type_name())),
        }
    }

    /// Evaluates defaults and captures the defining scope.
    pub fn make_function(&mut self, def: &Rc<FuncDef>, env: &mut Frame) -> R<Value> {
        let mut defaults = Vec::with_capacity(def.params.len());
        for p in &def.params {
            defaults.push(match &p.default {
                Some(e) => Some(self.eval(e, env)?),
                None => None,
            });
        }
        let captured = match def.layout.get() {
            Some(layout) => env.capture(layout),
            None => bail!(Runtime, "{}() was never resolved", def.name),
        };
        Ok(Value::Func(Rc::new(Function {
            def: def.clone(),
            name: def.name.name(),
            defaults,
            positional_only: def.params.iter().all(|p| p.kind == ParamKind::Normal),
            captured,
            globals: env.globals.clone(),
            source: self.run.src,
            owner: RefCell::new(None),
        })))
    }

    fn make_class(&mut self, def: &Rc<ClassDef>, env: &mut Frame) -> R<Value> {
        let (base, error_kind) = match &def.base {
            None => (None, None),
            Some(b) => match self.eval(b, env)? {
                Value::Class(c) => {
                    let k = c.error_kind;
                    (Some(c), k)
                }
                // Builtin error kinds are classes too: user exceptions derive from them, through
                // an empty class standing for the kind (so `super().__init__` finds a base).
                Value::ErrorType(kind) => {
                    let builtin = Class {
                        name: kind.name().into(),
                        base: None,
                        attrs: RefCell::default(),
                        error_kind: Some(kind),
                    };
                    (Some(Rc::new(builtin)), Some(kind))
                }
                other => {
                    return Err(err!(Type, "a class can only inherit from a class, not {}", other.type_name())
                        .at(self.run.src, b.span))
                }
            },
        };
        let Some(layout) = def.layout.get() else { bail!(Runtime, "class {} was never resolved", def.name) };
        let mut frame = Frame::new(layout, &env.capture(layout), env.globals.clone());
        frame.class_ns = Some(FxHashMap::default());
        self.exec_block(&def.body, &mut frame)?;
        let mut attrs: FxHashMap<Sym, Value> = frame.class_ns.take().unwrap_or_default();
        // Python: every class has its own `__doc__` (None without a docstring), not inherited.
        attrs
            .entry(crate::intern::sym::DOC)
            .or_insert_with(|| def.doc.clone().map_or(Value::None, |d| Value::Str(d.into())));
        let class = Rc::new(Class { name: def.name.name(), base, attrs: RefCell::new(attrs), error_kind });
        for v in class.attrs.borrow().values() {
            if let Value::Func(f) = v {
                *f.owner.borrow_mut() = Some(Rc::downgrade(&class));
            }
        }
        Ok(Value::Class(class))
    }

    /// Applies decorators bottom-up (docs/language.md §2).
    fn decorate(&mut self, decorators: &[Expr], mut v: Value, env: &mut Frame) -> R<Value> {
        for d in decorators.iter().rev() {
            let f = self.eval(d, env)?;
            v = self.call_value(&f, vec![v], vec![]).map_err(|e| self.locate(e, d.span))?;
        }
        Ok(v)
    }

    fn exec_with(&mut self, items: &[(Expr, Option<Expr>)], body: &[Stmt], env: &mut Frame) -> R<Flow> {
        let Some(((ctx_expr, target), rest)) = items.split_first() else {
            return self.exec_block(body, env);
        };
        let ctx = self.eval(ctx_expr, env)?;
        let entered = self.enter(&ctx).map_err(|e| self.locate(e, ctx_expr.span))?;
        if let Some(t) = target {
            if let Err(e) = self.assign(t, entered, env) {
                self.exit(&ctx, None).map_err(|e| e.at(self.run.src, ctx_expr.span))?;
                return Err(e);
            }
        }
        let result = self.exec_with(rest, body, env);
        match result {
            Ok(flow) => {
                self.exit(&ctx, None).map_err(|e| self.locate(e, ctx_expr.span))?;
                Ok(flow)
            }
            Err(exc) => {
                let suppress = self.exit(&ctx, Some(&exc)).map_err(|e| self.locate(e, ctx_expr.span))?;
                if suppress {
                    Ok(Flow::Normal)
                } else {
                    Err(exc)
                }
            }
        }
    }

    /// `__enter__`: tapes start recording, accumulators computing tangents; user classes run
    /// their method.
    pub(super) fn enter(&mut self, ctx: &Value) -> R<Value> {
        self.traced_with(true, ctx);
        match ctx {
            Value::Tape(t) => {
                self.ad.enter(t)?;
                Ok(ctx.clone())
            }
            // docs/language.md §5 (as TF): pauses that tape only; the others keep recording.
            Value::StopRecording(t) => {
                self.ad.pause(t)?;
                Ok(Value::None)
            }
            Value::Accumulator(a) => {
                self.ad.enter_accumulator(a)?;
                Ok(ctx.clone())
            }
            Value::Instance(_) => {
                let m = self.get_attr(ctx, sym::ENTER)?;
                self.call_value(&m, vec![], vec![])
            }
            Value::File(f) if f.closed() => bail!(Value, "I/O operation on closed file."),
            Value::File(_) => Ok(ctx.clone()),
            other => bail!(Type, "'{}' object does not support the context manager protocol", other.type_name()),
        }
    }

    /// `__exit__`; returns whether the error is suppressed.
    pub(super) fn exit(&mut self, ctx: &Value, exc: Option<&Exc>) -> R<bool> {
        self.traced_with(false, ctx);
        match ctx {
            Value::Tape(t) => {
                self.ad.exit(t);
                Ok(false)
            }
            Value::StopRecording(_) => {
                self.ad.resume();
                Ok(false)
            }
            Value::Accumulator(a) => {
                self.ad.exit_accumulator(a);
                Ok(false)
            }
            // `with open(...) as f:` closes the file however the block ends.
            Value::File(f) => f.close().map(|_| false),
            Value::Instance(_) => {
                let m = self.get_attr(ctx, sym::EXIT)?;
                let args = match exc {
                    None => vec![Value::None, Value::None, Value::None],
                    Some(e) => {
                        let t = match raised_instance(e) {
                            Some(Value::Instance(i)) => Value::Class(i.class.clone()),
                            _ => Value::ErrorType(e.kind()),
                        };
                        vec![t, raised_value(e), Value::None]
                    }
                };
                let r = self.call_value(&m, args, vec![])?;
                Ok(exc.is_some() && self.truthy(&r)?)
            }
            _ => Ok(false),
        }
    }

    /// `try`: the body, the first handler whose clause matches an error of the body, or the
    /// `else` block after a body that ran to its end; then `finally`, however that part
    /// ended — normally, by `return`/`break`/`continue`, or by an error raised anywhere in
    /// it, the handlers' clauses included (docs/language.md "Exceptions"). A `finally` that
    /// leaves by `return`/`break`/`continue` or raises replaces the way the rest ended.
    fn exec_try(
        &mut self,
        body: &[Stmt],
        handlers: &[Handler],
        orelse: Option<&[Stmt]>,
        finally: Option<&[Stmt]>,
        env: &mut Frame,
    ) -> R<Flow> {
        let result = self.exec_try_handlers(body, handlers, orelse, env);
        let Some(f) = finally else { return result };
        // A bare `raise` inside `finally` re-raises the error on its way out, as in CPython.
        let pending = result.as_ref().err().cloned();
        let handling = pending.is_some();
        if let Some(e) = pending {
            self.run.handling.push(e);
        }
        let closing = self.exec_block(f, env);
        if handling {
            self.run.handling.pop();
        }
        match closing? {
            Flow::Normal => result,
            other => Ok(other),
        }
    }

    /// The part of `try` before `finally`.
    fn exec_try_handlers(
        &mut self,
        body: &[Stmt],
        handlers: &[Handler],
        orelse: Option<&[Stmt]>,
        env: &mut Frame,
    ) -> R<Flow> {
        let exc = match self.exec_block(body, env) {
            // `else` runs only after a body that ran to its end (not after return/break/continue).
            Ok(Flow::Normal) => return orelse.map_or(Ok(Flow::Normal), |b| self.exec_block(b, env)),
            Ok(flow) => return Ok(flow),
            Err(exc) => exc,
        };
        for h in handlers {
            // The error stays the one being handled while the clauses are evaluated.
            self.run.handling.push(exc.clone());
            let matched = self.handler_matches(h, &exc, env);
            self.run.handling.pop();
            if !matched? {
                continue;
            }
            if let Some(n) = h.name {
                store(n, h.slot.get(), raised_value(&exc), env);
            }
            self.run.handling.push(exc);
            let result = self.exec_block(&h.body, env);
            self.run.handling.pop();
            // CPython: `except E as e` unbinds `e` when the handler ends, however it ends.
            if let Some(n) = h.name {
                let _ = delete(n, h.slot.get(), env);
            }
            return result;
        }
        Err(exc)
    }

    /// The error `raise v` raises: a builtin error value, an instance of an exception class
    /// (its message is `str(instance)`), or a class, instantiated without arguments.
    pub fn exception_from(&mut self, v: Value) -> R<Exc> {
        let v = match v {
            Value::ErrorType(_) => self.call_value(&v, vec![], vec![])?,
            Value::Class(ref c) if c.error_kind.is_some() => self.call_value(&v, vec![], vec![])?,
            other => other,
        };
        match v {
            Value::Exception(x) => {
                let mut x = (*x).clone();
                x.0.at = None;
                x.0.trace.clear();
                Ok(x)
            }
            Value::Instance(ref i) if i.class.error_kind.is_some() => {
                let kind = i.class.error_kind.unwrap_or(ErrorKind::Exception);
                let mut x = Exc::new(kind, self.str_of(&v)?);
                set_raised_instance(&mut x, &i.class, v.clone());
                Ok(x)
            }
            other => Err(err!(Type, "exceptions must derive from BaseException, not {}", other.type_name())),
        }
    }

    /// Whether `h` catches `exc`; evaluating its clause may raise (`except NoSuchName:`).
    fn handler_matches(&mut self, h: &Handler, exc: &Exc, env: &mut Frame) -> R<bool> {
        let Some(kind) = &h.kind else { return Ok(true) };
        let k = self.eval(kind, env)?;
        self.clause_catches(&k, exc).map_err(|e| e.at(self.run.src, kind.span))
    }

    /// Whether the class `k` of an `except` clause (or a tuple of them) catches `exc`: a
    /// builtin kind catches the kinds derived from it ([`ErrorKind::catches`]), a user
    /// exception class the instances of it and its subclasses.
    fn clause_catches(&mut self, k: &Value, exc: &Exc) -> R<bool> {
        let ks = match k {
            Value::Tuple(ks) => ks.to_vec(),
            other => vec![other.clone()],
        };
        for k in &ks {
            match k {
                Value::ErrorType(_) => {}
                Value::Class(c) if c.error_kind.is_some() => {}
                other => bail!(Type, "except needs an exception class such as ValueError, not {}", other.type_name()),
            }
        }
        Ok(ks.iter().any(|k| match k {
            Value::ErrorType(kind) => kind.catches(exc.kind()),
            Value::Class(c) => matches!(raised_instance(exc), Some(Value::Instance(i)) if i.class.is_subclass_of(c)),
            _ => false,
        }))
    }
}

/// Binds the variable `name` where the resolver put it.
#[inline]
pub fn store(name: Sym, slot: Slot, v: Value, env: &mut Frame) {
    match slot {
        Slot::Local(i) | Slot::OuterLocal(i) => {
            if let Some(x) = env.locals.get_mut(i as usize) {
                *x = Some(v);
            }
        }
        Slot::ClassGlobal(_) | Slot::ClassFree(_) if env.class_ns.is_some() => {
            if let Some(ns) = &mut env.class_ns {
                ns.insert(name, v);
            }
        }
        Slot::Global(i) | Slot::ClassGlobal(i) => {
            let old = env.globals.slots.borrow_mut().get_mut(i as usize).map(|g| g.value.replace(v));
            drop(old);
        }
        other => store_slot(env, other, v),
    }
}

/// Binds a local or a cell of `env` (parameters, assignment targets).
pub fn store_slot(env: &mut Frame, slot: Slot, v: Value) {
    match slot {
        Slot::Local(i) | Slot::OuterLocal(i) => {
            if let Some(x) = env.locals.get_mut(i as usize) {
                *x = Some(v);
            }
        }
        Slot::Cell(i) | Slot::Free(i) | Slot::ClassFree(i) => {
            let old = env.cells.get(i as usize).map(|c| c.borrow_mut().replace(v));
            drop(old);
        }
        Slot::Global(i) | Slot::ClassGlobal(i) => {
            let old = env.globals.slots.borrow_mut().get_mut(i as usize).map(|g| g.value.replace(v));
            drop(old);
        }
        Slot::Unresolved => {}
    }
}

/// `del name`: unbinds the variable; an unbound one is a NameError (CPython's message).
fn delete(name: Sym, slot: Slot, env: &mut Frame) -> R<()> {
    let old = match slot {
        Slot::Local(i) | Slot::OuterLocal(i) => env.locals.get_mut(i as usize).and_then(Option::take),
        Slot::Cell(i) | Slot::Free(i) => env.cells.get(i as usize).and_then(|c| c.borrow_mut().take()),
        Slot::ClassGlobal(_) | Slot::ClassFree(_) if env.class_ns.is_some() => {
            env.class_ns.as_mut().and_then(|ns| ns.remove(&name))
        }
        Slot::Global(i) | Slot::ClassGlobal(i) => {
            env.globals.slots.borrow_mut().get_mut(i as usize).and_then(|g| g.value.take())
        }
        Slot::ClassFree(_) | Slot::Unresolved => None,
    };
    match old {
        Some(_) => Ok(()),
        None => Err(unbound(name, slot)),
    }
}
