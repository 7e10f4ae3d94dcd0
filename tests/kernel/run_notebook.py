"""Executes examples/notebooks/digits.ipynb in the DGL kernel with nbclient, as Jupyter
would, and checks what its cells produced: no errors, the training log, the accuracy, a
value shown as text, the tape summary and the figure as SVG.

Needs the kernelspec installed where jupyter_client finds it (.ci/run does that). Run:
    python tests/kernel/run_notebook.py [--save OUT.ipynb]
"""

import argparse
import pathlib
import re
import sys
import time

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "notebooks" / "digits.ipynb"


def text_of(cell, stream="stdout"):
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream" and o.name == stream)


def check(nb):
    code = [c for c in nb.cells if c.cell_type == "code"]
    problems = []

    def expect(ok, what):
        if not ok:
            problems.append(what)

    for i, cell in enumerate(code):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        expect(not errors, f"code cell {i} raised {[e.ename for e in errors]}")
        expect(not text_of(cell, "stderr"), f"code cell {i} wrote to stderr: {text_of(cell, 'stderr')!r}")
        expect(cell.execution_count == i + 1, f"code cell {i} has execution count {cell.execution_count}")

    data, model, train, evaluate, summary, figure, helped = code
    expect(text_of(data) == "1498 training and 299 test images\n", f"data cell printed {text_of(data)!r}")
    results = [o for o in data.outputs if o.output_type == "execute_result"]
    expect(len(results) == 1 and "1498" in results[0].data.get("text/plain", ""),
           f"the data cell's last expression (x_train.shape) gave {results}")
    results = [o for o in model.outputs if o.output_type == "execute_result"]
    expect(len(results) == 1 and results[0].data["text/plain"].count("64") >= 2,
           f"the model cell's shapes: {results}")

    epochs = re.findall(r"^epoch (\d)  loss (\d+\.\d+)$", text_of(train), re.M)
    expect([e for e, _ in epochs] == ["1", "2", "3", "4", "5"], f"training printed {text_of(train)!r}")
    if len(epochs) == 5:
        expect(float(epochs[-1][1]) < float(epochs[0][1]), f"the loss did not fall: {epochs}")

    m = re.fullmatch(r"test accuracy: (0\.\d{3})\n", text_of(evaluate))
    expect(m is not None, f"evaluation printed {text_of(evaluate)!r}")
    if m:
        expect(float(m.group(1)) >= 0.85, f"test accuracy {m.group(1)} is below 0.85")

    expect("matmul" in text_of(summary) and "saved" in text_of(summary).lower(),
           f"the tape summary: {text_of(summary)!r}")

    shown = [o for o in figure.outputs if o.output_type in ("display_data", "execute_result")]
    svg = [o for o in shown if "image/svg+xml" in o.data]
    expect(len(svg) == 1, f"the figure cell showed {[list(o.data) for o in shown]}")
    if svg:
        expect(svg[0].data["image/svg+xml"].lstrip().startswith("<svg") and "text/plain" in svg[0].data,
               "the figure is not SVG with a text/plain alternative")

    expect(text_of(helped).startswith("sparse_softmax_cross_entropy_with_logits(labels, logits)\n")
           and "- TF: `tf.nn.sparse_softmax_cross_entropy_with_logits`" in text_of(helped),
           f"help() printed {text_of(helped)[:200]!r}")
    reference = (ROOT / "docs" / "reference.md").read_text()
    expect(text_of(helped).split("\n", 1)[1].strip()[:400] in reference,
           "help()'s text is not the entry of docs/reference.md")

    info = nb.metadata.get("language_info", {})
    expect(info.get("name") == "dgl" and info.get("codemirror_mode") == "python",
           f"the kernel's language_info: {info}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=pathlib.Path, help="write the executed notebook here")
    args = parser.parse_args()
    nb = nbformat.read(NOTEBOOK, as_version=4)
    started = time.monotonic()
    client = NotebookClient(nb, kernel_name="dgl", timeout=300,
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    elapsed = time.monotonic() - started
    if args.save:
        nbformat.write(nb, args.save)
    problems = check(nb)
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"{NOTEBOOK.relative_to(ROOT)}: {len(nb.cells)} cells executed and checked in {elapsed:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
