//! TF's elementwise special functions (`tensor/special/`): the forward, what it saves (the
//! inputs and the output) and each VJP, written with recording ops so higher orders compose.
//! Each gradient is TF 2.21's, including where TF gives none (None) or a value that is not the
//! derivative (bessel_i1 at 0); docs/language.md §5.

use crate::autodiff::recorder::{InputGrads, Recorder};
use crate::autodiff::tape::Op;
use crate::bail;
use crate::error::R;
use crate::tensor::kernels::{self, Binary, Compare, Unary};
use crate::tensor::special::{self, Special};
use crate::tensor::Tensor;
use smallvec::{smallvec, SmallVec};

impl Recorder {
    /// `f(args…)` elementwise, recorded unless `f` has no gradient in TF (rint, igamma_grad_a:
    /// those are noted for `tape.explain`).
    pub fn special(&mut self, f: Special, args: &[&Tensor]) -> R<Tensor> {
        let arrays: SmallVec<[&crate::tensor::Array; 3]> = args.iter().map(|t| &*t.data).collect();
        let out = Tensor::new(special::special(f, &arrays)?);
        if matches!(f, Special::Rint | Special::IgammaGradA) {
            self.note(f.name(), args, &[&out]);
        } else {
            self.record(args, &[&out], || Op::Special {
                f,
                inputs: args.iter().map(|t| (*t).clone()).collect(),
                out: out.clone(),
            });
        }
        Ok(out)
    }

    /// A float scalar of `like`'s dtype.
    fn same_dtype(&self, like: &Tensor, v: f64) -> Tensor {
        self.scalar(like.dtype(), v)
    }

    /// `cond ? a : b` with a constant `a` where `x == at` (the rest differentiable).
    fn where_equal(&mut self, x: &Tensor, at: f64, a: f64, b: &Tensor) -> R<Tensor> {
        let point = self.same_dtype(x, at);
        let cond = Tensor::new(kernels::compare(Compare::Eq, &x.data, &point.data)?);
        let a = self.constant_like(b, a);
        self.where_(&cond, &a, b)
    }

    /// The VJP of [`Op::Special`]: one gradient per input (None where TF has none).
    pub(super) fn special_vjp(&mut self, op: &Op, upstream: &[Tensor], needed: &[bool]) -> R<InputGrads> {
        let Op::Special { f, inputs, out } = op else {
            bail!(Runtime, "internal error: {op:?} is not a special function");
        };
        let g = &upstream[0];
        let want = |i: usize| needed.get(i).copied().unwrap_or(false);
        let x = &inputs[0];
        let one = self.same_dtype(x, 1.0);
        // d/dx of a function of one tensor, times g.
        let unary = |rt: &mut Recorder, d: Tensor| -> R<InputGrads> { Ok(smallvec![Some(rt.mul(g, &d)?)]) };
        match f {
            // d lgamma = ψ(x)
            Special::Lgamma => {
                let d = self.special(Special::Digamma, &[x])?;
                unary(self, d)
            }
            // d ψ = ψ⁽¹⁾(x)
            Special::Digamma => {
                let d = self.special(Special::Polygamma, &[&one, x])?;
                unary(self, d)
            }
            // d erf⁻¹ = √π/2 e^(y²)
            Special::Erfinv | Special::Erfcinv => {
                let c = if *f == Special::Erfinv { 1.0 } else { -1.0 } * std::f64::consts::PI.sqrt() / 2.0;
                let y2 = self.unary(Unary::Square, out)?;
                let e = self.unary(Unary::Exp, &y2)?;
                let d = self.mul_scalar(&e, c)?;
                unary(self, d)
            }
            // d Φ⁻¹ = √(2π) e^(y²/2)
            Special::Ndtri => {
                let y2 = self.unary(Unary::Square, out)?;
                let h = self.mul_scalar(&y2, 0.5)?;
                let e = self.unary(Unary::Exp, &h)?;
                let d = self.mul_scalar(&e, (2.0 * std::f64::consts::PI).sqrt())?;
                unary(self, d)
            }
            // d I₀ = I₁
            Special::BesselI0 => {
                let d = self.special(Special::BesselI1, &[x])?;
                unary(self, d)
            }
            // d (I₀e^−|x|) = I₁e^−|x| − sign(x) y
            Special::BesselI0e => {
                let i1e = self.special(Special::BesselI1e, &[x])?;
                let s = self.unary(Unary::Sign, x)?;
                let sy = self.mul(&s, out)?;
                let d = self.binary(Binary::Sub, &i1e, &sy)?;
                unary(self, d)
            }
            // d I₁ = I₀ − y/x, d J₁ = J₀ − y/x, d Y₁ = Y₀ − y/x; at x = 0 TF's values 1 for I₁
            // (the derivative is ½) and ½ for J₁ (TF's where: the division's NaN is not taken)
            Special::BesselI1 | Special::BesselJ1 | Special::BesselY1 => {
                let (lower, at_zero) = match f {
                    Special::BesselI1 => (Special::BesselI0, Some(1.0)),
                    Special::BesselJ1 => (Special::BesselJ0, Some(0.5)),
                    _ => (Special::BesselY0, None),
                };
                let v = self.special(lower, &[x])?;
                let q = self.binary(Binary::Div, out, x)?;
                let mut d = self.binary(Binary::Sub, &v, &q)?;
                if let Some(c) = at_zero {
                    d = self.where_equal(x, 0.0, c, &d)?;
                }
                unary(self, d)
            }
            // d (I₁e^−|x|) = I₀e^−|x| − y (sign(x) + 1/x), and ½ at x = 0
            Special::BesselI1e => {
                let i0e = self.special(Special::BesselI0e, &[x])?;
                let s = self.unary(Unary::Sign, x)?;
                let r = self.unary(Unary::Reciprocal, x)?;
                let t = self.add(&s, &r)?;
                let yt = self.mul(out, &t)?;
                let d = self.binary(Binary::Sub, &i0e, &yt)?;
                let d = self.where_equal(x, 0.0, 0.5, &d)?;
                unary(self, d)
            }
            // d J₀ = −J₁, d Y₀ = −Y₁, d K₀ = −K₁
            Special::BesselJ0 | Special::BesselY0 | Special::BesselK0 => {
                let next = match f {
                    Special::BesselJ0 => Special::BesselJ1,
                    Special::BesselY0 => Special::BesselY1,
                    _ => Special::BesselK1,
                };
                let v = self.special(next, &[x])?;
                let d = self.unary(Unary::Neg, &v)?;
                unary(self, d)
            }
            // d (K₀eˣ) = y − K₁eˣ
            Special::BesselK0e => {
                let k1e = self.special(Special::BesselK1e, &[x])?;
                let d = self.binary(Binary::Sub, out, &k1e)?;
                unary(self, d)
            }
            // d K₁ = −K₀ − y/x
            Special::BesselK1 => {
                let k0 = self.special(Special::BesselK0, &[x])?;
                let nk0 = self.unary(Unary::Neg, &k0)?;
                let q = self.binary(Binary::Div, out, x)?;
                let d = self.binary(Binary::Sub, &nk0, &q)?;
                unary(self, d)
            }
            // d (K₁eˣ) = y (1 − 1/x) − K₀eˣ
            Special::BesselK1e => {
                let r = self.unary(Unary::Reciprocal, x)?;
                let t = self.binary(Binary::Sub, &one, &r)?;
                let yt = self.mul(out, &t)?;
                let k0e = self.special(Special::BesselK0e, &[x])?;
                let d = self.binary(Binary::Sub, &yt, &k0e)?;
                unary(self, d)
            }
            // d F = 1 − 2xy
            Special::Dawsn => {
                let x2 = self.mul_scalar(x, 2.0)?;
                let t = self.mul(&x2, out)?;
                let d = self.binary(Binary::Sub, &one, &t)?;
                unary(self, d)
            }
            // d Ei = eˣ/x, as TF groups it: (g·eˣ)/x
            Special::Expint => {
                let e = self.unary(Unary::Exp, x)?;
                let ge = self.mul(g, &e)?;
                Ok(smallvec![Some(self.binary(Binary::Div, &ge, x)?)])
            }
            // d C = cos(πx²/2), d S = sin(πx²/2)
            Special::FresnelCos | Special::FresnelSin => {
                let x2 = self.unary(Unary::Square, x)?;
                let a = self.mul_scalar(&x2, std::f64::consts::FRAC_PI_2)?;
                let d = self.unary(if *f == Special::FresnelCos { Unary::Cos } else { Unary::Sin }, &a)?;
                unary(self, d)
            }
            // d spence = ln x/(1 − x), and −1 at x = 1 (TF's where)
            Special::Spence => {
                let l = self.unary(Unary::Log, x)?;
                let m = self.binary(Binary::Sub, &one, x)?;
                let d = self.binary(Binary::Div, &l, &m)?;
                let d = self.where_equal(x, 1.0, -1.0, &d)?;
                unary(self, d)
            }
            // d (1/x, 0 at 0) = −r², r = reciprocal_no_nan(x), and +0 at x = 0 (TF's gradient of
            // div_no_nan(1, x): div_no_nan(div_no_nan(−1, x), x))
            Special::ReciprocalNoNan => {
                let r = self.special(Special::ReciprocalNoNan, &[x])?;
                let nr = self.unary(Unary::Neg, &r)?;
                let d = self.special(Special::MulNoNan, &[&nr, &r])?;
                unary(self, d)
            }
            // atan2(y, x): dy = x/(x² + y²), dx = −y/(x² + y²)
            Special::Atan2 => {
                let (y, x) = (&inputs[0], &inputs[1]);
                let yy = self.unary(Unary::Square, y)?;
                let xx = self.unary(Unary::Square, x)?;
                let r = self.add(&yy, &xx)?;
                let gi = self.binary(Binary::Div, g, &r)?;
                let gy = if want(0) { Some(self.mul(x, &gi)?) } else { None };
                let gx = if want(1) {
                    let t = self.mul(y, &gi)?;
                    Some(self.unary(Unary::Neg, &t)?)
                } else {
                    None
                };
                self.reduced(inputs, [gy, gx])
            }
            // polygamma(n, x): dx = ψ⁽ⁿ⁺¹⁾(x); none to n (TF)
            Special::Polygamma => {
                let n1 = self.add(&inputs[0], &one)?;
                let d = self.special(Special::Polygamma, &[&n1, &inputs[1]])?;
                let gx = self.mul(&d, g)?;
                self.reduced(inputs, [None, Some(gx)])
            }
            // zeta(x, q): dq = −x ζ(x + 1, q); none to x (TF)
            Special::Zeta => {
                let x1 = self.add(&inputs[0], &one)?;
                let z = self.special(Special::Zeta, &[&x1, &inputs[1]])?;
                let t = self.mul(&inputs[0], &z)?;
                let d = self.unary(Unary::Neg, &t)?;
                let gq = self.mul(&d, g)?;
                self.reduced(inputs, [None, Some(gq)])
            }
            // P(a, x): da = igamma_grad_a(a, x) (itself without a gradient, as TF),
            // dx = e^(−x + (a−1) ln x − lgamma(a)); Q's are their negatives.
            Special::Igamma | Special::Igammac => {
                let (a, x) = (&inputs[0], &inputs[1]);
                let sign = if *f == Special::Igamma { 1.0 } else { -1.0 };
                let ga = if want(0) {
                    let d = self.special(Special::IgammaGradA, &[a, x])?;
                    let d = self.mul_scalar(&d, sign)?;
                    Some(self.mul(&d, g)?)
                } else {
                    None
                };
                let gx = if want(1) {
                    let am1 = self.binary(Binary::Sub, a, &one)?;
                    let lx = self.unary(Unary::Log, x)?;
                    let t = self.mul(&am1, &lx)?;
                    let t = self.binary(Binary::Sub, &t, x)?;
                    let lg = self.special(Special::Lgamma, &[a])?;
                    let t = self.binary(Binary::Sub, &t, &lg)?;
                    let d = self.unary(Unary::Exp, &t)?;
                    let d = self.mul_scalar(&d, sign)?;
                    Some(self.mul(&d, g)?)
                } else {
                    None
                };
                self.reduced(inputs, [ga, gx])
            }
            // I_x(a, b): dx = e^(xlog1py(b−1, −x) + xlogy(a−1, x) − ln B(a, b)); none to a, b (TF)
            Special::Betainc => {
                let (a, b, x) = (&inputs[0], &inputs[1], &inputs[2]);
                let am1 = self.binary(Binary::Sub, a, &one)?;
                let bm1 = self.binary(Binary::Sub, b, &one)?;
                let lx = self.unary(Unary::Log, x)?;
                let nx = self.unary(Unary::Neg, x)?;
                let l1x = self.unary(Unary::Log1p, &nx)?;
                // xlogy's and xlog1py's rule: 0 where the factor is 0, whatever the log is.
                let t1 = self.mul(&am1, &lx)?;
                let t1 = self.where_equal(&am1, 0.0, 0.0, &t1)?;
                let t2 = self.mul(&bm1, &l1x)?;
                let t2 = self.where_equal(&bm1, 0.0, 0.0, &t2)?;
                let la = self.special(Special::Lgamma, &[a])?;
                let lb = self.special(Special::Lgamma, &[b])?;
                let ab = self.add(a, b)?;
                let lab = self.special(Special::Lgamma, &[&ab])?;
                let lbeta = self.add(&la, &lb)?;
                let lbeta = self.binary(Binary::Sub, &lbeta, &lab)?;
                let e = self.add(&t1, &t2)?;
                let e = self.binary(Binary::Sub, &e, &lbeta)?;
                let d = self.unary(Unary::Exp, &e)?;
                let gx = self.mul(&d, g)?;
                let gx = self.sum_to_shape(&gx, x.shape())?;
                Ok(smallvec![None, None, Some(gx)])
            }
            // nextafter(x1, x2): 1 to x1, 0 to x2 (TF's)
            Special::NextAfter => {
                let g2 = self.constant_like(&inputs[1], 0.0);
                let g1 = self.sum_to_shape(g, inputs[0].shape())?;
                Ok(smallvec![Some(g1), Some(g2)])
            }
            // multiply_no_nan(x, y): dx = multiply_no_nan(g, y), dy = multiply_no_nan(x, g)
            Special::MulNoNan => {
                let (x, y) = (&inputs[0], &inputs[1]);
                let gx = if want(0) { Some(self.special(Special::MulNoNan, &[g, y])?) } else { None };
                let gy = if want(1) { Some(self.special(Special::MulNoNan, &[x, g])?) } else { None };
                self.reduced(inputs, [gx, gy])
            }
            Special::Rint | Special::IgammaGradA => bail!(Runtime, "internal error: {} has no gradient", f.name()),
        }
    }

    /// Two inputs' gradients summed back over their broadcast axes.
    fn reduced(&mut self, inputs: &[Tensor], grads: [Option<Tensor>; 2]) -> R<InputGrads> {
        let mut out = InputGrads::new();
        for (t, g) in inputs.iter().zip(grads) {
            out.push(match g {
                Some(g) => Some(self.sum_to_shape(&g, t.shape())?),
                None => None,
            });
        }
        Ok(out)
    }
}
