"""Generates tests/data/number_text.tsv: random texts in and around the grammar of
`float(text)` and `int(text, base)` (digits, underscores, points, exponents, signs, prefixes,
whitespace, inf/nan spellings), with CPython 3.11's result: `float(text).hex()`, or
`int(text, base)`, or `ERR Kind: message`; an int beyond 64 bits is `OVERFLOW` (DGL's ints
are 64-bit: docs/python.md). Each line: `float` or the base, the text with tab and newline
written as \\t and \\n, the result; tab-separated. Run with python3 (3.11) from the
repository root; tests/number_text_table.rs reads it and never calls Python."""
import random
import sys

assert sys.version_info[:2] == (3, 11), "run with CPython 3.11"
random.seed(24)
PIECES = ["0", "1", "7", "9", "12", "_", "__", ".", "e", "E", "+", "-", "x", "0x", "0o", "0b", "ff",
          "a", "z", " ", "\t", "\n", "inf", "Inf", "INFINITY", "nan", "NaN", "infinity", "5e", "1_0", "00"]


def digits():
    return "_".join(str(random.randint(0, 999)) for _ in range(random.randint(1, 3)))


def number():
    """A text near the grammar: a valid number, often with one piece changed."""
    t = random.choice(["", "", " ", "\t"]) + random.choice(["", "", "+", "-"])
    t += random.choice([digits(), digits() + "." + digits(), "." + digits(), digits() + ".",
                        random.choice(["0x", "0o", "0b", "0X"]) + random.choice(["", "_"]) + digits()])
    if random.random() < 0.3:
        t += random.choice("eE") + random.choice(["", "+", "-"]) + digits()
    t += random.choice(["", "", " ", "\n"])
    if random.random() < 0.3:
        i = random.randint(0, len(t))
        t = t[:i] + random.choice(PIECES) + t[i:]
    return t


def text():
    if random.random() < 0.6:
        return number()
    n = random.randint(1, 6)
    return "".join(random.choice(PIECES) for _ in range(n))


def show(f):
    try:
        return f()
    except ValueError as e:
        return f"ERR ValueError: {e}"


def as_int(v):
    return str(v) if -2**63 <= v < 2**63 else "OVERFLOW"


rows = set()
while len(rows) < 6000:
    t = text()
    base = random.choice(["float", "float", 0, 10, 2, 8, 16, 36])
    if base == "float":
        r = show(lambda: float(t).hex())
    else:
        r = show(lambda: as_int(int(t, base)))
    esc = t.replace("\t", "\\t").replace("\n", "\\n")
    rows.add((str(base), esc, r.replace("\t", "\\t").replace("\n", "\\n")))
with open("tests/data/number_text.tsv", "w") as f:
    for r in sorted(rows):
        f.write("\t".join(r) + "\n")
