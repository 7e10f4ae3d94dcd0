//! Forward-mode differentiation: `ForwardAccumulator` (TF's `tf.autodiff.ForwardAccumulator`).
//!
//! An [`Accumulator`] maps tensor ids to tangents. While it is entered, every operation that
//! reaches [`Recorder::record`] with an input it has a tangent for gets the tangents of its
//! outputs, J·t, computed by the operation's JVP rule (beside its VJP in `ops/<family>.rs`,
//! dispatched by [`Recorder::jvp`]). An operation without a closed-form rule — a new op, a
//! `@recompute_grad` call — is differentiated by transposing its VJP ([`transpose_jvp`]): the
//! VJP is linear in its upstream u, so J·t = d/du ⟨VJP(u), t⟩, one backward pass of a small
//! tape that watched u. That is how TF's accumulator handles ops without forward functions.
//!
//! Tangents are computed with the recording operations, so tapes record them (reverse over
//! forward) and VJPs run by `tape.gradient` inside an accumulator carry tangents (forward over
//! reverse: Hessian-vector products). An accumulator's own tangent computations are hidden from
//! itself and from the accumulators entered after it, and seen by those entered before it, so
//! nested accumulators give second-order derivatives (TF's order).
//!
//! Nothing here runs unless an accumulator is entered: [`Recorder::record`] checks one length.

use super::backward;
use super::recorder::{Host, InputGrads, Recorder};
use super::tape::{Dims, Entry, Input, Op, OutMeta, Tape, NO_SLOT};
use crate::error::{Exc, R};
use crate::tensor::{Array, Tensor, TensorId};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// One tangent per output of an operation (`None`: the output has no tangent).
pub type Tangents = SmallVec<[Option<Tensor>; 1]>;

/// A `ForwardAccumulator`: the tangents it knows, by tensor id (a Variable's by its handle).
#[derive(Debug, Default)]
pub struct Accumulator {
    tangents: FxHashMap<TensorId, Known>,
    /// The size at which tangents of tensors no longer alive are dropped (a loop inside the
    /// block would otherwise keep every intermediate's tangent).
    next_prune: usize,
    /// True between `__enter__` and `__exit__`.
    pub active: bool,
    /// The first failure while computing a tangent, raised by the next `jvp` (recording
    /// cannot fail, so the error waits for the one who asks).
    pub error: Option<Exc>,
}

/// An accumulator shared between the program and the recorder.
pub type AccRef = Rc<RefCell<Accumulator>>;

/// A tangent, and for a computed tensor its values, held weakly: once no tensor holds them,
/// nothing can ask for the tangent (ids are never reused), and it may be dropped.
#[derive(Debug)]
struct Known {
    tangent: Tensor,
    /// `None` for a primal, kept as long as the accumulator.
    values: Option<Weak<Array>>,
}

impl Accumulator {
    /// Sets the tangent of the primal `id` (kept as long as the accumulator).
    pub fn set(&mut self, id: TensorId, tangent: Tensor) {
        self.tangents.insert(id, Known { tangent, values: None });
    }

    /// Sets the tangent of a computed tensor (dropped once the tensor's values are).
    pub fn set_output(&mut self, t: &Tensor, tangent: Tensor) {
        if self.tangents.len() >= self.next_prune {
            self.tangents.retain(|_, k| k.values.as_ref().is_none_or(|w| w.strong_count() > 0));
            self.next_prune = (2 * self.tangents.len()).max(1024);
        }
        self.tangents.insert(t.id, Known { tangent, values: Some(Rc::downgrade(&t.data)) });
    }

    /// The tangent of `id`, if it has one.
    pub fn get(&self, id: TensorId) -> Option<Tensor> {
        self.tangents.get(&id).map(|k| k.tangent.clone())
    }

    /// How many tangents are held (primals and tensors possibly still alive).
    pub fn len(&self) -> usize {
        self.tangents.len()
    }

    /// Whether no tangent is held.
    pub fn is_empty(&self) -> bool {
        self.tangents.is_empty()
    }

    /// Whether `id` has a tangent here.
    pub fn has(&self, id: TensorId) -> bool {
        self.tangents.contains_key(&id)
    }

    /// The tangents of `ids` (0: not a tensor), or `None` when none has one.
    fn tangents_of(&self, ids: &[TensorId]) -> Option<SmallVec<[Option<Tensor>; 2]>> {
        let ts: SmallVec<[Option<Tensor>; 2]> =
            ids.iter().map(|id| if *id == 0 { None } else { self.get(*id) }).collect();
        ts.iter().any(Option::is_some).then_some(ts)
    }
}

impl Recorder {
    /// `__enter__` of an accumulator: it starts computing tangents, innermost.
    ///
    /// Errors: ValueError when it is already recording.
    pub fn enter_accumulator(&mut self, acc: &AccRef) -> R<()> {
        if std::mem::replace(&mut acc.borrow_mut().active, true) {
            crate::bail!(
                Value,
                "this ForwardAccumulator is already recording: it cannot be entered again inside its own block"
            );
        }
        self.accumulators.push(acc.clone());
        Ok(())
    }

    /// `__exit__` of an accumulator: it stops; its tangents stay readable (`acc.jvp` after the block).
    pub fn exit_accumulator(&mut self, acc: &AccRef) {
        acc.borrow_mut().active = false;
        if let Some(pos) = self.accumulators.iter().rposition(|a| Rc::ptr_eq(a, acc)) {
            self.accumulators.remove(pos);
        }
    }

    /// Whether some entered accumulator has a tangent for `id`.
    pub fn has_tangent(&self, id: TensorId) -> bool {
        !self.accumulators.is_empty() && self.accumulators.iter().any(|a| a.borrow().has(id))
    }

    /// Whether some entered accumulator has a tangent for one of `ids`.
    pub fn any_tangent(&self, ids: &[TensorId]) -> bool {
        !self.accumulators.is_empty() && ids.iter().any(|&id| id != 0 && self.has_tangent(id))
    }

    /// Gives each output of `to` the tangents its counterpart in `from` has: the outputs of a
    /// `custom_gradient` or `grad_pass_through` call are renamed results of `f`, and forward mode
    /// differentiates `f`'s own operations, as TF's accumulator does (it never calls `grad_fn`).
    pub fn copy_tangents(&mut self, from: &[Tensor], to: &[Tensor]) {
        for acc in &self.accumulators {
            let mut acc = acc.borrow_mut();
            for (f, t) in from.iter().zip(to) {
                if let Some(tan) = acc.get(f.id) {
                    acc.set_output(t, tan);
                }
            }
        }
    }

    /// Called by [`Recorder::record_ids`] for each operation while accumulators are entered:
    /// each accumulator with a tangent for an input gets its outputs' tangents, from the
    /// operation's JVP rule or, without one, by transposing its VJP. Operations whose VJP is
    /// user code are the host's business ([`host_tangents`]).
    pub(crate) fn push_tangents(&mut self, ids: &[TensorId], outputs: &[&Tensor], op: &Rc<Op>) {
        if matches!(**op, Op::Custom(_) | Op::Recompute(_) | Op::PassThrough) {
            return;
        }
        tangents_for_each(&mut RecorderHost(self), ids, outputs, op);
    }

    /// The tangents of `op`'s outputs from its closed-form rule with the active accumulators
    /// as they are, or by transposition over `host`.
    fn jvp_or_transpose<H: Host + ?Sized>(
        host: &mut H,
        op: &Rc<Op>,
        ids: &[TensorId],
        tangents: &[Option<Tensor>],
        outputs: &[&Tensor],
    ) -> R<Tangents> {
        #[cfg(test)]
        if FORCE_TRANSPOSE.with(std::cell::Cell::get) {
            return transpose_jvp(host, op, ids, tangents, outputs);
        }
        match host.recorder().jvp(op, tangents, outputs) {
            Some(r) => r,
            None => transpose_jvp(host, op, ids, tangents, outputs),
        }
    }
}

/// The tangents of a user-code operation's outputs (a `custom_gradient`, `grad_pass_through` or
/// `recompute_grad` call) that have none yet, by transposing its VJP, which runs through `host`;
/// for each accumulator that has a tangent for an input.
pub fn host_tangents<H: Host + ?Sized>(host: &mut H, ids: &[TensorId], outputs: &[&Tensor], op: &Rc<Op>) -> R<()> {
    tangents_for_each(host, ids, outputs, op);
    // A failure is kept by the accumulator; a user-code one is raised here, at the call.
    for acc in host.recorder().accumulators.clone() {
        if let Some(e) = acc.borrow_mut().error.take() {
            return Err(e);
        }
    }
    Ok(())
}

/// For each entered accumulator, outermost first, with a tangent for one of `ids` and none yet
/// for some float output: the outputs' tangents, computed while it and the accumulators entered
/// after it are set aside. A tangent already there stays.
fn tangents_for_each<H: Host + ?Sized>(host: &mut H, ids: &[TensorId], outputs: &[&Tensor], op: &Rc<Op>) {
    let accs = host.recorder().accumulators.clone();
    for (i, acc) in accs.iter().enumerate() {
        let Some(ins) = acc.borrow().tangents_of(ids) else { continue };
        if outputs.iter().all(|o| !o.dtype().is_float() || acc.borrow().has(o.id)) {
            continue;
        }
        let inner = host.recorder().accumulators.split_off(i);
        let result = Recorder::jvp_or_transpose(host, op, ids, &ins, outputs);
        host.recorder().accumulators.extend(inner);
        let mut acc = acc.borrow_mut();
        match result {
            Ok(outs) => {
                for (o, t) in outputs.iter().zip(outs) {
                    if let Some(t) = t.filter(|_| o.dtype().is_float() && !acc.has(o.id)) {
                        acc.set_output(o, t);
                    }
                }
            }
            Err(e) => {
                acc.error.get_or_insert(e);
            }
        }
    }
}

/// J·t for an operation without a forward rule, from its VJP: the VJP is linear in the upstream
/// u, so J·t = d/du ⟨VJP(u), t⟩. The VJP runs at u = 1 (as TF's: a `grad_fn` that is not linear
/// is linearized there) under a tape that watches u, then one backward pass of that tape with
/// output gradients t gives J·t. Both passes use recording operations, so enclosing tapes and
/// accumulators see them.
pub fn transpose_jvp<H: Host + ?Sized>(
    host: &mut H,
    op: &Rc<Op>,
    ids: &[TensorId],
    tangents: &[Option<Tensor>],
    outputs: &[&Tensor],
) -> R<Tangents> {
    let us: Vec<Tensor> =
        outputs.iter().map(|o| Tensor::new(crate::tensor::Array::full(o.dtype(), o.shape(), 1.0))).collect();
    let local = Rc::new(RefCell::new(Tape::new(false, false)));
    for u in us.iter().filter(|u| u.dtype().is_float()) {
        local.borrow_mut().watch(u.id);
    }
    let entry = Entry {
        op: op.clone(),
        inputs: ids.iter().map(|&id| Input { id, slot: NO_SLOT, watched: id != 0 }).collect(),
        outputs: outputs
            .iter()
            .map(|o| OutMeta { id: o.id, shape: Dims::from_slice(o.shape()), dtype: o.dtype() })
            .collect(),
        first_slot: 0,
        site: super::tape::Site::NONE,
        region: 0,
    };
    let needed: SmallVec<[bool; 4]> = tangents.iter().map(Option::is_some).collect();
    host.recorder().enter(&local)?;
    let grads: R<InputGrads> = match &**op {
        Op::Custom(call) => host.custom_vjp(call, us.clone()),
        Op::Recompute(call) => host.recompute_vjp(call, us.clone()),
        _ => host.recorder().vjp(&entry, us.clone(), &needed),
    };
    host.recorder().exit(&local);
    let grads = grads?;
    let mut targets = Vec::new();
    let mut weights = Vec::new();
    for (g, t) in grads.into_iter().zip(tangents) {
        if let (Some(g), Some(t)) = (g, t) {
            if g.shape() == t.shape() && g.dtype().is_float() {
                targets.push(g);
                weights.push(t.clone());
            }
        }
    }
    if targets.is_empty() {
        return Ok(outputs.iter().map(|_| None).collect());
    }
    let sources: Vec<TensorId> = us.iter().map(|u| u.id).collect();
    let out = backward::gradient(host, &local, &targets, &sources, Some(weights))?;
    Ok(out.into_iter().collect())
}

#[cfg(test)]
thread_local! {
    /// Tests set this to differentiate every operation by transposition, checking the fallback
    /// on every operation against its closed-form rule and finite differences.
    pub static FORCE_TRANSPOSE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The recorder alone as a [`Host`], for transposing the VJP of a built-in operation (no user
/// code runs there).
struct RecorderHost<'a>(&'a mut Recorder);

impl Host for RecorderHost<'_> {
    fn recorder(&mut self) -> &mut Recorder {
        self.0
    }

    fn check_interrupt(&self) -> R<()> {
        Ok(())
    }

    fn custom_vjp(&mut self, call: &super::tape::CustomCall, _: Vec<Tensor>) -> R<InputGrads> {
        crate::bail!(Runtime, "internal error: the custom gradient of {} reached the recorder", call.name)
    }

    fn recompute_vjp(&mut self, _: &super::tape::RecomputeCall, _: Vec<Tensor>) -> R<InputGrads> {
        crate::bail!(Runtime, "internal error: a recompute_grad call reached the recorder")
    }
}
