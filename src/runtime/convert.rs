//! Values to tensors: Variable reads (which tapes watch), numbers and nested
//! lists as constants, and operand pairs where a number takes the tensor's
//! dtype (docs/language.md §4).

use super::value::{Dialect, Value};
use super::Interp;
use crate::autodiff::Variable;
use crate::bail;
use crate::error::R;
use crate::tensor::{Array, DType, Tensor};
use std::rc::Rc;

impl Interp {
    /// Reads a Variable: its current value under its handle id. Active tapes
    /// that watch accessed variables start watching it (docs/language.md §5), and
    /// custom_gradient / recompute_grad see the read.
    pub fn read_variable(&mut self, v: &Rc<Variable>) -> Tensor {
        self.ad.read_variable(v);
        v.peek()
    }

    /// Converts a value to a tensor: tensors as they are, Variables read,
    /// numbers and (nested) lists as constants of `dtype` (float32 by default).
    ///
    /// Errors: TypeError for values that are not numeric; ValueError for ragged lists.
    pub fn to_tensor(&mut self, v: &Value, dtype: Option<DType>) -> R<Tensor> {
        // A TensorShape converts as the tuple of its dimensions.
        if let Value::Shape(d) = v {
            return self.to_tensor(&Value::Tuple(d.clone()), dtype);
        }
        let dtype = match dtype {
            None if self.dialect != Dialect::Dgl => self.library_dtype_of(v)?,
            given => given,
        };
        match v {
            // A NumPy value converts as TF's convert_to_tensor does: its dtype, or the one asked for.
            Value::NdArray(n) => {
                let t = {
                    let a = n.data();
                    Tensor::new(match dtype {
                        Some(d) if d != a.dtype() => a.try_cast(d)?,
                        _ => a.clone(),
                    })
                };
                // A value computed from a tensor: linked to it for `tape.explain` (a cut).
                if let Some(o) = n.origin() {
                    self.ad.note_rejoin(o.name, o.tensor, &t, o.site);
                }
                Ok(t)
            }
            Value::Tensor(t) => match dtype {
                Some(d) if d != t.dtype() => Ok(Tensor::new(t.data.try_cast(d)?)),
                _ => Ok(t.clone()),
            },
            Value::Variable(var) => {
                let t = self.read_variable(var);
                match dtype {
                    Some(d) if d != t.dtype() => Ok(Tensor::new(t.data.try_cast(d)?)),
                    _ => Ok(t),
                }
            }
            // Python scalars: the common case of `x * 2.0`, without the list walk.
            Value::Complex(..) => Err(super::complex::no_complex_tensor()),
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                let dtype = dtype.unwrap_or(DType::F32);
                if dtype == DType::I64 {
                    let i = match v {
                        Value::Int(i) => *i,
                        Value::Float(f) => number_to_int64(*f)?,
                        _ => matches!(v, Value::Bool(true)) as i64,
                    };
                    return Ok(Tensor::new(Array::I64(ndarray::ArrayD::from_elem(ndarray::IxDyn(&[]), i))));
                }
                let x = match v {
                    Value::Int(i) => *i as f64,
                    Value::Float(f) => *f,
                    _ => matches!(v, Value::Bool(true)) as u8 as f64,
                };
                Ok(Tensor::new(Array::scalar(dtype, x)))
            }
            // A list holding watched tensors is stacked by a recorded op, as TF's conversion
            // packs them: gradients flow to each element.
            Value::List(_) | Value::Tuple(_) if self.holds_recorded_tensor(v)? => {
                let items = self.iterate(v)?;
                let dtype = match dtype {
                    Some(d) => Some(d),
                    None => self.first_tensor_dtype(v)?,
                };
                let mut parts = Vec::with_capacity(items.len());
                for x in &items {
                    parts.push(self.nested("while converting a nested list", |rt| rt.to_tensor(x, dtype))?);
                }
                if let Some(p) = parts.iter().find(|p| p.shape() != parts[0].shape()) {
                    bail!(
                        Value,
                        "cannot build a tensor from a ragged list (elements of shapes {} and {})",
                        crate::tensor::shape_str(parts[0].shape()),
                        crate::tensor::shape_str(p.shape())
                    );
                }
                // The forward pass of a checked recompute_grad function (tapes paused) converts
                // the same list without recording: the determinism check skips this stack.
                let checks = self.ad.tools().checks.suspend();
                let stacked = self.ad.stack(&parts, 0);
                self.ad.tools().checks.resume(checks);
                stacked
            }
            _ => {
                let (shape, values, exact) = self.flatten_numbers(v)?;
                crate::tensor::budget::check_shape(&shape)?;
                let dtype = dtype.unwrap_or(DType::F32);
                if dtype != DType::I64 {
                    return Ok(Tensor::new(Array::from_f64(dtype, &shape, values)));
                }
                // `exact` is in position order: take those ints as they are, convert the rest.
                let mut exact = exact.into_iter().peekable();
                let mut ints = Vec::with_capacity(values.len());
                for (k, f) in values.into_iter().enumerate() {
                    ints.push(match exact.next_if(|&(at, _)| at == k) {
                        Some((_, i)) => i,
                        None => number_to_int64(f)?,
                    });
                }
                let a = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape), ints).expect("count checked");
                Ok(Tensor::new(Array::I64(a)))
            }
        }
    }

    /// The dtype TF's conversion gives a Python value ([`Dialect::Tf`]): int32 for ints (int64
    /// when one is past int32's range), bool for bools, float32 when a float is among them;
    /// NumPy's ([`Dialect::NumPy`]): int64 for ints, float64 for floats. `None` for tensors
    /// and lists holding them (their own dtypes decide) and empty lists (float32; NumPy's
    /// float64).
    fn library_dtype_of(&mut self, v: &Value) -> R<Option<DType>> {
        let numpy = self.dialect == Dialect::NumPy;
        #[derive(PartialEq, PartialOrd, Clone, Copy)]
        enum Kind {
            Empty,
            Bool,
            Int32,
            Int64,
            Float,
        }
        fn kind(rt: &mut Interp, v: &Value) -> R<Option<Kind>> {
            Ok(Some(match v {
                Value::Bool(_) => Kind::Bool,
                Value::Int(i) if i32::try_from(*i).is_ok() => Kind::Int32,
                Value::Int(_) => Kind::Int64,
                Value::Float(_) => Kind::Float,
                Value::List(_) | Value::Tuple(_) => {
                    let mut widest = Kind::Empty;
                    for x in rt.iterate(v)? {
                        match rt.nested("while converting a nested list", |rt| kind(rt, &x))? {
                            Some(k) => widest = if k > widest { k } else { widest },
                            None => return Ok(None),
                        }
                    }
                    widest
                }
                _ => return Ok(None),
            }))
        }
        Ok(match kind(self, v)? {
            Some(Kind::Bool) => Some(DType::Bool),
            Some(Kind::Int32) if !numpy => Some(DType::I32),
            Some(Kind::Int32 | Kind::Int64) => Some(DType::I64),
            Some(Kind::Float) if !numpy => Some(DType::F32),
            Some(Kind::Float) => Some(DType::F64),
            Some(Kind::Empty) if numpy => Some(DType::F64),
            Some(Kind::Empty) | None => None,
        })
    }

    /// Whether a (nested) list holds a tensor that some active tape watches or some entered
    /// accumulator has a tangent for (or a Variable), so that converting it must be recorded.
    fn holds_recorded_tensor(&mut self, v: &Value) -> R<bool> {
        if self.ad.tapes().is_empty() && self.ad.accumulators().is_empty() {
            return Ok(false);
        }
        match v {
            Value::Tensor(t) => Ok(self.ad.watches(t.id) || self.ad.has_tangent(t.id)),
            Value::Variable(var) => Ok(var.trainable),
            Value::List(_) | Value::Tuple(_) => {
                for x in self.iterate(v)? {
                    if self.nested("while converting a nested list", |rt| rt.holds_recorded_tensor(&x))? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => Ok(false),
        }
    }

    /// The dtype of the first tensor in a (nested) list, if any.
    fn first_tensor_dtype(&mut self, v: &Value) -> R<Option<DType>> {
        match v {
            Value::Tensor(t) => Ok(Some(t.dtype())),
            Value::Variable(var) => Ok(Some(var.peek().dtype())),
            Value::List(_) | Value::Tuple(_) => {
                for x in self.iterate(v)? {
                    if let Some(d) = self.nested("while converting a nested list", |rt| rt.first_tensor_dtype(&x))? {
                        return Ok(Some(d));
                    }
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// Shape and row-major values of a number or nested list/tuple of numbers,
    /// plus the exact value and position of every int that float64 cannot hold
    /// (beyond 2^53), so that an int64 tensor gets them exactly.
    pub fn flatten_numbers(&mut self, v: &Value) -> R<(Vec<usize>, Vec<f64>, Vec<(usize, i64)>)> {
        type Exact = Vec<(usize, i64)>;
        /// The dimensions found so far, and the depth where numbers were met (no list may
        /// go deeper than that, or `[1.0, [2.0]]` would read as `[[1.0], [2.0]]`).
        #[derive(Default)]
        struct Shape {
            dims: Vec<usize>,
            leaves_at: Option<usize>,
        }
        fn walk(
            rt: &mut Interp,
            v: &Value,
            depth: usize,
            shape: &mut Shape,
            out: &mut Vec<f64>,
            exact: &mut Exact,
        ) -> R<()> {
            let items: Vec<Value> = match v {
                Value::Bool(b) => return leaf(depth, shape, out, *b as u8 as f64),
                Value::Int(i) => {
                    if i.unsigned_abs() > 1 << 53 {
                        exact.push((out.len(), *i));
                    }
                    return leaf(depth, shape, out, *i as f64);
                }
                Value::Float(f) => return leaf(depth, shape, out, *f),
                Value::Complex(..) => return Err(super::complex::no_complex_tensor()),
                Value::Tensor(_) | Value::Variable(_) | Value::NdArray(_) => {
                    let t = rt.to_tensor(v, None)?;
                    for (k, &d) in t.shape().iter().enumerate() {
                        dim(depth + k, shape, d)?;
                    }
                    if shape.dims.len() != depth + t.shape().len() {
                        bail!(Value, "cannot build a tensor from a ragged list");
                    }
                    mark_leaves(depth + t.shape().len(), shape)?;
                    crate::tensor::budget::check_shape(&shape.dims)?;
                    if let Array::I64(a) = &*t.data.widened() {
                        let base = out.len();
                        exact.extend(
                            a.iter()
                                .enumerate()
                                .filter(|(_, i)| i.unsigned_abs() > 1 << 53)
                                .map(|(k, &i)| (base + k, i)),
                        );
                    }
                    out.extend(t.data.to_f64_vec());
                    return Ok(());
                }
                Value::List(l) => l.borrow().clone(),
                Value::Tuple(t) => t.to_vec(),
                // docs/language.md §4: tensors hold numbers and bools, never text.
                Value::Str(_) => bail!(
                    Type,
                    "cannot convert a str to a tensor: DGL's tensors hold numbers and bools (TensorFlow's string tensors, tf.string and tf.strings, are outside DGL)"
                ),
                other => bail!(Type, "cannot convert a {} to a tensor", other.type_name()),
            };
            dim(depth, shape, items.len())?;
            for x in &items {
                // Each level counts toward the recursion depth: a list that contains itself
                // is a quick RecursionError.
                rt.nested("while converting a nested list (does it contain itself?)", |rt| {
                    walk(rt, x, depth + 1, shape, out, exact)
                })?;
            }
            // An empty list has shape (0,): nothing beside it may go deeper (`[[], zeros([0, 0])]`).
            if items.is_empty() {
                if shape.dims.len() > depth + 1 {
                    bail!(Value, "cannot build a tensor from a ragged list");
                }
                mark_leaves(depth + 1, shape)?;
            }
            Ok(())
        }
        fn dim(depth: usize, shape: &mut Shape, n: usize) -> R<()> {
            let deeper_than_numbers = shape.leaves_at.is_some_and(|d| depth >= d);
            if depth == shape.dims.len() && !deeper_than_numbers {
                shape.dims.push(n);
            } else if depth >= shape.dims.len() || shape.dims[depth] != n {
                bail!(Value, "cannot build a tensor from a ragged list");
            }
            Ok(())
        }
        fn mark_leaves(depth: usize, shape: &mut Shape) -> R<()> {
            match shape.leaves_at {
                Some(d) if d != depth => bail!(Value, "cannot build a tensor from a ragged list"),
                _ => shape.leaves_at = Some(depth),
            }
            Ok(())
        }
        fn leaf(depth: usize, shape: &mut Shape, out: &mut Vec<f64>, x: f64) -> R<()> {
            if depth != shape.dims.len() {
                bail!(Value, "cannot build a tensor from a ragged list");
            }
            mark_leaves(depth, shape)?;
            out.push(x);
            Ok(())
        }
        let mut shape = Shape::default();
        let mut out = Vec::new();
        let mut exact = Vec::new();
        walk(self, v, 0, &mut shape, &mut out, &mut exact)?;
        let shape = shape.dims;
        crate::tensor::budget::check_shape(&shape)?;
        if crate::tensor::budget::checked_count(&shape) != Some(out.len()) {
            bail!(Value, "cannot build a tensor from a ragged list");
        }
        Ok((shape, out, exact))
    }

    pub(super) fn is_tensorish(v: &Value) -> bool {
        matches!(v, Value::Tensor(_) | Value::Variable(_))
    }

    /// Both operands as tensors: a Python number or list takes the other
    /// tensor's dtype (docs/language.md §4).
    pub fn tensor_pair(&mut self, a: &Value, b: &Value) -> R<(Tensor, Tensor)> {
        // `np.maximum(a, 0.0)` and the other `np.` functions of two operands promote as NumPy's
        // operators do (docs/language.md "NumPy arrays": a Python number takes the array's dtype
        // when it is of its kind).
        if self.dialect == super::value::Dialect::NumPy && !Self::is_tensorish(a) && !Self::is_tensorish(b) {
            return self.numpy_pair(a, b);
        }
        if Self::is_tensorish(a) {
            let x = self.to_tensor(a, None)?;
            let y = if Self::is_tensorish(b) { self.to_tensor(b, None)? } else { self.to_tensor(b, Some(x.dtype()))? };
            Ok((x, y))
        } else {
            let y = self.to_tensor(b, None)?;
            let x = self.to_tensor(a, Some(y.dtype()))?;
            Ok((x, y))
        }
    }
}

/// DGL's dtypes, as errors list them (docs/language.md §4).
pub const DTYPE_NAMES: &str = "float16, float32, float64, uint8, int8, int16, int32, int64 and bool";

/// Where an int is read: an operation's argument (a shape entry, an axis, a size, a count),
/// which TF converts as a tensor, so a Variable holding an int counts; or Python's `__index__`
/// protocol (a list index, `range()`, `math` functions), where a TF tensor counts but a
/// Variable does not.
/// A tensor subscript (`x[i]`, `x[a:b]`) is an argument that must be a scalar (TF: a
/// shape-(1,) index is an error there, the job of gather).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IntUse {
    Arg,
    Subscript,
    Index,
}

/// The one reading of an int argument: a Python int or bool, or an int32 or int64 tensor with
/// one element (TF accepts a scalar int32/int64 tensor in every int argument; a one-element tensor of higher rank is accepted as TF accepts it for axes), or, for
/// [`IntUse::Arg`], a Variable holding one. `None` when `v` is none of these: the caller
/// raises its TypeError, naming what it found with [`int_found`].
pub fn int_of(v: &Value, used: IntUse) -> Option<R<i64>> {
    let t = match v {
        Value::Int(i) => return Some(Ok(*i)),
        Value::Bool(b) => return Some(Ok(*b as i64)),
        // A NumPy integer scalar (or one-element array) is an index, as NumPy's `__index__`.
        Value::NdArray(n) => {
            let a = n.data();
            return (a.dtype().is_int() && a.len() == 1).then(|| Ok(a.first_i64()?));
        }
        Value::Tensor(t) => t.clone(),
        Value::Variable(var) if used != IntUse::Index => var.peek(),
        _ => return None,
    };
    let fits = if used == IntUse::Subscript { t.shape().is_empty() } else { t.len() == 1 };
    (t.dtype().is_int() && fits).then(|| Ok(t.data.first_i64()?))
}

/// What a value that is not an int argument is, for the TypeError: its type, and a tensor's
/// or Variable's dtype and shape (`a float32 tensor of shape ()`).
pub fn int_found(v: &Value) -> String {
    let (what, t) = match v {
        Value::Tensor(t) => ("tensor", t.clone()),
        Value::Variable(var) => ("Variable", var.peek()),
        other => return other.type_name(),
    };
    format!("a {} {what} of shape {}", t.dtype(), crate::tensor::shape_str(t.shape()))
}

/// Python's `int(x)` of a float (and `round(x)`, `"%d" % x`): the one float → int
/// conversion ([`crate::tensor::scalar::float_to_int`]) with CPython's error kinds: an
/// infinity, and a float beyond 64 bits (docs/python.md "Where DGL differs from CPython, on
/// purpose"), are OverflowErrors; NaN is a ValueError. A tensor's elements keep the
/// tensor conversion's ValueError (docs/language.md §5).
pub fn float_to_int(f: f64) -> R<i64> {
    crate::tensor::scalar::float_to_int(f).map_err(|e| {
        if f.is_nan() {
            crate::err!(Value, "{}", e.message)
        } else {
            crate::err!(Overflow, "{}", e.message)
        }
    })
}

/// A number becoming an element of an int64 tensor (`constant(x, dtype=int64)`,
/// `int_tensor + x`, `fill(..., dtype=int64)`): it takes the dtype only when it
/// is integral (TF: "Cannot convert 1.5 to EagerTensor of dtype int64").
/// Unlike [`float_to_int`], it never truncates.
///
/// Errors: TypeError for a float with a fraction, NaN or infinity; ValueError
/// for an integral float outside the int64 range.
pub fn number_to_int64(f: f64) -> R<i64> {
    if f.fract() != 0.0 || !f.is_finite() {
        bail!(Type, "cannot convert {} to an int64 tensor (it is not integral)", crate::runtime::format::fmt_f64(f));
    }
    Ok(crate::tensor::scalar::float_to_int(f)?)
}

/// `a + b` on DGL ints, exact or an OverflowError (DGL ints are 64-bit).
pub fn int_add(a: i64, b: i64) -> R<i64> {
    int_checked(a.checked_add(b), || format!("{a} + {b}"))
}

/// The one check of DGL's int arithmetic (docs/language.md §3: ints are 64-bit): a
/// checked result, or an OverflowError naming the operation (`expr()`, shown as
/// source text such as `2 ** 64`): "integer overflow: 2 ** 64 does not fit in 64 bits".
/// Every int operation whose exact result may leave the range goes through here.
pub fn int_checked(r: Option<i64>, expr: impl FnOnce() -> String) -> R<i64> {
    r.ok_or_else(|| crate::err!(Overflow, "integer overflow: {} does not fit in 64 bits", expr()))
}

/// `x ** y` on ints with `y >= 0`, exact or an OverflowError.
pub fn int_pow(x: i64, y: i64) -> R<i64> {
    int_checked(
        u32::try_from(y).ok().and_then(|y| x.checked_pow(y)).or(match x {
            // Exponents past u32 still give exact answers for these bases.
            0 | 1 => Some(x),
            -1 => Some(if y % 2 == 0 { 1 } else { -1 }),
            _ => None,
        }),
        || format!("{x} ** {y}"),
    )
}

/// `x / y` for ints as CPython computes it: the exact quotient rounded once to the nearest
/// float (ties to even). Converting both to floats first rounds twice when one is beyond 2**53
/// (`7 / 9007199254740993` would be one ulp off). `y` must not be 0.
pub fn int_true_div(x: i64, y: i64) -> f64 {
    const EXACT: u64 = 1 << 53;
    let (a, b) = (x.unsigned_abs(), y.unsigned_abs());
    if a <= EXACT && b <= EXACT {
        // Both convert exactly, so IEEE division rounds once (and keeps the sign of a zero).
        return x as f64 / y as f64;
    }
    let sign = if (x < 0) != (y < 0) { -1.0 } else { 1.0 };
    if a == 0 {
        return 0.0 * sign;
    }
    let bits = |v: u128| 128 - v.leading_zeros() as i32;
    // q = floor(a * 2^s / b) has at least 55 bits; `inexact` says whether bits were dropped.
    let s = (55 + bits(b as u128) - bits(a as u128)).max(0);
    let n = (a as u128) << s;
    let (q, inexact) = (n / b as u128, n % b as u128 != 0);
    let drop = bits(q) - 53;
    let (mut keep, rest) = (q >> drop, q & ((1u128 << drop) - 1));
    let half = 1u128 << (drop - 1);
    if rest > half || (rest == half && (inexact || keep & 1 == 1)) {
        keep += 1;
    }
    // keep <= 2^53 converts exactly; the power of two (|exponent| < 128) is exact too.
    sign * keep as f64 * 2f64.powi(drop - s)
}
