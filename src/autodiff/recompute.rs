//! `@recompute_grad` (LANGUAGE.md §5): the forward pass runs with every tape
//! paused, and one entry holding only the inputs is recorded. During
//! `gradient`, `f` runs again under a local tape (its prints happen again,
//! last call first) with the forward pass's random draws replayed, and the
//! local gradients flow to the inputs, the Variables `f` read, and the watched
//! tensors it captured from enclosing scopes.

use super::tape::{Op, RecomputeCall, Tape};
use crate::runtime::error::R;
use crate::runtime::value::Value;
use crate::runtime::Interp;
use crate::tensor::{Tensor, TensorId};
use std::cell::RefCell;
use std::rc::Rc;

impl Interp {
    /// Notes the watched tensors a recompute forward pass reads (the capture probe).
    pub fn probe(&mut self, inputs: &[&Tensor]) {
        for (paused, seen) in &mut self.capture_probes {
            for x in inputs {
                if !seen.contains(&x.id) && paused.iter().any(|t| t.borrow().watched.contains(&x.id)) {
                    seen.push(x.id);
                }
            }
        }
    }

    /// Calls `recompute_grad(f)` with these arguments.
    pub fn call_recompute(&mut self, f: &Value, pos: Vec<Value>, kw: Vec<(Rc<str>, Value)>) -> R<Value> {
        let rng_state = self.rng.clone();
        let paused = std::mem::take(&mut self.tapes);
        self.capture_probes.push((paused.clone(), Vec::new()));
        self.var_watchers.push(Vec::new());
        let name = self.callable_name(f);
        // The result is read while the watchers are on: a Variable that f returns is a read too.
        // f sees its tensor arguments under fresh ids, so that the capture probe tells a tensor
        // read through a parameter from the same tensor read from an enclosing scope: passed
        // and captured, it has two uses, and its gradient is their sum (LANGUAGE.md §5).
        let fresh: Vec<Value> = pos
            .iter()
            .map(|p| match p {
                Value::Tensor(t) => Value::Tensor(t.renamed()),
                other => other.clone(),
            })
            .collect();
        let result = self.call_value(f, fresh, kw.clone()).and_then(|r| {
            let outs = self.flatten_tensors(&r, &format!("recompute_grad function {name}"))?;
            // A watched tensor returned as it is was captured too, though no operation read it.
            self.probe(&outs.iter().collect::<Vec<_>>());
            Ok((r, outs))
        });
        let read = self.var_watchers.pop().unwrap_or_default();
        let (_, seen) = self.capture_probes.pop().unwrap_or_default();
        self.tapes = paused;
        let (result, outs) = result?;
        // Reads inside f count as reads for enclosing custom_gradient/recompute calls too.
        for w in &mut self.var_watchers {
            for v in &read {
                if !w.iter().any(|x| Rc::ptr_eq(x, v)) {
                    w.push(v.clone());
                }
            }
        }
        if self.tapes.is_empty() {
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
        // path and the read path are two uses, and the gradient is their sum (LANGUAGE.md §5;
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
        let call = RecomputeCall { f: f.clone(), args: pos, kwargs: kw, saved, variables, captured, rng_state };
        self.record_ids(&ids, &refs, || Op::Recompute(Rc::new(call)));
        Ok(Self::rebuild(&result, &mut outs.into_iter()))
    }

    /// The VJP of a recompute call: run `f` again under a local tape and differentiate it.
    pub fn recompute_vjp(&mut self, call: &RecomputeCall, upstream: Vec<Tensor>) -> R<Vec<Option<Tensor>>> {
        let local = Rc::new(RefCell::new(Tape::new(false, true)));
        let mut args = call.args.clone();
        let mut arg_tensors: Vec<Option<Tensor>> = Vec::with_capacity(args.len());
        let mut saved = call.saved.iter();
        for a in args.iter_mut() {
            if matches!(a, Value::Tensor(_) | Value::Variable(_)) {
                // A fresh id per argument (the same tensor may be passed twice), linked to the
                // checkpoint by an identity that enclosing tapes record: they then record the
                // recomputation and its VJPs too, so higher-order gradients flow through it.
                let t = self.identity(saved.next().expect("one saved tensor per tensor input"));
                local.borrow_mut().watched.insert(t.id);
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
                l.watched.insert(*id);
            }
            l.active = true;
        }
        let outer_rng = std::mem::replace(&mut self.rng, call.rng_state.clone());
        self.recomputing += 1;
        self.tapes.push(local.clone());
        let result = self.call_value(&call.f, args, call.kwargs.clone());
        self.tapes.retain(|t| !Rc::ptr_eq(t, &local));
        local.borrow_mut().active = false;
        self.recomputing -= 1;
        self.rng = outer_rng;
        let result = result?;

        let targets = self.flatten_tensors(&result, "recompute_grad function")?;
        let mut sources: Vec<TensorId> = arg_tensors.iter().flatten().map(|t| t.id).collect();
        sources.extend(call.variables.iter().map(|v| v.handle));
        sources.extend(&call.captured);
        self.recomputing += 1;
        let grads = self.gradient(&local, &targets, &sources, Some(upstream));
        self.recomputing -= 1;
        let grads = grads?;

        // Unconnected inputs get zeros (TF's recompute_grad asks for UnconnectedGradients.ZERO).
        let mut grads = grads.into_iter();
        let mut out = Vec::new();
        for t in &arg_tensors {
            out.push(match t {
                Some(t) => Some(grads.next().flatten().unwrap_or_else(|| Tensor::zeros(t.dtype(), t.shape()))),
                None => None,
            });
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
