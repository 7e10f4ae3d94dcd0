//! Generated-input test (issue 24): `upper`, `lower`, `title`, `capitalize`, `swapcase`,
//! `casefold`, `istitle`, `isupper` and `islower` of texts holding each character that CPython
//! 3.11 (Unicode 14.0) gives a case, next to sigmas and letters, equal CPython's, as recorded
//! in tests/data/str_case.tsv by tools/gen_str_case.py (run once with python3 and checked in;
//! this test never calls Python).

mod common;

#[test]
fn case_mappings_are_cpythons() {
    let rows = common::rows(include_str!("data/str_case.tsv"));
    let mut program = String::from(
        "def show(c):\n    t = c + 'a\\u03a3 ' + c + '\\u03a3' + c\n    \
         r = [t.upper(), t.lower(), t.title(), t.capitalize(), t.swapcase(), t.casefold(), (c + 'a').istitle(), c.isupper(), c.islower()]\n    \
         print('\\t'.join([repr(x) for x in r]))\n",
    );
    for r in &rows {
        assert_eq!(r.len(), 10, "malformed row {r:?}");
        program.push_str(&format!("show(chr(0x{}))\n", r[0]));
    }
    common::check_lines(
        &program,
        &rows,
        |r| r[1..].join("\t"),
        |r, got| format!("U+{}: CPython {:?}, DGL {:?}", r[0], r[1..].join("\t"), got),
    );
}
