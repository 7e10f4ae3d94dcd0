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
}

impl Variable {
    pub fn new(value: Array, trainable: bool, name: Option<Rc<str>>) -> Variable {
        Variable { handle: fresh_id(), value: RefCell::new(Rc::new(value)), trainable, name }
    }

    /// The current value under the handle id (no watching: see `Interp::read_variable`).
    pub fn peek(&self) -> Tensor {
        Tensor { id: self.handle, data: self.value.borrow().clone() }
    }

    /// Replaces the value; the shape and dtype must match.
    ///
    /// Errors: ValueError naming both shapes or dtypes.
    pub fn set(&self, new: Array) -> R<()> {
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
        *self.value.borrow_mut() = Rc::new(new);
        Ok(())
    }
}
