//! DGL's special functions against TensorFlow 2.21's values on seeded grids with their edges
//! (tests/data/special_tf.tsv, written by tools/gen_special_table.py): float64 within 1e−12
//! relative (looser where the function's own conditioning or TF's algorithm allows no better;
//! each exception says why), float32 within 2 ulps of TF's float64 value rounded to float32.

use super::{special, Special};
use crate::tensor::{Array, DType};

const TABLE: &str = include_str!("../../../tests/data/special_tf.tsv");

fn by_name(name: &str) -> Special {
    [
        Special::Lgamma,
        Special::Digamma,
        Special::Erfinv,
        Special::Erfcinv,
        Special::Ndtri,
        Special::BesselI0,
        Special::BesselI0e,
        Special::BesselI1,
        Special::BesselI1e,
        Special::Rint,
        Special::ReciprocalNoNan,
        Special::Atan2,
        Special::Polygamma,
        Special::Igamma,
        Special::Igammac,
        Special::IgammaGradA,
        Special::Zeta,
        Special::NextAfter,
        Special::MulNoNan,
        Special::Betainc,
    ]
    .into_iter()
    .find(|f| f.name() == name)
    .unwrap_or_else(|| panic!("no special function {name}"))
}

/// The float64 tolerance (relative, absolute) of `f` against TF's value.
fn tolerance(f: Special) -> (f64, f64) {
    match f {
        // Near their zeros the value is a difference of O(1) terms (the recurrence, the
        // reflection): an absolute error of a few ulps of 1.
        Special::Lgamma | Special::Digamma | Special::Polygamma => (1e-12, 1e-14),
        _ => (1e-12, 0.0),
    }
}

fn close(got: f64, want: f64, rel: f64, abs: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= rel * want.abs() + abs
}

#[test]
fn special_functions_match_tensorflow() {
    let mut failures = vec![];
    let mut rows = 0;
    for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let f = by_name(cols[0]);
        let dtype = DType::from_name(cols[1]).expect("a dtype");
        let args: Vec<f64> = cols[2].split(',').map(|v| v.parse().expect("a float")).collect();
        let want: f64 = cols[3].parse().expect("a float");
        let arrays: Vec<Array> = args.iter().map(|&v| Array::scalar(dtype, v)).collect();
        let refs: Vec<&Array> = arrays.iter().collect();
        let got = special(f, &refs).expect("a float kernel").first_f64();
        let (rel, abs) = match dtype {
            DType::F64 => tolerance(f),
            _ => (2.0 * f32::EPSILON as f64, 2.0 * f32::MIN_POSITIVE as f64),
        };
        // TF's float64 erfinv is ndtri((x + 1)/2)/√2: rounding (x + 1)/2 costs it an absolute
        // error of up to an ulp of 1 times the slope √π/2·e^(y²) (1e−7 relative near 0, 1e−3
        // near ±1), where DGL solves erf(y) = x itself.
        let abs = match f {
            Special::Erfinv => abs + 4.0 * f64::EPSILON * (want * want).exp(),
            _ => abs,
        };
        rows += 1;
        if !close(got, want, rel, abs) {
            failures.push(format!("{}({:?}) {}: DGL {got:e}, TF {want:e}", f.name(), args, dtype));
        }
    }
    assert!(rows > 10_000, "the table has {rows} rows");
    assert!(failures.is_empty(), "{} of {rows} differ:\n{}", failures.len(), failures.join("\n"));
}
