"""Make the Keras-guide part of DGL's TF-guide corpus (tests/tfguides/keras/).

    TF_PYTHON=… KERAS_GUIDES=… python make_keras_corpus.py           # all guides
    python make_keras_corpus.py functional_api                         # just one

A keras-io guide is a Python file whose markdown is in top-level triple-quoted strings; its code
cells are the runs of code between them (as keras-io's notebook converter cuts them). For each
guide G this writes, in tests/tfguides/keras/:
  G.dgl       the kept code cells, each after a line `# %% [N]` (N = 1-based index among the
              guide's code cells), verbatim except for the edits listed in EDITS (synthetic data
              in place of downloads, fewer epochs)
  G.expected  per kept cell, `# %% [N]` then the text it prints under Keras 3 on TF 2.21, as
              make_corpus.py records it (stdout, then repr of a last expression, `!! Kind` for an
              uncaught exception), tensors in DGL's format (dglfmt.patch_tensorflow)
and the cell table of README.md (between its `<!-- cells -->` markers).

Which cells another implementation can reproduce is found by running each guide twice under
Keras with different random seeds: a cell whose text differs between the two runs (random
weights, timings in a progress bar) is listed as unreproducible, beside the cells listed by hand
in UNREPRODUCIBLE.
"""
import ast
import json
import os
import shutil
import subprocess
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
HERE = os.path.join(os.path.dirname(TOOLS), "keras")  # tests/tfguides/keras/
# The guide files, copied from github.com/keras-team/keras-io (see the README for commits).
SOURCES = os.environ.get("KERAS_GUIDES", "/work/kguides/src")
PY = os.environ.get("TF_PYTHON", "/work/venv-tf/bin/python")
WORKDIR = "/tmp/kerasguides_run"
GUIDES = [
    "functional_api",
    "sequential_model",
    "making_new_layers_and_models_via_subclassing",
    "training_with_built_in_methods",
    "writing_a_custom_training_loop_in_tensorflow",
    "customizing_what_happens_in_fit",
    "serialization_and_saving",
]

# Cells left out, with the reason.
DROP = {
    ("functional_api", 26): "downloads VGG19's ImageNet weights (keras.applications is outside DGL)",
    ("functional_api", 27): "uses cell 26's VGG19",
    ("functional_api", 28): "uses cell 26's VGG19",
    ("training_with_built_in_methods", 26): "PyTorch's Dataset (torch is outside DGL)",
    ("training_with_built_in_methods", 27): "PyTorch's DataLoader (torch is outside DGL)",
    ("training_with_built_in_methods", 28): "trains on cell 27's PyTorch DataLoader",
}


def mnist(n_train, n_test):
    """Synthetic data of MNIST's shapes and dtypes, `n_train` and `n_test` examples, in place of
    `keras.datasets.mnist.load_data()` (which downloads)."""
    def part(n):
        return (f'(np.random.randint(0, 256, ({n}, 28, 28)).astype("uint8"), '
                f'np.random.randint(0, 10, ({n},)).astype("uint8"))')
    return f"({part(n_train)}, {part(n_test)})"


def cifar10(n_train, n_test):
    """Synthetic data of CIFAR-10's shapes and dtypes, in place of `keras.datasets.cifar10.load_data()`."""
    def part(n):
        return (f'(np.random.randint(0, 256, ({n}, 32, 32, 3)).astype("uint8"), '
                f'np.random.randint(0, 10, ({n}, 1)).astype("uint8"))')
    return f"({part(n_train)}, {part(n_test)})"


MNIST = "keras.datasets.mnist.load_data()"

# Edits to a cell's text (old, new), applied in order: synthetic data in place of downloads, and
# fewer examples so that each guide runs in seconds. Each is listed in the README.
EDITS = {
    ("functional_api", 12): [(MNIST, mnist(600, 100)), ("reshape(60000, 784)", "reshape(600, 784)"),
                             ("reshape(10000, 784)", "reshape(100, 784)")],
    ("functional_api", 24): [("keras.datasets.cifar10.load_data()", cifar10(200, 20))],
    ("making_new_layers_and_models_via_subclassing", 19): [
        (MNIST, mnist(600, 100)), ("reshape(60000, 784)", "reshape(600, 784)")],
    ("training_with_built_in_methods", 1): [("import torch\n", "")],
    ("training_with_built_in_methods", 3): [
        (MNIST, mnist(1200, 100)), ("reshape(60000, 784)", "reshape(1200, 784)"),
        ("reshape(10000, 784)", "reshape(100, 784)"), ("[-10000:]", "[-200:]"), ("[:-10000]", "[:-200]")],
    ("writing_a_custom_training_loop_in_tensorflow", 3): [
        (MNIST, mnist(1200, 100)), ("[-10000:]", "[-200:]"), ("[:-10000]", "[:-200]")],
    ("writing_a_custom_training_loop_in_tensorflow", 16): [(MNIST, mnist(128, 64))],
    ("customizing_what_happens_in_fit", 9): [(MNIST, mnist(128, 64))],
}

# Kept cells whose text another implementation cannot reproduce, found by reading them (the
# cells that differ between two seeded Keras runs are found by the runs themselves).
UNREPRODUCIBLE = {}


def code_cells(text):
    """The guide's code cells: the source between its top-level string statements."""
    tree = ast.parse(text)
    lines = text.splitlines(True)
    cells, start = [], 0  # start: the first line (0-based) after the last markdown block
    def flush(end):
        chunk = "".join(lines[start:end]).strip("\n")
        if chunk.strip():
            cells.append(chunk)
    for node in tree.body:
        is_markdown = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(
            node.value.value, str)
        if is_markdown:
            flush(node.lineno - 1)
            start = node.end_lineno
    flush(len(lines))
    return cells


def kept_cells(guide):
    text = open(os.path.join(SOURCES, f"{guide}.py"), encoding="utf-8").read()
    out, dropped = [], []
    for n, src in enumerate(code_cells(text), 1):
        if (guide, n) in DROP:
            dropped.append((n, DROP[(guide, n)]))
            continue
        for old, new in EDITS.get((guide, n), []):
            if old not in src:
                raise SystemExit(f"{guide}:{n}: the edit's text {old!r} is not in the cell")
            src = src.replace(old, new)
        out.append((n, src))
    return out, dropped


def run_under_keras(guide, kept, seed):
    """Runs the cells in a fresh TF process (make_corpus.py's runner), seeded; returns {n: text}."""
    wd = os.path.join(WORKDIR, f"{guide}-{seed}")
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    cj, oj = os.path.join(wd, "_cells.json"), os.path.join(wd, "_out.json")
    seeded = [(0, f"import keras as _k\n_k.utils.set_random_seed({seed})")] + kept
    json.dump(seeded, open(cj, "w"))
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3", MPLBACKEND="Agg",
               PYTHONHASHSEED="0", KERAS_HOME=os.path.join(wd, "keras_home"))
    with open(os.path.join(wd, "_stderr.txt"), "w") as err:
        subprocess.run([PY, os.path.join(TOOLS, "make_corpus.py"), "--run-guide", guide, cj, oj], cwd=wd,
                       env=env, stderr=err, check=True, timeout=3600)
    return {n: text for n, text in json.load(open(oj)) if n != 0}


def write(guide, kept, results):
    with open(os.path.join(HERE, f"{guide}.dgl"), "w") as f:
        for n, src in kept:
            f.write(f"# %% [{n}]\n{src.rstrip(chr(10))}\n")
    with open(os.path.join(HERE, f"{guide}.expected"), "w") as f:
        for n, _ in kept:
            text = results[n]
            if text and not text.endswith("\n"):
                text += "\n"
            f.write(f"# %% [{n}]\n{text}")


def main(argv):
    guides = argv[1:] or GUIDES
    os.makedirs(HERE, exist_ok=True)
    varying_path = os.path.join(HERE, "varying.json")
    varying = json.load(open(varying_path)) if os.path.exists(varying_path) else {}
    for g in guides:
        kept, dropped = kept_cells(g)
        first = run_under_keras(g, kept, 1)
        second = run_under_keras(g, kept, 2)
        write(g, kept, first)
        varying[g] = [n for n, _ in kept if first[n] != second[n]]
        print(f"{g}: {len(kept) + len(dropped)} cells, {len(dropped)} dropped, {len(kept)} kept, "
              f"{len(varying[g])} vary between seeded runs")
    json.dump(varying, open(varying_path, "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv)
