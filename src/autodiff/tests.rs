//! The backward pass and the tape's rules on tensors alone: no interpreter, a
//! recorder as the host (and one that logs user-code VJPs, for the order).

use super::backward::gradient;
use super::recorder::{Host, InputGrads, Recorder, TapeRef};
use super::tape::{CustomCall, Entry, Op, RecomputeCall, Tape, UserData};
use super::tools::inspect::Inspect;
use crate::bail;
use crate::error::{ErrorKind, R};
use crate::tensor::kernels::{Binary, Unary};
use crate::tensor::{Array, DType, Tensor};
use std::cell::RefCell;
use std::rc::Rc;

/// A recorder alone is a host with no user code: custom and recompute entries raise.
impl Host for Recorder {
    fn recorder(&mut self) -> &mut Recorder {
        self
    }

    fn check_interrupt(&self) -> R<()> {
        Ok(())
    }

    fn custom_vjp(&mut self, call: &CustomCall, _: Vec<Tensor>) -> R<InputGrads> {
        bail!(Runtime, "no user code in this test ({})", call.name)
    }

    fn recompute_vjp(&mut self, _: &RecomputeCall, _: Vec<Tensor>) -> R<InputGrads> {
        bail!(Runtime, "no user code in this test")
    }
}

/// A host whose custom-gradient VJPs log their names and pass the upstream gradient
/// through, doubled: the order of backward steps becomes visible.
#[derive(Default)]
struct LoggingHost {
    rec: Recorder,
    log: Vec<String>,
}

impl Host for LoggingHost {
    fn recorder(&mut self) -> &mut Recorder {
        &mut self.rec
    }

    fn check_interrupt(&self) -> R<()> {
        Ok(())
    }

    fn custom_vjp(&mut self, call: &CustomCall, upstream: Vec<Tensor>) -> R<InputGrads> {
        self.log.push(call.name.to_string());
        let g = self.rec.mul_scalar(&upstream[0], 2.0)?;
        Ok(call.inputs.iter().map(|_| Some(g.clone())).collect())
    }

    fn recompute_vjp(&mut self, _: &RecomputeCall, _: Vec<Tensor>) -> R<InputGrads> {
        bail!(Runtime, "no recompute in this test")
    }

    /// Logs the complete gradient it sees and triples it.
    fn gradient_hook(&mut self, _: &UserData, g: Tensor) -> R<Tensor> {
        self.log.push(format!("hook {}", g.data.first_f64()));
        self.rec.mul_scalar(&g, 3.0)
    }

    fn trace_step(&mut self, e: &Entry, upstream: &[Tensor]) {
        self.log.push(format!("step {} {}", e.op.name(), upstream[0].data.first_f64()));
    }
}

fn scalar(v: f64) -> Tensor {
    Tensor::new(Array::scalar(DType::F64, v))
}

fn value(t: &Option<Tensor>) -> f64 {
    t.as_ref().expect("a gradient").data.first_f64()
}

/// A tape watching `xs`, recording on `rec`.
fn tape_on(rec: &mut Recorder, persistent: bool, xs: &[&Tensor]) -> TapeRef {
    let tape = Rc::new(RefCell::new(Tape::new(persistent, true)));
    for x in xs {
        tape.borrow_mut().watch(x.id);
    }
    rec.enter(&tape).expect("enters");
    tape
}

/// Records a custom-gradient entry named `name` taking `x` to a fresh output.
fn custom(rec: &mut Recorder, name: &str, x: &Tensor) -> Tensor {
    let out = x.renamed();
    let call = CustomCall {
        name: name.into(),
        grad_fn: UserData::new(()),
        inputs: vec![Some((x.shape().to_vec(), x.dtype()))],
        variables: vec![],
    };
    rec.record(&[x], &[&out], || Op::Custom(Rc::new(call)));
    out
}

#[test]
fn a_diamond_sums_both_paths() {
    // y = (x + 1) * (2x): dy/dx = 2x + 2(x + 1) = 4x + 2 = 14 at x = 3.
    let mut rec = Recorder::default();
    let x = scalar(3.0);
    let tape = tape_on(&mut rec, false, &[&x]);
    let one = scalar(1.0);
    let a = rec.add(&x, &one).unwrap();
    let b = rec.mul_scalar(&x, 2.0).unwrap();
    let y = rec.mul(&a, &b).unwrap();
    rec.exit(&tape);
    let g = gradient(&mut rec, &tape, &[y], &[x.id, one.id], None).unwrap();
    assert_eq!(value(&g[0]), 14.0);
    assert!(g[1].is_none(), "an unwatched constant gets no gradient");
}

#[test]
fn a_chain_replays_last_call_first() {
    let mut host = LoggingHost::default();
    let x = scalar(1.0);
    let tape = tape_on(&mut host.rec, false, &[&x]);
    let a = custom(&mut host.rec, "first", &x);
    let b = custom(&mut host.rec, "second", &a);
    let c = custom(&mut host.rec, "third", &b);
    host.rec.exit(&tape);
    let g = gradient(&mut host, &tape, &[c], &[x.id], None).unwrap();
    assert_eq!(host.log, ["third", "second", "first"]);
    assert_eq!(value(&g[0]), 8.0, "each step doubles the upstream gradient");
}

/// x → a; a feeds b and c (custom steps that double their gradient); d = b + c. Returns the
/// tape, x, a and d.
fn diamond(host: &mut LoggingHost) -> (TapeRef, Tensor, Tensor, Tensor) {
    let x = scalar(1.0);
    let tape = tape_on(&mut host.rec, false, &[&x]);
    let a = custom(&mut host.rec, "a", &x);
    let b = custom(&mut host.rec, "b", &a);
    let c = custom(&mut host.rec, "c", &a);
    let d = host.rec.add(&b, &c).unwrap();
    host.rec.exit(&tape);
    (tape, x, a, d)
}

#[test]
fn a_step_waits_for_every_consumer() {
    // a's step runs once, after both b and c.
    let mut host = LoggingHost::default();
    let (tape, x, _, d) = diamond(&mut host);
    let g = gradient(&mut host, &tape, &[d], &[x.id], None).unwrap();
    assert_eq!(host.log, ["b", "c", "a"]);
    assert_eq!(value(&g[0]), 8.0);
}

#[test]
fn a_hook_sees_a_complete_gradient_once_and_replaces_it() {
    // a feeds b and c (each step doubles), d = b + c: a's gradient is 2 + 2 = 4 when its
    // step is due; its hook makes it 12, a's step 24 for x, whose hook makes it 72.
    let mut host = LoggingHost::default();
    let (tape, x, a, d) = diamond(&mut host);
    for id in [a.id, x.id] {
        host.rec.tools().inspect.add_hook(id, UserData::new(()), Inspect::tapes_owner(std::slice::from_ref(&tape)));
    }
    host.rec.tools().inspect.trace = 1;
    let g = gradient(&mut host, &tape, &[d], &[x.id], None).unwrap();
    assert_eq!(
        host.log,
        [
            "step add 1",
            "step custom_gradient b 1",
            "b",
            "step custom_gradient c 1",
            "c",
            "hook 4",
            "step custom_gradient a 12",
            "a",
            "hook 24"
        ]
    );
    assert_eq!(value(&g[0]), 72.0);
    assert_eq!(host.rec.tools().meter.total, 0, "every gradient buffer is released");
    drop(tape);
    host.rec.tools().inspect.add_hook(x.id, UserData::new(()), Inspect::tapes_owner(&[]));
    assert_eq!(host.rec.tools().inspect.hooks.len(), 1, "hooks whose tapes are gone are dropped");
}

#[test]
fn a_non_persistent_tape_answers_once() {
    let mut rec = Recorder::default();
    let x = scalar(2.0);
    let tape = tape_on(&mut rec, false, &[&x]);
    let y = rec.unary(Unary::Square, &x).unwrap();
    let g = gradient(&mut rec, &tape, std::slice::from_ref(&y), &[x.id], None).unwrap();
    assert_eq!(value(&g[0]), 4.0);
    assert!(rec.tapes.is_empty(), "a used tape stops recording");
    let again = gradient(&mut rec, &tape, &[y], &[x.id], None);
    assert_eq!(again.unwrap_err().kind(), ErrorKind::Runtime);
}

#[test]
fn a_persistent_tape_records_its_own_backward_pass() {
    // Inside its block, a persistent tape records the VJPs too, appended while the
    // backward pass reads its snapshot; the second derivative comes from that record.
    let mut rec = Recorder::default();
    let x = scalar(3.0);
    let tape = tape_on(&mut rec, true, &[&x]);
    let y = rec.binary(Binary::Pow, &x, &scalar(3.0)).unwrap();
    let before = tape.borrow().len();
    let dy = gradient(&mut rec, &tape, &[y], &[x.id], None).unwrap()[0].clone().unwrap();
    assert!(tape.borrow().len() > before, "the backward pass was recorded");
    let d2 = gradient(&mut rec, &tape, &[dy.clone()], &[x.id], None).unwrap();
    rec.exit(&tape);
    assert_eq!(dy.data.first_f64(), 27.0);
    assert_eq!(value(&d2[0]), 18.0);
}

#[test]
fn a_target_that_is_a_source_has_gradient_one() {
    let mut rec = Recorder::default();
    let x = scalar(5.0);
    let tape = tape_on(&mut rec, false, &[]);
    rec.exit(&tape);
    let g = gradient(&mut rec, &tape, std::slice::from_ref(&x), &[x.id], None).unwrap();
    assert_eq!(value(&g[0]), 1.0);
}

#[test]
fn a_tensor_watched_after_use_gets_its_gradient() {
    // c is a constant when x * c is recorded, watched afterwards: the backward pass must
    // see the tape's watched set at gradient time, not the entry's record-time view.
    let mut rec = Recorder::default();
    let x = scalar(3.0);
    let c = scalar(4.0);
    let tape = tape_on(&mut rec, false, &[&x]);
    let y = rec.mul(&x, &c).unwrap();
    tape.borrow_mut().watch(c.id);
    rec.exit(&tape);
    let g = gradient(&mut rec, &tape, &[y], &[x.id, c.id], None).unwrap();
    assert_eq!(value(&g[0]), 4.0);
    assert_eq!(value(&g[1]), 3.0);
}

#[test]
fn output_gradients_weight_the_targets_and_must_match_their_shapes() {
    let mut rec = Recorder::default();
    let x = scalar(2.0);
    let tape = tape_on(&mut rec, true, &[&x]);
    let y = rec.mul_scalar(&x, 3.0).unwrap();
    rec.exit(&tape);
    let g = gradient(&mut rec, &tape, std::slice::from_ref(&y), &[x.id], Some(vec![scalar(0.5)])).unwrap();
    assert_eq!(value(&g[0]), 1.5);
    let wrong = Tensor::new(Array::from_f64(DType::F64, &[2], vec![1.0, 1.0]));
    let e = gradient(&mut rec, &tape, &[y], &[x.id], Some(vec![wrong])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
}

#[test]
fn user_code_vjps_need_a_host_that_runs_them() {
    let mut rec = Recorder::default();
    let x = scalar(1.0);
    let tape = tape_on(&mut rec, false, &[&x]);
    let y = custom(&mut rec, "f", &x);
    rec.exit(&tape);
    let e = gradient(&mut rec, &tape, &[y], &[x.id], None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
}

#[test]
fn tape_rules() {
    let mut rec = Recorder::default();
    let x = scalar(1.0);
    let tape = tape_on(&mut rec, false, &[&x]);
    assert_eq!(rec.enter(&tape).unwrap_err().kind(), ErrorKind::Value, "no re-entry inside its block");
    // stop_recording pauses this tape only, and it resumes at its place.
    rec.pause(&tape).unwrap();
    let unrecorded = rec.mul(&x, &x).unwrap();
    rec.resume();
    let recorded = rec.mul(&x, &x).unwrap();
    assert!(!tape.borrow().watches(unrecorded.id));
    assert!(tape.borrow().watches(recorded.id));
    assert_eq!(tape.borrow().stats(), (1, 1, 8), "one op saving x (8 bytes, counted once)");
    rec.exit(&tape);
    assert_eq!(rec.pause(&tape).unwrap_err().kind(), ErrorKind::Runtime, "stop_recording outside the block");
    tape.borrow_mut().reset();
    assert!(tape.borrow().is_empty() && !tape.borrow().watches(x.id));
}
