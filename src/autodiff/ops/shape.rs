//! Shape and indexing operations: reshape, transpose, concat, stack, basic indexing, gather and
//! tile (with the scatters that are their VJPs), forward and VJP.

use crate::autodiff::forward::Tangents;
use crate::autodiff::recorder::{InputGrads, Recorder};
use crate::autodiff::tape::{Dims, Op};
use crate::bail;
use crate::error::R;
use crate::tensor::kernels::{self, Reduce};
use crate::tensor::shape::{norm_axis, reshape_target};
use crate::tensor::{Array, Tensor};
use ndarray::{IxDyn, SliceInfoElem};
use smallvec::smallvec;
use std::rc::Rc;

impl Recorder {
    /// `reshape(x, shape)` with one `-1` allowed.
    pub fn reshape(&mut self, x: &Tensor, shape: &[i64]) -> R<Tensor> {
        let target = reshape_target(x.shape(), shape)?;
        self.reshape_to(x, &target)
    }

    pub fn reshape_to(&mut self, x: &Tensor, shape: &[usize]) -> R<Tensor> {
        let out = Tensor::new(kernels::reshape(&x.data, shape));
        self.record(&[x], &[&out], || Op::Reshape { in_shape: Dims::from_slice(x.shape()) });
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
        crate::tensor::budget::check_elements(x.data.len(), x.dtype().size())?;
        let out = Tensor::new(kernels::transpose(&x.data, &perm));
        self.record(&[x], &[&out], || Op::Transpose { perm: Dims::from_slice(&perm) });
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
        self.record(&[x], &[&out], || Op::Index { in_shape: Dims::from_slice(x.shape()), info: info.clone() });
        Ok(out)
    }

    /// The VJP of indexing: `g` scattered into zeros of `in_shape`.
    pub fn index_grad(&mut self, g: &Tensor, in_shape: &[usize], info: Rc<Vec<SliceInfoElem>>) -> R<Tensor> {
        let sl = slice_info(&info)?;
        let mut z = Array::zeros(g.dtype(), in_shape);
        match (&mut z, &*g.data) {
            (Array::F32(z), Array::F32(g)) => z.slice_mut(sl.as_ref()).assign(g),
            (Array::F64(z), Array::F64(g)) => z.slice_mut(sl.as_ref()).assign(g),
            (Array::F16(z), Array::F16(g)) => z.slice_mut(sl.as_ref()).assign(g),
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
        // float16 gradients are added in float32 and rounded once at the end (docs/language.md §4).
        let gf = kernels::reshape(&g.data.widened(), &flat_shape);
        let mut z = Array::zeros(gf.dtype(), in_shape);
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
        let out = Tensor::new(z.narrowed_to(g.dtype()));
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

    /// The JVP rules of this family (forward mode): every shape operation is linear, so the
    /// tangent goes through the same operation; a missing tangent of concat or stack is zeros.
    pub(super) fn shape_jvp(&mut self, op: &Op, ts: &[Option<Tensor>], outs: &[&Tensor]) -> R<Tangents> {
        let out = outs[0];
        if let Op::Concat { axis, sizes } = op {
            let mut parts = Vec::with_capacity(ts.len());
            for (t, &n) in ts.iter().zip(sizes) {
                parts.push(match t {
                    Some(t) => t.clone(),
                    None => {
                        let mut shape = out.shape().to_vec();
                        shape[*axis] = n;
                        Tensor::zeros(out.dtype(), &shape)
                    }
                });
            }
            return Ok(smallvec![Some(self.concat(&parts, *axis as i64)?)]);
        }
        if let Op::Stack { axis, .. } = op {
            let mut shape = out.shape().to_vec();
            shape.remove(*axis);
            let parts: Vec<Tensor> =
                ts.iter().map(|t| t.clone().unwrap_or_else(|| Tensor::zeros(out.dtype(), &shape))).collect();
            return Ok(smallvec![Some(self.stack(&parts, *axis as i64)?)]);
        }
        let Some(t) = ts.first().and_then(Option::as_ref) else { return Ok(smallvec![None]) };
        let r = match op {
            Op::Reshape { .. } => self.reshape_to(t, out.shape())?,
            Op::Transpose { perm } => self.transpose(t, Some(perm.iter().map(|&a| a as i64).collect()))?,
            Op::Index { info, .. } => self.index(t, info.clone())?,
            Op::IndexGrad { info } => self.index_grad(t, out.shape(), info.clone())?,
            Op::Gather { axis, indices, idx_shape, .. } => self.gather(t, indices.clone(), idx_shape, *axis)?,
            Op::GatherGrad { axis, indices, idx_shape } => {
                self.gather_grad(t, out.shape(), *axis, indices.clone(), idx_shape)?
            }
            Op::Tile { multiples, .. } => self.tile(t, multiples)?,
            _ => bail!(Runtime, "internal error: {op:?} is not a shape operation"),
        };
        Ok(smallvec![Some(r)])
    }

    /// The VJPs of this family: `upstream` has one gradient per output (zeros filled in),
    /// `needed[i]` says whether input i wants a gradient; one gradient per input.
    pub(super) fn shape_vjp(&mut self, op: &Op, upstream: &[Tensor], needed: &[bool]) -> R<InputGrads> {
        let g = &upstream[0];
        let _want = |i: usize| needed.get(i).copied().unwrap_or(false);
        Ok(match op {
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
            _ => bail!(Runtime, "internal error: {op:?} is not a shape operation"),
        })
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
