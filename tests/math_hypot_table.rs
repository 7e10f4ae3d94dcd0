//! Generated-input test (issue 24): `math.hypot` of random pairs, triples and quadruples over
//! many magnitudes (subnormal to huge) equals CPython 3.11's correctly rounded result bit
//! for bit, as recorded in tests/data/hypot.tsv by tools/gen_hypot.py (run once with python3
//! and checked in; this test never calls Python).

#[test]
fn hypot_is_correctly_rounded_as_cpythons() {
    let rows: Vec<Vec<f64>> = include_str!("data/hypot.tsv")
        .lines()
        .map(|l| l.split(' ').map(|h| dgl::builtins::numbers::parse_hex_float(h).expect("a hex float")).collect())
        .collect();
    let mut wrong = vec![];
    for r in &rows {
        let (args, want) = r.split_at(r.len() - 1);
        let got = dgl::builtins::modules::math::norm(args);
        if got.to_bits() != want[0].to_bits() {
            wrong.push(format!("hypot{args:?}: CPython {:e}, DGL {got:e}", want[0]));
        }
    }
    assert!(wrong.is_empty(), "{} of {} differ:\n{}", wrong.len(), rows.len(), wrong.join("\n"));
}
