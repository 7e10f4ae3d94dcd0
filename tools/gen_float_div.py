"""Generates tests/data/float_div.tsv: `x / y`, `x // y`, `x % y` and `divmod(x, y)` of random
ints (small, and beyond 2**53 where converting to float rounds) and floats (every magnitude,
quotients huge and tiny, signed zeros, infinities, NaN), with CPython 3.11's result as
`float.hex()` (two for divmod), or `ERR Kind`. Each line: the operator, x, y, the result,
tab-separated; an int is written in decimal, a float as its hex. Run with python3 (3.11) from
the repository root; tests/float_div_table.rs reads it and never calls Python."""
import math
import random
import struct
import sys

assert sys.version_info[:2] == (3, 11), "run with CPython 3.11"
random.seed(2403)


def an_int():
    k = random.random()
    if k < 0.3:
        return random.randint(-100, 100)
    if k < 0.5:
        return random.choice([1, -1]) * (2**53 + random.randint(-5, 5))
    if k < 0.8:
        return random.randint(-2**63, 2**63 - 1)
    return random.choice([1, -1]) * random.randint(1, 2**random.randint(1, 62))


def a_float():
    k = random.random()
    if k < 0.3:
        return random.uniform(-10, 10)
    if k < 0.6:
        return random.choice([1, -1]) * random.random() * 10.0**random.randint(-320, 308)
    if k < 0.7:
        return random.choice([0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, 1.7976931348623157e308, 0.1, 1.0])
    return struct.unpack("d", struct.pack("Q", random.getrandbits(64)))[0]


def operand(kind):
    return an_int() if kind == "int" else a_float()


def show(v):
    if isinstance(v, tuple):
        return " ".join(float(x).hex() for x in v)
    return float(v).hex()


def lit(x):
    return str(x) if isinstance(x, int) else x.hex()


rows = []
seen = set()
while len(rows) < 8000:
    op = random.choice(["/", "//", "%", "divmod"])
    kinds = random.choice([("int", "int"), ("float", "float"), ("float", "float"), ("int", "float"), ("float", "int")])
    if op != "/" and kinds == ("int", "int"):
        kinds = ("float", "float")
    x, y = operand(kinds[0]), operand(kinds[1])
    try:
        if op == "/":
            r = x / y
        elif op == "//":
            r = x // y
        elif op == "%":
            r = x % y
        else:
            r = divmod(x, y)
        out = show(r)
    except (ZeroDivisionError, OverflowError, ValueError) as e:
        out = "ERR " + type(e).__name__
    key = (op, lit(x), lit(y))
    if key in seen:
        continue
    seen.add(key)
    rows.append("\t".join([op, lit(x), lit(y), out]))
with open("tests/data/float_div.tsv", "w") as f:
    f.write("\n".join(rows) + "\n")
