"""DGL's text format for tensors and Variables, applied to TensorFlow values.

Mirrors src/runtime/format.rs (tensor_text / tensor_repr / Variable repr) and
src/tensor/scalar.rs (fmt_f32 / fmt_f64 = Rust `{}` / `{:e}` shortest round-trip text,
exponent form when |x| (as f64) is non-zero and outside [1e-4, 1e16)).

Validated byte for byte against the DGL binary by validate_dglfmt.py for the dtypes DGL
has (float32, float64, int64, bool); other TF dtypes follow the same rules:
  int8/16/32, uint8/16/32/64  -> like int64, `dtype=<name>`
  float16 / bfloat16          -> shortest text at that precision, `dtype=<name>`
  string                      -> Python repr of the element's bytes (b'abc'), `dtype=string`
  complex64/128               -> Python repr of the complex number, `dtype=<name>`
"""
import decimal

import numpy as np

import rustflt

SUMMARY_THRESHOLD = 1000
EDGE_ITEMS = 3


def _digits(x, kind):
    """(digit string, k) with |x| = 0.d1d2... * 10^k: the shortest round-trip digits at the
    precision of `kind`, as DGL chooses them: float32 -> Rust's flt2dec (Grisu/Dragon; an exact
    tie between two shortest candidates is broken away from zero), float64 -> CPython's repr
    (ties to even; DGL's fmt_f64 deliberately matches CPython there), float16 -> NumPy's
    shortest text (DGL has no float16; not validated)."""
    if kind is np.float32:
        digits, k = rustflt.shortest(float(x), 32)
        return "".join(map(str, digits)), k
    if kind is np.float64:
        t = decimal.Decimal(repr(abs(float(x)))).normalize().as_tuple()
    else:
        t = decimal.Decimal(np.format_float_scientific(abs(x), unique=True, trim="-")).normalize().as_tuple()
    ds = "".join(map(str, t.digits))
    return ds, t.exponent + len(ds)


def fmt_float(v, kind=np.float32) -> str:
    """One float element of a tensor of numpy float type `kind` (float16/32/64):
    Rust `{}` (plain) or `{:e}` (exponent form when |x| is outside [1e-4, 1e16)), plus `.0` on
    integral plain text, as DGL's fmt_f32/fmt_f64."""
    x = kind(v)
    f = float(x)
    if f != f:
        return "nan"
    if f in (float("inf"), float("-inf")):
        return "inf" if f > 0 else "-inf"
    sign = "-" if np.signbit(x) else ""
    if f == 0.0:
        return sign + "0.0"
    s, k = _digits(x, kind)
    a = abs(f)
    if not (1e-4 <= a < 1e16):
        m = s[0] + ("." + s[1:] if len(s) > 1 else "")
        return f"{sign}{m}e{k - 1}"
    if k <= 0:
        body = "0." + "0" * (-k) + s
    elif k < len(s):
        body = s[:k] + "." + s[k:]
    else:
        body = s + "0" * (k - len(s)) + ".0"
    return sign + body


def _elem_formatter(dtype_name):
    if dtype_name in ("float32",):
        return lambda v: fmt_float(v, np.float32)
    if dtype_name in ("float64", "double"):
        return lambda v: fmt_float(v, np.float64)
    if dtype_name in ("float16", "half"):
        return lambda v: fmt_float(v, np.float16)
    if dtype_name == "bfloat16":
        # shortest text at bfloat16 precision is not available in numpy; print the float32 value
        return lambda v: fmt_float(np.float32(v), np.float32)
    if dtype_name == "bool":
        return lambda v: "True" if bool(v) else "False"
    if dtype_name == "string":
        return lambda v: repr(bytes(v))
    if dtype_name.startswith("complex"):
        return lambda v: repr(complex(v))
    return lambda v: str(int(v))


def array_text(arr, dtype_name) -> str:
    """DGL's str of a tensor whose values are the numpy array `arr`."""
    arr = np.asarray(arr)
    fe = _elem_formatter(dtype_name)
    if arr.ndim == 0:
        return fe(arr[()])
    summarise = arr.size > SUMMARY_THRESHOLD
    flat = arr.reshape(-1)
    shape = arr.shape
    out = []

    def axis_text(axis, offset):
        n = shape[axis]
        stride = 1
        for s in shape[axis + 1:]:
            stride *= s
        if summarise and n > 2 * EDGE_ITEMS:
            idx = list(range(EDGE_ITEMS)) + [None] + list(range(n - EDGE_ITEMS, n))
        else:
            idx = list(range(n))
        out.append("[")
        for k, i in enumerate(idx):
            if k > 0:
                out.append(", ")
            if i is None:
                out.append("...")
            elif axis + 1 == len(shape):
                out.append(fe(flat[offset + i]))
            else:
                axis_text(axis + 1, offset + i * stride)
        out.append("]")

    axis_text(0, 0)
    return "".join(out)


def tensor_repr_text(arr, dtype_name) -> str:
    t = array_text(arr, dtype_name)
    if dtype_name == "float32":
        return f"tensor({t})"
    return f"tensor({t}, dtype={dtype_name})"


def variable_repr_text(arr, dtype_name, name=None) -> str:
    s = "Variable(" + array_text(arr, dtype_name)
    if dtype_name != "float32":
        s += f", dtype={dtype_name}"
    if name is not None:
        s += f", name={name!r}"
    return s + ")"


# ---------------------------------------------------------------- TensorFlow patch
def _tf_dtype_name(dt):
    return dt.name  # 'float32', 'int32', 'string', 'complex128', ...


def _var_user_name(v):
    """The name a user gave a tf.Variable, TF's ':0' suffix stripped; None for TF's default."""
    try:
        n = v.name
    except Exception:
        return None
    if n.endswith(":0"):
        n = n[:-2]
    if n in ("Variable", "UnreadVariable", ""):
        return None
    return n


def patch_tensorflow():
    """Make EagerTensor and ResourceVariable str/repr print in DGL's format."""
    from tensorflow.python.framework import ops
    from tensorflow.python.ops import resource_variable_ops

    def t_str(self):
        return array_text(self.numpy(), _tf_dtype_name(self.dtype))

    def t_repr(self):
        return tensor_repr_text(self.numpy(), _tf_dtype_name(self.dtype))

    def v_str(self):
        try:
            val = self.numpy()
        except Exception:
            return _orig_v_repr(self)
        return array_text(val, _tf_dtype_name(self.dtype))

    def v_repr(self):
        try:
            val = self.numpy()
        except Exception:  # uninitialised / graph-mode variable: leave TF's text
            return _orig_v_repr(self)
        return variable_repr_text(val, _tf_dtype_name(self.dtype), _var_user_name(self))

    ops._EagerTensorBase.__str__ = t_str
    ops._EagerTensorBase.__repr__ = t_repr
    _orig_v_repr = resource_variable_ops.BaseResourceVariable.__repr__
    resource_variable_ops.BaseResourceVariable.__str__ = v_str
    resource_variable_ops.BaseResourceVariable.__repr__ = v_repr
