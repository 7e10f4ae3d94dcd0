//! Finite-difference checks of every forward-mode rule, in float64: each operation checked in
//! `fd_tests.rs` also has its tangent along a fixed random direction compared with central
//! differences, once by its closed-form JVP rule and once by transposing its VJP (the fallback
//! of operations without a rule), so both paths are checked on every operation.

use super::fd_tests::values;
use super::forward::{Accumulator, FORCE_TRANSPOSE};
use super::recorder::Recorder;
use crate::error::R;
use crate::tensor::{Array, DType, Tensor};
use std::cell::RefCell;
use std::rc::Rc;

/// Checks the tangent of `f` at `inputs` along a fixed direction against central differences.
pub(super) fn check_jvp(name: &str, inputs: &[Array], f: &dyn Fn(&mut Recorder, &[Tensor]) -> R<Tensor>) {
    let dirs: Vec<Array> = inputs
        .iter()
        .enumerate()
        .map(|(i, a)| Array::from_f64(DType::F64, a.shape(), values(a.len(), 500 + i as u64, -1.0, 1.0)))
        .collect();
    let h = 1e-6;
    let at = |s: f64| {
        let xs: Vec<Tensor> = inputs
            .iter()
            .zip(&dirs)
            .map(|(a, d)| {
                let v: Vec<f64> = a.to_f64_vec().iter().zip(d.to_f64_vec()).map(|(x, d)| x + s * d).collect();
                Tensor::new(Array::from_f64(DType::F64, a.shape(), v))
            })
            .collect();
        f(&mut Recorder::default(), &xs).unwrap().data.to_f64_vec()
    };
    let (plus, minus) = (at(h), at(-h));
    for transpose in [false, true] {
        let how = if transpose { "transposed VJP" } else { "JVP rule" };
        let mut rt = Recorder::default();
        let xs: Vec<Tensor> = inputs.iter().map(|a| Tensor::new(a.clone())).collect();
        let acc = Rc::new(RefCell::new(Accumulator::default()));
        for (x, d) in xs.iter().zip(&dirs) {
            acc.borrow_mut().set(x.id, Tensor::new(d.clone()));
        }
        rt.enter_accumulator(&acc).unwrap();
        FORCE_TRANSPOSE.with(|c| c.set(transpose));
        let y = f(&mut rt, &xs);
        FORCE_TRANSPOSE.with(|c| c.set(false));
        rt.exit_accumulator(&acc);
        let y = y.unwrap_or_else(|e| panic!("{name}: forward failed: {e}"));
        if let Some(e) = acc.borrow_mut().error.take() {
            panic!("{name} ({how}): tangent failed: {e}");
        }
        let t = acc.borrow().get(y.id).unwrap_or_else(|| panic!("{name} ({how}): no tangent"));
        assert_eq!(t.shape(), y.shape(), "{name} ({how}): tangent has the wrong shape");
        for (j, tv) in t.data.to_f64_vec().iter().enumerate() {
            let numeric = (plus[j] - minus[j]) / (2.0 * h);
            assert!(
                (numeric - tv).abs() <= 1e-5 * numeric.abs().max(1.0),
                "{name} ({how}): tangent[{j}] {tv} vs numeric {numeric}"
            );
        }
    }
}

/// Tangents of tensors no longer alive are dropped: a long loop inside an accumulator holds a
/// bounded number, while the primal's and the live result's stay readable.
#[test]
fn tangents_of_dropped_tensors_are_freed() {
    let mut rt = Recorder::default();
    let x = Tensor::new(Array::from_f64(DType::F64, &[2], vec![1.0, 2.0]));
    let acc = Rc::new(RefCell::new(Accumulator::default()));
    acc.borrow_mut().set(x.id, Tensor::new(Array::from_f64(DType::F64, &[2], vec![1.0, 1.0])));
    rt.enter_accumulator(&acc).unwrap();
    let mut y = x.clone();
    for _ in 0..10_000 {
        let s = rt.mul_scalar(&y, 1.0001).unwrap();
        y = rt.unary(crate::tensor::kernels::Unary::Neg, &s).unwrap();
    }
    rt.exit_accumulator(&acc);
    assert!(acc.borrow().len() < 3000, "{} tangents held", acc.borrow().len());
    let t = acc.borrow().get(y.id).expect("the live result keeps its tangent").data.to_f64_vec();
    let scale = 1.0001f64.powi(10_000);
    assert!((t[0] - scale).abs() < 1e-9 * scale && (t[1] - scale).abs() < 1e-9 * scale, "{t:?}");
    assert!(acc.borrow().get(x.id).is_some(), "the primal keeps its tangent");
}
