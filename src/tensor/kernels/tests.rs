//! The kernels against plain references: GEMM against a naive product, each
//! elementwise fast path against the generic loop, float32 sums against float64,
//! and the threaded kernels against the sequential ones, bit for bit.

use super::binary::{float_binary, float_binary_array};
use super::*;
use crate::tensor::array::{Array, DType};
use crate::tensor::shape::broadcast_shapes;
use ndarray::{ArrayD, IxDyn};

fn naive(x: &ndarray::Array2<f64>, y: &ndarray::Array2<f64>) -> ndarray::Array2<f64> {
    ndarray::Array2::from_shape_fn((x.nrows(), y.ncols()), |(i, j)| (0..x.ncols()).map(|l| x[[i, l]] * y[[l, j]]).sum())
}

/// GEMM through the `gemm` crate, plain and with either operand read transposed through its
/// strides, against a naive float64 product, over odd and blocked sizes (threaded ones too).
#[test]
fn gemm_matches_a_naive_product_with_and_without_transposes() {
    for &(n, k, m) in &[(1, 1, 1), (3, 5, 2), (17, 33, 9), (64, 1, 70), (130, 257, 129)] {
        let x = ndarray::Array2::from_shape_fn((n, k), |(i, j)| ((i * 7 + j * 3) % 11) as f64 - 5.0);
        let y = ndarray::Array2::from_shape_fn((k, m), |(i, j)| ((i * 5 + j * 2) % 13) as f64 * 0.5 - 3.0);
        let want = naive(&x, &y);
        let close = |got: &Array| {
            let Array::F64(g) = got else { panic!("float64 expected") };
            assert_eq!(g.shape(), &[n, m]);
            for (a, b) in g.iter().zip(want.iter()) {
                assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{n}x{k}x{m}: {a} vs {b}");
            }
        };
        let (xa, ya) = (Array::F64(x.clone().into_dyn()), Array::F64(y.clone().into_dyn()));
        close(&matmul(&xa, &ya).unwrap());
        let xt = Array::F64(x.t().as_standard_layout().into_owned().into_dyn());
        let yt = Array::F64(y.t().as_standard_layout().into_owned().into_dyn());
        close(&matmul_2d_transposed(&xt, &ya, true, false).unwrap().unwrap());
        close(&matmul_2d_transposed(&xa, &yt, false, true).unwrap().unwrap());
        close(&matmul_2d_transposed(&xt, &yt, true, true).unwrap().unwrap());
    }
    let bad = matmul_2d_transposed(
        &Array::F64(ArrayD::zeros(IxDyn(&[2, 3]))),
        &Array::F64(ArrayD::zeros(IxDyn(&[2, 3]))),
        false,
        false,
    );
    assert!(bad.unwrap().is_err(), "inner dimensions must agree");
}

fn f32_array(shape: &[usize], seed: u32) -> Array {
    Array::F32(ArrayD::from_shape_fn(IxDyn(shape), |i| {
        let k = ndarray::Dimension::slice(&i).iter().fold(seed, |h, &d| h.wrapping_mul(31).wrapping_add(d as u32 + 7));
        (k % 1000) as f32 / 37.0 - 13.0
    }))
}

fn bits(a: &Array) -> Vec<u64> {
    match a {
        Array::F32(x) => x.iter().map(|v| v.to_bits() as u64).collect(),
        Array::F64(x) => x.iter().map(|v| v.to_bits()).collect(),
        other => panic!("float expected, got {}", other.dtype()),
    }
}

/// Each fast path (same shape, one element either side, a trailing row either side), the
/// generic broadcast and a transposed operand give the values of an element-by-element loop
/// over the broadcast shape; the owned variants give the same bits, in place or not.
#[test]
fn elementwise_fast_paths_and_owned_variants_match_the_generic_loop() {
    let cases: &[(&[usize], &[usize])] = &[
        (&[4, 5], &[4, 5]),
        (&[4, 5], &[]),
        (&[], &[4, 5]),
        (&[4, 5], &[1, 1]),
        (&[3, 4, 5], &[4, 5]),
        (&[5], &[3, 5]),
        (&[4, 1], &[1, 5]),
        (&[0, 5], &[5]),
    ];
    for &(sa, sb) in cases {
        let (a, b) = (f32_array(sa, 1), f32_array(sb, 2));
        let shape = broadcast_shapes(sa, sb).unwrap();
        for op in [Binary::Add, Binary::Sub, Binary::Mul, Binary::Div, Binary::Maximum, Binary::Mod] {
            let got = binary(op, &a, &b).unwrap();
            assert_eq!(got.shape(), &shape[..]);
            let (Array::F32(x), Array::F32(y)) = (&a, &b) else { unreachable!() };
            let (xb, yb) = (x.broadcast(IxDyn(&shape)).unwrap(), y.broadcast(IxDyn(&shape)).unwrap());
            let f = float_binary::<f32>(op);
            let want: Vec<u64> = xb.iter().zip(yb.iter()).map(|(&p, &q)| f(p, q).to_bits() as u64).collect();
            assert_eq!(bits(&got), want, "{op:?} {sa:?} {sb:?}");
            assert_eq!(bits(&binary_owned(op, a.clone(), &b).unwrap()), want, "owned {op:?} {sa:?} {sb:?}");
            assert_eq!(bits(&binary_rc(op, std::rc::Rc::new(a.clone()), &b).unwrap()), want);
        }
    }
    let base = f32_array(&[5, 4], 3);
    let t = transpose(&base, &[1, 0]);
    let Array::F32(bv) = &base else { unreachable!() };
    let strided = Array::F32(bv.t().to_owned());
    assert!(matches!(&strided, Array::F32(v) if !v.is_standard_layout()), "a column-major operand");
    let want = bits(&binary(Binary::Mul, &t, &f32_array(&[4, 5], 4)).unwrap());
    assert_eq!(bits(&binary(Binary::Mul, &strided, &f32_array(&[4, 5], 4)).unwrap()), want);
    assert_eq!(bits(&binary_owned(Binary::Mul, strided.clone(), &f32_array(&[4, 5], 4)).unwrap()), want);
    for op in [Unary::Neg, Unary::Exp, Unary::Tanh, Unary::Sigmoid, Unary::Relu, Unary::Square, Unary::Log] {
        for a in [f32_array(&[3, 7], 5), strided.clone()] {
            let want = bits(&unary(op, &a).unwrap());
            assert_eq!(bits(&unary_owned(op, a.clone()).unwrap()), want, "{op:?}");
        }
        let a64 = f32_array(&[3, 7], 6).cast(DType::F64);
        assert_eq!(bits(&unary_owned(op, a64.clone()).unwrap()), bits(&unary(op, &a64).unwrap()), "{op:?}");
    }
}

/// 10^7 float32 terms, compared with the float64 sum of the same float32 values.
#[test]
fn float32_sums_of_ten_million_terms_keep_float64_accuracy() {
    let n = 10_000_000;
    let x = ArrayD::from_shape_fn(IxDyn(&[n]), |i| 0.1f32 + (i[0] % 7) as f32 * 0.01);
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    let Array::F32(s) = reduce(Reduce::Sum, &Array::F32(x.clone()), &[0], false).unwrap() else { panic!() };
    let got = s.first().copied().unwrap() as f64;
    assert!(((got - exact) / exact).abs() <= 1e-6, "{got} vs {exact}");
    let Array::F32(m) = reduce(Reduce::Mean, &Array::F32(x), &[0], false).unwrap() else { panic!() };
    let mean = m.first().copied().unwrap() as f64;
    assert!(((mean - exact / n as f64) / (exact / n as f64)).abs() <= 1e-6);
}

/// Axis 0 of [5·10^6, 2] and the last axis of [2, 5·10^6] agree with float64.
#[test]
fn float32_sums_along_any_axis_keep_float64_accuracy() {
    let n = 5_000_000;
    let tall = ArrayD::from_shape_fn(IxDyn(&[n, 2]), |i| 0.1f32 * (1 + i[1]) as f32);
    let exact = [n as f64 * 0.1f32 as f64, n as f64 * 0.2f32 as f64];
    let wide = tall.t().as_standard_layout().into_owned();
    for (a, axis) in [(tall, 0), (wide, 1)] {
        let Array::F32(s) = reduce(Reduce::Sum, &Array::F32(a), &[axis], false).unwrap() else { panic!() };
        for (g, e) in s.iter().zip(exact) {
            assert!(((*g as f64 - e) / e).abs() <= 1e-6, "axis {axis}: {g} vs {e}");
        }
    }
}

/// The tree of [`pairwise_sum`], walked on one thread: the threaded sum must equal it bit for bit.
fn pairwise_sum_sequential(xs: &[f32]) -> f64 {
    if xs.len() <= 128 {
        // Below the split the threaded function never threads: it is its own reference.
        return pairwise_sum(xs);
    }
    let mut half = xs.len() / 2;
    half -= half % 8;
    pairwise_sum_sequential(&xs[..half]) + pairwise_sum_sequential(&xs[half..])
}

#[test]
fn threaded_kernels_equal_the_sequential_ones_bit_for_bit() {
    // Sizes on both sides of PARALLEL_ELEMENTS, with awkward remainders.
    for n in [PARALLEL_ELEMENTS - 3, PARALLEL_ELEMENTS * 3 + 1001] {
        let xs: Vec<f32> = (0..n).map(|i| ((i * 7919 % 10007) as f32 - 5000.0) * 1e-3).collect();
        let ys: Vec<f32> = (0..n).map(|i| ((i * 104729 % 9973) as f32 + 1.0) * 1e-2).collect();
        assert_eq!(pairwise_sum(&xs).to_bits(), pairwise_sum_sequential(&xs).to_bits(), "n = {n}");
        let a = ArrayD::from_shape_vec(IxDyn(&[n]), xs.clone()).unwrap();
        let b = ArrayD::from_shape_vec(IxDyn(&[n]), ys.clone()).unwrap();
        let s = ArrayD::from_shape_vec(IxDyn(&[]), vec![0.37f32]).unwrap();
        for op in [Binary::Add, Binary::Div, Binary::Pow, Binary::Maximum] {
            let f = float_binary::<f32>(op);
            let got = float_binary_array(op, &a, &b).unwrap();
            let want: Vec<f32> = xs.iter().zip(&ys).map(|(&x, &y)| f(x, y)).collect();
            assert!(got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits()), "{op:?}, n = {n}");
            let got = float_binary_array(op, &s, &b).unwrap();
            assert!(got.iter().zip(&ys).all(|(g, &y)| g.to_bits() == f(0.37, y).to_bits()), "{op:?} scalar");
            let got = float_binary_array(op, &a, &s).unwrap();
            assert!(got.iter().zip(&xs).all(|(g, &x)| g.to_bits() == f(x, 0.37).to_bits()), "{op:?} by scalar");
        }
    }
}

#[test]
fn pairwise_sum_matches_float64_on_awkward_lengths() {
    for n in [0, 1, 7, 8, 9, 127, 128, 129, 1000, 4097] {
        let xs: Vec<f64> = (0..n).map(|i| 1.0 / (i as f64 + 1.0)).collect();
        let naive: f64 = xs.iter().sum();
        assert!((pairwise_sum(&xs) - naive).abs() <= 1e-12 * naive.max(1.0), "n = {n}");
    }
}

#[test]
fn reductions_over_several_axes_and_empty_axes() {
    let a = Array::F64(ArrayD::from_shape_fn(IxDyn(&[2, 3, 4]), |i| (i[0] * 12 + i[1] * 4 + i[2]) as f64));
    let Array::F64(s) = reduce(Reduce::Sum, &a, &[0, 2], false).unwrap() else { panic!() };
    assert_eq!(s.iter().copied().collect::<Vec<_>>(), vec![60.0, 92.0, 124.0]);
    let Array::F64(m) = reduce(Reduce::Max, &a, &[1], true).unwrap() else { panic!() };
    assert_eq!(m.shape(), &[2, 1, 4]);
    assert_eq!(m.iter().copied().collect::<Vec<_>>(), vec![8.0, 9.0, 10.0, 11.0, 20.0, 21.0, 22.0, 23.0]);
    let e = Array::F32(ArrayD::zeros(IxDyn(&[3, 0])));
    let Array::F32(z) = reduce(Reduce::Sum, &e, &[1], false).unwrap() else { panic!() };
    assert_eq!(z.iter().copied().collect::<Vec<_>>(), vec![0.0; 3]);
}
