//! The interpreter's side of differentiation: [`Host`] for [`Interp`] (the user-code
//! VJPs of `custom_gradient` and `recompute_grad`) and the decorators' calls. Ops are
//! recorded through one door, the interpreter's [`Recorder`]: `rt.ad.binary(…)`.

use super::value::{Dict, Value};
use super::Interp;
use crate::autodiff::tape::{CustomCall, Entry, Op, RecomputeCall, Site, UserData};
use crate::autodiff::tools::check::Fingerprint;
use crate::autodiff::{backward, forward};
use crate::autodiff::{Host, InputGrads, Recorder, Tape, Variable};
use crate::error::R;
use crate::intern::intern;
use crate::syntax::ast::ParamKind;
use crate::tensor::{shape_str, DType, Tensor, TensorId};
use crate::{bail, err};
use std::cell::RefCell;
use std::rc::Rc;

/// What a recompute_grad entry keeps of the call, to run it again.
struct RecomputeArgs {
    f: Value,
    args: Vec<Value>,
    kwargs: Vec<(Rc<str>, Value)>,
    /// With the determinism check on: the forward pass's fingerprints (`autodiff/tools/check.rs`).
    prints: Option<Rc<Vec<Fingerprint>>>,
}

impl Host for Interp {
    fn recorder(&mut self) -> &mut Recorder {
        &mut self.ad
    }

    fn check_interrupt(&self) -> R<()> {
        Interp::check_interrupt(self)
    }

    /// Runs the call's `grad_fn` and checks what it returns (docs/language.md §5).
    fn custom_vjp(&mut self, call: &CustomCall, upstream: Vec<Tensor>) -> R<InputGrads> {
        let grad_fn = call.grad_fn.get::<Value>().expect("custom_gradient entries hold a Value").clone();
        let ups: Vec<Value> = upstream.into_iter().map(Value::Tensor).collect();
        let kw = if call.variables.is_empty() {
            vec![]
        } else {
            vec![("variables".into(), Value::list(call.variables.iter().map(|v| Value::Variable(v.clone())).collect()))]
        };
        let r = self.call_value(&grad_fn, ups, kw)?;
        let (input_grads, var_grads) = if call.variables.is_empty() {
            (r, None)
        } else {
            let parts = match &r {
                Value::Tuple(_) | Value::List(_) => self.iterate(&r)?,
                _ => vec![],
            };
            if parts.len() != 2 {
                bail!(Value, "@custom_gradient grad_fn of {} must return (input_gradients, variable_gradients) since the function uses variables", call.name);
            }
            (parts[0].clone(), Some(parts[1].clone()))
        };
        let flat = match &input_grads {
            Value::Tuple(_) | Value::List(_) => self.iterate(&input_grads)?,
            other => vec![other.clone()],
        };
        let n = call.inputs.len();
        if flat.len() != n {
            bail!(
                Value,
                "custom_gradient function expected to return {} gradients, but returned {} instead",
                n,
                flat.len()
            );
        }
        let mut out = InputGrads::with_capacity(n + call.variables.len());
        for (i, (g, meta)) in flat.iter().zip(&call.inputs).enumerate() {
            out.push(self.check_grad(&call.name, "input", i, g, meta.as_ref())?);
        }
        if let Some(vg) = var_grads {
            let vgs = self.iterate(&vg)?;
            if vgs.len() != call.variables.len() {
                bail!(
                    Value,
                    "Must return gradient for each variable from @custom_gradient grad_fn: {} expected {}, got {}",
                    call.name,
                    call.variables.len(),
                    vgs.len()
                );
            }
            for (i, (g, v)) in vgs.iter().zip(&call.variables).enumerate() {
                let t = v.peek();
                let meta = (t.shape().to_vec(), t.dtype());
                out.push(self.check_grad(&call.name, "variable", i, g, Some(&meta))?);
            }
        }
        Ok(out)
    }

    fn gradient_hook(&mut self, hook: &UserData, g: Tensor) -> R<Tensor> {
        self.run_gradient_hook(hook, g)
    }

    fn trace_step(&mut self, entry: &Entry, upstream: &[Tensor]) {
        self.show_step(entry, upstream)
    }

    /// Runs `f` again under a local tape, with the forward pass's random draws replayed,
    /// and differentiates it.
    fn recompute_vjp(&mut self, call: &RecomputeCall, upstream: Vec<Tensor>) -> R<InputGrads> {
        let user = call.call.get::<RecomputeArgs>().expect("recompute_grad entries hold their call");
        let (f, kwargs) = (user.f.clone(), user.kwargs.clone());
        let local = Rc::new(RefCell::new(Tape::new(false, true)));
        let mut args = user.args.clone();
        let mut arg_tensors: Vec<Option<Tensor>> = Vec::with_capacity(args.len());
        let mut saved = call.saved.iter();
        for a in args.iter_mut() {
            if matches!(a, Value::Tensor(_) | Value::Variable(_)) {
                // A fresh id per argument (the same tensor may be passed twice), linked to the
                // checkpoint by an identity that enclosing tapes record: they then record the
                // recomputation and its VJPs too, so higher-order gradients flow through it.
                let t = self.ad.identity(saved.next().expect("one saved tensor per tensor input"));
                local.borrow_mut().watch(t.id);
                *a = Value::Tensor(t.clone());
                arg_tensors.push(Some(t));
            } else {
                arg_tensors.push(None);
            }
        }
        {
            let mut l = local.borrow_mut();
            for v in &call.variables {
                l.watch_variable(v);
            }
            for id in &call.captured {
                l.watch(*id);
            }
        }
        let outer_rng = std::mem::replace(&mut self.rng, call.rng_state.clone());
        let run = self.ad.enter_region(call.region, true);
        if let Some(prints) = &user.prints {
            self.ad.tools().checks.begin_comparing(prints.clone());
        }
        self.ad.begin_recompute(Some(&local));
        let result = self.call_value(&f, args, kwargs);
        self.ad.end_recompute(Some(&local));
        let mismatch = user.prints.as_ref().and_then(|_| self.ad.tools().checks.end_comparing());
        let seconds = self.ad.leave_region(run);
        self.rng = outer_rng;
        // The recompute ledger: what plain recording of f would have saved.
        self.ad.note_region_bytes(call.region, None, Some(local.borrow().stats().2));
        if let Some(pass) = self.ad.tools().passes.last_mut() {
            pass.recompute_calls += 1;
            pass.recomputed_ops += local.borrow().len();
            pass.recompute_seconds += seconds;
        }
        let result = result?;
        if let Some(m) = mismatch {
            return Err(self.recompute_mismatch(&call.name, &m));
        }

        let targets = self.flatten_tensors(&result, "recompute_grad function")?;
        let mut sources: Vec<TensorId> = arg_tensors.iter().flatten().map(|t| t.id).collect();
        sources.extend(call.variables.iter().map(|v| v.handle));
        sources.extend(&call.captured);
        self.ad.begin_recompute(None);
        let grads = self.gradient(&local, &targets, &sources, Some(upstream));
        self.ad.end_recompute(None);
        let grads = grads?;

        // Unconnected inputs get zeros (TF's recompute_grad asks for UnconnectedGradients.ZERO).
        let mut grads = grads.into_iter();
        let mut out = InputGrads::new();
        for t in &arg_tensors {
            out.push(t.as_ref().map(|t| grads.next().flatten().unwrap_or_else(|| Tensor::zeros(t.dtype(), t.shape()))));
        }
        for v in &call.variables {
            out.push(Some(grads.next().flatten().unwrap_or_else(|| {
                let t = v.peek();
                Tensor::zeros(t.dtype(), t.shape())
            })));
        }
        for _ in &call.captured {
            out.push(grads.next().flatten());
        }
        Ok(out)
    }
}

impl Interp {
    /// Gradients of `targets` with respect to `sources` on `tape` (see [`backward::gradient`]).
    pub fn gradient(
        &mut self,
        tape: &Rc<RefCell<Tape>>,
        targets: &[Tensor],
        sources: &[TensorId],
        output_gradients: Option<Vec<Tensor>>,
    ) -> R<Vec<Option<Tensor>>> {
        backward::gradient(self, tape, targets, sources, output_gradients)
    }

    /// The name of a callable, for messages.
    pub fn callable_name(&self, f: &Value) -> Rc<str> {
        match f {
            Value::Func(f) => f.def.name.name(),
            Value::Builtin(b) => b.name.clone(),
            Value::Method(m) => self.callable_name(&m.1),
            Value::Instance(i) => i.class.name.clone(),
            Value::Class(c) => c.name.clone(),
            _ => "<callable>".into(),
        }
    }

    /// The tensors of a result: a tensor, a Variable (read), a number (as a tensor), or
    /// tuples, lists and dicts of tensors nested to any depth (TF's `nest` structures;
    /// dict values in insertion order), where a `None` leaf stands for no output.
    ///
    /// Errors: TypeError naming `what` for any other value; RecursionError for a
    /// structure nested too deep (or containing itself).
    pub fn flatten_tensors(&mut self, v: &Value, what: &str) -> R<Vec<Tensor>> {
        if let Value::Int(_) | Value::Float(_) = v {
            return Ok(vec![self.to_tensor(v, None)?]);
        }
        let mut out = Vec::new();
        self.flatten_into(v, what, true, &mut out)?;
        Ok(out)
    }

    fn flatten_into(&mut self, v: &Value, what: &str, top: bool, out: &mut Vec<Tensor>) -> R<()> {
        match v {
            Value::Tensor(_) | Value::Variable(_) => out.push(self.to_tensor(v, None)?),
            Value::Tuple(_) | Value::List(_) | Value::Dict(_) => {
                let items: Vec<Value> = match v {
                    Value::Dict(d) => d.borrow().values().map(|(_, x)| x.clone()).collect(),
                    _ => self.iterate(v)?,
                };
                self.nested("flattening a result", |rt| {
                    items.iter().try_for_each(|x| rt.flatten_into(x, what, false, out))
                })?;
            }
            Value::None if !top => {}
            other => bail!(
                Type,
                "{what} must return a tensor or a (nested) tuple, list or dict of tensors, got {}",
                if top { format!("a {}", other.type_name()) } else { format!("one holding a {}", other.type_name()) }
            ),
        }
        Ok(())
    }

    /// Rebuilds `v`'s structure around new output tensors (one per tensor leaf of
    /// [`Interp::flatten_tensors`], in the same order).
    pub fn rebuild(v: &Value, outs: &mut impl Iterator<Item = Tensor>) -> Value {
        match v {
            Value::Tuple(t) => Value::tuple(t.iter().map(|x| Self::rebuild(x, outs)).collect()),
            Value::List(l) => Value::list(l.borrow().iter().map(|x| Self::rebuild(x, outs)).collect()),
            Value::Dict(d) => {
                let rebuilt: Dict =
                    d.borrow().iter().map(|(k, (key, x))| (k.clone(), (key.clone(), Self::rebuild(x, outs)))).collect();
                Value::Dict(Rc::new(RefCell::new(rebuilt)))
            }
            Value::None => Value::None,
            _ => Value::Tensor(outs.next().expect("one output per tensor")),
        }
    }

    /// Whether any active tape watches this tensor or Variable.
    fn watched_anywhere(&mut self, v: &Value) -> bool {
        let id = match v {
            Value::Tensor(t) => t.id,
            Value::Variable(var) => var.handle,
            _ => return false,
        };
        self.ad.watches(id)
    }

    /// Calls `custom_gradient(f)` with these arguments.
    pub fn call_custom_gradient(&mut self, f: &Value, pos: Vec<Value>, kw: Vec<(Rc<str>, Value)>) -> R<Value> {
        let name = self.callable_name(f);
        // docs/language.md §5: a watched tensor passed by keyword would silently get no gradient.
        for (k, v) in &kw {
            if self.watched_anywhere(v) {
                bail!(
                    Type,
                    "{name}() got the watched tensor '{k}' as a keyword argument: custom_gradient inputs are the positional arguments, so pass it positionally"
                );
            }
        }
        self.ad.collect_reads();
        let result = self.call_value(f, pos.clone(), kw);
        let read = self.ad.reads();
        let result = result?;
        let (y, grad_fn) = match &result {
            Value::Tuple(t) if t.len() == 2 => (t[0].clone(), t[1].clone()),
            Value::List(l) if l.borrow().len() == 2 => (l.borrow()[0].clone(), l.borrow()[1].clone()),
            other => bail!(
                Type,
                "a @custom_gradient function must return (y, grad_fn), but {name}() returned a {}",
                other.type_name()
            ),
        };
        let variables: Vec<Rc<Variable>> = read
            .into_iter()
            .filter(|v| !pos.iter().any(|p| matches!(p, Value::Variable(x) if Rc::ptr_eq(x, v))))
            .collect();
        if !variables.is_empty() && !accepts_variables(&grad_fn) {
            let mut names = Vec::with_capacity(variables.len());
            for v in &variables {
                names.push(self.repr_of(&Value::Variable(v.clone()))?);
            }
            bail!(
                Type,
                "@custom_gradient grad_fn must accept keyword argument 'variables', since function uses variables: [{}]",
                names.join(", ")
            );
        }
        let mut ids = Vec::with_capacity(pos.len() + variables.len());
        let mut inputs = Vec::with_capacity(pos.len());
        for p in &pos {
            match p {
                Value::Tensor(_) | Value::Variable(_) => {
                    let t = self.to_tensor(p, None)?;
                    ids.push(t.id);
                    inputs.push(Some((t.shape().to_vec(), t.dtype())));
                }
                Value::Int(_) | Value::Float(_) => {
                    ids.push(0);
                    inputs.push(Some((vec![], DType::F32)));
                }
                _ => {
                    ids.push(0);
                    inputs.push(None);
                }
            }
        }
        for v in &variables {
            ids.push(self.read_variable(v).id);
        }
        let results = self.flatten_tensors(&y, &format!("@custom_gradient function {name}"))?;
        let outs: Vec<Tensor> = results.iter().map(|t| t.renamed()).collect();
        let refs: Vec<&Tensor> = outs.iter().collect();
        let call = Rc::new(CustomCall { name: name.clone(), grad_fn: UserData::new(grad_fn), inputs, variables });
        self.ad.record_ids(&ids, &refs, || Op::Custom(call.clone()));
        // Forward mode (as TF's ForwardAccumulator): an output whose result in f has a tangent
        // keeps it (f's own operations); the others get grad_fn transposed, whose errors are
        // raised here.
        self.ad.copy_tangents(&results, &outs);
        if self.ad.any_tangent(&ids) {
            forward::host_tangents(self, &ids, &refs, &Rc::new(Op::Custom(call)))?;
        }
        Ok(Self::rebuild(&y, &mut outs.into_iter()))
    }

    /// docs/language.md §5: each returned gradient must match its input's shape and
    /// dtype; a Python number is accepted for a scalar input.
    fn check_grad(
        &mut self,
        fname: &str,
        what: &str,
        i: usize,
        g: &Value,
        meta: Option<&(Vec<usize>, DType)>,
    ) -> R<Option<Tensor>> {
        let Some((shape, dtype)) = meta else { return Ok(None) };
        match g {
            Value::None => Ok(None),
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                if !shape.is_empty() {
                    bail!(
                        Value,
                        "custom_gradient function {fname}: gradient for {what} {i} is a Python number but the {what} has shape {}",
                        shape_str(shape)
                    );
                }
                Ok(Some(self.to_tensor(g, Some(*dtype))?))
            }
            Value::Tensor(_) | Value::Variable(_) => {
                let t = self.to_tensor(g, None)?;
                if t.shape() != shape.as_slice() {
                    bail!(
                        Value,
                        "custom_gradient function {fname}: gradient for {what} {i} has shape {} but the {what} has shape {}",
                        shape_str(t.shape()),
                        shape_str(shape)
                    );
                }
                if t.dtype() != *dtype {
                    bail!(
                        Value,
                        "custom_gradient function {fname}: gradient for {what} {i} has dtype {} but the {what} has dtype {}",
                        t.dtype(),
                        dtype
                    );
                }
                Ok(Some(t))
            }
            other => Err(err!(
                Type,
                "custom_gradient function {fname}: gradient for {what} {i} is a {}, not a tensor",
                other.type_name()
            )),
        }
    }

    /// Calls `grad_pass_through(f)`: f's forward values, an identity gradient.
    pub fn call_pass_through(&mut self, f: &Value, pos: Vec<Value>, kw: Vec<(Rc<str>, Value)>) -> R<Value> {
        self.ad.collect_reads();
        let result = self.call_value(f, pos.clone(), kw);
        self.ad.reads();
        let result = result?;
        let mut ids = Vec::with_capacity(pos.len());
        for p in &pos {
            ids.push(match p {
                Value::Tensor(t) => t.id,
                Value::Variable(v) => v.handle,
                _ => 0,
            });
        }
        let name = self.callable_name(f);
        let results = self.flatten_tensors(&result, &format!("grad_pass_through function {name}"))?;
        let outs: Vec<Tensor> = results.iter().map(|t| t.renamed()).collect();
        let refs: Vec<&Tensor> = outs.iter().collect();
        self.ad.record_ids(&ids, &refs, || Op::PassThrough);
        // Forward mode as for custom_gradient (TF builds grad_pass_through on it): f's tangents,
        // else the identity gradient transposed.
        self.ad.copy_tangents(&results, &outs);
        if self.ad.any_tangent(&ids) {
            forward::host_tangents(self, &ids, &refs, &Rc::new(Op::PassThrough))?;
        }
        Ok(Self::rebuild(&result, &mut outs.into_iter()))
    }

    /// Calls `recompute_grad(f)` with these arguments; `check` (default: the interpreter's
    /// `check_recompute`) fingerprints the forward pass for the determinism check.
    pub fn call_recompute(
        &mut self,
        f: &Value,
        check: Option<bool>,
        pos: Vec<Value>,
        kw: Vec<(Rc<str>, Value)>,
    ) -> R<Value> {
        let check = check.unwrap_or(self.config.check_recompute);
        let rng_state = self.rng.clone();
        let name = self.callable_name(f);
        let region = self.ad.region_of(&name, def_site(f));
        let run = self.ad.enter_region(region, self.ad.is_recomputing());
        let paused = self.ad.pause_all();
        // The result is read while the watchers are on: a Variable that f returns is a read too.
        // f sees its tensor arguments under fresh ids, so that the capture probe tells a tensor
        // read through a parameter from the same tensor read from an enclosing scope: passed
        // and captured, it has two uses, and its gradient is their sum (docs/language.md §5).
        let fresh: Vec<Value> = pos
            .iter()
            .map(|p| match p {
                Value::Tensor(t) => Value::Tensor(t.renamed()),
                other => other.clone(),
            })
            .collect();
        if check {
            self.ad.tools().checks.begin_recording();
        }
        let result = self.call_value(f, fresh, kw.clone()).and_then(|r| {
            let outs = self.flatten_tensors(&r, &format!("recompute_grad function {name}"))?;
            // A watched tensor returned as it is was captured too, though no operation read it.
            self.ad.probe(&outs.iter().map(|t| t.id).collect::<Vec<_>>());
            Ok((r, outs))
        });
        let prints = check.then(|| Rc::new(self.ad.tools().checks.end_recording()));
        // Reads inside f count as reads for enclosing custom_gradient/recompute calls too.
        let (read, seen) = self.ad.resume_all(paused);
        self.ad.leave_region(run);
        let (result, outs) = result?;
        if self.ad.tapes().is_empty() && self.ad.accumulators().is_empty() {
            return Ok(result);
        }
        let mut ids = Vec::with_capacity(pos.len());
        let mut saved = Vec::new();
        for p in &pos {
            match p {
                Value::Tensor(_) | Value::Variable(_) => {
                    let t = self.to_tensor(p, None)?;
                    ids.push(t.id);
                    saved.push(t);
                }
                _ => ids.push(0),
            }
        }
        // Every Variable f read, including one also passed positionally: the positional
        // path and the read path are two uses, and the gradient is their sum (docs/language.md §5;
        // TensorFlow drops the read path there).
        let variables = read;
        // Reading them now, with the tapes active, makes the tapes watch them (as TF's input conversion does).
        for v in &variables {
            ids.push(self.read_variable(v).id);
        }
        let captured: Vec<TensorId> =
            seen.into_iter().filter(|id| !variables.iter().any(|v| v.handle == *id)).collect();
        ids.extend(&captured);
        let outs: Vec<Tensor> = outs.iter().map(|t| t.renamed()).collect();
        let refs: Vec<&Tensor> = outs.iter().collect();
        // The recompute ledger: what the checkpoint saves (a buffer passed twice counts once).
        let bytes: usize = saved
            .iter()
            .enumerate()
            .filter(|(i, t)| !saved[..*i].iter().any(|u| Rc::ptr_eq(&u.data, &t.data)))
            .map(|(_, t)| t.nbytes())
            .sum();
        self.ad.note_region_bytes(region, Some(bytes), None);
        let user = UserData::new(RecomputeArgs { f: f.clone(), args: pos, kwargs: kw, prints });
        let call = Rc::new(RecomputeCall { name, region, call: user, saved, variables, captured, rng_state });
        // An enclosing check saw f's operations; this entry exists only where a tape records
        // (not in the enclosing function's forward pass, where the tapes are paused).
        let checks = self.ad.tools().checks.suspend();
        self.ad.record_ids(&ids, &refs, || Op::Recompute(call.clone()));
        // f ran with the accumulators set aside: its outputs' tangents come from its VJP,
        // transposed (TF raises NotImplementedError here; DGL gives the tangents f would have).
        let tangents = if self.ad.any_tangent(&ids) {
            forward::host_tangents(self, &ids, &refs, &Rc::new(Op::Recompute(call)))
        } else {
            Ok(())
        };
        self.ad.tools().checks.resume(checks);
        tangents?;
        Ok(Self::rebuild(&result, &mut outs.into_iter()))
    }
}

/// Where a function was defined, for its checkpoint region ([`Site::NONE`] for a builtin).
fn def_site(f: &Value) -> Site {
    match f {
        Value::Func(f) => Site { src: f.source, pos: f.def.span.start },
        Value::Method(m) => def_site(&m.1),
        _ => Site::NONE,
    }
}

/// Whether `grad_fn` can take `variables=`: a parameter of that name or `**kwargs`.
fn accepts_variables(grad_fn: &Value) -> bool {
    match grad_fn {
        Value::Func(f) => f.def.params.iter().any(|p| {
            p.kind == ParamKind::VarKw
                || (p.name == intern("variables") && matches!(p.kind, ParamKind::Normal | ParamKind::KwOnly))
        }),
        Value::Method(m) => accepts_variables(&m.1),
        Value::Builtin(_) => true,
        Value::Instance(i) => i.class.lookup(intern("__call__")).is_some_and(|c| accepts_variables(&c)),
        _ => false,
    }
}
