"""Generates tests/data/str_repr.tsv: CPython 3.11's `repr(chr(c))` and `chr(c).isprintable()`
for many code points: all below U+3000, both sides of every boundary between printable and
non-printable code points, and a stride through the rest. Each line: the code point in hex,
the repr, 1 or 0, tab-separated. Run with python3 (3.11) from the repository root; the
table is checked in and read by tests/str_repr_table.rs, which never calls Python."""
import sys

assert sys.version_info[:2] == (3, 11), "run with CPython 3.11"
codes = set(range(0x3000))
codes.update(range(0x3000, 0x110000, 97))
for c in range(1, 0x110000):
    if chr(c).isprintable() != chr(c - 1).isprintable():
        codes.update((c - 1, c))
codes -= set(range(0xD800, 0xE000))  # surrogates: not characters in DGL's strings
with open("tests/data/str_repr.tsv", "w", encoding="utf-8") as f:
    for c in sorted(codes):
        f.write(f"{c:x}\t{repr(chr(c))}\t{int(chr(c).isprintable())}\n")
