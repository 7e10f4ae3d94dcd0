//! `tf.math.special`'s Bessel J, Y, K, dawsn, expint, Fresnel and spence kernels against the
//! float64 truth (tests/data/special_mpmath.tsv, 40-digit values from
//! tools/gen_special_mpmath.py): within 4 ulps, and for J and Y past 30, where their zeros
//! are not treated apart, within 4 ulps of their envelope √(2/(πx)) absolutely.

use super::{special, Special};
use crate::tensor::{Array, DType};

const TABLE: &str = include_str!("../../../tests/data/special_mpmath.tsv");

const FUNCTIONS: [Special; 13] = [
    Special::BesselJ0,
    Special::BesselJ1,
    Special::BesselY0,
    Special::BesselY1,
    Special::BesselK0,
    Special::BesselK0e,
    Special::BesselK1,
    Special::BesselK1e,
    Special::Dawsn,
    Special::Expint,
    Special::FresnelCos,
    Special::FresnelSin,
    Special::Spence,
];

/// The spacing of float64 numbers at |v| (subnormals' included).
fn ulp(v: f64) -> f64 {
    let v = v.abs();
    if v < f64::MIN_POSITIVE {
        return f64::from_bits(1);
    }
    f64::from_bits(v.to_bits() + 1) - v
}

#[test]
fn special_integrals_and_bessel_functions_match_the_float64_truth() {
    let mut failures = vec![];
    let mut rows = 0;
    for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let f = FUNCTIONS.into_iter().find(|f| f.name() == cols[0]).expect("a function of the table");
        let x: f64 = cols[1].parse().expect("a float");
        let want: f64 = cols[2].parse().expect("a float");
        let got = special(f, &[&Array::scalar(DType::F64, x)]).expect("a float64 kernel").first_f64();
        let mut tol = 4.0 * ulp(want);
        if matches!(f, Special::BesselJ0 | Special::BesselJ1 | Special::BesselY0 | Special::BesselY1) && x.abs() > 30.0 {
            let envelope = (2.0 / (std::f64::consts::PI * x.abs())).sqrt().min(1.0);
            tol = tol.max(4.0 * ulp(envelope));
        }
        rows += 1;
        let ok = if want.is_infinite() { got == want } else { (got - want).abs() <= tol };
        if !ok {
            failures.push(format!("{}({x:e}): DGL {got:e}, truth {want:e} ({:.1} ulps)", f.name(), (got - want) / ulp(want)));
        }
    }
    assert!(rows > 3000, "the table has {rows} rows");
    assert!(failures.is_empty(), "{} of {rows} differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn float32_and_float16_round_the_float64_value_once() {
    for f in FUNCTIONS {
        // Points that float32 holds exactly, so that both dtypes see the same x.
        for x in [0.375, 1.75, 4.5] {
            let wide = special(f, &[&Array::scalar(DType::F64, x)]).unwrap().first_f64();
            let single = special(f, &[&Array::scalar(DType::F32, x)]).unwrap();
            assert_eq!(single.dtype(), DType::F32);
            assert_eq!(single.first_f64(), (wide as f32) as f64, "{} at {x}", f.name());
        }
    }
    let half = special(Special::BesselK0, &[&Array::scalar(DType::F16, 1.0)]).unwrap();
    assert_eq!(half.dtype(), DType::F16);
    let err = special(Special::Dawsn, &[&Array::scalar(DType::F16, 1.0)]).unwrap_err();
    assert!(format!("{err}").contains("float32 or float64"), "{err}");
}
