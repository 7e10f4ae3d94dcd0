//! The random state of a running program: the global stream (`set_seed`) that unseeded random
//! ops draw from, and the op-seeded streams of ops called with `seed=`.
//!
//! TF's rule, kept here: with a global seed `g` (set_seed) and an op seed `s`, an op's draws are
//! a function of `(g, s)` and of how many times that op was called with that seed since
//! `set_seed`; they do not disturb the global stream or one another. Values differ from TF's
//! (another generator); the rule and the distributions are the same. The whole state is one
//! value, so `recompute_grad` saves it at the forward call and replays it (docs/language.md §5).

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;

/// The generator state: the global stream and the op-seeded call counts.
#[derive(Clone, Debug)]
pub struct RandomState {
    /// The global stream: what unseeded ops draw from (bit-identical to the generator
    /// `set_seed(n)` has always made).
    rng: ChaCha8Rng,
    /// The global seed (0 before any `set_seed`, the seed the program starts with).
    global: i64,
    /// For each (op name, op seed), the calls made since `set_seed`.
    calls: FxHashMap<(&'static str, i64), u64>,
}

impl Default for RandomState {
    fn default() -> RandomState {
        RandomState::seeded(0)
    }
}

/// SplitMix64's finaliser: spreads one 64-bit value over all bits.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl RandomState {
    /// The state after `set_seed(seed)`: a fresh global stream, every op-seed count at zero.
    pub fn seeded(seed: i64) -> RandomState {
        RandomState { rng: ChaCha8Rng::seed_from_u64(seed as u64), global: seed, calls: FxHashMap::default() }
    }

    /// The stream one call of `op` draws from: the global stream without an op seed, else a
    /// fresh generator keyed by (global seed, op, op seed, this call's number).
    pub fn stream(&mut self, op: &'static str, seed: Option<i64>) -> Stream<'_> {
        match seed {
            None => Stream::Global(&mut self.rng),
            Some(s) => {
                let count = self.calls.entry((op, s)).or_insert(0);
                let call = *count;
                *count += 1;
                let name =
                    op.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
                let key = mix(mix(mix(self.global as u64) ^ s as u64) ^ name);
                let mut rng = ChaCha8Rng::seed_from_u64(key);
                rng.set_stream(call);
                Stream::Seeded(Box::new(rng))
            }
        }
    }
}

/// Where one random op draws from (see [`RandomState::stream`]).
pub enum Stream<'a> {
    Global(&'a mut ChaCha8Rng),
    Seeded(Box<ChaCha8Rng>),
}

impl RngCore for Stream<'_> {
    fn next_u32(&mut self) -> u32 {
        match self {
            Stream::Global(r) => r.next_u32(),
            Stream::Seeded(r) => r.next_u32(),
        }
    }

    fn next_u64(&mut self) -> u64 {
        match self {
            Stream::Global(r) => r.next_u64(),
            Stream::Seeded(r) => r.next_u64(),
        }
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        match self {
            Stream::Global(r) => r.fill_bytes(dst),
            Stream::Seeded(r) => r.fill_bytes(dst),
        }
    }
}

/// Unseeded draws straight from the global stream (code that predates op seeds).
impl RngCore for RandomState {
    fn next_u32(&mut self) -> u32 {
        self.rng.next_u32()
    }

    fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.rng.fill_bytes(dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn op_seeds_follow_global_seed_op_seed_and_call_count() {
        let draw = |st: &mut RandomState, op, s| st.stream(op, s).random::<u64>();
        let mut a = RandomState::seeded(7);
        let (a1, a2) = (draw(&mut a, "x", Some(1)), draw(&mut a, "x", Some(1)));
        assert_ne!(a1, a2, "the second call draws anew");
        let mut b = RandomState::seeded(7);
        let g = draw(&mut b, "x", None);
        assert_eq!(draw(&mut b, "x", Some(1)), a1, "unseeded draws do not disturb op seeds");
        assert_ne!(draw(&mut b, "y", Some(1)), a2, "each op counts its own calls");
        assert_eq!(draw(&mut b, "x", Some(1)), a2);
        let mut c = RandomState::seeded(7);
        draw(&mut c, "x", Some(1));
        assert_eq!(draw(&mut c, "x", None), g, "seeded draws do not disturb the global stream");
        assert_ne!(draw(&mut RandomState::seeded(8), "x", Some(1)), a1, "the global seed matters");
    }

    #[test]
    fn the_global_stream_is_set_seeds_generator() {
        let mut st = RandomState::seeded(42);
        let mut r = ChaCha8Rng::seed_from_u64(42);
        assert_eq!(st.random::<f64>(), r.random::<f64>());
    }
}
