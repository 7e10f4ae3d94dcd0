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

use super::tape::{Entry, Log, NO_SLOT};
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

/// The bytes alive in the running backward passes: the saved bytes their tapes hold, and
/// the gradient buffers alive (for each, how many holds and its bytes: few at a time).
#[derive(Debug, Default)]
pub struct Meter {
    live: FxHashMap<usize, (u32, usize)>,
    /// Bytes of the buffers held now.
    pub total: usize,
    /// The most `total` has been since [`Meter::start`].
    pub peak: usize,
}

impl Meter {
    /// One more hold of `t`'s buffer; its bytes count from the first.
    #[inline]
    pub fn hold(&mut self, t: &Tensor) {
        let e = self.live.entry(Rc::as_ptr(&t.data) as usize).or_insert((0, 0));
        if e.0 == 0 {
            e.1 = t.nbytes();
            self.total += e.1;
            self.peak = self.peak.max(self.total);
        }
        e.0 += 1;
    }

    /// One hold of `t`'s buffer less; its bytes stop counting with the last.
    #[inline]
    pub fn release(&mut self, t: &Tensor) {
        let key = Rc::as_ptr(&t.data) as usize;
        if let Some(e) = self.live.get_mut(&key) {
            e.0 -= 1;
            if e.0 == 0 {
                self.total -= e.1;
                self.live.remove(&key);
            }
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

    fn count(&mut self, e: &Entry, t: &Tensor) -> &mut u32 {
        let slot = e
            .inputs
            .iter()
            .find(|x| x.id == t.id && x.slot != NO_SLOT)
            .map(|x| x.slot as usize)
            .or_else(|| e.outputs.iter().position(|o| o.id == t.id).map(|k| e.first_slot as usize + k));
        match slot {
            Some(s) if s < self.by_slot.len() => &mut self.by_slot[s],
            _ => self.other.entry(Rc::as_ptr(&t.data) as usize).or_insert(0),
        }
    }

    fn hold(&mut self, e: &Entry, t: &Tensor) {
        let n = self.count(e, t);
        *n += 1;
        if *n == 1 {
            self.bytes += t.nbytes();
        }
    }

    /// Entry `e` lets go of its saved tensors: those no other entry saves stop counting.
    pub fn release(&mut self, e: &Entry, meter: &mut Meter) {
        e.op.for_each_saved(|t| {
            let n = self.count(e, t);
            if *n > 0 {
                *n -= 1;
                if *n == 0 {
                    self.bytes -= t.nbytes();
                    meter.sub(t.nbytes());
                }
            }
        });
    }
}
