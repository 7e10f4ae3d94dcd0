//! The inverses of erf, erfc and the normal CDF in float64: Winitzki's closed-form estimate,
//! then Halley's method on libm's erf or erfc (whichever keeps the residual relative), so
//! the result is within an ulp or two of the exact inverse. TF 2.21's edges: ±inf at the
//! ends of the domain, NaN outside it.

use std::f64::consts::PI;

/// √π / 2, the scale of erf⁻¹ near 0.
const HALF_SQRT_PI: f64 = 0.886_226_925_452_758;
/// Winitzki's constant in his estimate of erf⁻¹.
const WINITZKI: f64 = 0.147;

/// Winitzki's estimate of erf⁻¹ from w = −ln(1 − x²) (relative error below 2e−3).
fn estimate(w: f64) -> f64 {
    let t = 2.0 / (PI * WINITZKI) - 0.5 * w;
    ((t * t + w / WINITZKI).sqrt() - t).sqrt()
}

/// erf⁻¹(x) for 0 ≤ x ≤ ½: Halley's method on erf(y) − x.
fn erfinv_small(x: f64) -> f64 {
    if x < 1.0e-8 {
        // erf⁻¹(x) = √π/2 (x + π x³/12 + …): the cubic term is below an ulp here.
        return HALF_SQRT_PI * x;
    }
    let mut y = estimate(-(-x * x).ln_1p());
    for _ in 0..8 {
        // u = f/f' with f' = 2/√π e^(−y²); Halley's step is u / (1 + y u) (f''/f' = −2y).
        let u = (libm::erf(y) - x) * HALF_SQRT_PI * (y * y).exp();
        let step = u / (1.0 + y * u);
        y -= step;
        if step.abs() <= 1.0e-16 * y.abs() {
            break;
        }
    }
    y
}

/// The z ≥ 0 with erfc(z) = q, for 0 < q ≤ 1. Near q = 1 (z small) it is erf⁻¹(1 − q), 1 − q
/// exact there; below ½, Halley's method on erfc(z) − q keeps the residual relative to q.
fn erfc_inv_core(q: f64) -> f64 {
    if q >= 0.5 {
        return erfinv_small(1.0 - q);
    }
    let mut z = estimate(-(q * (2.0 - q)).ln());
    for _ in 0..10 {
        // e^(z²) in two halves: it overflows for z > 26.6 while the product stays finite.
        let h = (0.5 * z * z).exp();
        let u = -((libm::erfc(z) - q) * h) * h * HALF_SQRT_PI;
        let step = u / (1.0 + z * u);
        z -= step;
        if step.abs() <= 1.0e-16 * z.abs() {
            break;
        }
    }
    z
}

/// erf⁻¹(x): NaN outside [−1, 1], ±inf at ±1, 0 at ±0 (TF's sign at −0).
pub fn erfinv(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    if x.abs() == 1.0 {
        return x * f64::INFINITY;
    }
    if x == 0.0 {
        return 0.0;
    }
    let y = if x.abs() <= 0.5 { erfinv_small(x.abs()) } else { erfc_inv_core(1.0 - x.abs()) };
    y.copysign(x)
}

/// erfc⁻¹(q): NaN outside [0, 2], +inf at 0, −inf at 2, −0 at 1 (TF computes it as
/// −ndtri(q/2)/√2).
pub fn erfcinv(q: f64) -> f64 {
    if q.is_nan() || !(0.0..=2.0).contains(&q) {
        return f64::NAN;
    }
    if q == 0.0 {
        return f64::INFINITY;
    }
    if q == 2.0 {
        return f64::NEG_INFINITY;
    }
    if q == 1.0 {
        return -0.0;
    }
    if q < 1.0 {
        erfc_inv_core(q)
    } else {
        -erfc_inv_core(2.0 - q)
    }
}

/// Φ⁻¹(p), the quantile of the standard normal distribution: −√2 erfc⁻¹(2p) below ½, its
/// mirror above (2(1 − p) is exact there). NaN outside [0, 1], ∓inf at 0 and 1.
pub fn ndtri(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p == 0.5 {
        return 0.0;
    }
    if p < 0.5 {
        -std::f64::consts::SQRT_2 * erfc_inv_core(2.0 * p)
    } else {
        std::f64::consts::SQRT_2 * erfc_inv_core(2.0 * (1.0 - p))
    }
}
