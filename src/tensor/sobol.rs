//! Sobol' points (`tf.math.sobol_sample`; docs/language.md "TensorFlow"): the low-discrepancy
//! sequence in `[0, 1)^dim`, made by Antonov and Saleev's Gray-code construction: point `n` is
//! the XOR of the direction numbers `v_j` of the bits `j` set in `n ^ (n >> 1)`, read as a
//! 32-bit binary fraction. Dimension 1 takes `v_j = 2^-(j+1)` (van der Corput's sequence);
//! each other dimension takes a primitive polynomial over GF(2) of degree `s` and `s` odd
//! initial numbers `m_1..m_s`, from which `m_k = 2 a_1 m_(k-1) ^ 4 a_2 m_(k-2) ^ … ^
//! 2^(s-1) a_(s-1) m_(k-s+1) ^ 2^s m_(k-s) ^ m_(k-s)` and `v_k = m_k / 2^k`. The polynomials
//! and initial numbers are Joe and Kuo's (2008) set new-joe-kuo-6.21201, the one TensorFlow
//! uses, shipped in sobol_data/ with their licence; the all-zero first point is skipped, as TF
//! skips it.

use super::array::{Array, DType};
use super::budget;
use super::error::{tensor_bail, TensorResult as R};

/// Bits of each coordinate.
const BITS: usize = 32;

/// Joe and Kuo's polynomials and initial numbers for dimensions 2..21201, bit-packed
/// (src/tensor/sobol_data/README.md says how; LICENSE there is theirs).
const TABLE: &[u8] = include_bytes!("sobol_data/new-joe-kuo-6.21201.bin");

/// The most dimensions TF takes (its table's last is left unused), and so DGL.
pub const MAX_DIM: usize = 21200;

/// One dimension's primitive polynomial degree `s`, its inner coefficients `a_1..a_(s-1)` as
/// the bits of `a` (a_1 the highest), and the initial `m_1..m_s`.
struct Polynomial {
    s: usize,
    a: u32,
    m: Vec<u64>,
}

/// The records of [`TABLE`], dimension 2 first, decoded once.
fn polynomials() -> &'static [Polynomial] {
    static DECODED: std::sync::OnceLock<Vec<Polynomial>> = std::sync::OnceLock::new();
    DECODED.get_or_init(|| {
        let mut pos = 0usize;
        let mut take = |width: usize| -> u64 {
            let mut v = 0u64;
            for k in 0..width {
                let bit = (TABLE[(pos + k) / 8] >> ((pos + k) % 8)) & 1;
                v |= (bit as u64) << k;
            }
            pos += width;
            v
        };
        (1..MAX_DIM)
            .map(|_| {
                let s = take(5) as usize;
                let a = take(s - 1) as u32;
                let m = (1..=s).map(|i| 2 * take(i - 1) + 1).collect();
                Polynomial { s, a, m }
            })
            .collect()
    })
}

/// The direction numbers `v_j` of dimension `d` (0-based), as 32-bit fractions.
fn directions(d: usize) -> [u64; BITS] {
    let mut v = [0u64; BITS];
    if d == 0 {
        for (j, x) in v.iter_mut().enumerate() {
            *x = 1 << (BITS - 1 - j);
        }
        return v;
    }
    let Polynomial { s, a, m } = &polynomials()[d - 1];
    let (s, a) = (*s, *a);
    let mut m = m.clone();
    for k in s..BITS {
        let mut next = m[k - s] ^ (m[k - s] << s);
        for i in 1..s {
            if (a >> (s - 1 - i)) & 1 == 1 {
                next ^= m[k - i] << i;
            }
        }
        m.push(next);
    }
    for (j, x) in v.iter_mut().enumerate() {
        *x = m[j] << (BITS - 1 - j);
    }
    v
}

/// `num` Sobol' points of `dim` coordinates, starting `skip` points past the first non-zero
/// one: shape `[num, dim]`, float32 or float64.
///
/// Errors: ValueError for `dim` outside `[1, MAX_DIM]`, a negative `num` or `skip`, or points
/// past the 2^32 - 1 the 32-bit construction has; TypeError for a dtype other than float32
/// or float64.
pub fn sobol_sample(dim: i64, num: i64, skip: i64, dtype: DType) -> R<Array> {
    if !matches!(dtype, DType::F32 | DType::F64) {
        tensor_bail!(Type, "sobol_sample: dtype must be float32 or float64, not {dtype}");
    }
    if dim < 1 {
        tensor_bail!(Value, "sobol_sample: dim must be at least one, got {dim}");
    }
    if dim as usize > MAX_DIM {
        tensor_bail!(Value, "sobol_sample: dim must be at most {MAX_DIM}, got {dim}");
    }
    if num < 0 || skip < 0 {
        tensor_bail!(Value, "sobol_sample: num_results and skip must be non-negative, got {num} and {skip}");
    }
    if skip.saturating_add(num) >= 1 << BITS {
        tensor_bail!(Value, "sobol_sample: skip + num_results must be below 2^32, got {}", skip + num);
    }
    let (dim, num) = (dim as usize, num as usize);
    let shape = [num, dim];
    budget::check_shape(&shape)?;
    let v: Vec<[u64; BITS]> = (0..dim).map(directions).collect();
    let mut out = Vec::with_capacity(num * dim);
    for i in 0..num as u64 {
        let n = skip as u64 + i + 1;
        let gray = n ^ (n >> 1);
        for dv in &v {
            let mut x = 0u64;
            let mut g = gray;
            let mut j = 0;
            while g != 0 {
                if g & 1 == 1 {
                    x ^= dv[j];
                }
                g >>= 1;
                j += 1;
            }
            out.push(x as f64 / (1u64 << BITS) as f64);
        }
    }
    Ok(Array::from_f64(dtype, &shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_points_are_tfs() {
        // TF 2.21: tf.math.sobol_sample(3, 4, skip=1).
        let p = sobol_sample(3, 4, 1, DType::F64).unwrap().to_f64_vec();
        assert_eq!(p, vec![0.75, 0.25, 0.25, 0.25, 0.75, 0.75, 0.375, 0.375, 0.625, 0.875, 0.875, 0.125]);
    }

    #[test]
    fn each_dimension_is_stratified() {
        // Any 2^k consecutive points from a multiple of 2^k put one point in each interval
        // [i/2^k, (i+1)/2^k) of every coordinate (the points are a (t, k, s)-net's).
        let p = sobol_sample(MAX_DIM as i64, 64, 63, DType::F64).unwrap().to_f64_vec();
        for d in 0..MAX_DIM {
            let mut seen = [false; 64];
            for i in 0..64 {
                seen[(p[i * MAX_DIM + d] * 64.0) as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "dimension {d}");
        }
    }
}
