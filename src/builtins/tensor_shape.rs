//! TF's `TensorShape` (docs/language.md §4): what a tensor's `shape` is. It reads as the tuple
//! of its dimensions wherever a tuple is read (the runtime's `Value::Shape`), equals a tuple or
//! a list of the same dimensions, and has TF's methods; a dimension is an int, or `None` where
//! it is unknown. `tf.TensorShape(dims)` makes one.

use super::{receiver, Native, Signature, NO_ARGS};
use crate::bail;
use crate::error::R;
use crate::runtime::index::shape_dimension;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use std::rc::Rc;

/// Registers this file's functions.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&TENSOR_SHAPE);
}

/// The dimensions of a `TensorShape` value (`None` for any other value).
pub fn dims_of(v: &Value) -> Option<&Rc<[Value]>> {
    match v {
        Value::Shape(d) => Some(d),
        _ => None,
    }
}

/// The receiver's dimensions.
fn this(args: &Args) -> R<Rc<[Value]>> {
    match receiver(args)? {
        Value::Shape(d) => Ok(d.clone()),
        other => bail!(Type, "a TensorShape method needs a TensorShape, not {}", other.type_name()),
    }
}

/// The dimensions of a shape-like value: a TensorShape, a tuple or list of dimensions, or one
/// int (TF's `as_shape`).
fn as_dims(rt: &mut Interp, v: &Value) -> R<Vec<Value>> {
    match v {
        Value::Int(_) => Ok(vec![shape_dimension(v)?]),
        Value::Shape(_) | Value::Tuple(_) | Value::List(_) => rt.iterate(v)?.iter().map(shape_dimension).collect(),
        other => bail!(Type, "a shape is a TensorShape, a tuple or a list of ints, not {}", other.type_name()),
    }
}

static TENSOR_SHAPE: Native = Native::new("TensorShape", &["dims"], tensor_shape).spelled(&["tf.TensorShape"]);

/// `TensorShape(dims)`: the shape of the given dimensions (ints, or `None` for an unknown one).
///
/// Errors: ValueError for a negative dimension; TypeError for a dimension that is not an int,
/// and for `TensorShape(None)` (a shape of unknown rank, which DGL does not have).
fn tensor_shape(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let dims = TENSOR_SHAPE.bind(rt, args)?.value("dims")?;
    if matches!(dims, Value::None) {
        bail!(Type, "DGL has no TensorShape of unknown rank (TensorShape(None)): give the dimensions");
    }
    Ok(Value::Shape(as_dims(rt, &dims)?.into()))
}

pub(super) static SHAPE_AS_LIST: Native = Native::with("as_list", NO_ARGS, as_list);

/// `shape.as_list()`: the dimensions as a list (`None` for an unknown one).
fn as_list(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::list(d.to_vec()))
}

pub(super) static SHAPE_NUM_ELEMENTS: Native = Native::with("num_elements", NO_ARGS, num_elements);

/// `shape.num_elements()`: the product of the dimensions, `None` when one is unknown.
fn num_elements(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this(args)?;
    NO_ARGS.bind(rt, args)?;
    let mut n: i64 = 1;
    for x in d.iter() {
        match x {
            Value::Int(k) => n = n.saturating_mul(*k),
            _ => return Ok(Value::None),
        }
    }
    Ok(Value::Int(n))
}

pub(super) static SHAPE_IS_FULLY_DEFINED: Native = Native::with("is_fully_defined", NO_ARGS, is_fully_defined);

/// `shape.is_fully_defined()`: whether every dimension is known.
fn is_fully_defined(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::Bool(d.iter().all(|x| matches!(x, Value::Int(_)))))
}

const OTHER: Signature = Signature::new(&["other"]);

pub(super) static SHAPE_IS_COMPATIBLE_WITH: Native = Native::with("is_compatible_with", OTHER, is_compatible_with);

/// `shape.is_compatible_with(other)`: the same rank, and each pair of dimensions equal or one
/// of them unknown.
///
/// Errors: TypeError when `other` is not shape-like.
fn is_compatible_with(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this(args)?;
    let other = OTHER.bind(rt, args)?.value("other")?;
    let e = as_dims(rt, &other)?;
    let pair_fits = |(x, y): (&Value, &Value)| match (x, y) {
        (Value::Int(p), Value::Int(q)) => p == q,
        _ => true,
    };
    Ok(Value::Bool(d.len() == e.len() && d.iter().zip(&e).all(pair_fits)))
}

pub(super) static SHAPE_CONCATENATE: Native = Native::with("concatenate", OTHER, concatenate);

/// `shape.concatenate(other)`: a TensorShape of both shapes' dimensions (also `shape + other`).
///
/// Errors: TypeError when `other` is not shape-like.
fn concatenate(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let d = this(args)?;
    let other = OTHER.bind(rt, args)?.value("other")?;
    let e = as_dims(rt, &other)?;
    Ok(Value::Shape(d.iter().cloned().chain(e).collect()))
}
