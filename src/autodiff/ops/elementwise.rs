//! Elementwise operations: arithmetic with broadcasting, functions of one tensor, `where`, `cast`
//! and identity; each forward, what it saves, and its VJP.

use crate::autodiff::forward::Tangents;
use crate::autodiff::recorder::{InputGrads, Recorder};
use crate::autodiff::tape::{Dims, Op};
use crate::bail;
use crate::error::R;
use crate::tensor::kernels::{self, Binary, Compare, Unary};
use crate::tensor::{Array, DType, Tensor};
use ndarray::IxDyn;
use smallvec::smallvec;

impl Recorder {
    /// A constant tensor (never recorded).
    pub fn constant_like(&self, like: &Tensor, v: f64) -> Tensor {
        Tensor::new(Array::full(like.dtype(), like.shape(), v))
    }

    /// A scalar constant of `dtype`.
    pub fn scalar(&self, dtype: DType, v: f64) -> Tensor {
        Tensor::new(Array::scalar(dtype, v))
    }

    /// `a op b` with broadcasting. Gradients: see `elementwise_vjp` below.
    pub fn binary(&mut self, op: Binary, a: &Tensor, b: &Tensor) -> R<Tensor> {
        let out = Tensor::new(kernels::binary(op, &a.data, &b.data)?);
        // floordiv has no gradient (TF: None); floormod's is 1 and −floor(a/b) (see `elementwise_vjp`).
        if out.dtype().is_float() && op != Binary::FloorDiv {
            self.record(&[a, b], &[&out], || match op {
                Binary::Add | Binary::Sub => Op::AddSub {
                    sub: op == Binary::Sub,
                    a_shape: Dims::from_slice(a.shape()),
                    b_shape: Dims::from_slice(b.shape()),
                },
                Binary::Pow => Op::Pow { a: a.clone(), b: b.clone(), out: out.clone() },
                _ => Op::Binary { op, a: a.clone(), b: b.clone() },
            });
        }
        Ok(out)
    }

    pub fn add(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        self.binary(Binary::Add, a, b)
    }

    /// `add_n(xs)`: the sum of same-shape, same-dtype tensors, added left to right in their
    /// dtype (TF's AddN rounds each partial sum, as this does), recorded as one operation.
    /// Gradient: the upstream gradient to every input. The caller checks shapes and dtypes.
    pub fn add_n(&mut self, xs: &[Tensor]) -> R<Tensor> {
        let Some((first, rest)) = xs.split_first() else { bail!(Value, "add_n() needs at least one tensor") };
        let mut data = (*first.data).clone();
        for t in rest {
            data = kernels::binary(Binary::Add, &data, &t.data)?;
        }
        let out = Tensor::new(data);
        if out.dtype().is_float() {
            let refs: Vec<&Tensor> = xs.iter().collect();
            self.record(&refs, &[&out], || Op::AddN { n: xs.len() });
        }
        Ok(out)
    }

    pub fn mul(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        self.binary(Binary::Mul, a, b)
    }

    /// `x * v` for a Python number `v` in x's dtype.
    pub fn mul_scalar(&mut self, x: &Tensor, v: f64) -> R<Tensor> {
        let s = self.scalar(x.dtype(), v);
        self.binary(Binary::Mul, x, &s)
    }

    /// `f(x)` elementwise.
    pub fn unary(&mut self, op: Unary, x: &Tensor) -> R<Tensor> {
        let out = Tensor::new(kernels::unary(op, &x.data)?);
        // Rounding has no gradient (TF registers None for Floor, Ceil and Round).
        let rounding = matches!(op, Unary::Floor | Unary::Ceil | Unary::Round);
        if out.dtype().is_float() && !rounding {
            self.record(&[x], &[&out], || {
                let saved = match op {
                    Unary::Neg | Unary::Sign | Unary::Step | Unary::Floor | Unary::Ceil | Unary::Round => None,
                    Unary::Exp | Unary::Tanh | Unary::Sigmoid | Unary::Sqrt | Unary::Rsqrt | Unary::Relu => {
                        Some(out.clone())
                    }
                    _ => Some(x.clone()),
                };
                Op::Unary { op, saved }
            });
        } else if rounding {
            let name = match op {
                Unary::Floor => "floor",
                Unary::Ceil => "ceil",
                _ => "round",
            };
            self.note(name, &[x], &[&out]);
        }
        Ok(out)
    }

    /// `where(cond, a, b)`: elements of `a` where `cond` is true, else of `b`.
    pub fn where_(&mut self, cond: &Tensor, a: &Tensor, b: &Tensor) -> R<Tensor> {
        let Array::Bool(c) = &*cond.data else {
            bail!(Type, "where: the condition must be a bool tensor, got {}", cond.dtype());
        };
        let shape = crate::tensor::shape::broadcast_shapes(
            &crate::tensor::shape::broadcast_shapes(c.shape(), a.shape())?,
            b.shape(),
        )?;
        let cb = c.broadcast(IxDyn(&shape)).unwrap();
        macro_rules! sel {
            ($v:ident, $x:expr, $y:expr) => {{
                let xb = $x.broadcast(IxDyn(&shape)).unwrap();
                let yb = $y.broadcast(IxDyn(&shape)).unwrap();
                Array::$v(ndarray::Zip::from(&cb).and(&xb).and(&yb).map_collect(|&c, &x, &y| if c { x } else { y }))
            }};
        }
        let data = match (&*a.data, &*b.data) {
            (Array::F32(x), Array::F32(y)) => sel!(F32, x, y),
            (Array::F64(x), Array::F64(y)) => sel!(F64, x, y),
            (Array::I64(x), Array::I64(y)) => sel!(I64, x, y),
            (Array::F16(x), Array::F16(y)) => sel!(F16, x, y),
            (Array::U8(x), Array::U8(y)) => sel!(U8, x, y),
            (Array::I8(x), Array::I8(y)) => sel!(I8, x, y),
            (Array::I16(x), Array::I16(y)) => sel!(I16, x, y),
            (Array::I32(x), Array::I32(y)) => sel!(I32, x, y),
            (Array::Bool(x), Array::Bool(y)) => sel!(Bool, x, y),
            _ => bail!(Type, "where: cannot mix {} and {} tensors", a.dtype(), b.dtype()),
        };
        let out = Tensor::new(data);
        if out.dtype().is_float() {
            self.record(&[a, b], &[&out], || Op::Where {
                cond: cond.clone(),
                a_shape: Dims::from_slice(a.shape()),
                b_shape: Dims::from_slice(b.shape()),
            });
        }
        Ok(out)
    }

    /// `cast(x, dtype)`: differentiable between float dtypes.
    pub fn cast(&mut self, x: &Tensor, dtype: DType) -> R<Tensor> {
        if x.dtype() == dtype {
            return Ok(x.clone());
        }
        let out = Tensor::new(x.data.try_cast(dtype)?);
        if dtype.is_float() && x.dtype().is_float() {
            self.record(&[x], &[&out], || Op::Cast { from: x.dtype() });
        } else {
            self.note("cast", &[x], &[&out]);
        }
        Ok(out)
    }

    /// The same values under a new id, recorded as an identity.
    pub fn identity(&mut self, x: &Tensor) -> Tensor {
        let out = x.renamed();
        self.record(&[x], &[&out], || Op::Identity);
        out
    }

    /// The VJPs of this family: `upstream` has one gradient per output (zeros filled in),
    /// `needed[i]` says whether input i wants a gradient; one gradient per input.
    pub(super) fn elementwise_vjp(&mut self, op: &Op, upstream: &[Tensor], needed: &[bool]) -> R<InputGrads> {
        let g = &upstream[0];
        let want = |i: usize| needed.get(i).copied().unwrap_or(false);
        Ok(match op {
            // d(a ± b) = da ± db, summed back over broadcast axes.
            Op::AddSub { sub, a_shape, b_shape } => {
                let ga = if want(0) { Some(self.sum_to_shape(g, a_shape)?) } else { None };
                let gb = if want(1) {
                    let gb = if *sub { self.unary(Unary::Neg, g)? } else { g.clone() };
                    Some(self.sum_to_shape(&gb, b_shape)?)
                } else {
                    None
                };
                smallvec![ga, gb]
            }
            Op::Binary { op, a, b } => {
                let (ga, gb) = match op {
                    // d(ab) = b da + a db
                    Binary::Mul => (
                        if want(0) { Some(self.mul(g, b)?) } else { None },
                        if want(1) { Some(self.mul(g, a)?) } else { None },
                    ),
                    // d(a/b) = da / b − a db / b²
                    Binary::Div => (
                        if want(0) { Some(self.binary(Binary::Div, g, b)?) } else { None },
                        if want(1) {
                            let t = self.mul(g, a)?;
                            let bb = self.mul(b, b)?;
                            let q = self.binary(Binary::Div, &t, &bb)?;
                            Some(self.unary(Unary::Neg, &q)?)
                        } else {
                            None
                        },
                    ),
                    // maximum: the gradient goes to a where a >= b, else to b (TF's tie rule);
                    // minimum: to a where a <= b.
                    Binary::Maximum | Binary::Minimum => {
                        let cmp = if *op == Binary::Maximum { Compare::Ge } else { Compare::Le };
                        let mask = Tensor::new(kernels::compare(cmp, &a.data, &b.data)?.cast(g.dtype()));
                        let ga = self.mul(g, &mask)?;
                        let gb = self.binary(Binary::Sub, g, &ga)?;
                        (Some(ga), Some(gb))
                    }
                    // a mod b = a − floor(a/b)·b, floor's derivative being 0 (TF's FloorMod):
                    // d = da − floor(a/b) db
                    Binary::Mod => (
                        if want(0) { Some(g.clone()) } else { None },
                        if want(1) {
                            let q = self.binary(Binary::FloorDiv, a, b)?;
                            let t = self.mul(g, &q)?;
                            Some(self.unary(Unary::Neg, &t)?)
                        } else {
                            None
                        },
                    ),
                    _ => (None, None),
                };
                let ga = match ga {
                    Some(t) => Some(self.sum_to_shape(&t, a.shape())?),
                    None => None,
                };
                let gb = match gb {
                    Some(t) => Some(self.sum_to_shape(&t, b.shape())?),
                    None => None,
                };
                smallvec![ga, gb]
            }
            // d(a^b) = b a^(b−1) da + a^b log(a) db   (log taken as 0 where a <= 0, as TF)
            Op::Pow { a, b, out } => {
                let ga = if want(0) {
                    let t = self.pow_d_base(a, b)?;
                    let t = self.mul(g, &t)?;
                    Some(self.sum_to_shape(&t, a.shape())?)
                } else {
                    None
                };
                let gb = if want(1) {
                    let la = self.pow_log_base(a)?;
                    let t = self.mul(out, &la)?;
                    let t = self.mul(g, &t)?;
                    Some(self.sum_to_shape(&t, b.shape())?)
                } else {
                    None
                };
                smallvec![ga, gb]
            }
            Op::Unary { op, saved } => smallvec![Some(self.unary_vjp(*op, saved.as_ref(), g)?)],
            // where: g to a where cond, to b elsewhere.
            Op::Where { cond, a_shape, b_shape } => {
                let zero = self.constant_like(g, 0.0);
                let ga = self.where_(cond, g, &zero)?;
                let gb = self.where_(cond, &zero, g)?;
                smallvec![Some(self.sum_to_shape(&ga, a_shape)?), Some(self.sum_to_shape(&gb, b_shape)?)]
            }
            Op::Cast { from } => smallvec![Some(self.cast(g, *from)?)],
            Op::Identity => smallvec![Some(g.clone())],
            Op::AddN { n } => (0..*n).map(|_| Some(g.clone())).collect(),
            _ => bail!(Runtime, "internal error: {op:?} is not a elementwise operation"),
        })
    }

    /// The JVP rules of this family (forward mode): `ts` has one tangent per input (`None`:
    /// zero), the result one per output. Elementwise Jacobians are diagonal, so a function of
    /// one tensor has J·t = its VJP at upstream t; binary ones add their two partial products
    /// and broadcast to the output's shape.
    pub(super) fn elementwise_jvp(&mut self, op: &Op, ts: &[Option<Tensor>], outs: &[&Tensor]) -> R<Tangents> {
        let out = outs[0];
        if let Op::AddN { .. } = op {
            // d(x0 + … + xn) = dx0 + … + dxn, over the given tangents.
            let mut acc: Option<Tensor> = None;
            for t in ts.iter().flatten() {
                acc = Some(match acc {
                    Some(a) => self.add(&a, t)?,
                    None => t.clone(),
                });
            }
            return Ok(smallvec![acc]);
        }
        let (ta, tb) = (ts.first().and_then(Option::as_ref), ts.get(1).and_then(Option::as_ref));
        let t = match op {
            // d(a ± b) = da ± db
            Op::AddSub { sub, .. } => match (ta, tb) {
                (Some(ta), Some(tb)) => self.binary(if *sub { Binary::Sub } else { Binary::Add }, ta, tb)?,
                (Some(ta), None) => ta.clone(),
                (None, Some(tb)) if *sub => self.unary(Unary::Neg, tb)?,
                (None, Some(tb)) => tb.clone(),
                (None, None) => return Ok(smallvec![None]),
            },
            Op::Binary { op, a, b } => {
                let mut terms: smallvec::SmallVec<[Tensor; 2]> = smallvec::SmallVec::new();
                match op {
                    // d(ab) = b da + a db
                    Binary::Mul => {
                        if let Some(ta) = ta {
                            terms.push(self.mul(ta, b)?);
                        }
                        if let Some(tb) = tb {
                            terms.push(self.mul(a, tb)?);
                        }
                    }
                    // d(a/b) = da / b − a db / b²
                    Binary::Div => {
                        if let Some(ta) = ta {
                            terms.push(self.binary(Binary::Div, ta, b)?);
                        }
                        if let Some(tb) = tb {
                            let t = self.mul(a, tb)?;
                            let bb = self.mul(b, b)?;
                            let q = self.binary(Binary::Div, &t, &bb)?;
                            terms.push(self.unary(Unary::Neg, &q)?);
                        }
                    }
                    // The VJP's tie rule: maximum follows a where a >= b, minimum where a <= b.
                    Binary::Maximum | Binary::Minimum => {
                        let cmp = if *op == Binary::Maximum { Compare::Ge } else { Compare::Le };
                        let pick_a = kernels::compare(cmp, &a.data, &b.data)?;
                        let mask = Tensor::new(pick_a.cast(out.dtype()));
                        if let Some(ta) = ta {
                            terms.push(self.mul(ta, &mask)?);
                        }
                        if let Some(tb) = tb {
                            let one = self.scalar(out.dtype(), 1.0);
                            let rest = Tensor::new(kernels::binary(Binary::Sub, &one.data, &mask.data)?);
                            terms.push(self.mul(tb, &rest)?);
                        }
                    }
                    // d(a mod b) = da − floor(a/b) db
                    Binary::Mod => {
                        if let Some(ta) = ta {
                            terms.push(ta.clone());
                        }
                        if let Some(tb) = tb {
                            let q = self.binary(Binary::FloorDiv, a, b)?;
                            let t = self.mul(&q, tb)?;
                            terms.push(self.unary(Unary::Neg, &t)?);
                        }
                    }
                    _ => {}
                }
                match terms.len() {
                    0 => self.constant_like(out, 0.0),
                    1 => terms.pop().expect("one term"),
                    _ => self.add(&terms[0], &terms[1])?,
                }
            }
            // d(a^b) = b a^(b−1) da + a^b log(a) db   (log taken as 0 where a <= 0, as the VJP)
            Op::Pow { a, b, out: y } => {
                let mut acc: Option<Tensor> = None;
                if let Some(ta) = ta {
                    let d = self.pow_d_base(a, b)?;
                    acc = Some(self.mul(&d, ta)?);
                }
                if let Some(tb) = tb {
                    let la = self.pow_log_base(a)?;
                    let d = self.mul(y, &la)?;
                    let t = self.mul(&d, tb)?;
                    acc = Some(match acc {
                        Some(prev) => self.add(&prev, &t)?,
                        None => t,
                    });
                }
                acc.expect("a tangent is given")
            }
            Op::Unary { op, saved } => match ta {
                Some(ta) => self.unary_vjp(*op, saved.as_ref(), ta)?,
                None => return Ok(smallvec![None]),
            },
            // where: the tangent of the branch taken.
            Op::Where { cond, .. } => {
                let zero = self.scalar(out.dtype(), 0.0);
                let ta = ta.cloned().unwrap_or_else(|| zero.clone());
                let tb = tb.cloned().unwrap_or(zero);
                self.where_(cond, &ta, &tb)?
            }
            Op::Cast { .. } => match ta {
                Some(ta) => self.cast(ta, out.dtype())?,
                None => return Ok(smallvec![None]),
            },
            Op::Identity => return Ok(smallvec![ta.cloned()]),
            _ => bail!(Runtime, "internal error: {op:?} is not a elementwise operation"),
        };
        Ok(smallvec![Some(self.broadcast_to(&t, out.shape())?)])
    }

    /// `q` where the upstream gradient `g` is non-zero, else 0: the rule of TF's "safe"
    /// gradient kernels (SqrtGrad, RsqrtGrad, ReciprocalGrad), recorded for higher order.
    fn zero_where_upstream_is(&mut self, g: &Tensor, q: Tensor) -> R<Tensor> {
        let zero = self.scalar(g.dtype(), 0.0);
        let is_zero = Tensor::new(kernels::compare(Compare::Eq, &g.data, &zero.data)?);
        let zeros = Tensor::zeros(q.dtype(), q.shape());
        self.where_(&is_zero, &zeros, &q)
    }

    fn unary_vjp(&mut self, op: Unary, saved: Option<&Tensor>, g: &Tensor) -> R<Tensor> {
        let s = || saved.cloned().expect("saved tensor recorded for this op");
        match op {
            Unary::Neg => self.unary(Unary::Neg, g),
            // d|x| = sign(x) dx (0 at 0, as TF)
            Unary::Abs => {
                let sg = self.unary(Unary::Sign, &s())?;
                self.mul(g, &sg)
            }
            // d e^x = e^x dx (y saved)
            Unary::Exp => self.mul(g, &s()),
            // d log x = dx / x
            Unary::Log => self.binary(Binary::Div, g, &s()),
            // d log(1+x) = dx / (1+x)
            Unary::Log1p => {
                let one = self.scalar(g.dtype(), 1.0);
                let d = self.add(&s(), &one)?;
                self.binary(Binary::Div, g, &d)
            }
            // d √x = dx / (2 √x) (y saved; inf at 0, as TF). A zero upstream gives zero even
            // where √x is 0 or NaN (TF's SqrtGrad): `where(x > 0, sqrt(x), …)` stays finite.
            Unary::Sqrt => {
                let two_y = self.mul_scalar(&s(), 2.0)?;
                let q = self.binary(Binary::Div, g, &two_y)?;
                self.zero_where_upstream_is(g, q)
            }
            // d x² = 2x dx
            Unary::Square => {
                let t = self.mul_scalar(&s(), 2.0)?;
                self.mul(g, &t)
            }
            // d sin x = cos x dx
            Unary::Sin => {
                let c = self.unary(Unary::Cos, &s())?;
                self.mul(g, &c)
            }
            // d cos x = −sin x dx
            Unary::Cos => {
                let sn = self.unary(Unary::Sin, &s())?;
                let t = self.mul(g, &sn)?;
                self.unary(Unary::Neg, &t)
            }
            // d tan x = dx / cos² x
            Unary::Tan => {
                let c = self.unary(Unary::Cos, &s())?;
                let c2 = self.mul(&c, &c)?;
                self.binary(Binary::Div, g, &c2)
            }
            // d tanh x = (1 − y²) dx
            Unary::Tanh => {
                let y = s();
                let y2 = self.mul(&y, &y)?;
                let one = self.scalar(g.dtype(), 1.0);
                let d = self.binary(Binary::Sub, &one, &y2)?;
                self.mul(g, &d)
            }
            // d σ(x) = y (1 − y) dx
            Unary::Sigmoid => {
                let y = s();
                let one = self.scalar(g.dtype(), 1.0);
                let d = self.binary(Binary::Sub, &one, &y)?;
                let d = self.mul(&y, &d)?;
                self.mul(g, &d)
            }
            // d relu = [y > 0] dx (0 at 0, as TF). The step is recorded (its own gradient is
            // zero), so a second derivative through relu is zeros, not None: TF's ReluGrad is
            // an op of the output in the same way, and Hessians of ReLU networks are zeros there.
            Unary::Relu => {
                let step = self.unary(Unary::Step, &s())?;
                self.mul(g, &step)
            }
            // d softplus = σ(x) dx
            Unary::Softplus => {
                let sg = self.unary(Unary::Sigmoid, &s())?;
                self.mul(g, &sg)
            }
            // d (1/x) = −dx / x², zero for a zero upstream (TF's ReciprocalGrad).
            Unary::Reciprocal => {
                let x = s();
                let x2 = self.mul(&x, &x)?;
                let q = self.binary(Binary::Div, g, &x2)?;
                let q = self.unary(Unary::Neg, &q)?;
                self.zero_where_upstream_is(g, q)
            }
            // d x^(−1/2) = −½ y³ dx (y saved; −inf at 0, as TF), zero for a zero upstream
            // (TF's RsqrtGrad).
            Unary::Rsqrt => {
                let y = s();
                let y2 = self.mul(&y, &y)?;
                let y3 = self.mul(&y2, &y)?;
                let d = self.mul_scalar(&y3, -0.5)?;
                let q = self.mul(g, &d)?;
                self.zero_where_upstream_is(g, q)
            }
            // d erf x = 2/√π e^(−x²) dx; d erfc x = −2/√π e^(−x²) dx
            Unary::Erf | Unary::Erfc => {
                let x = s();
                let x2 = self.mul(&x, &x)?;
                let nx2 = self.unary(Unary::Neg, &x2)?;
                let e = self.unary(Unary::Exp, &nx2)?;
                let c = if op == Unary::Erf { 1.0 } else { -1.0 } * std::f64::consts::FRAC_2_SQRT_PI;
                let d = self.mul_scalar(&e, c)?;
                self.mul(g, &d)
            }
            // d (eˣ − 1) = eˣ dx
            Unary::Expm1 => {
                let e = self.unary(Unary::Exp, &s())?;
                self.mul(g, &e)
            }
            // The inverse trigonometric and hyperbolic functions: dx over a function of x².
            // asin: √(1 − x²), acos: the same, negated; atan: 1 + x²; atanh: 1 − x²;
            // asinh: √(1 + x²); acosh: √(x² − 1).
            Unary::Asin | Unary::Acos | Unary::Atan | Unary::Atanh | Unary::Asinh | Unary::Acosh => {
                let x = s();
                let x2 = self.mul(&x, &x)?;
                let one = self.scalar(g.dtype(), 1.0);
                let d = match op {
                    Unary::Atan | Unary::Asinh => self.add(&one, &x2)?,
                    Unary::Acosh => self.binary(Binary::Sub, &x2, &one)?,
                    _ => self.binary(Binary::Sub, &one, &x2)?,
                };
                let d = if matches!(op, Unary::Atan | Unary::Atanh) { d } else { self.unary(Unary::Sqrt, &d)? };
                let q = self.binary(Binary::Div, g, &d)?;
                if op == Unary::Acos {
                    self.unary(Unary::Neg, &q)
                } else {
                    Ok(q)
                }
            }
            // d sinh x = cosh x dx; d cosh x = sinh x dx
            Unary::Sinh => {
                let c = self.unary(Unary::Cosh, &s())?;
                self.mul(g, &c)
            }
            Unary::Cosh => {
                let sn = self.unary(Unary::Sinh, &s())?;
                self.mul(g, &sn)
            }
            // Floor, Ceil and Round are never recorded (no gradient); sign and the step are
            // piecewise constant.
            Unary::Sign | Unary::Step | Unary::Floor | Unary::Ceil | Unary::Round => Ok(self.constant_like(g, 0.0)),
        }
    }
}

impl Recorder {
    /// ∂(a^b)/∂a = b·a^(b−1), recorded (the VJP and the JVP of `Pow` share it).
    fn pow_d_base(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        let one = self.scalar(b.dtype(), 1.0);
        let bm1 = self.binary(Binary::Sub, b, &one)?;
        let p = self.binary(Binary::Pow, a, &bm1)?;
        self.mul(b, &p)
    }

    /// log(a) where a > 0 and 0 elsewhere (TF's convention for ∂(a^b)/∂b = a^b·log a),
    /// recorded, with the log taken of a safe value so no NaN reaches a second derivative.
    fn pow_log_base(&mut self, a: &Tensor) -> R<Tensor> {
        let zero = self.constant_like(a, 0.0);
        let pos = Tensor::new(kernels::compare(Compare::Gt, &a.data, &zero.data)?);
        let one = self.constant_like(a, 1.0);
        let safe = self.where_(&pos, a, &one)?;
        let la = self.unary(Unary::Log, &safe)?;
        self.where_(&pos, &la, &zero)
    }
}
