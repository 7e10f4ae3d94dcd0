"""Make the TF-guide test corpus for DGL.

    TF_PYTHON=… TFDOCS_GIT=… python make_corpus.py          # all the guides, one TF process at a time
    python make_corpus.py tensor                                 # just one guide

For each guide G this writes, in tests/tfguides/ (the folder above this script):
  G.dgl       the kept code cells, verbatim, each after a line `# %% [N]` (N = 1-based index
              among the notebook's code cells)
  G.expected  per kept cell, `# %% [N]` then the text a notebook shows for it when the kept
              cells run in order in one Python process under TensorFlow, with tensors and
              Variables printed in DGL's format (dglfmt.patch_tensorflow)
and README.md for all of them.

Sources: the notebooks are read from the bare git mirror of github.com/tensorflow/docs.
"""
import ast
import io
import json
import os
import shutil
import subprocess
import sys
import tokenize

TOOLS = os.path.dirname(os.path.abspath(__file__))
HERE = os.path.dirname(TOOLS)  # the corpus: tests/tfguides/
# A bare clone of github.com/tensorflow/docs holding COMMIT.
MIRROR = os.environ.get("TFDOCS_GIT", "/work/.mirror/tensorflow+docs/repo")
COMMIT = "7c3650212740204359d4ceae481abc79345541be"
GUIDES = ["tensor", "variable", "basics", "autodiff", "intro_to_modules", "basic_training_loops", "checkpoint",
          "intro_to_graphs", "function"]
# A Python with tensorflow-cpu 2.21, NumPy 2 and matplotlib.
PY = os.environ.get("TF_PYTHON", "/work/venv-tf/bin/python")
WORKDIR = "/tmp/tfguides_run"  # cells that save files (SavedModel, checkpoints) write here

LICENSE_REASON = "license header (`#@title Licensed under the Apache License...`), comment only"

# Cells dropped by hand (besides the license header and pure magic/shell cells found below).
DROP = {
    ("variable", 11): "needs a GPU: places `k = a * b` on `tf.device('GPU:0')` (the point of the cell)",
}

# Cells whose magic lines are removed but whose Python code is kept (the only edit to a cell).
STRIP_MAGIC = {
    ("intro_to_modules", 2): "kept without its IPython magic line `%load_ext tensorboard` "
                             "(the rest -- the imports -- is needed by every later cell)",
}

# Kept cells whose own text output another implementation cannot reproduce by nature
# (cells that only draw random numbers without printing are not listed; their dependants are).
UNREPRODUCIBLE = {
    ("basics", 34): "training on random data (tf.random.normal in basics:27, tf.random.uniform init in basics:28) and a shuffled tf.data pipeline; printed losses vary",
    ("tensor", 33): "text of a TF InvalidArgumentError (TF's op/device names and wording)",
    ("tensor", 40): "text of TF's ValueError message",
    ("variable", 6): "text of TF's ValueError message (quotes TF's internal variable name)",
    ("autodiff", 27): "prints TF's Python class names (ResourceVariable, EagerTensor)",
    ("autodiff", 31): "text of TF's LookupError (TF's gradient-registry op name AdjustContrastv2)",
    ("autodiff", 8): "gradient depends on the tf.random.normal weights of autodiff:5",
    ("autodiff", 10): "Keras 3 variable names/paths (`kernel`, `bias`) are Keras internals",
    ("intro_to_modules", 6): "tf.random.normal weights",
    ("intro_to_modules", 8): "prints the random weights of intro_to_modules:6",
    ("intro_to_modules", 7): "repr of tf.Module objects contains memory addresses",
    ("intro_to_modules", 10): "tf.random.normal weights",
    ("intro_to_modules", 13): "lists TF checkpoint keys (TF's object-graph naming) and shapes",
    ("intro_to_modules", 14): "restores a TF checkpoint of random weights",
    ("intro_to_modules", 16): "tf.random.normal weights",
    ("intro_to_modules", 17): "random weights; TensorBoard trace/profiler to a timestamped log dir",
    ("intro_to_modules", 24): "tf.random.normal weights",
    ("intro_to_modules", 29): "tf.random.normal weights",
    ("intro_to_modules", 31): "text of a TF InvalidArgumentError (op names, shapes in TF's wording)",
    ("intro_to_modules", 32): "tf.random.normal weights",
    ("intro_to_modules", 35): "Keras model.summary() table (Keras-specific layout and names)",
    ("intro_to_modules", 36): "tf.random.normal weights",
    ("intro_to_modules", 39): "random weights reloaded from a .keras file",
    ("basic_training_loops", 7): "loss on random data (tf.random.normal noise of basic_training_loops:3)",
    ("basic_training_loops", 10): "training on random data; printed W, b, loss vary",
    ("basic_training_loops", 12): "loss on random data",
    ("basic_training_loops", 13): "training on random data; Keras save_weights",
    ("basic_training_loops", 15): "Keras fit progress bar: timings, random data, History object repr with a memory address",
    ("tensor", 11): "`tf.nn.softmax` through oneDNN: its last float32 digit (0.73105854) comes from oneDNN's own exp; TF with `TF_ENABLE_ONEDNN_OPTS=0` prints DGL's correctly rounded 0.7310586",
    ("basics", 7): "`tf.nn.softmax` through oneDNN, as tensor:11 (0.090030566 and 0.6652409; without oneDNN TF prints DGL's 0.09003057 and 0.66524094)",
    ("checkpoint", 10): "training from Dense's random initial weights; printed losses vary",
    ("checkpoint", 11): "continues checkpoint:10's random run (and TF 2.21 restores only part of it into Keras 3's objects: its loss jumps back up)",
    ("checkpoint", 14): "restores the weights of checkpoint:11's random run",
    ("checkpoint", 15): "repr of TF's CheckpointLoadStatus object contains a memory address",
    ("checkpoint", 17): "lists TF checkpoint keys (TF's object-graph naming: a dataset iterator's state, Keras 3 optimizer internals)",
    ("intro_to_graphs", 6): "prints `tf.autograph.to_code` output (AutoGraph's generated Python, TF-internal names)",
    ("intro_to_graphs", 7): "prints `get_concrete_function(...).graph.as_graph_def()` (TF's GraphDef protobuf text: op names, attrs, versions)",
    ("intro_to_graphs", 12): "prints two `tf.random.uniform` tensors",
    ("intro_to_graphs", 13): "MSE of the random tensors of intro_to_graphs:12",
    ("intro_to_graphs", 15): "MSE of the random tensors of intro_to_graphs:12",
    ("intro_to_graphs", 22): "text of a TF InvalidArgumentError (GatherV2's wording, op name and device)",
    ("intro_to_graphs", 25): "`timeit` timing",
    ("intro_to_graphs", 26): "`timeit` timing",
    ("function", 7): "`timeit` timings",
    ("function", 21): "prints the repr of TF's error class (its module path `tensorflow.python.framework.errors_impl`)",
    ("function", 24): "lists the nodes of a traced function's GraphDef (TF's op names and inputs)",
    ("function", 26): "`tf.print` of a `tf.random.uniform` tensor, iterated with tanh",
    ("function", 27): "prints `tf.autograph.to_code` output (AutoGraph's generated Python, TF-internal names)",
    ("function", 29): "counts the nodes of traced functions' GraphDefs (TF's graph construction)",
    ("function", 30): "result depends on a `tf.random.uniform` input",
    ("function", 40): "text of TF's AttributeError (TF's class name `SymbolicTensor`)",
    ("function", 41): "text of TF's AttributeError (TF's class name `SymbolicTensor`)",
}


def notebook(guide):
    text = subprocess.run(["git", "-C", MIRROR, "show", f"{COMMIT}:site/en/guide/{guide}.ipynb"],
                          capture_output=True, text=True, check=True).stdout
    nb = json.loads(text)
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def is_magic_line(line):
    s = line.strip()
    return s.startswith("%") or s.startswith("!")


def classify(guide, cells):
    """[(n, source_or_None, reason)] for every code cell."""
    out = []
    for n, src in enumerate(cells, 1):
        if src.lstrip().startswith("#@title Licensed under the Apache License"):
            out.append((n, None, LICENSE_REASON))
        elif (guide, n) in DROP:
            out.append((n, None, DROP[(guide, n)]))
        elif (guide, n) in STRIP_MAGIC:
            kept = "".join(l for l in src.splitlines(True) if not is_magic_line(l)).rstrip("\n")
            out.append((n, kept, None))
        elif any(is_magic_line(l) for l in src.splitlines()):
            code = [l for l in src.splitlines() if l.strip() and not l.strip().startswith("#")]
            what = "shell command" if all(l.strip().startswith("!") for l in code) else "IPython magic"
            out.append((n, None, f"{what} `{code[0].strip()}`"))
        elif any(k in src for k in ("get_file(", "tfds.", "http://", "https://")):
            out.append((n, None, "downloads data"))
        else:
            out.append((n, src, None))
    return out


def output_suppressed(src):
    """IPython hides Out[] when the cell's last token is ';'."""
    toks = [t for t in tokenize.generate_tokens(io.StringIO(src).readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                              tokenize.DEDENT, tokenize.ENDMARKER)]
    return bool(toks) and toks[-1].string == ";"


# ------------------------------------------------------------------ run one guide under TF
def run_guide(guide, cells_json, out_json):
    """Executed in a fresh Python process (the venv's): run the kept cells like a notebook."""
    import contextlib
    import linecache
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.path.insert(0, TOOLS)
    import tensorflow as tf  # noqa: F401  (patched before the first cell)
    import dglfmt
    dglfmt.patch_tensorflow()
    # As in a notebook kernel (tensorflow/python/ops/logging_ops.py does this when it finds
    # get_ipython): tf.print's text goes to Python's sys.stdout, so into the cell's text.
    from tensorflow.python.ops import logging_ops
    logging_ops.enable_interactive_logging()
    cells = json.load(open(cells_json))
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    results = []
    for n, src in cells:
        buf = io.StringIO()
        # As IPython does, let inspect.getsource find the cell's code (AutoGraph converts a
        # tf.function from its source; without it, `if`/`for` on tensors fail).
        fname = f"<cell {n}>"
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        with contextlib.redirect_stdout(buf):
            try:
                tree = ast.parse(src)
                body = tree.body
                if body and isinstance(body[-1], ast.Expr) and not output_suppressed(src):
                    head = ast.Module(body=body[:-1], type_ignores=[])
                    exec(compile(head, fname, "exec"), ns)
                    val = eval(compile(ast.Expression(body[-1].value), fname, "eval"), ns)
                    if val is not None:
                        print(repr(val))
                else:
                    exec(compile(tree, fname, "exec"), ns)
            except Exception as e:  # a notebook shows the traceback and goes on
                print(f"!! {type(e).__name__}")
        results.append([n, buf.getvalue()])
        sys.__stderr__.write(f"[{guide}] cell {n} done\n")
    json.dump(results, open(out_json, "w"))


# ------------------------------------------------------------------ files
def write_dgl(guide, kept):
    with open(os.path.join(HERE, f"{guide}.dgl"), "w") as f:
        for n, src in kept:
            f.write(f"# %% [{n}]\n{src.rstrip(chr(10))}\n")


def write_expected(guide, results):
    with open(os.path.join(HERE, f"{guide}.expected"), "w") as f:
        for n, text in results:
            if text and not text.endswith("\n"):
                text += "\n"
            f.write(f"# %% [{n}]\n{text}")


def tf_versions():
    code = "import tensorflow as tf, numpy as np, sys; print(tf.__version__, np.__version__, sys.version.split()[0])"
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=env).stdout.split()
    try:
        import keras_version  # noqa
    except ImportError:
        pass
    kv = subprocess.run([PY, "-c", "import keras; print(keras.__version__)"], capture_output=True,
                        text=True, env=env).stdout.strip()
    mv = subprocess.run([PY, "-c", "import matplotlib; print(matplotlib.__version__)"], capture_output=True,
                        text=True, env=env).stdout.strip()
    return out[0], out[1], out[2], kv, mv


# The README's closing section, written by hand (what DGL prints and why): kept as it is.
HAND_SECTION = "## Reproducible cells where DGL prints something else, and why"


def write_readme(table):
    tfv, npv, pyv, kv, mv = tf_versions()
    number = {7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}.get(len(GUIDES), str(len(GUIDES)))
    L = []
    L.append("# TensorFlow-guide corpus for DGL\n")
    L.append(f"Code cells of {number} TensorFlow guides, and the text output TensorFlow gives for each, so that")
    L.append("DGL can be measured against them: `cargo test --test tfguides` runs each guide cell by cell in")
    L.append("one session, as a notebook does, and counts the cells that print what TF printed. Seven Keras")
    L.append("developer guides, run the same way, are in `keras/` (see its README).\n")
    L.append("## Provenance and licence\n")
    L.append("- Repository: https://github.com/tensorflow/docs, commit "
             f"`{COMMIT[:9]}` ({COMMIT}), paths `site/en/guide/<G>.ipynb` for G in "
             + ", ".join(f"`{g}`" for g in GUIDES) + ".")
    L.append("- The notebooks' code is licensed under the Apache License, Version 2.0 "
             "(https://www.apache.org/licenses/LICENSE-2.0), Copyright The TensorFlow Authors. "
             "The `.dgl` files are verbatim copies of those code cells (one exception noted below) "
             "and stay under that licence.\n")
    L.append("## Files\n")
    L.append("- `DGL_TFGUIDES_ERRORS=1 cargo test --release --test tfguides -- --nocapture` prints the error of\n"
             "  each cell that raised, beside the per-cell comparison.")
    L.append("- `G.dgl` -- the kept code cells, in order, each after a marker line `# %% [N]` "
             "(N = 1-based index among the notebook's code cells).")
    L.append("- `G.expected` -- per kept cell, `# %% [N]` then the cell's expected text output.")
    L.append("- `tools/make_corpus.py` -- makes the above from the notebooks (`TF_PYTHON`: a Python with "
             "TensorFlow; `TFDOCS_GIT`: a clone of tensorflow/docs); `tools/dglfmt.py` -- DGL's tensor and "
             "Variable text format in Python, and `tools/rustflt.py` the shortest float text it uses; "
             "`tools/validate_dglfmt.py` -- checks dglfmt against a `dgl` binary byte for byte.\n")
    L.append("## How the expected outputs were made\n")
    L.append(f"- TensorFlow {tfv} (CPU only, `CUDA_VISIBLE_DEVICES=''`), Keras {kv}, NumPy {npv}, "
             f"matplotlib {mv} (Agg backend; installed into the venv with pip for this corpus), Python {pyv}; `make_corpus.py`, one process per guide, "
             f"working directory `{WORKDIR}/<G>` (emptied first).")
    L.append("- The kept cells run in order in one Python namespace. A cell's text is everything it "
             "writes to stdout, then, if its last statement is an expression whose value is not None "
             "(and the cell does not end with `;`), `repr(value)` and a newline, as IPython's Out[]. "
             "stderr (TF/Keras warnings) is not included. A text not ending in a newline gets one.")
    L.append("- As in a notebook kernel: `tf.print`'s text is part of the cell's text, in order with `print`'s "
             "(TF's interactive logging, which TF turns on when it finds IPython, sends it to Python's "
             "`sys.stdout`; enabled with `logging_ops.enable_interactive_logging()`), and each cell's source is "
             "registered in `linecache`, as IPython does, so that AutoGraph can read the source of a "
             "`tf.function` defined in a cell. The tracebacks that the function guide's `assert_raises` "
             "helper prints with `traceback.print_exc` go to stderr and are not included.")
    L.append("- If a cell raises an uncaught exception, its text is what it printed before, then one line "
             "`!! <ExceptionTypeName>`; the later cells still run (as in a notebook).")
    L.append("- Tensor format: before the first cell, `str`/`repr` of EagerTensor and of ResourceVariable "
             "are patched (`dglfmt.patch_tensorflow`) so that values computed by TF print in DGL's format: "
             "str = nested lists on one line (`[[1.0, 2.0], [3.0, 4.0]]`, scalar = its element, "
             "summarised with `...` past 1,000 elements keeping 3 entries at each end of each axis); "
             "floats as the shortest text that reads back at the tensor's precision, `.0` when integral, "
             "exponent form (`1e-8`, `1.2345678e16`) when |x| < 1e-4 or >= 1e16; repr = `tensor(<str>)` "
             "for float32, else `tensor(<str>, dtype=<name>)`; Variable str = str of value, repr = "
             "`Variable(<str>[, dtype=<name> unless float32][, name='<n>'])` -- the name is shown when it "
             "is not TF's default `Variable`, with TF's `:0` stripped. Strings (tf.string) print each "
             "element as Python's repr of its bytes (`b'Gray wolf'`), complex as Python's complex repr; "
             "dtypes DGL lacks (int32, uint8, float16, string, complex128) keep their TF name after "
             "`dtype=`. Everything else (NumPy arrays from `.numpy()`, shapes, dtypes, Python values, "
             "Keras objects, RaggedTensor/SparseTensor text) is printed as TF/NumPy print it.\n")
    L.append("## Cells per guide\n")
    L.append("| guide | code cells | dropped | kept | kept but unreproducible |")
    L.append("|---|---|---|---|---|")
    for g, (ncells, dropped, kept) in table.items():
        nun = sum(1 for (gg, n) in UNREPRODUCIBLE if gg == g)
        L.append(f"| {g} | {ncells} | {len(dropped)} | {len(kept)} | {nun} |")
    L.append("\n## Dropped cells\n")
    for g, (ncells, dropped, kept) in table.items():
        for n, reason in dropped:
            L.append(f"- {g}:{n} -- {reason}")
    for (g, n), why in STRIP_MAGIC.items():
        L.append(f"- (edited, not dropped) {g}:{n} -- {why}")
    L.append("\n## Notes\n")
    L.append("- Cell text in `.dgl` is the notebook's source unchanged except that trailing newlines are dropped "
             "(the marker line of the next cell follows).")
    L.append("- The guides were written for Keras 2; under TF 2.21 with Keras 3 some cells raise or print "
             "differently, and the expected files record what TF 2.21 does: intro_to_modules:26 (`!! ValueError`), "
             "intro_to_modules:28/30/33 (`[]`: Keras 3 layers do not track `tf.Variable`s), intro_to_modules:34 "
             "(`!! AttributeError`), basic_training_loops:13 (`!! ValueError`: `save_weights` wants a "
             "`.weights.h5` name), basic_training_loops:14 (`!! AttributeError`), basic_training_loops:15 "
             "(`!! ValueError`).")
    L.append("- basics:20: TF does not retrace `my_func` for a new int32 value of the same shape, so no "
             "`Tracing.` is printed.")
    L.append("\n## Kept cells whose own output cannot be reproduced by another implementation\n")
    L.append("(Cells that only draw random numbers without printing -- e.g. basics:27, autodiff:5, "
             "basic_training_loops:3 -- are not listed; the cells printing what depends on them are.)\n")
    for g in GUIDES:
        for (gg, n), why in sorted(UNREPRODUCIBLE.items(), key=lambda kv: (GUIDES.index(kv[0][0]), kv[0][1])):
            if gg == g:
                L.append(f"- {g}:{n} -- {why}")
    L.append("")
    text = "\n".join(L) + "\n"
    path = os.path.join(HERE, "README.md")
    old = open(path).read() if os.path.exists(path) else ""
    if HAND_SECTION in old:
        text += "\n" + old[old.index(HAND_SECTION):]
    open(path, "w").write(text)


def main(argv):
    if len(argv) >= 2 and argv[1] == "--run-guide":
        run_guide(argv[2], argv[3], argv[4])
        return
    readme_only = "--readme-only" in argv
    argv = [a for a in argv if a != "--readme-only"]
    guides = [] if readme_only else (argv[1:] or GUIDES)
    table = {}
    for g in GUIDES:
        cells = notebook(g)
        cl = classify(g, cells)
        kept = [(n, s) for n, s, r in cl if s is not None]
        dropped = [(n, r) for n, s, r in cl if s is None]
        table[g] = (len(cells), dropped, kept)
        if g not in guides:
            continue
        write_dgl(g, kept)
        wd = os.path.join(WORKDIR, g)
        shutil.rmtree(wd, ignore_errors=True)
        os.makedirs(wd)
        cj, oj = os.path.join(wd, "_cells.json"), os.path.join(wd, "_out.json")
        json.dump(kept, open(cj, "w"))
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3", MPLBACKEND="Agg",
                   PYTHONHASHSEED="0")
        with open(os.path.join(wd, "_stderr.txt"), "w") as err:
            subprocess.run([PY, os.path.abspath(__file__), "--run-guide", g, cj, oj], cwd=wd, env=env,
                           stderr=err, check=True, timeout=1800)
        write_expected(g, json.load(open(oj)))
        print(f"{g}: {len(cells)} cells, {len(dropped)} dropped, {len(kept)} kept")
    write_readme(table)


if __name__ == "__main__":
    main(sys.argv)
