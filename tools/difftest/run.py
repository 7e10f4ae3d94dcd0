"""Differential tester: DGL against TensorFlow 2.21 (see docs/difftest.md).

  run.py --seeds 0:2000            run programs 0..1999, print a summary by class
  run.py --replay 17               print program 17 and the three outputs
  run.py --self-check              no TensorFlow: generated programs run in dgl; comparator unit tests
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402

NUM = re.compile(r"-?(?:\d+\.\d*(?:e-?\d+)?|\d+e-?\d+|\d+|nan|inf)")
DGL = os.environ.get("DGL", os.path.join(HERE, "..", "..", "target", "debug", "dgl"))
TFPY = os.environ.get("TFPY", sys.executable)

SERVER = r'''
import io, json, sys, os, traceback
sys.path.insert(0, %r)
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import prelude
ident = sys.argv[1] == "1"
for line in sys.stdin:
    src = json.loads(line)
    buf = io.StringIO()
    try:
        exec(compile(src, "<prog>", "exec"), prelude.make_env(ident, buf))
        err = None
    except BaseException as e:
        err = type(e).__name__ + ": " + str(e).splitlines()[0][:200] if str(e) else type(e).__name__
    sys.stdout.write(json.dumps({"out": buf.getvalue(), "err": err}) + "\n")
    sys.stdout.flush()
''' % HERE


def compare(dgl, tf):
    """None when dgl's text matches tf's: identical outside numbers; each number within
    rel 2e-4 of tf's plus 2e-5 x the line's largest magnitude. Otherwise a reason."""
    dl, tl = dgl.splitlines(), tf.splitlines()
    if len(dl) != len(tl):
        return "line count %d vs %d" % (len(dl), len(tl))
    for i, (a, b) in enumerate(zip(dl, tl)):
        if NUM.sub("#", a) != NUM.sub("#", b):
            return "text differs on line %d" % (i + 1)
        na = [float(x) for x in NUM.findall(a)]
        nb = [float(x) for x in NUM.findall(b)]
        big = max([abs(x) for x in nb if x == x and abs(x) != float("inf")] or [0.0])
        for x, y in zip(na, nb):
            if x != x and y != y or x == y:
                continue
            if not abs(x - y) <= 2e-4 * abs(y) + 2e-5 * big:
                return "number %s vs %s on line %d" % (x, y, i + 1)
    return None


def self_test_compare():
    assert compare("1.0\n", "1.0\n") is None
    assert compare("1.00001\n", "1.0\n") is None
    assert compare("1.001\n", "1.0\n") is not None
    assert compare("[100.0, 1e-5]\n", "[100.0, 0.0]\n") is None       # absolute floor from the line
    assert compare("[1.0, 1e-5]\n", "[1.0, 0.0]\n") is None
    assert compare("[1.0, 1e-3]\n", "[1.0, 0.0]\n") is not None
    assert compare("None\n", "[0.0]\n") is not None
    assert compare("nan\n", "nan\n") is None
    assert compare("[1.0]\n", "[[1.0]]\n") is not None
    assert compare("1.0\n2.0\n", "1.0\n") is not None
    assert compare("-266412.3\n", "-266258.75\n") is not None


def run_dgl(src, timeout=20):
    with tempfile.NamedTemporaryFile("w", suffix=".dgl", delete=False) as f:
        f.write(src)
    try:
        p = subprocess.run([DGL, f.name], capture_output=True, text=True, timeout=timeout)
        err = None
        if p.returncode != 0:
            m = re.search(r"(\w+Error)", p.stderr)
            err = (m.group(1) if m else "exit %d" % p.returncode) + ": " + p.stderr.strip().splitlines()[0][:200] if p.stderr.strip() else "exit %d" % p.returncode
        return p.stdout, err
    except subprocess.TimeoutExpired:
        return "", "hang"
    finally:
        os.unlink(f.name)


class TF:
    def __init__(self, ident):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
        self.p = subprocess.Popen([TFPY, "-c", SERVER, "1" if ident else "0"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)

    def run(self, src):
        self.p.stdin.write(json.dumps(src) + "\n")
        self.p.stdin.flush()
        r = json.loads(self.p.stdout.readline())
        return r["out"], r["err"]


def zeros_for_none(wout, iout):
    """True when wout equals iout except lines where iout says None and wout prints all zeros."""
    wl, il = wout.splitlines(), iout.splitlines()
    if len(wl) != len(il):
        return False
    for a, b in zip(wl, il):
        if b == "None" and a != "None" and all(float(x) == 0 for x in NUM.findall(a)):
            continue
        if compare(a + "\n", b + "\n") is not None:
            return False
    return True


def classify(src, d, tfw, tfi):
    """Returns (verdict, class). verdict: agree / tfwrong (DGL matches identity run, TF as written
    doesn't) / disagree."""
    dout, derr = d
    (wout, werr), (iout, ierr) = tfw, tfi
    mode = src.splitlines()[0].split()[2]
    if werr and ierr:
        return "skip", "tf-error:" + werr.split(":")[0]
    if derr:
        return "disagree", "%s dgl-error:%s" % (mode, derr.split(":")[0])
    ok_w = werr is None and compare(dout, wout) is None
    ok_i = ierr is None and compare(dout, iout) is None
    wi_agree = werr is None and ierr is None and compare(wout, iout) is None
    if ok_w and werr is None and ierr is None and zeros_for_none(wout, iout):
        return "agree", mode  # contract: a block input its result ignores gets zeros, as in TF
    if ok_i and (ok_w or not wi_agree):
        return ("agree" if ok_w else "tfwrong"), mode
    ref = iout if ierr is None else wout
    why = compare(dout, ref)
    kind = "None-vs-number" if ("None" in dout) != ("None" in ref) else why.split(" ")[0]
    return "disagree", "%s %s" % (mode, kind)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0:100")
    ap.add_argument("--replay", type=int)
    ap.add_argument("--self-check", action="store_true")
    ap.add_argument("--json", help="append per-program verdicts to this file")
    a = ap.parse_args()
    if a.self_check:
        self_test_compare()
        bad = 0
        for s in range(200):
            src = gen.gen(s)
            out, err = run_dgl(src)
            if err:
                bad += 1
                print("seed %d: %s\n%s" % (s, err, src))
        print("self-check: comparator ok; %d/200 generated programs failed in dgl" % bad)
        sys.exit(1 if bad else 0)
    tfw, tfi = TF(False), TF(True)
    if a.replay is not None:
        src = gen.gen(a.replay)
        print(src)
        for name, r in (("dgl", run_dgl(src)), ("tf", tfw.run(src)), ("tf-identity", tfi.run(src))):
            print("--- %s%s\n%s" % (name, " (%s)" % r[1] if r[1] else "", r[0]), end="")
        print("--- verdict:", classify(src, run_dgl(src), tfw.run(src), tfi.run(src)))
        return
    lo, hi = map(int, a.seeds.split(":"))
    counts, classes = {}, {}
    log = open(a.json, "a") if a.json else None
    for s in range(lo, hi):
        src = gen.gen(s)
        v, c = classify(src, run_dgl(src), tfw.run(src), tfi.run(src))
        counts[v] = counts.get(v, 0) + 1
        if log:
            log.write(json.dumps({"seed": s, "verdict": v, "class": c}) + "\n")
            log.flush()
        if v in ("disagree", "tfwrong", "skip"):
            cur = classes.get((v, c))
            if cur is None or len(src) < len(gen.gen(cur[0])):
                classes[(v, c)] = (s, (cur[1] + 1) if cur else 1)
            else:
                classes[(v, c)] = (cur[0], cur[1] + 1)
    print("programs %d: %s" % (hi - lo, ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    for (v, c), (s, n) in sorted(classes.items(), key=lambda kv: -kv[1][1]):
        print("%-9s %-40s %4d  shortest: run.py --replay %d" % (v, c, n, s))


if __name__ == "__main__":
    main()
