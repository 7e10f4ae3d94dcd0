//! Operators on values (`+`, `==`, `in`, indexing), truth values, iteration,
//! and the conversion of values to tensors.

use super::error::R;
use super::value::{HashKey, Value};
use super::Interp;
use crate::autodiff::Variable;
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use crate::tensor::kernels::{self, Binary, Compare, Unary};
use crate::tensor::{shape_str, Array, DType, Tensor};
use crate::{bail, err};
use ndarray::SliceInfoElem;
use std::rc::Rc;

impl Interp {
    /// Reads a Variable: its current value under its handle id. Active tapes
    /// that watch accessed variables start watching it (LANGUAGE.md §5), and
    /// custom_gradient / recompute_grad see the read.
    pub fn read_variable(&mut self, v: &Rc<Variable>) -> Tensor {
        if v.trainable {
            for t in &self.tapes {
                let mut t = t.borrow_mut();
                if t.watch_accessed_variables {
                    t.watch_variable(v);
                }
            }
            for w in &mut self.var_watchers {
                if !w.iter().any(|x| Rc::ptr_eq(x, v)) {
                    w.push(v.clone());
                }
            }
        }
        v.peek()
    }

    /// Converts a value to a tensor: tensors as they are, Variables read,
    /// numbers and (nested) lists as constants of `dtype` (float32 by default).
    ///
    /// Errors: TypeError for values that are not numeric; ValueError for ragged lists.
    pub fn to_tensor(&mut self, v: &Value, dtype: Option<DType>) -> R<Tensor> {
        match v {
            Value::Tensor(t) => match dtype {
                Some(d) if d != t.dtype() => Ok(Tensor::new(t.data.cast(d))),
                _ => Ok(t.clone()),
            },
            Value::Variable(var) => {
                let t = self.read_variable(var);
                match dtype {
                    Some(d) if d != t.dtype() => Ok(Tensor::new(t.data.cast(d))),
                    _ => Ok(t),
                }
            }
            // Python scalars: the common case of `x * 2.0`, without the list walk.
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                let x = match v {
                    Value::Int(i) => *i as f64,
                    Value::Float(f) => *f,
                    _ => matches!(v, Value::Bool(true)) as u8 as f64,
                };
                Ok(Tensor::new(Array::scalar(dtype.unwrap_or(DType::F32), x)))
            }
            _ => {
                let (shape, values) = self.flatten_numbers(v)?;
                Ok(Tensor::new(Array::from_f64(dtype.unwrap_or(DType::F32), &shape, values)))
            }
        }
    }

    /// Shape and row-major values of a number or nested list/tuple of numbers.
    pub fn flatten_numbers(&mut self, v: &Value) -> R<(Vec<usize>, Vec<f64>)> {
        fn walk(rt: &mut Interp, v: &Value, depth: usize, shape: &mut Vec<usize>, out: &mut Vec<f64>) -> R<()> {
            let items: Vec<Value> = match v {
                Value::Bool(b) => return leaf(depth, shape, out, *b as u8 as f64),
                Value::Int(i) => return leaf(depth, shape, out, *i as f64),
                Value::Float(f) => return leaf(depth, shape, out, *f),
                Value::Tensor(_) | Value::Variable(_) => {
                    let t = rt.to_tensor(v, None)?;
                    for (k, &d) in t.shape().iter().enumerate() {
                        dim(depth + k, shape, d)?;
                    }
                    if shape.len() != depth + t.shape().len() {
                        bail!(Value, "cannot build a tensor from a ragged list");
                    }
                    out.extend(t.data.to_f64_vec());
                    return Ok(());
                }
                Value::List(l) => l.borrow().clone(),
                Value::Tuple(t) => t.to_vec(),
                other => bail!(Type, "cannot convert a {} to a tensor", other.type_name()),
            };
            dim(depth, shape, items.len())?;
            for x in &items {
                walk(rt, x, depth + 1, shape, out)?;
            }
            if items.is_empty() && shape.len() > depth + 1 {
                bail!(Value, "cannot build a tensor from a ragged list");
            }
            Ok(())
        }
        fn dim(depth: usize, shape: &mut Vec<usize>, n: usize) -> R<()> {
            if depth == shape.len() {
                shape.push(n);
            } else if depth > shape.len() || shape[depth] != n {
                bail!(Value, "cannot build a tensor from a ragged list");
            }
            Ok(())
        }
        fn leaf(depth: usize, shape: &[usize], out: &mut Vec<f64>, x: f64) -> R<()> {
            if depth != shape.len() {
                bail!(Value, "cannot build a tensor from a ragged list");
            }
            out.push(x);
            Ok(())
        }
        let mut shape = Vec::new();
        let mut out = Vec::new();
        walk(self, v, 0, &mut shape, &mut out)?;
        let expected: usize = shape.iter().product();
        if expected != out.len() {
            bail!(Value, "cannot build a tensor from a ragged list");
        }
        Ok((shape, out))
    }

    fn is_tensorish(v: &Value) -> bool {
        matches!(v, Value::Tensor(_) | Value::Variable(_))
    }

    /// Both operands as tensors: a Python number or list takes the other
    /// tensor's dtype (LANGUAGE.md §4).
    pub fn tensor_pair(&mut self, a: &Value, b: &Value) -> R<(Tensor, Tensor)> {
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

    pub fn truthy(&mut self, v: &Value) -> R<bool> {
        Ok(match v {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.borrow().is_empty(),
            Value::Tuple(t) => !t.is_empty(),
            Value::Dict(d) => !d.borrow().is_empty(),
            Value::Range(a, b, s) => (*s > 0 && a < b) || (*s < 0 && a > b),
            Value::Tensor(_) | Value::Variable(_) => {
                let t = self.to_tensor(v, None)?;
                if t.len() != 1 {
                    bail!(
                        Value,
                        "the truth value of a tensor with {} elements is ambiguous (use reduce_any/reduce_all or index it)",
                        t.len()
                    );
                }
                t.data.first_f64() != 0.0
            }
            _ => true,
        })
    }

    pub fn unary_op(&mut self, op: UnaryOp, v: Value) -> R<Value> {
        match (op, &v) {
            (UnaryOp::Pos, Value::Int(_) | Value::Float(_)) => Ok(v),
            (UnaryOp::Pos, Value::Bool(b)) => Ok(Value::Int(*b as i64)),
            (UnaryOp::Neg, Value::Int(i)) => Ok(Value::Int(i.checked_neg().ok_or_else(|| err!(Value, "integer overflow"))?)),
            (UnaryOp::Neg, Value::Bool(b)) => Ok(Value::Int(-(*b as i64))),
            (UnaryOp::Neg, Value::Float(f)) => Ok(Value::Float(-f)),
            (_, Value::Tensor(_) | Value::Variable(_)) => {
                let t = self.to_tensor(&v, None)?;
                match op {
                    UnaryOp::Neg => Ok(Value::Tensor(self.unary(Unary::Neg, &t)?)),
                    UnaryOp::Pos => Ok(Value::Tensor(t)),
                }
            }
            _ => bail!(Type, "bad operand type for unary {}: '{}'", if op == UnaryOp::Neg { "-" } else { "+" }, v.type_name()),
        }
    }

    /// `a op b` for every operand type LANGUAGE.md §2–§4 defines.
    pub fn binary_op(&mut self, op: BinOp, a: Value, b: Value) -> R<Value> {
        use Value::*;
        match (&a, &b) {
            (Int(_) | Bool(_), Int(_) | Bool(_)) => int_op(op, as_int(&a), as_int(&b)),
            (Int(_) | Bool(_) | Float(_), Int(_) | Bool(_) | Float(_)) => float_op(op, as_float(&a), as_float(&b)),
            (Str(x), Str(y)) if op == BinOp::Add => Ok(Str(format!("{x}{y}").into())),
            (Str(x), Int(n)) | (Int(n), Str(x)) if op == BinOp::Mul => {
                check_repeat(x.len(), *n)?;
                Ok(Str(x.repeat((*n).max(0) as usize).into()))
            }
            (List(x), List(y)) if op == BinOp::Add => {
                let mut v = x.borrow().clone();
                v.extend(y.borrow().iter().cloned());
                Ok(Value::list(v))
            }
            (List(x), Int(n)) | (Int(n), List(x)) if op == BinOp::Mul => {
                check_repeat(x.borrow().len(), *n)?;
                let items = x.borrow();
                let mut v = Vec::new();
                for _ in 0..(*n).max(0) {
                    v.extend(items.iter().cloned());
                }
                Ok(Value::list(v))
            }
            (Tuple(x), Tuple(y)) if op == BinOp::Add => Ok(Value::tuple(x.iter().chain(y.iter()).cloned().collect())),
            _ if Self::is_tensorish(&a) || Self::is_tensorish(&b) => {
                let (x, y) = self.tensor_pair(&a, &b)?;
                let t = match op {
                    BinOp::Add => self.binary(Binary::Add, &x, &y)?,
                    BinOp::Sub => self.binary(Binary::Sub, &x, &y)?,
                    BinOp::Mul => self.binary(Binary::Mul, &x, &y)?,
                    BinOp::Div => self.binary(Binary::Div, &x, &y)?,
                    BinOp::Pow => self.binary(Binary::Pow, &x, &y)?,
                    BinOp::FloorDiv => self.binary(Binary::FloorDiv, &x, &y)?,
                    BinOp::Mod => self.binary(Binary::Mod, &x, &y)?,
                    BinOp::MatMul => self.matmul(&x, &y)?,
                };
                Ok(Tensor(t))
            }
            _ => bail!(
                Type,
                "unsupported operand types for {}: '{}' and '{}'",
                op.symbol(),
                a.type_name(),
                b.type_name()
            ),
        }
    }

    /// `a op= b`: lists extend in place; everything else rebinds.
    pub fn inplace_op(&mut self, op: BinOp, a: Value, b: Value) -> R<Value> {
        if let (Value::List(x), BinOp::Add) = (&a, op) {
            let items = self.iterate(&b)?;
            x.borrow_mut().extend(items);
            return Ok(a);
        }
        self.binary_op(op, a, b)
    }

    pub fn compare_op(&mut self, op: CmpOp, a: &Value, b: &Value) -> R<Value> {
        let tensorish = Self::is_tensorish(a) || Self::is_tensorish(b);
        let numeric_or_list = |v: &Value| {
            matches!(v, Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::List(_) | Value::Tuple(_))
                || Self::is_tensorish(v)
        };
        Ok(match op {
            CmpOp::Is => Value::Bool(a.is(b)),
            CmpOp::IsNot => Value::Bool(!a.is(b)),
            CmpOp::In => Value::Bool(self.contains(b, a)?),
            CmpOp::NotIn => Value::Bool(!self.contains(b, a)?),
            _ if tensorish && numeric_or_list(a) && numeric_or_list(b) => {
                let (x, y) = self.tensor_pair(a, b)?;
                let c = match op {
                    CmpOp::Lt => Compare::Lt,
                    CmpOp::Le => Compare::Le,
                    CmpOp::Gt => Compare::Gt,
                    CmpOp::Ge => Compare::Ge,
                    CmpOp::Eq => Compare::Eq,
                    _ => Compare::Ne,
                };
                Value::Tensor(Tensor::new(kernels::compare(c, &x.data, &y.data)?))
            }
            CmpOp::Eq => Value::Bool(self.values_equal(a, b)?),
            CmpOp::Ne => Value::Bool(!self.values_equal(a, b)?),
            _ => {
                let ord = self.order(a, b)?;
                Value::Bool(match op {
                    CmpOp::Lt => ord == std::cmp::Ordering::Less,
                    CmpOp::Le => ord != std::cmp::Ordering::Greater,
                    CmpOp::Gt => ord == std::cmp::Ordering::Greater,
                    _ => ord != std::cmp::Ordering::Less,
                })
            }
        })
    }

    /// Python's `==` for non-tensor values.
    pub fn values_equal(&mut self, a: &Value, b: &Value) -> R<bool> {
        use Value::*;
        Ok(match (a, b) {
            (Int(_) | Bool(_) | Float(_), Int(_) | Bool(_) | Float(_)) => match (a, b) {
                (Float(_), _) | (_, Float(_)) => as_float(a) == as_float(b),
                _ => as_int(a) == as_int(b),
            },
            (Str(x), Str(y)) => x == y,
            (None, None) => true,
            (List(x), List(y)) => {
                let (x, y) = (x.borrow().clone(), y.borrow().clone());
                self.seq_equal(&x, &y)?
            }
            (Tuple(x), Tuple(y)) => self.seq_equal(&x.clone(), &y.clone())?,
            (Dict(x), Dict(y)) => {
                let (x, y) = (x.borrow().clone(), y.borrow().clone());
                if x.len() != y.len() {
                    return Ok(false);
                }
                for (k, (_, v)) in x.iter() {
                    match y.get(k) {
                        Some((_, w)) if self.values_equal(v, w)? => {}
                        _ => return Ok(false),
                    }
                }
                true
            }
            (Range(..), Range(..)) | (DType(_), DType(_)) | (ErrorType(_), ErrorType(_)) => a.is(b),
            (DType(d), Builtin(f)) | (Builtin(f), DType(d)) => *d == crate::tensor::DType::Bool && f.name.as_ref() == "bool",
            _ => a.is(b),
        })
    }

    fn seq_equal(&mut self, x: &[Value], y: &[Value]) -> R<bool> {
        if x.len() != y.len() {
            return Ok(false);
        }
        for (p, q) in x.iter().zip(y) {
            if !self.values_equal(p, q)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Ordering for `<` on numbers, strings and sequences.
    pub fn order(&mut self, a: &Value, b: &Value) -> R<std::cmp::Ordering> {
        use std::cmp::Ordering;
        use Value::*;
        Ok(match (a, b) {
            (Int(_) | Bool(_), Int(_) | Bool(_)) => as_int(a).cmp(&as_int(b)),
            (Int(_) | Bool(_) | Float(_), Int(_) | Bool(_) | Float(_)) => {
                as_float(a).partial_cmp(&as_float(b)).unwrap_or(Ordering::Equal)
            }
            (Str(x), Str(y)) => x.cmp(y),
            (List(_) | Tuple(_), List(_) | Tuple(_)) if std::mem::discriminant(a) == std::mem::discriminant(b) => {
                let (x, y) = (self.iterate(a)?, self.iterate(b)?);
                for (p, q) in x.iter().zip(&y) {
                    let o = self.order(p, q)?;
                    if o != Ordering::Equal {
                        return Ok(o);
                    }
                }
                x.len().cmp(&y.len())
            }
            _ => bail!(Type, "'<' is not supported between '{}' and '{}'", a.type_name(), b.type_name()),
        })
    }

    /// `needle in haystack`
    pub fn contains(&mut self, haystack: &Value, needle: &Value) -> R<bool> {
        match haystack {
            Value::Str(s) => match needle {
                Value::Str(n) => Ok(s.contains(n.as_ref())),
                other => bail!(Type, "'in <string>' requires a string, not {}", other.type_name()),
            },
            Value::Dict(d) => {
                let k = HashKey::of(needle)?;
                Ok(d.borrow().contains_key(&k))
            }
            Value::Range(a, b, s) => match needle {
                Value::Int(i) => {
                    let within = if *s > 0 { i >= a && i < b } else { i <= a && i > b };
                    Ok(within && (*i as i128 - *a as i128) % *s as i128 == 0)
                }
                _ => Ok(false),
            },
            Value::List(_) | Value::Tuple(_) => {
                for x in self.iterate(haystack)? {
                    if x.is(needle) || self.values_equal(&x, needle)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            other => bail!(Type, "argument of type '{}' is not iterable", other.type_name()),
        }
    }

    /// The items of an iterable, materialised.
    pub fn iterate(&mut self, v: &Value) -> R<Vec<Value>> {
        Ok(match v {
            Value::List(l) => l.borrow().clone(),
            Value::Tuple(t) => t.to_vec(),
            Value::Str(s) => s.chars().map(|c| Value::Str(c.to_string().into())).collect(),
            Value::Dict(d) => d.borrow().values().map(|(k, _)| k.clone()).collect(),
            Value::Range(a, b, s) => {
                let n = range_len(*a, *b, *s);
                if n > 100_000_000 {
                    bail!(Value, "range of {n} items is too large to materialise");
                }
                (0..n).map(|i| Value::Int(a + i as i64 * s)).collect()
            }
            Value::Tensor(_) | Value::Variable(_) => {
                let t = self.to_tensor(v, None)?;
                if t.shape().is_empty() {
                    bail!(Type, "iteration over a scalar tensor");
                }
                let n = t.shape()[0];
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    let info = Rc::new(axis0(t.shape().len(), i));
                    out.push(Value::Tensor(self.index(&t, info)?));
                }
                out
            }
            other => bail!(Type, "'{}' object is not iterable", other.type_name()),
        })
    }

    /// Normalises a list index (negative counts from the end).
    pub fn list_index(&mut self, i: &Value, len: usize) -> R<usize> {
        let i = match i {
            Value::Int(i) => *i,
            Value::Bool(b) => *b as i64,
            Value::Tensor(t) if t.dtype() == DType::I64 && t.len() == 1 => t.data.first_f64() as i64,
            other => bail!(Type, "indices must be integers, not {}", other.type_name()),
        };
        let k = if i < 0 { i + len as i64 } else { i };
        if k < 0 || k >= len as i64 {
            bail!(Index, "index {i} is out of range for length {len}");
        }
        Ok(k as usize)
    }

    /// `obj[index]`
    pub fn get_item(&mut self, obj: &Value, index: &Value) -> R<Value> {
        match obj {
            Value::List(l) => {
                if let Value::Slice(s) = index {
                    let items = l.borrow().clone();
                    return Ok(Value::list(self.slice_seq(&items, s)?));
                }
                let n = l.borrow().len();
                let k = self.list_index(index, n)?;
                Ok(l.borrow()[k].clone())
            }
            Value::Tuple(t) => {
                if let Value::Slice(s) = index {
                    return Ok(Value::tuple(self.slice_seq(t, s)?));
                }
                let k = self.list_index(index, t.len())?;
                Ok(t[k].clone())
            }
            Value::Str(st) => {
                let chars: Vec<Value> = st.chars().map(|c| Value::Str(c.to_string().into())).collect();
                if let Value::Slice(s) = index {
                    let part = self.slice_seq(&chars, s)?;
                    let text: String = part.iter().map(|c| if let Value::Str(c) = c { c.to_string() } else { String::new() }).collect();
                    return Ok(Value::Str(text.into()));
                }
                let k = self.list_index(index, chars.len())?;
                Ok(chars[k].clone())
            }
            Value::Range(a, b, s) => {
                let n = range_len(*a, *b, *s);
                let k = self.list_index(index, n)?;
                Ok(Value::Int(a + k as i64 * s))
            }
            Value::Dict(d) => {
                let k = HashKey::of(index)?;
                let found = d.borrow().get(&k).map(|(_, v)| v.clone());
                match found {
                    Some(v) => Ok(v),
                    None => {
                        let r = self.repr_of(index)?;
                        bail!(Key, "{r}")
                    }
                }
            }
            Value::Tensor(_) | Value::Variable(_) => {
                let t = self.to_tensor(obj, None)?;
                let info = tensor_index(t.shape(), index)?;
                Ok(Value::Tensor(self.index(&t, Rc::new(info))?))
            }
            Value::Instance(_) => {
                let m = self.get_attr(obj, super::intern::intern("__getitem__"))?;
                self.call_value(&m, vec![index.clone()], vec![])
            }
            other => bail!(Type, "'{}' object is not subscriptable", other.type_name()),
        }
    }

    /// `obj[index] = v`
    pub fn set_item(&mut self, obj: &Value, index: Value, v: Value) -> R<()> {
        match obj {
            Value::List(l) => {
                let n = l.borrow().len();
                let k = self.list_index(&index, n)?;
                l.borrow_mut()[k] = v;
                Ok(())
            }
            Value::Dict(d) => {
                let k = HashKey::of(&index)?;
                d.borrow_mut().insert(k, (index, v));
                Ok(())
            }
            Value::Instance(_) => {
                let m = self.get_attr(obj, super::intern::intern("__setitem__"))?;
                self.call_value(&m, vec![index, v], vec![])?;
                Ok(())
            }
            Value::Tensor(_) | Value::Variable(_) => {
                bail!(Type, "'{}' object does not support item assignment (tensors are immutable)", obj.type_name())
            }
            other => bail!(Type, "'{}' object does not support item assignment", other.type_name()),
        }
    }

    fn slice_seq(&mut self, items: &[Value], s: &[Value; 3]) -> R<Vec<Value>> {
        let (start, stop, step) = slice_indices(s, items.len())?;
        let mut out = Vec::new();
        let mut i = start;
        while (step > 0 && i < stop) || (step < 0 && i > stop) {
            out.push(items[i as usize].clone());
            i += step;
        }
        Ok(out)
    }
}

/// Sequences longer than this are refused rather than exhausting memory.
const MAX_SEQUENCE: usize = 100_000_000;

fn check_repeat(len: usize, n: i64) -> R<()> {
    if (len as u128) * (n.max(0) as u128) > MAX_SEQUENCE as u128 {
        bail!(Value, "repeating a sequence of length {len} {n} times is too large");
    }
    Ok(())
}

fn as_int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Bool(b) => *b as i64,
        _ => 0,
    }
}

fn as_float(v: &Value) -> f64 {
    match v {
        Value::Float(f) => *f,
        Value::Int(i) => *i as f64,
        Value::Bool(b) => *b as u8 as f64,
        _ => 0.0,
    }
}

fn int_op(op: BinOp, x: i64, y: i64) -> R<Value> {
    let overflow = || err!(Value, "integer overflow in {} {} {}", x, op.symbol(), y);
    Ok(match op {
        BinOp::Add => Value::Int(x.checked_add(y).ok_or_else(overflow)?),
        BinOp::Sub => Value::Int(x.checked_sub(y).ok_or_else(overflow)?),
        BinOp::Mul => Value::Int(x.checked_mul(y).ok_or_else(overflow)?),
        BinOp::Div => {
            if y == 0 {
                bail!(ZeroDivision, "division by zero");
            }
            Value::Float(x as f64 / y as f64)
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if y == 0 {
                bail!(ZeroDivision, "integer division or modulo by zero");
            }
            let q = x.checked_div(y).ok_or_else(overflow)?;
            let r = x - q * y;
            let (q, r) = if r != 0 && ((r < 0) != (y < 0)) { (q - 1, r + y) } else { (q, r) };
            Value::Int(if op == BinOp::FloorDiv { q } else { r })
        }
        BinOp::Pow => {
            if y < 0 {
                if x == 0 {
                    bail!(ZeroDivision, "0 cannot be raised to a negative power");
                }
                Value::Float((x as f64).powf(y as f64))
            } else {
                Value::Int(x.checked_pow(u32::try_from(y).map_err(|_| overflow())?).ok_or_else(overflow)?)
            }
        }
        BinOp::MatMul => bail!(Type, "unsupported operand types for @: 'int' and 'int'"),
    })
}

fn float_op(op: BinOp, x: f64, y: f64) -> R<Value> {
    Ok(Value::Float(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y == 0.0 {
                bail!(ZeroDivision, "float division by zero");
            }
            x / y
        }
        BinOp::FloorDiv => {
            if y == 0.0 {
                bail!(ZeroDivision, "float floor division by zero");
            }
            (x / y).floor()
        }
        BinOp::Mod => {
            if y == 0.0 {
                bail!(ZeroDivision, "float modulo by zero");
            }
            let r = x % y;
            if r != 0.0 && ((r < 0.0) != (y < 0.0)) { r + y } else { r }
        }
        BinOp::Pow => {
            if x == 0.0 && y < 0.0 {
                bail!(ZeroDivision, "0.0 cannot be raised to a negative power");
            }
            x.powf(y)
        }
        BinOp::MatMul => bail!(Type, "unsupported operand types for @: 'float' and 'float'"),
    }))
}

pub fn range_len(a: i64, b: i64, s: i64) -> usize {
    let (a, b, s) = (a as i128, b as i128, s as i128);
    let n = if s > 0 && a < b {
        (b - a - 1) / s + 1
    } else if s < 0 && a > b {
        (a - b - 1) / (-s) + 1
    } else {
        0
    };
    n.min(usize::MAX as i128) as usize
}

fn slice_part(v: &Value) -> R<Option<i64>> {
    match v {
        Value::None => Ok(None),
        Value::Int(i) => Ok(Some(*i)),
        Value::Bool(b) => Ok(Some(*b as i64)),
        other => bail!(Type, "slice indices must be integers or None, not {}", other.type_name()),
    }
}

/// Python's `slice.indices(len)`: concrete start, stop and step.
pub fn slice_indices(s: &[Value; 3], len: usize) -> R<(i64, i64, i64)> {
    let n = len as i64;
    let step = slice_part(&s[2])?.unwrap_or(1);
    if step == 0 {
        bail!(Value, "slice step cannot be zero");
    }
    let (lower, upper) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let clamp = |v: Option<i64>, default: i64| match v {
        None => default,
        Some(i) if i < 0 => (i + n).max(lower),
        Some(i) => i.min(upper),
    };
    let start = clamp(slice_part(&s[0])?, if step > 0 { lower } else { upper });
    let stop = clamp(slice_part(&s[1])?, if step > 0 { upper } else { lower });
    Ok((start, stop, step))
}

fn axis0(ndim: usize, i: usize) -> Vec<SliceInfoElem> {
    let mut v = vec![SliceInfoElem::Index(i as isize)];
    v.extend((1..ndim).map(|_| SliceInfoElem::Slice { start: 0, end: None, step: 1 }));
    v
}

/// Resolves a tensor index (ints, slices, `...`, `None`) against `shape`.
///
/// Errors: IndexError when an index is out of bounds or there are too many indices.
pub fn tensor_index(shape: &[usize], index: &Value) -> R<Vec<SliceInfoElem>> {
    let items: Vec<Value> = match index {
        Value::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    let real = items.iter().filter(|v| !matches!(v, Value::None | Value::Ellipsis)).count();
    if real > shape.len() {
        bail!(Index, "too many indices for a tensor of shape {}: {} given", shape_str(shape), real);
    }
    if items.iter().filter(|v| matches!(v, Value::Ellipsis)).count() > 1 {
        bail!(Index, "an index can only have one ellipsis ('...')");
    }
    let mut out = Vec::new();
    let mut axis = 0;
    for item in &items {
        match item {
            Value::Ellipsis => {
                for _ in 0..shape.len() - real {
                    out.push(SliceInfoElem::Slice { start: 0, end: None, step: 1 });
                    axis += 1;
                }
            }
            Value::None => out.push(SliceInfoElem::NewAxis),
            Value::Int(_) | Value::Bool(_) | Value::Tensor(_) => {
                let i = match item {
                    Value::Int(i) => *i,
                    Value::Bool(b) => *b as i64,
                    Value::Tensor(t) if t.dtype() == DType::I64 && t.shape().is_empty() => t.data.first_f64() as i64,
                    _ => bail!(Type, "tensor indices must be integers, slices, '...' or None (use gather for index tensors)"),
                };
                let n = shape[axis] as i64;
                let k = if i < 0 { i + n } else { i };
                if k < 0 || k >= n {
                    bail!(Index, "index {} is out of bounds for axis {} with size {}", i, axis, n);
                }
                out.push(SliceInfoElem::Index(k as isize));
                axis += 1;
            }
            Value::Slice(s) => {
                let (start, stop, step) = slice_indices(s, shape[axis])?;
                out.push(if step > 0 {
                    SliceInfoElem::Slice { start: start as isize, end: Some(stop.max(start) as isize), step: step as isize }
                } else {
                    let count = if start > stop { (start - stop - 1) / (-step) + 1 } else { 0 };
                    if count == 0 {
                        SliceInfoElem::Slice { start: 0, end: Some(0), step: 1 }
                    } else {
                        let lo = start + (count - 1) * step;
                        SliceInfoElem::Slice { start: lo as isize, end: Some(start as isize + 1), step: step as isize }
                    }
                });
                axis += 1;
            }
            other => bail!(Type, "tensor indices must be integers, slices, '...' or None, not {}", other.type_name()),
        }
    }
    while axis < shape.len() {
        out.push(SliceInfoElem::Slice { start: 0, end: None, step: 1 });
        axis += 1;
    }
    Ok(out)
}

/// `tensor.shape` as a tuple of ints.
pub fn shape_value(shape: &[usize]) -> Value {
    Value::tuple(shape.iter().map(|&d| Value::Int(d as i64)).collect())
}

/// A float tensor's elements of an int64 or float index array, as i64.
pub fn indices_of(t: &Tensor) -> R<Vec<i64>> {
    match &*t.data {
        Array::I64(a) => Ok(a.iter().copied().collect()),
        Array::F32(_) | Array::F64(_) => {
            bail!(Type, "indices must be int64, not {} (use cast)", t.dtype())
        }
        Array::Bool(_) => bail!(Type, "indices must be int64, not bool"),
    }
}
