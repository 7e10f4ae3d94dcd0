//! NumPy arrays and scalars (docs/language.md §4 "NumPy arrays"): what `t.numpy()`,
//! `np.array(...)` and the `np.` functions give. An array is never on a tape: it holds an
//! [`Array`] and computes with the tensor kernels directly, under NumPy's dtype rules
//! (NumPy 2's promotion, where a Python number takes the array's kind when it can), and
//! prints as NumPy prints (format/numpy.rs). Where an array meets a tensor it is converted
//! as TF's `convert_to_tensor` converts it, with the tensor's dtype (runtime/convert.rs).

use super::value::Value;
use super::Interp;
use crate::error::R;
use crate::tensor::kernels::{self, Binary, Compare, Unary};
use crate::tensor::{Array, DType, Tensor};
use crate::{bail, err};
use std::cell::{Cell, Ref, RefCell};
use std::rc::Rc;

/// A NumPy array, or a NumPy scalar (`np.float32(6.0)`: what indexing down to one element and
/// whole-array reductions give), which prints and types as NumPy's scalar.
///
/// An array either owns its elements or is a *view* of another's (docs/language.md §4 "NumPy
/// arrays": basic indexing, `.T`, `reshape` and `ravel` of a contiguous array, and iteration
/// give views, as NumPy's do): a view holds its base (always an owner) and, for each of its
/// elements in C order, the element's C-order position in the base. Reading a view gathers
/// the base's current elements when the base changed since the last read (the base's
/// `version` counts its writes); writing one scatters its elements back, so `b = a[1:3];
/// b[0] = 9` changes `a`, and `a[1] = 7` shows in `b`.
#[derive(Debug)]
pub struct NdArray {
    data: RefCell<Array>,
    pub scalar: bool,
    view: Option<View>,
    version: Cell<u64>,
    /// The tensor this value was computed from, if any, and where it left the tapes, so a
    /// tensor made from it again is linked to that one in `tape.explain` (never a gradient).
    origin: Cell<Option<Origin>>,
}

/// Where a NumPy value left the tapes: the tensor, the function (`np.sin`, `.numpy()`) and
/// the statement.
#[derive(Clone, Copy, Debug)]
pub struct Origin {
    pub tensor: crate::tensor::TensorId,
    pub name: &'static str,
    pub site: crate::autodiff::tape::Site,
}

/// What makes an [`NdArray`] a view: its base and where its elements are in it.
#[derive(Debug)]
struct View {
    base: Rc<NdArray>,
    positions: Rc<[usize]>,
    /// The base's `version` this view's elements were last gathered at.
    seen: Cell<u64>,
}

impl NdArray {
    /// An array value of `a`.
    pub fn array(a: Array) -> Value {
        Value::NdArray(Rc::new(NdArray::owner(a, false)))
    }

    /// A NumPy scalar of the one element of `a` (a 0-d array; NumPy's rule for what its
    /// functions return when the result has no axes).
    pub fn scalar(a: Array) -> Value {
        Value::NdArray(Rc::new(NdArray::owner(a, true)))
    }

    fn owner(a: Array, scalar: bool) -> NdArray {
        NdArray { data: RefCell::new(a), scalar, view: None, version: Cell::new(0), origin: Cell::new(None) }
    }

    /// A function's result as NumPy returns it: a scalar when it has no axes.
    pub fn result(a: Array) -> Value {
        if a.shape().is_empty() {
            NdArray::scalar(a)
        } else {
            NdArray::array(a)
        }
    }

    /// The array's elements (a view's as its base holds them now).
    pub fn data(&self) -> Ref<'_, Array> {
        if let Some(v) = &self.view {
            let now = v.base.version.get();
            if v.seen.get() != now {
                // A caller still holding the elements (a borrow across a write of the base)
                // reads them as they were; never a panic.
                if let Ok(mut mine) = self.data.try_borrow_mut() {
                    let shape = mine.shape().to_vec();
                    *mine = crate::tensor::sorting::take(&v.base.data(), &v.positions, &shape);
                    v.seen.set(now);
                }
            }
        }
        self.data.borrow()
    }

    /// Sets the elements at C-order `positions` (of this array) to `src`'s, in place: for a
    /// view, in its owner too, at the owner's positions, so a write of a few elements costs those
    /// elements, not the view.
    pub fn write_at(&self, positions: &[usize], src: &Array) -> R<()> {
        drop(self.data());
        put_flat(&mut self.data.borrow_mut(), positions, src)?;
        match &self.view {
            Some(v) => {
                let mapped: Vec<usize> = positions.iter().map(|&p| v.positions[p]).collect();
                put_flat(&mut v.base.data.borrow_mut(), &mapped, src)?;
                v.base.version.set(v.base.version.get() + 1);
                v.seen.set(v.base.version.get());
            }
            None => self.version.set(self.version.get() + 1),
        }
        Ok(())
    }

    /// Replaces the elements with `a` of the same shape, in place (a view's in its owner too).
    pub fn replace(&self, a: Array) -> R<()> {
        if self.view.is_none() {
            *self.data.borrow_mut() = a;
            self.version.set(self.version.get() + 1);
            return Ok(());
        }
        let all: Vec<usize> = (0..a.len()).collect();
        self.write_at(&all, &a)
    }

    /// The C-order positions of this array's elements in the array owning them, shaped as
    /// this array (an int64 array): what indexing it selects tells which elements a view of
    /// the selection shows.
    ///
    /// Errors: MemoryError (the tensor budget's) when the positions of a huge array would not
    /// fit.
    pub fn positions(&self) -> R<Array> {
        let shape = self.data().shape().to_vec();
        crate::tensor::budget::check_elements(shape.iter().product(), 8)?;
        let pos: Vec<i64> = match &self.view {
            Some(v) => v.positions.iter().map(|&p| p as i64).collect(),
            None => (0..shape.iter().product::<usize>() as i64).collect(),
        };
        Ok(Array::I64(ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape), pos).expect("one position per element")))
    }

    /// The view `n[index]` of a basic index already resolved against `n`'s shape (`info`, as
    /// `tensor_index` gives it: ints in range, slices with their bounds normalised); None when
    /// the result has no axes (one element: NumPy gives a scalar, a copy). The positions are
    /// computed for the selected elements only, so slicing a batch out of a large array costs
    /// the batch, not the array.
    pub fn view_by_index(n: &Rc<NdArray>, info: &[ndarray::SliceInfoElem]) -> R<Option<Value>> {
        let (flat, out_shape) = basic_positions(n.data().shape(), info)?;
        if out_shape.is_empty() {
            return Ok(None);
        }
        // Within a view, the flat indices are its own: its owner's positions are behind them.
        let owner_positions: Vec<i64> = match &n.view {
            Some(v) => flat.iter().map(|&f| v.positions[f] as i64).collect(),
            None => flat.into_iter().map(|f| f as i64).collect(),
        };
        let positions = Array::I64(
            ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&out_shape), owner_positions)
                .expect("one position per element"),
        );
        Ok(Some(NdArray::view_of(n, &positions)?))
    }

    /// Whether the array's elements are one run of its owner's, in order (an owner, or a view
    /// such as `a[2:5]` or `a[1]`): what NumPy can reshape without a copy.
    pub fn contiguous(&self) -> bool {
        match &self.view {
            None => true,
            Some(v) => v.positions.windows(2).all(|w| w[1] == w[0] + 1),
        }
    }

    /// The owner of a view's elements (NumPy's `a.base`), None for an owner.
    pub fn base(&self) -> Option<Rc<NdArray>> {
        self.view.as_ref().map(|v| v.base.clone())
    }

    /// A view of elements of `of`'s owner, shaped as `positions` (an int64 array of C-order
    /// positions in the owner: [`NdArray::positions`] of `of` indexed, transposed or
    /// reshaped), so a view of a view is a view of the one owner.
    pub fn view_of(of: &Rc<NdArray>, positions: &Array) -> R<Value> {
        let base = of.base().unwrap_or_else(|| of.clone());
        let pos: Vec<usize> = positions.to_i64_vec()?.into_iter().map(|p| p as usize).collect();
        let shape = positions.shape().to_vec();
        let a = crate::tensor::sorting::take(&base.data(), &pos, &shape);
        let seen = Cell::new(base.version.get());
        let view = View { base, positions: pos.into(), seen };
        Ok(Value::NdArray(Rc::new(NdArray {
            data: RefCell::new(a),
            scalar: false,
            view: Some(view),
            version: Cell::new(0),
            origin: Cell::new(of.origin()),
        })))
    }

    /// The tensor this value was computed from and where it left the tapes ([`Origin`]).
    pub fn origin(&self) -> Option<Origin> {
        self.origin.get()
    }

    /// `v` (a NumPy value) marked as computed from `origin`; other values unchanged.
    pub fn with_origin(v: Value, origin: Option<Origin>) -> Value {
        if let (Value::NdArray(n), Some(_)) = (&v, origin) {
            if n.origin.get().is_none() {
                n.origin.set(origin);
            }
        }
        v
    }

    /// NumPy's type name: `ndarray`, or the scalar's dtype (`float32`, `int64`, `bool`).
    pub fn type_name(&self) -> String {
        if self.scalar {
            match self.data().dtype() {
                DType::Bool => "bool".into(),
                d => d.name().into(),
            }
        } else {
            "ndarray".into()
        }
    }

    pub fn str(&self) -> String {
        let a = self.data();
        if self.scalar {
            super::format::numpy::numpy_scalar_str(&a)
        } else {
            super::format::numpy::numpy_str(&a)
        }
    }

    pub fn repr(&self) -> String {
        let a = self.data();
        if self.scalar {
            super::format::numpy::numpy_scalar_repr(&a)
        } else {
            super::format::numpy::numpy_repr(&a)
        }
    }
}

/// The kind of an operand in NumPy 2's promotion: a Python number is "weak" (it takes the
/// array's dtype when that is of its kind or wider).
#[derive(Clone, Copy, PartialEq)]
enum Operand {
    Array(DType),
    PyBool,
    PyInt,
    PyFloat,
}

/// NumPy's result dtype of two array dtypes (`np.result_type`) for the dtypes DGL has: the
/// smallest dtype that holds both kinds' values (uint8 with int8 is int16; an int with a float
/// takes the float wide enough for it: float16 for 8-bit ints, float32 for int16, float64 for
/// int32 and int64).
fn promote(a: DType, b: DType) -> DType {
    use DType::*;
    // The smallest float that holds every value of an int dtype, as NumPy's table has it.
    let float_for = |i: DType| match i {
        U8 | I8 => F16,
        I16 => F32,
        _ => F64,
    };
    let wider = |x: DType, y: DType| if x.size() >= y.size() { x } else { y };
    match (a, b) {
        _ if a == b => a,
        (Bool, x) | (x, Bool) => x,
        (x, y) if x.is_float() && y.is_float() => wider(x, y),
        (f, i) | (i, f) if f.is_float() => wider(f, float_for(i)),
        // Two ints: uint8 with a signed int needs a signed int wider than 8 bits.
        (U8, s) | (s, U8) => wider(s, I16),
        (x, y) => wider(x, y),
    }
}

/// NumPy's result dtype of several array dtypes (`np.result_type(a, b, c)`): the ints (and
/// bools) promote among themselves; when a float is present the result is the widest float
/// among the floats and each int's own float, so `uint8, int8, float16` is float16 as in
/// NumPy, where promoting pairwise would make float32. `None` without dtypes.
fn promote_all(dtypes: impl Iterator<Item = DType>) -> Option<DType> {
    let dtypes: Vec<DType> = dtypes.collect();
    if !dtypes.iter().any(|d| d.is_float()) {
        return dtypes.into_iter().reduce(promote);
    }
    dtypes.into_iter().filter(|&d| d != DType::Bool).reduce(|acc, d| {
        if d.is_float() {
            promote(acc, d)
        } else {
            promote(acc, promote(d, DType::F16))
        }
    })
}

/// The dtype of an operation among operands (NEP 50): the arrays' dtypes promote as
/// [`promote`]; a Python int or float takes that dtype when it is of the same kind or a wider
/// one (a float meeting an int or bool dtype makes float64, an int meeting bool int64); with
/// no array the Python numbers promote as int64, float64 and bool.
fn operands_dtype_of(ops: &[Operand]) -> DType {
    use Operand::*;
    let strong = promote_all(ops.iter().filter_map(|op| if let Array(d) = op { Some(*d) } else { None }));
    let py = |p: &Operand| match p {
        PyBool => DType::Bool,
        PyInt => DType::I64,
        _ => DType::F64,
    };
    let Some(strong) = strong else {
        return ops.iter().map(py).fold(DType::Bool, promote);
    };
    ops.iter().fold(strong, |d, p| match p {
        PyInt if d == DType::Bool => DType::I64,
        PyFloat if !d.is_float() => DType::F64,
        _ => d,
    })
}

/// [`operands_dtype_of`] two operands.
fn operands_dtype(a: Operand, b: Operand) -> DType {
    operands_dtype_of(&[a, b])
}

impl Interp {
    /// `a op b` where one operand is a NumPy value and neither is a tensor: NumPy's
    /// promotion, broadcasting and result (a scalar when both operands are scalars).
    ///
    /// Errors: TypeError for an operand that is not a number, list or array; ShapeError
    /// when the shapes do not broadcast.
    pub(crate) fn numpy_binary(&mut self, op: Binary, a: &Value, b: &Value) -> R<Value> {
        let ((x, kx, sx), (y, ky, sy)) = (self.numpy_operand(a)?, self.numpy_operand(b)?);
        let mut dtype = operands_dtype(kx, ky);
        // NumPy's true division of integers (and bools) is float64; `**` of bools is int.
        if op == Binary::Div && !dtype.is_float() {
            dtype = DType::F64;
        }
        if dtype == DType::Bool && !matches!(op, Binary::Maximum | Binary::Minimum) {
            dtype = DType::I64;
        }
        let out = match op {
            // NumPy's `//` and `%` are Python's (floats: `1.0 // 0.1` is 9.0), and a zero divisor
            // gives inf/nan for floats and 0 for ints (with a warning in NumPy), not an error.
            Binary::FloorDiv | Binary::Mod => floor_div_mod(op == Binary::Mod, &x.cast(dtype), &y.cast(dtype))?,
            _ => kernels::binary(op, &x.cast(dtype), &y.cast(dtype))?,
        };
        Ok(NdArray::with_origin(if sx && sy { NdArray::scalar(out) } else { NdArray::array(out) }, origin_of(&[a, b])))
    }

    /// `a @ b` with a NumPy operand: NumPy's promotion, the tensor kernel's product.
    ///
    /// Errors: as `matmul`'s (rank below 2 is a ShapeError: NumPy's vector products are `np.dot`).
    pub(crate) fn numpy_matmul(&mut self, a: &Value, b: &Value) -> R<Value> {
        let ((x, kx, _), (y, ky, _)) = (self.numpy_operand(a)?, self.numpy_operand(b)?);
        let dtype = operands_dtype(kx, ky);
        Ok(NdArray::with_origin(NdArray::array(kernels::matmul(&x.cast(dtype), &y.cast(dtype))?), origin_of(&[a, b])))
    }

    /// `a < b` and the other comparisons with a NumPy operand: a bool array (scalar for scalars).
    pub(crate) fn numpy_compare(&mut self, op: Compare, a: &Value, b: &Value) -> R<Value> {
        let ((x, kx, sx), (y, ky, sy)) = (self.numpy_operand(a)?, self.numpy_operand(b)?);
        let dtype = operands_dtype(kx, ky);
        let out = kernels::compare(op, &x.cast(dtype), &y.cast(dtype))?;
        Ok(if sx && sy { NdArray::scalar(out) } else { NdArray::array(out) })
    }

    /// `-a`, `abs(a)`… of a NumPy value, keeping its dtype (NumPy's ufuncs of one operand).
    pub(crate) fn numpy_unary(&mut self, op: Unary, a: &NdArray) -> R<Value> {
        let out = kernels::unary(op, &a.data())?;
        Ok(NdArray::with_origin(if a.scalar { NdArray::scalar(out) } else { NdArray::array(out) }, a.origin()))
    }

    /// Two operands of an `np.` function as tensors of the dtype NumPy's promotion gives them.
    pub(crate) fn numpy_pair(&mut self, a: &Value, b: &Value) -> R<(Tensor, Tensor)> {
        let ((x, kx, _), (y, ky, _)) = (self.numpy_operand(a)?, self.numpy_operand(b)?);
        let dtype = operands_dtype(kx, ky);
        Ok((Tensor::new(x.cast(dtype)), Tensor::new(y.cast(dtype))))
    }

    /// The operands of an `np.` function of several (`np.clip(a, lo, hi)`) as tensors of the one
    /// dtype NumPy 2's promotion gives them (Python numbers weak, as for two operands).
    pub(crate) fn numpy_operands(&mut self, vals: &[&Value]) -> R<Vec<Tensor>> {
        let mut parts = Vec::with_capacity(vals.len());
        for v in vals {
            parts.push(self.numpy_operand(v)?);
        }
        let dtype = operands_dtype_of(&parts.iter().map(|p| p.1).collect::<Vec<_>>());
        Ok(parts.into_iter().map(|(a, _, _)| Tensor::new(a.cast(dtype))).collect())
    }

    /// One operand of a NumPy operation: its array, its kind for promotion, and whether it
    /// is a scalar (a Python number or a NumPy scalar).
    fn numpy_operand(&mut self, v: &Value) -> R<(Array, Operand, bool)> {
        Ok(match v {
            Value::NdArray(n) => {
                let a = n.data().clone();
                let d = a.dtype();
                (a, Operand::Array(d), n.scalar)
            }
            Value::Bool(b) => (Array::scalar(DType::Bool, *b as u8 as f64), Operand::PyBool, true),
            Value::Int(i) => (int_scalar(*i), Operand::PyInt, true),
            Value::Float(f) => (Array::scalar(DType::F64, *f), Operand::PyFloat, true),
            Value::Complex(..) => return Err(super::complex::no_complex_tensor()),
            Value::List(_) | Value::Tuple(_) => {
                let a = self.numpy_array_of(v)?;
                let d = a.dtype();
                (a, Operand::Array(d), false)
            }
            other => bail!(Type, "unsupported operand type for a NumPy array: '{}'", other.type_name()),
        })
    }

    /// A Python value as NumPy's `np.array` makes it: bools bool, ints int64, floats float64
    /// (the widest present), a NumPy value or tensor its own dtype.
    pub(crate) fn numpy_array_of(&mut self, v: &Value) -> R<Array> {
        if let Value::NdArray(n) = v {
            return Ok(n.data().clone());
        }
        let saved = std::mem::replace(&mut self.dialect, super::value::Dialect::NumPy);
        let t = self.to_tensor(v, None);
        self.dialect = saved;
        Ok((*t?.data).clone())
    }
}

/// The native module `_numpy_kernels` under stdlib/_numpy.dgl.
pub(crate) fn build_kernels(rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    let ndarray = rt.unnamed_type("ndarray").ok_or_else(|| err!(Runtime, "internal error: ndarray is not a type"))?;
    Ok(vec![
        ("result_type", RESULT_TYPE.value()),
        ("ndarray", ndarray),
        ("dtype", super::numpy_natives::NP_DTYPE.value()),
        ("shares_memory", super::numpy_natives::SHARES_MEMORY.value()),
        ("is_array", super::numpy_natives::IS_ARRAY.value()),
    ])
}

/// `result_type(*values)`: NumPy 2's result dtype of arrays, dtypes and Python numbers
/// together (`np.result_type`): arrays and dtypes promote as NumPy's table, a Python int or
/// float is weak (an int8 array with `7` is int8, with `7.0` float64); as a NumPy dtype.
///
/// Errors: TypeError without values or for a value that is not an array, dtype or number.
static RESULT_TYPE: Native = Native::new("result_type", &["*values"], |rt, args| {
    let values = RESULT_TYPE.bind(rt, args)?.rest;
    if values.is_empty() {
        bail!(Type, "at least one array or dtype is required");
    }
    let mut kinds = Vec::with_capacity(values.len());
    for v in &values {
        kinds.push(match v {
            Value::DType(d) | Value::NpDType(d) => Operand::Array(*d),
            Value::Str(_) | Value::Builtin(_) => Operand::Array(rt.dtype_arg(v)?),
            Value::Tensor(t) => Operand::Array(t.dtype()),
            Value::Variable(var) => Operand::Array(var.peek().dtype()),
            _ => rt.numpy_operand(v)?.1,
        });
    }
    Ok(Value::NpDType(operands_dtype_of(&kinds)))
});

/// The first [`Origin`] among NumPy operands.
fn origin_of(vals: &[&Value]) -> Option<Origin> {
    vals.iter().find_map(|v| if let Value::NdArray(n) = v { n.origin() } else { None })
}

/// A Python int as a 0-d int64 array, exactly.
fn int_scalar(i: i64) -> Array {
    Array::I64(ndarray::ArrayD::from_elem(ndarray::IxDyn(&[]), i))
}

/// A tensor's value as a NumPy value (`t.numpy()`): the same dtype and elements, a copy; a
/// scalar of a tensor without axes, as TF's `numpy()` gives `np.float32(6.0)`.
pub fn of_tensor(t: &Tensor) -> Value {
    NdArray::result((*t.data).clone())
}

/// A result of a function reached through `np.` as NumPy gives it: tensors (and Variables)
/// become NumPy values, inside tuples and lists too; a result without axes is a scalar unless
/// `keep_0d` (the array constructors: `np.array(5)` is `array(5)`).
pub fn to_numpy(v: Value, keep_0d: bool) -> Value {
    match v {
        Value::Tensor(t) if keep_0d => NdArray::array((*t.data).clone()),
        Value::Tensor(t) => of_tensor(&t),
        Value::Variable(var) => of_tensor(&var.peek()),
        Value::Tuple(items) => Value::tuple(items.iter().map(|x| to_numpy(x.clone(), keep_0d)).collect()),
        Value::List(items) => {
            let items = items.borrow().clone();
            Value::list(items.into_iter().map(|x| to_numpy(x, keep_0d)).collect())
        }
        other => other,
    }
}

/// The constructors of `np.` whose result without axes stays a 0-d array.
const CONSTRUCTORS: &[&str] = &["array", "asarray", "zeros", "ones", "full", "empty", "copy"];

/// A function of DGL's standard library bound as `np.name` (`np.array` is `_numpy.array`):
/// called with the arguments as given, its result made a NumPy value ([`to_numpy`]).
pub fn numpy_wrapper(name: &str, f: Value) -> Value {
    use super::value::{Builtin, BuiltinKind};
    Value::Builtin(Rc::new(Builtin { name: name.into(), kind: BuiltinKind::Method(f, &NUMPY_CALL) }))
}

/// Whether a method's native is [`numpy_wrapper`]'s (its help is the wrapped function's).
pub fn is_numpy_wrapper(native: &Native) -> bool {
    std::ptr::eq(native, &NUMPY_CALL)
}

static NUMPY_CALL: Native = Native::new("numpy_call", &["*args", "**kwargs"], |rt, args| {
    let f = args.this.clone().ok_or_else(|| err!(Runtime, "internal error: a NumPy function without its body"))?;
    let (pos, kw) = (std::mem::take(&mut args.pos), std::mem::take(&mut args.kw));
    let keep_0d = CONSTRUCTORS.contains(&&*args.fname);
    let site = rt.ad.site();
    // The NumPy functions it calls on the way are not where the user's value left the tape.
    INSIDE.with(|d| d.set(d.get() + 1));
    let r = rt.call_value(&f, pos, kw);
    INSIDE.with(|d| d.set(d.get() - 1));
    let r = r?;
    rt.ad.set_site(site);
    // The adapters of stdlib/_numpy.dgl named `np_cumsum` are NumPy's `cumsum`.
    let fname = args.fname.clone();
    Ok(rt.numpy_result(|| numpy_call_name(fname.strip_prefix("np_").unwrap_or(&fname)), r, keep_0d))
});

impl Interp {
    /// The one type object of the unnamed type `name` ([`UNNAMED_TYPES`](super::value::UNNAMED_TYPES):
    /// `NoneType`, NumPy's `ndarray`), made on first use, so `type(a) is np.ndarray`; None for
    /// a name not among them.
    pub fn unnamed_type(&mut self, name: &str) -> Option<Value> {
        use super::value::{Builtin, BuiltinKind};
        let &kind = super::value::UNNAMED_TYPES.iter().find(|n| **n == name)?;
        let make = || Value::Builtin(Rc::new(Builtin { name: kind.into(), kind: BuiltinKind::Type }));
        Some(self.type_objects.entry(kind).or_insert_with(make).clone())
    }

    /// The result of the `np.` function `name` as NumPy gives it ([`to_numpy`]). A tensor
    /// result leaves every tape here, so it is noted: `tape.explain` then names `np.sin` at its
    /// line as where a path from a watched tensor ends (docs/language.md §4 "NumPy arrays").
    /// `name` is asked for only then, while a tape records.
    pub(crate) fn numpy_result(&mut self, name: impl FnOnce() -> &'static str, r: Value, keep_0d: bool) -> Value {
        let recording = !self.ad.tapes().is_empty() && INSIDE.with(Cell::get) == 0;
        if let (Value::Tensor(t), true) = (&r, recording) {
            let name = name();
            self.ad.note(name, &[t], &[]);
            let origin = Origin { tensor: t.id, name, site: self.ad.site() };
            return NdArray::with_origin(to_numpy(r, keep_0d), Some(origin));
        }
        to_numpy(r, keep_0d)
    }
}

thread_local! {
    /// How many NumPy functions written in DGL are running (their inner NumPy calls are not
    /// noted on the tape: the outer call is what the user wrote).
    static INSIDE: Cell<u32> = const { Cell::new(0) };
}

/// `np.name` as a name that lives as long as the program, for the tape's notes: one string per
/// NumPy function name (a bounded set), made once.
pub(crate) fn numpy_call_name(name: &str) -> &'static str {
    thread_local! {
        static NAMES: RefCell<std::collections::HashMap<String, &'static str>> = RefCell::default();
    }
    NAMES.with(|names| {
        if let Some(&known) = names.borrow().get(name) {
            return known;
        }
        let made: &'static str = Box::leak(format!("np.{name}").into_boxed_str());
        names.borrow_mut().insert(name.to_string(), made);
        made
    })
}

/// The one element of a NumPy value as a Python number, for `float(x)`, `int(x)`, format
/// specs and the other places a number is wanted (`None` when it has more than one).
pub fn python_number(n: &NdArray) -> Option<Value> {
    let a = n.data();
    if a.len() != 1 {
        return None;
    }
    Some(Value::from_elem(a.first_elem()))
}

/// The error for the truth value of an array with more than one element (NumPy's words).
pub fn ambiguous_truth() -> crate::error::Exc {
    err!(Value, "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()")
}

/// The methods a NumPy value has that are NumPy functions of it first (`a.sum(axis=0)` is
/// `np.sum(a, axis=0)`).
const FORWARDED: &[&str] = &[
    "sum", "mean", "max", "min", "argmax", "argmin", "std", "var", "prod", "all", "any", "cumsum", "cumprod", "round",
    "clip", "squeeze", "dot", "argsort",
];

/// `a.name` for a NumPy value: its attributes (`shape`, `ndim`, `size`, `dtype`, `T`) and
/// methods (`reshape`, `astype`, `tolist`, `item`, `copy`, `flatten`, `ravel`, and the
/// [`FORWARDED`] NumPy functions); `None` for any other name.
pub fn attr(rt: &mut Interp, obj: &Value, n: &Rc<NdArray>, name: crate::intern::Sym) -> R<Option<Value>> {
    use super::value::{Builtin, BuiltinKind};
    let text = name.name();
    let a = n.data();
    let method = |f: &'static super::native::Native| {
        Some(Value::Builtin(Rc::new(Builtin { name: text.as_ref().into(), kind: BuiltinKind::Method(obj.clone(), f) })))
    };
    Ok(match &*text {
        "shape" => Some(super::index::shape_value(a.shape())),
        "ndim" => Some(Value::Int(a.ndim() as i64)),
        "size" => Some(Value::Int(a.len() as i64)),
        // NumPy's dtype: str `float32`, repr `dtype('float32')` whether or not TensorFlow is
        // imported; it equals the dtype and the name (`a.dtype == np.float32`, `== 'float32'`).
        "dtype" => Some(Value::NpDType(a.dtype())),
        // A view with the axes reversed (a scalar's `.T` is itself).
        "T" if n.scalar || a.ndim() == 0 => Some(obj.clone()),
        "T" => {
            let perm: Vec<usize> = (0..a.ndim()).rev().collect();
            drop(a);
            Some(NdArray::view_of(n, &kernels::transpose(&n.positions()?, &perm))?)
        }
        "base" => {
            drop(a);
            Some(n.base().map_or(Value::None, Value::NdArray))
        }
        "tolist" => method(&TOLIST),
        "item" => method(&ITEM),
        "copy" => method(&COPY),
        "flatten" => method(&FLATTEN),
        "ravel" => method(&RAVEL),
        "astype" => method(&ASTYPE),
        "reshape" => method(&RESHAPE),
        "transpose" => method(&TRANSPOSE),
        "sort" => method(&SORT),
        "fill" => method(&FILL),
        name if FORWARDED.contains(&name) => {
            drop(a);
            let f = numpy_function(rt, name)?;
            Some(Value::Method(Rc::new((obj.clone(), f))))
        }
        _ => None,
    })
}

/// The function `np.name` (the `numpy` module loads on first use).
fn numpy_function(rt: &mut Interp, name: &str) -> R<Value> {
    let m = rt.import_stdlib("numpy")?;
    rt.get_attr(&Value::Module(m), crate::intern::intern(name))
}

/// The receiver of a NumPy method.
fn this(args: &super::value::Args) -> R<Rc<NdArray>> {
    match &args.this {
        Some(Value::NdArray(n)) => Ok(n.clone()),
        _ => bail!(Runtime, "internal error: {}() called without its array", args.fname),
    }
}

use super::native::{Native, NO_ARGS};

static TOLIST: Native = Native::with("tolist", NO_ARGS, |_, args| Value::nested_lists(&this(args)?.data()));

static ITEM: Native = Native::with("item", NO_ARGS, |_, args| {
    let n = this(args)?;
    python_number(&n).ok_or_else(|| err!(Value, "can only convert an array of size 1 to a Python scalar"))
});

static COPY: Native = Native::with("copy", NO_ARGS, |_, args| {
    let n = this(args)?;
    let a = n.data().clone();
    Ok(if n.scalar { NdArray::scalar(a) } else { NdArray::array(a) })
});

static FLATTEN: Native = Native::with("flatten", NO_ARGS, |_, args| {
    let n = this(args)?;
    let a = n.data();
    Ok(NdArray::array(kernels::reshape(&a, &[a.len()])))
});

static ASTYPE: Native = Native::new("astype", &["dtype: DType"], |rt, args| {
    let n = this(args)?;
    let dtype = ASTYPE.bind(rt, args)?.dtype("dtype")?;
    let a = n.data().cast(dtype);
    Ok(if n.scalar { NdArray::scalar(a) } else { NdArray::array(a) })
});

/// `a.reshape(2, 3)` or `a.reshape((2, 3))`, one `-1` allowed (NumPy's): a view when `a`'s
/// elements are one run of its owner's (NumPy reshapes those without a copy), else a copy.
///
/// Errors: ValueError when the sizes differ (NumPy's words).
static RESHAPE: Native = Native::new("reshape", &["*shape"], |rt, args| {
    let n = this(args)?;
    let rest = RESHAPE.bind(rt, args)?.rest;
    let shape = match rest.as_slice() {
        [one @ (Value::List(_) | Value::Tuple(_))] => one.clone(),
        _ => Value::tuple(rest),
    };
    let dims = rt.shape_arg(&shape)?;
    let target = crate::tensor::shape::reshape_target(n.data().shape(), &dims)?;
    reshaped(&n, &target)
});

/// `a` with the shape `target` of the same size: a view when `a` is contiguous, else a copy.
fn reshaped(n: &Rc<NdArray>, target: &[usize]) -> R<Value> {
    if n.contiguous() && !n.scalar {
        NdArray::view_of(n, &kernels::reshape(&n.positions()?, target))
    } else {
        Ok(NdArray::array(kernels::reshape(&n.data(), target)))
    }
}

/// `a.ravel()`: `a`'s elements in one axis, C order; a view when `a` is contiguous (NumPy's),
/// else a copy. (`a.flatten()` always copies.)
static RAVEL: Native = Native::with("ravel", NO_ARGS, |_, args| {
    let n = this(args)?;
    let len = n.data().len();
    reshaped(&n, &[len])
});

/// `a.transpose(*axes)`: a view of `a` with its axes permuted (reversed without `axes`), as
/// NumPy's method; `axes` one tuple or several ints.
///
/// Errors: ValueError for axes that are not a permutation of `a`'s (NumPy's words).
static TRANSPOSE: Native = Native::new("transpose", &["*axes"], |rt, args| {
    let n = this(args)?;
    let rest = TRANSPOSE.bind(rt, args)?.rest;
    let rank = n.data().ndim();
    let axes = match rest.as_slice() {
        [] | [Value::None] => (0..rank as i64).rev().collect(),
        [one @ (Value::List(_) | Value::Tuple(_))] => rt.shape_arg(one)?,
        several => several.iter().map(|v| rt.int_arg(v, "axes")).collect::<R<Vec<i64>>>()?,
    };
    let mut perm = Vec::with_capacity(axes.len());
    for &x in &axes {
        if x < -(rank as i64) || x >= rank as i64 {
            bail!(Value, "axis {x} is out of bounds for array of dimension {rank}");
        }
        perm.push(x.rem_euclid(rank.max(1) as i64) as usize);
    }
    let mut seen = perm.clone();
    seen.sort_unstable();
    seen.dedup();
    if perm.len() != rank || seen.len() != rank {
        bail!(Value, "axes don't match array");
    }
    if n.scalar || rank == 0 {
        return Ok(Value::NdArray(n));
    }
    NdArray::view_of(&n, &kernels::transpose(&n.positions()?, &perm))
});

/// `a.sort(axis=-1, kind=None, order=None)`: `a` sorted along `axis` in place (stable, NaN
/// last, as NumPy's), returning None; `kind` is accepted and every sort is stable. NumPy's
/// method takes no `axis=None` (its function `np.sort(a, axis=None)` flattens).
///
/// Errors: TypeError for `axis=None` (NumPy's words) or `order`; ValueError (NumPy's AxisError)
/// for an axis out of range or a scalar.
static SORT: Native = Native::new("sort", &["axis=-1", "kind=None", "order=None"], |rt, args| {
    let n = this(args)?;
    let mut b = SORT.bind(rt, args)?;
    let (axis, _kind, order) = (b.opt("axis")?, b.opt("kind")?, b.non_none("order")?);
    if order.is_some() {
        bail!(Type, "sort: order= sorts structured arrays, which DGL does not have");
    }
    let axis = match axis {
        None => -1,
        Some(Value::None) => bail!(Type, "'NoneType' object cannot be interpreted as an integer"),
        Some(v) => rt.int_arg(&v, "axis")?,
    };
    let a = n.data().clone();
    let rank = a.ndim() as i64;
    if n.scalar || axis < -rank || axis >= rank {
        bail!(Value, "axis {axis} is out of bounds for array of dimension {rank}");
    }
    let axis = axis.rem_euclid(rank.max(1)) as usize;
    // Bools sort as 0 and 1 (False first); the kernel orders numbers.
    let keys = if a.dtype() == DType::Bool { a.cast(DType::I64) } else { a.clone() };
    let perm = crate::tensor::sorting::sort_perm(&keys, axis, a.shape()[axis], false, "sort")?;
    n.replace(crate::tensor::sorting::take(&a, &perm, &a.shape().to_vec()))?;
    Ok(Value::None)
});

/// `a.fill(value)`: every element of `a` set to `value` in place, cast as item assignment
/// casts it (`a[...] = value`), returning None.
///
/// Errors: ValueError for a sequence (NumPy's `setting an array element with a sequence.`);
/// OverflowError for a Python int outside a narrow dtype's range, as `a[...] = value`.
static FILL: Native = Native::new("fill", &["value"], |rt, args| {
    let n = this(args)?;
    let v = FILL.bind(rt, args)?.value("value")?;
    let sequence = match &v {
        Value::List(_) | Value::Tuple(_) => true,
        Value::NdArray(x) => x.data().len() != 1,
        _ => false,
    };
    if sequence {
        bail!(Value, "setting an array element with a sequence.");
    }
    if n.scalar {
        bail!(Type, "'numpy.{}' object does not support item assignment", n.type_name());
    }
    rt.numpy_set_item(&n, Value::Ellipsis, v)?;
    Ok(Value::None)
});

/// `round(a, decimals)` of a NumPy value, as NumPy's: `rint(a * 10**d) / 10**d` in the value's
/// own float dtype (a float32 scalar stays `np.float32`); integers round to tens, hundreds…
/// for negative `decimals` and are unchanged otherwise.
pub fn round_decimals(n: &NdArray, decimals: i64) -> R<Value> {
    let a = n.data();
    let d = decimals.clamp(-400, 400) as i32;
    // rint(v * 10^d) / 10^d, or rint(v / 10^-d) * 10^-d, in the dtype's own arithmetic.
    macro_rules! round_in {
        ($x:expr, $t:ty) => {{
            let p = (10.0 as $t).powi(d.abs());
            $x.mapv(|v| if d >= 0 { (v * p).round_ties_even() / p } else { (v / p).round_ties_even() * p })
        }};
    }
    let out = match &*a {
        Array::F32(x) => Array::F32(round_in!(x, f32)),
        Array::F64(x) => Array::F64(round_in!(x, f64)),
        other if d >= 0 => other.clone(),
        other => {
            let Array::F64(x) = other.cast(DType::F64) else { unreachable!("cast to float64") };
            Array::F64(round_in!(x, f64)).cast(other.dtype())
        }
    };
    Ok(if n.scalar { NdArray::scalar(out) } else { NdArray::array(out) })
}

/// NumPy's `a // b` (`modulo`: `a % b`) of two arrays of one dtype, with broadcasting: for
/// floats Python's floor division and modulo (the sign of the divisor), a zero divisor giving
/// `a / 0` (inf or nan) for `//` and nan for `%`; for ints a zero divisor gives 0.
///
/// Errors: ShapeError when the shapes do not broadcast; TypeError for bools.
fn floor_div_mod(modulo: bool, a: &Array, b: &Array) -> R<Array> {
    let shape = crate::tensor::shape::broadcast_shapes(a.shape(), b.shape())?;
    crate::tensor::budget::check_shape(&shape)?;
    let sh = ndarray::IxDyn(&shape);
    let float = |x: f64, y: f64| -> f64 {
        if y == 0.0 {
            return if modulo { f64::NAN } else { x / y };
        }
        let (d, m) = super::numeric::float_divmod(x, y);
        if modulo {
            m
        } else {
            d
        }
    };
    let int = |x: i64, y: i64| -> i64 {
        if y == 0 {
            return 0;
        }
        let (q, r) = (x.wrapping_div(y), x.wrapping_rem(y));
        let floor = if r != 0 && ((r < 0) != (y < 0)) { q - 1 } else { q };
        if modulo {
            x.wrapping_sub(floor.wrapping_mul(y))
        } else {
            floor
        }
    };
    macro_rules! zip {
        ($x:expr, $y:expr, $f:expr) => {
            ndarray::Zip::from(&$x.broadcast(sh.clone()).expect("shape broadcast"))
                .and(&$y.broadcast(sh.clone()).expect("shape broadcast"))
                .map_collect(|&p, &q| $f(p, q))
        };
    }
    Ok(match (a, b) {
        (Array::F32(x), Array::F32(y)) => Array::F32(zip!(x, y, |p: f32, q: f32| float(p as f64, q as f64) as f32)),
        (Array::F64(x), Array::F64(y)) => Array::F64(zip!(x, y, float)),
        (Array::I64(x), Array::I64(y)) => Array::I64(zip!(x, y, int)),
        _ if a.dtype() == b.dtype() && a.dtype().is_narrow() => {
            floor_div_mod(modulo, &a.widened(), &b.widened())?.narrowed_to(a.dtype())
        }
        _ => bail!(
            Type,
            "unsupported operand dtypes for {}: {} and {}",
            if modulo { "%" } else { "//" },
            a.dtype(),
            b.dtype()
        ),
    })
}

/// The C-order positions, in an array of `shape`, of the elements a basic index selects (`info`
/// as `tensor_index` resolves it: ints in range, slice bounds normalised), and the selection's
/// shape (empty for one element). Only the selected elements are visited.
///
/// Errors: MemoryError (the tensor budget's) for a selection too large to list.
pub(crate) fn basic_positions(shape: &[usize], info: &[ndarray::SliceInfoElem]) -> R<(Vec<usize>, Vec<usize>)> {
    use ndarray::SliceInfoElem as E;
    let mut strides = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    // Per output axis: the indices it takes along its input axis, and that axis's stride.
    let (mut offset, mut axis) = (0usize, 0usize);
    let mut axes: Vec<(Vec<usize>, usize)> = Vec::new();
    for e in info {
        match *e {
            E::Index(k) => {
                offset += k as usize * strides[axis];
                axis += 1;
            }
            E::Slice { start, end, step } => {
                let end = end.map_or(shape[axis] as isize, |e| e);
                let picked: Vec<usize> = if step > 0 {
                    (start..end).step_by(step as usize).map(|i| i as usize).collect()
                } else {
                    (start..end).rev().step_by(step.unsigned_abs()).map(|i| i as usize).collect()
                };
                axes.push((picked, strides[axis]));
                axis += 1;
            }
            E::NewAxis => axes.push((vec![0], 0)),
        }
    }
    let out_shape: Vec<usize> = axes.iter().map(|(p, _)| p.len()).collect();
    let size: usize = out_shape.iter().product();
    crate::tensor::budget::check_elements(size, 8)?;
    let mut flat = Vec::with_capacity(size);
    let mut idx = vec![0usize; axes.len()];
    for _ in 0..size {
        flat.push(offset + idx.iter().zip(&axes).map(|(&i, (p, st))| p[i] * st).sum::<usize>());
        for k in (0..idx.len()).rev() {
            idx[k] += 1;
            if idx[k] < out_shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok((flat, out_shape))
}

/// `dst.flat[positions[i]] = src.flat[i]` (C order) for arrays of one dtype.
///
/// Errors: RuntimeError (internal) when the dtypes differ.
pub(crate) fn put_flat(dst: &mut Array, positions: &[usize], src: &Array) -> R<()> {
    macro_rules! put {
        ($($variant:ident),*) => {
            match (dst, src) {
                $((Array::$variant(d), Array::$variant(s)) => {
                    if !d.is_standard_layout() {
                        *d = d.as_standard_layout().into_owned();
                    }
                    let slots = d.as_slice_mut().expect("standard layout is contiguous");
                    for (&p, x) in positions.iter().zip(s.iter()) {
                        slots[p] = x.clone();
                    }
                })*
                (d, _) => bail!(Runtime, "internal error: a value cast to {} is not", d.dtype()),
            }
        };
    }
    put!(F16, F32, F64, U8, I8, I16, I32, I64, Bool);
    Ok(())
}
