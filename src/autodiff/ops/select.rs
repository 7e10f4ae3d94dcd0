//! Selection by index arrays: `gather_nd`, `scatter_nd`, `tensor_scatter_nd_update`/`_add`,
//! `boolean_mask`, `sort`, `top_k`. Each resolves its indices to flat positions and runs
//! one of two linear primitives, each the other's VJP:
//!
//! - `take`: `out.flat[i] = x.flat[idx[i]]`; its VJP scatter-adds g back at `idx`.
//! - `take_add`: zeros with `g.flat[i]` added at `idx[i]`; its VJP takes g at `idx`.
//!
//! So every gradient here routes the upstream gradient to the selected positions, and
//! second derivatives come for free (the VJPs are recorded `take`/`take_add` calls).

use crate::autodiff::forward::Tangents;
use crate::autodiff::recorder::{InputGrads, Recorder};
use crate::autodiff::tape::{Dims, Op};
use crate::error::R;
use crate::tensor::budget::check_shape;
use crate::tensor::shape::norm_axis;
use crate::tensor::{shape_str, sorting, Array, DType, Tensor};
use crate::{bail, err};
use smallvec::smallvec;
use std::rc::Rc;

impl Recorder {
    /// `x.flat[idx]` shaped `shape` (callers check the indices are in range).
    pub fn take(&mut self, x: &Tensor, idx: Rc<Vec<usize>>, shape: &[usize]) -> R<Tensor> {
        let out = Tensor::new(sorting::take(&x.data, &idx, shape));
        if out.dtype().is_float() {
            self.record(&[x], &[&out], || Op::Take { in_shape: Dims::from_slice(x.shape()), idx: idx.clone() });
        }
        Ok(out)
    }

    /// Zeros of `shape` with `g.flat[i]` added at `idx[i]` (the VJP of [`Recorder::take`]).
    pub fn take_add(&mut self, g: &Tensor, idx: Rc<Vec<usize>>, shape: &[usize]) -> R<Tensor> {
        let out = Tensor::new(sorting::take_add(&g.data, &idx, shape)?);
        if out.dtype().is_float() {
            self.record(&[g], &[&out], || Op::TakeAdd { src_shape: Dims::from_slice(g.shape()), idx: idx.clone() });
        }
        Ok(out)
    }

    /// `gather_nd(params, indices, batch_dims=0)`: slices of params at index vectors.
    ///
    /// Shapes: params [B.., P0..P(M-1), S..], indices [B.., I.., M] → [B.., I.., S..].
    /// Gradient: upstream scatter-added back to params at the gathered positions.
    /// Errors: IndexError naming the index vector and the bound; ValueError for M > rank.
    pub fn gather_nd(&mut self, params: &Tensor, indices: &Tensor, batch_dims: usize) -> R<Tensor> {
        let (ps, is) = (params.shape(), indices.shape());
        let b = batch_dims;
        if is.is_empty() {
            bail!(Value, "gather_nd: indices must have rank >= 1, got a scalar");
        }
        if b >= is.len() || b > ps.len() {
            bail!(
                Value,
                "gather_nd: batch_dims={b} must be less than the rank of indices ({}) and at most that of params ({})",
                is.len(),
                ps.len()
            );
        }
        if ps[..b] != is[..b] {
            bail!(
                Value,
                "gather_nd: the batch dimensions of params {} and indices {} differ",
                shape_str(ps),
                shape_str(is)
            );
        }
        let m = is[is.len() - 1];
        if b + m > ps.len() {
            bail!(
                Value,
                "gather_nd: index vectors have {m} entries but params of shape {} has {} axes after the batch axes",
                shape_str(ps),
                ps.len() - b
            );
        }
        let mut out_shape = is[..is.len() - 1].to_vec();
        out_shape.extend_from_slice(&ps[b + m..]);
        check_shape(&out_shape)?;
        let slice: usize = ps[b + m..].iter().product();
        let per_batch: usize = ps[b..].iter().product();
        let rows_per_batch: usize = is[b..is.len() - 1].iter().product();
        let bases = row_offsets(indices, &ps[b..b + m], "gather_nd", "params", ps)?;
        let mut idx = Vec::with_capacity(bases.len() * slice);
        for (r, base) in bases.into_iter().enumerate() {
            let off = (r / rows_per_batch.max(1)) * per_batch + base * slice;
            idx.extend(off..off + slice);
        }
        self.take(params, Rc::new(idx), &out_shape)
    }

    /// `scatter_nd(indices, updates, shape)`: zeros of `shape` with each update slice
    /// added at its index vector (duplicates add up, as TF).
    ///
    /// Shapes: indices [I.., M], updates [I.., shape[M:]..] → shape.
    /// Gradient: to updates, the upstream gradient gathered at the indices.
    /// Errors: IndexError naming the index vector and the bound; ShapeError when updates'
    /// shape is not indices.shape[:-1] + shape[M:].
    pub fn scatter_nd(&mut self, indices: &Tensor, updates: &Tensor, shape: &[usize]) -> R<Tensor> {
        check_shape(shape)?;
        let idx = scatter_positions(indices, updates, shape, "scatter_nd")?;
        self.take_add(updates, Rc::new(idx), shape)
    }

    /// `tensor_scatter_nd_update(tensor, indices, updates)` (`add=false`) and
    /// `tensor_scatter_nd_add` (`add=true`): a copy of tensor with the update slices
    /// written (or added) at the index vectors. For updates written twice the last one
    /// wins (TF leaves the order unspecified).
    ///
    /// Gradient: tensor gets upstream (zero at overwritten positions for update); each
    /// update gets upstream at its position (zero for an update a later one overwrote).
    pub fn tensor_scatter_nd(&mut self, tensor: &Tensor, indices: &Tensor, updates: &Tensor, add: bool) -> R<Tensor> {
        let what = if add { "tensor_scatter_nd_add" } else { "tensor_scatter_nd_update" };
        if tensor.dtype() != updates.dtype() {
            bail!(Type, "{what}: tensor is {} but updates are {}", tensor.dtype(), updates.dtype());
        }
        if add && tensor.dtype() == DType::Bool {
            bail!(Type, "{what} takes float or int64 tensors, not bool");
        }
        let shape = tensor.shape().to_vec();
        let pos = scatter_positions(indices, updates, &shape, what)?;
        if add {
            let s = self.take_add(updates, Rc::new(pos), &shape)?;
            return self.add(tensor, &s);
        }
        // Last wins: keep only the final update of each position.
        let n: usize = shape.iter().product();
        let mut winner = vec![usize::MAX; n];
        for (i, &p) in pos.iter().enumerate() {
            winner[p] = i;
        }
        let (mut src, mut dst) = (Vec::new(), Vec::new());
        for (p, &i) in winner.iter().enumerate() {
            if i != usize::MAX {
                src.push(i);
                dst.push(p);
            }
        }
        let mask = Array::Bool(
            ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape), winner.iter().map(|&i| i != usize::MAX).collect())
                .expect("one flag per element"),
        );
        let chosen = self.take(updates, Rc::new(src), &[dst.len()])?;
        let scattered = self.take_add(&chosen, Rc::new(dst), &shape)?;
        self.where_(&Tensor::new(mask), &scattered, tensor)
    }

    /// `boolean_mask(tensor, mask, axis=0)`: the slices of tensor where mask is true.
    ///
    /// Shapes: tensor [A.., K.., S..] with A of length `axis`, mask K (rank ≥ 1) → [A.., count, S..].
    /// Gradient: upstream scattered back to the kept slices, zero elsewhere.
    /// Errors: TypeError when mask is not bool; ValueError for a scalar mask or one whose
    /// shape is not that of tensor's axes `axis..axis+rank(mask)`.
    pub fn boolean_mask(&mut self, tensor: &Tensor, mask: &Tensor, axis: i64) -> R<Tensor> {
        let Array::Bool(mv) = &*mask.data else {
            bail!(Type, "boolean_mask: mask must be a bool tensor, not {}", mask.dtype())
        };
        let k = mv.ndim();
        if k == 0 {
            bail!(Value, "boolean_mask: mask cannot be a scalar");
        }
        let ts = tensor.shape();
        let axis = norm_axis(axis, ts.len().max(1))?;
        if axis + k > ts.len() || ts[axis..axis + k] != *mv.shape() {
            bail!(
                Value,
                "boolean_mask: mask of shape {} does not match tensor of shape {} at axis {axis}",
                shape_str(mv.shape()),
                shape_str(ts)
            );
        }
        let pre: usize = ts[..axis].iter().product();
        let post: usize = ts[axis + k..].iter().product();
        let span = mv.len();
        let kept: Vec<usize> = mv.iter().enumerate().filter(|(_, &b)| b).map(|(i, _)| i).collect();
        let mut idx = Vec::with_capacity(pre * kept.len() * post);
        for p in 0..pre {
            for &j in &kept {
                let off = (p * span + j) * post;
                idx.extend(off..off + post);
            }
        }
        let mut shape = ts[..axis].to_vec();
        shape.push(kept.len());
        shape.extend_from_slice(&ts[axis + k..]);
        self.take(tensor, Rc::new(idx), &shape)
    }

    /// `sort(values, axis=-1, direction)`: the values sorted along `axis`, stable, NaN above +inf.
    ///
    /// Gradient: upstream routed back to each value's position.
    pub fn sort(&mut self, x: &Tensor, axis: i64, descending: bool) -> R<Tensor> {
        if x.shape().is_empty() {
            bail!(Value, "sort: input must have rank >= 1, got a scalar");
        }
        let axis = norm_axis(axis, x.shape().len())?;
        let n = x.shape()[axis];
        let perm = sorting::sort_perm(&x.data, axis, n, descending, "sort")?;
        self.take(x, Rc::new(perm), &x.shape().to_vec())
    }

    /// `top_k(input, k=1)`: `(values, indices)` of the k largest entries along the last
    /// axis, largest first; ties by lower index first.
    ///
    /// Gradient: to values' positions; indices are int64 (no gradient).
    /// Errors: ValueError for a scalar input, k < 0 or k greater than the last axis.
    pub fn top_k(&mut self, x: &Tensor, k: i64) -> R<(Tensor, Tensor)> {
        let s = x.shape();
        if s.is_empty() {
            bail!(Value, "top_k: input must have rank >= 1, got a scalar");
        }
        let n = s[s.len() - 1];
        if k < 0 {
            bail!(Value, "top_k: k must be >= 0, got {k}");
        }
        if k as u64 > n as u64 {
            bail!(Value, "top_k: input must have at least k={k} entries along its last axis, it has {n}");
        }
        let k = k as usize;
        let perm = sorting::sort_perm(&x.data, s.len() - 1, k, true, "top_k")?;
        let mut shape = s.to_vec();
        *shape.last_mut().expect("rank >= 1") = k;
        let idx: Vec<i64> = perm.iter().map(|&p| (p % n.max(1)) as i64).collect();
        let indices = Tensor::new(Array::I64(
            ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape), idx)
                .map_err(|e| err!(Runtime, "internal error: {e}"))?,
        ));
        Ok((self.take(x, Rc::new(perm), &shape)?, indices))
    }

    /// The VJPs of this family (see the module comment).
    pub(super) fn select_vjp(&mut self, op: &Op, upstream: &[Tensor], _needed: &[bool]) -> R<InputGrads> {
        let g = &upstream[0];
        Ok(match op {
            // out[i] = x[idx[i]]  ⇒  gx[j] = Σ_{i: idx[i]=j} g[i]
            Op::Take { in_shape, idx } => smallvec![Some(self.take_add(g, idx.clone(), in_shape)?)],
            // out[idx[i]] += u[i]  ⇒  gu[i] = g[idx[i]]
            Op::TakeAdd { src_shape, idx } => smallvec![Some(self.take(g, idx.clone(), src_shape)?)],
            _ => bail!(Runtime, "internal error: {op:?} is not a selection operation"),
        })
    }

    /// Forward mode: both operations are linear, so the tangent goes through the same
    /// selection (take of the tangent, or scatter-add of it).
    pub(super) fn select_jvp(&mut self, op: &Op, ts: &[Option<Tensor>], outputs: &[&Tensor]) -> R<Tangents> {
        let Some(t) = ts.first().and_then(Option::as_ref) else { return Ok(smallvec![None]) };
        let shape = outputs[0].shape();
        Ok(smallvec![Some(match op {
            Op::Take { idx, .. } => self.take(t, idx.clone(), shape)?,
            Op::TakeAdd { idx, .. } => self.take_add(t, idx.clone(), shape)?,
            _ => bail!(Runtime, "internal error: {op:?} is not a selection operation"),
        })])
    }
}

/// For each index vector of `indices` (its last axis, entries into `dims`), the flat
/// offset it selects among `dims` (row-major).
///
/// Errors: TypeError when indices are not int32 or int64; IndexError for an entry outside its axis.
fn row_offsets(indices: &Tensor, dims: &[usize], what: &str, target: &str, full: &[usize]) -> R<Vec<usize>> {
    if !indices.dtype().is_int() {
        bail!(Type, "{what}: indices must be int32 or int64, not {} (use cast)", indices.dtype())
    }
    let Array::I64(iv) = &*indices.data.widened() else { unreachable!("an int dtype widens to int64") };
    let m = dims.len();
    let iv = iv.as_standard_layout();
    let flat = iv.as_slice().expect("standard layout");
    let is = indices.shape();
    let rows: usize = is[..is.len() - 1].iter().product();
    let mut out = Vec::with_capacity(rows);
    for r in 0..rows {
        let vec = &flat[r * m..(r + 1) * m];
        let mut off = 0usize;
        for (a, (&i, &d)) in vec.iter().zip(dims).enumerate() {
            if i < 0 || i as u64 >= d as u64 {
                let shown = vec.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
                bail!(
                    Index,
                    "{what}: index [{shown}] (row {r} of indices) is out of bounds for {target} of shape {}: entry {a} is {i}, not in [0, {d})",
                    shape_str(full)
                );
            }
            off = off * d + i as usize;
        }
        out.push(off);
    }
    Ok(out)
}

/// The flat position in `shape` of every element of `updates` (scatter_nd's layout).
fn scatter_positions(indices: &Tensor, updates: &Tensor, shape: &[usize], what: &str) -> R<Vec<usize>> {
    let is = indices.shape();
    if is.is_empty() {
        bail!(Value, "{what}: indices must have rank >= 1, got a scalar");
    }
    let m = is[is.len() - 1];
    if m > shape.len() {
        bail!(
            Value,
            "{what}: index vectors have {m} entries but the output shape {} has rank {}",
            shape_str(shape),
            shape.len()
        );
    }
    let mut want = is[..is.len() - 1].to_vec();
    want.extend_from_slice(&shape[m..]);
    if updates.shape() != want.as_slice() {
        bail!(
            Shape,
            "{what}: updates must have shape {} (indices.shape[:-1] + shape[{m}:]), got {}",
            shape_str(&want),
            shape_str(updates.shape())
        );
    }
    let slice: usize = shape[m..].iter().product();
    let bases = row_offsets(indices, &shape[..m], what, "output", shape)?;
    let mut idx = Vec::with_capacity(bases.len() * slice);
    for base in bases {
        idx.extend(base * slice..(base + 1) * slice);
    }
    Ok(idx)
}
