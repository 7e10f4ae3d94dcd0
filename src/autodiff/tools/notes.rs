//! What a recording tape sees besides its entries, kept for `tape.explain` (`explain.rs`) in
//! the tape's annex ([`Annotations`](super::Annotations)).
//!
//! A tape records an operation only when one of its inputs is watched (docs/language.md §5), so by
//! itself it cannot say what became of a tensor it never recorded. While it records it also
//! notes the operations it did not record (a push each, only for those), the operations with no
//! gradient (stop_gradient, integer casts, argmax/argmin, rounding, comparisons, `.numpy()`,
//! `.item()`, `float()`, `int()`: [`Recorder::note`](crate::autodiff::Recorder::note)), where it was entered, where each
//! tensor was watched, and which inputs a `custom_gradient` `grad_fn` gave no gradient.

use crate::autodiff::tape::Site;
use crate::tensor::kernels::Compare;
use crate::tensor::{fresh_id, Array, Tensor, TensorId};
use smallvec::SmallVec;
use std::rc::Weak;

/// At most this many unrecorded operations are noted per tape (about 7 MB); later ones are
/// dropped and `explain` says so.
const LIMIT: usize = 100_000;

/// One operation a recording tape ran past without recording it.
#[derive(Clone, Debug)]
pub struct Unrecorded {
    /// The operation's name as the user wrote it (`multiply`, `stop_gradient`, `.item()`).
    pub name: &'static str,
    /// An operation with no gradient: its outputs are constants to every tape.
    pub cut: bool,
    /// Its tensor inputs.
    pub inputs: SmallVec<[TensorId; 2]>,
    /// Its tensor outputs (none for `.numpy()` and `.item()`, whose results are Python numbers).
    pub outputs: SmallVec<[TensorId; 1]>,
    /// The statement that ran it.
    pub site: Site,
}

/// A `tape.watch` call: what, where, and how much the tape had seen by then.
#[derive(Clone, Copy, Debug)]
pub struct Watch {
    pub id: TensorId,
    pub site: Site,
    /// Entries recorded before it.
    pub entries: u32,
    /// Unrecorded operations noted before it.
    pub unrecorded: u32,
}

/// The notes of one tape (see the module documentation).
#[derive(Debug, Default)]
pub struct Notes {
    /// Where the tape was last entered, and an id made then: older ids existed before it.
    pub start: Option<(Site, TensorId)>,
    /// Operations run while the tape recorded that it did not record, in order.
    pub unrecorded: Vec<Unrecorded>,
    /// Whether `unrecorded` reached its limit (later operations were not noted).
    pub full: bool,
    /// `tape.watch` calls in order.
    pub watches: Vec<Watch>,
    /// The last `gradient` call's answer by source id (`None`: no gradient), not kept alive.
    pub last_grads: Vec<(TensorId, Option<Weak<Array>>)>,
    /// Whether `tape.reset()` has cleared the tape since it started.
    pub was_reset: bool,
}

impl Notes {
    /// The tape starts recording at `site`.
    pub fn started(&mut self, site: Site) {
        self.start = Some((site, fresh_id()));
    }

    /// Notes an operation the tape did not record (`cut`: one with no gradient).
    pub fn unrecorded(&mut self, name: &'static str, cut: bool, inputs: &[TensorId], outputs: &[&Tensor], site: Site) {
        if self.unrecorded.len() >= LIMIT {
            self.full = true;
            return;
        }
        self.unrecorded.push(Unrecorded {
            name,
            cut,
            inputs: inputs.iter().copied().filter(|&id| id != 0).collect(),
            outputs: outputs.iter().map(|t| t.id).collect(),
            site,
        });
    }

    /// Notes `tape.watch` of `id` at `site`, after `entries` recorded entries.
    pub fn watched(&mut self, id: TensorId, site: Site, entries: usize) {
        let unrecorded = self.unrecorded.len() as u32;
        self.watches.push(Watch { id, site, entries: entries as u32, unrecorded });
    }

    /// The first `tape.watch` of `id`.
    pub fn first_watch(&self, id: TensorId) -> Option<Watch> {
        self.watches.iter().find(|w| w.id == id).copied()
    }

    /// `tape.reset()`: forgets everything but where the tape started.
    pub fn clear(&mut self) {
        *self = Notes { start: self.start, was_reset: true, ..Notes::default() };
    }
}

/// The name a comparison is noted under (`comparison >`).
pub fn comparison_name(op: Compare) -> &'static str {
    match op {
        Compare::Lt => "comparison <",
        Compare::Le => "comparison <=",
        Compare::Gt => "comparison >",
        Compare::Ge => "comparison >=",
        Compare::Eq => "comparison ==",
        Compare::Ne => "comparison !=",
    }
}

#[cfg(test)]
mod tests {
    use crate::autodiff::recorder::Recorder;
    use crate::autodiff::tape::Tape;
    use crate::tensor::kernels::{Binary, Unary};
    use crate::tensor::{Array, DType, Tensor};
    use std::cell::RefCell;
    use std::rc::Rc;

    fn scalar(v: f64) -> Tensor {
        Tensor::new(Array::from_f64(DType::F32, &[], vec![v]))
    }

    /// Recorded operations add nothing to the notes; unrecorded ones and cuts are noted once
    /// each; with no tape recording, nothing is noted anywhere.
    #[test]
    fn only_what_the_tape_runs_past_is_noted() {
        let mut rec = Recorder::with_tools();
        let (x, c) = (scalar(2.0), scalar(3.0));
        rec.note("stop_gradient", &[&x], &[]);
        let tape = Rc::new(RefCell::new(Tape::new(false, true)));
        rec.enter(&tape).unwrap();
        tape.borrow_mut().watch(x.id);
        let y = rec.binary(Binary::Mul, &x, &c).unwrap();
        let _ = rec.unary(Unary::Sin, &y).unwrap();
        assert_eq!(tape.borrow().len(), 2);
        assert!(tape.borrow().notes().unrecorded.is_empty());
        let d = rec.binary(Binary::Mul, &c, &c).unwrap();
        let r = rec.unary(Unary::Round, &y).unwrap();
        let t = tape.borrow();
        let names: Vec<(&str, bool)> = t.notes().unrecorded.iter().map(|n| (n.name, n.cut)).collect();
        assert_eq!(names, [("multiply", false), ("round", true)]);
        assert_eq!(t.notes().unrecorded[0].outputs.as_slice(), [d.id]);
        assert_eq!(t.notes().unrecorded[1].inputs.as_slice(), [y.id]);
        assert_eq!(t.notes().unrecorded[1].outputs.as_slice(), [r.id]);
        drop(t);
        rec.exit(&tape);
        let _ = rec.binary(Binary::Mul, &c, &c).unwrap();
        rec.note("stop_gradient", &[&x], &[]);
        assert_eq!(tape.borrow().notes().unrecorded.len(), 2);
    }
}
