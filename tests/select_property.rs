//! Generated inputs for the selection ops and einsum (issue 9): over random shapes and
//! indices, `gather_nd`, `scatter_nd`, `boolean_mask` and `einsum` equal naive reference
//! implementations written here, and out-of-range indices or malformed equations end in
//! an error of the right kind, never a panic.

use dgl::autodiff::Host;
use dgl::error::ErrorKind;
use dgl::runtime::Interp;
use dgl::tensor::{Array, DType, Tensor};
use proptest::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;

fn interp() -> Interp {
    Interp::new(Rc::new(RefCell::new(std::io::sink())))
}

fn floats(shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::new(Array::from_f64(DType::F64, shape, v.to_vec()))
}

fn ints(shape: &[usize], v: Vec<i64>) -> Tensor {
    Tensor::new(Array::I64(ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(shape), v).expect("shape matches")))
}

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// A shape of rank 1..=3 with sizes 1..=4, and values for it.
fn tensor() -> impl Strategy<Value = (Vec<usize>, Vec<f64>)> {
    proptest::collection::vec(1usize..=4, 1..=3).prop_flat_map(|shape| {
        let n: usize = shape.iter().product();
        (Just(shape), proptest::collection::vec(-5.0f64..5.0, n))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    /// gather_nd: each index vector selects params[i0, …, i(m-1), …] (or fails with an IndexError
    /// when some entry is outside its axis).
    #[test]
    fn gather_nd_matches_a_naive_gather((shape, v) in tensor(), m_pick in 0usize..4, rows in 0usize..4,
                                        raw in proptest::collection::vec(-2i64..6, 12)) {
        let m = m_pick.min(shape.len());
        let idx: Vec<i64> = raw.iter().copied().cycle().take(rows * m).collect();
        let mut rt = interp();
        let r = rt.recorder().gather_nd(&floats(&shape, &v), &ints(&[rows, m], idx.clone()), 0);
        let in_range = idx.chunks(m.max(1)).all(|c| c.iter().zip(&shape).all(|(&i, &d)| i >= 0 && (i as usize) < d));
        match r {
            Err(e) => prop_assert!(!in_range && e.kind() == ErrorKind::Index, "{e:?}"),
            Ok(out) => {
                prop_assert!(in_range);
                let slice: usize = shape[m..].iter().product();
                let st = strides(&shape);
                let mut want = Vec::new();
                for r in 0..rows {
                    let base: usize = (0..m).map(|a| idx[r * m + a] as usize * st[a]).sum();
                    want.extend_from_slice(&v[base..base + slice]);
                }
                prop_assert_eq!(out.data.to_f64_vec(), want);
            }
        }
    }

    /// scatter_nd: zeros with every update slice added at its index vector.
    #[test]
    fn scatter_nd_matches_a_naive_scatter(shape in proptest::collection::vec(1usize..=4, 1..=3), m_pick in 1usize..4,
                                          rows in 0usize..5, raw in proptest::collection::vec(-1i64..5, 15)) {
        let m = m_pick.min(shape.len());
        let idx: Vec<i64> = raw.iter().copied().cycle().take(rows * m).collect();
        let slice: usize = shape[m..].iter().product();
        let mut ushape = vec![rows];
        ushape.extend_from_slice(&shape[m..]);
        let upd: Vec<f64> = (0..rows * slice).map(|k| k as f64 + 1.0).collect();
        let mut rt = interp();
        let r = rt.recorder().scatter_nd(&ints(&[rows, m], idx.clone()), &floats(&ushape, &upd), &shape);
        let in_range = idx.chunks(m).all(|c| c.iter().zip(&shape).all(|(&i, &d)| i >= 0 && (i as usize) < d));
        match r {
            Err(e) => prop_assert!(!in_range && e.kind() == ErrorKind::Index, "{e:?}"),
            Ok(out) => {
                prop_assert!(in_range);
                let st = strides(&shape);
                let mut want = vec![0.0; shape.iter().product()];
                for r in 0..rows {
                    let base: usize = (0..m).map(|a| idx[r * m + a] as usize * st[a]).sum();
                    for j in 0..slice {
                        want[base + j] += upd[r * slice + j];
                    }
                }
                prop_assert_eq!(out.data.to_f64_vec(), want);
            }
        }
    }

    /// boolean_mask at axis 0 with a mask over the first k axes: the kept slices in order.
    #[test]
    fn boolean_mask_matches_a_naive_filter((shape, v) in tensor(), k_pick in 1usize..4, bits in proptest::collection::vec(any::<bool>(), 64)) {
        let k = k_pick.min(shape.len());
        let span: usize = shape[..k].iter().product();
        let mask: Vec<bool> = bits[..span].to_vec();
        let m = Tensor::new(Array::Bool(ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&shape[..k]), mask.clone()).unwrap()));
        let mut rt = interp();
        let out = rt.recorder().boolean_mask(&floats(&shape, &v), &m, 0).expect("shapes match");
        let post: usize = shape[k..].iter().product();
        let want: Vec<f64> = (0..span).filter(|&j| mask[j]).flat_map(|j| v[j * post..(j + 1) * post].to_vec()).collect();
        prop_assert_eq!(out.shape()[0], mask.iter().filter(|&&b| b).count());
        prop_assert_eq!(out.data.to_f64_vec(), want);
    }

    /// einsum of two operands over random labels from 'abcd' (repeats allowed: diagonals),
    /// explicit or implicit output, against a sum over every assignment of the labels.
    #[test]
    fn einsum_matches_a_naive_sum(t1 in "[abcd]{0,3}", t2 in "[abcd]{0,3}", out_pick in proptest::collection::vec(any::<bool>(), 4),
                                  explicit in any::<bool>(), sizes in proptest::collection::vec(1usize..=3, 4)) {
        let size = |c: char| sizes[(c as u8 - b'a') as usize];
        let labels: Vec<char> = { let mut l: Vec<char> = t1.chars().chain(t2.chars()).collect(); l.sort(); l.dedup(); l };
        let output: Vec<char> = if explicit {
            labels.iter().enumerate().filter(|(i, _)| out_pick[*i]).map(|(_, c)| *c).collect()
        } else {
            labels.iter().copied().filter(|&c| t1.chars().chain(t2.chars()).filter(|&d| d == c).count() == 1).collect()
        };
        let eq = if explicit { format!("{t1},{t2}->{}", output.iter().collect::<String>()) } else { format!("{t1},{t2}") };
        let s1: Vec<usize> = t1.chars().map(size).collect();
        let s2: Vec<usize> = t2.chars().map(size).collect();
        let v1: Vec<f64> = (0..s1.iter().product::<usize>()).map(|k| (k as f64 * 0.7).sin()).collect();
        let v2: Vec<f64> = (0..s2.iter().product::<usize>()).map(|k| (k as f64 * 1.3).cos()).collect();
        let mut rt = interp();
        let got = rt.recorder().einsum(&eq, &[floats(&s1, &v1), floats(&s2, &v2)]).expect("a valid equation");
        // Naive: every assignment of every label.
        let oshape: Vec<usize> = output.iter().map(|&c| size(c)).collect();
        let mut want = vec![0.0; oshape.iter().product()];
        let total: usize = labels.iter().map(|&c| size(c)).product();
        let (st1, st2, sto) = (strides(&s1), strides(&s2), strides(&oshape));
        for mut k in 0..total {
            let mut val = std::collections::HashMap::new();
            for &c in labels.iter().rev() {
                val.insert(c, k % size(c));
                k /= size(c);
            }
            let at = |t: &str, st: &[usize]| t.chars().zip(st).map(|(c, s)| val[&c] * s).sum::<usize>();
            let o: usize = output.iter().zip(&sto).map(|(c, s)| val[c] * s).sum();
            want[o] += v1[at(&t1, &st1)] * v2[at(&t2, &st2)];
        }
        prop_assert_eq!(got.shape(), oshape.as_slice());
        for (g, w) in got.data.to_f64_vec().iter().zip(&want) {
            prop_assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{eq}: {g} vs {w}");
        }
    }

    /// Random equations over random shapes: a result or an error of a user kind, never a panic.
    #[test]
    fn malformed_einsum_never_panics(eq in "[abi.,>\\- 1]{0,12}", shapes in proptest::collection::vec(proptest::collection::vec(0usize..3, 0..3), 0..3)) {
        let xs: Vec<Tensor> = shapes.iter().map(|s| floats(s, &vec![1.0; s.iter().product()])).collect();
        let mut rt = interp();
        if let Err(e) = rt.recorder().einsum(&eq, &xs) {
            prop_assert!(matches!(e.kind(), ErrorKind::Value | ErrorKind::Shape | ErrorKind::Type), "{eq}: {e:?}");
        }
    }

    /// Random index tensors of any shape (including scalars and empty ones): a result or an error.
    #[test]
    fn malformed_indices_never_panic((shape, v) in tensor(), ishape in proptest::collection::vec(0usize..3, 0..3),
                                     raw in proptest::collection::vec(-3i64..5, 8), batch in 0usize..3) {
        let n: usize = ishape.iter().product();
        let idx = ints(&ishape, raw.iter().copied().cycle().take(n).collect());
        let x = floats(&shape, &v);
        let mut rt = interp();
        let _ = rt.recorder().gather_nd(&x, &idx, batch);
        let _ = rt.recorder().scatter_nd(&idx, &x, &shape);
        let _ = rt.recorder().tensor_scatter_nd(&x, &idx, &x, false);
        let _ = rt.recorder().tensor_scatter_nd(&x, &idx, &x, true);
        let mask = Tensor::new(Array::Bool(ndarray::ArrayD::from_elem(ndarray::IxDyn(&ishape), true)));
        let _ = rt.recorder().boolean_mask(&x, &mask, batch as i64 - 1);
        let _ = rt.recorder().top_k(&x, raw[0]);
        let _ = rt.recorder().diag_part(&x);
        let _ = rt.recorder().matrix_inverse(&x);
        let _ = rt.recorder().solve(&x, &x);
    }
}
