//! A native builtin's one declaration ([`Native`]): the name it is reached by, its
//! parameters as Python writes them (positional, keyword-only after `*`, `*args`, defaults),
//! and its function. `help()` prints the heading the declaration makes (the prose stays in
//! `src/help/*.md`, keyed by name), the namespace and method tables list declarations, and
//! [`Signature::bind`] applies Python's binding rules to a call (docs/language.md §4).

use crate::error::R;
use crate::runtime::value::{Args, Dialect, NativeFn, Value};
use crate::runtime::Interp;
use crate::tensor::{DType, Tensor};
use crate::{bail, err};
use std::rc::Rc;

/// A native builtin, declared once beside its function:
///
/// ```ignore
/// static GELU: Native = Native::new("gelu", &["features", "approximate=False"], gelu);
/// fn gelu(rt: &mut Interp, args: &mut Args) -> R<Value> {
///     let mut a = GELU.bind(rt, args)?;
///     let (t, approximate) = (a.tensor("features")?, a.bool_or("approximate", false)?);
///     …
/// }
/// ```
///
/// The builtins layer declares them; the runtime calls them (a builtin value holds its
/// declaration: runtime/value.rs) and `help()` prints their headings.
///
/// Builtins that share one function and one parameter list (`floor`, `ceil`, …) share a
/// [`Signature`] constant through [`Native::with`].
#[derive(Debug)]
pub struct Native {
    /// The name it is called by (`gelu`; `solve` for `linalg.solve`, `append` for `list.append`).
    pub name: &'static str,
    /// Its parameters.
    pub sig: Signature,
    /// Its function.
    pub call: NativeFn,
    /// The other libraries' names bound to it (`tf.math.reduce_sum`, `tf.reduce_sum`, `np.sum`),
    /// the first being what `dgl export --tf` writes for it. `import tensorflow as tf` and
    /// `import numpy as np` bind these (builtins/modules/foreign.rs).
    pub spellings: &'static [&'static str],
    /// What `dgl export --tf` writes for it when not its first `tf.` spelling: a function of the
    /// support module that carries DGL's semantics (`dgl_tf.constant`).
    pub exported: Option<&'static str>,
}

impl Native {
    /// A builtin with its own parameter list (see [`Signature::new`]).
    pub const fn new(name: &'static str, params: &'static [&'static str], call: NativeFn) -> Native {
        Native { name, sig: Signature::new(params), call, spellings: &[], exported: None }
    }

    /// A builtin with a parameter list it shares with others.
    pub const fn with(name: &'static str, sig: Signature, call: NativeFn) -> Native {
        Native { name, sig, call, spellings: &[], exported: None }
    }

    /// The declaration with its names in other libraries (see [`Native::spellings`]).
    pub const fn spelled(self, spellings: &'static [&'static str]) -> Native {
        Native { spellings, ..self }
    }

    /// The declaration with what `dgl export --tf` writes for it (see [`Native::exported`]).
    pub const fn exported_as(self, expr: &'static str) -> Native {
        Native { exported: Some(expr), ..self }
    }

    /// Binds a call's arguments to the parameters ([`Signature::bind`]).
    pub fn bind<'a>(&'static self, rt: &'a mut Interp, args: &mut Args) -> R<Bound<'a>> {
        self.sig.bind(rt, args)
    }

    /// The function value, named `name` in messages (`linalg.solve`, or the builtin's own name).
    pub fn value_named(&'static self, name: &str) -> Value {
        Value::native(name, self)
    }

    /// The function value under its own name.
    pub fn value(&'static self) -> Value {
        self.value_named(self.name)
    }
}

/// The most parameters a [`Signature`] declares, markers included (the bound values live in a fixed array).
pub const MAX_PARAMS: usize = 10;

/// The signature of a builtin that takes no arguments (`f()`).
pub const NO_ARGS: Signature = Signature::new(&[]);

/// A native function's parameter list, written as Python writes it, one text per parameter:
/// `"x"` (required), `"axis=None"` (with its default, as `help()` shows it), `"*"` (the
/// parameters after it are keyword-only), `"*args"` (extra positional arguments are collected
/// into [`Bound::rest`], and the parameters after it are keyword-only), `"**kwargs"` (last:
/// unknown keyword arguments are collected into [`Bound::rest_kw`]). A parameter read through
/// a typed getter carries its type as a Python annotation (`"x: TensorLike"`,
/// `"keepdims: bool = False"`, `"axis: int | None = None"`; see [`Ty`]), and the getter checks
/// it; `help()` prints the parameters without their annotations.
///
/// ```ignore
/// const REDUCE: Signature =
///     Signature::new(&["input_tensor: TensorLike", "axis: Axes = None", "keepdims: bool = False"]);
/// ```
///
/// Defaults are text for `help()`; each builtin applies its own through the getter it reads the
/// argument with (`bool_or("keepdims", false)`), and the getters of a parameter whose default
/// is `None` read `None` and absence alike.
#[derive(Debug, Clone, Copy)]
pub struct Signature {
    /// The parameters as written, in order.
    pub params: &'static [&'static str],
    /// How many leading parameters must be given.
    pub required: usize,
    /// The index of the `*` or `*args` marker, if there is one.
    marker: Option<usize>,
    /// The marker is `*args` (extra positional arguments are collected).
    pub varargs: bool,
    /// The last parameter is `**kwargs` (unknown keywords are collected).
    pub kwargs: bool,
    /// Bit `i` set: `params[i]` must be given (no default; positional or keyword-only).
    must: u16,
    /// Each parameter's declared type ([`Ty::Object`] when it has no annotation).
    types: [Ty; MAX_PARAMS],
}

/// A parameter's declared type: which [`Bound`] getter reads it, and so what it accepts.
/// The annotation texts are Python's where Python has the type; `TensorLike`, `Axes`, `Shape`
/// and `DType` follow TensorFlow's documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// No annotation: any value, read with `value`, `value_or`, `opt` or `non_none` and
    /// converted by the builtin itself.
    Object,
    /// `TensorLike`: a tensor, Variable, number, bool or nested list of them (`tensor`).
    TensorLike,
    /// `int`: an int or bool, or an integer tensor of one element (`int`, `int_or`).
    Int,
    /// `int | None` (`opt_int`).
    OptInt,
    /// `float`: a number, or a tensor of one element (`float`, `float_or`).
    Float,
    /// `bool`: any value, by Python's truth rules (`bool_or`).
    Bool,
    /// `Axes`: `None` (every axis), an int, or a list or tuple of ints (`axes`).
    Axes,
    /// `Shape`: an int, a list or tuple of ints, or an integer tensor (`shape`, `dims`).
    Shape,
    /// `Shape | None` (`opt_shape`).
    OptShape,
    /// `DType`: a dtype or its name (`dtype`).
    DType,
    /// `DType | None` (`opt_dtype`, `index_dtype`).
    OptDType,
}

impl Ty {
    /// Each type with its annotation text.
    const TEXTS: [(Ty, &'static str); 10] = [
        (Ty::TensorLike, "TensorLike"),
        (Ty::Int, "int"),
        (Ty::OptInt, "int | None"),
        (Ty::Float, "float"),
        (Ty::Bool, "bool"),
        (Ty::Axes, "Axes"),
        (Ty::Shape, "Shape"),
        (Ty::OptShape, "Shape | None"),
        (Ty::DType, "DType"),
        (Ty::OptDType, "DType | None"),
    ];

    /// The annotation text (`int | None`); empty for [`Ty::Object`].
    pub fn text(self) -> &'static str {
        Ty::TEXTS.iter().find(|(t, _)| *t == self).map_or("", |(_, s)| s)
    }

    /// The annotation text, `object` for [`Ty::Object`] (for messages).
    fn text_or_object(self) -> &'static str {
        match self {
            Ty::Object => "object",
            t => t.text(),
        }
    }

    /// The type annotated `p[from..to]`. Panics (at compile time) on a name not in [`Ty::TEXTS`].
    const fn parse(p: &[u8], from: usize, to: usize) -> Ty {
        let mut k = 0;
        while k < Ty::TEXTS.len() {
            let t = Ty::TEXTS[k].1.as_bytes();
            if t.len() == to - from {
                let mut i = 0;
                while i < t.len() && t[i] == p[from + i] {
                    i += 1;
                }
                if i == t.len() {
                    return Ty::TEXTS[k].0;
                }
            }
            k += 1;
        }
        panic!("a parameter's annotation is not one of Ty::TEXTS")
    }
}

/// Where a parameter's name ends (at `:` or `=`), where its annotation ends (at ` =` or the
/// end) and whether it has a default, for the text `name[: Type][ = default]`.
const fn split(p: &str) -> (usize, usize, bool) {
    let b = p.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i] != b':' && b[i] != b'=' {
        i += 1;
    }
    let name = i;
    while i < b.len() && b[i] != b'=' {
        i += 1;
    }
    let mut ann = i;
    while ann > name && b[ann - 1] == b' ' {
        ann -= 1;
    }
    (name, ann, i < b.len())
}

/// Whether a parameter's text names a default (`axis=None`).
const fn has_default(p: &str) -> bool {
    split(p).2
}

/// A parameter's name: its text up to `:` or `=`.
fn name_of(p: &str) -> &str {
    &p[..split(p).0]
}

/// A parameter as `help()` prints it: its name and default, without the annotation
/// (`axis=None` for `axis: int | None = None`).
fn shown(p: &str) -> String {
    match p.split_once('=') {
        Some((_, default)) => format!("{}={}", name_of(p), default.trim_start()),
        None => name_of(p).to_string(),
    }
}

impl Signature {
    /// The parameter list `params` (see [`Signature`]). Checked when compiled: at most
    /// [`MAX_PARAMS`], one marker, no required positional parameter after one with a default.
    pub const fn new(params: &'static [&'static str]) -> Signature {
        assert!(params.len() <= MAX_PARAMS);
        let (mut i, mut required, mut marker, mut varargs, mut defaults) = (0, 0, None, false, false);
        let (mut kwargs, mut must, mut types) = (false, 0u16, [Ty::Object; MAX_PARAMS]);
        while i < params.len() {
            let p = params[i].as_bytes();
            let (name, ann, _) = split(params[i]);
            if name < p.len() && p[name] == b':' {
                let mut from = name + 1;
                while from < ann && p[from] == b' ' {
                    from += 1;
                }
                types[i] = Ty::parse(p, from, ann);
            }
            if p.len() > 2 && p[0] == b'*' && p[1] == b'*' {
                assert!(i + 1 == params.len());
                kwargs = true;
            } else if !p.is_empty() && p[0] == b'*' {
                assert!(marker.is_none() && (p.len() == 1 || p[1] != b'*'));
                marker = Some(i);
                varargs = p.len() > 1;
            } else if !has_default(params[i]) {
                must |= 1 << i;
                if marker.is_none() {
                    assert!(!defaults);
                    required += 1;
                }
            } else if marker.is_none() {
                defaults = true;
            }
            i += 1;
        }
        Signature { params, required, marker, varargs, kwargs, must, types }
    }

    /// How many parameters may be given by position.
    fn positional(&self) -> usize {
        self.marker.unwrap_or(self.params.len() - self.kwargs as usize)
    }

    /// The parameter names in order, without the marker.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.params.iter().filter(|p| !p.starts_with('*')).map(|p| name_of(p))
    }

    /// The index in `params` of the parameter called `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        // `name` alone or followed by its annotation or default (`axis` in "axis=None"); a
        // marker never matches.
        let named = |p: &str| {
            p.strip_prefix(name).is_some_and(|rest| rest.is_empty() || rest.starts_with(['=', ':']))
                && !p.starts_with('*')
        };
        self.params.iter().position(|p| named(p))
    }

    /// The declared type of the parameter at `index` in `params`.
    pub fn ty(&self, index: usize) -> Ty {
        self.types[index]
    }

    /// The heading `help()` prints: `name(x, axis=None, *, keepdims=False)`.
    pub fn heading(&self, name: &str) -> String {
        let params: Vec<String> = self.params.iter().map(|p| shown(p)).collect();
        format!("{name}({})", params.join(", "))
    }

    /// Binds a call's arguments to the parameters (CPython's rules and wording).
    ///
    /// Errors: TypeError for too many positional arguments, a repeated or
    /// unexpected keyword, or a missing required argument.
    pub fn bind<'a>(&'static self, rt: &'a mut Interp, args: &mut Args) -> R<Bound<'a>> {
        let n = self.positional();
        let mut vals: [Option<Value>; MAX_PARAMS] = Default::default();
        let (mut rest, mut rest_kw) = (Vec::new(), Vec::new());
        let given = args.pos.len();
        if given > n {
            if self.varargs {
                rest = args.pos.split_off(n);
            } else {
                // A builtin whose parameters are all keyword-only (`list.sort(*, key=None, …)`):
                // CPython's wording for one.
                if n == 0 && self.marker.is_some() {
                    bail!(Type, "{}() takes no positional arguments", args.fname);
                }
                let takes = if self.required == n {
                    format!("{n} positional argument{}", plural(n))
                } else {
                    format!("from {} to {n} positional arguments", self.required)
                };
                let was = if given == 1 { "was" } else { "were" };
                bail!(Type, "{}() takes {takes} but {given} {was} given", args.fname);
            }
        }
        for (slot, v) in vals.iter_mut().zip(args.pos.drain(..)) {
            *slot = Some(v);
        }
        for (k, v) in args.kw.drain(..) {
            match self.index(&k) {
                Some(i) if vals[i].is_some() => {
                    bail!(Type, "{}() got multiple values for argument '{}'", args.fname, k)
                }
                Some(i) => vals[i] = Some(v),
                None if self.kwargs => rest_kw.push((k, v)),
                // TF's ops take `name=` for the graph; eager code ignores it, and so does DGL
                // for every op called through `tf.` (docs/language.md "TensorFlow").
                None if &*k == "name" && rt.dialect == Dialect::Tf => {}
                None => {
                    let e = err!(Type, "{}() got an unexpected keyword argument '{}'", args.fname, k);
                    return Err(crate::runtime::suggest::with_hint(e, &k, self.names()));
                }
            }
        }
        for (range, what) in [(0..n, ""), (n..self.params.len(), "keyword-only ")] {
            let list: Vec<String> = range
                .filter(|&i| self.must & (1 << i) != 0 && vals[i].is_none())
                .map(|i| format!("'{}'", name_of(self.params[i])))
                .collect();
            if let Some((last, init)) = list.split_last() {
                // The wording of user functions (runtime/call.rs), which is CPython's without "positional".
                let names = if init.is_empty() { last.clone() } else { format!("{} and {last}", init.join(", ")) };
                bail!(
                    Type,
                    "{}() missing {} required {what}argument{}: {names}",
                    args.fname,
                    list.len(),
                    plural(list.len())
                );
            }
        }
        Ok(Bound { rt, fname: args.fname.clone(), sig: self, vals, rest, rest_kw })
    }
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
    /// The extra positional arguments of a signature with `*args`.
    pub rest: Vec<Value>,
    /// The unknown keyword arguments of a signature with `**kwargs`.
    pub rest_kw: Vec<(Rc<str>, Value)>,
}

impl Bound<'_> {
    /// Takes the argument for parameter `name`, declared as `ty` (`None` when it was not given).
    ///
    /// Errors: an internal error when the signature has no such parameter or declares it with
    /// another type (a bug in the builtin's declaration).
    fn take(&mut self, name: &str, ty: Ty) -> R<Option<Value>> {
        match self.sig.index(name) {
            Some(i) if self.sig.types[i] == ty => Ok(self.vals[i].take()),
            Some(i) => Err(err!(
                Runtime,
                "internal error: {}() reads '{name}' as {} but declares it {}",
                self.fname,
                ty.text_or_object(),
                self.sig.types[i].text_or_object()
            )),
            None => Err(err!(Runtime, "internal error: {}() has no parameter '{name}'", self.fname)),
        }
    }

    /// A required argument declared as `ty`.
    fn take_required(&mut self, name: &str, ty: Ty) -> R<Value> {
        match self.take(name, ty)? {
            Some(v) => Ok(v),
            None => Err(err!(Runtime, "internal error: {}() argument '{name}' read twice or not required", self.fname)),
        }
    }

    /// The argument for `name` declared as `ty`, with `None` read as not given.
    fn take_non_none(&mut self, name: &str, ty: Ty) -> R<Option<Value>> {
        Ok(self.take(name, ty)?.filter(|v| !matches!(v, Value::None)))
    }

    /// Takes the argument for the unannotated parameter `name` (`None` when it was not given).
    ///
    /// Errors: an internal error when the signature has no such parameter or annotates it.
    pub fn opt(&mut self, name: &str) -> R<Option<Value>> {
        self.take(name, Ty::Object)
    }

    /// The argument for `name`, with `None` read as not given (a parameter whose default is `None`).
    pub fn non_none(&mut self, name: &str) -> R<Option<Value>> {
        self.take_non_none(name, Ty::Object)
    }

    /// A required argument.
    pub fn value(&mut self, name: &str) -> R<Value> {
        self.take_required(name, Ty::Object)
    }

    /// The argument for `name`, or `default` when it was not given.
    pub fn value_or(&mut self, name: &str, default: Value) -> R<Value> {
        Ok(self.opt(name)?.unwrap_or(default))
    }

    /// A required tensor argument (`TensorLike`: numbers, nested lists and Variables convert).
    pub fn tensor(&mut self, name: &str) -> R<Tensor> {
        let v = self.take_required(name, Ty::TensorLike)?;
        self.rt.tensor_arg(&v)
    }

    /// A required `TensorLike` argument left unconverted, for a builtin that converts two
    /// together (`rt.tensor_pair`, where each operand's dtype is the other's hint).
    pub fn tensor_like(&mut self, name: &str) -> R<Value> {
        self.take_required(name, Ty::TensorLike)
    }

    /// A required int argument. Errors: TypeError naming the parameter.
    pub fn int(&mut self, name: &str) -> R<i64> {
        let v = self.take_required(name, Ty::Int)?;
        self.rt.int_arg(&v, name)
    }

    /// An int argument defaulting to `default` (`None` is a wrong type, as in Python).
    pub fn int_or(&mut self, name: &str, default: i64) -> R<i64> {
        match self.take(name, Ty::Int)? {
            Some(v) => self.rt.int_arg(&v, name),
            None => Ok(default),
        }
    }

    /// An int argument whose default is `None` (`int | None`).
    pub fn opt_int(&mut self, name: &str) -> R<Option<i64>> {
        match self.take_non_none(name, Ty::OptInt)? {
            Some(v) => self.rt.int_arg(&v, name).map(Some),
            None => Ok(None),
        }
    }

    /// A required number argument (`float`: a one-element tensor counts).
    pub fn float(&mut self, name: &str) -> R<f64> {
        let v = self.take_required(name, Ty::Float)?;
        self.rt.float_arg(&v, name)
    }

    /// A number argument defaulting to `default`.
    pub fn float_or(&mut self, name: &str, default: f64) -> R<f64> {
        match self.take(name, Ty::Float)? {
            Some(v) => self.rt.float_arg(&v, name),
            None => Ok(default),
        }
    }

    /// A truth-value argument defaulting to `default` (`bool`: any value, by Python's truth rules).
    pub fn bool_or(&mut self, name: &str, default: bool) -> R<bool> {
        match self.take(name, Ty::Bool)? {
            Some(v) => self.rt.bool_arg(&v),
            None => Ok(default),
        }
    }

    /// Reduction axes (`Axes`): `None` (every axis), an int, or a list/tuple of ints.
    pub fn axes(&mut self, name: &str) -> R<Option<Vec<i64>>> {
        let v = self.take(name, Ty::Axes)?;
        self.rt.axes_arg(v.as_ref())
    }

    /// A required shape argument (`Shape`: an int, a list/tuple of ints, or an int64 tensor).
    pub fn shape(&mut self, name: &str) -> R<Vec<i64>> {
        let v = self.take_required(name, Ty::Shape)?;
        self.rt.shape_arg(&v)
    }

    /// A shape argument whose default is `None` (`Shape | None`).
    pub fn opt_shape(&mut self, name: &str) -> R<Option<Vec<i64>>> {
        match self.take_non_none(name, Ty::OptShape)? {
            Some(v) => self.rt.shape_arg(&v).map(Some),
            None => Ok(None),
        }
    }

    /// A required shape for a new tensor (`Shape`): no negative entries, within the allocation budget.
    pub fn dims(&mut self, name: &str) -> R<Vec<usize>> {
        let v = self.take_required(name, Ty::Shape)?;
        self.rt.dims_arg(&v)
    }

    /// A required dtype argument (`DType`).
    pub fn dtype(&mut self, name: &str) -> R<DType> {
        let v = self.take_required(name, Ty::DType)?;
        self.rt.dtype_arg(&v)
    }

    /// An index dtype argument (argmax's `output_type`, `DType | None`): int64 or int32, or
    /// `default` when absent or `None`.
    ///
    /// Errors: ValueError for another dtype (TF's InvalidArgumentError), as `dtype_arg` otherwise.
    pub fn index_dtype(&mut self, name: &str, default: DType) -> R<DType> {
        match self.opt_dtype(name)? {
            None => Ok(default),
            Some(d) if d.is_int() => Ok(d),
            Some(d) => bail!(Value, "{}: {name} must be int32 or int64, got {d}", self.fname),
        }
    }

    /// A dtype argument whose default is `None` (`DType | None`).
    pub fn opt_dtype(&mut self, name: &str) -> R<Option<DType>> {
        match self.take_non_none(name, Ty::OptDType)? {
            Some(v) => self.rt.dtype_arg(&v).map(Some),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::value::Args;
    use std::cell::RefCell;
    use std::rc::Rc;

    fn interp() -> Interp {
        Interp::new(Rc::new(RefCell::new(Vec::<u8>::new())))
    }

    fn args(pos: Vec<Value>, kw: &[(&str, Value)]) -> Args {
        Args { this: None, pos, kw: kw.iter().map(|(k, v)| (Rc::from(*k), v.clone())).collect(), fname: "f".into() }
    }

    static SIG: Signature = Signature::new(&["a", "b=None", "c=None"]);
    static SIG_TYPED: Signature = Signature::new(&["a: int", "b: int | None = None", "c: int = None"]);
    static ALL: Signature = Signature::new(&["a", "b", "c"]);
    static VAR: Signature = Signature::new(&["*args", "sep=' '"]);
    static KW: Signature = Signature::new(&["a", "b", "*", "c=False", "d"]);
    static TYPED: Signature =
        Signature::new(&["a: int", "b: int | None = None", "c: int = 0", "*", "d: TensorLike", "e: bool = False"]);

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
    fn keyword_only_parameters_are_given_by_keyword() {
        let one = || Value::Int(1);
        assert_eq!(
            bind_error(&KW, args(vec![one(), one(), one()], &[("d", one())])),
            "TypeError: f() takes 2 positional arguments but 3 were given"
        );
        assert_eq!(
            bind_error(&KW, args(vec![one(), one()], &[])),
            "TypeError: f() missing 1 required keyword-only argument: 'd'"
        );
        assert_eq!(bind_error(&KW, args(vec![one(), one()], &[("d", one()), ("c", one())])), "bound");
        assert_eq!(bind_error(&KW, args(vec![one()], &[("b", one()), ("d", one())])), "bound");
    }

    #[test]
    fn a_signature_reads_its_python_text() {
        assert_eq!((SIG.required, SIG.names().collect::<Vec<_>>()), (1, vec!["a", "b", "c"]));
        assert_eq!((VAR.required, VAR.names().collect::<Vec<_>>()), (0, vec!["sep"]));
        assert_eq!(KW.heading("f"), "f(a, b, *, c=False, d)");
        assert_eq!(VAR.heading("print"), "print(*args, sep=' ')");
        assert_eq!(TYPED.heading("f"), "f(a, b=None, c=0, *, d, e=False)");
        let types: Vec<&str> = (0..TYPED.params.len()).map(|i| TYPED.ty(i).text()).collect();
        assert_eq!(types, ["int", "int | None", "int", "", "TensorLike", "bool"]);
        assert_eq!(TYPED.names().collect::<Vec<_>>(), ["a", "b", "c", "d", "e"]);
        assert_eq!((TYPED.required, TYPED.index("d")), (1, Some(4)));
    }

    #[test]
    fn a_getter_reads_only_the_type_its_parameter_declares() {
        let mut rt = interp();
        let mut a = args(vec![Value::Int(1)], &[("d", Value::Float(2.0))]);
        let mut b = TYPED.bind(&mut rt, &mut a).expect("binds");
        let e = b.value("a").expect_err("a is declared int");
        assert_eq!(e.message(), "internal error: f() reads 'a' as object but declares it int");
        let e = b.opt_int("c").expect_err("c is declared int, not int | None");
        assert_eq!(e.message(), "internal error: f() reads 'c' as int | None but declares it int");
        assert_eq!((b.int("a").expect("int"), b.int_or("c", 7).expect("default")), (1, 7));
        assert_eq!(b.tensor("d").expect("a number converts").data.shape(), &[] as &[usize]);
        // A required keyword-only parameter is named without its annotation.
        let e = TYPED.bind(&mut rt, &mut args(vec![Value::Int(1)], &[])).err().expect("d is missing");
        assert_eq!(e.message(), "f() missing 1 required keyword-only argument: 'd'");
    }

    #[test]
    fn getters_follow_the_parameters_default() {
        let mut rt = interp();
        let mut a = args(vec![Value::Int(1)], &[("b", Value::None), ("c", Value::None)]);
        let mut b = SIG_TYPED.bind(&mut rt, &mut a).expect("binds");
        assert_eq!(b.int("a").expect("an int"), 1);
        // `b=None` where the default is None reads as not given; where the default is a value it is a wrong type.
        assert_eq!(b.opt_int("b").expect("None is absent"), None);
        let e = b.int_or("c", 0).expect_err("None is not an int");
        assert_eq!(e.message(), "c must be an int, not NoneType");
        // Each argument is taken once; a name the signature lacks is the builtin's bug, not a panic.
        assert!(b.int("a").expect_err("taken").message().starts_with("internal error"));
        assert!(b.opt("zzz").expect_err("no such parameter").message().starts_with("internal error"));
    }
}
