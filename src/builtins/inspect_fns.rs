//! Watching the backward pass: `trace_gradients()` and
//! `watch_gradient(x, fn)` (the walk's side is `autodiff/tools/inspect.rs`).

use super::{Native, NO_ARGS};
use crate::autodiff::tape::UserData;
use crate::autodiff::tools::inspect::{HookOwner, Inspect};
use crate::autodiff::TapeRef;
use crate::bail;
use crate::error::R;
use crate::intern::intern;
use crate::runtime::value::{Args, Class, Value};
use crate::runtime::Interp;
use std::rc::Rc;

/// Installs `trace_gradients` (a class: its instances are context managers) and `watch_gradient`.
pub fn install(rt: &mut Interp) {
    let class = Class { name: "trace_gradients".into(), base: None, attrs: Default::default(), error_kind: None };
    class.attrs.borrow_mut().insert(intern("__enter__"), TRACE_ENTER.value());
    class.attrs.borrow_mut().insert(intern("__exit__"), TRACE_EXIT.value());
    rt.builtins.insert(intern("trace_gradients"), Value::Class(Rc::new(class)));
}

/// Registers `watch_gradient`.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&WATCH_GRADIENT);
}

static TRACE_ENTER: Native = Native::with("__enter__", NO_ARGS, trace_enter);

/// `with trace_gradients():` — while the block runs, every backward step of
/// `tape.gradient` prints one line before it runs, in backward order:
/// `backward OP at FILE:LINE: upstream SHAPE norm N` (one `SHAPE norm N` per output of the
/// operation; N the L2 norm of the upstream gradient, 6 significant digits). The steps of
/// a `recompute_grad` function's recomputation follow its own line, indented two spaces
/// per level of nesting. Output goes where `print` writes. Blocks nest.
///
/// Errors: TypeError when given arguments.
/// See: Zygote's `@showgrad` (for every node).
fn trace_enter(rt: &mut Interp, a: &mut Args) -> R<Value> {
    NO_ARGS.bind(rt, a)?;
    rt.ad.tools().inspect.trace += 1;
    Ok(Value::None)
}

static TRACE_EXIT: Native = Native::new("__exit__", &["*exc_info"], trace_exit);

/// Leaves a `trace_gradients()` block (however it ends: errors pass through).
fn trace_exit(rt: &mut Interp, _: &mut Args) -> R<Value> {
    rt.ad.tools().inspect.trace = rt.ad.tools().inspect.trace.saturating_sub(1);
    Ok(Value::Bool(false))
}

static WATCH_GRADIENT: Native = Native::new("watch_gradient", &["tensor", "fn"], watch_gradient);

/// `watch_gradient(x, fn)`: registers `fn` as a hook on the gradient of `x`, a float tensor
/// that a recording tape watches (a source, or a value computed from one, such as a hidden
/// activation) or a trainable Variable. During `tape.gradient`, once `x`'s gradient is
/// complete, `fn(grad)` is called; a tensor it returns replaces the gradient — for an
/// intermediate tensor, in every gradient flowing further back — and `None` keeps it
/// (`watch_gradient(h, lambda g: clip_by_norm(g, 1.0))`). Several hooks on one tensor run
/// in registration order, each on the previous one's result; a persistent tape runs them
/// at every `gradient` call. A hook on a tensor lives as long as the tapes that watched it
/// when it was registered, on a Variable as long as the Variable. Inside a
/// `recompute_grad` function's forward pass (where no tape records) it does nothing: the
/// recomputation registers it again, on the recomputed tensor.
///
/// Shapes and dtypes: the hook receives and must return a tensor of x's shape and dtype
/// (a Python number for a scalar).
/// Errors: TypeError when `fn` is not callable or `x` not a tensor or Variable, or when
/// the hook returns another kind of value; ValueError for an integer tensor, a
/// non-trainable Variable, a tensor no recording tape watches (PyTorch: RuntimeError,
/// "does not require grad"), or a hook returning another shape or dtype.
/// See: torch.Tensor.register_hook.
fn watch_gradient(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = WATCH_GRADIENT.bind(rt, a)?;
    let x = b.value("tensor")?;
    let f = b.value("fn")?;
    let callable = match &f {
        Value::Func(_) | Value::Builtin(_) | Value::Method(_) | Value::Class(_) => true,
        Value::Instance(i) => i.class.lookup(intern("__call__")).is_some(),
        _ => false,
    };
    if !callable {
        bail!(Type, "watch_gradient() needs a callable hook, not {}", f.type_name());
    }
    match &x {
        Value::Variable(v) => {
            if !v.trainable {
                bail!(Value, "watch_gradient(): the Variable is not trainable, so it gets no gradient");
            }
            rt.ad.tools().inspect.add_hook(v.handle, UserData::new(f), HookOwner::Variable(Rc::downgrade(v)));
        }
        Value::Tensor(t) => {
            if !t.dtype().is_float() {
                bail!(Value, "watch_gradient(): {} tensors get no gradient (only float tensors do)", t.dtype());
            }
            let tapes: Vec<TapeRef> =
                rt.ad.tapes().iter().filter(|tape| tape.borrow().watches(t.id)).cloned().collect();
            if tapes.is_empty() {
                // The forward pass of a recompute_grad function: its recomputation registers the hook.
                if rt.ad.probing() {
                    return Ok(Value::None);
                }
                bail!(
                    Value,
                    "watch_gradient(): no recording GradientTape watches this tensor, so no gradient will reach it (watch it with tape.watch(x), or compute it from watched values inside the tape's block)"
                );
            }
            rt.ad.tools().inspect.add_hook(t.id, UserData::new(f), Inspect::tapes_owner(&tapes));
        }
        other => bail!(Type, "watch_gradient() needs a tensor or a Variable, not {}", other.type_name()),
    }
    Ok(Value::None)
}
