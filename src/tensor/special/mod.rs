//! TF's elementwise special functions (`tf.math.lgamma`, `igamma`, `betainc`, `bessel_i0`, …)
//! over arrays: each evaluated in float64 and rounded once to its input's dtype (float16,
//! float32 or float64; the dtypes TF 2.21 registers for it). The scalar functions are in
//! [`gamma`], [`erf_inv`], [`bessel`], [`bessel_jyk`] and [`integrals`]. docs/language.md §4.

pub mod bessel;
pub mod bessel_jyk;
pub mod erf_inv;
mod exact;
pub mod gamma;
pub mod integrals;

use super::error::{tensor_bail, TensorResult as R};
use super::shape::broadcast_shapes;
use super::{Array, DType};
use ndarray::{ArrayD, IxDyn, Zip};

/// An elementwise special function of one, two or three tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// ln|Γ(x)|.
    Lgamma,
    /// ψ(x) = Γ'(x)/Γ(x).
    Digamma,
    /// erf⁻¹(x).
    Erfinv,
    /// erfc⁻¹(x).
    Erfcinv,
    /// Φ⁻¹(p), the standard normal quantile.
    Ndtri,
    BesselI0,
    BesselI0e,
    BesselI1,
    BesselI1e,
    BesselJ0,
    BesselJ1,
    BesselY0,
    BesselY1,
    BesselK0,
    /// K₀(x)eˣ.
    BesselK0e,
    BesselK1,
    /// K₁(x)eˣ.
    BesselK1e,
    /// Dawson's integral.
    Dawsn,
    /// The exponential integral Ei(x).
    Expint,
    FresnelCos,
    FresnelSin,
    /// Spence's function, Li₂(1 − x).
    Spence,
    /// Round half to even (no gradient).
    Rint,
    /// 1/x, and 0 where x is 0.
    ReciprocalNoNan,
    /// atan2(y, x), in (−π, π].
    Atan2,
    /// ψ⁽ⁿ⁾(x), of (n, x).
    Polygamma,
    /// P(a, x), of (a, x).
    Igamma,
    /// Q(a, x) = 1 − P(a, x).
    Igammac,
    /// ∂P(a, x)/∂a (no gradient of its own, as TF's IgammaGradA).
    IgammaGradA,
    /// The Hurwitz zeta function ζ(x, q).
    Zeta,
    /// The next representable value after x1 towards x2, in the dtype (no gradient to x2).
    NextAfter,
    /// x·y, and 0 where y is 0 (whatever x is).
    MulNoNan,
    /// I_x(a, b), of (a, b, x).
    Betainc,
}

impl Special {
    /// TF's name of the function (`tf.math.NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Special::Lgamma => "lgamma",
            Special::Digamma => "digamma",
            Special::Erfinv => "erfinv",
            Special::Erfcinv => "erfcinv",
            Special::Ndtri => "ndtri",
            Special::BesselI0 => "bessel_i0",
            Special::BesselI0e => "bessel_i0e",
            Special::BesselI1 => "bessel_i1",
            Special::BesselI1e => "bessel_i1e",
            Special::BesselJ0 => "bessel_j0",
            Special::BesselJ1 => "bessel_j1",
            Special::BesselY0 => "bessel_y0",
            Special::BesselY1 => "bessel_y1",
            Special::BesselK0 => "bessel_k0",
            Special::BesselK0e => "bessel_k0e",
            Special::BesselK1 => "bessel_k1",
            Special::BesselK1e => "bessel_k1e",
            Special::Dawsn => "dawsn",
            Special::Expint => "expint",
            Special::FresnelCos => "fresnel_cos",
            Special::FresnelSin => "fresnel_sin",
            Special::Spence => "spence",
            Special::Rint => "rint",
            Special::ReciprocalNoNan => "reciprocal_no_nan",
            Special::Atan2 => "atan2",
            Special::Polygamma => "polygamma",
            Special::Igamma => "igamma",
            Special::Igammac => "igammac",
            Special::IgammaGradA => "igamma_grad_a",
            Special::Zeta => "zeta",
            Special::NextAfter => "nextafter",
            Special::MulNoNan => "multiply_no_nan",
            Special::Betainc => "betainc",
        }
    }

    /// How many tensors it takes.
    pub fn arity(self) -> usize {
        match self {
            Special::Atan2
            | Special::Polygamma
            | Special::Igamma
            | Special::Igammac
            | Special::IgammaGradA
            | Special::Zeta
            | Special::NextAfter
            | Special::MulNoNan => 2,
            Special::Betainc => 3,
            _ => 1,
        }
    }

    /// Whether TF 2.21 has a float16 kernel for it (the others raise there, and so does DGL).
    fn takes_float16(self) -> bool {
        matches!(
            self,
            Special::Lgamma
                | Special::Digamma
                | Special::BesselI0
                | Special::BesselI0e
                | Special::BesselI1
                | Special::BesselI1e
                | Special::BesselJ0
                | Special::BesselJ1
                | Special::BesselY0
                | Special::BesselY1
                | Special::BesselK0
                | Special::BesselK0e
                | Special::BesselK1
                | Special::BesselK1e
                | Special::ReciprocalNoNan
                | Special::Atan2
                | Special::MulNoNan
        )
    }

    /// The function at one point (`single`: the dtype is float32, which `nextafter` steps in).
    fn eval(self, v: &[f64], single: bool) -> f64 {
        let x = v[0];
        match self {
            Special::Lgamma => gamma::lgamma(x),
            Special::Digamma => gamma::digamma(x),
            Special::Erfinv => erf_inv::erfinv(x),
            Special::Erfcinv => erf_inv::erfcinv(x),
            Special::Ndtri => erf_inv::ndtri(x),
            Special::BesselI0 => bessel::i0(x),
            Special::BesselI0e => bessel::i0e(x),
            Special::BesselI1 => bessel::i1(x),
            Special::BesselI1e => bessel::i1e(x),
            Special::BesselJ0 => bessel_jyk::j0(x),
            Special::BesselJ1 => bessel_jyk::j1(x),
            Special::BesselY0 => bessel_jyk::y0(x),
            Special::BesselY1 => bessel_jyk::y1(x),
            Special::BesselK0 => bessel_jyk::k0(x),
            Special::BesselK0e => bessel_jyk::k0e(x),
            Special::BesselK1 => bessel_jyk::k1(x),
            Special::BesselK1e => bessel_jyk::k1e(x),
            Special::Dawsn => integrals::dawsn(x),
            Special::Expint => integrals::expint(x),
            Special::FresnelCos => integrals::fresnel_cos(x),
            Special::FresnelSin => integrals::fresnel_sin(x),
            Special::Spence => integrals::spence(x),
            Special::Rint => x.round_ties_even(),
            Special::ReciprocalNoNan => {
                if x == 0.0 {
                    0.0
                } else {
                    1.0 / x
                }
            }
            Special::Atan2 => x.atan2(v[1]),
            Special::Polygamma => gamma::polygamma(x, v[1]),
            Special::Igamma => gamma::igamma(x, v[1]),
            Special::Igammac => gamma::igammac(x, v[1]),
            Special::IgammaGradA => gamma::igamma_grad_a(x, v[1]),
            Special::Zeta => gamma::zeta(x, v[1]),
            Special::NextAfter if single => libm::nextafterf(x as f32, v[1] as f32) as f64,
            Special::NextAfter => libm::nextafter(x, v[1]),
            // A float32 or float16 product is exact in float64, so rounding it once is the
            // dtype's own product.
            Special::MulNoNan => {
                if v[1] == 0.0 {
                    0.0
                } else {
                    x * v[1]
                }
            }
            Special::Betainc => gamma::betainc(x, v[1], v[2]),
        }
    }
}

/// `f` of `args` elementwise (broadcasting two; `betainc`'s three must each be a scalar or of
/// the one shape of the others, as TF requires), in float64, rounded once to their dtype.
///
/// Errors: TypeError unless every argument has the same float dtype that TF's kernel takes;
/// ShapeError when the shapes do not broadcast (or, for betainc, differ).
pub fn special(f: Special, args: &[&Array]) -> R<Array> {
    let dtype = args[0].dtype();
    for a in args {
        if a.dtype() != dtype {
            tensor_bail!(Type, "{}: cannot mix {} and {} tensors", f.name(), dtype, a.dtype());
        }
    }
    let allowed = matches!(dtype, DType::F32 | DType::F64) || (dtype == DType::F16 && f.takes_float16());
    if !allowed {
        let dtypes = if f.takes_float16() { "float16, float32 or float64" } else { "float32 or float64" };
        tensor_bail!(Type, "{} needs {dtypes} tensors, got {dtype}", f.name());
    }
    let mut shape = args[0].shape().to_vec();
    for a in &args[1..] {
        if f == Special::Betainc {
            if a.ndim() > 0 && shape.is_empty() {
                shape = a.shape().to_vec();
            } else if a.ndim() > 0 && a.shape() != shape.as_slice() {
                tensor_bail!(
                    Shape,
                    "betainc: the shapes of a, b and x must be equal or scalars, got {} and {}",
                    super::shape_str(&shape),
                    super::shape_str(a.shape())
                );
            }
        } else {
            shape = broadcast_shapes(&shape, a.shape())?;
        }
    }
    let n: usize = shape.iter().product();
    super::budget::check_elements(n, 8)?;
    let wide: Vec<ArrayD<f64>> = args
        .iter()
        .map(|a| match a.cast(DType::F64) {
            Array::F64(v) => v,
            _ => unreachable!("cast to float64 gives float64"),
        })
        .collect();
    let view = |i: usize| wide[i].broadcast(IxDyn(&shape)).expect("shapes checked above");
    let single = dtype == DType::F32;
    let out: ArrayD<f64> = match args.len() {
        1 => wide[0].mapv(|x| f.eval(&[x], single)),
        2 => Zip::from(&view(0)).and(&view(1)).map_collect(|&x, &y| f.eval(&[x, y], single)),
        _ => Zip::from(&view(0)).and(&view(1)).and(&view(2)).map_collect(|&x, &y, &z| f.eval(&[x, y, z], single)),
    };
    Ok(Array::F64(out).cast(dtype))
}

#[cfg(test)]
mod accuracy;
#[cfg(test)]
mod tests;
