//! `tape.explain(target, source)`: the method; the search itself is `autodiff/tools/explain.rs`.

use super::this_tape;
use super::Native;
use crate::autodiff::tape::Site;
use crate::autodiff::tools::explain::{explain, Places, Query};
use crate::bail;
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::Tensor;

pub(super) static TAPE_EXPLAIN: Native = Native::new("explain", &["target", "source"], tape_explain);

/// `tape.explain(target, source)`: why `tape.gradient(target, source)` is None or all zeros,
/// or which path carries it, as text (`print(tape.explain(loss, x))`).
///
/// The first line is the verdict — `flows`, `all zeros`, `ones` or `None: <reason>`; the
/// next show the path from source to target (`x → multiply (line 4) → reduce_sum (line 5) →
/// loss`, a step that stops the gradient marked), the culprit with its file:line, and a hint.
/// Reasons for None: the source is an integer tensor; it was never watched (or is a Variable
/// with trainable=False, or the tape has watch_accessed_variables=False); it was watched
/// after its use; the path is cut by stop_gradient, an integer cast, argmax/argmin,
/// round/floor/ceil, a comparison, `.numpy()`, `.item()`, `float()` or `int()`; a `custom_gradient` grad_fn
/// returned None for that input (known once `gradient` has run); the target was computed from
/// a value made before the tape started; the target does not depend on the source. "all
/// zeros" (the last `gradient` answer for the source, if it is still alive, was zero) names
/// the operations that made it zero when it can (sign, step, a relu whose inputs were all
/// negative, a product with zeros, a `where` that never picks the input), which needs the
/// saved values: a non-persistent tape has released them after `gradient`.
/// Works before and after `gradient`. The names used are the argument expressions when both
/// are plain names on the line of the call, else `target` and `source`.
/// Shapes and dtypes: any; target and source are tensors or Variables. Returns a str.
/// Errors: TypeError for a target or source that is not a tensor or Variable.
/// See: docs/gradients.md. TF, PyTorch and JAX return None silently.
pub(super) fn tape_explain(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let tape = this_tape(a)?;
    let mut b = TAPE_EXPLAIN.bind(rt, a)?;
    let (target, source) = (b.value("target")?, b.value("source")?);
    let target_id = tensor_of(&target, "target")?.id;
    let src = tensor_of(&source, "source")?;
    let variable = match &source {
        Value::Variable(v) => Some(v.trainable),
        _ => None,
    };
    let site = rt.ad.site();
    let (target_name, source_name) = call_names(rt, site).unwrap_or(("target".into(), "source".into()));
    let q = Query { target: target_id, source: src.id, source_dtype: src.dtype(), variable, target_name, source_name };
    let sources = &rt.sources;
    let resolve = |s: Site| {
        let f = sources.get(s.src);
        (f.label.clone(), f.line_col(s.pos as usize).0)
    };
    let places = Places { home: site.src, resolve: &resolve };
    let text = explain(&tape.borrow(), &q, &places);
    Ok(Value::str(text.trim_end()))
}

/// The tensor of a target or source (a Variable's under its handle id).
///
/// Errors: TypeError for anything else.
fn tensor_of(v: &Value, what: &str) -> R<Tensor> {
    match v {
        Value::Tensor(t) => Ok(t.clone()),
        Value::Variable(var) => Ok(var.peek()),
        other => bail!(Type, "explain() {what} must be a tensor or Variable, not {}", other.type_name()),
    }
}

/// The argument expressions of the `explain(` call on the line of the statement running, when
/// both are plain (dotted) names: what the user calls target and source.
fn call_names(rt: &Interp, site: Site) -> Option<(String, String)> {
    if !site.is_known() {
        return None;
    }
    let text = &rt.sources.get(site.src).text;
    let rest = text.get(site.pos as usize..)?;
    let line = rest.split('\n').next()?;
    let args = &line[line.find(".explain(")? + ".explain(".len()..];
    let (mut depth, mut parts, mut start) = (0usize, Vec::new(), 0);
    for (i, c) in args.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => {
                parts.push(&args[start..i]);
                break;
            }
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&args[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    let name = |p: &str, key: &str| {
        let p = p.trim();
        let p = p.strip_prefix(key).map_or(p, |r| r.trim_start().strip_prefix('=').map_or(p, str::trim));
        let ok = p.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.');
        ok.then(|| p.to_string())
    };
    match parts.as_slice() {
        [t, s] => Some((name(t, "target")?, name(s, "source")?)),
        _ => None,
    }
}
