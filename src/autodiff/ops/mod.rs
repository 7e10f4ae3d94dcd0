//! Differentiable operations, methods of the [`Recorder`], one file per family
//! ([`elementwise`], [`matmul`], [`reduce`], [`shape`], [`nn`]): each operation's
//! forward (a kernel, then [`Recorder::record`] with what its VJP saves) and its VJP
//! sit side by side. VJPs are written with these same operations, so an outer tape
//! records the backward pass and higher-order gradients compose (STYLE.md lesson 3).
//! A tape records an operation only when one of its inputs is watched (docs/language.md §5).
//!
//! Each family also has its JVP rules (forward mode, `forward.rs`) beside its VJPs.
//!
//! Adding an operation: its forward and VJP in its family's file, an [`Op`] variant
//! (`tape.rs`), its arm in `vjp` below, and a finite-difference check (`fd_tests.rs`). A JVP
//! rule is optional: an operation without an arm in `jvp` is differentiated in forward mode by
//! transposing its VJP (`forward::transpose_jvp`), which is exact but costs two passes.

pub mod conv;
pub mod einsum;
pub mod elementwise;
pub mod linalg;
pub mod matmul;
pub mod nn;
pub mod nn_losses;
pub mod reduce;
pub mod select;
pub mod shape;
pub mod special;

pub use shape::{axis_slice, slice_info};

use super::forward::Tangents;
use super::recorder::{InputGrads, Recorder};
use super::tape::{Entry, Op};
use crate::bail;
use crate::error::R;
use crate::tensor::Tensor;
use std::rc::Rc;

impl Recorder {
    /// Runs the backward step of `entry` (one gradient per input, `None`: no gradient):
    /// the VJP of its operation's family. `upstream` has one gradient per output (zeros
    /// already filled in); `needed[i]` says whether input i wants a gradient.
    pub fn vjp(&mut self, entry: &Entry, upstream: Vec<Tensor>, needed: &[bool]) -> R<InputGrads> {
        let op = &*entry.op;
        match family(op) {
            Family::Elementwise => self.elementwise_vjp(op, &upstream, needed),
            Family::MatMul => self.matmul_vjp(op, &upstream, needed),
            Family::Reduce => self.reduce_vjp(op, &upstream, needed),
            Family::Shape => self.shape_vjp(op, &upstream, needed),
            Family::Nn => self.nn_vjp(op, &upstream, needed),
            Family::Select => self.select_vjp(op, &upstream, needed),
            Family::Linalg => self.linalg_vjp(op, &upstream, needed),
            Family::Conv => self.conv_vjp(op, &upstream, needed),
            Family::Special => self.special_vjp(op, &upstream, needed),
            // Identity gradient to each tensor input (upstream i to input i).
            Family::PassThrough => Ok((0..entry.inputs.len()).map(|i| upstream.get(i).cloned()).collect()),
            // User code runs through the host (backward.rs), never here.
            Family::User => bail!(Runtime, "internal error: a user-code VJP reached the recorder"),
            Family::Released => {
                bail!(
                    Runtime,
                    "this GradientTape already released the saved tensors of {} after its gradient",
                    op.name()
                )
            }
        }
    }

    /// The forward-mode rule of `op` (J·t, one tangent per output), or `None` when it has no
    /// closed-form rule and must be transposed from its VJP. `tangents` has one entry per input
    /// (`None`: no tangent, that is zero; at least one is given); `outputs` are the op's outputs.
    pub fn jvp(&mut self, op: &Rc<Op>, tangents: &[Option<Tensor>], outputs: &[&Tensor]) -> Option<R<Tangents>> {
        let op = &**op;
        Some(match family(op) {
            Family::Elementwise => self.elementwise_jvp(op, tangents, outputs),
            Family::MatMul => self.matmul_jvp(op, tangents),
            Family::Reduce => self.reduce_jvp(op, tangents, outputs),
            Family::Shape => self.shape_jvp(op, tangents, outputs),
            Family::Nn => self.nn_jvp(op, tangents),
            Family::Select => self.select_jvp(op, tangents, outputs),
            Family::Conv => self.conv_jvp(op, tangents),
            // Everything else (user code, operations added without a rule): by transposition.
            _ => return None,
        })
    }
}

/// The families of operations: each has its forward, its VJPs and its JVPs in one file
/// under `ops/`, and both dispatches above go through this one classification.
enum Family {
    Elementwise,
    MatMul,
    Reduce,
    Shape,
    Nn,
    Select,
    Linalg,
    Conv,
    /// TF's special functions (`special.rs`): no JVP rule, transposed from the VJP.
    Special,
    PassThrough,
    /// `custom_gradient` and `recompute_grad`: user code, run by the host.
    User,
    /// An entry whose saved tensors were freed after its backward step.
    Released,
}

fn family(op: &Op) -> Family {
    match op {
        Op::AddSub { .. }
        | Op::Binary { .. }
        | Op::Pow { .. }
        | Op::Unary { .. }
        | Op::Where { .. }
        | Op::Cast { .. }
        | Op::Identity
        | Op::AddN { .. } => Family::Elementwise,
        Op::MatMul { .. } => Family::MatMul,
        Op::Reduce { .. }
        | Op::ReduceExtreme { .. }
        | Op::ReduceProd { .. }
        | Op::Cumsum { .. }
        | Op::Cumprod { .. }
        | Op::BroadcastTo { .. } => Family::Reduce,
        Op::Reshape { .. }
        | Op::Transpose { .. }
        | Op::Concat { .. }
        | Op::Stack { .. }
        | Op::Index { .. }
        | Op::IndexGrad { .. }
        | Op::Gather { .. }
        | Op::GatherGrad { .. }
        | Op::Tile { .. } => Family::Shape,
        Op::Softmax { .. } | Op::SparseXent { .. } => Family::Nn,
        Op::Take { .. } | Op::TakeAdd { .. } => Family::Select,
        Op::MatrixInverse { .. }
        | Op::Det { .. }
        | Op::LogAbsDet { .. }
        | Op::Solve { .. }
        | Op::Cholesky { .. }
        | Op::SpectralNorm { .. } => Family::Linalg,
        Op::Conv { .. } | Op::Pool { .. } => Family::Conv,
        Op::Special { .. } => Family::Special,
        Op::PassThrough => Family::PassThrough,
        Op::Custom(_) | Op::Recompute(_) => Family::User,
        Op::Released { .. } => Family::Released,
    }
}
