

# ---------------------------------------------------------------------------------------------
# Run time of exported programs: DGL's random draws replayed, DGL's recompute_grad and
# custom_gradient contracts (docs/language.md §5) over tf.custom_gradient, and the small builtins
# TF spells differently. (Appended to dgl_tf.py by `dgl export`: src/export/dgl_tf_runtime.py.)
# ---------------------------------------------------------------------------------------------

import functools as _functools
import json as _json
import sys as _sys
import types as _types
import weakref as _weakref

import numpy as _np
import tensorflow as _tf

_draws = None  # the .npz DGL's run wrote, and how far the script has read it
_next_draw = 0


def load_draws(path):
    """Loads the random numbers DGL drew (an .npz beside the script): the exported script
    replays them in order, since TensorFlow's generators draw other numbers."""
    global _draws, _next_draw
    data = _np.load(os.path.join(_here, path))
    _draws = (data, _json.loads(bytes(data["meta"]).decode("utf-8")))
    _next_draw = 0


def _draw(op, shape=None):
    """The next tensor DGL's run drew, which must have come from op (and have shape)."""
    return _tf.constant(_drawn(op, shape))


def _drawn(op, shape=None):
    """The next value DGL's run drew (a NumPy array), which must have come from op."""
    global _next_draw
    if _draws is None:
        raise RuntimeError(f"{op}: this script has no recorded random numbers (export it again)")
    data, ops = _draws
    if _next_draw >= len(ops):
        raise RuntimeError(f"{op}: the script draws more random numbers than the DGL run did")
    if ops[_next_draw] != op:
        raise RuntimeError(f"{op}: the DGL run drew with {ops[_next_draw]} here; the script is out of step")
    value = data[f"draw_{_next_draw:05d}"]
    _next_draw += 1
    if shape is not None and tuple(int(d) for d in shape) != tuple(value.shape):
        raise RuntimeError(f"{op}: shape {tuple(shape)} differs from the DGL run's {tuple(value.shape)}")
    return value


def _python_random():
    """The module `dgl_tf_random`, what `import random` becomes: DGL's `random` functions
    replaying the numbers the DGL run drew (DGL's generator is not CPython's). Each
    function first checks its arguments as CPython's does (the same errors for an empty
    range or sequence), on a generator of its own whose numbers are thrown away."""
    import random as py_random

    check = py_random.Random(0)
    m = _types.ModuleType("dgl_tf_random", _python_random.__doc__)

    def seed(a=None, version=2):
        """Seeding is part of the recorded draws: nothing to do."""
        if a is not None and not isinstance(a, (int, float, builtins.str)):
            raise TypeError(f"The only supported seed types are: None, int, float, str, not {type(a).__name__}")

    def random():
        return float(_drawn("random.random"))

    def uniform(a, b):
        check.uniform(a, b)
        return float(_drawn("random.uniform"))

    def randint(a, b):
        check.randint(a, b)
        return int(_drawn("random.randint"))

    def randrange(start, stop=None, step=1):
        check.randrange(start, stop, step)
        return int(_drawn("random.randrange"))

    def choice(seq):
        items = list(seq)
        check.choice(items)
        return items[int(_drawn("random.choice"))]

    def shuffle(x):
        if not isinstance(x, list):
            raise TypeError("shuffle() needs a list (it shuffles in place)")
        order = _drawn("random.shuffle", [len(x)])
        x[:] = [x[int(i)] for i in order]

    def sample(population, k):
        items = list(population)
        check.sample(items, k)
        return [items[int(i)] for i in _drawn("random.sample", [k])]

    def gauss(mu=0.0, sigma=1.0):
        return float(_drawn("random.gauss"))

    for f in (seed, random, uniform, randint, randrange, choice, shuffle, sample, gauss):
        setattr(m, f.__name__, f)
    m.normalvariate = gauss
    return m


_sys.modules["dgl_tf_random"] = _python_random()


def _dims(shape):
    if isinstance(shape, (_tf.Tensor, _np.ndarray)):
        return [int(d) for d in _np.asarray(shape).reshape(-1)]
    if isinstance(shape, int):
        return [shape]
    return [int(d) for d in shape]


def set_seed(seed):
    """DGL's set_seed: the draws are replayed from DGL's run, so this only seeds TF's own."""
    _tf.random.set_seed(seed)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None):
    return _draw("random_normal", _dims(shape))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, name=None):
    return _draw("truncated_normal", _dims(shape))


def random_uniform(shape, minval=0, maxval=None, dtype=None, seed=None, name=None):
    return _draw("random_uniform", _dims(shape))


def random_shuffle(value, seed=None, name=None):
    return _draw("random_shuffle")


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    return _draw("categorical")


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """DGL's dropout: x times the scaled keep mask DGL drew (none for rate 0)."""
    if rate == 0:
        return x
    return x * _tf.cast(_draw("dropout"), x.dtype)


def function(func=None, **options):
    """DGL's `function` traces as `tf.function` does (docs/language.md "Traced functions"):
    TF's own, without XLA (`jit_compile` changes nothing in DGL)."""
    options.pop("jit_compile", None)
    signature = options.get("input_signature")
    if signature is not None:
        # DGL's TensorSpec (the exported standard library's) as TF's.
        options["input_signature"] = [
            s if isinstance(s, _tf.TensorSpec) else _tf.TensorSpec(s.shape, s.dtype, getattr(s, "name", None))
            for s in signature
        ]
    if options.pop("experimental_relax_shapes", None):
        options["reduce_retracing"] = True
    if func is None:
        return lambda f: _tf.function(f, **options)
    return _tf.function(func, **options)


def argv():
    return list(_sys.argv)


def progress(iterable, desc=None, total=None, leave=True, disable=None, **options):
    """DGL's progress bar draws on stderr only; the exported script iterates plainly."""
    return iterable


class ShapeError(ValueError):
    """DGL's ShapeError (TF reports shape mismatches as InvalidArgumentError)."""


def finish():
    """The end of the script: every draw DGL made must have been used."""
    if _draws is not None and _next_draw != len(_draws[1]):
        raise RuntimeError(
            f"the script used {_next_draw} of the {len(_draws[1])} random draws DGL made: out of step"
        )


def _is_tensor(x):
    return isinstance(x, _tf.Tensor) and not isinstance(x, _tf.Variable)


def _codes_reached(f):
    """The code objects f runs: its own, the nested ones (lambdas, comprehensions), and those
    of the functions of its module it names, transitively (a helper f calls)."""
    codes, todo, seen = [], [f.__code__], builtins.set()
    while todo:
        code = todo.pop()
        if id(code) in seen:
            continue
        seen.add(id(code))
        codes.append(code)
        todo.extend(c for c in code.co_consts if isinstance(c, _types.CodeType))
        for n in code.co_names:
            g = f.__globals__.get(n)
            if isinstance(g, _types.FunctionType) and g.__globals__ is f.__globals__:
                todo.append(g.__code__)
    return codes


def _captured_tensors(f):
    """The tensors f reads from its module's globals (directly or in the module's functions it
    calls) and from its closure: docs/language.md §5 gives them their true gradients, so they
    become explicit inputs of the checkpointed function."""
    code = getattr(f, "__code__", None)
    if code is None:
        return {}, {}
    globs = {}
    for c in _codes_reached(f):
        for n in c.co_names:
            if n in f.__globals__ and _is_tensor(f.__globals__[n]):
                globs[n] = f.__globals__[n]
    cells = {}
    for i, (n, c) in enumerate(zip(code.co_freevars, f.__closure__ or ())):
        try:
            v = c.cell_contents
        except ValueError:
            continue
        if _is_tensor(v):
            cells[i] = v
    return globs, cells


def _with_captured(f, globs, cells, values):
    """f rebuilt to read `values` where it read the captured tensors: its module's functions
    are rebuilt over the same substituted globals, so a helper f calls reads them too."""
    names = list(globs)
    g = dict(f.__globals__)
    g.update(zip(names, values[: len(names)]))
    for n, v in list(g.items()):
        if isinstance(v, _types.FunctionType) and v.__globals__ is f.__globals__:
            g[n] = _types.FunctionType(v.__code__, g, v.__name__, v.__defaults__, v.__closure__)
    closure = list(f.__closure__ or ())
    for (i, _), v in zip(cells.items(), values[len(names):]):
        closure[i] = _types.CellType(v)
    return _types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, tuple(closure) or None)


_recomputing = [0]


def recompute_grad(f=None, check=None):
    """DGL's recompute_grad (docs/language.md §5) over tf.custom_gradient: the forward pass
    keeps only the inputs; tape.gradient runs f again under a local tape. Unlike
    tf.recompute_grad, tensors f reads from globals or closures become explicit inputs (their
    gradients are true, not None), a Variable passed as an input is read into a tensor first
    (so it is not counted twice), random numbers are replayed (load_draws), and higher-order
    gradients run through the recomputation."""
    if f is None:
        return lambda fn: recompute_grad(fn, check=check)
    target = f if isinstance(f, _types.FunctionType) else getattr(f, "__call__", f)

    @_functools.wraps(f)
    def g(*args, **kwargs):
        if kwargs:  # keyword arguments are configuration, not differentiated (docs/language.md §5)
            return recompute_grad(_functools.partial(f, **kwargs))(*args)
        globs, cells = _captured_tensors(target)
        extra = list(globs.values()) + list(cells.values())
        fn = _with_captured(target, globs, cells, extra) if extra else target
        n = len(args)
        inputs = [_tf.identity(a) if isinstance(a, _tf.Variable) else a for a in args] + extra

        def run(values):
            if extra:
                fn2 = _with_captured(target, globs, cells, values[n:])
                return fn2(*values[:n])
            return fn(*values[:n])

        @_tf.custom_gradient
        def checkpointed(*xs):
            y = run(list(xs))

            def grad_fn(*upstream, variables=None):
                upstream = [_dense(u) for u in upstream]
                watched = [x for x in xs if isinstance(x, _tf.Tensor)]
                _recomputing[0] += 1
                try:
                    with _tf.GradientTape() as local:
                        local.watch(watched)
                        y2 = run(list(xs))
                finally:
                    _recomputing[0] -= 1
                sources = list(xs) + list(variables or [])
                ys = y2 if isinstance(y2, (list, tuple)) else [y2]
                grads = local.gradient(ys, sources, output_gradients=list(upstream),
                                       unconnected_gradients=_tf.UnconnectedGradients.ZERO)
                input_grads = grads[: len(xs)]
                if variables:
                    return input_grads, grads[len(xs):]
                return input_grads

            return y, grad_fn

        return checkpointed(*inputs)

    g.__wrapped__ = f
    return g


def custom_gradient(f):
    """DGL's custom_gradient (docs/language.md §5): tf.custom_gradient, with each gradient grad_fn
    returns checked against its input's shape and dtype (TF checks only their number)."""

    @_functools.wraps(f)
    def g(*args, **kwargs):
        def inner(*xs):
            y, grad_fn = f(*xs, **kwargs)

            def checked(*upstream, **kw):
                # DGL's upstream gradients are dense (TF's may be IndexedSlices).
                grads = grad_fn(*[_dense(u) for u in upstream], **kw)
                input_grads = grads[0] if kw.get("variables") else grads
                flat = list(input_grads) if isinstance(input_grads, (list, tuple)) else [input_grads]
                if len(xs) == 1 and not isinstance(input_grads, (list, tuple)):
                    flat = [input_grads]
                for i, (x, gr) in enumerate(zip(xs, flat)):
                    if gr is None or isinstance(gr, (int, float)) or not isinstance(x, _tf.Tensor):
                        continue
                    if tuple(gr.shape) != tuple(x.shape):
                        raise ValueError(
                            f"custom_gradient: {f.__name__}'s gradient for input {i} has shape "
                            f"{tuple(gr.shape)}, but the input has shape {tuple(x.shape)}"
                        )
                return grads

            return y, checked

        return _tf.custom_gradient(inner)(*args)

    return g


def round(number, ndigits=None):
    """DGL's round: Python's for numbers, TF's (half to even) elementwise for tensors."""
    if isinstance(number, (_tf.Tensor, _tf.Variable)):
        return _tf.round(number)
    return builtins.round(number) if ndigits is None else builtins.round(number, ndigits)


def _wide(x):
    """x as float64 when it is float32 (DGL accumulates float sums in float64)."""
    x = _tf.convert_to_tensor(x) if not isinstance(x, (_tf.Tensor, _tf.Variable)) else x
    if x.dtype in (_tf.float32, _tf.float16, _tf.bfloat16):
        return _tf.cast(x, _tf.float64), x.dtype
    return x, None


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """DGL's reduce_sum: a float32 sum accumulates in float64 (exact to the last digits on
    millions of terms, where TF's float32 accumulation drifts); the gradient is the same."""
    x, dtype = _wide(input_tensor)
    s = _tf.reduce_sum(x, axis=axis, keepdims=keepdims)
    return _tf.cast(s, dtype) if dtype is not None else s


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """DGL's reduce_mean, accumulated in float64 as reduce_sum."""
    x, dtype = _wide(input_tensor)
    s = _tf.reduce_mean(x, axis=axis, keepdims=keepdims)
    return _tf.cast(s, dtype) if dtype is not None else s


def _parameter_names(fn):
    """The names fn accepts as keyword arguments, in order (DGL's stdlib helper; a bound
    method's receiver left out, *args and **kwargs giving none)."""
    import inspect

    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in inspect.signature(fn).parameters.values() if p.kind in kinds]


def _hash_variables_by_identity():
    """DGL's Variables are hashable by identity (optimizers key their slots by them); TF's
    refuse hashing because `==` is elementwise. Identity hashing keeps `==` as it is: a dict
    finds a key by identity before it would compare. A strategy's variables (MirroredVariable,
    under --distribute) too."""
    import importlib

    for module, cls in [("tensorflow.python.ops.resource_variable_ops", "BaseResourceVariable"),
                        ("tensorflow.python.distribute.values", "DistributedVariable")]:
        try:
            getattr(importlib.import_module(module), cls).__hash__ = lambda self: id(self)
        except (ImportError, AttributeError):  # pragma: no cover - TF moved it
            pass


_hash_variables_by_identity()


# The Variables the program made through `tf.Variable` (not DGL's `Variable`), by id.
_TF_NAMED = _weakref.WeakValueDictionary()


class _TFVariableType(type):
    """The type of `TFVariable`: calling it makes a tf.Variable and notes it in `_TF_NAMED`;
    isinstance is tf.Variable's."""

    def __instancecheck__(cls, x):
        return isinstance(x, _tf.Variable)

    def __call__(cls, *args, **kwargs):
        v = _tf.Variable(*args, **kwargs)
        _TF_NAMED[id(v)] = v
        return v


class TFVariable(metaclass=_TFVariableType):
    """`tf.Variable` as the DGL program spelled it: a tf.Variable whose `name` keeps TF's `:0`
    (DGL's own `Variable` reads its name without it)."""


def name(x):
    """`x.name` as DGL shows it: a Variable's name without TF's `:0` suffix (TF's unnamed
    Variables are `Variable:0`, DGL's None-named ones print without a name), except for one
    the program made through `tf.Variable`, whose name is TF's."""
    n = x.name
    if _TF_NAMED.get(id(x)) is x:
        return n
    if isinstance(x, _tf.Variable) and isinstance(n, builtins.str) and n.endswith(":0"):
        return n[:-2]
    return n


def open(file, mode="r", *args, **kwargs):
    """DGL's open: a relative path starts at the script's folder (docs/language.md §4)."""
    return builtins.open(_resolve(file), mode, *args, **kwargs)


def where(condition, x=None, y=None, name=None):
    """DGL's where: a numeric condition counts as `condition != 0` (TF's needs bool)."""
    c = _tf.convert_to_tensor(condition)
    if c.dtype != _tf.bool:
        c = _tf.not_equal(c, _tf.zeros([], c.dtype))
    return _tf.where(c, x, y)


def softsign(features, name=None):
    """features / (1 + |features|), written with ops every order of derivative goes through
    (TF registers no gradient for SoftsignGrad, so its second derivative fails)."""
    return features / (1 + _tf.abs(features))


# Every Variable the program creates, in creation order (for save_variables). The creator
# scope is entered once per process (kept on the tf module), so importing this module again,
# as the parity test does for each script, does not nest scopes.
if not hasattr(_tf, "_dgl_tf_created"):
    _tf._dgl_tf_created = []

    def _track(next_creator, **kwargs):
        v = next_creator(**kwargs)
        _tf._dgl_tf_created.append(v)
        return v

    # Kept alive on purpose: a collected scope object would leave the scope.
    _tf._dgl_tf_scope = _tf.variable_creator_scope(_track)
    _tf._dgl_tf_scope.__enter__()
_created = _tf._dgl_tf_created
_created.clear()


def save_variables(folder):
    """Saves every Variable the program created as `folder/NNN_NAME.npy` (creation order,
    NumPy's .npy, which DGL's load_npy reads), and `folder/variables.txt` listing them: a model
    trained at scale comes back to DGL with `layer.kernel.assign(load_npy(...))`. Relative
    folders start where the DGL script's relative paths do."""
    os.makedirs(_resolve(folder), exist_ok=True)
    lines = []
    for i, v in enumerate(_created):
        file = f"{i:03d}_{name(v).replace('/', '_')}.npy"
        save_npy(os.path.join(folder, file), v)
        lines.append(f"{file} {v.dtype.name} {list(v.shape)}\n")
    with builtins.open(_resolve(os.path.join(folder, "variables.txt")), "w") as f:
        f.writelines(lines)


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """-sum(labels * log_softmax(logits)) over `axis`, written with differentiable ops: the
    true gradient for labels that do not sum to 1, and second derivatives that are right
    (TF's fused op gets both wrong, as DGL's docs say)."""
    return -_tf.reduce_sum(labels * _tf.nn.log_softmax(logits, axis=axis), axis=axis)


def _dense(g):
    return _tf.convert_to_tensor(g) if isinstance(g, _tf.IndexedSlices) else g


class GradientTape(_tf.GradientTape):
    """tf.GradientTape whose gradients are dense tensors, as DGL's are (TF gives the gradient
    of a gather as IndexedSlices, which prints and combines differently)."""

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=_tf.UnconnectedGradients.NONE):
        grads = super().gradient(target, sources, output_gradients=output_gradients,
                                 unconnected_gradients=unconnected_gradients)
        return _tf.nest.map_structure(_dense, grads)

    def batch_jacobian(self, target, source, unconnected_gradients=_tf.UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """tf.GradientTape.batch_jacobian, except where TF 2.21 departs from its own jacobian:
        an empty batch (TF divides by zero; DGL gives zeros of the batch Jacobian's shape,
        target + source[1:]), and a source the target does not depend on under 'none' (TF
        gives zeros; DGL gives None, as tf.GradientTape.jacobian does)."""
        if target.shape.rank and target.shape[0] == 0:
            return _tf.zeros(list(target.shape) + list(source.shape[1:]), source.dtype)
        none = unconnected_gradients in (_tf.UnconnectedGradients.NONE, "none")
        if none and self._persistent and super().gradient(target, source) is None:
            return None
        return super().batch_jacobian(target, source, unconnected_gradients=unconnected_gradients,
                                      parallel_iterations=parallel_iterations,
                                      experimental_use_pfor=experimental_use_pfor)


def _window_pair(value, data_format):
    """A strides/dilations argument as the (height, width) pair: an int, 1, 2 or 4 entries."""
    if isinstance(value, int):
        return value, value
    value = [int(v) for v in value]
    if len(value) == 1:
        return value[0], value[0]
    if len(value) == 2:
        return value[0], value[1]
    return (value[1], value[2]) if data_format == "NHWC" else (value[2], value[3])


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """tf.nn.conv2d, except where the window is larger than the VALID (or explicitly padded)
    input by less than one stride: the output then has a zero-sized spatial axis, as DGL and
    TF's reference kernel give, while TF's oneDNN kernel returns a tensor of the wrong shape.
    The empty result stays connected to both inputs (zero gradients). NCHW is computed on
    transposed axes, as DGL computes it: TF's CPU Conv2D refuses NCHW without oneDNN."""
    if data_format == "NCHW":
        def nhwc(v):
            return v if isinstance(v, int) or len(v) != 4 else [v[0], v[2], v[3], v[1]]
        x = _tf.transpose(_tf.convert_to_tensor(input), [0, 2, 3, 1])
        pad = padding if isinstance(padding, str) else nhwc(list(padding))
        y = conv2d(x, filters, nhwc(strides), pad, "NHWC", None if dilations is None else nhwc(dilations))
        return _tf.transpose(y, [0, 3, 1, 2])
    kwargs = {"data_format": data_format, "dilations": dilations}
    if isinstance(padding, str) and padding.upper() == "SAME":
        return _tf.nn.conv2d(input, filters, strides, padding, **kwargs)
    x, w = _tf.convert_to_tensor(input), _tf.convert_to_tensor(filters)
    axes = (1, 2) if data_format == "NHWC" else (2, 3)
    stride = _window_pair(strides, data_format)
    dilation = _window_pair(1 if dilations is None else dilations, data_format)
    out = []
    for i, axis in enumerate(axes):
        size = int(x.shape[axis])
        if not isinstance(padding, str):
            size += int(padding[axis][0]) + int(padding[axis][1])
        reach = (int(w.shape[i]) - 1) * dilation[i] + 1
        out.append((size - reach + stride[i]) // stride[i])
    if min(out) != 0:
        return _tf.nn.conv2d(input, filters, strides, padding, **kwargs)
    shape = [int(x.shape[0])] + out + [int(w.shape[3])]
    if data_format != "NHWC":
        shape = [shape[0], shape[3], shape[1], shape[2]]
    connected = _tf.reduce_sum(_tf.reshape(x, [-1])[:0]) + _tf.reduce_sum(_tf.reshape(w, [-1])[:0])
    return _tf.zeros(shape, x.dtype) + connected


def tile(input, multiples, name=None):
    """DGL's tile: an int `multiples` stands for a one-entry list (TF's needs the list)."""
    if isinstance(multiples, int):
        multiples = [multiples]
    return _tf.tile(input, multiples)
