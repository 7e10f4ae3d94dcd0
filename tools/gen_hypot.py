"""Generates tests/data/hypot.tsv: CPython 3.11's `math.hypot` (correctly rounded) of random
pairs and triples over many magnitudes, subnormals and huge values included. Each line: the
arguments and the result as `float.hex()` texts, space-separated. Run with python3 (3.11) from
the repository root; tests/math_hypot_table.rs reads it and never calls Python."""
import math
import random
import sys

assert sys.version_info[:2] == (3, 11), "run with CPython 3.11"
random.seed(2411)


def coord():
    kind = random.random()
    if kind < 0.7:
        x = random.uniform(-1, 1) * 10.0 ** random.randint(-20, 20)
    elif kind < 0.8:
        x = random.uniform(-1, 1) * 10.0 ** random.randint(-320, -300)
    elif kind < 0.9:
        x = random.uniform(-1, 1) * 10.0 ** random.randint(290, 307)
    else:
        x = float(random.randint(-1000, 1000))
    return x


with open("tests/data/hypot.tsv", "w") as f:
    for i in range(4000):
        xs = [coord() for _ in range(random.choice([2, 2, 3, 4]))]
        if random.random() < 0.5:
            # Nearby magnitudes: where rounding is hardest.
            xs = [xs[0] * random.uniform(0.5, 2.0) for _ in xs]
        r = math.hypot(*xs)
        f.write(" ".join(x.hex() for x in xs + [r]) + "\n")
