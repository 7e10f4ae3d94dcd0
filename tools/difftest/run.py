"""Differential tester: DGL against TensorFlow 2.21 (see docs/difftest.md).

  run.py --seeds 0:10000 -j 2 --log core.jsonl   run programs, resumable, summary by class
  run.py --scale --seeds 0:1000 -j 2             the same on large tensors (every saved tensor compared in full)
  run.py --replay 17 [--scale]                   print program 17, DGL's and TF's outputs, the verdict
  run.py --shrink 17 [--scale]                   reduce program 17 to a small program of the same class
  run.py --corpus 17|FILE NAME                   write program 17 (or FILE, e.g. a shrunk reproducer) and DGL's
                                                 output, once checked against TF, as tests/difftest/NAME.dgl/.out
  run.py --summary core.jsonl                    summarise a log
  run.py --self-check                            no TensorFlow: comparator tests, generated programs run in DGL

Three TF references: "tf" (the program as written, float32), "tf64" (float64, the mathematics:
recompute_grad replaced by the identity and the fused cross-entropy by its definition; used for the
precision rule) and, only for programs where the two can differ, "tf-identity" (the mathematics in
float32), which tells a TF bug from a DGL bug.
"""
import argparse
import json
import os
import queue
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import shrink  # noqa: E402

NUM = re.compile(r"-?(?:\d+\.\d*(?:e[-+]?\d+)?|\d+e[-+]?\d+|\d+|nan|inf)")
INT = re.compile(r"-?\d+$")
DGL = os.environ.get("DGL", os.path.join(ROOT, "target", "debug", "dgl"))
TFPY = os.environ.get("TFPY", sys.executable)
TF_TIMEOUT = 120

SERVER = r'''
import io, json, sys, os, linecache
sys.path.insert(0, %r)
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import prelude
ident, f64 = sys.argv[1] == "1", sys.argv[2] == "1"
for line in sys.stdin:
    src = json.loads(line)
    buf = io.StringIO()
    # AutoGraph reads a tf.function's source: registered as IPython registers a cell's.
    name = "<prog-%%d>" %% len(linecache.cache)
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    try:
        exec(compile(src, name, "exec"), prelude.make_env(ident, buf, float64=f64))
        err = None
    except BaseException as e:
        err = type(e).__name__ + ": " + str(e).splitlines()[0][:200] if str(e) else type(e).__name__
    sys.stdout.write(json.dumps({"out": buf.getvalue(), "err": err}) + "\n")
    sys.stdout.flush()
''' % HERE


# ---------------------------------------------------------------- comparison

# The least magnitude of a line that is mathematically zero: its numbers come from terms of order
# 1 that cancel (the generator keeps values there), so round-off within 2e-5 x this passes.
ZERO_SCALE = 1e-2


# Programs that compute in float16 (gen.py's float16 productions): one float16 rounding of a
# value (relative 2^-11) changes it far beyond the float32 rule, and TF's half kernels round at
# other points than DGL's (each Eigen half operation, where DGL rounds once per op), so there the
# number rule's relative and absolute terms are these (a few float16 ulps) instead, and the
# absolute term is relative to the whole output's largest magnitude (float16's subnormals below
# 6e-5 are spaced 6e-8 apart: a small second derivative computed through them has no more).
TOL = threading.local()
F32_TOL = (2e-4, 2e-5)
F16_TOL = (4e-3, 4e-3)


def tolerance():
    return getattr(TOL, "rel_abs", F32_TOL)


# How many times TF's own worst float32 error a saved tensor's worst error may be (float32
# worst-case errors of different summation orders were seen up to 6 times apart).
ARRAY_SPREAD = 8


def number_ok(x, y, z, big):
    """DGL's x against TF's float32 y: within relative 2e-4 of y plus 2e-5 x `big` (the largest
    magnitude on y's line), or nearer TF's float64 value z than twice TF's own float32 error."""
    if x == y or (x != x and y != y):
        return True
    rel, absolute = tolerance()
    if abs(x - y) <= rel * abs(y) + absolute * big:
        return True
    return z is not None and z == z and abs(x - z) <= 2 * abs(y - z)


def line_within_spread(na, nb, nz):
    """The rule for a whole tensor (one printed line, or a saved tensor): DGL's worst error
    against float64 within ARRAY_SPREAD times TF's worst, plus 2e-5 x float64's largest
    magnitude. Needs float64 values for every number. Where terms cancel (long matmul sums,
    gradients that are small differences of larger terms) single elements carry float32 errors
    above the element rule on both sides, at different places, and the worst error of one
    summation order is several times another's; a wrong term is as large as the values."""
    if not nz or any(z is None or z != z or abs(z) == float("inf") for z in nz):
        return False
    if any(x != x or abs(x) == float("inf") for x in na):
        return False
    mine = max(abs(x - z) for x, z in zip(na, nz))
    theirs = max(abs(y - z) for y, z in zip(nb, nz))
    return mine <= ARRAY_SPREAD * theirs + tolerance()[1] * max(abs(z) for z in nz)


def line_numbers(line):
    return [float(x) for x in NUM.findall(line)]


def same_text(a, b, exact_spacing):
    """a and b read the same outside their numbers. Unless exact_spacing, runs of spaces count as
    one and spaces inside brackets as none: NumPy pads every element of an array to the widest
    one's digits (`[0.5       1.0000001]`), so a last-digit difference anywhere in the array
    moves the padding of all its lines; where every number of the output has the same digits
    (exact_spacing), the spacing must be the same too."""
    ta, tb = NUM.sub("#", a), NUM.sub("#", b)
    if ta == tb:
        return True
    if exact_spacing:
        return False

    def squeeze(t):
        return re.sub(r"([\[(]) +| +([\])])", r"\1\2", re.sub(r" +", " ", t))
    return squeeze(ta) == squeeze(tb)


def finite_max(nums):
    return max([abs(v) for v in nums if v == v and abs(v) != float("inf")] or [0.0])


def compare(dgl, tf, tf64=None):
    """None when DGL's text matches TF's: identical outside numbers, every number passing
    `number_ok` (tf64, when given and of the same shape, supplies the float64 values). A line
    whose numbers TF prints all as 0, or all as round-off of float64's values, takes as its `big`
    the largest magnitude of TF's whole output, and at least ZERO_SCALE. Otherwise the reason,
    starting with a one-word kind."""
    dl, tl = dgl.splitlines(), tf.splitlines()
    hl = tf64.splitlines() if tf64 is not None else []
    if len(dl) != len(tl):
        return "lines: %d vs %d" % (len(dl), len(tl))
    if len(hl) != len(tl):  # NumPy wraps float64's longer digits elsewhere: no line-by-line guide
        hl = []
    whole = finite_max(line_numbers(tf))
    exact_spacing = NUM.findall(dgl) == NUM.findall(tf)
    for i, (a, b) in enumerate(zip(dl, tl)):
        if not same_text(a, b, exact_spacing):
            kind = "None-vs-number" if ("None" in a) != ("None" in b) else "text"
            return "%s: line %d: %r vs %r" % (kind, i + 1, a[:80], b[:80])
        for x, y in zip(NUM.findall(a), NUM.findall(b)):
            if INT.match(y) and x != y:  # an integer (int dtypes, counts, shapes) is exact
                return "number: line %d: integer %s vs %s" % (i + 1, x, y)
        na, nb = line_numbers(a), line_numbers(b)
        nz = line_numbers(hl[i]) if i < len(hl) else []
        if len(nz) != len(nb):
            nz = [None] * len(nb)
        # A line TF prints as exact zeros, or whose every number is round-off (not one correct
        # digit against float64), has no magnitude of its own: it is a mathematically zero
        # gradient computed from terms that cancel, and the output's largest magnitude stands in.
        noise = all(y == 0 for y in nb) or (
            nz[:1] != [None] and all(y == y and z == z and abs(y - z) >= abs(z) / 2 for y, z in zip(nb, nz)))
        big = max(finite_max(nb), whole, ZERO_SCALE) if noise else finite_max(nb)
        if tolerance() is F16_TOL:  # float16's spacing is absolute below 6e-5 (subnormals):
            big = max(big, whole)   # the output's largest magnitude sets the absolute term
        bad = [(x, y, z) for x, y, z in zip(na, nb, nz) if not number_ok(x, y, z, big)]
        if bad and not line_within_spread(na, nb, nz):
            x, y, z = bad[0]
            return "number: line %d: %r vs %r (float64 %r)" % (i + 1, x, y, z)
    return None


def compare_arrays(dgl_dir, tf_dir, tf64_dir=None):
    """Every .npy file TF wrote must exist on DGL's side with the same shape and dtype, every
    element passing `number_ok`, where `big` is the largest magnitude in TF's whole tensor (the
    tensor's printed line); or, with a float64 run, the whole tensor nearer float64 than twice
    TF's own largest error plus 2e-5 x float64's largest magnitude."""
    import numpy as np
    names = sorted(os.listdir(tf_dir))
    mine = sorted(os.listdir(dgl_dir))
    if names != mine:
        return "files: %s vs %s" % (mine, names)
    for n in names:
        a, b = np.load(os.path.join(dgl_dir, n)), np.load(os.path.join(tf_dir, n))
        if a.shape != b.shape or a.dtype != b.dtype:
            return "array: %s: %s %s vs %s %s" % (n, a.shape, a.dtype, b.shape, b.dtype)
        if a.dtype.kind not in "fc":
            if not np.array_equal(a, b):
                return "array: %s: values differ" % n
            continue
        x, y = a.astype(np.float64), b.astype(np.float64)
        fin = np.isfinite(y)
        big = float(np.max(np.abs(y[fin]))) if fin.any() else 0.0
        rel, absolute = tolerance()
        ok = (x == y) | (np.isnan(x) & np.isnan(y)) | (np.abs(x - y) <= rel * np.abs(y) + absolute * big)
        z = None
        if tf64_dir is not None and os.path.exists(os.path.join(tf64_dir, n)):
            z = np.load(os.path.join(tf64_dir, n)).astype(np.float64)
            if z.shape != y.shape:
                z = None
        if z is not None:
            ok |= np.abs(x - z) <= 2 * np.abs(y - z)
            # The tensor as a whole (see line_within_spread).
            if not ok.all() and np.isfinite(z).all() and np.isfinite(x).all():
                zbig = float(np.max(np.abs(z))) if z.size else 0.0
                if np.max(np.abs(x - z)) <= ARRAY_SPREAD * np.max(np.abs(y - z)) + absolute * zbig:
                    ok[...] = True
        if not ok.all():
            k = int(np.argmin(ok.reshape(-1)))
            zs = "" if z is None else " (float64 %r)" % float(z.reshape(-1)[k])
            return "array: %s: %d of %d elements, first at flat %d: %r vs %r%s" % (
                n, int((~ok).sum()), ok.size, k, float(x.reshape(-1)[k]), float(y.reshape(-1)[k]), zs)
    return None


def self_test_arrays():
    """compare_arrays' rules, when numpy is at hand (CI's smoke test runs without it)."""
    try:
        import numpy as np
    except ImportError:
        return False
    tmp = tempfile.mkdtemp(prefix="difftest-")
    try:
        def case(d, y, z):
            dirs = []
            for side, v in (("dgl", d), ("tf", y), ("tf64", z)):
                p = os.path.join(tmp, side)
                shutil.rmtree(p, ignore_errors=True)
                os.mkdir(p)
                np.save(os.path.join(p, "g1.npy"), np.array(v, np.float64 if side == "tf64" else np.float32))
                dirs.append(p)
            return compare_arrays(*dirs)
        assert case([1.0, 2.0], [1.0, 2.0001], [1.0, 2.0]) is None
        assert case([1.0, 2.1], [1.0, 2.0], [1.0, 2.0]) is not None
        # one element of cancellation: DGL's error at one place, TF's at another
        assert case([1000.0, 0.05], [1000.01, 0.0], [1000.0, 0.0]) is None
        assert case([1000.0, 0.5], [1000.01, 0.0], [1000.0, 0.0]) is not None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return True


def self_test_compare():
    assert compare("1.0\n", "1.0\n") is None
    assert compare("1.00001\n", "1.0\n") is None
    assert compare("1.001\n", "1.0\n") is not None
    assert compare("[100.0, 1e-5]\n", "[100.0, 0.0]\n") is None       # absolute floor from the line
    assert compare("[1.0, 1e-5]\n", "[1.0, 0.0]\n") is None
    assert compare("[1.0, 1e-3]\n", "[1.0, 0.0]\n") is not None
    assert compare("None\n", "[0.0]\n").startswith("None-vs-number")
    assert compare("nan\n", "nan\n") is None
    assert compare("[1.0]\n", "[[1.0]]\n").startswith("text")
    assert compare("1.0\n2.0\n", "1.0\n").startswith("lines")
    assert compare("-266412.3\n", "-266258.75\n") is not None
    # the float64 rule: an exactly-zero gradient that TF's float32 prints as round-off
    assert compare("0.0\n", "1.4901161e-8\n") is not None
    assert compare("0.0\n", "1.4901161e-8\n", "2.7755575615628914e-17\n") is None
    assert compare("[0.0, 0.0]\n", "[1e-8, -2e-8]\n", "[0.0, 0.0]\n") is None
    # nearer the float64 value than twice TF's own error, and not otherwise
    assert compare("-266258.7\n", "-266258.75\n", "-266258.72\n") is None
    assert compare("-266412.3\n", "-266258.75\n", "-266258.72\n") is not None
    # a line TF prints as exact zeros borrows the output's largest magnitude
    assert compare("[3e-8, 0.0]\n2.5\n", "[0.0, 0.0]\n2.5\n", "[5e-17, 0.0]\n2.5\n") is None
    assert compare("[3e-3, 0.0]\n2.5\n", "[0.0, 0.0]\n2.5\n", "[5e-17, 0.0]\n2.5\n") is not None
    # an output that is all zeros on TF's side: round-off within 2e-5 x ZERO_SCALE
    assert compare("[3.7e-9, 0.0]\n", "[0.0, 0.0]\n", "[0.0, 0.0]\n") is None
    assert compare("[3.7e-6, 0.0]\n", "[0.0, 0.0]\n", "[0.0, 0.0]\n") is not None
    # ... and so does a line that is round-off on TF's side too
    assert compare("[-1.1e-9, 2e-9]\n0.2\n", "[5.2e-10, 4.1e-9]\n0.2\n", "[-4e-19, -5e-18]\n0.2\n") is None
    assert compare("[-1.1e-3, 2e-9]\n0.2\n", "[5.2e-10, 4.1e-9]\n0.2\n", "[-4e-19, -5e-18]\n0.2\n") is not None
    assert compare("[-1.1e-9, 2e-9]\n0.2\n", "[5.2e-10, 4.1e-9]\n0.2\n", "[5.3e-10, 4e-9]\n0.2\n") is not None
    # a line whose values cancel: DGL's worst error within ARRAY_SPREAD x TF's worst
    assert compare("[-4.7296e-6, -1.21902e-5]\n", "[-4.7296e-6, -1.21605e-5]\n",
                   "[-4.73724e-6, -1.216919e-5]\n") is None
    assert compare("[-4.7296e-6, -1.31902e-5]\n", "[-4.7296e-6, -1.21605e-5]\n",
                   "[-4.73724e-6, -1.216919e-5]\n") is not None
    # a float64 run of another shape is no help
    assert compare("0.0\n", "1e-8\n", "[0.0, 0.0]\n") is not None
    # integers are exact, whatever the line's magnitude
    assert compare("[100000, 3]\n", "[100000, 4]\n").startswith("number")
    assert compare("tensor([4, 8], dtype=uint8)\n", "tensor([4, 8], dtype=uint8)\n") is None
    assert compare("tensor([4, 8], dtype=int8)\n", "tensor([4, 8], dtype=uint8)\n") is not None
    # NumPy's printing: exponents with a sign; padding that follows the digits
    assert compare("[1.0000000e+00 1.2345679e-05]\n", "[1.0000000e+00 1.2345678e-05]\n") is None
    assert compare("[1.0000000e+00 1.2345679e-05]\n", "[1.0000000e+00 1.2345679e-04]\n") is not None
    assert compare("[0.5       1.0000001]\n", "[0.5 1. ]\n") is None
    assert compare("[0.5  1. ]\n", "[0.5 1. ]\n").startswith("text")  # same digits, other spacing
    assert compare("[ 0.5 -1. ]\n", "[0.5 1. ]\n") is not None
    # ... also on the array's other lines, whose digits are the same
    assert compare("[[ 0.291     -1.273    ]\n [-2.225     -1.0270001]]\n",
                   "[[ 0.291 -1.273]\n [-2.225 -1.027]]\n") is None
    # float16 programs: a few float16 ulps
    TOL.rel_abs = F16_TOL
    try:
        assert compare("0.5005\n", "0.5\n") is None and compare("0.51\n", "0.5\n") is not None
        assert compare("[0.0, 0.00073108]\n[0.0, -4.1459e-7]\n", "[0.0, 0.00073107]\n[0.0, -4.0883e-7]\n") is None
        assert compare("[0.0, 0.00073108]\n[0.0, -4.1459e-5]\n", "[0.0, 0.00073107]\n[0.0, -4.0883e-7]\n") is not None
    finally:
        TOL.rel_abs = F32_TOL
    # a float64 run that wraps its NumPy lines elsewhere guides nothing
    assert compare("[0.5 1.]\n", "[0.5 1.]\n", "[0.5\n 1.]\n") is None


# ---------------------------------------------------------------- running

def run_dgl(src, timeout=60):
    with tempfile.NamedTemporaryFile("w", suffix=".dgl", delete=False) as f:
        f.write(src)
    try:
        p = subprocess.run([DGL, f.name], capture_output=True, text=True, timeout=timeout)
        err = None
        if p.returncode != 0:
            text = p.stderr.strip()
            m = re.search(r"(\w+Error|panicked)", text)
            err = ((m.group(1) if m else "exit %d" % p.returncode) + ": " + text.splitlines()[0][:200]
                   if text else "exit %d" % p.returncode)
        return p.stdout, err
    except subprocess.TimeoutExpired:
        return "", "hang: no result in %d s" % timeout
    finally:
        os.unlink(f.name)


class TF:
    """One long-lived TF process: `ident` replaces recompute_grad by the identity, `f64` makes
    the program's tensors float64."""

    def __init__(self, ident, f64):
        self.args = ["1" if ident else "0", "1" if f64 else "0"]
        self.p = None

    def start(self):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
        self.p = subprocess.Popen([TFPY, "-c", SERVER] + self.args, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)

    def run(self, src):
        if self.p is None or self.p.poll() is not None:
            self.start()
        try:
            self.p.stdin.write(json.dumps(src) + "\n")
            self.p.stdin.flush()
            ready, _, _ = select.select([self.p.stdout], [], [], TF_TIMEOUT)
            if not ready:
                raise TimeoutError
            line = self.p.stdout.readline()
            if not line:
                raise EOFError
            r = json.loads(line)
            return r["out"], r["err"]
        except (TimeoutError, EOFError, BrokenPipeError, ValueError) as e:
            self.close()
            return "", "TFServerError: %s" % type(e).__name__

    def close(self):
        if self.p is not None:
            self.p.kill()
            self.p.wait()
            self.p = None


class Refs:
    """The three references, started lazily."""

    def __init__(self):
        self.tf, self.tf64, self.ident = TF(False, False), TF(True, True), TF(True, False)

    def close(self):
        for t in (self.tf, self.tf64, self.ident):
            t.close()


MATH_REF = re.compile(r"recompute_grad|(?<!sparse_)softmax_cross_entropy_with_logits")


def needs_math_ref(src):
    """Programs where TF as written may differ from the mathematics: recompute_grad (TF's
    recomputation misses uses it cannot see) and the fused softmax_cross_entropy_with_logits
    (whose second derivative misses the labels' share)."""
    return MATH_REF.search(src) is not None


def run_all(src, refs, keep=None):
    """Runs one program on DGL and the references; returns ({side: (out, err, npy_dir or None)},
    (verdict, class)). Scale programs write their tensors under a temporary directory, removed
    afterwards unless `keep` is a list, which then receives it."""
    scale = "@OUT@" in src
    TOL.rel_abs = F16_TOL if "float16" in src else F32_TOL
    res = {}
    tmp = tempfile.mkdtemp(prefix="difftest-") if scale else None
    try:
        sides = [("dgl", None), ("tf", refs.tf), ("tf64", refs.tf64)]
        if needs_math_ref(src):
            sides.append(("tf-identity", refs.ident))
        for name, ref in sides:
            d = None
            s = src
            if scale:
                d = os.path.join(tmp, name)
                os.mkdir(d)
                s = src.replace("@OUT@", d)
            out, err = run_dgl(s) if ref is None else ref.run(s)
            res[name] = (out, err, d)
        verdict = classify(src, res)
    finally:
        if tmp and keep is not None:
            keep.append(tmp)
        elif tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return res, verdict


def mode_of(src):
    first = src.splitlines()[0]
    return first.split()[2] if first.startswith("# mode:") else "?"


def compare_runs(x, y, h=None):
    """compare() and compare_arrays() of run x against reference run y, each an (out, err,
    npy_dir) triple; h is the float64 guide as (text or None, npy_dir or None), or None."""
    text, arrays = h if h is not None else (None, None)
    why = compare(x[0], y[0], text)
    if why is None and x[2] is not None:
        why = compare_arrays(x[2], y[2], arrays)
    return why


def float64_guide(res, side):
    """The float64 run's values as a precision guide for comparing with `side`, or None. They
    are the mathematics, so against TF as written (when a mathematics run exists) they guide
    only where TF as written agrees with that run: a line elsewhere is blanked, and saved
    tensors are guided only when TF's all agree with the mathematics run's; else a TF
    recompute bug would count as round-off."""
    h = res.get("tf64")
    if h is None or h[1] is not None:
        return None
    ident = res.get("tf-identity")
    if side != "tf" or ident is None:
        return h[0], h[2]
    if ident[1] is not None:
        return None
    out, _, d = res["tf"]
    arrays = h[2] if d is not None and compare_arrays(d, ident[2], h[2]) is None else None
    return same_math_lines(out, ident[0], h[0]), arrays


def matches(res, side, with64=True):
    """DGL against one reference, text and saved arrays; None when they agree, else the reason."""
    return compare_runs(res["dgl"], res[side], float64_guide(res, side) if with64 else None)


def same_lines_reordered(dout, tout):
    """True when TF's lines are DGL's in another order (each within the number rule)."""
    dl, tl = dout.splitlines(), tout.splitlines()
    if len(dl) != len(tl) or dl == tl:
        return False
    left = list(tl)
    for a in dl:
        k = next((j for j, b in enumerate(left) if compare(a + "\n", b + "\n") is None), None)
        if k is None:
            return False
        left.pop(k)
    return True


def same_math_lines(wout, iout, hout):
    """tf64's text with a line blanked wherever TF as written (wout) differs from the
    mathematics run (iout): the float64 values guide precision only where TF as written
    computes the same thing."""
    wl, il, hl = wout.splitlines(), iout.splitlines(), hout.splitlines()
    if not (len(wl) == len(il) == len(hl)):
        return None
    return "\n".join(h if compare(w + "\n", i + "\n", h + "\n") is None else ""
                     for w, i, h in zip(wl, il, hl)) + "\n"


def refs_agree(res, a, b):
    """TF's two float32 references agree with each other (the float64 run as precision guide)."""
    h = res["tf64"]
    return compare_runs(res[a], res[b], (h[0], h[2]) if h[1] is None else None) is None


def zeros_for_none(wout, iout, hout=None):
    """True when wout equals iout except on lines where iout says None and wout prints zeros
    (hout: the float64 run, for the precision rule)."""
    wl, il = wout.splitlines(), iout.splitlines()
    hl = hout.splitlines() if hout is not None else []
    if len(wl) != len(il):
        return False
    for k, (a, b) in enumerate(zip(wl, il)):
        if b == "None" and a != "None" and all(float(x) == 0 for x in NUM.findall(a)):
            continue
        h = hl[k] + "\n" if k < len(hl) else None
        if compare(a + "\n", b + "\n", h) is not None:
            return False
    return True


def classify(src, res):
    """(verdict, class). agree: DGL matches TF; tfwrong: TF as written differs from the same
    mathematics without recompute_grad, and DGL matches the latter (a DGL win); disagree; skip:
    TF itself raised on every reference that could decide."""
    mode = mode_of(src)
    dout, derr, _ = res["dgl"]
    tout, terr, _ = res["tf"]
    ident = res.get("tf-identity")
    true_err = ident[1] if ident else terr
    if terr and true_err:
        if derr and derr.split(":")[0] == terr.split(":")[0]:
            return "agree", mode + " both-raise"
        return "skip", "%s tf-error:%s" % (mode, terr.split(":")[0])
    if derr:
        return "disagree", "%s dgl-error:%s" % (mode, derr.split(":")[0])
    ok_w = terr is None and matches(res, "tf") is None
    if ident is None:
        if ok_w:
            return "agree", mode
        return "disagree", "%s %s" % (mode, matches(res, "tf").split(":")[0])
    iout, ierr, _ = ident
    if ierr and ok_w:
        return "agree", mode  # TF's mathematics run failed (its own bug); TF as written decides
    h64 = res["tf64"][0] if res["tf64"][1] is None else None
    # docs/language.md §5: a block input its result ignores gets zeros, as in TF as written, where the
    # mathematics run says None; zeros_for_none() allows exactly that.
    ok_i = ierr is None and (matches(res, "tf-identity") is None or (
        res["dgl"][2] is None and zeros_for_none(dout, iout, h64)))
    wi = terr is None and ierr is None and (refs_agree(res, "tf", "tf-identity") or (
        res["dgl"][2] is None and zeros_for_none(tout, iout, h64)))
    if (ok_w and wi) or (ok_i and (ok_w or wi)):
        return "agree", mode
    if ok_i:
        if terr is None and same_lines_reordered(dout, tout):
            # TF's fused cross-entropy takes its logits before its labels, so grad functions and
            # recomputations on the two sides replay in the other order (docs/language.md §5:
            # argument order, as the mathematics run does).
            return "tfwrong", mode + " order-only"
        return "tfwrong", mode
    why = matches(res, "tf-identity" if ierr is None else "tf")
    if ok_w and not wi:
        return "disagree", "%s copies-tf-recompute-bug" % mode
    return "disagree", "%s %s" % (mode, (why or "?").split(":")[0])


# ---------------------------------------------------------------- batch runs

def program(seed, scale):
    return gen.gen(seed, scale=True) if scale else gen.gen(seed)


def run_seeds(seeds, scale, jobs, log_path):
    done = {}
    if log_path and os.path.exists(log_path):
        with open(log_path) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue  # a line cut short by an interrupted run
                if r.get("scale", False) == scale:
                    done[r["seed"]] = r
    todo = [s for s in seeds if s not in done]
    work = queue.Queue()
    for s in todo:
        work.put(s)
    lock = threading.Lock()
    log = open(log_path, "a") if log_path else None
    results = dict(done)
    progress = [0]

    def worker():
        refs = Refs()
        try:
            while True:
                try:
                    s = work.get_nowait()
                except queue.Empty:
                    return
                try:
                    src = program(s, scale)
                    _, (v, c) = run_all(src, refs)
                except Exception as e:  # a bug of the tester's own: counted, not fatal
                    src, v, c = "", "tester-error", "%s: %s" % (type(e).__name__, str(e)[:80])
                r = {"seed": s, "scale": scale, "verdict": v, "class": c, "size": len(src)}
                with lock:
                    results[s] = r
                    if log:
                        log.write(json.dumps(r) + "\n")
                        log.flush()
                    progress[0] += 1
                    if progress[0] % 500 == 0:
                        print("  %d/%d" % (progress[0], len(todo)), file=sys.stderr, flush=True)
        finally:
            refs.close()

    threads = [threading.Thread(target=worker) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if log:
        log.close()
    return [results[s] for s in seeds if s in results]


def summarise(rows, scale=False):
    counts, classes = {}, {}
    for r in rows:
        v, c = r["verdict"], r["class"]
        counts[v] = counts.get(v, 0) + 1
        if v == "agree":
            continue
        cur = classes.get((v, c))
        if cur is None:
            classes[(v, c)] = [r["seed"], r["size"], 1]
        else:
            cur[2] += 1
            if r["size"] < cur[1]:
                cur[0], cur[1] = r["seed"], r["size"]
    print("programs %d%s: %s" % (len(rows), " (scale)" if scale else "",
                                  ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    flag = " --scale" if scale else ""
    for (v, c), (s, _, n) in sorted(classes.items(), key=lambda kv: -kv[1][2]):
        print("%-9s %-44s %5d  shortest: run.py --replay %d%s" % (v, c, n, s, flag))
    return counts


# ---------------------------------------------------------------- shrinking and the corpus

def shrink_program(src, refs, log=None):
    """The smallest program shrink.candidates() reaches that keeps the original's verdict and
    class (and stays an error-free program on TF's side)."""
    res0, want = run_all(src, refs)

    def error_text(res):  # DGL's error, numbers aside: a reproducer keeps the same error
        err = res["dgl"][1]
        return NUM.sub("#", err) if err else None
    want_err = error_text(res0)

    def same(s):
        try:
            res, got = run_all(s, refs)
        except Exception:
            return False
        return (got == want and res["dgl"][0].strip() != ""  # a reproducer prints something
                and error_text(res) == want_err)

    out = shrink.reduce(src, same, log=log)
    return out, want


def write_corpus(src, origin, name, refs):
    """tests/difftest/NAME.dgl and .out: a program (a shrunk reproducer, or a generated one) and
    DGL's output, written only when the tester finds DGL agreeing with TF, or right where TF as
    written is wrong. The .dgl file's header records what TF printed."""
    if "@OUT@" in src:
        sys.exit("scale programs write files; the corpus takes core programs only")
    res, verdict = run_all(src, refs)
    if verdict[0] not in ("agree", "tfwrong"):
        sys.exit("verdict %s %s: DGL does not agree with TF on this program; fix DGL first" % verdict)
    d = os.path.join(ROOT, "tests", "difftest")
    os.makedirs(d, exist_ok=True)
    head = ["# difftest regression case from %s (%s)." % (origin, mode_of(src)),
            "# Checked against TensorFlow 2.21: %s" % (
                "DGL agrees." if verdict[0] == "agree" else
                "TF as written runs the backward steps in another order; DGL follows\n"
                "# argument order (docs/language.md §5), as TF's mathematics run does."
                if verdict[1].endswith("order-only") else
                "TF as written is wrong here; DGL agrees with TF's mathematics run\n"
                "# (recompute_grad as the identity, the fused cross-entropy by its definition).")]
    for side, title in (("tf", "TensorFlow as written"), ("tf-identity", "TensorFlow's mathematics run")):
        if side == "tf-identity" and verdict[0] != "tfwrong":
            continue
        out, err, _ = res[side]
        head += ["# %s printed:" % title] + ["#   " + line for line in out.splitlines()]
        if err:
            head += ["#   (then raised %s)" % err[:100]]
    body = [line for line in src.splitlines() if not line.startswith("# mode:")]
    text = "\n".join(head + body) + "\n"
    out, err = run_dgl(text)
    if err:
        sys.exit("dgl failed on the corpus case: " + err)
    with open(os.path.join(d, name + ".dgl"), "w") as f:
        f.write(text)
    with open(os.path.join(d, name + ".out"), "w") as f:
        f.write(out)
    print("wrote tests/difftest/%s.dgl and .out (%s)" % (name, verdict[0]))


# ---------------------------------------------------------------- self-check (no TensorFlow)

def self_check(n_core, n_scale):
    # the generated programs must run in DGL: without the constructs DGL is known to fail on
    gen.KNOWN_BUGS = False
    self_test_compare()
    if not self_test_arrays():
        print("self-check: numpy absent, array comparison not tested")
    shrink.self_test()
    bad = 0
    for scale, n in ((False, n_core), (True, n_scale)):
        for s in range(n):
            src = program(s, scale)
            tmp = tempfile.mkdtemp(prefix="difftest-")
            try:
                out, err = run_dgl(src.replace("@OUT@", tmp))
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            if err:
                bad += 1
                print("seed %d%s: %s\n%s" % (s, " (scale)" if scale else "", err, src))
    print("self-check: comparator and shrinker ok; %d of %d generated programs failed in dgl"
          % (bad, n_core + n_scale))
    return bad == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="0:100", help="LO:HI")
    ap.add_argument("--scale", action="store_true", help="large-tensor programs")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="programs in parallel (each with its own TF processes)")
    ap.add_argument("--log", help="JSON-lines log: one line per program; a rerun skips seeds already in it")
    ap.add_argument("--replay", type=int)
    ap.add_argument("--shrink", type=int)
    ap.add_argument("--corpus", nargs=2, metavar=("SEED|FILE", "NAME"))
    ap.add_argument("--summary", metavar="LOG")
    ap.add_argument("--self-check", action="store_true")
    ap.add_argument("--self-check-count", default="200:3", help="CORE:SCALE programs for --self-check")
    a = ap.parse_args()
    if a.self_check:
        n, m = map(int, a.self_check_count.split(":"))
        sys.exit(0 if self_check(n, m) else 1)
    if a.summary:
        rows = [json.loads(line) for line in open(a.summary) if line.strip()]
        for scale in (False, True):
            part = [r for r in rows if r.get("scale", False) == scale]
            if part:
                summarise(part, scale)
        return
    refs = Refs()
    try:
        if a.replay is not None:
            src = program(a.replay, a.scale)
            print(src)
            kept = []
            try:
                res, verdict = run_all(src, refs, keep=kept)
                for name, (out, err, _) in res.items():
                    print("--- %s%s\n%s" % (name, " (%s)" % err if err else "", out), end="")
                for name in res:
                    if name != "dgl":
                        print("--- dgl vs %s: %s" % (name, matches(res, name, with64=name != "tf64") or "match"))
                print("--- verdict:", verdict)
            finally:
                for d in kept:
                    shutil.rmtree(d, ignore_errors=True)
            return
        if a.shrink is not None:
            small, verdict = shrink_program(program(a.shrink, a.scale), refs,
                                            log=lambda s: print("  %d chars" % len(s), file=sys.stderr))
            print(small, end="")
            print("--- verdict kept:", verdict)
            return
        if a.corpus:
            what = a.corpus[0]
            if what.isdigit():
                src, origin = program(int(what), False), "seed %s" % what
            else:
                src, origin = open(what).read(), "the reproducer %s" % os.path.basename(what)
            if not src.startswith("# mode:"):
                src = "# mode: corpus\n" + src
            write_corpus(src, origin, a.corpus[1], refs)
            return
    finally:
        refs.close()
    lo, hi = map(int, a.seeds.split(":"))
    rows = run_seeds(range(lo, hi), a.scale, a.jobs, a.log)
    counts = summarise(rows, a.scale)
    sys.exit(1 if counts.get("disagree") else 0)


if __name__ == "__main__":
    main()
