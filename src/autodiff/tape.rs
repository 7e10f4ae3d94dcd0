//! The gradient tape: a flat record of operations by tensor id, each with
//! the tensors its backward step needs (its saved tensors).

use super::variable::Variable;
use crate::runtime::value::Value;
use crate::tensor::kernels::{Binary, Reduce, Unary};
use crate::tensor::{DType, Tensor, TensorId};
use ndarray::SliceInfoElem;
use rustc_hash::FxHashSet as HashSet;
use std::rc::Rc;

/// A recorded operation and what its VJP needs. Each variant documents the
/// derivative its backward step implements (see `vjp.rs`).
#[derive(Debug)]
pub enum Op {
    /// `a + b` / `a - b`: only the input shapes are needed.
    AddSub { sub: bool, a_shape: Vec<usize>, b_shape: Vec<usize> },
    /// `a * b`, `a / b`, `maximum`, `minimum`: both inputs are saved.
    Binary { op: Binary, a: Tensor, b: Tensor },
    /// `a ** b`: inputs and output saved.
    Pow { a: Tensor, b: Tensor, out: Tensor },
    /// Elementwise functions; `saved` is the input or the output, whichever the derivative uses.
    Unary { op: Unary, saved: Option<Tensor> },
    /// `a @ b`
    MatMul { a: Tensor, b: Tensor },
    /// `reduce_sum` / `reduce_mean`
    Reduce { op: Reduce, in_shape: Vec<usize>, axes: Vec<usize> },
    /// `reduce_max` / `reduce_min`: input and (kept-dims) output saved for the tie mask.
    ReduceExtreme { x: Tensor, out_kept: Tensor, axes: Vec<usize> },
    /// `reshape`, `expand_dims`, `squeeze`
    Reshape { in_shape: Vec<usize> },
    /// `transpose(x, perm)`
    Transpose { perm: Vec<usize> },
    /// `concat(xs, axis)`: the sizes along `axis` split the gradient.
    Concat { axis: usize, sizes: Vec<usize> },
    /// `stack(xs, axis)`
    Stack { axis: usize, n: usize },
    /// `x[index]` (basic indexing)
    Index { in_shape: Vec<usize>, info: Rc<Vec<SliceInfoElem>> },
    /// The VJP of indexing: scatter into zeros of `in_shape` (linear, its VJP is the indexing).
    IndexGrad { info: Rc<Vec<SliceInfoElem>> },
    /// `gather(x, indices, axis)`: the indices are kept (not a tensor of x's).
    Gather { in_shape: Vec<usize>, axis: usize, indices: Rc<Vec<usize>>, idx_shape: Vec<usize> },
    /// The VJP of gather: scatter-add into zeros of `in_shape` (linear; its VJP is the gather).
    GatherGrad { axis: usize, indices: Rc<Vec<usize>>, idx_shape: Vec<usize> },
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
    /// Broadcast to a bigger shape (gradient: sum back).
    BroadcastTo { in_shape: Vec<usize> },
    /// `where(cond, a, b)`: the condition is saved.
    Where { cond: Tensor, a_shape: Vec<usize>, b_shape: Vec<usize> },
    /// A `@custom_gradient` call.
    Custom(Rc<CustomCall>),
    /// A `@recompute_grad` call.
    Recompute(Rc<RecomputeCall>),
    /// `grad_pass_through(f)`: identity gradient to each tensor input.
    PassThrough,
}

/// What a `@custom_gradient` call leaves on the tape (LANGUAGE.md §5).
#[derive(Debug)]
pub struct CustomCall {
    /// The decorated function's name, for error messages.
    pub name: Rc<str>,
    pub grad_fn: Value,
    /// Shape and dtype of each positional input (`None` for non-tensors).
    pub inputs: Vec<Option<(Vec<usize>, DType)>>,
    /// Trainable Variables read by `f` that are not inputs, in first-read order.
    pub variables: Vec<Rc<Variable>>,
}

/// What a `@recompute_grad` call leaves on the tape: only its inputs.
#[derive(Debug)]
pub struct RecomputeCall {
    pub f: Value,
    pub args: Vec<Value>,
    pub kwargs: Vec<(Rc<str>, Value)>,
    /// The input tensors, saved (the checkpoint).
    pub saved: Vec<Tensor>,
    pub variables: Vec<Rc<Variable>>,
    /// Watched tensors `f` read from enclosing scopes (LANGUAGE.md §5 improvement).
    pub captured: Vec<TensorId>,
    /// The random generator state at the forward call, replayed on recompute.
    pub rng_state: rand_chacha::ChaCha8Rng,
}

impl Op {
    /// The tensors this operation keeps alive for its backward step.
    pub fn saved(&self, out: &mut Vec<Tensor>) {
        match self {
            Op::Binary { a, b, .. } | Op::MatMul { a, b } => out.extend([a.clone(), b.clone()]),
            Op::Pow { a, b, out: o } => out.extend([a.clone(), b.clone(), o.clone()]),
            Op::Unary { saved: Some(t), .. } => out.push(t.clone()),
            Op::ReduceExtreme { x, out_kept, .. } => out.extend([x.clone(), out_kept.clone()]),
            Op::Softmax { y, .. } => out.push(y.clone()),
            Op::SparseXent { backprop, .. } => out.push(backprop.clone()),
            Op::Where { cond, .. } => out.push(cond.clone()),
            Op::Recompute(r) => {
                out.extend(r.saved.iter().cloned());
            }
            _ => {}
        }
    }
}

/// Shape and dtype of a recorded output.
#[derive(Clone, Debug)]
pub struct OutMeta {
    pub id: TensorId,
    pub shape: Vec<usize>,
    pub dtype: DType,
}

/// One tape record: an operation, its input ids (0 for a non-tensor input) and its outputs.
#[derive(Clone, Debug)]
pub struct Entry {
    pub op: Rc<Op>,
    pub inputs: Vec<TensorId>,
    pub outputs: Vec<OutMeta>,
}

/// A `GradientTape` (LANGUAGE.md §5).
#[derive(Debug, Default)]
pub struct Tape {
    pub persistent: bool,
    pub watch_accessed_variables: bool,
    /// Ids whose operations this tape records: watched sources and everything computed from them.
    pub watched: HashSet<TensorId>,
    /// Variables watched, in the order they were first watched.
    pub watched_variables: Vec<Rc<Variable>>,
    pub entries: Vec<Rc<Entry>>,
    /// A non-persistent tape that has answered `gradient` once.
    pub used: bool,
    /// True between `__enter__` and `__exit__`.
    pub active: bool,
}

impl Tape {
    pub fn new(persistent: bool, watch_accessed_variables: bool) -> Tape {
        Tape { persistent, watch_accessed_variables, ..Tape::default() }
    }

    /// Watches a Variable (by its handle id) once.
    pub fn watch_variable(&mut self, v: &Rc<Variable>) {
        self.watched.insert(v.handle);
        if !self.watched_variables.iter().any(|w| Rc::ptr_eq(w, v)) {
            self.watched_variables.push(v.clone());
        }
    }

    /// `(ops, saved_tensors, saved_bytes)`: distinct buffers the tape holds, counted once each.
    pub fn stats(&self) -> (usize, usize, usize) {
        let mut saved = Vec::new();
        for e in &self.entries {
            e.op.saved(&mut saved);
        }
        let mut seen = HashSet::default();
        let mut count = 0;
        let mut bytes = 0;
        for t in saved {
            if seen.insert(Rc::as_ptr(&t.data) as usize) {
                count += 1;
                bytes += t.nbytes();
            }
        }
        (self.entries.len(), count, bytes)
    }
}
