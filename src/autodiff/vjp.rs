//! Vector-Jacobian products, one per [`Op`] (methods of the [`Recorder`]; the
//! user-code VJPs of `custom_gradient` and `recompute_grad` go through the [`Host`](super::recorder::Host)). Each is written with the
//! recording operations of `ops.rs`, so a tape active during the backward
//! pass records it (higher-order gradients). `g` is the upstream gradient;
//! each rule returns one gradient per input (`None`: no gradient).

use super::ops::axis_slice;
use super::tape::{Entry, Op};
use crate::runtime::error::R;
use super::recorder::{InputGrads, Recorder};
use crate::bail;
use smallvec::smallvec;
use crate::tensor::kernels::{Binary, Compare, Reduce, Unary};
use crate::tensor::shape::reduced_shape;
use crate::tensor::{kernels, Tensor};
use ndarray::SliceInfoElem;

impl Recorder {
    /// `q` where the upstream gradient `g` is non-zero, else 0: the rule of TF's "safe"
    /// gradient kernels (SqrtGrad, RsqrtGrad, ReciprocalGrad), recorded for higher order.
    fn zero_where_upstream_is(&mut self, g: &Tensor, q: Tensor) -> R<Tensor> {
        let zero = self.scalar(g.dtype(), 0.0);
        let is_zero = Tensor::new(kernels::compare(Compare::Eq, &g.data, &zero.data)?);
        let zeros = Tensor::zeros(q.dtype(), q.shape());
        self.where_(&is_zero, &zeros, &q)
    }

    /// Runs the backward step of `entry`. `upstream` has one gradient per output
    /// (zeros already filled in); `needed[i]` says whether input i wants a gradient.
    pub fn vjp(&mut self, entry: &Entry, upstream: Vec<Tensor>, needed: &[bool]) -> R<InputGrads> {
        let g = &upstream[0];
        let want = |i: usize| needed.get(i).copied().unwrap_or(false);
        Ok(match &*entry.op {
            // d(a ± b) = da ± db, summed back over broadcast axes.
            Op::AddSub { sub, a_shape, b_shape } => {
                let ga = if want(0) { Some(self.sum_to_shape(g, a_shape)?) } else { None };
                let gb = if want(1) {
                    let gb = if *sub { self.unary(Unary::Neg, g)? } else { g.clone() };
                    Some(self.sum_to_shape(&gb, b_shape)?)
                } else {
                    None
                };
                smallvec![ga, gb]
            }
            Op::Binary { op, a, b } => {
                let (ga, gb) = match op {
                    // d(ab) = b da + a db
                    Binary::Mul => (
                        if want(0) { Some(self.mul(g, b)?) } else { None },
                        if want(1) { Some(self.mul(g, a)?) } else { None },
                    ),
                    // d(a/b) = da / b − a db / b²
                    Binary::Div => (
                        if want(0) { Some(self.binary(Binary::Div, g, b)?) } else { None },
                        if want(1) {
                            let t = self.mul(g, a)?;
                            let bb = self.mul(b, b)?;
                            let q = self.binary(Binary::Div, &t, &bb)?;
                            Some(self.unary(Unary::Neg, &q)?)
                        } else {
                            None
                        },
                    ),
                    // maximum: the gradient goes to a where a >= b, else to b (TF's tie rule);
                    // minimum: to a where a <= b.
                    Binary::Maximum | Binary::Minimum => {
                        let cmp = if *op == Binary::Maximum { Compare::Ge } else { Compare::Le };
                        let mask = Tensor::new(kernels::compare(cmp, &a.data, &b.data)?.cast(g.dtype()));
                        let ga = self.mul(g, &mask)?;
                        let gb = self.binary(Binary::Sub, g, &ga)?;
                        (Some(ga), Some(gb))
                    }
                    // a mod b = a − floor(a/b)·b, floor's derivative being 0 (TF's FloorMod):
                    // d = da − floor(a/b) db
                    Binary::Mod => (
                        if want(0) { Some(g.clone()) } else { None },
                        if want(1) {
                            let q = self.binary(Binary::FloorDiv, a, b)?;
                            let t = self.mul(g, &q)?;
                            Some(self.unary(Unary::Neg, &t)?)
                        } else {
                            None
                        },
                    ),
                    _ => (None, None),
                };
                let ga = match ga {
                    Some(t) => Some(self.sum_to_shape(&t, a.shape())?),
                    None => None,
                };
                let gb = match gb {
                    Some(t) => Some(self.sum_to_shape(&t, b.shape())?),
                    None => None,
                };
                smallvec![ga, gb]
            }
            // d(a^b) = b a^(b−1) da + a^b log(a) db   (log taken as 0 where a <= 0, as TF)
            Op::Pow { a, b, out } => {
                let ga = if want(0) {
                    let one = self.scalar(b.dtype(), 1.0);
                    let bm1 = self.binary(Binary::Sub, b, &one)?;
                    let p = self.binary(Binary::Pow, a, &bm1)?;
                    let t = self.mul(b, &p)?;
                    let t = self.mul(g, &t)?;
                    Some(self.sum_to_shape(&t, a.shape())?)
                } else {
                    None
                };
                let gb = if want(1) {
                    let zero = self.constant_like(a, 0.0);
                    let pos = Tensor::new(kernels::compare(Compare::Gt, &a.data, &zero.data)?);
                    let one = self.constant_like(a, 1.0);
                    let safe = self.where_(&pos, a, &one)?;
                    let la = self.unary(Unary::Log, &safe)?;
                    let la = self.where_(&pos, &la, &zero)?;
                    let t = self.mul(out, &la)?;
                    let t = self.mul(g, &t)?;
                    Some(self.sum_to_shape(&t, b.shape())?)
                } else {
                    None
                };
                smallvec![ga, gb]
            }
            Op::Unary { op, saved } => smallvec![Some(self.unary_vjp(*op, saved.as_ref(), g)?)],
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
            Op::Reshape { in_shape } => smallvec![Some(self.reshape_to(g, in_shape)?)],
            Op::Transpose { perm } => {
                let mut inv = vec![0i64; perm.len()];
                for (i, &p) in perm.iter().enumerate() {
                    inv[p] = i as i64;
                }
                smallvec![Some(self.transpose(g, Some(inv))?)]
            }
            Op::Concat { axis, sizes } => {
                let mut out = InputGrads::with_capacity(sizes.len());
                let mut start = 0isize;
                for &n in sizes {
                    let info = axis_slice(
                        g.shape().len(),
                        *axis,
                        SliceInfoElem::Slice { start, end: Some(start + n as isize), step: 1 },
                    );
                    out.push(Some(self.index(g, info)?));
                    start += n as isize;
                }
                out
            }
            Op::Stack { axis, n } => {
                let mut out = InputGrads::with_capacity(*n);
                for i in 0..*n {
                    let info = axis_slice(g.shape().len(), *axis, SliceInfoElem::Index(i as isize));
                    out.push(Some(self.index(g, info)?));
                }
                out
            }
            Op::Index { in_shape, info } => smallvec![Some(self.index_grad(g, in_shape, info.clone())?)],
            // tile: view g as [m0, d0, m1, d1, …] and sum over the m axes.
            Op::Tile { in_shape, multiples } => {
                let mut split = Vec::with_capacity(2 * in_shape.len());
                for (&d, &m) in in_shape.iter().zip(multiples) {
                    split.extend([m, d]);
                }
                let gs = self.reshape_to(g, &split)?;
                let axes: Vec<i64> = (0..in_shape.len()).map(|i| 2 * i as i64).collect();
                let summed = self.reduce(Reduce::Sum, &gs, Some(&axes), false)?;
                smallvec![Some(self.reshape_to(&summed, in_shape)?)]
            }
            Op::IndexGrad { info } => smallvec![Some(self.index(g, info.clone())?)],
            Op::Gather { in_shape, axis, indices, idx_shape } => {
                smallvec![Some(self.gather_grad(g, in_shape, *axis, indices.clone(), idx_shape)?)]
            }
            Op::GatherGrad { axis, indices, idx_shape } => {
                smallvec![Some(self.gather(g, indices.clone(), idx_shape, *axis)?)]
            }
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
            Op::Cast { from } => smallvec![Some(self.cast(g, *from)?)],
            Op::Identity => smallvec![Some(g.clone())],
            Op::BroadcastTo { in_shape } => smallvec![Some(self.sum_to_shape(g, in_shape)?)],
            // where: g to a where cond, to b elsewhere.
            Op::Where { cond, a_shape, b_shape } => {
                let zero = self.constant_like(g, 0.0);
                let ga = self.where_(cond, g, &zero)?;
                let gb = self.where_(cond, &zero, g)?;
                smallvec![Some(self.sum_to_shape(&ga, a_shape)?), Some(self.sum_to_shape(&gb, b_shape)?)]
            }
            // User code runs through the host (backward.rs), never here.
            Op::Custom(_) | Op::Recompute(_) => bail!(Runtime, "internal error: a user-code VJP reached the recorder"),
            // Identity gradient to each tensor input (upstream i to input i).
            Op::PassThrough => (0..entry.inputs.len()).map(|i| upstream.get(i).cloned()).collect(),
        })
    }

    fn unary_vjp(&mut self, op: Unary, saved: Option<&Tensor>, g: &Tensor) -> R<Tensor> {
        let s = || saved.cloned().expect("saved tensor recorded for this op");
        match op {
            Unary::Neg => self.unary(Unary::Neg, g),
            // d|x| = sign(x) dx (0 at 0, as TF)
            Unary::Abs => {
                let sg = self.unary(Unary::Sign, &s())?;
                self.mul(g, &sg)
            }
            // d e^x = e^x dx (y saved)
            Unary::Exp => self.mul(g, &s()),
            // d log x = dx / x
            Unary::Log => self.binary(Binary::Div, g, &s()),
            // d log(1+x) = dx / (1+x)
            Unary::Log1p => {
                let one = self.scalar(g.dtype(), 1.0);
                let d = self.add(&s(), &one)?;
                self.binary(Binary::Div, g, &d)
            }
            // d √x = dx / (2 √x) (y saved; inf at 0, as TF). A zero upstream gives zero even
            // where √x is 0 or NaN (TF's SqrtGrad): `where(x > 0, sqrt(x), …)` stays finite.
            Unary::Sqrt => {
                let two_y = self.mul_scalar(&s(), 2.0)?;
                let q = self.binary(Binary::Div, g, &two_y)?;
                self.zero_where_upstream_is(g, q)
            }
            // d x² = 2x dx
            Unary::Square => {
                let t = self.mul_scalar(&s(), 2.0)?;
                self.mul(g, &t)
            }
            // d sin x = cos x dx
            Unary::Sin => {
                let c = self.unary(Unary::Cos, &s())?;
                self.mul(g, &c)
            }
            // d cos x = −sin x dx
            Unary::Cos => {
                let sn = self.unary(Unary::Sin, &s())?;
                let t = self.mul(g, &sn)?;
                self.unary(Unary::Neg, &t)
            }
            // d tan x = dx / cos² x
            Unary::Tan => {
                let c = self.unary(Unary::Cos, &s())?;
                let c2 = self.mul(&c, &c)?;
                self.binary(Binary::Div, g, &c2)
            }
            // d tanh x = (1 − y²) dx
            Unary::Tanh => {
                let y = s();
                let y2 = self.mul(&y, &y)?;
                let one = self.scalar(g.dtype(), 1.0);
                let d = self.binary(Binary::Sub, &one, &y2)?;
                self.mul(g, &d)
            }
            // d σ(x) = y (1 − y) dx
            Unary::Sigmoid => {
                let y = s();
                let one = self.scalar(g.dtype(), 1.0);
                let d = self.binary(Binary::Sub, &one, &y)?;
                let d = self.mul(&y, &d)?;
                self.mul(g, &d)
            }
            // d relu = [y > 0] dx (0 at 0, as TF). The step is recorded (its own gradient is
            // zero), so a second derivative through relu is zeros, not None: TF's ReluGrad is
            // an op of the output in the same way, and Hessians of ReLU networks are zeros there.
            Unary::Relu => {
                let step = self.unary(Unary::Step, &s())?;
                self.mul(g, &step)
            }
            // d softplus = σ(x) dx
            Unary::Softplus => {
                let sg = self.unary(Unary::Sigmoid, &s())?;
                self.mul(g, &sg)
            }
            // d(1/x) = −dx / x²
            // d (1/x) = −dx / x², zero for a zero upstream (TF's ReciprocalGrad).
            Unary::Reciprocal => {
                let x = s();
                let x2 = self.mul(&x, &x)?;
                let q = self.binary(Binary::Div, g, &x2)?;
                let q = self.unary(Unary::Neg, &q)?;
                self.zero_where_upstream_is(g, q)
            }
            Unary::Sign | Unary::Step => Ok(self.constant_like(g, 0.0)),
        }
    }

    /// `x @ y` with the last two axes of `x` (`tx`) or `y` (`ty`) swapped. When nothing records
    /// it (no tape watches an input, no capture probe listens) and both are 2-D floats, the
    /// kernel reads the transposes through strides; otherwise they are recorded operations.
    fn matmul_transposed(&mut self, x: &Tensor, y: &Tensor, tx: bool, ty: bool) -> R<Tensor> {
        if self.capture_probes.is_empty() && !self.any_watched(&[x, y]) {
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
