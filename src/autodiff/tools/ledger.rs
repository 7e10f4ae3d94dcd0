//! The recompute ledger (`recompute_ledger()`) and the tape's saved bytes by checkpoint
//! region (`tape.stats()["saved_bytes_by_region"]`).
//!
//! Every `recompute_grad` function has a [`Region`] (made on its
//! first call); its [`RegionCounts`] say how often its body ran and why: a call the program
//! made (`calls`), or a run during a gradient (`recomputations`: its own recomputation, or
//! a call made while an enclosing function is recomputed). A function nested in another
//! recompute_grad function runs three times per call — forward, within the enclosing
//! function's recomputation, and its own recomputation — and the ledger shows it.

use crate::autodiff::recorder::Recorder;
use crate::autodiff::tape::{Log, Op, Saved, Site};
use std::rc::Rc;
use std::time::Instant;

/// A `recompute_grad` function's checkpoint region: the entries recorded while it runs
/// (forward or recomputation) belong to it.
#[derive(Debug, Clone)]
pub struct Region {
    /// The decorated function's name.
    pub name: Rc<str>,
    /// Where it was defined ([`Site::NONE`] for a builtin).
    pub site: Site,
    /// What it has cost so far (`recompute_ledger()`).
    pub counts: RegionCounts,
}

/// What a `recompute_grad` function has cost so far, process-wide.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RegionCounts {
    /// Calls made outside any recomputation (the forward passes the program asked for).
    pub calls: u64,
    /// Runs of its body during gradients: its own recomputations, and calls made while an
    /// enclosing function was recomputed.
    pub recomputations: u64,
    /// The deepest nesting of recompute_grad functions it ran at (1: inside no other).
    pub depth: u32,
    /// Seconds spent in its calls (the enclosing functions' times include their inner ones).
    pub forward_seconds: f64,
    /// Seconds spent in its recomputations.
    pub recompute_seconds: f64,
    /// Bytes its latest checkpoint saved: the distinct input buffers a tape kept for it.
    pub checkpoint_bytes: Option<usize>,
    /// Bytes plain recording would have saved for it: what the local tape of its latest
    /// recomputation saved (`None` before a recomputation). Inner recompute_grad functions
    /// count with their checkpoints, not their bodies.
    pub plain_bytes: Option<usize>,
}

/// One run of a region's body, from [`Recorder::enter_region`] to [`Recorder::leave_region`].
#[must_use]
pub struct RegionRun {
    region: u32,
    outer: u32,
    rerun: bool,
    started: Instant,
}

impl Recorder {
    /// The checkpoint regions seen: one per `recompute_grad` function (by name and place),
    /// in order of first use (none without the tools).
    pub fn regions(&self) -> &[Region] {
        self.tools_ref().map_or(&[], |t| &t.regions[..])
    }

    /// The region of the function `name` defined at `site` (made on first use); its tag for entries.
    pub fn region_of(&mut self, name: &Rc<str>, site: Site) -> u32 {
        let regions = &mut self.tools().regions;
        match regions.iter().position(|r| r.site == site && r.name == *name) {
            Some(i) => i as u32 + 1,
            None => {
                regions.push(Region { name: name.clone(), site, counts: RegionCounts::default() });
                regions.len() as u32
            }
        }
    }

    /// Starts running the body of `region` (1 + an index into `regions`): entries recorded
    /// meanwhile belong to it. `rerun`: a run during a gradient, else a call.
    pub fn enter_region(&mut self, region: u32, rerun: bool) -> RegionRun {
        let tools = self.tools();
        tools.region_depth += 1;
        if let Some(r) = tools.regions.get_mut(region as usize - 1) {
            r.counts.depth = r.counts.depth.max(tools.region_depth);
        }
        let outer = std::mem::replace(&mut self.region, region);
        RegionRun { region, outer, rerun, started: Instant::now() }
    }

    /// Ends a run begun with [`Recorder::enter_region`]: counts it; returns its seconds.
    pub fn leave_region(&mut self, run: RegionRun) -> f64 {
        let seconds = run.started.elapsed().as_secs_f64();
        self.region = run.outer;
        let tools = self.tools();
        tools.region_depth -= 1;
        if let Some(r) = tools.regions.get_mut(run.region as usize - 1) {
            if run.rerun {
                r.counts.recomputations += 1;
                r.counts.recompute_seconds += seconds;
            } else {
                r.counts.calls += 1;
                r.counts.forward_seconds += seconds;
            }
        }
        seconds
    }

    /// Notes what a checkpoint of `region` saved (`Some`) or what a recomputation's local
    /// tape saved (`plain`), in bytes.
    pub fn note_region_bytes(&mut self, region: u32, checkpoint: Option<usize>, plain: Option<usize>) {
        if let Some(r) = self.tools().regions.get_mut((region as usize).wrapping_sub(1)) {
            r.counts.checkpoint_bytes = checkpoint.or(r.counts.checkpoint_bytes);
            r.counts.plain_bytes = plain.or(r.counts.plain_bytes);
        }
    }
}

/// The saved bytes of `log` by checkpoint region, in order of first appearance: a
/// `recompute_grad` entry counts under its function's region, any other entry under the
/// region it was recorded in (0: outside every region). Each buffer counts once, under the
/// first entry that saves it, so the values sum to the tape's `saved_bytes`. Released
/// entries (a used non-persistent tape) save nothing and are skipped.
pub fn saved_bytes_by_region(log: &Log) -> Vec<(u32, usize)> {
    let mut out: Vec<(u32, usize)> = Vec::new();
    for (e, saved) in log.entries.iter().zip(log.saved_by_entry()) {
        let Saved::Held { bytes, .. } = saved else { continue };
        let region = match &*e.op {
            Op::Recompute(r) => r.region,
            _ => e.region,
        };
        match out.iter_mut().find(|(r, _)| *r == region) {
            Some((_, b)) => *b += bytes,
            None => out.push((region, bytes)),
        }
    }
    out
}
