//! The backward pass of `tape.gradient` (docs/language.md §5, "Backward order").
//!
//! Reached operations are those the targets depend on through the tape. An
//! operation's backward step runs once, after every reached operation that
//! consumes its outputs; among ready steps the one that became ready first
//! runs first, and an operation's inputs become ready in argument order. A
//! chain therefore replays last call first, as TensorFlow does.

use super::observer::buffer;
use super::recorder::{Host, Recorder};
use super::tape::{Entry, Log, Op, Tape, NO_SLOT};
use crate::bail;
use crate::error::R;
use crate::tensor::{Tensor, TensorId};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
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
/// The recorder's observer sees the pass begin and end, every gradient buffer held while
/// kept and each step run (`observer.rs`: the tools measure the pass's memory from this).
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
    // A non-persistent tape's entries are taken out (to be released as the walk goes); a
    // persistent tape's are a snapshot, since VJPs may append to this very tape.
    let (mut log, late_watched, target_slots, source_slots) = {
        let mut t = tape.borrow_mut();
        let slots = |ids: &mut dyn Iterator<Item = TensorId>| ids.map(|id| t.slot_of(id)).collect::<Vec<_>>();
        let (ts, ss) = (slots(&mut targets.iter().map(|x| x.id)), slots(&mut sources.iter().copied()));
        let log = if release { t.take_log() } else { t.log() };
        (log, t.watched_if_late(), ts, ss)
    };
    host.recorder().tell(|o| o.pass_begun(&log));
    // An observer may count buffers by address, so when the walk's buffers are made and
    // let go (the output gradients last) is a part of what it measures.
    let result = {
        let mut walk = Walk::reach(&log, release, &late_watched, &target_slots);
        walk.seed(host, targets, &target_slots, output_gradients.as_deref()).and_then(|()| {
            walk.start(&log, &target_slots, &source_slots);
            let outcome = walk.run(host, &mut log);
            let answer = walk.answer(sources, &source_slots);
            walk.grads.release_all(host.recorder());
            outcome.map(|()| answer)
        })
    };
    drop(output_gradients);
    // A used non-persistent tape holds nothing.
    if release {
        if let Some(l) = Rc::get_mut(&mut log) {
            l.entries.iter_mut().for_each(release_entry);
        }
    }
    let mut t = tape.borrow_mut();
    if release {
        t.put_log(log);
    }
    host.recorder().tell(|o| o.pass_ended(&mut t));
    result
}

/// The walk of [`gradient`] over a log: which entries are reached and how many of their
/// consumers are still to run, the steps ready to run, and the gradients collected. Every
/// gradient buffer it keeps is held (told to the observer) while kept. (Its fields are let go
/// of in the order they are declared.)
struct Walk<'a> {
    /// Entries whose consumers have all run, in the order they became ready.
    queue: VecDeque<usize>,
    /// A source's gradient is kept for the answer; others are consumed by their step.
    keep: Vec<bool>,
    grads: Grads,
    /// The entries still to visit while marking: empty once marked, its buffer kept to the
    /// end as the other vectors are.
    _stack: Vec<usize>,
    /// For each reached entry, the number of reached consumers of its outputs still to run.
    pending: Vec<u32>,
    mark: Vec<Mark>,
    /// With `release`, each entry's saved tensors are freed once its step has run.
    release: bool,
    /// The watched ids, when an entry's record-time view of its inputs may be stale.
    late_watched: &'a Option<HashSet<TensorId>>,
    /// Whether the observer has gradient hooks or a trace (one flag when neither is set).
    watched: bool,
}

impl<'a> Walk<'a> {
    /// Marks the entries the targets (by output slot) depend on and counts, for each, its
    /// reached consumers.
    fn reach(
        log: &Log,
        release: bool,
        late_watched: &'a Option<HashSet<TensorId>>,
        target_slots: &[Option<u32>],
    ) -> Walk<'a> {
        let n_slots = log.slot_entry.len();
        let mut mark = vec![Mark::Unreached; log.entries.len()];
        let mut pending = vec![0u32; log.entries.len()];
        let mut stack: Vec<usize> =
            target_slots.iter().flatten().map(|&s| log.slot_entry[s as usize] as usize).collect();
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
        Walk {
            queue: VecDeque::new(),
            keep: Vec::new(),
            grads: Grads { by_slot: vec![None; n_slots], by_id: HashMap::default() },
            _stack: stack,
            pending,
            mark,
            release,
            late_watched,
            watched: false,
        }
    }

    /// Once the targets are seeded: marks the sources' gradients to keep and queues the
    /// targets' entries that no reached entry consumes.
    fn start(&mut self, log: &Log, target_slots: &[Option<u32>], source_slots: &[Option<u32>]) {
        self.keep = vec![false; log.slot_entry.len()];
        for s in source_slots.iter().flatten() {
            self.keep[*s as usize] = true;
        }
        for s in target_slots.iter().flatten() {
            self.ready(log.slot_entry[*s as usize] as usize);
        }
    }

    /// Queues entry `p` once the last of its reached consumers has run.
    fn ready(&mut self, p: usize) {
        if self.pending[p] == 0 && self.mark[p] == Mark::Reached {
            self.mark[p] = Mark::Queued;
            self.queue.push_back(p);
        }
    }

    /// Seeds each target's gradient: its output gradient, or ones.
    fn seed<H: Host + ?Sized>(
        &mut self,
        host: &mut H,
        targets: &[Tensor],
        target_slots: &[Option<u32>],
        output_gradients: Option<&[Tensor]>,
    ) -> R<()> {
        for (k, (t, slot)) in targets.iter().zip(target_slots).enumerate() {
            let seed = match output_gradients.and_then(|g| g.get(k)) {
                Some(g) => {
                    if g.shape() != t.shape() {
                        self.grads.release_all(host.recorder());
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
            rec.held(&seed);
            self.grads.accumulate(rec, t.id, *slot, seed)?;
        }
        Ok(())
    }

    /// Runs each ready entry's backward step in turn; then the gradients of sources and
    /// Variables are complete.
    fn run<H: Host + ?Sized>(&mut self, host: &mut H, log: &mut Rc<Log>) -> R<()> {
        self.watched = host.recorder().observer_mut().is_some_and(|o| o.watches_gradients());
        while let Some(i) = self.queue.pop_front() {
            host.check_interrupt()?;
            self.step(host, &log.entries[i], i)?;
            let inputs: SmallVec<[u32; 2]> = log.entries[i].inputs.iter().map(|x| x.slot).collect();
            if self.release {
                // TF frees an entry's saved tensors once its backward step has run.
                host.recorder().tell(|o| o.saved_released(&log.entries[i]));
                if let Some(l) = Rc::get_mut(log) {
                    release_entry(&mut l.entries[i]);
                }
            }
            for slot in inputs {
                if slot != NO_SLOT {
                    let p = log.slot_entry[slot as usize] as usize;
                    self.pending[p] -= 1;
                    self.ready(p);
                }
            }
        }
        // Not in the pass that differentiates a recomputation: what it finds for sources and
        // Variables is a part of their gradient, which the enclosing pass completes.
        if self.watched && !host.recorder().is_recomputing() {
            let ids = host.recorder().observer().map(|o| o.hooked_ids()).unwrap_or_default();
            for id in ids {
                if let Some(cell) = self.grads.by_id.get_mut(&id) {
                    complete(host, id, cell)?;
                }
            }
        }
        Ok(())
    }

    /// The backward step of entry `i` (`e`), whose outputs' gradients are complete: its VJP
    /// on their gradients (zeros for a missing one), adding what it gives into its inputs'.
    fn step<H: Host + ?Sized>(&mut self, host: &mut H, e: &Entry, i: usize) -> R<()> {
        if self.watched {
            for (k, o) in e.outputs.iter().enumerate() {
                complete(host, o.id, &mut self.grads.by_slot[e.first_slot as usize + k])?;
            }
        }
        let Some(upstream) = self.upstream(host, e) else { return Ok(()) };
        let needed: SmallVec<[bool; 4]> = e
            .inputs
            .iter()
            .map(|x| match self.late_watched {
                None => x.watched,
                Some(w) => x.id != 0 && w.contains(&x.id),
            })
            .collect();
        if self.watched && host.recorder().observer().is_some_and(|o| o.traces()) {
            host.trace_step(e, &upstream);
        }
        let held: SmallVec<[usize; 2]> = upstream.iter().map(buffer).collect();
        let input_grads = match &*e.op {
            Op::Custom(call) => host.custom_vjp(call, upstream),
            Op::Recompute(call) => host.recompute_vjp(call, upstream),
            _ => host.recorder().vjp(e, upstream, &needed),
        };
        let rec = host.recorder();
        let input_grads = match input_grads {
            Ok(g) => g,
            Err(err) => {
                held.iter().for_each(|&u| rec.released_buffer(u));
                return Err(err);
            }
        };
        rec.tell(|o| o.step_ran(i, e, &input_grads, &needed));
        // The step's gradients are alive with its upstream ones: the peak of this step.
        let produced: SmallVec<[(usize, Tensor); 2]> = input_grads
            .into_iter()
            .enumerate()
            .filter_map(|(k, g)| g.filter(|_| needed.get(k) == Some(&true) && k < e.inputs.len()).map(|g| (k, g)))
            .collect();
        for (_, g) in &produced {
            rec.held(g);
        }
        held.iter().for_each(|&u| rec.released_buffer(u));
        for (k, g) in produced {
            let x = e.inputs[k];
            self.grads.accumulate(rec, x.id, (x.slot != NO_SLOT).then_some(x.slot), g)?;
        }
        Ok(())
    }

    /// The gradients of `e`'s outputs for its step (held; zeros where an output has none), or
    /// `None` when none has one (the step has nothing to do). A source's is copied, as it is
    /// kept for the answer; others are taken.
    fn upstream<H: Host + ?Sized>(&mut self, host: &mut H, e: &Entry) -> Option<Vec<Tensor>> {
        let mut ups: SmallVec<[Option<Tensor>; 2]> = SmallVec::with_capacity(e.outputs.len());
        for k in 0..e.outputs.len() {
            let slot = e.first_slot as usize + k;
            let g = &mut self.grads.by_slot[slot];
            ups.push(if self.keep[slot] {
                let g = g.clone();
                if let Some(g) = &g {
                    host.recorder().held(g);
                }
                g
            } else {
                g.take()
            });
        }
        if ups.iter().all(|g| g.is_none()) {
            return None;
        }
        let upstream = ups.into_iter().zip(&e.outputs).map(|(g, o)| {
            g.unwrap_or_else(|| {
                let z = Tensor::zeros(o.dtype, &o.shape);
                host.recorder().held(&z);
                z
            })
        });
        Some(upstream.collect())
    }

    /// The gradient of each source, in order (`None`: it got none).
    fn answer(&self, sources: &[TensorId], source_slots: &[Option<u32>]) -> Vec<Option<Tensor>> {
        sources
            .iter()
            .zip(source_slots)
            .map(|(id, slot)| match slot {
                Some(s) => self.grads.by_slot[*s as usize].clone(),
                None => self.grads.by_id.get(id).cloned().flatten(),
            })
            .collect()
    }
}

/// The gradient of `id` in `cell` is complete: the observer's hooks on it run in turn, each
/// on the previous one's result (the host runs them), and the last result takes its place.
fn complete<H: Host + ?Sized>(host: &mut H, id: TensorId, cell: &mut Option<Tensor>) -> R<()> {
    let hooks = host.recorder().observer().map(|o| o.hooks_on(id)).unwrap_or_default();
    for f in hooks {
        let Some(g) = cell.clone() else { return Ok(()) };
        let new = host.gradient_hook(&f, g.clone())?;
        let rec = host.recorder();
        rec.held(&new);
        rec.released(&g);
        *cell = Some(new);
    }
    Ok(())
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

    /// Adds `g` (held) into the gradient collected for `id` (recorded, for higher order); the
    /// sum stays held, its terms are released.
    fn accumulate(&mut self, rec: &mut Recorder, id: TensorId, slot: Option<u32>, g: Tensor) -> R<()> {
        let sum = match self.cell(id, slot).take() {
            Some(prev) => {
                let sum = rec.add(&prev, &g);
                if let Ok(s) = &sum {
                    rec.held(s);
                }
                rec.released(&prev);
                rec.released(&g);
                sum?
            }
            None => g,
        };
        *self.cell(id, slot) = Some(sum);
        Ok(())
    }

    /// Releases every gradient still collected (the pass is over).
    fn release_all(&mut self, rec: &mut Recorder) {
        for g in self.by_slot.iter().flatten().chain(self.by_id.values().flatten()) {
            rec.released(g);
        }
    }
}
