//! The recompute determinism check (`recompute_grad(f, check=True)`).
//!
//! While a checked function's forward pass runs, every operation it records leaves a
//! [`Fingerprint`] of its outputs (shape, dtype, a hash of the values) with the statement
//! that ran it. When the function is recomputed during `tape.gradient`, the operations it
//! records are compared with those fingerprints in order; the first that differs — or an
//! operation one run has and the other has not — is kept as a [`Mismatch`], which the host
//! raises once the recomputation returns, instead of differentiating different values.
//!
//! Checks nest: every check running sees every operation (an outer checked function's
//! fingerprints include those of the checked functions it calls). Operations that only one
//! of the two runs would record — because the forward pass runs with the tapes paused and
//! the recomputation under a local tape — are hidden from the checks with
//! [`Checks::suspend`] (a nested checkpoint's own entry, the stack a list conversion records
//! only for watched elements, tangents).
//!
//! PyTorch's checkpoint compares metadata (shapes, dtypes, devices) only; TensorFlow and
//! JAX check nothing.

use crate::autodiff::tape::{Dims, Op, Site};
use crate::tensor::{Array, DType, Tensor};
use smallvec::SmallVec;
use std::hash::Hasher;
use std::rc::Rc;

/// What one output of a checked operation looked like.
#[derive(Clone, Debug, PartialEq)]
pub struct Print {
    pub shape: Dims,
    pub dtype: DType,
    /// FxHash of the elements' bits in row-major order.
    pub hash: u64,
    /// The sum of the elements (in float64), to show how far two runs are apart.
    pub sum: f64,
}

/// One checked operation: its name, the statement that ran it, its outputs.
#[derive(Clone, Debug)]
pub struct Fingerprint {
    /// The operation's name ([`Op::static_name`]).
    pub op: &'static str,
    /// The user function of a `custom_gradient` entry.
    pub function: Option<Rc<str>>,
    pub site: Site,
    pub outputs: SmallVec<[Print; 1]>,
}

impl Fingerprint {
    /// The fingerprint of `op`'s `outputs`, recorded at `site`.
    pub fn of(op: &Op, outputs: &[&Tensor], site: Site) -> Fingerprint {
        Fingerprint {
            op: op.static_name(),
            function: op.function().cloned(),
            site,
            outputs: outputs.iter().map(|t| print_of(&t.data)).collect(),
        }
    }

    /// The operation's name as the user wrote it (with its function, if any).
    pub fn name(&self) -> String {
        match &self.function {
            Some(f) => format!("{} {f}", self.op),
            None => self.op.to_string(),
        }
    }
}

fn print_of(a: &Array) -> Print {
    let mut h = rustc_hash::FxHasher::default();
    let mut sum = 0.0;
    match a {
        Array::F32(x) => x.iter().for_each(|v| {
            h.write_u32(v.to_bits());
            sum += *v as f64;
        }),
        Array::F64(x) => x.iter().for_each(|v| {
            h.write_u64(v.to_bits());
            sum += *v;
        }),
        Array::I64(x) => x.iter().for_each(|v| {
            h.write_i64(*v);
            sum += *v as f64;
        }),
        Array::I32(x) => x.iter().for_each(|v| {
            h.write_i32(*v);
            sum += *v as f64;
        }),
        Array::Bool(x) => x.iter().for_each(|v| {
            h.write_u8(*v as u8);
            sum += *v as u8 as f64;
        }),
        narrow => narrow.to_f64_vec().iter().for_each(|v| {
            h.write_u64(v.to_bits());
            sum += *v;
        }),
    }
    Print { shape: a.shape().iter().copied().collect(), dtype: a.dtype(), hash: h.finish(), sum }
}

/// The first difference between a forward pass and its recomputation: the operation's
/// position (from 1), and what each run recorded there (`None`: that run had ended).
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub index: usize,
    pub forward: Option<Fingerprint>,
    pub recomputed: Option<Fingerprint>,
}

/// One check running.
#[derive(Debug)]
enum Check {
    /// A forward pass: the fingerprints so far.
    Recording(Vec<Fingerprint>),
    /// A recomputation: the forward pass's fingerprints, how many were matched, and the
    /// first difference.
    Comparing { forward: Rc<Vec<Fingerprint>>, seen: usize, mismatch: Option<Box<Mismatch>> },
}

/// The checks running, innermost last (empty unless a checked function runs: the one test
/// `Recorder::record_ids` makes).
#[derive(Debug, Default)]
pub struct Checks(Vec<Check>);

impl Checks {
    /// Whether no check is running.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// An operation was recorded: each running check notes or compares its fingerprint.
    pub fn see(&mut self, op: &Op, outputs: &[&Tensor], site: Site) {
        let print = Fingerprint::of(op, outputs, site);
        for c in &mut self.0 {
            match c {
                Check::Recording(prints) => prints.push(print.clone()),
                Check::Comparing { forward, seen, mismatch } => {
                    if mismatch.is_none() {
                        let expected = forward.get(*seen);
                        if !expected.is_some_and(|f| same(f, &print)) {
                            *mismatch = Some(Box::new(Mismatch {
                                index: *seen + 1,
                                forward: expected.cloned(),
                                recomputed: Some(print.clone()),
                            }));
                        }
                    }
                    *seen += 1;
                }
            }
        }
    }

    /// Starts checking a forward pass.
    pub fn begin_recording(&mut self) {
        self.0.push(Check::Recording(Vec::new()));
    }

    /// Ends the forward pass begun with [`Checks::begin_recording`]: its fingerprints.
    pub fn end_recording(&mut self) -> Vec<Fingerprint> {
        match self.0.pop() {
            Some(Check::Recording(prints)) => prints,
            _ => Vec::new(),
        }
    }

    /// Starts comparing a recomputation with its forward pass's fingerprints.
    pub fn begin_comparing(&mut self, forward: Rc<Vec<Fingerprint>>) {
        self.0.push(Check::Comparing { forward, seen: 0, mismatch: None });
    }

    /// Ends the recomputation begun with [`Checks::begin_comparing`]: its first difference,
    /// including an operation of the forward pass that it never ran.
    pub fn end_comparing(&mut self) -> Option<Mismatch> {
        match self.0.pop() {
            Some(Check::Comparing { mismatch: Some(m), .. }) => Some(*m),
            Some(Check::Comparing { forward, seen, mismatch: None }) if seen < forward.len() => {
                Some(Mismatch { index: seen + 1, forward: Some(forward[seen].clone()), recomputed: None })
            }
            _ => None,
        }
    }

    /// Hides what follows from the running checks until [`Checks::resume`].
    pub fn suspend(&mut self) -> Checks {
        std::mem::take(self)
    }

    /// Ends a [`Checks::suspend`].
    pub fn resume(&mut self, suspended: Checks) {
        *self = suspended;
    }
}

/// Whether two runs of an operation agree (the statement may differ: a function called
/// from two places computes the same).
fn same(a: &Fingerprint, b: &Fingerprint) -> bool {
    a.op == b.op && a.function == b.function && a.outputs.len() == b.outputs.len() && {
        a.outputs.iter().zip(&b.outputs).all(|(x, y)| x.shape == y.shape && x.dtype == y.dtype && x.hash == y.hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::kernels::Unary;

    fn t(v: &[f32]) -> Tensor {
        Tensor::new(Array::from_f64(DType::F32, &[v.len()], v.iter().map(|&x| x as f64).collect()))
    }

    fn op() -> Op {
        Op::Unary { op: Unary::Exp, saved: None }
    }

    #[test]
    fn same_values_pass_and_the_first_difference_is_kept() {
        let mut c = Checks::default();
        c.begin_recording();
        c.see(&op(), &[&t(&[1.0, 2.0])], Site::NONE);
        c.see(&op(), &[&t(&[3.0])], Site::NONE);
        let prints = Rc::new(c.end_recording());
        assert!(c.is_empty());

        c.begin_comparing(prints.clone());
        c.see(&op(), &[&t(&[1.0, 2.0])], Site::NONE);
        c.see(&op(), &[&t(&[3.0])], Site::NONE);
        assert!(c.end_comparing().is_none());

        c.begin_comparing(prints.clone());
        c.see(&op(), &[&t(&[1.0, 2.0])], Site::NONE);
        c.see(&op(), &[&t(&[4.0])], Site::NONE);
        c.see(&op(), &[&t(&[5.0, 6.0])], Site::NONE);
        let m = c.end_comparing().expect("a difference");
        assert_eq!(m.index, 2);
        assert_eq!((m.forward.unwrap().outputs[0].sum, m.recomputed.unwrap().outputs[0].sum), (3.0, 4.0));

        // A recomputation that stops early misses the forward pass's next operation.
        c.begin_comparing(prints);
        c.see(&op(), &[&t(&[1.0, 2.0])], Site::NONE);
        let m = c.end_comparing().expect("a missing operation");
        assert_eq!(m.index, 2);
        assert!(m.recomputed.is_none());
    }

    #[test]
    fn nested_checks_see_every_operation_and_suspend_hides_them() {
        let mut c = Checks::default();
        c.begin_recording();
        c.see(&op(), &[&t(&[1.0])], Site::NONE);
        c.begin_recording();
        c.see(&op(), &[&t(&[2.0])], Site::NONE);
        let hidden = c.suspend();
        assert!(c.is_empty());
        c.resume(hidden);
        assert_eq!(c.end_recording().len(), 1);
        assert_eq!(c.end_recording().len(), 2);
    }
}
