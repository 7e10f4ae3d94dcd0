//! Reductions and broadcasting (each the other's VJP), forward and VJP.

use crate::autodiff::recorder::{InputGrads, Recorder};
use crate::autodiff::tape::{Dims, Op};
use crate::bail;
use crate::error::R;
use crate::tensor::kernels::{self, Binary, Compare, Reduce};
use crate::tensor::shape::{broadcast_axes, reduce_axes, reduced_shape};
use crate::tensor::Tensor;
use smallvec::smallvec;

impl Recorder {
    /// `reduce_sum`/`reduce_mean`/`reduce_max`/`reduce_min` over `axes` (`None`: all).
    pub fn reduce(&mut self, op: Reduce, x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> R<Tensor> {
        let axes = reduce_axes(axes, x.shape().len())?;
        let kept = kernels::reduce(op, &x.data, &axes, true)?;
        let out_shape = reduced_shape(x.shape(), &axes, keepdims);
        let out = if keepdims { Tensor::new(kept.clone()) } else { Tensor::new(kernels::reshape(&kept, &out_shape)) };
        if out.dtype().is_float() {
            self.record(&[x], &[&out], || match op {
                Reduce::Sum | Reduce::Mean => {
                    Op::Reduce { op, in_shape: Dims::from_slice(x.shape()), axes: Dims::from_slice(&axes) }
                }
                Reduce::Max | Reduce::Min => {
                    Op::ReduceExtreme { x: x.clone(), out_kept: Tensor::new(kept), axes: axes.clone() }
                }
            });
        }
        Ok(out)
    }

    /// Sum over `axes` keeping nothing else: the workhorse of unbroadcasting.
    pub fn sum_to_shape(&mut self, g: &Tensor, shape: &[usize]) -> R<Tensor> {
        if g.shape() == shape {
            return Ok(g.clone());
        }
        let axes: Vec<i64> = broadcast_axes(shape, g.shape()).into_iter().map(|a| a as i64).collect();
        let s = if axes.is_empty() { g.clone() } else { self.reduce(Reduce::Sum, g, Some(&axes), false)? };
        if s.shape() == shape {
            Ok(s)
        } else {
            self.reshape_to(&s, shape)
        }
    }

    /// Broadcasts `x` to `shape`, recorded (its gradient sums back).
    pub fn broadcast_to(&mut self, x: &Tensor, shape: &[usize]) -> R<Tensor> {
        if x.shape() == shape {
            return Ok(x.clone());
        }
        let out = Tensor::new(kernels::broadcast_to(&x.data, shape)?);
        self.record(&[x], &[&out], || Op::BroadcastTo { in_shape: Dims::from_slice(x.shape()) });
        Ok(out)
    }

    /// The VJPs of this family: `upstream` has one gradient per output (zeros filled in),
    /// `needed[i]` says whether input i wants a gradient; one gradient per input.
    pub(super) fn reduce_vjp(&mut self, op: &Op, upstream: &[Tensor], needed: &[bool]) -> R<InputGrads> {
        let g = &upstream[0];
        let _want = |i: usize| needed.get(i).copied().unwrap_or(false);
        Ok(match op {
            // Sum: g broadcast back; mean: also divided by the count reduced.
            Op::Reduce { op, in_shape, axes } => {
                let kept = reduced_shape(in_shape, axes, true);
                let gk = self.reshape_to(g, &kept)?;
                let mut gx = self.broadcast_to(&gk, in_shape)?;
                if *op == Reduce::Mean {
                    let n: usize = axes.iter().map(|&a| in_shape[a]).product();
                    gx = self.mul_scalar(&gx, 1.0 / n.max(1) as f64)?;
                }
                smallvec![Some(gx)]
            }
            // max/min: g shared equally among the tied extreme elements (TF).
            Op::ReduceExtreme { x, out_kept, axes } => {
                let mask = Tensor::new(kernels::compare(Compare::Eq, &x.data, &out_kept.data)?.cast(x.dtype()));
                let count = Tensor::new(kernels::reduce(Reduce::Sum, &mask.data, axes, true)?);
                let gk = self.reshape_to(g, out_kept.shape())?;
                let share = self.binary(Binary::Div, &gk, &count)?;
                smallvec![Some(self.mul(&share, &mask)?)]
            }
            Op::BroadcastTo { in_shape } => smallvec![Some(self.sum_to_shape(g, in_shape)?)],
            _ => bail!(Runtime, "internal error: {op:?} is not a reduce operation"),
        })
    }
}
