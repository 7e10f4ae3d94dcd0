//! The interpreter's side of watching differentiation: gradient hooks
//! (`watch_gradient`) run as user code, the lines `trace_gradients()` prints, and the
//! error a failed recompute determinism check raises (`autodiff/tools/check.rs`).

use super::value::Value;
use super::Interp;
use crate::autodiff::tape::{Entry, UserData};
use crate::autodiff::tools::check::{Fingerprint, Mismatch};
use crate::err;
use crate::error::{Exc, R};
use crate::tensor::{shape_str, Tensor};

impl Interp {
    /// A float as `format(x, '.6g')`: six significant digits, stable across platforms.
    fn g6(&mut self, x: f64) -> String {
        self.format_field(&Value::Float(x), false, ".6g").unwrap_or_else(|_| x.to_string())
    }

    /// Runs a `watch_gradient` hook on gradient `g`: its result replaces `g` (`None` keeps
    /// it; a Python number stands for a scalar).
    ///
    /// Errors: TypeError when the hook returns something else; ValueError when it returns a
    /// gradient of another shape or dtype than `g` (PyTorch raises RuntimeError there).
    pub(super) fn run_gradient_hook(&mut self, hook: &UserData, g: Tensor) -> R<Tensor> {
        let f = hook.get::<Value>().expect("gradient hooks hold a Value").clone();
        let name = self.callable_name(&f);
        let r = self.call_value(&f, vec![Value::Tensor(g.clone())], vec![])?;
        let new = match &r {
            Value::None => return Ok(g),
            Value::Tensor(_) | Value::Variable(_) => self.to_tensor(&r, None)?,
            Value::Int(_) | Value::Float(_) if g.shape().is_empty() => self.to_tensor(&r, Some(g.dtype()))?,
            other => {
                return Err(err!(Type, "gradient hook {name} must return a tensor or None, not {}", other.type_name()))
            }
        };
        if new.shape() != g.shape() {
            return Err(err!(
                Value,
                "gradient hook {name} returned a gradient of shape {} for a tensor of shape {}",
                shape_str(new.shape()),
                shape_str(g.shape())
            ));
        }
        if new.dtype() != g.dtype() {
            return Err(err!(
                Value,
                "gradient hook {name} returned a {} gradient for a {} tensor",
                new.dtype(),
                g.dtype()
            ));
        }
        Ok(new)
    }

    /// One line of `trace_gradients()`: the step's operation and statement, then each
    /// upstream gradient's shape and L2 norm; steps of a pass nested in another (a
    /// recomputation) are indented by two spaces per level.
    pub(super) fn show_step(&mut self, e: &Entry, upstream: &[Tensor]) {
        let depth = self.ad.tools().passes.len().saturating_sub(1);
        let mut ups = Vec::with_capacity(upstream.len());
        for g in upstream {
            let norm = g.data.to_f64_vec().iter().map(|v| v * v).sum::<f64>().sqrt();
            ups.push(format!("{} norm {}", shape_str(g.shape()), self.g6(norm)));
        }
        let line = format!(
            "{}backward {} at {}: upstream {}\n",
            "  ".repeat(depth),
            e.op.name(),
            self.site_text(e.site),
            ups.join(", ")
        );
        // A trace line is output like print's; a failed write shows at the next print.
        let _ = self.write_out(&line);
    }

    /// The RuntimeError of a recomputation that did not repeat its forward pass (as
    /// PyTorch's CheckpointError, a RuntimeError): which operation, where, and what differs.
    pub(super) fn recompute_mismatch(&mut self, name: &str, m: &Mismatch) -> Exc {
        let what = |rt: &Interp, f: &Fingerprint| format!("{} at {}", f.name(), rt.site_text(f.site));
        let detail = match (&m.forward, &m.recomputed) {
            (Some(f), Some(r)) if f.op != r.op || f.function != r.function || f.outputs.len() != r.outputs.len() => {
                format!(
                    "operation {} was {} in the forward pass but {} when recomputed",
                    m.index,
                    what(self, f),
                    what(self, r)
                )
            }
            (Some(f), Some(r)) => {
                let (k, (a, b)) = f
                    .outputs
                    .iter()
                    .zip(&r.outputs)
                    .enumerate()
                    .find(|(_, (a, b))| a.shape != b.shape || a.dtype != b.dtype || a.hash != b.hash)
                    .unwrap_or((0, (&f.outputs[0], &r.outputs[0])));
                let output = if f.outputs.len() > 1 { format!(" output {k}") } else { String::new() };
                let diff = if a.shape != b.shape {
                    format!(
                        "shape {} in the forward pass, {} when recomputed",
                        shape_str(&a.shape),
                        shape_str(&b.shape)
                    )
                } else if a.dtype != b.dtype {
                    format!("dtype {} in the forward pass, {} when recomputed", a.dtype, b.dtype)
                } else {
                    let (x, y) = (self.g6(a.sum), self.g6(b.sum));
                    if x == y {
                        format!("its values differ (their sums agree to 6 digits: {x})")
                    } else {
                        format!("its values differ (sum {x} in the forward pass, {y} when recomputed)")
                    }
                };
                format!("operation {} ({}){output}: {diff}", m.index, what(self, r))
            }
            (Some(f), None) => format!(
                "the recomputation ran {} operations, the forward pass went on with {}",
                m.index - 1,
                what(self, f)
            ),
            (None, Some(r)) => format!(
                "the forward pass ran {} operations, the recomputation went on with {}",
                m.index - 1,
                what(self, r)
            ),
            (None, None) => "internal error: an empty difference".into(),
        };
        err!(
            Runtime,
            "recompute_grad: recomputing {name} did not repeat its forward pass: {detail}; its gradients would not be those of the values computed (did {name} read something that changed since, such as a global or a Variable?)"
        )
    }
}
