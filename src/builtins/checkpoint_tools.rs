//! What checkpointing costs and where to put it: `recompute_ledger()`,
//! `tape.stats()["saved_bytes_by_region"]` and `tape.suggest_checkpoints(budget_bytes)`.
//! (`checkpoint_sequential` is written in DGL: `stdlib/_checkpoint.dgl`.)

use super::this_tape;
use super::Native;
use crate::autodiff::tape::Site;
use crate::autodiff::tools::advisor::{self, Advice, Prediction};
use crate::autodiff::tools::ledger;
use crate::autodiff::Tape;
use crate::bail;
use crate::error::R;
use crate::runtime::value::{Args, Dict, HashKey, Value};
use crate::runtime::Interp;
use std::cell::RefCell;
use std::fmt::Write;
use std::rc::Rc;

pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&RECOMPUTE_LEDGER);
}

/// The line of a site in its file, when it names one.
fn line_of(rt: &Interp, site: Site) -> Option<usize> {
    site.is_known().then(|| rt.sources.get(site.src).line_col(site.pos as usize).0)
}

/// A checkpoint region's key: `name@line` (the line of its `def` in the file defining it), or
/// the bare name for a function of the standard library or one with no source (a builtin, a
/// callable instance); `(outside)` for region 0.
pub(super) fn region_key(rt: &Interp, region: u32) -> String {
    let Some(r) = rt.ad.regions().get((region as usize).wrapping_sub(1)) else { return "(outside)".into() };
    let stdlib = r.site.is_known() && rt.sources.get(r.site.src).name.starts_with("<stdlib>");
    match line_of(rt, r.site) {
        Some(line) if !stdlib => format!("{}@{line}", r.name),
        _ => r.name.to_string(),
    }
}

fn dict(items: Vec<(&str, Value)>) -> Value {
    let mut d = Dict::default();
    for (k, v) in items {
        d.insert(HashKey::Str(k.into()), (Value::str(k), v));
    }
    Value::Dict(Rc::new(RefCell::new(d)))
}

fn opt_int(v: Option<usize>) -> Value {
    v.map_or(Value::None, |b| Value::Int(b as i64))
}

/// `tape.stats()["saved_bytes_by_region"]`: the tape's saved bytes by checkpoint region, a dict
/// from [`region_key`] to bytes in order of first appearance (see [`ledger::saved_bytes_by_region`]).
pub(super) fn saved_bytes_by_region(rt: &Interp, tape: &Tape) -> Value {
    let mut d = Dict::default();
    for (region, bytes) in ledger::saved_bytes_by_region(&tape.log()) {
        let k: crate::text::Text = region_key(rt, region).into();
        d.insert(HashKey::Str(k.clone()), (Value::Str(k), Value::Int(bytes as i64)));
    }
    Value::Dict(Rc::new(RefCell::new(d)))
}

static RECOMPUTE_LEDGER: Native =
    Native::new("recompute_ledger", &["table: bool = False", "times: bool = True"], recompute_ledger);

/// `recompute_ledger(table=False, times=True)`: what each `recompute_grad` function has cost
/// so far in this process, one row per function (by name and definition line, as the keys of
/// `saved_bytes_by_region`) in order of first call.
///
/// Each row is a dict: `function`; `calls` (calls the program made, outside any
/// recomputation); `recomputations` (runs of its body during gradients: its own, and calls
/// made while an enclosing recompute_grad function was recomputed, so a function nested in
/// another runs 1 + 2 times per call and shows 2 recomputations per call); `depth` (the
/// deepest nesting of recompute_grad functions it ran at, 1 for none around it);
/// `checkpoint_bytes` (what its latest checkpoint saved: its distinct tensor inputs);
/// `plain_bytes` (what the local tape of its latest recomputation saved: what plain recording
/// of its body would have held, with inner checkpoints in place; None before a
/// recomputation); `forward_seconds` and `recompute_seconds` (wall time; an enclosing
/// function's includes its inner ones). With `table=True` the result is that as a text
/// table instead, without the time columns when `times=False` (so golden files can pin it).
/// Errors: TypeError from bad argument types only.
/// See: docs/gradients.md (no framework reports this).
fn recompute_ledger(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = RECOMPUTE_LEDGER.bind(rt, a)?;
    let (table, times) = (b.bool_or("table", false)?, b.bool_or("times", true)?);
    let rows: Vec<(String, crate::autodiff::tools::ledger::RegionCounts)> = (1..=rt.ad.regions().len() as u32)
        .map(|r| (region_key(rt, r), rt.ad.regions()[r as usize - 1].counts.clone()))
        .collect();
    if !table {
        let list = rows
            .into_iter()
            .map(|(name, c)| {
                dict(vec![
                    ("function", Value::str(&name)),
                    ("calls", Value::Int(c.calls as i64)),
                    ("recomputations", Value::Int(c.recomputations as i64)),
                    ("depth", Value::Int(c.depth as i64)),
                    ("checkpoint_bytes", opt_int(c.checkpoint_bytes)),
                    ("plain_bytes", opt_int(c.plain_bytes)),
                    ("forward_seconds", Value::Float(c.forward_seconds)),
                    ("recompute_seconds", Value::Float(c.recompute_seconds)),
                ])
            })
            .collect();
        return Ok(Value::list(list));
    }
    let mut head = vec!["function", "calls", "recomputations", "depth", "checkpoint_bytes", "plain_bytes"];
    if times {
        head.extend(["forward_s", "recompute_s"]);
    }
    let opt = |v: Option<usize>| v.map_or("-".to_string(), |b| b.to_string());
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(name, c)| {
            let mut row = vec![
                name.clone(),
                c.calls.to_string(),
                c.recomputations.to_string(),
                c.depth.to_string(),
                opt(c.checkpoint_bytes),
                opt(c.plain_bytes),
            ];
            if times {
                row.extend([format!("{:.6}", c.forward_seconds), format!("{:.6}", c.recompute_seconds)]);
            }
            row
        })
        .collect();
    let widths: Vec<usize> = head
        .iter()
        .enumerate()
        .map(|(i, h)| cells.iter().map(|r| r[i].len()).max().unwrap_or(0).max(h.len()))
        .collect();
    let mut out = String::new();
    let line = |out: &mut String, row: &[&str]| {
        let parts: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, c)| if i == 0 { format!("{c:<w$}", w = widths[i]) } else { format!("{c:>w$}", w = widths[i]) })
            .collect();
        out.push_str(parts.join("  ").trim_end());
        out.push('\n');
    };
    line(&mut out, &head);
    for r in &cells {
        line(&mut out, &r.iter().map(String::as_str).collect::<Vec<_>>());
    }
    out.pop();
    Ok(Value::str(&out))
}

pub(super) static TAPE_SUGGEST_CHECKPOINTS: Native = Native::new(
    "suggest_checkpoints",
    &["budget_bytes: int | None = None", "as_dict: bool = False"],
    tape_suggest_checkpoints,
);

/// `tape.suggest_checkpoints(budget_bytes=None, as_dict=False)`: where to put checkpoints on
/// this tape, and what they would save and cost.
///
/// Looks for a chain of equal blocks on the tape (a loop's iterations: the same operations
/// recorded by the same statements, each block reading the one before), then predicts the
/// backward peak (`stats()["peak_backward_bytes"]` of a `gradient` call) of the tape as
/// recorded and of the chain cut into `checkpoint_sequential(layers, k)` segments for every
/// k, one layer per block. The plan chosen is the one recomputing the fewest operations whose
/// peak fits `budget_bytes` (bytes), or with no budget the lowest peak; the √N plan (k ≈ √N for
/// N blocks) is shown beside it. The prediction replays the backward pass's accounting over
/// sizes, assuming the target is the last entry's output and the sources are Variables or
/// watched tensors, on a tape like this one (persistent or not). Returns a text report, or
/// with `as_dict=True` a dict: `ops`, `plain_peak_bytes`, `blocks`, `ops_per_block`,
/// `segments`, `predicted_peak_bytes`, `recomputed_ops`, `fits`, `sqrt_segments`,
/// `sqrt_peak_bytes` (None where no chain was found), and `plans`: every plan tried, a dict
/// each (`segments`, `predicted_peak_bytes`, `recomputed_ops`), 1 to N segments.
/// Errors: RuntimeError on a used non-persistent tape (its entries are released: ask before
/// `gradient`, or use a persistent tape); ValueError for a negative budget.
/// See: docs/gradients.md; PyTorch's checkpoint_sequential.
pub(super) fn tape_suggest_checkpoints(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let tape = this_tape(a)?;
    let mut b = TAPE_SUGGEST_CHECKPOINTS.bind(rt, a)?;
    let (budget, as_dict) = (b.opt_int("budget_bytes")?, b.bool_or("as_dict", false)?);
    if budget.is_some_and(|b| b < 0) {
        bail!(Value, "suggest_checkpoints: budget_bytes must be 0 or more, got {}", budget.unwrap_or(0));
    }
    let budget = budget.map(|b| b as usize);
    let advice = {
        let t = tape.borrow();
        if t.used && !t.persistent {
            bail!(Runtime, "suggest_checkpoints() on a used non-persistent GradientTape: its entries are released (ask before gradient, or use persistent=True)");
        }
        advisor::advise(&t)
    };
    let chosen = choose(&advice, budget);
    let sqrt = advice.chain.as_ref().and_then(|(c, ..)| {
        let k = ((c.blocks as f64).sqrt().round() as usize).clamp(1, c.blocks);
        advice.plans.iter().find(|p| p.segments == k).cloned()
    });
    if as_dict {
        let chain = advice.chain.as_ref().map(|(c, ..)| c);
        let int = |v: Option<usize>| opt_int(v);
        return Ok(dict(vec![
            ("ops", Value::Int(advice.ops as i64)),
            ("plain_peak_bytes", Value::Int(advice.plain_peak as i64)),
            ("blocks", int(chain.map(|c| c.blocks))),
            ("ops_per_block", int(chain.map(|c| c.period))),
            ("segments", int(chosen.map(|p| p.segments))),
            ("predicted_peak_bytes", int(chosen.map(|p| p.peak_bytes))),
            ("recomputed_ops", int(chosen.map(|p| p.recomputed_ops))),
            ("fits", Value::Bool(budget.is_none_or(|b| chosen.map_or(advice.plain_peak, |p| p.peak_bytes) <= b))),
            ("sqrt_segments", int(sqrt.as_ref().map(|p| p.segments))),
            ("sqrt_peak_bytes", int(sqrt.as_ref().map(|p| p.peak_bytes))),
            ("plans", Value::list(advice.plans.iter().map(plan_dict).collect())),
        ]));
    }
    Ok(Value::str(&report(rt, &advice, budget, chosen, sqrt.as_ref())))
}

/// One plan as a dict: `segments`, `predicted_peak_bytes`, `recomputed_ops`.
fn plan_dict(p: &Prediction) -> Value {
    dict(vec![
        ("segments", Value::Int(p.segments as i64)),
        ("predicted_peak_bytes", Value::Int(p.peak_bytes as i64)),
        ("recomputed_ops", Value::Int(p.recomputed_ops as i64)),
    ])
}

/// The plan for `budget`: the fewest recomputed operations among those that fit, else (and
/// with no budget) the lowest peak, fewer segments first among equals.
fn choose(advice: &Advice, budget: Option<usize>) -> Option<&Prediction> {
    let lowest = advice.plans.iter().min_by_key(|p| (p.peak_bytes, p.segments));
    match budget {
        Some(b) => {
            advice.plans.iter().filter(|p| p.peak_bytes <= b).min_by_key(|p| (p.recomputed_ops, p.segments)).or(lowest)
        }
        None => lowest,
    }
}

fn report(
    rt: &Interp,
    advice: &Advice,
    budget: Option<usize>,
    chosen: Option<&Prediction>,
    sqrt: Option<&Prediction>,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "tape: {} ops; predicted backward peak as recorded: {} bytes", advice.ops, advice.plain_peak);
    if !advice.checkpointed.is_empty() {
        let what: Vec<String> =
            advice.checkpointed.iter().map(|(r, n)| format!("{} ({n} calls)", region_key(rt, *r))).collect();
        let _ =
            writeln!(s, "already checkpointed: {}; their recomputations are not in the predictions", what.join(", "));
    }
    let Some((chain, sites, names)) = &advice.chain else {
        s.push_str("no chain of equal blocks found (a loop whose iterations record the same operations, each reading the one before): no plan");
        return s;
    };
    // Statements of the program by line; those of the standard library (a Keras layer's) by file too.
    let mut places: Vec<(bool, String, usize)> = sites
        .iter()
        .filter_map(|&site| {
            let file = &rt.sources.get(site.src).label;
            line_of(rt, site).map(|l| (file.starts_with("<stdlib>"), file.clone(), l))
        })
        .collect();
    places.sort();
    places.dedup();
    let places: Vec<String> =
        places.iter().map(|(std, file, l)| if *std { format!("{file}:{l}") } else { format!("line {l}") }).collect();
    let at = if places.is_empty() { String::new() } else { format!(" recorded at {}", places.join(", ")) };
    let _ = writeln!(
        s,
        "chain: {} blocks of {} ops ({}){at}, entries {} to {}",
        chain.blocks,
        chain.period,
        names.join(", "),
        chain.start,
        chain.start + chain.blocks * chain.period - 1
    );
    let Some(plan) = chosen else { return s.trim_end().to_string() };
    match budget {
        Some(b) if advice.plain_peak <= b => {
            let _ = writeln!(s, "the tape fits the budget of {b} bytes as recorded: no checkpoint needed");
        }
        Some(b) if plan.peak_bytes > b => {
            let _ = writeln!(s, "no plan fits the budget of {b} bytes; the lowest peak:");
        }
        Some(b) => {
            let _ = writeln!(s, "plan for a budget of {b} bytes:");
        }
        None => s.push_str("plan with the lowest peak:\n"),
    }
    if budget.is_none_or(|b| advice.plain_peak > b) {
        describe(&mut s, plan, chain.blocks, advice.ops);
    }
    if let Some(q) = sqrt {
        let _ = writeln!(s, "sqrt(N) plan, N = {}:", chain.blocks);
        describe(&mut s, q, chain.blocks, advice.ops);
    }
    s.trim_end().to_string()
}

/// One plan, as lines of the report.
fn describe(s: &mut String, p: &Prediction, blocks: usize, ops: usize) {
    let _ = writeln!(s, "  checkpoint_sequential(layers, {}) with one layer per block", p.segments);
    if p.segments > 1 {
        let mut wrapped: Vec<String> = (0..p.segments - 1)
            .map(|j| {
                let (a, b) = (j * p.segment_blocks + 1, (j + 1) * p.segment_blocks);
                if a == b {
                    a.to_string()
                } else {
                    format!("{a}-{b}")
                }
            })
            .collect();
        if wrapped.len() > 6 {
            wrapped.drain(2..wrapped.len() - 1);
            wrapped.insert(2, "…".into());
        }
        let rest = (p.segments - 1) * p.segment_blocks + 1;
        let tail = if rest == blocks { format!("block {rest} runs") } else { format!("blocks {rest}-{blocks} run") };
        let _ = writeln!(s, "  recompute_grad around blocks {}; {tail} as recorded", wrapped.join(", "));
    }
    let pct = (p.recomputed_ops * 100 + ops / 2).checked_div(ops).unwrap_or(0);
    let _ = writeln!(s, "  predicted backward peak: {} bytes", p.peak_bytes);
    let _ = writeln!(s, "  extra compute: {} ops recomputed ({pct}% of {ops})", p.recomputed_ops);
}
