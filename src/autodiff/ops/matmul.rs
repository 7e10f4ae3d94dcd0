//! Matrix products (2-D and batched), forward and VJP.

use crate::autodiff::forward::Tangents;
use crate::autodiff::recorder::{InputGrads, Recorder};
use crate::autodiff::tape::Op;
use crate::bail;
use crate::error::R;
use crate::tensor::kernels;
use crate::tensor::Tensor;
use smallvec::smallvec;

impl Recorder {
    /// `a @ b` (2-D and batched).
    pub fn matmul(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        let out = Tensor::new(kernels::matmul(&a.data, &b.data)?);
        if out.dtype().is_float() {
            self.record(&[a, b], &[&out], || Op::MatMul { a: a.clone(), b: b.clone() });
        }
        Ok(out)
    }

    /// The VJPs of this family: `upstream` has one gradient per output (zeros filled in),
    /// `needed[i]` says whether input i wants a gradient; one gradient per input.
    pub(super) fn matmul_vjp(&mut self, op: &Op, upstream: &[Tensor], needed: &[bool]) -> R<InputGrads> {
        let g = &upstream[0];
        let want = |i: usize| needed.get(i).copied().unwrap_or(false);
        Ok(match op {
            // d(AB) = dA B + A dB  ⇒  gA = g Bᵀ, gB = Aᵀ g (batch axes summed back)
            // d(a @ b) = g @ bᵀ, aᵀ @ g
            Op::MatMul { a, b } => {
                let ga = if want(0) {
                    let t = self.matmul_transposed(g, b, false, true)?;
                    Some(self.sum_to_shape(&t, a.shape())?)
                } else {
                    None
                };
                let gb = if want(1) {
                    let t = self.matmul_transposed(a, g, true, false)?;
                    Some(self.sum_to_shape(&t, b.shape())?)
                } else {
                    None
                };
                smallvec![ga, gb]
            }
            _ => bail!(Runtime, "internal error: {op:?} is not a matmul operation"),
        })
    }

    /// The JVP rule of this family: d(a @ b) = da @ b + a @ db.
    pub(super) fn matmul_jvp(&mut self, op: &Op, ts: &[Option<Tensor>]) -> R<Tangents> {
        let Op::MatMul { a, b } = op else { bail!(Runtime, "internal error: {op:?} is not a matmul operation") };
        let ta = match ts.first().and_then(Option::as_ref) {
            Some(ta) => Some(self.matmul(ta, b)?),
            None => None,
        };
        let tb = match ts.get(1).and_then(Option::as_ref) {
            Some(tb) => Some(self.matmul(a, tb)?),
            None => None,
        };
        Ok(smallvec![match (ta, tb) {
            (Some(x), Some(y)) => Some(self.add(&x, &y)?),
            (x, y) => x.or(y),
        }])
    }

    /// `x @ y` with the last two axes of `x` (`tx`) or `y` (`ty`) swapped. When nothing records
    /// it (no tape watches an input, no capture probe listens, no accumulator has a tangent,
    /// the observer does not want every op) and both are 2-D floats, the kernel reads the transposes through strides; otherwise
    /// they are recorded operations.
    fn matmul_transposed(&mut self, x: &Tensor, y: &Tensor, tx: bool, ty: bool) -> R<Tensor> {
        if self.capture_probes.is_empty()
            && !self.observer_wants_ops()
            && !self.any_watched(&[x, y])
            && !self.any_tangent(&[x.id, y.id])
        {
            if let Some(out) = kernels::matmul_2d_transposed(&x.data, &y.data, tx, ty) {
                return Ok(Tensor::new(out?));
            }
        }
        let x = if tx { self.swap_last(x)? } else { x.clone() };
        let y = if ty { self.swap_last(y)? } else { y.clone() };
        self.matmul(&x, &y)
    }

    /// Swaps the last two axes (for matmul's VJP).
    fn swap_last(&mut self, x: &Tensor) -> R<Tensor> {
        let n = x.shape().len();
        let mut perm: Vec<i64> = (0..n as i64).collect();
        perm.swap(n - 2, n - 1);
        self.transpose(x, Some(perm))
    }
}
