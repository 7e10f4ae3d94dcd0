//! Concatenation in place (docs/python.md "Strings"): `s += t` on a variable whose str no one
//! else holds appends to it instead of copying it, and `a + b` with `a` a temporary (the
//! result of another operation, as in `a + b + c`) extends `a`. So a loop that builds a
//! string or list piece by piece takes time linear in what it builds, as in CPython, where
//! copying made it quadratic (1,000 appends of a megabyte copied half a terabyte). Nothing a
//! program can see differs: only a value with exactly one reference, the one being replaced,
//! is changed.

use super::exec::store;
use super::value::{Frame, Value};
use super::Interp;
use crate::error::R;
use crate::source::Span;
use crate::syntax::ast::{BinOp, Expr, ExprKind};
use crate::tensor::budget::{check_bytes, grow, reserve, MAX_BYTES};
use crate::text::Text;

/// Bytes one list item takes.
const VALUE_BYTES: usize = std::mem::size_of::<Value>();

impl Interp {
    /// `name += value` when the variable holds a str: see [`Interp::append_to_variable`].
    pub(super) fn augmented_append(
        &mut self,
        target: &Expr,
        op: BinOp,
        value: &Expr,
        env: &mut Frame,
        span: Span,
    ) -> Option<R<()>> {
        if op != BinOp::Add {
            return None;
        }
        self.append_to_variable(target, value, env, span, true)
    }

    /// `name = name + value` when the variable holds a str (CPython appends in place here
    /// too): see [`Interp::append_to_variable`].
    pub(super) fn assigned_append(&mut self, targets: &[Expr], value: &Expr, env: &mut Frame) -> Option<R<()>> {
        let ([target], ExprKind::Binary(BinOp::Add, left, right)) = (targets, &value.kind) else { return None };
        match (&target.kind, &left.kind) {
            (ExprKind::Name(t, ts), ExprKind::Name(l, ls)) if t == l && ts.get() == ls.get() => {
                self.append_to_variable(target, right, env, value.span, false)
            }
            _ => None,
        }
    }

    /// Appends `value` to the str in the variable `target`: the variable lets go of its
    /// reference while the new text is made, so a text no one else holds is appended to in
    /// place. `None` when `target` is not a variable holding a str (the caller runs the
    /// general path, nothing having been evaluated); otherwise the statement has run, or
    /// failed and left the variable as it was. A `value` that is not a str goes to the
    /// general operator (`inplace`: `+=`'s, else `+`'s), with its errors.
    fn append_to_variable(
        &mut self,
        target: &Expr,
        value: &Expr,
        env: &mut Frame,
        span: Span,
        inplace: bool,
    ) -> Option<R<()>> {
        let ExprKind::Name(name, slot) = &target.kind else { return None };
        let (name, slot) = (*name, slot.get());
        let Ok(Value::Str(mut cur)) = super::eval::load(name, slot, env) else { return None };
        let rhs = match self.eval(value, env) {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        let Value::Str(tail) = &rhs else {
            let r = if inplace {
                self.inplace_op(BinOp::Add, Value::Str(cur), rhs).map_err(|e| e.at(self.run.src, span))
            } else {
                self.binary_op(BinOp::Add, Value::Str(cur), rhs).map_err(|e| self.locate(e, span))
            };
            return Some(r.and_then(|new| self.assign(target, new, env)));
        };
        // Without the variable's reference, `cur` is the only one unless a value holds the text.
        store(name, slot, Value::None, env);
        let r = append_text(&mut cur, tail).map_err(|e| e.at(self.run.src, span));
        store(name, slot, Value::Str(cur), env);
        Some(r)
    }
}

/// `a + b` for a str or list `a` that no one else holds (a temporary): `b` is appended to
/// `a` itself. `None` when `a` is shared or the operands are of other types.
pub(super) fn concat_owned(a: &mut Value, b: &Value) -> Option<R<()>> {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) if x.is_unique() => Some(append_text(x, y)),
        (Value::List(x), Value::List(y)) => {
            let x = std::rc::Rc::get_mut(x)?.get_mut();
            let y = y.borrow();
            let r = check_bytes("a list", x.len() as u128 + y.len() as u128, VALUE_BYTES)
                .and_then(|()| grow("a list", x, y.len()));
            if let Err(e) = r {
                return Some(Err(e.into()));
            }
            x.extend(y.iter().cloned());
            Some(Ok(()))
        }
        _ => None,
    }
}

/// Appends `tail` to the text `t`: in place when `t` is its text's only reference (its
/// buffer doubling as it grows, each new buffer asked of the allocation budget), else into a
/// new text that `t` then names.
///
/// Errors: ValueError past the 1 GiB sequence limit, MemoryError past the memory limit;
/// `t` is unchanged then.
pub fn append_text(t: &mut Text, tail: &str) -> R<()> {
    check_bytes("a string", t.len() as u128 + tail.len() as u128, 1)?;
    match t.append_unique(tail, MAX_BYTES, |bytes| reserve(bytes as u128)) {
        Some(r) => r?,
        None => *t = Text::concat(t, tail),
    }
    Ok(())
}
