//! The gradient tape: a flat record of operations, each with its inputs resolved
//! to the output slots that produced them and the tensors its backward step needs
//! (its saved tensors).

use super::observer::Annex;
use super::ops::conv::{ConvKind, PoolKind};
use super::variable::Variable;
use crate::bail;
use crate::error::R;
use crate::source::SourceId;
use crate::tensor::conv::Geom;
use crate::tensor::kernels::{Binary, Reduce, Unary};
use crate::tensor::{DType, Tensor, TensorId};
use ndarray::SliceInfoElem;
use rustc_hash::{FxHashMap, FxHashSet as HashSet};
use smallvec::SmallVec;
use std::any::Any;
use std::fmt;
use std::rc::Rc;

/// A recorded operation and what its VJP needs. Each variant documents the
/// derivative its backward step implements (see its family under `ops/`).
#[derive(Debug)]
pub enum Op {
    /// `a + b` / `a - b`: only the input shapes are needed.
    AddSub { sub: bool, a_shape: Dims, b_shape: Dims },
    /// `a * b`, `a / b`, `maximum`, `minimum`: both inputs are saved.
    Binary { op: Binary, a: Tensor, b: Tensor },
    /// `a ** b`: inputs and output saved.
    Pow { a: Tensor, b: Tensor, out: Tensor },
    /// Elementwise functions; `saved` is the input or the output, whichever the derivative uses.
    Unary { op: Unary, saved: Option<Tensor> },
    /// `a @ b`
    MatMul { a: Tensor, b: Tensor },
    /// `reduce_sum` / `reduce_mean`
    Reduce { op: Reduce, in_shape: Dims, axes: Dims },
    /// `reduce_max` / `reduce_min`: input and (kept-dims) output saved for the tie mask.
    ReduceExtreme { x: Tensor, out_kept: Tensor, axes: Vec<usize> },
    /// `reduce_prod`: the input is saved (the gradient is the product of the others).
    ReduceProd { x: Tensor, axes: Vec<usize> },
    /// `cumsum(x, axis, exclusive, reverse)`: linear, nothing saved.
    Cumsum { axis: usize, exclusive: bool, reverse: bool },
    /// `cumprod(x, axis, exclusive, reverse)`: input and output saved.
    Cumprod { x: Tensor, out: Tensor, axis: usize, exclusive: bool, reverse: bool },
    /// `reshape`, `expand_dims`, `squeeze`
    Reshape { in_shape: Dims },
    /// `transpose(x, perm)`
    Transpose { perm: Dims },
    /// `concat(xs, axis)`: the sizes along `axis` split the gradient.
    Concat { axis: usize, sizes: Vec<usize> },
    /// `stack(xs, axis)`
    Stack { axis: usize, n: usize },
    /// `x[index]` (basic indexing)
    Index { in_shape: Dims, info: Rc<Vec<SliceInfoElem>> },
    /// The VJP of indexing: scatter into zeros of `in_shape` (linear, its VJP is the indexing).
    IndexGrad { info: Rc<Vec<SliceInfoElem>> },
    /// `gather(x, indices, axis)`: the indices are kept (not a tensor of x's).
    Gather { in_shape: Vec<usize>, axis: usize, indices: Rc<Vec<usize>>, idx_shape: Vec<usize> },
    /// The VJP of gather: scatter-add into zeros of `in_shape` (linear; its VJP is the gather).
    GatherGrad { axis: usize, indices: Rc<Vec<usize>>, idx_shape: Vec<usize> },
    /// `x.flat[idx]` (gather_nd, boolean_mask, sort, top_k, diagonals): linear, its VJP is
    /// `TakeAdd` at the same positions (autodiff/ops/select.rs).
    Take { in_shape: Dims, idx: Rc<Vec<usize>> },
    /// Zeros with `g.flat[i]` added at `idx[i]` (scatter_nd, diag): linear, its VJP is `Take`.
    TakeAdd { src_shape: Dims, idx: Rc<Vec<usize>> },
    /// `linalg.inv(a)`: the output Y is saved (gA = −Yᵀ g Yᵀ).
    MatrixInverse { y: Tensor },
    /// `linalg.det(a)`: input and output saved (gA = g·det·A⁻ᵀ).
    Det { a: Tensor, d: Tensor },
    /// `linalg.slogdet(a)`'s log|det|: the input is saved (gA = g·A⁻ᵀ).
    LogAbsDet { a: Tensor },
    /// `linalg.solve(a, b)`: A and the solution X saved.
    Solve { a: Tensor, x: Tensor },
    /// `linalg.cholesky(a)`: the output L saved.
    Cholesky { l: Tensor },
    /// The spectral norm: the top singular vectors saved (gA = g·u vᵀ).
    SpectralNorm { u: Tensor, v: Tensor },
    /// `tile(x, multiples)`: the gradient sums the tiles back.
    Tile { in_shape: Vec<usize>, multiples: Vec<usize> },
    /// `softmax` / `log_softmax`: the output is saved.
    Softmax { y: Tensor, axis: usize, log: bool },
    /// `sparse_softmax_cross_entropy_with_logits`: outputs (loss, backprop); TF saves
    /// backprop = softmax − one_hot(labels), with `labels` the class of each row.
    SparseXent { backprop: Tensor, labels: Rc<Vec<usize>> },
    /// `cast(x, dtype)` from `from`.
    Cast { from: DType },
    /// Identity (renamed outputs of decorators, `grad_pass_through`).
    Identity,
    /// `add_n` of `n` same-shape tensors: one operation, so its inputs' backward steps become
    /// ready together, in argument order, as TF's AddN's do (docs/language.md "Order of the
    /// backward pass").
    AddN { n: usize },
    /// Broadcast to a bigger shape (gradient: sum back).
    BroadcastTo { in_shape: Dims },
    /// `where(cond, a, b)`: the condition is saved.
    Where { cond: Tensor, a_shape: Dims, b_shape: Dims },
    /// A `@custom_gradient` call.
    Custom(Rc<CustomCall>),
    /// A `@recompute_grad` call.
    Recompute(Rc<RecomputeCall>),
    /// `grad_pass_through(f)`: identity gradient to each tensor input.
    PassThrough,
    /// `conv2d` and its two gradients, each bilinear in its two inputs (both saved; `ops/conv.rs`).
    Conv { kind: ConvKind, geom: Box<Geom>, a: Tensor, b: Tensor },
    /// `max_pool2d` / `avg_pool2d` and their gradients, all linear (nothing saved; `ops/conv.rs`).
    Pool { kind: PoolKind, geom: Box<Geom> },
    /// TF's elementwise special functions (`lgamma`, `igamma`, `betainc`, …; `ops/special.rs`):
    /// the inputs and the output saved.
    Special { f: crate::tensor::special::Special, inputs: SmallVec<[Tensor; 3]>, out: Tensor },
    /// An entry of a non-persistent tape whose backward step has run: its saved tensors are
    /// freed (as TF frees them), only its name is kept. It has no VJP.
    Released { name: &'static str, function: Option<Rc<str>> },
}

/// The user-side part of a custom_gradient or recompute_grad entry (its functions and
/// arguments), kept for the [`Host`](super::recorder::Host) that made it; the recorder
/// holds it without looking inside.
#[derive(Clone)]
pub struct UserData(Rc<dyn Any>);

impl UserData {
    /// Wraps the host's data.
    pub fn new<T: 'static>(data: T) -> UserData {
        UserData(Rc::new(data))
    }

    /// The data, if it is a `T` (what the host stored).
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl fmt::Debug for UserData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<user data>")
    }
}

/// What a `@custom_gradient` call leaves on the tape (docs/language.md §5).
#[derive(Debug)]
pub struct CustomCall {
    /// The decorated function's name, for error messages.
    pub name: Rc<str>,
    /// The host's `grad_fn`.
    pub grad_fn: UserData,
    /// Shape and dtype of each positional input (`None` for non-tensors).
    pub inputs: Vec<Option<(Vec<usize>, DType)>>,
    /// Trainable Variables read by `f` that are not inputs, in first-read order.
    pub variables: Vec<Rc<Variable>>,
}

/// What a `@recompute_grad` call leaves on the tape: only its inputs.
#[derive(Debug)]
pub struct RecomputeCall {
    /// The decorated function's name.
    pub name: Rc<str>,
    /// The checkpoint region of the decorated function (an index into `Recorder::regions`).
    pub region: u32,
    /// The host's function and arguments.
    pub call: UserData,
    /// The input tensors, saved (the checkpoint).
    pub saved: Vec<Tensor>,
    pub variables: Vec<Rc<Variable>>,
    /// Watched tensors `f` read from enclosing scopes (docs/language.md §5 improvement).
    pub captured: Vec<TensorId>,
    /// The random generator state at the forward call, replayed on recompute.
    pub rng_state: crate::tensor::random::RandomState,
}

impl Op {
    /// The operation's name as the user wrote it (TF's name without `tf.`), for the tape's
    /// summary, drawings and explanations; a `recompute_grad` or `custom_gradient` entry is
    /// named after its function (`recompute_grad block`).
    pub fn name(&self) -> String {
        match self.function() {
            Some(f) => format!("{} {f}", self.static_name()),
            None => self.static_name().to_string(),
        }
    }

    /// The user function of a `custom_gradient` or `recompute_grad` entry.
    pub fn function(&self) -> Option<&Rc<str>> {
        match self {
            Op::Custom(c) => Some(&c.name),
            Op::Recompute(r) => Some(&r.name),
            Op::Released { function, .. } => function.as_ref(),
            _ => None,
        }
    }

    /// The operation's name without its user function.
    pub fn static_name(&self) -> &'static str {
        match self {
            Op::AddSub { sub: false, .. } => "add",
            Op::AddSub { sub: true, .. } => "subtract",
            Op::Binary { op, .. } => crate::tensor::kernels::binary_name(*op),
            Op::Pow { .. } => "pow",
            // TF's name for negation; every other function as messages name it.
            Op::Unary { op: Unary::Neg, .. } => "negative",
            Op::Unary { op, .. } => crate::tensor::kernels::unary_name(*op),
            Op::MatMul { .. } => "matmul",
            Op::Reduce { op: Reduce::Sum, .. } => "reduce_sum",
            Op::Reduce { op: Reduce::Mean, .. } => "reduce_mean",
            Op::Reduce { op: Reduce::Max, .. } => "reduce_max",
            Op::Reduce { op: Reduce::Min, .. } => "reduce_min",
            Op::ReduceExtreme { .. } => "reduce_max/min",
            Op::ReduceProd { .. } => "reduce_prod",
            Op::Cumsum { .. } => "cumsum",
            Op::Cumprod { .. } => "cumprod",
            Op::Reshape { .. } => "reshape",
            Op::Transpose { .. } => "transpose",
            Op::Concat { .. } => "concat",
            Op::Stack { .. } => "stack",
            Op::Index { .. } => "getitem",
            Op::IndexGrad { .. } => "getitem_grad",
            Op::Gather { .. } => "gather",
            Op::GatherGrad { .. } => "gather_grad",
            Op::Take { .. } => "take",
            Op::TakeAdd { .. } => "take_add",
            Op::MatrixInverse { .. } => "linalg.inv",
            Op::Det { .. } => "linalg.det",
            Op::LogAbsDet { .. } => "linalg.slogdet",
            Op::Solve { .. } => "linalg.solve",
            Op::Cholesky { .. } => "linalg.cholesky",
            Op::SpectralNorm { .. } => "norm(ord=2)",
            Op::Tile { .. } => "tile",
            Op::Softmax { log: false, .. } => "softmax",
            Op::Softmax { log: true, .. } => "log_softmax",
            Op::SparseXent { .. } => "sparse_softmax_cross_entropy_with_logits",
            Op::Cast { .. } => "cast",
            Op::Identity => "identity",
            Op::AddN { .. } => "add_n",
            Op::BroadcastTo { .. } => "broadcast_to",
            Op::Where { .. } => "where",
            Op::Custom(_) => "custom_gradient",
            Op::Recompute(_) => "recompute_grad",
            Op::PassThrough => "grad_pass_through",
            Op::Conv { kind: ConvKind::Forward, .. } => "conv2d",
            Op::Conv { kind: ConvKind::BackpropInput, .. } => "conv2d_backprop_input",
            Op::Conv { kind: ConvKind::BackpropFilter, .. } => "conv2d_backprop_filter",
            Op::Pool { kind: PoolKind::MaxGather { .. }, .. } => "max_pool2d",
            Op::Pool { kind: PoolKind::MaxScatter { .. }, .. } => "max_pool2d_grad",
            Op::Pool { kind: PoolKind::Avg, .. } => "avg_pool2d",
            Op::Pool { kind: PoolKind::AvgSpread, .. } => "avg_pool2d_grad",
            Op::Special { f, .. } => f.name(),
            Op::Released { name, .. } => name,
        }
    }

    /// What is left of this operation once its backward step has run on a non-persistent
    /// tape: its name, and no saved tensors.
    pub fn released(&self) -> Op {
        Op::Released { name: self.static_name(), function: self.function().cloned() }
    }

    /// The tensors this operation keeps alive for its backward step.
    pub fn saved(&self, out: &mut Vec<Tensor>) {
        self.for_each_saved(|t| out.push(t.clone()));
    }

    /// Calls `f` on each tensor this operation keeps alive for its backward step.
    pub fn for_each_saved(&self, mut f: impl FnMut(&Tensor)) {
        match self {
            Op::Binary { a, b, .. } | Op::MatMul { a, b } | Op::Conv { a, b, .. } => {
                f(a);
                f(b);
            }
            Op::Pow { a, b, out: o } => {
                f(a);
                f(b);
                f(o);
            }
            Op::Unary { saved: Some(t), .. }
            | Op::ReduceProd { x: t, .. }
            | Op::Softmax { y: t, .. }
            | Op::SparseXent { backprop: t, .. }
            | Op::Where { cond: t, .. }
            | Op::MatrixInverse { y: t }
            | Op::LogAbsDet { a: t }
            | Op::Cholesky { l: t } => f(t),
            Op::ReduceExtreme { x, out_kept: o, .. }
            | Op::Cumprod { x, out: o, .. }
            | Op::Det { a: x, d: o }
            | Op::Solve { a: x, x: o }
            | Op::SpectralNorm { u: x, v: o } => {
                f(x);
                f(o);
            }
            Op::Recompute(r) => r.saved.iter().for_each(f),
            Op::Special { inputs, out, .. } => {
                inputs.iter().for_each(&mut f);
                f(out);
            }
            _ => {}
        }
    }
}

/// A shape or axis list kept inline: no allocation per recorded op for rank ≤ 4.
pub type Dims = SmallVec<[usize; 4]>;

/// Marks an input that no entry of this tape produced (a watched source, a Variable, a
/// constant) in [`Input::slot`].
pub const NO_SLOT: u32 = u32::MAX;

/// One input of a recorded entry, resolved once at record time.
#[derive(Clone, Copy, Debug)]
pub struct Input {
    /// The tensor's id (0 for a non-tensor argument).
    pub id: TensorId,
    /// The output slot of this tape that produced it, or [`NO_SLOT`].
    pub slot: u32,
    /// Whether the tape watched it when the entry was recorded.
    pub watched: bool,
}

/// Shape and dtype of a recorded output (zeros fill a missing upstream gradient).
#[derive(Clone, Debug)]
pub struct OutMeta {
    /// The output's id.
    pub id: TensorId,
    /// Its shape and dtype.
    pub shape: Dims,
    pub dtype: DType,
}

/// Where an operation was recorded: the statement that ran it (its file and the byte
/// offset where the statement starts; the line is worked out only when shown).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Site {
    pub src: SourceId,
    pub pos: u32,
}

impl Site {
    /// No known place (recorded by native code outside any statement).
    pub const NONE: Site = Site { src: SourceId(u32::MAX), pos: 0 };

    /// Whether this names a place in a source file.
    pub fn is_known(self) -> bool {
        self != Site::NONE
    }
}

/// One tape record: an operation, its inputs and its outputs. Outputs occupy the
/// consecutive slots `first_slot..first_slot + outputs.len()` of the tape, so the
/// backward pass keeps its gradients in vectors indexed by slot and entry.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The operation (shared by every tape that recorded it).
    pub op: Rc<Op>,
    /// Its inputs in argument order.
    pub inputs: SmallVec<[Input; 2]>,
    /// Its outputs in order.
    pub outputs: SmallVec<[OutMeta; 1]>,
    /// The tape slot of its first output.
    pub first_slot: u32,
    /// The statement that recorded it.
    pub site: Site,
    /// The checkpoint region it was recorded in: 0 outside any, else 1 + an index into
    /// `Recorder::regions` (the innermost `recompute_grad` function running).
    pub region: u32,
}

/// The recorded entries and, for each output slot, the entry that produced it.
/// Shared by reference with a running backward pass (a snapshot); appending while
/// one runs copies it once (`Rc::make_mut`).
#[derive(Clone, Debug, Default)]
pub struct Log {
    /// The entries in record order.
    pub entries: Vec<Entry>,
    /// For each output slot, the index of the entry that produced it.
    pub slot_entry: Vec<u32>,
}

/// What an entry holds for its backward step (`tape.stats()`, the summary, saved bytes by
/// region all count this way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saved {
    /// Bytes and tensors counted at this entry (each buffer once, at the first entry that saves
    /// it), and whether it also keeps a buffer counted at an earlier entry.
    Held { bytes: usize, tensors: usize, shared: bool },
    /// Its backward step has run on a non-persistent tape, which let its tensors go.
    Released,
}

impl Log {
    /// Each entry's [`Saved`]: distinct buffers, each counted at the first entry saving it.
    pub fn saved_by_entry(&self) -> Vec<Saved> {
        let mut seen: HashSet<usize> = HashSet::default();
        self.entries
            .iter()
            .map(|e| {
                if matches!(*e.op, Op::Released { .. }) {
                    return Saved::Released;
                }
                let (mut bytes, mut tensors, mut shared) = (0, 0, false);
                let mut mine: SmallVec<[usize; 4]> = SmallVec::new();
                e.op.for_each_saved(|t| {
                    let key = Rc::as_ptr(&t.data) as usize;
                    if seen.insert(key) {
                        mine.push(key);
                        bytes += t.nbytes();
                        tensors += 1;
                    } else if !mine.contains(&key) {
                        shared = true;
                    }
                });
                Saved::Held { bytes, tensors, shared }
            })
            .collect()
    }
}

/// What the tape knows of a tensor id: whether it is watched, and which output slot
/// produced it (every output of a recorded entry has one, float or not).
#[derive(Clone, Copy, Debug)]
struct Node {
    watched: bool,
    slot: u32,
}

/// A `GradientTape` (docs/language.md §5). Its rules — entering, exiting, being used up,
/// recording — are the methods below.
#[derive(Debug, Default)]
pub struct Tape {
    /// `persistent=True`: answers `gradient` any number of times.
    pub persistent: bool,
    /// `watch_accessed_variables=True`: watches every trainable Variable read while it records.
    pub watch_accessed_variables: bool,
    /// Ids the tape knows: watched sources and everything recorded.
    nodes: FxHashMap<TensorId, Node>,
    /// Variables watched, in the order they were first watched.
    pub watched_variables: Vec<Rc<Variable>>,
    log: Rc<Log>,
    /// Some id became watched after entries were recorded: an entry's record-time view
    /// of its inputs may be stale, so the backward pass asks the tape instead.
    late_watch: bool,
    /// A non-persistent tape that has answered `gradient` once.
    pub used: bool,
    /// True between `__enter__` and `__exit__`.
    pub active: bool,
    /// What the observer keeps about this tape (`observer.rs`: the tools keep what it ran
    /// past, for `tape.explain`, and what its last `gradient` call measured).
    pub annex: Option<Box<dyn Annex>>,
}

impl Tape {
    pub fn new(persistent: bool, watch_accessed_variables: bool) -> Tape {
        Tape { persistent, watch_accessed_variables, ..Tape::default() }
    }

    /// Whether the tape watches `id` (a watched source or a float output it recorded).
    pub fn watches(&self, id: TensorId) -> bool {
        self.nodes.get(&id).is_some_and(|n| n.watched)
    }

    /// Watches `id` (the caller checks that it is a float tensor or a Variable handle).
    pub fn watch(&mut self, id: TensorId) {
        let recorded = !self.log.entries.is_empty();
        let n = self.nodes.entry(id).or_insert(Node { watched: false, slot: NO_SLOT });
        if !n.watched {
            n.watched = true;
            self.late_watch |= recorded;
        }
    }

    /// Watches a Variable (by its handle id) once.
    pub fn watch_variable(&mut self, v: &Rc<Variable>) {
        self.watch(v.handle);
        if !self.watched_variables.iter().any(|w| Rc::ptr_eq(w, v)) {
            self.watched_variables.push(v.clone());
        }
    }

    /// `tape.reset()`: forget everything recorded and watched; the tape may answer again.
    pub fn reset(&mut self) {
        self.nodes.clear();
        self.watched_variables.clear();
        self.log = Rc::default();
        self.late_watch = false;
        self.used = false;
        if let Some(a) = &mut self.annex {
            a.reset();
        }
    }

    /// `__enter__`: the tape starts recording.
    ///
    /// Errors: ValueError when it is already recording (entered again inside its own block).
    pub fn enter(&mut self) -> R<()> {
        if self.active {
            bail!(Value, "this GradientTape is still recording: it cannot be entered again inside its own block");
        }
        self.active = true;
        Ok(())
    }

    /// Whether a tape set aside by `stop_recording` records again when that block ends:
    /// still inside its own block, and not used up.
    pub fn resumes(&self) -> bool {
        self.active && (self.persistent || !self.used)
    }

    /// Marks one use of the tape for gradients; returns whether it must stop recording
    /// (a non-persistent tape stops when asked for gradients, as TF's does).
    ///
    /// Errors: RuntimeError on a non-persistent tape already used.
    pub fn use_once(&mut self) -> R<bool> {
        if self.used {
            bail!(
                Runtime,
                "a non-persistent GradientTape can only be used to compute one set of gradients (use persistent=True)"
            );
        }
        if !self.persistent {
            self.used = true;
        }
        Ok(!self.persistent)
    }

    /// The inputs `ids` (0: not a tensor) as this tape sees them, or `None` when it
    /// watches none of them and so does not record the operation (docs/language.md §5).
    pub fn resolve(&self, ids: &[TensorId]) -> Option<SmallVec<[Input; 2]>> {
        let mut any = false;
        let mut inputs = SmallVec::with_capacity(ids.len());
        for &id in ids {
            let n = if id == 0 { None } else { self.nodes.get(&id) };
            let (watched, slot) = n.map_or((false, NO_SLOT), |n| (n.watched, n.slot));
            any |= watched;
            inputs.push(Input { id, slot, watched });
        }
        any.then_some(inputs)
    }

    /// Appends an entry with inputs from [`Tape::resolve`]; its float outputs become watched.
    pub fn push(&mut self, op: Rc<Op>, inputs: SmallVec<[Input; 2]>, outputs: &[&Tensor], site: Site, region: u32) {
        let log = Rc::make_mut(&mut self.log);
        let index = log.entries.len() as u32;
        let first_slot = log.slot_entry.len() as u32;
        let mut outs = SmallVec::with_capacity(outputs.len());
        for (k, o) in outputs.iter().enumerate() {
            outs.push(OutMeta { id: o.id, shape: Dims::from_slice(o.shape()), dtype: o.dtype() });
            self.nodes.insert(o.id, Node { watched: o.dtype().is_float(), slot: first_slot + k as u32 });
            log.slot_entry.push(index);
        }
        log.entries.push(Entry { op, inputs, outputs: outs, first_slot, site, region });
    }

    /// The output slot that produced `id` on this tape, if any.
    pub fn slot_of(&self, id: TensorId) -> Option<u32> {
        self.nodes.get(&id).map(|n| n.slot).filter(|&s| s != NO_SLOT)
    }

    /// The entries recorded so far (shared, not copied).
    pub fn log(&self) -> Rc<Log> {
        self.log.clone()
    }

    /// Takes the entries out (a non-persistent tape's backward pass, which releases each
    /// entry's saved tensors as it goes); [`Tape::put_log`] gives them back.
    pub fn take_log(&mut self) -> Rc<Log> {
        std::mem::take(&mut self.log)
    }

    /// Gives back the entries taken with [`Tape::take_log`].
    pub fn put_log(&mut self, log: Rc<Log>) {
        self.log = log;
    }

    /// The watched ids, when an entry's record-time view of its inputs may be stale
    /// (see `late_watch`); `None` when every entry's view is exact.
    pub fn watched_if_late(&self) -> Option<HashSet<TensorId>> {
        self.late_watch.then(|| self.nodes.iter().filter(|(_, n)| n.watched).map(|(id, _)| *id).collect())
    }

    /// Number of recorded operations.
    pub fn len(&self) -> usize {
        self.log.entries.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.log.entries.is_empty()
    }

    /// `(ops, saved_tensors, saved_bytes)`: distinct buffers the tape holds, counted once each.
    pub fn stats(&self) -> (usize, usize, usize) {
        let (mut count, mut bytes) = (0, 0);
        for s in self.log.saved_by_entry() {
            if let Saved::Held { bytes: b, tensors, .. } = s {
                count += tensors;
                bytes += b;
            }
        }
        (self.log.entries.len(), count, bytes)
    }
}

// Every recorded operation allocates one `Op`, so its size is on the B1 hot path: a wide
// payload (a convolution's geometry) goes behind a Box. 104 bytes: `Where`'s two inline shapes.
const _: () = assert!(std::mem::size_of::<Op>() <= 104);
