"""Binds DGL's names to TensorFlow's and prints values in DGL's format (LANGUAGE.md section 3).

Used by run.py's TF server: make_env(identity_recompute) returns the globals a program is exec()'d in.
"""
import builtins
import math

import numpy as np


def fmt_float(x, f32):
    """DGL's float text: shortest round-trip digits (at float32 precision for float32 values),
    '.0' when integral, exponent form below 1e-4 and from 1e16 on."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if f32:
        x = float(np.format_float_scientific(np.float32(x), unique=True))
        digits = np.format_float_scientific(np.float32(x), unique=True, trim="-")
    else:
        digits = np.format_float_scientific(x, unique=True, trim="-")
    mant, exp = digits.split("e")
    e = int(exp)
    if x != 0 and (abs(x) < 1e-4 or abs(x) >= 1e16):
        return "%se%d" % (mant, e)
    s = repr(x)
    if "e" in s:  # python uses exponent between 1e16 only; handled above
        s = np.format_float_positional(x, unique=True, trim="0")
    return s


def _elems(a, f32, dt):
    if a.ndim == 0:
        v = a.item()
        if dt == "bool":
            return "True" if v else "False"
        if dt.startswith("int"):
            return str(int(v))
        return fmt_float(v, f32)
    return "[" + ", ".join(_elems(x, f32, dt) for x in a) + "]"


def tensor_str(t):
    if type(t).__name__ == "IndexedSlices":  # gather's gradient: DGL prints it dense
        import tensorflow as tf
        t = tf.convert_to_tensor(t)
    a = np.asarray(t.numpy() if hasattr(t, "numpy") else t)
    return _elems(a, a.dtype == np.float32, str(a.dtype))


def is_tensor(v):
    import tensorflow as tf
    return isinstance(v, (tf.Tensor, tf.Variable, tf.IndexedSlices)) or hasattr(v, "numpy") and hasattr(v, "dtype")


def dgl_repr(v):
    if is_tensor(v):
        s = tensor_str(v)
        dt = v.dtype.name if hasattr(v.dtype, "name") else str(v.dtype)
        extra = "" if dt == "float32" else ", dtype=%s" % dt
        return "tensor(%s%s)" % (s, extra)
    return dgl_str_c(v)


def dgl_str_c(v):
    if isinstance(v, list):
        return "[" + ", ".join(dgl_repr(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(dgl_repr(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (dgl_repr(k), dgl_repr(x)) for k, x in v.items()) + "}"
    if isinstance(v, float):
        return fmt_float(v, False)
    return repr(v)


def dgl_str(v):
    if is_tensor(v):
        return tensor_str(v)
    if isinstance(v, str):
        return v
    return dgl_str_c(v)


def make_env(identity_recompute=False, out=None):
    import tensorflow as tf

    def dprint(*args, sep=" ", end="\n"):
        out.write(sep.join(dgl_str(a) for a in args) + end)

    env = {
        "print": dprint, "tf": tf,
        "constant": lambda v, dtype=tf.float32: tf.constant(v, dtype=dtype),
        "Variable": tf.Variable, "GradientTape": tf.GradientTape,
        "float32": tf.float32, "float64": tf.float64, "int64": tf.int64,
        "custom_gradient": tf.custom_gradient,
        "recompute_grad": (lambda f: f) if identity_recompute else tf.recompute_grad,
        "stop_gradient": tf.stop_gradient, "cast": tf.cast,
        "neg": tf.negative, "abs": tf.abs, "exp": tf.exp, "log": tf.math.log, "sqrt": tf.sqrt,
        "square": tf.square, "sin": tf.sin, "cos": tf.cos, "tanh": tf.tanh,
        "sigmoid": tf.sigmoid, "relu": tf.nn.relu, "softplus": tf.nn.softplus,
        "maximum": tf.maximum, "minimum": tf.minimum, "where": tf.where,
        "clip_by_value": tf.clip_by_value,
        "reduce_sum": tf.reduce_sum, "reduce_mean": tf.reduce_mean, "reduce_max": tf.reduce_max,
        "reduce_min": tf.reduce_min, "reduce_logsumexp": tf.reduce_logsumexp,
        "matmul": tf.matmul, "transpose": tf.transpose, "reshape": tf.reshape,
        "expand_dims": tf.expand_dims, "squeeze": tf.squeeze, "concat": tf.concat,
        "stack": tf.stack, "tile": tf.tile, "gather": tf.gather,
        "softmax": tf.nn.softmax, "log_softmax": tf.nn.log_softmax,
        "softmax_cross_entropy_with_logits": tf.nn.softmax_cross_entropy_with_logits,
        "sparse_softmax_cross_entropy_with_logits": tf.nn.sparse_softmax_cross_entropy_with_logits,
        "zeros": tf.zeros, "ones": tf.ones,
    }
    return env


if __name__ == "__main__":  # self-test of the formatter (numpy only)
    cases = [(0.1, True, "0.1"), (2.0, True, "2.0"), (1e-5, True, "1e-5"), (1e20, False, "1e20"),
             (0.0002, True, "0.0002"), (-266258.75, True, "-266258.75"), (float("nan"), True, "nan"),
             (1.5e16, False, "1.5e16"), (0.10000000149011612, False, "0.10000000149011612"),
             (123456789.0, True, "123456790.0")]
    for x, f32, want in cases:
        got = fmt_float(x, f32)
        assert got == want, (x, f32, got, want)
    assert _elems(np.array([[1.0, 2.5]], np.float32), True, "float32") == "[[1.0, 2.5]]"
    assert dgl_str_c((1,)) == "(1,)" and dgl_str(None) == "None"
    print("prelude self-test ok")
