//! Matrix products over the last two axes: float32/float64 through gemm.rs
//! (threaded above 2^24 multiply-adds), transposed operands read through their
//! strides, other dtypes through ndarray, int64 exact or an error.

use super::pool::pool_threads;
use crate::tensor::array::Array;
use crate::tensor::error::{tensor_bail, tensor_err, TensorResult as R};
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::shape_str;
use ndarray::{ArrayD, Axis, IxDyn};

/// `x @ y` for 2-D views: float32/float64 through DGL's GEMM (`gemm.rs`: packed, blocked,
/// threaded, transposed views read through their strides, and the same bits on every CPU and
/// thread count); other dtypes through ndarray.
fn gemm2<T: ndarray::LinalgScalar>(x: ndarray::ArrayView2<T>, y: ndarray::ArrayView2<T>) -> ndarray::Array2<T> {
    use crate::tensor::gemm::{gemm, MatRef, Paths};
    use std::any::TypeId;
    let (n, k) = x.dim();
    let m = y.dim().1;
    let float = TypeId::of::<T>() == TypeId::of::<f32>() || TypeId::of::<T>() == TypeId::of::<f64>();
    if !float || n == 0 || m == 0 || k == 0 {
        return x.dot(&y);
    }
    // Below about 2^24 multiply-adds (a 256³ product) waking the thread pool costs more than it
    // saves (B2's 128×256×256 layers).
    let threads = if n * m * k >= 1 << 24 { pool_threads() } else { 1 };
    let mut out = ndarray::Array2::<T>::zeros((n, m));
    /// The product for one float type `E` (which is `T`, checked by the caller).
    unsafe fn go<E: Paths, T>(
        x: ndarray::ArrayView2<T>,
        y: ndarray::ArrayView2<T>,
        out: &mut ndarray::Array2<T>,
        threads: usize,
    ) {
        let (n, k) = x.dim();
        let m = y.dim().1;
        let (xs, ys) = (x.strides(), y.strides());
        let a = MatRef { ptr: x.as_ptr() as *const E, rs: xs[0], cs: xs[1] };
        let b = MatRef { ptr: y.as_ptr() as *const E, rs: ys[0], cs: ys[1] };
        let c = std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut E, n * m);
        gemm(crate::tensor::cpu::isa(), threads, n, m, k, a, b, c)
    }
    // SAFETY: T is the E named (TypeId), the views describe their arrays' elements exactly,
    // `out` is a fresh standard-layout array of n·m elements, and cpu::isa() is supported.
    unsafe {
        if TypeId::of::<T>() == TypeId::of::<f32>() {
            go::<f32, T>(x, y, &mut out, threads)
        } else {
            go::<f64, T>(x, y, &mut out, threads)
        }
    }
    out
}

/// `op(a) @ op(b)` for 2-D float arrays, where op transposes when `ta`/`tb` is set: the
/// transposes are read through strides, never copied (matmul's backward pass). `None` for other
/// ranks or dtypes, which the caller handles with an explicit transpose.
pub fn matmul_2d_transposed(a: &Array, b: &Array, ta: bool, tb: bool) -> Option<R<Array>> {
    fn go<T: ndarray::LinalgScalar>(x: &ArrayD<T>, y: &ArrayD<T>, ta: bool, tb: bool) -> R<ArrayD<T>> {
        let x2 = x.view().into_dimensionality::<ndarray::Ix2>().expect("rank checked");
        let y2 = y.view().into_dimensionality::<ndarray::Ix2>().expect("rank checked");
        let x2 = if ta { x2.reversed_axes() } else { x2 };
        let y2 = if tb { y2.reversed_axes() } else { y2 };
        if x2.dim().1 != y2.dim().0 {
            tensor_bail!(Shape, "matmul: inner dimensions differ in shapes {:?} and {:?}", x2.dim(), y2.dim());
        }
        crate::tensor::budget::check_shape(&[x2.dim().0, y2.dim().1])?;
        Ok(gemm2(x2, y2).into_dyn())
    }
    if a.shape().len() != 2 || b.shape().len() != 2 {
        return None;
    }
    match (a, b) {
        (Array::F32(x), Array::F32(y)) => Some(go(x, y, ta, tb).map(Array::F32)),
        (Array::F64(x), Array::F64(y)) => Some(go(x, y, ta, tb).map(Array::F64)),
        _ => None,
    }
}

/// Matrix product over the last two axes, batch axes broadcast.
///
/// Shapes: a [..., n, k] @ b [..., k, m] → [..., n, m].
/// Errors: ShapeError when ranks are below 2 or the inner dimensions differ.
pub fn matmul(a: &Array, b: &Array) -> R<Array> {
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() < 2 || sb.len() < 2 {
        tensor_bail!(
            Shape,
            "matmul needs tensors of rank 2 or more, got shapes {} and {}",
            shape_str(sa),
            shape_str(sb)
        );
    }
    let (n, k) = (sa[sa.len() - 2], sa[sa.len() - 1]);
    let (k2, m) = (sb[sb.len() - 2], sb[sb.len() - 1]);
    if k != k2 {
        tensor_bail!(Shape, "matmul: inner dimensions differ in shapes {} and {}", shape_str(sa), shape_str(sb));
    }
    let batch = broadcast_shapes(&sa[..sa.len() - 2], &sb[..sb.len() - 2])?;
    // Batch broadcasting materialises both operands at the batch shape: check all three before allocating.
    for (r, c) in [(n, m), (n, k), (k, m)] {
        let mut s = batch.clone();
        s.extend([r, c]);
        crate::tensor::budget::check_shape(&s)?;
    }
    fn go<T: ndarray::LinalgScalar>(x: &ArrayD<T>, y: &ArrayD<T>, n: usize, k: usize, m: usize) -> R<ArrayD<T>> {
        let (sa, sb) = (x.shape(), y.shape());
        if sa.len() == 2 && sb.len() == 2 {
            let x2 = x.view().into_dimensionality::<ndarray::Ix2>().unwrap();
            let y2 = y.view().into_dimensionality::<ndarray::Ix2>().unwrap();
            return Ok(gemm2(x2, y2).into_dyn());
        }
        let batch = broadcast_shapes(&sa[..sa.len() - 2], &sb[..sb.len() - 2])?;
        let mut xs = batch.clone();
        xs.extend([n, k]);
        let mut ys = batch.clone();
        ys.extend([k, m]);
        let xb = x.broadcast(IxDyn(&xs)).unwrap();
        let yb = y.broadcast(IxDyn(&ys)).unwrap();
        let count: usize = batch.iter().product();
        let xf = xb.as_standard_layout().into_owned().into_shape_with_order((count, n, k)).unwrap();
        let yf = yb.as_standard_layout().into_owned().into_shape_with_order((count, k, m)).unwrap();
        let mut out = ndarray::Array3::<T>::zeros((count, n, m));
        for i in 0..count {
            let p = gemm2(xf.index_axis(Axis(0), i), yf.index_axis(Axis(0), i));
            out.index_axis_mut(Axis(0), i).assign(&p);
        }
        let mut os = batch;
        os.extend([n, m]);
        Ok(out.into_shape_with_order(IxDyn(&os)).unwrap())
    }
    Ok(match (a, b) {
        (Array::F32(x), Array::F32(y)) => Array::F32(go(x, y, n, k, m)?),
        (Array::F64(x), Array::F64(y)) => Array::F64(go(x, y, n, k, m)?),
        (Array::I64(x), Array::I64(y)) => {
            // Exact or an error, never wrapped: checked products and sums.
            let mut shape = if sa.len() == 2 && sb.len() == 2 { vec![] } else { batch.clone() };
            shape.extend([n, m]);
            let mut xs = batch.clone();
            xs.extend([n, k]);
            let mut ys = batch.clone();
            ys.extend([k, m]);
            let xb = x.broadcast(IxDyn(&xs)).expect("batch shape checked");
            let yb = y.broadcast(IxDyn(&ys)).expect("batch shape checked");
            let count: usize = batch.iter().product();
            let xf =
                xb.as_standard_layout().into_owned().into_shape_with_order((count, n, k)).expect("standard layout");
            let yf =
                yb.as_standard_layout().into_owned().into_shape_with_order((count, k, m)).expect("standard layout");
            let mut out = Vec::with_capacity(count * n * m);
            for c in 0..count {
                for i in 0..n {
                    for j in 0..m {
                        let mut acc: i64 = 0;
                        for l in 0..k {
                            acc = xf[[c, i, l]]
                                .checked_mul(yf[[c, l, j]])
                                .and_then(|p| acc.checked_add(p))
                                .ok_or_else(|| tensor_err!(Value, "integer overflow in an int64 matmul"))?;
                        }
                        out.push(acc);
                    }
                }
            }
            Array::I64(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("one value per element"))
        }
        _ if a.dtype() == b.dtype() && a.dtype().is_narrow() => {
            matmul(&a.widened(), &b.widened())?.narrowed_to(a.dtype())
        }
        _ if a.dtype() != b.dtype() => {
            tensor_bail!(Type, "cannot mix {} and {} tensors (use cast)", a.dtype(), b.dtype())
        }
        _ => tensor_bail!(Type, "matmul is not defined on {} tensors", a.dtype()),
    })
}
