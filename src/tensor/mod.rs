//! Tensors: an id plus a shared, immutable buffer (float32, float64, int64 or
//! bool over ndarray). Cloning a [`Tensor`] copies a pointer, never data.
//! The kernels in this module know nothing of tapes; `autodiff::ops` wraps
//! them with recording.

pub mod activations;
pub mod array;
pub mod budget;
pub mod conv;
pub mod cpu;
pub mod einsum;
pub mod error;
pub mod gemm;
pub mod indexing;
pub mod kernels;
pub mod linalg;
pub mod math;
pub mod nprandom;
pub mod random;
pub mod reductions;
pub mod scalar;
pub mod segments;
pub mod sobol;
pub mod shape;
pub mod sorting;
pub mod special;

pub use array::{Array, DType, Elem};
use std::cell::Cell;
use std::rc::Rc;

/// Identifies a tensor value for the tape. A Variable's reads all carry the
/// Variable's handle id, so gradients flow to the Variable itself.
pub type TensorId = u64;

thread_local! {
    static NEXT_ID: Cell<TensorId> = const { Cell::new(1) };
}

/// A fresh, never reused tensor id.
pub fn fresh_id() -> TensorId {
    NEXT_ID.with(|c| {
        let id = c.get();
        c.set(id + 1);
        id
    })
}

/// A tensor value: cheap to clone (an id and a reference-counted buffer).
#[derive(Clone, Debug)]
pub struct Tensor {
    pub id: TensorId,
    pub data: Rc<Array>,
}

impl Tensor {
    /// Wraps a buffer under a fresh id.
    pub fn new(data: Array) -> Tensor {
        Tensor { id: fresh_id(), data: Rc::new(data) }
    }

    /// Zeros of `dtype` and `shape`: the gradient of something the target does not depend on.
    pub fn zeros(dtype: DType, shape: &[usize]) -> Tensor {
        Tensor::new(Array::zeros(dtype, shape))
    }

    /// The same buffer under a fresh id (an identity op's output).
    pub fn renamed(&self) -> Tensor {
        Tensor { id: fresh_id(), data: self.data.clone() }
    }

    pub fn shape(&self) -> &[usize] {
        self.data.shape()
    }

    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.len() == 0
    }

    /// Size in bytes of the buffer (what `tape.stats()` counts).
    pub fn nbytes(&self) -> usize {
        self.data.len() * self.dtype().size()
    }
}

/// Formats a shape the way messages show it: `(2, 3)`, `(4,)`, `()`.
pub fn shape_str(shape: &[usize]) -> String {
    match shape.len() {
        0 => "()".into(),
        1 => format!("({},)", shape[0]),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    }
}
