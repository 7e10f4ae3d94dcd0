"""Check dglfmt.py against the DGL binary, byte for byte.

Usage: DGL=target/release/dgl python validate_dglfmt.py [seed]   (needs numpy only)
Generates random float32/float64/int64/bool tensors of several shapes (tiny, huge, -0.0,
nan/inf, integral values, subnormals), prints them in DGL with print(x, repr(x)) and
repr(Variable(x[, name])), and compares with dglfmt's text.
"""
import math
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

import dglfmt

DGL = os.environ.get("DGL", "target/release/dgl")
SHAPES = [(), (3,), (2, 3), (2, 0), (1100,), (40, 40), (2, 3, 4), (7,), (1, 1001)]


def rand_float(rng):
    k = rng.random()
    if k < 0.05:
        return rng.choice([0.0, -0.0, math.nan, math.inf, -math.inf])
    if k < 0.13:  # values with short binary fractions: exact ties between shortest texts
        return rng.choice([-1, 1]) * (rng.randint(2**14, 2**53) + rng.randint(0, 15) / 16) * 2.0 ** rng.randint(-30, 10)
    if k < 0.2:
        return float(rng.randint(-10**6, 10**6)) * rng.choice([1, 1, 1e10, 1e-3])
    if k < 0.3:
        return rng.choice([1e-4, 1e16, 9.99999e-5, 1.0000001e16, 0.0001234, 1e15, 1e-45, 3e-39,
                           1.4e-45, 3.4e38, 1e308, 5e-324, 2.2250738585072014e-308, 0.1, 0.3])
    if k < 0.45:
        return rng.uniform(-1, 1) * 10 ** rng.uniform(-12, -3)
    if k < 0.6:
        return rng.uniform(-1, 1) * 10 ** rng.uniform(14, 40)
    if k < 0.7:
        return rng.uniform(-1, 1) * 10 ** rng.uniform(-330, 308)
    return rng.uniform(-1, 1) * 10 ** rng.uniform(-5, 17)


def lit(v):
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    if math.isnan(v):
        return 'float("nan")'
    if math.isinf(v):
        return 'float("inf")' if v > 0 else '-float("inf")'
    return repr(v)


def nested(vals, shape):
    if len(shape) == 0:
        return lit(vals[0])
    if len(shape) == 1:
        return "[" + ", ".join(lit(v) for v in vals) + "]"
    step = len(vals) // shape[0] if shape[0] else 0
    return "[" + ", ".join(nested(vals[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"


def make_case(rng, dtype, shape):
    n = int(np.prod(shape)) if shape else 1
    if dtype in ("float32", "float64"):
        vals = [rand_float(rng) for _ in range(n)]
        if dtype == "float32":
            vals = [v if not (abs(v) > 3.4e38 and math.isfinite(v)) else v / 1e300 for v in vals]
        arr = np.array(vals, dtype=np.float64).astype(dtype).reshape(shape)
    elif dtype == "int64":
        vals = [rng.choice([rng.randint(-10, 10), rng.randint(-2**62, 2**62)]) for _ in range(n)]
        arr = np.array(vals, dtype=np.int64).reshape(shape)
    else:
        vals = [rng.random() < 0.5 for _ in range(n)]
        arr = np.array(vals, dtype=bool).reshape(shape)
    if shape == (2, 0):
        src = "[[], []]"
    else:
        src = nested(vals, shape)
    return src, arr


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    rng = random.Random(seed)
    lines, expected = [], []
    nvals = 0
    for dtype in ("float32", "float64", "int64", "bool"):
        for shape in SHAPES:
            reps = 40 if shape in ((), (3,), (7,), (2, 3)) else 3
            for r in range(reps):
                src, arr = make_case(rng, dtype, shape)
                nvals += arr.size
                lines.append(f"x = constant({src}, dtype={dtype})")
                lines.append("print(x, repr(x))")
                expected.append(dglfmt.array_text(arr, dtype) + " " + dglfmt.tensor_repr_text(arr, dtype))
                name = None if r % 2 else f"v{r}"
                if name:
                    lines.append(f"print(repr(Variable(x, name={name!r})))")
                else:
                    lines.append("print(repr(Variable(x)))")
                expected.append(dglfmt.variable_repr_text(arr, dtype, name))
                lines.append("print(str(Variable(x)))")
                expected.append(dglfmt.array_text(arr, dtype))
    with tempfile.NamedTemporaryFile("w", suffix=".dgl", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    p = subprocess.run([DGL, path], capture_output=True, text=True, timeout=300)
    got = p.stdout.splitlines()
    if p.returncode != 0:
        print("DGL failed:", p.stderr[:2000])
    bad = 0
    for i, e in enumerate(expected):
        g = got[i] if i < len(got) else "<missing>"
        if g != e:
            bad += 1
            if bad <= 10:
                print(f"MISMATCH case {i}:\n  dgl: {g[:400]}\n  py : {e[:400]}")
    print(f"seed {seed}: {len(expected)} lines, {nvals} values, {bad} mismatches")
    return bad


if __name__ == "__main__":
    sys.exit(1 if main() else 0)
