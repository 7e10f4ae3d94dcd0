//! `tape.explain(target, source)`: why `tape.gradient(target, source)` is None or all zeros,
//! in source terms, or which path carries it.
//!
//! The search runs over two graphs whose nodes are tensor ids. The gradient graph holds the
//! recorded entries, an input counting only where the backward pass would ask for its
//! gradient (it was watched; see `backward.rs`) and a `custom_gradient` input its `grad_fn`
//! answered with `None` not at all. The full graph adds every input and what the tape ran past
//! without recording it (`notes.rs`). A path in the first means the gradient flows; a path in
//! the second only is stopped by its first step that is not in the first, which names the
//! reason; no path at all leaves the reasons that need no path: the source was never watched,
//! a Python number left the tape (`.item()`), the target grew from values made before the tape
//! started, or the target does not depend on the source.

use super::notes::Unrecorded;
use crate::autodiff::tape::{Log, Op, Site, Tape};
use crate::source::SourceId;
use crate::tensor::kernels::{Binary, Unary};
use crate::tensor::{DType, Tensor, TensorId};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::fmt::Write;

/// What is asked: the gradient of `target` with respect to `source`, with the names to call
/// them by.
pub struct Query {
    pub target: TensorId,
    pub source: TensorId,
    /// The source's dtype (an integer source has no gradient).
    pub source_dtype: DType,
    /// `Some(trainable)` when the source is a Variable (its id is the handle's).
    pub variable: Option<bool>,
    pub target_name: String,
    pub source_name: String,
}

/// How places are shown: `file:line` for a culprit, `line N` inside the file `explain` was
/// called from.
pub struct Places<'a> {
    /// The file of the statement calling `explain`.
    pub home: SourceId,
    /// A known site's file label (relative to the script's folder, source.rs) and 1-based line.
    pub resolve: &'a dyn Fn(Site) -> (String, usize),
}

impl Places<'_> {
    fn at(&self, site: Site) -> String {
        if !site.is_known() {
            return "an unknown place".into();
        }
        let (file, line) = (self.resolve)(site);
        format!("{file}:{line}")
    }

    fn line(&self, site: Site) -> String {
        if site.is_known() && site.src == self.home {
            format!("line {}", (self.resolve)(site).1)
        } else {
            self.at(site)
        }
    }
}

/// One operation of the graphs: a recorded entry or an unrecorded operation (by index).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Step {
    Entry(u32),
    Note(u32),
}

/// The tape's entries and notes as graphs over tensor ids.
struct Graph<'a> {
    log: &'a Log,
    notes: &'a [Unrecorded],
    /// For each tensor id, the operations reading it: (operation, input position).
    readers: FxHashMap<TensorId, Vec<(Step, u32)>>,
    /// For each tensor id, the operation that made it.
    maker: FxHashMap<TensorId, Step>,
    /// The backward pass's view of watched ids when some were watched late (`Tape::watched_if_late`).
    late: Option<FxHashSet<TensorId>>,
    /// `(entry, input)` pairs a `custom_gradient` `grad_fn` answered with `None`.
    custom_none: FxHashSet<(u32, u32)>,
}

/// Why a recorded entry passes no gradient to one of its inputs.
enum EntryStop {
    /// A `custom_gradient` `grad_fn` answered None for it.
    GradFnNone,
    /// The output on the path has an integer or bool dtype.
    IntOutput(DType),
    /// The input was not watched when the entry was recorded (the entry is on the tape for
    /// another, watched, input).
    InputNotWatched,
}

/// A path: each step with the tensor it read (and at which input) and the tensor it made.
type Path = Vec<(Step, TensorId, u32, TensorId)>;

impl<'a> Graph<'a> {
    fn new(tape: &'a Tape, log: &'a Log) -> Graph<'a> {
        let mut readers: FxHashMap<TensorId, Vec<(Step, u32)>> = FxHashMap::default();
        let mut maker = FxHashMap::default();
        for (i, e) in log.entries.iter().enumerate() {
            let step = Step::Entry(i as u32);
            for (k, x) in e.inputs.iter().enumerate() {
                if x.id != 0 {
                    readers.entry(x.id).or_default().push((step, k as u32));
                }
            }
            for o in &e.outputs {
                maker.insert(o.id, step);
            }
        }
        let notes = &tape.notes().unrecorded[..];
        for (i, n) in notes.iter().enumerate() {
            let step = Step::Note(i as u32);
            for (k, &x) in n.inputs.iter().enumerate() {
                readers.entry(x).or_default().push((step, k as u32));
            }
            for &o in &n.outputs {
                maker.entry(o).or_insert(step);
            }
        }
        // Only entries still present count (the tape may have been reset since).
        let n = log.entries.len() as u32;
        let custom_none = tape
            .last_backward()
            .custom_none
            .iter()
            .copied()
            .filter(|&(i, _)| i < n && log.entries[i as usize].op.static_name() == "custom_gradient")
            .collect();
        Graph { log, notes, readers, maker, late: tape.watched_if_late(), custom_none }
    }

    /// The tensors an operation made.
    fn outputs(&self, step: Step) -> Vec<TensorId> {
        match step {
            Step::Entry(i) => self.log.entries[i as usize].outputs.iter().map(|o| o.id).collect(),
            Step::Note(i) => self.notes[i as usize].outputs.to_vec(),
        }
    }

    /// The tensors an operation read, each with its input position (an entry's constants,
    /// id 0, left out).
    fn inputs(&self, step: Step) -> Vec<(u32, TensorId)> {
        match step {
            Step::Entry(i) => {
                let inputs = self.log.entries[i as usize].inputs.iter().enumerate();
                inputs.filter(|(_, x)| x.id != 0).map(|(k, x)| (k as u32, x.id)).collect()
            }
            Step::Note(i) => self.notes[i as usize].inputs.iter().enumerate().map(|(k, &x)| (k as u32, x)).collect(),
        }
    }

    /// Whether the backward pass carries a gradient from `step`'s output `out` to its input `k`.
    fn carries(&self, step: Step, k: u32, out: TensorId) -> bool {
        let Step::Entry(i) = step else { return false };
        let e = &self.log.entries[i as usize];
        let x = e.inputs[k as usize];
        let watched = match &self.late {
            None => x.watched,
            Some(w) => w.contains(&x.id),
        };
        let float_out = e.outputs.iter().any(|o| o.id == out && o.dtype.is_float());
        watched && float_out && !self.custom_none.contains(&(i, k))
    }

    /// Why a recorded entry's backward step gives its input `k` no gradient from output `out`
    /// (when [`Graph::carries`] says it does not): the words `render` and `blocked` use, which
    /// never say "not recorded" of an entry the tape holds.
    fn entry_stop(&self, i: u32, k: u32, out: TensorId) -> EntryStop {
        let e = &self.log.entries[i as usize];
        if self.custom_none.contains(&(i, k)) {
            return EntryStop::GradFnNone;
        }
        match e.outputs.iter().find(|o| o.id == out) {
            Some(o) if !o.dtype.is_float() => EntryStop::IntOutput(o.dtype),
            _ => EntryStop::InputNotWatched,
        }
    }

    /// A shortest path from `from` to `to` through the edges `allow` lets through.
    fn path(&self, from: TensorId, to: TensorId, allow: impl Fn(Step, u32, TensorId) -> bool) -> Option<Path> {
        let mut parent: FxHashMap<TensorId, (Step, TensorId, u32)> = FxHashMap::default();
        let mut seen = FxHashSet::default();
        seen.insert(from);
        let mut queue = VecDeque::from([from]);
        while let Some(t) = queue.pop_front() {
            if t == to {
                let mut path = Vec::new();
                let mut at = to;
                while let Some(&(step, prev, k)) = parent.get(&at) {
                    path.push((step, prev, k, at));
                    at = prev;
                }
                path.reverse();
                return Some(path);
            }
            for &(step, k) in self.readers.get(&t).map_or(&[][..], |r| &r[..]) {
                for out in self.outputs(step) {
                    if allow(step, k, out) && seen.insert(out) {
                        parent.insert(out, (step, t, k));
                        queue.push_back(out);
                    }
                }
            }
        }
        None
    }

    /// Every tensor reachable from `from` through the edges `allow` lets through.
    fn reach(&self, from: TensorId, allow: impl Fn(Step, u32, TensorId) -> bool) -> FxHashSet<TensorId> {
        let mut seen = FxHashSet::default();
        seen.insert(from);
        let mut stack = vec![from];
        while let Some(t) = stack.pop() {
            for &(step, k) in self.readers.get(&t).map_or(&[][..], |r| &r[..]) {
                for out in self.outputs(step) {
                    if allow(step, k, out) && seen.insert(out) {
                        stack.push(out);
                    }
                }
            }
        }
        seen
    }

    /// Every tensor reachable backwards from `to` through the inputs `allow` lets through
    /// (an operation, its input's position, the output reached).
    fn back(&self, to: TensorId, allow: impl Fn(Step, u32, TensorId) -> bool) -> FxHashSet<TensorId> {
        let mut seen = FxHashSet::default();
        seen.insert(to);
        let mut stack = vec![to];
        while let Some(t) = stack.pop() {
            let Some(&step) = self.maker.get(&t) else { continue };
            for (k, x) in self.inputs(step) {
                if allow(step, k, t) && seen.insert(x) {
                    stack.push(x);
                }
            }
        }
        seen
    }

    /// Every tensor whose gradient the target's reaches (itself included): the gradient graph
    /// walked backwards.
    fn carriers(&self, to: TensorId) -> FxHashSet<TensorId> {
        self.back(to, |step, k, out| self.carries(step, k, out))
    }

    /// Every tensor the target was made from (itself included), through any operation.
    fn ancestry(&self, to: TensorId) -> FxHashSet<TensorId> {
        self.back(to, |_, _, _| true)
    }

    fn name(&self, step: Step) -> String {
        match step {
            Step::Entry(i) => self.log.entries[i as usize].op.name(),
            Step::Note(i) => self.notes[i as usize].name.to_string(),
        }
    }

    fn site(&self, step: Step) -> Site {
        match step {
            Step::Entry(i) => self.log.entries[i as usize].site,
            Step::Note(i) => self.notes[i as usize].site,
        }
    }
}

/// The explanation of `tape.gradient(q.target, q.source)` on `tape` (see the module
/// documentation), as lines of text: the verdict first, then the path or the culprit, then a
/// hint where there is one.
pub fn explain(tape: &Tape, q: &Query, places: &Places) -> String {
    let log = tape.log();
    let g = Graph::new(tape, &log);
    let (t, s) = (&q.target_name, &q.source_name);
    let mut out = String::new();
    let mut verdict = |v: &str| {
        let _ = writeln!(out, "the gradient of {t} with respect to {s} {v}");
    };
    if !q.source_dtype.is_float() {
        verdict(&format!("is None: {s} is {}, and integer and bool tensors have no gradient", q.source_dtype));
        let _ = writeln!(out, "  hint: watch cast({s}, float32) and compute from that");
        return out;
    }
    let watched = tape.watches(q.source);
    if q.target == q.source && watched {
        verdict(&format!("is ones: {t} is {s} itself"));
        return out;
    }
    if let Some(path) = g.path(q.source, q.target, |st, k, o| g.carries(st, k, o)) {
        return flows(&g, tape, q, &path, places, out);
    }
    if let Some(path) = g.path(q.source, q.target, |_, _, _| true) {
        if let Some(why) = blocked(&g, tape, q, &path, places) {
            verdict(&why.0);
            let _ = writeln!(out, "  {}", render(&g, q, &path, places));
            for line in why.1.iter().flat_map(|l| l.lines()) {
                let _ = writeln!(out, "  {line}");
            }
            return out;
        }
    }
    if !g.maker.contains_key(&q.target) && !tape.watches(q.target) {
        let when = match tape.notes().start {
            _ if tape.notes().was_reset => "before tape.reset(), or while this tape was not recording".into(),
            Some((site, id)) if q.target < id => format!("before the tape started recording at {}", places.at(site)),
            _ => "while this tape was not recording (after its with block, or in stop_recording())".into(),
        };
        verdict(&format!("is None: {t} was computed {when}"));
        let _ = writeln!(out, "  no operation this tape saw made {t}\n  hint: compute {t} inside the with block");
        return out;
    }
    if !watched {
        let (v, lines) = not_watched(tape, q, None, places);
        verdict(&v);
        for line in lines {
            let _ = writeln!(out, "  {line}");
        }
        return out;
    }
    // A Python number (`.item()`, `.numpy()`) made from the source: the trail ends there.
    let from_source = g.reach(q.source, |_, _, _| true);
    if let Some(n) = g.notes.iter().find(|n| n.outputs.is_empty() && n.inputs.iter().any(|x| from_source.contains(x))) {
        let what =
            if n.inputs.first() == Some(&q.source) { s.to_string() } else { format!("a tensor computed from {s}") };
        verdict(&format!("is None: the path is probably cut by {} at {}", n.name, places.at(n.site)));
        let into = leaves_as(n.name);
        let _ = writeln!(
            out,
            "  {} at {} turned {what} into {into}, which no tape follows; no operation this tape saw leads from {s} to {t}",
            n.name,
            places.at(n.site)
        );
        let _ = writeln!(out, "  {}", exit_hint(n.name));
        return out;
    }
    // Values made after the source but before the tape started, that the target grew from.
    if let Some((start_site, start_id)) = tape.notes().start {
        let older = g
            .ancestry(q.target)
            .into_iter()
            .filter(|&x| x > q.source && x < start_id && !g.maker.contains_key(&x) && !tape.watches(x))
            .min();
        if let Some(x) = older {
            let reader = g.readers.get(&x).and_then(|r| r.first()).map(|&(st, _)| st);
            verdict(&format!("is None: {t} was computed from a value made before the tape started"));
            if let Some(st) = reader {
                let _ = writeln!(
                    out,
                    "  {} at {} reads a tensor made before the tape started recording at {}",
                    g.name(st),
                    places.at(g.site(st)),
                    places.at(start_site)
                );
            }
            let _ = writeln!(
                out,
                "  operations outside the with block are not recorded: if that tensor was computed from {s}, its history is lost\n  hint: compute it inside the with block"
            );
            return out;
        }
    }
    verdict(&format!("is None: {t} does not depend on {s}"));
    let _ = writeln!(out, "  no operation this tape saw leads from {s} to {t}");
    if tape.notes().full {
        let _ = writeln!(out, "  (the tape noted only the first 100000 operations it did not record)");
    }
    out
}

/// The answer when the gradient flows along `path`: the path, and why it is all zeros if the
/// last `gradient` call gave zeros.
fn flows(g: &Graph, tape: &Tape, q: &Query, path: &Path, places: &Places, mut out: String) -> String {
    let (t, s) = (&q.target_name, &q.source_name);
    let carries = |st: Step, k: u32, o: TensorId| g.carries(st, k, o);
    // The entries on some path from source to target: what carries the gradient.
    let fwd = g.reach(q.source, carries);
    let bwd = g.carriers(q.target);
    let mut on_paths: Vec<(u32, u32)> = Vec::new();
    for (i, e) in g.log.entries.iter().enumerate() {
        let step = Step::Entry(i as u32);
        for (k, x) in e.inputs.iter().enumerate() {
            let k = k as u32;
            if fwd.contains(&x.id) && e.outputs.iter().any(|o| carries(step, k, o.id) && bwd.contains(&o.id)) {
                on_paths.push((i as u32, k));
            }
        }
    }
    let last =
        tape.notes().last_grads.iter().find(|(id, _)| *id == q.source).map(|(_, w)| w.as_ref().map(|w| w.upgrade()));
    let zeros = matches!(&last, Some(Some(Some(a))) if a.to_f64_vec().iter().all(|v| *v == 0.0));
    let _ = writeln!(out, "the gradient of {t} with respect to {s} {}", if zeros { "is all zeros:" } else { "flows:" });
    let _ = writeln!(out, "  {}", render(g, q, path, places));
    let ops: FxHashSet<u32> = on_paths.iter().map(|p| p.0).collect();
    if ops.len() > path.len() {
        let _ =
            writeln!(out, "  (the shortest of several paths; {} recorded operations carry the gradient)", ops.len());
    }
    let custom = path.iter().any(|&(st, ..)| g.name(st).starts_with("custom_gradient"));
    if custom && tape.notes().last_grads.is_empty() {
        let _ = writeln!(out, "  (whether a custom_gradient grad_fn returns None is known once tape.gradient has run)");
    }
    if !zeros {
        return out;
    }
    let makers: Vec<(u32, u32, String)> =
        on_paths.iter().filter_map(|&(i, k)| zero_maker(g, i, k, places).map(|why| (i, k, why))).collect();
    let cut: FxHashSet<(u32, u32)> = makers.iter().map(|m| (m.0, m.1)).collect();
    let still = g.path(q.source, q.target, |st, k, o| {
        carries(st, k, o) && !matches!(st, Step::Entry(i) if cut.contains(&(i, k)))
    });
    if !makers.is_empty() && still.is_none() {
        let mut said = FxHashSet::default();
        for (_, _, why) in &makers {
            if said.insert(why.clone()) {
                let _ = writeln!(out, "  zero because {why}");
            }
        }
    } else {
        let released = ops.iter().any(|&i| matches!(*g.log.entries[i as usize].op, Op::Released { .. }));
        let _ = writeln!(out, "  explain cannot tell which operations make it zero");
        if released {
            let _ = writeln!(
                out,
                "  (the tape released its saved values after gradient; with persistent=True explain can look at them)"
            );
        }
    }
    out
}

/// Why entry `i`'s gradient to its input `k` is zero everywhere, when the entry shows it.
fn zero_maker(g: &Graph, i: u32, k: u32, places: &Places) -> Option<String> {
    let e = &g.log.entries[i as usize];
    let at = places.at(e.site);
    let all_zero = |t: &Tensor| t.data.to_f64_vec().iter().all(|v| *v == 0.0);
    match &*e.op {
        Op::Unary { op: Unary::Sign | Unary::Step, .. } => {
            Some(format!("{} at {at} has a zero derivative everywhere", e.op.static_name()))
        }
        Op::Released { name: name @ ("sign" | "step"), .. } => {
            Some(format!("{name} at {at} has a zero derivative everywhere"))
        }
        Op::Unary { op: Unary::Relu, saved: Some(y) } if all_zero(y) => {
            Some(format!("relu at {at} is zero for every element (no input was positive), so its derivative is zero"))
        }
        Op::Binary { op: Binary::Mul, a, b } | Op::MatMul { a, b } => {
            let other = if k == 0 { b } else { a };
            all_zero(other).then(|| format!("{} at {at} multiplies by a tensor that is all zeros", e.op.static_name()))
        }
        Op::Where { cond, .. } => {
            let picks = cond.data.to_f64_vec().iter().any(|&c| (c != 0.0) == (k == 0));
            (!picks).then(|| format!("where at {at} never picks this input (its condition is {} everywhere)", k != 0))
        }
        _ => None,
    }
}

/// The first step of `path` the gradient cannot cross, and what to say about it: a verdict
/// and detail lines. `None` when every step carries it (not expected).
fn blocked(g: &Graph, tape: &Tape, q: &Query, path: &Path, places: &Places) -> Option<(String, Vec<String>)> {
    let s = &q.source_name;
    for &(step, input, k, out) in path {
        if g.carries(step, k, out) {
            continue;
        }
        let at = places.at(g.site(step));
        let name = g.name(step);
        return Some(match step {
            Step::Note(i) if g.notes[i as usize].cut => {
                (format!("is None: the path is cut by {name} at {at}"), vec![cut_reason(g.notes[i as usize].name)])
            }
            Step::Entry(i) if matches!(g.entry_stop(i, k, out), EntryStop::GradFnNone) => (
                format!("is None: the grad_fn of {name} returned None for its input {}", k + 1),
                vec![format!(
                    "{name} was called at {at}; its grad_fn gave no gradient for input {} (of {}), so nothing flows back through it",
                    k + 1,
                    g.log.entries[i as usize].inputs.len()
                )],
            ),
            Step::Entry(i) if matches!(g.entry_stop(i, k, out), EntryStop::IntOutput(_)) => {
                let d = g.log.entries[i as usize].outputs.iter().find(|o| o.id == out).map(|o| o.dtype);
                let d = d.map_or_else(String::new, |d| format!("{d} "));
                (
                    format!("is None: {name} at {at} has an integer or bool result, which has no gradient"),
                    vec![format!("{name} (entry {i} of the tape) makes a {d}tensor from {s}'s values; only float tensors carry gradients")],
                )
            }
            _ if input == q.source => not_watched(tape, q, Some(step_use(g, step)), places),
            Step::Entry(i) => (
                format!("is None: {name} at {at} was recorded without its input on the way from {s}"),
                vec![format!(
                    "the tape recorded {name} (entry {i}) for another input; its input {} was not watched by this tape when it ran",
                    k + 1
                )],
            ),
            Step::Note(_) => (
                format!("is None: {name} at {at} was not recorded"),
                vec![format!("its input on the way from {s} was not watched by this tape when it ran")],
            ),
        });
    }
    None
}

/// Where and when an operation used the source: its name, site, and its position in the
/// tape's history (entries recorded, unrecorded operations noted, before it).
struct Use {
    name: String,
    site: Site,
    /// The tape's entry when the operation was recorded (for another, watched, input).
    entry: Option<u32>,
    entries_before: u32,
    notes_before: u32,
}

fn step_use(g: &Graph, step: Step) -> Use {
    let (entries_before, notes_before) = match step {
        Step::Entry(i) => (i, u32::MAX),
        Step::Note(i) => (u32::MAX, i),
    };
    let entry = match step {
        Step::Entry(i) => Some(i),
        Step::Note(_) => None,
    };
    Use { name: g.name(step), site: g.site(step), entry, entries_before, notes_before }
}

/// The verdict for a source the tape did not watch when `used` (if known) used it.
fn not_watched(tape: &Tape, q: &Query, used: Option<Use>, places: &Places) -> (String, Vec<String>) {
    let s = &q.source_name;
    if let (Some(u), Some(w)) = (&used, tape.notes().first_watch(q.source)) {
        if w.entries > u.entries_before || w.unrecorded > u.notes_before {
            return (
                format!("is None: {s} was watched after its use"),
                vec![
                    format!(
                        "{} at {} used {s} before tape.watch({s}) at {}: watching is not retroactive, so {}",
                        u.name,
                        places.at(u.site),
                        places.at(w.site),
                        match u.entry {
                            Some(i) => format!("the tape recorded it (entry {i}) for its other inputs only"),
                            None => "it was not recorded".into(),
                        }
                    ),
                    format!("hint: move tape.watch({s}) before {}", places.line(u.site)),
                ],
            );
        }
    }
    let used_line = used.as_ref().map(|u| match u.entry {
        Some(i) => format!(
            "{} at {} used {s}; the tape recorded it (entry {i}) because another input was watched, but {s} was not, so no gradient flows back to {s}",
            u.name,
            places.at(u.site)
        ),
        None => format!(
            "{} at {} used {s}, but the tape did not record it: a tape records an operation only when one of its inputs is watched",
            u.name,
            places.at(u.site)
        ),
    });
    let mut lines: Vec<String> = used_line.into_iter().collect();
    let verdict = match q.variable {
        Some(false) => {
            lines.push(format!("hint: make it Variable(..., trainable=True), or call tape.watch({s})"));
            format!("is None: {s} is a Variable with trainable=False, which tapes do not watch")
        }
        Some(true) if !tape.watch_accessed_variables => {
            lines.push(format!("hint: call tape.watch({s}) before using it"));
            format!("is None: {s} is not watched: this tape has watch_accessed_variables=False")
        }
        Some(true) => {
            lines.push(format!("hint: read {s} inside the with block"));
            format!("is None: {s} was not read while this tape recorded")
        }
        None => {
            let before = used.as_ref().map_or(String::new(), |u| format!(" before {}", places.line(u.site)));
            lines.push(format!(
                "hint: call tape.watch({s}) inside the with block{before}, or make {s} a Variable (trainable=True)"
            ));
            format!("is None: {s} is not watched by this tape")
        }
    };
    (verdict, lines)
}

const NUMPY_VALUE: &str = "a NumPy value";

/// What a value leaving the tensor world through `name` becomes: a NumPy value (`.numpy()`, an
/// `np.` function) or Python numbers (`.item()`, `float()`, `int()`).
fn leaves_as(name: &str) -> &'static str {
    if name == ".numpy()" || name.starts_with("np.") {
        NUMPY_VALUE
    } else {
        "Python numbers"
    }
}

/// The hint for a path that left the tensor world through `name`.
fn exit_hint(name: &str) -> String {
    if name.starts_with("np.") {
        format!("hint: compute with TF's ops (tf.math, tf.reduce_*) in place of {name}")
    } else {
        "hint: keep the computation in tensor operations".into()
    }
}

/// Why an operation with no gradient stops it.
fn cut_reason(name: &str) -> String {
    match name {
        "stop_gradient" => "stop_gradient's result is a constant to every tape".into(),
        "cast" => "a cast to an integer or bool dtype has no gradient".into(),
        "argmax" | "argmin" => format!("{name} returns integer indices, which have no gradient"),
        "round" | "floor" | "ceil" => format!(
            "{name} has no gradient (as in TF); for a straight-through estimator write x + stop_gradient({name}(x) - x)"
        ),
        name if leaves_as(name) == NUMPY_VALUE => {
            format!("{name} returns {NUMPY_VALUE}, which no tape follows\n{}", exit_hint(name))
        }
        ".item()" | "float()" | "int()" => format!("{name} returns Python numbers, which no tape follows"),
        _ => format!("{name} returns a bool tensor, which has no gradient"),
    }
}

/// `x → multiply (line 4) → reduce_sum (line 5) → loss`, with the steps that stop the
/// gradient marked; a long path keeps its first and last three steps.
fn render(g: &Graph, q: &Query, path: &Path, places: &Places) -> String {
    let mut parts = vec![q.source_name.clone()];
    let shown: Vec<usize> =
        if path.len() > 8 { (0..3).chain(path.len() - 3..path.len()).collect() } else { (0..path.len()).collect() };
    for (n, &j) in shown.iter().enumerate() {
        if n == 3 && path.len() > 8 {
            parts.push(format!("… {} more …", path.len() - 6));
        }
        let (step, _, k, out) = path[j];
        // A recorded entry is never called "not recorded": the tape lists it (print(tape)).
        let mark = match step {
            _ if g.carries(step, k, out) => String::new(),
            Step::Note(i) if g.notes[i as usize].cut => ", no gradient".into(),
            Step::Note(_) => ", not recorded".into(),
            Step::Entry(i) => match g.entry_stop(i, k, out) {
                EntryStop::GradFnNone => ", grad_fn gave None".into(),
                EntryStop::IntOutput(d) => format!(", {d} output"),
                EntryStop::InputNotWatched => format!(", recorded as entry {i}, input {} not watched", k + 1),
            },
        };
        parts.push(format!("{} ({}{mark})", g.name(step), places.line(g.site(step))));
    }
    parts.push(q.target_name.clone());
    parts.join(" → ")
}
