//! Property test (issue 4): random expression programs built from the
//! differentiable ops, over inputs of random shapes that broadcast, have
//! `tape.gradient` equal to central finite differences in float64, and (issue 9)
//! forward-mode tangents along a random direction equal to both the finite
//! difference along it and `jacobian(y, x) · v`.

use dgl::autodiff::ops::nn::Activation;
use dgl::autodiff::ops::reduce::NormOrd;
use dgl::autodiff::Host;
use dgl::autodiff::{Accumulator, Tape};
use dgl::error::R;
use dgl::runtime::Interp;
use dgl::tensor::kernels::{Binary, Reduce, Unary};
use dgl::tensor::reductions::Running;
use dgl::tensor::{Array, DType, Tensor};
use proptest::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;

/// Shapes that all broadcast to [2, 3].
const SHAPES: &[&[usize]] = &[&[2, 3], &[3], &[1, 3], &[2, 1], &[]];

#[derive(Debug, Clone)]
enum E {
    Input(usize),
    Unary(Unary, Box<E>),
    Binary(Binary, Box<E>, Box<E>),
    /// a / (1 + b²): division with a denominator away from zero.
    SafeDiv(Box<E>, Box<E>),
    /// log(1 + x²)
    SafeLog(Box<E>),
    /// sqrt(1 + x²)
    SafeSqrt(Box<E>),
    Sum(Box<E>, i64),
    Mean(Box<E>, i64),
    Max(Box<E>, i64),
    Softmax(Box<E>),
    LogSoftmax(Box<E>),
    /// x @ W with a fixed [3, 3] matrix.
    MatMul(Box<E>),
    /// transpose twice (exercises the transpose rule, keeps the shape).
    Transpose2(Box<E>),
    /// x[..., ::-1]
    Reverse(Box<E>),
    /// concat([x, x], -1)[..., 1:4]
    ConcatSlice(Box<E>),
    /// reduce_prod over one axis (keepdims).
    Prod(Box<E>, i64),
    /// cumsum along the last axis with (exclusive, reverse).
    Cumsum(Box<E>, bool, bool),
    /// cumprod(sigmoid(x) + 0.5) along the last axis, reversed or not (factors away from 0).
    Cumprod(Box<E>, bool),
    /// reduce_variance over one axis (keepdims).
    Variance(Box<E>, i64),
    /// norm(concat([x, 1], -1), axis=-1): Euclidean, never at the kink of an all-zero group.
    Norm(Box<E>),
    /// clip_by_norm(x, 1.0, axes=[-1])
    ClipByNorm(Box<E>),
    /// An activation function (leaky_relu, elu, selu, gelu, swish, softsign, log_sigmoid).
    Activation(Activation, Box<E>),
    /// rsqrt(1 + x²)
    SafeRsqrt(Box<E>),
    /// Selection and linear algebra (issue 9): sort along the last axis (descending or not),
    /// top_k(2), gather_nd with repeats, einsum('ij,ij->ij', einsum('ij,jk->ik', x, W), x),
    /// solve(A, xᵀ)ᵀ with a fixed A, slogdet(spd(x))'s log|det|.
    Sort(Box<E>, bool),
    TopK(Box<E>),
    GatherNd(Box<E>),
    Einsum(Box<E>),
    Solve(Box<E>),
    LogDet(Box<E>),
    /// x as a [1, 2, 3, 1] image: conv2d with a fixed 2×2 filter (SAME), then avg_pool2d 2×2
    /// (stride 1, SAME), back to [2, 3]; and sigmoid cross-entropy against labels 0.3.
    ConvPool(Box<E>),
    SigmoidXent(Box<E>),
    /// More of issue 9's ops, each keeping the [2, 3] shape: max_pool2d 2×2 (SAME, stride 1)
    /// of x as an image; l2_normalize along the last axis; boolean_mask of columns 0 and 2
    /// scattered back with scatter_nd; x @ inv(spd(x)); x · det(spd(x)) (spd: 3I + tanh(x)ᵀtanh(x)).
    MaxPool(Box<E>),
    L2Normalize(Box<E>),
    MaskScatter(Box<E>),
    Inv(Box<E>),
    Det(Box<E>),
    /// x @ cholesky(spd(x))ᵀ; x · ‖x‖₂ (the spectral norm); x · trace(xᵀx) + l2_loss(x);
    /// x with entries (0, 1) and (1, 2) replaced by tensor_scatter_nd_update (adds with
    /// `add`) of x[0, 0] and x[1, 1], selected by take.
    Cholesky(Box<E>),
    Spectral(Box<E>),
    TraceL2(Box<E>),
    TensorScatter(Box<E>, bool),
}

fn expr() -> impl Strategy<Value = E> {
    let leaf = (0usize..3).prop_map(E::Input);
    leaf.prop_recursive(5, 24, 2, |inner| {
        let unary = prop_oneof![
            Just(Unary::Neg),
            Just(Unary::Exp),
            Just(Unary::Tanh),
            Just(Unary::Sigmoid),
            Just(Unary::Sin),
            Just(Unary::Cos),
            Just(Unary::Square),
            Just(Unary::Softplus),
            Just(Unary::Relu),
            Just(Unary::Abs),
            Just(Unary::Erf),
        ];
        let binary = prop_oneof![
            Just(Binary::Add),
            Just(Binary::Sub),
            Just(Binary::Mul),
            Just(Binary::Maximum),
            Just(Binary::Minimum),
        ];
        let b = |e: E| Box::new(e);
        prop_oneof![
            (unary, inner.clone()).prop_map(move |(op, x)| E::Unary(op, Box::new(x))),
            (binary, inner.clone(), inner.clone()).prop_map(move |(op, x, y)| E::Binary(op, b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| E::SafeDiv(b(x), b(y))),
            inner.clone().prop_map(move |x| E::SafeLog(b(x))),
            inner.clone().prop_map(move |x| E::SafeSqrt(b(x))),
            (inner.clone(), -1i64..1).prop_map(move |(x, a)| E::Sum(b(x), a)),
            (inner.clone(), -1i64..1).prop_map(move |(x, a)| E::Mean(b(x), a)),
            (inner.clone(), -1i64..1).prop_map(move |(x, a)| E::Max(b(x), a)),
            inner.clone().prop_map(move |x| E::Softmax(b(x))),
            inner.clone().prop_map(move |x| E::LogSoftmax(b(x))),
            inner.clone().prop_map(move |x| E::MatMul(b(x))),
            inner.clone().prop_map(move |x| E::Transpose2(b(x))),
            inner.clone().prop_map(move |x| E::Reverse(b(x))),
            inner.clone().prop_map(move |x| E::ConcatSlice(b(x))),
            (inner.clone(), -1i64..1).prop_map(move |(x, a)| E::Prod(b(x), a)),
            (inner.clone(), any::<bool>(), any::<bool>()).prop_map(move |(x, e, r)| E::Cumsum(b(x), e, r)),
            (inner.clone(), any::<bool>()).prop_map(move |(x, r)| E::Cumprod(b(x), r)),
            (inner.clone(), -1i64..1).prop_map(move |(x, a)| E::Variance(b(x), a)),
            inner.clone().prop_map(move |x| E::Norm(b(x))),
            inner.clone().prop_map(move |x| E::ClipByNorm(b(x))),
            inner.clone().prop_map(move |x| E::SafeRsqrt(b(x))),
            (inner.clone(), any::<bool>()).prop_map(move |(x, d)| E::Sort(b(x), d)),
            inner.clone().prop_map(move |x| E::TopK(b(x))),
            inner.clone().prop_map(move |x| E::GatherNd(b(x))),
            inner.clone().prop_map(move |x| E::Einsum(b(x))),
            inner.clone().prop_map(move |x| E::Solve(b(x))),
            inner.clone().prop_map(move |x| E::LogDet(b(x))),
            inner.clone().prop_map(move |x| E::ConvPool(b(x))),
            inner.clone().prop_map(move |x| E::SigmoidXent(b(x))),
            inner.clone().prop_map(move |x| E::MaxPool(b(x))),
            inner.clone().prop_map(move |x| E::L2Normalize(b(x))),
            inner.clone().prop_map(move |x| E::MaskScatter(b(x))),
            inner.clone().prop_map(move |x| E::Inv(b(x))),
            inner.clone().prop_map(move |x| E::Det(b(x))),
            inner.clone().prop_map(move |x| E::Cholesky(b(x))),
            inner.clone().prop_map(move |x| E::Spectral(b(x))),
            inner.clone().prop_map(move |x| E::TraceL2(b(x))),
            (inner.clone(), any::<bool>()).prop_map(move |(x, add)| E::TensorScatter(b(x), add)),
            (
                prop_oneof![
                    Just(Activation::LeakyRelu(0.2)),
                    Just(Activation::Elu),
                    Just(Activation::Selu),
                    Just(Activation::Gelu { approximate: false }),
                    Just(Activation::Gelu { approximate: true }),
                    Just(Activation::Swish(1.0)),
                    Just(Activation::Softsign),
                    Just(Activation::LogSigmoid),
                ],
                inner
            )
                .prop_map(move |(a, x)| E::Activation(a, b(x))),
        ]
    })
}

fn eval(rt: &mut Interp, e: &E, xs: &[Tensor]) -> R<Tensor> {
    Ok(match e {
        E::Input(i) => xs[*i].clone(),
        E::Unary(op, x) => {
            let x = eval(rt, x, xs)?;
            rt.recorder().unary(*op, &x)?
        }
        E::Binary(op, x, y) => {
            let (x, y) = (eval(rt, x, xs)?, eval(rt, y, xs)?);
            rt.recorder().binary(*op, &x, &y)?
        }
        E::SafeDiv(x, y) => {
            let (x, y) = (eval(rt, x, xs)?, eval(rt, y, xs)?);
            let y2 = rt.recorder().unary(Unary::Square, &y)?;
            let one = rt.recorder().scalar(DType::F64, 1.0);
            let d = rt.recorder().add(&one, &y2)?;
            rt.recorder().binary(Binary::Div, &x, &d)?
        }
        E::Activation(a, x) => {
            let x = eval(rt, x, xs)?;
            rt.recorder().activation(*a, &x)?
        }
        E::SafeRsqrt(x) => {
            let x = eval(rt, x, xs)?;
            let x2 = rt.recorder().unary(Unary::Square, &x)?;
            let one = rt.recorder().scalar(DType::F64, 1.0);
            let s = rt.recorder().add(&one, &x2)?;
            rt.recorder().unary(Unary::Rsqrt, &s)?
        }
        E::SafeLog(x) | E::SafeSqrt(x) => {
            let x = eval(rt, x, xs)?;
            let x2 = rt.recorder().unary(Unary::Square, &x)?;
            let one = rt.recorder().scalar(DType::F64, 1.0);
            let s = rt.recorder().add(&one, &x2)?;
            rt.recorder().unary(if matches!(e, E::SafeLog(_)) { Unary::Log } else { Unary::Sqrt }, &s)?
        }
        E::Sum(x, a) | E::Mean(x, a) | E::Max(x, a) => {
            let x = eval(rt, x, xs)?;
            let op = match e {
                E::Sum(..) => Reduce::Sum,
                E::Mean(..) => Reduce::Mean,
                _ => Reduce::Max,
            };
            if x.shape().is_empty() {
                rt.recorder().reduce(op, &x, None, true)?
            } else {
                rt.recorder().reduce(op, &x, Some(&[*a]), true)?
            }
        }
        E::Softmax(x) | E::LogSoftmax(x) => {
            let x = eval(rt, x, xs)?;
            let x = if x.shape().is_empty() { rt.recorder().reshape_to(&x, &[1])? } else { x };
            rt.recorder().softmax(&x, -1, matches!(e, E::LogSoftmax(_)))?
        }
        E::MatMul(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &broadcast_shape(x.shape()))?;
            let w =
                Tensor::new(Array::from_f64(DType::F64, &[3, 3], vec![0.3, -0.2, 0.5, 0.1, 0.4, -0.6, -0.3, 0.2, 0.7]));
            rt.recorder().matmul(&x, &w)?
        }
        E::Transpose2(x) => {
            let x = eval(rt, x, xs)?;
            let t = rt.recorder().transpose(&x, None)?;
            rt.recorder().transpose(&t, None)?
        }
        E::Reverse(x) | E::ConcatSlice(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &broadcast_shape(x.shape()))?;
            let n = x.shape().len();
            use ndarray::SliceInfoElem::Slice;
            let all = Slice { start: 0, end: None, step: 1 };
            if matches!(e, E::Reverse(_)) {
                let last = Slice { start: 0, end: None, step: -1 };
                let info: Vec<_> = (0..n).map(|i| if i + 1 == n { last } else { all }).collect();
                rt.recorder().index(&x, Rc::new(info))?
            } else {
                let c = rt.recorder().concat(&[x.clone(), x], -1)?;
                let part = Slice { start: 1, end: Some(4), step: 1 };
                let info: Vec<_> = (0..n).map(|i| if i + 1 == n { part } else { all }).collect();
                rt.recorder().index(&c, Rc::new(info))?
            }
        }
        E::Prod(x, a) | E::Variance(x, a) => {
            let x = eval(rt, x, xs)?;
            let axes = [*a];
            let axes = if x.shape().is_empty() { None } else { Some(&axes[..]) };
            if matches!(e, E::Prod(..)) {
                rt.recorder().reduce_prod(&x, axes, true)?
            } else {
                rt.recorder().variance(&x, axes, true)?
            }
        }
        E::Cumsum(x, exclusive, reverse) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &broadcast_shape(x.shape()))?;
            rt.recorder().cumulative(Running::Sum, &x, -1, *exclusive, *reverse)?
        }
        E::Cumprod(x, reverse) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &broadcast_shape(x.shape()))?;
            let s = rt.recorder().unary(Unary::Sigmoid, &x)?;
            let half = rt.recorder().scalar(DType::F64, 0.5);
            let f = rt.recorder().add(&s, &half)?;
            rt.recorder().cumulative(Running::Prod, &f, -1, false, *reverse)?
        }
        E::Norm(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &broadcast_shape(x.shape()))?;
            let mut one_shape = x.shape().to_vec();
            *one_shape.last_mut().expect("rank 2") = 1;
            let ones = Tensor::new(Array::full(DType::F64, &one_shape, 1.0));
            let c = rt.recorder().concat(&[x, ones], -1)?;
            rt.recorder().norm(&c, NormOrd::Euclidean, Some(&[-1]), true)?
        }
        E::Sort(x, descending) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &broadcast_shape(x.shape()))?;
            rt.recorder().sort(&x, -1, *descending)?
        }
        E::TopK(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &broadcast_shape(x.shape()))?;
            rt.recorder().top_k(&x, 2)?.0
        }
        E::GatherNd(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &[2, 3])?;
            let idx = ints(&[2, 3, 2], vec![1, 2, 0, 0, 1, 0, 0, 2, 1, 1, 1, 2]);
            rt.recorder().gather_nd(&x, &idx, 0)?
        }
        E::Einsum(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &broadcast_shape(x.shape()))?;
            let y = rt.recorder().einsum("ij,jk->ik", &[x.clone(), fixed_matrix()])?;
            rt.recorder().einsum("ij,ij->ij", &[y, x])?
        }
        E::Solve(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &broadcast_shape(x.shape()))?;
            let xt = rt.recorder().transpose(&x, None)?;
            let three = rt.recorder().scalar(DType::F64, 3.0);
            let eye =
                Tensor::new(Array::from_f64(DType::F64, &[3, 3], (0..9).map(|k| (k % 4 == 0) as u8 as f64).collect()));
            let a = rt.recorder().mul(&eye, &three)?;
            let a = rt.recorder().add(&a, &fixed_matrix())?;
            let s = rt.recorder().solve(&a, &xt)?;
            rt.recorder().transpose(&s, None)?
        }
        E::LogDet(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &broadcast_shape(x.shape()))?;
            let m = spd(rt, &x)?;
            rt.recorder().slogdet(&m)?.1
        }
        E::ConvPool(x) => {
            use dgl::tensor::conv::{Padding, Window};
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &[2, 3])?;
            let img = rt.recorder().reshape_to(&x, &[1, 2, 3, 1])?;
            let w = Tensor::new(Array::from_f64(DType::F64, &[2, 2, 1, 1], vec![0.5, -0.3, 0.8, 0.2]));
            let same = Window { strides: (1, 1), dilations: (1, 1), padding: Padding::Same };
            let y = rt.recorder().conv2d(&img, &w, same)?;
            let p = rt.recorder().avg_pool2d(&y, (2, 2), same)?;
            rt.recorder().reshape_to(&p, &[2, 3])?
        }
        E::SigmoidXent(x) => {
            let x = eval(rt, x, xs)?;
            let z = Tensor::new(Array::full(DType::F64, x.shape(), 0.3));
            rt.recorder().sigmoid_xent(&z, &x)?
        }
        E::MaxPool(x) => {
            use dgl::tensor::conv::{Padding, Window};
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &[2, 3])?;
            let img = rt.recorder().reshape_to(&x, &[1, 2, 3, 1])?;
            let same = Window { strides: (1, 1), dilations: (1, 1), padding: Padding::Same };
            let p = rt.recorder().max_pool2d(&img, (2, 2), same)?;
            rt.recorder().reshape_to(&p, &[2, 3])?
        }
        E::L2Normalize(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &[2, 3])?;
            rt.recorder().l2_normalize(&x, Some(&[1]), 1e-12)?
        }
        E::MaskScatter(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &[2, 3])?;
            let m = Tensor::new(Array::Bool(
                ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[3]), vec![true, false, true]).unwrap(),
            ));
            let kept = rt.recorder().boolean_mask(&x, &m, 1)?;
            let flat = rt.recorder().reshape_to(&kept, &[4])?;
            rt.recorder().scatter_nd(&ints(&[4, 2], vec![0, 0, 0, 2, 1, 0, 1, 2]), &flat, &[2, 3])?
        }
        E::Inv(x) | E::Det(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &[2, 3])?;
            let m = spd(rt, &x)?;
            if let E::Inv(_) = e {
                let inv = rt.recorder().matrix_inverse(&m)?;
                rt.recorder().matmul(&x, &inv)?
            } else {
                let d = rt.recorder().det(&m)?;
                rt.recorder().mul(&x, &d)?
            }
        }
        E::Cholesky(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &[2, 3])?;
            let m = spd(rt, &x)?;
            let l = rt.recorder().cholesky(&m)?;
            let lt = rt.recorder().transpose(&l, None)?;
            rt.recorder().matmul(&x, &lt)?
        }
        E::Spectral(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &[2, 3])?;
            let n = rt.recorder().spectral_norm(&x)?;
            rt.recorder().mul(&x, &n)?
        }
        E::TraceL2(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &[2, 3])?;
            let xt = rt.recorder().transpose(&x, None)?;
            let g = rt.recorder().matmul(&xt, &x)?;
            let t = rt.recorder().trace(&g)?;
            let l = rt.recorder().l2_loss(&x)?;
            let y = rt.recorder().mul(&x, &t)?;
            rt.recorder().add(&y, &l)?
        }
        E::TensorScatter(x, add) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &[2, 3])?;
            let square = rt.recorder().reshape_to(&x, &[2, 3])?;
            let left = rt.recorder().take(&square, std::rc::Rc::new(vec![0, 4]), &[2])?;
            rt.recorder().tensor_scatter_nd(&x, &ints(&[2, 2], vec![0, 1, 1, 2]), &left, *add)?
        }
        E::ClipByNorm(x) => {
            let x = eval(rt, x, xs)?;
            let x = rt.recorder().broadcast_to(&x, &broadcast_shape(x.shape()))?;
            let c = rt.recorder().scalar(DType::F64, 1.0);
            rt.recorder().clip_by_norm(&x, &c, Some(&[-1]))?
        }
    })
}

/// An int64 tensor of `shape` holding `v`.
fn ints(shape: &[usize], v: Vec<i64>) -> Tensor {
    Tensor::new(Array::I64(ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(shape), v).expect("shape matches")))
}

/// The fixed [3, 3] matrix of the matmul and einsum cases.
/// 3I + tᵀt with t = tanh(x), x of shape [.., 3]: symmetric positive definite with a
/// condition number below 3, whatever x is (x itself can be large when an inner expression
/// is a determinant, and 3I + xᵀx would then be too ill-conditioned for finite differences).
fn spd(rt: &mut Interp, x: &Tensor) -> R<Tensor> {
    let t = rt.recorder().unary(Unary::Tanh, x)?;
    let tt = rt.recorder().transpose(&t, None)?;
    let g = rt.recorder().matmul(&tt, &t)?;
    let eye =
        Tensor::new(Array::from_f64(DType::F64, &[3, 3], (0..9).map(|k| (k % 4 == 0) as u8 as f64 * 3.0).collect()));
    rt.recorder().add(&eye, &g)
}

fn fixed_matrix() -> Tensor {
    Tensor::new(Array::from_f64(DType::F64, &[3, 3], vec![0.3, -0.2, 0.5, 0.1, 0.4, -0.6, -0.3, 0.2, 0.7]))
}

/// Brings a shape up to rank 2 with a last axis of 3 (for matmul and slicing).
fn broadcast_shape(s: &[usize]) -> Vec<usize> {
    match s {
        [] | [_] => vec![1, 3],
        [a, _] => vec![*a, 3],
        other => other.to_vec(),
    }
}

fn loss(rt: &mut Interp, e: &E, xs: &[Tensor]) -> R<Tensor> {
    let y = eval(rt, e, xs)?;
    let w = Tensor::new(Array::from_f64(DType::F64, y.shape(), (0..y.len()).map(|i| 0.7 + 0.1 * i as f64).collect()));
    let p = rt.recorder().mul(&y, &w)?;
    rt.recorder().reduce(Reduce::Sum, &p, None, false)
}

/// What rounding alone can put into the finite differences above at a value of `f`: each
/// evaluation of `f` is off by a few ulps of `f`, and the differences divide by h = 1e-5 (with
/// Richardson's weights, about 10/h), so a large value has a noisy slope even where the true
/// one is 0 (a constant l2_normalize under a loss of -4.7e5 measured -1.1e-4). With a 10x margin.
fn rounding(f: f64) -> f64 {
    f.abs() * f64::EPSILON * 1e7
}

fn interp() -> Interp {
    Interp::new(Rc::new(RefCell::new(std::io::sink())))
}

fn inputs() -> impl Strategy<Value = Vec<(Vec<usize>, Vec<f64>)>> {
    proptest::collection::vec(
        (0..SHAPES.len()).prop_flat_map(|k| {
            let shape = SHAPES[k].to_vec();
            let n: usize = shape.iter().product();
            (Just(shape), proptest::collection::vec(-1.5f64..1.5, n))
        }),
        3,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn tape_gradients_match_finite_differences(e in expr(), data in inputs()) {
        let xs: Vec<Tensor> = data.iter().map(|(s, v)| Tensor::new(Array::from_f64(DType::F64, s, v.clone()))).collect();
        let mut rt = interp();
        let tape = Rc::new(RefCell::new(Tape::new(false, true)));
        for x in &xs {
            tape.borrow_mut().watch(x.id);
        }
        rt.recorder().enter(&tape).expect("the tape records");
        let l = loss(&mut rt, &e, &xs);
        rt.recorder().exit(&tape);
        // Programs whose shapes do not combine are not programs: skip them.
        prop_assume!(l.is_ok());
        let l = l.unwrap();
        let ids: Vec<u64> = xs.iter().map(|x| x.id).collect();
        let grads = rt.gradient(&tape, &[l], &ids, None).expect("gradient runs");
        let h = 1e-5;
        for (i, g) in grads.iter().enumerate() {
            let base = data[i].1.clone();
            let gv = g.as_ref().map(|g| g.data.to_f64_vec()).unwrap_or_else(|| vec![0.0; base.len()]);
            for j in 0..base.len() {
                let at = |d: f64| {
                    let mut v = base.clone();
                    v[j] += d;
                    let mut p = xs.clone();
                    p[i] = Tensor::new(Array::from_f64(DType::F64, &data[i].0, v));
                    loss(&mut interp(), &e, &p).unwrap().data.first_f64()
                };
                let (up, mid, down) = (at(h), at(0.0), at(-h));
                let forward = (up - mid) / h;
                let backward = (mid - down) / h;
                // Where the function is not finite (an overflowing exp of a determinant) there is
                // no derivative to check: finite differences of inf or NaN say nothing.
                if !(forward.is_finite() && backward.is_finite()) {
                    continue;
                }
                let scale = forward.abs().max(backward.abs()).max(1.0);
                // On a kink (relu, abs, max, ties) the one-sided slopes differ: no derivative to check.
                if (forward - backward).abs() > 1e-3 * scale {
                    continue;
                }
                // Richardson's extrapolation, as in the forward-mode check below.
                let numeric = (4.0 * (at(h / 2.0) - at(-h / 2.0)) / h - (up - down) / (2.0 * h)) / 3.0;
                prop_assert!(
                    (numeric - gv[j]).abs() <= 1e-4 * scale + rounding(mid),
                    "{:?}: d/dx{}[{}] analytic {} numeric {}", e, i, j, gv[j], numeric
                );
            }
        }
    }

    #[test]
    fn forward_tangents_match_finite_differences_and_the_jacobian(
        e in expr(),
        data in inputs(),
        dirs in proptest::collection::vec(-1.0f64..1.0, 18),
    ) {
        let xs: Vec<Tensor> = data.iter().map(|(s, v)| Tensor::new(Array::from_f64(DType::F64, s, v.clone()))).collect();
        let vs: Vec<Vec<f64>> = data.iter().enumerate().map(|(i, (_, v))| dirs[6 * i..6 * i + v.len()].to_vec()).collect();
        let mut rt = interp();
        // One pass under a persistent tape (for the jacobian) and an accumulator (the tangent).
        let tape = Rc::new(RefCell::new(Tape::new(true, true)));
        let acc = Rc::new(RefCell::new(Accumulator::default()));
        for (x, ((s, _), v)) in xs.iter().zip(data.iter().zip(&vs)) {
            tape.borrow_mut().watch(x.id);
            acc.borrow_mut().set(x.id, Tensor::new(Array::from_f64(DType::F64, s, v.clone())));
        }
        rt.recorder().enter(&tape).expect("the tape records");
        rt.recorder().enter_accumulator(&acc).expect("enters");
        let y = eval(&mut rt, &e, &xs);
        rt.recorder().exit_accumulator(&acc);
        rt.recorder().exit(&tape);
        prop_assume!(y.is_ok());
        let y = y.unwrap();
        prop_assert!(acc.borrow_mut().error.take().is_none(), "{:?}: a tangent failed", e);
        let tangent = acc.borrow().get(y.id).map(|t| t.data.to_f64_vec()).unwrap_or_else(|| vec![0.0; y.len()]);
        prop_assert_eq!(tangent.len(), y.len());

        // jacobian(y, x) · v, a row per element of y.
        let ids: Vec<u64> = xs.iter().map(|x| x.id).collect();
        for k in 0..y.len() {
            let mut onehot = vec![0.0; y.len()];
            onehot[k] = 1.0;
            let og = Tensor::new(Array::from_f64(DType::F64, y.shape(), onehot));
            let rows = rt.gradient(&tape, std::slice::from_ref(&y), &ids, Some(vec![og])).expect("gradient runs");
            let jv: f64 = rows
                .iter()
                .zip(&vs)
                .map(|(g, v)| g.as_ref().map_or(0.0, |g| g.data.to_f64_vec().iter().zip(v).map(|(a, b)| a * b).sum()))
                .sum();
            // Both NaN (an overflow on the way, as exp of a large determinant) is agreement too.
            let both_nan = jv.is_nan() && tangent[k].is_nan();
            prop_assert!(
                both_nan || jv == tangent[k] || (jv - tangent[k]).abs() <= 1e-9 * jv.abs().max(1.0),
                "{:?}: tangent[{}] {} but jacobian · v {}", e, k, tangent[k], jv
            );
        }

        // Central differences along v, where y is differentiable along it.
        let h = 1e-5;
        let at = |d: f64| {
            let p: Vec<Tensor> = data
                .iter()
                .zip(&vs)
                .map(|((s, x), v)| Tensor::new(Array::from_f64(DType::F64, s, x.iter().zip(v).map(|(x, v)| x + d * v).collect())))
                .collect();
            eval(&mut interp(), &e, &p).unwrap().data.to_f64_vec()
        };
        let (up, mid, down) = (at(h), at(0.0), at(-h));
        let (up2, down2) = (at(h / 2.0), at(-h / 2.0));
        for k in 0..y.len() {
            let forward = (up[k] - mid[k]) / h;
            let backward = (mid[k] - down[k]) / h;
            let scale = forward.abs().max(backward.abs()).max(1.0);
            // On a kink (relu, abs, max, ties) the one-sided slopes differ: no derivative to check.
            if (forward - backward).abs() > 1e-3 * scale {
                continue;
            }
            // Richardson's extrapolation of the central differences at h and h/2: its error is
            // O(h^4), where a plain central difference's (h^2/6) f''' exceeds the tolerance on
            // steep functions (cos of a squared determinant, slope ~4000).
            let (wide, narrow) = ((up[k] - down[k]) / (2.0 * h), (up2[k] - down2[k]) / h);
            let numeric = (4.0 * narrow - wide) / 3.0;
            prop_assert!(
                (numeric - tangent[k]).abs() <= 1e-4 * scale + rounding(mid[k]),
                "{:?}: tangent[{}] {} numeric {}", e, k, tangent[k], numeric
            );
        }
    }
}
