//! `Variable`: a mutable tensor with a stable handle id (docs/language.md §5).
//!
//! Every read of a Variable yields a tensor carrying the Variable's handle id,
//! so a gradient with respect to the Variable collects every read, as
//! TensorFlow's resource variables do.

use crate::bail;
use crate::error::R;
use crate::tensor::{fresh_id, shape_str, Array, Tensor, TensorId};
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Debug)]
pub struct Variable {
    pub handle: TensorId,
    pub value: RefCell<Rc<Array>>,
    pub trainable: bool,
    pub name: Option<Rc<str>>,
    /// Made by `tf.Variable`: its `name` reads as TF writes it (`w:0`, `Variable:0` unnamed).
    pub tf_name: bool,
}

impl Variable {
    pub fn new(value: Array, trainable: bool, name: Option<Rc<str>>) -> Variable {
        Variable { handle: fresh_id(), value: RefCell::new(Rc::new(value)), trainable, name, tf_name: false }
    }

    /// The Variable with its `name` read as TensorFlow writes it (`tf.Variable`).
    pub fn named_as_tf(self) -> Variable {
        Variable { tf_name: true, ..self }
    }

    /// The `name` attribute: the given name, or TF's `name:0` (`Variable:0` when unnamed) for a
    /// Variable made by `tf.Variable`; `None` for an unnamed DGL Variable.
    pub fn shown_name(&self) -> Option<String> {
        match (&self.name, self.tf_name) {
            (Some(n), true) => Some(format!("{n}:0")),
            (None, true) => Some("Variable:0".into()),
            (n, false) => n.as_ref().map(|n| n.to_string()),
        }
    }

    /// The current value under the handle id (no watching: see `Interp::read_variable`).
    pub fn peek(&self) -> Tensor {
        Tensor { id: self.handle, data: self.value.borrow().clone() }
    }

    /// Replaces the value; the shape and dtype must match.
    ///
    /// Errors: ValueError naming both shapes or dtypes.
    pub fn set(&self, new: Array) -> R<()> {
        self.set_shared(Rc::new(new))
    }

    /// Replaces the value with a buffer the caller may still hold: buffers are immutable, so
    /// the Variable shares it rather than copying it (`v.assign(t)` costs no copy of `t`).
    ///
    /// Errors: ValueError naming both shapes or dtypes.
    pub fn set_shared(&self, new: Rc<Array>) -> R<()> {
        let cur = self.value.borrow().clone();
        if cur.shape() != new.shape() {
            bail!(
                Value,
                "cannot assign a value of shape {} to a Variable of shape {}",
                shape_str(new.shape()),
                shape_str(cur.shape())
            );
        }
        if cur.dtype() != new.dtype() {
            bail!(Value, "cannot assign a {} value to a {} Variable", new.dtype(), cur.dtype());
        }
        *self.value.borrow_mut() = new;
        Ok(())
    }
}
