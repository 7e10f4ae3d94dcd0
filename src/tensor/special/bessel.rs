//! The modified Bessel functions of the first kind, I₀ and I₁, and their exponentially scaled
//! forms I₀(x)e^(−|x|), I₁(x)e^(−|x|), in float64: the power series up to |x| = 30 (all its
//! terms positive, so no cancellation), Hankel's asymptotic series beyond (its smallest term
//! there is below e^(−60)). At ±inf TF 2.21 gives NaN for I₀ and I₁ (it multiplies e^|x| by
//! the scaled value, 0) and ±0 for the scaled forms; this follows it.

/// Where the power series gives way to the asymptotic series.
const SWITCH: f64 = 30.0;

/// Σₖ (x²/4)ᵏ / (k! (k+ν)!) · (x/2)^ν for ν = 0 or 1, x ≥ 0 finite.
fn series(nu: u32, x: f64) -> f64 {
    let y = 0.25 * x * x;
    let mut term = if nu == 0 { 1.0 } else { 0.5 * x };
    let mut sum = term;
    for k in 1..1000 {
        let k = k as f64;
        term *= y / (k * (k + nu as f64));
        sum += term;
        if term <= 1.0e-17 * sum {
            break;
        }
    }
    sum
}

/// I_ν(x) e^(−x) for x ≥ SWITCH: (2πx)^(−½) Σₖ (−1)ᵏ aₖ(ν) / xᵏ with
/// aₖ(ν) = (4ν² − 1)(4ν² − 9)…(4ν² − (2k−1)²) / (k! 8ᵏ), stopped at its smallest term.
fn asymptotic(nu: u32, x: f64) -> f64 {
    let mu = 4.0 * (nu * nu) as f64;
    let (mut term, mut sum) = (1.0_f64, 1.0_f64);
    for k in 1..200 {
        let odd = (2 * k - 1) as f64;
        let next = -term * (mu - odd * odd) / (k as f64 * 8.0 * x);
        if next.abs() >= term.abs() {
            break;
        }
        if next.abs() < 1.0e-17 * sum.abs() {
            sum += next;
            break;
        }
        term = next;
        sum += term;
    }
    sum / (2.0 * std::f64::consts::PI * x).sqrt()
}

/// I_ν(|x|) e^(−|x|) for ν = 0 or 1.
fn scaled(nu: u32, ax: f64) -> f64 {
    if ax <= SWITCH {
        series(nu, ax) * (-ax).exp()
    } else {
        asymptotic(nu, ax)
    }
}

/// I₀(x), even.
pub fn i0(x: f64) -> f64 {
    let ax = x.abs();
    if ax <= SWITCH {
        series(0, ax)
    } else {
        ax.exp() * scaled(0, ax)
    }
}

/// I₀(x) e^(−|x|).
pub fn i0e(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    scaled(0, x.abs())
}

/// I₁(x), odd (+0 at ±0, as TF).
pub fn i1(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let ax = x.abs();
    let v = if ax <= SWITCH { series(1, ax) } else { ax.exp() * scaled(1, ax) };
    v.copysign(x)
}

/// I₁(x) e^(−|x|), odd (+0 at ±0, as TF).
pub fn i1e(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    if x.is_nan() {
        return x;
    }
    scaled(1, x.abs()).copysign(x)
}
