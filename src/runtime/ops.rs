//! Operators on values (`+`, `==`, `<`, `in`, `is`) and truth values.

use super::convert::{int_checked, int_pow};
use super::error::{Exc, R};
use super::value::{HashKey, Value};
use super::Interp;
use crate::bail;
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use crate::tensor::activations::{self, Logical};
use crate::tensor::budget::check_bytes;
use crate::tensor::kernels::{self, Binary, Compare, Unary};
use crate::tensor::Tensor;
use std::rc::Rc;

/// The method names of a binary operator: `(a.__op__(b), b.__rop__(a))`.
fn binary_dunders(op: BinOp) -> (&'static str, &'static str) {
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
fn inplace_dunder(op: BinOp) -> &'static str {
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
fn compare_dunders(op: CmpOp) -> Option<(&'static str, &'static str)> {
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

impl Interp {
    /// Calls `v.name(*args)` when `v` is an instance whose class defines `name`
    /// (Python's special-method lookup: on the class, not the instance).
    pub fn call_dunder(&mut self, v: &Value, name: &str, args: Vec<Value>) -> R<Option<Value>> {
        let Value::Instance(i) = v else { return Ok(None) };
        let Some(m) = i.class.lookup(super::intern::intern(name)) else { return Ok(None) };
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(v.clone());
        all.extend(args);
        self.call_value(&m, all, vec![]).map(Some)
    }

    /// The special method `name` of a user instance `v`, called with `args`, or the
    /// TypeError `missing` makes of the instance's type name when its class lacks it. Special
    /// methods are looked up on the class, never on the instance nor through `__getattr__`
    /// (CPython's rule, docs/python.md "Classes"): this is the one place a protocol that
    /// an instance does not support becomes its TypeError.
    pub fn call_special(
        &mut self,
        v: &Value,
        name: &str,
        args: Vec<Value>,
        missing: impl FnOnce(&str) -> Exc,
    ) -> R<Value> {
        let found = match v {
            Value::Instance(i) => i.class.lookup(super::intern::intern(name)),
            _ => None,
        };
        match found {
            // Bound as an attribute read through the instance would be (functions, properties,
            // static methods, builtins stored in the class).
            Some(m) => {
                let f = self.bind_class_attr(m, v)?;
                self.call_value(&f, args, vec![])
            }
            None => Err(missing(&v.type_name())),
        }
    }

    /// Whether the class of the instance `v` makes it iterable (`__iter__`, or the old
    /// sequence protocol's `__getitem__`).
    pub fn instance_iterable(&self, v: &Value) -> bool {
        matches!(v, Value::Instance(i) if ["__iter__", "__getitem__"].iter().any(|m| i.class.lookup(super::intern::intern(m)).is_some()))
    }

    /// The first of the conversion methods `names` (`__int__`, `__index__`, …) that the class
    /// of the instance `v` defines, called; its result must be an int (`want_int`) or a float
    /// (`__float__`'s). `None` when `v` is no instance or defines none of them.
    /// Errors: TypeError "__int__ returned non-int (type str)", as CPython.
    pub fn convert_dunder(&mut self, v: &Value, names: &[&str], want_int: bool) -> R<Option<Value>> {
        if !matches!(v, Value::Instance(_)) {
            return Ok(None);
        }
        for name in names {
            if let Some(r) = self.call_dunder(v, name, vec![])? {
                return match r {
                    Value::Int(_) => Ok(Some(r)),
                    Value::Bool(b) => Ok(Some(Value::Int(b as i64))),
                    Value::Float(_) if !want_int => Ok(Some(r)),
                    other => {
                        let kind = if want_int { "int" } else { "float" };
                        bail!(Type, "{name} returned non-{kind} (type {})", other.type_name())
                    }
                };
            }
        }
        Ok(None)
    }

    /// `v.__index__()` of an instance that defines it (Python's index protocol: list
    /// indices, `range()`, `hex()`, repetition counts).
    pub fn index_dunder(&mut self, v: &Value) -> R<Option<i64>> {
        Ok(match self.convert_dunder(v, &["__index__"], true)? {
            Some(Value::Int(i)) => Some(i),
            _ => None,
        })
    }

    /// Whether `v` is the builtin `NotImplemented`.
    pub fn is_not_implemented(&self, v: &Value) -> bool {
        v.is(&self.not_implemented)
    }

    /// `a.__op__(b)`, else `b.__rop__(a)`, for the operator methods a user class defines;
    /// a method that returns `NotImplemented` counts as missing (docs/python.md "Classes").
    /// `None` when neither gives an answer. An arithmetic operator's reflected method is
    /// not tried when both operands are of one class (`reflect_same` false), as CPython.
    fn dunder_pair(&mut self, a: &Value, b: &Value, names: (&str, &str), reflect_same: bool) -> R<Option<Value>> {
        if let Some(r) = self.call_dunder(a, names.0, vec![b.clone()])? {
            if !self.is_not_implemented(&r) {
                return Ok(Some(r));
            }
        }
        if !reflect_same {
            if let (Value::Instance(x), Value::Instance(y)) = (a, b) {
                if Rc::ptr_eq(&x.class, &y.class) {
                    return Ok(None);
                }
            }
        }
        match self.call_dunder(b, names.1, vec![a.clone()])? {
            Some(r) if !self.is_not_implemented(&r) => Ok(Some(r)),
            _ => Ok(None),
        }
    }

    /// The dict key of an instance whose class defines `__hash__` (returning `h`): its
    /// identity when the class keeps object's identity `==`, else `h` and the index of its
    /// class of equal instances ([`Interp::hash_classes`]), so that instances with equal
    /// hashes that are not `==` stay apart, as in CPython.
    fn instance_hash_key(&mut self, v: &Value, class: &super::value::Class, h: i64) -> R<HashKey> {
        if class.lookup(super::intern::intern("__eq__")).is_none() {
            return HashKey::of(v);
        }
        let reps = self.hash_classes.get(&h).cloned().unwrap_or_default();
        let mut index = reps.len();
        for (i, r) in reps.iter().enumerate() {
            if r.is(v) || self.values_equal(r, v)? {
                index = i;
                break;
            }
        }
        if index == reps.len() {
            self.hash_classes.entry(h).or_default().push(v.clone());
        }
        Ok(HashKey::Tuple(vec![HashKey::Str("__hash__".into()), HashKey::Int(h), HashKey::Int(index as i64)]))
    }

    /// The dict key of `v`: Python's hash/eq projection, with a user class's `__hash__`
    /// (instances whose hashes are equal are one key). A class that defines `__eq__`
    /// without `__hash__` is unhashable, as in Python.
    pub fn hash_key(&mut self, v: &Value) -> R<HashKey> {
        match v {
            Value::Instance(i) => {
                // `__hash__ = None` in a class body makes its instances unhashable.
                if let Some(Value::None) = i.class.lookup(super::intern::intern("__hash__")) {
                    bail!(Type, "unhashable type: '{}'", i.class.name);
                }
                if let Some(h) = self.call_dunder(v, "__hash__", vec![])? {
                    let h = match h {
                        Value::Int(h) => h,
                        Value::Bool(b) => b as i64,
                        other => bail!(Type, "__hash__ method should return an integer, not {}", other.type_name()),
                    };
                    let class = i.class.clone();
                    return self.instance_hash_key(v, &class, h);
                }
                if i.class.lookup(super::intern::intern("__eq__")).is_some() {
                    bail!(Type, "unhashable type: '{}' (it defines __eq__ but not __hash__)", i.class.name);
                }
                HashKey::of(v)
            }
            Value::Tuple(xs) => self.nested("while hashing a nested tuple", |rt| {
                Ok(HashKey::Tuple(xs.iter().map(|x| rt.hash_key(x)).collect::<R<_>>()?))
            }),
            _ => HashKey::of(v),
        }
    }

    pub fn truthy(&mut self, v: &Value) -> R<bool> {
        if let Value::Instance(_) = v {
            if let Some(r) = self.call_dunder(v, "__bool__", vec![])? {
                return match r {
                    Value::Bool(b) => Ok(b),
                    other => bail!(Type, "__bool__ should return bool, returned {}", other.type_name()),
                };
            }
            if let Some(n) = self.call_dunder(v, "__len__", vec![])? {
                return self.truthy(&n);
            }
        }
        Ok(match v {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.borrow().is_empty(),
            Value::Tuple(t) => !t.is_empty(),
            Value::Dict(d) => !d.borrow().is_empty(),
            Value::Set(x) | Value::FrozenSet(x) => !x.borrow().is_empty(),
            Value::Range(r) => (r[2] > 0 && r[0] < r[1]) || (r[2] < 0 && r[0] > r[1]),
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
        if let Value::Instance(_) = v {
            let name = match op {
                UnaryOp::Neg => "__neg__",
                UnaryOp::Pos => "__pos__",
                UnaryOp::Invert => "__invert__",
            };
            if let Some(r) = self.call_dunder(&v, name, vec![])? {
                return Ok(r);
            }
        }
        match (op, &v) {
            (UnaryOp::Pos, Value::Int(_) | Value::Float(_)) => Ok(v),
            (UnaryOp::Pos, Value::Bool(b)) => Ok(Value::Int(*b as i64)),
            (UnaryOp::Neg, Value::Int(i)) => Ok(Value::Int(int_checked(i.checked_neg(), || format!("-({i})"))?)),
            (UnaryOp::Neg, Value::Bool(b)) => Ok(Value::Int(-(*b as i64))),
            (UnaryOp::Neg, Value::Float(f)) => Ok(Value::Float(-f)),
            // Python: `~x` is `-(x + 1)` for ints and bools alike (`~True` is -2).
            (UnaryOp::Invert, Value::Int(i)) => Ok(Value::Int(!i)),
            (UnaryOp::Invert, Value::Bool(b)) => Ok(Value::Int(!(*b as i64))),
            (_, Value::Tensor(_) | Value::Variable(_)) => {
                let t = self.to_tensor(&v, None)?;
                match op {
                    UnaryOp::Neg => Ok(Value::Tensor(self.unary(Unary::Neg, &t)?)),
                    UnaryOp::Pos => Ok(Value::Tensor(t)),
                    UnaryOp::Invert => Ok(Value::Tensor(Tensor::new(activations::invert(&t.data)?))),
                }
            }
            _ => bail!(
                Type,
                "bad operand type for unary {}: '{}'",
                match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Pos => "+",
                    UnaryOp::Invert => "~",
                },
                v.type_name()
            ),
        }
    }

    /// `a op b` for every operand type LANGUAGE.md §2–§4 defines.
    pub fn binary_op(&mut self, op: BinOp, mut a: Value, b: Value) -> R<Value> {
        use Value::*;
        if let (BinOp::Add, Some(r)) = (op, super::concat::concat_owned(&mut a, &b)) {
            return r.map(|()| a);
        }
        if matches!(a, Instance(_)) || matches!(b, Instance(_)) {
            if let Some(r) = self.dunder_pair(&a, &b, binary_dunders(op), false)? {
                return Ok(r);
            }
        }
        match (&a, &b) {
            // `True & False` is a bool, as in Python; with an int it is an int.
            (Bool(x), Bool(y)) if matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor) => Ok(Bool(match op {
                BinOp::BitAnd => x & y,
                BinOp::BitOr => x | y,
                _ => x ^ y,
            })),
            (Int(_) | Bool(_), Int(_) | Bool(_)) => int_op(op, as_int(&a), as_int(&b)),
            (Int(_) | Bool(_) | Float(_), Int(_) | Bool(_) | Float(_)) if is_bitwise(op) => bail!(
                Type,
                "unsupported operand types for {}: '{}' and '{}'",
                op.symbol(),
                a.type_name(),
                b.type_name()
            ),
            // The result has the left operand's type: `frozenset(a) | b` is a frozenset.
            (Set(x) | FrozenSet(x), Set(y) | FrozenSet(y))
                if matches!(op, BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor) =>
            {
                let s = Rc::new(std::cell::RefCell::new(set_op(op, &x.borrow(), &y.borrow())));
                Ok(if matches!(a, FrozenSet(_)) { FrozenSet(s) } else { Value::Set(s) })
            }
            (Int(_) | Bool(_) | Float(_), Int(_) | Bool(_) | Float(_)) => float_op(op, as_float(&a), as_float(&b)),
            // `"%d items" % n`: printf-style formatting (format/percent.rs).
            (Str(x), _) if op == BinOp::Mod => Ok(Value::str(&self.percent_format(x, &b)?)),
            (Str(x), Str(y)) if op == BinOp::Add => {
                check_bytes("a string", x.len() as u128 + y.len() as u128, 1)?;
                Ok(Str(crate::text::Text::concat(x, y)))
            }
            // A bool is an int here too: `'ab' * True` is 'ab'.
            (Str(x), n @ (Int(_) | Bool(_))) | (n @ (Int(_) | Bool(_)), Str(x)) if op == BinOp::Mul => {
                let n = as_int(n);
                check_repeat(x.len(), n, 1)?;
                Ok(Str(x.repeat(n.max(0) as usize).into()))
            }
            (List(x), List(y)) if op == BinOp::Add => {
                check_bytes("a list", x.borrow().len() as u128 + y.borrow().len() as u128, VALUE_BYTES)?;
                let mut v = x.borrow().clone();
                v.extend(y.borrow().iter().cloned());
                Ok(Value::list(v))
            }
            (List(x), n @ (Int(_) | Bool(_))) | (n @ (Int(_) | Bool(_)), List(x)) if op == BinOp::Mul => {
                let n = as_int(n);
                check_repeat(x.borrow().len(), n, VALUE_BYTES)?;
                Ok(Value::list(repeat_items(&x.borrow(), n)))
            }
            (Tuple(x), n @ (Int(_) | Bool(_))) | (n @ (Int(_) | Bool(_)), Tuple(x)) if op == BinOp::Mul => {
                let n = as_int(n);
                check_repeat(x.len(), n, VALUE_BYTES)?;
                Ok(Value::tuple(repeat_items(x, n)))
            }
            (Tuple(x), Tuple(y)) if op == BinOp::Add => {
                check_bytes("a tuple", x.len() as u128 + y.len() as u128, VALUE_BYTES)?;
                Ok(Value::tuple(x.iter().chain(y.iter()).cloned().collect()))
            }
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
                    // TF: `&`, `|`, `^` are logical on bool tensors, bitwise on int64 ones
                    // (no gradient either way); its tensors have no shifts.
                    BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                        let l = match op {
                            BinOp::BitAnd => Logical::And,
                            BinOp::BitOr => Logical::Or,
                            _ => Logical::Xor,
                        };
                        let r = match &*x.data {
                            crate::tensor::Array::Bool(_) => activations::logical(l, &x.data, &y.data)?,
                            _ => activations::bitwise(l, &x.data, &y.data)?,
                        };
                        crate::tensor::Tensor::new(r)
                    }
                    BinOp::LShift | BinOp::RShift => bail!(
                        Type,
                        "unsupported operand types for {}: '{}' and '{}'",
                        op.symbol(),
                        a.type_name(),
                        b.type_name()
                    ),
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

    /// `a op= b`: lists extend in place, sets update in place (`|= &= -= ^=`);
    /// everything else rebinds.
    pub fn inplace_op(&mut self, op: BinOp, a: Value, b: Value) -> R<Value> {
        // `x += y` is `x.__iadd__(y)` when x's class defines it and it does not return
        // NotImplemented; else `x + y` (docs/python.md "Classes").
        if let Value::Instance(_) = &a {
            if let Some(r) = self.call_dunder(&a, inplace_dunder(op), vec![b.clone()])? {
                if !self.is_not_implemented(&r) {
                    return Ok(r);
                }
            }
        }
        if let (Value::Set(x), Some(y)) = (&a, b.set_items()) {
            if matches!(op, BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor) {
                let new = set_op(op, &x.borrow(), &y.borrow());
                *x.borrow_mut() = new;
                return Ok(a);
            }
        }
        if let (Value::List(x), BinOp::Add) = (&a, op) {
            let items = self.iterate(&b)?;
            let mut x = x.borrow_mut();
            crate::tensor::budget::grow("a list", &mut x, items.len())?;
            x.extend(items);
            drop(x);
            return Ok(a);
        }
        // `xs *= n` repeats the list in place, as Python does.
        if let (Value::List(x), BinOp::Mul, Value::Int(_) | Value::Bool(_)) = (&a, op, &b) {
            let n = as_int(&b);
            check_repeat(x.borrow().len(), n, VALUE_BYTES)?;
            let v = repeat_items(&x.borrow(), n);
            *x.borrow_mut() = v;
            return Ok(a);
        }
        self.binary_op(op, a, b)
    }

    pub fn compare_op(&mut self, op: CmpOp, a: &Value, b: &Value) -> R<Value> {
        if matches!(a, Value::Instance(_)) || matches!(b, Value::Instance(_)) {
            if let Some(names) = compare_dunders(op) {
                if let Some(r) = self.dunder_pair(a, b, names, true)? {
                    return Ok(r);
                }
                // `!=` without __ne__ is the negation of `==` (Python's default).
                if op == CmpOp::Ne {
                    if let Some(r) = self.dunder_pair(a, b, ("__eq__", "__eq__"), true)? {
                        return Ok(Value::Bool(!self.truthy(&r)?));
                    }
                }
            }
        }
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
                let out = Tensor::new(kernels::compare(c, &x.data, &y.data)?);
                self.ad.note(crate::autodiff::tools::notes::comparison_name(c), &[&x, &y], &[&out]);
                Value::Tensor(out)
            }
            CmpOp::Eq => Value::Bool(self.values_equal(a, b)?),
            CmpOp::Ne => Value::Bool(!self.values_equal(a, b)?),
            // Sets order by inclusion: `a <= b` is "a is a subset of b".
            _ if a.set_items().is_some() && b.set_items().is_some() => {
                let (Some(x), Some(y)) = (a.set_items(), b.set_items()) else { unreachable!() };
                let (x, y) = (x.borrow(), y.borrow());
                let sub = |p: &super::value::Set, q: &super::value::Set| p.keys().all(|k| q.contains_key(k));
                Value::Bool(match op {
                    CmpOp::Le => sub(&x, &y),
                    CmpOp::Lt => x.len() < y.len() && sub(&x, &y),
                    CmpOp::Ge => sub(&y, &x),
                    _ => y.len() < x.len() && sub(&y, &x),
                })
            }
            _ if is_number(a) && is_number(b) => {
                let ord = num_cmp(a, b);
                // Every ordering comparison with NaN is False.
                Value::Bool(ord.is_some_and(|o| match op {
                    CmpOp::Lt => o == std::cmp::Ordering::Less,
                    CmpOp::Le => o != std::cmp::Ordering::Greater,
                    CmpOp::Gt => o == std::cmp::Ordering::Greater,
                    _ => o != std::cmp::Ordering::Less,
                }))
            }
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

    /// Python's `==` for non-tensor values (a user class's `__eq__` included).
    pub fn values_equal(&mut self, a: &Value, b: &Value) -> R<bool> {
        self.nested("in comparison", |rt| rt.values_equal_level(a, b))
    }

    fn values_equal_level(&mut self, a: &Value, b: &Value) -> R<bool> {
        use Value::*;
        if matches!(a, Instance(_)) || matches!(b, Instance(_)) {
            if let Some(r) = self.dunder_pair(a, b, ("__eq__", "__eq__"), true)? {
                return self.truthy(&r);
            }
        }
        Ok(match (a, b) {
            (Int(_) | Bool(_) | Float(_), Int(_) | Bool(_) | Float(_)) => {
                num_cmp(a, b) == Some(std::cmp::Ordering::Equal)
            }
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
            // Elements are equal when their keys are (ints, floats and bools hash alike).
            (Set(x) | FrozenSet(x), Set(y) | FrozenSet(y)) => {
                let (x, y) = (x.borrow(), y.borrow());
                x.len() == y.len() && x.keys().all(|k| y.contains_key(k))
            }
            (Slice(x), Slice(y)) => self.seq_equal(&x.to_vec(), &y.to_vec())?,
            // Ranges are equal when they give the same items (CPython compares them so).
            (Range(x), Range(y)) => {
                let (n, m) = (super::index::range_len(x[0], x[1], x[2]), super::index::range_len(y[0], y[1], y[2]));
                n == m && (n == 0 || (x[0] == y[0] && (n == 1 || x[2] == y[2])))
            }
            (DType(_), DType(_)) | (ErrorType(_), ErrorType(_)) => a.is(b),
            (DType(d), Builtin(f)) | (Builtin(f), DType(d)) => {
                *d == crate::tensor::DType::Bool && f.name.as_ref() == "bool"
            }
            _ => a.is(b),
        })
    }

    fn seq_equal(&mut self, x: &[Value], y: &[Value]) -> R<bool> {
        if x.len() != y.len() {
            return Ok(false);
        }
        for (p, q) in x.iter().zip(y) {
            // Identity first, as Python's containers do: a list that contains itself equals itself.
            if !p.is(q) && !self.values_equal(p, q)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Python's `a < b` as a truth value: the comparison operator (tensors compare
    /// elementwise, so one-element tensors and Variables compare by value), then `bool`.
    pub fn less(&mut self, a: &Value, b: &Value) -> R<bool> {
        let r = self.compare_op(CmpOp::Lt, a, b)?;
        self.truthy(&r)
    }

    /// Ordering for `<` on numbers, strings and sequences.
    pub fn order(&mut self, a: &Value, b: &Value) -> R<std::cmp::Ordering> {
        self.nested("in comparison", |rt| rt.order_level(a, b))
    }

    fn order_level(&mut self, a: &Value, b: &Value) -> R<std::cmp::Ordering> {
        use std::cmp::Ordering;
        use Value::*;
        Ok(match (a, b) {
            // NaN is unordered; sorting treats it as equal to everything (as CPython's sort leaves it in place).
            (Int(_) | Bool(_) | Float(_), Int(_) | Bool(_) | Float(_)) => num_cmp(a, b).unwrap_or(Ordering::Equal),
            (Str(x), Str(y)) => x.cmp(y),
            (List(_) | Tuple(_), List(_) | Tuple(_)) if std::mem::discriminant(a) == std::mem::discriminant(b) => {
                let (x, y) = (self.iterate(a)?, self.iterate(b)?);
                for (p, q) in x.iter().zip(&y) {
                    if p.is(q) {
                        continue;
                    }
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
        if let Value::Instance(_) = haystack {
            if let Some(r) = self.call_dunder(haystack, "__contains__", vec![needle.clone()])? {
                return self.truthy(&r);
            }
            if !self.instance_iterable(haystack) {
                bail!(Type, "argument of type '{}' is not iterable", haystack.type_name());
            }
            // Lazily through the iterator protocol: an endless iterator stops at a match.
            let mut it = self.iter_of(haystack)?;
            while let Some(x) = self.iter_next(&mut it)? {
                if x.is(needle) || self.values_equal(&x, needle)? {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        match haystack {
            Value::Str(s) => match needle {
                Value::Str(n) => Ok(s.contains(n.as_ref())),
                other => bail!(Type, "'in <string>' requires a string, not {}", other.type_name()),
            },
            Value::Dict(d) => {
                let k = self.hash_key(needle)?;
                Ok(d.borrow().contains_key(&k))
            }
            Value::Set(s) | Value::FrozenSet(s) => {
                // `x in s` for an unhashable set x asks about frozenset(x), as CPython.
                let k = match needle {
                    Value::Set(n) => HashKey::frozen(n.borrow().keys().cloned().collect()),
                    _ => self.hash_key(needle)?,
                };
                Ok(s.borrow().contains_key(&k))
            }
            // Consumes the iterator up to the first equal item, as Python does.
            Value::Generator(_) => {
                let mut it = self.iter_of(haystack)?;
                while let Some(x) = self.iter_next(&mut it)? {
                    if x.is(needle) || self.values_equal(&x, needle)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Value::Range(r) => match needle {
                Value::Int(i) => {
                    let [a, b, s] = &**r;
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
}

/// Bytes one list or tuple item takes (the allocation budget counts them).
const VALUE_BYTES: usize = std::mem::size_of::<Value>();

/// `seq * n` within the allocation budget (crate::tensor::budget).
fn check_repeat(len: usize, n: i64, item_bytes: usize) -> R<()> {
    Ok(check_bytes("a repeated sequence", (len as u128) * (n.max(0) as u128), item_bytes)?)
}

/// `items * n` (checked by [`check_repeat`] first): an empty sequence repeated any number of
/// times is empty at once, and a non-empty one is bounded by the budget.
fn repeat_items(items: &[Value], n: i64) -> Vec<Value> {
    if items.is_empty() || n <= 0 {
        return Vec::new();
    }
    let mut v = Vec::with_capacity(items.len() * n as usize);
    for _ in 0..n {
        v.extend(items.iter().cloned());
    }
    v
}

fn is_bitwise(op: BinOp) -> bool {
    matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::LShift | BinOp::RShift)
}

/// `x | y`, `x & y`, `x - y`, `x ^ y` of sets; elements keep the order of `x`, then `y`.
fn set_op(op: BinOp, x: &super::value::Set, y: &super::value::Set) -> super::value::Set {
    match op {
        BinOp::BitOr => {
            let mut out = x.clone();
            for (k, v) in y {
                out.entry(k.clone()).or_insert_with(|| v.clone());
            }
            out
        }
        BinOp::BitAnd => x.iter().filter(|(k, _)| y.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())).collect(),
        BinOp::Sub => x.iter().filter(|(k, _)| !y.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => {
            let mut out: super::value::Set =
                x.iter().filter(|(k, _)| !y.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())).collect();
            for (k, v) in y {
                if !x.contains_key(k) {
                    out.insert(k.clone(), v.clone());
                }
            }
            out
        }
    }
}

fn is_number(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Bool(_) | Value::Float(_))
}

/// The one comparison of two numbers (ints, bools, floats), exact as CPython's:
/// an int and a float compare by value, never through float64 (so
/// `9007199254740993 != 9007199254740992.0`). `None` when either is NaN.
pub fn num_cmp(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Float(x), _) => int_float_cmp(as_int(b), *x).map(std::cmp::Ordering::reverse),
        (_, Value::Float(y)) => int_float_cmp(as_int(a), *y),
        _ => Some(as_int(a).cmp(&as_int(b))),
    }
}

/// `i` compared with `f`, exactly.
fn int_float_cmp(i: i64, f: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    if f.is_nan() {
        return None;
    }
    // 2^63 is exact in float64; at or beyond ±2^63 (infinities too) the int is on one side.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f >= TWO_63 {
        return Some(Ordering::Less);
    }
    if f < -TWO_63 {
        return Some(Ordering::Greater);
    }
    // In range: the integral part is an exact i64; the fraction breaks a tie.
    let t = f.trunc();
    match i.cmp(&(t as i64)) {
        Ordering::Equal => 0.0f64.partial_cmp(&(f - t)),
        o => Some(o),
    }
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
    let text = || format!("{x} {} {y}", op.symbol());
    Ok(match op {
        BinOp::Add => Value::Int(int_checked(x.checked_add(y), text)?),
        BinOp::Sub => Value::Int(int_checked(x.checked_sub(y), text)?),
        BinOp::Mul => Value::Int(int_checked(x.checked_mul(y), text)?),
        BinOp::Div => {
            if y == 0 {
                bail!(ZeroDivision, "division by zero");
            }
            Value::Float(super::convert::int_true_div(x, y))
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if y == 0 {
                bail!(ZeroDivision, "integer division or modulo by zero");
            }
            if op == BinOp::Mod && y == -1 {
                // Exact even for x = -2^63, whose quotient by -1 does not fit.
                return Ok(Value::Int(0));
            }
            let q = int_checked(x.checked_div(y), text)?;
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
                Value::Int(int_pow(x, y)?)
            }
        }
        BinOp::MatMul => bail!(Type, "unsupported operand types for @: 'int' and 'int'"),
        BinOp::BitAnd => Value::Int(x & y),
        BinOp::BitOr => Value::Int(x | y),
        BinOp::BitXor => Value::Int(x ^ y),
        BinOp::LShift | BinOp::RShift if y < 0 => bail!(Value, "negative shift count"),
        // A shift that loses bits does not fit in int64: an error, never a wrap.
        BinOp::LShift => match x {
            0 => Value::Int(0),
            _ => Value::Int(int_checked((y < 64).then(|| x << y).filter(|r| r >> y == x), text)?),
        },
        // Python's `>>` floors (an arithmetic shift); past 63 bits only the sign is left.
        BinOp::RShift => Value::Int(x >> y.min(63)),
    })
}

/// Python's `divmod` of two floats: `(q, r)` with `q` integral, `r` of `y`'s sign,
/// `q * y + r == x` as closely as floating point allows (the quotient is computed
/// from the exact remainder, so `divmod(1.0, 0.1)` is `(9.0, 0.09999999999999995)`).
pub fn float_divmod(x: f64, y: f64) -> (f64, f64) {
    let mut r = x % y;
    let mut q = (x - r) / y;
    if r != 0.0 {
        if (y < 0.0) != (r < 0.0) {
            r += y;
            q -= 1.0;
        }
    } else {
        r = 0.0f64.copysign(y);
    }
    if q == 0.0 {
        return (0.0f64.copysign(x / y), r);
    }
    let f = q.floor();
    (if q - f > 0.5 { f + 1.0 } else { f }, r)
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
            float_divmod(x, y).0
        }
        BinOp::Mod => {
            if y == 0.0 {
                bail!(ZeroDivision, "float modulo by zero");
            }
            float_divmod(x, y).1
        }
        BinOp::Pow => {
            if x == 0.0 && y < 0.0 {
                bail!(ZeroDivision, "0.0 cannot be raised to a negative power");
            }
            // CPython gives a complex number here; DGL has none (docs/python.md).
            // (-inf) ** 0.5 is C's pow: inf (or 0.0 for a negative power), not complex.
            if x < 0.0 && x.is_finite() && y.is_finite() && y.fract() != 0.0 {
                bail!(Value, "negative number cannot be raised to a fractional power");
            }
            let r = x.powf(y);
            // Only `**` raises on overflow, as CPython: `*` and `+` give inf.
            if r.is_infinite() && x.is_finite() && y.is_finite() {
                bail!(Overflow, "(34, 'Numerical result out of range')");
            }
            r
        }
        BinOp::MatMul => bail!(Type, "unsupported operand types for @: 'float' and 'float'"),
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::LShift | BinOp::RShift => {
            bail!(Type, "unsupported operand types for {}: 'float' and 'float'", op.symbol())
        }
    }))
}

/// Which special methods a builtin value has, as CPython's types define them, so that
/// `hasattr(5, '__len__')` is False and `'x'.__repr__()` works (docs/python.md "Classes").
fn builtin_has_dunder(v: &Value, name: &str) -> bool {
    let sized = matches!(
        v,
        Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Dict(_) | Value::Set(_) | Value::FrozenSet(_) | Value::Range(_)
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
        | "__rmod__" | "__pow__" | "__rpow__" | "__neg__" | "__pos__" | "__abs__" | "__int__" | "__float__" | "__bool__"
        | "__round__" | "__trunc__" | "__divmod__" => number,
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
            kind: super::value::BuiltinKind::Method(v.clone(), call_builtin_dunder),
        })))
    }

    /// Calls the builtin function `name` (`len`, `repr`, …) on `args`.
    fn call_builtin(&mut self, name: &str, args: Vec<Value>) -> R<Value> {
        match self.builtins.get(&super::intern::intern(name)).cloned() {
            Some(f) => self.call_value(&f, args, vec![]),
            None => bail!(Runtime, "internal error: no builtin '{name}'"),
        }
    }
}

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
        .fold((None, None), |(p, r), (op, (a, b))| {
            (p.or((a == name).then_some(op)), r.or((b == name).then_some(op)))
        });
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
        "__repr__" | "__str__" | "__len__" | "__hash__" | "__abs__" | "__int__" | "__float__" | "__iter__" | "__round__"
        | "__trunc__" => {
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
