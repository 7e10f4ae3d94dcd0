//! The special integrals of `tf.math.special`: Dawson's integral, the exponential integral
//! Ei, the Fresnel integrals and Spence's function (the dilogarithm at 1 − x), in float64,
//! with TensorFlow 2.21's values at the edges (each function says which).

use super::exact::{Sum, Term};
use std::f64::consts::{FRAC_PI_2, PI};

/// Dawson's integral F(x) = e^(−x²) ∫₀ˣ e^(t²) dt, odd (+0 at ±0, as TF; 0 at ±inf).
///
/// |x| ≤ 6.5: F(x) = x e^(−x²) Σₖ x²ᵏ/(k!(2k+1)) (Kummer's transformation of its series, all
/// terms positive); beyond, the asymptotic series 1/(2x) Σₖ (2k−1)!!/(2x²)ᵏ, whose smallest
/// term there is below e^(−42).
pub fn dawsn(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x == 0.0 {
        return 0.0;
    }
    let ax = x.abs();
    let v = if ax <= 6.5 {
        let y = ax * ax;
        let (mut term, mut sum) = (Term::new(1.0), Sum::new(1.0));
        for k in 1..400 {
            let k = k as f64;
            term.mul_div(y, k);
            let t = term.value() / (2.0 * k + 1.0);
            sum.add(t);
            if t < 1e-18 * sum.value() {
                break;
            }
        }
        ax * (-y).exp() * sum.value()
    } else if ax > 1e9 {
        // 1/(2x²) is below half an ulp of 1.
        0.5 / ax
    } else {
        let y2 = 2.0 * ax * ax;
        let (mut term, mut sum) = (Term::new(1.0), Sum::new(1.0));
        for k in 1..200 {
            let before = term.value();
            term.mul_div((2 * k - 1) as f64, y2);
            if term.value() >= before || term.value() < 1e-18 * sum.value() {
                break;
            }
            sum.add(term.value());
        }
        0.5 / ax * sum.value()
    };
    v.copysign(x)
}

/// Euler's constant γ.
const EULER: f64 = 0.577_215_664_901_532_9;
/// The positive zero of Ei, as a sum of two doubles.
const EI_ROOT: (f64, f64) = (0.3725074107813666, 1.3140183414386028e-17);
/// Ei's Taylor coefficients Ei⁽ⁿ⁾(x₀)/n! about its zero x₀, n = 1, 2, … (computed in 40-digit
/// arithmetic).
const EI_TAYLOR: [f64; 24] = [
    3.8962157339071672,
    -3.2816078663985615,
    6.522376145438925,
    -12.969697383536516,
    27.88629796294205,
    -62.37880152891542,
    143.5349488096751,
    -337.1558271787469,
    804.5318399821382,
    -1943.7966457234988,
    4743.765650402431,
    -11673.463991167164,
    28926.95530543545,
    -72107.9458683716,
    180669.55858939196,
    -454696.21885446657,
    1148834.5468177444,
    -2912721.6638508374,
    7407692.958000587,
    -18891727.000381533,
    48300034.930860244,
    -123768219.00249171,
    317811105.66636217,
    -817618569.3184928,
];

/// The exponential integral Ei(x) = −PV∫₋ₓ^∞ e^(−t)/t dt for x > 0; TF's edges: −inf at ±0,
/// NaN for x < 0 (TF does not continue it there) and at +inf (the limit is +inf). Near the top of the range it
/// stays finite up to where Ei itself overflows (about 716.35), where TF's float64 kernel
/// overflows from about 709.8 on.
///
/// Within 0.06 of its zero x₀: the Taylor series about x₀; up to 45: γ + ln x + Σₖ xᵏ/(k·k!);
/// beyond: the asymptotic series eˣ/x Σₖ k!/xᵏ, whose smallest term there is below e^(−42).
pub fn expint(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 || x == f64::INFINITY {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    let t = (x - EI_ROOT.0) - EI_ROOT.1;
    if t.abs() <= 0.06 {
        let mut sum = 0.0;
        for c in EI_TAYLOR.iter().rev() {
            sum = (sum + c) * t;
        }
        return sum;
    }
    if x <= 45.0 {
        let (mut term, mut sum) = (Term::new(1.0), Sum::new(EULER));
        sum.add(x.ln());
        for k in 1..400 {
            let k = k as f64;
            term.mul_div(x, k);
            let s = term.value() / k;
            sum.add(s);
            if s < 1e-18 * sum.value().abs() {
                break;
            }
        }
        return sum.value();
    }
    let (mut term, mut sum) = (Term::new(1.0), Sum::new(1.0));
    for k in 1..200 {
        let before = term.value();
        term.mul_div(k as f64, x);
        if term.value() >= before || term.value() < 1e-18 * sum.value() {
            break;
        }
        sum.add(term.value());
    }
    let sum = sum.value();
    if x <= 700.0 {
        x.exp() / x * sum
    } else {
        // eˣ itself overflows past 709.78 where Ei does not yet.
        let half = (0.5 * x).exp();
        half * (half / x * sum)
    }
}

/// A complex number, for the Fresnel integrals' continued fraction.
#[derive(Clone, Copy)]
struct Complex(f64, f64);

impl Complex {
    fn add(self, o: Complex) -> Complex {
        Complex(self.0 + o.0, self.1 + o.1)
    }
    fn mul(self, o: Complex) -> Complex {
        Complex(self.0 * o.0 - self.1 * o.1, self.0 * o.1 + self.1 * o.0)
    }
    fn scale(self, k: f64) -> Complex {
        Complex(self.0 * k, self.1 * k)
    }
    fn recip(self) -> Complex {
        // Smith's division: no overflow from squaring either part.
        if self.0.abs() >= self.1.abs() {
            let r = self.1 / self.0;
            let d = self.0 + self.1 * r;
            Complex(1.0 / d, -r / d)
        } else {
            let r = self.0 / self.1;
            let d = self.0 * r + self.1;
            Complex(r / d, -1.0 / d)
        }
    }
}

/// (cos(πx²/2), sin(πx²/2)) with x² reduced modulo 4 exactly (x² as the sum of two doubles),
/// so that the phase is right for large x too.
fn fresnel_phase(x: f64) -> (f64, f64) {
    let hi = x * x;
    let lo = x.mul_add(x, -hi);
    let r = hi % 4.0 + lo;
    let q = r.round();
    let (s, c) = (FRAC_PI_2 * (r - q)).sin_cos();
    match (q as i64).rem_euclid(4) {
        0 => (c, s),
        1 => (-s, c),
        2 => (-c, -s),
        _ => (s, -c),
    }
}

/// Where the Fresnel integrals' power series gives way to the continued fraction.
const FRESNEL_SERIES_MAX: f64 = 1.0;

/// (C(x), S(x)) for x ≥ 0 finite.
///
/// x < 1: their power series. Beyond, C + iS = (1 + i)/2 − x e^(iπx²/2) / T with T the
/// continued fraction of erfc at z = (√π/2)(1 − i)x (A&S 7.1.14 in its even form):
/// T = b₀ − 1·2/(b₁ − 3·4/(b₂ − …)), bₙ = 4n + 1 − iπx². Past
/// 10¹⁷ both are ½ to the last bit.
fn fresnel(x: f64) -> (f64, f64) {
    if x < FRESNEL_SERIES_MAX {
        let p = FRAC_PI_2 * x * x;
        let q = p * p;
        let (mut a, mut b) = (x, x * p);
        let (mut c, mut s) = (a, b / 3.0);
        for k in 1..60 {
            let k2 = (2 * k) as f64;
            a *= -q / ((k2 - 1.0) * k2);
            b *= -q / (k2 * (k2 + 1.0));
            let (tc, ts) = (a / (2.0 * k2 + 1.0), b / (2.0 * k2 + 3.0));
            c += tc;
            s += ts;
            if tc.abs() < 1e-18 * c.abs() && ts.abs() < 1e-18 * s.abs() {
                break;
            }
        }
        return (c, s);
    }
    if x > 1e17 {
        return (0.5, 0.5);
    }
    let pix2 = PI * x * x;
    // Evaluated from the bottom up (steadier than Lentz's forward method here), deep enough
    // for an error below 1e−17 from x = 1 on.
    let depth = (150.0 / (x * x)) as usize + 12;
    let mut t = Complex((4 * depth + 1) as f64, -pix2);
    for n in (0..depth).rev() {
        let a = -(((2 * n + 1) * (2 * n + 2)) as f64);
        t = Complex((4 * n + 1) as f64, -pix2).add(t.recip().scale(a));
    }
    let f = t;
    let (cos, sin) = fresnel_phase(x);
    let w = Complex(cos, sin).mul(f.recip()).scale(x);
    (0.5 - w.0, 0.5 - w.1)
}

/// The Fresnel integral C(x) = ∫₀ˣ cos(πt²/2) dt, odd (+0 at ±0, ±½ at ±inf, as TF).
pub fn fresnel_cos(x: f64) -> f64 {
    if x.is_nan() || x == 0.0 {
        return if x.is_nan() { x } else { 0.0 };
    }
    fresnel(x.abs()).0.copysign(x)
}

/// The Fresnel integral S(x) = ∫₀ˣ sin(πt²/2) dt, odd (+0 at ±0, ±½ at ±inf, as TF).
pub fn fresnel_sin(x: f64) -> f64 {
    if x.is_nan() || x == 0.0 {
        return if x.is_nan() { x } else { 0.0 };
    }
    fresnel(x.abs()).1.copysign(x)
}

/// π²/6 = Li₂(1), rounded once.
const PI2_6: f64 = 1.6449340668482264;

/// Li₂(z) = Σₖ zᵏ/k² for |z| ≤ ½.
fn dilog_series(z: f64) -> f64 {
    let (mut p, mut sum) = (Term::new(z), Sum::new(z));
    for k in 2..80 {
        p.mul_div(z, 1.0);
        let t = p.value() / (k * k) as f64;
        sum.add(t);
        if t.abs() < 1e-18 * sum.value().abs() {
            break;
        }
    }
    sum.value()
}

/// Spence's function ∫₁ˣ ln t/(1 − t) dt = Li₂(1 − x) for x ≥ 0; TF's edges: NaN for x < 0
/// and at +inf (TF gives NaN there; the limit is −inf), π²/6 at 0.
///
/// ½ ≤ x ≤ 2: the series of Li₂(1 − x) (1 − x is exact there); x < ½: Euler's reflection
/// Li₂(1 − x) = π²/6 − ln x ln(1 − x) − Li₂(x); x > 2: Landen's identity
/// spence(x) = −spence(1/x) − ½ ln² x.
pub fn spence(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 || x == f64::INFINITY {
        return f64::NAN;
    }
    if x > 2.0 {
        let l = x.ln();
        return -spence(1.0 / x) - 0.5 * l * l;
    }
    let z = 1.0 - x;
    if x >= 0.5 && z.abs() <= 0.5 {
        return dilog_series(z);
    }
    if x >= 0.5 {
        // 1.5 < x ≤ 2: through Landen as above (1/x in [½, ⅔)).
        let l = x.ln();
        return -dilog_series(1.0 - 1.0 / x) - 0.5 * l * l;
    }
    if x == 0.0 {
        return PI2_6;
    }
    PI2_6 - x.ln() * (-x).ln_1p() - dilog_series(x)
}
