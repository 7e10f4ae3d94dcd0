//! The tools that measure, note and inspect what the autodiff core does: a wing the core does
//! not import (the tools import the core). They see the core through its observer
//! ([`Observer`], `observer.rs`): [`Tools`] is the one the interpreter installs in its
//! recorder ([`Recorder::with_tools`]), and keeps what it learns of each tape in the tape's
//! annex ([`Annotations`]).
//!
//! - [`meter`]: the bytes a backward pass keeps alive (`tape.stats()`'s `peak_backward_bytes`);
//! - [`notes`]: what a recording tape runs past without recording, for `tape.explain`;
//! - [`explain`]: why a gradient is None or zero, a search over the entries and notes;
//! - [`check`]: the recompute determinism check (`recompute_grad(f, check=True)`);
//! - [`inspect`]: gradient hooks and tracing (`watch_gradient`, `trace_gradients`);
//! - [`ledger`]: each `recompute_grad` function's checkpoint region and its counts;
//! - [`advisor`]: `suggest_checkpoints`, which replays the backward walk over sizes.

pub mod advisor;
pub mod check;
pub mod explain;
pub mod inspect;
pub mod ledger;
pub mod meter;
pub mod notes;

use super::observer::{Annex, Observer};
use super::recorder::{InputGrads, Recorder};
use super::tape::{Entry, Log, Op, Site, Tape, UserData};
use crate::tensor::{Tensor, TensorId};
use check::Checks;
use inspect::Inspect;
use ledger::Region;
use meter::{BackwardStats, Meter, SavedCounts};
use notes::Notes;
use smallvec::SmallVec;
use std::any::Any;

/// The tools' state in a recorder, and the observer that keeps it.
#[derive(Debug, Default)]
pub struct Tools {
    /// Live buffers of the backward passes running (`meter.rs`).
    pub meter: Meter,
    /// The backward passes running, innermost last: what each has measured so far.
    pub passes: Vec<BackwardStats>,
    /// For each pass running (innermost last): the meter's peak before it began, and the
    /// saved tensors of its tape still counted.
    counted: Vec<(usize, SavedCounts)>,
    /// The recompute determinism checks running (`check.rs`).
    pub checks: Checks,
    /// The checks set aside while tangents are computed, innermost last.
    hidden: Vec<Checks>,
    /// Gradient tracing and hooks (`inspect.rs`).
    pub inspect: Inspect,
    /// The checkpoint regions seen: one per `recompute_grad` function (by name and place;
    /// `Recorder::region` is 1 + an index into it).
    pub regions: Vec<Region>,
    /// How many region bodies are running, nested in one another (`ledger.rs`).
    pub region_depth: u32,
}

impl Observer for Tools {
    fn entered(&mut self, tape: &mut Tape, site: Site) {
        tape.notes_mut().started(site);
    }

    fn ran_past(
        &mut self,
        tape: &mut Tape,
        name: &'static str,
        cut: bool,
        inputs: &[TensorId],
        outputs: &[&Tensor],
        site: Site,
    ) {
        tape.notes_mut().unrecorded(name, cut, inputs, outputs, site);
    }

    #[inline]
    fn wants_ops(&self) -> bool {
        !self.checks.is_empty()
    }

    fn recorded(&mut self, op: &Op, outputs: &[&Tensor], site: Site) {
        self.checks.see(op, outputs, site);
    }

    fn tangents_begun(&mut self) {
        let checks = self.checks.suspend();
        self.hidden.push(checks);
    }

    fn tangents_ended(&mut self) {
        let checks = self.hidden.pop().unwrap_or_default();
        self.checks.resume(checks);
    }

    fn pass_begun(&mut self, log: &Log) {
        self.passes.push(BackwardStats::default());
        let before = self.meter.start();
        let counts = SavedCounts::new(log, &mut self.meter);
        self.counted.push((before, counts));
    }

    fn pass_ended(&mut self, tape: &mut Tape) {
        // What the tape still holds stops counting.
        let (before, counts) = self.counted.pop().expect("a pass begun");
        self.meter.sub(counts.bytes);
        let peak = self.meter.finish(before);
        let mut stats = self.passes.pop().unwrap_or_default();
        stats.peak_bytes = peak;
        if let Some(outer) = self.passes.last_mut() {
            outer.absorb(&stats);
        }
        tape.annotations_mut().last_backward = stats;
    }

    #[inline]
    fn held(&mut self, t: &Tensor) {
        self.meter.hold(t);
    }

    #[inline]
    fn released(&mut self, buffer: usize) {
        self.meter.release_key(buffer);
    }

    fn saved_released(&mut self, e: &Entry) {
        if let Some((_, counts)) = self.counted.last_mut() {
            counts.release(e, &mut self.meter);
        }
    }

    /// Notes, in the running pass, the inputs of a `custom_gradient` entry that needed a
    /// gradient and got `None` from its `grad_fn` (`tape.explain`).
    fn step_ran(&mut self, index: usize, e: &Entry, grads: &InputGrads, needed: &[bool]) {
        if !matches!(*e.op, Op::Custom(_)) {
            return;
        }
        let Some(pass) = self.passes.last_mut() else { return };
        for (k, &need) in needed.iter().enumerate() {
            if need && grads.get(k).is_none_or(|g| g.is_none()) {
                pass.custom_none.push((index as u32, k as u32));
            }
        }
    }

    fn watches_gradients(&mut self) -> bool {
        self.inspect.prune()
    }

    fn traces(&self) -> bool {
        self.inspect.trace > 0
    }

    fn hooks_on(&self, id: TensorId) -> SmallVec<[UserData; 1]> {
        self.inspect.hooks_on(id)
    }

    fn hooked_ids(&self) -> SmallVec<[TensorId; 4]> {
        self.inspect.hooked_ids()
    }
}

/// What the tools keep about one tape, in its annex.
#[derive(Debug, Default)]
pub struct Annotations {
    /// What it saw but did not record, for `tape.explain` (`notes.rs`).
    pub notes: Notes,
    /// What the last `gradient` call measured (`tape.stats()`).
    pub last_backward: BackwardStats,
}

impl Annex for Annotations {
    fn reset(&mut self) {
        self.notes.clear();
    }
}

/// The annotations of a tape the tools have not seen.
const NONE: &Annotations = &Annotations {
    notes: Notes {
        start: None,
        unrecorded: Vec::new(),
        full: false,
        watches: Vec::new(),
        last_grads: Vec::new(),
        was_reset: false,
    },
    last_backward: BackwardStats {
        peak_bytes: 0,
        recompute_calls: 0,
        recomputed_ops: 0,
        recompute_seconds: 0.0,
        custom_none: Vec::new(),
    },
};

impl Tape {
    /// What the tools keep about this tape (empty if they have not seen it).
    pub fn annotations(&self) -> &Annotations {
        let any = self.annex.as_deref().map(|a| a as &dyn Any);
        any.and_then(|a| a.downcast_ref()).unwrap_or(NONE)
    }

    /// What the tools keep about this tape, made on first use.
    pub fn annotations_mut(&mut self) -> &mut Annotations {
        let ours = self.annex.as_deref().is_some_and(|a| (a as &dyn Any).is::<Annotations>());
        if !ours {
            self.annex = Some(Box::<Annotations>::default());
        }
        let any: &mut dyn Any = self.annex.as_deref_mut().expect("just made");
        any.downcast_mut().expect("annotations")
    }

    /// What the tape ran past without recording it, for `tape.explain` (`notes.rs`).
    pub fn notes(&self) -> &Notes {
        &self.annotations().notes
    }

    /// [`Tape::notes`], to add to.
    pub fn notes_mut(&mut self) -> &mut Notes {
        &mut self.annotations_mut().notes
    }

    /// What the last `gradient` call measured (`tape.stats()`).
    pub fn last_backward(&self) -> &BackwardStats {
        &self.annotations().last_backward
    }
}

impl Recorder {
    /// A recorder the tools observe (the interpreter's).
    pub fn with_tools() -> Recorder {
        Recorder::observed_by(Box::<Tools>::default())
    }

    /// The tools observing this recorder (installed on first use).
    pub fn tools(&mut self) -> &mut Tools {
        let ours = self.observer().is_some_and(|o| (o as &dyn Any).is::<Tools>());
        if !ours {
            self.observe_with(Box::<Tools>::default());
        }
        let any: &mut dyn Any = self.observer_mut().expect("just installed");
        any.downcast_mut().expect("the tools")
    }

    /// The tools observing this recorder, if installed.
    pub fn tools_ref(&self) -> Option<&Tools> {
        self.observer().and_then(|o| (o as &dyn Any).downcast_ref())
    }
}
