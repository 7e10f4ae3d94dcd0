//! Linear algebra (`linalg.*`): inverse, determinant, log-determinant, solve and the
//! spectral norm as recorded operations with their VJPs, and the diagonal helpers
//! (`diag`, `diag_part`, `trace`, `matvec`) composed of recorded operations. Matrices
//! are the last two axes; leading axes are a batch. Kernels: `tensor/linalg.rs`.

use crate::autodiff::recorder::{InputGrads, Recorder};
use crate::autodiff::tape::Op;
use crate::bail;
use crate::error::R;
use crate::tensor::kernels::Reduce;
use crate::tensor::linalg::{self, LuOp};
use crate::tensor::shape::norm_axis;
use crate::tensor::{shape_str, Tensor};
use smallvec::smallvec;
use std::rc::Rc;

impl Recorder {
    /// `linalg.inv(a)`: the inverse of each `[..., n, n]` matrix.
    pub fn matrix_inverse(&mut self, a: &Tensor) -> R<Tensor> {
        let y = Tensor::new(linalg::lu_map(&a.data, LuOp::Inv, "inv")?);
        self.record(&[a], &[&y], || Op::MatrixInverse { y: y.clone() });
        Ok(y)
    }

    /// `linalg.det(a)`: the determinant of each `[..., n, n]` matrix → `[...]`.
    pub fn det(&mut self, a: &Tensor) -> R<Tensor> {
        let d = Tensor::new(linalg::lu_map(&a.data, LuOp::Det, "det")?);
        self.record(&[a], &[&d], || Op::Det { a: a.clone(), d: d.clone() });
        Ok(d)
    }

    /// `linalg.slogdet(a)`: `(sign, log|det|)` of each matrix; the sign has no gradient.
    pub fn slogdet(&mut self, a: &Tensor) -> R<(Tensor, Tensor)> {
        let sign = Tensor::new(linalg::lu_map(&a.data, LuOp::Sign, "slogdet")?);
        let log = Tensor::new(linalg::lu_map(&a.data, LuOp::LogAbsDet, "slogdet")?);
        self.record(&[a], &[&log], || Op::LogAbsDet { a: a.clone() });
        Ok((sign, log))
    }

    /// `linalg.solve(a, b)`: X with A X = B, A `[..., n, n]`, B `[..., n, m]`.
    pub fn solve(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        let x = Tensor::new(linalg::solve(&a.data, &b.data)?);
        self.record(&[a, b], &[&x], || Op::Solve { a: a.clone(), x: x.clone() });
        Ok(x)
    }

    /// `linalg.cholesky(a)`: the lower-triangular factor of each symmetric positive-definite matrix.
    pub fn cholesky(&mut self, a: &Tensor) -> R<Tensor> {
        let l = Tensor::new(linalg::cholesky(&a.data)?);
        self.record(&[a], &[&l], || Op::Cholesky { l: l.clone() });
        Ok(l)
    }

    /// The spectral norm (largest singular value) of each `[..., m, n]` matrix → `[...]`.
    pub fn spectral_norm(&mut self, a: &Tensor) -> R<Tensor> {
        let (s, u, v) = linalg::spectral(&a.data)?;
        let s = Tensor::new(s);
        let (u, v) = (Tensor::new(u), Tensor::new(v));
        self.record(&[a], &[&s], || Op::SpectralNorm { u, v });
        Ok(s)
    }

    /// `norm(x, ord=2, axis=(r, c), keepdims)`: the spectral norm of the matrices on axes r, c.
    ///
    /// Errors: ShapeError for an axis out of range; ValueError for equal axes.
    pub fn matrix_spectral_norm(&mut self, x: &Tensor, axes: (i64, i64), keepdims: bool) -> R<Tensor> {
        if !x.dtype().is_float() {
            bail!(Type, "norm takes a float tensor, not {} (use cast)", x.dtype());
        }
        let nd = x.shape().len();
        let (r, c) = (norm_axis(axes.0, nd)?, norm_axis(axes.1, nd)?);
        if r == c {
            bail!(Value, "norm: the two axes of a matrix norm must differ, got ({}, {})", axes.0, axes.1);
        }
        let mut perm: Vec<i64> = (0..nd).filter(|&a| a != r && a != c).map(|a| a as i64).collect();
        perm.extend([r as i64, c as i64]);
        let moved = if perm.iter().enumerate().all(|(i, &p)| i as i64 == p) {
            x.clone()
        } else {
            self.transpose(x, Some(perm))?
        };
        let s = self.spectral_norm(&moved)?;
        if !keepdims {
            return Ok(s);
        }
        let shape: Vec<usize> =
            x.shape().iter().enumerate().map(|(a, &d)| if a == r || a == c { 1 } else { d }).collect();
        self.reshape_to(&s, &shape)
    }

    /// `linalg.diag(v)`: `[..., n]` → `[..., n, n]` with v on the diagonal.
    pub fn diag(&mut self, v: &Tensor) -> R<Tensor> {
        let s = v.shape();
        if s.is_empty() {
            bail!(Value, "diag: diagonal must have rank >= 1, got a scalar");
        }
        let n = s[s.len() - 1];
        let mut shape = s.to_vec();
        shape.push(n);
        crate::tensor::budget::check_shape(&shape)?;
        let idx: Vec<usize> = (0..v.len()).map(|k| (k / n) * n * n + (k % n) * (n + 1)).collect();
        self.take_add(v, Rc::new(idx), &shape)
    }

    /// `linalg.diag_part(x)`: `[..., m, n]` → `[..., min(m, n)]`, the main diagonals.
    pub fn diag_part(&mut self, x: &Tensor) -> R<Tensor> {
        let s = x.shape();
        if s.len() < 2 {
            bail!(Value, "diag_part: input must have rank >= 2, got shape {}", shape_str(s));
        }
        let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
        let k = m.min(n);
        let batch: usize = s[..s.len() - 2].iter().product();
        let idx: Vec<usize> = (0..batch * k).map(|j| (j / k.max(1)) * m * n + (j % k.max(1)) * (n + 1)).collect();
        let mut shape = s[..s.len() - 2].to_vec();
        shape.push(k);
        self.take(x, Rc::new(idx), &shape)
    }

    /// `linalg.trace(x)`: the sum of each main diagonal, `[..., m, n]` → `[...]`.
    pub fn trace(&mut self, x: &Tensor) -> R<Tensor> {
        let d = self.diag_part(x)?;
        self.reduce(Reduce::Sum, &d, Some(&[-1]), false)
    }

    /// `linalg.matvec(a, b)`: `a @ b[..., None]` squeezed: `[..., m, n]`, `[..., n]` → `[..., m]`.
    pub fn matvec(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        if a.shape().len() < 2 || b.shape().is_empty() {
            bail!(
                Value,
                "matvec: a must have rank >= 2 and b rank >= 1, got shapes {} and {}",
                shape_str(a.shape()),
                shape_str(b.shape())
            );
        }
        let mut col = b.shape().to_vec();
        col.push(1);
        let bc = self.reshape_to(b, &col)?;
        let p = self.matmul(a, &bc)?;
        let shape = p.shape()[..p.shape().len() - 1].to_vec();
        self.reshape_to(&p, &shape)
    }

    /// `x` with its last two axes swapped (recorded).
    fn mt(&mut self, x: &Tensor) -> R<Tensor> {
        let n = x.shape().len();
        let mut perm: Vec<i64> = (0..n as i64).collect();
        perm.swap(n - 2, n - 1);
        self.transpose(x, Some(perm))
    }

    /// `g` of shape `[...]` as `[..., 1, 1]` (to scale whole matrices).
    fn per_matrix(&mut self, g: &Tensor) -> R<Tensor> {
        let mut s = g.shape().to_vec();
        s.extend([1, 1]);
        self.reshape_to(g, &s)
    }

    /// The VJPs of this family.
    pub(super) fn linalg_vjp(&mut self, op: &Op, upstream: &[Tensor], needed: &[bool]) -> R<InputGrads> {
        let g = &upstream[0];
        let want = |i: usize| needed.get(i).copied().unwrap_or(false);
        Ok(match op {
            // Y = A⁻¹: dY = −Y dA Y  ⇒  gA = −Yᵀ g Yᵀ
            Op::MatrixInverse { y } => {
                let yt = self.mt(y)?;
                let t = self.matmul(&yt, g)?;
                let t = self.matmul(&t, &yt)?;
                smallvec![Some(self.unary(crate::tensor::kernels::Unary::Neg, &t)?)]
            }
            // d det A = det A · tr(A⁻¹ dA)  ⇒  gA = g · det A · A⁻ᵀ
            Op::Det { a, d } => {
                let gd = self.mul(g, d)?;
                let gd = self.per_matrix(&gd)?;
                let inv = self.matrix_inverse(a)?;
                let it = self.mt(&inv)?;
                smallvec![Some(self.mul(&gd, &it)?)]
            }
            // d log|det A| = tr(A⁻¹ dA)  ⇒  gA = g · A⁻ᵀ
            Op::LogAbsDet { a } => {
                let gm = self.per_matrix(g)?;
                let inv = self.matrix_inverse(a)?;
                let it = self.mt(&inv)?;
                smallvec![Some(self.mul(&gm, &it)?)]
            }
            // X = A⁻¹B: gB = A⁻ᵀ g (a solve with Aᵀ), gA = −gB Xᵀ
            Op::Solve { a, x } => {
                let at = self.mt(a)?;
                let gb = self.solve(&at, g)?;
                let ga = if want(0) {
                    let xt = self.mt(x)?;
                    let t = self.matmul(&gb, &xt)?;
                    Some(self.unary(crate::tensor::kernels::Unary::Neg, &t)?)
                } else {
                    None
                };
                smallvec![ga, want(1).then_some(gb)]
            }
            // A = L Lᵀ (Murray 2016, TF's rule): gA = ½ (X + Xᵀ), X = L⁻ᵀ Φ(Lᵀ g) L⁻¹, with Φ
            // the lower triangle with its diagonal halved.
            Op::Cholesky { l } => {
                let n = l.shape()[l.shape().len() - 1];
                let phi: Vec<f64> = (0..n * n)
                    .map(|k| match (k / n).cmp(&(k % n)) {
                        std::cmp::Ordering::Greater => 1.0,
                        std::cmp::Ordering::Equal => 0.5,
                        std::cmp::Ordering::Less => 0.0,
                    })
                    .collect();
                let phi = Tensor::new(crate::tensor::Array::from_f64(l.dtype(), &[n, n], phi));
                let lt = self.mt(l)?;
                let middle = self.matmul(&lt, g)?;
                let middle = self.mul(&middle, &phi)?;
                let li = self.matrix_inverse(l)?;
                let lit = self.mt(&li)?;
                let x = self.matmul(&lit, &middle)?;
                let x = self.matmul(&x, &li)?;
                let xt = self.mt(&x)?;
                let s = self.add(&x, &xt)?;
                smallvec![Some(self.mul_scalar(&s, 0.5)?)]
            }
            // σ = uᵀ A v with A v = σ u  ⇒  gA = g · u vᵀ (u, v held constant: first order only)
            Op::SpectralNorm { u, v } => {
                let mut us = u.shape().to_vec();
                us.push(1);
                let mut vs = v.shape().to_vec();
                vs.insert(vs.len() - 1, 1);
                let uc = Tensor {
                    id: crate::tensor::fresh_id(),
                    data: Rc::new(crate::tensor::kernels::reshape(&u.data, &us)),
                };
                let vr = Tensor {
                    id: crate::tensor::fresh_id(),
                    data: Rc::new(crate::tensor::kernels::reshape(&v.data, &vs)),
                };
                let uv = self.matmul(&uc, &vr)?;
                let gm = self.per_matrix(g)?;
                smallvec![Some(self.mul(&gm, &uv)?)]
            }
            _ => bail!(Runtime, "internal error: {op:?} is not a linear-algebra operation"),
        })
    }
}
