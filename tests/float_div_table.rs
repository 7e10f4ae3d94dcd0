//! Generated-input test (issue 24): `/`, `//`, `%` and `divmod` of random ints (beyond 2**53
//! too) and floats (every magnitude, signed zeros, infinities, NaN) give CPython 3.11's result
//! bit for bit, or its error kind, as recorded in tests/data/float_div.tsv by
//! tools/gen_float_div.py (run once with python3 and checked in; this test never calls Python).
//! CPython's float `%` is the exact remainder (fmod) with its sign fixed, and int / int the
//! exact quotient rounded once.

mod common;

#[test]
fn divisions_give_cpythons_bits() {
    let rows = common::rows(include_str!("data/float_div.tsv"));
    let mut program = String::from(
        "def num(t):\n    return float.fromhex(t) if 'p' in t or t in ('inf', '-inf', 'nan') else int(t)\n\
         def show(op, x, y):\n    try:\n        if op == '/':\n            print((x / y).hex())\n        \
         elif op == '//':\n            print((x // y).hex())\n        elif op == '%':\n            print((x % y).hex())\n        \
         else:\n            q, r = divmod(x, y)\n            print(q.hex() + ' ' + r.hex())\n    \
         except (ZeroDivisionError, OverflowError, ValueError) as e:\n        print('ERR ' + type(e).__name__)\n",
    );
    for r in &rows {
        assert_eq!(r.len(), 4, "malformed row {r:?}");
        program.push_str(&format!("show('{}', num('{}'), num('{}'))\n", r[0], r[1], r[2]));
    }
    common::check_lines(
        &program,
        &rows,
        |r| r[3].to_string(),
        |r, got| format!("{} {} {}: CPython {}, DGL {}", r[1], r[0], r[2], r[3], got),
    );
}
