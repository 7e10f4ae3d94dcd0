//! The autodiff recorder: every piece of differentiation state a running program
//! has (the tapes recording, the tapes set aside, Variable reads being collected,
//! capture probes, recomputations running), and the one way onto the tape.
//!
//! The recorder knows nothing of the interpreter. The two places that run user
//! code during a backward pass — a `@custom_gradient` `grad_fn`, a recomputed
//! `@recompute_grad` function — go through [`Host`], which the interpreter
//! implements; tests implement it with a recorder alone. What the tools (`tools/`) see of
//! it goes through the one [`Observer`] it may hold.

use super::forward::AccRef;
use super::observer::{buffer, Observer};
use super::tape::{CustomCall, Entry, Op, RecomputeCall, Site, Tape, UserData};
use super::variable::Variable;
use crate::bail;
use crate::error::R;
use crate::tensor::{Tensor, TensorId};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::rc::Rc;

/// One gradient per input of an operation (`None`: no gradient), inline for two.
pub type InputGrads = SmallVec<[Option<Tensor>; 2]>;

/// What the backward pass needs from whoever owns the recorder: the recorder
/// itself, and the user-code VJPs.
pub trait Host {
    /// The recorder whose recording ops the VJPs use.
    fn recorder(&mut self) -> &mut Recorder;

    /// Raises KeyboardInterrupt once Ctrl-C has been pressed (polled once per backward step).
    fn check_interrupt(&self) -> R<()>;

    /// The VJP of a `@custom_gradient` call: runs its `grad_fn` on `upstream` (one
    /// gradient per output) and returns one gradient per input, then per Variable read.
    fn custom_vjp(&mut self, call: &CustomCall, upstream: Vec<Tensor>) -> R<InputGrads>;

    /// The VJP of a `@recompute_grad` call: runs the function again under a local tape
    /// and returns one gradient per input, then per Variable read, then per captured tensor.
    fn recompute_vjp(&mut self, call: &RecomputeCall, upstream: Vec<Tensor>) -> R<InputGrads>;

    /// Runs a gradient hook (`watch_gradient`, [`Observer::hooks_on`]) on a complete
    /// gradient and returns the gradient to use instead.
    fn gradient_hook(&mut self, _hook: &UserData, g: Tensor) -> R<Tensor> {
        Ok(g)
    }

    /// Shows a backward step about to run with its upstream gradients (`trace_gradients`).
    fn trace_step(&mut self, _entry: &Entry, _upstream: &[Tensor]) {}
}

/// A tape shared between the program (a `GradientTape` value) and the recorder.
pub type TapeRef = Rc<RefCell<Tape>>;

/// Differentiation state (docs/language.md §5).
#[derive(Debug)]
pub struct Recorder {
    /// Tapes currently recording, innermost last.
    pub(in crate::autodiff) tapes: Vec<TapeRef>,
    /// Tapes set aside by `stop_recording` blocks, innermost last, with their places in
    /// `tapes` (`None` where the tape was not recording at that moment).
    paused: Vec<Option<(TapeRef, usize)>>,
    /// Variable reads being collected (custom_gradient, recompute_grad), each in first-read order.
    var_watchers: Vec<Vec<Rc<Variable>>>,
    /// Watched tensors read while a recompute forward pass runs with the tapes paused:
    /// the paused tapes and the ids seen so far.
    pub(in crate::autodiff) capture_probes: Vec<(Vec<TapeRef>, Vec<TensorId>)>,
    /// Depth of recomputations running (`is_recomputing()`).
    recomputing: usize,
    /// Forward accumulators entered, innermost last (`forward.rs`).
    pub(in crate::autodiff) accumulators: Vec<AccRef>,
    /// Accumulators set aside by recompute forward passes, innermost last.
    paused_accumulators: Vec<Vec<AccRef>>,
    /// The statement running, which each recorded entry keeps as its site (set by the host).
    pub(in crate::autodiff) site: Site,
    /// The checkpoint region running (0: none, else 1 + the index the tools gave its
    /// `recompute_grad` function, `tools/ledger.rs`); entries recorded meanwhile belong to it.
    pub(in crate::autodiff) region: u32,
    /// What the tools see of this recorder (`observer.rs`); none in the core's own tests.
    observer: Option<Box<dyn Observer>>,
    /// The tape entered last, while it exists (the REPL's `%tape` shows its summary).
    pub(in crate::autodiff) last_entered: Option<std::rc::Weak<RefCell<Tape>>>,
}

impl Default for Recorder {
    fn default() -> Recorder {
        Recorder {
            tapes: Vec::new(),
            paused: Vec::new(),
            var_watchers: Vec::new(),
            capture_probes: Vec::new(),
            recomputing: 0,
            accumulators: Vec::new(),
            paused_accumulators: Vec::new(),
            site: Site::NONE,
            region: 0,
            observer: None,
            last_entered: None,
        }
    }
}

/// The tapes set aside while a recompute forward pass runs (see [`Recorder::pause_all`]).
#[must_use]
pub struct PausedTapes(Vec<TapeRef>);

impl Recorder {
    /// The tapes recording, innermost last.
    pub fn tapes(&self) -> &[TapeRef] {
        &self.tapes
    }

    /// The forward accumulators entered, innermost last.
    pub fn accumulators(&self) -> &[AccRef] {
        &self.accumulators
    }

    /// Whether a recompute forward pass is listening for the watched tensors it reads.
    pub fn probing(&self) -> bool {
        !self.capture_probes.is_empty()
    }

    /// The statement running, which each recorded entry keeps as its site.
    pub fn site(&self) -> Site {
        self.site
    }

    /// Sets the statement running (the host, before each statement and around calls).
    pub fn set_site(&mut self, site: Site) {
        self.site = site;
    }

    /// The tape entered last, while it exists.
    pub fn last_entered(&self) -> Option<TapeRef> {
        self.last_entered.as_ref().and_then(|w| w.upgrade())
    }

    /// A recorder that tells `observer` what happens (the interpreter's, with the tools).
    pub fn observed_by(observer: Box<dyn Observer>) -> Recorder {
        Recorder { observer: Some(observer), ..Recorder::default() }
    }

    /// The observer, if one is installed.
    #[inline]
    pub fn observer(&self) -> Option<&dyn Observer> {
        self.observer.as_deref()
    }

    /// The observer, if one is installed, to change.
    #[inline]
    pub fn observer_mut(&mut self) -> Option<&mut (dyn Observer + 'static)> {
        self.observer.as_deref_mut()
    }

    /// Installs `observer` in place of the one there was (if any).
    pub fn observe_with(&mut self, observer: Box<dyn Observer>) {
        self.observer = Some(observer);
    }

    /// Tells the observer, if there is one.
    #[inline]
    pub fn tell(&mut self, f: impl FnOnce(&mut dyn Observer)) {
        if let Some(o) = &mut self.observer {
            f(&mut **o);
        }
    }

    /// The backward pass holds `t`'s gradient buffer once more ([`Observer::held`]).
    #[inline]
    pub fn held(&mut self, t: &Tensor) {
        if let Some(o) = &mut self.observer {
            o.held(t);
        }
    }

    /// The backward pass holds `t`'s gradient buffer once less ([`Observer::released`]).
    #[inline]
    pub fn released(&mut self, t: &Tensor) {
        self.released_buffer(buffer(t));
    }

    /// [`Recorder::released`] by the buffer's address.
    #[inline]
    pub fn released_buffer(&mut self, key: usize) {
        if let Some(o) = &mut self.observer {
            o.released(key);
        }
    }

    /// Whether the observer wants every operation recorded now ([`Observer::wants_ops`]): an
    /// op recorded only when something listens is recorded then too.
    #[inline]
    pub fn observer_wants_ops(&self) -> bool {
        self.observer.as_ref().is_some_and(|o| o.wants_ops())
    }

    /// `__enter__` of a tape: it starts recording, innermost.
    ///
    /// Errors: ValueError when it is already recording.
    pub fn enter(&mut self, t: &TapeRef) -> R<()> {
        t.borrow_mut().enter()?;
        let site = self.site;
        self.tell(|o| o.entered(&mut t.borrow_mut(), site));
        self.tapes.push(t.clone());
        self.last_entered = Some(Rc::downgrade(t));
        Ok(())
    }

    /// `__exit__` of a tape: it stops recording.
    pub fn exit(&mut self, t: &TapeRef) {
        t.borrow_mut().active = false;
        if let Some(pos) = self.tapes.iter().rposition(|x| Rc::ptr_eq(x, t)) {
            self.tapes.remove(pos);
        }
    }

    /// Removes a tape from the recording ones (a non-persistent tape once used).
    pub fn stop(&mut self, t: &TapeRef) {
        self.tapes.retain(|x| !Rc::ptr_eq(x, t));
    }

    /// Enters `t.stop_recording()`: pauses that tape only; the others keep recording
    /// (docs/language.md §5, as TF).
    ///
    /// Errors: RuntimeError outside the tape's own block.
    pub fn pause(&mut self, t: &TapeRef) -> R<()> {
        if !t.borrow().active {
            bail!(Runtime, "stop_recording() on a GradientTape that is not recording (outside its with block)");
        }
        let at = self.tapes.iter().position(|x| Rc::ptr_eq(x, t));
        self.paused.push(at.map(|i| (self.tapes.remove(i), i)));
        Ok(())
    }

    /// Leaves the innermost `stop_recording` block: its tape records again at its place,
    /// unless it left its own block or was used up meanwhile.
    pub fn resume(&mut self) {
        if let Some(Some((t, i))) = self.paused.pop() {
            if t.borrow().resumes() {
                let i = i.min(self.tapes.len());
                self.tapes.insert(i, t);
            }
        }
    }

    /// Whether some active tape watches `id`.
    pub fn watches(&self, id: TensorId) -> bool {
        self.tapes.iter().any(|t| t.borrow().watches(id))
    }

    /// True when some active tape watches one of `inputs`: only then is an
    /// op worth describing for the tape.
    pub fn any_watched(&self, inputs: &[&Tensor]) -> bool {
        self.tapes.iter().any(|t| {
            let t = t.borrow();
            inputs.iter().any(|x| t.watches(x.id))
        })
    }

    /// Whether recording an operation can have any effect (a tape records, a probe listens or
    /// an accumulator computes tangents).
    pub fn listening(&self) -> bool {
        !self.tapes.is_empty() || !self.capture_probes.is_empty() || !self.accumulators.is_empty()
    }

    /// The one way onto the tape: runs the capture probe, records `op` on each active tape
    /// watching an input, and gives the outputs tangents in each entered accumulator that has
    /// a tangent for an input (`forward.rs`).
    pub fn record(&mut self, inputs: &[&Tensor], outputs: &[&Tensor], op: impl FnOnce() -> Op) {
        if !self.listening() {
            return;
        }
        let ids: SmallVec<[TensorId; 4]> = inputs.iter().map(|t| t.id).collect();
        self.record_ids(&ids, outputs, op);
    }

    /// Like [`Recorder::record`] with raw input ids (0 marks a non-tensor input).
    pub fn record_ids(&mut self, ids: &[TensorId], outputs: &[&Tensor], op: impl FnOnce() -> Op) {
        if !self.capture_probes.is_empty() {
            self.probe(ids);
        }
        let mut op = Some(op);
        let mut shared: Option<Rc<Op>> = None;
        for tape in &self.tapes {
            let mut t = tape.borrow_mut();
            let op = shared.get_or_insert_with(|| Rc::new((op.take().expect("built once"))())).clone();
            let Some(inputs) = t.resolve(ids) else {
                // `tape.explain` needs what the tape ran past: one call only for ops not recorded.
                if let Some(o) = &mut self.observer {
                    o.ran_past(&mut t, op.static_name(), false, ids, outputs, self.site);
                }
                continue;
            };
            t.push(op, inputs, outputs, self.site, self.region);
        }
        if let Some(o) = self.observer.as_mut().filter(|o| o.wants_ops()) {
            let op = shared.get_or_insert_with(|| Rc::new((op.take().expect("built once"))()));
            o.recorded(op, outputs, self.site);
        }
        if !self.accumulators.is_empty() && self.any_tangent(ids) {
            let op = shared.unwrap_or_else(|| Rc::new((op.take().expect("built once"))()));
            // Tangents are computed only where an accumulator is entered, which a recomputation
            // and its forward pass need not share: the observer is told (the determinism check
            // does not see them).
            self.tell(|o| o.tangents_begun());
            self.push_tangents(ids, outputs, &op);
            self.tell(|o| o.tangents_ended());
        }
    }

    /// Notes an operation with no gradient (stop_gradient, an integer cast, argmax, rounding,
    /// a comparison, `.numpy()`, `.item()`) on each recording tape, for `tape.explain`
    /// ([`Observer::ran_past`]). Nothing happens when no tape records.
    pub fn note(&mut self, name: &'static str, inputs: &[&Tensor], outputs: &[&Tensor]) {
        let Some(o) = &mut self.observer else { return };
        if self.tapes.is_empty() {
            return;
        }
        let ids: SmallVec<[TensorId; 4]> = inputs.iter().map(|t| t.id).collect();
        for t in &self.tapes {
            o.ran_past(&mut t.borrow_mut(), name, true, &ids, outputs, self.site);
        }
    }

    /// Notes a cut whose input is known only by id, at `site`: a NumPy value made from the
    /// tensor `input` where `site` ran `name` (`np.sin`, `.numpy()`), converted back into the
    /// tensor `output` now, so `tape.explain` follows the path through it and names the cut.
    pub fn note_rejoin(&mut self, name: &'static str, input: TensorId, output: &Tensor, site: Site) {
        let Some(o) = &mut self.observer else { return };
        for t in &self.tapes {
            o.ran_past(&mut t.borrow_mut(), name, true, &[input], &[output], site);
        }
    }

    /// Notes the watched tensors a recompute forward pass reads (the capture probe): watched by
    /// a paused tape, or with a tangent in a paused accumulator.
    pub fn probe(&mut self, ids: &[TensorId]) {
        for (k, (paused, seen)) in self.capture_probes.iter_mut().enumerate() {
            let accs = self.paused_accumulators.get(k).map_or(&[][..], |a| &a[..]);
            for &id in ids {
                if id != 0
                    && !seen.contains(&id)
                    && (paused.iter().any(|t| t.borrow().watches(id)) || accs.iter().any(|a| a.borrow().has(id)))
                {
                    seen.push(id);
                }
            }
        }
    }

    /// A read of a trainable Variable: active tapes that watch accessed variables start
    /// watching it (docs/language.md §5), and custom_gradient / recompute_grad see the read.
    pub fn read_variable(&mut self, v: &Rc<Variable>) {
        if !v.trainable {
            return;
        }
        for t in &self.tapes {
            let mut t = t.borrow_mut();
            if t.watch_accessed_variables {
                t.watch_variable(v);
            }
        }
        for w in &mut self.var_watchers {
            if !w.iter().any(|x| Rc::ptr_eq(x, v)) {
                w.push(v.clone());
            }
        }
    }

    /// Starts collecting Variable reads (a custom_gradient or grad_pass_through call).
    pub fn collect_reads(&mut self) {
        self.var_watchers.push(Vec::new());
    }

    /// The Variables read since the matching [`Recorder::collect_reads`], in first-read order.
    pub fn reads(&mut self) -> Vec<Rc<Variable>> {
        self.var_watchers.pop().unwrap_or_default()
    }

    /// Starts a recompute forward pass: every tape and accumulator pauses (the call's tangents
    /// come from its VJP, `forward.rs`), a capture probe listens for the watched tensors read,
    /// and Variable reads are collected.
    pub fn pause_all(&mut self) -> PausedTapes {
        let paused = std::mem::take(&mut self.tapes);
        let accs = std::mem::take(&mut self.accumulators);
        self.paused_accumulators.push(accs);
        self.capture_probes.push((paused.clone(), Vec::new()));
        self.collect_reads();
        PausedTapes(paused)
    }

    /// Ends a recompute forward pass: the tapes record again. Returns the Variables read
    /// (which count as reads of enclosing custom_gradient/recompute calls too) and the
    /// watched tensors captured.
    pub fn resume_all(&mut self, paused: PausedTapes) -> (Vec<Rc<Variable>>, Vec<TensorId>) {
        let read = self.reads();
        let (_, seen) = self.capture_probes.pop().unwrap_or_default();
        self.tapes = paused.0;
        self.accumulators = self.paused_accumulators.pop().unwrap_or_default();
        for w in &mut self.var_watchers {
            for v in &read {
                if !w.iter().any(|x| Rc::ptr_eq(x, v)) {
                    w.push(v.clone());
                }
            }
        }
        (read, seen)
    }

    /// Starts a recomputation (`is_recomputing()` is true until the matching
    /// [`Recorder::end_recompute`]); `local`, if given, records innermost meanwhile.
    pub fn begin_recompute(&mut self, local: Option<&TapeRef>) {
        self.recomputing += 1;
        if let Some(local) = local {
            local.borrow_mut().active = true;
            self.tapes.push(local.clone());
        }
    }

    /// Ends the recomputation begun with [`Recorder::begin_recompute`].
    pub fn end_recompute(&mut self, local: Option<&TapeRef>) {
        if let Some(local) = local {
            self.stop(local);
            local.borrow_mut().active = false;
        }
        self.recomputing -= 1;
    }

    /// `is_recomputing()`: true while a recompute_grad recomputation runs.
    pub fn is_recomputing(&self) -> bool {
        self.recomputing > 0
    }
}
