//! What the tools see of the autodiff core: the [`Observer`] a [`Recorder`](super::Recorder)
//! tells what happens on its tapes, and the [`Annex`] a tape keeps for it.
//!
//! The core (recorder, tape, backward pass, forward mode, ops) runs without an observer —
//! its unit tests do — and names none of the tools: the measuring, noting and inspecting
//! tools (`tools/`) implement this trait and are installed by whoever owns the recorder
//! (the interpreter). Every method has a default that does nothing, so an observer overrides
//! only what it uses. The events:
//!
//! - recording: a tape entered, an operation a recording tape ran past without recording it
//!   (one with no gradient, or none of whose inputs it watches), every operation recorded
//!   (only while [`Observer::wants_ops`]), the operations that compute tangents begun / ended;
//! - the backward pass: a pass begun over a log and ended on its tape, a gradient buffer held
//!   or released, an entry's saved tensors released, a step run;
//! - gradient hooks and tracing, the two places where a tool changes what the pass does: the
//!   hooks on a complete gradient (run by the host, [`Host::gradient_hook`](super::Host)), and
//!   whether each step is shown to the host first ([`Host::trace_step`](super::Host)).

use super::recorder::InputGrads;
use super::tape::{Entry, Log, Op, Site, Tape, UserData};
use crate::tensor::{Tensor, TensorId};
use smallvec::SmallVec;
use std::any::Any;
use std::fmt::Debug;
use std::rc::Rc;

/// The address of a tensor's buffer: what the backward pass holds and releases (a buffer
/// shared by two tensors is one buffer).
#[inline]
pub fn buffer(t: &Tensor) -> usize {
    Rc::as_ptr(&t.data) as usize
}

/// Sees what the core does (see the module documentation). One is installed in a recorder
/// ([`Recorder::observe_with`](super::Recorder::observe_with)); the core asks for it by
/// `Option`, so with none every notification costs one test.
pub trait Observer: Any + Debug {
    /// `tape` starts recording at `site`.
    fn entered(&mut self, _tape: &mut Tape, _site: Site) {}

    /// `tape` records but did not record the operation `name` on the tensors `inputs` (0: not
    /// a tensor) with `outputs`: none of its inputs is watched, or (`cut`) it has no gradient.
    fn ran_past(
        &mut self,
        _tape: &mut Tape,
        _name: &'static str,
        _cut: bool,
        _inputs: &[TensorId],
        _outputs: &[&Tensor],
        _site: Site,
    ) {
    }

    /// Whether [`Observer::recorded`] is to see every operation recorded now (asked per
    /// operation; the ops that are recorded only when something listens ask it too).
    #[inline]
    fn wants_ops(&self) -> bool {
        false
    }

    /// An operation was recorded with `outputs` at `site` (while [`Observer::wants_ops`]).
    fn recorded(&mut self, _op: &Op, _outputs: &[&Tensor], _site: Site) {}

    /// The operations recorded from now until [`Observer::tangents_ended`] compute tangents
    /// (forward mode, `forward.rs`).
    fn tangents_begun(&mut self) {}

    /// Ends [`Observer::tangents_begun`].
    fn tangents_ended(&mut self) {}

    /// A backward pass over the entries of `log` begins (passes nest: a recomputation's pass
    /// runs inside the step that recomputes).
    fn pass_begun(&mut self, _log: &Log) {}

    /// The backward pass begun last ends; `tape` is the tape it differentiated.
    fn pass_ended(&mut self, _tape: &mut Tape) {}

    /// The pass holds one more reference to the gradient buffer of `t`.
    fn held(&mut self, _t: &Tensor) {}

    /// The pass holds one reference less to the gradient buffer at address `buffer`
    /// ([`buffer`]).
    fn released(&mut self, _buffer: usize) {}

    /// The pass let go of the tensors entry `e` saved (a non-persistent tape, after its step).
    fn saved_released(&mut self, _e: &Entry) {}

    /// The backward step of entry `index` (`e`) ran and gave `grads` for its inputs, of which
    /// `needed` wanted one.
    fn step_ran(&mut self, _index: usize, _e: &Entry, _grads: &InputGrads, _needed: &[bool]) {}

    /// Whether the pass beginning hands complete gradients to hooks or steps to a trace
    /// (asked once per pass; the walk tests the answer, one flag, per step).
    fn watches_gradients(&mut self) -> bool {
        false
    }

    /// Whether each backward step is to be shown to the host before it runs.
    fn traces(&self) -> bool {
        false
    }

    /// The hooks to run, in order, on the complete gradient of `id`.
    fn hooks_on(&self, _id: TensorId) -> SmallVec<[UserData; 1]> {
        SmallVec::new()
    }

    /// The ids that have hooks, each once (their gradients are complete when the walk ends).
    fn hooked_ids(&self) -> SmallVec<[TensorId; 4]> {
        SmallVec::new()
    }
}

/// What an observer keeps about one tape, in the tape (it lives and dies with it).
pub trait Annex: Any + Debug {
    /// `tape.reset()` ran.
    fn reset(&mut self);
}
