"""Differential tester: DGL against CPython 3.11 (see README.md).

  run.py --count 10000 [--start 0] [-j 1] [--log py.jsonl]   run generated programs, summary by class
                                                              and per-feature coverage
  run.py --replay 17                 print program 17, CPython's and DGL's outputs, the verdict
  run.py --shrink 17|FILE            reduce program 17 (or FILE) to a small program of the same class
  run.py --corpus [DIR]              every DIR/*.py (default tools/pydifftest/corpus) must agree
  run.py --add-corpus FILE NAME      copy FILE into the corpus as NAME.py, once it agrees
  run.py --summary py.jsonl          summarise a log
  run.py --self-check                comparator and shrinker tests, the corpus, a capped sample (CI)

The dgl binary is --dgl, else $DGL, else target/debug/dgl; CPython is --python, else python3.
"""
import argparse
import json
import os
import queue
import re
import select
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import shrink  # noqa: E402

DGL = os.environ.get("DGL", os.path.join(ROOT, "target", "debug", "dgl"))
PYTHON = "python3"
TIMEOUT = 20
INT64 = (-2 ** 63, 2 ** 63 - 1)

# ---------------------------------------------------------------- normalisation and comparison

# docs/python.md "Where DGL differs from CPython, on purpose" / docs/language.md (float printing):
# str and repr of a float write the exponent without `+` and leading zeros (1e-5, 1e16; CPython
# 1e-05, 1e+16). Both sides are rewritten to DGL's spelling, except on lines the generator marks
# `F|`: results of a format spec with a type or precision, where DGL promises CPython's spelling.
EXPONENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)e([+-]?)0*(\d)")
BIG_INT = re.compile(r"(?<![\w.])-?\d{19,}(?![\w.])")
TAG = re.compile(r"^'?u\d+'?$")


def normalise_line(line):
    if line.startswith("F|"):
        return line
    return EXPONENT.sub(lambda m: m.group(1) + "e" + ("-" if m.group(2) == "-" else "") + m.group(3), line)


def beyond_int64(line):
    """True when the line shows an int that does not fit in 64 bits."""
    return any(not (INT64[0] <= int(t) <= INT64[1]) for t in BIG_INT.findall(line))


def exc_line(line):
    """(kind, message) of a probe's exception line `!! Kind message`, else None."""
    if not line.startswith("!! "):
        return None
    kind, _, msg = line[3:].partition(" ")
    return kind, msg


def same_error(py, dg):
    """Kinds must be equal; messages only when CPython's is a tag the program chose (uN)."""
    if py[0] != dg[0]:
        return False
    return not TAG.match(py[1]) or py[1] == dg[1]


def uncaught(stderr, is_dgl):
    """(kind, message) of an uncaught error: DGL's first stderr line `Error: KIND: MESSAGE`,
    CPython's last traceback line `KIND: MESSAGE`; None when there is none."""
    lines = [l for l in stderr.splitlines() if l.strip()]
    if not lines:
        return None
    line = lines[0] if is_dgl else lines[-1]
    if is_dgl:
        if not line.startswith("Error: "):
            return ("?", line[:200])
        line = line[len("Error: "):]
    kind, _, msg = line.partition(":")
    kind = kind.strip().split(".")[-1]
    return kind, msg.strip()


def segment_of(lines, upto):
    """The feature of the segment holding line `upto` (the last `== N kind` header before it)."""
    for l in reversed(lines[:upto + 1]):
        if l.startswith("== "):
            return l.split()[-1]
    return "-"


def template(msg):
    """A message with its numbers and long quoted parts generalised, to group differences."""
    msg = re.sub(r"-?\d+(\.\d+)?", "N", msg)
    return re.sub(r"'[^']{12,}'", "'...'", msg)[:70]


def lines_of(text):
    """The lines of an output, ended by "\n" only: a str may hold U+2028 or \x85, which
    splitlines() would split at."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def compare(py, dg, every=False):
    """py, dg: (stdout, stderr, exit code) of CPython and DGL. None when they agree, else
    (class, detail) of the first difference: class is the feature of the segment where they
    differ and the kind of difference (for an error on DGL's side, its message with numbers
    generalised); detail the two lines. every=True: the list of all differences (line by line,
    while both sides print lines), [] when they agree."""
    pout, perr, pcode = py
    dout, derr, dcode = dg
    found = []
    if "panicked" in derr or dcode not in (0, 1, 2):
        kind = "hang" if dcode == "timeout" else "panic" if "panicked" in derr else "exit %s" % dcode
        first = [l for l in derr.splitlines() if "panicked" in l] or derr.strip().splitlines() or [""]
        found.append((kind, first[0][:200]))
        if not every:
            return found[0]
    pl = [normalise_line(l) for l in lines_of(pout)]
    dl = [normalise_line(l) for l in lines_of(dout)]
    # Line by line, but after a segment whose line counts differ, the sides are realigned at the
    # next segment header both print (every=True only).
    i = j = 0
    while i < len(pl) and j < len(dl):
        a, b = pl[i], dl[j]
        if a == b or (exc_line(a) and exc_line(b) and same_error(exc_line(a), exc_line(b))) or (
                exc_line(b) and exc_line(b)[0] == "OverflowError" and not exc_line(a) and beyond_int64(a)):
            # the last: docs/python.md, 64-bit ints: OverflowError where CPython's result is bigger
            i, j = i + 1, j + 1
            continue
        ea, eb = exc_line(a), exc_line(b)
        seg = segment_of(pl, i)
        if a.startswith("== ") or b.startswith("== "):
            what = "missing-lines" if b.startswith("== ") else "extra-lines"
        elif ea and eb:
            what = "exc %s->%s [%s]" % (ea[0], eb[0], template(eb[1])) if ea[0] != eb[0] else \
                "exc-message %s" % ea[0]
        elif ea:
            what = "dgl-no-error %s" % ea[0]
        elif eb:
            what = "dgl-error %s [%s]" % (eb[0], template(eb[1]))
        else:
            what = "value"
        found.append(("%s: %s" % (seg, what), "line %d: python %r / dgl %r" % (i + 1, a[:160], b[:160])))
        if not every:
            return found[0]
        # skip to the next header on both sides
        ni = next((k for k in range(i + 1, len(pl)) if pl[k].startswith("== ")), len(pl))
        nj = next((k for k in range(j + 1, len(dl)) if dl[k].startswith("== ")), len(dl))
        if ni < len(pl) and nj < len(dl) and pl[ni] != dl[nj]:
            nj = next((k for k in range(j + 1, len(dl)) if dl[k] == pl[ni]), len(dl))
        i, j = ni, nj
    pu = uncaught(perr, False) if pcode else None
    du = uncaught(derr, True) if dcode else None
    if i < len(pl) or j < len(dl):
        seg = segment_of(pl, i)
        if j >= len(dl):
            if du and not pu:
                found.append(("%s: dgl-uncaught %s [%s]" % (seg, du[0], template(du[1])),
                              "python line %d %r; dgl: %s: %s" % (i + 1, pl[i][:120], du[0], du[1][:120])))
            else:
                found.append(("%s: missing-lines" % seg, "python line %d %r" % (i + 1, pl[i][:160])))
        else:
            found.append(("%s: extra-lines" % seg, "dgl line %d %r" % (j + 1, dl[j][:160])))
    elif not (pu is None and du is None) and not (pu and du and same_error(pu, du)):
        seg = segment_of(pl, len(pl) - 1)
        found.append(("%s: uncaught %s->%s" % (seg, pu[0] if pu else "none", du[0] if du else "none"),
                      "python %s / dgl %s" % (pu, du)))
    if every:
        return found
    return found[0] if found else None


def self_test_compare():
    ok = ("", "", 0)

    def c(p, d, perr="", derr="", pcode=0, dcode=0):
        return compare((p, perr, pcode), (d, derr, dcode))

    assert c("1\n", "1\n") is None
    assert c("1e-05 1e+16 2.5e-310\n", "1e-5 1e16 2.5e-310\n") is None
    assert c("F|1e-05\n", "F|1e-5\n") is not None                     # format specs: CPython's spelling
    assert c("F|1e-05\n", "F|1e-05\n") is None
    assert c("== 1 arith\n[1.5e+300]\n", "== 1 arith\n[1.5e300]\n") is None
    assert c("== 1 arith\n1e+16\n", "== 1 arith\n1e17\n")[0] == "arith: value"
    assert c("!! ValueError invalid literal\n", "!! ValueError could not parse 'x'\n") is None
    assert c("!! ValueError u7\n", "!! ValueError u7\n") is None
    assert c("!! ValueError u7\n", "!! ValueError u8\n")[0] == "-: exc-message ValueError"
    assert c("!! KeyError 'u3'\n", "!! KeyError 'u3'\n") is None
    assert c("== 2 class\n!! TypeError x\n", "== 2 class\n!! AttributeError y 12\n")[0] == \
        "class: exc TypeError->AttributeError [y N]"
    # 64-bit ints: CPython's result beyond int64 is an OverflowError in DGL
    assert c("18446744073709551616\n", "!! OverflowError integer overflow\n") is None
    assert c("(1, 9223372036854775808)\n", "!! OverflowError x\n") is None
    assert c("9223372036854775807\n", "!! OverflowError x\n") is not None
    assert c("-9223372036854775808\n", "!! OverflowError x\n") is not None
    assert c("1\n", "!! ValueError x\n")[0] == "-: dgl-error ValueError [x]"
    assert c("!! ValueError x\n", "1\n")[0] == "-: dgl-no-error ValueError"
    assert c("1\n2\n", "1\n")[0] == "-: missing-lines"
    assert c("1\n", "1\n2\n")[0] == "-: extra-lines"
    tb = "Traceback (most recent call last):\n  File \"p.py\", line 1\nValueError: u1\n"
    assert c("1\n", "1\n", tb, "Error: ValueError: u1\n  at line 1\n", 1, 1) is None
    assert c("1\n", "1\n", tb, "Error: ValueError: u2\n", 1, 1)[0].startswith("-: uncaught")
    assert c("1\n", "1\n", tb.replace("u1", "bad thing"), "Error: ValueError: other words\n", 1, 1) is None
    assert c("1\n", "1\n", tb, "Error: TypeError: u1\n", 1, 1)[0] == "-: uncaught ValueError->TypeError"
    assert c("1\n", "1\n", "", "Error: NameError: x\n", 0, 1)[0] == "-: uncaught none->NameError"
    assert c("1\n2\n", "1\n", "", "Error: TypeError: no\n", 0, 1)[0] == "-: dgl-uncaught TypeError [no]"
    assert compare(("== 1 a\n1\n2\n== 2 b\n3\n", "", 0), ("== 1 a\n0\n== 2 b\n4\n", "", 0), every=True) == [
        ("a: value", "line 2: python '1' / dgl '0'"), ("b: value", "line 5: python '3' / dgl '4'")]
    assert compare(("1\n", "", 0), ("1\n", "", 0), every=True) == []
    assert c("a\u2028b\n", "a\u2028b\n") is None
    assert c("1\n", "", "", "Error: NameError: name 'q' is not defined\n", 0, 1)[0] == \
        "-: dgl-uncaught NameError [name 'q' is not defined]"
    assert c("1\n", "", "", "thread 'main' panicked at src/x.rs", 0, 101)[0] == "panic"
    assert c("1\n", "", "", "", 0, "timeout")[0] == "hang"
    assert ok


# ---------------------------------------------------------------- running

def run_one(cmd, src, timeout=TIMEOUT):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, encoding="utf-8") as f:
        f.write(src)
    try:
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8", NO_COLOR="1")
        p = subprocess.run(cmd + [f.name], capture_output=True, timeout=timeout, env=env)
        return (p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), p.returncode)
    except subprocess.TimeoutExpired:
        return "", "no result in %d s" % timeout, "timeout"
    finally:
        os.unlink(f.name)


# One long-lived CPython runs the programs (a process per program costs more than the program
# under load): each in fresh globals, stdout captured; an uncaught error reported as the last
# line of its traceback.
SERVER = r"""
import io, json, sys, traceback
real = sys.stdout
for line in sys.stdin:
    src = json.loads(line)
    buf = io.StringIO()
    sys.stdout = buf
    err, code = "", 0
    try:
        exec(compile(src, "<prog>", "exec"), {"__name__": "__main__"})
    except BaseException as e:
        err = "Traceback (most recent call last):\n" + traceback.format_exception_only(type(e), e)[-1]
        code = 1
    sys.stdout = real
    real.write(json.dumps([buf.getvalue(), err, code]) + "\n")
    real.flush()
"""


class PyServer:
    def __init__(self):
        self.p = None

    def run(self, src):
        if self.p is None or self.p.poll() is not None:
            env = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8")
            self.p = subprocess.Popen([PYTHON, "-I", "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True, encoding="utf-8", env=env)
        try:
            self.p.stdin.write(json.dumps(src) + "\n")
            self.p.stdin.flush()
            ready, _, _ = select.select([self.p.stdout], [], [], TIMEOUT)
            if not ready:
                raise TimeoutError
            line = self.p.stdout.readline()
            if not line:
                raise EOFError
            out, err, code = json.loads(line)
            return out, err, code
        except (TimeoutError, EOFError, BrokenPipeError, ValueError):
            self.close()
            return run_one([PYTHON, "-I"], src)  # once more on its own, to see what happened

    def close(self):
        if self.p is not None:
            self.p.kill()
            self.p.wait()
            self.p = None


_local = threading.local()


def run_both(src):
    """((CPython's stdout, stderr, code), (DGL's ...), verdict): verdict None when they agree,
    else (class, detail)."""
    if not hasattr(_local, "py"):
        _local.py = PyServer()
    py = _local.py.run(src)
    dg = run_one([DGL], src)
    return py, dg, compare(py, dg)


# ---------------------------------------------------------------- batch runs

def run_seeds(seeds, jobs, log_path):
    done = {}
    if log_path and os.path.exists(log_path):
        with open(log_path) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue  # a line cut short by an interrupted run
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
        while True:
            try:
                s = work.get_nowait()
            except queue.Empty:
                return
            try:
                src, feats = gen.gen(s)
                py, dg, _ = run_both(src)
                found = compare(py, dg, every=True)
                verdict, cls, detail = ("agree", "", "") if not found else ("disagree", found[0][0], found[0][1])
            except Exception as e:  # a bug of the tester's own: counted, not fatal
                src, feats, verdict, cls, detail = "", [], "tester-error", type(e).__name__, str(e)[:200]
            r = {"seed": s, "verdict": verdict, "class": cls, "detail": detail, "size": len(src),
                 "features": feats, "all": sorted(set(c for c, _ in found)) if verdict == "disagree" else [],
                 "details": {c: d for c, d in reversed(found)} if verdict == "disagree" else {}}
            with lock:
                results[s] = r
                if log:
                    log.write(json.dumps(r) + "\n")
                    log.flush()
                progress[0] += 1
                if progress[0] % 500 == 0:
                    print("  %d/%d" % (progress[0], len(todo)), file=sys.stderr, flush=True)

    threads = [threading.Thread(target=worker) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if log:
        log.close()
    return [results[s] for s in seeds if s in results]


def summarise(rows, coverage=True):
    counts, classes, feats, bad_feats = {}, {}, {}, {}
    for r in rows:
        v, c = r["verdict"], r["class"]
        counts[v] = counts.get(v, 0) + 1
        for f in r.get("features", []):
            feats[f] = feats.get(f, 0) + 1
            if v != "agree":
                bad_feats[f] = bad_feats.get(f, 0) + 1
        if v == "agree":
            continue
        for c in r.get("all") or [c]:
            d = r.get("details", {}).get(c, r.get("detail", ""))
            cur = classes.get(c)
            if cur is None:
                classes[c] = [r["seed"], r["size"], 1, d]
            else:
                cur[2] += 1
                if r["size"] < cur[1]:
                    cur[0], cur[1], cur[3] = r["seed"], r["size"], d
    print("programs %d: %s" % (len(rows), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    print("classes (programs showing each difference; a program may show several):")
    for c, (s, _, n, d) in sorted(classes.items(), key=lambda kv: -kv[1][2]):
        print("%5d  %-46s shortest: run.py --replay %d\n       %s" % (n, c, s, d[:150]))
    if coverage:
        print("coverage (programs exercising each feature; of them disagreeing):")
        for f in sorted(feats):
            print("  %-40s %6d %6d" % (f, feats[f], bad_feats.get(f, 0)))
    return counts


# ---------------------------------------------------------------- shrinking and the corpus

def signature(v):
    """What a reduced program must keep: the kind of difference (without the segment, which
    the reducer may delete) and, for a value difference, CPython's line."""
    cls, detail = v
    kind = cls.split(": ", 1)[-1]
    if kind == "value":
        m = re.match(r"line \d+: (python .*)$", detail)
        return kind, m.group(1) if m else detail
    return kind, None


def shrink_program(src, log=None, budget=400, want_class=None):
    """The smallest program shrink.reduce() reaches that still shows the first difference of
    `src` (or, with want_class, a difference of that class: its text after the segment's kind)
    with the same signature, and whose CPython run still raises uncaught or not as before."""
    py, dg, _ = run_both(src)
    found = compare(py, dg, every=True)
    if want_class:
        found = [f for f in found if f[0].split(": ", 1)[-1] == want_class.split(": ", 1)[-1]]
    if not found:
        return src, None
    want = signature(found[0])
    py_raises = py[2] != 0

    def same(s):
        try:
            compile(s, "<shrink>", "exec")
        except (SyntaxError, ValueError):
            return False
        p, d, _ = run_both(s)
        return (p[2] != 0) == py_raises and any(signature(f) == want for f in compare(p, d, every=True))

    return shrink.reduce(src, same, budget=budget, log=log), found[0]


def corpus_files(d):
    return sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".py")) if os.path.isdir(d) else []


def run_corpus(d, quiet=False):
    bad = 0
    files = corpus_files(d)
    for path in files:
        src = open(path, encoding="utf-8").read()
        _, _, v = run_both(src)
        if v is not None:
            bad += 1
            print("%s: %s\n  %s" % (os.path.relpath(path, ROOT), v[0], v[1]))
    if not quiet:
        print("corpus %s: %d of %d agree" % (os.path.relpath(d, ROOT), len(files) - bad, len(files)))
    return bad


# ---------------------------------------------------------------- self-check (CI)

def self_check(n, deadline):
    t0 = time.time()
    self_test_compare()
    shrink.self_test()
    # the generator: reproducible, and every program valid CPython that runs without an uncaught
    # error (but for the deliberate last statements of "uncaught" programs)
    for s in range(60):
        a, fa = gen.gen(s)
        assert (a, fa) == gen.gen(s), "seed %d is not reproducible" % s
        compile(a, "<seed %d>" % s, "exec")
    bad = run_corpus(os.path.join(HERE, "corpus"))
    ran = 0
    rows = []
    for s in range(n):
        if time.time() - t0 > deadline:
            break
        src, feats = gen.gen(s)
        py, _, v = run_both(src)
        if py[2] != 0 and "uncaught" not in feats:
            print("seed %d: CPython raised, the generator is wrong:\n%s" % (s, py[1][-400:]))
            bad += 1
        ran += 1
        rows.append({"seed": s, "verdict": "agree" if v is None else "disagree", "class": v[0] if v else "",
                     "detail": v[1] if v else "", "size": len(src), "features": feats})
    counts = summarise(rows, coverage=False)
    bad += counts.get("disagree", 0)
    print("self-check: comparator, shrinker and generator ok; %d generated programs in %.0f s; %s"
          % (ran, time.time() - t0, "all agree" if not bad else "%d failures" % bad))
    return bad == 0


def main():
    global DGL, PYTHON
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dgl", help="the dgl binary (default $DGL, else target/debug/dgl)")
    ap.add_argument("--python", default="python3", help="CPython 3.11")
    ap.add_argument("--count", type=int, default=100, help="programs to run")
    ap.add_argument("--start", "--seed", type=int, default=0, help="first seed")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="programs in parallel")
    ap.add_argument("--log", help="JSON-lines log: one line per program; a rerun skips seeds already in it")
    ap.add_argument("--replay", type=int)
    ap.add_argument("--shrink", metavar="SEED|FILE")
    ap.add_argument("--budget", type=int, default=400, help="checks the shrinker may spend")
    ap.add_argument("--class", dest="cls", help="with --shrink: keep this class (as --summary prints it)")
    ap.add_argument("--corpus", nargs="?", const=os.path.join(HERE, "corpus"), metavar="DIR")
    ap.add_argument("--add-corpus", nargs=2, metavar=("FILE", "NAME"))
    ap.add_argument("--summary", metavar="LOG")
    ap.add_argument("--no-coverage", action="store_true")
    ap.add_argument("--self-check", action="store_true")
    ap.add_argument("--self-check-count", type=int, default=150, help="generated programs in --self-check")
    ap.add_argument("--self-check-seconds", type=float, default=60, help="time cap of --self-check's sample")
    a = ap.parse_args()
    if a.dgl:
        DGL = os.path.abspath(a.dgl)
    PYTHON = a.python
    if a.summary:
        rows = [json.loads(line) for line in open(a.summary) if line.strip()]
        summarise(rows, not a.no_coverage)
        return
    if not os.path.exists(DGL):
        sys.exit("no dgl binary at %s (cargo build, or give --dgl / $DGL)" % DGL)
    if a.self_check:
        sys.exit(0 if self_check(a.self_check_count, a.self_check_seconds) else 1)
    if a.replay is not None:
        src, feats = gen.gen(a.replay)
        print(src + "# features: " + " ".join(feats))
        py, dg, v = run_both(src)
        for name, (out, err, code) in (("python", py), ("dgl", dg)):
            print("--- %s (exit %s)\n%s" % (name, code, out), end="")
            if err:
                print("--- %s stderr\n%s" % (name, err), end="")
        print("--- verdict:", v or "agree")
        return
    if a.shrink is not None:
        src = gen.gen(int(a.shrink))[0] if a.shrink.isdigit() else open(a.shrink, encoding="utf-8").read()
        small, v = shrink_program(src, log=lambda s: print("  %d chars" % len(s), file=sys.stderr),
                                  budget=a.budget, want_class=a.cls)
        print(small.rstrip("\n") + "\n", end="")
        print("# --- verdict kept:", v and v[0])
        py, dg, v2 = run_both(small)
        print("# python: %r\n# dgl:    %r" % (py[0][-300:] + py[1][-200:], dg[0][-300:] + dg[1][:200]), flush=True)
        return
    if a.corpus:
        sys.exit(1 if run_corpus(a.corpus) else 0)
    if a.add_corpus:
        path, name = a.add_corpus
        src = open(path, encoding="utf-8").read()
        _, _, v = run_both(src)
        if v is not None:
            sys.exit("%s does not agree yet (%s: %s); fix DGL first" % (path, v[0], v[1]))
        with open(os.path.join(HERE, "corpus", name + ".py"), "w", encoding="utf-8") as f:
            f.write(src)
        print("wrote tools/pydifftest/corpus/%s.py" % name)
        return
    rows = run_seeds(range(a.start, a.start + a.count), a.jobs, a.log)
    counts = summarise(rows, not a.no_coverage)
    sys.exit(1 if counts.get("disagree") or counts.get("tester-error") else 0)


if __name__ == "__main__":
    main()
