//! Generated-input test (issue 24): `float(text)` and `int(text, base)` over random texts in
//! and around CPython's grammar (underscores, points, exponents, signs, prefixes, whitespace,
//! inf/nan spellings) give CPython 3.11's value or error, as recorded in
//! tests/data/number_text.tsv by tools/gen_number_text.py (run once with python3 and checked
//! in; this test never calls Python). Floats compare by `float.hex()`, bit for bit; an int
//! beyond 64 bits is DGL's OverflowError (docs/python.md).

mod common;

#[test]
fn number_texts_parse_as_cpython() {
    let table = include_str!("data/number_text.tsv");
    let rows = common::rows(table);
    let mut program = String::from(
        "def show(base, t):\n    try:\n        if base == 'float':\n            print(float(t).hex())\n        \
         else:\n            print(int(t, int(base)))\n    except OverflowError:\n        print('OVERFLOW')\n    \
         except ValueError as e:\n        print(('ERR ValueError: ' + str(e)).replace('\\t', '\\\\t').replace('\\n', '\\\\n'))\n",
    );
    for r in &rows {
        assert_eq!(r.len(), 3, "malformed row {r:?}");
        // Texts hold no quotes or backslashes other than the \t and \n escapes.
        assert!(!r[1].contains(['\'', '"']), "text {:?}", r[1]);
        program.push_str(&format!("show('{}', '{}')\n", r[0], r[1]));
    }
    common::check_lines(
        &program,
        &rows,
        |r| r[2].to_string(),
        |r, got| format!("{}({:?}): CPython {:?}, DGL {:?}", r[0], r[1], r[2], got),
    );
}
