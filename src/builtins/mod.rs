//! Native functions, registered through one builder ([`install`]) and called
//! with one signature (`fn(&mut Interp, &mut Args) -> R<Value>`). Each is declared
//! once, beside its function, as a [`Native`] (runtime/native.rs): its name and its
//! parameters as Python writes them; [`Signature::bind`] applies Python's binding
//! rules and the typed getters of [`Bound`] convert each argument, raising the
//! errors users see.

pub mod autodiff_fns;
mod case_tables;
mod checkpoint_tools;
mod collections;
mod complex_fns;
pub mod core;
pub mod data;
pub mod decimal_digits;
mod diff_tools;
mod explain;
mod forward_fns;
mod inspect_fns;
mod introspect;
mod io;
mod lang;
pub use lang::is_object_class;
mod linalg_fns;
mod math_fns;
pub mod methods;
pub mod modules;
mod nn_fns;
mod nprandom_fns;
pub mod numbers;
mod pyfuncs;
mod random_fns;
pub(crate) mod saving_fns;
mod segment_fns;
mod select_fns;
pub mod shape_fns;
mod special_fns;
mod strings;
mod tape_methods;
mod tape_view;
pub mod tensor_fns;
mod tensor_shape;
mod tf_fns;
pub(crate) mod trace_fns;
mod tracking;

pub use crate::runtime::native::{Bound, Native, Signature, Ty, NO_ARGS};

use crate::error::ErrorKind;
use crate::error::R;
use crate::intern::intern;
use crate::runtime::convert::{int_found, int_of, IntUse};
use crate::runtime::value::{Args, Value};
use crate::runtime::{Hooks, Interp};
use crate::tensor::{DType, Tensor};
use crate::{bail, err};
use std::rc::Rc;

impl Interp {
    /// An interpreter with every builtin installed, writing the program's output to `out`.
    pub fn new(out: crate::runtime::Output) -> Interp {
        let mut rt = Interp::bare(out);
        install(&mut rt);
        rt
    }
}

/// Registers every builtin name (docs/language.md §2, §4, §5) and the attribute tables of builtin values.
pub fn install(rt: &mut Interp) {
    rt.install_hooks(Hooks::new(methods::attr, methods::attr_names, methods::sliced_attr, modules::find));
    register(&mut |b| {
        rt.builtins.insert(intern(b.name), b.value());
    });
    // A type's name (`isinstance(x, Tensor)`), not a function: calling it says how tensors are
    // made, and its help entry is the type's.
    rt.builtins.insert(intern("Tensor"), core::TENSOR.value());
    diff_tools::install(rt);
    inspect_fns::install(rt);
    lang::install(rt);
    // After every builtin it shares (matmul, eye, norm, einsum).
    linalg_fns::install(rt);
    // Every dtype by its name (`bool` is the builtin type, which names the dtype too).
    for d in DType::ALL.into_iter().filter(|&d| d != DType::Bool) {
        rt.builtins.insert(intern(d.name()), Value::DType(d));
    }
    rt.builtins.insert(intern("half"), Value::DType(DType::F16));
    // TF's other dtype names exist, so that a ported `tf.float16` reads as the TypeError of
    // `dtype_arg` rather than a NameError; calling one raises it too.
    for &name in UNSUPPORTED_DTYPES {
        rt.builtins.insert(intern(name), NO_SUCH_DTYPE.value_named(name));
    }
    for k in ErrorKind::ALL {
        rt.builtins.insert(intern(k.name()), Value::ErrorType(k));
    }
    // Python 3: IOError and EnvironmentError are other names of OSError (one class).
    rt.builtins.insert(intern("OSError"), Value::ErrorType(ErrorKind::IO));
    rt.builtins.insert(intern("EnvironmentError"), Value::ErrorType(ErrorKind::IO));
    rt.builtins.insert(intern("NotImplemented"), rt.not_implemented.clone());
    // `x[newaxis]`: `newaxis` is `None`, as in TF and NumPy.
    rt.builtins.insert(intern("newaxis"), Value::None);
}

/// Passes `reg` every builtin function reached by a bare name (`reduce_sum`, `print`): one
/// declaration each, no name twice.
fn register(reg: &mut impl FnMut(&'static Native)) {
    for f in [
        core::register,
        lang::register,
        tensor_fns::register,
        autodiff_fns::register,
        checkpoint_tools::register,
        forward_fns::register,
        data::register,
        shape_fns::register,
        tensor_shape::register,
        math_fns::register,
        special_fns::register,
        tracking::register,
        pyfuncs::register,
        complex_fns::register,
        io::register,
        introspect::register,
        random_fns::register,
        nn_fns::register,
        select_fns::register,
        tape_view::register,
        diff_tools::register,
        inspect_fns::register,
    ] {
        f(reg);
    }
}

/// Every declared builtin function and method with its help key (`reduce_sum`, `linalg.solve`,
/// `math.sqrt`, `list.append`): what `help()` prints the signatures of, and what the help
/// coverage tests match against the entries of `src/help/*.md` one to one. Listed once, on
/// first use (help, the TF and NumPy namespaces, the exporter read it).
pub fn declared() -> &'static [(String, &'static Native)] {
    static DECLARED: std::sync::OnceLock<Vec<(String, &'static Native)>> = std::sync::OnceLock::new();
    DECLARED.get_or_init(|| {
        let mut out = vec![];
        register(&mut |b| out.push((b.name.to_string(), b)));
        for (prefix, list) in [
            ("linalg", &linalg_fns::NATIVES[..]),
            ("math", modules::math::FNS),
            ("random", modules::random::FNS),
            ("time", modules::time::FNS),
            ("json", saving_fns::JSON_FNS),
            ("os", modules::os::FNS),
            ("os.path", modules::os::PATH_FNS),
            ("tf", &tf_fns::NATIVES[..]),
        ] {
            out.extend(list.iter().map(|&b| (format!("{prefix}.{}", b.name), b)));
        }
        for (ty, name, f) in methods::attribute_tables() {
            if let Some(f) = f {
                out.push((format!("{ty}.{name}"), f));
            }
        }
        out
    })
}

use crate::runtime::convert::DTYPE_NAMES;

/// TF dtype names DGL does not have (`dtype_arg`): complex dtypes, bfloat16, the wider unsigned
/// ints and the quantized ones (docs/language.md §4).
const UNSUPPORTED_DTYPES: &[&str] =
    &["bfloat16", "uint16", "uint32", "uint64", "complex64", "complex128", "qint8", "quint8", "qint32"];

/// Calling a TF dtype DGL does not have (`tf.float16(1)`).
static NO_SUCH_DTYPE: Native = Native::new("dtype", &["*args", "**kwargs"], |_, args| Err(no_such_dtype(&args.fname)));

/// The TypeError for a TF dtype DGL does not have.
fn no_such_dtype(name: &str) -> crate::error::Exc {
    err!(Type, "DGL has no {name} dtype: its dtypes are {DTYPE_NAMES}")
}

/// A method's receiver (`x` of `x.f()`). Errors: an internal error if the method was called
/// without one.
pub(super) fn receiver(a: &Args) -> R<&Value> {
    a.this.as_ref().ok_or_else(|| err!(Runtime, "internal error: {}() called without its receiver", a.fname))
}

/// The tape a method is bound to.
///
/// Errors: TypeError when the receiver is not a tape (a method taken off one type and called on another).
pub(super) fn this_tape(a: &Args) -> R<Rc<std::cell::RefCell<crate::autodiff::Tape>>> {
    match &a.this {
        Some(Value::Tape(t)) => Ok(t.clone()),
        other => {
            let found = other.as_ref().map_or_else(|| "nothing".to_string(), |v| v.type_name());
            bail!(Type, "{}() must be called on a GradientTape, not {found}", a.fname)
        }
    }
}

/// Typed extraction of argument values.
impl Interp {
    /// A tensor from any tensor-like value (numbers, nested lists, Variables).
    pub fn tensor_arg(&mut self, v: &Value) -> R<Tensor> {
        self.to_tensor(v, None)
    }

    /// An int: a bool, a one-element int64 tensor or a Variable holding one counts
    /// ([`int_of`], the one reading of int arguments). Errors: TypeError naming `what`.
    pub fn int_arg(&mut self, v: &Value, what: &str) -> R<i64> {
        match int_of(v, IntUse::Arg) {
            Some(i) => i,
            None => match self.index_dunder(v)? {
                Some(i) => Ok(i),
                None => bail!(Type, "{what} must be an int, not {}", int_found(v)),
            },
        }
    }

    /// A number (a one-element tensor counts). Errors: TypeError naming `what`.
    pub fn float_arg(&mut self, v: &Value, what: &str) -> R<f64> {
        match v {
            Value::Int(i) => Ok(*i as f64),
            Value::Float(f) => Ok(*f),
            Value::Bool(b) => Ok(*b as u8 as f64),
            Value::Tensor(_) | Value::Variable(_) | Value::NdArray(_) => {
                let t = self.to_tensor(v, None)?;
                if t.len() != 1 {
                    bail!(Type, "{what} must be a number or a one-element tensor");
                }
                Ok(t.data.first_f64())
            }
            other => match self.convert_dunder(other, &["__float__", "__index__"], false)? {
                Some(Value::Float(f)) => Ok(f),
                Some(Value::Int(i)) => Ok(i as f64),
                _ => bail!(Type, "{what} must be a number, not {}", other.type_name()),
            },
        }
    }

    /// Python's truth value of `v`.
    pub fn bool_arg(&mut self, v: &Value) -> R<bool> {
        self.truthy(v)
    }

    /// `None`, an int, or a list/tuple of ints (reduction axes).
    pub fn axes_arg(&mut self, v: Option<&Value>) -> R<Option<Vec<i64>>> {
        match v {
            None | Some(Value::None) => Ok(None),
            Some(list @ (Value::List(_) | Value::Tuple(_) | Value::Shape(_))) => {
                let items = self.iterate(list)?;
                Ok(Some(items.iter().map(|x| self.int_arg(x, "axis")).collect::<R<_>>()?))
            }
            Some(x) => Ok(Some(vec![self.int_arg(x, "axis")?])),
        }
    }

    /// A shape: an int, a list/tuple of ints, or an int64 tensor.
    pub fn shape_arg(&mut self, v: &Value) -> R<Vec<i64>> {
        match v {
            Value::Int(i) => Ok(vec![*i]),
            Value::List(_) | Value::Tuple(_) | Value::Shape(_) => {
                let items = self.iterate(v)?;
                items.iter().map(|x| self.int_arg(x, "a shape entry")).collect()
            }
            Value::Tensor(t) => Ok(t.data.to_i64_vec()?),
            // A Variable holding a shape, as TF reads it (`reshape(x, Variable([2, 3]))`).
            Value::Variable(var) => Ok(var.peek().data.to_i64_vec()?),
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

    /// A dtype: `float16`, `float32`, `float64`, `uint8`, `int8`, `int16`, `int32`, `int64`,
    /// `bool`, or their names as strings. The one dtype parser: every builtin that takes a dtype
    /// reads it here (docs/language.md §4). TF's other dtypes (bfloat16, complex64, uint16, …)
    /// have no DGL counterpart, so they are a TypeError listing DGL's dtypes.
    ///
    /// Errors: TypeError for an unsupported dtype or a value that is not a dtype; ValueError
    /// for an unknown dtype name.
    pub fn dtype_arg(&mut self, v: &Value) -> R<DType> {
        match v {
            Value::DType(d) | Value::NpDType(d) => Ok(*d),
            Value::Builtin(b) if b.name.as_ref() == "bool" => Ok(DType::Bool),
            Value::Builtin(b) if b.name.as_ref() == "float" => Ok(DType::F32),
            // NumPy's `dtype=complex` is complex128, which DGL does not have.
            Value::Builtin(b) if b.name.as_ref() == "complex" => Err(no_such_dtype("complex128")),
            Value::Builtin(b) if b.name.as_ref() == "int" => Ok(DType::I64),
            Value::Builtin(b) if UNSUPPORTED_DTYPES.contains(&b.name.as_ref()) => Err(no_such_dtype(&b.name)),
            Value::Str(s) => match DType::from_name(s) {
                Some(d) => Ok(d),
                None if UNSUPPORTED_DTYPES.contains(&s.as_ref()) => Err(no_such_dtype(s)),
                None => bail!(Value, "unknown dtype '{s}'"),
            },
            other => bail!(Type, "dtype must be a dtype ({}), not {}", DTYPE_NAMES, other.type_name()),
        }
    }
}
