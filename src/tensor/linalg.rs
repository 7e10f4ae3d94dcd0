//! Dense linear algebra on batches of square matrices (the last two axes), in plain
//! Rust with float64 accumulation whatever the input dtype: LU with partial pivoting
//! (determinants, solves, inverses) and the largest singular triple (the spectral norm,
//! by Jacobi rotations on the smaller Gram matrix). No BLAS.

use super::error::{tensor_bail, TensorResult as R};
use super::{shape_str, Array};

/// The batch count and matrix size of a `[..., n, n]` shape.
///
/// Errors: ShapeError when the rank is below 2 or the last two axes differ.
pub fn square_batches(shape: &[usize], what: &str) -> R<(usize, usize)> {
    let r = shape.len();
    if r < 2 {
        tensor_bail!(Shape, "{what} needs a tensor of rank >= 2, got shape {}", shape_str(shape));
    }
    if shape[r - 1] != shape[r - 2] {
        tensor_bail!(Shape, "{what} needs square matrices, got shape {}", shape_str(shape));
    }
    Ok((shape[..r - 2].iter().product(), shape[r - 1]))
}

/// A float array's elements as f64 in row-major order.
///
/// Errors: TypeError for int64 and bool.
pub fn float_values(a: &Array, what: &str) -> R<Vec<f64>> {
    if !a.dtype().is_float() {
        tensor_bail!(Type, "{what} takes float32 or float64, not {}", a.dtype());
    }
    a.try_to_f64_vec()
}

/// An LU factorisation `P A = L U` of one n×n matrix, stored in place (L's unit diagonal implied).
pub struct Lu {
    n: usize,
    lu: Vec<f64>,
    /// Row `i` of `P A` is row `perm[i]` of A.
    perm: Vec<usize>,
    /// +1 or −1: the permutation's sign.
    sign: f64,
}

impl Lu {
    /// Factors `a` (row-major, n×n) with partial pivoting.
    pub fn new(mut a: Vec<f64>, n: usize) -> Lu {
        let mut perm: Vec<usize> = (0..n).collect();
        let mut sign = 1.0;
        for k in 0..n {
            let mut p = k;
            for i in k + 1..n {
                if a[i * n + k].abs() > a[p * n + k].abs() {
                    p = i;
                }
            }
            if p != k {
                for j in 0..n {
                    a.swap(k * n + j, p * n + j);
                }
                perm.swap(k, p);
                sign = -sign;
            }
            let pivot = a[k * n + k];
            if pivot == 0.0 {
                continue;
            }
            for i in k + 1..n {
                let f = a[i * n + k] / pivot;
                a[i * n + k] = f;
                if f != 0.0 {
                    for j in k + 1..n {
                        a[i * n + j] -= f * a[k * n + j];
                    }
                }
            }
        }
        Lu { n, lu: a, perm, sign }
    }

    /// Whether some pivot is exactly zero (TF's test for "not invertible").
    pub fn singular(&self) -> bool {
        (0..self.n).any(|k| self.lu[k * self.n + k] == 0.0)
    }

    pub fn det(&self) -> f64 {
        (0..self.n).fold(self.sign, |d, k| d * self.lu[k * self.n + k])
    }

    /// `(sign, log|det|)`; a singular matrix gives `(0, -inf)`.
    pub fn slogdet(&self) -> (f64, f64) {
        let mut sign = self.sign;
        let mut log = 0.0;
        for k in 0..self.n {
            let u = self.lu[k * self.n + k];
            if u == 0.0 {
                return (0.0, f64::NEG_INFINITY);
            }
            sign *= u.signum();
            log += u.abs().ln();
        }
        (sign, log)
    }

    /// Solves `A X = B` for B row-major n×m, in place (callers check [`Lu::singular`]).
    pub fn solve(&self, b: &[f64], m: usize) -> Vec<f64> {
        let n = self.n;
        let mut x = vec![0.0; n * m];
        for i in 0..n {
            x[i * m..(i + 1) * m].copy_from_slice(&b[self.perm[i] * m..(self.perm[i] + 1) * m]);
        }
        for c in 0..m {
            for i in 0..n {
                let mut s = x[i * m + c];
                for k in 0..i {
                    s -= self.lu[i * n + k] * x[k * m + c];
                }
                x[i * m + c] = s;
            }
            for i in (0..n).rev() {
                let mut s = x[i * m + c];
                for k in i + 1..n {
                    s -= self.lu[i * n + k] * x[k * m + c];
                }
                x[i * m + c] = s / self.lu[i * n + i];
            }
        }
        x
    }
}

/// Which function of an LU factorisation [`lu_map`] computes per matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LuOp {
    Det,
    /// `slogdet`'s sign.
    Sign,
    /// `slogdet`'s log|det|.
    LogAbsDet,
    Inv,
}

/// `det`, `slogdet`'s parts (`[...]` from `[..., n, n]`) or `inv` (same shape) of every matrix.
///
/// Errors: TypeError for int64/bool; ShapeError for a shape that is not `[..., n, n]`;
/// ValueError "input matrix is not invertible" for `Inv` of a matrix with a zero pivot.
pub fn lu_map(a: &Array, op: LuOp, what: &str) -> R<Array> {
    let (batch, n) = square_batches(a.shape(), what)?;
    let v = float_values(a, what)?;
    let per = if op == LuOp::Inv { n * n } else { 1 };
    let mut out = Vec::with_capacity(batch * per);
    let eye: Vec<f64> = (0..n * n).map(|i| if i / n.max(1) == i % n.max(1) { 1.0 } else { 0.0 }).collect();
    for b in 0..batch {
        let lu = Lu::new(v[b * n * n..(b + 1) * n * n].to_vec(), n);
        match op {
            LuOp::Det => out.push(lu.det()),
            LuOp::Sign => out.push(lu.slogdet().0),
            LuOp::LogAbsDet => out.push(lu.slogdet().1),
            LuOp::Inv => {
                if lu.singular() {
                    tensor_bail!(Value, "{what}: input matrix is not invertible");
                }
                out.extend(lu.solve(&eye, n));
            }
        }
    }
    let r = a.shape().len();
    let shape = if op == LuOp::Inv { a.shape() } else { &a.shape()[..r - 2] };
    Ok(Array::from_f64(a.dtype(), shape, out))
}

/// `solve(a, b)`: X with `A X = B` for A `[..., n, n]` and B `[..., n, m]` (same batch shape).
///
/// Errors: TypeError for int64/bool or mixed dtypes; ShapeError for mismatched shapes;
/// ValueError "input matrix is not invertible".
pub fn solve(a: &Array, b: &Array) -> R<Array> {
    let (batch, n) = square_batches(a.shape(), "solve")?;
    let (ra, rb) = (a.shape().len(), b.shape().len());
    if a.dtype() != b.dtype() {
        tensor_bail!(Type, "solve: matrix and rhs must have one dtype, got {} and {}", a.dtype(), b.dtype());
    }
    if ra != rb || a.shape()[..ra - 2] != b.shape()[..rb - 2] || b.shape()[rb - 2] != n {
        tensor_bail!(
            Shape,
            "solve: matrix of shape {} and rhs of shape {} do not match (rhs must be [..., {n}, m] with the same batch shape)",
            shape_str(a.shape()),
            shape_str(b.shape())
        );
    }
    let m = b.shape()[rb - 1];
    let (va, vb) = (float_values(a, "solve")?, float_values(b, "solve")?);
    let mut out = Vec::with_capacity(batch * n * m);
    for k in 0..batch {
        let lu = Lu::new(va[k * n * n..(k + 1) * n * n].to_vec(), n);
        if lu.singular() {
            tensor_bail!(Value, "solve: input matrix is not invertible");
        }
        out.extend(lu.solve(&vb[k * n * m..(k + 1) * n * m], m));
    }
    Ok(Array::from_f64(a.dtype(), b.shape(), out))
}

/// `cholesky(a)`: the lower-triangular L with `L Lᵀ = A` for each `[..., n, n]` matrix,
/// reading only A's lower triangle (as TF).
///
/// Errors: TypeError for int64/bool; ShapeError for a shape that is not `[..., n, n]`;
/// ValueError when a matrix is not positive definite (TF's CPU kernel returns garbage or
/// raises, depending on where the factorisation fails).
pub fn cholesky(a: &Array) -> R<Array> {
    let (batch, n) = square_batches(a.shape(), "cholesky")?;
    let v = float_values(a, "cholesky")?;
    let mut out = vec![0.0; v.len()];
    for b in 0..batch {
        let (x, l) = (&v[b * n * n..(b + 1) * n * n], &mut out[b * n * n..(b + 1) * n * n]);
        for j in 0..n {
            let d = x[j * n + j] - (0..j).map(|k| l[j * n + k] * l[j * n + k]).sum::<f64>();
            if d.is_nan() || d <= 0.0 {
                tensor_bail!(Value, "cholesky: input matrix is not positive definite");
            }
            let djj = d.sqrt();
            l[j * n + j] = djj;
            for i in j + 1..n {
                let s = x[i * n + j] - (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum::<f64>();
                l[i * n + j] = s / djj;
            }
        }
    }
    Ok(Array::from_f64(a.dtype(), a.shape(), out))
}

/// The largest singular value σ of each `[..., m, n]` matrix with its unit singular
/// vectors u (m) and v (n), `A v = σ u`: σ `[...]`, u `[..., m]`, v `[..., n]`, each of a's dtype.
/// Computed from the eigen-decomposition (cyclic Jacobi) of the smaller Gram matrix.
///
/// Errors: TypeError for int64/bool; ShapeError for rank < 2.
pub fn spectral(a: &Array) -> R<(Array, Array, Array)> {
    let shape = a.shape();
    let r = shape.len();
    if r < 2 {
        tensor_bail!(Shape, "the spectral norm needs a matrix, got shape {}", shape_str(shape));
    }
    let (m, n) = (shape[r - 2], shape[r - 1]);
    let batch: usize = shape[..r - 2].iter().product();
    let v = float_values(a, "norm")?;
    let (mut sig, mut us, mut vs) = (Vec::new(), Vec::new(), Vec::new());
    for b in 0..batch {
        let x = &v[b * m * n..(b + 1) * m * n];
        let at = |i: usize, j: usize| x[i * n + j];
        // Gram matrix over the smaller side: AᵀA (n×n) or AAᵀ (m×m).
        let wide = m < n;
        let k = if wide { m } else { n };
        let mut g = vec![0.0; k * k];
        for i in 0..k {
            for j in 0..k {
                g[i * k + j] = if wide {
                    (0..n).map(|t| at(i, t) * at(j, t)).sum()
                } else {
                    (0..m).map(|t| at(t, i) * at(t, j)).sum()
                };
            }
        }
        let (lambda, e) = top_eigen(g, k);
        let s = lambda.max(0.0).sqrt();
        // The other side's vector: A e / σ (or Aᵀ e / σ); any unit vector when σ = 0.
        let other_len = if wide { n } else { m };
        let mut o: Vec<f64> = (0..other_len)
            .map(|i| if wide { (0..m).map(|t| at(t, i) * e[t]).sum() } else { (0..n).map(|t| at(i, t) * e[t]).sum() })
            .collect();
        let norm = o.iter().map(|z| z * z).sum::<f64>().sqrt();
        if norm > 0.0 {
            o.iter_mut().for_each(|z| *z /= norm);
        } else if let Some(z) = o.first_mut() {
            *z = 1.0;
        }
        let (u, vv) = if wide { (e, o) } else { (o, e) };
        sig.push(s);
        us.extend(u);
        vs.extend(vv);
    }
    let lead = &shape[..r - 2];
    let with = |d: usize| lead.iter().copied().chain([d]).collect::<Vec<_>>();
    let dt = a.dtype();
    Ok((Array::from_f64(dt, lead, sig), Array::from_f64(dt, &with(m), us), Array::from_f64(dt, &with(n), vs)))
}

/// The largest eigenvalue of a symmetric k×k matrix and a unit eigenvector (cyclic Jacobi).
fn top_eigen(mut g: Vec<f64>, k: usize) -> (f64, Vec<f64>) {
    let mut vecs: Vec<f64> = (0..k * k).map(|i| if i / k == i % k { 1.0 } else { 0.0 }).collect();
    for _sweep in 0..60 {
        let off: f64 = (0..k)
            .flat_map(|i| (0..k).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| g[i * k + j].powi(2))
            .sum();
        let diag: f64 = (0..k).map(|i| g[i * k + i].powi(2)).sum();
        if off <= 1e-30 * diag.max(f64::MIN_POSITIVE) {
            break;
        }
        for p in 0..k {
            for q in p + 1..k {
                let apq = g[p * k + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (g[q * k + q] - g[p * k + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for r in 0..k {
                    let (grp, grq) = (g[r * k + p], g[r * k + q]);
                    g[r * k + p] = c * grp - s * grq;
                    g[r * k + q] = s * grp + c * grq;
                }
                for r in 0..k {
                    let (gpr, gqr) = (g[p * k + r], g[q * k + r]);
                    g[p * k + r] = c * gpr - s * gqr;
                    g[q * k + r] = s * gpr + c * gqr;
                }
                for r in 0..k {
                    let (vrp, vrq) = (vecs[r * k + p], vecs[r * k + q]);
                    vecs[r * k + p] = c * vrp - s * vrq;
                    vecs[r * k + q] = s * vrp + c * vrq;
                }
            }
        }
    }
    let best = (0..k).max_by(|&i, &j| g[i * k + i].total_cmp(&g[j * k + j])).unwrap_or(0);
    let lambda = if k == 0 { 0.0 } else { g[best * k + best] };
    let mut e: Vec<f64> = (0..k).map(|r| vecs[r * k + best]).collect();
    // A fixed sign (largest component positive) so results do not depend on rotation order.
    if let Some(big) = e.iter().copied().max_by(|a, b| a.abs().total_cmp(&b.abs())) {
        if big < 0.0 {
            e.iter_mut().for_each(|z| *z = -*z);
        }
    }
    (lambda, e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::DType;

    fn m(shape: &[usize], v: &[f64]) -> Array {
        Array::from_f64(DType::F64, shape, v.to_vec())
    }

    #[test]
    fn lu_gives_det_inverse_and_solutions() {
        let a = m(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(lu_map(&a, LuOp::Det, "det").unwrap().to_f64_vec(), vec![-2.0]);
        let inv = lu_map(&a, LuOp::Inv, "inv").unwrap().to_f64_vec();
        let want = [-2.0, 1.0, 1.5, -0.5];
        assert!(inv.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-12), "{inv:?}");
        let x = solve(&a, &m(&[2, 1], &[5.0, 6.0])).unwrap().to_f64_vec();
        assert!((x[0] + 4.0).abs() < 1e-12 && (x[1] - 4.5).abs() < 1e-12, "{x:?}");
        let s = m(&[2, 2], &[1.0, 2.0, 2.0, 4.0]);
        assert!(lu_map(&s, LuOp::Inv, "inv").is_err());
        assert_eq!(lu_map(&s, LuOp::LogAbsDet, "slogdet").unwrap().to_f64_vec(), vec![f64::NEG_INFINITY]);
    }

    #[test]
    fn cholesky_of_a_known_matrix() {
        // [[4, 2], [2, 5]] = L Lᵀ with L = [[2, 0], [1, 2]].
        let l = cholesky(&m(&[2, 2], &[4.0, 2.0, 2.0, 5.0])).unwrap();
        assert_eq!(l.to_f64_vec(), vec![2.0, 0.0, 1.0, 2.0]);
        assert!(cholesky(&m(&[2, 2], &[1.0, 2.0, 2.0, 1.0])).is_err());
    }

    #[test]
    fn spectral_norm_of_a_known_matrix() {
        // [[1, 2], [3, 4]]: σ_max = 5.464985704219043
        let (s, _, _) = spectral(&m(&[2, 2], &[1.0, 2.0, 3.0, 4.0])).unwrap();
        assert!((s.to_f64_vec()[0] - 5.464985704219043).abs() < 1e-12);
        let (s, u, v) = spectral(&m(&[2, 3], &[1.0, 0.0, 0.0, 0.0, 0.0, 2.0])).unwrap();
        assert_eq!(s.to_f64_vec(), vec![2.0]);
        assert_eq!(u.to_f64_vec(), vec![0.0, 1.0]);
        assert_eq!(v.to_f64_vec(), vec![0.0, 0.0, 1.0]);
    }
}
