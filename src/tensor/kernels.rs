//! Numeric kernels over [`Array`]: elementwise with broadcasting, reductions,
//! linear algebra, shape ops and neural-network functions. Pure functions of
//! their inputs: no tape, no ids.

use super::array::{Array, DType};
use super::error::{tensor_bail, tensor_err, TensorResult as R};
use super::shape::{broadcast_shapes, reduced_shape};
use super::shape_str;
use ndarray::{ArrayD, Axis, IxDyn, Zip};
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
    /// Rounds down; no gradient (TF: None).
    Floor,
    /// Rounds up; no gradient (TF: None).
    Ceil,
    /// Rounds half to even (TF's banker's rounding); no gradient (TF: None).
    Round,
    /// 1 / √x.
    Rsqrt,
    /// The error function, 2/√π ∫₀ˣ e^(−t²) dt.
    Erf,
}

/// Builds an array of `shape` from row-major values.
fn from_vec<U>(shape: &[usize], values: Vec<U>) -> ArrayD<U> {
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
pub(super) fn zip_bcast<T: Copy, U>(a: &ArrayD<T>, b: &ArrayD<T>, f: impl Fn(T, T) -> U) -> R<ArrayD<U>> {
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

/// Elements from which an elementwise kernel or a reduction splits its work over the
/// thread pool (2^18: 1 MiB of float32; below it, waking a thread costs more than it saves).
pub const PARALLEL_ELEMENTS: usize = 1 << 18;

/// Whether `n` elements of work are worth the thread pool (and the pool has more than one thread).
pub fn parallel_for(n: usize) -> bool {
    n >= PARALLEL_ELEMENTS && pool_threads() > 1
}

/// The thread count of the one rayon pool, set once from [`num_threads`] (`DGL_NUM_THREADS`).
pub fn pool_threads() -> usize {
    static READY: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *READY.get_or_init(|| {
        let n = num_threads();
        // A pool already built (by an embedding program) is used as it is.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n).build_global();
        rayon::current_num_threads().min(n)
    })
}

/// The chunk of a slice of `n` elements that one task of the thread pool takes: a few per thread,
/// so an unevenly loaded core does not hold the others up.
pub fn par_chunk_len(n: usize) -> usize {
    n.div_ceil(pool_threads() * 4).max(4096)
}

/// `out[i] = f(xs[i], ys[i])` in chunks over the thread pool; the same pairs and the same
/// results as the sequential loop, whatever the number of threads.
fn par_zip<T: Copy + Send + Sync + Default>(xs: &[T], ys: &[T], f: impl Fn(T, T) -> T + Sync) -> Vec<T> {
    use rayon::prelude::*;
    let mut out = vec![T::default(); xs.len()];
    let chunk = par_chunk_len(xs.len());
    out.par_chunks_mut(chunk).zip(xs.par_chunks(chunk)).zip(ys.par_chunks(chunk)).for_each(|((o, x), y)| {
        for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
            *o = f(x, y);
        }
    });
    out
}

/// `out[i] = f(xs[i])` in chunks over the thread pool (a scalar operand is captured by `f`).
fn par_map<T: Copy + Send + Sync + Default>(xs: &[T], f: impl Fn(T) -> T + Sync) -> Vec<T> {
    use rayon::prelude::*;
    let mut out = vec![T::default(); xs.len()];
    let chunk = par_chunk_len(xs.len());
    out.par_chunks_mut(chunk).zip(xs.par_chunks(chunk)).for_each(|(o, x)| {
        for (o, &x) in o.iter_mut().zip(x) {
            *o = f(x);
        }
    });
    out
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
fn float_binary_array<T: Float + Send + Sync + Default>(op: Binary, x: &ArrayD<T>, y: &ArrayD<T>) -> R<ArrayD<T>> {
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
        // Bools have equality but no order (TF: Less/Greater are not defined for bool).
        (Array::Bool(x), Array::Bool(y)) if matches!(op, Compare::Eq | Compare::Ne) => cmp(op, x, y)?,
        (Array::Bool(_), Array::Bool(_)) => {
            tensor_bail!(Type, "bool tensors have no order: {} is defined for float and int tensors", op.name())
        }
        _ => tensor_bail!(Type, "cannot compare {} and {} tensors (use cast)", a.dtype(), b.dtype()),
    }))
}

#[inline(always)]
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
            // max(x, 0) with NaN propagated, as TF.
            Unary::Relu => {
                if x > zero || x.is_nan() {
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
            Unary::Floor => x.floor(),
            Unary::Ceil => x.ceil(),
            Unary::Round => super::activations::round_half_even(x),
            Unary::Rsqrt => one / x.sqrt(),
            Unary::Erf => super::activations::erf(x),
        }
    }
}

/// `f` over every element, as a slice loop when `x` is contiguous.
fn map_float<T: Copy>(x: &ArrayD<T>, f: impl Fn(T) -> T) -> ArrayD<T> {
    match x.as_slice() {
        Some(xs) => from_vec(x.shape(), xs.iter().map(|&v| f(v)).collect()),
        None => x.mapv(f),
    }
}

/// [`float_unary`] over an array, with the operation chosen outside the element loop.
fn float_unary_array<T: Float>(op: Unary, x: &ArrayD<T>) -> ArrayD<T> {
    macro_rules! per_op {
        ($($v:ident)*) => {
            match op {
                $(Unary::$v => map_float(x, |v| float_unary::<T>(Unary::$v)(v)),)*
            }
        };
    }
    per_op!(Neg Abs Exp Log Log1p Sqrt Square Sin Cos Tan Tanh Sigmoid Relu Softplus Sign Step Reciprocal Floor Ceil Round Rsqrt Erf)
}

/// `f(x)` elementwise. Neg, Abs, Square, Sign, Relu and Round also work on int64.
/// float32 exp, tanh and sigmoid go through [`super::math`] (vectorized, at
/// most 1 ulp from the correctly rounded value); the rest through std.
///
/// Errors: TypeError on bool, or on int64 for transcendental functions.
/// The memory limit's word on a kernel's result of at least `count` elements of `U`
/// (crate::memory): asked before the kernel allocates it.
fn check_result<U>(count: usize) -> R<()> {
    super::budget::check_elements(count, std::mem::size_of::<U>())
}

pub fn unary(op: Unary, a: &Array) -> R<Array> {
    super::budget::check_elements(a.len(), a.dtype().size())?;
    Ok(match a {
        Array::F32(x) => Array::F32(match (op, x.as_slice()) {
            (Unary::Exp, Some(xs)) => from_vec(x.shape(), super::math::exp_f32_slice(xs)),
            (Unary::Tanh, Some(xs)) => from_vec(x.shape(), super::math::tanh_f32_slice(xs)),
            (Unary::Sigmoid, Some(xs)) => from_vec(x.shape(), super::math::sigmoid_f32_slice(xs)),
            (Unary::Exp, None) => x.mapv(super::math::exp_f32),
            (Unary::Tanh, None) => x.mapv(super::math::tanh_f32),
            (Unary::Sigmoid, None) => x.mapv(super::math::sigmoid_f32),
            _ => float_unary_array(op, x),
        }),
        Array::F64(x) => Array::F64(float_unary_array(op, x)),
        Array::I64(x) => Array::I64(match op {
            // Negating or squaring can leave the int64 range: exact or an error, never wrapped.
            Unary::Neg | Unary::Abs | Unary::Square => {
                let f = |v: i64| match op {
                    Unary::Neg => v.checked_neg(),
                    Unary::Abs => v.checked_abs(),
                    _ => v.checked_mul(v),
                };
                if let Some(&bad) = x.iter().find(|&&v| f(v).is_none()) {
                    tensor_bail!(Value, "integer overflow in an int64 tensor {} of {}", unary_name(op), bad);
                }
                x.mapv(|v| f(v).unwrap_or(0))
            }
            Unary::Sign => x.mapv(|v| v.signum()),
            Unary::Relu => x.mapv(|v| v.max(0)),
            // TF: rounding an integer tensor returns it unchanged.
            Unary::Round => x.clone(),
            _ => tensor_bail!(Type, "{} needs a float tensor, got int64 (use cast)", unary_name(op)),
        }),
        Array::Bool(_) => tensor_bail!(Type, "{} is not defined on bool tensors", unary_name(op)),
    })
}

/// [`unary`] consuming `a`: a contiguous float `a` receives the result in its own buffer (no
/// allocation); anything else is computed as [`unary`] does. The values are [`unary`]'s.
///
/// Errors: as [`unary`].
pub fn unary_owned(op: Unary, a: Array) -> R<Array> {
    fn in_place<T: Float>(op: Unary, xs: &mut [T]) {
        macro_rules! per_op {
            ($($v:ident)*) => {
                match op {
                    $(Unary::$v => {
                        let f = |v| float_unary::<T>(Unary::$v)(v);
                        for x in xs.iter_mut() {
                            *x = f(*x);
                        }
                    })*
                }
            };
        }
        per_op!(Neg Abs Exp Log Log1p Sqrt Square Sin Cos Tan Tanh Sigmoid Relu Softplus Sign Step Reciprocal Floor Ceil Round Rsqrt Erf)
    }
    match a {
        Array::F32(mut x) if x.is_standard_layout() => {
            let xs = x.as_slice_mut().expect("standard layout is contiguous");
            match op {
                Unary::Exp => super::math::exp_f32_in_place(xs),
                Unary::Tanh => super::math::tanh_f32_in_place(xs),
                Unary::Sigmoid => super::math::sigmoid_f32_in_place(xs),
                _ => in_place(op, xs),
            }
            Ok(Array::F32(x))
        }
        Array::F64(mut x) if x.is_standard_layout() => {
            in_place(op, x.as_slice_mut().expect("standard layout is contiguous"));
            Ok(Array::F64(x))
        }
        a => unary(op, &a),
    }
}

/// The name messages use for `op`.
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
        Unary::Floor => "floor",
        Unary::Ceil => "ceil",
        Unary::Round => "round",
        Unary::Rsqrt => "rsqrt",
        Unary::Erf => "erf",
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

/// Float element types whose sums accumulate in float64 (docs/language.md §4:
/// reductions are as accurate as TF's and NumPy's; a float64 accumulator keeps
/// the relative error of a float32 sum of 10^7 same-sign terms near 1e-9).
pub trait Accumulate: Float + Send + Sync {
    fn widen(self) -> f64;
    fn narrow(v: f64) -> Self;
}

impl Accumulate for f32 {
    fn widen(self) -> f64 {
        self as f64
    }
    fn narrow(v: f64) -> f32 {
        v as f32
    }
}

impl Accumulate for f64 {
    fn widen(self) -> f64 {
        self
    }
    fn narrow(v: f64) -> f64 {
        v
    }
}

/// Pairwise (cascade) sum of a contiguous run in float64: blocks of at most
/// 128 terms summed with eight interleaved partial sums, blocks combined as a
/// binary tree, so the rounding error grows with log n, not n.
pub fn pairwise_sum<T: Accumulate>(xs: &[T]) -> f64 {
    const BLOCK: usize = 128;
    if xs.len() < 8 {
        return xs.iter().fold(0.0, |s, &x| s + x.widen());
    }
    if xs.len() <= BLOCK {
        let mut r = [0.0f64; 8];
        let chunks = xs.chunks_exact(8);
        let tail = chunks.remainder();
        for c in chunks {
            for k in 0..8 {
                r[k] += c[k].widen();
            }
        }
        let head = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        return tail.iter().fold(head, |s, &x| s + x.widen());
    }
    let mut half = xs.len() / 2;
    half -= half % 8;
    // The same tree of partial sums either way, so the result does not depend on threads.
    if parallel_for(xs.len()) {
        let (l, r) = rayon::join(|| pairwise_sum(&xs[..half]), || pairwise_sum(&xs[half..]));
        return l + r;
    }
    pairwise_sum(&xs[..half]) + pairwise_sum(&xs[half..])
}

/// The one reduction kernel: folds the elements of `a` over `axes` (sorted,
/// distinct) into accumulators of type `A`, one per output cell, and returns
/// them in row-major order of the keepdims shape.
///
/// `step` adds one element to an accumulator; `run` adds a contiguous run of
/// the last axis when that axis is reduced (where a pairwise sum can work).
/// Walking the input in memory order keeps every access sequential, whichever
/// axes are reduced: reducing axis 0 of [10^7, 2] streams rows into two accumulators.
pub(crate) fn fold_axes<T: Copy, A: Copy>(
    a: &ArrayD<T>,
    axes: &[usize],
    init: A,
    step: impl Fn(A, T) -> A,
    run: impl Fn(A, &[T]) -> A,
) -> Vec<A> {
    let shape = a.shape();
    let keep = reduced_shape(shape, axes, true);
    let mut acc = vec![init; keep.iter().product()];
    if a.is_empty() {
        return acc;
    }
    let x = a.as_standard_layout();
    let data = x.as_slice().expect("standard layout is contiguous");
    if shape.is_empty() {
        acc[0] = step(acc[0], data[0]);
        return acc;
    }
    // Output strides over the input's axes: 0 on a reduced axis.
    let nd = shape.len();
    let mut ostride = vec![0usize; nd];
    let mut s = 1;
    for d in (0..nd).rev() {
        if !axes.contains(&d) {
            ostride[d] = s;
            s *= shape[d];
        }
    }
    let last = shape[nd - 1];
    let last_reduced = axes.contains(&(nd - 1));
    let mut idx = vec![0usize; nd - 1];
    let mut off = 0usize;
    for row in data.chunks_exact(last) {
        if last_reduced {
            acc[off] = run(acc[off], row);
        } else {
            for (cell, &v) in acc[off..off + last].iter_mut().zip(row) {
                *cell = step(*cell, v);
            }
        }
        // Advance the odometer over the leading axes, keeping `off` in step.
        for d in (0..nd - 1).rev() {
            idx[d] += 1;
            off += ostride[d];
            if idx[d] < shape[d] {
                break;
            }
            off -= ostride[d] * shape[d];
            idx[d] = 0;
        }
    }
    acc
}

/// Sums over `axes` in float64 (see [`fold_axes`], [`pairwise_sum`]), keepdims shape.
pub fn sum_f64<T: Accumulate>(a: &ArrayD<T>, axes: &[usize]) -> Vec<f64> {
    fold_axes(a, axes, 0.0f64, |s, x| s + x.widen(), |s, r| s + pairwise_sum(r))
}

fn reduce_float<T: Accumulate>(op: Reduce, a: &ArrayD<T>, axes: &[usize], keepdims: bool) -> ArrayD<T> {
    let shape = reduced_shape(a.shape(), axes, keepdims);
    let vals: Vec<T> = match op {
        Reduce::Sum => sum_f64(a, axes).into_iter().map(T::narrow).collect(),
        Reduce::Mean => {
            let n: usize = axes.iter().map(|&d| a.shape()[d]).product();
            sum_f64(a, axes).into_iter().map(|s| T::narrow(s / n as f64)).collect()
        }
        // NaN wins, as in TF.
        Reduce::Max => {
            let f = |m: T, x: T| if x > m || x.is_nan() { x } else { m };
            fold_axes(a, axes, T::neg_infinity(), f, |m, r| r.iter().fold(m, |m, &x| f(m, x)))
        }
        Reduce::Min => {
            let f = |m: T, x: T| if x < m || x.is_nan() { x } else { m };
            fold_axes(a, axes, T::infinity(), f, |m, r| r.iter().fold(m, |m, &x| f(m, x)))
        }
    };
    ArrayD::from_shape_vec(IxDyn(&shape), vals).expect("one value per output cell")
}

/// Reduces `a` over `axes` (normalised, sorted).
///
/// Float sums and means accumulate in float64 (pairwise along a contiguous axis).
/// int64 sums are exact or an error.
/// Errors: TypeError on bool tensors; ValueError for max/min of an empty int64
/// tensor and for an int64 sum outside the int64 range.
pub fn reduce(op: Reduce, a: &Array, axes: &[usize], keepdims: bool) -> R<Array> {
    Ok(match a {
        Array::F32(x) => Array::F32(reduce_float(op, x, axes, keepdims)),
        Array::F64(x) => Array::F64(reduce_float(op, x, axes, keepdims)),
        Array::I64(x) => {
            if x.is_empty() && matches!(op, Reduce::Max | Reduce::Min) {
                tensor_bail!(Value, "cannot reduce an empty int64 tensor");
            }
            let shape = reduced_shape(x.shape(), axes, keepdims);
            let vals: Vec<i64> = match op {
                Reduce::Sum | Reduce::Mean => {
                    // At most 2^28 terms of magnitude below 2^63: an i128 cannot overflow.
                    let n: usize = axes.iter().map(|&d| x.shape()[d]).product();
                    let sums =
                        fold_axes(x, axes, 0i128, |s, v| s + v as i128, |s, r| r.iter().fold(s, |s, &v| s + v as i128));
                    let mut out = Vec::with_capacity(sums.len());
                    for s in sums {
                        let s = if op == Reduce::Mean {
                            if n == 0 {
                                tensor_bail!(Value, "cannot take the mean of an empty int64 tensor");
                            }
                            s / n as i128
                        } else {
                            s
                        };
                        out.push(i64::try_from(s).map_err(|_| {
                            tensor_err!(Value, "integer overflow: an int64 sum of {s} is out of range")
                        })?);
                    }
                    out
                }
                Reduce::Max => fold_axes(x, axes, i64::MIN, |m, v| m.max(v), |m, r| r.iter().fold(m, |m, &v| m.max(v))),
                Reduce::Min => fold_axes(x, axes, i64::MAX, |m, v| m.min(v), |m, r| r.iter().fold(m, |m, &v| m.min(v))),
            };
            Array::I64(ArrayD::from_shape_vec(IxDyn(&shape), vals).expect("one value per output cell"))
        }
        Array::Bool(_) => tensor_bail!(Type, "cannot reduce a bool tensor (use cast)"),
    })
}

/// Index of the largest element along `axis` (first on ties), as int64.
///
/// As TF: the search starts at index 0 with the dtype's lowest finite value
/// and moves only to a strictly larger element, so NaN is never chosen (an
/// all-NaN lane gives 0), nor is -inf over index 0.
pub fn argmax(a: &Array, axis: usize) -> R<Array> {
    arg_extreme(a, axis, true)
}

/// The index of the first largest (`largest`) or smallest element along `axis`, as int64:
/// the search starts at index 0 with the dtype's most extreme finite value on the other
/// side and moves only to a strictly better element, so NaN is never chosen (TF's rule,
/// shared by [`argmax`] and `reductions::argmin`).
///
/// Errors: ValueError for an empty axis.
pub(crate) fn arg_extreme(a: &Array, axis: usize, largest: bool) -> R<Array> {
    fn go<T: PartialOrd + Copy>(x: &ArrayD<T>, axis: usize, start: T, largest: bool) -> ArrayD<i64> {
        x.map_axis(Axis(axis), |lane| {
            let (mut best, mut top) = (0usize, start);
            for (i, &v) in lane.iter().enumerate() {
                if if largest { v > top } else { v < top } {
                    best = i;
                    top = v;
                }
            }
            best as i64
        })
    }
    if a.shape().get(axis).copied().unwrap_or(0) == 0 {
        tensor_bail!(Value, "{} of an empty axis", if largest { "argmax" } else { "argmin" });
    }
    Ok(Array::I64(match a {
        Array::F32(x) => go(x, axis, if largest { f32::MIN } else { f32::MAX }, largest),
        Array::F64(x) => go(x, axis, if largest { f64::MIN } else { f64::MAX }, largest),
        Array::I64(x) => go(x, axis, if largest { i64::MIN } else { i64::MAX }, largest),
        Array::Bool(x) => go(x, axis, !largest, largest),
    }))
}

/// Matrix product over the last two axes, batch axes broadcast.
///
/// Shapes: a [..., n, k] @ b [..., k, m] → [..., n, m].
/// Errors: ShapeError when ranks are below 2 or the inner dimensions differ.
/// Threads for large kernels: `DGL_NUM_THREADS` when set to a positive number, else every core.
pub fn num_threads() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("DGL_NUM_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

/// `x @ y` for 2-D views: float32/float64 through DGL's GEMM (`gemm.rs`: packed, blocked,
/// threaded, transposed views read through their strides, and the same bits on every CPU and
/// thread count); other dtypes through ndarray.
fn gemm2<T: ndarray::LinalgScalar>(x: ndarray::ArrayView2<T>, y: ndarray::ArrayView2<T>) -> ndarray::Array2<T> {
    use super::gemm::{gemm, MatRef, Paths};
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
        gemm(super::cpu::isa(), threads, n, m, k, a, b, c)
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
        super::budget::check_shape(&[x2.dim().0, y2.dim().1])?;
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
        super::budget::check_shape(&s)?;
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
        _ if a.dtype() != b.dtype() => {
            tensor_bail!(Type, "cannot mix {} and {} tensors (use cast)", a.dtype(), b.dtype())
        }
        _ => tensor_bail!(Type, "matmul is not defined on {} tensors", a.dtype()),
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
        tensor_bail!(Shape, "cannot broadcast shape {} to {}", shape_str(a.shape()), shape_str(shape));
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
            tensor_bail!(Type, "concat: cannot mix {} and {} tensors", first.dtype(), p.dtype());
        }
        if p.ndim() != first.ndim()
            || p.shape().iter().zip(first.shape()).enumerate().any(|(i, (x, y))| i != axis && x != y)
        {
            tensor_bail!(
                Shape,
                "concat: shapes {} and {} differ outside axis {}",
                shape_str(first.shape()),
                shape_str(p.shape()),
                axis
            );
        }
    }
    let mut out_shape = first.shape().to_vec();
    out_shape[axis] = parts.iter().try_fold(0usize, |n, p| n.checked_add(p.shape()[axis])).unwrap_or(usize::MAX);
    super::budget::check_shape(&out_shape)?;
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

/// Tiles `a`: `multiples[i]` copies along axis i (one entry per axis, checked by the caller).
///
/// Errors: ValueError when the result is over budget (see [`super::budget::check_shape`]).
pub fn tile(a: &Array, multiples: &[usize]) -> R<Array> {
    let shape: Vec<usize> =
        a.shape().iter().zip(multiples).map(|(&d, &m)| d.checked_mul(m).unwrap_or(usize::MAX)).collect();
    super::budget::check_shape(&shape)?;
    if shape.contains(&0) {
        return Ok(Array::zeros(a.dtype(), &shape));
    }
    let mut data = a.clone();
    for (axis, &m) in multiples.iter().enumerate() {
        if m != 1 {
            data = concat(&std::iter::repeat_n(&data, m).collect::<Vec<_>>(), axis)?;
        }
    }
    Ok(data)
}

/// Stacks arrays of one shape along a new axis.
pub fn stack(parts: &[&Array], axis: usize) -> R<Array> {
    let first = parts[0];
    for p in parts {
        if p.shape() != first.shape() {
            tensor_bail!(Shape, "stack: shapes {} and {} differ", shape_str(first.shape()), shape_str(p.shape()));
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

/// softmax along `axis`, computed stably (max subtracted); the denominator is
/// summed by the one reduction kernel, in float64.
pub fn softmax(a: &Array, axis: usize, log: bool) -> R<Array> {
    fn go<T: Accumulate>(x: &ArrayD<T>, axis: usize, log: bool) -> ArrayD<T> {
        let m = reduce_float(Reduce::Max, x, &[axis], true).mapv(|v| if v.is_finite() { v } else { T::zero() });
        let mb = m.broadcast(x.raw_dim()).expect("keepdims shape broadcasts");
        let e = Zip::from(x).and(&mb).map_collect(|&v, &m| (v - m).exp());
        let s = ArrayD::from_shape_vec(m.raw_dim(), sum_f64(&e, &[axis])).expect("one sum per lane");
        let sb = s.broadcast(x.raw_dim()).expect("keepdims shape broadcasts");
        if log {
            Zip::from(x).and(&mb).and(&sb).map_collect(|&v, &m, &s| v - m - T::narrow(s.ln()))
        } else {
            // e is ours alone: the probabilities overwrite it.
            let mut e = e;
            Zip::from(&mut e).and(&sb).for_each(|v, &s| *v = T::narrow(v.widen() / s));
            e
        }
    }
    Ok(match a {
        Array::F32(x) => Array::F32(go(x, axis, log)),
        Array::F64(x) => Array::F64(go(x, axis, log)),
        _ => tensor_bail!(Type, "softmax needs a float tensor, got {}", a.dtype()),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(x: &ndarray::Array2<f64>, y: &ndarray::Array2<f64>) -> ndarray::Array2<f64> {
        ndarray::Array2::from_shape_fn((x.nrows(), y.ncols()), |(i, j)| {
            (0..x.ncols()).map(|l| x[[i, l]] * y[[l, j]]).sum()
        })
    }

    /// GEMM through the `gemm` crate, plain and with either operand read transposed through its
    /// strides, against a naive float64 product, over odd and blocked sizes (threaded ones too).
    #[test]
    fn gemm_matches_a_naive_product_with_and_without_transposes() {
        for &(n, k, m) in &[(1, 1, 1), (3, 5, 2), (17, 33, 9), (64, 1, 70), (130, 257, 129)] {
            let x = ndarray::Array2::from_shape_fn((n, k), |(i, j)| ((i * 7 + j * 3) % 11) as f64 - 5.0);
            let y = ndarray::Array2::from_shape_fn((k, m), |(i, j)| ((i * 5 + j * 2) % 13) as f64 * 0.5 - 3.0);
            let want = naive(&x, &y);
            let close = |got: &Array| {
                let Array::F64(g) = got else { panic!("float64 expected") };
                assert_eq!(g.shape(), &[n, m]);
                for (a, b) in g.iter().zip(want.iter()) {
                    assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{n}x{k}x{m}: {a} vs {b}");
                }
            };
            let (xa, ya) = (Array::F64(x.clone().into_dyn()), Array::F64(y.clone().into_dyn()));
            close(&matmul(&xa, &ya).unwrap());
            let xt = Array::F64(x.t().as_standard_layout().into_owned().into_dyn());
            let yt = Array::F64(y.t().as_standard_layout().into_owned().into_dyn());
            close(&matmul_2d_transposed(&xt, &ya, true, false).unwrap().unwrap());
            close(&matmul_2d_transposed(&xa, &yt, false, true).unwrap().unwrap());
            close(&matmul_2d_transposed(&xt, &yt, true, true).unwrap().unwrap());
        }
        let bad = matmul_2d_transposed(
            &Array::F64(ArrayD::zeros(IxDyn(&[2, 3]))),
            &Array::F64(ArrayD::zeros(IxDyn(&[2, 3]))),
            false,
            false,
        );
        assert!(bad.unwrap().is_err(), "inner dimensions must agree");
    }

    fn f32_array(shape: &[usize], seed: u32) -> Array {
        Array::F32(ArrayD::from_shape_fn(IxDyn(shape), |i| {
            let k =
                ndarray::Dimension::slice(&i).iter().fold(seed, |h, &d| h.wrapping_mul(31).wrapping_add(d as u32 + 7));
            (k % 1000) as f32 / 37.0 - 13.0
        }))
    }

    fn bits(a: &Array) -> Vec<u64> {
        match a {
            Array::F32(x) => x.iter().map(|v| v.to_bits() as u64).collect(),
            Array::F64(x) => x.iter().map(|v| v.to_bits()).collect(),
            other => panic!("float expected, got {}", other.dtype()),
        }
    }

    /// Each fast path (same shape, one element either side, a trailing row either side), the
    /// generic broadcast and a transposed operand give the values of an element-by-element loop
    /// over the broadcast shape; the owned variants give the same bits, in place or not.
    #[test]
    fn elementwise_fast_paths_and_owned_variants_match_the_generic_loop() {
        let cases: &[(&[usize], &[usize])] = &[
            (&[4, 5], &[4, 5]),
            (&[4, 5], &[]),
            (&[], &[4, 5]),
            (&[4, 5], &[1, 1]),
            (&[3, 4, 5], &[4, 5]),
            (&[5], &[3, 5]),
            (&[4, 1], &[1, 5]),
            (&[0, 5], &[5]),
        ];
        for &(sa, sb) in cases {
            let (a, b) = (f32_array(sa, 1), f32_array(sb, 2));
            let shape = broadcast_shapes(sa, sb).unwrap();
            for op in [Binary::Add, Binary::Sub, Binary::Mul, Binary::Div, Binary::Maximum, Binary::Mod] {
                let got = binary(op, &a, &b).unwrap();
                assert_eq!(got.shape(), &shape[..]);
                let (Array::F32(x), Array::F32(y)) = (&a, &b) else { unreachable!() };
                let (xb, yb) = (x.broadcast(IxDyn(&shape)).unwrap(), y.broadcast(IxDyn(&shape)).unwrap());
                let f = float_binary::<f32>(op);
                let want: Vec<u64> = xb.iter().zip(yb.iter()).map(|(&p, &q)| f(p, q).to_bits() as u64).collect();
                assert_eq!(bits(&got), want, "{op:?} {sa:?} {sb:?}");
                assert_eq!(bits(&binary_owned(op, a.clone(), &b).unwrap()), want, "owned {op:?} {sa:?} {sb:?}");
                assert_eq!(bits(&binary_rc(op, std::rc::Rc::new(a.clone()), &b).unwrap()), want);
            }
        }
        let base = f32_array(&[5, 4], 3);
        let t = transpose(&base, &[1, 0]);
        let Array::F32(bv) = &base else { unreachable!() };
        let strided = Array::F32(bv.t().to_owned());
        assert!(matches!(&strided, Array::F32(v) if !v.is_standard_layout()), "a column-major operand");
        let want = bits(&binary(Binary::Mul, &t, &f32_array(&[4, 5], 4)).unwrap());
        assert_eq!(bits(&binary(Binary::Mul, &strided, &f32_array(&[4, 5], 4)).unwrap()), want);
        assert_eq!(bits(&binary_owned(Binary::Mul, strided.clone(), &f32_array(&[4, 5], 4)).unwrap()), want);
        for op in [Unary::Neg, Unary::Exp, Unary::Tanh, Unary::Sigmoid, Unary::Relu, Unary::Square, Unary::Log] {
            for a in [f32_array(&[3, 7], 5), strided.clone()] {
                let want = bits(&unary(op, &a).unwrap());
                assert_eq!(bits(&unary_owned(op, a.clone()).unwrap()), want, "{op:?}");
            }
            let a64 = f32_array(&[3, 7], 6).cast(DType::F64);
            assert_eq!(bits(&unary_owned(op, a64.clone()).unwrap()), bits(&unary(op, &a64).unwrap()), "{op:?}");
        }
    }

    /// 10^7 float32 terms, compared with the float64 sum of the same float32 values.
    #[test]
    fn float32_sums_of_ten_million_terms_keep_float64_accuracy() {
        let n = 10_000_000;
        let x = ArrayD::from_shape_fn(IxDyn(&[n]), |i| 0.1f32 + (i[0] % 7) as f32 * 0.01);
        let exact: f64 = x.iter().map(|&v| v as f64).sum();
        let Array::F32(s) = reduce(Reduce::Sum, &Array::F32(x.clone()), &[0], false).unwrap() else { panic!() };
        let got = s.first().copied().unwrap() as f64;
        assert!(((got - exact) / exact).abs() <= 1e-6, "{got} vs {exact}");
        let Array::F32(m) = reduce(Reduce::Mean, &Array::F32(x), &[0], false).unwrap() else { panic!() };
        let mean = m.first().copied().unwrap() as f64;
        assert!(((mean - exact / n as f64) / (exact / n as f64)).abs() <= 1e-6);
    }

    /// Axis 0 of [5·10^6, 2] and the last axis of [2, 5·10^6] agree with float64.
    #[test]
    fn float32_sums_along_any_axis_keep_float64_accuracy() {
        let n = 5_000_000;
        let tall = ArrayD::from_shape_fn(IxDyn(&[n, 2]), |i| 0.1f32 * (1 + i[1]) as f32);
        let exact = [n as f64 * 0.1f32 as f64, n as f64 * 0.2f32 as f64];
        let wide = tall.t().as_standard_layout().into_owned();
        for (a, axis) in [(tall, 0), (wide, 1)] {
            let Array::F32(s) = reduce(Reduce::Sum, &Array::F32(a), &[axis], false).unwrap() else { panic!() };
            for (g, e) in s.iter().zip(exact) {
                assert!(((*g as f64 - e) / e).abs() <= 1e-6, "axis {axis}: {g} vs {e}");
            }
        }
    }

    /// The tree of [`pairwise_sum`], walked on one thread: the threaded sum must equal it bit for bit.
    fn pairwise_sum_sequential(xs: &[f32]) -> f64 {
        if xs.len() <= 128 {
            // Below the split the threaded function never threads: it is its own reference.
            return pairwise_sum(xs);
        }
        let mut half = xs.len() / 2;
        half -= half % 8;
        pairwise_sum_sequential(&xs[..half]) + pairwise_sum_sequential(&xs[half..])
    }

    #[test]
    fn threaded_kernels_equal_the_sequential_ones_bit_for_bit() {
        // Sizes on both sides of PARALLEL_ELEMENTS, with awkward remainders.
        for n in [PARALLEL_ELEMENTS - 3, PARALLEL_ELEMENTS * 3 + 1001] {
            let xs: Vec<f32> = (0..n).map(|i| ((i * 7919 % 10007) as f32 - 5000.0) * 1e-3).collect();
            let ys: Vec<f32> = (0..n).map(|i| ((i * 104729 % 9973) as f32 + 1.0) * 1e-2).collect();
            assert_eq!(pairwise_sum(&xs).to_bits(), pairwise_sum_sequential(&xs).to_bits(), "n = {n}");
            let a = ArrayD::from_shape_vec(IxDyn(&[n]), xs.clone()).unwrap();
            let b = ArrayD::from_shape_vec(IxDyn(&[n]), ys.clone()).unwrap();
            let s = ArrayD::from_shape_vec(IxDyn(&[]), vec![0.37f32]).unwrap();
            for op in [Binary::Add, Binary::Div, Binary::Pow, Binary::Maximum] {
                let f = float_binary::<f32>(op);
                let got = float_binary_array(op, &a, &b).unwrap();
                let want: Vec<f32> = xs.iter().zip(&ys).map(|(&x, &y)| f(x, y)).collect();
                assert!(got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits()), "{op:?}, n = {n}");
                let got = float_binary_array(op, &s, &b).unwrap();
                assert!(got.iter().zip(&ys).all(|(g, &y)| g.to_bits() == f(0.37, y).to_bits()), "{op:?} scalar");
                let got = float_binary_array(op, &a, &s).unwrap();
                assert!(got.iter().zip(&xs).all(|(g, &x)| g.to_bits() == f(x, 0.37).to_bits()), "{op:?} by scalar");
            }
        }
    }

    #[test]
    fn pairwise_sum_matches_float64_on_awkward_lengths() {
        for n in [0, 1, 7, 8, 9, 127, 128, 129, 1000, 4097] {
            let xs: Vec<f64> = (0..n).map(|i| 1.0 / (i as f64 + 1.0)).collect();
            let naive: f64 = xs.iter().sum();
            assert!((pairwise_sum(&xs) - naive).abs() <= 1e-12 * naive.max(1.0), "n = {n}");
        }
    }

    #[test]
    fn reductions_over_several_axes_and_empty_axes() {
        let a = Array::F64(ArrayD::from_shape_fn(IxDyn(&[2, 3, 4]), |i| (i[0] * 12 + i[1] * 4 + i[2]) as f64));
        let Array::F64(s) = reduce(Reduce::Sum, &a, &[0, 2], false).unwrap() else { panic!() };
        assert_eq!(s.iter().copied().collect::<Vec<_>>(), vec![60.0, 92.0, 124.0]);
        let Array::F64(m) = reduce(Reduce::Max, &a, &[1], true).unwrap() else { panic!() };
        assert_eq!(m.shape(), &[2, 1, 4]);
        assert_eq!(m.iter().copied().collect::<Vec<_>>(), vec![8.0, 9.0, 10.0, 11.0, 20.0, 21.0, 22.0, 23.0]);
        let e = Array::F32(ArrayD::zeros(IxDyn(&[3, 0])));
        let Array::F32(z) = reduce(Reduce::Sum, &e, &[1], false).unwrap() else { panic!() };
        assert_eq!(z.iter().copied().collect::<Vec<_>>(), vec![0.0; 3]);
    }
}
