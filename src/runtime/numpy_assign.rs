//! `a[index] = v` for a NumPy array (docs/language.md "NumPy arrays"): the array changes in
//! place, so every name bound to it sees the change (`b = a; b[0] = 1` changes `a`), as in
//! NumPy. The positions written are the ones `a[index]` reads (the same indexing: ints,
//! slices, `...`, `None`, int lists and arrays, bool masks), the value broadcasts to their
//! shape and is cast to the array's dtype as NumPy casts (a float into an int array truncates
//! toward zero). `a += b` and the other in-place operators write into the array too, and a
//! view's write reaches its owner (`a[0][1] = 5` changes `a`; runtime/numpy.rs `NdArray`).

use super::numpy::NdArray;
use super::value::Value;
use super::Interp;
use crate::error::R;
use crate::tensor::{Array, DType};
use crate::{bail, err};
use ndarray::{ArrayD, IxDyn};
use std::rc::Rc;

/// Which indexing an assignment uses, for NumPy's wording of a shape mismatch.
#[derive(PartialEq)]
enum Kind {
    Basic,
    Ints,
    Mask,
}

impl Interp {
    /// `a[index] = v` on the NumPy array `n`.
    ///
    /// Errors: IndexError as `a[index]` gives it; ValueError when `v` does not broadcast to the
    /// indexed shape (NumPy's words) or is a string that is not a number; OverflowError for a
    /// Python int outside an int dtype's range; TypeError for a NumPy scalar (`x[0] = 1`).
    pub(crate) fn numpy_set_item(&mut self, n: &Rc<NdArray>, index: Value, v: Value) -> R<()> {
        if n.scalar {
            bail!(Type, "'numpy.{}' object does not support item assignment", n.type_name())
        }
        let (shape, dtype) = {
            let a = n.data();
            (a.shape().to_vec(), a.dtype())
        };
        let (positions, target) = match flat_position(&shape, &index)? {
            Some(p) => (vec![p], vec![]),
            // Basic indexing: the selected positions, computed for the selection alone.
            None if super::index::is_basic_index(&index) => {
                super::numpy::basic_positions(&shape, &super::index::tensor_index(&shape, &index)?)?
            }
            None => {
                let size: usize = shape.iter().product();
                let flat = Array::I64(
                    ArrayD::from_shape_vec(IxDyn(&shape), (0..size as i64).collect()).expect("the shape holds the range"),
                );
                match self.get_item(&NdArray::array(flat), &index)? {
                    Value::NdArray(sel) => {
                        let a = sel.data();
                        let pos: Vec<usize> = a.to_i64_vec()?.into_iter().map(|p| p as usize).collect();
                        (pos, if sel.scalar { vec![] } else { a.shape().to_vec() })
                    }
                    other => bail!(Runtime, "internal error: an array index gave {}", other.type_name()),
                }
            }
        };
        let src = self.assigned_value(&v, dtype)?;
        let src = fitted(src, &target, index_kind(&index))?;
        n.write_at(&positions, &src)
    }

    /// `a op= b` on the NumPy array `n` (`a`): the result written into `n` itself, so every
    /// name bound to it sees it, as NumPy's in-place operators do; cast to `n`'s dtype when
    /// that is of the result's kind or a wider one (NumPy's `same_kind` rule).
    ///
    /// Errors: TypeError when the result's kind does not fit `n`'s dtype (a float into an int
    /// array: `Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64') with casting
    /// rule 'same_kind'`); ValueError when `b` would broadcast `n` to a larger shape; the
    /// operator's own errors.
    pub(crate) fn numpy_inplace(
        &mut self,
        op: crate::syntax::ast::BinOp,
        n: &Rc<NdArray>,
        a: Value,
        b: Value,
    ) -> R<Value> {
        use crate::syntax::ast::BinOp;
        let (shape, dtype) = {
            let d = n.data();
            (d.shape().to_vec(), d.dtype())
        };
        let result = self.binary_op(op, a.clone(), b)?;
        let Value::NdArray(r) = &result else { return Ok(result) };
        let out = r.data().clone();
        if out.shape() != shape.as_slice() {
            bail!(
                Value,
                "non-broadcastable output operand with shape {} doesn't match the broadcast shape {}",
                packed(&shape),
                packed(out.shape())
            )
        }
        let kind = |d: DType| if d == DType::Bool { 0 } else if d.is_int() { 1 } else { 2 };
        if kind(out.dtype()) > kind(dtype) {
            let ufunc = match op {
                BinOp::Add => "add",
                BinOp::Sub => "subtract",
                BinOp::Mul => "multiply",
                BinOp::Div => "divide",
                BinOp::FloorDiv => "floor_divide",
                BinOp::Mod => "remainder",
                BinOp::Pow => "power",
                BinOp::MatMul => "matmul",
                BinOp::BitAnd => "bitwise_and",
                BinOp::BitOr => "bitwise_or",
                BinOp::BitXor => "bitwise_xor",
                BinOp::LShift => "left_shift",
                BinOp::RShift => "right_shift",
            };
            bail!(
                Type,
                "Cannot cast ufunc '{ufunc}' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
                out.dtype(),
                dtype
            )
        }
        n.replace(out.cast(dtype))?;
        Ok(a)
    }

    /// The value of an assignment as an array of `dtype`: NumPy's conversion of a Python
    /// number, list or array, with its errors.
    fn assigned_value(&mut self, v: &Value, dtype: DType) -> R<Array> {
        match v {
            Value::Int(i) => {
                if let Some((lo, hi)) = dtype.int_range() {
                    if *i < lo || *i > hi {
                        bail!(Overflow, "Python integer {i} out of bounds for {dtype}")
                    }
                }
            }
            Value::Float(f) if dtype.is_int() && f.is_nan() => bail!(Value, "cannot convert float NaN to integer"),
            Value::Float(f) if dtype.is_int() && f.is_infinite() => {
                bail!(Overflow, "cannot convert float infinity to integer")
            }
            Value::None if dtype.is_float() => return Ok(Array::scalar(DType::F64, f64::NAN).cast(dtype)),
            Value::Str(s) => {
                let text = s.trim();
                if let (true, Ok(x)) = (dtype.is_float(), text.parse::<f64>()) {
                    return Ok(Array::scalar(DType::F64, x).cast(dtype));
                }
                if let (true, Ok(x)) = (dtype.is_int(), text.parse::<i64>()) {
                    return self.assigned_value(&Value::Int(x), dtype);
                }
                if dtype.is_float() {
                    bail!(Value, "could not convert string to float: {}", self.repr_of(v)?)
                }
                bail!(Value, "invalid literal for int() with base 10: {}", self.repr_of(v)?)
            }
            Value::Float(_) | Value::Bool(_) | Value::List(_) | Value::Tuple(_) | Value::NdArray(_) => {}
            Value::Tensor(_) | Value::Variable(_) => {}
            other => bail!(
                Type,
                "{}() argument must be a string or a real number, not '{}'",
                if dtype.is_float() { "float" } else { "int" },
                other.type_name()
            ),
        }
        let a = self.numpy_array_of(v)?;
        if a.dtype().is_float() && dtype.is_int() && a.to_f64_vec().iter().any(|x| !x.is_finite()) {
            bail!(Value, "cannot convert float NaN or infinity to integer")
        }
        Ok(a.cast(dtype))
    }
}

/// The flat position of an index of one int per axis (the common `a[i, j] = x`), or `None`
/// for any other index.
///
/// Errors: IndexError for an int outside its axis.
fn flat_position(shape: &[usize], index: &Value) -> R<Option<usize>> {
    let ints: Vec<i64> = match index {
        Value::Int(i) => vec![*i],
        Value::Tuple(t) if t.iter().all(|x| matches!(x, Value::Int(_))) => {
            t.iter().map(|x| if let Value::Int(i) = x { *i } else { 0 }).collect()
        }
        _ => return Ok(None),
    };
    if ints.len() != shape.len() {
        return Ok(None);
    }
    let mut pos = 0usize;
    for (axis, (&i, &n)) in ints.iter().zip(shape).enumerate() {
        let k = if i < 0 { i + n as i64 } else { i };
        if k < 0 || k >= n as i64 {
            bail!(Index, "index {i} is out of bounds for axis {axis} with size {n}")
        }
        pos = pos * n + k as usize;
    }
    Ok(Some(pos))
}

/// How `index` selects: a bool mask, int arrays, or basic indexing only.
fn index_kind(index: &Value) -> Kind {
    let items: Vec<Value> = match index {
        Value::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    let mut kind = Kind::Basic;
    for it in &items {
        match it {
            Value::NdArray(n) if !n.scalar && n.data().dtype() == DType::Bool => return Kind::Mask,
            Value::NdArray(n) if !n.scalar => kind = Kind::Ints,
            Value::List(l) if l.borrow().iter().all(|x| matches!(x, Value::Bool(_))) && !l.borrow().is_empty() => {
                return Kind::Mask
            }
            Value::List(_) => kind = Kind::Ints,
            _ => {}
        }
    }
    kind
}

/// `src` broadcast to the indexed shape `target` and laid out in its order (leading axes of
/// length 1 beyond `target`'s rank dropped, as NumPy allows).
///
/// Errors: ValueError in NumPy's words when the shapes do not fit.
fn fitted(src: Array, target: &[usize], kind: Kind) -> R<Array> {
    let mut shape = src.shape().to_vec();
    while shape.len() > target.len() && shape[0] == 1 {
        shape.remove(0);
    }
    let fits = shape.len() <= target.len()
        && shape.iter().rev().zip(target.iter().rev()).all(|(&s, &t)| s == t || s == 1);
    if !fits {
        let count: usize = src.len();
        let want: usize = target.iter().product();
        return Err(match kind {
            _ if target.is_empty() => err!(Value, "setting an array element with a sequence."),
            Kind::Mask if src.ndim() == 1 => err!(
                Value,
                "NumPy boolean array indexing assignment cannot assign {count} input values to the {want} output values where the mask is true"
            ),
            Kind::Mask | Kind::Ints => err!(
                Value,
                "shape mismatch: value array of shape {} could not be broadcast to indexing result of shape {}",
                packed(src.shape()),
                packed(target)
            ),
            Kind::Basic => err!(
                Value,
                "could not broadcast input array from shape {} into shape {}",
                packed(src.shape()),
                packed(target)
            ),
        });
    }
    let sh = IxDyn(target);
    macro_rules! spread {
        ($($variant:ident),*) => {
            match &src {
                $(Array::$variant(a) => {
                    let a = a.to_shape(IxDyn(&shape)).expect("the same elements").to_owned();
                    let b = a.broadcast(sh.clone()).expect("checked above");
                    Array::$variant(ArrayD::from_shape_vec(sh.clone(), b.iter().cloned().collect()).expect("the target shape"))
                })*
            }
        };
    }
    Ok(spread!(F16, F32, F64, U8, I8, I16, I32, I64, Bool))
}

/// A shape as NumPy's assignment errors write it: `(2,3)`, `(3,)`.
fn packed(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")),
    }
}
