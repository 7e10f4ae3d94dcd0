//! Differentiable operations: each runs a kernel, then records itself on
//! every active tape that watches one of its inputs (LANGUAGE.md §5: a tape
//! records an operation only when one of its inputs is watched). VJPs are
//! written with these same functions, so an outer tape records the backward
//! pass and higher-order gradients compose (STYLE.md lesson 3).

use super::tape::{Entry, Op, OutMeta};
use crate::bail;
use crate::runtime::error::R;
use crate::runtime::Interp;
use crate::tensor::kernels::{self, Binary, Reduce, Unary};
use crate::tensor::shape::{broadcast_axes, norm_axis, reduce_axes, reduced_shape, reshape_target};
use crate::tensor::{shape_str, Array, DType, Tensor};
use ndarray::{IxDyn, SliceInfoElem};
use std::rc::Rc;

impl Interp {
    /// True when some active tape watches one of `inputs`: only then is an
    /// op worth describing for the tape.
    pub fn any_watched(&self, inputs: &[&Tensor]) -> bool {
        self.tapes.iter().any(|t| {
            let t = t.borrow();
            inputs.iter().any(|x| t.watched.contains(&x.id))
        })
    }

    /// The one way onto the tape: records `op` on each active tape watching an input.
    pub fn record(&mut self, inputs: &[&Tensor], outputs: &[&Tensor], op: impl FnOnce() -> Op) {
        if !self.capture_probes.is_empty() {
            self.probe(inputs);
        }
        if self.tapes.is_empty() {
            return;
        }
        let ids: Vec<_> = inputs.iter().map(|t| t.id).collect();
        self.record_ids(&ids, outputs, op);
    }

    /// Like [`Interp::record`] with raw input ids (0 marks a non-tensor input).
    pub fn record_ids(&mut self, ids: &[u64], outputs: &[&Tensor], op: impl FnOnce() -> Op) {
        let mut op = Some(op);
        let mut shared: Option<Rc<Op>> = None;
        for tape in &self.tapes {
            let mut t = tape.borrow_mut();
            if !ids.iter().any(|id| *id != 0 && t.watched.contains(id)) {
                continue;
            }
            let op = shared.get_or_insert_with(|| Rc::new((op.take().unwrap())())).clone();
            let outs =
                outputs.iter().map(|o| OutMeta { id: o.id, shape: o.shape().to_vec(), dtype: o.dtype() }).collect();
            t.entries.push(Rc::new(Entry { op, inputs: ids.to_vec(), outputs: outs }));
            for o in outputs {
                if o.dtype().is_float() {
                    t.watched.insert(o.id);
                }
            }
        }
    }

    /// A constant tensor (never recorded).
    pub fn constant_like(&self, like: &Tensor, v: f64) -> Tensor {
        Tensor::new(Array::full(like.dtype(), like.shape(), v))
    }

    /// A scalar constant of `dtype`.
    pub fn scalar(&self, dtype: DType, v: f64) -> Tensor {
        Tensor::new(Array::scalar(dtype, v))
    }

    /// `a op b` with broadcasting. Gradients: see `vjp.rs`.
    pub fn binary(&mut self, op: Binary, a: &Tensor, b: &Tensor) -> R<Tensor> {
        let out = Tensor::new(kernels::binary(op, &a.data, &b.data)?);
        // floordiv has no gradient (TF: None); floormod's is 1 and −floor(a/b) (see vjp.rs).
        if out.dtype().is_float() && op != Binary::FloorDiv {
            self.record(&[a, b], &[&out], || match op {
                Binary::Add | Binary::Sub => {
                    Op::AddSub { sub: op == Binary::Sub, a_shape: a.shape().to_vec(), b_shape: b.shape().to_vec() }
                }
                Binary::Pow => Op::Pow { a: a.clone(), b: b.clone(), out: out.clone() },
                _ => Op::Binary { op, a: a.clone(), b: b.clone() },
            });
        }
        Ok(out)
    }

    pub fn add(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        self.binary(Binary::Add, a, b)
    }

    pub fn mul(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        self.binary(Binary::Mul, a, b)
    }

    /// `x * v` for a Python number `v` in x's dtype.
    pub fn mul_scalar(&mut self, x: &Tensor, v: f64) -> R<Tensor> {
        let s = self.scalar(x.dtype(), v);
        self.binary(Binary::Mul, x, &s)
    }

    /// `f(x)` elementwise.
    pub fn unary(&mut self, op: Unary, x: &Tensor) -> R<Tensor> {
        let out = Tensor::new(kernels::unary(op, &x.data)?);
        if out.dtype().is_float() {
            self.record(&[x], &[&out], || {
                let saved = match op {
                    Unary::Neg | Unary::Sign | Unary::Step => None,
                    Unary::Exp | Unary::Tanh | Unary::Sigmoid | Unary::Sqrt | Unary::Relu => Some(out.clone()),
                    _ => Some(x.clone()),
                };
                Op::Unary { op, saved }
            });
        }
        Ok(out)
    }

    /// `a @ b` (2-D and batched).
    pub fn matmul(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        let out = Tensor::new(kernels::matmul(&a.data, &b.data)?);
        if out.dtype().is_float() {
            self.record(&[a, b], &[&out], || Op::MatMul { a: a.clone(), b: b.clone() });
        }
        Ok(out)
    }

    /// `reduce_sum`/`reduce_mean`/`reduce_max`/`reduce_min` over `axes` (`None`: all).
    pub fn reduce(&mut self, op: Reduce, x: &Tensor, axes: Option<&[i64]>, keepdims: bool) -> R<Tensor> {
        let axes = reduce_axes(axes, x.shape().len())?;
        let kept = kernels::reduce(op, &x.data, &axes, true)?;
        let out_shape = reduced_shape(x.shape(), &axes, keepdims);
        let out = if keepdims { Tensor::new(kept.clone()) } else { Tensor::new(kernels::reshape(&kept, &out_shape)) };
        if out.dtype().is_float() {
            self.record(&[x], &[&out], || match op {
                Reduce::Sum | Reduce::Mean => Op::Reduce { op, in_shape: x.shape().to_vec(), axes: axes.clone() },
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

    /// `reshape(x, shape)` with one `-1` allowed.
    pub fn reshape(&mut self, x: &Tensor, shape: &[i64]) -> R<Tensor> {
        let target = reshape_target(x.shape(), shape)?;
        self.reshape_to(x, &target)
    }

    pub fn reshape_to(&mut self, x: &Tensor, shape: &[usize]) -> R<Tensor> {
        let out = Tensor::new(kernels::reshape(&x.data, shape));
        self.record(&[x], &[&out], || Op::Reshape { in_shape: x.shape().to_vec() });
        Ok(out)
    }

    /// `transpose(x, perm)`; `perm=None` reverses the axes.
    pub fn transpose(&mut self, x: &Tensor, perm: Option<Vec<i64>>) -> R<Tensor> {
        let n = x.shape().len();
        let perm: Vec<usize> = match perm {
            None => (0..n).rev().collect(),
            Some(p) => {
                if p.len() != n {
                    bail!(Value, "transpose: perm has {} entries for a tensor of rank {}", p.len(), n);
                }
                let p = p.iter().map(|&a| norm_axis(a, n)).collect::<Result<Vec<_>, _>>()?;
                let mut seen = vec![false; n];
                for &a in &p {
                    if std::mem::replace(&mut seen[a], true) {
                        bail!(Value, "transpose: perm {:?} is not a permutation", p);
                    }
                }
                p
            }
        };
        let out = Tensor::new(kernels::transpose(&x.data, &perm));
        self.record(&[x], &[&out], || Op::Transpose { perm: perm.clone() });
        Ok(out)
    }

    /// `concat(xs, axis)`.
    pub fn concat(&mut self, xs: &[Tensor], axis: i64) -> R<Tensor> {
        if xs.is_empty() {
            bail!(Value, "concat needs at least one tensor");
        }
        let axis = norm_axis(axis, xs[0].shape().len())?;
        let out = Tensor::new(kernels::concat(&xs.iter().map(|t| &*t.data).collect::<Vec<_>>(), axis)?);
        let refs: Vec<&Tensor> = xs.iter().collect();
        self.record(&refs, &[&out], || Op::Concat { axis, sizes: xs.iter().map(|t| t.shape()[axis]).collect() });
        Ok(out)
    }

    /// `stack(xs, axis)`.
    pub fn stack(&mut self, xs: &[Tensor], axis: i64) -> R<Tensor> {
        if xs.is_empty() {
            bail!(Value, "stack needs at least one tensor");
        }
        let axis = norm_axis(axis, xs[0].shape().len() + 1)?;
        let out = Tensor::new(kernels::stack(&xs.iter().map(|t| &*t.data).collect::<Vec<_>>(), axis)?);
        let refs: Vec<&Tensor> = xs.iter().collect();
        self.record(&refs, &[&out], || Op::Stack { axis, n: xs.len() });
        Ok(out)
    }

    /// `x[info]` with resolved basic indexing.
    pub fn index(&mut self, x: &Tensor, info: Rc<Vec<SliceInfoElem>>) -> R<Tensor> {
        let sl = slice_info(&info)?;
        let data = crate::map_dtype!(&*x.data, a => a.slice(sl.as_ref()).to_owned());
        let out = Tensor::new(data);
        self.record(&[x], &[&out], || Op::Index { in_shape: x.shape().to_vec(), info: info.clone() });
        Ok(out)
    }

    /// The VJP of indexing: `g` scattered into zeros of `in_shape`.
    pub fn index_grad(&mut self, g: &Tensor, in_shape: &[usize], info: Rc<Vec<SliceInfoElem>>) -> R<Tensor> {
        let sl = slice_info(&info)?;
        let mut z = Array::zeros(g.dtype(), in_shape);
        match (&mut z, &*g.data) {
            (Array::F32(z), Array::F32(g)) => z.slice_mut(sl.as_ref()).assign(g),
            (Array::F64(z), Array::F64(g)) => z.slice_mut(sl.as_ref()).assign(g),
            _ => bail!(Type, "index gradient needs a float tensor"),
        }
        let out = Tensor::new(z);
        self.record(&[g], &[&out], || Op::IndexGrad { info: info.clone() });
        Ok(out)
    }

    /// `gather(x, indices, axis)`: slices of x along `axis` at `indices`.
    ///
    /// Shapes: x [a.., n, b..], indices [k..] → [a.., k.., b..].
    /// Gradient: the upstream gradient scatter-added back at the indices.
    /// Errors: IndexError for an index outside 0..n.
    pub fn gather(&mut self, x: &Tensor, indices: Rc<Vec<usize>>, idx_shape: &[usize], axis: usize) -> R<Tensor> {
        let n = x.shape()[axis];
        if let Some(bad) = indices.iter().find(|&&i| i >= n) {
            bail!(Index, "gather index {bad} is out of bounds for axis {axis} with size {n}");
        }
        let picked = crate::map_dtype!(&*x.data, a => a.select(ndarray::Axis(axis), &indices));
        let mut shape = x.shape()[..axis].to_vec();
        shape.extend_from_slice(idx_shape);
        shape.extend_from_slice(&x.shape()[axis + 1..]);
        let out = Tensor::new(kernels::reshape(&picked, &shape));
        if out.dtype().is_float() {
            self.record(&[x], &[&out], || Op::Gather {
                in_shape: x.shape().to_vec(),
                axis,
                indices: indices.clone(),
                idx_shape: idx_shape.to_vec(),
            });
        }
        Ok(out)
    }

    /// The VJP of gather: `g` scatter-added into zeros of `in_shape` along `axis`.
    pub fn gather_grad(
        &mut self,
        g: &Tensor,
        in_shape: &[usize],
        axis: usize,
        indices: Rc<Vec<usize>>,
        idx_shape: &[usize],
    ) -> R<Tensor> {
        let mut flat_shape = in_shape[..axis].to_vec();
        flat_shape.push(indices.len());
        flat_shape.extend_from_slice(&in_shape[axis + 1..]);
        let gf = kernels::reshape(&g.data, &flat_shape);
        let mut z = Array::zeros(g.dtype(), in_shape);
        macro_rules! scatter {
            ($z:expr, $g:expr) => {
                for (k, &i) in indices.iter().enumerate() {
                    let src = $g.index_axis(ndarray::Axis(axis), k);
                    let mut dst = $z.index_axis_mut(ndarray::Axis(axis), i);
                    dst += &src;
                }
            };
        }
        match (&mut z, &gf) {
            (Array::F32(z), Array::F32(g)) => scatter!(z, g),
            (Array::F64(z), Array::F64(g)) => scatter!(z, g),
            _ => bail!(Type, "gather gradient needs a float tensor"),
        }
        let out = Tensor::new(z);
        self.record(&[g], &[&out], || Op::GatherGrad { axis, indices: indices.clone(), idx_shape: idx_shape.to_vec() });
        Ok(out)
    }

    /// `tile(x, multiples)`: x repeated `multiples[i]` times along axis i.
    ///
    /// Shapes: x [d0, …] → [d0·m0, …]. Gradient: the upstream gradient summed over the tiles.
    /// Errors: ValueError when `multiples` does not have one entry per axis.
    pub fn tile(&mut self, x: &Tensor, multiples: &[usize]) -> R<Tensor> {
        if multiples.len() != x.shape().len() {
            bail!(Value, "tile: multiples has {} entries for a tensor of rank {}", multiples.len(), x.shape().len());
        }
        let data = kernels::tile(&x.data, multiples)?;
        let out = Tensor::new(data);
        if out.dtype().is_float() {
            self.record(&[x], &[&out], || Op::Tile { in_shape: x.shape().to_vec(), multiples: multiples.to_vec() });
        }
        Ok(out)
    }

    /// `softmax(x, axis)` / `log_softmax(x, axis)`.
    pub fn softmax(&mut self, x: &Tensor, axis: i64, log: bool) -> R<Tensor> {
        let axis = norm_axis(axis, x.shape().len())?;
        let out = Tensor::new(kernels::softmax(&x.data, axis, log)?);
        self.record(&[x], &[&out], || Op::Softmax { y: out.clone(), axis, log });
        Ok(out)
    }

    /// `cast(x, dtype)`: differentiable between float dtypes.
    pub fn cast(&mut self, x: &Tensor, dtype: DType) -> R<Tensor> {
        if x.dtype() == dtype {
            return Ok(x.clone());
        }
        let out = Tensor::new(x.data.try_cast(dtype)?);
        if dtype.is_float() && x.dtype().is_float() {
            self.record(&[x], &[&out], || Op::Cast { from: x.dtype() });
        }
        Ok(out)
    }

    /// The same values under a new id, recorded as an identity.
    pub fn identity(&mut self, x: &Tensor) -> Tensor {
        let out = x.renamed();
        self.record(&[x], &[&out], || Op::Identity);
        out
    }

    /// Broadcasts `x` to `shape`, recorded (its gradient sums back).
    pub fn broadcast_to(&mut self, x: &Tensor, shape: &[usize]) -> R<Tensor> {
        if x.shape() == shape {
            return Ok(x.clone());
        }
        let out = Tensor::new(kernels::broadcast_to(&x.data, shape)?);
        self.record(&[x], &[&out], || Op::BroadcastTo { in_shape: x.shape().to_vec() });
        Ok(out)
    }

    /// `where(cond, a, b)`: elements of `a` where `cond` is true, else of `b`.
    pub fn where_(&mut self, cond: &Tensor, a: &Tensor, b: &Tensor) -> R<Tensor> {
        let Array::Bool(c) = &*cond.data else {
            bail!(Type, "where: the condition must be a bool tensor, got {}", cond.dtype());
        };
        let shape = crate::tensor::shape::broadcast_shapes(
            &crate::tensor::shape::broadcast_shapes(c.shape(), a.shape())?,
            b.shape(),
        )?;
        let cb = c.broadcast(IxDyn(&shape)).unwrap();
        macro_rules! sel {
            ($v:ident, $x:expr, $y:expr) => {{
                let xb = $x.broadcast(IxDyn(&shape)).unwrap();
                let yb = $y.broadcast(IxDyn(&shape)).unwrap();
                Array::$v(ndarray::Zip::from(&cb).and(&xb).and(&yb).map_collect(|&c, &x, &y| if c { x } else { y }))
            }};
        }
        let data = match (&*a.data, &*b.data) {
            (Array::F32(x), Array::F32(y)) => sel!(F32, x, y),
            (Array::F64(x), Array::F64(y)) => sel!(F64, x, y),
            (Array::I64(x), Array::I64(y)) => sel!(I64, x, y),
            (Array::Bool(x), Array::Bool(y)) => sel!(Bool, x, y),
            _ => bail!(Type, "where: cannot mix {} and {} tensors", a.dtype(), b.dtype()),
        };
        let out = Tensor::new(data);
        if out.dtype().is_float() {
            self.record(&[a, b], &[&out], || Op::Where {
                cond: cond.clone(),
                a_shape: a.shape().to_vec(),
                b_shape: b.shape().to_vec(),
            });
        }
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
            self.probe(&[logits]);
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
}

/// Builds ndarray's dynamic slice description from resolved elements.
pub fn slice_info(info: &[SliceInfoElem]) -> R<ndarray::SliceInfo<Vec<SliceInfoElem>, IxDyn, IxDyn>> {
    ndarray::SliceInfo::try_from(info.to_vec()).map_err(|e| crate::err!(Index, "invalid index: {e}"))
}

/// An index selecting `elem` on `axis` and everything on the other axes.
pub fn axis_slice(ndim: usize, axis: usize, elem: SliceInfoElem) -> Rc<Vec<SliceInfoElem>> {
    Rc::new(
        (0..ndim)
            .map(|i| if i == axis { elem } else { SliceInfoElem::Slice { start: 0, end: None, step: 1 } })
            .collect(),
    )
}
