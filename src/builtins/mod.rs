//! Native functions, registered through one builder ([`install`]) and called
//! with one signature (`fn(&mut Interp, &mut Args) -> R<Value>`). Each declares
//! its parameters as a [`Signature`] constant; [`Signature::bind`] applies
//! Python's binding rules and the typed getters of [`Bound`] convert each
//! argument, raising the errors users see.

pub mod autodiff_fns;
mod checkpoint_tools;
mod case_tables;
mod collections;
pub mod decimal_digits;
pub mod core;
pub mod data;
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
pub mod numbers;
mod pyfuncs;
mod random_fns;
mod select_fns;
pub mod shape_fns;
mod strings;
mod tape_methods;
mod tape_view;
pub mod tensor_fns;
mod tracking;

use crate::error::ErrorKind;
use crate::error::R;
use crate::intern::intern;
use crate::runtime::value::{Args, NativeFn, Value};
use crate::runtime::convert::{int_found, int_of, IntUse};
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
    rt.install_hooks(Hooks::new(methods::attr, methods::attr_names, modules::find));
    let mut reg = |name: &str, f: NativeFn| {
        rt.builtins.insert(intern(name), Value::native(name, f));
    };
    core::register(&mut reg);
    lang::register(&mut reg);
    tensor_fns::register(&mut reg);
    autodiff_fns::register(&mut reg);
    checkpoint_tools::register(&mut reg);
    forward_fns::register(&mut reg);
    data::register(&mut reg);
    shape_fns::register(&mut reg);
    // After core: its `round` of a tensor is TF's, of a number Python's (core::round).
    math_fns::register(&mut reg);
    tracking::register(&mut reg);
    // After tensor_fns: `pow` of Python numbers is Python's, of tensors TF's (pyfuncs::pow).
    pyfuncs::register(&mut reg);
    io::register(&mut reg);
    introspect::register(&mut reg);
    random_fns::register(&mut reg);
    nn_fns::register(&mut reg);
    select_fns::register(&mut reg);
    tape_view::register(&mut reg);
    diff_tools::install(rt);
    inspect_fns::install(rt);
    lang::install(rt);
    // After every builtin it shares (matmul, eye, norm, einsum).
    linalg_fns::install(rt);
    // `int32` is an alias of int64 (see `dtype_arg`).
    for (name, d) in [("float32", DType::F32), ("float64", DType::F64), ("int64", DType::I64), ("int32", DType::I64)] {
        rt.builtins.insert(intern(name), Value::DType(d));
    }
    // TF's other dtype names exist, so that a ported `tf.float16` reads as the TypeError of
    // `dtype_arg` rather than a NameError; calling one raises it too.
    for &name in UNSUPPORTED_DTYPES {
        rt.builtins.insert(intern(name), Value::native(name, |_, args| Err(no_such_dtype(&args.fname))));
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

/// TF dtype names DGL does not have (`dtype_arg`).
const UNSUPPORTED_DTYPES: &[&str] = &[
    "float16",
    "bfloat16",
    "half",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int8",
    "int16",
    "complex64",
    "complex128",
    "qint8",
    "quint8",
    "qint32",
];

/// The TypeError for a TF dtype DGL does not have.
fn no_such_dtype(name: &str) -> crate::error::Exc {
    err!(Type, "DGL has no {name} dtype: its dtypes are float32, float64, int64 (int32 is an alias of it) and bool")
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

/// The most parameters a [`Signature`] declares (the bound values live in a fixed array).
pub const MAX_PARAMS: usize = 7;

/// The signature of a builtin that takes no arguments (`f()`).
pub static NO_ARGS: Signature = Signature::new(&[], 0);

/// A native function's parameter list, declared once as a constant, so a builtin
/// reads like its Python signature:
///
/// ```ignore
/// static SIG: Signature = Signature::new(&["input_tensor", "axis", "keepdims"], 1);
/// let mut a = SIG.bind(rt, args)?;
/// let (x, axes, keep) = (a.tensor("input_tensor")?, a.axes("axis")?, a.bool_or("keepdims", false)?);
/// ```
///
/// The first `required` parameters must be given; the rest are optional.
/// Every parameter may be given by position or by keyword, as in Python.
#[derive(Debug)]
pub struct Signature {
    /// The parameter names, in positional order.
    pub params: &'static [&'static str],
    /// How many leading parameters must be given.
    pub required: usize,
    /// `f(*args, p=…)`: extra positional arguments are collected and every parameter is keyword-only.
    pub varargs: bool,
}

impl Signature {
    /// `f(p0, …, p[required-1], p[required]=…, …)`.
    pub const fn new(params: &'static [&'static str], required: usize) -> Signature {
        assert!(params.len() <= MAX_PARAMS && required <= params.len());
        Signature { params, required, varargs: false }
    }

    /// `f(*args, p=…, …)`: positional arguments go to [`Bound::rest`], the parameters are keyword-only.
    pub const fn varargs(params: &'static [&'static str]) -> Signature {
        assert!(params.len() <= MAX_PARAMS);
        Signature { params, required: 0, varargs: true }
    }

    /// Binds a call's arguments to the parameters (CPython's rules and wording).
    ///
    /// Errors: TypeError for too many positional arguments, a repeated or
    /// unexpected keyword, or a missing required argument.
    pub fn bind<'a>(&'static self, rt: &'a mut Interp, args: &mut Args) -> R<Bound<'a>> {
        let n = self.params.len();
        let mut vals: [Option<Value>; MAX_PARAMS] = Default::default();
        let mut rest = Vec::new();
        if self.varargs {
            rest = std::mem::take(&mut args.pos);
        } else {
            let given = args.pos.len();
            if given > n {
                let takes = if self.required == n {
                    format!("{n} positional argument{}", plural(n))
                } else {
                    format!("from {} to {n} positional arguments", self.required)
                };
                let was = if given == 1 { "was" } else { "were" };
                bail!(Type, "{}() takes {takes} but {given} {was} given", args.fname);
            }
            for (slot, v) in vals.iter_mut().zip(args.pos.drain(..)) {
                *slot = Some(v);
            }
        }
        for (k, v) in args.kw.drain(..) {
            match self.params.iter().position(|p| *p == &*k) {
                Some(i) if vals[i].is_some() => {
                    bail!(Type, "{}() got multiple values for argument '{}'", args.fname, k)
                }
                Some(i) => vals[i] = Some(v),
                None => {
                    if &*k == PROBE_KEYWORD {
                        PROBED.with(|p| p.set(Some(self)));
                    }
                    let e = err!(Type, "{}() got an unexpected keyword argument '{}'", args.fname, k);
                    return Err(crate::runtime::suggest::with_hint(e, &k, self.params.iter().copied()));
                }
            }
        }
        let missing: Vec<String> =
            (0..self.required).filter(|&i| vals[i].is_none()).map(|i| format!("'{}'", self.params[i])).collect();
        if let Some((last, init)) = missing.split_last() {
            // The wording of user functions (runtime/call.rs), which is CPython's without "positional".
            let list = if init.is_empty() { last.clone() } else { format!("{} and {last}", init.join(", ")) };
            bail!(
                Type,
                "{}() missing {} required argument{}: {list}",
                args.fname,
                missing.len(),
                plural(missing.len())
            );
        }
        Ok(Bound { rt, fname: args.fname.clone(), sig: self, vals, rest })
    }
}

/// The keyword of a signature probe ([`probe_signature`]): no call can pass it by accident.
const PROBE_KEYWORD: &str = "\u{1}signature probe";

thread_local! {
    /// The signature the last probe call bound against.
    static PROBED: std::cell::Cell<Option<&'static Signature>> = const { std::cell::Cell::new(None) };
}

/// The [`Signature`] a native function (or method, with its receiver `this`) binds its
/// arguments with, found by calling it with only the probe keyword: binding rejects that
/// keyword before the function does anything (the check sits on the error path, so ordinary
/// calls pay nothing). `None` when the function reads its arguments without a `Signature`
/// (its heading is then checked by name only). For the help coverage tests.
pub fn probe_signature(rt: &mut Interp, f: NativeFn, this: Option<Value>, name: &str) -> Option<&'static Signature> {
    PROBED.with(|p| p.set(None));
    let mut args = Args { this, pos: vec![], kw: vec![(Rc::from(PROBE_KEYWORD), Value::None)], fname: Rc::from(name) };
    let _ = f(rt, &mut args);
    PROBED.with(|p| p.take())
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A call's arguments bound to a [`Signature`]: typed getters take each value out by
/// parameter name, converting it and raising the TypeError users see.
///
/// Getters come in three shapes, after the parameter's Python default:
/// `tensor("x")` (required), `int_or("start", 0)` (a value default: `None` is a
/// wrong type), `opt_int("axis")` (default `None`: absent and `None` read alike).
pub struct Bound<'a> {
    rt: &'a mut Interp,
    fname: Rc<str>,
    sig: &'static Signature,
    vals: [Option<Value>; MAX_PARAMS],
    /// The extra positional arguments of a [`Signature::varargs`] signature.
    pub rest: Vec<Value>,
}

impl Bound<'_> {
    /// Takes the argument for parameter `name` (`None` when it was not given).
    ///
    /// Errors: an internal error when the signature has no such parameter (a bug in the builtin).
    pub fn opt(&mut self, name: &str) -> R<Option<Value>> {
        match self.sig.params.iter().position(|p| *p == name) {
            Some(i) => Ok(self.vals[i].take()),
            None => Err(err!(Runtime, "internal error: {}() has no parameter '{name}'", self.fname)),
        }
    }

    /// The argument for `name`, with `None` read as not given (a parameter whose default is `None`).
    pub fn non_none(&mut self, name: &str) -> R<Option<Value>> {
        Ok(self.opt(name)?.filter(|v| !matches!(v, Value::None)))
    }

    /// A required argument.
    pub fn value(&mut self, name: &str) -> R<Value> {
        match self.opt(name)? {
            Some(v) => Ok(v),
            None => Err(err!(Runtime, "internal error: {}() argument '{name}' read twice or not required", self.fname)),
        }
    }

    /// The argument for `name`, or `default` when it was not given.
    pub fn value_or(&mut self, name: &str, default: Value) -> R<Value> {
        Ok(self.opt(name)?.unwrap_or(default))
    }

    /// A required tensor argument (numbers, nested lists and Variables convert).
    pub fn tensor(&mut self, name: &str) -> R<Tensor> {
        let v = self.value(name)?;
        self.rt.tensor_arg(&v)
    }

    /// A required int argument. Errors: TypeError naming the parameter.
    pub fn int(&mut self, name: &str) -> R<i64> {
        let v = self.value(name)?;
        self.rt.int_arg(&v, name)
    }

    /// An int argument defaulting to `default` (`None` is a wrong type, as in Python).
    pub fn int_or(&mut self, name: &str, default: i64) -> R<i64> {
        match self.opt(name)? {
            Some(v) => self.rt.int_arg(&v, name),
            None => Ok(default),
        }
    }

    /// An int argument whose default is `None`.
    pub fn opt_int(&mut self, name: &str) -> R<Option<i64>> {
        match self.non_none(name)? {
            Some(v) => self.rt.int_arg(&v, name).map(Some),
            None => Ok(None),
        }
    }

    /// A required number argument (a one-element tensor counts).
    pub fn float(&mut self, name: &str) -> R<f64> {
        let v = self.value(name)?;
        self.rt.float_arg(&v, name)
    }

    /// A number argument defaulting to `default`.
    pub fn float_or(&mut self, name: &str, default: f64) -> R<f64> {
        match self.opt(name)? {
            Some(v) => self.rt.float_arg(&v, name),
            None => Ok(default),
        }
    }

    /// A truth-value argument defaulting to `default` (any value, by Python's truth rules).
    pub fn bool_or(&mut self, name: &str, default: bool) -> R<bool> {
        match self.opt(name)? {
            Some(v) => self.rt.bool_arg(&v),
            None => Ok(default),
        }
    }

    /// Reduction axes: `None` (every axis), an int, or a list/tuple of ints.
    pub fn axes(&mut self, name: &str) -> R<Option<Vec<i64>>> {
        let v = self.opt(name)?;
        self.rt.axes_arg(v.as_ref())
    }

    /// A required shape argument (an int, a list/tuple of ints, or an int64 tensor).
    pub fn shape(&mut self, name: &str) -> R<Vec<i64>> {
        let v = self.value(name)?;
        self.rt.shape_arg(&v)
    }

    /// A shape argument whose default is `None`.
    pub fn opt_shape(&mut self, name: &str) -> R<Option<Vec<i64>>> {
        match self.non_none(name)? {
            Some(v) => self.rt.shape_arg(&v).map(Some),
            None => Ok(None),
        }
    }

    /// A required shape for a new tensor: no negative entries, within the allocation budget.
    pub fn dims(&mut self, name: &str) -> R<Vec<usize>> {
        let v = self.value(name)?;
        self.rt.dims_arg(&v)
    }

    /// A required dtype argument.
    pub fn dtype(&mut self, name: &str) -> R<DType> {
        let v = self.value(name)?;
        self.rt.dtype_arg(&v)
    }

    /// An index dtype argument (argmax's `output_type`): int64, its alias int32, or `None`;
    /// the result is int64 either way.
    ///
    /// Errors: ValueError for another dtype (TF's InvalidArgumentError), as `dtype_arg` otherwise.
    pub fn index_dtype(&mut self, name: &str) -> R<()> {
        match self.opt_dtype(name)? {
            None | Some(DType::I64) => Ok(()),
            Some(d) => bail!(Value, "{}: {name} must be int64 (or int32, its alias), got {d}", self.fname),
        }
    }

    /// A dtype argument whose default is `None`.
    pub fn opt_dtype(&mut self, name: &str) -> R<Option<DType>> {
        match self.non_none(name)? {
            Some(v) => self.rt.dtype_arg(&v).map(Some),
            None => Ok(None),
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
            Value::Tensor(_) | Value::Variable(_) => {
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
            Some(list @ (Value::List(_) | Value::Tuple(_))) => {
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
            Value::List(_) | Value::Tuple(_) => {
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

    /// A dtype: `float32`, `float64`, `int64`, `bool`, or their names as strings. The one
    /// dtype parser: every builtin that takes a dtype reads it here.
    ///
    /// `int32` (the name or the string) is accepted as an alias that yields int64: ported TF
    /// code says `tf.int32` for indices, labels, casts and argmax outputs, and every one of
    /// those uses means "an integer tensor", which DGL's int64 is. Refusing it would make
    /// every such port fail on a spelling, while accepting it changes no value a program
    /// can observe except the printed dtype (`int64`) and the wider range (no int32
    /// wrap-around). So the alias is honest about what it yields and costs nothing.
    /// TF's other dtypes (float16, bfloat16, uint8, …) have no DGL counterpart with the same
    /// values, so they are a TypeError listing DGL's dtypes.
    ///
    /// Errors: TypeError for an unsupported dtype or a value that is not a dtype; ValueError
    /// for an unknown dtype name.
    pub fn dtype_arg(&mut self, v: &Value) -> R<DType> {
        match v {
            Value::DType(d) => Ok(*d),
            Value::Builtin(b) if b.name.as_ref() == "bool" => Ok(DType::Bool),
            Value::Builtin(b) if b.name.as_ref() == "float" => Ok(DType::F32),
            Value::Builtin(b) if b.name.as_ref() == "int" => Ok(DType::I64),
            Value::Builtin(b) if UNSUPPORTED_DTYPES.contains(&b.name.as_ref()) => Err(no_such_dtype(&b.name)),
            Value::Str(s) => match s.as_ref() {
                "float32" => Ok(DType::F32),
                "float64" => Ok(DType::F64),
                "int64" | "int32" => Ok(DType::I64),
                "bool" => Ok(DType::Bool),
                other if UNSUPPORTED_DTYPES.contains(&other) => Err(no_such_dtype(other)),
                other => bail!(Value, "unknown dtype '{other}'"),
            },
            other => bail!(Type, "dtype must be float32, float64, int64 or bool, not {}", other.type_name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    fn interp() -> Interp {
        Interp::new(Rc::new(RefCell::new(Vec::<u8>::new())))
    }

    fn args(pos: Vec<Value>, kw: &[(&str, Value)]) -> Args {
        Args { this: None, pos, kw: kw.iter().map(|(k, v)| (Rc::from(*k), v.clone())).collect(), fname: "f".into() }
    }

    static SIG: Signature = Signature::new(&["a", "b", "c"], 1);
    static ALL: Signature = Signature::new(&["a", "b", "c"], 3);
    static VAR: Signature = Signature::varargs(&["sep"]);

    /// The TypeError message of binding `a` to `sig`.
    fn bind_error(sig: &'static Signature, mut a: Args) -> String {
        match sig.bind(&mut interp(), &mut a) {
            Ok(_) => "bound".into(),
            Err(e) => format!("{}: {}", e.kind().name(), e.message()),
        }
    }

    #[test]
    fn binding_errors_read_as_for_user_functions() {
        let one = || Value::Int(1);
        assert_eq!(
            bind_error(&SIG, args(vec![one(), one(), one(), one()], &[])),
            "TypeError: f() takes from 1 to 3 positional arguments but 4 were given"
        );
        assert_eq!(
            bind_error(&ALL, args(vec![one(), one(), one(), one()], &[])),
            "TypeError: f() takes 3 positional arguments but 4 were given"
        );
        assert_eq!(
            bind_error(&ALL, args(vec![], &[])),
            "TypeError: f() missing 3 required arguments: 'a', 'b' and 'c'"
        );
        assert_eq!(
            bind_error(&ALL, args(vec![one()], &[("c", one())])),
            "TypeError: f() missing 1 required argument: 'b'"
        );
        assert_eq!(
            bind_error(&SIG, args(vec![one()], &[("a", one())])),
            "TypeError: f() got multiple values for argument 'a'"
        );
        assert_eq!(
            bind_error(&SIG, args(vec![one()], &[("d", one())])),
            "TypeError: f() got an unexpected keyword argument 'd'"
        );
        assert_eq!(bind_error(&VAR, args(vec![one(), one(), one()], &[("sep", one())])), "bound");
        assert_eq!(
            bind_error(&VAR, args(vec![], &[("end", one())])),
            "TypeError: f() got an unexpected keyword argument 'end'"
        );
    }

    #[test]
    fn getters_follow_the_parameters_default() {
        let mut rt = interp();
        let mut a = args(vec![Value::Int(1)], &[("b", Value::None), ("c", Value::None)]);
        let mut b = SIG.bind(&mut rt, &mut a).expect("binds");
        assert_eq!(b.int("a").expect("an int"), 1);
        // `b=None` where the default is None reads as not given; where the default is a value it is a wrong type.
        assert_eq!(b.opt_int("b").expect("None is absent"), None);
        let e = b.int_or("c", 0).expect_err("None is not an int");
        assert_eq!(e.message(), "c must be an int, not NoneType");
        // Each argument is taken once; a name the signature lacks is the builtin's bug, not a panic.
        assert!(b.value("a").expect_err("taken").message().starts_with("internal error"));
        assert!(b.opt("zzz").expect_err("no such parameter").message().starts_with("internal error"));
    }
}
