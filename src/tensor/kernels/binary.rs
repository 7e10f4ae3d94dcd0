//! Elementwise binary operations and comparisons under NumPy broadcasting: slice
//! loops for contiguous same-shape, one-element and trailing-row (bias) operands,
//! ndarray's broadcasting `Zip` for the rest, int64 exact or an error, and
//! `*_owned`/`*_rc` variants that write into a uniquely held buffer.

use super::pool::{par_map, par_zip, parallel_for};
use crate::tensor::array::{Array, DType};
use crate::tensor::error::{tensor_bail, TensorResult as R};
use crate::tensor::shape::broadcast_shapes;
use ndarray::{ArrayD, IxDyn, Zip};
use num_traits::Float;

/// Elementwise binary operations (docs/language.md §4).
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

impl Compare {
    /// The TF op name (`less`, `greater_equal`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Compare::Lt => "less",
            Compare::Le => "less_equal",
            Compare::Gt => "greater",
            Compare::Ge => "greater_equal",
            Compare::Eq => "equal",
            Compare::Ne => "not_equal",
        }
    }
}

/// Builds an array of `shape` from row-major values.
pub(super) fn from_vec<U>(shape: &[usize], values: Vec<U>) -> ArrayD<U> {
    ArrayD::from_shape_vec(IxDyn(shape), values).expect("one value per element")
}

/// Zips two arrays under NumPy broadcasting, `f(a[i], b[i])` for every element
/// of the broadcast shape.
///
/// Contiguous (row-major) operands take plain slice loops, which the compiler
/// vectorizes: equal shapes, a one-element operand (a scalar or a `[1, 1]`)
/// against any array of at least its rank, and an operand whose shape is the
/// trailing part of the other's (a bias row `[n]` against `[m, n]`). Everything
/// else goes through ndarray's broadcasting `Zip`. Every path applies `f` to
/// the same pairs in the same order, so results do not depend on the path.
pub(in crate::tensor) fn zip_bcast<T: Copy, U>(a: &ArrayD<T>, b: &ArrayD<T>, f: impl Fn(T, T) -> U) -> R<ArrayD<U>> {
    let (sa, sb) = (a.shape(), b.shape());
    check_result::<U>(a.len().max(b.len()))?;
    if let (Some(xs), Some(ys)) = (a.as_slice(), b.as_slice()) {
        if sa == sb {
            return Ok(from_vec(sa, xs.iter().zip(ys).map(|(&x, &y)| f(x, y)).collect()));
        }
        if ys.len() == 1 && sb.len() <= sa.len() {
            let y = ys[0];
            return Ok(from_vec(sa, xs.iter().map(|&x| f(x, y)).collect()));
        }
        if xs.len() == 1 && sa.len() <= sb.len() {
            let x = xs[0];
            return Ok(from_vec(sb, ys.iter().map(|&y| f(x, y)).collect()));
        }
        if sb.len() < sa.len() && !ys.is_empty() && sa.ends_with(sb) {
            let mut out = Vec::with_capacity(xs.len());
            for row in xs.chunks_exact(ys.len()) {
                out.extend(row.iter().zip(ys).map(|(&x, &y)| f(x, y)));
            }
            return Ok(from_vec(sa, out));
        }
        if sa.len() < sb.len() && !xs.is_empty() && sb.ends_with(sa) {
            let mut out = Vec::with_capacity(ys.len());
            for row in ys.chunks_exact(xs.len()) {
                out.extend(xs.iter().zip(row).map(|(&x, &y)| f(x, y)));
            }
            return Ok(from_vec(sb, out));
        }
    }
    if sa == sb {
        return Ok(Zip::from(a).and(b).map_collect(|&x, &y| f(x, y)));
    }
    let shape = broadcast_shapes(sa, sb)?;
    let av = a.broadcast(IxDyn(&shape)).expect("broadcast shape checked");
    let bv = b.broadcast(IxDyn(&shape)).expect("broadcast shape checked");
    Ok(Zip::from(&av).and(&bv).map_collect(|&x, &y| f(x, y)))
}

/// [`zip_bcast`] that splits large same-shape or scalar-operand work over the thread pool
/// ([`parallel_for`]); results are identical to the sequential path.
fn zip_bcast_threaded<T: Copy + Send + Sync + Default>(
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    f: impl Fn(T, T) -> T + Sync,
) -> R<ArrayD<T>> {
    check_result::<T>(a.len().max(b.len()))?;
    if let (Some(xs), Some(ys)) = (a.as_slice(), b.as_slice()) {
        let (sa, sb) = (a.shape(), b.shape());
        if sa == sb && parallel_for(xs.len()) {
            return Ok(from_vec(sa, par_zip(xs, ys, f)));
        }
        if ys.len() == 1 && sb.len() <= sa.len() && parallel_for(xs.len()) {
            let y = ys[0];
            return Ok(from_vec(sa, par_map(xs, |x| f(x, y))));
        }
        if xs.len() == 1 && sa.len() <= sb.len() && parallel_for(ys.len()) {
            let x = xs[0];
            return Ok(from_vec(sb, par_map(ys, |y| f(x, y))));
        }
    }
    zip_bcast(a, b, f)
}

/// [`zip_bcast`] of a float operation, with the operation chosen outside the
/// element loop: each arm passes a zero-sized closure whose `op` is a constant,
/// so every operation gets its own monomorphised loop and `+` vectorizes
/// (a closure capturing `op` kept a jump table inside the loop).
pub(super) fn float_binary_array<T: Float + Send + Sync + Default>(
    op: Binary,
    x: &ArrayD<T>,
    y: &ArrayD<T>,
) -> R<ArrayD<T>> {
    macro_rules! per_op {
        ($($v:ident)*) => {
            match op {
                $(Binary::$v => zip_bcast_threaded(x, y, |p, q| float_binary::<T>(Binary::$v)(p, q)),)*
            }
        };
    }
    per_op!(Add Sub Mul Div Pow Maximum Minimum FloorDiv Mod)
}

#[inline(always)]
pub(super) fn float_binary<T: Float>(op: Binary) -> impl Fn(T, T) -> T {
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

/// Why an int64 element could not be computed exactly.
#[derive(Clone, Copy, PartialEq)]
enum IntFault {
    None,
    Overflow,
    ZeroDivision,
    NegativePower,
}

/// One int64 element of `x op y`: exact, or `None` with the fault noted
/// (integer tensors never wrap: docs/language.md §4).
fn int_binary(op: Binary, x: i64, y: i64) -> Result<i64, IntFault> {
    let over = IntFault::Overflow;
    match op {
        Binary::Add => x.checked_add(y).ok_or(over),
        Binary::Sub => x.checked_sub(y).ok_or(over),
        Binary::Mul => x.checked_mul(y).ok_or(over),
        Binary::Pow => {
            if y < 0 {
                // NumPy: "Integers to negative integer powers are not allowed" (1 and -1 excepted there too).
                return Err(IntFault::NegativePower);
            }
            x.checked_pow(u32::try_from(y).map_err(|_| over)?).ok_or(over)
        }
        Binary::Maximum => Ok(x.max(y)),
        Binary::Minimum => Ok(x.min(y)),
        Binary::FloorDiv | Binary::Div => {
            if y == 0 {
                return Err(IntFault::ZeroDivision);
            }
            let q = x.checked_div(y).ok_or(over)?;
            Ok(if x % y != 0 && ((x < 0) != (y < 0)) { q - 1 } else { q })
        }
        Binary::Mod => {
            if y == 0 {
                return Err(IntFault::ZeroDivision);
            }
            // i64::MIN % -1 is 0 mathematically; checked_rem reports it as overflow.
            let r = x.checked_rem(y).unwrap_or(0);
            Ok(if r != 0 && ((r < 0) != (y < 0)) { r + y } else { r })
        }
    }
}

/// Maps every element pair through [`int_binary`], then reports the first fault.
fn int_binary_array(op: Binary, x: &ArrayD<i64>, y: &ArrayD<i64>) -> R<ArrayD<i64>> {
    let fault = std::cell::Cell::new(IntFault::None);
    let out = zip_bcast(x, y, |p, q| {
        int_binary(op, p, q).unwrap_or_else(|f| {
            if fault.get() == IntFault::None {
                fault.set(f);
            }
            0
        })
    })?;
    match fault.get() {
        IntFault::None => Ok(out),
        IntFault::Overflow => tensor_bail!(Value, "integer overflow in an int64 tensor {}", binary_name(op)),
        IntFault::ZeroDivision => tensor_bail!(ZeroDivision, "integer division by zero"),
        IntFault::NegativePower => {
            tensor_bail!(Value, "integers to negative integer powers are not allowed (cast to float)")
        }
    }
}

/// The name messages (and the tape's summary) use for `op`: TF's, without `tf.`.
pub fn binary_name(op: Binary) -> &'static str {
    match op {
        Binary::Add => "add",
        Binary::Sub => "subtract",
        Binary::Mul => "multiply",
        Binary::Div => "divide",
        Binary::Pow => "pow",
        Binary::Maximum => "maximum",
        Binary::Minimum => "minimum",
        Binary::FloorDiv => "floordiv",
        Binary::Mod => "floormod",
    }
}

/// `a op b` elementwise with broadcasting; both must have one dtype.
///
/// Errors: TypeError on mixed dtypes or bool arithmetic; ShapeError when the shapes do not broadcast.
pub fn binary(op: Binary, a: &Array, b: &Array) -> R<Array> {
    Ok(match (a, b) {
        (Array::F32(x), Array::F32(y)) => Array::F32(float_binary_array(op, x, y)?),
        (Array::F64(x), Array::F64(y)) => Array::F64(float_binary_array(op, x, y)?),
        (Array::I64(x), Array::I64(y)) => {
            if op == Binary::Div {
                // TF's truediv of integers gives float64.
                Array::F64(zip_bcast(x, y, |p, q| p as f64 / q as f64)?)
            } else {
                Array::I64(int_binary_array(op, x, y)?)
            }
        }
        _ if a.dtype() == b.dtype() && a.dtype().is_narrow() => {
            let out = binary(op, &a.widened(), &b.widened())?;
            match a.dtype() {
                // TF's truediv: int8, int16 and uint8 give float32 (int32 float64).
                DType::U8 | DType::I8 | DType::I16 if op == Binary::Div => out.cast(DType::F32),
                dtype => out.narrowed_to(dtype),
            }
        }
        _ if a.dtype() != b.dtype() => {
            tensor_bail!(Type, "cannot mix {} and {} tensors (use cast)", a.dtype(), b.dtype())
        }
        _ => tensor_bail!(Type, "arithmetic is not defined on {} tensors", a.dtype()),
    })
}

/// `x[i] = f(x[i], y[j])` in `x`'s own buffer, when `x` is contiguous and already has the
/// broadcast shape: `y` of the same shape, one element, or a trailing part of `x`'s shape.
/// Returns false, leaving `x` untouched, in every other case. The pairs and their order are
/// those of [`zip_bcast`], so the values are the same.
fn zip_in_place<T: Copy>(x: &mut ArrayD<T>, y: &ArrayD<T>, f: impl Fn(T, T) -> T) -> bool {
    let (Some(ys), sy) = (y.as_slice(), y.shape()) else { return false };
    let sx = x.shape().to_vec();
    let Some(xs) = x.as_slice_mut() else { return false };
    if sx == sy {
        for (a, &b) in xs.iter_mut().zip(ys) {
            *a = f(*a, b);
        }
    } else if ys.len() == 1 && sy.len() <= sx.len() {
        let b = ys[0];
        for a in xs.iter_mut() {
            *a = f(*a, b);
        }
    } else if sy.len() < sx.len() && !ys.is_empty() && sx.ends_with(sy) {
        for row in xs.chunks_exact_mut(ys.len()) {
            for (a, &b) in row.iter_mut().zip(ys) {
                *a = f(*a, b);
            }
        }
    } else {
        return false;
    }
    true
}

fn float_binary_in_place<T: Float>(op: Binary, x: &mut ArrayD<T>, y: &ArrayD<T>) -> bool {
    macro_rules! per_op {
        ($($v:ident)*) => {
            match op {
                $(Binary::$v => zip_in_place(x, y, |p, q| float_binary::<T>(Binary::$v)(p, q)),)*
            }
        };
    }
    per_op!(Add Sub Mul Div Pow Maximum Minimum FloorDiv Mod)
}

/// [`binary`] consuming `a`: a float `a` that is contiguous and already has the result's
/// shape receives the result in its own buffer (no allocation); anything else is computed
/// as [`binary`] does. The values are [`binary`]'s, bit for bit.
///
/// Errors: as [`binary`].
pub fn binary_owned(op: Binary, a: Array, b: &Array) -> R<Array> {
    match (a, b) {
        (Array::F32(mut x), Array::F32(y)) => {
            if float_binary_in_place(op, &mut x, y) {
                return Ok(Array::F32(x));
            }
            binary(op, &Array::F32(x), b)
        }
        (Array::F64(mut x), Array::F64(y)) => {
            if float_binary_in_place(op, &mut x, y) {
                return Ok(Array::F64(x));
            }
            binary(op, &Array::F64(x), b)
        }
        (a, b) => binary(op, &a, b),
    }
}

/// [`binary`] on a shared buffer: when the caller holds the only reference to `a`
/// (`Rc::try_unwrap` succeeds), its buffer is reused as in [`binary_owned`].
///
/// Errors: as [`binary`].
pub fn binary_rc(op: Binary, a: std::rc::Rc<Array>, b: &Array) -> R<Array> {
    match std::rc::Rc::try_unwrap(a) {
        Ok(owned) => binary_owned(op, owned, b),
        Err(shared) => binary(op, &shared, b),
    }
}

/// Elementwise comparison with broadcasting; the result is bool.
pub fn compare(op: Compare, a: &Array, b: &Array) -> R<Array> {
    fn cmp<T: PartialOrd + Copy>(op: Compare, x: &ArrayD<T>, y: &ArrayD<T>) -> R<ArrayD<bool>> {
        match op {
            Compare::Lt => zip_bcast(x, y, |p, q| p < q),
            Compare::Le => zip_bcast(x, y, |p, q| p <= q),
            Compare::Gt => zip_bcast(x, y, |p, q| p > q),
            Compare::Ge => zip_bcast(x, y, |p, q| p >= q),
            Compare::Eq => zip_bcast(x, y, |p, q| p == q),
            Compare::Ne => zip_bcast(x, y, |p, q| p != q),
        }
    }
    Ok(Array::Bool(match (a, b) {
        (Array::F32(x), Array::F32(y)) => cmp(op, x, y)?,
        (Array::F64(x), Array::F64(y)) => cmp(op, x, y)?,
        (Array::I64(x), Array::I64(y)) => cmp(op, x, y)?,
        _ if a.dtype() == b.dtype() && a.dtype().is_narrow() => return compare(op, &a.widened(), &b.widened()),
        // Bools have equality but no order (TF: Less/Greater are not defined for bool).
        (Array::Bool(x), Array::Bool(y)) if matches!(op, Compare::Eq | Compare::Ne) => cmp(op, x, y)?,
        (Array::Bool(_), Array::Bool(_)) => {
            tensor_bail!(Type, "bool tensors have no order: {} is defined for float and int tensors", op.name())
        }
        _ => tensor_bail!(Type, "cannot compare {} and {} tensors (use cast)", a.dtype(), b.dtype()),
    }))
}

/// The memory limit's word on a kernel's result of at least `count` elements of `U`
/// (crate::memory): asked before the kernel allocates it.
fn check_result<U>(count: usize) -> R<()> {
    crate::tensor::budget::check_elements(count, std::mem::size_of::<U>())
}
