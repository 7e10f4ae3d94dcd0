//! The dtype-tagged n-dimensional array behind every tensor.

use super::error::{tensor_bail, TensorResult as R};
use super::scalar::float_to_int;
use ndarray::{ArrayD, IxDyn};
use std::fmt;

/// Element types (docs/language.md §4). `float32` is the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F32,
    F64,
    I32,
    I64,
    Bool,
}

impl DType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::F32 => 4,
            DType::F64 | DType::I64 => 8,
            DType::I32 => 4,
            DType::Bool => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::Bool => "bool",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }

    /// Whether it is an integer dtype (`int32`, `int64`).
    pub fn is_int(self) -> bool {
        matches!(self, DType::I32 | DType::I64)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An n-dimensional array of one dtype.
#[derive(Clone, Debug, PartialEq)]
pub enum Array {
    F32(ArrayD<f32>),
    F64(ArrayD<f64>),
    /// TF's int32: computed as int64 and wrapped back to 32 bits, as TF's int32 kernels wrap.
    I32(ArrayD<i32>),
    I64(ArrayD<i64>),
    Bool(ArrayD<bool>),
}

/// One element of an [`Array`] with its exact value: what `numpy()`, `item()` and the
/// format specs turn into a Python number (an int64 element is exact over its whole range).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elem {
    Float(f64),
    Int(i64),
    Bool(bool),
}

/// Applies `$body` to the inner ndarray whatever its dtype, binding it to `$a`.
#[macro_export]
macro_rules! each_dtype {
    ($arr:expr, $a:ident => $body:expr) => {
        match $arr {
            $crate::tensor::Array::F32($a) => $body,
            $crate::tensor::Array::F64($a) => $body,
            $crate::tensor::Array::I32($a) => $body,
            $crate::tensor::Array::I64($a) => $body,
            $crate::tensor::Array::Bool($a) => $body,
        }
    };
}

/// Like [`each_dtype`], rewrapping the result in the same dtype.
#[macro_export]
macro_rules! map_dtype {
    ($arr:expr, $a:ident => $body:expr) => {
        match $arr {
            $crate::tensor::Array::F32($a) => $crate::tensor::Array::F32($body),
            $crate::tensor::Array::F64($a) => $crate::tensor::Array::F64($body),
            $crate::tensor::Array::I32($a) => $crate::tensor::Array::I32($body),
            $crate::tensor::Array::I64($a) => $crate::tensor::Array::I64($body),
            $crate::tensor::Array::Bool($a) => $crate::tensor::Array::Bool($body),
        }
    };
}

impl Array {
    pub fn shape(&self) -> &[usize] {
        each_dtype!(self, a => a.shape())
    }

    pub fn len(&self) -> usize {
        each_dtype!(self, a => a.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    pub fn dtype(&self) -> DType {
        match self {
            Array::F32(_) => DType::F32,
            Array::F64(_) => DType::F64,
            Array::I32(_) => DType::I32,
            Array::I64(_) => DType::I64,
            Array::Bool(_) => DType::Bool,
        }
    }

    /// A scalar (rank-0) array of `dtype` holding `v`.
    pub fn scalar(dtype: DType, v: f64) -> Array {
        Array::full(dtype, &[], v)
    }

    /// An array of `shape` filled with `v` converted to `dtype`.
    pub fn full(dtype: DType, shape: &[usize], v: f64) -> Array {
        let sh = IxDyn(shape);
        match dtype {
            DType::F32 => Array::F32(ArrayD::from_elem(sh, v as f32)),
            DType::F64 => Array::F64(ArrayD::from_elem(sh, v)),
            DType::I32 => Array::I32(ArrayD::from_elem(sh, v as i32)),
            DType::I64 => Array::I64(ArrayD::from_elem(sh, v as i64)),
            DType::Bool => Array::Bool(ArrayD::from_elem(sh, v != 0.0)),
        }
    }

    pub fn zeros(dtype: DType, shape: &[usize]) -> Array {
        Array::full(dtype, shape, 0.0)
    }

    /// Every element exactly as its own kind of number, in row-major order: int64
    /// elements stay `Elem::Int` (never through f64, which is exact only to 2^53),
    /// bools `Elem::Bool`, floats `Elem::Float` (a float32 widened exactly).
    pub fn elems(&self) -> Vec<Elem> {
        match self {
            Array::F32(a) => a.iter().map(|&x| Elem::Float(x as f64)).collect(),
            Array::F64(a) => a.iter().map(|&x| Elem::Float(x)).collect(),
            Array::I32(a) => a.iter().map(|&x| Elem::Int(x as i64)).collect(),
            Array::I64(a) => a.iter().map(|&x| Elem::Int(x)).collect(),
            Array::Bool(a) => a.iter().map(|&x| Elem::Bool(x)).collect(),
        }
    }

    /// The first element exactly, as [`Array::elems`] gives it (callers check the size;
    /// an empty array gives a zero of its kind).
    pub fn first_elem(&self) -> Elem {
        match self {
            Array::F32(a) => Elem::Float(a.iter().next().map_or(0.0, |&x| x as f64)),
            Array::F64(a) => Elem::Float(a.iter().next().copied().unwrap_or(0.0)),
            Array::I32(a) => Elem::Int(a.iter().next().map_or(0, |&x| x as i64)),
            Array::I64(a) => Elem::Int(a.iter().next().copied().unwrap_or(0)),
            Array::Bool(a) => Elem::Bool(a.iter().next().copied().unwrap_or(false)),
        }
    }

    /// [`Array::to_f64_vec`] for an array of a size a script chose: the copy (8 bytes an
    /// element, twice a float32 array's size) is asked of the memory limit first.
    ///
    /// Errors: MemoryError past the memory limit.
    pub fn try_to_f64_vec(&self) -> R<Vec<f64>> {
        super::budget::check_elements(self.len(), 8)?;
        Ok(self.to_f64_vec())
    }

    /// Every element as f64 (bools as 0/1), in row-major order: for small arrays (a
    /// tensor's size a script chose goes through [`Array::try_to_f64_vec`]).
    pub fn to_f64_vec(&self) -> Vec<f64> {
        match self {
            Array::F32(a) => a.iter().map(|&x| x as f64).collect(),
            Array::F64(a) => a.iter().copied().collect(),
            Array::I32(a) => a.iter().map(|&x| x as f64).collect(),
            Array::I64(a) => a.iter().map(|&x| x as f64).collect(),
            Array::Bool(a) => a.iter().map(|&x| if x { 1.0 } else { 0.0 }).collect(),
        }
    }

    /// The first element as f64 (callers check the size).
    pub fn first_f64(&self) -> f64 {
        match self {
            Array::F32(a) => a.iter().next().map_or(0.0, |&x| x as f64),
            Array::F64(a) => a.iter().next().copied().unwrap_or(0.0),
            Array::I32(a) => a.iter().next().map_or(0.0, |&x| x as f64),
            Array::I64(a) => a.iter().next().map_or(0.0, |&x| x as f64),
            Array::Bool(a) => a.iter().next().map_or(0.0, |&x| x as u8 as f64),
        }
    }

    /// Converts to `dtype` (float → int truncates toward zero, as TF's cast; int64 → int32
    /// keeps the low 32 bits, as TF's cast does).
    pub fn cast(&self, dtype: DType) -> Array {
        if self.dtype() == dtype {
            return self.clone();
        }
        match (self, dtype) {
            (Array::F32(a), DType::F64) => Array::F64(a.mapv(|x| x as f64)),
            (Array::F64(a), DType::F32) => Array::F32(a.mapv(|x| x as f32)),
            (Array::I64(a), DType::F32) => Array::F32(a.mapv(|x| x as f32)),
            (Array::I64(a), DType::F64) => Array::F64(a.mapv(|x| x as f64)),
            (Array::I32(a), DType::F32) => Array::F32(a.mapv(|x| x as f32)),
            (Array::I32(a), DType::F64) => Array::F64(a.mapv(|x| x as f64)),
            (Array::I32(a), DType::I64) => Array::I64(a.mapv(|x| x as i64)),
            (Array::I32(a), DType::Bool) => Array::Bool(a.mapv(|x| x != 0)),
            (Array::Bool(a), DType::F32) => Array::F32(a.mapv(|x| x as u8 as f32)),
            (Array::Bool(a), DType::F64) => Array::F64(a.mapv(|x| x as u8 as f64)),
            (Array::Bool(a), DType::I64) => Array::I64(a.mapv(|x| x as i64)),
            (Array::Bool(a), DType::I32) => Array::I32(a.mapv(|x| x as i32)),
            (Array::F32(a), DType::I64) => Array::I64(a.mapv(|x| x as i64)),
            (Array::F64(a), DType::I64) => Array::I64(a.mapv(|x| x as i64)),
            (Array::F32(a), DType::I32) => Array::I32(a.mapv(|x| x as i32)),
            (Array::F64(a), DType::I32) => Array::I32(a.mapv(|x| x as i32)),
            (Array::I64(a), DType::I32) => Array::I32(a.mapv(|x| x as i32)),
            (Array::F32(a), DType::Bool) => Array::Bool(a.mapv(|x| x != 0.0)),
            (Array::F64(a), DType::Bool) => Array::Bool(a.mapv(|x| x != 0.0)),
            (Array::I64(a), DType::Bool) => Array::Bool(a.mapv(|x| x != 0)),
            _ => unreachable!("cast to the same dtype returned early"),
        }
    }

    /// An int32 array as int64 (exact), any other array as it is: int32 is computed by the
    /// int64 kernels and wrapped back with [`Array::narrowed_to`].
    pub fn widened(&self) -> std::borrow::Cow<'_, Array> {
        match self {
            Array::I32(a) => std::borrow::Cow::Owned(Array::I64(a.mapv(|x| x as i64))),
            other => std::borrow::Cow::Borrowed(other),
        }
    }

    /// A kernel's int64 result brought back to `dtype` when that is int32 (the low 32 bits,
    /// as TF's int32 arithmetic wraps); any other result as it is.
    pub fn narrowed_to(self, dtype: DType) -> Array {
        match (self, dtype) {
            (Array::I64(a), DType::I32) => Array::I32(a.mapv(|x| x as i32)),
            (other, _) => other,
        }
    }

    /// The first element as i64: exact for int64 and bool, checked for floats
    /// (callers check the size).
    ///
    /// Errors: ValueError for NaN, infinity or a float out of the int64 range.
    pub fn first_i64(&self) -> R<i64> {
        match self {
            Array::I64(a) => Ok(a.iter().next().copied().unwrap_or(0)),
            Array::I32(a) => Ok(a.iter().next().map_or(0, |&x| x as i64)),
            Array::Bool(a) => Ok(a.iter().next().map_or(0, |&x| x as i64)),
            _ => float_to_int(self.first_f64()),
        }
    }

    /// Every element as i64, exact for int64 and bool, checked for floats.
    ///
    /// Errors: as [`Array::first_i64`].
    pub fn to_i64_vec(&self) -> R<Vec<i64>> {
        match self {
            Array::I64(a) => Ok(a.iter().copied().collect()),
            Array::I32(a) => Ok(a.iter().map(|&x| x as i64).collect()),
            Array::Bool(a) => Ok(a.iter().map(|&x| x as i64).collect()),
            _ => self.try_to_f64_vec()?.into_iter().map(float_to_int).collect(),
        }
    }

    /// [`Array::cast`] for values a script chose: a float → int cast of NaN,
    /// infinity or a value outside the int's range is an error, never a saturated value.
    ///
    /// Errors: ValueError naming the value.
    pub fn try_cast(&self, dtype: DType) -> R<Array> {
        if dtype != self.dtype() {
            super::budget::check_elements(self.len(), dtype.size())?;
        }
        if dtype.is_int() && self.dtype().is_float() {
            let in_range = |v: f64| match dtype {
                DType::I32 => v.is_finite() && v > i32::MIN as f64 - 1.0 && v < i32::MAX as f64 + 1.0,
                _ => float_to_int(v).is_ok(),
            };
            let bad = match self {
                Array::F32(a) => a.iter().map(|&v| v as f64).find(|v| !in_range(*v)),
                Array::F64(a) => a.iter().copied().find(|v| !in_range(*v)),
                _ => None,
            };
            if let Some(bad) = bad {
                tensor_bail!(
                    Value,
                    "cannot cast {} to {dtype}: {} is not in the {dtype} range",
                    self.dtype(),
                    super::scalar::fmt_f64(bad)
                );
            }
        }
        Ok(self.cast(dtype))
    }

    /// Builds an array of float `dtype` and `shape` from row-major values made one at a time by
    /// `next`, each written straight into the result's buffer: the same values as
    /// [`Array::from_f64`] of them, without a float64 copy (a large random tensor's peak is its
    /// own size, not three times it). Other dtypes go through float64.
    pub fn from_f64_fn(dtype: DType, shape: &[usize], mut next: impl FnMut() -> f64) -> Array {
        let n: usize = shape.iter().product();
        let mut fill = |_| next();
        match dtype {
            DType::F32 => Array::F32(
                ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|i| fill(i) as f32).collect())
                    .expect("shape matches the value count"),
            ),
            DType::F64 => Array::F64(
                ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(fill).collect()).expect("shape matches the value count"),
            ),
            _ => Array::from_f64(dtype, shape, (0..n).map(fill).collect()),
        }
    }

    /// Builds an array of `dtype` and `shape` from row-major f64 values.
    pub fn from_f64(dtype: DType, shape: &[usize], values: Vec<f64>) -> Array {
        let a = ArrayD::from_shape_vec(IxDyn(shape), values).expect("shape matches the value count");
        Array::F64(a).cast(dtype)
    }
}
