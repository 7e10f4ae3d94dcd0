//! The checkpoint advisor (`tape.suggest_checkpoints`): finds a chain of equal blocks on a
//! recorded tape (a loop's iterations: the same operations recorded by the same statements,
//! each block consuming the one before), and predicts the backward peak of the tape as it
//! is and with the chain cut into `checkpoint_sequential` segments.
//!
//! The prediction replays [`backward`](crate::autodiff::backward)'s walk over sizes instead of tensors
//! and counts bytes by [`meter`](super::meter)'s rule: the saved tensors a tape still holds
//! (each counted once per tape), plus every gradient buffer alive (the collected ones, the
//! upstream gradients of the step running and the gradients it produces; a gradient passed
//! through unchanged, as `add`'s, is the same buffer). A checkpointed segment's step runs its
//! entries again under a local tape whose own walk nests in the outer one, as
//! `recompute_grad`'s does. So the predicted numbers follow the measured ones by construction;
//! they differ only where an operation's VJP shares or allocates buffers in ways this model
//! does not know (it knows `add`, `subtract`, `identity` and `grad_pass_through`).

use crate::autodiff::tape::{Log, Op, Site, Tape, NO_SLOT};
use crate::tensor::TensorId;
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::ops::Range;
use std::rc::Rc;

/// Blocks longer than this many entries are not looked for (the search is linear per length).
const MAX_BLOCK: usize = 64;

/// At most this many candidate chains are checked for their links.
const MAX_CHECKS: usize = 256;

/// A chain of equal blocks found on a tape.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// Index of the first entry of the first block.
    pub start: usize,
    /// Entries per block.
    pub period: usize,
    /// Number of blocks.
    pub blocks: usize,
    /// Where, in a block, the previous block's output comes in: (entry offset, input index).
    link: (usize, usize),
}

impl Chain {
    /// The entries of blocks `b` (a range of block numbers).
    pub fn entries(&self, b: Range<usize>) -> Range<usize> {
        self.start + b.start * self.period..self.start + b.end * self.period
    }
}

/// One plan's prediction.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// `checkpoint_sequential` segments (1: no checkpoint).
    pub segments: usize,
    /// Blocks per checkpointed segment (the last segment takes the rest and is not checkpointed).
    pub segment_blocks: usize,
    /// Predicted `peak_backward_bytes`.
    pub peak_bytes: usize,
    /// Entries run again during the backward pass.
    pub recomputed_ops: usize,
}

/// What the advisor found on a tape.
#[derive(Clone, Debug)]
pub struct Advice {
    /// Entries on the tape.
    pub ops: usize,
    /// The predicted peak of the tape as recorded.
    pub plain_peak: usize,
    /// The chain found, if any, with the statements its first block was recorded by and
    /// each operation's name.
    pub chain: Option<(Chain, Vec<Site>, Vec<String>)>,
    /// Every plan tried, by number of segments (see [`candidates`]).
    pub plans: Vec<Prediction>,
    /// The checkpoint regions of the `recompute_grad` entries on the tape, and how many of
    /// each: their recomputations are not predicted (each counts as one step).
    pub checkpointed: Vec<(u32, usize)>,
}

/// Looks at `tape` and predicts its backward peak with and without checkpoints. The target is
/// assumed to be the last entry's first output (of the last entry with outputs) and the sources the Variables and watched
/// tensors (as in a training step); a used non-persistent tape has nothing left to look at.
pub fn advise(tape: &Tape) -> Advice {
    let log = tape.log();
    let release = !tape.persistent;
    let sim = Model::new(&log);
    let all: Vec<Node> = (0..log.entries.len()).map(|i| sim.node(&log, i)).collect();
    let target = log.entries.iter().rev().find(|e| !e.outputs.is_empty()).map(|e| e.first_slot);
    let plain_peak = target.map_or(0, |t| sim.peak(&all, t, release));
    let mut checkpointed: Vec<(u32, usize)> = Vec::new();
    for e in &log.entries {
        if let Op::Recompute(r) = &*e.op {
            match checkpointed.iter_mut().find(|(k, _)| *k == r.region) {
                Some((_, n)) => *n += 1,
                None => checkpointed.push((r.region, 1)),
            }
        }
    }
    let mut advice = Advice { ops: log.entries.len(), plain_peak, chain: None, plans: Vec::new(), checkpointed };
    let (Some(chain), Some(target)) = (find_chain(&log), target) else { return advice };
    for k in candidates(chain.blocks) {
        let size = chain.blocks / k;
        let mut nodes: Vec<Node> = Vec::with_capacity(all.len());
        nodes.extend(all[..chain.start].iter().cloned());
        for j in 0..k - 1 {
            nodes.push(sim.segment(&log, &chain, j * size..(j + 1) * size));
        }
        nodes.extend(all[chain.entries(0..(k - 1) * size).end..].iter().cloned());
        let peak = sim.peak(&nodes, target, release);
        advice.plans.push(Prediction {
            segments: k,
            segment_blocks: size,
            peak_bytes: peak,
            recomputed_ops: (k - 1) * size * chain.period,
        });
    }
    let first = chain.entries(0..1);
    let sites = log.entries[first.clone()].iter().map(|e| e.site).collect();
    let names = log.entries[first].iter().map(|e| e.op.name()).collect();
    advice.chain = Some((chain, sites, names));
    advice
}

/// The segment counts worth predicting for `n` blocks: each up to 32, then about 1.5× apart,
/// and ⌊√n⌉ (each prediction replays the whole tape, so a long chain is not tried for every k).
fn candidates(n: usize) -> Vec<usize> {
    let mut ks: Vec<usize> = (1..=n.min(32)).collect();
    let mut k = 32.0f64;
    while (k as usize) < n {
        k *= 1.5;
        ks.push((k as usize).min(n));
    }
    ks.push(((n as f64).sqrt().round() as usize).clamp(1, n));
    ks.sort_unstable();
    ks.dedup();
    ks
}

/// The longest chain of equal blocks on the tape: a run of entries repeating with some period
/// (same operation, same statement, same region), where each block reads one output of the
/// block just before it, and no earlier block.
pub fn find_chain(log: &Log) -> Option<Chain> {
    let es = &log.entries;
    let n = es.len();
    // A recompute_grad entry is no block part: its recomputation is not modelled.
    let same = |i: usize, j: usize| {
        let (a, b) = (&es[i], &es[j]);
        !matches!(*a.op, Op::Recompute(_))
            && a.site == b.site
            && a.region == b.region
            && a.inputs.len() == b.inputs.len()
            && a.op.static_name() == b.op.static_name()
            && a.op.function() == b.op.function()
    };
    let mut best: Option<Chain> = None;
    // Each failed link check reads up to the whole tape: a bounded number of them.
    let mut checks = 0;
    for p in 1..=MAX_BLOCK.min(n / 2) {
        let mut i = 0;
        while i + p < n {
            if !same(i, i + p) {
                i += 1;
                continue;
            }
            let run = i;
            while i + p < n && same(i, i + p) {
                i += 1;
            }
            // Entries run..i+p repeat with period p; try each alignment of the blocks.
            for shift in 0..p {
                let blocks = (i + p - run).saturating_sub(shift) / p;
                let covered = blocks * p;
                if blocks < 2 || best.as_ref().is_some_and(|b| b.blocks * b.period >= covered) || checks > MAX_CHECKS {
                    continue;
                }
                checks += 1;
                if let Some(link) = link_of(log, run + shift, p, blocks) {
                    best = Some(Chain { start: run + shift, period: p, blocks, link });
                }
            }
        }
    }
    best
}

/// The link of blocks `start + b·p` (b < blocks): where each block first reads the one output
/// of the block before it that it reads, the same in every block; `None` when some block reads
/// an earlier block or two outputs of the one before, or when an entry after the chain reads a
/// block other than the last.
fn link_of(log: &Log, start: usize, p: usize, blocks: usize) -> Option<(usize, usize)> {
    let producer = |slot: u32| (slot != NO_SLOT).then(|| log.slot_entry[slot as usize] as usize);
    let block_of = |entry: usize| (entry >= start && entry < start + blocks * p).then(|| (entry - start) / p);
    let mut link = None;
    for b in 1..blocks {
        // The one output of block b - 1 that block b reads (through any number of inputs, as a
        // residual block does), and where it first reads it.
        let mut read: Option<(u32, (usize, usize))> = None;
        for o in 0..p {
            let e = &log.entries[start + b * p + o];
            for (k, x) in e.inputs.iter().enumerate() {
                match producer(x.slot).and_then(block_of) {
                    Some(from) if from == b - 1 => match read {
                        None => read = Some((x.slot, (o, k))),
                        Some((slot, _)) if slot == x.slot => {}
                        Some(_) => return None,
                    },
                    Some(from) if from < b - 1 => return None,
                    // Entries before the chain are read by every block alike (shared inputs).
                    _ => {}
                }
            }
        }
        let (_, at) = read?;
        if *link.get_or_insert(at) != at {
            return None;
        }
    }
    // Entries after the chain read only the last block.
    for e in &log.entries[start + blocks * p..] {
        for x in &e.inputs {
            if producer(x.slot).and_then(block_of).is_some_and(|b| b + 1 < blocks) {
                return None;
            }
        }
    }
    link
}

/// What a saved tensor is counted by, as [`SavedCounts`](super::meter::SavedCounts) counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Slot(u32),
    Buffer(usize),
    Id(TensorId),
}

/// An input of a simulated entry.
#[derive(Clone, Debug)]
struct In {
    slot: u32,
    id: TensorId,
    bytes: usize,
    needed: bool,
    /// Its gradient is the upstream gradient itself (no new buffer).
    alias: bool,
}

/// An entry as the simulated walk sees it: sizes and keys only. A checkpointed segment has
/// the entries it runs again.
#[derive(Clone, Debug)]
struct Node {
    inputs: SmallVec<[In; 2]>,
    outs: SmallVec<[u32; 1]>,
    saved: SmallVec<[(Key, usize); 2]>,
    segment: Option<Rc<Vec<Node>>>,
}

/// The sizes of a tape's tensors, for building nodes.
struct Model {
    slot_bytes: Vec<usize>,
    /// Bytes of tensors no entry produced, by id (seen among the saved tensors).
    id_bytes: HashMap<TensorId, usize>,
}

impl Model {
    fn new(log: &Log) -> Model {
        let mut slot_bytes = vec![0; log.slot_entry.len()];
        let mut id_bytes = HashMap::default();
        for e in &log.entries {
            for (k, o) in e.outputs.iter().enumerate() {
                slot_bytes[e.first_slot as usize + k] = o.shape.iter().product::<usize>() * o.dtype.size();
            }
            e.op.for_each_saved(|t| {
                id_bytes.insert(t.id, t.nbytes());
            });
        }
        Model { slot_bytes, id_bytes }
    }

    /// Entry `i` as it is.
    fn node(&self, log: &Log, i: usize) -> Node {
        let e = &log.entries[i];
        let out_shape = e.outputs.first().map(|o| &o.shape[..]).unwrap_or(&[]);
        let out_size = e.outputs.first().map_or(4, |o| o.dtype.size());
        let shape_bytes = |s: &[usize]| s.iter().product::<usize>() * out_size;
        let inputs = e
            .inputs
            .iter()
            .enumerate()
            .map(|(k, x)| {
                // The input's shape where the operation keeps it (for inputs no entry produced).
                let kept = match (&*e.op, k) {
                    (Op::AddSub { a_shape, .. }, 0) => Some(&a_shape[..]),
                    (Op::AddSub { b_shape, .. }, 1) => Some(&b_shape[..]),
                    (Op::Reshape { in_shape } | Op::BroadcastTo { in_shape } | Op::Reduce { in_shape, .. }, 0) => {
                        Some(&in_shape[..])
                    }
                    _ => None,
                };
                let bytes = if x.slot != NO_SLOT {
                    self.slot_bytes[x.slot as usize]
                } else {
                    self.id_bytes.get(&x.id).copied().or(kept.map(shape_bytes)).unwrap_or(0)
                };
                let alias = match &*e.op {
                    Op::AddSub { sub, .. } => kept == Some(out_shape) && (k == 0 || !sub),
                    Op::Identity | Op::PassThrough => true,
                    _ => false,
                };
                In { slot: x.slot, id: x.id, bytes, needed: x.watched, alias }
            })
            .collect();
        let mut saved = SmallVec::new();
        e.op.for_each_saved(|t| {
            let slot = e
                .inputs
                .iter()
                .find(|x| x.id == t.id && x.slot != NO_SLOT)
                .map(|x| x.slot)
                .or_else(|| e.outputs.iter().position(|o| o.id == t.id).map(|k| e.first_slot + k as u32));
            let key = slot.map_or(Key::Buffer(Rc::as_ptr(&t.data) as usize), Key::Slot);
            saved.push((key, t.nbytes()));
        });
        let outs = (0..e.outputs.len() as u32).map(|k| e.first_slot + k).collect();
        Node { inputs, outs, saved, segment: None }
    }

    /// Blocks `b` of `chain` as one checkpointed segment: its entry keeps the segment's
    /// input (the checkpoint) and reads the watched tensors and Variables its entries read;
    /// its output is the last block's.
    fn segment(&self, log: &Log, chain: &Chain, b: Range<usize>) -> Node {
        let range = chain.entries(b.clone());
        let (o, k) = chain.link;
        let input = &log.entries[range.start + o].inputs[k];
        let output = log.entries[chain.entries(b.end..b.end + 1).start + o].inputs[k].slot;
        let bytes = if input.slot != NO_SLOT {
            self.slot_bytes[input.slot as usize]
        } else {
            self.id_bytes.get(&input.id).copied().unwrap_or(0)
        };
        let key = if input.slot != NO_SLOT { Key::Slot(input.slot) } else { Key::Id(input.id) };
        let mut inputs: SmallVec<[In; 2]> = SmallVec::new();
        inputs.push(In { slot: input.slot, id: input.id, bytes, needed: input.watched, alias: false });
        let inner: Vec<Node> = range.clone().map(|i| self.node(log, i)).collect();
        for n in &inner {
            for x in &n.inputs {
                let outside = x.slot == NO_SLOT || !range.contains(&(log.slot_entry[x.slot as usize] as usize));
                if outside && x.needed && x.id != 0 && !inputs.iter().any(|y| y.id == x.id) {
                    inputs.push(In { alias: false, ..x.clone() });
                }
            }
        }
        let mut saved = SmallVec::new();
        saved.push((key, bytes));
        Node { inputs, outs: SmallVec::from_slice(&[output]), saved, segment: Some(Rc::new(inner)) }
    }

    /// The predicted peak of a gradient of `target`'s slot over `nodes`.
    fn peak(&self, nodes: &[Node], target: u32, release: bool) -> usize {
        let mut m = SimMeter::default();
        let seed = m.fresh();
        self.walk(&mut m, nodes, &[(target, seed)], release);
        m.peak
    }

    /// [`backward::walk`](crate::autodiff::backward) over sizes: the bytes it holds go on `m`.
    fn walk(&self, m: &mut SimMeter, nodes: &[Node], targets: &[(u32, u64)], release: bool) {
        let mut node_of: HashMap<u32, usize> = HashMap::default();
        for (i, n) in nodes.iter().enumerate() {
            for &s in &n.outs {
                node_of.insert(s, i);
            }
        }
        // Saved tensors, each counted once.
        let mut counts: HashMap<Key, u32> = HashMap::default();
        let mut saved = 0;
        for n in nodes {
            for (key, b) in &n.saved {
                let c = counts.entry(*key).or_insert(0);
                *c += 1;
                if *c == 1 {
                    saved += b;
                }
            }
        }
        m.add(saved);
        // Reached entries and their pending consumers.
        let mut reached = vec![false; nodes.len()];
        let mut queued = vec![false; nodes.len()];
        let mut pending = vec![0u32; nodes.len()];
        let mut stack: Vec<usize> = targets.iter().filter_map(|(s, _)| node_of.get(s).copied()).collect();
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut reached[i], true) {
                continue;
            }
            for x in &nodes[i].inputs {
                if let Some(&p) = node_of.get(&x.slot) {
                    pending[p] += 1;
                    if !reached[p] {
                        stack.push(p);
                    }
                }
            }
        }
        // Gradients collected, by slot (produced here) or by id (the others).
        let mut by_slot: HashMap<u32, (u64, usize)> = HashMap::default();
        let mut by_id: HashMap<TensorId, (u64, usize)> = HashMap::default();
        for &(slot, seed) in targets {
            let bytes = self.slot_bytes[slot as usize];
            m.hold(seed, bytes);
            accumulate(m, by_slot.entry(slot).or_default(), (seed, bytes));
        }
        let mut queue = VecDeque::new();
        for (s, _) in targets {
            if let Some(&p) = node_of.get(s) {
                if reached[p] && pending[p] == 0 && !queued[p] {
                    queued[p] = true;
                    queue.push_back(p);
                }
            }
        }
        while let Some(i) = queue.pop_front() {
            let n = &nodes[i];
            let ups: SmallVec<[Option<(u64, usize)>; 1]> =
                n.outs.iter().map(|s| by_slot.remove(s).filter(|g| g.0 != 0)).collect();
            if ups.iter().any(Option::is_some) {
                let held: SmallVec<[(u64, usize); 1]> = ups
                    .iter()
                    .zip(&n.outs)
                    .map(|(g, s)| {
                        g.unwrap_or_else(|| {
                            let z = (m.fresh(), self.slot_bytes[*s as usize]);
                            m.hold(z.0, z.1);
                            z
                        })
                    })
                    .collect();
                if let Some(inner) = &n.segment {
                    let seeds: Vec<(u32, u64)> = n.outs.iter().zip(&held).map(|(s, g)| (*s, g.0)).collect();
                    self.walk(m, inner, &seeds, true);
                }
                let produced: SmallVec<[(usize, (u64, usize)); 2]> = n
                    .inputs
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| x.needed)
                    .map(|(k, x)| (k, if x.alias && n.segment.is_none() { held[0] } else { (m.fresh(), x.bytes) }))
                    .collect();
                for (_, g) in &produced {
                    m.hold(g.0, g.1);
                }
                for g in &held {
                    m.release(g.0);
                }
                for (k, g) in produced {
                    let x = &n.inputs[k];
                    let cell = if node_of.contains_key(&x.slot) {
                        by_slot.entry(x.slot).or_default()
                    } else {
                        by_id.entry(x.id).or_default()
                    };
                    accumulate(m, cell, g);
                }
            }
            if release {
                for (key, b) in &n.saved {
                    if let Some(c) = counts.get_mut(key) {
                        *c -= 1;
                        if *c == 0 {
                            saved -= b;
                            m.sub(*b);
                        }
                    }
                }
            }
            for x in &n.inputs {
                if let Some(&p) = node_of.get(&x.slot) {
                    pending[p] -= 1;
                    if pending[p] == 0 && reached[p] && !queued[p] {
                        queued[p] = true;
                        queue.push_back(p);
                    }
                }
            }
        }
        for g in by_slot.values().chain(by_id.values()) {
            if g.0 != 0 {
                m.release(g.0);
            }
        }
        m.sub(saved);
    }
}

/// Adds gradient `g` (held) into `cell` (`(0, _)`: empty): the sum is a new buffer, held;
/// its terms are released (backward.rs `Grads::accumulate`).
fn accumulate(m: &mut SimMeter, cell: &mut (u64, usize), g: (u64, usize)) {
    if cell.0 == 0 {
        *cell = g;
        return;
    }
    let sum = (m.fresh(), g.1);
    m.hold(sum.0, sum.1);
    m.release(cell.0);
    m.release(g.0);
    *cell = sum;
}

/// [`Meter`](super::meter::Meter) over made-up buffer numbers.
#[derive(Default)]
struct SimMeter {
    live: HashMap<u64, (u32, usize)>,
    next: u64,
    total: usize,
    peak: usize,
}

impl SimMeter {
    fn fresh(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    fn hold(&mut self, buf: u64, bytes: usize) {
        let e = self.live.entry(buf).or_insert((0, bytes));
        if e.0 == 0 {
            self.total += e.1;
            self.peak = self.peak.max(self.total);
        }
        e.0 += 1;
    }

    fn release(&mut self, buf: u64) {
        if let Some(e) = self.live.get_mut(&buf) {
            e.0 -= 1;
            if e.0 == 0 {
                self.total -= e.1;
                self.live.remove(&buf);
            }
        }
    }

    fn add(&mut self, bytes: usize) {
        self.total += bytes;
        self.peak = self.peak.max(self.total);
    }

    fn sub(&mut self, bytes: usize) {
        self.total = self.total.saturating_sub(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autodiff::backward::gradient;
    use crate::autodiff::recorder::Recorder;
    use crate::tensor::kernels::{Reduce, Unary};
    use crate::tensor::{Array, DType, Tensor};
    use std::cell::RefCell;

    #[test]
    fn a_loop_is_a_chain_and_the_predicted_peak_is_the_measured_one() {
        let mut rec = Recorder::with_tools();
        let tape = Rc::new(RefCell::new(Tape::new(false, true)));
        rec.enter(&tape).unwrap();
        let x = Tensor::new(Array::from_f64(DType::F32, &[4, 3], vec![0.5; 12]));
        let w = Tensor::new(Array::from_f64(DType::F32, &[3, 3], vec![0.1; 9]));
        tape.borrow_mut().watch(w.id);
        let mut h = x;
        for _ in 0..5 {
            let m = rec.matmul(&h, &w).unwrap();
            h = rec.unary(Unary::Tanh, &m).unwrap();
        }
        let loss = rec.reduce(Reduce::Sum, &h, None, false).unwrap();
        rec.exit(&tape);
        let advice = advise(&tape.borrow());
        let (chain, _, names) = advice.chain.clone().unwrap();
        assert_eq!((chain.start, chain.period, chain.blocks), (0, 2, 5));
        assert_eq!(names, ["matmul", "tanh"]);
        assert_eq!(advice.plans.len(), 5);
        gradient(&mut rec, &tape, &[loss], &[w.id], None).unwrap();
        assert_eq!(advice.plain_peak, tape.borrow().last_backward().peak_bytes);
    }

    #[test]
    fn blocks_reading_two_blocks_back_are_no_chain() {
        let mut rec = Recorder::default();
        let tape = Rc::new(RefCell::new(Tape::new(false, true)));
        rec.enter(&tape).unwrap();
        let x = Tensor::new(Array::from_f64(DType::F32, &[3], vec![0.5; 3]));
        tape.borrow_mut().watch(x.id);
        // Each block reads the one before and the one before that (a skip connection).
        let first = rec.unary(Unary::Exp, &x).unwrap();
        let mut outs = vec![first.clone(), first];
        for _ in 0..4 {
            let e = rec.unary(Unary::Sin, &outs[outs.len() - 1]).unwrap();
            let h = rec.mul(&e, &outs[outs.len() - 2]).unwrap();
            outs.push(h);
        }
        rec.exit(&tape);
        assert_eq!(find_chain(&tape.borrow().log()).map(|c| c.blocks), None);
    }
}
