//! Attributes and methods of builtin values: tensors, Variables, tapes,
//! lists, dicts, strings (docs/language.md §2–§5).
//!
//! Each builtin type has one table from attribute name to what it means,
//! built once per thread (names are interned per thread), so reading
//! `xs.append` is one hash lookup on the interned name, not a string match.

use super::numbers;
use super::{receiver, Native, Signature, NO_ARGS};
use crate::bail;
use crate::error::R;
use crate::intern::{intern, Sym};
use crate::runtime::index::tensor_shape_value;
use crate::runtime::value::{Args, Builtin, BuiltinKind, Value};
use crate::runtime::Interp;
use crate::tensor::{Array, Tensor};
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// What an attribute name means on one builtin type.
#[derive(Clone, Copy)]
enum Attr {
    /// A method: reading it binds the receiver (`xs.append`).
    Method(&'static Native),
    /// A computed attribute (`t.shape`); `None` when this value has no such attribute.
    Get(fn(&Value) -> Option<Value>),
}

/// One type's attributes by interned name, each with its name as methods report it.
type Table = FxHashMap<Sym, (Rc<str>, Attr)>;

/// The builtin types that have attributes.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Tensor,
    Variable,
    Tape,
    Accumulator,
    List,
    Dict,
    Str,
    Builtin,
    Exception,
    DType,
    ErrorType,
    File,
    Set,
    FrozenSet,
    Int,
    Float,
    Complex,
    Tuple,
    Shape,
    Range,
    Slice,
    Property,
    Generator,
}

/// The attribute tables of every builtin type, indexed by [`Kind`] (`Generator` is the last kind).
struct Tables([Table; Kind::Generator as usize + 1]);

thread_local! {
    static TABLES: Tables = Tables::build();
}

const TENSOR: &[(&str, Attr)] = &[
    (
        "shape",
        Attr::Get(|v| {
            let t = tensor_of(v)?;
            // A traced input of a signature with unknown sizes shows them (runtime/trace.rs).
            if let Some(d) = crate::runtime::trace::shown_shape(&t) {
                return Some(Value::Shape(d.iter().map(|x| x.map_or(Value::None, |n| Value::Int(n as i64))).collect()));
            }
            Some(tensor_shape_value(t.shape()))
        }),
    ),
    ("dtype", Attr::Get(|v| Some(Value::DType(tensor_of(v)?.dtype())))),
    ("ndim", Attr::Get(|v| Some(Value::Int(tensor_of(v)?.shape().len() as i64)))),
    // The one device DGL computes on, named as TF names the CPU it places an eager op on.
    ("device", Attr::Get(|v| tensor_of(v).map(|_| Value::str("/job:localhost/replica:0/task:0/device:CPU:0")))),
    ("numpy", Attr::Method(&TENSOR_NUMPY)),
    ("tolist", Attr::Method(&TENSOR_TOLIST)),
    ("item", Attr::Method(&TENSOR_ITEM)),
];

/// A Variable has these and every tensor attribute (read from its current value).
const VARIABLE: &[(&str, Attr)] = &[
    ("name", Attr::Get(|v| Some(var_of(v)?.shown_name().map_or(Value::None, |n| Value::Str(n.into()))))),
    ("trainable", Attr::Get(|v| Some(Value::Bool(var_of(v)?.trainable)))),
    ("assign", Attr::Method(&VARIABLE_ASSIGN)),
    ("assign_add", Attr::Method(&VARIABLE_ASSIGN_ADD)),
    ("assign_sub", Attr::Method(&VARIABLE_ASSIGN_SUB)),
    ("read_value", Attr::Method(&VARIABLE_READ_VALUE)),
    ("value", Attr::Method(&VARIABLE_VALUE)),
];

const TAPE: &[(&str, Attr)] = &[
    ("watch", Attr::Method(&super::tape_methods::TAPE_WATCH)),
    ("gradient", Attr::Method(&super::tape_methods::TAPE_GRADIENT)),
    ("jacobian", Attr::Method(&super::tape_methods::TAPE_JACOBIAN)),
    ("batch_jacobian", Attr::Method(&super::tape_methods::TAPE_BATCH_JACOBIAN)),
    ("stats", Attr::Method(&super::tape_methods::TAPE_STATS)),
    ("suggest_checkpoints", Attr::Method(&super::checkpoint_tools::TAPE_SUGGEST_CHECKPOINTS)),
    ("watched_variables", Attr::Method(&super::tape_methods::TAPE_WATCHED_VARIABLES)),
    ("stop_recording", Attr::Method(&super::tape_methods::TAPE_STOP_RECORDING)),
    ("reset", Attr::Method(&super::tape_methods::TAPE_RESET)),
    ("explain", Attr::Method(&super::explain::TAPE_EXPLAIN)),
    ("summary", Attr::Method(&super::tape_view::TAPE_SUMMARY)),
    ("draw", Attr::Method(&super::tape_view::TAPE_DRAW)),
];

const ACCUMULATOR: &[(&str, Attr)] = &[("jvp", Attr::Method(&super::forward_fns::ACCUMULATOR_JVP))];

const LIST: &[(&str, Attr)] = &[
    ("append", Attr::Method(&super::collections::LIST_APPEND)),
    ("extend", Attr::Method(&super::collections::LIST_EXTEND)),
    ("pop", Attr::Method(&super::collections::LIST_POP)),
    ("insert", Attr::Method(&super::collections::LIST_INSERT)),
    ("index", Attr::Method(&super::collections::LIST_INDEX)),
    ("count", Attr::Method(&super::collections::LIST_COUNT)),
    ("remove", Attr::Method(&super::collections::LIST_REMOVE)),
    ("reverse", Attr::Method(&super::collections::LIST_REVERSE)),
    ("copy", Attr::Method(&super::collections::LIST_COPY)),
    ("clear", Attr::Method(&super::collections::LIST_CLEAR)),
    ("sort", Attr::Method(&super::collections::LIST_SORT)),
];

const DICT: &[(&str, Attr)] = &[
    ("keys", Attr::Method(&super::collections::DICT_KEYS)),
    ("values", Attr::Method(&super::collections::DICT_VALUES)),
    ("items", Attr::Method(&super::collections::DICT_ITEMS)),
    ("get", Attr::Method(&super::collections::DICT_GET)),
    ("pop", Attr::Method(&super::collections::DICT_POP)),
    ("update", Attr::Method(&super::collections::DICT_UPDATE)),
    ("setdefault", Attr::Method(&super::collections::DICT_SETDEFAULT)),
    ("copy", Attr::Method(&super::collections::DICT_COPY)),
    ("clear", Attr::Method(&super::collections::DICT_CLEAR)),
    ("popitem", Attr::Method(&super::collections::DICT_POPITEM)),
    ("fromkeys", Attr::Method(&super::collections::DICT_FROMKEYS)),
];

/// The class and static methods read on a builtin type object (`dict.fromkeys(xs)`); each
/// is in its type's table too, as CPython's can also be read on a value.
const TYPE_METHODS: &[(&str, &Native)] = &[
    ("dict", &super::collections::DICT_FROMKEYS),
    ("float", &numbers::FLOAT_FROMHEX),
    ("str", &super::strings::STR_MAKETRANS),
];

const INT: &[(&str, Attr)] = &[
    ("bit_length", Attr::Method(&super::numbers::INT_BIT_LENGTH)),
    ("bit_count", Attr::Method(&super::numbers::INT_BIT_COUNT)),
    ("conjugate", Attr::Method(&super::numbers::INT_CONJUGATE)),
    ("as_integer_ratio", Attr::Method(&super::numbers::INT_AS_INTEGER_RATIO)),
    ("real", Attr::Get(numbers::int_itself)),
    ("numerator", Attr::Get(numbers::int_itself)),
    ("imag", Attr::Get(|v| numbers::int_const(v, 0))),
    ("denominator", Attr::Get(|v| numbers::int_const(v, 1))),
];

const FLOAT: &[(&str, Attr)] = &[
    ("is_integer", Attr::Method(&super::numbers::FLOAT_IS_INTEGER)),
    ("as_integer_ratio", Attr::Method(&super::numbers::FLOAT_AS_INTEGER_RATIO)),
    ("hex", Attr::Method(&super::numbers::FLOAT_HEX)),
    ("fromhex", Attr::Method(&super::numbers::FLOAT_FROMHEX)),
    ("conjugate", Attr::Method(&super::numbers::FLOAT_CONJUGATE)),
    ("real", Attr::Get(|v| numbers::float_part(v, true))),
    ("imag", Attr::Get(|v| numbers::float_part(v, false))),
];

const COMPLEX: &[(&str, Attr)] = &[
    ("conjugate", Attr::Method(&super::complex_fns::COMPLEX_CONJUGATE)),
    ("real", Attr::Get(|v| super::complex_fns::part(v, true))),
    ("imag", Attr::Get(|v| super::complex_fns::part(v, false))),
];

const TUPLE: &[(&str, Attr)] =
    &[("index", Attr::Method(&super::numbers::TUPLE_INDEX)), ("count", Attr::Method(&super::numbers::TUPLE_COUNT))];

const SHAPE: &[(&str, Attr)] = &[
    ("as_list", Attr::Method(&super::tensor_shape::SHAPE_AS_LIST)),
    ("num_elements", Attr::Method(&super::tensor_shape::SHAPE_NUM_ELEMENTS)),
    ("is_fully_defined", Attr::Method(&super::tensor_shape::SHAPE_IS_FULLY_DEFINED)),
    ("is_compatible_with", Attr::Method(&super::tensor_shape::SHAPE_IS_COMPATIBLE_WITH)),
    ("concatenate", Attr::Method(&super::tensor_shape::SHAPE_CONCATENATE)),
    ("rank", Attr::Get(|v| super::tensor_shape::dims_of(v).map(|d| Value::Int(d.len() as i64)))),
    ("ndims", Attr::Get(|v| super::tensor_shape::dims_of(v).map(|d| Value::Int(d.len() as i64)))),
    ("dims", Attr::Get(|v| super::tensor_shape::dims_of(v).map(|d| Value::list(d.to_vec())))),
];

const RANGE: &[(&str, Attr)] = &[
    ("index", Attr::Method(&super::numbers::RANGE_INDEX)),
    ("count", Attr::Method(&super::numbers::RANGE_COUNT)),
    ("start", Attr::Get(|v| numbers::range_part(v, 0))),
    ("stop", Attr::Get(|v| numbers::range_part(v, 1))),
    ("step", Attr::Get(|v| numbers::range_part(v, 2))),
];

const STR: &[(&str, Attr)] = &[
    ("format", Attr::Method(&super::strings::STR_FORMAT)),
    ("join", Attr::Method(&super::strings::STR_JOIN)),
    ("split", Attr::Method(&super::strings::STR_SPLIT)),
    ("rsplit", Attr::Method(&super::strings::STR_RSPLIT)),
    ("splitlines", Attr::Method(&super::strings::STR_SPLITLINES)),
    ("partition", Attr::Method(&super::strings::STR_PARTITION)),
    ("rpartition", Attr::Method(&super::strings::STR_RPARTITION)),
    ("upper", Attr::Method(&super::strings::STR_UPPER)),
    ("lower", Attr::Method(&super::strings::STR_LOWER)),
    ("title", Attr::Method(&super::strings::STR_TITLE)),
    ("capitalize", Attr::Method(&super::strings::STR_CAPITALIZE)),
    ("swapcase", Attr::Method(&super::strings::STR_SWAPCASE)),
    ("casefold", Attr::Method(&super::strings::STR_CASEFOLD)),
    ("strip", Attr::Method(&super::strings::STR_STRIP)),
    ("lstrip", Attr::Method(&super::strings::STR_LSTRIP)),
    ("rstrip", Attr::Method(&super::strings::STR_RSTRIP)),
    ("startswith", Attr::Method(&super::strings::STR_STARTSWITH)),
    ("endswith", Attr::Method(&super::strings::STR_ENDSWITH)),
    ("removeprefix", Attr::Method(&super::strings::STR_REMOVEPREFIX)),
    ("removesuffix", Attr::Method(&super::strings::STR_REMOVESUFFIX)),
    ("replace", Attr::Method(&super::strings::STR_REPLACE)),
    ("find", Attr::Method(&super::strings::STR_FIND)),
    ("rfind", Attr::Method(&super::strings::STR_RFIND)),
    ("index", Attr::Method(&super::strings::STR_INDEX)),
    ("rindex", Attr::Method(&super::strings::STR_RINDEX)),
    ("count", Attr::Method(&super::strings::STR_COUNT)),
    ("ljust", Attr::Method(&super::strings::STR_LJUST)),
    ("rjust", Attr::Method(&super::strings::STR_RJUST)),
    ("center", Attr::Method(&super::strings::STR_CENTER)),
    ("zfill", Attr::Method(&super::strings::STR_ZFILL)),
    ("expandtabs", Attr::Method(&super::strings::STR_EXPANDTABS)),
    ("isdigit", Attr::Method(&super::strings::STR_ISDIGIT)),
    ("isdecimal", Attr::Method(&super::strings::STR_ISDECIMAL)),
    ("isnumeric", Attr::Method(&super::strings::STR_ISNUMERIC)),
    ("isalpha", Attr::Method(&super::strings::STR_ISALPHA)),
    ("isalnum", Attr::Method(&super::strings::STR_ISALNUM)),
    ("isspace", Attr::Method(&super::strings::STR_ISSPACE)),
    ("isupper", Attr::Method(&super::strings::STR_ISUPPER)),
    ("islower", Attr::Method(&super::strings::STR_ISLOWER)),
    ("isprintable", Attr::Method(&super::strings::STR_ISPRINTABLE)),
    ("isascii", Attr::Method(&super::strings::STR_ISASCII)),
    ("isidentifier", Attr::Method(&super::strings::STR_ISIDENTIFIER)),
    ("istitle", Attr::Method(&super::strings::STR_ISTITLE)),
    ("format_map", Attr::Method(&super::strings::STR_FORMAT_MAP)),
    ("maketrans", Attr::Method(&super::strings::STR_MAKETRANS)),
    ("translate", Attr::Method(&super::strings::STR_TRANSLATE)),
];

const SLICE: &[(&str, Attr)] = &[
    ("start", Attr::Get(|v| numbers::slice_part(v, 0))),
    ("stop", Attr::Get(|v| numbers::slice_part(v, 1))),
    ("step", Attr::Get(|v| numbers::slice_part(v, 2))),
    ("indices", Attr::Method(&super::numbers::SLICE_INDICES)),
];

const PROPERTY: &[(&str, Attr)] = &[
    ("fget", Attr::Get(|v| property_part(v, 0))),
    ("fset", Attr::Get(|v| property_part(v, 1))),
    ("fdel", Attr::Get(|v| property_part(v, 2))),
    ("getter", Attr::Method(&PROPERTY_GETTER)),
    ("setter", Attr::Method(&PROPERTY_SETTER)),
    ("deleter", Attr::Method(&PROPERTY_DELETER)),
];

fn property_part(v: &Value, i: usize) -> Option<Value> {
    match v {
        Value::Property(p) => Some(p[i].clone()),
        _ => None,
    }
}

/// `property.getter(function)`, `property.setter(function)`, `property.deleter(function)`.
const PROPERTY_WITH: Signature = Signature::new(&["function"]);
static PROPERTY_GETTER: Native = Native::with("getter", PROPERTY_WITH, |rt, a| property_with(rt, a, 0));
static PROPERTY_SETTER: Native = Native::with("setter", PROPERTY_WITH, |rt, a| property_with(rt, a, 1));
static PROPERTY_DELETER: Native = Native::with("deleter", PROPERTY_WITH, |rt, a| property_with(rt, a, 2));

/// `p.setter(f)` (and `getter`, `deleter`): a copy of the property with that function
/// replaced, so that `@p.setter` under `@property` completes the property (Python's).
fn property_with(rt: &mut Interp, args: &mut Args, i: usize) -> R<Value> {
    let Some(Value::Property(p)) = args.this.clone() else { bail!(Runtime, "internal error: not a property") };
    let f = PROPERTY_WITH.bind(rt, args)?.value("function")?;
    let mut parts = (*p).clone();
    parts[i] = f;
    Ok(Value::Property(Rc::new(parts)))
}

const FILE: &[(&str, Attr)] = &[
    ("read", Attr::Method(&super::io::FILE_READ)),
    ("readline", Attr::Method(&super::io::FILE_READLINE)),
    ("readlines", Attr::Method(&super::io::FILE_READLINES)),
    ("write", Attr::Method(&super::io::FILE_WRITE)),
    ("writelines", Attr::Method(&super::io::FILE_WRITELINES)),
    ("close", Attr::Method(&super::io::FILE_CLOSE)),
    ("flush", Attr::Method(&super::io::FILE_FLUSH)),
    ("__enter__", Attr::Method(&super::io::FILE_ENTER)),
    ("closed", Attr::Get(|v| super::io::file_attr(v, "closed"))),
    ("name", Attr::Get(|v| super::io::file_attr(v, "name"))),
    ("mode", Attr::Get(|v| super::io::file_attr(v, "mode"))),
];

/// The set methods that make no change: a set's and a frozenset's (a frozenset's give
/// frozensets).
const FROZENSET: &[(&str, Attr)] = &[
    ("copy", Attr::Method(&super::lang::FROZENSET_COPY)),
    ("union", Attr::Method(&super::lang::FROZENSET_UNION)),
    ("intersection", Attr::Method(&super::lang::FROZENSET_INTERSECTION)),
    ("difference", Attr::Method(&super::lang::FROZENSET_DIFFERENCE)),
    ("symmetric_difference", Attr::Method(&super::lang::FROZENSET_SYMMETRIC_DIFFERENCE)),
    ("issubset", Attr::Method(&super::lang::FROZENSET_ISSUBSET)),
    ("issuperset", Attr::Method(&super::lang::FROZENSET_ISSUPERSET)),
    ("isdisjoint", Attr::Method(&super::lang::FROZENSET_ISDISJOINT)),
];

/// The set methods that change the set, which a frozenset lacks.
const SET: &[(&str, Attr)] = &[
    ("add", Attr::Method(&super::lang::SET_ADD)),
    ("remove", Attr::Method(&super::lang::SET_REMOVE)),
    ("discard", Attr::Method(&super::lang::SET_DISCARD)),
    ("pop", Attr::Method(&super::lang::SET_POP)),
    ("clear", Attr::Method(&super::lang::SET_CLEAR)),
    ("update", Attr::Method(&super::lang::SET_UPDATE)),
    ("intersection_update", Attr::Method(&super::lang::SET_INTERSECTION_UPDATE)),
    ("difference_update", Attr::Method(&super::lang::SET_DIFFERENCE_UPDATE)),
    ("symmetric_difference_update", Attr::Method(&super::lang::SET_SYMMETRIC_DIFFERENCE_UPDATE)),
];

const GENERATOR: &[(&str, Attr)] = &[
    ("send", Attr::Method(&super::lang::GENERATOR_SEND)),
    ("throw", Attr::Method(&super::lang::GENERATOR_THROW)),
    ("close", Attr::Method(&super::lang::GENERATOR_CLOSE)),
    ("__next__", Attr::Method(&super::lang::GENERATOR_NEXT)),
];

const BUILTIN: &[(&str, Attr)] = &[("__name__", Attr::Get(builtin_name)), ("__wrapped__", Attr::Get(builtin_wrapped))];

const EXCEPTION: &[(&str, Attr)] = &[("args", Attr::Get(exception_args)), ("value", Attr::Get(stop_value))];

/// `e.value` of a StopIteration: its first argument (a generator's return value), or None.
fn stop_value(v: &Value) -> Option<Value> {
    match v {
        Value::Exception(e) if e.kind() == crate::error::ErrorKind::StopIteration => {
            Some(crate::runtime::value::exception_args(e).into_iter().next().unwrap_or(Value::None))
        }
        _ => None,
    }
}

const DTYPE: &[(&str, Attr)] = &[
    ("name", Attr::Get(dtype_name)),
    ("is_floating", Attr::Get(dtype_is_floating)),
    ("is_integer", Attr::Get(|v| dtype_of(v).map(|d| Value::Bool(d.is_int())))),
    ("is_bool", Attr::Get(|v| dtype_of(v).map(|d| Value::Bool(d == crate::tensor::DType::Bool)))),
    ("size", Attr::Get(|v| dtype_of(v).map(|d| Value::Int(d.size() as i64)))),
    ("itemsize", Attr::Get(|v| dtype_of(v).map(|d| Value::Int(d.size() as i64)))),
    ("kind", Attr::Get(dtype_kind)),
    ("type", Attr::Get(|v| dtype_of(v).map(Value::DType))),
];

/// The dtype a dtype value is.
fn dtype_of(v: &Value) -> Option<crate::tensor::DType> {
    match v {
        Value::DType(d) | Value::NpDType(d) => Some(*d),
        _ => None,
    }
}

const ERROR_TYPE: &[(&str, Attr)] = &[("__name__", Attr::Get(error_type_name))];

fn builtin_name(v: &Value) -> Option<Value> {
    match v {
        Value::Builtin(b) => Some(Value::Str(b.name.clone().into())),
        _ => None,
    }
}

/// Only the decorators' wrappers have `__wrapped__`: the function they wrap.
fn builtin_wrapped(v: &Value) -> Option<Value> {
    match v {
        Value::Builtin(b) => match &b.kind {
            BuiltinKind::Recompute(f, _) | BuiltinKind::CustomGradient(f) | BuiltinKind::PassThrough(f) => {
                Some(f.clone())
            }
            _ => None,
        },
        _ => None,
    }
}

/// `e.args`: a one-element tuple of the message.
fn exception_args(v: &Value) -> Option<Value> {
    match v {
        Value::Exception(e) => Some(Value::tuple(crate::runtime::value::exception_args(e))),
        _ => None,
    }
}

fn dtype_name(v: &Value) -> Option<Value> {
    dtype_of(v).map(|d| Value::str(d.name()))
}

/// NumPy's one-letter kind of a dtype: `f` float, `i` signed int, `u` unsigned, `b` bool.
fn dtype_kind(v: &Value) -> Option<Value> {
    use crate::tensor::DType;
    dtype_of(v).map(|d| {
        Value::str(match d {
            DType::F16 | DType::F32 | DType::F64 => "f",
            DType::U8 => "u",
            DType::Bool => "b",
            _ => "i",
        })
    })
}

fn dtype_is_floating(v: &Value) -> Option<Value> {
    dtype_of(v).map(|d| Value::Bool(d.is_float()))
}

/// `ValueError.__name__`; `Exception` for the catch-all type.
fn error_type_name(v: &Value) -> Option<Value> {
    match v {
        Value::ErrorType(k) => Some(Value::str(k.name())),
        _ => None,
    }
}

impl Tables {
    fn build() -> Tables {
        let table = |lists: &[&[(&str, Attr)]]| -> Table {
            let mut t = Table::default();
            for list in lists {
                for &(name, attr) in *list {
                    t.insert(intern(name), (name.into(), attr));
                }
            }
            t
        };
        // Indexed by `Kind as usize`.
        Tables([
            table(&[TENSOR]),
            table(&[TENSOR, VARIABLE]),
            table(&[TAPE]),
            table(&[ACCUMULATOR]),
            table(&[LIST]),
            table(&[DICT]),
            table(&[STR]),
            table(&[BUILTIN]),
            table(&[EXCEPTION]),
            table(&[DTYPE]),
            table(&[ERROR_TYPE]),
            table(&[FILE]),
            table(&[FROZENSET, SET]),
            table(&[FROZENSET]),
            table(&[INT]),
            table(&[FLOAT]),
            table(&[COMPLEX]),
            table(&[TUPLE]),
            table(&[SHAPE]),
            table(&[RANGE]),
            table(&[SLICE]),
            table(&[PROPERTY]),
            table(&[GENERATOR]),
        ])
    }
}

/// Every attribute of every builtin type: the type's name as help keys spell it (`Tensor`,
/// `list`, `GradientTape`, …), the attribute's name, and its function when it is a method.
/// For the help system's coverage tests.
pub fn attribute_tables() -> Vec<(&'static str, &'static str, Option<&'static Native>)> {
    let tables: [(&str, &[(&str, Attr)]); 24] = [
        ("Tensor", TENSOR),
        ("Variable", VARIABLE),
        ("GradientTape", TAPE),
        ("ForwardAccumulator", ACCUMULATOR),
        ("list", LIST),
        ("dict", DICT),
        ("str", STR),
        ("function", BUILTIN),
        ("Exception", EXCEPTION),
        ("dtype", DTYPE),
        ("type", ERROR_TYPE),
        ("file", FILE),
        ("set", FROZENSET),
        ("set", SET),
        ("frozenset", FROZENSET),
        ("int", INT),
        ("float", FLOAT),
        ("complex", COMPLEX),
        ("tuple", TUPLE),
        ("TensorShape", SHAPE),
        ("range", RANGE),
        ("slice", SLICE),
        ("property", PROPERTY),
        ("generator", GENERATOR),
    ];
    let mut out = vec![];
    for (ty, table) in tables {
        for &(name, attr) in table {
            out.push((ty, name, if let Attr::Method(f) = attr { Some(f) } else { None }));
        }
    }
    out
}

/// The table kind of a value, if its type has attributes.
fn kind_of(v: &Value) -> Option<Kind> {
    Some(match v {
        Value::Tensor(_) => Kind::Tensor,
        Value::Variable(_) => Kind::Variable,
        Value::Tape(_) => Kind::Tape,
        Value::Accumulator(_) => Kind::Accumulator,
        Value::List(_) => Kind::List,
        Value::Dict(_) => Kind::Dict,
        Value::Str(_) => Kind::Str,
        Value::Builtin(_) => Kind::Builtin,
        Value::Exception(_) => Kind::Exception,
        Value::DType(_) | Value::NpDType(_) => Kind::DType,
        Value::ErrorType(_) => Kind::ErrorType,
        Value::File(_) => Kind::File,
        Value::Set(_) => Kind::Set,
        Value::FrozenSet(_) => Kind::FrozenSet,
        Value::Int(_) | Value::Bool(_) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::Complex(..) => Kind::Complex,
        Value::Tuple(_) => Kind::Tuple,
        Value::Shape(_) => Kind::Shape,
        Value::Range(_) => Kind::Range,
        Value::Slice(_) => Kind::Slice,
        Value::Property(_) => Kind::Property,
        Value::Generator(_) => Kind::Generator,
        _ => return None,
    })
}

/// Whether `name` is a generator's method that the iterator `iter(x)` makes of a value
/// (`list_iterator`, …) does not have: CPython's iterators have `__next__` only.
fn is_iterator_only(obj: &Value, name: Sym) -> bool {
    matches!(obj, Value::Generator(g) if !g.is_generator()) && matches!(&*name.name(), "send" | "throw" | "close")
}

/// `obj.name` for builtin values; `None` when there is no such attribute (the
/// caller raises "'list' object has no attribute 'x'").
pub fn attr(_rt: &mut Interp, obj: &Value, name: Sym) -> R<Option<Value>> {
    if let Value::Builtin(b) = obj {
        if crate::runtime::value::is_type_object(b) {
            // `dict.fromkeys`, `float.fromhex`, `str.maketrans`: read on the type object.
            let n = name.name();
            let found = TYPE_METHODS.iter().find(|(ty, f)| *ty == &*b.name && f.name == &*n);
            if let Some(&(_, f)) = found {
                return Ok(Some(Value::Builtin(Rc::new(Builtin {
                    name: f.name.into(),
                    kind: BuiltinKind::Method(obj.clone(), f),
                }))));
            }
            // `str.upper`, `list.append`: the method unbound, called with its receiver first.
            if let Some(kind) = type_kind(&b.name) {
                if let Some((n, Attr::Method(_))) = TABLES.with(|t| t.0[kind as usize].get(&name).cloned()) {
                    return Ok(Some(Value::Builtin(Rc::new(Builtin {
                        name: n,
                        kind: BuiltinKind::Method(obj.clone(), &UNBOUND_METHOD),
                    }))));
                }
            }
        }
    }
    let Some(kind) = kind_of(obj) else { return Ok(None) };
    if is_iterator_only(obj, name) {
        return Ok(None);
    }
    let Some((n, attr)) = TABLES.with(|t| t.0[kind as usize].get(&name).cloned()) else { return Ok(None) };
    Ok(match attr {
        Attr::Method(f) => {
            Some(Value::Builtin(Rc::new(Builtin { name: n, kind: BuiltinKind::Method(obj.clone(), f) })))
        }
        Attr::Get(get) => get(obj),
    })
}

/// The kind whose methods a builtin type object names (`str` for `str.upper`).
fn type_kind(type_name: &str) -> Option<Kind> {
    Some(match type_name {
        // TF's classes: `tf.GradientTape.gradient`, `tf.Tensor.numpy` (for `help`, and called
        // with the receiver first, as Python's unbound methods are).
        "GradientTape" => Kind::Tape,
        "Tensor" => Kind::Tensor,
        "Variable" => Kind::Variable,
        "TensorShape" => Kind::Shape,
        "str" => Kind::Str,
        "list" => Kind::List,
        "dict" => Kind::Dict,
        "set" => Kind::Set,
        "frozenset" => Kind::FrozenSet,
        "tuple" => Kind::Tuple,
        "int" | "bool" => Kind::Int,
        "float" => Kind::Float,
        "complex" => Kind::Complex,
        "range" => Kind::Range,
        _ => return None,
    })
}

static UNBOUND_METHOD: Native = Native::new("method", &["self", "*args", "**kwargs"], unbound_method);

/// A method read on its type (`str.upper`), called as `str.upper(s, *args)`: the first
/// argument is the receiver, and must be of that type (a bool is an int).
/// Errors: TypeError for no argument or a receiver of another type (CPython's descriptor
/// message).
fn unbound_method(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let ty = match &args.this {
        Some(Value::Builtin(b)) => b.name.clone(),
        _ => bail!(Runtime, "internal error: an unbound method without its type"),
    };
    let Some(kind) = type_kind(&ty) else { bail!(Runtime, "internal error: no methods for type '{ty}'") };
    if args.pos.is_empty() {
        bail!(Type, "unbound method {ty}.{}() needs an argument", args.fname);
    }
    let recv = args.pos.remove(0);
    let fits = kind_of(&recv) == Some(kind) && !(ty.as_ref() == "bool" && !matches!(recv, Value::Bool(_)));
    if !fits {
        bail!(Type, "descriptor '{}' for '{ty}' objects doesn't apply to a '{}' object", args.fname, recv.type_name());
    }
    let name = intern(&args.fname);
    let Some((_, Attr::Method(f))) = TABLES.with(|t| t.0[kind as usize].get(&name).cloned()) else {
        bail!(Runtime, "internal error: '{ty}' has no method '{}'", args.fname)
    };
    args.this = Some(recv);
    (f.call)(rt, args)
}

/// The attribute names of a builtin value's type, sorted (what `dir()` would list);
/// a getter that does not apply to this value (`__wrapped__` of a plain builtin) is left out.
pub fn attr_names(obj: &Value) -> Vec<Rc<str>> {
    let Some(kind) = kind_of(obj) else { return vec![] };
    let mut names: Vec<Rc<str>> = TABLES.with(|t| {
        t.0[kind as usize]
            .values()
            .filter(|(n, _)| !is_iterator_only(obj, intern(n)))
            .filter(|(_, a)| match a {
                Attr::Method(_) => true,
                Attr::Get(get) => get(obj).is_some(),
            })
            .map(|(n, _)| n.clone())
            .collect()
    });
    names.sort();
    names
}

/// The tensor a tensor attribute reads: the tensor itself, or a Variable's current value.
fn tensor_of(v: &Value) -> Option<Tensor> {
    match v {
        Value::Tensor(t) => Some(t.clone()),
        Value::Variable(v) => Some(v.peek()),
        _ => None,
    }
}

/// The Variable a Variable attribute reads.
fn var_of(v: &Value) -> Option<&crate::autodiff::Variable> {
    match v {
        Value::Variable(v) => Some(v),
        _ => None,
    }
}

static TENSOR_NUMPY: Native = Native::with("numpy", NO_ARGS, tensor_numpy);
static TENSOR_TOLIST: Native = Native::with("tolist", NO_ARGS, tensor_tolist);

/// `numpy()`: the value as a NumPy array (a copy, never on a tape), as TF's.
fn tensor_numpy(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let this = receiver(args)?.clone();
    NO_ARGS.bind(rt, args)?;
    let t = rt.to_tensor(&this, None)?;
    rt.ad.note(".numpy()", &[&t], &[]);
    crate::tensor::budget::check_elements(t.len(), t.dtype().size())?;
    let origin = crate::runtime::numpy::Origin { tensor: t.id, name: ".numpy()", site: rt.ad.site() };
    Ok(crate::runtime::numpy::NdArray::with_origin(crate::runtime::numpy::of_tensor(&t), Some(origin)))
}

/// `tolist()`: nested lists of Python numbers (a number for a scalar).
fn tensor_tolist(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let this = receiver(args)?.clone();
    NO_ARGS.bind(rt, args)?;
    let t = rt.to_tensor(&this, None)?;
    rt.ad.note(".tolist()", &[&t], &[]);
    Value::nested_lists(&t.data)
}

static TENSOR_ITEM: Native = Native::with("item", NO_ARGS, tensor_item);

/// `item()`: the Python number of a one-element tensor.
fn tensor_item(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let this = receiver(args)?.clone();
    NO_ARGS.bind(rt, args)?;
    let t = rt.to_tensor(&this, None)?;
    if t.len() != 1 {
        bail!(Value, "item() needs a tensor with one element, got shape {}", crate::tensor::shape_str(t.shape()));
    }
    rt.ad.note(".item()", &[&t], &[]);
    Ok(Value::from_elem(t.data.first_elem()))
}

fn this_var(a: &Args) -> R<Rc<crate::autodiff::Variable>> {
    match receiver(a)? {
        Value::Variable(v) => Ok(v.clone()),
        other => bail!(Runtime, "internal error: a Variable method bound to a {}", other.type_name()),
    }
}

const UPDATE_VALUE_SIG: Signature =
    Signature::new(&["value", "use_locking=False", "name=None", "read_value: bool = True"]);

/// The new value for a Variable update, in the Variable's dtype.
fn update_value(rt: &mut Interp, args: &mut Args, op: Option<crate::tensor::kernels::Binary>) -> R<Value> {
    let var = this_var(args)?;
    let mut b = UPDATE_VALUE_SIG.bind(rt, args)?;
    let (v, read_value) = (b.value("value")?, b.bool_or("read_value", true)?);
    let cur = var.peek();
    // Python numbers and lists take the Variable's dtype; a tensor of another
    // dtype is a ValueError (docs/language.md §5), raised by `Variable::set`.
    let new = match &v {
        Value::Tensor(_) | Value::Variable(_) => rt.to_tensor(&v, None)?,
        other => rt.to_tensor(other, Some(cur.dtype()))?,
    };
    drop(v);
    let value = match op {
        Some(op) => {
            if new.shape() != cur.shape() {
                bail!(
                    Value,
                    "cannot update a Variable of shape {} with a value of shape {}",
                    crate::tensor::shape_str(cur.shape()),
                    crate::tensor::shape_str(new.shape())
                );
            }
            Rc::new(crate::tensor::kernels::binary(op, &cur.data, &new.data)?)
        }
        // Buffers are immutable, so the Variable shares the new value's, not a copy of it.
        None => new.data,
    };
    var.set_shared(value)?;
    // TF: the updated Variable, or None with read_value=False.
    Ok(if read_value { Value::Variable(var) } else { Value::None })
}

static VARIABLE_ASSIGN: Native = Native::with("assign", UPDATE_VALUE_SIG, var_assign);

/// `v.assign(value, use_locking=False, name=None, read_value=True)`: returns the Variable
/// (TF returns the updated variable), None with `read_value=False`.
fn var_assign(rt: &mut Interp, args: &mut Args) -> R<Value> {
    update_value(rt, args, None)
}

static VARIABLE_ASSIGN_ADD: Native = Native::with("assign_add", UPDATE_VALUE_SIG, var_assign_add);

/// `v.assign_add(delta, use_locking=False, name=None, read_value=True)`: `v ← v + delta`, same shape.
fn var_assign_add(rt: &mut Interp, args: &mut Args) -> R<Value> {
    update_value(rt, args, Some(crate::tensor::kernels::Binary::Add))
}

static VARIABLE_ASSIGN_SUB: Native = Native::with("assign_sub", UPDATE_VALUE_SIG, var_assign_sub);

/// `v.assign_sub(delta, use_locking=False, name=None, read_value=True)`: `v ← v − delta`, same shape.
fn var_assign_sub(rt: &mut Interp, args: &mut Args) -> R<Value> {
    update_value(rt, args, Some(crate::tensor::kernels::Binary::Sub))
}

static VARIABLE_READ_VALUE: Native = Native::with("read_value", NO_ARGS, var_read);
static VARIABLE_VALUE: Native = Native::with("value", NO_ARGS, var_read);

/// `v.read_value()`: the current value as a tensor (a read, so tapes watch it).
fn var_read(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let v = this_var(args)?;
    NO_ARGS.bind(rt, args)?;
    let t = rt.read_variable(&v);
    Ok(Value::Tensor(rt.ad.identity(&t)))
}

/// What `v[index].assign` reads on a subscript of a Variable: TF's sliced assignment, the method
/// bound to the Variable and the index (`None` for any other
/// value or name, which reads as the attribute of the subscript's value).
pub fn sliced_attr(_rt: &mut Interp, base: &Value, index: &Value, name: Sym) -> R<Option<Value>> {
    let native: &'static Native = match (&*name.name(), base) {
        ("assign", Value::Variable(_)) => &SLICE_ASSIGN,
        _ => return Ok(None),
    };
    let this = Value::tuple(vec![base.clone(), index.clone()]);
    Ok(Some(Value::Builtin(Rc::new(Builtin { name: native.name.into(), kind: BuiltinKind::Method(this, native) }))))
}

static SLICE_ASSIGN: Native = Native::with("assign", UPDATE_VALUE_SIG, slice_assign);

/// `v[index].assign(value, use_locking=False, name=None, read_value=True)`: the elements of the Variable that
/// `index` selects (ints, slices, `...`, `newaxis`: TF's strided slice) take `value`, broadcast to
/// the selection's shape and converted to the Variable's dtype; the rest keep theirs. Returns the
/// Variable (None with `read_value=False`), as TF's sliced assignment does. Not differentiable,
/// as no assignment is.
///
/// Errors: IndexError for an index out of range; ShapeError when `value` does not broadcast to
/// the selection's shape; TypeError for a value of another dtype than a Python number or list.
fn slice_assign(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let (var, index) = match receiver(args)? {
        Value::Tuple(t) if t.len() == 2 => match &t[0] {
            Value::Variable(v) => (v.clone(), t[1].clone()),
            _ => bail!(Runtime, "internal error: a sliced update without its Variable"),
        },
        _ => bail!(Runtime, "internal error: a sliced update without its Variable"),
    };
    let mut b = UPDATE_VALUE_SIG.bind(rt, args)?;
    let (v, read_value) = (b.value("value")?, b.bool_or("read_value", true)?);
    let cur = var.peek();
    let info = crate::runtime::index::tensor_index(cur.shape(), &index)?;
    let new = match &v {
        Value::Tensor(_) | Value::Variable(_) => rt.to_tensor(&v, None)?,
        other => rt.to_tensor(other, Some(cur.dtype()))?,
    };
    if new.dtype() != cur.dtype() {
        bail!(Type, "cannot assign a {} value to a slice of a {} Variable", new.dtype(), cur.dtype());
    }
    let slice = ndarray::SliceInfo::<_, ndarray::IxDyn, ndarray::IxDyn>::try_from(info)
        .map_err(|e| crate::err!(Index, "invalid index: {e}"))?;
    let mut out = (*cur.data).clone();
    macro_rules! put {
        ($($v:ident),*) => {
            match (&mut out, &*new.data) {
                $((Array::$v(o), Array::$v(n)) => {
                    let mut view = o.slice_mut(slice.as_ref());
                    let Some(n) = n.broadcast(view.raw_dim()) else {
                        bail!(
                            Shape,
                            "cannot assign a value of shape {} to a slice of shape {}",
                            crate::tensor::shape_str(new.shape()),
                            crate::tensor::shape_str(view.shape())
                        );
                    };
                    view.assign(&n);
                })*
                _ => unreachable!("the dtypes were checked equal"),
            }
        };
    }
    put!(F16, F32, F64, U8, I8, I16, I32, I64, Bool);
    var.set(out)?;
    Ok(if read_value { Value::Variable(var) } else { Value::None })
}
