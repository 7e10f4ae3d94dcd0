//! Differentiation builtins (docs/language.md §5): `Variable`, `GradientTape`,
//! `stop_gradient`, and the decorators.

use super::{Native, Signature, NO_ARGS};
use crate::autodiff::{Tape, Variable};
use crate::bail;
use crate::error::R;
use crate::runtime::value::{Args, Builtin, BuiltinKind, Value};
use crate::runtime::Interp;
use crate::tensor::Tensor;
use std::cell::RefCell;
use std::rc::Rc;

pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&VARIABLE);
    reg(&GRADIENTTAPE);
    reg(&STOP_GRADIENT);
    reg(&CUSTOM_GRADIENT);
    reg(&RECOMPUTE_GRAD);
    reg(&GRAD_PASS_THROUGH);
    reg(&IS_RECOMPUTING);
}

/// `Variable`'s parameters, which `tf.Variable` shares (builtins/tf_fns.rs).
pub(super) const VARIABLE_SIG: Signature =
    Signature::new(&["initial_value", "trainable: bool = True", "name=None", "dtype: DType | None = None"]);

static VARIABLE: Native = Native::with("Variable", VARIABLE_SIG, |rt, a| variable(rt, a, false))
    // `tf.Variable` is builtins/tf_fns.rs's, whose name reads as TF's (`w:0`).
    .exported_as("tf.Variable");

/// `Variable(initial, trainable=True, name=None, dtype=None)`; with `tf_name`, `tf.Variable`'s
/// (its `name` reads `w:0`, `Variable:0` unnamed).
pub(super) fn variable(rt: &mut Interp, a: &mut Args, tf_name: bool) -> R<Value> {
    let mut b = VARIABLE_SIG.bind(rt, a)?;
    let init = b.value("initial_value")?;
    let trainable = b.bool_or("trainable", true)?;
    let name = match b.non_none("name")? {
        None => None,
        Some(Value::Str(s)) => Some(s.into()),
        Some(other) => bail!(Type, "Variable name must be a string, not {}", other.type_name()),
    };
    let dtype = b.opt_dtype("dtype")?;
    let t = rt.to_tensor(&init, dtype)?;
    // Integer and bool Variables are never trainable (no gradients for them).
    let trainable = trainable && t.dtype().is_float();
    let var = Variable::new((*t.data).clone(), trainable, name);
    // TF allows a traced function to make Variables on its first trace only (runtime/trace.rs).
    rt.note_variable_made();
    Ok(Value::Variable(Rc::new(if tf_name { var.named_as_tf() } else { var })))
}

static GRADIENTTAPE: Native =
    Native::new("GradientTape", &["persistent: bool = False", "watch_accessed_variables: bool = True"], gradient_tape)
        .spelled(&["tf.GradientTape", "tf.autodiff.GradientTape"])
        // Dense gradients, as DGL's (TF's gradient of a gather is IndexedSlices).
        .exported_as("dgl_tf.GradientTape");

/// `GradientTape(persistent=False, watch_accessed_variables=True)`
fn gradient_tape(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = GRADIENTTAPE.bind(rt, a)?;
    let persistent = b.bool_or("persistent", false)?;
    let watch = b.bool_or("watch_accessed_variables", true)?;
    Ok(Value::Tape(Rc::new(RefCell::new(Tape::new(persistent, watch)))))
}

static STOP_GRADIENT: Native =
    Native::new("stop_gradient", &["input", "name=None"], stop_gradient).spelled(&["tf.stop_gradient"]);

/// `stop_gradient(input, name=None)`: the same values under a new, unrecorded id.
///
/// Shapes and dtypes: input's; a (nested) list, tuple or dict of tensors gives the same
/// structure of stopped tensors (TF packs a list into one tensor and rejects a dict).
/// Gradient: none (the result is a constant to every tape).
/// See: docs/language.md §5; tf.stop_gradient.
fn stop_gradient(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let input = STOP_GRADIENT.bind(rt, a)?.value("input")?;
    if !matches!(input, Value::List(_) | Value::Tuple(_) | Value::Dict(_)) {
        let t = rt.tensor_arg(&input)?;
        return Ok(Value::Tensor(stopped(rt, &t)));
    }
    let mut leaves = Vec::new();
    super::tape_methods::flatten_sources(rt, &input, &mut leaves)?;
    let stopped: Vec<Value> = leaves
        .iter()
        .map(|v| {
            let t = rt.tensor_arg(v)?;
            Ok(Value::Tensor(stopped(rt, &t)))
        })
        .collect::<R<_>>()?;
    Ok(super::tape_methods::unflatten(&input, &mut stopped.into_iter()))
}

/// `t`'s values under a new id, noted on the recording tapes (`tape.explain`).
fn stopped(rt: &mut Interp, t: &Tensor) -> Tensor {
    let out = Tensor::new((*t.data).clone());
    rt.ad.note("stop_gradient", &[t], &[&out]);
    out
}

const WRAP_SIG: Signature = Signature::new(&["f"]);

fn wrap(rt: &mut Interp, a: &mut Args, make: fn(Value) -> BuiltinKind, prefix: &str) -> R<Value> {
    let f = WRAP_SIG.bind(rt, a)?.value("f")?;
    wrapped(f, make, prefix)
}

/// The wrapper of callable `f` that `make` builds, named after `f`.
///
/// Errors: TypeError when `f` is not callable.
fn wrapped(f: Value, make: impl FnOnce(Value) -> BuiltinKind, prefix: &str) -> R<Value> {
    let name = match &f {
        Value::Func(func) => func.def.name.name(),
        Value::Instance(i) => i.class.name.clone(),
        Value::Builtin(b) => b.name.clone(),
        Value::Method(_) | Value::Class(_) => "<callable>".into(),
        other => bail!(Type, "{prefix}() needs a callable, not {}", other.type_name()),
    };
    Ok(Value::Builtin(Rc::new(Builtin { name, kind: make(f) })))
}

static CUSTOM_GRADIENT: Native = Native::with("custom_gradient", WRAP_SIG, custom_gradient)
    .spelled(&["tf.custom_gradient"])
    // docs/language.md §5: DGL's recompute and custom-gradient contracts, checked at run time.
    .exported_as("dgl_tf.custom_gradient");

/// `custom_gradient(f)` (a decorator).
fn custom_gradient(rt: &mut Interp, a: &mut Args) -> R<Value> {
    wrap(rt, a, BuiltinKind::CustomGradient, "custom_gradient")
}

static RECOMPUTE_GRAD: Native = Native::new("recompute_grad", &["f=None", "check=None"], recompute_grad)
    .spelled(&["tf.recompute_grad"])
    // docs/language.md §5: DGL's recompute and custom-gradient contracts, checked at run time.
    .exported_as("dgl_tf.recompute_grad");

/// `recompute_grad(f, check=None)`: `f` recomputed during `tape.gradient` instead of
/// recorded (docs/language.md §5); `g.__wrapped__` is `f`. Also a decorator factory:
/// `@recompute_grad(check=True)`.
///
/// `check=True` (the default under `dgl test`, else off) fingerprints every operation of
/// the forward call — output shape, dtype and a hash of its values, with its line — and
/// compares the recomputation with it operation by operation: where they differ (f read a
/// global or a Variable that changed since, or took another branch) `tape.gradient` raises
/// RuntimeError naming the operation, its file:line and what differs, instead of returning
/// the gradients of other values. Random draws are replayed, so they never differ.
/// Costs a hash of every output f computes, in both runs.
/// Errors: TypeError when `f` is not callable.
/// See: tf.recompute_grad (checks nothing); torch.utils.checkpoint (compares shapes and
/// dtypes only, CheckpointError).
fn recompute_grad(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = RECOMPUTE_GRAD.bind(rt, a)?;
    let f = b.non_none("f")?;
    let check = b.non_none("check")?;
    let check = match check {
        Some(v) => Some(rt.bool_arg(&v)?),
        None => None,
    };
    match f {
        Some(f) => wrapped(f, |f| BuiltinKind::Recompute(f, check), "recompute_grad"),
        // `@recompute_grad(check=…)`: a decorator with the option bound (as `this`).
        None => {
            let this = check.map_or(Value::None, Value::Bool);
            Ok(Value::Builtin(Rc::new(Builtin {
                name: "recompute_grad".into(),
                kind: BuiltinKind::Method(this, &RECOMPUTE_DECORATOR),
            })))
        }
    }
}

static RECOMPUTE_DECORATOR: Native = Native::new("recompute_grad", &["f"], recompute_decorator);

/// What `recompute_grad(check=…)` returns: applied to `f`, `recompute_grad(f, check=…)`.
fn recompute_decorator(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let check = match &a.this {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    };
    let f = RECOMPUTE_DECORATOR.bind(rt, a)?.value("f")?;
    wrapped(f, |f| BuiltinKind::Recompute(f, check), "recompute_grad")
}

static GRAD_PASS_THROUGH: Native =
    Native::with("grad_pass_through", WRAP_SIG, grad_pass_through).spelled(&["tf.grad_pass_through"]);

/// `grad_pass_through(f)`: forward of `f`, identity gradient.
fn grad_pass_through(rt: &mut Interp, a: &mut Args) -> R<Value> {
    wrap(rt, a, BuiltinKind::PassThrough, "grad_pass_through")
}

static IS_RECOMPUTING: Native = Native::with("is_recomputing", NO_ARGS, is_recomputing);

/// `is_recomputing()`: true while a recompute_grad recomputation runs.
fn is_recomputing(rt: &mut Interp, a: &mut Args) -> R<Value> {
    NO_ARGS.bind(rt, a)?;
    Ok(Value::Bool(rt.ad.is_recomputing()))
}
