//! Special methods: the names the operators look up on instances (`a + b` tries
//! `a.__add__(b)`, then `b.__radd__(a)`), and the special methods of builtin values
//! (`'x'.__repr__`, `(1).__add__`, `[].__len__`): which ones each type has, as CPython's types
//! define them, bound to the operation they stand for.

use super::value::Value;
use super::Interp;
use crate::bail;
use crate::error::R;
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use std::rc::Rc;

/// The method names of a binary operator: `(a.__op__(b), b.__rop__(a))`.
pub(super) fn binary_dunders(op: BinOp) -> (&'static str, &'static str) {
    match op {
        BinOp::Add => ("__add__", "__radd__"),
        BinOp::Sub => ("__sub__", "__rsub__"),
        BinOp::Mul => ("__mul__", "__rmul__"),
        BinOp::Div => ("__truediv__", "__rtruediv__"),
        BinOp::FloorDiv => ("__floordiv__", "__rfloordiv__"),
        BinOp::Mod => ("__mod__", "__rmod__"),
        BinOp::Pow => ("__pow__", "__rpow__"),
        BinOp::MatMul => ("__matmul__", "__rmatmul__"),
        BinOp::BitAnd => ("__and__", "__rand__"),
        BinOp::BitOr => ("__or__", "__ror__"),
        BinOp::BitXor => ("__xor__", "__rxor__"),
        BinOp::LShift => ("__lshift__", "__rlshift__"),
        BinOp::RShift => ("__rshift__", "__rrshift__"),
    }
}

/// The method name of an augmented assignment: `a.__iop__(b)`.
pub(super) fn inplace_dunder(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "__iadd__",
        BinOp::Sub => "__isub__",
        BinOp::Mul => "__imul__",
        BinOp::Div => "__itruediv__",
        BinOp::FloorDiv => "__ifloordiv__",
        BinOp::Mod => "__imod__",
        BinOp::Pow => "__ipow__",
        BinOp::MatMul => "__imatmul__",
        BinOp::BitAnd => "__iand__",
        BinOp::BitOr => "__ior__",
        BinOp::BitXor => "__ixor__",
        BinOp::LShift => "__ilshift__",
        BinOp::RShift => "__irshift__",
    }
}

/// The method names of a rich comparison: `(a.__op__(b), b.__reflected__(a))`.
pub(super) fn compare_dunders(op: CmpOp) -> Option<(&'static str, &'static str)> {
    Some(match op {
        CmpOp::Lt => ("__lt__", "__gt__"),
        CmpOp::Le => ("__le__", "__ge__"),
        CmpOp::Gt => ("__gt__", "__lt__"),
        CmpOp::Ge => ("__ge__", "__le__"),
        CmpOp::Eq => ("__eq__", "__eq__"),
        CmpOp::Ne => ("__ne__", "__ne__"),
        _ => return None,
    })
}

/// Which special methods a builtin value has, as CPython's types define them, so that
/// `hasattr(5, '__len__')` is False and `'x'.__repr__()` works (docs/python.md "Classes").
fn builtin_has_dunder(v: &Value, name: &str) -> bool {
    let sized = matches!(
        v,
        Value::Str(_)
            | Value::List(_)
            | Value::Tuple(_)
            | Value::Dict(_)
            | Value::Set(_)
            | Value::FrozenSet(_)
            | Value::Range(_)
    );
    let number = matches!(v, Value::Int(_) | Value::Float(_) | Value::Bool(_));
    match name {
        "__repr__" | "__str__" | "__eq__" | "__ne__" | "__hash__" | "__format__" | "__lt__" | "__le__" | "__gt__"
        | "__ge__" => true,
        "__len__" | "__contains__" | "__iter__" => sized,
        "__getitem__" => sized && !matches!(v, Value::Set(_) | Value::FrozenSet(_)),
        "__setitem__" | "__delitem__" => matches!(v, Value::List(_) | Value::Dict(_)),
        "__add__" | "__mul__" | "__rmul__" => number || matches!(v, Value::Str(_) | Value::List(_) | Value::Tuple(_)),
        "__mod__" => number || matches!(v, Value::Str(_)),
        "__radd__" | "__sub__" | "__rsub__" | "__truediv__" | "__rtruediv__" | "__floordiv__" | "__rfloordiv__"
        | "__rmod__" | "__pow__" | "__rpow__" | "__neg__" | "__pos__" | "__abs__" | "__int__" | "__float__"
        | "__bool__" | "__round__" | "__trunc__" | "__divmod__" => number,
        "__index__" | "__and__" | "__or__" | "__xor__" | "__lshift__" | "__rshift__" | "__invert__" => {
            matches!(v, Value::Int(_) | Value::Bool(_))
        }
        "__call__" => matches!(v, Value::Func(_) | Value::Builtin(_) | Value::Method(_) | Value::Class(_)),
        _ => false,
    }
}

impl Interp {
    /// `v.__name__` for a special method of a builtin value (`'x'.__repr__`, `(1).__add__`,
    /// `[].__len__`): the method bound to `v`, running the operation it stands for. `None`
    /// when `v`'s type has no such method.
    pub fn builtin_dunder(&self, v: &Value, name: &str) -> Option<Value> {
        if matches!(v, Value::Instance(_)) || !builtin_has_dunder(v, name) {
            return None;
        }
        Some(Value::Builtin(Rc::new(super::value::Builtin {
            name: name.into(),
            kind: super::value::BuiltinKind::Method(v.clone(), &BUILTIN_DUNDER),
        })))
    }

    /// Calls the builtin function `name` (`len`, `repr`, …) on `args`.
    fn call_builtin(&mut self, name: &str, args: Vec<Value>) -> R<Value> {
        match self.builtins.get(&crate::intern::intern(name)).cloned() {
            Some(f) => self.call_value(&f, args, vec![]),
            None => bail!(Runtime, "internal error: no builtin '{name}'"),
        }
    }
}

/// A builtin value's special methods (`(1).__add__`), each named by its call.
static BUILTIN_DUNDER: super::native::Native =
    super::native::Native::new("__dunder__", &["*args"], call_builtin_dunder);

/// The operation a builtin value's special method stands for (see [`Interp::builtin_dunder`]).
/// A binary one given an operand it does not take returns NotImplemented, as CPython's.
fn call_builtin_dunder(rt: &mut Interp, args: &mut super::value::Args) -> R<Value> {
    let Some(this) = args.this.clone() else { bail!(Runtime, "internal error: an unbound special method") };
    let name = args.fname.clone();
    let pos = std::mem::take(&mut args.pos);
    if name.as_ref() == "__call__" {
        let kw = std::mem::take(&mut args.kw);
        return rt.call_value(&this, pos, kw);
    }
    if !args.kw.is_empty() {
        bail!(Type, "{name}() takes no keyword arguments");
    }
    let want = |n: usize| -> R<()> {
        if pos.len() != n {
            bail!(Type, "expected {n} argument{}, got {}", if n == 1 { "" } else { "s" }, pos.len());
        }
        Ok(())
    };
    let binary = |name: &str| -> Option<(BinOp, bool)> {
        let (plain, reflected) = [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Div,
            BinOp::FloorDiv,
            BinOp::Mod,
            BinOp::Pow,
            BinOp::BitAnd,
            BinOp::BitOr,
            BinOp::BitXor,
            BinOp::LShift,
            BinOp::RShift,
        ]
        .into_iter()
        .map(|op| (op, binary_dunders(op)))
        .fold((None, None), |(p, r), (op, (a, b))| (p.or((a == name).then_some(op)), r.or((b == name).then_some(op))));
        plain.map(|op| (op, false)).or(reflected.map(|op| (op, true)))
    };
    // A TypeError from the operation is "not implemented for this operand".
    let or_not_implemented = |rt: &Interp, r: R<Value>| match r {
        Err(e) if e.kind() == crate::error::ErrorKind::Type => Ok(rt.not_implemented.clone()),
        other => other,
    };
    if let Some((op, reflected)) = binary(&name) {
        want(1)?;
        let other = pos[0].clone();
        let r = if reflected { rt.binary_op(op, other, this) } else { rt.binary_op(op, this, other) };
        return or_not_implemented(rt, r);
    }
    let cmp = match name.as_ref() {
        "__lt__" => Some(CmpOp::Lt),
        "__le__" => Some(CmpOp::Le),
        "__gt__" => Some(CmpOp::Gt),
        "__ge__" => Some(CmpOp::Ge),
        _ => None,
    };
    if let Some(op) = cmp {
        want(1)?;
        let r = rt.compare_op(op, &this, &pos[0]);
        return or_not_implemented(rt, r);
    }
    match name.as_ref() {
        "__repr__" | "__str__" | "__len__" | "__hash__" | "__abs__" | "__int__" | "__float__" | "__iter__"
        | "__round__" | "__trunc__" => {
            let f = match name.as_ref() {
                "__repr__" => "repr",
                "__str__" => "str",
                "__len__" => "len",
                "__hash__" => "hash",
                "__abs__" => "abs",
                "__int__" | "__trunc__" => "int",
                "__float__" => "float",
                "__iter__" => "iter",
                _ => "round",
            };
            if f != "round" {
                want(0)?;
            }
            let mut all = vec![this];
            all.extend(pos);
            rt.call_builtin(f, all)
        }
        "__eq__" | "__ne__" => {
            want(1)?;
            let eq = rt.values_equal(&this, &pos[0])?;
            Ok(Value::Bool(eq == (name.as_ref() == "__eq__")))
        }
        "__neg__" | "__pos__" | "__invert__" => {
            want(0)?;
            let op = match name.as_ref() {
                "__neg__" => UnaryOp::Neg,
                "__pos__" => UnaryOp::Pos,
                _ => UnaryOp::Invert,
            };
            rt.unary_op(op, this)
        }
        "__bool__" => {
            want(0)?;
            Ok(Value::Bool(rt.truthy(&this)?))
        }
        "__index__" => {
            want(0)?;
            Ok(this)
        }
        "__divmod__" => {
            want(1)?;
            let mut all = vec![this];
            all.extend(pos);
            let r = rt.call_builtin("divmod", all);
            or_not_implemented(rt, r)
        }
        "__format__" => {
            want(1)?;
            let Value::Str(spec) = &pos[0] else { bail!(Type, "__format__() argument must be str") };
            let spec = spec.to_string();
            Ok(Value::str(&rt.format_field(&this, false, &spec)?))
        }
        "__contains__" => {
            want(1)?;
            Ok(Value::Bool(rt.contains(&this, &pos[0])?))
        }
        "__getitem__" => {
            want(1)?;
            rt.get_item(&this, &pos[0])
        }
        "__setitem__" => {
            want(2)?;
            let mut it = pos.into_iter();
            let (k, v) = (it.next().unwrap_or(Value::None), it.next().unwrap_or(Value::None));
            rt.set_item(&this, k, v)?;
            Ok(Value::None)
        }
        "__delitem__" => {
            want(1)?;
            rt.del_item(&this, &pos[0])?;
            Ok(Value::None)
        }
        _ => bail!(Attribute, "'{}' object has no attribute '{name}'", this.type_name()),
    }
}
