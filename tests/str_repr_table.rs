//! Generated-input test (issue 24): `repr(chr(c))` and `chr(c).isprintable()` equal CPython
//! 3.11's for every code point below U+3000, both sides of every boundary between printable
//! and non-printable code points, and a stride through the rest, as recorded in
//! tests/data/str_repr.tsv by tools/gen_str_repr.py (run once with python3 and checked in;
//! this test never calls Python).

#[test]
fn repr_and_isprintable_of_each_code_point_match_cpython() {
    let table = include_str!("data/str_repr.tsv");
    let rows: Vec<Vec<&str>> = table.lines().map(|l| l.split('\t').collect()).collect();
    let hex: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    let program = format!(
        "for h in '{}'.split():\n    c = chr(int(h, 16))\n    print(repr(c), 1 if c.isprintable() else 0)\n",
        hex.join(" ")
    );
    let out = dgl::testing::run_text(&program);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), rows.len());
    let wrong: Vec<String> = rows
        .iter()
        .zip(&lines)
        .filter(|(r, got)| format!("{} {}", r[1], r[2]) != **got)
        .map(|(r, got)| format!("U+{}: CPython {} {}, DGL {got}", r[0], r[1], r[2]))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        rows.len(),
        wrong.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}
