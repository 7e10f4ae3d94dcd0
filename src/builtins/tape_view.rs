//! Seeing the tape: `tape.summary()`, `tape.draw(path)` and
//! `draw_graph(y)`. The text comes from `runtime/format/tape.rs`, the picture from `svg.rs`
//! (laid out by the pure-Rust layout-rs crate); this file says what goes in the picture.

use super::tape_methods::flatten_sources;
use super::this_tape;
use super::Native;
use crate::autodiff::tape::Saved;
use crate::autodiff::tape::{Log, Op, NO_SLOT};
use crate::autodiff::Tape;
use crate::error::R;
use crate::runtime::format::tape::{input_metas, Meta};
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::svg::{Edge, Graph, Group, Look, Node};
use crate::tensor::TensorId;
use crate::{bail, err};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::rc::Rc;

/// Registers `draw_graph`.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&DRAW_GRAPH);
}

/// The most boxes a drawing holds (entries and inputs): layout takes about a second at 1,600.
const MOST_NODES: usize = 2000;

pub(super) static TAPE_SUMMARY: Native = Native::new("summary", &["limit: int | None = None"], tape_summary);

/// `tape.summary(limit=None)`: the tape as a table, one row per recorded entry, in recording
/// order: index, operation (`recompute_grad block` names the function), its tensor inputs →
/// outputs as `f32[2,3]` (dtype and shape, JAX's notation; `?` for an input the tape cannot
/// tell the shape of: not produced by the tape, not saved, not kept by the operation), the
/// bytes it saves for its backward step, the `file:line` of the statement that recorded it,
/// and its checkpoint region (`function@line` of the `recompute_grad` function it ran in, `-`
/// outside any). A tensor saved by several entries counts once, at the first (later ones show
/// `*`), so the column adds up to `tape.stats()['saved_bytes']`; after `gradient` on a
/// non-persistent tape each entry shows `released` (its saved tensors were let go). Totals
/// follow, and the last `gradient` call's `peak_backward_bytes` once there was one.
///
/// Returns: a str (print it). With `limit`, a tape of more entries shows its first and last
/// `limit // 2` rows; `str(tape)` (and so `print(tape)`) is the summary with `limit=40`;
/// `repr(tape)` stays `<GradientTape>`.
/// Errors: ValueError for a `limit` below 2; TypeError when called on something not a tape.
/// See: docs/gradients.md; Keras's `model.summary()`, torchinfo.
pub(super) fn tape_summary(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let tape = this_tape(a)?;
    let limit = TAPE_SUMMARY.bind(rt, a)?.opt_int("limit")?;
    let rows = match limit {
        None => None,
        Some(n) if n >= 2 => Some(usize::try_from(n).unwrap_or(usize::MAX)),
        Some(n) => bail!(Value, "summary() limit must be at least 2, got {n}"),
    };
    let text = rt.tape_summary(&tape.borrow(), rows);
    Ok(Value::str(&text))
}

pub(super) static TAPE_DRAW: Native = Native::new("draw", &["path=None"], tape_draw);

/// `tape.draw(path=None)`: the recorded graph as an SVG picture, written to `path` (a
/// relative path is relative to the script's folder; the file is replaced atomically) or,
/// without a path, returned as a str.
///
/// The picture, top to bottom in recording order: each entry a box (operation, `file:line`,
/// the bytes it saves), orange when it holds saved tensors, green for a checkpoint (a
/// `recompute_grad` call, which saves only its inputs), grey and dashed once released; each
/// watched source or Variable a blue box; each edge labelled with the tensor's dtype and
/// shape (`f32[2,3]`); entries recorded inside a `recompute_grad` function in a dashed green
/// box named `function@line`. Constants (unwatched inputs) are left out. Laid out by the
/// pure-Rust layout-rs crate (no `dot` binary); the same tape gives the same bytes.
///
/// Returns: `path`, or the SVG text when no path is given.
/// Errors: IOError naming the path when it cannot be written (its folder is missing, not
/// writable); TypeError for a path that is not a str; ValueError for a tape of more than
/// 2,000 entries and inputs (draw a part of it with `draw_graph(y, tape=tape)`).
/// See: docs/gradients.md; `tools/check_svg.sh` renders one in a browser.
pub(super) fn tape_draw(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let tape = this_tape(a)?;
    let path = TAPE_DRAW.bind(rt, a)?.non_none("path")?;
    let graph = {
        let t = tape.borrow();
        let log = t.log();
        let n = log.entries.len();
        tape_graph(rt, &t, &log, &vec![true; n], format!("GradientTape: {n} op{}", if n == 1 { "" } else { "s" }))?
    };
    finish(rt, &graph, path, "draw")
}

static DRAW_GRAPH: Native = Native::new("draw_graph", &["y", "path=None", "tape=None"], draw_graph);

/// `draw_graph(y, path=None, tape=None)`: the history of `y` as an SVG picture: the entries
/// of one tape that `y` depends on (the operations that computed it from watched values),
/// drawn as `tape.draw` draws a whole tape. `y` may be a tensor, a Variable, or a list or
/// tuple of them (their histories together).
///
/// Which tape: `tape=` when given; else the innermost tape recording now that recorded `y`
/// (inside its `with` block). After the block, pass the tape (DGL keeps no list of finished
/// tapes, so nothing else could find it).
/// Returns: `path`, or the SVG text when no path is given.
/// Errors: ValueError when no such tape recorded `y` (it was not computed from a watched
/// value, or the tape is not recording and was not passed); TypeError when `tape` is not a
/// GradientTape or `y` not a tensor or Variable; IOError naming the path when it cannot be
/// written.
/// See: torchviz's `make_dot(y)`.
fn draw_graph(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = DRAW_GRAPH.bind(rt, a)?;
    let (y, path, tape) = (b.value("y")?, b.non_none("path")?, b.non_none("tape")?);
    let mut leaves = Vec::new();
    flatten_sources(rt, &y, &mut leaves)?;
    let mut ids: Vec<TensorId> = Vec::with_capacity(leaves.len());
    for v in &leaves {
        ids.push(match v {
            Value::Tensor(t) => t.id,
            Value::Variable(v) => v.handle,
            other => bail!(Type, "draw_graph() needs tensors or Variables, not {}", other.type_name()),
        });
    }
    let tape: Rc<RefCell<Tape>> = match tape {
        Some(Value::Tape(t)) => t,
        Some(other) => bail!(Type, "draw_graph() tape must be a GradientTape, not {}", other.type_name()),
        None => {
            let found = rt.ad.tapes().iter().rev().find(|t| ids.iter().any(|&id| t.borrow().slot_of(id).is_some()));
            match found {
                Some(t) => t.clone(),
                None => bail!(
                    Value,
                    "draw_graph(): no recording tape computed this value (it was not computed from a watched \
                     value inside a GradientTape's block); pass the tape: draw_graph(y, tape=tape)"
                ),
            }
        }
    };
    let graph = {
        let t = tape.borrow();
        let log = t.log();
        let slots: Vec<u32> = ids.iter().filter_map(|&id| t.slot_of(id)).collect();
        if slots.is_empty() {
            bail!(Value, "draw_graph(): this tape did not record the value (no entry of it computed it)");
        }
        let keep = history(&log, &slots);
        let kept = keep.iter().filter(|&&k| k).count();
        let n = log.entries.len();
        tape_graph(
            rt,
            &t,
            &log,
            &keep,
            format!("history: {kept} of the tape's {n} op{}", if n == 1 { "" } else { "s" }),
        )?
    };
    finish(rt, &graph, path, "draw_graph")
}

/// The entries the outputs in `slots` depend on.
fn history(log: &Log, slots: &[u32]) -> Vec<bool> {
    let mut keep = vec![false; log.entries.len()];
    let mut stack: Vec<u32> = slots.to_vec();
    while let Some(slot) = stack.pop() {
        let Some(&e) = log.slot_entry.get(slot as usize) else { continue };
        if std::mem::replace(&mut keep[e as usize], true) {
            continue;
        }
        stack.extend(log.entries[e as usize].inputs.iter().filter(|x| x.slot != NO_SLOT).map(|x| x.slot));
    }
    keep
}

/// The picture of the kept entries of `tape`, their watched inputs, and their regions.
///
/// Errors: ValueError past [`MOST_NODES`] boxes.
fn tape_graph(rt: &Interp, tape: &Tape, log: &Log, keep: &[bool], title: String) -> R<Graph> {
    let metas = input_metas(tape, log);
    let saved = log.saved_by_entry();
    let (_, tensors, bytes) = tape.stats();
    let mut g = Graph {
        title: format!("{title}, {tensors} saved tensor{}, {bytes} bytes", if tensors == 1 { "" } else { "s" }),
        ..Graph::default()
    };
    let mut node_of_entry: Vec<Option<usize>> = vec![None; log.entries.len()];
    let mut node_of_source: FxHashMap<TensorId, usize> = FxHashMap::default();
    let mut regions: Vec<(u32, Vec<usize>)> = Vec::new();
    for (i, e) in log.entries.iter().enumerate().filter(|(i, _)| keep[*i]) {
        if g.nodes.len() >= MOST_NODES {
            bail!(
                Value,
                "this drawing would hold more than {MOST_NODES} boxes: draw what one value depends on with \
                 draw_graph(y, tape=tape), or record fewer steps"
            );
        }
        // Its inputs first (a source gets its box on first use), so edges point forward.
        let mut ins: Vec<(usize, String)> = Vec::new();
        for (k, x) in e.inputs.iter().filter(|x| x.id != 0).enumerate() {
            let meta = metas[i].get(k).cloned().flatten();
            let label = meta.as_ref().map_or_else(|| "?".to_string(), Meta::to_string);
            if x.slot != NO_SLOT {
                if let Some(from) = log.slot_entry.get(x.slot as usize).and_then(|&p| node_of_entry[p as usize]) {
                    ins.push((from, label));
                }
            } else if x.watched || tape.watches(x.id) {
                let from = *node_of_source.entry(x.id).or_insert_with(|| {
                    g.nodes.push(source_node(tape, x.id, &label));
                    g.nodes.len() - 1
                });
                ins.push((from, label));
            }
        }
        let me = g.nodes.len();
        g.nodes.push(entry_node(rt, e, saved[i]));
        node_of_entry[i] = Some(me);
        g.edges.extend(ins.into_iter().map(|(from, label)| Edge { from, to: me, label }));
        if e.region != 0 {
            match regions.iter_mut().find(|(r, _)| *r == e.region) {
                Some((_, members)) => members.push(me),
                None => regions.push((e.region, vec![me])),
            }
        }
    }
    g.groups = regions
        .into_iter()
        .map(|(r, members)| Group { label: format!("checkpoint region {}", rt.region_text(r)), members })
        .collect();
    Ok(g)
}

/// The box of a watched input: a Variable by its name, else `watched`, with its shape.
fn source_node(tape: &Tape, id: TensorId, label: &str) -> Node {
    let name = match tape.watched_variables.iter().find(|v| v.handle == id) {
        Some(v) => match &v.name {
            Some(n) => format!("Variable {n}"),
            None => "Variable".into(),
        },
        None => "watched".into(),
    };
    Node { lines: vec![name, label.to_string()], look: Look::Input }
}

/// The box of an entry: its operation, where it was recorded, what it saves.
fn entry_node(rt: &Interp, e: &crate::autodiff::tape::Entry, saved: Saved) -> Node {
    let mut lines = vec![e.op.name(), rt.site_text(e.site)];
    let look = match (saved, &*e.op) {
        (Saved::Released, _) => {
            lines.push("released".into());
            Look::Released
        }
        (Saved::Held { bytes, .. }, Op::Recompute(_)) => {
            lines.push(format!("checkpoint: {bytes} bytes"));
            Look::Checkpoint
        }
        (Saved::Held { bytes, shared, .. }, _) if bytes > 0 || shared => {
            // A tensor saved by several entries is counted at the first (as in the summary).
            lines.push(match (bytes, shared) {
                (0, _) => "saved: a tensor above".into(),
                (b, false) => format!("saved: {b} bytes"),
                (b, true) => format!("saved: {b} bytes + above"),
            });
            Look::Saved
        }
        _ => Look::Op,
    };
    Node { lines, look }
}

/// Writes the SVG to `path` and returns the path, or returns the SVG text.
///
/// Errors: TypeError for a path that is not a str; IOError naming it when it cannot be written.
fn finish(rt: &mut Interp, g: &Graph, path: Option<Value>, f: &str) -> R<Value> {
    let text = crate::svg::render(g);
    let Some(path) = path else { return Ok(Value::str(&text)) };
    let Value::Str(p) = &path else {
        bail!(Type, "{f}() path must be a string, not {}", path.type_name());
    };
    let full = rt.resolve_path(p);
    crate::files::write_atomic(&full, |w| w.write_all(text.as_bytes())).map_err(|e| {
        // The temporary file's random name stays out of the message (golden files pin it).
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such folder".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => e.to_string().split(" at path ").next().unwrap_or_default().to_string(),
        };
        err!(IO, "cannot write '{}': {}", p, why)
    })?;
    Ok(path)
}
