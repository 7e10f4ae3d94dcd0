//! Convolution and pooling, forward and VJP (kernels in `tensor/conv.rs`).
//!
//! conv2d `y = C(x, w)` is bilinear, and so are its two gradients, the transposed convolution
//! `BI(dy, w)` (TF's Conv2DBackpropInput) and `BF(x, dy)` (Conv2DBackpropFilter). They are
//! adjoint to one another: ⟨C(x, w), dy⟩ = ⟨x, BI(dy, w)⟩ = ⟨w, BF(x, dy)⟩. So each one's VJP
//! is written with the other two, all three recorded: gradients of every order.
//!
//! Pooling is linear once the max positions are fixed: max_pool2d gathers the input at each
//! window's (first) maximum, and its VJP scatters back to those positions; avg_pool2d's VJP
//! spreads each gradient over its window. Each pair is adjoint, so each VJP is the other op.

use crate::autodiff::forward::Tangents;
use crate::autodiff::recorder::{InputGrads, Recorder};
use crate::autodiff::tape::Op;
use crate::bail;
use crate::error::R;
use crate::tensor::conv::{self, Geom, Window};
use crate::tensor::Tensor;
use smallvec::smallvec;
use std::rc::Rc;

/// Which of the three bilinear convolution operations an [`Op::Conv`] entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvKind {
    /// `conv2d(x, w)`: inputs (x, w).
    Forward,
    /// `BI(dy, w)`, the gradient with respect to the input: inputs (dy, w).
    BackpropInput,
    /// `BF(x, dy)`, the gradient with respect to the filters: inputs (x, dy).
    BackpropFilter,
}

/// Which linear pooling operation an [`Op::Pool`] entry is.
#[derive(Clone, Debug)]
pub enum PoolKind {
    /// Reads the input at each window's maximum (max_pool2d's forward and the VJP of the scatter).
    MaxGather { argmax: Rc<Vec<usize>> },
    /// Adds each output gradient at its window's maximum (max_pool2d's VJP).
    MaxScatter { argmax: Rc<Vec<usize>> },
    /// avg_pool2d.
    Avg,
    /// avg_pool2d's VJP: each gradient spread evenly over its window.
    AvgSpread,
}

impl Recorder {
    /// `conv2d(x, w)` with the given window (NHWC).
    ///
    /// Shapes: x [n, h, w, c], w [kh, kw, c, oc] → [n, oh, ow, oc].
    /// Gradient: x̄ = BI(ȳ, w), w̄ = BF(x, ȳ) (both recorded).
    /// Errors: ShapeError naming both shapes; TypeError for non-float or mixed dtypes.
    pub fn conv2d(&mut self, x: &Tensor, w: &Tensor, win: Window) -> R<Tensor> {
        let geom = Geom::conv(x.shape(), w.shape(), win)?;
        self.conv_op(ConvKind::Forward, geom, x, w)
    }

    /// `conv2d_transpose(x, w)`: the transposed convolution (TF's Conv2DBackpropInput) of x
    /// `[n, oh, ow, oc]` by w `[kh, kw, c, oc]` into `output_shape` `[n, h, w, c]`, the input
    /// of the forward convolution with this window whose output has x's shape.
    ///
    /// Shapes: x [n, oh, ow, oc], w [kh, kw, c, oc] → output_shape.
    /// Gradient: x̄ = conv2d(ȳ, w), w̄ = BF(ȳ, x) (both recorded).
    /// Errors: ShapeError when the forward convolution of `output_shape` would not give x's
    /// shape, or the filters' output channels differ from x's channels.
    pub fn conv2d_transpose(&mut self, x: &Tensor, w: &Tensor, output_shape: &[usize], win: Window) -> R<Tensor> {
        let geom = Geom::conv(output_shape, w.shape(), win)?;
        let expected = geom.out_shape();
        if x.shape() != expected.as_slice() {
            bail!(
                Shape,
                "conv2d_transpose: an output of shape {} convolved by filters of shape {} gives shape {}, but the input has shape {}",
                crate::tensor::shape_str(output_shape),
                crate::tensor::shape_str(w.shape()),
                crate::tensor::shape_str(&expected),
                crate::tensor::shape_str(x.shape())
            );
        }
        self.conv_op(ConvKind::BackpropInput, geom, x, w)
    }

    /// Runs and records one of the three bilinear operations on `a`, `b`.
    pub(crate) fn conv_op(&mut self, kind: ConvKind, geom: Geom, a: &Tensor, b: &Tensor) -> R<Tensor> {
        let out = Tensor::new(match kind {
            ConvKind::Forward => conv::conv2d(&a.data, &b.data, &geom)?,
            ConvKind::BackpropInput => conv::conv2d_backprop_input(&a.data, &b.data, &geom)?,
            ConvKind::BackpropFilter => conv::conv2d_backprop_filter(&a.data, &b.data, &geom)?,
        });
        self.record(&[a, b], &[&out], || Op::Conv { kind, geom: Box::new(geom), a: a.clone(), b: b.clone() });
        Ok(out)
    }

    /// `max_pool2d(x)` over `kh × kw` windows.
    ///
    /// Shapes: x [n, h, w, c] → [n, oh, ow, c].
    /// Gradient: each upstream value goes to its window's maximum, the first in row-major
    /// window order on ties (TF's CPU kernel); the positions are fixed, so the second
    /// derivative with respect to x is zero (TF's MaxPoolGradGrad).
    /// Errors: ShapeError for a rank other than 4 or a window that does not fit.
    pub fn max_pool2d(&mut self, x: &Tensor, k: (usize, usize), win: Window) -> R<Tensor> {
        let geom = Geom::pool("max_pool2d", x.shape(), k, win)?;
        let (out, argmax) = conv::max_pool(&x.data, &geom)?;
        let out = Tensor::new(out);
        self.record(&[x], &[&out], || Op::Pool {
            kind: PoolKind::MaxGather { argmax: Rc::new(argmax) },
            geom: Box::new(geom),
        });
        Ok(out)
    }

    /// `avg_pool2d(x)` over `kh × kw` windows, each mean over the input elements inside the
    /// window (SAME padding is not counted, as TF).
    ///
    /// Shapes: x [n, h, w, c] → [n, oh, ow, c].
    /// Gradient: each upstream value spread evenly over its window.
    /// Errors: ShapeError for a rank other than 4 or a window that does not fit.
    pub fn avg_pool2d(&mut self, x: &Tensor, k: (usize, usize), win: Window) -> R<Tensor> {
        let geom = Geom::pool("avg_pool2d", x.shape(), k, win)?;
        self.pool_op(PoolKind::Avg, geom, x)
    }

    /// Runs and records one of the linear pooling operations on `x`.
    pub(crate) fn pool_op(&mut self, kind: PoolKind, geom: Geom, x: &Tensor) -> R<Tensor> {
        let out = Tensor::new(match &kind {
            PoolKind::MaxGather { argmax } => conv::max_pool_gather(&x.data, argmax, &geom.out_shape())?,
            PoolKind::MaxScatter { argmax } => conv::max_pool_scatter(&x.data, argmax, &geom.in_shape())?,
            PoolKind::Avg => conv::avg_pool(&x.data, &geom)?,
            PoolKind::AvgSpread => conv::avg_pool_grad(&x.data, &geom)?,
        });
        self.record(&[x], &[&out], || Op::Pool { kind, geom: Box::new(geom) });
        Ok(out)
    }

    /// The VJPs of this family: one gradient per input.
    pub(super) fn conv_vjp(&mut self, op: &Op, upstream: &[Tensor], needed: &[bool]) -> R<InputGrads> {
        let g = &upstream[0];
        let want = |i: usize| needed.get(i).copied().unwrap_or(false);
        Ok(match op {
            Op::Conv { kind, geom, a, b } => {
                let geom = **geom;
                let (mut ga, mut gb) = (None, None);
                match kind {
                    // y = C(x, w): x̄ = BI(ȳ, w), w̄ = BF(x, ȳ)
                    ConvKind::Forward => {
                        if want(0) {
                            ga = Some(self.conv_op(ConvKind::BackpropInput, geom, g, b)?);
                        }
                        if want(1) {
                            gb = Some(self.conv_op(ConvKind::BackpropFilter, geom, a, g)?);
                        }
                    }
                    // z = BI(dy, w), z̄ input-shaped: d̄y = C(z̄, w), w̄ = BF(z̄, dy)
                    ConvKind::BackpropInput => {
                        if want(0) {
                            ga = Some(self.conv_op(ConvKind::Forward, geom, g, b)?);
                        }
                        if want(1) {
                            gb = Some(self.conv_op(ConvKind::BackpropFilter, geom, g, a)?);
                        }
                    }
                    // z = BF(x, dy), z̄ filter-shaped: x̄ = BI(dy, z̄), d̄y = C(x, z̄)
                    ConvKind::BackpropFilter => {
                        if want(0) {
                            ga = Some(self.conv_op(ConvKind::BackpropInput, geom, b, g)?);
                        }
                        if want(1) {
                            gb = Some(self.conv_op(ConvKind::Forward, geom, a, g)?);
                        }
                    }
                }
                smallvec![ga, gb]
            }
            // Each linear pooling op's VJP is its adjoint.
            Op::Pool { kind, geom } => {
                let adjoint = match kind {
                    PoolKind::MaxGather { argmax } => PoolKind::MaxScatter { argmax: argmax.clone() },
                    PoolKind::MaxScatter { argmax } => PoolKind::MaxGather { argmax: argmax.clone() },
                    PoolKind::Avg => PoolKind::AvgSpread,
                    PoolKind::AvgSpread => PoolKind::Avg,
                };
                smallvec![Some(self.pool_op(adjoint, **geom, g)?)]
            }
            _ => bail!(Runtime, "internal error: {op:?} is not a convolution or pooling operation"),
        })
    }
}

impl Recorder {
    /// Forward mode: the three convolutions are bilinear, so the tangent is
    /// C(ta, b) + C(a, tb) with the same geometry; the pools are linear in their input
    /// (max pooling through the saved argmax), so it is the pool of the tangent.
    pub(super) fn conv_jvp(&mut self, op: &Op, ts: &[Option<Tensor>]) -> R<Tangents> {
        let t = |i: usize| ts.get(i).and_then(Option::as_ref);
        Ok(smallvec![match op {
            Op::Conv { kind, geom, a, b } => {
                let left = t(0).map(|ta| self.conv_op(*kind, **geom, ta, b)).transpose()?;
                let right = t(1).map(|tb| self.conv_op(*kind, **geom, a, tb)).transpose()?;
                match (left, right) {
                    (Some(x), Some(y)) => Some(self.add(&x, &y)?),
                    (x, y) => x.or(y),
                }
            }
            Op::Pool { kind, geom } => t(0).map(|tx| self.pool_op(kind.clone(), **geom, tx)).transpose()?,
            _ => bail!(Runtime, "internal error: {op:?} is not a convolution or pooling operation"),
        }])
    }
}
