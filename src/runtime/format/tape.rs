//! A tape as text (`tape.summary()`, `str(tape)`) and the views of its entries that the
//! summary and the drawing (`builtins/tape_view.rs`) share: shapes and dtypes of inputs and
//! outputs, the bytes each entry saves, where it was recorded, its checkpoint region.

use crate::autodiff::tape::{Dims, Entry, Log, Op, Saved, Site, NO_SLOT};
use crate::autodiff::Tape;
use crate::runtime::Interp;
use crate::tensor::{DType, TensorId};
use rustc_hash::FxHashMap;
use std::fmt::Write;

/// A tensor's shape and dtype, shown as JAX prints them: `f32[2,3]`, `i64[]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    pub shape: Dims,
    pub dtype: DType,
}

impl std::fmt::Display for Meta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = match self.dtype {
            DType::F16 => "f16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::U8 => "u8",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::Bool => "bool",
        };
        let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        write!(f, "{d}[{}]", dims.join(","))
    }
}

/// The shapes and dtypes of each entry's tensor inputs (`None` where the tape cannot tell:
/// an input it did not produce, that no entry saved and whose shape the operation does not
/// keep), in argument order; non-tensor arguments are left out.
pub fn input_metas(tape: &Tape, log: &Log) -> Vec<Vec<Option<Meta>>> {
    // What the tape knows by id: its outputs, every saved tensor, its watched Variables.
    let mut known: FxHashMap<TensorId, Meta> = FxHashMap::default();
    for v in &tape.watched_variables {
        let t = v.peek();
        known.insert(v.handle, Meta { shape: Dims::from_slice(t.shape()), dtype: t.dtype() });
    }
    for e in &log.entries {
        e.op.for_each_saved(|t| {
            known.entry(t.id).or_insert_with(|| Meta { shape: Dims::from_slice(t.shape()), dtype: t.dtype() });
        });
    }
    let out_meta = |slot: u32| -> Option<Meta> {
        let e = &log.entries[*log.slot_entry.get(slot as usize)? as usize];
        let o = e.outputs.get((slot - e.first_slot) as usize)?;
        Some(Meta { shape: o.shape.clone(), dtype: o.dtype })
    };
    log.entries
        .iter()
        .map(|e| {
            e.inputs
                .iter()
                .enumerate()
                .filter(|(_, x)| x.id != 0)
                .map(|(k, x)| {
                    if x.slot != NO_SLOT {
                        out_meta(x.slot)
                    } else {
                        known.get(&x.id).cloned().or_else(|| kept_input_meta(e, k))
                    }
                })
                .collect()
        })
        .collect()
}

/// Input `k` of `e` as the operation itself remembers it (a shape it keeps for its VJP, or
/// the output's for shape-preserving operations).
fn kept_input_meta(e: &Entry, k: usize) -> Option<Meta> {
    let out = e.outputs.first()?;
    let like = |shape: &[usize]| Some(Meta { shape: Dims::from_slice(shape), dtype: out.dtype });
    match &*e.op {
        Op::AddSub { a_shape, b_shape, .. } => like(if k == 0 { a_shape } else { b_shape }),
        Op::Where { a_shape, b_shape, .. } if k > 0 => like(if k == 1 { a_shape } else { b_shape }),
        Op::Reduce { in_shape, .. }
        | Op::Reshape { in_shape }
        | Op::Index { in_shape, .. }
        | Op::Take { in_shape, .. }
        | Op::BroadcastTo { in_shape } => like(in_shape),
        Op::Gather { in_shape, .. } | Op::Tile { in_shape, .. } if k == 0 => like(in_shape),
        Op::Cast { from } => Some(Meta { shape: out.shape.clone(), dtype: *from }),
        Op::Transpose { perm } => {
            let mut shape = Dims::from_elem(0, perm.len());
            for (i, &p) in perm.iter().enumerate() {
                *shape.get_mut(p)? = *out.shape.get(i)?;
            }
            like(&shape)
        }
        Op::Identity | Op::PassThrough => {
            let o = e.outputs.get(k)?;
            Some(Meta { shape: o.shape.clone(), dtype: o.dtype })
        }
        Op::Unary { .. } | Op::Cumsum { .. } | Op::Cumprod { .. } | Op::Softmax { .. } | Op::AddN { .. } => {
            like(&out.shape)
        }
        Op::Custom(c) => {
            let (shape, dtype) = c.inputs.get(k)?.as_ref()?;
            Some(Meta { shape: Dims::from_slice(shape), dtype: *dtype })
        }
        _ => None,
    }
}

/// Rows shown by `str(tape)`: the first and last half of this many.
pub const STR_ROWS: usize = 40;

impl Interp {
    /// `file:line` of a place where an entry was recorded (`-` when unknown), the file named
    /// by its label (relative to the script's folder: the same from any working directory).
    pub fn site_text(&self, site: Site) -> String {
        if !site.is_known() {
            return "-".into();
        }
        let f = self.sources.get(site.src);
        format!("{}:{}", f.label, f.line_col(site.pos as usize).0)
    }

    /// A checkpoint region as `function@line` of its definition (`-` for none).
    pub fn region_text(&self, region: u32) -> String {
        let Some(r) = region.checked_sub(1).and_then(|i| self.ad.regions().get(i as usize)) else {
            return "-".into();
        };
        if !r.site.is_known() {
            return r.name.to_string();
        }
        format!("{}@{}", r.name, self.sources.get(r.site.src).line_col(r.site.pos as usize).0)
    }

    /// The table of `tape.summary()`: a header, one row per entry in recording order (index,
    /// operation, input → output shapes, saved bytes, file:line, checkpoint region), totals.
    /// With `rows`, long tapes show their first and last `rows / 2` entries only.
    pub fn tape_summary(&self, tape: &Tape, rows: Option<usize>) -> String {
        let log = tape.log();
        let n = log.entries.len();
        let state = if tape.active {
            "recording"
        } else if tape.used {
            "used"
        } else {
            "stopped"
        };
        let mut s = format!(
            "GradientTape(persistent={}): {} op{}, {state}\n",
            if tape.persistent { "True" } else { "False" },
            n,
            plural(n)
        );
        if n == 0 {
            s.push_str("  nothing recorded");
            return s;
        }
        let inputs = input_metas(tape, &log);
        let saved = log.saved_by_entry();
        let shown: Vec<usize> = match rows {
            Some(r) if n > r.max(2) => {
                let half = r.max(2) / 2;
                (0..half).chain(n - half..n).collect()
            }
            _ => (0..n).collect(),
        };
        let mut table: Vec<[String; 6]> =
            vec![["#", "op", "inputs -> outputs", "saved", "line", "region"].map(String::from)];
        for &i in &shown {
            let e = &log.entries[i];
            table.push([
                i.to_string(),
                e.op.name(),
                shapes_text(&inputs[i], e),
                match saved[i] {
                    Saved::Released => "released".into(),
                    Saved::Held { bytes, shared, .. } => format!("{bytes}{}", if shared { "*" } else { "" }),
                },
                self.site_text(e.site),
                self.region_text(e.region),
            ]);
        }
        let mut width = [0usize; 6];
        for row in &table {
            for (w, c) in width.iter_mut().zip(row) {
                *w = (*w).max(c.chars().count());
            }
        }
        for (r, row) in table.iter().enumerate() {
            // Rows left out of a long tape: one line saying how many, where they were.
            if r >= 2 && shown[r - 1] > shown[r - 2] + 1 {
                let _ = writeln!(s, "  {:>w$}  ... {} more", "", shown[r - 1] - shown[r - 2] - 1, w = width[0]);
            }
            let pad = |k: usize| " ".repeat(width[k].saturating_sub(row[k].chars().count()));
            // The index and the bytes align right, the rest left.
            let line = format!(
                "  {}{}  {}{}  {}{}  {}{}  {}{}  {}",
                pad(0),
                row[0],
                row[1],
                pad(1),
                row[2],
                pad(2),
                pad(3),
                row[3],
                row[4],
                pad(4),
                row[5]
            );
            s.push_str(line.trim_end());
            s.push('\n');
        }
        let (ops, tensors, bytes) = tape.stats();
        let _ = writeln!(
            s,
            "total: {ops} op{}, {tensors} saved tensor{}, {bytes} bytes saved",
            plural(ops),
            plural(tensors)
        );
        if saved.iter().any(|x| matches!(x, Saved::Held { shared: true, .. })) {
            s.push_str("(* also keeps a tensor counted at an earlier entry: each tensor counts once)\n");
        }
        let last = tape.last_backward();
        if last.peak_bytes > 0 {
            let _ = write!(s, "last gradient: peak_backward_bytes {}", last.peak_bytes);
            if last.recompute_calls > 0 {
                let _ = write!(s, ", recompute_calls {}, recomputed_ops {}", last.recompute_calls, last.recomputed_ops);
            }
            s.push('\n');
        }
        s.truncate(s.trim_end().len());
        s
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `f32[2,3] f32[3] -> f32[2,3]`: an entry's tensor inputs (at most four shown) and outputs.
fn shapes_text(inputs: &[Option<Meta>], e: &Entry) -> String {
    const MOST: usize = 4;
    let mut parts: Vec<String> =
        inputs.iter().take(MOST).map(|m| m.as_ref().map_or_else(|| "?".into(), |m| m.to_string())).collect();
    if inputs.len() > MOST {
        parts.push(format!("(+{} more)", inputs.len() - MOST));
    }
    let mut outs: Vec<String> =
        e.outputs.iter().take(MOST).map(|o| Meta { shape: o.shape.clone(), dtype: o.dtype }.to_string()).collect();
    if e.outputs.len() > MOST {
        outs.push(format!("(+{} more)", e.outputs.len() - MOST));
    }
    format!("{} -> {}", parts.join(" "), outs.join(" "))
}
