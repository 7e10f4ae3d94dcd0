//! Property tests (issue 9) for conv2d, max_pool2d and avg_pool2d over random shapes, strides,
//! dilations and paddings: forward values and the tape's VJPs equal a naive reference loop
//! written from the definitions here, in float64; and bad shapes or arguments, through the
//! builtins, end in an error of the right kind, never a panic.

use dgl::autodiff::Host;
use dgl::autodiff::Tape;
use dgl::runtime::Interp;
use dgl::tensor::conv::{Geom, Padding, Window};
use dgl::tensor::kernels::Reduce;
use dgl::tensor::{Array, DType, Tensor};
use proptest::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;

fn interp() -> Interp {
    Interp::new(Rc::new(RefCell::new(std::io::sink())))
}

fn tensor(shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::new(Array::from_f64(DType::F64, shape, v.to_vec()))
}

/// Values of length n from a seed, distinct with probability 1 (no max-pool ties).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// The input position (row or column) a window tap reads, if inside: out·stride + k·dil − pad.
fn tap(o: usize, k: usize, stride: usize, dil: usize, pad: usize, size: usize) -> Option<usize> {
    (o * stride + k * dil).checked_sub(pad).filter(|&i| i < size)
}

/// Output size and padding before, from TF's documented formulas (written independently of
/// the kernel's): SAME: ceil(in / s) with max((out − 1)·s + eff − in, 0) split, the extra after;
/// VALID/explicit: TF's truncated division below.
fn size(input: usize, k: usize, s: usize, d: usize, pad: Option<[usize; 2]>) -> Option<(usize, usize)> {
    let eff = (k - 1) * d + 1;
    match pad {
        None => {
            let out = (input + s - 1) / s;
            let total = ((out.max(1) - 1) * s + eff).saturating_sub(input);
            Some((out, total / 2))
        }
        Some([a, b]) => {
            // TF: (in + pads + s − eff) / s in C++ integer division (toward zero), an error
            // only when that is negative.
            let num = (input + a + b + s) as i64 - eff as i64;
            let out = num / s as i64;
            (out >= 0).then_some((out as usize, a))
        }
    }
}

#[derive(Debug, Clone)]
struct Case {
    x: [usize; 4],
    k: (usize, usize),
    oc: usize,
    strides: (usize, usize),
    dil: (usize, usize),
    /// None: SAME; Some: explicit [[top, bottom], [left, right]] (VALID is [[0, 0], [0, 0]]).
    pad: Option<[[usize; 2]; 2]>,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1usize..3, 1usize..7, 1usize..7, 1usize..4),
        (1usize..4, 1usize..4, 1usize..4),
        (1usize..4, 1usize..4, 1usize..3, 1usize..3),
        prop_oneof![
            Just(None),
            Just(Some([[0, 0], [0, 0]])),
            (0usize..3, 0usize..3, 0usize..3, 0usize..3).prop_map(|(a, b, c, d)| Some([[a, b], [c, d]]))
        ],
        any::<u64>(),
    )
        .prop_map(|((n, h, w, c), (kh, kw, oc), (sh, sw, dh, dw), pad, seed)| Case {
            x: [n, h, w, c],
            k: (kh, kw),
            oc,
            strides: (sh, sw),
            dil: (dh, dw),
            pad,
            seed,
        })
}

impl Case {
    fn window(&self, dil: (usize, usize)) -> Window {
        let padding = match self.pad {
            None => Padding::Same,
            Some([[0, 0], [0, 0]]) => Padding::Valid,
            Some(p) => Padding::Explicit(p),
        };
        Window { strides: self.strides, dilations: dil, padding }
    }

    /// (oh, pt, ow, pl) from the reference formulas, None when the window does not fit.
    fn out(&self, dil: (usize, usize)) -> Option<(usize, usize, usize, usize)> {
        let (rp, cp) = match self.pad {
            None => (None, None),
            Some(p) => (Some(p[0]), Some(p[1])),
        };
        let (oh, pt) = size(self.x[1], self.k.0, self.strides.0, dil.0, rp)?;
        let (ow, pl) = size(self.x[2], self.k.1, self.strides.1, dil.1, cp)?;
        Some((oh, pt, ow, pl))
    }
}

/// sum(f(inputs) · u) and its gradients through a tape, for fixed weights u.
fn with_tape(
    rt: &mut Interp,
    inputs: &[Tensor],
    f: impl FnOnce(&mut Interp) -> dgl::error::R<Tensor>,
) -> dgl::error::R<(Tensor, Vec<Tensor>, Vec<f64>)> {
    let tape = Rc::new(RefCell::new(Tape::new(false, true)));
    for x in inputs {
        tape.borrow_mut().watch(x.id);
    }
    rt.recorder().enter(&tape).expect("the tape records");
    let y = f(rt);
    let y = match y {
        Ok(y) => y,
        Err(e) => {
            rt.recorder().exit(&tape);
            return Err(e);
        }
    };
    let u = values(y.len(), 5);
    let ut = tensor(y.shape(), &u);
    let p = rt.recorder().mul(&y, &ut)?;
    let l = rt.recorder().reduce(Reduce::Sum, &p, None, false)?;
    rt.recorder().exit(&tape);
    let ids: Vec<u64> = inputs.iter().map(|x| x.id).collect();
    let grads = rt.gradient(&tape, &[l], &ids, None)?;
    Ok((y, grads.into_iter().map(|g| g.expect("a gradient")).collect(), u))
}

fn close(a: &[f64], b: &[f64], what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.len(), b.len(), "{}: lengths", what);
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        prop_assert!((x - y).abs() <= 1e-12 * (1.0 + y.abs()), "{}[{}]: {} vs {}", what, i, x, y);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn conv2d_and_its_vjps_match_the_definition(c in case()) {
        let [n, h, w, ci] = c.x;
        let (kh, kw) = c.k;
        let xs = [n, h, w, ci];
        let ws = [kh, kw, ci, c.oc];
        let xv = values(xs.iter().product(), c.seed);
        let wv = values(ws.iter().product(), c.seed ^ 77);
        let (x, wt) = (tensor(&xs, &xv), tensor(&ws, &wv));
        let mut rt = interp();
        let got = with_tape(&mut rt, &[x.clone(), wt.clone()], |rt| rt.recorder().conv2d(&x, &wt, c.window(c.dil)));
        let Some((oh, pt, ow, pl)) = c.out(c.dil) else {
            let e = got.expect_err("a window that does not fit");
            prop_assert_eq!(e.kind().name(), "ShapeError");
            return Ok(());
        };
        let (y, grads, u) = got.expect("conv2d runs");
        prop_assert_eq!(y.shape(), &[n, oh, ow, c.oc][..]);
        let mut want = vec![0.0; n * oh * ow * c.oc];
        let mut gx = vec![0.0; xv.len()];
        let mut gw = vec![0.0; wv.len()];
        for b in 0..n {
            for oy in 0..oh {
                for ox in 0..ow {
                    for o in 0..c.oc {
                        let oi = ((b * oh + oy) * ow + ox) * c.oc + o;
                        for ky in 0..kh {
                            let Some(iy) = tap(oy, ky, c.strides.0, c.dil.0, pt, h) else { continue };
                            for kx in 0..kw {
                                let Some(ix) = tap(ox, kx, c.strides.1, c.dil.1, pl, w) else { continue };
                                for q in 0..ci {
                                    let xi = ((b * h + iy) * w + ix) * ci + q;
                                    let wi = ((ky * kw + kx) * ci + q) * c.oc + o;
                                    want[oi] += xv[xi] * wv[wi];
                                    gx[xi] += u[oi] * wv[wi];
                                    gw[wi] += u[oi] * xv[xi];
                                }
                            }
                        }
                    }
                }
            }
        }
        close(&y.data.to_f64_vec(), &want, "conv2d")?;
        close(&grads[0].data.to_f64_vec(), &gx, "d/dx")?;
        close(&grads[1].data.to_f64_vec(), &gw, "d/dw")?;
    }

    #[test]
    fn pools_and_their_vjps_match_the_definition(c in case()) {
        let [n, h, w, ch] = c.x;
        let (kh, kw) = c.k;
        let xv = values(c.x.iter().product(), c.seed);
        let x = tensor(&c.x, &xv);
        let Some((oh, pt, ow, pl)) = c.out((1, 1)) else {
            let mut rt = interp();
            let e = rt.recorder().avg_pool2d(&x, c.k, c.window((1, 1))).expect_err("a window that does not fit");
            prop_assert_eq!(e.kind().name(), "ShapeError");
            return Ok(());
        };
        for max in [true, false] {
            let mut rt = interp();
            let (y, grads, u) = with_tape(&mut rt, &[x.clone()], |rt| {
                if max { rt.recorder().max_pool2d(&x, c.k, c.window((1, 1))) } else { rt.recorder().avg_pool2d(&x, c.k, c.window((1, 1))) }
            }).expect("pooling runs");
            prop_assert_eq!(y.shape(), &[n, oh, ow, ch][..]);
            let mut want = vec![0.0; n * oh * ow * ch];
            let mut gx = vec![0.0; xv.len()];
            for b in 0..n {
                for oy in 0..oh {
                    for ox in 0..ow {
                        for q in 0..ch {
                            let oi = ((b * oh + oy) * ow + ox) * ch + q;
                            let mut taps = Vec::new();
                            for ky in 0..kh {
                                let Some(iy) = tap(oy, ky, c.strides.0, 1, pt, h) else { continue };
                                for kx in 0..kw {
                                    let Some(ix) = tap(ox, kx, c.strides.1, 1, pl, w) else { continue };
                                    taps.push(((b * h + iy) * w + ix) * ch + q);
                                }
                            }
                            if taps.is_empty() {
                                // Only explicit padding leaves a window with no input element.
                                want[oi] = if max { f64::NEG_INFINITY } else { 0.0 };
                                continue;
                            }
                            if max {
                                // The first maximum in row-major window order (TF's CPU rule).
                                let best = taps.iter().copied().fold(taps[0], |m, i| if xv[i] > xv[m] { i } else { m });
                                want[oi] = xv[best];
                                gx[best] += u[oi];
                            } else {
                                let k = taps.len() as f64;
                                want[oi] = taps.iter().map(|&i| xv[i]).sum::<f64>() / k;
                                for &i in &taps {
                                    gx[i] += u[oi] / k;
                                }
                            }
                        }
                    }
                }
            }
            let got = y.data.to_f64_vec();
            for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                prop_assert!(a == b || (a - b).abs() <= 1e-12 * (1.0 + b.abs()), "pool {}[{}]: {} vs {}", max, i, a, b);
            }
            close(&grads[0].data.to_f64_vec(), &gx, "pool d/dx")?;
        }
    }

    /// Random ranks, channels, strides, dilations, ksizes and paddings through the builtins:
    /// a result or an error of the right kind, never a panic.
    #[test]
    fn bad_arguments_end_in_errors(
        xr in 0usize..6, wr in 0usize..6, dims in proptest::collection::vec(0usize..5, 10),
        stride in prop_oneof![Just("0".to_string()), Just("-1".to_string()), Just("[1, 2, 3]".to_string()), Just("[2, 1, 1, 1]".to_string()), Just("[1, 1, 1, 1]".to_string()), Just("2".to_string()), Just("'x'".to_string())],
        pad in prop_oneof![Just("'SAME'"), Just("'VALID'"), Just("'same'"), Just("[[0, 0], [1, 1], [0, 2], [0, 0]]"), Just("[[1, 0], [0, 0], [0, 0], [0, 0]]"), Just("[[1, 1]]"), Just("[[-1, 0], [0, 0], [0, 0], [0, 0]]"), Just("3")],
        dil in prop_oneof![Just("None"), Just("2"), Just("[1, 3]"), Just("0"), Just("[1, 2, 2, 1]")],
        op in 0usize..3,
    ) {
        let shape = |r: usize, off: usize| format!("[{}]", dims[off..off + r].iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "));
        let call = match op {
            0 => format!("conv2d(ones({}), ones({}), {stride}, {pad}, dilations={dil})", shape(xr, 0), shape(wr, 5)),
            1 => format!("max_pool2d(ones({}), {stride}, {stride}, {pad})", shape(xr, 0)),
            _ => format!("avg_pool2d(ones({}), {}, {stride}, {pad})", shape(xr, 0), dims[9] as i64 - 1),
        };
        let src = format!("y = {call}\n");
        let r = dgl::with_big_stack(move || {
            let out: dgl::runtime::Output = Rc::new(RefCell::new(Vec::<u8>::new()));
            let mut rt = Interp::new(out);
            let r = dgl::run_program(&mut rt, "prop.dgl", None, &src, vec![]);
            (r.code, r.stderr)
        });
        let (code, err) = r;
        let kinds = ["ShapeError", "ValueError", "TypeError", "NotImplementedError"];
        prop_assert!(code == 0 || kinds.iter().any(|k| err.starts_with(&format!("Error: {k}: "))), "{} gave {}: {}", call, code, err);
    }
}

/// The reference output sizes agree with the kernel's geometry where both are defined.
#[test]
fn reference_sizes_agree_with_the_kernel() {
    for h in 1..8 {
        for k in 1..5 {
            for s in 1..4 {
                for d in 1..3 {
                    for pad in [None, Some([0, 0]), Some([1, 2])] {
                        let p = match pad {
                            None => Padding::Same,
                            Some([0, 0]) => Padding::Valid,
                            Some(p) => Padding::Explicit([p, [0, 0]]),
                        };
                        let win = Window { strides: (s, 1), dilations: (d, 1), padding: p };
                        let g = Geom::pool("t", &[1, h, 1, 1], (k, 1), win).ok().map(|g| (g.oh, g.pt));
                        let want = size(h, k, s, d, pad);
                        assert_eq!(g, want, "h {h} k {k} s {s} d {d} {pad:?}");
                    }
                }
            }
        }
    }
}
