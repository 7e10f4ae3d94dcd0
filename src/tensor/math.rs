//! float32 transcendentals that vectorize: `exp`, `tanh` and `sigmoid` over
//! contiguous slices, with no per-element libm call.
//!
//! Each float32 input is widened to float64, evaluated with a branch-free
//! range-reduced polynomial (relative error below 1e-15) and rounded once to
//! float32, so results are the correctly rounded values except when the true
//! value lies within about 1e-15 (relative) of a rounding boundary: at most
//! 1 ulp from the correctly rounded value, usually 0. glibc's `expf`/`tanhf`
//! evaluate in float32 and are sometimes 1 ulp off. Special values are as
//! `f32::exp`, `f32::tanh` and a logistic function: NaN stays NaN, ±inf
//! saturates, `tanh(-0.0)` is `-0.0`, subnormal inputs are exact in float64.
//!
//! No fused multiply-add is used, so the results are bitwise the same whether
//! the loop runs with SSE2, AVX2 or AVX-512 (chosen at run time).

/// ln 2 split so that `k * LN2_HI` is exact for |k| < 2^21 (its low 21 bits are zero).
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
/// ln 2 − LN2_HI.
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// 1.5 · 2^52: adding it rounds a float64 of magnitude below 2^51 to an integer,
/// which then sits in the low bits of the sum's representation.
const SHIFTER: f64 = 6_755_399_441_055_744.0;

/// `(2^k, expm1(r))` with `v = k ln 2 + r`, |r| ≤ ln 2 / 2, for |v| ≤ 300.
///
/// expm1(r) is the Taylor series to degree 13: the first omitted term is below
/// 1e-17 relative at |r| = ln 2 / 2.
#[inline(always)]
fn reduce_exp(v: f64) -> (f64, f64) {
    let t = v * LOG2_E + SHIFTER;
    let kf = t - SHIFTER;
    let r = (v - kf * LN2_HI) - kf * LN2_LO;
    let k = t.to_bits().wrapping_sub(SHIFTER.to_bits());
    let scale = f64::from_bits(k.wrapping_add(1023) << 52);
    let mut p = 1.0 / 6_227_020_800.0;
    p = p * r + 1.0 / 479_001_600.0;
    p = p * r + 1.0 / 39_916_800.0;
    p = p * r + 1.0 / 3_628_800.0;
    p = p * r + 1.0 / 362_880.0;
    p = p * r + 1.0 / 40_320.0;
    p = p * r + 1.0 / 5_040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    (scale, p * r)
}

/// Clamps to [-lim, lim]; NaN passes through (both comparisons are false).
#[inline(always)]
fn clamp(v: f64, lim: f64) -> f64 {
    let v = if v > lim { lim } else { v };
    if v < -lim {
        -lim
    } else {
        v
    }
}

/// e^x in float64 for |x| ≤ 300 (callers clamp), NaN in, NaN out.
#[inline(always)]
fn exp_f64_core(v: f64) -> f64 {
    let (scale, p) = reduce_exp(v);
    scale + scale * p
}

/// `exp(x)` for one float32 (see the module comment for accuracy).
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    // e^±200 is far outside float32's range, so clamping changes no result.
    exp_f64_core(clamp(x as f64, 200.0)) as f32
}

/// `tanh(x)` for one float32: expm1(2|x|) / (expm1(2|x|) + 2) in float64, sign of x.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    let a = (x as f64).abs();
    // tanh(20) rounds to 1 in float64 already.
    let a = if a > 20.0 { 20.0 } else { a };
    let (scale, p) = reduce_exp(2.0 * a);
    let em = scale * p + (scale - 1.0);
    ((em / (em + 2.0)) as f32).copysign(x)
}

/// `sigmoid(x) = 1 / (1 + e^-x)` for one float32, in float64.
#[inline(always)]
pub fn sigmoid_f32(x: f32) -> f32 {
    let e = exp_f64_core(-clamp(x as f64, 200.0));
    (1.0 / (1.0 + e)) as f32
}

#[inline(always)]
fn map_plain(xs: &mut [f32], f: impl Fn(f32) -> f32) {
    for x in xs {
        *x = f(*x);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
fn map_avx512(xs: &mut [f32], f: impl Fn(f32) -> f32) {
    map_plain(xs, f)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn map_avx2(xs: &mut [f32], f: impl Fn(f32) -> f32) {
    map_plain(xs, f)
}

/// `x = f(x)` over a slice, in place, with the widest vector unit this CPU has; a large slice
/// is split over the thread pool (elementwise, so the results do not depend on threads).
#[inline(always)]
fn map_in_place(xs: &mut [f32], f: impl Fn(f32) -> f32 + Sync + Copy) {
    if super::kernels::parallel_for(xs.len()) {
        use rayon::prelude::*;
        let chunk = super::kernels::par_chunk_len(xs.len());
        xs.par_chunks_mut(chunk).for_each(|c| map_on_this_cpu(c, f));
        return;
    }
    map_on_this_cpu(xs, f)
}

/// `x = f(x)` over a slice, in place, on the vector path `cpu::isa()` chooses (the widest
/// this CPU has, or `DGL_ISA`'s): the same bits on each, since `f` uses no fused multiply-add.
#[inline(always)]
fn map_on_this_cpu(xs: &mut [f32], f: impl Fn(f32) -> f32) {
    #[cfg(target_arch = "x86_64")]
    {
        use super::cpu::Isa;
        match super::cpu::isa() {
            // SAFETY: cpu::isa() names only paths this CPU supports.
            Isa::Avx512 => return unsafe { map_avx512(xs, f) },
            Isa::Avx2 => return unsafe { map_avx2(xs, f) },
            Isa::Portable => {}
        }
    }
    map_plain(xs, f)
}

/// [`exp_f32`] over a slice, in place.
pub fn exp_f32_in_place(xs: &mut [f32]) {
    map_in_place(xs, exp_f32)
}

/// [`tanh_f32`] over a slice, in place.
pub fn tanh_f32_in_place(xs: &mut [f32]) {
    map_in_place(xs, tanh_f32)
}

/// [`sigmoid_f32`] over a slice, in place.
pub fn sigmoid_f32_in_place(xs: &mut [f32]) {
    map_in_place(xs, sigmoid_f32)
}

/// [`exp_f32`] over a slice, into a new vector.
pub fn exp_f32_slice(xs: &[f32]) -> Vec<f32> {
    let mut out = xs.to_vec();
    exp_f32_in_place(&mut out);
    out
}

/// [`tanh_f32`] over a slice, into a new vector.
pub fn tanh_f32_slice(xs: &[f32]) -> Vec<f32> {
    let mut out = xs.to_vec();
    tanh_f32_in_place(&mut out);
    out
}

/// [`sigmoid_f32`] over a slice, into a new vector.
pub fn sigmoid_f32_slice(xs: &[f32]) -> Vec<f32> {
    let mut out = xs.to_vec();
    sigmoid_f32_in_place(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_split_over_threads_maps_like_one_element_at_a_time() {
        let n = crate::tensor::kernels::PARALLEL_ELEMENTS * 2 + 77;
        let xs: Vec<f32> = (0..n).map(|i| (i as f32 - n as f32 / 2.0) * 3e-5).collect();
        let mut ys = xs.clone();
        tanh_f32_in_place(&mut ys);
        assert!(xs.iter().zip(&ys).all(|(&x, y)| tanh_f32(x).to_bits() == y.to_bits()));
    }

    /// Each vector path this CPU can run gives the plain loop's bits, for exp, tanh and sigmoid
    /// over float32 values spread across their whole range, specials included
    /// (docs/language.md "Same bits on every CPU").
    #[test]
    fn every_vector_path_gives_the_plain_loops_bits() {
        let mut xs: Vec<f32> = (0..200_003u32).map(|i| f32::from_bits(i.wrapping_mul(2_654_435_761))).collect();
        xs.extend([0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 88.7, -103.9, 1e-40, 20.5]);
        for f in [exp_f32 as fn(f32) -> f32, tanh_f32, sigmoid_f32] {
            let mut plain = xs.clone();
            map_plain(&mut plain, f);
            #[cfg(target_arch = "x86_64")]
            for isa in crate::tensor::cpu::Isa::available() {
                let mut v = xs.clone();
                // SAFETY: only paths this CPU supports are run.
                match isa {
                    crate::tensor::cpu::Isa::Avx512 => unsafe { map_avx512(&mut v, f) },
                    crate::tensor::cpu::Isa::Avx2 => unsafe { map_avx2(&mut v, f) },
                    crate::tensor::cpu::Isa::Portable => map_plain(&mut v, f),
                }
                let same = plain.iter().zip(&v).all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "the {isa:?} path differs from the plain loop");
            }
        }
    }

    /// Distance in float32 steps between two finite floats of the same sign class.
    fn ulps(a: f32, b: f32) -> u64 {
        let key = |v: f32| {
            let i = v.to_bits() as i32;
            if i < 0 {
                i64::from(i32::MIN) - i64::from(i)
            } else {
                i64::from(i)
            }
        };
        (key(a) - key(b)).unsigned_abs()
    }

    /// The correctly rounded value's neighbourhood: `want` is the float64 reference (1e-15
    /// relative from the truth at worst); a result within 1 ulp of its rounding passes.
    fn check(name: &str, x: f32, got: f32, want: f64) {
        if want.is_nan() {
            assert!(got.is_nan(), "{name}({x:e}) = {got:e}, want NaN");
            return;
        }
        let w = want as f32;
        assert!(ulps(got, w) <= 1, "{name}({x:e} = {:#x}) = {got:e}, want {w:e} ({want:e})", x.to_bits());
    }

    fn sigmoid_ref(x: f64) -> f64 {
        if x >= 0.0 {
            1.0 / (1.0 + (-x).exp())
        } else {
            let e = x.exp();
            e / (1.0 + e)
        }
    }

    /// Inputs: random bit patterns over the whole float32 range, dense grids near 0,
    /// around the saturation points and the subnormal boundary, and the special values.
    fn samples() -> Vec<f32> {
        let mut v: Vec<f32> = Vec::new();
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..2_000_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push(f32::from_bits(s as u32));
        }
        for i in -200_000..=200_000 {
            v.push(i as f32 * 1e-5); // [-2, 2]
            v.push(i as f32 * 6e-4); // [-120, 120]: exp's overflow and underflow, tanh's saturation
        }
        for c in [9.0f32, 88.72, -87.33, -103.97, 16.64, -16.64] {
            let b = c.to_bits();
            for d in 0..20_000u32 {
                v.push(f32::from_bits(b.wrapping_add(d)));
                v.push(f32::from_bits(b.wrapping_sub(d)));
            }
        }
        for d in 0..20_000u32 {
            v.push(f32::from_bits(d)); // subnormals and the smallest normals
            v.push(-f32::from_bits(d));
        }
        v.extend([0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MAX, f32::MIN, f32::MIN_POSITIVE]);
        v
    }

    #[test]
    fn float32_exp_tanh_sigmoid_are_within_one_ulp_of_float64_over_millions_of_inputs() {
        let xs = samples();
        let (e, t, s) = (exp_f32_slice(&xs), tanh_f32_slice(&xs), sigmoid_f32_slice(&xs));
        for (i, &x) in xs.iter().enumerate() {
            let w = x as f64;
            check("exp", x, e[i], w.exp());
            check("tanh", x, t[i], w.tanh());
            check("sigmoid", x, s[i], sigmoid_ref(w));
            // The slice kernels and the scalar functions agree bitwise, whatever the vector unit
            // (a NaN's sign bit is not specified, as in std).
            if !x.is_nan() {
                assert_eq!(e[i].to_bits(), exp_f32(x).to_bits());
                assert_eq!(t[i].to_bits(), tanh_f32(x).to_bits());
                assert_eq!(s[i].to_bits(), sigmoid_f32(x).to_bits());
            }
        }
    }

    #[test]
    fn special_values_are_as_std() {
        let xs = [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, 1e-45, -1e-45, 100.0, -100.0, -104.0, 89.0];
        let (e, t, s) = (exp_f32_slice(&xs), tanh_f32_slice(&xs), sigmoid_f32_slice(&xs));
        for (i, &x) in xs.iter().enumerate() {
            assert_eq!(e[i].to_bits(), x.exp().to_bits(), "exp({x:e})");
            assert_eq!(t[i].to_bits(), x.tanh().to_bits(), "tanh({x:e})");
        }
        assert_eq!(t[1].to_bits(), (-0.0f32).to_bits(), "tanh keeps the sign of zero");
        assert_eq!(s[..4], [0.5, 0.5, 1.0, 0.0]);
        assert_eq!(s[6], 1.0);
        assert!(s[7] > 0.0 && s[7] < f32::MIN_POSITIVE, "sigmoid(-100) ≈ 3.7e-44 is a float32 subnormal");
        assert_eq!(s[8], 0.0, "sigmoid(-104) ≈ 6.8e-46 rounds to 0");
        let nan = [f32::NAN, -f32::NAN];
        assert!(exp_f32_slice(&nan)
            .iter()
            .chain(&tanh_f32_slice(&nan))
            .chain(&sigmoid_f32_slice(&nan))
            .all(|v| v.is_nan()));
    }
}
