//! Forward-mode differentiation builtins (docs/language.md §5): `ForwardAccumulator` and its `jvp`
//! method (TF's `tf.autodiff.ForwardAccumulator`), and the functional `jvp` (DGL's own, shaped
//! like JAX's `jax.jvp`; TF has no such function). The machinery is `autodiff/forward.rs`.

use super::tape_methods::{flatten_sources, unconnected_zero, unflatten};
use super::Native;
use crate::autodiff::{AccRef, Accumulator};
use crate::bail;
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::{shape_str, Tensor, TensorId};
use std::cell::RefCell;
use std::rc::Rc;

pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&FORWARDACCUMULATOR);
    reg(&JVP);
}

static FORWARDACCUMULATOR: Native = Native::new("ForwardAccumulator", &["primals", "tangents"], forward_accumulator)
    .spelled(&["tf.autodiff.ForwardAccumulator"]);

/// `ForwardAccumulator(primals, tangents)`: a context manager computing Jacobian-vector
/// products (forward-mode differentiation) while it is entered.
///
/// `primals` is a tensor, a Variable, or a (nested) list, tuple or dict of them; `tangents`
/// has the same structure, one tangent per primal with its shape (a number becomes a tensor of
/// the primal's dtype; a list is a structure, as in TF, not a tensor). Inside `with ForwardAccumulator(x, v) as acc:` every
/// differentiable operation on a primal (reads of a primal Variable included) carries its
/// tangent J·v; `acc.jvp(y)` reads it, during or after the block. Tangent computations are
/// recorded by tapes (reverse over forward) and seen by accumulators entered earlier (nested
/// accumulators: second-order derivatives); a `tape.gradient` inside the block carries tangents
/// (forward over reverse: `acc.jvp(tape.gradient(y, x))` is H·v).
/// Dtypes: float32, float64 primals carry tangents (an int primal's tangent is kept but no
/// operation propagates it).
/// Errors: ValueError when the structures differ, a primal is given twice or a tangent's dtype
/// differs from its primal's; ShapeError when a tangent's shape differs from its primal's (TF
/// does not check); TypeError for a primal that is not a tensor or Variable; ValueError when
/// entered again inside its own block.
/// See: docs/language.md §5; tf.autodiff.ForwardAccumulator.
fn forward_accumulator(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = FORWARDACCUMULATOR.bind(rt, a)?;
    let (primals, tangents) = (b.value("primals")?, b.value("tangents")?);
    let mut pairs = Vec::new();
    pair_leaves(rt, &primals, &tangents, &mut pairs)?;
    let acc = accumulator(rt, &pairs)?;
    Ok(Value::Accumulator(acc))
}

/// A new accumulator holding the tangent of each (primal, tangent) pair.
///
/// Errors: see [`forward_accumulator`].
fn accumulator(rt: &mut Interp, pairs: &[(Value, Value)]) -> R<AccRef> {
    let mut acc = Accumulator::default();
    let mut seen: Vec<TensorId> = Vec::with_capacity(pairs.len());
    for (i, (p, t)) in pairs.iter().enumerate() {
        let primal = match p {
            Value::Tensor(x) => x.clone(),
            Value::Variable(v) => v.peek(),
            other => bail!(Type, "ForwardAccumulator primals must be tensors or Variables, not {}", other.type_name()),
        };
        if seen.contains(&primal.id) {
            bail!(Value, "primal {i} was given more than once: pass each tensor once, with the sum of its tangents");
        }
        seen.push(primal.id);
        let tangent = match t {
            Value::Tensor(x) if x.dtype() != primal.dtype() => {
                bail!(Value, "tangent {i} has dtype {} but its primal has dtype {}", x.dtype(), primal.dtype())
            }
            Value::Tensor(x) => x.clone(),
            Value::Variable(v) if v.peek().dtype() != primal.dtype() => {
                bail!(Value, "tangent {i} has dtype {} but its primal has dtype {}", v.peek().dtype(), primal.dtype())
            }
            other => rt.to_tensor(other, Some(primal.dtype()))?,
        };
        if tangent.shape() != primal.shape() {
            bail!(
                Shape,
                "tangent {i} has shape {} but its primal has shape {}",
                shape_str(tangent.shape()),
                shape_str(primal.shape())
            );
        }
        acc.set(primal.id, tangent);
    }
    Ok(Rc::new(RefCell::new(acc)))
}

/// Pairs the leaves of `primals` with those of `tangents`, which must have the same structure.
///
/// Errors: ValueError naming the first difference.
fn pair_leaves(rt: &mut Interp, primals: &Value, tangents: &Value, out: &mut Vec<(Value, Value)>) -> R<()> {
    rt.nested("while pairing primals with tangents (does a list contain itself?)", |rt| {
        match (primals, tangents) {
            (Value::List(_) | Value::Tuple(_), Value::List(_) | Value::Tuple(_))
                if std::mem::discriminant(primals) == std::mem::discriminant(tangents) =>
            {
                let (ps, ts) = (rt.iterate(primals)?, rt.iterate(tangents)?);
                if ps.len() != ts.len() {
                    bail!(
                        Value,
                        "primals and tangents must have the same structure: a {} of {} against one of {}",
                        primals.type_name(),
                        ps.len(),
                        ts.len()
                    );
                }
                for (p, t) in ps.iter().zip(&ts) {
                    pair_leaves(rt, p, t, out)?;
                }
            }
            (Value::Dict(pd), Value::Dict(td)) => {
                let pairs: Vec<(Value, Option<Value>)> = {
                    let (pd, td) = (pd.borrow(), td.borrow());
                    if pd.len() != td.len() {
                        bail!(
                            Value,
                            "primals and tangents must have the same structure: a dict of {} keys against one of {}",
                            pd.len(),
                            td.len()
                        );
                    }
                    pd.iter().map(|(k, (_, v))| (v.clone(), td.get(k).map(|(_, t)| t.clone()))).collect()
                };
                for (p, t) in pairs {
                    let Some(t) = t else {
                        bail!(Value, "primals and tangents must have the same structure: their dict keys differ")
                    };
                    pair_leaves(rt, &p, &t, out)?;
                }
            }
            // TF: a list against a tuple is a TypeError, other differences ValueErrors.
            (Value::List(_) | Value::Tuple(_), Value::List(_) | Value::Tuple(_)) => bail!(
                Type,
                "primals and tangents must have the same structure: a {} against a {}",
                primals.type_name(),
                tangents.type_name()
            ),
            (Value::List(_) | Value::Tuple(_) | Value::Dict(_), _)
            | (_, Value::List(_) | Value::Tuple(_) | Value::Dict(_)) => {
                bail!(
                    Value,
                    "primals and tangents must have the same structure: a {} against a {}",
                    primals.type_name(),
                    tangents.type_name()
                )
            }
            (p, t) => out.push((p.clone(), t.clone())),
        }
        Ok(())
    })
}

/// The accumulator a method is bound to.
fn this_accumulator(a: &Args) -> R<AccRef> {
    match &a.this {
        Some(Value::Accumulator(acc)) => Ok(acc.clone()),
        other => {
            let found = other.as_ref().map_or_else(|| "nothing".to_string(), |v| v.type_name());
            bail!(Type, "{}() must be called on a ForwardAccumulator, not {found}", a.fname)
        }
    }
}

pub(super) static ACCUMULATOR_JVP: Native =
    Native::new("jvp", &["primals", "unconnected_gradients='none'"], accumulator_jvp);

/// `acc.jvp(primals, unconnected_gradients='none')`: the tangent of each tensor or Variable
/// of `primals` (a tensor, a Variable or a nested list, tuple or dict of them), in the same
/// structure.
///
/// Shapes and dtypes: each tangent has its tensor's. A tensor that does not depend on the
/// accumulator's primals (or was computed outside its block, or is not float) has no tangent:
/// None, or zeros with `unconnected_gradients='zero'`. Readable after the block (TF).
/// Errors: TypeError for a leaf that is not a tensor or Variable; ValueError for an unknown
/// `unconnected_gradients`; the error of a failed tangent computation, if one failed.
/// See: tf.autodiff.ForwardAccumulator.jvp.
pub(super) fn accumulator_jvp(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let acc = this_accumulator(a)?;
    let mut b = ACCUMULATOR_JVP.bind(rt, a)?;
    let (primals, unconnected) = (b.value("primals")?, b.non_none("unconnected_gradients")?);
    let zero = unconnected_zero(rt, unconnected)?;
    if let Some(e) = acc.borrow_mut().error.take() {
        return Err(e);
    }
    let mut leaves = Vec::new();
    flatten_sources(rt, &primals, &mut leaves)?;
    let mut out = Vec::with_capacity(leaves.len());
    for leaf in &leaves {
        let t = match leaf {
            Value::Tensor(t) => t.clone(),
            Value::Variable(v) => v.peek(),
            other => bail!(Type, "jvp() needs tensors or Variables, not {}", other.type_name()),
        };
        out.push(tangent_of(&acc, &t, zero));
    }
    Ok(unflatten(&primals, &mut out.into_iter()))
}

/// The tangent of `t` in `acc`: None when it has none, or zeros when `zero`.
fn tangent_of(acc: &AccRef, t: &Tensor, zero: bool) -> Value {
    match acc.borrow().get(t.id) {
        Some(tan) => Value::Tensor(tan),
        None if zero => Value::Tensor(Tensor::zeros(t.dtype(), t.shape())),
        None => Value::None,
    }
}

static JVP: Native = Native::new("jvp", &["f", "primals", "tangents"], jvp);

/// `jvp(f, primals, tangents)`: `(f(*primals), J·tangents)`, the value of `f` and its
/// Jacobian-vector product, in one forward pass. DGL's own (shaped like JAX's `jax.jvp`; TF
/// has only the accumulator, which this wraps).
///
/// `primals` is the tuple or list of `f`'s positional arguments (a lone tensor or Variable
/// is one argument), each a tensor, a Variable or a nested structure of them; `tangents` has
/// the same structure and shapes. The second result has the structure of `f`'s result, a
/// tangent per float output; an output that does not depend on the primals gets zeros (as
/// JAX), a non-float one None. The same tensor may be passed twice (each argument is its own
/// primal); tapes outside record the computation (reverse over forward).
/// Errors: as `ForwardAccumulator`; TypeError when `f` returns something other than tensors,
/// numbers or (nested) lists, tuples or dicts of them; whatever `f` raises.
/// See: docs/language.md §5.
fn jvp(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = JVP.bind(rt, a)?;
    let (f, primals, tangents) = (b.value("f")?, b.value("primals")?, b.value("tangents")?);
    let (args, targs) = match (&primals, &tangents) {
        (Value::Tuple(_) | Value::List(_), Value::Tuple(_) | Value::List(_)) => {
            (rt.iterate(&primals)?, rt.iterate(&tangents)?)
        }
        (Value::Tensor(_) | Value::Variable(_), _) => (vec![primals.clone()], vec![tangents.clone()]),
        (other, _) => bail!(
            Type,
            "jvp() takes the tuple of f's arguments as primals (or one tensor), not a {}",
            other.type_name()
        ),
    };
    if args.len() != targs.len() {
        bail!(Value, "jvp() got {} primals but {} tangents", args.len(), targs.len());
    }
    // Each argument's tensors under fresh ids (recorded, for tapes outside), so that a tensor
    // passed twice is two primals.
    let mut pairs = Vec::new();
    let mut call_args = Vec::with_capacity(args.len());
    for (p, t) in args.iter().zip(&targs) {
        let start = pairs.len();
        pair_leaves(rt, p, t, &mut pairs)?;
        let mut fresh = Vec::with_capacity(pairs.len() - start);
        for pair in &mut pairs[start..] {
            if let Value::Tensor(x) = &pair.0 {
                pair.0 = Value::Tensor(rt.ad.identity(x));
            }
            fresh.push(pair.0.clone());
        }
        call_args.push(unflatten(p, &mut fresh.into_iter()));
    }
    let acc = accumulator(rt, &pairs)?;
    rt.ad.enter_accumulator(&acc)?;
    let result = rt.call_value(&f, call_args, vec![]);
    rt.ad.exit_accumulator(&acc);
    let result = result?;
    if let Some(e) = acc.borrow_mut().error.take() {
        return Err(e);
    }
    let mut leaves = Vec::new();
    flatten_sources(rt, &result, &mut leaves)?;
    let mut out = Vec::with_capacity(leaves.len());
    for leaf in &leaves {
        let t = match leaf {
            Value::Tensor(t) => t.clone(),
            Value::Variable(v) => v.peek(),
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => rt.to_tensor(leaf, None)?,
            other => bail!(Type, "jvp(): f must return tensors or numbers, got a {}", other.type_name()),
        };
        out.push(if t.dtype().is_float() { tangent_of(&acc, &t, true) } else { Value::None });
    }
    let tangents_out = unflatten(&result, &mut out.into_iter());
    Ok(Value::tuple(vec![result, tangents_out]))
}
