"""dgl_tf: the support module of scripts written by `dgl export --tf`.

An exported script does its maths with plain `tf.` ops; this module holds what
Python and TensorFlow do differently from DGL, so that the script's stdout is
the same as `dgl FILE.dgl`'s:

- `print`, `str`, `repr`, `format`: DGL's text of a value (docs/language.md §3),
  e.g. `1e-8` where Python writes `1e-08`, `[1.0, 2.0]` for a tensor,
  `Variable(1.0, name='w')`, `(2, 3)` for a shape;
- `item`, `numpy`, `tolist`: DGL's tensor methods (nested Python lists);
- `set_script`, `read_csv`, `load_npy`, `save_npy`: DGL's data functions,
  relative paths resolved against the script's folder;
- `constant`, `range_tensor`: DGL's dtype rules (numbers become float32, an
  all-int range is int64);
- `str_format`, `percent`: DGL's `template.format(...)` and `template % args`.

A generated script starts with:

    import tensorflow as tf
    import dgl_tf
    from dgl_tf import print, str, repr, format
    dgl_tf.set_script(__file__)

Dependencies: numpy and tensorflow only; importing this module does no work
beyond defining its names.

int32 is a dtype of DGL's as of TF's: `tf.range(5)` is int32 in both, and DGL's
own spellings (`range_tensor(5)`, `constant([1, 2])`) keep DGL's dtypes here.

Known differences from DGL that this module cannot remove:
- a Python set iterates in hash order, DGL's in insertion order (`{3, 1, 2}`
  prints `{1, 2, 3}` here); an exporter wanting DGL's order must keep a dict;
- `str(tape)` of a GradientTape is `<GradientTape>`, not DGL's table of
  recorded operations (TF's tape does not expose them);
- a Variable explicitly named `Variable` prints as unnamed (TF gives that
  name to unnamed Variables);
- `type("a") is str` is False (`str` here is a class standing for Python's:
  see `str`); `isinstance` works;
- TF's own errors keep their class names (`InvalidArgumentError` where DGL
  raises `ShapeError`); Python's OSError family shows as DGL's `IOError`;
- a symbolic tensor (inside a tf.function) prints as TF prints it.
"""

import builtins
import collections.abc
import decimal
import io
import math
import os
import re
import stat
import string
import tempfile
import types

import numpy as np
import tensorflow as tf

__all__ = [
    "print", "str", "repr", "format", "item", "numpy", "tolist", "set_script",
    "read_csv", "load_npy", "save_npy", "constant", "range_tensor", "str_format", "percent",
]

_py_str = builtins.str
_py_set = builtins.set
_py_repr = builtins.repr
_py_format = builtins.format

# docs/language.md §3: tensors with more elements than this print summarised, keeping
# this many entries at each end of each axis.
SUMMARY_THRESHOLD = 1000
EDGE_ITEMS = 3

# DGL's allocation budget (src/tensor/budget.rs): elements of one tensor, bytes of a file.
MAX_ELEMENTS = 1 << 28
MAX_BYTES = 1 << 30

# The largest width or precision DGL accepts in a format spec (src/runtime/format/spec.rs).
MAX_WIDTH = 1_000_000


# ---------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------

def _digits(text):
    """The shortest decimal digits and exponent in `text` (`'1.5e-05'`, `'0.001'`).

    Returns (digits, exp) with the value being 0.d1d2d3... * 10**(exp + 1), i.e.
    `exp` is the decimal exponent of the first digit; digits has no leading or
    trailing zeros ('0' for zero).
    """
    mantissa, _, e = text.partition("e")
    exp = int(e) if e else 0
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    stripped = digits.lstrip("0")
    if not stripped:
        return "0", 0
    lead = len(digits) - len(stripped)
    return stripped.rstrip("0"), exp + len(whole) - 1 - lead


def _round_ties_up(digits, exp, magnitude):
    """The shortest digits of a float32 element as DGL chooses them.

    Python's repr and NumPy pick, among the shortest digit strings that read
    back to the number, the one nearest to it, and on an exact tie the even
    one. DGL does so for a float (as CPython's repr: -715.20001220703125 is
    `-715.2000122070312`), but a float32 element's text takes the larger one.
    So, for a float32: when the number lies exactly halfway between `digits`
    and the next string up, take the next one up.
    """
    if digits == "0":
        return digits, exp
    unit_exp = exp - len(digits) + 1
    candidate = decimal.Decimal(int(digits)).scaleb(unit_exp)
    half = decimal.Decimal(5).scaleb(unit_exp - 1)
    with decimal.localcontext() as ctx:
        ctx.prec = 1200
        if decimal.Decimal(magnitude) - candidate != half:
            return digits, exp
    up = _py_str(int(digits) + 1)
    if len(up) > len(digits):
        # 9.5 → 10: one more digit before the point.
        return _digits(up + "e" + _py_str(unit_exp))
    return up.rstrip("0"), exp


def _render(negative, magnitude, shortest, ties_up):
    """DGL's float text from the shortest round-trip digits `shortest` (a
    Python/NumPy repr) of a finite number whose absolute value (as float64) is
    `magnitude`: positional with `.0` when integral, exponent form (`1e-8`,
    `1.5e20`, no `+`, no padding) below 1e-4 and from 1e16 on; a tie between
    two shortest texts goes up when `ties_up` (a float32 element), else to the
    even one (a float, as CPython's repr)."""
    sign = "-" if negative else ""
    digits, exp = _digits(shortest.lstrip("-"))
    if ties_up:
        digits, exp = _round_ties_up(digits, exp, magnitude)
    if magnitude != 0.0 and not (1e-4 <= magnitude < 1e16):
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{exp}"
    if digits == "0":
        return sign + "0.0"
    if exp < 0:
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    whole = digits[:exp + 1].ljust(exp + 1, "0")
    frac = digits[exp + 1:] or "0"
    return f"{sign}{whole}.{frac}"


def fmt_f64(x):
    """DGL's text of a float (a Python float, float64 precision): `6.0`, `0.1`,
    `1e-8`, `1e20`, `nan`, `inf`, `-inf` (docs/language.md §3)."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return _render(math.copysign(1.0, x) < 0, abs(x), _py_repr(x), False)


def fmt_f32(x):
    """DGL's text of a float32 element: the shortest digits that read back to
    the same float32 (`0.1`, not `0.10000000149011612`). The exponent-form
    thresholds compare the float32's exact value, so float32(1e-4), which is
    just below 1e-4, prints as `1e-4`."""
    x = np.float32(x)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return _render(bool(np.signbit(x)), abs(float(x)), _py_str(x), True)


def fmt_f16(x):
    """DGL's text of a float16 element: the fewest digits that read back to the
    same float16 (`0.1`, not `0.0999755859375`), in DGL's float layout."""
    x = np.float16(x)
    if not np.isfinite(x):
        return fmt_f64(float(x))
    return fmt_f64(float(np.format_float_scientific(x, unique=True)))


# ---------------------------------------------------------------------------
# Tensors
# ---------------------------------------------------------------------------

def _dtype_name(dtype):
    """DGL's name of a dtype (a tf.DType or a NumPy dtype): the same name."""
    return dtype.name if isinstance(dtype, tf.DType) else np.dtype(dtype).name


def _element_formatter(dtype_name):
    if dtype_name == "float16":
        return fmt_f16
    if dtype_name in ("float32", "bfloat16"):
        return fmt_f32
    if dtype_name == "float64":
        return fmt_f64
    if dtype_name == "bool":
        return lambda v: "True" if v else "False"
    if dtype_name.startswith(("int", "uint")):
        return lambda v: _py_str(int(v))
    if dtype_name == "string":
        return lambda v: _str_repr(v.decode("utf-8", "replace") if isinstance(v, bytes) else _py_str(v))
    return lambda v: _py_str(v)


def _array_text(arr, dtype_name):
    """A tensor's values on one line (`[[1.0, 2.0], [3.0, 4.0]]`), summarised with
    `...` past 1,000 elements keeping 3 entries at each end of each axis."""
    fmt = _element_formatter(dtype_name)
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return fmt(arr[()])
    summarise = arr.size > SUMMARY_THRESHOLD

    def axis_text(a):
        n = a.shape[0]
        if summarise and n > 2 * EDGE_ITEMS:
            picks = list(range(EDGE_ITEMS)) + [None] + list(range(n - EDGE_ITEMS, n))
        else:
            picks = range(n)
        parts = []
        for i in picks:
            if i is None:
                parts.append("...")
            elif a.ndim == 1:
                parts.append(fmt(a[i]))
            else:
                parts.append(axis_text(a[i]))
        return "[" + ", ".join(parts) + "]"

    return axis_text(arr)


def _is_variable(x):
    return isinstance(x, tf.Variable) and tf.executing_eagerly()


def _is_tensor(x):
    """An eager tensor (a symbolic one, inside a tf.function, has no values to
    show: it prints as TF prints it)."""
    return isinstance(x, tf.Tensor) and not _is_symbolic(x)


def _is_symbolic(x):
    return isinstance(x, tf.Tensor) and not hasattr(x, "_numpy")


def _tensor_value(x):
    """The NumPy value of an eager tensor or a Variable."""
    return x.numpy()


def _variable_name(v):
    """A Variable's DGL name, or None: TF appends `:0` and names an unnamed
    Variable `Variable`, which DGL shows without a name."""
    name = re.sub(r":\d+$", "", v.name)
    return None if name == "Variable" else name


def _shape_tuple(shape):
    """A TensorShape as DGL's shape tuple (unknown dimensions are None)."""
    if shape.rank is None:
        return None
    return tuple(shape.as_list())


# ---------------------------------------------------------------------------
# str and repr
# ---------------------------------------------------------------------------

def _str_repr(s):
    """DGL's repr of a string: single quotes unless the text holds one and no
    double quote; only `\\n`, `\\t`, `\\r`, the backslash and the quote are
    escaped (other control characters are written as they are, unlike Python)."""
    quote = '"' if "'" in s and '"' not in s else "'"
    out = [quote]
    for c in s:
        if c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif c == "\\":
            out.append("\\\\")
        elif c == quote:
            out.append("\\" + c)
        else:
            out.append(c)
    out.append(quote)
    return "".join(out)


# Containers being printed, by id: a container inside itself prints as `[...]`.
_printing = _py_set()


_LIBRARIES = ("builtins", "tensorflow", "keras", "numpy")


def _user_method(x, name):
    """`type(x).name` when x's class defines it (not inherited from object or
    an exception base), else None."""
    for klass in type(x).__mro__:
        # Library classes (TF's DType writes `<dtype: 'float32'>`) get DGL's text instead.
        if klass is object or klass.__module__.split(".")[0] in _LIBRARIES:
            return None
        if name in vars(klass):
            return getattr(x, name)
    return None


def _call_text(method, name):
    s = method()
    if not isinstance(s, _py_str):
        raise TypeError(f"{name} returned non-string (type {type(s).__name__})")
    return s


def _class_text(cls):
    """DGL's text of a class (what `type(x)` gives)."""
    if cls is type(None):
        return "<class 'NoneType'>"
    if issubclass(cls, tf.Variable):
        return "<class 'Variable'>"
    if issubclass(cls, tf.Tensor):
        return "<class 'Tensor'>"
    if issubclass(cls, tf.DType):
        return "dtype"
    if issubclass(cls, BaseException):
        return f"<class '{_exception_name(cls)}'>"
    if issubclass(cls, (np.ndarray, np.generic)):
        return f"<class 'numpy.{cls.__name__}'>"
    return f"<class '{cls.__name__}'>"


class _TypeMeta(builtins.type):
    """The metaclass of `type_of`: `isinstance(x, type)` and `issubclass` answer for Python's
    type, and calling it with one argument gives DGL's `type(x)`."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, builtins.type)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, builtins.type)

    def __call__(cls, *args, **kwargs):
        if "object" in kwargs and not args:
            args = (kwargs.pop("object"),)
        if len(args) != 1 or kwargs:
            return builtins.type(*args, **kwargs)
        x = args[0]
        if x is cls:
            return cls
        if callable(x) and not isinstance(x, builtins.type) and _is_native(x) and hasattr(x, "__name__"):
            # DGL's builtins (this module's print, TF's ops) are built-in functions.
            return builtins.type(builtins.len)
        t = builtins.type(x)
        return cls if t is builtins.type or t is _TypeMeta else t


class type_of(metaclass=_TypeMeta):
    """DGL's `type` (the exported `type`): `type(x)` as DGL gives it, where DGL's builtins
    are built-in functions (here most are Python functions of this module), and `type`
    itself, `type(int)` and `type(type)` are one object."""


type_of.__name__ = type_of.__qualname__ = "type"


def _exception_name(cls):
    """An exception class's DGL name: Python's OSError family is DGL's IOError."""
    if issubclass(cls, OSError) and cls.__module__ == "builtins":
        return "IOError"
    return cls.__name__


def _exception_str(e):
    if isinstance(e, tf.errors.OpError):
        return e.message
    args = e.args
    if len(args) == 0:
        return ""
    if len(args) == 1:
        return _str(args[0])
    return _repr(tuple(args))


def _is_native(f):
    """A function DGL has built in: one of TensorFlow's or of this module's."""
    module = getattr(f, "__module__", None) or ""
    return module == __name__ or module.split(".")[0] in _LIBRARIES


def _str(x):
    """DGL's `str(x)` (docs/language.md §3)."""
    if isinstance(x, _py_str):
        return x
    if isinstance(x, (np.ndarray, np.generic, np.dtype)):
        return builtins.str(x)
    if _is_variable(x):
        v = x.read_value()
        return _array_text(_tensor_value(v), _dtype_name(v.dtype))
    if _is_tensor(x):
        return _array_text(_tensor_value(x), _dtype_name(x.dtype))
    if isinstance(x, BaseException):
        method = _user_method(x, "__str__")
        return _call_text(method, "__str__") if method else _exception_str(x)
    if not isinstance(x, type):
        method = _user_method(x, "__str__")
        if method is not None:
            return _call_text(method, "__str__")
    return _repr(x)


_DICT_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))


def _ragged_rows(x):
    """A RaggedTensor's rows as DGL prints them: `[row, row, ...]`, each row as its tensor prints."""
    rows = [_ragged_rows(r) if isinstance(r, tf.RaggedTensor) else _str(r) for r in x]
    return "[" + ", ".join(rows) + "]"


def _repr(x):
    """DGL's `repr(x)` (docs/language.md §3)."""
    if isinstance(x, _DICT_VIEWS):  # DGL's keys()/values()/items() are lists
        return _repr(list(x))
    if isinstance(x, tf.UnconnectedGradients):  # DGL names them by their strings
        return x.value
    if x is None or x is True or x is False:
        return _py_str(x)
    if isinstance(x, (list, tuple, dict, _py_set, frozenset, set)):
        key = id(x)
        if key in _printing:
            return "{...}" if isinstance(x, dict) else "[...]"
        _printing.add(key)
        try:
            return _container_repr(x)
        finally:
            _printing.discard(key)
    if isinstance(x, (np.ndarray, np.generic)):
        # NumPy values print as NumPy prints them, in DGL as here.
        return builtins.repr(x)
    if isinstance(x, bool):
        return "True" if x else "False"
    if isinstance(x, np.dtype):
        # DGL's `a.dtype` of a NumPy value is NumPy's dtype, and prints as NumPy's repr.
        return builtins.repr(x)
    if isinstance(x, (int, np.integer)):
        return _py_str(_int64(int(x)))
    if isinstance(x, float):
        return fmt_f64(x)
    if isinstance(x, complex):
        # DGL writes a complex number as CPython's repr does.
        return _py_repr(x)
    if isinstance(x, np.floating):
        # What DGL's numpy() gives: a Python float (float64 precision).
        return fmt_f64(float(x))
    if isinstance(x, _py_str):
        return _str_repr(x)
    if isinstance(x, np.ndarray):
        # DGL's numpy() returns nested lists of Python numbers.
        return _repr(x.tolist())
    if _is_variable(x):
        v = x.read_value()
        text = "Variable(" + _array_text(_tensor_value(v), _dtype_name(v.dtype))
        if _dtype_name(v.dtype) != "float32":
            text += f", dtype={_dtype_name(v.dtype)}"
        name = _variable_name(x)
        if name is not None:
            text += f", name={_str_repr(name)}"
        return text + ")"
    if _is_tensor(x):
        text = _array_text(_tensor_value(x), _dtype_name(x.dtype))
        if _dtype_name(x.dtype) == "float32":
            return f"tensor({text})"
        return f"tensor({text}, dtype={_dtype_name(x.dtype)})"
    if _is_symbolic(x) or isinstance(x, tf.Variable):
        # Inside a tf.function (a graph being traced): no values, TF's own text.
        return _py_repr(x)
    if isinstance(x, tf.DType):
        if _tf_dtypes:
            return f"<dtype: '{_dtype_name(x)}'>"
        return _dtype_name(x)
    if isinstance(x, tf.TensorShape):
        return _repr(_shape_tuple(x))
    if isinstance(x, tf.RaggedTensor):
        # DGL's text: each row as its tensor prints (stdlib/_ragged.dgl).
        return f"<tf.RaggedTensor {_ragged_rows(x)}>"
    if isinstance(x, tf.sparse.SparseTensor):
        return f"SparseTensor(indices={_str(x.indices)}, values={_str(x.values)}, dense_shape={_str(x.dense_shape)})"
    if isinstance(x, BaseException):
        method = _user_method(x, "__repr__")
        if method is not None:
            return _call_text(method, "__repr__")
        args = [x.message] if isinstance(x, tf.errors.OpError) else x.args
        return f"{_exception_name(type(x))}({', '.join(_repr(a) for a in args)})"
    if isinstance(x, range):
        if x.step == 1:
            return f"range({x.start}, {x.stop})"
        return f"range({x.start}, {x.stop}, {x.step})"
    if isinstance(x, slice):
        return f"slice({_repr(x.start)}, {_repr(x.stop)}, {_repr(x.step)})"
    if x is Ellipsis:
        return "Ellipsis"
    if x is NotImplemented:
        return "NotImplemented"
    if isinstance(x, type):
        if x is str:
            return "<class 'str'>"
        return _class_text(x)
    if isinstance(x, types.MethodType) and not _is_native(x):
        return f"<bound method {x.__func__.__name__} of {type(x.__self__).__name__} object>"
    if isinstance(x, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        return f"<built-in function {x.__name__}>"
    if isinstance(x, types.FunctionType):
        if _is_native(x):
            return f"<built-in function {x.__name__}>"
        return f"<function {x.__name__}>"
    if isinstance(x, types.ModuleType):
        return f"<module '{x.__name__}'>"
    if isinstance(x, types.GeneratorType):
        return f"<generator object {x.__name__}>"
    if isinstance(x, tf.GradientTape):
        return "<GradientTape>"
    if isinstance(x, io.TextIOWrapper):
        return (f"<_io.TextIOWrapper name={_repr(_py_str(x.name))} mode={_repr(x.mode)}"
                " encoding='UTF-8'>")
    if isinstance(x, np.generic):
        return _repr(x.item())
    method = _user_method(x, "__repr__")
    if method is not None:
        return _call_text(method, "__repr__")
    if callable(x) and hasattr(x, "__name__") and _is_native(x):
        return f"<built-in function {x.__name__}>"
    return f"<{type(x).__name__} object>"


def _container_repr(x):
    if isinstance(x, list):
        return "[" + ", ".join(_repr(v) for v in x) + "]"
    if isinstance(x, tuple) and hasattr(type(x), "_fields"):
        # TF's named results (top_k's TopKV2, slogdet's LogMatrixDeterminant, unique's
        # Unique) print as DGL's named tuples do: Name(field=value, ...).
        fields = ", ".join(f"{f}={_repr(v)}" for f, v in zip(type(x)._fields, x))
        return f"{type(x).__name__}({fields})"
    if isinstance(x, tuple):
        if len(x) == 1:
            return f"({_repr(x[0])},)"
        return "(" + ", ".join(_repr(v) for v in x) + ")"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{_repr(k)}: {_repr(v)}" for k, v in x.items()) + "}"
    # A set (DGL keeps insertion order; a Python set has its own order).
    if not x:
        return "set()"
    return "{" + ", ".join(_repr(v) for v in x) + "}"


class _StrType(type):
    """The metaclass of `str`: `isinstance(x, str)` and `issubclass(t, str)`
    answer for Python's str, and `str.join`, `str.upper`, ... are Python's."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _py_str)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _py_str)

    def __getattr__(cls, name):
        return getattr(_py_str, name)


class set(collections.abc.MutableSet):
    """DGL's set: its elements keep the order they were first added in, so it iterates and
    prints as DGL's does (a Python set goes by hash order). Exported set displays,
    comprehensions and `set(...)` calls make these. As in DGL, `pop()` takes the oldest
    element, and an operator's result holds the left operand's elements (in its order),
    then the right one's new ones. Equal to any set with the same elements."""

    __slots__ = ("_items",)
    __hash__ = None

    def __init__(self, iterable=()):
        self._items = dict.fromkeys(iterable)

    @classmethod
    def _from_iterable(cls, iterable):
        return cls(iterable)

    def __contains__(self, x):
        return x in self._items

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def add(self, elem):
        self._items.setdefault(elem)

    def discard(self, elem):
        self._items.pop(elem, None)

    def remove(self, elem):
        if elem not in self._items:
            raise KeyError(elem)
        del self._items[elem]

    def pop(self):
        if not self._items:
            raise KeyError("pop from an empty set")
        elem = next(iter(self._items))
        del self._items[elem]
        return elem

    def clear(self):
        self._items.clear()

    def copy(self):
        return set(self)

    def update(self, *others):
        for other in others:
            self._items.update(dict.fromkeys(other))

    def union(self, *others):
        out = self.copy()
        out.update(*others)
        return out

    def intersection(self, *others):
        others = [o if isinstance(o, collections.abc.Set) else _py_set(o) for o in others]
        return set(x for x in self if all(x in o for o in others))

    def difference(self, *others):
        others = [o if isinstance(o, collections.abc.Set) else _py_set(o) for o in others]
        return set(x for x in self if not any(x in o for o in others))

    def symmetric_difference(self, other):
        return self ^ set(other)

    def issubset(self, other):
        return self <= set(other)

    def issuperset(self, other):
        return self >= set(other)

    def isdisjoint(self, other):
        return not any(x in self for x in other)

    def __and__(self, other):
        if not isinstance(other, collections.abc.Set):
            return NotImplemented
        return set(x for x in self if x in other)

    def __repr__(self):
        return _repr(self)


class str(metaclass=_StrType):
    """`str(x)`: DGL's text of x (docs/language.md §3), as a Python str.

    Why a class and not a function: a DGL program also uses `str` as a type
    (`isinstance(x, str)`, `str()` is `''`, `str.join`). Calling this class
    returns a plain Python str (its `__new__` returns one, so no instance of
    this class ever exists), and its metaclass makes `isinstance` and
    `issubclass` defer to Python's str. `type("a") is str` is still False
    (it is Python's str): exported code compares types with isinstance.
    """

    def __new__(cls, *args, **kwargs):
        if not args and not kwargs:
            return ""
        if len(args) == 1 and not kwargs:
            return _str(args[0])
        # str(b, "utf-8") and the like: Python's meaning.
        return _py_str(*args, **kwargs)


def repr(x):
    """`repr(x)`: DGL's repr (`tensor([1.0, 2.0])`, `Variable(1.0, name='w')`,
    `'it'` with DGL's quoting; docs/language.md §3)."""
    return _repr(x)


_CHIEF = True  # False in a --distribute worker that is not the chief (dgl_tf_distribute.py)


def print(*values, sep=" ", end="\n", file=None, flush=False):
    """`print(...)`: writes DGL's `str` of each value, as DGL's print does (under
    `--distribute`, on the chief only)."""
    if not _CHIEF:
        return
    builtins.print(*(_str(v) for v in values), sep=sep, end=end, file=file, flush=flush)


# ---------------------------------------------------------------------------
# format
# ---------------------------------------------------------------------------

_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>#)?(?P<zero>0)?"
    r"(?P<width>\d+)?(?P<grouping>[,_])?(?:\.(?P<precision>\d+))?(?P<type>.)?",
    re.DOTALL,
)


def _int64(x):
    """x, if it fits DGL's 64-bit ints (docs/language.md §3). DGL raises OverflowError where a
    result leaves them; Python's ints grow instead, so a value that did is stopped where it
    is shown, the way it would show the difference."""
    if not -(1 << 63) <= x < (1 << 63):
        raise OverflowError(f"integer overflow: {x} does not fit in 64 bits (DGL's ints are 64-bit)")
    return x


def format(value, spec=""):
    """DGL's text of an f-string field `{value:spec}` (and of `format(value, spec)`).

    An empty spec gives `str(value)`. Otherwise Python's format-spec
    mini-language, with DGL's differences: a tensor or Variable of one element
    formats as its Python number (int64 → int, bool → bool, floats → float);
    one of more elements is a TypeError; a float with neither a type nor a
    precision is written as DGL writes it (`1e-8`, where Python writes `1e-08`);
    a width or precision above 1,000,000 is a ValueError.
    """
    if not isinstance(spec, _py_str):
        raise TypeError(f"format() argument 2 must be str, not {type(spec).__name__}")
    if spec == "":
        return _str(value)
    if _is_variable(value) or _is_tensor(value) or isinstance(value, np.ndarray):
        arr = np.asarray(_tensor_value(value)) if not isinstance(value, np.ndarray) else value
        if arr.size != 1:
            raise TypeError(f"unsupported format string passed to a tensor of shape {_repr(tuple(arr.shape))}")
        value = arr.reshape(()).item()
    elif isinstance(value, np.generic):
        value = value.item()
    m = _SPEC.fullmatch(spec)
    if m:
        for what in ("width", "precision"):
            digits = m.group(what)
            if digits is not None and int(digits) > MAX_WIDTH:
                raise ValueError(f"format {what} {digits} is too large (the limit is {MAX_WIDTH})")
    if isinstance(value, int):
        _int64(value)
    # Python checks the spec (and raises its errors, which DGL copies) in any case.
    text = _py_format(value, spec)
    if (m and isinstance(value, float) and m.group("type") is None and m.group("precision") is None
            and math.isfinite(value)):
        # Neither a type nor a precision: the number is written as str writes it, and
        # DGL's str differs from Python's repr (`1e-8` for `1e-08`, ties rounded up).
        return _pad_number(fmt_f64(abs(value)), math.copysign(1.0, value) < 0, m)
    return text


def _pad_number(body, negative, m):
    """`body` (a number's text without its sign) with the sign, grouping and
    padding of the parsed spec `m`, as CPython pads a float."""
    width = int(m.group("width") or 0)
    fill = m.group("fill") or ("0" if m.group("zero") else " ")
    align = m.group("align") or ("=" if m.group("zero") else ">")
    if m.group("z") and not any(c in "123456789" for c in body):
        negative = False
    sign = "-" if negative else {"+": "+", " ": " "}.get(m.group("sign"), "")
    grouping = m.group("grouping")
    if grouping:
        split = len(body) - len(body.lstrip("0123456789"))
        digits, rest = body[:split], body[split:]
        # Zero padding takes part in grouping (`0,001,234.5`), as in CPython.
        zeros = width - len(sign) - len(rest) if fill == "0" and align == "=" else 0
        body = _py_format(int(digits), f"0{max(zeros, 0)}{grouping}") + rest
    n = max(0, width - len(sign) - len(body))
    if align == "<":
        return sign + body + fill * n
    if align == "^":
        return fill * (n // 2) + sign + body + fill * (n - n // 2)
    if align == "=":
        return sign + fill * n + body
    return fill * n + sign + body


class _Formatter(string.Formatter):
    """`str.format` with DGL's text for each field (fields, accessors, numbering
    and their errors are Python's, which DGL copies)."""

    def format_field(self, value, format_spec):
        return format(value, format_spec)

    def get_value(self, key, args, kwargs):
        if isinstance(key, int):
            if key >= len(args):
                # str.format's own message (string.Formatter says "tuple index out of range").
                raise IndexError(f"Replacement index {key} out of range for positional args tuple")
            return args[key]
        return kwargs[key]

    def convert_field(self, value, conversion):
        if conversion is None:
            return value
        if conversion == "s":
            return _str(value)
        if conversion == "r":
            return _repr(value)
        if conversion == "a":
            return _repr(value).encode("ascii", "backslashreplace").decode("ascii")
        raise ValueError(f"Unknown conversion specifier {conversion}")


_FORMATTER = _Formatter()


def str_format(template, *args, **kwargs):
    """`template.format(*args, **kwargs)` as DGL does it: each field through
    DGL's `format`, `!s`/`!r` through DGL's `str`/`repr` (`{}` of 1e-8 is `1e-8`)."""
    return _FORMATTER.vformat(template, args, kwargs)


class _PercentArg:
    """An argument of `%`-formatting: `%s`/`%r`/`%a` show DGL's str and repr of
    `value`; the numeric subclasses give `%d`, `%f`, `%x`, `%c` its `number`."""

    def __init__(self, value, number=None):
        self.value = value
        self.number = number

    def __str__(self):
        return _str(self.value)

    def __repr__(self):
        return _repr(self.value)


class _PercentNumber(_PercentArg):
    def __int__(self):
        return int(self.number)

    def __float__(self):
        return float(self.number)


class _PercentInt(_PercentNumber):
    def __index__(self):
        return int(self.number)


# Proxy classes named as the value's type, so that Python's messages name it
# (`%x format: an integer is required, not float`).
_PROXIES = {}


def _percent_arg(value):
    arr = _as_array(value)
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        number = value.item() if isinstance(value, np.generic) else value
    elif arr is not None and arr.size == 1:
        number = arr.reshape(()).item()
    else:
        number = None
    if isinstance(number, int):
        _int64(number)
    base = _PercentArg if number is None else _PercentInt if isinstance(number, int) else _PercentNumber
    name = "Tensor" if _is_tensor(value) else "Variable" if _is_variable(value) else _type_name(value)
    if (base, name) not in _PROXIES:
        _PROXIES[(base, name)] = type(name, (base,), {})
    return _PROXIES[(base, name)](value, number)


def percent(template, args):
    """`template % args` as DGL does it: `%s`, `%r` and `%a` show DGL's str and
    repr of each value; numeric conversions take a one-element tensor's number.
    A tuple gives one value per conversion, a dict `%(key)s` values."""
    if isinstance(args, tuple):
        wrapped = tuple(_percent_arg(a) for a in args)
    elif isinstance(args, dict):
        wrapped = _PercentMapping(args)
    else:
        wrapped = _percent_arg(args)
    return template % wrapped


class _PercentMapping(dict):
    """A dict argument of `%`: `%(key)s` values wrapped; `%s` shows the dict itself."""

    def __init__(self, d):
        super().__init__(d)
        self.original = d

    def __getitem__(self, key):
        return _percent_arg(dict.__getitem__(self, key))

    def __str__(self):
        return _str(self.original)

    def __repr__(self):
        return _repr(self.original)


# ---------------------------------------------------------------------------
# Tensor methods
# ---------------------------------------------------------------------------

def _as_array(x):
    """x's NumPy value if x is a tensor, a Variable or a NumPy array, else None."""
    if _is_variable(x) or _is_tensor(x):
        return np.asarray(_tensor_value(x))
    if isinstance(x, np.ndarray):
        return x
    return None


def item(x):
    """`x.item()`: a one-element tensor's Python number (float, int or bool).

    Errors: ValueError for a tensor of more than one element. On anything
    else, x's own `item` method (a user class may define one).
    """
    arr = _as_array(x)
    if arr is None:
        return x.item()
    if arr.size != 1:
        raise ValueError(f"item() needs a tensor with one element, got shape {_repr(tuple(arr.shape))}")
    return arr.reshape(()).item()


def numpy(x):
    """`x.numpy()`: a NumPy value, as TF's (a NumPy scalar for a tensor without axes). On
    anything else, x's own `numpy`."""
    arr = _as_array(x)
    if arr is None:
        return x.numpy()
    return arr[()] if arr.ndim == 0 else arr


def tolist(x):
    """`x.tolist()`: nested lists of Python numbers. On anything else, x's own `tolist`."""
    arr = _as_array(x)
    if arr is None:
        return x.tolist()
    return arr.tolist()


# ---------------------------------------------------------------------------
# Creation: constant, range_tensor
# ---------------------------------------------------------------------------

def _tf_dtype(dtype):
    """A dtype argument as a tf.DType: a tf.DType, Python's `bool` (DGL's
    `bool` names the dtype), a NumPy dtype or a name such as 'float32'."""
    if dtype is None or isinstance(dtype, tf.DType):
        return dtype
    if dtype is bool:
        return tf.bool
    try:
        return tf.as_dtype(dtype)
    except TypeError:
        raise TypeError(f"expected a dtype, got {_repr(dtype)}") from None


def _flatten(value, values):
    """Appends the numbers of a (nested) list to `values` and returns its shape.

    Errors: ValueError for a ragged list; TypeError for a value that is not a
    number, a list or a tensor."""
    if isinstance(value, (list, tuple)):
        shapes = [_flatten(v, values) for v in value]
        if any(s != shapes[0] for s in shapes):
            raise ValueError("cannot build a tensor from a ragged list")
        return (len(value),) + (shapes[0] if shapes else ())
    arr = _as_array(value)
    if arr is not None:
        values.extend(arr.reshape(-1).tolist())
        return tuple(arr.shape)
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        values.append(value.item() if isinstance(value, np.generic) else value)
        return ()
    if isinstance(value, _py_str):
        raise TypeError("cannot convert a str to a tensor: DGL's tensors hold numbers and bools "
                        "(TensorFlow's string tensors, tf.string and tf.strings, are outside DGL)")
    raise TypeError(f"cannot convert a {_type_name(value)} to a tensor")


def _type_name(x):
    if x is None:
        return "NoneType"
    return type(x).__name__


def _holds_tensor(value):
    if isinstance(value, (list, tuple)):
        return any(_holds_tensor(v) for v in value)
    return _is_variable(value) or _is_tensor(value)


def _float_to_int(f):
    """A float as an int64, truncated toward zero (DGL's float_to_int).

    Errors: ValueError for NaN, an infinity, or a value outside int64's range."""
    if math.isnan(f):
        raise ValueError("cannot convert float NaN to integer")
    if math.isinf(f):
        raise ValueError("cannot convert float infinity to integer")
    t = math.trunc(f)
    if not (-2 ** 63 <= t < 2 ** 63):
        raise ValueError(f"float {fmt_f64(f)} is out of range for a 64-bit int")
    return t


def _to_int64(v):
    """A Python number as an element of an int64 tensor: only when integral,
    never truncated (DGL's number_to_int64).

    Errors: TypeError for a float with a fraction, NaN or an infinity;
    ValueError for an integral float outside int64's range."""
    if isinstance(v, (bool, int)):
        return int(v)
    if not math.isfinite(v) or v != math.trunc(v):
        raise TypeError(f"cannot convert {fmt_f64(v)} to an int64 tensor (it is not integral)")
    return _float_to_int(v)


def _cast(t, dtype):
    """`t` as `dtype`, refusing floats outside the int's range as DGL's cast does."""
    if dtype in (tf.int64, tf.int32) and t.dtype.is_floating:
        arr = np.asarray(t.numpy(), dtype=np.float64).reshape(-1)
        if dtype == tf.int64:
            bad = arr[~((arr >= -2.0 ** 63) & (arr < 2.0 ** 63))]
        else:
            bad = arr[~((arr > -2.0 ** 31 - 1) & (arr < 2.0 ** 31))]
        if bad.size:
            raise ValueError(f"cannot cast {_dtype_name(t.dtype)} to {dtype.name}: "
                             f"{fmt_f64(bad[0])} is not in the {dtype.name} range")
    if dtype == tf.bool and t.dtype != tf.bool:
        return tf.not_equal(t, tf.zeros([], t.dtype))
    return tf.cast(t, dtype)


def constant(value, dtype=None, shape=None, name=None):
    """`constant(value, dtype=None, shape=None)` with DGL's rules (docs/language.md §4).

    Numbers (bools too) and (nested) lists become float32 unless a dtype is
    given; a tensor or Variable keeps its dtype unless a
    dtype is given. A list holding tensors is stacked with TF ops, so that a
    tape records it and gradients reach each element (as DGL does).
    `shape` reshapes a value of as many elements or fills it with a one-element value.

    Errors: ValueError for a ragged list, a float out of int64's range;
    TypeError for a value that is not a number, list or tensor, a non-integral
    float as int64, a shape that does not fit.
    """
    dtype = _tf_dtype(dtype)
    if _is_variable(value) or _is_tensor(value):
        # A Variable's value as a snapshot, not a read the tape records (tf.constant(v)).
        t = tf.constant(value.numpy()) if _is_variable(value) else tf.convert_to_tensor(value)
        want = dtype or t.dtype
        t = t if t.dtype == want else _cast(t, want)
    elif isinstance(value, (list, tuple)) and _holds_tensor(value):
        want = dtype or tf.float32
        parts = [constant(v, want) for v in value]
        if any(p.shape != parts[0].shape for p in parts):
            raise ValueError("cannot build a tensor from a ragged list (elements of shapes "
                             f"{_repr(_shape_tuple(parts[0].shape))} and "
                             f"{_repr(next(_shape_tuple(p.shape) for p in parts if p.shape != parts[0].shape))})")
        t = tf.stack(parts) if parts else tf.zeros([0], want)
    else:
        values = []
        dims = _flatten(value, values)
        if math.prod(dims) > MAX_ELEMENTS:
            raise ValueError(f"a tensor of shape {_repr(dims)} is too large")
        want = dtype or tf.float32
        if want in (tf.int64, tf.int32):
            arr = np.array([_to_int64(v) for v in values], dtype=np.int64).astype(want.as_numpy_dtype)
        elif want == tf.bool:
            arr = np.array([bool(v) for v in values], dtype=bool)
        else:
            with np.errstate(over="ignore"):  # 1e40 as float32 is inf, as in DGL
                arr = np.array([float(v) for v in values], dtype=np.float64).astype(want.as_numpy_dtype)
        t = tf.constant(arr.reshape(dims), dtype=want)
    if shape is None:
        return t
    dims = tuple(int(d) for d in (shape.as_list() if isinstance(shape, tf.TensorShape) else shape))
    size = math.prod(dims)
    if tuple(t.shape) == dims:
        return t
    if int(tf.size(t)) == size:
        return tf.reshape(t, dims)
    if int(tf.size(t)) == 1:
        return tf.fill(dims, tf.reshape(t, []))
    raise TypeError(f"constant() got a value of {int(tf.size(t))} elements (shape "
                    f"{_repr(_shape_tuple(t.shape))}) and a shape {_repr(dims)} of {size} elements")


def _is_int(v):
    return (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)))


def _range_dtype(v, what):
    """The dtype an argument of range_tensor counts as (DGL's rule, TF's order): a Python int
    int64, a Python float float32, a scalar tensor its own."""
    if isinstance(v, bool):
        raise TypeError(f"{what} must be a number, not bool")
    if isinstance(v, int):
        return tf.int64
    if isinstance(v, float):
        return tf.float32
    if _is_tensor(v) or _is_variable(v):
        t = tf.convert_to_tensor(v)
        if t.shape.num_elements() != 1:
            raise TypeError(f"{what} must be a scalar, got shape {_repr(_shape_tuple(t.shape))}")
        if t.dtype == tf.bool:
            raise TypeError(f"{what} must be a number, not a bool tensor")
        return t.dtype
    raise TypeError(f"{what} must be a number, not {_type_name(v)}")


def _float_exact(v):
    """A scalar argument as a Python number, ints kept exact."""
    if isinstance(v, (int, float)):
        return v
    return np.asarray(tf.convert_to_tensor(v)).reshape(()).item()


def _float_arg(v, what):
    if isinstance(v, (bool, int, float, np.number, np.bool_)):
        return float(v)
    arr = _as_array(v)
    if arr is not None and arr.size == 1:
        return float(arr.reshape(()).item())
    raise TypeError(f"range_tensor() argument '{what}' must be a number, not {_type_name(v)}")


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None, *, shape=None):
    """DGL's `convert_to_tensor`: `constant`, except that a Variable is read (the tape records
    the read, so gradients reach it, as with tf.convert_to_tensor); a `dtype` other than
    its own converts the value read; `dtype_hint` is the dtype a Python value takes when it
    can."""
    if dtype is None and dtype_hint is not None and not (_is_tensor(value) or _is_variable(value)):
        try:
            constant(value, dtype_hint)
            dtype = dtype_hint
        except (TypeError, ValueError):
            pass
    if _is_variable(value) and shape is None:
        t = tf.convert_to_tensor(value)
        dtype = _tf_dtype(dtype)
        return t if dtype is None or dtype == t.dtype else tf.cast(t, dtype)
    return constant(value, dtype, shape)


def fill(dims, value, dtype=None, name=None):
    """`fill(dims, value, dtype=None)` with DGL's dtypes: a Python int fills int64 (TF's
    fill: int32), a bool bool, a float float32, a scalar tensor keeps its dtype; `dtype`
    (which TF's fill lacks) casts the value first."""
    if dtype is not None or _is_tensor(value) or _is_variable(value):
        value = constant(value, dtype)
    elif isinstance(value, bool):
        value = tf.constant(value)
    elif _is_int(value):
        value = tf.constant(value, tf.int64)
    elif isinstance(value, float):
        value = tf.constant(value, tf.float32)
    return tf.fill(dims, value)


def rank(input, out_type=None, name=None):
    """`rank(input, out_type=None)`: DGL's rank is int64 unless `out_type` says int32 (TF's is
    int32, and TF's rank has no `out_type`)."""
    return tf.cast(tf.rank(input), _tf_dtype(out_type) or tf.int64)


def top_k(input, k=1, sorted=True, name=None):
    """DGL's `top_k`: TF's, with int64 indices (`tf.math.top_k`'s are int32)."""
    r = tf.math.top_k(input, k=k, sorted=sorted)
    return type(r)(r.values, tf.cast(r.indices, tf.int64))


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """DGL's `argsort`: TF's, stable, with int64 indices (`tf.argsort`'s are int32)."""
    return tf.cast(tf.argsort(values, axis=axis, direction=direction, stable=True), tf.int64)


def unique(x, out_idx=None, name=None):
    """DGL's `unique`: TF's, with int64 indices unless `out_idx` says int32."""
    return tf.unique(x, out_idx=_tf_dtype(out_idx) or tf.int64)


def map_fn(fn, elems, fallback_to_while_loop=None, dtype=None, fn_output_signature=None,
           parallel_iterations=None, name=None):
    """tf.map_fn; DGL also accepts vectorized_map's `fallback_to_while_loop`, which has no
    meaning here."""
    return tf.map_fn(fn, elems, dtype=dtype, fn_output_signature=fn_output_signature,
                     parallel_iterations=parallel_iterations)


def vectorized_map(fn, elems, fallback_to_while_loop=None, dtype=None, fn_output_signature=None,
                   parallel_iterations=None, name=None):
    """tf.vectorized_map; DGL also accepts map_fn's `dtype`, `fn_output_signature` and
    `parallel_iterations`, which it ignores, as here."""
    kwargs = {} if fallback_to_while_loop is None else {"fallback_to_while_loop": fallback_to_while_loop}
    return tf.vectorized_map(fn, elems, **kwargs)


def range_tensor(start, limit=None, delta=1, dtype=None):
    """`range_tensor(start, limit=None, delta=1, dtype=None)`: TF's `tf.range`
    with DGL's dtypes: int64 when every argument is a Python int, else float32
    (unless `dtype` is given). `range_tensor(n)` counts from 0 to n.

    Values: start + i * delta computed in float64, then converted (as DGL),
    except all-int int64 ranges, which are exact.
    Errors: ValueError for a zero delta or more than 2**28 elements.
    """
    dtype = _tf_dtype(dtype)
    lo, hi = (0, start) if limit is None else (start, limit)
    order = [tf.int32, tf.int64, tf.float32, tf.float64]  # TF's, widest last
    inferred = tf.int32
    for v, what in ((lo, "start"), (hi, "limit"), (delta, "delta")):
        d = _range_dtype(v, f"range_tensor {what}")
        if order.index(d) > order.index(inferred):
            inferred = d
    all_int = inferred.is_integer
    s = _float_arg(start, "start")
    if limit is None:
        s, lim = 0.0, s
    else:
        lim = _float_arg(limit, "limit")
    d = _float_arg(delta, "delta")
    if d == 0.0:
        raise ValueError("range_tensor: delta must not be zero")
    q = (lim - s) / d
    # As Rust's ceil().max(0.0): a NaN count is 0.
    n = 0 if math.isnan(q) else math.inf if math.isinf(q) else max(math.ceil(q), 0)
    if not math.isfinite(n) or n > MAX_ELEMENTS:
        # The count as Rust displays a float64: all its digits, no `.0`.
        digits, exp = _round_ties_up(*_digits(_py_repr(float(n))), float(n)) if math.isfinite(n) else ("", 0)
        count = digits.ljust(exp + 1, "0") if digits else "inf"
        raise ValueError(f"range_tensor of {count} elements is too large")
    dtype = dtype or inferred
    if all_int and dtype.is_integer:
        lo, hi, step = (int(_float_exact(v)) for v in (lo, hi, delta))
        arr = np.array(range(lo, hi, step), dtype=np.int64).reshape(-1)
        return tf.constant(arr.astype(dtype.as_numpy_dtype), dtype=dtype)
    vals = s + np.arange(n, dtype=np.float64) * d
    return _cast(tf.constant(vals, dtype=tf.float64), dtype)


# ---------------------------------------------------------------------------
# Data: read_csv, load_npy, save_npy
# ---------------------------------------------------------------------------

_script_dir = os.getcwd()
_here = os.getcwd()  # the exported script's own folder (its .npz of draws is there)


# Whether dtypes print as TF prints them: from the DGL program's `import tensorflow` on.
_tf_dtypes = False


def tf_dtypes():
    """The DGL program imported tensorflow: from here on a dtype prints as `<dtype: 'float32'>`."""
    global _tf_dtypes
    _tf_dtypes = True


def set_script(path, data_dir="."):
    """Relative paths given to the data functions resolve against the folder
    of the script at `path` (docs/language.md §4), as DGL resolves them against the
    running script's folder; `data_dir`, relative to that folder, is where the
    DGL script was when the export was written elsewhere (`-o`)."""
    global _script_dir, _here
    _here = os.path.dirname(os.path.abspath(path))
    _script_dir = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), data_dir))


def _resolve(path):
    return path if os.path.isabs(path) else os.path.join(_script_dir, path)


def _path_arg(path, function):
    if not isinstance(path, _py_str):
        raise TypeError(f"{function} path must be a string, not {_type_name(path)}")
    return path


def _os_error_text(e):
    """An OSError written as Rust writes an io::Error (`No such file or directory (os error 2)`)."""
    if e.errno is not None and e.strerror:
        return f"{e.strerror} (os error {e.errno})"
    return _py_str(e)


def _read_bounded(path):
    """The bytes of the regular file `path` (as the script named it), within DGL's budget.

    Errors: OSError (DGL's IOError) when it cannot be read or is not a regular
    file; ValueError when larger than 1 GiB (plus room for an .npy header)."""
    full = _resolve(path)
    try:
        st = os.stat(full)
    except OSError as e:
        raise OSError(f"cannot read '{path}': {_os_error_text(e)}") from None
    if not stat.S_ISREG(st.st_mode):
        raise OSError(f"cannot read '{path}': not a regular file")
    limit = MAX_BYTES + (1 << 16)
    if st.st_size > limit:
        raise ValueError(f"the file '{path}' ({st.st_size} bytes) is too large (the limit is {MAX_BYTES} bytes)")
    try:
        with open(full, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise OSError(f"cannot read '{path}': {_os_error_text(e)}") from None
    if len(data) > limit:
        raise ValueError(f"the file '{path}' is too large (the limit is {MAX_BYTES} bytes)")
    return data


def _csv_records(data):
    """Yields (fields, line, byte) for each record of CSV bytes, as Rust's csv
    crate reads them: ',' between fields, '"' quotes with '""' for a quote,
    records ended by \\n, \\r or \\r\\n, empty lines skipped; `line` (1-based)
    and `byte` (0-based) are where the record starts."""
    # A UTF-8 byte order mark at the start is not part of the first field.
    i, n, line = (3 if data.startswith(b"\xef\xbb\xbf") else 0), len(data), 1
    while i < n:
        # Skip empty lines.
        if data[i] in b"\r\n":
            if data[i] == 0x0A or not (i + 1 < n and data[i + 1] == 0x0A):
                line += 1
            i += 1
            continue
        start, start_line = i, line
        fields, field, quoted = [], bytearray(), False
        while i < n:
            c = data[i]
            if quoted:
                if c == 0x22:
                    if i + 1 < n and data[i + 1] == 0x22:
                        field.append(0x22)
                        i += 2
                        continue
                    quoted = False
                else:
                    if c == 0x0A:
                        line += 1
                    field.append(c)
                i += 1
            elif c == 0x22 and not field:
                quoted = True
                i += 1
            elif c == 0x2C:
                fields.append(bytes(field))
                field = bytearray()
                i += 1
            elif c in b"\r\n":
                break
            else:
                field.append(c)
                i += 1
        fields.append(bytes(field))
        yield fields, start_line, start


# Rust's f64 grammar (str::parse::<f64>): no underscores, no surrounding space, inf/nan words.
_RUST_FLOAT = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)


def read_csv(path, header=True, dtype=None):
    """`read_csv(path, header=True)` → `(tensor, column_names)` as DGL's read_csv.

    A float32 [rows, cols] tensor (float64 or int64 with `dtype`); with a
    header, its first record gives the column names (a list of str), else the
    names are []. Cells are trimmed and parsed as Rust parses floats (`inf`,
    `nan`, `1e3`, `.5`). An empty file is a (0, 0) tensor.

    Errors: OSError (DGL's IOError) when the file cannot be read; ValueError
    for a cell that is not a number (`path: line N: 'x' is not a number`, N
    counting records) or a record whose length differs from the first one's.
    """
    path = _path_arg(path, "read_csv")
    want = _tf_dtype(dtype) or tf.float32
    data = _read_bounded(path)
    names, values, rows, cols = [], [], 0, None
    first_len = None
    for index, (raw, line, byte) in enumerate(_csv_records(data)):
        try:
            fields = [f.decode("utf-8") for f in raw]
        except UnicodeDecodeError:
            raise ValueError(f"{path}: CSV parse error: record {index} (line {line}, byte: {byte}): "
                             "invalid utf-8") from None
        if first_len is None:
            first_len = len(fields)
        elif len(fields) != first_len:
            raise ValueError(f"{path}: CSV error: record {index} (line: {line}, byte: {byte}): found record "
                             f"with {len(fields)} fields, but the previous record has {first_len} fields")
        if header and index == 0:
            names = fields
            continue
        # DGL counts records, not physical lines: the n-th record (the header is the first) is line n.
        record_line = index + 1
        if cols is None:
            cols = len(fields)
        if len(values) + len(fields) > MAX_ELEMENTS:
            raise ValueError(f"{path}: more than {MAX_ELEMENTS} cells is too large for one tensor")
        for cell in fields:
            text = cell.strip()
            if not _RUST_FLOAT.fullmatch(text):
                raise ValueError(f"{path}: line {record_line}: '{cell}' is not a number")
            if want != tf.int64:
                values.append(float(text))
            elif re.fullmatch(r"[+-]?\d+", text) and -2 ** 63 <= int(text) < 2 ** 63:
                # Integers stay exact (9007199254740993 must not pass through float64).
                values.append(int(text))
            else:
                values.append(_float_to_int(float(text)))
        rows += 1
    cols = len(names) if cols is None else cols
    if want == tf.int64:
        arr = np.array(values, dtype=np.int64)
    else:
        with np.errstate(over="ignore"):
            arr = np.array(values, dtype=np.float64).astype(want.as_numpy_dtype)
    return tf.constant(arr.reshape(rows, cols), dtype=want), names


_NPY_DTYPES = {"f2": np.float16, "f4": np.float32, "f8": np.float64, "u1": np.uint8, "i1": np.int8,
               "i2": np.int16, "i4": np.int32, "i8": np.int64, "b1": np.bool_}


def load_npy(path):
    """`load_npy(path)`: a tensor from NumPy's .npy format: float16, float32,
    float64, uint8, int8, int16, int32, int64 or bool, C or Fortran order.

    Errors: OSError (DGL's IOError) when the file cannot be read, is not an
    .npy file, is truncated or holds another dtype."""
    path = _path_arg(path, "load_npy")
    data = _read_bounded(path)
    if len(data) < 10 or data[:6] != b"\x93NUMPY":
        raise OSError(f"'{path}' is not a valid .npy file: no .npy magic string")
    f = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, descr = np.lib.format.read_array_header_1_0(f)
        elif version in ((2, 0), (3, 0)):
            shape, _, descr = np.lib.format.read_array_header_2_0(f)
        else:
            raise ValueError("unknown format version")
    except Exception as e:  # noqa: BLE001 (numpy raises several kinds for a bad header)
        raise OSError(f"'{path}' is not a valid .npy file: {e}") from None
    kind = descr.str[1:] if descr.str[0] in "<>|=" else descr.str
    if kind not in _NPY_DTYPES or descr.hasobject:
        raise OSError(f"'{path}' is not a .npy file of a DGL dtype (float16, float32, float64, uint8, int8, "
                      "int16, int32, int64, bool)")
    if math.prod(shape) > MAX_ELEMENTS:
        raise ValueError(f"a tensor of shape {_repr(tuple(shape))} is too large")
    want = math.prod(shape) * descr.itemsize
    have = len(data) - f.tell()
    if have < want:
        raise OSError(f"'{path}' is truncated: its header promises {want} bytes of data, the file holds {have}")
    if have > want:
        raise OSError(f"'{path}' is not a valid .npy file: its header promises {want} bytes of data, "
                      f"the file holds {have}")
    arr = np.load(io.BytesIO(data), allow_pickle=False)
    arr = np.asarray(arr, order="C").astype(_NPY_DTYPES[kind], copy=False)
    return tf.constant(arr)


def load_npz(path):
    """`load_npz(path)`: the arrays of a NumPy .npz archive as a dict of tensors by name, in
    the archive's order (each member read as `load_npy` reads a file).

    Errors: OSError (DGL's IOError) when the file cannot be read or is not a zip archive of
    .npy files of DGL dtypes."""
    import zipfile
    path = _path_arg(path, "load_npz")
    data = _read_bounded(path)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
    except Exception as e:  # noqa: BLE001 (zipfile raises several kinds for a bad archive)
        raise OSError(f"'{path}' is not a .npz archive: {e}") from None
    out = {}
    for name in names:
        member = archive.read(name)
        arr = np.load(io.BytesIO(member), allow_pickle=False)
        kind = arr.dtype.str[1:] if arr.dtype.str[0] in "<>|=" else arr.dtype.str
        if kind not in _NPY_DTYPES:
            raise OSError(f"'{path}:{name}' is not a .npy file of a DGL dtype")
        out[name[:-4] if name.endswith(".npy") else name] = tf.constant(
            np.asarray(arr, order="C").astype(_NPY_DTYPES[kind], copy=False))
    return out


def _write_atomic(path, data):
    """Writes the bytes `data` at `path` (resolved as the script's paths are), atomically: a
    failed write keeps the previous file."""
    full = _resolve(path)
    folder = os.path.dirname(full) or "."
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".dgl-save-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, full)
        tmp = None
    except OSError as e:
        raise OSError(f"cannot write '{path}': {_os_error_text(e)}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


class trace:
    """DGL's native module `_trace` (src/builtins/trace_fns.rs) as the exported standard library
    reads it: whether a `tf.function` is being traced, which TF answers itself."""

    @staticmethod
    def tracing():
        return not tf.executing_eagerly()


class saving_io:
    """DGL's native module `_saving_io` (src/builtins/saving_fns.rs) in Python, for the exported
    standard library's saving (stdlib/_saving.dgl): the same HDF5 layout through h5py, the same
    zip archive through zipfile."""

    @staticmethod
    def _h5_bytes(groups, datasets):
        import h5py

        buf = io.BytesIO()
        with h5py.File(buf, "w") as f:
            for path, name in groups.items():
                g = f.require_group(path) if path else f
                if name is not None:
                    g.attrs["name"] = np.bytes_(name.encode())
            for path, value in datasets.items():
                arr = np.asarray(constant(value).numpy() if not hasattr(value, "numpy") else value.numpy())
                if arr.dtype == np.float16:
                    arr = arr.astype(np.float32)
                elif arr.dtype == np.bool_:
                    arr = arr.astype(np.uint8)
                f.create_dataset(path, data=arr)
        return buf.getvalue()

    @staticmethod
    def _h5_datasets(data, shown):
        import h5py

        if not data.startswith(b"\x89HDF\r\n\x1a\n"):
            raise OSError(f"'{shown}' is not an HDF5 file (no HDF5 signature)")
        out = {}
        with h5py.File(io.BytesIO(data), "r") as f:
            def visit(name, obj):
                if isinstance(obj, h5py.Dataset):
                    out[name] = tf.constant(obj[()])
            f.visititems(visit)
        return out

    @staticmethod
    def _read(path):
        full = _resolve(path)
        try:
            with open(full, "rb") as f:
                return f.read()
        except FileNotFoundError:
            raise FileNotFoundError(f"No such file or directory: '{path}'") from None
        except OSError as e:
            raise OSError(f"cannot read '{path}': {_os_error_text(e)}") from None

    @staticmethod
    def h5_write(path, groups, datasets):
        _write_atomic(path, saving_io._h5_bytes(groups, datasets))

    @staticmethod
    def h5_read(path):
        return saving_io._h5_datasets(saving_io._read(path), path)

    @staticmethod
    def archive_write(path, texts, weights_name, groups, datasets):
        import zipfile

        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in texts.items():
                z.writestr(name, text.encode())
            z.writestr(weights_name, saving_io._h5_bytes(groups, datasets))
        _write_atomic(path, buf.getvalue())

    @staticmethod
    def archive_read(path):
        import zipfile

        data = saving_io._read(path)
        try:
            z = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile as e:
            raise OSError(f"'{path}' is not a zip archive ({e}); a .keras file is one") from None
        out = {}
        for name in z.namelist():
            if name.endswith(".json") or name.endswith(".txt"):
                out[name] = z.read(name).decode()
            elif name.endswith(".h5"):
                out[name] = saving_io._h5_datasets(z.read(name), f"{path}/{name}")
        return out

    @staticmethod
    def write_text(path, text):
        _write_atomic(path, text.encode())

    @staticmethod
    def read_text(path):
        return saving_io._read(path).decode()

    @staticmethod
    def exists(path):
        full = _resolve(path)
        if os.path.isdir(full):
            return "dir"
        return "file" if os.path.exists(full) else None

    @staticmethod
    def makedirs(path):
        os.makedirs(_resolve(path), exist_ok=True)

    @staticmethod
    def remove(path):
        try:
            os.unlink(_resolve(path))
        except FileNotFoundError:
            pass


def save_npy(path, tensor):
    """`save_npy(path, tensor)`: writes NumPy's .npy format (C order) at
    exactly `path` (no `.npy` added), atomically: a failed write keeps the
    previous file. A number or list is converted as `constant` converts it.

    Errors: OSError (DGL's IOError) when the file cannot be written."""
    path = _path_arg(path, "save_npy")
    t = constant(tensor)
    buf = io.BytesIO()
    np.save(buf, np.asarray(t.numpy(), order="C"), allow_pickle=False)
    _write_atomic(path, buf.getvalue())
    return None
