//! Values to tensors: Variable reads (which tapes watch), numbers and nested
//! lists as constants, and operand pairs where a number takes the tensor's
//! dtype (LANGUAGE.md §4).

use super::error::R;
use super::value::Value;
use super::Interp;
use crate::autodiff::Variable;
use crate::bail;
use crate::tensor::{Array, DType, Tensor};
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
            rt.nested("while converting a nested list (does it contain itself?)", |rt| {
                walk_level(rt, v, depth, shape, out)
            })
        }
        fn walk_level(rt: &mut Interp, v: &Value, depth: usize, shape: &mut Vec<usize>, out: &mut Vec<f64>) -> R<()> {
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

    pub(super) fn is_tensorish(v: &Value) -> bool {
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
}
