"""Generates tests/data/str_case.tsv: for every character CPython 3.11 (Unicode 14.0) assigns
that has a case mapping or folding or is cased, the results of `upper`, `lower`, `title`,
`capitalize`, `swapcase` and `casefold` of a text holding it next to sigmas (the final-sigma
rule) and letters, and `istitle`, `isupper`, `islower`, as `repr()`. Each line: the code point
in hex, then the nine results, tab-separated. Characters whose case changed after Unicode 14.0
in the Unicode version Rust's `char` follows are left out (EXCLUDED; docs/python.md says so).
Run with python3 (3.11) from the repository root; tests/str_case_table.rs reads it and never
calls Python."""
import sys
import unicodedata

assert sys.version_info[:2] == (3, 11), "run with CPython 3.11"
# Characters whose case changed after Unicode 14.0 in the version Rust's std follows: U+019B
# 'ƛ', U+0264 'ɤ', U+A7D3 and U+A7D5 gained upper case forms (new characters of Unicode 16.0),
# and U+0295 'ʕ' is no longer lower case.
EXCLUDED = {0x019B, 0x0264, 0x0295, 0xA7D3, 0xA7D5}


def text(c):
    return c + "a\u03a3 " + c + "\u03a3" + c


rows = []
for cp in range(0x110000):
    c = chr(cp)
    if cp in EXCLUDED or unicodedata.category(c) in ("Cn", "Cs"):
        continue
    if c.upper() == c and c.lower() == c and c.title() == c and c.casefold() == c and not (c.isupper() or c.islower() or c.istitle()):
        continue
    t = text(c)
    r = [t.upper(), t.lower(), t.title(), t.capitalize(), t.swapcase(), t.casefold(),
         (c + "a").istitle(), c.isupper(), c.islower()]
    rows.append("\t".join([f"{cp:x}"] + [repr(x) for x in r]))
with open("tests/data/str_case.tsv", "w") as f:
    f.write("\n".join(rows) + "\n")
