//! Neural-network operations: softmax, log_softmax and the sparse softmax cross-entropy,
//! forward and VJP; the activation functions ([`Activation`]), composed of recorded elementwise
//! operations.

use crate::autodiff::forward::Tangents;
use crate::autodiff::recorder::{InputGrads, Recorder};
use crate::autodiff::tape::Op;
use crate::bail;
use crate::error::R;
use crate::tensor::kernels::{self, Binary, Compare, Reduce, Unary};
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
        let idx: Vec<i64> = labels.data.cast(DType::I64).to_i64_vec()?;
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
        // Recorded for an observer that sees every op too (a running determinism check: the
        // forward pass it checks runs with the tapes paused, its recomputation under a tape).
        if self.any_watched(&[logits]) || self.has_tangent(logits.id) || self.observer_wants_ops() {
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

    /// The JVP rules of this family (forward mode): `ts` has one tangent per input, the result
    /// one per output.
    pub(super) fn nn_jvp(&mut self, op: &Op, ts: &[Option<Tensor>]) -> R<Tangents> {
        Ok(match op {
            // softmax: y (t − Σ t·y);  log_softmax: t − Σ softmax·t
            Op::Softmax { y, axis, log } => {
                let Some(t) = ts.first().and_then(Option::as_ref) else { return Ok(smallvec![None]) };
                let ax = [*axis as i64];
                if *log {
                    let p = self.unary(Unary::Exp, y)?;
                    let pt = self.mul(&p, t)?;
                    let s = self.reduce(Reduce::Sum, &pt, Some(&ax), true)?;
                    smallvec![Some(self.binary(Binary::Sub, t, &s)?)]
                } else {
                    let ty = self.mul(t, y)?;
                    let s = self.reduce(Reduce::Sum, &ty, Some(&ax), true)?;
                    let d = self.binary(Binary::Sub, t, &s)?;
                    smallvec![Some(self.mul(y, &d)?)]
                }
            }
            // loss = −log p_label: d loss = Σ (p − one_hot)·t = Σ backprop·t over the classes;
            // the backprop output p − one_hot moves as the softmax: p (t − Σ p·t).
            Op::SparseXent { backprop, labels } => {
                let Some(t) = ts.get(1).and_then(Option::as_ref) else { return Ok(smallvec![None, None]) };
                let bt = self.mul(backprop, t)?;
                let dloss = self.reduce(Reduce::Sum, &bt, Some(&[-1]), false)?;
                let classes = backprop.shape().last().copied().unwrap_or(1);
                let mut p = backprop.data.to_f64_vec();
                for (row, &k) in labels.iter().enumerate() {
                    p[row * classes + k] += 1.0;
                }
                let p = Tensor::new(Array::from_f64(backprop.dtype(), backprop.shape(), p));
                let pt = self.mul(&p, t)?;
                let s = self.reduce(Reduce::Sum, &pt, Some(&[-1]), true)?;
                let d = self.binary(Binary::Sub, t, &s)?;
                smallvec![Some(dloss), Some(self.mul(&p, &d)?)]
            }
            _ => bail!(Runtime, "internal error: {op:?} is not a nn operation"),
        })
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

/// The activation functions that are compositions of recorded elementwise operations
/// ([`Recorder::activation`]). Their VJPs are those of the parts, so second derivatives
/// come for free; each composition is written so that its gradient at the kinks is TF's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    /// `x` where x > 0, else `alpha·x`.
    LeakyRelu(f64),
    /// `x` where x ≥ 0, else `eˣ − 1`.
    Elu,
    /// `scale·x` where x ≥ 0, else `scale·alpha·(eˣ − 1)` (Klambauer et al.'s constants).
    Selu,
    /// `½x(1 + erf(x/√2))`; approximate: `½x(1 + tanh(√(2/π)(x + 0.044715x³)))`.
    Gelu { approximate: bool },
    /// `x·σ(beta·x)` (swish; silu is beta = 1).
    Swish(f64),
    /// `x / (1 + |x|)`.
    Softsign,
    /// `min(max(x, 0), 6)`.
    Relu6,
    /// `log σ(x) = −softplus(−x)`.
    LogSigmoid,
}

impl Activation {
    /// The builtin's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Activation::LeakyRelu(_) => "leaky_relu",
            Activation::Elu => "elu",
            Activation::Selu => "selu",
            Activation::Gelu { .. } => "gelu",
            Activation::Swish(_) => "swish",
            Activation::Softsign => "softsign",
            Activation::Relu6 => "relu6",
            Activation::LogSigmoid => "log_sigmoid",
        }
    }
}

/// SELU's scale and alpha (Klambauer et al. 2017, to float64 precision).
const SELU_SCALE: f64 = 1.0507009873554805;
const SELU_ALPHA: f64 = 1.6732632423543772;

impl Recorder {
    /// `act(x)` elementwise, recorded as its parts.
    ///
    /// Shapes: x's. Dtypes: float32, float64; the result has x's dtype.
    /// Gradient: through the parts; at the kinks TF's choice: leaky_relu's is alpha at 0,
    /// elu's 1 and selu's scale at 0, relu6's 0 at 0 and at 6. Where TF's first derivative
    /// is an op of x (leaky_relu, relu6), a recorded step keeps the second derivative zeros
    /// rather than None, as relu's (see `unary_vjp`).
    /// Errors: TypeError for an int64 or bool x.
    pub fn activation(&mut self, act: Activation, x: &Tensor) -> R<Tensor> {
        if !x.dtype().is_float() {
            bail!(Type, "{} needs a float tensor, got {} (use cast)", act.name(), x.dtype());
        }
        let dt = x.dtype();
        let zero = self.scalar(dt, 0.0);
        // `where(x < 0, neg(x), pos(x))`, with the negative branch evaluated at min(x, 0) so
        // that exp never overflows there: a taken-nowhere inf would make its gradient 0·inf = NaN.
        let exp_branch = |rt: &mut Recorder, scale: f64, scale_neg: f64| -> R<Tensor> {
            let neg = Tensor::new(kernels::compare(Compare::Lt, &x.data, &zero.data)?);
            let m = rt.binary(Binary::Minimum, x, &zero)?;
            let e = rt.unary(Unary::Exp, &m)?;
            let one = rt.scalar(dt, 1.0);
            let em1 = rt.binary(Binary::Sub, &e, &one)?;
            let (n, p) = if scale_neg == 1.0 {
                (em1, x.clone())
            } else {
                (rt.mul_scalar(&em1, scale_neg)?, rt.mul_scalar(x, scale)?)
            };
            rt.where_(&neg, &n, &p)
        };
        match act {
            Activation::LeakyRelu(alpha) => {
                // x · where(x > 0, step(x), alpha): x·1 and x·alpha are the exact values.
                let pos = Tensor::new(kernels::compare(Compare::Gt, &x.data, &zero.data)?);
                let step = self.unary(Unary::Step, x)?;
                let a = self.constant_like(x, alpha);
                let slope = self.where_(&pos, &step, &a)?;
                self.mul(x, &slope)
            }
            Activation::Elu => exp_branch(self, 1.0, 1.0),
            Activation::Selu => exp_branch(self, SELU_SCALE, SELU_SCALE * SELU_ALPHA),
            Activation::Gelu { approximate } => {
                let inner = if approximate {
                    // √(2/π)(x + 0.044715 x³), then tanh
                    let three = self.scalar(dt, 3.0);
                    let x3 = self.binary(Binary::Pow, x, &three)?;
                    let c = self.mul_scalar(&x3, 0.044715)?;
                    let s = self.add(x, &c)?;
                    let s = self.mul_scalar(&s, 0.7978845608028654)?;
                    self.unary(Unary::Tanh, &s)?
                } else {
                    let r2 = self.scalar(dt, std::f64::consts::SQRT_2);
                    let s = self.binary(Binary::Div, x, &r2)?;
                    self.unary(Unary::Erf, &s)?
                };
                let one = self.scalar(dt, 1.0);
                let t = self.add(&one, &inner)?;
                let h = self.mul_scalar(x, 0.5)?;
                self.mul(&h, &t)
            }
            Activation::Swish(beta) => {
                let bx = self.mul_scalar(x, beta)?;
                let s = self.unary(Unary::Sigmoid, &bx)?;
                self.mul(x, &s)
            }
            Activation::Softsign => {
                let a = self.unary(Unary::Abs, x)?;
                let one = self.scalar(dt, 1.0);
                let d = self.add(&a, &one)?;
                self.binary(Binary::Div, x, &d)
            }
            Activation::Relu6 => {
                // x·step(x) (that is, x) strictly inside (0, 6), else the clipped value as a
                // constant: the gradient is 1 inside and 0 at and beyond both ends (TF's Relu6Grad).
                let six = self.scalar(dt, 6.0);
                let above = kernels::compare(Compare::Gt, &x.data, &zero.data)?;
                let below = kernels::compare(Compare::Lt, &x.data, &six.data)?;
                let inside = Tensor::new(crate::tensor::activations::logical(
                    crate::tensor::activations::Logical::And,
                    &above,
                    &below,
                )?);
                let lo = kernels::binary(Binary::Maximum, &x.data, &zero.data)?;
                let clipped = Tensor::new(kernels::binary(Binary::Minimum, &lo, &six.data)?);
                let step = self.unary(Unary::Step, x)?;
                let xs = self.mul(x, &step)?;
                self.where_(&inside, &xs, &clipped)
            }
            Activation::LogSigmoid => {
                let n = self.unary(Unary::Neg, x)?;
                let sp = self.unary(Unary::Softplus, &n)?;
                self.unary(Unary::Neg, &sp)
            }
        }
    }
}
