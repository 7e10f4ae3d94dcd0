//! The backward pass of `tape.gradient` (LANGUAGE.md §5, "Backward order").
//!
//! Reached operations are those the targets depend on through the tape. An
//! operation's backward step runs once, after every reached operation that
//! consumes its outputs; among ready steps the one that became ready first
//! runs first, and an operation's inputs become ready in argument order. A
//! chain therefore replays last call first, as TensorFlow does.

use super::recorder::{Host, Recorder};
use super::tape::{Op, Tape, NO_SLOT};
use crate::bail;
use crate::error::R;
use crate::tensor::{Tensor, TensorId};
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// Per-entry state of the walk.
#[derive(Clone, Copy, PartialEq)]
enum Mark {
    Unreached,
    Reached,
    Queued,
}

/// Gradients of the sum of `targets` (each weighted by its output gradient,
/// ones by default) with respect to each of `sources`.
///
/// Gradients live in a vector indexed by output slot (each entry's inputs name the
/// slots that produced them, resolved at record time); only ids no entry produced
/// (sources, Variables, unwatched targets) go through a small map.
///
/// Errors: RuntimeError on a used non-persistent tape; ShapeError for an output
/// gradient of the wrong shape; whatever a VJP raises.
pub fn gradient<H: Host + ?Sized>(
    host: &mut H,
    tape: &Rc<RefCell<Tape>>,
    targets: &[Tensor],
    sources: &[TensorId],
    output_gradients: Option<Vec<Tensor>>,
) -> R<Vec<Option<Tensor>>> {
    // LANGUAGE.md §5 / TF: a non-persistent tape stops recording when asked for gradients.
    if tape.borrow_mut().use_once()? {
        host.recorder().stop(tape);
    }
    // A snapshot: VJPs may append to this very tape (a persistent tape inside its block).
    let (log, late_watched, target_slots, source_slots) = {
        let t = tape.borrow();
        let slots = |ids: &mut dyn Iterator<Item = TensorId>| ids.map(|id| t.slot_of(id)).collect::<Vec<_>>();
        (t.log(), t.watched_if_late(), slots(&mut targets.iter().map(|x| x.id)), slots(&mut sources.iter().copied()))
    };
    let entries = &log.entries;
    let n_slots = log.slot_entry.len();

    // Reached entries, and for each the number of reached consumers of its outputs.
    let mut mark = vec![Mark::Unreached; entries.len()];
    let mut pending = vec![0u32; entries.len()];
    let mut stack: Vec<usize> = target_slots.iter().flatten().map(|&s| log.slot_entry[s as usize] as usize).collect();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut mark[i], Mark::Reached) == Mark::Reached {
            continue;
        }
        for input in &entries[i].inputs {
            if input.slot != NO_SLOT {
                let p = log.slot_entry[input.slot as usize] as usize;
                pending[p] += 1;
                if mark[p] == Mark::Unreached {
                    stack.push(p);
                }
            }
        }
    }

    // Gradients by output slot; ids no entry produced by id.
    let mut grads = Grads { by_slot: vec![None; n_slots], by_id: HashMap::default() };
    for (k, (t, slot)) in targets.iter().zip(&target_slots).enumerate() {
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
            None => host.recorder().constant_like(t, 1.0),
        };
        grads.accumulate(host.recorder(), t.id, *slot, seed)?;
    }
    // A source's gradient is kept for the answer; others are consumed by their step.
    let mut keep = vec![false; n_slots];
    for s in source_slots.iter().flatten() {
        keep[*s as usize] = true;
    }

    let mut queue: VecDeque<usize> = VecDeque::new();
    for s in target_slots.iter().flatten() {
        let p = log.slot_entry[*s as usize] as usize;
        if mark[p] == Mark::Reached && pending[p] == 0 {
            mark[p] = Mark::Queued;
            queue.push_back(p);
        }
    }

    while let Some(i) = queue.pop_front() {
        host.check_interrupt()?;
        let e = &entries[i];
        let mut ups: SmallVec<[Option<Tensor>; 2]> = SmallVec::with_capacity(e.outputs.len());
        for k in 0..e.outputs.len() {
            let g = &mut grads.by_slot[e.first_slot as usize + k];
            ups.push(if keep[e.first_slot as usize + k] { g.clone() } else { g.take() });
        }
        if ups.iter().any(|g| g.is_some()) {
            let upstream: Vec<Tensor> = ups
                .into_iter()
                .zip(&e.outputs)
                .map(|(g, o)| g.unwrap_or_else(|| Tensor::zeros(o.dtype, &o.shape)))
                .collect();
            let needed: SmallVec<[bool; 4]> = e
                .inputs
                .iter()
                .map(|x| match &late_watched {
                    None => x.watched,
                    Some(w) => x.id != 0 && w.contains(&x.id),
                })
                .collect();
            let input_grads = match &*e.op {
                Op::Custom(call) => host.custom_vjp(call, upstream)?,
                Op::Recompute(call) => host.recompute_vjp(call, upstream)?,
                _ => host.recorder().vjp(e, upstream, &needed)?,
            };
            for (k, g) in input_grads.into_iter().enumerate() {
                if let (Some(g), Some(x)) = (g, e.inputs.get(k)) {
                    if needed[k] {
                        grads.accumulate(host.recorder(), x.id, (x.slot != NO_SLOT).then_some(x.slot), g)?;
                    }
                }
            }
        }
        for x in &e.inputs {
            if x.slot != NO_SLOT {
                let p = log.slot_entry[x.slot as usize] as usize;
                pending[p] -= 1;
                if pending[p] == 0 && mark[p] == Mark::Reached {
                    mark[p] = Mark::Queued;
                    queue.push_back(p);
                }
            }
        }
    }
    Ok(sources
        .iter()
        .zip(&source_slots)
        .map(|(id, slot)| match slot {
            Some(s) => grads.by_slot[*s as usize].clone(),
            None => grads.by_id.get(id).cloned().flatten(),
        })
        .collect())
}

/// The gradients collected so far in one backward pass.
struct Grads {
    by_slot: Vec<Option<Tensor>>,
    by_id: HashMap<TensorId, Option<Tensor>>,
}

impl Grads {
    /// Where the gradient of `id` collects: its output slot, if an entry produced it.
    fn cell(&mut self, id: TensorId, slot: Option<u32>) -> &mut Option<Tensor> {
        match slot {
            Some(s) => &mut self.by_slot[s as usize],
            None => self.by_id.entry(id).or_default(),
        }
    }

    /// Adds `g` into the gradient collected for `id` (recorded, for higher order).
    fn accumulate(&mut self, rec: &mut Recorder, id: TensorId, slot: Option<u32>, g: Tensor) -> R<()> {
        let sum = match self.cell(id, slot).take() {
            Some(prev) => rec.add(&prev, &g)?,
            None => g,
        };
        *self.cell(id, slot) = Some(sum);
        Ok(())
    }
}
