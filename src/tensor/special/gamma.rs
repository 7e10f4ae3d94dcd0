//! The gamma family in float64: digamma, the Hurwitz zeta function, polygamma, the regularized
//! incomplete gamma functions (and the lower one's derivative in `a`) and the regularized
//! incomplete beta function. `lgamma` is libm's. Each follows TF 2.21 at the edges of its
//! domain (NaN, ±inf, poles), which the comments state; docs/language.md §4.

use std::f64::consts::PI;

/// The relative size of a term below which a sum or a continued fraction has converged.
const EPS: f64 = 1.0e-16;
/// Iterations after which a series or continued fraction stops (never reached in the domains
/// TF's tests cover; a bound so no input loops forever).
const MAX_ITER: usize = 20_000;

/// ln|Γ(x)| (libm): +inf at the poles (0, −1, −2, …) and at ±inf.
pub fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// tan(πx) with the argument reduced first, exact at the half-integers' neighbourhoods.
fn tan_pi(x: f64) -> f64 {
    let r = x - x.round();
    (PI * r).tan()
}

/// ψ(x) = d/dx ln Γ(x). NaN at the poles (0, −1, …), at −inf and NaN; +inf at +inf.
/// Negative x by the reflection ψ(x) = ψ(1 − x) − π / tan(πx); positive x shifted up to
/// x ≥ 10 by ψ(x) = ψ(x + 1) − 1/x, then the asymptotic series
/// ψ(x) ≈ ln x − 1/(2x) − Σ B₂ₖ / (2k x²ᵏ).
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return x;
    }
    if x <= 0.0 {
        if x == x.floor() {
            return f64::NAN;
        }
        return digamma(1.0 - x) - PI / tan_pi(x);
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    // B₂ₖ / (2k) for k = 1..8.
    const C: [f64; 8] = [
        1.0 / 12.0,
        -1.0 / 120.0,
        1.0 / 252.0,
        -1.0 / 240.0,
        1.0 / 132.0,
        -691.0 / 32760.0,
        1.0 / 12.0,
        -3617.0 / 8160.0,
    ];
    let z = 1.0 / (x * x);
    let tail = C.iter().rev().fold(0.0, |s, &c| s * z + c) * z;
    acc + x.ln() - 0.5 / x - tail
}

/// The Bernoulli numbers B₂, B₄, …, B₂₄.
const BERNOULLI: [f64; 12] = [
    1.0 / 6.0,
    -1.0 / 30.0,
    1.0 / 42.0,
    -1.0 / 30.0,
    5.0 / 66.0,
    -691.0 / 2730.0,
    7.0 / 6.0,
    -3617.0 / 510.0,
    43867.0 / 798.0,
    -174611.0 / 330.0,
    854513.0 / 138.0,
    -236364091.0 / 2730.0,
];

/// The Hurwitz zeta function ζ(x, q) = Σₖ (q + k)^(−x), for x > 1.
/// TF's edges: +inf at x = 1 (whatever q is); NaN for x < 1; at a pole of q (an integer ≤ 0,
/// or −inf) +inf for an even or infinite x and NaN otherwise (the sign depends on the side);
/// NaN for q < 0 with a non-integer x (q^(−x) is not real); 0 at q = +inf; at x = +inf, +inf,
/// 1 or 0 as q is below, at or above 1. The first terms are summed until q + k > 9 (and at
/// least ten of them), the rest by the Euler–Maclaurin formula
/// ∫ + ½ f(w) − Σ B₂ⱼ/(2j)! f^(2j−1)(w).
pub fn zeta(x: f64, q: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    if x.is_nan() || q.is_nan() || x < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 {
        if q == q.floor() {
            return if x.is_infinite() || x % 2.0 == 0.0 { f64::INFINITY } else { f64::NAN };
        }
        if x != x.floor() {
            return f64::NAN;
        }
    }
    if q == f64::INFINITY {
        return 0.0;
    }
    if x == f64::INFINITY {
        return if q < 1.0 {
            f64::INFINITY
        } else if q == 1.0 {
            1.0
        } else {
            0.0
        };
    }
    let mut s = q.powf(-x);
    let (mut w, mut k) = (q, 0);
    let mut term = 0.0;
    while k < 9 || w <= 9.0 {
        k += 1;
        w += 1.0;
        term = w.powf(-x);
        s += term;
        if (term / s).abs() < EPS {
            return s;
        }
    }
    // Here term = w^(−x): the integral w^(1−x)/(x − 1), minus the half of the last summed term.
    s += term * w / (x - 1.0);
    s -= 0.5 * term;
    // B₂ⱼ/(2j)! · x(x+1)…(x+2j−2) · w^(−x−2j+1), j = 1, 2, …
    let (mut rising, mut fact, mut pw) = (1.0, 1.0, term);
    for (j, b) in BERNOULLI.iter().enumerate() {
        let m = 2 * j as i32;
        rising *= x + m as f64;
        fact *= ((m + 1) * (m + 2)) as f64;
        pw /= w;
        let t = b / fact * rising * pw;
        s += t;
        if (t / s).abs() < EPS {
            return s;
        }
        rising *= x + (m + 1) as f64;
        pw /= w;
    }
    s
}

/// ψ⁽ⁿ⁾(x) = (−1)ⁿ⁺¹ n! ζ(n + 1, x) for an integer n ≥ 1, digamma for n = 0; NaN for a
/// negative or non-integer n (TF's domain).
pub fn polygamma(n: f64, x: f64) -> f64 {
    if n.is_nan() || x.is_nan() || n < 0.0 || n != n.floor() {
        return f64::NAN;
    }
    if n == 0.0 {
        return digamma(x);
    }
    let sign = if n % 2.0 == 0.0 { -1.0 } else { 1.0 };
    sign * lgamma(n + 1.0).exp() * zeta(n + 1.0, x)
}

/// A number with its derivative in one variable (forward mode), for `igamma_grad_a`.
#[derive(Clone, Copy)]
struct Dual {
    v: f64,
    d: f64,
}

impl Dual {
    fn c(v: f64) -> Dual {
        Dual { v, d: 0.0 }
    }
    fn add(self, o: Dual) -> Dual {
        Dual { v: self.v + o.v, d: self.d + o.d }
    }
    fn mul(self, o: Dual) -> Dual {
        Dual { v: self.v * o.v, d: self.d * o.v + self.v * o.d }
    }
    fn div(self, o: Dual) -> Dual {
        let v = self.v / o.v;
        Dual { v, d: (self.d - v * o.d) / o.v }
    }
}

/// What the incomplete gamma functions compute: P, Q, or dP/da.
#[derive(Clone, Copy, PartialEq)]
enum Gamma {
    Lower,
    Upper,
    LowerGradA,
}

/// The shared edge rules and the choice between the series (P) and the continued fraction (Q).
fn incomplete_gamma(a: f64, x: f64, want: Gamma) -> f64 {
    // TF checks x = 0 first for P and its derivative: 0 there whatever a is.
    if x == 0.0 && want != Gamma::Upper {
        return 0.0;
    }
    if a.is_nan() || x.is_nan() || x < 0.0 || a <= 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return 1.0;
    }
    if a.is_infinite() {
        // P is 0 (and so its derivative); Q is 1, or 0 at x = +inf too (TF's).
        return if want == Gamma::Upper && x.is_finite() { 1.0 } else { 0.0 };
    }
    if x.is_infinite() {
        return if want == Gamma::Lower { 1.0 } else { 0.0 };
    }
    let use_series = x <= 1.0 || x <= a;
    // ln(x^a e^−x / Γ(a)) and its derivative in a.
    let lp = a * x.ln() - x - lgamma(a);
    let dlp = x.ln() - digamma(a);
    // Below e^(−709.78) the prefactor underflows: TF returns the limit (P or Q is 0) there.
    if lp < -709.78 {
        return match (want, use_series) {
            (Gamma::Upper, true) => 1.0,
            (Gamma::Lower, false) => 1.0,
            _ => 0.0,
        };
    }
    let pre = lp.exp();
    match (want, use_series) {
        (Gamma::Lower, true) => lower_series(a, x).v * pre,
        (Gamma::Lower, false) => 1.0 - upper_fraction(a, x).v * pre,
        (Gamma::Upper, true) => 1.0 - lower_series(a, x).v * pre,
        (Gamma::Upper, false) => upper_fraction(a, x).v * pre,
        (Gamma::LowerGradA, true) => {
            let s = lower_series(a, x);
            pre * (s.d + s.v * dlp)
        }
        (Gamma::LowerGradA, false) => {
            let h = upper_fraction(a, x);
            -pre * (h.d + h.v * dlp)
        }
    }
}

/// Σₖ xᵏ / (a (a+1) … (a+k)), with its derivative in a: P(a, x) is this times x^a e^−x / Γ(a).
fn lower_series(a: f64, x: f64) -> Dual {
    let mut r = Dual { v: a, d: 1.0 };
    let mut term = Dual::c(1.0).div(r);
    let mut sum = term;
    for _ in 0..MAX_ITER {
        r = r.add(Dual::c(1.0));
        term = term.mul(Dual::c(x)).div(r);
        sum = sum.add(term);
        if term.v.abs() <= EPS * sum.v.abs() && term.d.abs() <= EPS * sum.d.abs() {
            break;
        }
    }
    sum
}

/// The continued fraction 1/(x+1−a− 1(1−a)/(x+3−a− 2(2−a)/(x+5−a− …))), evaluated by Lentz's
/// method with its derivative in a: Q(a, x) is this times x^a e^−x / Γ(a).
fn upper_fraction(a: f64, x: f64) -> Dual {
    const TINY: f64 = 1.0e-300;
    let guard = |t: Dual| if t.v.abs() < TINY { Dual { v: TINY, d: t.d } } else { t };
    let mut b = Dual { v: x + 1.0 - a, d: -1.0 };
    let mut c = Dual::c(1.0 / TINY);
    let mut d = Dual::c(1.0).div(guard(b));
    let mut h = d;
    for i in 1..MAX_ITER {
        let i = i as f64;
        let an = Dual { v: -i * (i - a), d: i };
        b = b.add(Dual::c(2.0));
        d = Dual::c(1.0).div(guard(an.mul(d).add(b)));
        c = guard(b.add(an.div(c)));
        let step = d.mul(c);
        let next = h.mul(step);
        let done = (step.v - 1.0).abs() < EPS && (next.d - h.d).abs() <= EPS * next.d.abs();
        h = next;
        if done {
            break;
        }
    }
    h
}

/// P(a, x) = γ(a, x)/Γ(a), the regularized lower incomplete gamma function. NaN for a ≤ 0 or
/// x < 0; 0 at x = 0 and at a = +inf; 1 at x = +inf (TF's edges).
pub fn igamma(a: f64, x: f64) -> f64 {
    incomplete_gamma(a, x, Gamma::Lower)
}

/// Q(a, x) = 1 − P(a, x), computed directly where it is small.
pub fn igammac(a: f64, x: f64) -> f64 {
    incomplete_gamma(a, x, Gamma::Upper)
}

/// ∂P(a, x)/∂a (TF's IgammaGradA), by forward-mode differentiation of the series or the
/// continued fraction that computes P; 0 at x = 0 and x = +inf.
pub fn igamma_grad_a(a: f64, x: f64) -> f64 {
    incomplete_gamma(a, x, Gamma::LowerGradA)
}

/// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and 0 ≤ x ≤ 1 (else NaN,
/// as TF; an infinite a or b is NaN too). The continued fraction of x^a (1−x)^b / (a B(a, b))
/// by Lentz's method, on the side of the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) where it
/// converges fast.
pub fn betainc(a: f64, b: f64, x: f64) -> f64 {
    if a.is_nan() || b.is_nan() || x.is_nan() {
        return f64::NAN;
    }
    if a <= 0.0 || b <= 0.0 || a.is_infinite() || b.is_infinite() || !(0.0..=1.0).contains(&x) {
        return f64::NAN;
    }
    if x == 0.0 || x == 1.0 {
        return x;
    }
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - beta_fraction(b, a, 1.0 - x);
    }
    beta_fraction(a, b, x)
}

/// x^a (1−x)^b / (a B(a, b)) times the continued fraction 1/(1+ d₁/(1+ d₂/(1+ …))).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1.0e-300;
    let guard = |t: f64| if t.abs() < TINY { TINY } else { t };
    let ln_pre = a * x.ln() + b * (-x).ln_1p() - (lgamma(a) + lgamma(b) - lgamma(a + b));
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
    let mut h = d;
    for m in 1..MAX_ITER {
        let m = m as f64;
        // The even step: m(b − m)x / ((a + 2m − 1)(a + 2m)).
        let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 / guard(1.0 + even * d);
        c = guard(1.0 + even / c);
        h *= d * c;
        // The odd step: −(a + m)(a + b + m)x / ((a + 2m)(a + 2m + 1)).
        let odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 / guard(1.0 + odd * d);
        c = guard(1.0 + odd / c);
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < EPS {
            break;
        }
    }
    ln_pre.exp() * h / a
}
