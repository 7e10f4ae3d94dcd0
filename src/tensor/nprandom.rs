//! NumPy's random bit generators and the draws built on them (docs/language.md "NumPy's
//! random numbers"), written from the published algorithms so that a seeded program draws
//! what NumPy 2 draws:
//!
//! - the legacy `RandomState` (and `np.random.seed`): the Mersenne Twister MT19937, seeded by
//!   Matsumoto and Nishimura's `init_genrand` for an int and `init_by_array` for a list of
//!   words; uniform doubles from two 32-bit words (27 + 26 bits); normals by Marsaglia's polar
//!   method, the second value of each pair kept for the next draw; bounded ints by masked
//!   rejection;
//! - `default_rng`'s `Generator`: PCG64 (a 128-bit LCG with the XSL-RR output), seeded through
//!   NumPy's `SeedSequence` hash; doubles from the top 53 bits of a 64-bit word; bounded ints
//!   by Lemire's multiply-and-reject; normals by the Marsaglia–Tsang ziggurat of 256 boxes
//!   whose tables are computed here (they agree with NumPy's to a few ulps, so normal draws
//!   agree to a few ulps rather than bit for bit).
//!
//! A generator's whole state is a vector of i64 words ([`Rng::encode`]), so the interpreter
//! can keep it in a NumPy array that the generator object owns.

use std::sync::OnceLock;

/// The Mersenne Twister MT19937, with the legacy normal's cached second value.
#[derive(Clone)]
pub struct Mt19937 {
    key: [u32; 624],
    pos: usize,
    gauss: Option<f64>,
}

impl Mt19937 {
    /// Seeded from one 32-bit word (`init_genrand`).
    pub fn from_u32(seed: u32) -> Mt19937 {
        let mut key = [0u32; 624];
        key[0] = seed;
        for i in 1..624 {
            let prev = key[i - 1];
            key[i] = 1_812_433_253u32.wrapping_mul(prev ^ (prev >> 30)).wrapping_add(i as u32);
        }
        Mt19937 { key, pos: 624, gauss: None }
    }

    /// Seeded from a list of 32-bit words (`init_by_array`).
    pub fn from_words(words: &[u32]) -> Mt19937 {
        let mut mt = Mt19937::from_u32(19_650_218);
        let k = &mut mt.key;
        let n = 624usize;
        let (mut i, mut j) = (1usize, 0usize);
        let len = words.len().max(1);
        for _ in 0..n.max(len) {
            let prev = k[i - 1] ^ (k[i - 1] >> 30);
            k[i] = (k[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(words.get(j).copied().unwrap_or(0))
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= n {
                k[0] = k[n - 1];
                i = 1;
            }
            if j >= len {
                j = 0;
            }
        }
        for _ in 0..n - 1 {
            let prev = k[i - 1] ^ (k[i - 1] >> 30);
            k[i] = (k[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= n {
                k[0] = k[n - 1];
                i = 1;
            }
        }
        k[0] = 0x8000_0000;
        mt.pos = 624;
        mt
    }

    /// The next 624 words of the sequence.
    fn twist(&mut self) {
        const UPPER: u32 = 0x8000_0000;
        const LOWER: u32 = 0x7fff_ffff;
        let k = &mut self.key;
        for i in 0..624 {
            let y = (k[i] & UPPER) | (k[(i + 1) % 624] & LOWER);
            let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
            k[i] = k[(i + 397) % 624] ^ (y >> 1) ^ mag;
        }
        self.pos = 0;
    }
}

/// PCG64: a 128-bit linear congruential state, each output its XSL-RR permutation; the
/// second half of a 64-bit word is kept for the next 32-bit draw, as NumPy does.
#[derive(Clone)]
pub struct Pcg64 {
    state: u128,
    inc: u128,
    half: Option<u32>,
}

const PCG_MULT: u128 = (0x2360_ed05_1fc6_5da4 << 64) | 0x4385_df64_9fcc_f645;

impl Pcg64 {
    /// Seeded as NumPy's `PCG64(SeedSequence(entropy))`: four 64-bit words of the sequence's
    /// state give the initial state (the first two) and the stream (the last two).
    pub fn from_entropy(entropy: &[u32]) -> Pcg64 {
        let w = seed_sequence(entropy, 8);
        let word = |i: usize| (w[2 * i] as u64 | (w[2 * i + 1] as u64) << 32) as u128;
        let (init_state, init_seq) = ((word(0) << 64) | word(1), (word(2) << 64) | word(3));
        let mut g = Pcg64 { state: 0, inc: (init_seq << 1) | 1, half: None };
        g.step();
        g.state = g.state.wrapping_add(init_state);
        g.step();
        g
    }

    fn step(&mut self) {
        self.state = self.state.wrapping_mul(PCG_MULT).wrapping_add(self.inc);
    }
}

/// NumPy's `SeedSequence(entropy).generate_state(n)` as 32-bit words: the entropy words
/// mixed into a pool of four by a multiply-xorshift hash, then drawn out by a second hash.
pub fn seed_sequence(entropy: &[u32], n: usize) -> Vec<u32> {
    const XSHIFT: u32 = 16;
    let mut hash_const = 0x43b0_d7e5u32;
    let mut hashmix = |v: u32| {
        let mut v = v ^ hash_const;
        hash_const = hash_const.wrapping_mul(0x931e_8875);
        v = v.wrapping_mul(hash_const);
        v ^ (v >> XSHIFT)
    };
    let mix = |x: u32, y: u32| {
        let r = 0xca01_f9ddu32.wrapping_mul(x).wrapping_sub(0x4973_f715u32.wrapping_mul(y));
        r ^ (r >> XSHIFT)
    };
    let mut pool = [0u32; 4];
    for (i, p) in pool.iter_mut().enumerate() {
        *p = hashmix(entropy.get(i).copied().unwrap_or(0));
    }
    for src in 0..4 {
        for dst in 0..4 {
            if src != dst {
                let h = hashmix(pool[src]);
                pool[dst] = mix(pool[dst], h);
            }
        }
    }
    for &e in entropy.iter().skip(4) {
        for dst in 0..4 {
            let h = hashmix(e);
            pool[dst] = mix(pool[dst], h);
        }
    }
    let mut hash_const = 0x8b51_f9ddu32;
    (0..n)
        .map(|i| {
            let mut v = pool[i % 4] ^ hash_const;
            hash_const = hash_const.wrapping_mul(0x58f3_8ded);
            v = v.wrapping_mul(hash_const);
            v ^ (v >> XSHIFT)
        })
        .collect()
}

/// An int as NumPy's `SeedSequence` reads it: its 32-bit words, lowest first (`[0]` for 0).
pub fn int_words(mut n: u128) -> Vec<u32> {
    let mut out = vec![];
    loop {
        out.push(n as u32);
        n >>= 32;
        if n == 0 {
            return out;
        }
    }
}

/// 128 bits of entropy from the operating system (the clock and the process id where
/// /dev/urandom cannot be read), as NumPy seeds a generator given no seed.
pub fn os_entropy() -> Vec<u32> {
    use std::io::Read;
    let mut buf = [0u8; 16];
    let ok = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut buf)).is_ok();
    if !ok {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        buf = (nanos ^ ((std::process::id() as u128) << 96)).to_le_bytes();
    }
    buf.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// A NumPy bit generator: the legacy one or `default_rng`'s.
#[derive(Clone)]
pub enum Rng {
    Legacy(Box<Mt19937>),
    Pcg(Pcg64),
}

impl Rng {
    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        match self {
            Rng::Legacy(mt) => {
                if mt.pos >= 624 {
                    mt.twist();
                }
                let mut y = mt.key[mt.pos];
                mt.pos += 1;
                y ^= y >> 11;
                y ^= (y << 7) & 0x9d2c_5680;
                y ^= (y << 15) & 0xefc6_0000;
                y ^ (y >> 18)
            }
            Rng::Pcg(g) => {
                if let Some(h) = g.half.take() {
                    return h;
                }
                let w = pcg_next(g);
                g.half = Some((w >> 32) as u32);
                w as u32
            }
        }
    }

    /// The next 64 random bits (the legacy generator: two words, the first the high half).
    pub fn next_u64(&mut self) -> u64 {
        match self {
            Rng::Legacy(_) => {
                let hi = self.next_u32() as u64;
                (hi << 32) | self.next_u32() as u64
            }
            Rng::Pcg(g) => pcg_next(g),
        }
    }

    /// A uniform double in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        match self {
            Rng::Legacy(_) => {
                let a = (self.next_u32() >> 5) as f64;
                let b = (self.next_u32() >> 6) as f64;
                (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
            }
            Rng::Pcg(g) => (pcg_next(g) >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0),
        }
    }

    /// A standard normal: the legacy generator's polar method (with its cached second value),
    /// `Generator`'s ziggurat.
    pub fn normal(&mut self) -> f64 {
        match self {
            Rng::Legacy(mt) => {
                if let Some(g) = mt.gauss.take() {
                    return g;
                }
                let (x1, x2, r2) = loop {
                    let x1 = 2.0 * self.next_f64() - 1.0;
                    let x2 = 2.0 * self.next_f64() - 1.0;
                    let r2 = x1 * x1 + x2 * x2;
                    if r2 < 1.0 && r2 != 0.0 {
                        break (x1, x2, r2);
                    }
                };
                let f = (-2.0 * r2.ln() / r2).sqrt();
                if let Rng::Legacy(mt) = self {
                    mt.gauss = Some(f * x1);
                }
                f * x2
            }
            Rng::Pcg(_) => self.ziggurat(),
        }
    }

    /// The ziggurat: a 64-bit word gives the box (8 bits), the sign (1) and a 52-bit
    /// magnitude; most draws end at the first comparison.
    fn ziggurat(&mut self) -> f64 {
        let t = tables();
        loop {
            let r = self.next_u64();
            let idx = (r & 0xff) as usize;
            let r = r >> 8;
            let negative = r & 1 == 1;
            let rabs = (r >> 1) & 0x000f_ffff_ffff_ffff;
            let x = if negative { -(rabs as f64 * t.w[idx]) } else { rabs as f64 * t.w[idx] };
            if rabs < t.k[idx] {
                return x;
            }
            if idx == 0 {
                // The tail beyond R, by Marsaglia's exponential rejection.
                loop {
                    let xx = -ZIG_INV_R * (-self.next_f64()).ln_1p();
                    let yy = -(-self.next_f64()).ln_1p();
                    if yy + yy > xx * xx {
                        return if (rabs >> 8) & 1 == 1 { -(ZIG_R + xx) } else { ZIG_R + xx };
                    }
                }
            }
            if (t.f[idx - 1] - t.f[idx]) * self.next_f64() + t.f[idx] < (-0.5 * x * x).exp() {
                return x;
            }
        }
    }

    /// A uniform int in `0..=max` by masked rejection (the legacy `randint`): draws of 32 bits
    /// while `max` fits them, of 64 past that.
    pub fn masked(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        let mask = fill_bits(max);
        if max <= u32::MAX as u64 {
            loop {
                let v = self.next_u32() as u64 & mask;
                if v <= max {
                    return v;
                }
            }
        }
        loop {
            let v = self.next_u64() & mask;
            if v <= max {
                return v;
            }
        }
    }

    /// A uniform int in `0..=max` by Lemire's method (`Generator.integers`): a 32-bit draw
    /// times the range, rejected below the threshold that makes each result equally likely.
    pub fn lemire(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        if max <= u32::MAX as u64 {
            if max == u32::MAX as u64 {
                return self.next_u32() as u64;
            }
            let range = max + 1;
            let mut m = self.next_u32() as u64 * range;
            if (m & 0xffff_ffff) < range {
                let threshold = (u32::MAX as u64 - max) % range;
                while (m & 0xffff_ffff) < threshold {
                    m = self.next_u32() as u64 * range;
                }
            }
            return m >> 32;
        }
        if max == u64::MAX {
            return self.next_u64();
        }
        let range = max as u128 + 1;
        let mut m = self.next_u64() as u128 * range;
        if (m as u64 as u128) < range {
            let threshold = (u64::MAX - max) as u128 % range;
            while (m as u64 as u128) < threshold {
                m = self.next_u64() as u128 * range;
            }
        }
        (m >> 64) as u64
    }

    /// A binomial draw of `n` trials with success probability `p` (NumPy's recipe for both
    /// generators): inversion of the distribution function while the mean of the rarer
    /// outcome is at most 30, else Kachitvichyanukul and Schmeiser's BTPE; for `p > 0.5` the
    /// count of the rarer outcome subtracted from `n`.
    pub fn binomial(&mut self, n: i64, p: f64) -> i64 {
        if n == 0 || p == 0.0 {
            return 0;
        }
        let (r, flip) = if p <= 0.5 { (p, false) } else { (1.0 - p, true) };
        let y = if r * n as f64 <= 30.0 { self.binomial_inversion(n, r) } else { self.binomial_btpe(n, r) };
        if flip {
            n - y
        } else {
            y
        }
    }

    fn binomial_inversion(&mut self, n: i64, p: f64) -> i64 {
        let q = 1.0 - p;
        let qn = (n as f64 * q.ln()).exp();
        let mean = n as f64 * p;
        let bound = (n as f64).min(mean + 10.0 * (mean * q + 1.0).sqrt());
        let (mut x, mut px, mut u) = (0i64, qn, self.next_f64());
        while u > px {
            x += 1;
            if x as f64 > bound {
                x = 0;
                px = qn;
                u = self.next_f64();
            } else {
                u -= px;
                px = ((n - x + 1) as f64 * p * px) / (x as f64 * q);
            }
        }
        x
    }

    fn binomial_btpe(&mut self, n: i64, p: f64) -> i64 {
        let nf = n as f64;
        let (r, q) = (p, 1.0 - p);
        let fm = nf * r + r;
        let m = fm.floor();
        let p1 = (2.195 * (nf * r * q).sqrt() - 4.6 * q).floor() + 0.5;
        let (xm, c) = (m + 0.5, 0.134 + 20.5 / (15.3 + m));
        let (xl, xr) = (xm - p1, xm + p1);
        let a = (fm - xl) / (fm - xl * r);
        let laml = a * (1.0 + a / 2.0);
        let a = (xr - fm) / (xr * q);
        let lamr = a * (1.0 + a / 2.0);
        let p2 = p1 * (1.0 + 2.0 * c);
        let p3 = p2 + c / laml;
        let p4 = p3 + c / lamr;
        let nrq = nf * r * q;
        let stirling = |a: f64| {
            let a2 = a * a;
            (13860. - (462. - (132. - (99. - 140. / a2) / a2) / a2) / a2) / a / 166320.
        };
        loop {
            let u = self.next_f64() * p4;
            let mut v = self.next_f64();
            let y;
            if u <= p1 {
                return (xm - p1 * v + u).floor() as i64;
            } else if u <= p2 {
                let x = xl + (u - p1) / c;
                v = v * c + 1.0 - (m - x + 0.5).abs() / p1;
                if v > 1.0 {
                    continue;
                }
                y = x.floor();
            } else if u <= p3 {
                y = (xl + v.ln() / laml).floor();
                if y < 0.0 || v == 0.0 {
                    continue;
                }
                v *= (u - p2) * laml;
            } else {
                y = (xr - v.ln() / lamr).floor();
                if y > nf || v == 0.0 {
                    continue;
                }
                v *= (u - p3) * lamr;
            }
            let k = (y - m).abs();
            if !(k > 20.0 && k < nrq / 2.0 - 1.0) {
                // The ratio of the probabilities of y and m, multiplied out.
                let s = r / q;
                let a = s * (nf + 1.0);
                let mut f = 1.0;
                let (mi, yi) = (m as i64, y as i64);
                if mi < yi {
                    for i in mi + 1..=yi {
                        f *= a / i as f64 - s;
                    }
                } else if mi > yi {
                    for i in yi + 1..=mi {
                        f /= a / i as f64 - s;
                    }
                }
                if v > f {
                    continue;
                }
                return yi;
            }
            // Squeeze, then the bound from Stirling's formula.
            let rho = (k / nrq) * ((k * (k / 3.0 + 0.625) + 0.16666666666666666) / nrq + 0.5);
            let t = -k * k / (2.0 * nrq);
            let big_a = v.ln();
            if big_a < t - rho {
                return y as i64;
            }
            if big_a > t + rho {
                continue;
            }
            let (x1, f1, z, w) = (y + 1.0, m + 1.0, nf + 1.0 - m, nf - y + 1.0);
            let bound = xm * (f1 / x1).ln()
                + (nf - m + 0.5) * (z / w).ln()
                + (y - m) * (w * r / (x1 * q)).ln()
                + stirling(f1)
                + stirling(z)
                + stirling(x1)
                + stirling(w);
            if big_a > bound {
                continue;
            }
            return y as i64;
        }
    }

    /// A standard exponential: the legacy generator's `-ln(1 - U)`, `Generator`'s ziggurat of
    /// 256 boxes (tables computed here, as the normal's).
    pub fn std_exp(&mut self) -> f64 {
        match self {
            Rng::Legacy(_) => -(1.0 - self.next_f64()).ln(),
            Rng::Pcg(_) => self.exp_ziggurat(),
        }
    }

    fn exp_ziggurat(&mut self) -> f64 {
        let t = exp_tables();
        loop {
            let ri = self.next_u64() >> 3;
            let idx = (ri & 0xff) as usize;
            let ri = ri >> 8;
            let x = ri as f64 * t.w[idx];
            if ri < t.k[idx] {
                return x;
            }
            if idx == 0 {
                return EXP_R - (-self.next_f64()).ln_1p();
            }
            if (t.f[idx - 1] - t.f[idx]) * self.next_f64() + t.f[idx] < (-x).exp() {
                return x;
            }
        }
    }

    /// A standard gamma draw of `shape` (NumPy's recipe for both generators, on each one's
    /// uniform, normal and exponential): the exponential for shape 1, Marsaglia and Tsang's
    /// squeeze for shape > 1, and a rejection from the exponential below 1.
    pub fn gamma(&mut self, shape: f64) -> f64 {
        if shape == 1.0 {
            return self.std_exp();
        }
        if shape == 0.0 {
            return 0.0;
        }
        if shape < 1.0 {
            loop {
                let u = self.next_f64();
                let v = self.std_exp();
                if u <= 1.0 - shape {
                    let x = u.powf(1.0 / shape);
                    if x <= v {
                        return x;
                    }
                } else {
                    let y = -((1.0 - u) / shape).ln();
                    let x = (1.0 - shape + shape * y).powf(1.0 / shape);
                    if x <= v + y {
                        return x;
                    }
                }
            }
        }
        let b = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * b).sqrt();
        loop {
            let (x, mut v) = loop {
                let x = self.normal();
                let v = 1.0 + c * x;
                if v > 0.0 {
                    break (x, v);
                }
            };
            v = v * v * v;
            let u = self.next_f64();
            if u < 1.0 - 0.0331 * (x * x) * (x * x) {
                return b * v;
            }
            if u.ln() < 0.5 * x * x + b * (1.0 - v + v.ln()) {
                return b * v;
            }
        }
    }

    /// A beta draw: Johnk's algorithm when both parameters are at most 1, else the ratio of
    /// two gammas (NumPy's recipe for both generators).
    pub fn beta(&mut self, a: f64, b: f64) -> f64 {
        if a <= 1.0 && b <= 1.0 {
            loop {
                let (u, v) = (self.next_f64(), self.next_f64());
                let (x, y) = (u.powf(1.0 / a), v.powf(1.0 / b));
                if x + y <= 1.0 && u + v > 0.0 {
                    if x + y > 0.0 {
                        return x / (x + y);
                    }
                    let (lx, ly) = (u.ln() / a, v.ln() / b);
                    let m = lx.max(ly);
                    let (lx, ly) = (lx - m, ly - m);
                    return (lx - (lx.exp() + ly.exp()).ln()).exp();
                }
            }
        }
        let ga = self.gamma(a);
        let gb = self.gamma(b);
        ga / (ga + gb)
    }

    /// A Poisson draw of mean `lam`: multiplication of uniforms below 10, Hörmann's PTRS
    /// transformed rejection from 10 (NumPy's recipe for both generators).
    pub fn poisson(&mut self, lam: f64) -> i64 {
        if lam == 0.0 {
            return 0;
        }
        if lam < 10.0 {
            let enlam = (-lam).exp();
            let (mut x, mut prod) = (0, 1.0);
            loop {
                prod *= self.next_f64();
                if prod > enlam {
                    x += 1;
                } else {
                    return x;
                }
            }
        }
        let (slam, loglam) = (lam.sqrt(), lam.ln());
        let b = 0.931 + 2.53 * slam;
        let a = -0.059 + 0.02483 * b;
        let invalpha = 1.1239 + 1.1328 / (b - 3.4);
        let vr = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = self.next_f64() - 0.5;
            let v = self.next_f64();
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lam + 0.43).floor() as i64;
            if us >= 0.07 && v <= vr {
                return k;
            }
            if k < 0 || (us < 0.013 && v > us) {
                continue;
            }
            if v.ln() + invalpha.ln() - (a / (us * us) + b).ln() <= -lam + k as f64 * loglam - loggam(k as f64 + 1.0) {
                return k;
            }
        }
    }

    /// A geometric draw (trials to the first success, probability `p`): a search of the
    /// distribution function from p = 1/3, else inversion (the legacy generator's of a uniform,
    /// `Generator`'s of an exponential).
    pub fn geometric(&mut self, p: f64) -> i64 {
        if p >= 1.0 / 3.0 || p == 1.0 {
            let (mut x, mut sum, mut prod, q) = (1i64, p, p, 1.0 - p);
            let u = self.next_f64();
            while u > sum {
                prod *= q;
                sum += prod;
                x += 1;
            }
            return x;
        }
        let z = match self {
            Rng::Legacy(_) => ((-self.next_f64()).ln_1p() / (1.0 - p).ln()).ceil(),
            Rng::Pcg(_) => (-self.std_exp() / (-p).ln_1p()).ceil(),
        };
        if z >= 9.223_372_036_854_776e18 {
            i64::MAX
        } else {
            z as i64
        }
    }

    /// A Laplace draw: `loc ∓ scale·ln(2U)` by the half the uniform falls in (U = 0 redrawn).
    pub fn laplace(&mut self, loc: f64, scale: f64) -> f64 {
        loop {
            let u = self.next_f64();
            if u >= 0.5 {
                return loc - scale * (2.0 - u - u).ln();
            }
            if u > 0.0 {
                return loc + scale * (u + u).ln();
            }
        }
    }

    /// A logistic draw: `loc + scale·ln(U / (1 - U))` (U = 0 redrawn).
    pub fn logistic(&mut self, loc: f64, scale: f64) -> f64 {
        loop {
            let u = self.next_f64();
            if u > 0.0 {
                return loc + scale * (u / (1.0 - u)).ln();
            }
        }
    }

    /// The legacy generator's words as NumPy's `get_state()` gives them: the 624 key words,
    /// the position, and the cached second normal (`None` for a `Generator`).
    pub fn mt_state(&self) -> Option<([u32; 624], usize, Option<f64>)> {
        match self {
            Rng::Legacy(mt) => Some((mt.key, mt.pos, mt.gauss)),
            Rng::Pcg(_) => None,
        }
    }

    /// The legacy generator of a state NumPy's `set_state` takes.
    pub fn from_mt_state(key: [u32; 624], pos: usize, gauss: Option<f64>) -> Rng {
        Rng::Legacy(Box::new(Mt19937 { key, pos: pos.min(624), gauss }))
    }

    /// The swap partner of position `max` in a shuffle (NumPy's `random_interval`: masked
    /// rejection, by either generator's `shuffle` and `permutation`).
    pub fn interval(&mut self, max: u64) -> u64 {
        self.masked(max)
    }

    /// The generator's state as words (the first says which generator).
    pub fn encode(&self) -> Vec<i64> {
        match self {
            Rng::Legacy(mt) => {
                let mut out = vec![0, mt.pos as i64, mt.gauss.is_some() as i64, mt.gauss.unwrap_or(0.0).to_bits() as i64];
                out.extend(mt.key.iter().map(|&k| k as i64));
                out
            }
            Rng::Pcg(g) => vec![
                1,
                (g.state >> 64) as i64,
                g.state as u64 as i64,
                (g.inc >> 64) as i64,
                g.inc as u64 as i64,
                g.half.is_some() as i64,
                g.half.unwrap_or(0) as i64,
            ],
        }
    }

    /// The generator whose state [`Rng::encode`] gave (`None` for words that are not one).
    pub fn decode(w: &[i64]) -> Option<Rng> {
        match w.first()? {
            0 if w.len() == 628 => {
                let mut key = [0u32; 624];
                for (k, &v) in key.iter_mut().zip(&w[4..]) {
                    *k = v as u32;
                }
                let gauss = (w[2] != 0).then(|| f64::from_bits(w[3] as u64));
                Some(Rng::Legacy(Box::new(Mt19937 { key, pos: (w[1] as usize).min(624), gauss })))
            }
            1 if w.len() == 7 => {
                let join = |hi: i64, lo: i64| ((hi as u64 as u128) << 64) | lo as u64 as u128;
                let half = (w[5] != 0).then_some(w[6] as u32);
                Some(Rng::Pcg(Pcg64 { state: join(w[1], w[2]), inc: join(w[3], w[4]), half }))
            }
            _ => None,
        }
    }
}

fn pcg_next(g: &mut Pcg64) -> u64 {
    g.step();
    let (hi, lo) = ((g.state >> 64) as u64, g.state as u64);
    (hi ^ lo).rotate_right((hi >> 58) as u32)
}

/// `n` with every bit below its highest set.
fn fill_bits(n: u64) -> u64 {
    let mut m = n;
    for s in [1, 2, 4, 8, 16, 32] {
        m |= m >> s;
    }
    m
}

/// The ziggurat's rightmost box edge R and its reciprocal.
const ZIG_R: f64 = 3.654_152_885_361_008_8;
const ZIG_INV_R: f64 = 0.273_661_237_329_758_27;
/// The area of each box: R·f(R) plus the tail's ∫_R^∞ f, f(x) = exp(-x²/2).
const ZIG_V: f64 = 0.004_928_673_233_974_655;

/// The ziggurat's tables: `k` the magnitude below which a draw in each box is accepted at
/// once, `w` the scale from a 52-bit magnitude to x, `f` the density at each box's edge.
struct Tables {
    k: [u64; 256],
    w: [f64; 256],
    f: [f64; 256],
}

/// The tables, computed once: box edges x_i from R inwards, each the x whose box
/// (x_{i+1} wide, from f(x_{i+1}) up to f(x_i)) has area V.
fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let f = |x: f64| (-0.5 * x * x).exp();
        let m = 4_503_599_627_370_496.0; // 2^52
        let mut t = Tables { k: [0; 256], w: [0.0; 256], f: [0.0; 256] };
        let mut dn = ZIG_R;
        let mut tn = dn;
        let q = ZIG_V / f(dn);
        t.k[0] = ((dn / q) * m) as u64;
        t.k[1] = 0;
        t.w[0] = q / m;
        t.w[255] = dn / m;
        t.f[0] = 1.0;
        t.f[255] = f(dn);
        for i in (1..255).rev() {
            dn = (-2.0 * (ZIG_V / dn + f(dn)).ln()).sqrt();
            t.k[i + 1] = ((dn / tn) * m) as u64;
            tn = dn;
            t.f[i] = f(dn);
            t.w[i] = dn / m;
        }
        t
    })
}

/// `ln Γ(x)` by Stirling's series with NumPy's ten coefficients, shifted up to x >= 7 (what
/// NumPy's Poisson rejection compares against, so the draws match).
fn loggam(x: f64) -> f64 {
    const A: [f64; 10] = [
        8.333333333333333e-02,
        -2.777777777777778e-03,
        7.936507936507937e-04,
        -5.952380952380952e-04,
        8.417508417508418e-04,
        -1.917526917526918e-03,
        6.410256410256410e-03,
        -2.955065359477124e-02,
        1.796443723688307e-01,
        -1.39243221690590e+00,
    ];
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    let n = if x < 7.0 { (7.0 - x) as i64 } else { 0 };
    let mut x0 = x + n as f64;
    let x2 = (1.0 / x0) * (1.0 / x0);
    let mut gl0 = A[9];
    for k in (0..9).rev() {
        gl0 *= x2;
        gl0 += A[k];
    }
    let mut gl = gl0 / x0 + 0.5 * (2.0 * std::f64::consts::PI).ln() + (x0 - 0.5) * x0.ln() - x0;
    if x < 7.0 {
        for _ in 1..=n {
            gl -= (x0 - 1.0).ln();
            x0 -= 1.0;
        }
    }
    gl
}

/// The exponential ziggurat's rightmost box edge and the area of each box.
const EXP_R: f64 = 7.697_117_470_131_05;
const EXP_V: f64 = 0.003_949_659_822_581_557_2;

/// The exponential ziggurat's tables (53-bit magnitudes), computed once as the normal's are.
fn exp_tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let m = 9_007_199_254_740_992.0; // 2^53
        let mut t = Tables { k: [0; 256], w: [0.0; 256], f: [0.0; 256] };
        let mut de = EXP_R;
        let mut te = de;
        let q = EXP_V / (-de).exp();
        t.k[0] = ((de / q) * m) as u64;
        t.k[1] = 0;
        t.w[0] = q / m;
        t.w[255] = de / m;
        t.f[0] = 1.0;
        t.f[255] = (-de).exp();
        for i in (1..255).rev() {
            de = -(EXP_V / de + (-de).exp()).ln();
            t.k[i + 1] = ((de / te) * m) as u64;
            te = de;
            t.f[i] = (-de).exp();
            t.w[i] = de / m;
        }
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_seed_42_draws_numpys_first_values() {
        let mut r = Rng::Legacy(Box::new(Mt19937::from_u32(42)));
        assert_eq!(r.next_f64(), 0.3745401188473625);
        let mut p = Rng::Pcg(Pcg64::from_entropy(&[42]));
        assert_eq!(p.next_f64(), 0.7739560485559633);
    }

    #[test]
    fn states_round_trip() {
        let mut r = Rng::Pcg(Pcg64::from_entropy(&[7]));
        r.next_u32();
        let mut s = Rng::decode(&r.encode()).expect("a state");
        assert_eq!(r.next_u64(), s.next_u64());
    }
}
