//! The dtype-tagged n-dimensional array behind every tensor.

use super::error::{tensor_bail, TensorResult as R};
use super::scalar::float_to_int;
use half::f16;
use ndarray::{ArrayD, IxDyn};
use std::fmt;

/// Element types (docs/language.md §4). `float32` is the default. The narrow dtypes (`float16`,
/// `uint8`, `int8`, `int16`, `int32`) are stored at their own width and computed in the wide
/// dtype of their kind (float32, int64), each result rounded or wrapped back: one set of
/// kernels, and TF's results (TF's half kernels also compute in float32; its int kernels wrap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F16,
    F32,
    F64,
    U8,
    I8,
    I16,
    I32,
    I64,
    Bool,
}

impl DType {
    /// Every dtype, in the order documentation lists them.
    pub const ALL: [DType; 9] =
        [DType::F16, DType::F32, DType::F64, DType::U8, DType::I8, DType::I16, DType::I32, DType::I64, DType::Bool];

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::U8 | DType::I8 | DType::Bool => 1,
            DType::F16 | DType::I16 => 2,
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 => 8,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::F16 => "float16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::U8 => "uint8",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::Bool => "bool",
        }
    }

    /// The dtype named `name` (TF's and NumPy's names; `half` is float16's other name).
    pub fn from_name(name: &str) -> Option<DType> {
        match name {
            "half" => Some(DType::F16),
            _ => DType::ALL.into_iter().find(|d| d.name() == name),
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::F32 | DType::F64)
    }

    /// Whether it is an integer dtype (`uint8`, `int8`, `int16`, `int32`, `int64`).
    pub fn is_int(self) -> bool {
        matches!(self, DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// The dtype its elements are computed in: float32 for float16, int64 for the narrower ints,
    /// itself for the others.
    pub fn computed_as(self) -> DType {
        match self {
            DType::F16 => DType::F32,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 => DType::I64,
            d => d,
        }
    }

    /// Whether it is stored narrower than it is computed ([`DType::computed_as`] differs).
    pub fn is_narrow(self) -> bool {
        self.computed_as() != self
    }

    /// The range of an integer dtype's values (`None` for the others).
    pub fn int_range(self) -> Option<(i64, i64)> {
        match self {
            DType::U8 => Some((0, u8::MAX as i64)),
            DType::I8 => Some((i8::MIN as i64, i8::MAX as i64)),
            DType::I16 => Some((i16::MIN as i64, i16::MAX as i64)),
            DType::I32 => Some((i32::MIN as i64, i32::MAX as i64)),
            DType::I64 => Some((i64::MIN, i64::MAX)),
            _ => None,
        }
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
    /// TF's float16: computed as float32 and rounded back to half precision.
    F16(ArrayD<f16>),
    F32(ArrayD<f32>),
    F64(ArrayD<f64>),
    /// TF's uint8, int8, int16 and int32: computed as int64 and wrapped back to their width,
    /// as TF's integer kernels wrap.
    U8(ArrayD<u8>),
    I8(ArrayD<i8>),
    I16(ArrayD<i16>),
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
            $crate::tensor::Array::F16($a) => $body,
            $crate::tensor::Array::F32($a) => $body,
            $crate::tensor::Array::F64($a) => $body,
            $crate::tensor::Array::U8($a) => $body,
            $crate::tensor::Array::I8($a) => $body,
            $crate::tensor::Array::I16($a) => $body,
            $crate::tensor::Array::I32($a) => $body,
            $crate::tensor::Array::I64($a) => $body,
            $crate::tensor::Array::Bool($a) => $body,
        }
    };
}

/// The pattern of the narrow arrays (those [`DType::is_narrow`]), which kernels compute through
/// [`Array::widened`] and [`Array::narrowed_to`].
#[macro_export]
macro_rules! narrow_array {
    () => {
        $crate::tensor::Array::F16(_)
            | $crate::tensor::Array::U8(_)
            | $crate::tensor::Array::I8(_)
            | $crate::tensor::Array::I16(_)
            | $crate::tensor::Array::I32(_)
    };
}

/// Like [`each_dtype`], rewrapping the result in the same dtype.
#[macro_export]
macro_rules! map_dtype {
    ($arr:expr, $a:ident => $body:expr) => {
        match $arr {
            $crate::tensor::Array::F16($a) => $crate::tensor::Array::F16($body),
            $crate::tensor::Array::F32($a) => $crate::tensor::Array::F32($body),
            $crate::tensor::Array::F64($a) => $crate::tensor::Array::F64($body),
            $crate::tensor::Array::U8($a) => $crate::tensor::Array::U8($body),
            $crate::tensor::Array::I8($a) => $crate::tensor::Array::I8($body),
            $crate::tensor::Array::I16($a) => $crate::tensor::Array::I16($body),
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
            Array::F16(_) => DType::F16,
            Array::F32(_) => DType::F32,
            Array::F64(_) => DType::F64,
            Array::U8(_) => DType::U8,
            Array::I8(_) => DType::I8,
            Array::I16(_) => DType::I16,
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
            DType::F16 => Array::F16(ArrayD::from_elem(sh, f16::from_f64(v))),
            DType::F32 => Array::F32(ArrayD::from_elem(sh, v as f32)),
            DType::F64 => Array::F64(ArrayD::from_elem(sh, v)),
            DType::I64 => Array::I64(ArrayD::from_elem(sh, v as i64)),
            DType::Bool => Array::Bool(ArrayD::from_elem(sh, v != 0.0)),
            narrow => Array::I64(ArrayD::from_elem(sh, v as i64)).narrowed_to(narrow),
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
            Array::I64(a) => a.iter().map(|&x| Elem::Int(x)).collect(),
            Array::Bool(a) => a.iter().map(|&x| Elem::Bool(x)).collect(),
            narrow => narrow.widened().elems(),
        }
    }

    /// The first element exactly, as [`Array::elems`] gives it (callers check the size;
    /// an empty array gives a zero of its kind).
    pub fn first_elem(&self) -> Elem {
        match self {
            Array::F32(a) => Elem::Float(a.iter().next().map_or(0.0, |&x| x as f64)),
            Array::F64(a) => Elem::Float(a.iter().next().copied().unwrap_or(0.0)),
            Array::I64(a) => Elem::Int(a.iter().next().copied().unwrap_or(0)),
            Array::Bool(a) => Elem::Bool(a.iter().next().copied().unwrap_or(false)),
            narrow => narrow.widened().first_elem(),
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
            Array::I64(a) => a.iter().map(|&x| x as f64).collect(),
            Array::Bool(a) => a.iter().map(|&x| if x { 1.0 } else { 0.0 }).collect(),
            narrow => narrow.widened().to_f64_vec(),
        }
    }

    /// The first element as f64 (callers check the size).
    pub fn first_f64(&self) -> f64 {
        match self {
            Array::F32(a) => a.iter().next().map_or(0.0, |&x| x as f64),
            Array::F64(a) => a.iter().next().copied().unwrap_or(0.0),
            Array::I64(a) => a.iter().next().map_or(0.0, |&x| x as f64),
            Array::Bool(a) => a.iter().next().map_or(0.0, |&x| x as u8 as f64),
            narrow => narrow.widened().first_f64(),
        }
    }

    /// Converts to `dtype` (float → int truncates toward zero, as TF's cast; a wider int →
    /// a narrower one keeps the low bits, as TF's cast does; → float16 rounds to nearest).
    pub fn cast(&self, dtype: DType) -> Array {
        if self.dtype() == dtype {
            return self.clone();
        }
        if self.dtype().is_narrow() {
            return self.widened().cast(dtype);
        }
        if dtype.is_narrow() {
            return match (self, dtype) {
                (Array::F32(a), DType::F16) => Array::F16(a.mapv(f16::from_f32)),
                (Array::F64(a), DType::F16) => Array::F16(a.mapv(f16::from_f64)),
                (_, DType::F16) => self.cast(DType::F64).cast(DType::F16),
                _ => self.cast(DType::I64).narrowed_to(dtype),
            };
        }
        match (self, dtype) {
            (Array::F32(a), DType::F64) => Array::F64(a.mapv(|x| x as f64)),
            (Array::F64(a), DType::F32) => Array::F32(a.mapv(|x| x as f32)),
            (Array::I64(a), DType::F32) => Array::F32(a.mapv(|x| x as f32)),
            (Array::I64(a), DType::F64) => Array::F64(a.mapv(|x| x as f64)),
            (Array::Bool(a), DType::F32) => Array::F32(a.mapv(|x| x as u8 as f32)),
            (Array::Bool(a), DType::F64) => Array::F64(a.mapv(|x| x as u8 as f64)),
            (Array::Bool(a), DType::I64) => Array::I64(a.mapv(|x| x as i64)),
            (Array::F32(a), DType::I64) => Array::I64(a.mapv(|x| x as i64)),
            (Array::F64(a), DType::I64) => Array::I64(a.mapv(|x| x as i64)),
            (Array::F32(a), DType::Bool) => Array::Bool(a.mapv(|x| x != 0.0)),
            (Array::F64(a), DType::Bool) => Array::Bool(a.mapv(|x| x != 0.0)),
            (Array::I64(a), DType::Bool) => Array::Bool(a.mapv(|x| x != 0)),
            _ => unreachable!("narrow dtypes and the same dtype were handled above"),
        }
    }

    /// A narrow array in the dtype it is computed in (exact: float16 → float32, the narrower
    /// ints → int64), any other array as it is. Results are brought back with
    /// [`Array::narrowed_to`].
    pub fn widened(&self) -> std::borrow::Cow<'_, Array> {
        use std::borrow::Cow::{Borrowed, Owned};
        match self {
            Array::F16(a) => Owned(Array::F32(a.mapv(f16::to_f32))),
            Array::U8(a) => Owned(Array::I64(a.mapv(|x| x as i64))),
            Array::I8(a) => Owned(Array::I64(a.mapv(|x| x as i64))),
            Array::I16(a) => Owned(Array::I64(a.mapv(|x| x as i64))),
            Array::I32(a) => Owned(Array::I64(a.mapv(|x| x as i64))),
            other => Borrowed(other),
        }
    }

    /// A kernel's wide result brought back to `dtype` when that is narrow: an int64 result
    /// keeps its low bits (TF's integer arithmetic wraps), a float32 one rounds to float16;
    /// any other result as it is.
    pub fn narrowed_to(self, dtype: DType) -> Array {
        match (self, dtype) {
            (Array::I64(a), DType::U8) => Array::U8(a.mapv(|x| x as u8)),
            (Array::I64(a), DType::I8) => Array::I8(a.mapv(|x| x as i8)),
            (Array::I64(a), DType::I16) => Array::I16(a.mapv(|x| x as i16)),
            (Array::I64(a), DType::I32) => Array::I32(a.mapv(|x| x as i32)),
            (Array::F32(a), DType::F16) => Array::F16(a.mapv(f16::from_f32)),
            (other, _) => other,
        }
    }

    /// The first element as i64: exact for ints and bool, checked for floats
    /// (callers check the size).
    ///
    /// Errors: ValueError for NaN, infinity or a float out of the int64 range.
    pub fn first_i64(&self) -> R<i64> {
        match self.widened().as_ref() {
            Array::I64(a) => Ok(a.iter().next().copied().unwrap_or(0)),
            Array::Bool(a) => Ok(a.iter().next().map_or(0, |&x| x as i64)),
            _ => float_to_int(self.first_f64()),
        }
    }

    /// Every element as i64, exact for ints and bool, checked for floats.
    ///
    /// Errors: as [`Array::first_i64`].
    pub fn to_i64_vec(&self) -> R<Vec<i64>> {
        match self.widened().as_ref() {
            Array::I64(a) => Ok(a.iter().copied().collect()),
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
            let in_range = |v: f64| match dtype.int_range() {
                Some((lo, hi)) if dtype != DType::I64 => v.is_finite() && v > lo as f64 - 1.0 && v < hi as f64 + 1.0,
                _ => float_to_int(v).is_ok(),
            };
            let bad = match self.widened().as_ref() {
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
                ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(fill).collect())
                    .expect("shape matches the value count"),
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
