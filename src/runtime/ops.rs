//! Operators on values (`+`, `==`, `<`, `in`, `is`) and truth values.

use super::convert::int_checked;
use super::dunder::{binary_dunders, compare_dunders, inplace_dunder};
use super::numeric::{as_float, as_int, float_op, int_op, is_number, num_cmp};
use super::value::{HashKey, Value};
use super::Interp;
use crate::bail;
use crate::error::{Exc, R};
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use crate::tensor::activations::{self, Logical};
use crate::tensor::budget::check_bytes;
use crate::tensor::kernels::{self, Binary, Compare, Unary};
use crate::tensor::Tensor;
use std::rc::Rc;

impl Interp {
    /// Calls `v.name(*args)` when `v` is an instance whose class defines `name`
    /// (Python's special-method lookup: on the class, not the instance).
    pub fn call_dunder(&mut self, v: &Value, name: &str, args: Vec<Value>) -> R<Option<Value>> {
        let Value::Instance(i) = v else { return Ok(None) };
        let Some(m) = i.class.lookup(crate::intern::intern(name)) else { return Ok(None) };
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
            Value::Instance(i) => i.class.lookup(crate::intern::intern(name)),
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
        matches!(v, Value::Instance(i) if ["__iter__", "__getitem__"].iter().any(|m| i.class.lookup(crate::intern::intern(m)).is_some()))
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
        if class.lookup(crate::intern::intern("__eq__")).is_none() {
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
                if let Some(Value::None) = i.class.lookup(crate::intern::intern("__hash__")) {
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
                if i.class.lookup(crate::intern::intern("__eq__")).is_some() {
                    bail!(Type, "unhashable type: '{}' (it defines __eq__ but not __hash__)", i.class.name);
                }
                HashKey::of(v)
            }
            Value::Tuple(xs) | Value::Shape(xs) => self.nested("while hashing a nested tuple", |rt| {
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
            Value::Complex(re, im) => *re != 0.0 || *im != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.borrow().is_empty(),
            Value::Tuple(t) => !t.is_empty(),
            // TF: a TensorShape is true when its rank is known, as every DGL shape's is.
            Value::Shape(_) => true,
            Value::Dict(d) => !d.borrow().is_empty(),
            Value::Set(x) | Value::FrozenSet(x) => !x.borrow().is_empty(),
            Value::Range(r) => (r[2] > 0 && r[0] < r[1]) || (r[2] < 0 && r[0] > r[1]),
            Value::Tensor(_) | Value::Variable(_) => {
                if self.is_symbolic(v) {
                    return Err(super::autograph::truth_error());
                }
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
            Value::NdArray(n) => {
                let a = n.data();
                if a.len() != 1 {
                    return Err(super::numpy::ambiguous_truth());
                }
                a.first_f64() != 0.0
            }
            _ => true,
        })
    }

    pub fn unary_op(&mut self, op: UnaryOp, v: Value) -> R<Value> {
        if self.trace.is_some() {
            if let Some(r) = self.traced_op(super::trace::Call::Unary(op), &[&v]) {
                return r;
            }
        }
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
            (UnaryOp::Pos, Value::Int(_) | Value::Float(_) | Value::Complex(..)) => Ok(v),
            (UnaryOp::Neg, Value::Complex(re, im)) => Ok(Value::Complex(-re, -im)),
            (UnaryOp::Pos, Value::Bool(b)) => Ok(Value::Int(*b as i64)),
            (UnaryOp::Neg, Value::Int(i)) => Ok(Value::Int(int_checked(i.checked_neg(), || format!("-({i})"))?)),
            (UnaryOp::Neg, Value::Bool(b)) => Ok(Value::Int(-(*b as i64))),
            (UnaryOp::Neg, Value::Float(f)) => Ok(Value::Float(-f)),
            // Python: `~x` is `-(x + 1)` for ints and bools alike (`~True` is -2).
            (UnaryOp::Invert, Value::Int(i)) => Ok(Value::Int(!i)),
            (UnaryOp::Invert, Value::Bool(b)) => Ok(Value::Int(!(*b as i64))),
            (UnaryOp::Pos, Value::NdArray(_)) => Ok(v),
            (UnaryOp::Neg, Value::NdArray(n)) => self.numpy_unary(Unary::Neg, n),
            (UnaryOp::Invert, Value::NdArray(n)) => {
                let out = activations::invert(&n.data())?;
                Ok(if n.scalar { super::numpy::NdArray::scalar(out) } else { super::numpy::NdArray::array(out) })
            }
            (_, Value::Tensor(_) | Value::Variable(_)) => {
                let t = self.to_tensor(&v, None)?;
                match op {
                    UnaryOp::Neg => Ok(Value::Tensor(self.ad.unary(Unary::Neg, &t)?)),
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

    /// `a op b` for every operand type docs/language.md §2–§4 defines.
    pub fn binary_op(&mut self, op: BinOp, mut a: Value, b: Value) -> R<Value> {
        use Value::*;
        if self.trace.is_some() {
            if let Some(r) = self.traced_op(super::trace::Call::Binary(op), &[&a, &b]) {
                return r;
            }
        }
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
            (Int(_) | Bool(_) | Float(_), Int(_) | Bool(_) | Float(_)) if is_bitwise(op) => {
                return Err(unsupported(op, &a, &b))
            }
            // The result has the left operand's type: `frozenset(a) | b` is a frozenset.
            (Set(x) | FrozenSet(x), Set(y) | FrozenSet(y))
                if matches!(op, BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor) =>
            {
                let s = Rc::new(std::cell::RefCell::new(set_op(op, &x.borrow(), &y.borrow())));
                Ok(if matches!(a, FrozenSet(_)) { FrozenSet(s) } else { Value::Set(s) })
            }
            (Int(_) | Bool(_) | Float(_), Int(_) | Bool(_) | Float(_)) => float_op(op, as_float(&a), as_float(&b)),
            // A complex operand makes both complex (CPython 3.11 converts the other first).
            (Int(_) | Bool(_) | Float(_) | Complex(..), Int(_) | Bool(_) | Float(_) | Complex(..)) => {
                let (Some(x), Some(y)) = (super::complex::parts(&a), super::complex::parts(&b)) else {
                    return Err(unsupported(op, &a, &b));
                };
                super::complex::binary(op, x, y).unwrap_or_else(|| Err(unsupported(op, &a, &b)))
            }
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
            // TF's TensorShape `+`: the concatenation, a TensorShape, with a TensorShape, a tuple
            // or a list on either side.
            (Shape(_), Shape(_) | Tuple(_) | List(_)) | (Tuple(_) | List(_), Shape(_)) if op == BinOp::Add => {
                let (x, y) = (self.iterate(&a)?, self.iterate(&b)?);
                let dims: Vec<Value> = x.into_iter().chain(y).collect();
                let dims = dims.iter().map(super::index::shape_dimension).collect::<R<Vec<_>>>()?;
                Ok(Shape(dims.into()))
            }
            // NumPy values among themselves and with Python numbers and lists (a tensor
            // operand makes the operation a tensor's, below).
            (NdArray(_), _) | (_, NdArray(_)) if !Self::is_tensorish(&a) && !Self::is_tensorish(&b) => {
                let k = match op {
                    BinOp::Add => Binary::Add,
                    BinOp::Sub => Binary::Sub,
                    BinOp::Mul => Binary::Mul,
                    BinOp::Div => Binary::Div,
                    BinOp::Pow => Binary::Pow,
                    BinOp::FloorDiv => Binary::FloorDiv,
                    BinOp::Mod => Binary::Mod,
                    BinOp::MatMul => return self.numpy_matmul(&a, &b),
                    _ => return Err(unsupported(op, &a, &b)),
                };
                self.numpy_binary(k, &a, &b)
            }
            _ if Self::is_tensorish(&a) || Self::is_tensorish(&b) => {
                let (x, y) = self.tensor_pair(&a, &b)?;
                let t = match op {
                    BinOp::Add => self.ad.binary(Binary::Add, &x, &y)?,
                    BinOp::Sub => self.ad.binary(Binary::Sub, &x, &y)?,
                    BinOp::Mul => self.ad.binary(Binary::Mul, &x, &y)?,
                    BinOp::Div => self.ad.binary(Binary::Div, &x, &y)?,
                    BinOp::Pow => self.ad.binary(Binary::Pow, &x, &y)?,
                    BinOp::FloorDiv => self.ad.binary(Binary::FloorDiv, &x, &y)?,
                    BinOp::Mod => self.ad.binary(Binary::Mod, &x, &y)?,
                    BinOp::MatMul => self.ad.matmul(&x, &y)?,
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
                    BinOp::LShift | BinOp::RShift => return Err(unsupported(op, &a, &b)),
                };
                Ok(Tensor(t))
            }
            _ => return Err(unsupported(op, &a, &b)),
        }
    }

    /// `a op= b`: lists extend in place, sets update in place (`|= &= -= ^=`);
    /// everything else rebinds.
    pub fn inplace_op(&mut self, op: BinOp, a: Value, b: Value) -> R<Value> {
        if self.trace.is_some() {
            if let Some(r) = self.traced_op(super::trace::Call::Inplace(op), &[&a, &b]) {
                return r;
            }
        }
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
        // `a += 1` on a NumPy array changes it in place, as NumPy's (runtime/numpy_assign.rs).
        if let Value::NdArray(n) = &a {
            if !n.scalar {
                let n = n.clone();
                return self.numpy_inplace(op, &n, a, b);
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
        if self.trace.is_some() && !matches!(op, CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn) {
            if let Some(r) = self.traced_op(super::trace::Call::Compare(op), &[a, b]) {
                return r;
            }
        }
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
            matches!(
                v,
                Value::Int(_)
                    | Value::Float(_)
                    | Value::Bool(_)
                    | Value::Complex(..)
                    | Value::List(_)
                    | Value::Tuple(_)
                    | Value::NdArray(_)
            ) || Self::is_tensorish(v)
        };
        let numpy = matches!(a, Value::NdArray(_)) || matches!(b, Value::NdArray(_));
        Ok(match op {
            CmpOp::Is => Value::Bool(a.is(b)),
            CmpOp::IsNot => Value::Bool(!a.is(b)),
            CmpOp::In => Value::Bool(self.contains(b, a)?),
            CmpOp::NotIn => Value::Bool(!self.contains(b, a)?),
            _ if numpy && !tensorish && numeric_or_list(a) && numeric_or_list(b) => {
                self.numpy_compare(elementwise_compare(op), a, b)?
            }
            _ if tensorish && numeric_or_list(a) && numeric_or_list(b) => {
                let (x, y) = self.tensor_pair(a, b)?;
                let c = elementwise_compare(op);
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
        // A NumPy dtype compares as the dtype it is (`a.dtype == np.float64`).
        if let NpDType(d) = a {
            return self.values_equal_level(&DType(*d), b);
        }
        if let NpDType(d) = b {
            return self.values_equal_level(a, &DType(*d));
        }
        Ok(match (a, b) {
            (Int(_) | Bool(_) | Float(_), Int(_) | Bool(_) | Float(_)) => {
                num_cmp(a, b) == Some(std::cmp::Ordering::Equal)
            }
            // CPython: equal parts; a complex with a zero imaginary part equals its real
            // part as a float does (exactly, against an int).
            (Complex(x, y), Complex(p, q)) => x == p && y == q,
            (Complex(x, y), n @ (Int(_) | Bool(_) | Float(_))) | (n @ (Int(_) | Bool(_) | Float(_)), Complex(x, y)) => {
                *y == 0.0 && num_cmp(&Float(*x), n) == Some(std::cmp::Ordering::Equal)
            }
            (Str(x), Str(y)) => x == y,
            // Python's `==` in a container: NumPy's elementwise `==`, then its truth value (an
            // error for more than one element, as in NumPy).
            (NdArray(_), _) | (_, NdArray(_)) => {
                let eq = self.compare_op(CmpOp::Eq, a, b)?;
                self.truthy(&eq)?
            }
            // A dtype equals its name, as TF's and NumPy's dtypes do (`a.dtype == 'float32'`).
            (DType(d), Str(s)) | (Str(s), DType(d)) => d.name() == s.as_ref(),
            (None, None) => true,
            (List(x), List(y)) => {
                let (x, y) = (x.borrow().clone(), y.borrow().clone());
                self.seq_equal(&x, &y)?
            }
            (Tuple(x), Tuple(y)) => self.seq_equal(&x.clone(), &y.clone())?,
            // A TensorShape equals a TensorShape, a tuple or a list of the same entries (TF's).
            (Shape(x), Shape(y) | Tuple(y)) | (Tuple(x), Shape(y)) => self.seq_equal(&x.clone(), &y.clone())?,
            (Shape(x), List(y)) | (List(y), Shape(x)) => {
                let y = y.borrow().clone();
                self.seq_equal(&x.clone(), &y)?
            }
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
            (DType(x), DType(y)) => x == y,
            (ErrorType(_), ErrorType(_)) => a.is(b),
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
            Value::List(_) | Value::Tuple(_) | Value::Shape(_) => {
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

/// The TypeError for a binary operator its operands do not support (CPython's message).
fn unsupported(op: BinOp, a: &Value, b: &Value) -> crate::error::Exc {
    crate::err!(Type, "unsupported operand types for {}: '{}' and '{}'", op.symbol(), a.type_name(), b.type_name())
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

/// The elementwise comparison of an ordering or equality operator (`Is`/`In` never get here).
fn elementwise_compare(op: CmpOp) -> Compare {
    match op {
        CmpOp::Lt => Compare::Lt,
        CmpOp::Le => Compare::Le,
        CmpOp::Gt => Compare::Gt,
        CmpOp::Ge => Compare::Ge,
        CmpOp::Eq => Compare::Eq,
        _ => Compare::Ne,
    }
}
