"""Writes the public names of TensorFlow's (Keras 3's under tf.keras) and NumPy's Python APIs, one
qualified name per line (`tf.math.reduce_sum`, `tf.keras.ops.mean`, `np.linalg.norm`), to the
files DGL reads to tell, when a script names something DGL lacks, whether the library has it at
all (src/builtins/modules/foreign.rs). Names are facts about the APIs; no code or text of the
libraries is copied.

Run with a Python that has the libraries (the versions DGL follows: TensorFlow 2.21, Keras 3,
NumPy 2):  python tools/tfnames/make.py src/builtins/modules/names
"""
import os
import sys
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def walk(root, prefix, keep, out, seen, depth=0):
    """Adds `prefix.name` for every public attribute of module `root`, descending into the
    submodules that belong to the library (`keep(module)`), each module once."""
    if id(root) in seen or depth > 4:
        return
    seen.add(id(root))
    for name in sorted(dir(root)):
        if name.startswith("_"):
            continue
        try:
            value = getattr(root, name)
        except Exception:
            continue
        qualified = f"{prefix}.{name}"
        out.add(qualified)
        if isinstance(value, types.ModuleType) and keep(value) and name != "compat":
            walk(value, qualified, keep, out, seen, depth + 1)
        elif isinstance(value, type) and depth == 0:
            # The public methods and attributes of a top-level class (`tf.GradientTape.gradient`,
            # `np.ndarray.reshape`); deeper classes (Keras layers) only by name.
            for member in dir(value):
                if not member.startswith("_"):
                    out.add(f"{qualified}.{member}")


def main(folder):
    import numpy as np
    import tensorflow as tf
    import keras  # noqa: F401 (tf.keras is Keras 3's API)

    libraries = [
        ("tensorflow", "tf", tf, lambda m: m.__name__.startswith(("tensorflow", "keras"))),
        ("numpy", "np", np, lambda m: m.__name__.startswith("numpy")),
    ]
    versions = {"tensorflow": tf.__version__, "keras": keras.__version__, "numpy": np.__version__}
    os.makedirs(folder, exist_ok=True)
    for lib, prefix, module, keep in libraries:
        names = set()
        walk(module, prefix, keep, names, set())
        path = os.path.join(folder, f"{lib}.txt")
        with open(path, "w") as f:
            f.write(f"# The public names of {lib} {versions[lib]}, made by tools/tfnames/make.py.\n")
            for n in sorted(names):
                f.write(n + "\n")
        print(path, len(names))


if __name__ == "__main__":
    main(sys.argv[1])
