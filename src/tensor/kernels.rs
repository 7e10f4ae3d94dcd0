//! Numeric kernels over [`Array`]: elementwise with broadcasting, reductions,
//! linear algebra, shape ops and neural-network functions. Pure functions of
//! their inputs: no tape, no ids.

use super::array::{Array, DType};
use super::shape::{broadcast_shapes, reduced_shape};
use super::shape_str;
use crate::bail;
use crate::runtime::error::R;
use ndarray::{ArrayD, Axis, IxDyn, Zip};
use num_traits::Float;

/// Elementwise binary operations (LANGUAGE.md §4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Maximum,
    Minimum,
    FloorDiv,
    Mod,
}

/// Elementwise comparisons; results are bool.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Compare {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// Elementwise float functions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unary {
    Neg,
    Abs,
    Exp,
    Log,
    Log1p,
    Sqrt,
    Square,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sigmoid,
    Relu,
    Softplus,
    Sign,
    /// 1 where x > 0, else 0 (the derivative of relu, TF's choice at 0).
    Step,
    Reciprocal,
}

/// Zips two arrays under NumPy broadcasting.
fn zip_bcast<T: Copy, U>(a: &ArrayD<T>, b: &ArrayD<T>, f: impl Fn(T, T) -> U) -> R<ArrayD<U>> {
    if a.shape() == b.shape() {
        return Ok(Zip::from(a).and(b).map_collect(|&x, &y| f(x, y)));
    }
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let av = a.broadcast(IxDyn(&shape)).expect("broadcast shape checked");
    let bv = b.broadcast(IxDyn(&shape)).expect("broadcast shape checked");
    Ok(Zip::from(&av).and(&bv).map_collect(|&x, &y| f(x, y)))
}

fn float_binary<T: Float>(op: Binary) -> impl Fn(T, T) -> T {
    move |x: T, y: T| match op {
        Binary::Add => x + y,
        Binary::Sub => x - y,
        Binary::Mul => x * y,
        Binary::Div => x / y,
        Binary::Pow => x.powf(y),
        // TF propagates NaN from either side of maximum/minimum.
        Binary::Maximum => {
            if x.is_nan() || y.is_nan() {
                T::nan()
            } else if x >= y {
                x
            } else {
                y
            }
        }
        Binary::Minimum => {
            if x.is_nan() || y.is_nan() {
                T::nan()
            } else if x <= y {
                x
            } else {
                y
            }
        }
        Binary::FloorDiv => (x / y).floor(),
        Binary::Mod => {
            let r = x % y;
            if r != T::zero() && ((r < T::zero()) != (y < T::zero())) {
                r + y
            } else {
                r
            }
        }
    }
}

fn int_binary(op: Binary, x: i64, y: i64) -> i64 {
    match op {
        Binary::Add => x.wrapping_add(y),
        Binary::Sub => x.wrapping_sub(y),
        Binary::Mul => x.wrapping_mul(y),
        Binary::Pow => {
            if y < 0 {
                0
            } else {
                x.wrapping_pow(y.min(u32::MAX as i64) as u32)
            }
        }
        Binary::Maximum => x.max(y),
        Binary::Minimum => x.min(y),
        Binary::FloorDiv | Binary::Div => {
            if y == 0 {
                return 0;
            }
            let q = x.wrapping_div(y);
            if x.wrapping_rem(y) != 0 && ((x < 0) != (y < 0)) {
                q - 1
            } else {
                q
            }
        }
        Binary::Mod => {
            if y == 0 {
                0
            } else {
                let r = x.wrapping_rem(y);
                if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                }
            }
        }
    }
}

/// `a op b` elementwise with broadcasting; both must have one dtype.
///
/// Errors: TypeError on mixed dtypes or bool arithmetic; ShapeError when the shapes do not broadcast.
pub fn binary(op: Binary, a: &Array, b: &Array) -> R<Array> {
    Ok(match (a, b) {
        (Array::F32(x), Array::F32(y)) => Array::F32(zip_bcast(x, y, float_binary::<f32>(op))?),
        (Array::F64(x), Array::F64(y)) => Array::F64(zip_bcast(x, y, float_binary::<f64>(op))?),
        (Array::I64(x), Array::I64(y)) => {
            if op == Binary::Div {
                // TF's truediv of integers gives float64.
                Array::F64(zip_bcast(x, y, |p, q| p as f64 / q as f64)?)
            } else {
                Array::I64(zip_bcast(x, y, |p, q| int_binary(op, p, q))?)
            }
        }
        _ if a.dtype() != b.dtype() => {
            bail!(Type, "cannot mix {} and {} tensors (use cast)", a.dtype(), b.dtype())
        }
        _ => bail!(Type, "arithmetic is not defined on {} tensors", a.dtype()),
    })
}

/// Elementwise comparison with broadcasting; the result is bool.
pub fn compare(op: Compare, a: &Array, b: &Array) -> R<Array> {
    fn cmp<T: PartialOrd + Copy>(op: Compare, x: &ArrayD<T>, y: &ArrayD<T>) -> R<ArrayD<bool>> {
        zip_bcast(x, y, |p, q| match op {
            Compare::Lt => p < q,
            Compare::Le => p <= q,
            Compare::Gt => p > q,
            Compare::Ge => p >= q,
            Compare::Eq => p == q,
            Compare::Ne => p != q,
        })
    }
    Ok(Array::Bool(match (a, b) {
        (Array::F32(x), Array::F32(y)) => cmp(op, x, y)?,
        (Array::F64(x), Array::F64(y)) => cmp(op, x, y)?,
        (Array::I64(x), Array::I64(y)) => cmp(op, x, y)?,
        (Array::Bool(x), Array::Bool(y)) => cmp(op, x, y)?,
        _ => bail!(Type, "cannot compare {} and {} tensors (use cast)", a.dtype(), b.dtype()),
    }))
}

fn float_unary<T: Float>(op: Unary) -> impl Fn(T) -> T {
    move |x: T| {
        let one = T::one();
        let zero = T::zero();
        match op {
            Unary::Neg => -x,
            Unary::Abs => x.abs(),
            Unary::Exp => x.exp(),
            Unary::Log => x.ln(),
            Unary::Log1p => x.ln_1p(),
            Unary::Sqrt => x.sqrt(),
            Unary::Square => x * x,
            Unary::Sin => x.sin(),
            Unary::Cos => x.cos(),
            Unary::Tan => x.tan(),
            Unary::Tanh => x.tanh(),
            Unary::Sigmoid => {
                // Stable for large |x|.
                if x >= zero {
                    one / (one + (-x).exp())
                } else {
                    let e = x.exp();
                    e / (one + e)
                }
            }
            Unary::Relu => {
                if x > zero {
                    x
                } else {
                    zero
                }
            }
            Unary::Softplus => {
                // log(1 + e^x) without overflow.
                if x > zero {
                    x + (-x).exp().ln_1p()
                } else {
                    x.exp().ln_1p()
                }
            }
            Unary::Sign => {
                if x > zero {
                    one
                } else if x < zero {
                    -one
                } else if x.is_nan() {
                    x
                } else {
                    zero
                }
            }
            Unary::Step => {
                if x > zero {
                    one
                } else {
                    zero
                }
            }
            Unary::Reciprocal => one / x,
        }
    }
}

/// `f(x)` elementwise. Neg, Abs, Square and Sign also work on int64.
///
/// Errors: TypeError on bool, or on int64 for transcendental functions.
pub fn unary(op: Unary, a: &Array) -> R<Array> {
    Ok(match a {
        Array::F32(x) => Array::F32(x.mapv(float_unary::<f32>(op))),
        Array::F64(x) => Array::F64(x.mapv(float_unary::<f64>(op))),
        Array::I64(x) => Array::I64(match op {
            Unary::Neg => x.mapv(|v| v.wrapping_neg()),
            Unary::Abs => x.mapv(|v| v.wrapping_abs()),
            Unary::Square => x.mapv(|v| v.wrapping_mul(v)),
            Unary::Sign => x.mapv(|v| v.signum()),
            Unary::Relu => x.mapv(|v| v.max(0)),
            _ => bail!(Type, "{} needs a float tensor, got int64 (use cast)", unary_name(op)),
        }),
        Array::Bool(_) => bail!(Type, "{} is not defined on bool tensors", unary_name(op)),
    })
}

pub fn unary_name(op: Unary) -> &'static str {
    match op {
        Unary::Neg => "neg",
        Unary::Abs => "abs",
        Unary::Exp => "exp",
        Unary::Log => "log",
        Unary::Log1p => "log1p",
        Unary::Sqrt => "sqrt",
        Unary::Square => "square",
        Unary::Sin => "sin",
        Unary::Cos => "cos",
        Unary::Tan => "tan",
        Unary::Tanh => "tanh",
        Unary::Sigmoid => "sigmoid",
        Unary::Relu => "relu",
        Unary::Softplus => "softplus",
        Unary::Sign => "sign",
        Unary::Step => "step",
        Unary::Reciprocal => "reciprocal",
    }
}

/// Reductions over sorted, distinct axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reduce {
    Sum,
    Mean,
    Max,
    Min,
}

fn reduce_generic<T: Copy>(
    a: &ArrayD<T>,
    axes: &[usize],
    keepdims: bool,
    f: impl Fn(ndarray::ArrayViewD<T>) -> T,
) -> ArrayD<T> {
    let shape = reduced_shape(a.shape(), axes, true);
    let mut out = ArrayD::from_shape_fn(IxDyn(&shape), |_| placeholder_of(a));
    // Walk every output cell and reduce the sub-view it covers.
    let mut idx = vec![0usize; a.ndim()];
    let total: usize = shape.iter().product();
    for flat in 0..total {
        let mut rem = flat;
        for d in (0..shape.len()).rev() {
            idx[d] = rem % shape[d];
            rem /= shape[d];
        }
        let mut view = a.view();
        for d in (0..a.ndim()).rev() {
            if !axes.contains(&d) {
                view.collapse_axis(Axis(d), idx[d]);
            }
        }
        out[IxDyn(&idx)] = f(view);
    }
    if keepdims {
        out
    } else {
        let s = reduced_shape(a.shape(), axes, false);
        out.into_shape_with_order(IxDyn(&s)).expect("same element count")
    }
}

fn placeholder_of<T: Copy>(a: &ArrayD<T>) -> T {
    // Any element works as a placeholder; every cell is overwritten.
    *a.iter().next().expect("non-empty reduction input")
}

fn reduce_float<T: Float>(op: Reduce, a: &ArrayD<T>, axes: &[usize], keepdims: bool) -> ArrayD<T> {
    if a.is_empty() {
        let shape = reduced_shape(a.shape(), axes, keepdims);
        let fill = match op {
            Reduce::Sum => T::zero(),
            Reduce::Mean => T::nan(),
            Reduce::Max => T::neg_infinity(),
            Reduce::Min => T::infinity(),
        };
        return ArrayD::from_elem(IxDyn(&shape), fill);
    }
    reduce_generic(a, axes, keepdims, |v| match op {
        Reduce::Sum => v.iter().fold(T::zero(), |s, &x| s + x),
        Reduce::Mean => {
            let n = T::from(v.len()).unwrap();
            v.iter().fold(T::zero(), |s, &x| s + x) / n
        }
        Reduce::Max => v.iter().fold(T::neg_infinity(), |m, &x| if x > m || x.is_nan() { x } else { m }),
        Reduce::Min => v.iter().fold(T::infinity(), |m, &x| if x < m || x.is_nan() { x } else { m }),
    })
}

/// Reduces `a` over `axes` (normalised, sorted).
///
/// Errors: TypeError on bool tensors; ValueError for max/min of an empty int64 tensor.
pub fn reduce(op: Reduce, a: &Array, axes: &[usize], keepdims: bool) -> R<Array> {
    Ok(match a {
        Array::F32(x) => Array::F32(reduce_float(op, x, axes, keepdims)),
        Array::F64(x) => Array::F64(reduce_float(op, x, axes, keepdims)),
        Array::I64(x) => {
            if x.is_empty() {
                bail!(Value, "cannot reduce an empty int64 tensor");
            }
            Array::I64(reduce_generic(x, axes, keepdims, |v| match op {
                Reduce::Sum => v.iter().sum(),
                Reduce::Mean => v.iter().sum::<i64>() / v.len() as i64,
                Reduce::Max => *v.iter().max().unwrap(),
                Reduce::Min => *v.iter().min().unwrap(),
            }))
        }
        Array::Bool(_) => bail!(Type, "cannot reduce a bool tensor (use cast)"),
    })
}

/// Index of the largest element along `axis` (first on ties), as int64.
pub fn argmax(a: &Array, axis: usize) -> R<Array> {
    fn go<T: PartialOrd + Copy>(x: &ArrayD<T>, axis: usize) -> ArrayD<i64> {
        x.map_axis(Axis(axis), |lane| {
            let mut best = 0usize;
            for (i, v) in lane.iter().enumerate() {
                if *v > lane[best] {
                    best = i;
                }
            }
            best as i64
        })
    }
    if a.shape().get(axis).copied().unwrap_or(0) == 0 {
        bail!(Value, "argmax of an empty axis");
    }
    Ok(Array::I64(match a {
        Array::F32(x) => go(x, axis),
        Array::F64(x) => go(x, axis),
        Array::I64(x) => go(x, axis),
        Array::Bool(x) => go(x, axis),
    }))
}

/// Matrix product over the last two axes, batch axes broadcast.
///
/// Shapes: a [..., n, k] @ b [..., k, m] → [..., n, m].
/// Errors: ShapeError when ranks are below 2 or the inner dimensions differ.
pub fn matmul(a: &Array, b: &Array) -> R<Array> {
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() < 2 || sb.len() < 2 {
        bail!(Shape, "matmul needs tensors of rank 2 or more, got shapes {} and {}", shape_str(sa), shape_str(sb));
    }
    let (n, k) = (sa[sa.len() - 2], sa[sa.len() - 1]);
    let (k2, m) = (sb[sb.len() - 2], sb[sb.len() - 1]);
    if k != k2 {
        bail!(Shape, "matmul: inner dimensions differ in shapes {} and {}", shape_str(sa), shape_str(sb));
    }
    let batch = broadcast_shapes(&sa[..sa.len() - 2], &sb[..sb.len() - 2])?;
    super::shape::check_size(&[batch.iter().product::<usize>(), n, m])?;
    fn go<T: ndarray::LinalgScalar>(x: &ArrayD<T>, y: &ArrayD<T>, n: usize, k: usize, m: usize) -> R<ArrayD<T>> {
        let (sa, sb) = (x.shape(), y.shape());
        if sa.len() == 2 && sb.len() == 2 {
            let x2 = x.view().into_dimensionality::<ndarray::Ix2>().unwrap();
            let y2 = y.view().into_dimensionality::<ndarray::Ix2>().unwrap();
            return Ok(x2.dot(&y2).into_dyn());
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
            let p = xf.index_axis(Axis(0), i).dot(&yf.index_axis(Axis(0), i));
            out.index_axis_mut(Axis(0), i).assign(&p);
        }
        let mut os = batch;
        os.extend([n, m]);
        Ok(out.into_shape_with_order(IxDyn(&os)).unwrap())
    }
    Ok(match (a, b) {
        (Array::F32(x), Array::F32(y)) => Array::F32(go(x, y, n, k, m)?),
        (Array::F64(x), Array::F64(y)) => Array::F64(go(x, y, n, k, m)?),
        (Array::I64(x), Array::I64(y)) => Array::I64(go(x, y, n, k, m)?),
        _ if a.dtype() != b.dtype() => bail!(Type, "cannot mix {} and {} tensors (use cast)", a.dtype(), b.dtype()),
        _ => bail!(Type, "matmul is not defined on {} tensors", a.dtype()),
    })
}

/// Reshapes to `shape` (element counts already checked).
pub fn reshape(a: &Array, shape: &[usize]) -> Array {
    crate::map_dtype!(a, x => x.as_standard_layout().into_owned().into_shape_with_order(IxDyn(shape)).expect("count checked"))
}

/// Permutes axes; `perm` is a checked permutation.
pub fn transpose(a: &Array, perm: &[usize]) -> Array {
    crate::map_dtype!(a, x => x.view().permuted_axes(IxDyn(perm)).as_standard_layout().into_owned())
}

/// Broadcasts to `shape` (checked by the caller), materialised.
pub fn broadcast_to(a: &Array, shape: &[usize]) -> R<Array> {
    super::shape::check_size(shape)?;
    let target = broadcast_shapes(a.shape(), shape)?;
    if target != shape {
        bail!(Shape, "cannot broadcast shape {} to {}", shape_str(a.shape()), shape_str(shape));
    }
    Ok(crate::map_dtype!(a, x => x.broadcast(IxDyn(shape)).unwrap().to_owned()))
}

/// Joins arrays of one dtype along an existing axis.
///
/// Errors: ShapeError when the other dimensions differ; TypeError on mixed dtypes.
pub fn concat(parts: &[&Array], axis: usize) -> R<Array> {
    let first = parts[0];
    for p in parts {
        if p.dtype() != first.dtype() {
            bail!(Type, "concat: cannot mix {} and {} tensors", first.dtype(), p.dtype());
        }
        if p.ndim() != first.ndim()
            || p.shape().iter().zip(first.shape()).enumerate().any(|(i, (x, y))| i != axis && x != y)
        {
            bail!(
                Shape,
                "concat: shapes {} and {} differ outside axis {}",
                shape_str(first.shape()),
                shape_str(p.shape()),
                axis
            );
        }
    }
    macro_rules! cat {
        ($v:ident) => {{
            let views: Vec<_> = parts
                .iter()
                .map(|p| match p {
                    Array::$v(x) => x.view(),
                    _ => unreachable!(),
                })
                .collect();
            Array::$v(ndarray::concatenate(Axis(axis), &views).expect("shapes checked"))
        }};
    }
    Ok(match first {
        Array::F32(_) => cat!(F32),
        Array::F64(_) => cat!(F64),
        Array::I64(_) => cat!(I64),
        Array::Bool(_) => cat!(Bool),
    })
}

/// Stacks arrays of one shape along a new axis.
pub fn stack(parts: &[&Array], axis: usize) -> R<Array> {
    let first = parts[0];
    for p in parts {
        if p.shape() != first.shape() {
            bail!(Shape, "stack: shapes {} and {} differ", shape_str(first.shape()), shape_str(p.shape()));
        }
    }
    let expanded: Vec<Array> = parts
        .iter()
        .map(|p| {
            let mut s = p.shape().to_vec();
            s.insert(axis, 1);
            reshape(p, &s)
        })
        .collect();
    concat(&expanded.iter().collect::<Vec<_>>(), axis)
}

/// softmax along `axis`, computed stably (max subtracted).
pub fn softmax(a: &Array, axis: usize, log: bool) -> R<Array> {
    fn go<T: Float + 'static>(x: &ArrayD<T>, axis: usize, log: bool) -> ArrayD<T> {
        let mut out = x.clone();
        for mut lane in out.lanes_mut(Axis(axis)) {
            let m = lane.iter().fold(T::neg_infinity(), |m, &v| if v > m { v } else { m });
            let m = if m.is_finite() { m } else { T::zero() };
            let s = lane.iter().fold(T::zero(), |s, &v| s + (v - m).exp());
            if log {
                let ls = s.ln();
                lane.mapv_inplace(|v| v - m - ls);
            } else {
                lane.mapv_inplace(|v| (v - m).exp() / s);
            }
        }
        out
    }
    Ok(match a {
        Array::F32(x) => Array::F32(go(x, axis, log)),
        Array::F64(x) => Array::F64(go(x, axis, log)),
        _ => bail!(Type, "softmax needs a float tensor, got {}", a.dtype()),
    })
}

/// One-hot rows: indices [...] → [..., depth] float32; out-of-range indices give a zero row (as TF).
pub fn one_hot(indices: &ArrayD<i64>, depth: usize, dtype: DType) -> Array {
    let mut shape = indices.shape().to_vec();
    shape.push(depth);
    let mut out = ArrayD::<f64>::zeros(IxDyn(&shape));
    for (i, &k) in indices.iter().enumerate() {
        if k >= 0 && (k as usize) < depth {
            out.as_slice_mut().unwrap()[i * depth + k as usize] = 1.0;
        }
    }
    Array::F64(out).cast(dtype)
}
