//! Native functions, registered through one builder ([`install`]) and called
//! with one signature (`fn(&mut Interp, &mut Args) -> R<Value>`). Arguments
//! are bound by name with [`Args::bind`] and extracted with typed helpers
//! that produce the errors users see.

pub mod autodiff_fns;
mod collections;
pub mod core;
pub mod data;
pub mod methods;
mod tape_methods;
pub mod tensor_fns;

use crate::bail;
use crate::runtime::error::ErrorKind;
use crate::runtime::error::R;
use crate::runtime::intern::intern;
use crate::runtime::value::{Args, NativeFn, Value};
use crate::runtime::Interp;
use crate::tensor::{DType, Tensor};

/// Registers every builtin name (LANGUAGE.md §2, §4, §5).
pub fn install(rt: &mut Interp) {
    let mut reg = |name: &str, f: NativeFn| {
        rt.builtins.insert(intern(name), Value::native(name, f));
    };
    core::register(&mut reg);
    tensor_fns::register(&mut reg);
    autodiff_fns::register(&mut reg);
    data::register(&mut reg);
    for (name, d) in [("float32", DType::F32), ("float64", DType::F64), ("int64", DType::I64)] {
        rt.builtins.insert(intern(name), Value::DType(d));
    }
    for k in ErrorKind::ALL {
        rt.builtins.insert(intern(k.name()), Value::ErrorType(Some(k)));
    }
    rt.builtins.insert(intern("Exception"), Value::ErrorType(None));
}

impl Args {
    /// Binds arguments to parameter `names`; the first `required` must be given.
    ///
    /// Errors: TypeError for a missing, repeated or unexpected argument, or too many.
    pub fn bind<const N: usize>(&mut self, names: [&str; N], required: usize) -> R<[Option<Value>; N]> {
        if self.pos.len() > N {
            bail!(Type, "{}() takes at most {} arguments ({} given)", self.fname, N, self.pos.len());
        }
        let mut out: [Option<Value>; N] = std::array::from_fn(|_| None);
        for (i, v) in self.pos.drain(..).enumerate() {
            out[i] = Some(v);
        }
        for (k, v) in self.kw.drain(..) {
            match names.iter().position(|n| *n == &*k) {
                Some(i) if out[i].is_some() => bail!(Type, "{}() got multiple values for argument '{}'", self.fname, k),
                Some(i) => out[i] = Some(v),
                None => bail!(Type, "{}() got an unexpected keyword argument '{}'", self.fname, k),
            }
        }
        for (i, n) in names.iter().enumerate().take(required) {
            if out[i].is_none() {
                bail!(Type, "{}() missing required argument '{}'", self.fname, n);
            }
        }
        Ok(out)
    }

    /// Takes all positional arguments (for `print(*args)`-style functions), leaving keywords.
    pub fn rest(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.pos)
    }

    /// Takes a keyword argument by name.
    pub fn kwarg(&mut self, name: &str) -> Option<Value> {
        let i = self.kw.iter().position(|(k, _)| &**k == name)?;
        Some(self.kw.remove(i).1)
    }

    /// Errors: TypeError if any keyword argument is left unused.
    pub fn no_more_kw(&self) -> R<()> {
        if let Some((k, _)) = self.kw.first() {
            bail!(Type, "{}() got an unexpected keyword argument '{}'", self.fname, k);
        }
        Ok(())
    }

    /// The bound receiver of a method call.
    pub fn this(&self) -> Value {
        self.this.clone().unwrap_or(Value::None)
    }
}

/// Typed extraction of argument values.
impl Interp {
    pub fn tensor_arg(&mut self, v: &Value) -> R<Tensor> {
        self.to_tensor(v, None)
    }

    pub fn int_arg(&mut self, v: &Value, what: &str) -> R<i64> {
        match v {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(*b as i64),
            Value::Tensor(t) if t.dtype() == DType::I64 && t.len() == 1 => Ok(t.data.first_i64()?),
            other => bail!(Type, "{what} must be an int, not {}", other.type_name()),
        }
    }

    pub fn float_arg(&mut self, v: &Value, what: &str) -> R<f64> {
        match v {
            Value::Int(i) => Ok(*i as f64),
            Value::Float(f) => Ok(*f),
            Value::Bool(b) => Ok(*b as u8 as f64),
            Value::Tensor(_) | Value::Variable(_) => {
                let t = self.to_tensor(v, None)?;
                if t.len() != 1 {
                    bail!(Type, "{what} must be a number or a one-element tensor");
                }
                Ok(t.data.first_f64())
            }
            other => bail!(Type, "{what} must be a number, not {}", other.type_name()),
        }
    }

    pub fn bool_arg(&mut self, v: &Value) -> R<bool> {
        self.truthy(v)
    }

    /// `None`, an int, or a list/tuple of ints (reduction axes).
    pub fn axes_arg(&mut self, v: Option<&Value>) -> R<Option<Vec<i64>>> {
        match v {
            None | Some(Value::None) => Ok(None),
            Some(Value::List(_) | Value::Tuple(_)) => {
                let items = self.iterate(v.unwrap())?;
                Ok(Some(items.iter().map(|x| self.int_arg(x, "axis")).collect::<R<_>>()?))
            }
            Some(x) => Ok(Some(vec![self.int_arg(x, "axis")?])),
        }
    }

    /// A shape: an int, a list/tuple of ints, or an int64 tensor.
    pub fn shape_arg(&mut self, v: &Value) -> R<Vec<i64>> {
        match v {
            Value::Int(i) => Ok(vec![*i]),
            Value::List(_) | Value::Tuple(_) => {
                let items = self.iterate(v)?;
                items.iter().map(|x| self.int_arg(x, "a shape entry")).collect()
            }
            Value::Tensor(t) => Ok(t.data.to_i64_vec()?),
            other => bail!(Type, "a shape must be a list of ints, not {}", other.type_name()),
        }
    }

    /// A shape with no negative entries (for creation functions).
    pub fn dims_arg(&mut self, v: &Value) -> R<Vec<usize>> {
        let dims = self.shape_arg(v)?;
        let mut out = Vec::with_capacity(dims.len());
        for d in dims {
            if d < 0 {
                bail!(Value, "shape dimensions must be non-negative, got {d}");
            }
            out.push(d as usize);
        }
        crate::tensor::shape::check_size(&out)?;
        Ok(out)
    }

    /// A dtype: `float32`, `float64`, `int64`, `bool`, or their names as strings.
    pub fn dtype_arg(&mut self, v: &Value) -> R<DType> {
        match v {
            Value::DType(d) => Ok(*d),
            Value::Builtin(b) if b.name.as_ref() == "bool" => Ok(DType::Bool),
            Value::Builtin(b) if b.name.as_ref() == "float" => Ok(DType::F32),
            Value::Builtin(b) if b.name.as_ref() == "int" => Ok(DType::I64),
            Value::Str(s) => match s.as_ref() {
                "float32" => Ok(DType::F32),
                "float64" => Ok(DType::F64),
                "int64" => Ok(DType::I64),
                "bool" => Ok(DType::Bool),
                other => bail!(Value, "unknown dtype '{other}'"),
            },
            other => bail!(Type, "dtype must be float32, float64, int64 or bool, not {}", other.type_name()),
        }
    }
}
