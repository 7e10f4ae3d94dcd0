//! Generated-input test (issue 24): `repr(chr(c))` and `chr(c).isprintable()` equal CPython
//! 3.11's for every code point below U+3000, both sides of every boundary between printable
//! and non-printable code points, and a stride through the rest, as recorded in
//! tests/data/str_repr.tsv by tools/gen_str_repr.py (run once with python3 and checked in;
//! this test never calls Python).

mod common;

#[test]
fn repr_and_isprintable_of_each_code_point_match_cpython() {
    let table = include_str!("data/str_repr.tsv");
    let rows = common::rows(table);
    let hex: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    let program = format!(
        "for h in '{}'.split():\n    c = chr(int(h, 16))\n    print(repr(c), 1 if c.isprintable() else 0)\n",
        hex.join(" ")
    );
    common::check_lines(
        &program,
        &rows,
        |r| format!("{} {}", r[1], r[2]),
        |r, got| format!("U+{}: CPython {} {}, DGL {got}", r[0], r[1], r[2]),
    );
}
