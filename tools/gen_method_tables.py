"""Generates tests/data/method_tables.tsv: the public (non-dunder) attribute names CPython
3.11's `dir()` lists for a value of each builtin type DGL models, one line per type:
the type name, a tab, the names separated by spaces. Run with python3 (3.11) from the
repository root; the file is checked in and read by tests/method_tables.rs, which
compares DGL's own `dir()` of the same values with it (never calling Python)."""
import sys

assert sys.version_info[:2] == (3, 11), "run with CPython 3.11"
VALUES = {
    "list": [1],
    "tuple": (1,),
    "dict": {1: 2},
    "set": {1},
    "frozenset": frozenset({1}),
    "str": "a",
    "range": range(3),
    "int": 5,
    "bool": True,
    "float": 1.5,
}
with open("tests/data/method_tables.tsv", "w") as f:
    for name, v in VALUES.items():
        names = sorted(n for n in dir(v) if not n.startswith("__"))
        f.write(name + "\t" + " ".join(names) + "\n")
