//! The backward pass of `tape.gradient` (LANGUAGE.md §5, "Backward order").
//!
//! Reached operations are those the targets depend on through the tape. An
//! operation's backward step runs once, after every reached operation that
//! consumes its outputs; among ready steps the one that became ready first
//! runs first, and an operation's inputs become ready in argument order. A
//! chain therefore replays last call first, as TensorFlow does.

use super::tape::{Entry, Tape};
use crate::bail;
use crate::runtime::error::R;
use crate::runtime::Interp;
use crate::tensor::{Tensor, TensorId};
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

impl Interp {
    /// Gradients of the sum of `targets` (each weighted by its output gradient,
    /// ones by default) with respect to each of `sources`.
    ///
    /// Errors: RuntimeError on a used non-persistent tape; whatever a VJP raises.
    pub fn gradient(
        &mut self,
        tape: &Rc<RefCell<Tape>>,
        targets: &[Tensor],
        sources: &[TensorId],
        output_gradients: Option<Vec<Tensor>>,
    ) -> R<Vec<Option<Tensor>>> {
        {
            let mut t = tape.borrow_mut();
            if t.used {
                bail!(
                    Runtime,
                    "a non-persistent GradientTape can only be used to compute one set of gradients (use persistent=True)"
                );
            }
            if !t.persistent {
                t.used = true;
            }
        }
        // LANGUAGE.md §5 / TF: a non-persistent tape stops recording when asked for gradients.
        if !tape.borrow().persistent {
            self.tapes.retain(|t| !Rc::ptr_eq(t, tape));
        }
        // A snapshot: VJPs may append to this very tape (a persistent tape inside its block).
        let entries: Vec<Rc<Entry>> = tape.borrow().entries.clone();

        let mut producer: HashMap<TensorId, usize> = HashMap::default();
        for (i, e) in entries.iter().enumerate() {
            for o in &e.outputs {
                producer.insert(o.id, i);
            }
        }

        // Reached entries, and for each tensor the number of reached consumers.
        let mut reached = vec![false; entries.len()];
        let mut pending: HashMap<TensorId, usize> = HashMap::default();
        let mut stack: Vec<usize> = targets.iter().filter_map(|t| producer.get(&t.id).copied()).collect();
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut reached[i], true) {
                continue;
            }
            for &id in &entries[i].inputs {
                if let Some(&p) = producer.get(&id) {
                    *pending.entry(id).or_insert(0) += 1;
                    if !reached[p] {
                        stack.push(p);
                    }
                }
            }
        }

        // Seed the targets' gradients.
        let mut grads: HashMap<TensorId, Tensor> = HashMap::default();
        for (k, t) in targets.iter().enumerate() {
            let seed = match output_gradients.as_ref().and_then(|g| g.get(k)) {
                Some(g) => {
                    if g.shape() != t.shape() {
                        bail!(
                            Shape,
                            "output_gradients[{k}] has shape {} but the target has shape {}",
                            crate::tensor::shape_str(g.shape()),
                            crate::tensor::shape_str(t.shape())
                        );
                    }
                    g.clone()
                }
                None => self.constant_like(t, 1.0),
            };
            self.accumulate(&mut grads, t.id, seed)?;
        }

        let ready_now = |i: usize, pending: &HashMap<TensorId, usize>| {
            entries[i].outputs.iter().all(|o| pending.get(&o.id).copied().unwrap_or(0) == 0)
        };
        let mut queue: VecDeque<usize> = VecDeque::new();
        let mut queued = vec![false; entries.len()];
        for t in targets {
            if let Some(&p) = producer.get(&t.id) {
                if !queued[p] && ready_now(p, &pending) {
                    queued[p] = true;
                    queue.push_back(p);
                }
            }
        }

        let watched_ids = tape.borrow().watched.clone();
        while let Some(i) = queue.pop_front() {
            self.check_interrupt()?;
            let e = &entries[i];
            // A source's gradient is kept for the answer; others are consumed here.
            let ups: Vec<Option<Tensor>> = e
                .outputs
                .iter()
                .map(|o| if sources.contains(&o.id) { grads.get(&o.id).cloned() } else { grads.remove(&o.id) })
                .collect();
            if ups.iter().any(|g| g.is_some()) {
                let upstream: Vec<Tensor> = ups
                    .into_iter()
                    .zip(&e.outputs)
                    .map(|(g, o)| g.unwrap_or_else(|| Tensor::zeros(o.dtype, &o.shape)))
                    .collect();
                let needed: Vec<bool> = e.inputs.iter().map(|id| *id != 0 && watched_ids.contains(id)).collect();
                let input_grads = self.vjp(e, upstream, &needed)?;
                for (k, g) in input_grads.into_iter().enumerate() {
                    if let (Some(g), Some(&id)) = (g, e.inputs.get(k)) {
                        if id != 0 && needed[k] {
                            self.accumulate(&mut grads, id, g)?;
                        }
                    }
                }
            }
            for &id in &e.inputs {
                if let Some(&p) = producer.get(&id) {
                    let c = pending.get_mut(&id).expect("counted when reached");
                    *c -= 1;
                    if *c == 0 && !queued[p] && ready_now(p, &pending) {
                        queued[p] = true;
                        queue.push_back(p);
                    }
                }
            }
        }
        Ok(sources.iter().map(|id| grads.get(id).cloned()).collect())
    }

    /// Adds `g` into the gradient collected for `id` (recorded, for higher order).
    fn accumulate(&mut self, grads: &mut HashMap<TensorId, Tensor>, id: TensorId, g: Tensor) -> R<()> {
        let sum = match grads.remove(&id) {
            Some(prev) => self.add(&prev, &g)?,
            None => g,
        };
        grads.insert(id, sum);
        Ok(())
    }
}
