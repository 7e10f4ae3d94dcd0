"""Writes the TensorFlow functions whose signature has a `name` parameter, one qualified name per
line (`tf.math.reduce_sum`), for the test that DGL accepts `name=` wherever TF does
(tests/tfimport.rs, `every_tf_function_taking_name_takes_it`). Names are facts about the API.

Run with TensorFlow 2.21:  python tools/tfnames/name_param.py tests/data/tf_name_param.txt
"""
import inspect
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

MODULES = ["", "math", "math.special", "nn", "linalg", "random", "debugging", "signal", "bitwise",
           "dtypes", "image", "strings", "sparse", "ragged", "io"]


def main(path):
    out = set()
    for sub in MODULES:
        module = tf
        for part in filter(None, sub.split(".")):
            module = getattr(module, part)
        prefix = "tf." + sub if sub else "tf"
        for name in dir(module):
            value = getattr(module, name)
            if name.startswith("_") or inspect.isclass(value) or inspect.ismodule(value) or not callable(value):
                continue
            try:
                params = inspect.signature(value).parameters
            except (TypeError, ValueError):
                continue
            if "name" in params:
                out.add(f"{prefix}.{name}")
    with open(path, "w") as f:
        f.write("".join(n + "\n" for n in sorted(out)))
    print(len(out), "names")


if __name__ == "__main__":
    main(sys.argv[1])
