//! Reductions and broadcasting (each the other's VJP), running sums and products,
//! and the composites built on them (variance, norms, clipping by norm), forward and VJP.

use crate::autodiff::forward::Tangents;
use crate::autodiff::recorder::{InputGrads, Recorder};
use crate::autodiff::tape::{Dims, Op};
use crate::bail;
use crate::error::R;
use crate::tensor::kernels::Unary;
use crate::tensor::kernels::{self, Binary, Compare, Reduce};
use crate::tensor::reductions::{self, Running};
use crate::tensor::shape::{broadcast_axes, norm_axis, reduce_axes, reduced_shape};
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

    /// `reduce_prod(x, axis, keepdims)`: product over `axes` (`None`: all), float64 accumulation.
    pub fn reduce_prod(&mut self, x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> R<Tensor> {
        let axes = reduce_axes(axes, x.shape().len())?;
        let out = Tensor::new(reductions::reduce_prod(&x.data, &axes, keepdims)?);
        if out.dtype().is_float() {
            self.record(&[x], &[&out], || Op::ReduceProd { x: x.clone(), axes: axes.clone() });
        }
        Ok(out)
    }

    /// `cumsum` / `cumprod` of `x` along `axis` (see [`reductions::cumulative`]).
    pub fn cumulative(&mut self, op: Running, x: &Tensor, axis: i64, exclusive: bool, reverse: bool) -> R<Tensor> {
        let axis = norm_axis(axis, x.shape().len())?;
        let out = Tensor::new(reductions::cumulative(op, &x.data, axis, exclusive, reverse)?);
        if out.dtype().is_float() {
            self.record(&[x], &[&out], || match op {
                Running::Sum => Op::Cumsum { axis, exclusive, reverse },
                Running::Prod => Op::Cumprod { x: x.clone(), out: out.clone(), axis, exclusive, reverse },
            });
        }
        Ok(out)
    }

    /// For each element of `x`, the product of the other elements of its group over
    /// `axes`, without dividing (so zeros are exact): the reduced axes are moved last
    /// and flattened, and an exclusive running product from the left is multiplied by
    /// one from the right.
    fn product_of_others(&mut self, x: &Tensor, axes: &[usize]) -> R<Tensor> {
        let nd = x.shape().len();
        let kept: Vec<usize> = (0..nd).filter(|a| !axes.contains(a)).collect();
        let perm: Vec<usize> = kept.iter().chain(axes).copied().collect();
        let xt = self.transpose(x, Some(perm.iter().map(|&a| a as i64).collect()))?;
        let moved = xt.shape().to_vec();
        let mut flat: Vec<usize> = kept.iter().map(|&a| x.shape()[a]).collect();
        flat.push(axes.iter().map(|&a| x.shape()[a]).product());
        let xf = self.reshape_to(&xt, &flat)?;
        let last = flat.len() as i64 - 1;
        let left = self.cumulative(Running::Prod, &xf, last, true, false)?;
        let right = self.cumulative(Running::Prod, &xf, last, true, true)?;
        let others = self.mul(&left, &right)?;
        let others = self.reshape_to(&others, &moved)?;
        let mut inv = vec![0i64; nd];
        for (i, &p) in perm.iter().enumerate() {
            inv[p] = i as i64;
        }
        self.transpose(&others, Some(inv))
    }

    /// Float inputs only, for the composites whose results are means or roots.
    fn require_float(x: &Tensor, what: &str) -> R<()> {
        if !x.dtype().is_float() {
            bail!(Type, "{what} takes a float tensor, not {} (use cast)", x.dtype());
        }
        Ok(())
    }

    /// `reduce_variance(x, axis, keepdims)`: the mean of (x − mean(x))² over `axes`
    /// (population variance), recorded as those operations.
    pub fn variance(&mut self, x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> R<Tensor> {
        Self::require_float(x, "reduce_variance")?;
        let m = self.reduce(Reduce::Mean, x, axes, true)?;
        let d = self.binary(Binary::Sub, x, &m)?;
        let d2 = self.unary(Unary::Square, &d)?;
        self.reduce(Reduce::Mean, &d2, axes, keepdims)
    }

    /// `moments(x, axes, keepdims)`: `(mean, variance)` over `axes`. Unlike TF, whose variance
    /// stops the gradient through the mean, the variance is [`Recorder::variance`]: first
    /// derivatives agree, and second derivatives are the true ones.
    pub fn moments(&mut self, x: &Tensor, axes: &[i64], keepdims: bool) -> R<(Tensor, Tensor)> {
        Self::require_float(x, "moments")?;
        let mean = self.reduce(Reduce::Mean, x, Some(axes), keepdims)?;
        let var = self.variance(x, Some(axes), keepdims)?;
        Ok((mean, var))
    }

    /// `norm(x, ord, axis, keepdims)`: a vector norm over `axes` (one axis, or all of them
    /// flattened), or with two axes a matrix norm (rows on the first, columns on the second).
    pub fn norm(&mut self, x: &Tensor, ord: NormOrd, axes: Option<&[i64]>, keepdims: bool) -> R<Tensor> {
        Self::require_float(x, "norm")?;
        let nd = x.shape().len();
        let matrix = matches!(axes, Some(a) if a.len() == 2);
        if matrix {
            let a = axes.unwrap_or_default();
            let (r, c) = (norm_axis(a[0], nd)?, norm_axis(a[1], nd)?);
            if r == c {
                bail!(Value, "norm: the two axes of a matrix norm must differ, got ({}, {})", a[0], a[1]);
            }
            // ord=1: the largest column sum of |x|; ord=inf: the largest row sum.
            let (sum_axis, max_axis) = match ord {
                NormOrd::Euclidean => return self.euclidean(x, axes, keepdims),
                NormOrd::One => (r, c),
                NormOrd::Inf => (c, r),
                NormOrd::P(p) => {
                    bail!(Value, "norm: ord={p} is not a supported matrix norm (use 'fro', 'euclidean', 1 or inf)")
                }
            };
            let ab = self.unary(Unary::Abs, x)?;
            let s = self.reduce(Reduce::Sum, &ab, Some(&[sum_axis as i64]), true)?;
            let m = self.reduce(Reduce::Max, &s, Some(&[max_axis as i64]), true)?;
            if keepdims {
                return Ok(m);
            }
            let shape = reduced_shape(x.shape(), &[r.min(c), r.max(c)], false);
            return self.reshape_to(&m, &shape);
        }
        if matches!(axes, Some(a) if a.len() != 1) {
            bail!(Value, "norm: axis must be None, an int, or a pair of distinct ints");
        }
        match ord {
            NormOrd::Euclidean => self.euclidean(x, axes, keepdims),
            NormOrd::One => {
                let ab = self.unary(Unary::Abs, x)?;
                self.reduce(Reduce::Sum, &ab, axes, keepdims)
            }
            NormOrd::Inf => {
                let ab = self.unary(Unary::Abs, x)?;
                self.reduce(Reduce::Max, &ab, axes, keepdims)
            }
            NormOrd::P(p) => {
                let ab = self.unary(Unary::Abs, x)?;
                let pt = self.scalar(x.dtype(), p);
                let powered = self.binary(Binary::Pow, &ab, &pt)?;
                let s = self.reduce(Reduce::Sum, &powered, axes, keepdims)?;
                let inv = self.scalar(x.dtype(), 1.0 / p);
                self.binary(Binary::Pow, &s, &inv)
            }
        }
    }

    /// sqrt(Σ x²) over `axes`: the Euclidean (and Frobenius) norm, as TF computes it, so its
    /// gradient at an all-zero group is NaN, as TF's.
    fn euclidean(&mut self, x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> R<Tensor> {
        let sq = self.unary(Unary::Square, x)?;
        let s = self.reduce(Reduce::Sum, &sq, axes, keepdims)?;
        self.unary(Unary::Sqrt, &s)
    }

    /// `global_norm(ts)`: sqrt of the sum of every element squared, over all the tensors.
    /// An empty list gives float32 zero (TF).
    pub fn global_norm(&mut self, ts: &[Tensor]) -> R<Tensor> {
        let Some(first) = ts.first() else {
            return Ok(Tensor::new(crate::tensor::Array::scalar(crate::tensor::DType::F32, 0.0)));
        };
        let mut total: Option<Tensor> = None;
        for t in ts {
            Self::require_float(t, "global_norm")?;
            if t.dtype() != first.dtype() {
                bail!(Type, "global_norm: tensors must share one dtype, got {} and {}", first.dtype(), t.dtype());
            }
            let sq = self.unary(Unary::Square, t)?;
            let s = self.reduce(Reduce::Sum, &sq, None, false)?;
            total = Some(match total {
                None => s,
                Some(acc) => self.add(&acc, &s)?,
            });
        }
        let total = total.expect("at least one tensor");
        self.unary(Unary::Sqrt, &total)
    }

    /// `clip_by_norm(t, clip_norm, axes)`: `t * clip_norm / max(‖t‖, clip_norm)`, the norm
    /// Euclidean over `axes` (`None`: all). A zero group stays zero with a finite gradient:
    /// its norm is computed from a stand-in sum of 1 and then replaced by 0 (TF's way).
    pub fn clip_by_norm(&mut self, t: &Tensor, clip_norm: &Tensor, axes: Option<&[i64]>) -> R<Tensor> {
        Self::require_float(t, "clip_by_norm")?;
        let sq = self.unary(Unary::Square, t)?;
        let l2sum = self.reduce(Reduce::Sum, &sq, axes, true)?;
        let zero = self.constant_like(&l2sum, 0.0);
        let positive = Tensor::new(kernels::compare(Compare::Gt, &l2sum.data, &zero.data)?);
        let ones = self.constant_like(&l2sum, 1.0);
        let safe = self.where_(&positive, &l2sum, &ones)?;
        let root = self.unary(Unary::Sqrt, &safe)?;
        let l2norm = self.where_(&positive, &root, &l2sum)?;
        let scaled = self.mul(t, clip_norm)?;
        let denom = self.binary(Binary::Maximum, &l2norm, clip_norm)?;
        let out = self.binary(Binary::Div, &scaled, &denom)?;
        if out.shape() != t.shape() {
            bail!(
                Shape,
                "clip_by_norm: clip_norm of shape {} changes the shape of t",
                crate::tensor::shape_str(clip_norm.shape())
            );
        }
        Ok(out)
    }

    /// `clip_by_global_norm(ts, clip_norm, use_norm)`: each tensor times
    /// `clip_norm * min(1 / norm, 1 / clip_norm)`, `norm` the global norm (or `use_norm`);
    /// an infinite or NaN norm makes every result NaN (TF). Returns the clipped tensors and the norm.
    pub fn clip_by_global_norm(
        &mut self,
        ts: &[Tensor],
        clip_norm: &Tensor,
        use_norm: Option<Tensor>,
    ) -> R<(Vec<Tensor>, Tensor)> {
        let norm = match use_norm {
            Some(n) => n,
            None => self.global_norm(ts)?,
        };
        let one = self.constant_like(&norm, 1.0);
        let inv_norm = self.binary(Binary::Div, &one, &norm)?;
        let inv_clip = self.binary(Binary::Div, &one, clip_norm)?;
        let smaller = self.binary(Binary::Minimum, &inv_norm, &inv_clip)?;
        let finite_scale = self.mul(clip_norm, &smaller)?;
        // norm − norm is 0 for a finite norm and NaN otherwise.
        let nan_if_infinite = self.binary(Binary::Sub, &norm, &norm)?;
        let scale = self.add(&finite_scale, &nan_if_infinite)?;
        let clipped = ts.iter().map(|t| self.mul(t, &scale)).collect::<R<Vec<_>>>()?;
        Ok((clipped, norm))
    }

    /// The JVP rules of this family (forward mode): `ts` holds the input's tangent, the result
    /// the output's. Reductions and running sums are linear, so they apply to the tangent.
    pub(super) fn reduce_jvp(&mut self, op: &Op, ts: &[Option<Tensor>], outs: &[&Tensor]) -> R<Tangents> {
        let Some(t) = ts.first().and_then(Option::as_ref) else { return Ok(smallvec![None]) };
        let out = outs[0];
        let as_i64 = |axes: &[usize]| axes.iter().map(|&a| a as i64).collect::<Vec<_>>();
        let r = match op {
            Op::Reduce { op, axes, .. } => {
                let r = self.reduce(*op, t, Some(&as_i64(axes)), true)?;
                self.reshape_to(&r, out.shape())?
            }
            // max/min: the mean of the tangents of the tied extreme elements (the VJP's share rule).
            Op::ReduceExtreme { x, out_kept, axes } => {
                let mask = Tensor::new(kernels::compare(Compare::Eq, &x.data, &out_kept.data)?.cast(x.dtype()));
                let count = Tensor::new(kernels::reduce(Reduce::Sum, &mask.data, axes, true)?);
                let picked = self.mul(t, &mask)?;
                let s = self.reduce(Reduce::Sum, &picked, Some(&as_i64(axes)), true)?;
                let m = self.binary(Binary::Div, &s, &count)?;
                self.reshape_to(&m, out.shape())?
            }
            // d Π x = Σ_i (Π_{j≠i} x_j) dx_i, division-free as the VJP.
            Op::ReduceProd { x, axes } => {
                let others = self.product_of_others(x, axes)?;
                let w = self.mul(t, &others)?;
                let s = self.reduce(Reduce::Sum, &w, Some(&as_i64(axes)), true)?;
                self.reshape_to(&s, out.shape())?
            }
            Op::Cumsum { axis, exclusive, reverse } => {
                self.cumulative(Running::Sum, t, *axis as i64, *exclusive, *reverse)?
            }
            // dy_i = y_i Σ_{j∈S(i)} dx_j / x_j over the same running set S(i); a zero x_j
            // contributes 0, as in the VJP (so J·t agrees with the jacobian there).
            Op::Cumprod { x, out: y, axis, exclusive, reverse } => {
                let zero = self.constant_like(x, 0.0);
                let nonzero = Tensor::new(kernels::compare(Compare::Ne, &x.data, &zero.data)?);
                let ones = self.constant_like(x, 1.0);
                let safe_x = self.where_(&nonzero, x, &ones)?;
                let q = self.binary(Binary::Div, t, &safe_x)?;
                let q = self.where_(&nonzero, &q, &zero)?;
                let s = self.cumulative(Running::Sum, &q, *axis as i64, *exclusive, *reverse)?;
                self.mul(y, &s)?
            }
            Op::BroadcastTo { .. } => self.broadcast_to(t, out.shape())?,
            _ => bail!(Runtime, "internal error: {op:?} is not a reduce operation"),
        };
        Ok(smallvec![Some(r)])
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
            // d/dx_i Π x = Π_{j≠i} x_j, computed without division (exact at zeros).
            Op::ReduceProd { x, axes } => {
                let kept = reduced_shape(x.shape(), axes, true);
                let gk = self.reshape_to(g, &kept)?;
                let gb = self.broadcast_to(&gk, x.shape())?;
                let others = self.product_of_others(x, axes)?;
                smallvec![Some(self.mul(&gb, &others)?)]
            }
            // cumsum is linear; its adjoint runs the same sum in the other direction.
            Op::Cumsum { axis, exclusive, reverse } => {
                smallvec![Some(self.cumulative(Running::Sum, g, *axis as i64, *exclusive, !*reverse)?)]
            }
            // y_i = Π_{j∈S(i)} x_j, so ∂y_i/∂x_k = y_i / x_k for k ∈ S(i): the adjoint cumsum of
            // g·y divided by x. Where x is 0 the gradient is 0 (TF's div_no_nan; the true value there
            // is the product of the others, which TF does not give either).
            Op::Cumprod { x, out, axis, exclusive, reverse } => {
                let gy = self.mul(g, out)?;
                let s = self.cumulative(Running::Sum, &gy, *axis as i64, *exclusive, !*reverse)?;
                let zero = self.constant_like(x, 0.0);
                let nonzero = Tensor::new(kernels::compare(Compare::Ne, &x.data, &zero.data)?);
                let ones = self.constant_like(x, 1.0);
                let safe_x = self.where_(&nonzero, x, &ones)?;
                let q = self.binary(Binary::Div, &s, &safe_x)?;
                let zeros = self.constant_like(&q, 0.0);
                smallvec![Some(self.where_(&nonzero, &q, &zeros)?)]
            }
            Op::BroadcastTo { in_shape } => smallvec![Some(self.sum_to_shape(g, in_shape)?)],
            _ => bail!(Runtime, "internal error: {op:?} is not a reduce operation"),
        })
    }
}

/// The `ord` of [`Recorder::norm`]: `'euclidean'`/`'fro'`/2, 1, `inf`, or another p > 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrd {
    Euclidean,
    One,
    Inf,
    P(f64),
}
