"""Writes tests/data/special_tf.tsv: TensorFlow 2.21's values of its elementwise special
functions on seeded grids (edges included), which src/tensor/special/tests.rs compares DGL's
kernels against. Run with TF 2.21's Python: `python tools/gen_special_table.py`.

A float32 row's expected value is TF's float64 result at the float32 input, rounded to
float32: DGL computes float32 in float64 and rounds once, where TF's float32 kernels compute
in float32 (several ulps off for the iterative functions)."""
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(26)
N = 400  # float64 points per function (plus the edges); float32 gets N // 4


def logu(lo, hi, n):
    return np.exp(rng.uniform(np.log(lo), np.log(hi), n))


def sym(v):
    return np.concatenate([v, -v])


EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.inf, -np.inf, np.nan]
unary = {
    "lgamma": lambda n: np.concatenate([rng.uniform(-20, 50, n // 2), logu(1e-6, 1e6, n // 2), [-3.0, -2.5]]),
    "digamma": lambda n: np.concatenate([rng.uniform(-20, 50, n // 2), logu(1e-6, 1e6, n // 2), [1.4616321449683622]]),
    "erfinv": lambda n: np.concatenate([rng.uniform(-1, 1, n // 2), sym(1 - logu(1e-16, 0.5, n // 4)), [1e-300, 1e-9]]),
    "erfcinv": lambda n: np.concatenate([rng.uniform(0, 2, n // 2), logu(1e-300, 1, n // 4), 2 - logu(1e-16, 1, n // 4)]),
    "ndtri": lambda n: np.concatenate([rng.uniform(0, 1, n // 2), logu(1e-300, 0.5, n // 4), 1 - logu(1e-16, 0.5, n // 4)]),
    "bessel_i0": lambda n: np.concatenate([rng.uniform(-40, 40, n // 2), sym(logu(1e-8, 720, n // 4))]),
    "bessel_i0e": lambda n: np.concatenate([rng.uniform(-40, 40, n // 2), sym(logu(1e-8, 1e8, n // 4))]),
    "bessel_i1": lambda n: np.concatenate([rng.uniform(-40, 40, n // 2), sym(logu(1e-8, 720, n // 4))]),
    "bessel_i1e": lambda n: np.concatenate([rng.uniform(-40, 40, n // 2), sym(logu(1e-8, 1e8, n // 4))]),
    "rint": lambda n: np.concatenate([rng.uniform(-10, 10, n // 2), np.arange(-10.5, 10.5, 0.5), [4503599627370497.0]]),
    # No subnormal inputs: TF's CPU kernels flush them to zero, DGL's do not.
    "reciprocal_no_nan": lambda n: rng.normal(0, 10, n),
}
binary = {
    "atan2": lambda n: (rng.normal(0, 3, n), rng.normal(0, 3, n)),
    "polygamma": lambda n: (rng.integers(0, 6, n).astype(float), np.concatenate([rng.uniform(-5, 30, n // 2), logu(1e-3, 1e4, n - n // 2)])),
    "igamma": lambda n: (logu(1e-2, 2e2, n), logu(1e-3, 4e2, n)),
    "igammac": lambda n: (logu(1e-2, 2e2, n), logu(1e-3, 4e2, n)),
    "igamma_grad_a": lambda n: (logu(1e-1, 1e2, n), logu(1e-2, 2e2, n)),
    "zeta": lambda n: (rng.uniform(1.01, 30, n), np.concatenate([rng.uniform(0.05, 30, n // 2), logu(1e-2, 1e6, n - n // 2)])),
    "nextafter": lambda n: (rng.normal(0, 3, n), rng.normal(0, 3, n)),
    "multiply_no_nan": lambda n: (rng.normal(0, 3, n), np.where(rng.uniform(0, 1, n) < 0.2, 0.0, rng.normal(0, 3, n))),
}


def fn(name):
    if name == "igamma_grad_a":
        return lambda a, x: tf.raw_ops.IgammaGradA(a=a, x=x)
    return getattr(tf.math, name)


def fmt(v):
    return repr(float(v))


rows = []
for dtype, n in [(tf.float64, N), (tf.float32, N // 4)]:
    npd = dtype.as_numpy_dtype
    for name, gen in unary.items():
        xs = np.concatenate([gen(n), EDGES]).astype(npd)
        ys = fn(name)(tf.constant(xs.astype(np.float64))).numpy().astype(npd)
        rows += [(name, dtype.name, [x], y) for x, y in zip(xs, ys)]
    for name, gen in binary.items():
        a, b = gen(n)
        edges = np.array(EDGES)
        a = np.concatenate([a, np.repeat(edges, len(edges)), [1.0, 2.0, 3.0]]).astype(npd)
        b = np.concatenate([b, np.tile(edges, len(edges)), [0.5, 0.5, 0.5]]).astype(npd)
        # nextafter steps in the dtype itself: its float32 rows are TF's float32 results.
        wide = npd if name == "nextafter" else np.float64
        ys = fn(name)(tf.constant(a.astype(wide)), tf.constant(b.astype(wide))).numpy().astype(npd)
        rows += [(name, dtype.name, [p, q], y) for p, q, y in zip(a, b, ys)]
    a, b = logu(1e-1, 1e2, n), logu(1e-1, 1e2, n)
    x = rng.uniform(0, 1, n)
    e = np.array(EDGES)
    a = np.concatenate([a, [0.5] * len(e), e]).astype(npd)
    b = np.concatenate([b, [2.0] * len(e), [1.5] * len(e)]).astype(npd)
    x = np.concatenate([x, e, [0.3] * len(e)]).astype(npd)
    ys = tf.math.betainc(*(tf.constant(v.astype(np.float64)) for v in (a, b, x))).numpy().astype(npd)
    rows += [("betainc", dtype.name, [p, q, r], y) for p, q, r, y in zip(a, b, x, ys)]

with open(os.path.join(os.path.dirname(__file__), "..", "tests", "data", "special_tf.tsv"), "w") as f:
    f.write(f"# TensorFlow {tf.__version__}'s values of tf.math's special functions, written by tools/gen_special_table.py\n")
    f.write("# name\tdtype\targuments (comma-separated)\tTF's result\n")
    for name, dt, args, y in rows:
        f.write(f"{name}\t{dt}\t{','.join(fmt(v) for v in args)}\t{fmt(y)}\n")
print(len(rows), "rows")
