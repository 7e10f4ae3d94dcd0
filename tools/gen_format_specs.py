"""Generates tests/data/format_specs.tsv: random format specs applied to ints, floats,
bools and strings, with CPython's result (or error). Run with python3 (3.11); the
table is checked in and read by tests/format_spec_table.rs, which never calls Python.
Each line: kind, value literal, spec, then the result or `ERR Kind: message`, tab-separated."""
import random

random.seed(2026)
INTS = [0, 7, -7, 42, -1234567, 255, 9223372036854775807, -9223372036854775807, 1000, 65]
FLOATS = [0.0, -0.0, 1.5, -2.5, 3.14159265, 1234567.891, 0.000123456, 1e-7, 2.5e15, 123456789.0,
          float("inf"), float("-inf"), float("nan"), 0.5, 9.9999995, 100.0, 1e16, 0.1]
STRS = ["", "a", "abc", "héllo", "x y"]

def spec():
    s = ""
    if random.random() < 0.3:
        s += random.choice("*-0x# ") + random.choice("<>^=")
    elif random.random() < 0.4:
        s += random.choice("<>^=")
    if random.random() < 0.3:
        s += random.choice("+- ")
    if random.random() < 0.1:
        s += "z"
    if random.random() < 0.2:
        s += "#"
    if random.random() < 0.2:
        s += "0"
    if random.random() < 0.5:
        s += str(random.randint(0, 14))
    if random.random() < 0.25:
        s += random.choice(",_")
    if random.random() < 0.4:
        s += "." + str(random.randint(0, 12))
    if random.random() < 0.8:
        s += random.choice("bcdoxXneEfFgG%s")
    return s

def literal(v):
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return 'float("%s")' % v
    return repr(v)

rows = []
for _ in range(1500):
    kind = random.choice(["int", "float", "float", "bool", "str"])
    v = {"int": lambda: random.choice(INTS), "float": lambda: random.choice(FLOATS),
         "bool": lambda: random.choice([True, False]), "str": lambda: random.choice(STRS)}[kind]()
    sp = spec()
    try:
        out = format(v, sp)
    except Exception as e:
        out = "ERR %s: %s" % (type(e).__name__, e)
    # DGL writes float exponents without '+' and padding (docs/language.md §3) where str() is used:
    # leave out the specs that fall back to str(float) with an exponent.
    if isinstance(v, float) and "e" in repr(v) and not any(c in sp for c in "eEfFgGn%") and "." not in sp:
        continue
    if kind == "int" and abs(v) > 2**53 and any(c in sp for c in "eEfFgG%"):
        continue
    rows.append("\t".join([kind, literal(v), sp, out]))

with open("tests/data/format_specs.tsv", "w") as f:
    f.write("\n".join(rows) + "\n")
print(len(rows), "rows")
