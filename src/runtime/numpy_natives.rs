//! The natives of `_numpy_kernels` that answer questions about NumPy values rather than compute
//! with them (docs/language.md §4 "NumPy arrays"): `np.dtype`, `np.shares_memory` over views, and
//! the array test stdlib/_numpy.dgl's adapters use.

use super::native::Native;
use super::numpy::NdArray;
use super::value::Value;
use crate::bail;
use crate::tensor::DType;
use std::rc::Rc;

/// `np.dtype(spec)`: NumPy's dtype object of a dtype, a dtype's name (`'float32'`), NumPy's
/// short codes (`'f4'`, `'<f8'`, `'i8'`, `'u1'`, `'?'`) or a Python type (`float` is
/// float64, `int` int64, `bool` bool, as NumPy's); prints `float32`, repr `dtype('float32')`.
///
/// Errors: TypeError for a value that names no dtype (NumPy's words); complex and the other
/// dtypes DGL lacks are TypeErrors naming them.
pub(super) static NP_DTYPE: Native = Native::new("dtype", &["dtype"], |rt, args| {
    let v = NP_DTYPE.bind(rt, args)?.value("dtype")?;
    let code = |s: &str| -> Option<DType> {
        let s = s.trim_start_matches(['<', '>', '=', '|']);
        Some(match s {
            "f2" | "e" => DType::F16,
            "f4" | "f" => DType::F32,
            "f8" | "d" | "float" => DType::F64,
            "u1" | "B" => DType::U8,
            "i1" | "b" => DType::I8,
            "i2" | "h" => DType::I16,
            "i4" | "i" => DType::I32,
            "i8" | "l" | "q" | "int" => DType::I64,
            "?" | "b1" => DType::Bool,
            other => DType::from_name(other)?,
        })
    };
    let dtype = match &v {
        Value::Builtin(b) if &*b.name == "float" => DType::F64,
        Value::Str(s) => match code(s) {
            Some(d) => d,
            None => bail!(Type, "data type '{s}' not understood"),
        },
        Value::NdArray(n) if !n.scalar => bail!(Type, "Cannot construct a dtype from an array"),
        other => rt.dtype_arg(other)?,
    };
    Ok(Value::NpDType(dtype))
});

/// `np.shares_memory(a, b)` (and `np.may_share_memory`): whether the two arrays show any
/// element of one owner (a view and its base, two overlapping views); False for values that
/// are not arrays.
pub(super) static SHARES_MEMORY: Native = Native::new("shares_memory", &["a", "b"], |rt, args| {
    let mut b = SHARES_MEMORY.bind(rt, args)?;
    let (x, y) = (b.value("a")?, b.value("b")?);
    let (Value::NdArray(x), Value::NdArray(y)) = (&x, &y) else { return Ok(Value::Bool(false)) };
    let owner = |n: &Rc<NdArray>| n.base().unwrap_or_else(|| n.clone());
    if !Rc::ptr_eq(&owner(x), &owner(y)) || x.scalar || y.scalar {
        return Ok(Value::Bool(false));
    }
    // One flag per element of the owner: what `x` shows, then whether `y` shows any of it.
    let mut shown = vec![false; owner(x).data().len()];
    for p in x.positions()?.to_i64_vec()? {
        shown[p as usize] = true;
    }
    Ok(Value::Bool(y.positions()?.to_i64_vec()?.iter().any(|&p| shown[p as usize])))
});

/// `is_array(x)`: whether `x` is a NumPy array (not a scalar), for the adapters of
/// stdlib/_numpy.dgl.
pub(super) static IS_ARRAY: Native = Native::new("is_array", &["x"], |rt, args| {
    let x = IS_ARRAY.bind(rt, args)?.value("x")?;
    Ok(Value::Bool(matches!(x, Value::NdArray(n) if !n.scalar)))
});
