//! The Bessel functions of the first and second kinds, J₀, J₁, Y₀, Y₁, and the modified ones
//! of the second kind, K₀, K₁ and their scaled forms K₀(x)eˣ, K₁(x)eˣ, in float64, with
//! TensorFlow 2.21's values at the edges: J and Y are NaN at ±inf (TF evaluates their
//! oscillating asymptotic form there), Y is −inf at 0 and for every negative x, K is +inf at 0
//! and for every negative x and 0 at +inf; NaN gives NaN.
//!
//! J and Y come from `libm` (FreeBSD's rational approximations and Hankel's asymptotic form,
//! within a few ulps except in absolute terms near their zeros), and within 0.5 of each of
//! their zeros below 30 from their Taylor series about it, so that they keep a few ulps
//! there too (beyond 30 the error near a zero is an ulp or so of the envelope √(2/πx)).
//! K is computed here:
//! - x ≤ 0.25: the power series about 0 (A&S 9.6.13 for K₀ and 9.6.11 for K₁), arranged so that
//!   all its terms have one sign;
//! - 0.25 < x ≤ 30: the trapezoidal rule on K_ν(x)eˣ = ∫₀^∞ e^(−2x sinh²(t/2)) cosh(νt) dt, whose
//!   integrand is analytic and decays doubly exponentially, so a fixed step of 1/16 is exact
//!   to below an ulp;
//! - x > 30: Hankel's asymptotic series (A&S 9.7.2), stopped at its smallest term (below
//!   e^(−60) there).

use super::exact::{Sum, Term};

/// Euler's constant γ.
const EULER: f64 = 0.577_215_664_901_532_9;

/// J₀'s zeros below 30 as hi + lo, each with J₀' there (40-digit values).
const J0_ZEROS: [(f64, f64, f64); 9] = [
    (2.404825557695773, -1.176691651530894e-16, -0.5191474972894667),
    (5.520078110286311, 8.088597146146722e-17, 0.34026480655836816),
    (8.653727912911013, -2.92812607320779e-16, -0.27145229992838193),
    (11.791534439014281, 2.812956912778735e-16, 0.23245983136472478),
    (14.930917708487787, -7.070514505983074e-16, -0.20654643307799603),
    (18.071063967910924, -9.658048089426209e-16, 0.18772880304043943),
    (21.21163662987926, 4.947077428784068e-16, -0.17326589422922986),
    (24.352471530749302, 9.169067133951066e-16, 0.16170155068925002),
    (27.493479132040253, 1.6191941793302084e-15, -0.15218121377059454),
];
/// J₁'s positive zeros below 30, as J0_ZEROS.
const J1_ZEROS: [(f64, f64, f64); 9] = [
    (3.8317059702075125, -1.5269184090088067e-16, -0.402759395702553),
    (7.015586669815619, -9.414165653410389e-17, 0.30011575252613254),
    (10.173468135062722, 4.482162274768888e-16, -0.2497048770578432),
    (13.323691936314223, 2.600408064718813e-16, 0.21835940724787295),
    (16.470630050877634, -1.619019544798128e-15, -0.1964653714686572),
    (19.615858510468243, -1.004445634526616e-15, 0.18006337534431555),
    (22.760084380592772, -4.925749373614922e-16, -0.16718460047381806),
    (25.903672087618382, 4.894530726419825e-16, 0.15672498625285222),
    (29.046828534916855, -2.799892014010185e-16, -0.14801110997277755),
];
/// Y₀'s zeros below 30, as J0_ZEROS.
const Y0_ZEROS: [(f64, f64, f64); 10] = [
    (0.8935769662791675, 2.6596231539720385e-17, 0.8794208024971948),
    (3.957678419314858, -1.0764340697562706e-16, -0.40254267177502423),
    (7.086051060301773, -8.835285723085408e-17, 0.3000976149104752),
    (10.222345043496418, -7.967395050308809e-16, -0.2497012375146848),
    (13.361097473872764, -6.626109493712529e-16, 0.21835829659767134),
    (16.50092244152809, 1.0187464212445755e-15, -0.19646493789501676),
    (19.64130970088794, -1.3738085245174177e-15, 0.18006317633754418),
    (22.782028047291558, 1.5905927758681248e-15, -0.16718449805101074),
    (25.922957653180923, -2.254067267232836e-16, 0.15672492885024078),
    (29.064030252728397, 9.25191637912007e-16, -0.14801107561113566),
];
/// Y₁'s zeros below 30, as J0_ZEROS.
const Y1_ZEROS: [(f64, f64, f64); 9] = [
    (2.197141326031017, -4.8259835876454966e-17, 0.5207864124022675),
    (5.429681040794135, 4.162514026670377e-16, -0.3403180455234406),
    (8.596005868331169, 2.8415838340063664e-16, 0.27145987731153354),
    (11.749154830839881, 2.9466381668409186e-17, -0.23246176601703875),
    (14.897442128336726, -6.072148995506809e-16, 0.2065471103565926),
    (18.043402276727857, -1.4499889213148965e-15, -0.1877290919149097),
    (21.188068934142212, 1.0863038864317323e-15, 0.17326603526911988),
    (24.33194257135691, 2.940063934282991e-16, -0.1617016266586241),
    (27.475294980449224, -4.0165306757179716e-16, 0.1521812578603752),
];

/// The Bessel function of order ν (0 or 1) whose zeros `table` lists, by its Taylor series
/// about the zero nearest x when x is within 0.5 of one (0.3 of Y₀'s first), else None. Its
/// coefficients follow from Bessel's equation x²y'' + xy' + (x² − ν²)y = 0 about the zero z:
/// z²(n+2)(n+1)cₙ₊₂ = −[z(n+1)(2n+1)cₙ₊₁ + (n² + z² − ν²)cₙ + 2z cₙ₋₁ + cₙ₋₂], c₀ = 0.
fn near_zero(x: f64, nu: f64, table: &[(f64, f64, f64)]) -> Option<f64> {
    let &(hi, lo, slope) = table.iter().find(|(hi, _, _)| (x - hi).abs() <= if *hi < 1.0 { 0.3 } else { 0.5 })?;
    // x − hi is exact (Sterbenz), so t is x − z to within an ulp of lo.
    let t = (x - hi) - lo;
    let (z, z2) = (hi, hi * hi);
    let c2 = -slope / (2.0 * z);
    let (mut sum, mut power) = (Sum::new(slope * t), t * t);
    sum.add(c2 * power);
    // (cₙ₋₂, cₙ₋₁, cₙ, cₙ₊₁) → cₙ₊₂ for n = 1, 2, …
    let (mut cm2, mut cm1, mut cn, mut cn1) = (0.0, 0.0, slope, c2);
    for n in 1..80 {
        let nf = n as f64;
        let next = -(z * (nf + 1.0) * (2.0 * nf + 1.0) * cn1 + (nf * nf + z2 - nu * nu) * cn + 2.0 * z * cm1 + cm2)
            / (z2 * (nf + 2.0) * (nf + 1.0));
        power *= t;
        let term = next * power;
        sum.add(term);
        (cm2, cm1, cn, cn1) = (cm1, cn, cn1, next);
        if term.abs() < 1e-18 * sum.value().abs() {
            break;
        }
    }
    Some(sum.value())
}

/// J₀(x) (TF: NaN at ±inf).
pub fn j0(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    near_zero(x.abs(), 0.0, &J0_ZEROS).unwrap_or_else(|| libm::j0(x))
}

/// J₁(x), odd (TF: NaN at ±inf).
pub fn j1(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::NAN;
    }
    match near_zero(x.abs(), 1.0, &J1_ZEROS) {
        Some(v) if x < 0.0 => -v,
        Some(v) => v,
        None => libm::j1(x),
    }
}

/// Y₀(x) (TF: −inf for x ≤ 0, NaN at +inf).
pub fn y0(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return f64::NAN;
    }
    if x <= 0.0 {
        return f64::NEG_INFINITY;
    }
    near_zero(x, 0.0, &Y0_ZEROS).unwrap_or_else(|| libm::y0(x))
}

/// Y₁(x) (TF: −inf for x ≤ 0, NaN at +inf).
pub fn y1(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return f64::NAN;
    }
    if x <= 0.0 {
        return f64::NEG_INFINITY;
    }
    near_zero(x, 1.0, &Y1_ZEROS).unwrap_or_else(|| libm::y1(x))
}

/// Where the series about 0 gives way to the quadrature.
const SERIES_MAX: f64 = 0.25;
/// Where the quadrature gives way to the asymptotic series.
const ASYMPTOTIC_MIN: f64 = 30.0;
/// The quadrature's step (a power of 2, so that every node j·STEP is exact).
const STEP: f64 = 0.0625;

/// K₀(x) for 0 < x ≤ SERIES_MAX: −(ln(x/2) + γ) I₀(x) + Σₖ Hₖ (x²/4)ᵏ/(k!)², Hₖ the harmonic
/// numbers; both parts are positive there.
fn k0_series(x: f64) -> f64 {
    let y = 0.25 * x * x;
    let lead = -((0.5 * x).ln() + EULER);
    let (mut term, mut i0, mut h, mut rest) = (1.0_f64, 1.0_f64, 0.0_f64, 0.0_f64);
    for k in 1..60 {
        let k = k as f64;
        term *= y / (k * k);
        h += 1.0 / k;
        i0 += term;
        rest += term * h;
        if term < 1e-18 * i0 {
            break;
        }
    }
    lead * i0 + rest
}

/// K₁(x) for 0 < x ≤ SERIES_MAX: 1/x + (x/2) Σₖ tₖ (ln(x/2) + γ − (Hₖ + Hₖ₊₁)/2) with
/// tₖ = (x²/4)ᵏ/(k!(k+1)!); every term of the sum is negative there.
fn k1_series(x: f64) -> f64 {
    let y = 0.25 * x * x;
    let lead = (0.5 * x).ln() + EULER;
    let (mut term, mut h) = (1.0_f64, 0.0_f64);
    // k = 0: H₀ = 0, H₁ = 1.
    let mut sum = lead - 0.5;
    for k in 1..60 {
        let k = k as f64;
        term *= y / (k * (k + 1.0));
        h += 1.0 / k;
        let t = term * (lead - (2.0 * h + 1.0 / (k + 1.0)) * 0.5);
        sum += t;
        if t.abs() < 1e-18 * sum.abs() {
            break;
        }
    }
    1.0 / x + 0.5 * x * sum
}

/// K_ν(x)eˣ for SERIES_MAX < x ≤ ASYMPTOTIC_MIN, ν = 0 or 1, by the trapezoidal rule.
fn scaled_quadrature(nu: u32, x: f64) -> f64 {
    let mut sum = Sum::new(0.5);
    for j in 1..2000 {
        let t = j as f64 * STEP;
        let s = (0.5 * t).sinh();
        let f = (-2.0 * x * s * s).exp() * if nu == 0 { 1.0 } else { t.cosh() };
        sum.add(f);
        if f < 1e-18 * sum.value() {
            break;
        }
    }
    sum.value() * STEP
}

/// K_ν(x)eˣ for x > ASYMPTOTIC_MIN: √(π/2x) Σₖ aₖ(ν)/xᵏ with
/// aₖ(ν) = (4ν² − 1)(4ν² − 9)…(4ν² − (2k−1)²)/(k! 8ᵏ).
fn scaled_asymptotic(nu: u32, x: f64) -> f64 {
    let mu = 4.0 * (nu * nu) as f64;
    let (mut term, mut sum) = (Term::new(1.0), Sum::new(1.0));
    for k in 1..200 {
        let odd = (2 * k - 1) as f64;
        let before = term.value();
        term.mul_div(mu - odd * odd, k as f64 * 8.0 * x);
        if term.value().abs() >= before.abs() {
            break;
        }
        sum.add(term.value());
        if term.value().abs() < 1e-18 * sum.value().abs() {
            break;
        }
    }
    sum.value() * (std::f64::consts::FRAC_PI_2 / x).sqrt()
}

/// K_ν(x)eˣ for x > SERIES_MAX finite.
fn scaled(nu: u32, x: f64) -> f64 {
    if x <= ASYMPTOTIC_MIN {
        scaled_quadrature(nu, x)
    } else {
        scaled_asymptotic(nu, x)
    }
}

/// TF's K at the edges: +inf for x ≤ 0, `at_inf` at +inf, NaN for NaN; None elsewhere.
fn k_edge(x: f64) -> Option<f64> {
    if x.is_nan() {
        Some(x)
    } else if x <= 0.0 {
        Some(f64::INFINITY)
    } else if x == f64::INFINITY {
        Some(0.0)
    } else {
        None
    }
}

/// Kᵥ(x) for ν = 0 or 1, times eˣ when `times_exp` (the scaled forms): the series up to
/// `SERIES_MAX`, the scaled quadrature or asymptotic series beyond.
fn k(nu: u32, x: f64, times_exp: bool) -> f64 {
    if let Some(v) = k_edge(x) {
        return v;
    }
    if x <= SERIES_MAX {
        let v = if nu == 0 { k0_series(x) } else { k1_series(x) };
        if times_exp {
            v * x.exp()
        } else {
            v
        }
    } else {
        let v = scaled(nu, x);
        if times_exp {
            v
        } else {
            v * (-x).exp()
        }
    }
}

/// K₀(x).
pub fn k0(x: f64) -> f64 {
    k(0, x, false)
}

/// K₀(x)eˣ.
pub fn k0e(x: f64) -> f64 {
    k(0, x, true)
}

/// K₁(x).
pub fn k1(x: f64) -> f64 {
    k(1, x, false)
}

/// K₁(x)eˣ.
pub fn k1e(x: f64) -> f64 {
    k(1, x, true)
}

#[cfg(test)]
#[test]
fn the_series_and_the_quadrature_agree_where_they_meet() {
    use super::bessel;
    // Both sides of SERIES_MAX, and the identity K₁ = −K₀' against I: I₀K₁ + I₁K₀ = 1/x.
    for x in [0.3, 0.5, 0.7, 2.0, 10.0, 29.0, 31.0] {
        let w = bessel::i0(x) * k1(x) + bessel::i1(x) * k0(x);
        assert!((w * x - 1.0).abs() < 8.0 * f64::EPSILON, "{x}: {w}");
    }
}
