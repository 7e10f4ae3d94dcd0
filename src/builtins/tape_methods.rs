//! Methods of `GradientTape` values (docs/language.md §5): `watch`, `gradient`,
//! `jacobian`, `batch_jacobian`, `stats`, `watched_variables`, `reset`.

use super::{this_tape, Native, NO_ARGS};
use crate::autodiff::Tape;
use crate::bail;
use crate::error::R;
use crate::runtime::value::{Args, HashKey, Value};
use crate::runtime::Interp;
use crate::tensor::{shape_str, Array, Tensor};
use std::cell::RefCell;
use std::rc::Rc;

pub(super) static TAPE_WATCH: Native = Native::new("watch", &["tensor"], tape_watch);

/// `tape.watch(x)`: a tensor, a Variable, or a (nested) list of them.
pub(super) fn tape_watch(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let tape = this_tape(a)?;
    let x = TAPE_WATCH.bind(rt, a)?.value("tensor")?;
    fn watch(rt: &mut Interp, tape: &Rc<RefCell<Tape>>, v: &Value) -> R<()> {
        rt.nested("while watching a nested list (does it contain itself?)", |rt| watch_level(rt, tape, v))
    }
    fn watch_level(rt: &mut Interp, tape: &Rc<RefCell<Tape>>, v: &Value) -> R<()> {
        match v {
            Value::Tensor(t) => {
                if t.dtype().is_float() {
                    let mut tape = tape.borrow_mut();
                    tape.watch(t.id);
                    let n = tape.len();
                    tape.notes_mut().watched(t.id, rt.ad.site(), n);
                }
            }
            Value::Variable(var) => {
                let mut tape = tape.borrow_mut();
                tape.watch_variable(var);
                let n = tape.len();
                tape.notes_mut().watched(var.handle, rt.ad.site(), n);
            }
            Value::List(_) | Value::Tuple(_) => {
                for x in rt.iterate(v)? {
                    watch(rt, tape, &x)?;
                }
            }
            other => bail!(Type, "watch() needs tensors or Variables, not {}", other.type_name()),
        }
        Ok(())
    }
    watch(rt, &tape, &x)?;
    Ok(Value::None)
}

/// The leaves of a (nested) structure of sources, in order.
pub(super) fn flatten_sources(rt: &mut Interp, v: &Value, out: &mut Vec<Value>) -> R<()> {
    rt.nested("while reading nested sources (do they contain themselves?)", |rt| flatten_sources_level(rt, v, out))
}

fn flatten_sources_level(rt: &mut Interp, v: &Value, out: &mut Vec<Value>) -> R<()> {
    match v {
        Value::List(_) | Value::Tuple(_) => {
            for x in rt.iterate(v)? {
                flatten_sources(rt, &x, out)?;
            }
        }
        Value::Dict(d) => {
            let vals: Vec<Value> = d.borrow().values().map(|(_, v)| v.clone()).collect();
            for x in vals {
                flatten_sources(rt, &x, out)?;
            }
        }
        other => out.push(other.clone()),
    }
    Ok(())
}

/// Rebuilds `like`'s structure from results in order.
pub(super) fn unflatten(like: &Value, it: &mut impl Iterator<Item = Value>) -> Value {
    match like {
        Value::List(l) => Value::list(l.borrow().iter().map(|x| unflatten(x, it)).collect()),
        Value::Tuple(t) => Value::tuple(t.iter().map(|x| unflatten(x, it)).collect()),
        Value::Dict(d) => {
            let mut out = crate::runtime::value::Dict::default();
            for (k, (kv, v)) in d.borrow().iter() {
                out.insert(k.clone(), (kv.clone(), unflatten(v, it)));
            }
            Value::Dict(Rc::new(RefCell::new(out)))
        }
        _ => it.next().unwrap_or(Value::None),
    }
}

/// `unconnected_gradients=`: `'none'` (the default) or `'zero'`; `UnconnectedGradients.NONE`
/// and `.ZERO` are those strings.
pub(super) fn unconnected_zero(rt: &mut Interp, v: Option<Value>) -> R<bool> {
    Ok(match v {
        None => false,
        Some(Value::Str(s)) if s.as_ref() == "none" => false,
        Some(Value::Str(s)) if s.as_ref() == "zero" => true,
        Some(other) => {
            let r = rt.repr_of(&other)?;
            bail!(Value, "unconnected_gradients must be 'none' or 'zero', not {r}")
        }
    })
}

pub(super) static TAPE_GRADIENT: Native = Native::new(
    "gradient",
    &["target", "sources", "output_gradients=None", "unconnected_gradients='none'"],
    tape_gradient,
);

/// `tape.gradient(target, sources, output_gradients=None, unconnected_gradients='none')`
pub(super) fn tape_gradient(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let tape = this_tape(a)?;
    let mut b = TAPE_GRADIENT.bind(rt, a)?;
    let (target, sources) = (b.value("target")?, b.value("sources")?);
    let (output_gradients, unconnected) = (b.non_none("output_gradients")?, b.non_none("unconnected_gradients")?);
    let zero = unconnected_zero(rt, unconnected)?;
    let mut tv = Vec::new();
    flatten_sources(rt, &target, &mut tv)?;
    let targets: Vec<Tensor> = tv.iter().map(|t| rt.to_tensor(t, None)).collect::<R<_>>()?;
    let ogs = match output_gradients {
        None => None,
        Some(v) => Some(output_gradient_seeds(rt, &target, &targets, &v)?),
    };
    let mut leaves = Vec::new();
    flatten_sources(rt, &sources, &mut leaves)?;
    let mut ids = Vec::with_capacity(leaves.len());
    let mut metas = Vec::with_capacity(leaves.len());
    for s in &leaves {
        let t = match s {
            Value::Variable(v) => v.peek(),
            Value::Tensor(t) => t.clone(),
            other => bail!(Type, "gradient sources must be tensors or Variables, not {}", other.type_name()),
        };
        ids.push(t.id);
        metas.push(t);
    }
    let grads = rt.gradient(&tape, &targets, &ids, ogs)?;
    // `tape.explain` looks at the answer (without keeping it alive) to tell zeros.
    tape.borrow_mut().notes_mut().last_grads =
        ids.iter().zip(&grads).map(|(id, g)| (*id, g.as_ref().map(|g| Rc::downgrade(&g.data)))).collect();
    let results = grads.into_iter().zip(&metas).map(|(g, src)| {
        // Integer and bool sources get no gradient: None, or zeros of their own dtype with
        // unconnected_gradients='zero' (docs/language.md §5, as TF).
        if !src.dtype().is_float() {
            return if zero { Value::Tensor(Tensor::zeros(src.dtype(), src.shape())) } else { Value::None };
        }
        match g {
            Some(g) => Value::Tensor(g),
            None if zero => Value::Tensor(Tensor::zeros(src.dtype(), src.shape())),
            None => Value::None,
        }
    });
    Ok(unflatten(&sources, &mut results.collect::<Vec<_>>().into_iter()))
}

/// `output_gradients=` checked against the targets and paired with them, in the order of
/// `flatten_sources(target)`: one gradient per target. The one place these are validated
/// (docs/language.md "Gradients").
///
/// A single target takes one tensor (or a structure holding exactly one); a list, tuple or
/// dict of targets takes the same structure, or any structure with as many leaves in the same
/// order (as TF flattens both); dicts pair by key. A number or list is converted to its
/// target's dtype.
/// Errors: ValueError when the count differs from the number of targets (TF silently uses the
/// first ones), for a None entry, or for a dict whose keys differ from the target's; ShapeError
/// for a gradient whose shape is not its target's; TypeError for one whose dtype is not its
/// target's, or one that is not numeric. Each names the target's index and both shapes.
fn output_gradient_seeds(rt: &mut Interp, target: &Value, targets: &[Tensor], og: &Value) -> R<Vec<Tensor>> {
    let mut leaves = Vec::new();
    pair_output_gradients(rt, target, og, &mut leaves)?;
    let single = !matches!(target, Value::List(_) | Value::Tuple(_) | Value::Dict(_));
    if leaves.len() != targets.len() {
        let n = targets.len();
        let hint = if single {
            format!(
                " (one entry per target: to weight the elements of a target of shape {}, give one tensor of that shape)",
                shape_str(targets[0].shape())
            )
        } else {
            " (one entry per target)".to_string()
        };
        bail!(
            Value,
            "output_gradients gives {} gradient{} for {n} target{}{hint}",
            leaves.len(),
            if leaves.len() == 1 { "" } else { "s" },
            if n == 1 { "" } else { "s" }
        );
    }
    let mut seeds = Vec::with_capacity(targets.len());
    for (k, (g, t)) in leaves.iter().zip(targets).enumerate() {
        let (entry, of) = if single {
            ("output_gradients".to_string(), "the target".to_string())
        } else {
            (format!("output_gradients[{k}]"), format!("target {k}"))
        };
        let g = match g {
            Value::None => bail!(
                Value,
                "{entry} is None: give a tensor of shape {} for {of} (ones of that shape are the default)",
                shape_str(t.shape())
            ),
            Value::Tensor(_) | Value::Variable(_) => {
                let g = rt.to_tensor(g, None)?;
                if g.dtype() != t.dtype() && t.dtype().is_float() {
                    bail!(
                        Type,
                        "{entry} has dtype {} but {of} has dtype {} (shapes {} and {}; use cast)",
                        g.dtype(),
                        t.dtype(),
                        shape_str(g.shape()),
                        shape_str(t.shape())
                    );
                }
                g
            }
            other => rt.to_tensor(other, Some(t.dtype()))?,
        };
        if g.shape() != t.shape() {
            bail!(Shape, "{entry} has shape {} but {of} has shape {}", shape_str(g.shape()), shape_str(t.shape()));
        }
        seeds.push(g);
    }
    Ok(seeds)
}

/// The leaves of `og` in the order of `target`'s leaves: structures walked together where
/// they agree (dicts by key), else `og` flattened as it is.
fn pair_output_gradients(rt: &mut Interp, target: &Value, og: &Value, out: &mut Vec<Value>) -> R<()> {
    rt.nested("while reading nested output_gradients (do they contain themselves?)", |rt| match (target, og) {
        (Value::Dict(t), Value::Dict(g)) => {
            let (t, g) = (t.borrow().clone(), g.borrow().clone());
            if let Some((_, (k, _))) = t.iter().find(|(h, _)| !g.contains_key(*h)) {
                let k = rt.repr_of(k)?;
                bail!(Value, "output_gradients has no entry for the target under key {k}");
            }
            if let Some((_, (k, _))) = g.iter().find(|(h, _)| !t.contains_key(*h)) {
                let k = rt.repr_of(k)?;
                bail!(Value, "output_gradients has an entry under key {k}, which names no target");
            }
            for (h, (_, tv)) in t.iter() {
                pair_output_gradients(rt, tv, &g[h].1, out)?;
            }
            Ok(())
        }
        (Value::List(_) | Value::Tuple(_), Value::List(_) | Value::Tuple(_)) => {
            let (ts, gs) = (rt.iterate(target)?, rt.iterate(og)?);
            if ts.len() != gs.len() {
                return flatten_sources(rt, og, out);
            }
            for (tv, gv) in ts.iter().zip(&gs) {
                pair_output_gradients(rt, tv, gv, out)?;
            }
            Ok(())
        }
        _ => flatten_sources(rt, og, out),
    })
}

pub(super) static TAPE_JACOBIAN: Native = Native::new(
    "jacobian",
    &[
        "target",
        "sources",
        "unconnected_gradients='none'",
        "parallel_iterations: int | None = None",
        "experimental_use_pfor: bool = True",
    ],
    tape_jacobian,
);

/// `tape.jacobian(target, sources, unconnected_gradients='none', parallel_iterations=None,
/// experimental_use_pfor=True)`: the derivative of every element of `target` with respect to
/// every element of each source.
///
/// Shapes: target [y…], a source [x…] → [y…, x…]; `sources` may be one tensor or Variable, or a
/// (nested) list, tuple or dict of them, and the result mirrors that structure.
/// Dtypes: each result has its source's dtype; an int source has no jacobian (None).
/// Gradient: recorded by any enclosing tape (the rows are gradients), so jacobians nest.
/// Errors: RuntimeError on a used non-persistent tape (the whole jacobian is that tape's one
/// use); TypeError for a source that is not a tensor or Variable; ValueError for an unknown
/// `unconnected_gradients`. `parallel_iterations` and `experimental_use_pfor` are accepted and
/// change nothing (rows are computed one by one).
/// See: docs/language.md §5; tf.GradientTape.jacobian.
pub(super) fn tape_jacobian(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let tape = this_tape(a)?;
    let mut b = TAPE_JACOBIAN.bind(rt, a)?;
    let (target, sources, unconnected) =
        (b.value("target")?, b.value("sources")?, b.non_none("unconnected_gradients")?);
    b.opt_int("parallel_iterations")?;
    b.bool_or("experimental_use_pfor", true)?;
    let zero = unconnected_zero(rt, unconnected)?;
    let y = rt.to_tensor(&target, None)?;
    let mut leaves = Vec::new();
    flatten_sources(rt, &sources, &mut leaves)?;
    let srcs: Vec<Tensor> = leaves.iter().map(|s| source_tensor(s, "jacobian")).collect::<R<_>>()?;
    let n = y.len();
    let rows = gradient_rows(rt, &tape, &y, &srcs, n, |i| {
        let mut onehot = vec![0.0; n];
        onehot[i] = 1.0;
        onehot
    })?;
    let mut results = Vec::with_capacity(srcs.len());
    for (src, rows) in srcs.iter().zip(rows) {
        let mut shape = y.shape().to_vec();
        shape.extend_from_slice(src.shape());
        results.push(match rows {
            // TF: a source no element of the target depends on has no jacobian (None), unless
            // unconnected_gradients='zero'; rows of unconnected elements are zeros.
            None if !zero => Value::None,
            None => Value::Tensor(Tensor::zeros(src.dtype(), &shape)),
            Some(rows) if rows.is_empty() => Value::Tensor(Tensor::zeros(src.dtype(), &shape)),
            Some(rows) => {
                let stacked = rt.ad.stack(&rows, 0)?;
                Value::Tensor(rt.ad.reshape_to(&stacked, &shape)?)
            }
        });
    }
    Ok(unflatten(&sources, &mut results.into_iter()))
}

pub(super) static TAPE_BATCH_JACOBIAN: Native = Native::new(
    "batch_jacobian",
    &[
        "target",
        "source",
        "unconnected_gradients='none'",
        "parallel_iterations: int | None = None",
        "experimental_use_pfor: bool = True",
    ],
    tape_batch_jacobian,
);

/// `tape.batch_jacobian(target, source, unconnected_gradients='none', parallel_iterations=None,
/// experimental_use_pfor=True)`: per-example jacobians, for a target whose example `i` depends
/// only on the source's example `i`.
///
/// Shapes: target [b, y…], source [b, x…] → [b, y…, x…], where `result[i]` is the jacobian of
/// `target[i]` with respect to `source[i]`. (Computed as one gradient per element of `y…`
/// summed over the batch: when examples are not independent, the result mixes them, as TF's.)
/// Dtypes: the source's.
/// Gradient: recorded by any enclosing tape, as for `jacobian`.
/// Errors: ValueError when target or source has rank below 2 or their first dimensions differ;
/// RuntimeError on a used non-persistent tape; TypeError for a source that is not a tensor or
/// Variable. An unconnected source gives None (zeros with `unconnected_gradients='zero'`).
/// See: docs/language.md §5; tf.GradientTape.batch_jacobian.
pub(super) fn tape_batch_jacobian(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let tape = this_tape(a)?;
    let mut b = TAPE_BATCH_JACOBIAN.bind(rt, a)?;
    let (target, source, unconnected) = (b.value("target")?, b.value("source")?, b.non_none("unconnected_gradients")?);
    b.opt_int("parallel_iterations")?;
    b.bool_or("experimental_use_pfor", true)?;
    let zero = unconnected_zero(rt, unconnected)?;
    let y = rt.to_tensor(&target, None)?;
    let src = source_tensor(&source, "batch_jacobian")?;
    let (ys, xs) = (y.shape().to_vec(), src.shape().to_vec());
    if ys.len() < 2 || xs.len() < 2 {
        bail!(
            Value,
            "batch_jacobian needs a target and a source of rank 2 or more ([batch, …]), got shapes {} and {}",
            shape_str(&ys),
            shape_str(&xs)
        );
    }
    if ys[0] != xs[0] {
        bail!(
            Value,
            "batch_jacobian needs the same first (batch) dimension in target and source, got shapes {} and {}",
            shape_str(&ys),
            shape_str(&xs)
        );
    }
    let (batch, m) = (ys[0], ys[1..].iter().product::<usize>());
    let mut shape = ys.clone();
    shape.extend_from_slice(&xs[1..]);
    // Row j: the gradient of the sum over the batch of target[i, j] (flattened j).
    let rows = gradient_rows(rt, &tape, &y, std::slice::from_ref(&src), m, |j| {
        let mut onehot = vec![0.0; batch * m];
        for i in 0..batch {
            onehot[i * m + j] = 1.0;
        }
        onehot
    })?;
    Ok(match rows.into_iter().next().flatten() {
        // TF 2.21 returns zeros here whatever `unconnected_gradients` says, against its own
        // documentation; DGL follows the documentation and `jacobian` (docs/language.md §5).
        None if !zero => Value::None,
        None => Value::Tensor(Tensor::zeros(src.dtype(), &shape)),
        Some(rows) if rows.is_empty() || batch == 0 => Value::Tensor(Tensor::zeros(src.dtype(), &shape)),
        Some(rows) => {
            let stacked = rt.ad.stack(&rows, 1)?;
            Value::Tensor(rt.ad.reshape_to(&stacked, &shape)?)
        }
    })
}

/// The tensor of a jacobian source (a Variable's current value).
///
/// Errors: TypeError for anything else.
fn source_tensor(v: &Value, what: &str) -> R<Tensor> {
    match v {
        Value::Variable(v) => Ok(v.peek()),
        Value::Tensor(t) => Ok(t.clone()),
        other => bail!(Type, "{what} sources must be tensors or Variables, not {}", other.type_name()),
    }
}

/// `count` gradients of `y` with respect to each of `srcs`, row `i` with the output gradient
/// `og(i)` (row-major values of y's shape). Per source: `None` when no row reaches it, else
/// every row (zeros where a row does not reach it). With `count == 0` no row is computed but
/// connection is still found (an empty `Some` for a connected source).
///
/// Errors: RuntimeError on a used non-persistent tape, which this call uses up.
fn gradient_rows(
    rt: &mut Interp,
    tape: &Rc<RefCell<Tape>>,
    y: &Tensor,
    srcs: &[Tensor],
    count: usize,
    og: impl Fn(usize) -> Vec<f64>,
) -> R<Vec<Option<Vec<Tensor>>>> {
    // docs/language.md §5: a non-persistent tape answers once; the whole jacobian is that one use.
    let persistent = tape.borrow().persistent;
    if tape.borrow().used {
        bail!(
            Runtime,
            "a non-persistent GradientTape can only be used to compute one set of gradients (use persistent=True)"
        );
    }
    tape.borrow_mut().persistent = true;
    let ids: Vec<_> = srcs.iter().map(|s| s.id).collect();
    let mut rows: Vec<Vec<Tensor>> = vec![Vec::with_capacity(count); srcs.len()];
    let mut connected = vec![false; srcs.len()];
    let mut result = Ok(());
    // No rows (a target or row with no elements): one probe with a seed of y's (empty or zero)
    // values still tells which sources are connected, as TF's traced loop body does — a
    // connected source gets an empty jacobian, not None.
    let probe = count == 0;
    for i in 0..count.max(1) {
        let g = if probe {
            Tensor::zeros(y.dtype(), y.shape())
        } else {
            Tensor::new(Array::from_f64(y.dtype(), y.shape(), og(i)))
        };
        match rt.gradient(tape, std::slice::from_ref(y), &ids, Some(vec![g])) {
            Ok(grads) if probe => {
                for (k, g) in grads.into_iter().enumerate() {
                    connected[k] |= g.is_some();
                }
            }
            Ok(grads) => {
                for (k, (g, src)) in grads.into_iter().zip(srcs).enumerate() {
                    connected[k] |= g.is_some();
                    rows[k].push(g.unwrap_or_else(|| Tensor::zeros(src.dtype(), src.shape())));
                }
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    tape.borrow_mut().persistent = persistent;
    if !persistent {
        tape.borrow_mut().used = true;
        rt.ad.stop(tape);
    }
    result?;
    Ok(rows.into_iter().zip(connected).map(|(r, c)| c.then_some(r)).collect())
}

pub(super) static TAPE_STATS: Native = Native::with("stats", NO_ARGS, tape_stats);

/// `tape.stats()`: what the tape holds now and what its last `gradient` call measured.
///
/// `ops` (entries recorded), `saved_tensors` and `saved_bytes` (distinct buffers the entries
/// keep for their backward steps; a used non-persistent tape has released them), then, of the
/// last `gradient` call (0 before one): `peak_backward_bytes` (the most bytes alive at once:
/// saved tensors still held, a tensor saved by several entries once, plus gradients collected
/// and in flight, plus the buffers of recomputations running), `recompute_calls` and
/// `recomputed_ops` (`recompute_grad` blocks run again, nested ones included, and the
/// operations they recorded) and `recompute_seconds` (time spent running them again); and
/// `saved_bytes_by_region`, the saved bytes by checkpoint region: a dict from `name@line`
/// (a `recompute_grad` function and the line of its `def`; the bare name for a standard-library
/// function or a callable instance) or `(outside)` to bytes, each buffer counted once, under
/// the first entry saving it, so the values sum to `saved_bytes`. A `recompute_grad` entry
/// counts under its function; entries recorded inside a function's body under that function.
/// See: docs/language.md §5; docs/gradients.md.
pub(super) fn tape_stats(rt: &mut Interp, a: &mut Args) -> R<Value> {
    NO_ARGS.bind(rt, a)?;
    let tape = this_tape(a)?;
    let tape = tape.borrow();
    let (ops, saved, bytes) = tape.stats();
    let last = tape.last_backward();
    let mut d = crate::runtime::value::Dict::default();
    let mut put = |k: &str, v: Value| {
        d.insert(HashKey::Str(k.into()), (Value::str(k), v));
    };
    for (k, v) in [
        ("ops", ops),
        ("saved_tensors", saved),
        ("saved_bytes", bytes),
        ("peak_backward_bytes", last.peak_bytes),
        ("recompute_calls", last.recompute_calls),
        ("recomputed_ops", last.recomputed_ops),
    ] {
        put(k, Value::Int(v as i64));
    }
    put("recompute_seconds", Value::Float(last.recompute_seconds));
    put("saved_bytes_by_region", super::checkpoint_tools::saved_bytes_by_region(rt, &tape));
    Ok(Value::Dict(Rc::new(RefCell::new(d))))
}

pub(super) static TAPE_WATCHED_VARIABLES: Native = Native::with("watched_variables", NO_ARGS, tape_watched_variables);

/// `tape.watched_variables()`: the Variables this tape watches, in first-watched order.
pub(super) fn tape_watched_variables(rt: &mut Interp, a: &mut Args) -> R<Value> {
    NO_ARGS.bind(rt, a)?;
    let vars = this_tape(a)?.borrow().watched_variables.clone();
    Ok(Value::tuple(vars.into_iter().map(Value::Variable).collect()))
}

pub(super) static TAPE_STOP_RECORDING: Native = Native::with("stop_recording", NO_ARGS, tape_stop_recording);

/// `tape.stop_recording()`: a context manager that pauses this tape only (docs/language.md §5, as TF).
pub(super) fn tape_stop_recording(rt: &mut Interp, a: &mut Args) -> R<Value> {
    NO_ARGS.bind(rt, a)?;
    Ok(Value::StopRecording(this_tape(a)?))
}

pub(super) static TAPE_RESET: Native = Native::with("reset", NO_ARGS, tape_reset);

/// `tape.reset()`: forget everything recorded and watched.
pub(super) fn tape_reset(rt: &mut Interp, a: &mut Args) -> R<Value> {
    NO_ARGS.bind(rt, a)?;
    this_tape(a)?.borrow_mut().reset();
    Ok(Value::None)
}
