//! The `linalg` namespace (TF's `tf.linalg`): a built-in module, read as `linalg.solve(…)`
//! without an import (and `import linalg` gives the same module). Matrices are the last
//! two axes of a tensor; leading axes are a batch. Kernels: `tensor/linalg.rs` (LU with
//! partial pivoting and float64 accumulation, no BLAS); operations and VJPs:
//! `autodiff/ops/linalg.rs`.

use super::Native;
use crate::bail;
use crate::error::R;
use crate::intern::intern;
use crate::runtime::value::{Args, Globals, Module, Value};
use crate::runtime::Interp;
use crate::tensor::Tensor;
use std::rc::Rc;

/// The `linalg` module's own functions.
pub(super) const NATIVES: [&Native; 10] =
    [&CHOLESKY, &SOLVE, &INV, &DET, &SLOGDET, &DIAG, &DIAG_PART, &TRACE, &MATVEC, &ADJOINT];

/// Builds the `linalg` module: its own functions, and the builtins TF also lists under
/// `tf.linalg` (`matmul`, `eye`, `norm`, `global_norm`, `einsum`), shared, not copied.
pub fn install(rt: &mut Interp) {
    let globals = Rc::new(Globals::default());
    for b in NATIVES {
        rt.set_global(&globals, intern(b.name), b.value_named(&format!("linalg.{}", b.name)));
    }
    for name in ["matmul", "eye", "norm", "global_norm", "einsum"] {
        if let Some(v) = rt.builtins.get(&intern(name)).cloned() {
            rt.set_global(&globals, intern(name), v);
        }
    }
    let module = Rc::new(Module::new("linalg", globals, None));
    rt.modules.insert("linalg".to_string(), module.clone());
    rt.builtins.insert(intern("linalg"), Value::Module(module));
}

/// A matrix argument: with `adjoint`, its last two axes swapped (real matrices: the transpose).
fn matrix(rt: &mut Interp, t: Tensor, adjoint: bool) -> R<Tensor> {
    if !adjoint {
        return Ok(t);
    }
    let n = t.shape().len();
    if n < 2 {
        bail!(Value, "adjoint needs a tensor of rank >= 2, got rank {n}");
    }
    let mut perm: Vec<i64> = (0..n as i64).collect();
    perm.swap(n - 2, n - 1);
    rt.ad.transpose(&t, Some(perm))
}

static SOLVE: Native = Native::new("solve", &["matrix: TensorLike", "rhs: TensorLike", "adjoint: bool = False"], solve)
    .spelled(&["tf.linalg.solve"]);

/// `linalg.solve(matrix, rhs, adjoint=False)`: X with `matrix @ X = rhs` (or
/// `adjoint(matrix) @ X = rhs`).
///
/// Shapes: matrix [..., n, n], rhs [..., n, m] with the same batch axes → [..., n, m].
/// Dtypes: float32, float64, one for both (float64 accumulation). Gradient: rhs gets
/// `solve(adjoint(A), g)`, matrix gets `−solve(adjoint(A), g) @ adjoint(X)`.
/// Errors: ValueError "input matrix is not invertible" (a zero pivot, as TF's test);
/// ShapeError for non-square matrices or mismatched shapes; TypeError for int64/bool or
/// mixed dtypes.
/// See: tf.linalg.solve.
fn solve(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SOLVE.bind(rt, args)?;
    let (m, b, adj) = (a.tensor("matrix")?, a.tensor("rhs")?, a.bool_or("adjoint", false)?);
    let m = matrix(rt, m, adj)?;
    Ok(Value::Tensor(rt.ad.solve(&m, &b)?))
}

static INV: Native = Native::new("inv", &["input: TensorLike", "adjoint: bool = False"], inv)
    .spelled(&["tf.linalg.inv", "np.linalg.inv"]);

/// `linalg.inv(input, adjoint=False)`: the inverse of each matrix (of its adjoint).
///
/// Shapes: [..., n, n] → same. Dtypes: float32, float64. Gradient: −Yᵀ g Yᵀ with Y the inverse.
/// Errors: ValueError "input matrix is not invertible"; ShapeError for non-square or rank < 2;
/// TypeError for int64/bool.
/// See: tf.linalg.inv.
fn inv(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = INV.bind(rt, args)?;
    let (m, adj) = (a.tensor("input")?, a.bool_or("adjoint", false)?);
    let m = matrix(rt, m, adj)?;
    Ok(Value::Tensor(rt.ad.matrix_inverse(&m)?))
}

static DET: Native = Native::new("det", &["input: TensorLike"], det).spelled(&["tf.linalg.det", "np.linalg.det"]);

/// `linalg.det(input)`: the determinant of each matrix (0 for a singular one).
///
/// Shapes: [..., n, n] → [...]; an empty 0×0 matrix has determinant 1. Dtypes: float32,
/// float64. Gradient: g · det(A) · A⁻ᵀ (an error at a singular matrix, as TF's).
/// Errors: ShapeError for non-square or rank < 2; TypeError for int64/bool.
/// See: tf.linalg.det.
fn det(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let m = DET.bind(rt, args)?.tensor("input")?;
    Ok(Value::Tensor(rt.ad.det(&m)?))
}

static SLOGDET: Native = Native::new("slogdet", &["input: TensorLike"], slogdet).spelled(&["tf.linalg.slogdet"]);

/// `linalg.slogdet(input)`: `(sign, log_abs_determinant)` of each matrix, a pair that also
/// has `.sign` and `.log_abs_determinant` (TF's namedtuple); a singular matrix gives
/// `(0, -inf)`.
///
/// Shapes: [..., n, n] → [...] each. Dtypes: float32, float64. Gradient: to A through
/// log|det|: g · A⁻ᵀ; the sign has none.
/// Errors: as det.
/// See: tf.linalg.slogdet.
fn slogdet(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let m = SLOGDET.bind(rt, args)?.tensor("input")?;
    let (s, l) = rt.ad.slogdet(&m)?;
    Ok(super::select_fns::named_tuple(
        rt,
        "LogMatrixDeterminant",
        &[("sign", Value::Tensor(s)), ("log_abs_determinant", Value::Tensor(l))],
    ))
}

static CHOLESKY: Native =
    Native::new("cholesky", &["input: TensorLike"], cholesky).spelled(&["tf.linalg.cholesky", "np.linalg.cholesky"]);

/// `linalg.cholesky(input)`: the lower-triangular L with `L @ transpose(L) = input`, for
/// symmetric positive-definite matrices (only the lower triangle of input is read, as TF).
///
/// Shapes: [..., n, n] → same. Dtypes: float32, float64 (float64 accumulation).
/// Gradient: TF's symmetric rule, ½ (X + Xᵀ) with X = L⁻ᵀ Φ(Lᵀ g) L⁻¹ (Φ: the lower
/// triangle with the diagonal halved).
/// Errors: ValueError when a matrix is not positive definite (TF's CPU kernel may instead
/// return NaNs); ShapeError for non-square or rank < 2; TypeError for int64/bool.
/// See: tf.linalg.cholesky.
fn cholesky(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let m = CHOLESKY.bind(rt, args)?.tensor("input")?;
    Ok(Value::Tensor(rt.ad.cholesky(&m)?))
}

static DIAG: Native = Native::new("diag", &["diagonal: TensorLike"], diag).spelled(&["tf.linalg.diag"]);

/// `linalg.diag(diagonal)`: square matrices with `diagonal` on the main diagonal, zeros elsewhere.
///
/// Shapes: [..., n] → [..., n, n]. Dtypes: any but bool. Gradient: the diagonal of upstream.
/// Errors: ValueError for a scalar. (TF's `k`, `num_rows`, … are not supported.)
/// See: tf.linalg.diag.
fn diag(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let v = DIAG.bind(rt, args)?.tensor("diagonal")?;
    Ok(Value::Tensor(rt.ad.diag(&v)?))
}

static DIAG_PART: Native =
    Native::new("diag_part", &["input: TensorLike"], diag_part).spelled(&["tf.linalg.diag_part"]);

/// `linalg.diag_part(input)`: the main diagonal of each matrix.
///
/// Shapes: [..., m, n] → [..., min(m, n)]. Dtypes: any. Gradient: upstream on the diagonal, zeros elsewhere.
/// Errors: ValueError for rank < 2.
/// See: tf.linalg.diag_part.
fn diag_part(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = DIAG_PART.bind(rt, args)?.tensor("input")?;
    Ok(Value::Tensor(rt.ad.diag_part(&x)?))
}

static TRACE: Native = Native::new("trace", &["x: TensorLike"], trace).spelled(&["tf.linalg.trace"]);

/// `linalg.trace(x)`: the sum of each main diagonal.
///
/// Shapes: [..., m, n] → [...]. Dtypes: float32, float64, int64. Gradient: upstream on the diagonal.
/// Errors: ValueError for rank < 2.
/// See: tf.linalg.trace.
fn trace(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = TRACE.bind(rt, args)?.tensor("x")?;
    Ok(Value::Tensor(rt.ad.trace(&x)?))
}

static MATVEC: Native = Native::new("matvec", &["a: TensorLike", "b: TensorLike", "transpose_a: bool = False"], matvec)
    .spelled(&["tf.linalg.matvec"]);

/// `linalg.matvec(a, b, transpose_a=False)`: matrix times vector, `a @ b[..., None]` squeezed.
///
/// Shapes: a [..., m, n], b [..., n] (batch axes broadcast) → [..., m]. Dtypes: as matmul.
/// Gradient: as matmul. Errors: ValueError for a of rank < 2 or a scalar b; ShapeError for
/// mismatched sizes.
/// See: tf.linalg.matvec.
fn matvec(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = MATVEC.bind(rt, args)?;
    let (m, v, t) = (a.tensor("a")?, a.tensor("b")?, a.bool_or("transpose_a", false)?);
    let m = matrix(rt, m, t)?;
    Ok(Value::Tensor(rt.ad.matvec(&m, &v)?))
}

static ADJOINT: Native = Native::new("adjoint", &["matrix: TensorLike"], adjoint)
    .spelled(&["tf.linalg.adjoint", "tf.linalg.matrix_transpose"]);

/// `linalg.adjoint(matrix)`: the last two axes swapped (real matrices: the transpose).
///
/// Gradient: the adjoint of upstream. Errors: ValueError for rank < 2.
/// See: tf.linalg.adjoint.
fn adjoint(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let m = ADJOINT.bind(rt, args)?.tensor("matrix")?;
    Ok(Value::Tensor(matrix(rt, m, true)?))
}
