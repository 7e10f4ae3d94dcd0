//! Memory during backward, measured (`tape.stats()`'s `peak_backward_bytes`).
//!
//! The meter counts the bytes a backward pass keeps alive: the saved tensors its tape still
//! holds ([`SavedCounts`]: a tensor saved by several entries counts once), and the gradients
//! collected so far, the upstream gradients of the step running and the gradients that step
//! produced (a buffer held twice, such as a gradient passed through unchanged, counts once).
//! Backward passes nested in one another (a `recompute_grad` block differentiated during
//! the outer pass) share the meter, so the peak of the outermost pass includes every
//! recomputation's buffers. The numbers follow from this rule alone, so golden files can
//! pin them.

use crate::autodiff::tape::{Entry, Log, NO_SLOT};
use crate::tensor::Tensor;
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// What one `tape.gradient` call measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BackwardStats {
    /// The most bytes alive at once (see the module documentation).
    pub peak_bytes: usize,
    /// `recompute_grad` blocks run again, nested ones included.
    pub recompute_calls: usize,
    /// Operations those recomputations recorded.
    pub recomputed_ops: usize,
    /// Seconds spent running the blocks again (their forward passes).
    pub recompute_seconds: f64,
    /// `(entry, input)` of each `custom_gradient` input its `grad_fn` gave no gradient
    /// (`tape.explain`; this pass's own, not absorbed by an outer one).
    pub custom_none: Vec<(u32, u32)>,
}

impl BackwardStats {
    /// Adds a nested pass's recomputation counts to this one's.
    pub fn absorb(&mut self, inner: &BackwardStats) {
        self.recompute_calls += inner.recompute_calls;
        self.recomputed_ops += inner.recomputed_ops;
        self.recompute_seconds += inner.recompute_seconds;
    }
}

/// Buffers held, by address: for each, how many holds and its bytes. Few are held at once
/// (a pass's frontier of gradients, the constants and weights entries save), so they sit in
/// a short list searched from the end, cheaper than hashing for B1's scalar chains; past
/// [`FEW`] they move to a hash table.
#[derive(Debug, Default)]
struct Holds {
    few: Vec<(usize, u32, usize)>,
    many: FxHashMap<usize, (u32, usize)>,
}

/// Past this many buffers held, [`Holds`] hashes them.
const FEW: usize = 32;

impl Holds {
    /// One more hold of buffer `key`; its bytes (asked for only then) when it is the first.
    #[inline]
    fn hold(&mut self, key: usize, bytes: impl FnOnce() -> usize) -> Option<usize> {
        if self.many.is_empty() {
            if let Some(i) = self.few.iter().rposition(|e| e.0 == key) {
                self.few[i].1 += 1;
                return None;
            }
            let b = bytes();
            if self.few.len() < FEW {
                self.few.push((key, 1, b));
            } else {
                self.many.extend(self.few.drain(..).map(|(k, n, b)| (k, (n, b))));
                self.many.insert(key, (1, b));
            }
            return Some(b);
        }
        let e = self.many.entry(key).or_insert((0, 0));
        e.0 += 1;
        if e.0 > 1 {
            return None;
        }
        e.1 = bytes();
        Some(e.1)
    }

    /// One hold of buffer `key` less; its bytes when that was the last.
    #[inline]
    fn release(&mut self, key: usize) -> Option<usize> {
        if self.many.is_empty() {
            let i = self.few.iter().rposition(|e| e.0 == key)?;
            self.few[i].1 -= 1;
            if self.few[i].1 > 0 {
                return None;
            }
            return Some(self.few.swap_remove(i).2);
        }
        let e = self.many.get_mut(&key)?;
        e.0 -= 1;
        if e.0 > 0 {
            return None;
        }
        self.many.remove(&key).map(|e| e.1)
    }
}

/// The bytes alive in the running backward passes: the saved bytes their tapes hold
/// ([`Meter::add`], [`Meter::sub`]) and the gradient buffers alive ([`Meter::hold`]).
#[derive(Debug, Default)]
pub struct Meter {
    grads: Holds,
    /// Bytes of the buffers held now.
    pub total: usize,
    /// The most `total` has been since [`Meter::start`].
    pub peak: usize,
}

impl Meter {
    /// One more hold of `t`'s buffer; its bytes count from the first.
    #[inline]
    pub fn hold(&mut self, t: &Tensor) {
        if let Some(b) = self.grads.hold(Rc::as_ptr(&t.data) as usize, || t.nbytes()) {
            self.add(b);
        }
    }

    /// One hold of `t`'s buffer less; its bytes stop counting with the last.
    #[inline]
    pub fn release(&mut self, t: &Tensor) {
        self.release_key(Rc::as_ptr(&t.data) as usize);
    }

    /// [`Meter::release`] by the buffer's address.
    #[inline]
    pub fn release_key(&mut self, key: usize) {
        if let Some(b) = self.grads.release(key) {
            self.sub(b);
        }
    }

    /// Saved bytes a tape starts holding.
    pub fn add(&mut self, bytes: usize) {
        self.total += bytes;
        self.peak = self.peak.max(self.total);
    }

    /// Saved bytes a tape stops holding.
    pub fn sub(&mut self, bytes: usize) {
        self.total = self.total.saturating_sub(bytes);
    }

    /// Starts measuring a pass: returns the peak so far, for [`Meter::finish`].
    pub fn start(&mut self) -> usize {
        std::mem::replace(&mut self.peak, self.total)
    }

    /// Ends a pass begun with [`Meter::start`]: returns its own peak and keeps the larger one.
    pub fn finish(&mut self, before: usize) -> usize {
        let mine = self.peak;
        self.peak = self.peak.max(before);
        mine
    }
}

/// How many entries of one tape save each tensor, so that a tensor saved by several entries
/// counts once: by output slot for a tensor some entry of the tape produced (a dense table),
/// by buffer for the others (sources, Variables, constants: few).
#[derive(Debug)]
pub struct SavedCounts {
    by_slot: Vec<u32>,
    other: FxHashMap<usize, u32>,
    /// Bytes of the tensors counted now.
    pub bytes: usize,
}

impl SavedCounts {
    /// Counts every tensor the entries of `log` save, adding their bytes to the meter.
    pub fn new(log: &Log, meter: &mut Meter) -> SavedCounts {
        let mut c = SavedCounts { by_slot: vec![0; log.slot_entry.len()], other: FxHashMap::default(), bytes: 0 };
        for e in &log.entries {
            e.op.for_each_saved(|t| c.hold(e, t));
        }
        meter.add(c.bytes);
        c
    }

    /// The output slot of this tape that produced `t`, as entry `e` sees it.
    fn slot(&self, e: &Entry, t: &Tensor) -> Option<usize> {
        let s = e
            .inputs
            .iter()
            .find(|x| x.id == t.id && x.slot != NO_SLOT)
            .map(|x| x.slot as usize)
            .or_else(|| e.outputs.iter().position(|o| o.id == t.id).map(|k| e.first_slot as usize + k))?;
        (s < self.by_slot.len()).then_some(s)
    }

    fn hold(&mut self, e: &Entry, t: &Tensor) {
        match self.slot(e, t) {
            Some(s) => {
                self.by_slot[s] += 1;
                if self.by_slot[s] == 1 {
                    self.bytes += t.nbytes();
                }
            }
            None => {
                let n = self.other.entry(Rc::as_ptr(&t.data) as usize).or_insert(0);
                *n += 1;
                if *n == 1 {
                    self.bytes += t.nbytes();
                }
            }
        }
    }

    /// Entry `e` lets go of its saved tensors: those no other entry saves stop counting.
    pub fn release(&mut self, e: &Entry, meter: &mut Meter) {
        e.op.for_each_saved(|t| {
            let freed = match self.slot(e, t) {
                Some(s) if self.by_slot[s] > 0 => {
                    self.by_slot[s] -= 1;
                    (self.by_slot[s] == 0).then(|| t.nbytes())
                }
                Some(_) => None,
                None => match self.other.get_mut(&(Rc::as_ptr(&t.data) as usize)) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        (*n == 0).then(|| t.nbytes())
                    }
                    _ => None,
                },
            };
            if let Some(b) = freed {
                self.bytes -= b;
                meter.sub(b);
            }
        });
    }
}
