"""Binds DGL's names to TensorFlow's and prints values in DGL's format (docs/language.md §3).

Used by run.py's TF server: make_env(identity_recompute, out, float64) returns the globals a
program is exec()'d in. numpy and TensorFlow are imported only when needed, so that importing
this module costs nothing.
"""
import math
import sys


def _np():
    import numpy
    return numpy


def fmt_float(x, f32):
    """DGL's float text: shortest round-trip digits (at float32 precision for float32 values,
    float16 precision when f32 is "f16"), '.0' when integral, exponent form below 1e-4 and
    from 1e16 on."""
    np = _np()
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if f32:
        narrow = np.float16 if f32 == "f16" else np.float32
        x = float(np.format_float_scientific(narrow(x), unique=True))
        digits = np.format_float_scientific(narrow(x), unique=True, trim="-")
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
        if dt.startswith(("int", "uint")):
            return str(int(v))
        return fmt_float(v, f32)
    return "[" + ", ".join(_elems(x, f32, dt) for x in a) + "]"


def _array(t):
    if type(t).__name__ == "IndexedSlices":  # gather's gradient: DGL prints it dense
        import tensorflow as tf
        t = tf.convert_to_tensor(t)
    return _np().asarray(t.numpy() if hasattr(t, "numpy") else t)


def tensor_str(t):
    a = _array(t)
    np = _np()
    return _elems(a, "f16" if a.dtype == np.float16 else a.dtype == np.float32, str(a.dtype))


def is_numpy(v):
    """A NumPy value (array, scalar, dtype): DGL prints it as NumPy does."""
    return type(v).__module__.split(".")[0] == "numpy"


def is_tensor(v):
    if hasattr(v, "numpy") and hasattr(v, "dtype"):
        return True
    if "tensorflow" not in sys.modules:
        return False
    import tensorflow as tf
    return isinstance(v, (tf.Tensor, tf.Variable, tf.IndexedSlices))


def dgl_repr(v, ref64=False):
    """repr as DGL writes it. ref64: the float64 reference run, where float64 stands for the
    program's float32, so it carries no dtype suffix."""
    if is_numpy(v):
        return repr(v)
    if is_tensor(v):
        s = tensor_str(v)
        dt = v.dtype.name if hasattr(v.dtype, "name") else str(v.dtype)
        extra = "" if dt == "float32" or ref64 and dt == "float64" else ", dtype=%s" % dt
        return "tensor(%s%s)" % (s, extra)
    return dgl_str_c(v, ref64)


def dgl_str_c(v, ref64=False):
    if isinstance(v, list):
        return "[" + ", ".join(dgl_repr(x, ref64) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(dgl_repr(x, ref64) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (dgl_repr(k, ref64), dgl_repr(x, ref64)) for k, x in v.items()) + "}"
    if is_numpy(v):
        return repr(v)
    if isinstance(v, float):
        return fmt_float(v, False)
    return repr(v)


def dgl_str(v, ref64=False):
    if is_numpy(v):
        return str(v)
    if is_tensor(v):
        return tensor_str(v)
    if isinstance(v, str):
        return v
    return dgl_str_c(v, ref64)


def save_array(path, t):
    """save_npy: the tensor's value as NumPy's .npy, keeping its dtype (float64 in the float64
    reference run)."""
    if t is None:  # DGL's save_npy takes tensors only
        raise TypeError("cannot convert a NoneType to a tensor")
    _np().save(path, _array(t), allow_pickle=False)


def identity_recompute(tf):
    """recompute_grad replaced by the identity: `f` is recorded as ordinary operations (so the
    mathematics is that of the plain program at every order), but its side effects (print)
    happen at the points where TF's recompute_grad has them: when the backward pass reaches the
    block's result, `f` runs again under a local tape whose gradient is taken (so blocks called
    inside `f` replay in turn); results of the replay are discarded. A block called while an
    enclosing block's `f` runs in the forward pass gets no replay of its own: as with
    recompute_grad, the enclosing block's replay covers it."""
    state = {"in_forward": False}

    def recompute_grad(f):
        def g(*args):
            if state["in_forward"]:
                return f(*args)
            state["in_forward"] = True
            try:
                y = f(*args)
            finally:
                state["in_forward"] = False
            if not isinstance(y, (tf.Tensor, tf.Variable)):
                return y

            xs = [a for a in args if isinstance(a, (tf.Tensor, tf.Variable))]

            # The block's tensor arguments are inputs of the hook too (with no gradient), so the
            # hook is on the tape, and replays, even when the block's result ignores them.
            @tf.custom_gradient
            def replay(r, *unused):
                def grad(up):
                    with tf.GradientTape() as local:
                        local.watch(xs)
                        again = f(*args)
                    srcs = xs + [v for v in local.watched_variables() if all(v is not x for x in xs)]
                    if srcs:
                        local.gradient(again, srcs, output_gradients=up)
                    return [up] + [None] * len(unused)
                return tf.identity(r), grad
            return replay(y, *xs)
        g.__wrapped__ = f
        return g
    return recompute_grad


def dense_gradients(tf):
    """GradientTape whose gradient() returns dense tensors where TF returns IndexedSlices
    (gather's gradient), as DGL's does: TF cannot multiply two IndexedSlices, so a second-order
    program through gather would fail in TF for a matter of representation."""
    class GradientTape(tf.GradientTape):
        def gradient(self, *args, **kwargs):
            g = super().gradient(*args, **kwargs)
            return tf.nest.map_structure(
                lambda t: tf.convert_to_tensor(t) if isinstance(t, tf.IndexedSlices) else t, g)
    return GradientTape


def make_env(identity_recompute=False, out=None, float64=False):
    """The globals for one program. identity_recompute: see identity_recompute(). out: where
    print writes (default stdout). float64: the float64 reference: every float tensor the
    program creates (constant, Variable of numbers, zeros, ones, fill, eye, linspace, float
    range_tensor, one_hot, cast to float32) is float64 instead, and prints in DGL's format."""
    import tensorflow as tf

    out = out if out is not None else sys.stdout
    F = tf.float64 if float64 else tf.float32

    def fl(dtype):  # the program's float32 is F
        return F if dtype is None or dtype == tf.float32 else dtype

    def dprint(*args, sep=" ", end="\n"):
        out.write(sep.join(dgl_str(a, float64) for a in args) + end)

    def constant(v, dtype=None):
        if isinstance(v, (tf.Tensor, tf.Variable)) and dtype is None:
            return tf.identity(v)
        return tf.constant(v, dtype=fl(dtype))

    def variable(initial, trainable=True, name=None, dtype=None):
        if not isinstance(initial, (tf.Tensor, tf.Variable)):
            initial = tf.constant(initial, dtype=fl(dtype))
        return tf.Variable(initial, trainable=trainable, name=name)

    def range_tensor(start, limit=None, delta=1, dtype=None):
        ints = all(isinstance(a, int) for a in (start, limit, delta) if a is not None)
        if dtype is None:
            dtype = tf.int64 if ints else F
        else:
            dtype = fl(dtype)
        if limit is None:
            start, limit = 0, start
        return tf.range(start, limit, delta, dtype=dtype)

    def linspace(start, stop, num):
        return tf.linspace(tf.constant(start, F), tf.constant(stop, F), num)

    def fill(dims, value):
        return tf.fill(dims, tf.constant(value, F if isinstance(value, float) else None))

    env = {
        "print": dprint, "tf": tf,
        "constant": constant, "convert_to_tensor": constant,
        "Variable": variable, "GradientTape": dense_gradients(tf),
        "float32": F, "float64": tf.float64, "int64": tf.int64,
        # the narrow dtypes are TF's own in every reference (the float64 run widens float32 only)
        "float16": tf.float16, "half": tf.float16, "int32": tf.int32, "int16": tf.int16, "int8": tf.int8, "uint8": tf.uint8,
        "bool": bool, "repr": lambda v: dgl_repr(v, float64),
        "custom_gradient": tf.custom_gradient,
        "recompute_grad": globals()["identity_recompute"](tf) if identity_recompute else tf.recompute_grad,
        "stop_gradient": tf.stop_gradient, "cast": lambda x, dtype: tf.cast(x, fl(dtype)),
        "neg": tf.negative, "abs": tf.abs, "exp": tf.exp, "log": tf.math.log, "sqrt": tf.sqrt,
        "add": tf.add, "subtract": tf.subtract, "multiply": tf.multiply, "divide": tf.divide,
        "negative": tf.negative,
        "log1p": tf.math.log1p, "tan": tf.tan, "reciprocal": tf.math.reciprocal, "sign": tf.sign,
        "square": tf.square, "sin": tf.sin, "cos": tf.cos, "tanh": tf.tanh, "pow": tf.pow,
        "sigmoid": tf.sigmoid, "relu": tf.nn.relu, "softplus": tf.nn.softplus,
        "maximum": tf.maximum, "minimum": tf.minimum, "where": tf.where,
        "floormod": tf.math.floormod, "floordiv": tf.math.floordiv,
        "clip_by_value": tf.clip_by_value,
        "reduce_sum": tf.reduce_sum, "reduce_mean": tf.reduce_mean, "reduce_max": tf.reduce_max,
        "reduce_min": tf.reduce_min, "reduce_logsumexp": tf.reduce_logsumexp, "argmax": tf.argmax,
        "reduce_prod": tf.reduce_prod,
        "matmul": tf.matmul, "transpose": tf.transpose, "reshape": tf.reshape,
        "expand_dims": tf.expand_dims, "squeeze": tf.squeeze, "concat": tf.concat,
        "stack": tf.stack, "tile": tf.tile, "gather": tf.gather,
        "softmax": tf.nn.softmax, "log_softmax": tf.nn.log_softmax,
        # The mathematics reference also unfuses TF's cross-entropy: TF's fused kernel drops the
        # labels' share of the second derivative (labels that depend on the source).
        "softmax_cross_entropy_with_logits": (
            (lambda labels, logits: -tf.reduce_sum(labels * tf.nn.log_softmax(logits), axis=-1))
            if identity_recompute else tf.nn.softmax_cross_entropy_with_logits),
        "sparse_softmax_cross_entropy_with_logits": tf.nn.sparse_softmax_cross_entropy_with_logits,
        "zeros": lambda shape, dtype=None: tf.zeros(shape, fl(dtype)),
        "ones": lambda shape, dtype=None: tf.ones(shape, fl(dtype)),
        "zeros_like": tf.zeros_like, "ones_like": tf.ones_like,
        "eye": lambda n, m=None, dtype=None: tf.eye(n, m, dtype=fl(dtype)),
        "fill": fill, "range_tensor": range_tensor, "linspace": linspace,
        "one_hot": lambda indices, depth, dtype=None: tf.one_hot(indices, depth, dtype=fl(dtype)),
        "save_npy": save_array,
    }
    return env


def _self_test_tf():
    """make_env's bindings (needs TensorFlow): float64 reference, identity recompute, save_npy."""
    import io
    import os
    import tempfile
    np = _np()
    prog = (
        "x = constant([1.0, 2.0])\n"
        "print(x, cast(range_tensor(3), float32), one_hot([1, 0], 2), zeros([2]))\n"
        "print([x], linspace(0.0, 1.0, 3), range_tensor(3), Variable(0.1))\n"
        "@recompute_grad\n"
        "def blk(a):\n"
        "    print('blk')\n"
        "    return sin(a)\n"
        "with GradientTape() as t:\n"
        "    t.watch(x)\n"
        "    y = reduce_sum(blk(x))\n"
        "print(t.gradient(y, x))\n"
        "save_npy('@OUT@/g1.npy', x)\n")
    got = {}
    for f64 in (False, True):
        for ident in (False, True):
            buf = io.StringIO()
            d = tempfile.mkdtemp()
            exec(prog.replace("@OUT@", d), make_env(ident, buf, f64))
            got[f64, ident] = buf.getvalue()
            a = np.load(os.path.join(d, "g1.npy"))
            assert a.dtype == (np.float64 if f64 else np.float32), a.dtype
    want = ("[1.0, 2.0] [0.0, 1.0, 2.0] [[0.0, 1.0], [1.0, 0.0]] [0.0, 0.0]\n"
            "[tensor([1.0, 2.0])] [0.0, 0.5, 1.0] [0, 1, 2] 0.1\n"
            "blk\nblk\n[0.5403023, -0.41614684]\n")
    assert got[False, False] == want, got[False, False]
    assert got[False, True] == want, got[False, True]  # the re-run's print happens too
    # nested blocks called twice: the identity run prints what recompute_grad prints, in its order
    nested = (
        "@recompute_grad\n"
        "def inner(a):\n"
        "    print('inner', a)\n"
        "    return sin(a)\n"
        "@recompute_grad\n"
        "def outer(a):\n"
        "    print('outer', a)\n"
        "    return inner(a) * inner(a * 2.0)\n"
        "x = constant(0.5)\n"
        "with GradientTape() as t:\n"
        "    t.watch(x)\n"
        "    y = outer(x) + outer(x * 3.0)\n"
        "print(t.gradient(y, x))\n")
    runs = []
    for ident in (False, True):
        buf = io.StringIO()
        exec(nested, make_env(ident, buf))
        runs.append(buf.getvalue())
    assert runs[0] == runs[1] and runs[0].count("\n") == 17, runs
    w64 = want.replace("[0.5403023, -0.41614684]", "[0.5403023058681398, -0.4161468365471424]")
    assert got[True, False] == w64 and got[True, True] == w64, got[True, False]


if __name__ == "__main__":  # self-test of the formatter (numpy only), then of make_env (with TF)
    np = _np()
    cases = [(0.1, True, "0.1"), (2.0, True, "2.0"), (1e-5, True, "1e-5"), (1e20, False, "1e20"),
             (0.0002, True, "0.0002"), (-266258.75, True, "-266258.75"), (float("nan"), True, "nan"),
             (1.5e16, False, "1.5e16"), (0.10000000149011612, False, "0.10000000149011612"),
             (123456789.0, True, "123456790.0")]
    for x, f32, want in cases:
        got = fmt_float(x, f32)
        assert got == want, (x, f32, got, want)
    assert _elems(np.array([[1.0, 2.5]], np.float32), True, "float32") == "[[1.0, 2.5]]"
    assert dgl_str_c((1,)) == "(1,)" and dgl_str(None) == "None"
    assert dgl_str_c([1.5, "a"]) == "[1.5, 'a']" and dgl_str("blk") == "blk"
    # float16 elements: the fewest digits that read back as the same float16; int dtypes
    assert _elems(np.array([0.1, np.inf], np.float16), "f16", "float16") == "[0.1, inf]"
    assert _elems(np.array([250, 7], np.uint8), False, "uint8") == "[250, 7]"
    # NumPy values print as NumPy prints them: str at the top, repr inside containers
    a = np.array([1.0, 2.5], np.float32)
    assert dgl_str(a) == "[1.  2.5]" and dgl_str_c([a]) == "[array([1. , 2.5], dtype=float32)]"
    assert dgl_str(np.float32(0.1)) == "0.1" and dgl_str_c([np.float64(0.5)]) == "[np.float64(0.5)]"
    print("prelude self-test ok (formatter)")
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        print("prelude: no TensorFlow, make_env not tested")
        sys.exit(0)
    _self_test_tf()
    print("prelude self-test ok (make_env: float64, identity recompute, save_npy)")
