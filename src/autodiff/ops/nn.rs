//! Neural-network operations: softmax, log_softmax and the sparse softmax cross-entropy,
//! forward and VJP.

use crate::autodiff::recorder::{InputGrads, Recorder};
use crate::autodiff::tape::Op;
use crate::bail;
use crate::error::R;
use crate::tensor::kernels::{self, Binary, Reduce, Unary};
use crate::tensor::shape::norm_axis;
use crate::tensor::{shape_str, Array, DType, Tensor};
use smallvec::smallvec;
use std::rc::Rc;

impl Recorder {
    /// `softmax(x, axis)` / `log_softmax(x, axis)`.
    pub fn softmax(&mut self, x: &Tensor, axis: i64, log: bool) -> R<Tensor> {
        let axis = norm_axis(axis, x.shape().len())?;
        let out = Tensor::new(kernels::softmax(&x.data, axis, log)?);
        self.record(&[x], &[&out], || Op::Softmax { y: out.clone(), axis, log });
        Ok(out)
    }

    /// `sparse_softmax_cross_entropy_with_logits(labels, logits)`.
    ///
    /// Shapes: labels [...] int, logits [..., classes] → loss [...].
    /// Gradient: softmax(logits) − one_hot(labels) times the upstream gradient, saved at forward
    /// time as TF does; the saved tensor is a second output of the op whose own gradient is the
    /// softmax's, so second derivatives agree with TF.
    /// Errors: ShapeError when the leading shapes differ; ValueError for a label out of range.
    pub fn sparse_xent(&mut self, labels: &Tensor, logits: &Tensor) -> R<Tensor> {
        let ls = logits.shape();
        if ls.is_empty() || labels.shape() != &ls[..ls.len() - 1] {
            bail!(
                Shape,
                "labels of shape {} do not match logits of shape {}",
                shape_str(labels.shape()),
                shape_str(ls)
            );
        }
        let classes = ls[ls.len() - 1];
        let idx: Vec<i64> = labels.data.cast(DType::I64).to_f64_vec().into_iter().map(|v| v as i64).collect();
        if let Some(bad) = idx.iter().find(|&&k| k < 0 || k as usize >= classes) {
            bail!(Value, "label {bad} is out of range for {classes} classes");
        }
        let logp = kernels::softmax(&logits.data, ls.len() - 1, true)?;
        let lp = logp.to_f64_vec();
        let loss: Vec<f64> = idx.iter().enumerate().map(|(i, &k)| -lp[i * classes + k as usize]).collect();
        let out = Tensor::new(Array::from_f64(logits.dtype(), labels.shape(), loss));
        if !self.capture_probes.is_empty() {
            self.probe(&[logits.id]);
        }
        if self.any_watched(&[logits]) {
            let mut bp: Vec<f64> = lp.iter().map(|v| v.exp()).collect();
            for (i, &k) in idx.iter().enumerate() {
                bp[i * classes + k as usize] -= 1.0;
            }
            let backprop = Tensor::new(Array::from_f64(logits.dtype(), ls, bp));
            // The saved backprop is the op's second output, as in TF, so that a tape recording
            // the backward pass reaches the logits through it (second derivatives).
            let labels = Rc::new(idx.iter().map(|&k| k as usize).collect());
            self.record_ids(&[0, logits.id], &[&out, &backprop], || Op::SparseXent {
                backprop: backprop.clone(),
                labels,
            });
        }
        Ok(out)
    }

    /// The VJPs of this family: `upstream` has one gradient per output (zeros filled in),
    /// `needed[i]` says whether input i wants a gradient; one gradient per input.
    pub(super) fn nn_vjp(&mut self, op: &Op, upstream: &[Tensor], needed: &[bool]) -> R<InputGrads> {
        let g = &upstream[0];
        let _want = |i: usize| needed.get(i).copied().unwrap_or(false);
        Ok(match op {
            // softmax: (g − Σ g·y) · y;  log_softmax: g − softmax · Σ g
            Op::Softmax { y, axis, log } => {
                let ax = [*axis as i64];
                if *log {
                    let s = self.reduce(Reduce::Sum, g, Some(&ax), true)?;
                    let p = self.unary(Unary::Exp, y)?;
                    let t = self.mul(&p, &s)?;
                    smallvec![Some(self.binary(Binary::Sub, g, &t)?)]
                } else {
                    let gy = self.mul(g, y)?;
                    let s = self.reduce(Reduce::Sum, &gy, Some(&ax), true)?;
                    let d = self.binary(Binary::Sub, g, &s)?;
                    smallvec![Some(self.mul(&d, y)?)]
                }
            }
            // d loss / d logits = (softmax − one_hot) · g[..., None]; the backprop output's
            // upstream gb adds the softmax VJP, (gb − Σ gb·p) · p with p = softmax(logits).
            Op::SparseXent { backprop, labels } => {
                let mut s = g.shape().to_vec();
                s.push(1);
                let gk = self.reshape_to(g, &s)?;
                let mut grad = self.mul(&gk, backprop)?;
                if let Some(gb) = upstream.get(1).filter(|gb| !gb.data.to_f64_vec().iter().all(|v| *v == 0.0)) {
                    let classes = backprop.shape().last().copied().unwrap_or(1);
                    let mut p = backprop.data.to_f64_vec();
                    for (row, &k) in labels.iter().enumerate() {
                        p[row * classes + k] += 1.0;
                    }
                    let p = Tensor::new(crate::tensor::Array::from_f64(backprop.dtype(), backprop.shape(), p));
                    let gp = self.mul(gb, &p)?;
                    let sum = self.reduce(Reduce::Sum, &gp, Some(&[-1]), true)?;
                    let d = self.binary(Binary::Sub, gb, &sum)?;
                    let term = self.mul(&d, &p)?;
                    grad = self.add(&grad, &term)?;
                }
                smallvec![None, Some(grad)]
            }
            _ => bail!(Runtime, "internal error: {op:?} is not a nn operation"),
        })
    }
}
