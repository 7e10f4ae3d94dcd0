//! Generated-input test (issue 9): `format(value, spec)` for random format specs over
//! ints, floats, bools and strings equals CPython 3.11's result or error, as recorded
//! in tests/data/format_specs.tsv by tools/gen_format_specs.py (run once with python3
//! and checked in; this test never calls Python).

mod common;

#[test]
fn random_format_specs_match_cpython() {
    let table = include_str!("data/format_specs.tsv");
    let rows = common::rows(table);
    let mut program = String::from(
        "def show(v, s):\n    try:\n        print(format(v, s))\n    except Exception as e:\n        \
         print('ERR ' + type(e).__name__ + ': ' + str(e))\n",
    );
    for r in &rows {
        assert_eq!(r.len(), 4, "malformed row {r:?}");
        // The spec is written as a DGL string literal; specs hold no quotes or backslashes.
        assert!(!r[2].contains(['\'', '\\']), "spec {:?}", r[2]);
        program.push_str(&format!("show({}, '{}')\n", r[1], r[2]));
    }
    common::check_lines(
        &program,
        &rows,
        |r| r[3].to_string(),
        |r, got| format!("format({}, {:?}): CPython {:?}, DGL {:?}", r[1], r[2], r[3], got),
    );
}
