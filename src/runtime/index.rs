//! Iteration, indexing and slicing of sequences, dicts and tensors.

use super::generator::Generator;
use super::value::Value;
use super::Interp;
use crate::autodiff::ops::axis_slice;
use crate::error::{ErrorKind, R};
use crate::tensor::{shape_str, Array, DType, Tensor};
use crate::{bail, err};
use ndarray::SliceInfoElem;
use std::rc::Rc;

/// A running iteration (a `for` loop, a comprehension, `iter(x)`): lazy over
/// ranges, generators and iterator objects, over a copy of the items otherwise.
pub enum Iter {
    Items(std::vec::IntoIter<Value>),
    Range(i64, i64, i64),
    Gen(Rc<Generator>),
    /// An object with `__next__` (the iterator protocol).
    Next(Value),
}

impl Interp {
    /// Starts iterating `v`: `iter(v)`.
    /// Errors: TypeError if `v` is not iterable, or its `__iter__` returns no iterator.
    pub fn iter_of(&mut self, v: &Value) -> R<Iter> {
        Ok(match v {
            Value::Range(r) => Iter::Range(r[0], r[1], r[2]),
            Value::Generator(g) => Iter::Gen(g.clone()),
            Value::Instance(i) => {
                let has_next = i.class.lookup(crate::intern::intern("__next__")).is_some();
                match self.call_dunder(v, "__iter__", vec![])? {
                    Some(it @ Value::Generator(_)) => self.iter_of(&it)?,
                    Some(Value::Instance(j)) if j.class.lookup(crate::intern::intern("__next__")).is_some() => {
                        Iter::Next(Value::Instance(j))
                    }
                    Some(Value::Instance(j)) => {
                        bail!(Type, "iter() returned non-iterator of type '{}'", j.class.name)
                    }
                    Some(other) => self.iter_of(&other)?,
                    // An iterator without __iter__ is still walked by its __next__.
                    None if has_next => Iter::Next(v.clone()),
                    None => Iter::Items(self.iterate_instance(v)?.into_iter()),
                }
            }
            other => Iter::Items(self.iterate(other)?.into_iter()),
        })
    }

    /// The next item of an iteration, `None` at its end (StopIteration from `__next__`).
    pub fn iter_next(&mut self, it: &mut Iter) -> R<Option<Value>> {
        match it {
            Iter::Items(xs) => Ok(xs.next()),
            Iter::Range(i, stop, step) => {
                let more = (*step > 0 && *i < *stop) || (*step < 0 && *i > *stop);
                Ok(more.then(|| {
                    let v = *i;
                    // Past i64's end the range is over.
                    *i = i.checked_add(*step).unwrap_or(*stop);
                    Value::Int(v)
                }))
            }
            Iter::Gen(g) => {
                let g = g.clone();
                self.generator_next(&g)
            }
            Iter::Next(obj) => {
                let obj = obj.clone();
                match self.call_dunder(&obj, "__next__", vec![]) {
                    Ok(v) => Ok(v),
                    Err(e) if e.kind() == ErrorKind::StopIteration => Ok(None),
                    Err(e) => Err(e),
                }
            }
        }
    }

    /// The items of an iterable, materialised.
    pub fn iterate(&mut self, v: &Value) -> R<Vec<Value>> {
        Ok(match v {
            Value::Set(s) | Value::FrozenSet(s) => s.borrow().values().cloned().collect(),
            Value::Generator(_) => {
                let mut it = self.iter_of(v)?;
                let mut out = Vec::new();
                while let Some(x) = self.iter_next(&mut it)? {
                    crate::tensor::budget::grow("a list", &mut out, 1)?;
                    out.push(x);
                    if out.len() % 4096 == 0 {
                        self.check_interrupt()?;
                    }
                }
                out
            }
            Value::List(l) => l.borrow().clone(),
            Value::Tuple(t) | Value::Shape(t) => t.to_vec(),
            Value::Str(s) => s.chars().map(|c| Value::Str(c.to_string().into())).collect(),
            Value::Dict(d) => d.borrow().values().map(|(k, _)| k.clone()).collect(),
            Value::Range(r) => {
                let [a, b, s] = &**r;
                let n = range_len(*a, *b, *s);
                crate::tensor::budget::check_bytes("a list", n as u128, std::mem::size_of::<Value>())?;
                (0..n).map(|i| Value::Int((*a as i128 + i as i128 * *s as i128) as i64)).collect()
            }
            Value::Tensor(_) | Value::Variable(_) => {
                let t = self.to_tensor(v, None)?;
                if t.shape().is_empty() {
                    bail!(Type, "iteration over a scalar tensor");
                }
                let n = t.shape()[0];
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    let info = axis_slice(t.shape().len(), 0, SliceInfoElem::Index(i as isize));
                    out.push(Value::Tensor(self.ad.index(&t, info)?));
                }
                out
            }
            Value::NdArray(n) => {
                let len = match n.data().shape().first() {
                    Some(&len) if !n.scalar => len,
                    _ => bail!(Type, "iteration over a 0-d array"),
                };
                let mut out = Vec::with_capacity(len);
                for i in 0..len {
                    out.push(self.get_item(v, &Value::Int(i as i64))?);
                }
                out
            }
            Value::Instance(_) => return self.iterate_instance(v),
            // `for line in f`: the remaining lines, each with its newline.
            Value::File(f) => f.readlines()?.iter().map(|l| Value::str(l)).collect(),
            other => bail!(Type, "'{}' object is not iterable", other.type_name()),
        })
    }

    /// Iterates a user object: `__iter__` (returning an iterable, or an iterator whose
    /// `__next__` ends with StopIteration), else `__getitem__` with 0, 1, … until IndexError.
    pub(crate) fn iterate_instance(&mut self, v: &Value) -> R<Vec<Value>> {
        let (it, by_index) = match self.call_dunder(v, "__iter__", vec![])? {
            Some(it) => (it, false),
            None => (v.clone(), true),
        };
        let has_next = matches!(&it, Value::Instance(i) if i.class.lookup(crate::intern::intern("__next__")).is_some());
        if !by_index && !has_next {
            return self.iterate(&it);
        }
        if by_index
            && !matches!(&it, Value::Instance(i) if i.class.lookup(crate::intern::intern("__getitem__")).is_some())
        {
            bail!(Type, "'{}' object is not iterable", v.type_name());
        }
        let mut out = Vec::new();
        loop {
            self.check_interrupt()?;
            crate::tensor::budget::grow("a list", &mut out, 1)?;
            let next = if by_index {
                self.call_dunder(&it, "__getitem__", vec![Value::Int(out.len() as i64)])
            } else {
                self.call_dunder(&it, "__next__", vec![])
            };
            match next {
                Ok(Some(x)) => out.push(x),
                Ok(None) => break,
                Err(e) if e.kind() == ErrorKind::StopIteration && !by_index => break,
                Err(e) if e.kind() == ErrorKind::Index && by_index => break,
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// Normalises a list index (negative counts from the end).
    pub fn list_index(&mut self, i: &Value, len: usize) -> R<usize> {
        let i = match super::convert::int_of(i, super::convert::IntUse::Index) {
            Some(i) => i?,
            None => match self.index_dunder(i)? {
                Some(i) => i,
                None => bail!(Type, "indices must be integers, not {}", i.type_name()),
            },
        };
        // In i128: a length past i64::MAX (a huge range) must not wrap.
        let k = if i < 0 { i as i128 + len as i128 } else { i as i128 };
        if k < 0 || k >= len as i128 {
            bail!(Index, "index {i} is out of range for length {len}");
        }
        Ok(k as usize)
    }

    /// `obj[index]`
    pub fn get_item(&mut self, obj: &Value, index: &Value) -> R<Value> {
        if self.trace.is_some() && matches!(obj, Value::Tensor(_) | Value::Variable(_)) {
            if let Some(r) = self.traced_op(super::trace::Call::Item, &[obj, index]) {
                return r;
            }
        }
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
            Value::Tuple(t) | Value::Shape(t) => {
                if let Value::Slice(s) = index {
                    let part = self.slice_seq(t, s)?;
                    // A TensorShape's slice is a TensorShape, as TF's.
                    return Ok(if matches!(obj, Value::Shape(_)) {
                        Value::Shape(part.into())
                    } else {
                        Value::tuple(part)
                    });
                }
                let k = self.list_index(index, t.len())?;
                Ok(t[k].clone())
            }
            Value::Str(st) => {
                let chars: Vec<Value> = st.chars().map(|c| Value::Str(c.to_string().into())).collect();
                if let Value::Slice(s) = index {
                    let part = self.slice_seq(&chars, s)?;
                    let text: String = part
                        .iter()
                        .map(|c| if let Value::Str(c) = c { c.to_string() } else { String::new() })
                        .collect();
                    return Ok(Value::Str(text.into()));
                }
                let k = self.list_index(index, chars.len())?;
                Ok(chars[k].clone())
            }
            Value::Range(r) => {
                let [a, b, s] = &**r;
                let n = range_len(*a, *b, *s);
                if let Value::Slice(sl) = index {
                    return range_slice([*a, *b, *s], n, sl);
                }
                let k = self.list_index(index, n)?;
                // Within [a, b), so it fits in i64; the product may not.
                Ok(Value::Int((*a as i128 + k as i128 * *s as i128) as i64))
            }
            Value::Dict(d) => {
                let k = self.hash_key(index)?;
                let found = d.borrow().get(&k).map(|(_, v)| v.clone());
                match found {
                    Some(v) => Ok(v),
                    None => Err(self.key_error(index)),
                }
            }
            Value::Tensor(_) | Value::Variable(_) => {
                let t = self.to_tensor(obj, None)?;
                // `x[mask]` with a bool tensor is `boolean_mask(x, mask)` (TF).
                if let Value::Tensor(m) = index {
                    if m.dtype() == DType::Bool {
                        return Ok(Value::Tensor(self.ad.boolean_mask(&t, m, 0)?));
                    }
                }
                let info = tensor_index(t.shape(), index)?;
                Ok(Value::Tensor(self.ad.index(&t, Rc::new(info))?))
            }
            // NumPy's indexing, through the tensor's on a copy (never recorded: the copy is
            // no tape's); an index array may be a NumPy array or a list.
            Value::NdArray(n) => {
                if n.scalar {
                    bail!(Index, "invalid index to scalar variable.");
                }
                if is_basic_index(index) {
                    // Basic indexing gives a view, NumPy's rule.
                    let info = tensor_index(n.data().shape(), index)?;
                    if let Some(view) = super::numpy::NdArray::view_by_index(n, &info)? {
                        return Ok(view);
                    }
                }
                let t = Tensor::new(n.data().clone());
                let index = match index {
                    Value::NdArray(i) => Value::Tensor(Tensor::new(i.data().clone())),
                    Value::List(_) => Value::Tensor(Tensor::new(self.numpy_array_of(index)?)),
                    other => other.clone(),
                };
                let out = if let Value::Tensor(m) = &index {
                    if m.dtype() == DType::Bool {
                        self.ad.boolean_mask(&t, m, 0)?
                    } else {
                        // Integer-array indexing along axis 0, negative entries from the end.
                        let n = t.shape().first().copied().unwrap_or(0) as i64;
                        let mut rows = Vec::with_capacity(m.len());
                        for i in indices_of(m)? {
                            let k = if i < 0 { i + n } else { i };
                            if !(0..n).contains(&k) {
                                bail!(Index, "index {i} is out of bounds for axis 0 with size {n}");
                            }
                            rows.push(k as usize);
                        }
                        self.ad.gather(&t, Rc::new(rows), m.shape(), 0)?
                    }
                } else {
                    let info = tensor_index(t.shape(), &index)?;
                    self.ad.index(&t, Rc::new(info))?
                };
                Ok(super::numpy::NdArray::result((*out.data).clone()))
            }
            Value::Instance(_) => self.call_special(obj, "__getitem__", vec![index.clone()], |t| {
                err!(Type, "'{t}' object is not subscriptable")
            }),
            other => bail!(Type, "'{}' object is not subscriptable", other.type_name()),
        }
    }

    /// `obj[index] = v`
    pub fn set_item(&mut self, obj: &Value, index: Value, v: Value) -> R<()> {
        match obj {
            Value::List(l) if matches!(index, Value::Slice(_)) => {
                let Value::Slice(s) = &index else { return Ok(()) };
                self.set_slice(l, s, &v)
            }
            Value::List(l) => {
                let n = l.borrow().len();
                let k = self.list_index(&index, n)?;
                l.borrow_mut()[k] = v;
                Ok(())
            }
            Value::Dict(d) => {
                let k = self.hash_key(&index)?;
                super::value::dict_store(&mut d.borrow_mut(), k, index, v)?;
                Ok(())
            }
            Value::Instance(_) => {
                self.call_special(obj, "__setitem__", vec![index, v], |t| {
                    err!(Type, "'{t}' object does not support item assignment")
                })?;
                Ok(())
            }
            Value::NdArray(n) => self.numpy_set_item(n, index, v),
            Value::Tensor(_) | Value::Variable(_) => {
                bail!(Type, "'{}' object does not support item assignment (tensors are immutable)", obj.type_name())
            }
            other => bail!(Type, "'{}' object does not support item assignment", other.type_name()),
        }
    }

    /// `xs[a:b] = items` replaces the part (of any length) with the items; `xs[a:b:k] = items`
    /// (an extended slice, any step but 1) assigns item by item, as many items as the slice
    /// selects. The items are read before the list changes, so `xs[:] = xs` works.
    ///
    /// Errors: ValueError "attempt to assign sequence of size 1 to extended slice of size 3";
    /// TypeError when `items` is not iterable.
    fn set_slice(&mut self, l: &Rc<std::cell::RefCell<Vec<Value>>>, s: &[Value; 3], v: &Value) -> R<()> {
        let plain = slice_part(&s[2])?.unwrap_or(1) == 1;
        let items = self.iterate(v).map_err(|e| match e.kind() {
            ErrorKind::Type if plain => crate::err!(Type, "can only assign an iterable"),
            ErrorKind::Type => crate::err!(Type, "must assign iterable to extended slice"),
            _ => e,
        })?;
        let n = l.borrow().len();
        let (start, stop, step) = slice_indices(s, n)?;
        if plain {
            let (a, b) = (start as usize, stop.max(start) as usize);
            crate::tensor::budget::check_bytes(
                "a list",
                (n - (b - a) + items.len()) as u128,
                std::mem::size_of::<Value>(),
            )?;
            l.borrow_mut().splice(a..b, items);
            return Ok(());
        }
        let at = slice_positions(start, stop, step);
        if at.len() != items.len() {
            bail!(Value, "attempt to assign sequence of size {} to extended slice of size {}", items.len(), at.len());
        }
        let mut list = l.borrow_mut();
        for (k, x) in at.into_iter().zip(items) {
            list[k] = x;
        }
        Ok(())
    }

    /// `del xs[a:b:k]`: removes the items the slice selects.
    pub fn del_slice(&mut self, l: &Rc<std::cell::RefCell<Vec<Value>>>, s: &[Value; 3]) -> R<()> {
        let n = l.borrow().len();
        let (start, stop, step) = slice_indices(s, n)?;
        if step == 1 {
            l.borrow_mut().drain(start as usize..stop.max(start) as usize);
            return Ok(());
        }
        let mut gone = vec![false; n];
        for k in slice_positions(start, stop, step) {
            gone[k] = true;
        }
        let mut k = 0;
        l.borrow_mut().retain(|_| {
            k += 1;
            !gone[k - 1]
        });
        Ok(())
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

/// The positions a slice selects, from the concrete bounds of [`slice_indices`].
fn slice_positions(start: i64, stop: i64, step: i64) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i as usize);
        i += step;
    }
    out
}

/// `range(a, b, s)[slice]`: the range of the selected values (`range(10)[1:5:2]` is
/// `range(1, 5, 2)`), computed exactly from Python's `slice.indices`.
///
/// Errors: ValueError for a zero step; OverflowError when a bound leaves 64 bits.
fn range_slice(r: [i64; 3], n: usize, sl: &[Value; 3]) -> R<Value> {
    let step = slice_part(&sl[2])?.unwrap_or(1) as i128;
    if step == 0 {
        bail!(Value, "slice step cannot be zero");
    }
    let n = n as i128;
    let (lower, upper) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let clamp = |v: Option<i64>, default: i128| match v {
        None => default,
        Some(i) if i < 0 => (i as i128 + n).max(lower),
        Some(i) => (i as i128).min(upper),
    };
    let start = clamp(slice_part(&sl[0])?, if step > 0 { lower } else { upper });
    let stop = clamp(slice_part(&sl[1])?, if step > 0 { upper } else { lower });
    let [a, _, s] = r.map(|x| x as i128);
    let parts = [a + start * s, a + stop * s, s * step];
    let mut out = [0i64; 3];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = super::convert::int_checked(i64::try_from(p).ok(), || {
            format!("a bound of the slice of range({}, {}, {})", r[0], r[1], r[2])
        })?;
    }
    Ok(Value::Range(Rc::new(out)))
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

/// A slice bound: `None`, an int, or a scalar int64 tensor (`x[:n]` with `n` a tensor, as TF).
fn slice_part(v: &Value) -> R<Option<i64>> {
    if let Some(i) = super::convert::int_of(v, super::convert::IntUse::Subscript) {
        return i.map(Some);
    }
    match v {
        Value::None => Ok(None),
        Value::Tensor(t) => bail!(
            Type,
            "slice indices must be integers, None or scalar int64 tensors, not a tensor of dtype {} and shape {}",
            t.dtype(),
            shape_str(t.shape())
        ),
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
    // A step longer than the sequence selects only the start element, as a step of the
    // sequence's length does: clamping keeps every later step computation in range.
    let reach = n.max(1);
    let step = step.clamp(-reach, reach);
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
            Value::Int(_) | Value::Bool(_) | Value::Tensor(_) | Value::Variable(_) => {
                // A scalar int64 tensor, or a Variable holding one, indexes like an int (TF; a
                // shape-(1,) one is an error there too).
                let i = match super::convert::int_of(item, super::convert::IntUse::Subscript) {
                    Some(i) => i?,
                    None => match item {
                        Value::Tensor(t) => bail!(
                        Type,
                        "tensor indices must be integers, slices, '...', None or scalar int64 tensors, not a tensor of dtype {} and shape {} (use gather, gather_nd or boolean_mask)",
                        t.dtype(),
                        shape_str(t.shape())
                    ),
                        other => bail!(
                            Type,
                            "tensor indices must be integers, slices, '...', None or scalar int64 tensors, not {}",
                            super::convert::int_found(other)
                        ),
                    },
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
                    SliceInfoElem::Slice {
                        start: start as isize,
                        end: Some(stop.max(start) as isize),
                        step: step as isize,
                    }
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

/// A NumPy array's `shape`: a tuple of ints.
pub fn shape_value(shape: &[usize]) -> Value {
    Value::tuple(shape.iter().map(|&d| Value::Int(d as i64)).collect())
}

/// A tensor's `shape`: a `TensorShape` of its dimensions (docs/language.md §4).
pub fn tensor_shape_value(shape: &[usize]) -> Value {
    Value::Shape(shape.iter().map(|&d| Value::Int(d as i64)).collect())
}

/// One dimension of a `TensorShape`, as TF's `as_dimension` reads it: a non-negative int, or
/// `None` for an unknown one (an int-valued tensor or NumPy scalar reads as its int).
///
/// Errors: ValueError for a negative int; TypeError for anything else.
pub fn shape_dimension(v: &Value) -> R<Value> {
    match v {
        Value::None => Ok(Value::None),
        Value::Int(d) if *d >= 0 => Ok(Value::Int(*d)),
        Value::Int(d) => bail!(Value, "Dimension {d} must be >= 0"),
        Value::Tensor(t) if t.shape().is_empty() && t.dtype().is_int() => {
            shape_dimension(&Value::Int(t.data.first_i64()?))
        }
        Value::NdArray(n) if n.scalar && n.data().dtype().is_int() => {
            let d = n.data().first_i64()?;
            shape_dimension(&Value::Int(d))
        }
        other => bail!(Type, "a TensorShape's dimensions are ints or None, not {}", other.type_name()),
    }
}

/// The elements of an integer index array, as i64 (a float or bool one is a TypeError).
pub fn indices_of(t: &Tensor) -> R<Vec<i64>> {
    match &*t.data.widened() {
        Array::I64(a) => Ok(a.iter().copied().collect()),
        Array::Bool(_) => bail!(Type, "indices must be int64, not bool"),
        _ => bail!(Type, "indices must be int64, not {} (use cast)", t.dtype()),
    }
}

/// Whether `index` is NumPy's basic indexing (ints, slices, `...`, `None`, and tuples of them),
/// whose result is a view of the array; an index array, list or mask selects a copy.
pub(crate) fn is_basic_index(index: &Value) -> bool {
    let one = |v: &Value| {
        matches!(v, Value::Int(_) | Value::Slice(_) | Value::Ellipsis | Value::None)
            || matches!(v, Value::NdArray(n) if n.scalar && n.data().dtype().is_int())
    };
    match index {
        Value::Tuple(items) => items.iter().all(one),
        other => one(other),
    }
}
