//! The backward pass of `tape.gradient` (docs/language.md §5, "Backward order").
//!
//! Reached operations are those the targets depend on through the tape. An
//! operation's backward step runs once, after every reached operation that
//! consumes its outputs; among ready steps the one that became ready first
//! runs first, and an operation's inputs become ready in argument order. A
//! chain therefore replays last call first, as TensorFlow does.

use super::inspect;
use super::meter::{BackwardStats, SavedCounts};
use super::recorder::{Host, Recorder};
use super::tape::{Entry, Log, Op, Tape, NO_SLOT};
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
    // docs/language.md §5 / TF: a non-persistent tape stops recording when asked for gradients,
    // and frees each entry's saved tensors once its backward step has run.
    let release = tape.borrow_mut().use_once()?;
    if release {
        host.recorder().stop(tape);
    }
    let rec = host.recorder();
    rec.passes.push(BackwardStats::default());
    let before = rec.meter.start();
    // A non-persistent tape's entries are taken out (to be released as the walk goes); a
    // persistent tape's are a snapshot, since VJPs may append to this very tape.
    let (mut log, late_watched, target_slots, source_slots) = {
        let mut t = tape.borrow_mut();
        let slots = |ids: &mut dyn Iterator<Item = TensorId>| ids.map(|id| t.slot_of(id)).collect::<Vec<_>>();
        let (ts, ss) = (slots(&mut targets.iter().map(|x| x.id)), slots(&mut sources.iter().copied()));
        let log = if release { t.take_log() } else { t.log() };
        (log, t.watched_if_late(), ts, ss)
    };
    let mut counts = SavedCounts::new(&log, &mut host.recorder().meter);
    let result = walk(
        host,
        &mut log,
        &mut counts,
        release,
        &late_watched,
        targets,
        sources,
        &target_slots,
        &source_slots,
        output_gradients,
    );
    // What the tape still holds stops counting; a used non-persistent tape holds nothing.
    let rec = host.recorder();
    rec.meter.sub(counts.bytes);
    if release {
        if let Some(l) = Rc::get_mut(&mut log) {
            l.entries.iter_mut().for_each(release_entry);
        }
    }
    let peak = rec.meter.finish(before);
    let mut stats = rec.passes.pop().unwrap_or_default();
    stats.peak_bytes = peak;
    if let Some(outer) = rec.passes.last_mut() {
        outer.absorb(&stats);
    }
    let mut t = tape.borrow_mut();
    if release {
        t.put_log(log);
    }
    t.last_backward = stats;
    result
}

/// The walk of [`gradient`] over `log`: seeds the targets, runs each reached entry's backward
/// step once its consumers have run, and collects the sources' gradients. Every buffer it
/// keeps is held on the recorder's meter while kept; with `release`, each entry's saved
/// tensors are freed once its step has run.
#[allow(clippy::too_many_arguments)]
fn walk<H: Host + ?Sized>(
    host: &mut H,
    log: &mut Rc<Log>,
    counts: &mut SavedCounts,
    release: bool,
    late_watched: &Option<rustc_hash::FxHashSet<TensorId>>,
    targets: &[Tensor],
    sources: &[TensorId],
    target_slots: &[Option<u32>],
    source_slots: &[Option<u32>],
    output_gradients: Option<Vec<Tensor>>,
) -> R<Vec<Option<Tensor>>> {
    let n_entries = log.entries.len();
    let n_slots = log.slot_entry.len();

    // Reached entries, and for each the number of reached consumers of its outputs.
    let mut mark = vec![Mark::Unreached; n_entries];
    let mut pending = vec![0u32; n_entries];
    let mut stack: Vec<usize> = target_slots.iter().flatten().map(|&s| log.slot_entry[s as usize] as usize).collect();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut mark[i], Mark::Reached) == Mark::Reached {
            continue;
        }
        for input in &log.entries[i].inputs {
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
    for (k, (t, slot)) in targets.iter().zip(target_slots).enumerate() {
        let seed = match output_gradients.as_ref().and_then(|g| g.get(k)) {
            Some(g) => {
                if g.shape() != t.shape() {
                    let rec = host.recorder();
                    grads.release_all(rec);
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
        let rec = host.recorder();
        rec.meter.hold(&seed);
        grads.accumulate(rec, t.id, *slot, seed)?;
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

    // Gradient hooks and the trace (`inspect.rs`): one flag when neither is set.
    let inspect = host.recorder().inspect.prune();
    let outcome = (|| -> R<()> {
        while let Some(i) = queue.pop_front() {
            host.check_interrupt()?;
            let e = &log.entries[i];
            if inspect {
                // The gradients of this entry's outputs are complete: their hooks run now.
                for (k, o) in e.outputs.iter().enumerate() {
                    inspect::run_hooks(host, o.id, &mut grads.by_slot[e.first_slot as usize + k])?;
                }
            }
            let mut ups: SmallVec<[Option<Tensor>; 2]> = SmallVec::with_capacity(e.outputs.len());
            for k in 0..e.outputs.len() {
                let slot = e.first_slot as usize + k;
                let g = &mut grads.by_slot[slot];
                ups.push(if keep[slot] { g.clone().inspect(|g| host.recorder().meter.hold(g)) } else { g.take() });
            }
            if ups.iter().any(|g| g.is_some()) {
                let upstream: Vec<Tensor> = ups
                    .into_iter()
                    .zip(&e.outputs)
                    .map(|(g, o)| {
                        g.unwrap_or_else(|| {
                            let z = Tensor::zeros(o.dtype, &o.shape);
                            host.recorder().meter.hold(&z);
                            z
                        })
                    })
                    .collect();
                let needed: SmallVec<[bool; 4]> = e
                    .inputs
                    .iter()
                    .map(|x| match late_watched {
                        None => x.watched,
                        Some(w) => x.id != 0 && w.contains(&x.id),
                    })
                    .collect();
                if inspect && host.recorder().inspect.trace > 0 {
                    host.trace_step(e, &upstream);
                }
                let held: SmallVec<[usize; 2]> = upstream.iter().map(|u| Rc::as_ptr(&u.data) as usize).collect();
                let input_grads = match &*e.op {
                    Op::Custom(call) => host.custom_vjp(call, upstream),
                    Op::Recompute(call) => host.recompute_vjp(call, upstream),
                    _ => host.recorder().vjp(e, upstream, &needed),
                };
                let rec = host.recorder();
                let input_grads = match input_grads {
                    Ok(g) => g,
                    Err(err) => {
                        held.iter().for_each(|&u| rec.meter.release_key(u));
                        return Err(err);
                    }
                };
                if let Op::Custom(_) = &*e.op {
                    rec.note_custom_none(i, &input_grads, &needed);
                }
                // The step's gradients are alive with its upstream ones: the peak of this step.
                let produced: SmallVec<[(usize, Tensor); 2]> = input_grads
                    .into_iter()
                    .enumerate()
                    .filter_map(|(k, g)| {
                        g.filter(|_| needed.get(k) == Some(&true) && k < e.inputs.len()).map(|g| (k, g))
                    })
                    .collect();
                for (_, g) in &produced {
                    rec.meter.hold(g);
                }
                held.iter().for_each(|&u| rec.meter.release_key(u));
                for (k, g) in produced {
                    let x = e.inputs[k];
                    grads.accumulate(rec, x.id, (x.slot != NO_SLOT).then_some(x.slot), g)?;
                }
            }
            let inputs: SmallVec<[u32; 2]> = e.inputs.iter().map(|x| x.slot).collect();
            if release {
                // TF frees an entry's saved tensors once its backward step has run.
                counts.release(e, &mut host.recorder().meter);
                if let Some(l) = Rc::get_mut(log) {
                    release_entry(&mut l.entries[i]);
                }
            }
            for slot in inputs {
                if slot != NO_SLOT {
                    let p = log.slot_entry[slot as usize] as usize;
                    pending[p] -= 1;
                    if pending[p] == 0 && mark[p] == Mark::Reached {
                        mark[p] = Mark::Queued;
                        queue.push_back(p);
                    }
                }
            }
        }
        // The gradients of sources and Variables are complete now. Not in the pass that
        // differentiates a recomputation: what it finds for them is a part of their gradient,
        // which the enclosing pass completes (and hooks there).
        if inspect && !host.recorder().is_recomputing() {
            for id in host.recorder().inspect.hooked_ids() {
                if let Some(cell) = grads.by_id.get_mut(&id) {
                    inspect::run_hooks(host, id, cell)?;
                }
            }
        }
        Ok(())
    })();
    let answer: Vec<Option<Tensor>> = sources
        .iter()
        .zip(source_slots)
        .map(|(id, slot)| match slot {
            Some(s) => grads.by_slot[*s as usize].clone(),
            None => grads.by_id.get(id).cloned().flatten(),
        })
        .collect();
    grads.release_all(host.recorder());
    outcome.map(|()| answer)
}

/// Frees what an entry saved for its backward step, keeping its name: in place when this tape
/// alone holds the operation, else by letting go of it (another tape still needs it).
fn release_entry(e: &mut Entry) {
    if matches!(*e.op, Op::Released { .. }) {
        return;
    }
    let released = e.op.released();
    match Rc::get_mut(&mut e.op) {
        Some(op) => *op = released,
        None => e.op = Rc::new(released),
    }
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

    /// Adds `g` (held on the meter) into the gradient collected for `id` (recorded, for
    /// higher order); the sum stays held, its terms are released.
    fn accumulate(&mut self, rec: &mut Recorder, id: TensorId, slot: Option<u32>, g: Tensor) -> R<()> {
        let sum = match self.cell(id, slot).take() {
            Some(prev) => {
                let sum = rec.add(&prev, &g);
                if let Ok(s) = &sum {
                    rec.meter.hold(s);
                }
                rec.meter.release(&prev);
                rec.meter.release(&g);
                sum?
            }
            None => g,
        };
        *self.cell(id, slot) = Some(sum);
        Ok(())
    }

    /// Releases every gradient still collected from the meter (the pass is over).
    fn release_all(&mut self, rec: &mut Recorder) {
        for g in self.by_slot.iter().flatten().chain(self.by_id.values().flatten()) {
            rec.meter.release(g);
        }
    }
}
