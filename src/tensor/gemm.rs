//! Float GEMM, `C = A · B`, with one summation order on every CPU and at every thread count.
//!
//! Each output element is summed the same way whichever path runs (docs/language.md "Same
//! bits on every CPU"): the summed axis is cut into fixed blocks of [`Elem::KC`] terms, each
//! block is accumulated from zero by fused multiply-adds in increasing `k`, and the block sums
//! are added to the output in increasing block order:
//!
//! ```text
//! c = Σ_block (…((0 + a₀b₀) + a₁b₁) + …)        each inner step one fused multiply-add
//! ```
//!
//! The paths (portable, AVX2, AVX-512; `cpu.rs`) differ only in how many outputs they compute
//! at once, and threads only in which outputs each computes, so neither changes a result. The
//! blocking of the other two axes (tile and panel sizes) is free to suit each path, since it
//! does not change any one element's sum.
//!
//! The layout is the classic one (Goto and van de Geijn): a `KC × NC` panel of B is packed into
//! `NR`-wide strips, an `MC × KC` block of A into `MR`-tall strips, and a microkernel keeps an
//! `MR × NR` tile of C in registers while it walks `KC` steps of one strip of each.

use super::cpu::Isa;

/// The element types of the GEMM: float32 and float64.
pub trait Elem: Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static {
    /// Terms of the summed axis per block: fixed, so the summation order is too.
    const KC: usize;
    const ZERO: Self;
    /// `self · b + c` rounded once.
    fn mul_add(self, b: Self, c: Self) -> Self;
    fn add(self, b: Self) -> Self;
}

impl Elem for f32 {
    const KC: usize = 256;
    const ZERO: f32 = 0.0;
    #[inline(always)]
    fn mul_add(self, b: f32, c: f32) -> f32 {
        f32::mul_add(self, b, c)
    }
    #[inline(always)]
    fn add(self, b: f32) -> f32 {
        self + b
    }
}

impl Elem for f64 {
    const KC: usize = 256;
    const ZERO: f64 = 0.0;
    #[inline(always)]
    fn mul_add(self, b: f64, c: f64) -> f64 {
        f64::mul_add(self, b, c)
    }
    #[inline(always)]
    fn add(self, b: f64) -> f64 {
        self + b
    }
}

/// A matrix operand read through element strides: element `(i, j)` is at `ptr + i·rs + j·cs`.
#[derive(Clone, Copy)]
pub struct MatRef<T> {
    pub ptr: *const T,
    pub rs: isize,
    pub cs: isize,
}

// SAFETY: a MatRef is only read, and only while the array it points into is borrowed by the
// caller of `gemm` (which outlives every task).
unsafe impl<T: Sync> Send for MatRef<T> {}
unsafe impl<T: Sync> Sync for MatRef<T> {}

impl<T: Copy> MatRef<T> {
    /// # Safety
    /// `(i, j)` must lie inside the matrix.
    #[inline(always)]
    unsafe fn at(self, i: usize, j: usize) -> T {
        *self.ptr.offset(i as isize * self.rs + j as isize * self.cs)
    }
}

/// The output: a row-major matrix with row stride `ld`.
#[derive(Clone, Copy)]
pub struct Out<T> {
    ptr: *mut T,
    ld: usize,
}

// SAFETY: tasks write disjoint rows or columns of the output (`gemm` splits them so).
unsafe impl<T: Send> Send for Out<T> {}
unsafe impl<T: Send> Sync for Out<T> {}

/// Vector operations of one path on one element type: `W` lanes per vector.
trait Simd {
    type E: Elem;
    type V: Copy;
    const W: usize;
    unsafe fn zero() -> Self::V;
    unsafe fn splat(x: Self::E) -> Self::V;
    unsafe fn load(p: *const Self::E) -> Self::V;
    unsafe fn store(p: *mut Self::E, v: Self::V);
    /// `a · b + c`, rounded once per lane.
    unsafe fn fma(a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
}

/// One lane in plain Rust: the portable path, and the reference the others must match.
struct Scalar<T>(std::marker::PhantomData<T>);

impl<T: Elem> Simd for Scalar<T> {
    type E = T;
    type V = T;
    const W: usize = 1;
    #[inline(always)]
    unsafe fn zero() -> T {
        T::ZERO
    }
    #[inline(always)]
    unsafe fn splat(x: T) -> T {
        x
    }
    #[inline(always)]
    unsafe fn load(p: *const T) -> T {
        *p
    }
    #[inline(always)]
    unsafe fn store(p: *mut T, v: T) {
        *p = v
    }
    #[inline(always)]
    unsafe fn fma(a: T, b: T, c: T) -> T {
        a.mul_add(b, c)
    }
    #[inline(always)]
    unsafe fn add(a: T, b: T) -> T {
        a.add(b)
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Simd;
    use std::arch::x86_64::*;

    /// Declares a vector type's operations from its intrinsics.
    macro_rules! simd {
        ($name:ident, $e:ty, $v:ty, $w:expr, $zero:ident, $splat:ident, $load:ident, $store:ident, $fma:ident, $add:ident) => {
            pub struct $name;
            impl Simd for $name {
                type E = $e;
                type V = $v;
                const W: usize = $w;
                #[inline(always)]
                unsafe fn zero() -> $v {
                    $zero()
                }
                #[inline(always)]
                unsafe fn splat(x: $e) -> $v {
                    $splat(x)
                }
                #[inline(always)]
                unsafe fn load(p: *const $e) -> $v {
                    $load(p)
                }
                #[inline(always)]
                unsafe fn store(p: *mut $e, v: $v) {
                    $store(p, v)
                }
                #[inline(always)]
                unsafe fn fma(a: $v, b: $v, c: $v) -> $v {
                    $fma(a, b, c)
                }
                #[inline(always)]
                unsafe fn add(a: $v, b: $v) -> $v {
                    $add(a, b)
                }
            }
        };
    }

    simd!(
        Avx2F32,
        f32,
        __m256,
        8,
        _mm256_setzero_ps,
        _mm256_set1_ps,
        _mm256_loadu_ps,
        _mm256_storeu_ps,
        _mm256_fmadd_ps,
        _mm256_add_ps
    );
    simd!(
        Avx2F64,
        f64,
        __m256d,
        4,
        _mm256_setzero_pd,
        _mm256_set1_pd,
        _mm256_loadu_pd,
        _mm256_storeu_pd,
        _mm256_fmadd_pd,
        _mm256_add_pd
    );
    simd!(
        Avx512F32,
        f32,
        __m512,
        16,
        _mm512_setzero_ps,
        _mm512_set1_ps,
        _mm512_loadu_ps,
        _mm512_storeu_ps,
        _mm512_fmadd_ps,
        _mm512_add_ps
    );
    simd!(
        Avx512F64,
        f64,
        __m512d,
        8,
        _mm512_setzero_pd,
        _mm512_set1_pd,
        _mm512_loadu_pd,
        _mm512_storeu_pd,
        _mm512_fmadd_pd,
        _mm512_add_pd
    );
}

/// A 64-byte aligned scratch buffer of `len` elements (packed strips are read with vector
/// loads). Left uninitialised: packing writes every element a microkernel reads (zeros past
/// the matrix included), and a memset of the panels cost a tenth of a 128×256×256 product.
struct Scratch<T> {
    buf: Vec<std::mem::MaybeUninit<Align64>>,
    _t: std::marker::PhantomData<T>,
}

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Align64([u8; 64]);

impl<T: Elem> Scratch<T> {
    fn new(len: usize) -> Self {
        let blocks = (len * std::mem::size_of::<T>()).div_ceil(64);
        let mut buf = Vec::with_capacity(blocks);
        // SAFETY: MaybeUninit needs no initialisation.
        unsafe { buf.set_len(blocks) };
        Scratch { buf, _t: std::marker::PhantomData }
    }
    /// A buffer of `len` zeros.
    fn zeroed(len: usize) -> Self {
        let mut s = Scratch::new(len);
        // SAFETY: the buffer holds at least `len` elements of T, for which all-zero bits are 0.0.
        unsafe { std::ptr::write_bytes(s.as_mut_ptr(), 0, len) };
        s
    }
    fn as_mut_ptr(&mut self) -> *mut T {
        self.buf.as_mut_ptr() as *mut T
    }
}

/// `acc = Σ_p a[p] ⊗ b[p]` over `kc` steps of an `MR`-tall strip of A and an `NR = NV·W`-wide
/// strip of B (`ldb` elements from one step's row to the next: `NR` packed, the row stride
/// read in place), then `c = acc` (`first`) or `c = c + acc`, for an `MR × NR` tile of C at
/// `c` with row stride `ldc`.
#[inline(always)]
unsafe fn micro<S: Simd, const MR: usize, const NV: usize>(
    kc: usize,
    a: *const S::E,
    b: *const S::E,
    ldb: isize,
    c: *mut S::E,
    ldc: usize,
    first: bool,
) {
    let mut acc = [[S::zero(); NV]; MR];
    let (mut a, mut b) = (a, b);
    for _ in 0..kc {
        let mut bv = [S::zero(); NV];
        for (v, slot) in bv.iter_mut().enumerate() {
            *slot = S::load(b.add(v * S::W));
        }
        for (i, row) in acc.iter_mut().enumerate() {
            let ai = S::splat(*a.add(i));
            for v in 0..NV {
                row[v] = S::fma(ai, bv[v], row[v]);
            }
        }
        a = a.add(MR);
        b = b.offset(ldb);
    }
    for (i, row) in acc.iter().enumerate() {
        for (v, &sum) in row.iter().enumerate() {
            let p = c.add(i * ldc + v * S::W);
            S::store(p, if first { sum } else { S::add(S::load(p), sum) });
        }
    }
}

/// Packs rows `i0..i0+mc`, columns `p0..p0+kc` of A into `MR`-tall strips, each stored step by
/// step (`MR` elements per step), rows past `m` as zeros.
#[inline(always)]
unsafe fn pack_a<T: Elem, const MR: usize>(
    a: MatRef<T>,
    m: usize,
    i0: usize,
    mc: usize,
    p0: usize,
    kc: usize,
    dst: *mut T,
) {
    let mut d = dst;
    for r in (0..mc).step_by(MR) {
        let rows = MR.min(mc - r).min(m - (i0 + r));
        // The strip's rows, read along the summed axis; the missing ones are zeros.
        let mut starts = [std::ptr::null::<T>(); MR];
        for (i, s) in starts.iter_mut().enumerate().take(rows) {
            *s = a.ptr.offset((i0 + r + i) as isize * a.rs + p0 as isize * a.cs);
        }
        for p in 0..kc {
            let off = p as isize * a.cs;
            for (i, &s) in starts.iter().enumerate() {
                *d.add(i) = if i < rows { *s.offset(off) } else { T::ZERO };
            }
            d = d.add(MR);
        }
    }
}

/// Packs rows `p0..p0+kc`, columns `j0..j0+nc` of B into `NR`-wide strips, each stored step by
/// step (`NR` elements per step), columns past the block as zeros.
#[inline(always)]
unsafe fn pack_b<T: Elem>(b: MatRef<T>, nr: usize, j0: usize, nc: usize, p0: usize, kc: usize, dst: *mut T) {
    let mut d = dst;
    for q in (0..nc).step_by(nr) {
        let width = nr.min(nc - q);
        for p in 0..kc {
            if b.cs == 1 && width == nr {
                std::ptr::copy_nonoverlapping(b.ptr.offset((p0 + p) as isize * b.rs + (j0 + q) as isize), d, nr);
            } else {
                for j in 0..nr {
                    *d.add(j) = if j < width { b.at(p0 + p, j0 + q + j) } else { T::ZERO };
                }
            }
            d = d.add(nr);
        }
    }
}

/// The blocked product of one task: `C[0..m, 0..n] = A[0..m, 0..k] · B[0..k, 0..n]`, with the
/// microkernel of path `S` on `MR × NV·W` tiles. Inlined into each path's entry point, so the
/// whole loop nest is compiled with that path's target features.
#[inline(always)]
unsafe fn blocked<S: Simd, const MR: usize, const NV: usize, const MC: usize, const NC: usize>(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<S::E>,
    b: MatRef<S::E>,
    c: Out<S::E>,
) {
    let nr = NV * S::W;
    let kc_max = S::E::KC.min(k);
    let (mc_max, nc_max) = (MC.min(m.next_multiple_of(MR)), NC.min(n.next_multiple_of(nr)));
    let mut bpack = Scratch::<S::E>::new(kc_max * nc_max.next_multiple_of(nr));
    let mut apack = Scratch::<S::E>::new(kc_max * mc_max.next_multiple_of(MR));
    // An edge tile is computed in full in this buffer and its valid part copied.
    let mut tile = Scratch::<S::E>::zeroed(MR * nr);
    let (bp, ap, tp) = (bpack.as_mut_ptr(), apack.as_mut_ptr(), tile.as_mut_ptr());
    for j0 in (0..n).step_by(NC) {
        let nc = NC.min(n - j0);
        // docs/language.md "Same bits on every CPU": blocks of the summed axis in order.
        for p0 in (0..k).step_by(S::E::KC) {
            let kc = S::E::KC.min(k - p0);
            let first = p0 == 0;
            // A panel of B with unit column stride and at most 256 KiB is read in place, but for
            // a last strip narrower than NR: packing it cost a tenth of a 128×256×256 product.
            // Larger panels are packed: read in place, the rows of a 1024-wide B (4 KiB apart)
            // collide in the caches and a 1024² product ran a third slower.
            let in_place = b.cs == 1 && kc * nc * std::mem::size_of::<S::E>() <= 1 << 18;
            let packed_from = if in_place { nc - nc % nr } else { 0 };
            if packed_from < nc {
                pack_b(b, nr, j0 + packed_from, nc - packed_from, p0, kc, bp.add(packed_from * kc));
            }
            for i0 in (0..m).step_by(MC) {
                let mc = MC.min(m - i0);
                pack_a::<S::E, MR>(a, m, i0, mc, p0, kc, ap);
                // An A strip (MR × KC) stays in L1 while the B strips stream from L2: measured
                // faster than the other order on AVX2 and AVX-512 (whose B strips fill L1).
                for r in (0..mc).step_by(MR) {
                    let height = MR.min(mc - r);
                    let astrip = ap.add(r * kc);
                    for q in (0..nc).step_by(nr) {
                        let width = nr.min(nc - q);
                        let (bstrip, ldb) = if q < packed_from {
                            (b.ptr.offset(p0 as isize * b.rs + (j0 + q) as isize), b.rs)
                        } else {
                            (bp.add(q * kc) as *const S::E, nr as isize)
                        };
                        let cij = c.ptr.add((i0 + r) * c.ld + j0 + q);
                        if height == MR && width == nr {
                            micro::<S, MR, NV>(kc, astrip, bstrip, ldb, cij, c.ld, first);
                        } else {
                            for i in 0..height {
                                std::ptr::copy_nonoverlapping(cij.add(i * c.ld), tp.add(i * nr), width);
                            }
                            micro::<S, MR, NV>(kc, astrip, bstrip, ldb, tp, nr, first);
                            for i in 0..height {
                                std::ptr::copy_nonoverlapping(tp.add(i * nr), cij.add(i * c.ld), width);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The element types with GEMM paths: one task's product on path `isa`, through the entry
/// points compiled with each path's target features.
pub trait Paths: Elem {
    unsafe fn task(isa: Isa, m: usize, n: usize, k: usize, a: MatRef<Self>, b: MatRef<Self>, c: Out<Self>);
}

/// Declares a type's paths: `blocked` instantiated with each path's vector type and tile sizes
/// (`MR` rows × `NV` vectors, `MC` rows of A and `NC` columns of B per packed block).
macro_rules! paths {
    ($t:ty, nc: $nc:expr, avx2: $avx2:ty, avx512: $avx512:ty) => {
        impl Paths for $t {
            unsafe fn task(isa: Isa, m: usize, n: usize, k: usize, a: MatRef<$t>, b: MatRef<$t>, c: Out<$t>) {
                #[cfg(target_arch = "x86_64")]
                {
                    #[target_feature(enable = "avx2,fma")]
                    unsafe fn avx2(m: usize, n: usize, k: usize, a: MatRef<$t>, b: MatRef<$t>, c: Out<$t>) {
                        blocked::<$avx2, 6, 2, 96, $nc>(m, n, k, a, b, c)
                    }
                    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
                    unsafe fn avx512(m: usize, n: usize, k: usize, a: MatRef<$t>, b: MatRef<$t>, c: Out<$t>) {
                        blocked::<$avx512, 12, 2, 144, $nc>(m, n, k, a, b, c)
                    }
                    match isa {
                        Isa::Avx512 => return avx512(m, n, k, a, b, c),
                        Isa::Avx2 => return avx2(m, n, k, a, b, c),
                        Isa::Portable => {}
                    }
                }
                let _ = isa;
                blocked::<Scalar<$t>, 4, 4, 64, 512>(m, n, k, a, b, c)
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
paths!(f32, nc: 1024, avx2: x86::Avx2F32, avx512: x86::Avx512F32);
#[cfg(target_arch = "x86_64")]
paths!(f64, nc: 512, avx2: x86::Avx2F64, avx512: x86::Avx512F64);
// Elsewhere only the portable path exists; the vector types named here are never used.
#[cfg(not(target_arch = "x86_64"))]
paths!(f32, nc: 1024, avx2: Scalar<f32>, avx512: Scalar<f32>);
#[cfg(not(target_arch = "x86_64"))]
paths!(f64, nc: 512, avx2: Scalar<f64>, avx512: Scalar<f64>);

/// `C = A · B` for an `m × k` A and a `k × n` B read through their strides, into `c`, a
/// row-major `m × n` buffer (overwritten), on path `isa` (which the CPU must support) with up
/// to `threads` threads of the pool. The bits of `c` depend on neither.
///
/// # Safety
/// `a` and `b` must describe `m × k` and `k × n` matrices that stay valid for the call, and
/// `isa.supported()` must hold.
pub unsafe fn gemm<T: Paths>(
    isa: Isa,
    threads: usize,
    m: usize,
    n: usize,
    k: usize,
    a: MatRef<T>,
    b: MatRef<T>,
    c: &mut [T],
) {
    assert_eq!(c.len(), m * n, "output size");
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        c.fill(T::ZERO);
        return;
    }
    let out = Out { ptr: c.as_mut_ptr(), ld: n };
    // Split the longer of the two free axes into one contiguous range per thread (whole
    // 16-row or 64-column runs, so every task keeps full tiles).
    let threads = threads.max(1);
    if threads == 1 {
        return T::task(isa, m, n, k, a, b, out);
    }
    let (split_rows, len, unit) = if m >= n { (true, m, 16) } else { (false, n, 64) };
    let per = len.div_ceil(threads).next_multiple_of(unit);
    let ranges: Vec<(usize, usize)> = (0..len).step_by(per).map(|s| (s, per.min(len - s))).collect();
    use rayon::prelude::*;
    ranges.into_par_iter().for_each(|(s, l)| {
        let out = out;
        // SAFETY: each task reads its own rows of A (or columns of B) and writes its own rows
        // (or columns) of C; the ranges are disjoint.
        unsafe {
            if split_rows {
                let a = MatRef { ptr: a.ptr.offset(s as isize * a.rs), ..a };
                T::task(isa, l, n, k, a, b, Out { ptr: out.ptr.add(s * out.ld), ld: out.ld })
            } else {
                let b = MatRef { ptr: b.ptr.offset(s as isize * b.cs), ..b };
                T::task(isa, m, l, k, a, b, Out { ptr: out.ptr.add(s), ld: out.ld })
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: each element summed exactly as the module comment says, one at a time.
    fn reference<T: Elem>(m: usize, n: usize, k: usize, a: &[T], b: &[T]) -> Vec<T> {
        let mut c = vec![T::ZERO; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut sum = T::ZERO;
                for p0 in (0..k).step_by(T::KC) {
                    let mut acc = T::ZERO;
                    for p in p0..(p0 + T::KC).min(k) {
                        acc = a[i * k + p].mul_add(b[p * n + j], acc);
                    }
                    sum = if p0 == 0 { acc } else { sum.add(acc) };
                }
                c[i * n + j] = sum;
            }
        }
        c
    }

    fn values(len: usize, seed: u64) -> Vec<f64> {
        // A small LCG: values spread over several binades, so that the order of a sum shows.
        let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..len)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let u = (s >> 11) as f64 / (1u64 << 53) as f64;
                (u - 0.5) * 2f64.powi(((s >> 3) % 9) as i32 - 4)
            })
            .collect()
    }

    fn check<T: Paths>(cast: impl Fn(f64) -> T, bits: impl Fn(T) -> u64) {
        let sizes = [(1, 1, 1), (3, 5, 2), (7, 300, 9), (13, 257, 33), (50, 600, 70), (130, 513, 129), (33, 1, 17)];
        for (case, &(m, k, n)) in sizes.iter().enumerate() {
            let a: Vec<T> = values(m * k, case as u64).into_iter().map(&cast).collect();
            let b: Vec<T> = values(k * n, 100 + case as u64).into_iter().map(&cast).collect();
            let want: Vec<u64> = reference(m, n, k, &a, &b).into_iter().map(&bits).collect();
            let bt: Vec<T> = (0..n * k).map(|x| b[(x % k) * n + x / k]).collect();
            for isa in Isa::available() {
                for threads in [1, 2, 3] {
                    let mut c = vec![T::ZERO; m * n];
                    let (am, bm) = (
                        MatRef { ptr: a.as_ptr(), rs: k as isize, cs: 1 },
                        MatRef { ptr: b.as_ptr(), rs: n as isize, cs: 1 },
                    );
                    unsafe { gemm(isa, threads, m, n, k, am, bm, &mut c) };
                    let got: Vec<u64> = c.iter().map(|&x| bits(x)).collect();
                    assert!(got == want, "{m}x{k}x{n} on {isa:?} with {threads} threads differs from the reference");
                    // B read transposed through its strides: the same bits.
                    let btm = MatRef { ptr: bt.as_ptr(), rs: 1, cs: k as isize };
                    unsafe { gemm(isa, threads, m, n, k, am, btm, &mut c) };
                    let got: Vec<u64> = c.iter().map(|&x| bits(x)).collect();
                    assert!(got == want, "{m}x{k}x{n} (B transposed) on {isa:?} with {threads} threads differs");
                }
            }
        }
    }

    /// Every path this CPU can run, at 1–3 threads and with a strided operand, gives the
    /// reference's bits: the summation order is the module comment's on every path.
    #[test]
    fn every_path_and_thread_count_gives_the_reference_bits() {
        check::<f32>(|x| x as f32, |x| x.to_bits() as u64);
        check::<f64>(|x| x, |x| x.to_bits());
    }
}
