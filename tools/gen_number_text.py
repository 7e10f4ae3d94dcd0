"""Generates tests/data/number_text.tsv: random texts in and around the grammar of
`float(text)` and `int(text, base)` (digits, underscores, points, exponents, signs, prefixes,
whitespace, inf/nan spellings), with CPython 3.11's result: `float(text).hex()`, or
`int(text, base)`, or `ERR Kind: message`; an int beyond 64 bits is `OVERFLOW` (DGL's ints
are 64-bit: docs/python.md). Each line: `float` or the base, the text with tab and newline
written as \\t and \\n, the result; tab-separated. Run with python3 (3.11) from the
repository root; tests/number_text_table.rs reads it and never calls Python."""
import random
import sys
import unicodedata

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
# Texts with non-ASCII decimal digits (every script's, category Nd) and Unicode whitespace,
# which CPython reads as ASCII digits and spaces; a random non-digit letter now and then.
ZEROS = [c for c in range(0x110000) if unicodedata.decimal(chr(c), -1) == 0]
SPACES = ["\u00a0", "\u2003", "\u3000", "\u1680", "\u205f", "\x1c", "\x85"]
unicode_rng = random.Random(2404)


def unicode_text(t):
    zero = unicode_rng.choice(ZEROS)
    out = "".join(chr(zero + int(c)) if c.isdigit() and unicode_rng.random() < 0.8 else c for c in t)
    if unicode_rng.random() < 0.5:
        out = unicode_rng.choice(SPACES) + out + unicode_rng.choice(SPACES + [""])
    if unicode_rng.random() < 0.1:
        i = unicode_rng.randint(0, len(out))
        out = out[:i] + unicode_rng.choice(["\u00e9", "\u0663", "\u2003", "\u00b2", "\u2155"]) + out[i:]
    return out


extra = set()
while len(extra) < 1500:
    t = unicode_text(number())
    base = unicode_rng.choice(["float", "float", 0, 10, 16, 36])
    if base == "float":
        r = show(lambda: float(t).hex())
    else:
        r = show(lambda: as_int(int(t, base)))
    esc = t.replace("\t", "\\t").replace("\n", "\\n")
    extra.add((str(base), esc, r.replace("\t", "\\t").replace("\n", "\\n")))
rows |= extra
with open("tests/data/number_text.tsv", "w") as f:
    for r in sorted(rows):
        f.write("\t".join(r) + "\n")
