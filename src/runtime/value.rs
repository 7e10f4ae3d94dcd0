//! Runtime values (docs/language.md §3). Every variant is cheap to clone: scalars
//! by value, everything else behind a reference count.

use super::Interp;
use crate::autodiff::{AccRef, Tape, Variable};
use crate::error::{ErrorKind, Exc, R};
use crate::intern::Sym;
use crate::source::SourceId;
use crate::syntax::ast::{CellInit, FuncDef, Layout};
use crate::syntax::resolve::GlobalNames;
use crate::tensor::{DType, Tensor};
use indexmap::IndexMap;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::rc::Rc;

/// A runtime value.
#[derive(Clone, Debug)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A complex number, its real and imaginary parts (`5 + 4j`; runtime/complex.rs).
    Complex(f64, f64),
    Str(crate::text::Text),
    List(Rc<RefCell<Vec<Value>>>),
    Tuple(Rc<[Value]>),
    Dict(Rc<RefCell<Dict>>),
    /// `range(start, stop, step)` as `[start, stop, step]`, behind a pointer so that
    /// a rare value does not widen every other (see the size assertion below).
    Range(Rc<[i64; 3]>),
    /// `start:stop:step` inside an index (each `None` or an int).
    Slice(Rc<[Value; 3]>),
    /// `...` inside an index.
    Ellipsis,
    Func(Rc<Function>),
    Builtin(Rc<Builtin>),
    /// A function bound to its receiver (`obj.method`).
    Method(Rc<(Value, Value)>),
    Class(Rc<Class>),
    Instance(Rc<Instance>),
    Module(Rc<Module>),
    Tensor(Tensor),
    Variable(Rc<Variable>),
    Tape(Rc<RefCell<Tape>>),
    /// The context manager of `tape.stop_recording()`.
    StopRecording(Rc<RefCell<Tape>>),
    /// A `ForwardAccumulator` (forward-mode differentiation).
    Accumulator(AccRef),
    DType(DType),
    /// A NumPy array's dtype (`a.dtype`): the same dtype, printed as NumPy's (`dtype('float64')`,
    /// docs/language.md "NumPy arrays"), where a tensor's prints as TensorFlow's.
    NpDType(DType),
    /// A builtin exception class such as `ValueError` (the tree of docs/language.md "Exceptions").
    ErrorType(ErrorKind),
    /// A raised (or constructed) error, as bound by `except … as e`.
    Exception(Rc<Exc>),
    /// `property(fget, fset, fdel)`: read as an attribute, computed by calling the getter;
    /// assigning calls the setter, `del` the deleter (`None` for one not given).
    Property(Rc<[Value; 3]>),
    /// `super()`: attribute lookups start after `.0` in the class chain of `.1`.
    Super(Rc<(Rc<Class>, Value)>),
    /// An open text file or standard stream (`open(...)`, `sys.stdout`).
    File(Rc<super::file::FileObj>),
    /// `{1, 2}`, `set(xs)`: insertion-ordered (see [`Set`]).
    Set(Rc<RefCell<Set>>),
    /// `frozenset(xs)`: a set that is never changed after it is made, so it is hashable
    /// (held as a set is, so that the read-only set methods serve both).
    FrozenSet(Rc<RefCell<Set>>),
    /// What calling a generator function (or a generator expression) makes.
    Generator(Rc<super::generator::Generator>),
    /// A NumPy array or scalar (`t.numpy()`, `np.array(...)`; runtime/numpy.rs).
    NdArray(Rc<super::numpy::NdArray>),
    /// A `TensorShape` (`x.shape`): a tuple of ints (`None` for an unknown dimension) with
    /// TF's methods, equal to a tuple or a list of the same entries (docs/language.md §4).
    /// Wherever a tuple is read (indexing, unpacking, `len`, iteration, hashing, a shape
    /// argument), it reads as the tuple of the same entries.
    Shape(Rc<[Value]>),
}

// Values are copied on every variable read, argument and list access, so their size
// matters. 24 bytes: a tag plus the widest payloads, the 16-byte `Tensor` (an id and a
// pointer) and the fat pointers `Rc<str>`/`Rc<[Value]>`. `Range` is boxed to get here
// from 32. Reaching starlark's 16 would need thin pointers for strings and tuples and
// `Tensor` behind one more `Rc` (an allocation per op result): not done.
const _: () = assert!(std::mem::size_of::<Value>() == 24);

/// A dict: insertion-ordered, keyed by hashable values.
pub type Dict = IndexMap<HashKey, (Value, Value)>;

/// A set: keyed as dict keys are ([`HashKey`], so unhashable elements are a TypeError),
/// each with the first element object added for it.
///
/// Order: DGL iterates (and prints) a set in insertion order, where CPython's order
/// follows the elements' hashes (for small ints: ascending, modulo the table size).
/// So the two agree when elements were added in that order; a program that needs a
/// fixed order whatever the elements uses `sorted(s)`.
pub type Set = IndexMap<HashKey, Value>;

/// The one way a dict entry is written: `d[key] = value`. An existing equal key
/// keeps its original key object (Python: `{1: 'a', 1.0: 'b'}` is `{1: 'b'}`).
///
/// Errors: ValueError or MemoryError when a new entry would take the dict past the
/// allocation budget (crate::tensor::budget::grow_map).
pub fn dict_store(d: &mut Dict, h: HashKey, key: Value, value: Value) -> crate::error::R<()> {
    match d.get_mut(&h) {
        Some(slot) => slot.1 = value,
        None => {
            crate::tensor::budget::grow_map("a dict", d.len(), d.capacity(), DICT_ENTRY_BYTES)?;
            d.insert(h, (key, value));
        }
    }
    Ok(())
}

/// Bytes one dict entry takes (its key, hash and two values, and its slot in the index table).
pub const DICT_ENTRY_BYTES: usize = std::mem::size_of::<(HashKey, (Value, Value))>() + 16;

/// Bytes one set entry takes.
pub const SET_ENTRY_BYTES: usize = std::mem::size_of::<(HashKey, Value)>() + 16;

/// The hashable projection of a key (Python's hash/eq, with objects by identity).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HashKey {
    None,
    Int(i64),
    Float(u64),
    /// A complex number with a nonzero imaginary part: the keys of its two parts (one with a
    /// zero imaginary part is its real part's key, as it is equal to that float).
    Complex(Box<[HashKey; 2]>),
    Str(crate::text::Text),
    Tuple(Vec<HashKey>),
    /// A frozenset's elements, in an order that does not depend on insertion order.
    Frozen(Vec<HashKey>),
    Id(usize),
}

impl HashKey {
    /// Errors: TypeError for unhashable values (lists, dicts).
    pub fn of(v: &Value) -> R<HashKey> {
        Ok(match v {
            Value::None => HashKey::None,
            Value::Bool(b) => HashKey::Int(*b as i64),
            Value::Int(i) => HashKey::Int(*i),
            // Every integral float in [-2^63, 2^63) equals exactly one int, and hashes as it.
            Value::Float(f)
                if f.fract() == 0.0 && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(f) =>
            {
                HashKey::Int(*f as i64)
            }
            Value::Float(f) => HashKey::Float(f.to_bits()),
            Value::Complex(re, im) if *im == 0.0 => HashKey::of(&Value::Float(*re))?,
            Value::Complex(re, im) => {
                HashKey::Complex(Box::new([HashKey::of(&Value::Float(*re))?, HashKey::of(&Value::Float(*im))?]))
            }
            Value::Str(s) => HashKey::Str(s.clone()),
            Value::Tuple(xs) | Value::Shape(xs) => HashKey::Tuple(xs.iter().map(HashKey::of).collect::<R<_>>()?),
            Value::List(_) | Value::Dict(_) | Value::Set(_) => {
                return Err(crate::err!(Type, "unhashable type: '{}'", v.type_name()))
            }
            Value::DType(d) | Value::NpDType(d) => HashKey::Str(d.name().into()),
            Value::FrozenSet(s) => HashKey::frozen(s.borrow().keys().cloned().collect()),
            other => HashKey::Id(other.identity()),
        })
    }
}

impl HashKey {
    /// The key of a frozenset with these element keys: equal sets give equal keys
    /// whatever order their elements were added in.
    pub fn frozen(mut keys: Vec<HashKey>) -> HashKey {
        use std::hash::{BuildHasher, Hash, Hasher};
        let hash = |k: &HashKey| {
            let mut h = rustc_hash::FxBuildHasher.build_hasher();
            k.hash(&mut h);
            h.finish()
        };
        keys.sort_by(|a, b| hash(a).cmp(&hash(b)).then_with(|| format!("{a:?}").cmp(&format!("{b:?}"))));
        HashKey::Frozen(keys)
    }
}

/// Whose rules a native call follows where DGL's and another library's differ
/// (docs/language.md §4): the dtype a Python number or list converts to, and the dtypes of
/// shape results. A builtin reached through `import tensorflow as tf` follows TF's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Dialect {
    /// DGL's own: Python numbers and lists become float32, shapes int64.
    #[default]
    Dgl,
    /// TensorFlow's: Python ints become int32 (int64 past its range), floats float32, bools
    /// bool; `tf.shape`, `tf.size` and `tf.rank` are int32.
    Tf,
    /// NumPy's: Python ints become int64, floats float64, bools bool, and the result is a
    /// NumPy value (a tensor result becomes an array, a scalar when it has no axes).
    NumPy,
}

/// A native function: receives the interpreter and its arguments.
pub type NativeFn = fn(&mut Interp, &mut Args) -> R<Value>;

/// A function implemented in Rust, or a decorator's wrapper.
#[derive(Debug)]
pub struct Builtin {
    pub name: Rc<str>,
    pub kind: BuiltinKind,
}

#[derive(Debug)]
pub enum BuiltinKind {
    /// A native function, with the library rules it was reached by (`tf.add` is `add` under
    /// [`Dialect::Tf`]).
    Native(&'static super::native::Native, Dialect),
    /// A native method bound to its receiver, passed as `args.this`.
    Method(Value, &'static super::native::Native),
    /// The function returned by `custom_gradient(f)`.
    CustomGradient(Value),
    /// The function returned by `recompute_grad(f, check)`; `__wrapped__` is `f`; `check`
    /// (`None`: the interpreter's default) turns the determinism check on or off.
    Recompute(Value, Option<bool>),
    /// The function returned by `grad_pass_through(f)`.
    PassThrough(Value),
    /// `staticmethod(f)`: read through a class or an instance, it is `f` itself.
    StaticMethod(Value),
    /// `classmethod(f)`: read through a class or an instance, `f` bound to the class.
    ClassMethod(Value),
    /// The type object `type(x)` makes for a kind of value no builtin names (`NoneType`,
    /// `function`, `module`…; [`UNNAMED_TYPES`]). Calling `NoneType()` gives `None`; the
    /// others make no instances.
    Type,
}

/// A user function or lambda: its definition, evaluated defaults and the
/// cells it closes over.
#[derive(Debug)]
pub struct Function {
    pub def: Rc<FuncDef>,
    /// The function's name, for tracebacks.
    pub name: Rc<str>,
    /// One entry per parameter: the evaluated default, if any.
    pub defaults: Vec<Option<Value>>,
    /// Every parameter is a plain one (no `*args`, keyword-only or `**kwargs`).
    pub positional_only: bool,
    /// The enclosing scopes' cells the body uses, in the order of the
    /// `CellInit::Free` entries of its layout (closures capture by reference).
    pub captured: Vec<CellRef>,
    /// The globals of the module that defined it.
    pub globals: Rc<Globals>,
    pub source: SourceId,
    /// The class whose body defined this function (for `super()`).
    pub owner: RefCell<Option<std::rc::Weak<Class>>>,
}

#[derive(Debug)]
pub struct Class {
    pub name: Rc<str>,
    pub base: Option<Rc<Class>>,
    pub attrs: RefCell<FxHashMap<Sym, Value>>,
    /// For exception classes (derived from `Exception` or a builtin kind): the kind raised.
    pub error_kind: Option<ErrorKind>,
}

impl Class {
    /// Looks `name` up in this class and its bases.
    pub fn lookup(&self, name: Sym) -> Option<Value> {
        if let Some(v) = self.attrs.borrow().get(&name) {
            return Some(v.clone());
        }
        self.base.as_ref().and_then(|b| b.lookup(name))
    }

    pub fn is_subclass_of(self: &Rc<Class>, other: &Rc<Class>) -> bool {
        Rc::ptr_eq(self, other) || self.base.as_ref().is_some_and(|b| b.is_subclass_of(other))
    }
}

#[derive(Debug)]
pub struct Instance {
    pub class: Rc<Class>,
    /// In first-assignment order, as Python's `__dict__` (`vars(obj)` and Keras's layer tracking read it).
    pub attrs: RefCell<IndexMap<Sym, Value, rustc_hash::FxBuildHasher>>,
}

#[derive(Debug)]
pub struct Module {
    pub name: Rc<str>,
    pub globals: Rc<Globals>,
    /// The module's docstring (`module.__doc__`), if its source starts with one.
    pub doc: Option<Rc<str>>,
    /// How a module built in Rust answers for names it has not bound: `None` for
    /// modules written in DGL, whose unbound names are plain AttributeErrors.
    pub hooks: Option<&'static ModuleHooks>,
}

impl Module {
    /// A module without hooks (a file's, the stdlib's, a native one's).
    pub fn new(name: &str, globals: Rc<Globals>, doc: Option<Rc<str>>) -> Module {
        Module { name: name.into(), globals, doc, hooks: None }
    }

    /// Every name the module answers for: its bound names, then the ones its hooks
    /// bind on first use (for `dir`, `help` and "did you mean" hints).
    pub fn names(&self) -> Vec<String> {
        let mut out: Vec<String> = self.globals.bound().iter().map(|(n, _)| n.to_string()).collect();
        if let Some(h) = self.hooks {
            out.extend((h.unbound)(self).into_iter().map(str::to_string));
        }
        out
    }
}

/// A namespace whose names are resolved on first use (TF's `tf.keras.layers.Dense` loads the
/// `nn` stdlib only when it is read) and whose missing names say what is missing (`tf.signal`:
/// "DGL has no tf.signal ..."). Installed by the builtins layer.
pub struct ModuleHooks {
    /// The value of a name the module has not bound: bound now and returned, or the
    /// AttributeError for a name it lacks.
    pub missing: fn(&mut Interp, &Module, Sym) -> R<Value>,
    /// The names `missing` would bind (not yet bound ones may be among them).
    pub unbound: fn(&Module) -> Vec<&'static str>,
}

impl std::fmt::Debug for ModuleHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ModuleHooks")
    }
}

/// A variable shared between frames (a closure's captured variable); empty while unbound.
pub type CellRef = Rc<RefCell<Option<Value>>>;

/// One entry of a module's global table.
#[derive(Debug, Default)]
pub struct Global {
    /// The module's binding, if bound.
    pub value: Option<Value>,
    /// The builtin of the same name, read while the module's is unbound.
    pub builtin: Option<Value>,
}

/// A module's globals: names fixed to indexes by the resolver
/// ([`GlobalNames`]), values in a table the evaluator indexes.
#[derive(Debug, Default)]
pub struct Globals {
    pub names: RefCell<GlobalNames>,
    pub slots: RefCell<Vec<Global>>,
}

impl Globals {
    /// The module's binding of `name` (builtins aside), as `module.name` reads it.
    pub fn get(&self, name: Sym) -> Option<Value> {
        let i = self.names.borrow().get(name)?;
        self.slots.borrow().get(i as usize).and_then(|g| g.value.clone())
    }

    /// Binds `name` to `v`, as an assignment at the module's top level would.
    pub fn set(&self, name: Sym, v: Value) {
        let i = self.names.borrow_mut().slot(name) as usize;
        let mut slots = self.slots.borrow_mut();
        if slots.len() <= i {
            slots.resize_with(i + 1, Default::default);
        }
        slots[i].value = Some(v);
    }

    /// Every bound name with its value, in index order.
    pub fn bound(&self) -> Vec<(Sym, Value)> {
        let names = self.names.borrow();
        let slots = self.slots.borrow();
        names.names().iter().zip(slots.iter()).filter_map(|(n, g)| Some((*n, g.value.clone()?))).collect()
    }
}

/// The variables of running code: a module body, a function call or a class
/// body. The resolver numbers its locals and cells ([`Layout`]).
#[derive(Debug)]
pub struct Frame {
    pub locals: Vec<Option<Value>>,
    pub cells: Vec<CellRef>,
    pub globals: Rc<Globals>,
    /// A class body's namespace.
    pub class_ns: Option<FxHashMap<Sym, Value>>,
    /// The function whose call this is (for `super()`).
    pub func: Option<Rc<Function>>,
}

impl Frame {
    /// A frame of `layout`; `captured` supplies its `CellInit::Free` cells in order.
    pub fn new(layout: &Layout, captured: &[CellRef], globals: Rc<Globals>) -> Frame {
        let mut free = captured.iter();
        let cells = layout
            .cells
            .iter()
            .map(|c| match c {
                CellInit::Own => CellRef::default(),
                CellInit::Free(_) => free.next().cloned().unwrap_or_default(),
            })
            .collect();
        Frame { locals: vec![None; layout.locals as usize], cells, globals, class_ns: None, func: None }
    }

    /// The cells a function or class of `layout` defined in this frame captures.
    pub fn capture(&self, layout: &Layout) -> Vec<CellRef> {
        layout
            .cells
            .iter()
            .filter_map(|c| match c {
                CellInit::Free(k) => Some(self.cells.get(*k as usize).cloned().unwrap_or_default()),
                CellInit::Own => None,
            })
            .collect()
    }
}

/// Arguments of a native call: positional, keyword, and the bound receiver.
#[derive(Debug, Default)]
pub struct Args {
    pub this: Option<Value>,
    pub pos: Vec<Value>,
    pub kw: Vec<(Rc<str>, Value)>,
    /// The function's name, for messages.
    pub fname: Rc<str>,
}

/// `NotImplemented.__repr__()`.
static NOT_IMPLEMENTED_REPR: super::native::Native =
    super::native::Native::new("__repr__", &[], |_, _| Ok(Value::str("NotImplemented")));

impl Value {
    /// The Python number of one tensor element, exactly: an int64 element is an `int`
    /// over its whole range (as NumPy's `.item()`), a bool a `bool`, a float a `float`.
    pub fn from_elem(e: crate::tensor::Elem) -> Value {
        match e {
            crate::tensor::Elem::Int(i) => Value::Int(i),
            crate::tensor::Elem::Bool(b) => Value::Bool(b),
            crate::tensor::Elem::Float(x) => Value::Float(x),
        }
    }

    /// An array's elements as nested lists of Python numbers (a number for a scalar):
    /// `tolist()` of a tensor or a NumPy value.
    ///
    /// Errors: MemoryError when the lists (a value an element) pass the memory limit.
    pub fn nested_lists(a: &crate::tensor::Array) -> crate::error::R<Value> {
        crate::tensor::budget::check_bytes(
            "a list",
            a.len() as u128,
            std::mem::size_of::<Value>() + std::mem::size_of::<crate::tensor::Elem>(),
        )?;
        fn build(shape: &[usize], vals: &[crate::tensor::Elem]) -> Value {
            match shape.split_first() {
                None => vals.first().map_or(Value::Float(0.0), |&e| Value::from_elem(e)),
                Some((&n, rest)) => {
                    let stride: usize = rest.iter().product();
                    Value::list((0..n).map(|i| build(rest, &vals[i * stride..(i + 1) * stride])).collect())
                }
            }
        }
        Ok(build(a.shape(), &a.elems()))
    }

    pub fn str(s: &str) -> Value {
        Value::Str(s.into())
    }

    pub fn list(xs: Vec<Value>) -> Value {
        Value::List(Rc::new(RefCell::new(xs)))
    }

    pub fn tuple(xs: Vec<Value>) -> Value {
        Value::Tuple(xs.into())
    }

    pub fn native(name: &str, f: &'static super::native::Native) -> Value {
        Value::Builtin(Rc::new(Builtin { name: name.into(), kind: BuiltinKind::Native(f, Dialect::Dgl) }))
    }

    /// The Python-style type name used in messages.
    pub fn type_name(&self) -> String {
        match self {
            Value::None => "NoneType".into(),
            Value::Bool(_) => "bool".into(),
            Value::Int(_) => "int".into(),
            Value::Float(_) => "float".into(),
            Value::Complex(..) => "complex".into(),
            Value::Str(_) => "str".into(),
            Value::List(_) => "list".into(),
            Value::Tuple(_) => "tuple".into(),
            Value::Shape(_) => "TensorShape".into(),
            Value::Dict(_) => "dict".into(),
            Value::Range(..) => "range".into(),
            Value::Slice(_) => "slice".into(),
            Value::Ellipsis => "ellipsis".into(),
            Value::Func(_) | Value::Builtin(_) => "function".into(),
            Value::Method(_) => "method".into(),
            Value::Class(_) => "type".into(),
            Value::Instance(i) => i.class.name.to_string(),
            Value::Module(_) => "module".into(),
            Value::Tensor(_) => "Tensor".into(),
            Value::Variable(_) => "Variable".into(),
            Value::Tape(_) => "GradientTape".into(),
            Value::StopRecording(_) => "stop_recording".into(),
            Value::Accumulator(_) => "ForwardAccumulator".into(),
            Value::DType(_) | Value::NpDType(_) => "dtype".into(),
            Value::ErrorType(_) => "type".into(),
            Value::Exception(e) => e.kind().name().into(),
            Value::Property(_) => "property".into(),
            Value::Super(_) => "super".into(),
            Value::File(_) => "TextIOWrapper".into(),
            Value::Set(_) => "set".into(),
            Value::FrozenSet(_) => "frozenset".into(),
            Value::Generator(g) => g.type_name().into(),
            Value::NdArray(n) => n.type_name(),
        }
    }

    /// An address for identity (`is`, object dict keys).
    pub fn identity(&self) -> usize {
        match self {
            Value::List(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Dict(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Tuple(x) | Value::Shape(x) => x.as_ptr() as usize,
            Value::Str(x) => x.address(),
            Value::Func(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Builtin(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Method(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Class(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Instance(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Module(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Tensor(t) => t.id as usize ^ (Rc::as_ptr(&t.data) as *const u8 as usize),
            Value::Variable(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Tape(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Accumulator(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Exception(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Property(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Super(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Slice(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::File(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Set(x) | Value::FrozenSet(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::Generator(x) => Rc::as_ptr(x) as *const u8 as usize,
            Value::NdArray(x) => Rc::as_ptr(x) as *const u8 as usize,
            _ => 0,
        }
    }

    /// Python's `is`.
    pub fn is(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
            (Value::StopRecording(a), Value::StopRecording(b)) => Rc::ptr_eq(a, b),
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Complex(a, b), Value::Complex(c, d)) => a.to_bits() == c.to_bits() && b.to_bits() == d.to_bits(),
            (Value::DType(a), Value::DType(b)) | (Value::NpDType(a), Value::NpDType(b)) => a == b,
            (Value::ErrorType(a), Value::ErrorType(b)) => a == b,
            (Value::Range(a), Value::Range(b)) => a == b,
            (Value::Tensor(a), Value::Tensor(b)) => a.id == b.id && Rc::ptr_eq(&a.data, &b.data),
            (a, b) => {
                std::mem::discriminant(a) == std::mem::discriminant(b)
                    && a.identity() == b.identity()
                    && a.identity() != 0
            }
        }
    }
}

/// Builtins whose value also names a type (for `isinstance`, `type`, `repr`).
pub const TYPE_NAMES: &[&str] = &[
    "int",
    "float",
    "complex",
    "str",
    "bool",
    "list",
    "tuple",
    "dict",
    "Variable",
    "Tensor",
    "range",
    "set",
    "frozenset",
    "GradientTape",
    "ForwardAccumulator",
    "type",
    "property",
    // TF's TensorShape (builtins/tensor_shape.rs: its constructor is its type).
    "TensorShape",
];

/// Types that no builtin name stands for, whose objects (`BuiltinKind::Type`) `type(x)`
/// makes on demand ([`Interp::type_objects`]): they print as `<class 'NAME'>` as CPython's do.
pub const UNNAMED_TYPES: &[&str] = &[
    "NoneType",
    "function",
    "builtin_function_or_method",
    "method",
    "module",
    "slice",
    "ellipsis",
    "generator",
    "dtype",
    "super",
    "TextIOWrapper",
    "stop_recording",
    // NumPy's array and scalar types (runtime/numpy.rs).
    "ndarray",
    "float16",
    "float32",
    "float64",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
];

/// The [`UNNAMED_TYPES`] that are NumPy's (`type(a)` of an array prints `<class 'numpy.ndarray'>`).
pub const NUMPY_TYPES: &[&str] =
    &["ndarray", "float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64"];

/// Whether the builtin `b` is a type object: a builtin type (`int`, `Tensor`) or one
/// that `type(x)` made for an unnamed type (`NoneType`, `function`).
pub fn is_type_object(b: &Builtin) -> bool {
    matches!(b.kind, BuiltinKind::Type) || TYPE_NAMES.contains(&b.name.as_ref())
}

/// The user exception instance an error carries, if one was raised (`raise MyError(…)`).
pub fn raised_instance(e: &Exc) -> Option<&Value> {
    e.0.instance.as_ref().and_then(|r| r.value.downcast_ref::<Value>())
}

/// Makes `instance` (of the user exception class `class`) the instance `e` carries.
pub fn set_raised_instance(e: &mut Exc, class: &Class, instance: Value) {
    e.0.instance = Some(crate::error::Raised { class_name: class.name.clone(), value: Rc::new(instance) });
}

/// The value `except … as e` binds: the raised instance, or the builtin error value.
pub fn raised_value(e: &Exc) -> Value {
    match raised_instance(e) {
        Some(v) => v.clone(),
        None => Value::Exception(Rc::new(e.clone())),
    }
}

/// The `args` of a builtin error value: what Python code constructed it with
/// (`KeyError('k')`), or `(message,)` for an error DGL raised itself.
pub fn exception_args(e: &Exc) -> Vec<Value> {
    match e.0.args.as_ref().and_then(|a| a.downcast_ref::<Value>()) {
        Some(Value::Tuple(t)) => t.to_vec(),
        _ => vec![Value::str(e.message())],
    }
}

/// Records the arguments a builtin error was constructed with (see [`exception_args`]).
pub fn set_exception_args(e: &mut Exc, args: Vec<Value>) {
    e.0.args = Some(Rc::new(Value::tuple(args)));
}

/// The one `NotImplemented` object: an instance of a class `NotImplementedType` whose repr is
/// its name. Made once per interpreter; compared by identity ([`Interp::is_not_implemented`]).
pub fn not_implemented_value() -> Value {
    let class = Class {
        name: "NotImplementedType".into(),
        base: None,
        attrs: RefCell::new(FxHashMap::default()),
        error_kind: None,
    };
    class
        .attrs
        .borrow_mut()
        .insert(crate::intern::intern("__repr__"), NOT_IMPLEMENTED_REPR.value_named("NotImplementedType.__repr__"));
    Value::Instance(Rc::new(Instance { class: Rc::new(class), attrs: RefCell::new(IndexMap::default()) }))
}

impl Value {
    /// The elements of a set or a frozenset.
    pub fn set_items(&self) -> Option<&Rc<RefCell<Set>>> {
        match self {
            Value::Set(s) | Value::FrozenSet(s) => Some(s),
            _ => None,
        }
    }
}
