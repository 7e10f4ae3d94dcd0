//! Differentiation tools and helpers for code ported from TensorFlow (docs/language.md §5):
//! `compute_gradient`, `check_gradients`, `function`, `identity`, `add_n`,
//! `UnconnectedGradients`.

use super::Native;
use crate::autodiff::Tape;
use crate::bail;
use crate::error::R;
use crate::intern::intern;
use crate::runtime::value::{Args, Class, Value};
use crate::runtime::Interp;
use crate::tensor::{Array, DType, Tensor};
use std::cell::RefCell;
use std::rc::Rc;

/// Registers this file's builtins.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    for b in [&COMPUTE_GRADIENT, &CHECK_GRADIENTS, &FUNCTION, &IDENTITY, &ADD_N] {
        reg(b);
    }
}

/// Installs `UnconnectedGradients`.
pub fn install(rt: &mut Interp) {
    // `UnconnectedGradients.ZERO` / `.NONE`: a class whose attributes are the strings
    // `'zero'` / `'none'` that `unconnected_gradients=` takes (TF's enum values).
    let class = Class { name: "UnconnectedGradients".into(), base: None, attrs: Default::default(), error_kind: None };
    class.attrs.borrow_mut().insert(intern("ZERO"), Value::str("zero"));
    class.attrs.borrow_mut().insert(intern("NONE"), Value::str("none"));
    rt.builtins.insert(intern("UnconnectedGradients"), Value::Class(Rc::new(class)));
}

/// TF's default perturbation for numerical derivatives (`tf.test.compute_gradient`).
const DELTA: f64 = 1.0 / 1024.0;

/// The float tensors `f` is differentiated at.
///
/// Errors: TypeError for a value that is not a float tensor (numbers and lists become float32).
fn float_args(rt: &mut Interp, xs: &[Value], fname: &str) -> R<Vec<Tensor>> {
    let mut out = Vec::with_capacity(xs.len());
    for (i, x) in xs.iter().enumerate() {
        let t = match x {
            Value::Tensor(_) | Value::Variable(_) => rt.to_tensor(x, None)?,
            other => rt.to_tensor(other, Some(DType::F32))?,
        };
        if !t.dtype().is_float() {
            bail!(Type, "{fname}() differentiates float tensors, argument {i} is {}", t.dtype().name());
        }
        out.push(Tensor::new((*t.data).clone()));
    }
    Ok(out)
}

/// `f(*xs)` as a float tensor.
fn call(rt: &mut Interp, f: &Value, xs: &[Tensor], fname: &str) -> R<Tensor> {
    let v = rt.call_value(f, xs.iter().cloned().map(Value::Tensor).collect(), vec![])?;
    // A NumPy value is never on a tape (docs/language.md §4): its derivative cannot be checked.
    if let Value::NdArray(_) = v {
        bail!(Type, "{fname}() needs a function returning a tensor, it returned a NumPy value (never on a tape)");
    }
    let y = rt.to_tensor(&v, None)?;
    if !y.dtype().is_float() {
        bail!(Type, "{fname}() needs a function returning a float tensor, it returned {}", y.dtype().name());
    }
    Ok(y)
}

/// Central differences of `level` in every element of every x: per x, the [y size, x size]
/// values (y[+δ] − y[−δ]) / 2δ, computed in y's dtype as TF does.
fn numerical(
    rt: &mut Interp,
    xs: &[Tensor],
    delta: f64,
    level: &mut dyn FnMut(&mut Interp, &[Tensor]) -> R<Tensor>,
) -> R<Vec<Vec<f64>>> {
    let mut out = Vec::with_capacity(xs.len());
    for k in 0..xs.len() {
        let base = xs[k].data.to_f64_vec();
        let mut cols: Vec<Vec<f64>> = Vec::with_capacity(base.len());
        for j in 0..base.len() {
            let mut eval = |rt: &mut Interp, step: f64| -> R<Tensor> {
                let mut vals = base.clone();
                vals[j] += step;
                let mut moved = xs.to_vec();
                moved[k] = Tensor::new(Array::from_f64(xs[k].dtype(), xs[k].shape(), vals));
                level(rt, &moved)
            };
            let (plus, minus) = (eval(rt, delta)?, eval(rt, -delta)?);
            let f32_math = plus.dtype() == DType::F32;
            let col =
                plus.data
                    .to_f64_vec()
                    .iter()
                    .zip(minus.data.to_f64_vec())
                    .map(|(p, m)| {
                        if f32_math {
                            ((p - m) as f32 / (2.0 * delta) as f32) as f64
                        } else {
                            (p - m) / (2.0 * delta)
                        }
                    })
                    .collect();
            cols.push(col);
        }
        // Column-major → row-major [y size, x size].
        let ny = cols.first().map_or(0, |c| c.len());
        let mut m = vec![0.0; ny * cols.len()];
        for (j, col) in cols.iter().enumerate() {
            for (i, v) in col.iter().enumerate() {
                m[i * cols.len() + j] = *v;
            }
        }
        out.push(m);
    }
    Ok(out)
}

static COMPUTE_GRADIENT: Native =
    Native::new("compute_gradient", &["f", "x", "delta=None"], compute_gradient).spelled(&["tf.test.compute_gradient"]);

/// `compute_gradient(f, x, delta=None)`: the analytic and the numerical jacobian of `f` at the
/// arguments `x` (a list or tuple, called as `f(*x)`), to compare by eye or in a test.
///
/// Shapes: a tuple `(theoretical, numerical)`, each a tuple with one 2-D tensor per argument,
/// [size of f(*x), size of x[k]] (element (i, j) is d y[i] / d x[k][j], both flattened).
/// Dtypes: each jacobian has its argument's dtype; numerical differences are central,
/// (f(x+δ) − f(x−δ)) / 2δ with δ = `delta` (default 1/1024, TF's), computed in f's dtype.
/// Gradient: none (the results are plain tensors).
/// Errors: TypeError when `x` is not a list or tuple, an argument is not float, or `f` does not
/// return a float tensor; ValueError for a `delta` that is not positive.
/// See: tf.test.compute_gradient.
fn compute_gradient(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = COMPUTE_GRADIENT.bind(rt, a)?;
    let (f, x) = (b.value("f")?, b.value("x")?);
    let delta = match b.non_none("delta")? {
        Some(v) => rt.float_arg(&v, "delta")?,
        None => DELTA,
    };
    if !(delta > 0.0 && delta.is_finite()) {
        bail!(Value, "compute_gradient() needs a positive delta, got {delta}");
    }
    if !matches!(x, Value::List(_) | Value::Tuple(_)) {
        bail!(Type, "compute_gradient() needs x as a list or tuple of arguments to f, not {}", x.type_name());
    }
    let items = rt.iterate(&x)?;
    let xs = float_args(rt, &items, "compute_gradient")?;
    let (y, rows) = analytic(rt, &f, &xs, 0, "compute_gradient")?;
    let f2 = f.clone();
    let num = numerical(rt, &xs, delta, &mut |rt, xs| call(rt, &f2, xs, "compute_gradient"))?;
    let (mut theo, mut nums) = (Vec::new(), Vec::new());
    for ((x, rows), num) in xs.iter().zip(rows).zip(num) {
        let shape = [y.len(), x.len()];
        let vals: Vec<f64> = rows.iter().flat_map(|r| r.data.to_f64_vec()).collect();
        theo.push(Value::Tensor(Tensor::new(Array::from_f64(x.dtype(), &shape, vals))));
        nums.push(Value::Tensor(Tensor::new(Array::from_f64(x.dtype(), &shape, num))));
    }
    Ok(Value::tuple(vec![Value::tuple(theo), Value::tuple(nums)]))
}

/// The function checked at `order`: order 0 is `f(*xs)` flattened; order k+1 is the analytic
/// jacobian of order k, flattened (nested tapes: each level's rows are recorded by the tape of
/// the level above).
fn level(rt: &mut Interp, f: &Value, xs: &[Tensor], order: usize, fname: &str) -> R<Tensor> {
    if order == 0 {
        let y = call(rt, f, xs, fname)?;
        return rt.ad.reshape_to(&y, &[y.len()]);
    }
    let (y, rows) = analytic(rt, f, xs, order - 1, fname)?;
    let mut flat = Vec::new();
    for i in 0..y.len() {
        let mut row = Vec::with_capacity(xs.len());
        for r in &rows {
            row.push(rt.ad.reshape_to(&r[i], &[r[i].len()])?);
        }
        if !row.is_empty() {
            flat.push(rt.ad.concat(&row, 0)?);
        }
    }
    if flat.is_empty() {
        return Ok(Tensor::zeros(y.dtype(), &[0]));
    }
    rt.ad.concat(&flat, 0)
}

/// The analytic jacobian of `level(order)` at `xs`: its value y and, per x, the rows dy[i]/dx
/// (each of x's shape; zeros where y[i] does not depend on x). The rows are computed with the
/// recording ops, so an enclosing tape differentiates them (the next order).
fn analytic(rt: &mut Interp, f: &Value, xs: &[Tensor], order: usize, fname: &str) -> R<(Tensor, Vec<Vec<Tensor>>)> {
    let tape = Rc::new(RefCell::new(Tape::new(true, false)));
    for x in xs {
        tape.borrow_mut().watch(x.id);
    }
    rt.ad.enter(&tape)?;
    let y = rt.nested("while checking gradients", |rt| level(rt, f, xs, order, fname));
    rt.ad.exit(&tape);
    let y = y?;
    let ids: Vec<_> = xs.iter().map(|x| x.id).collect();
    let mut rows = vec![Vec::with_capacity(y.len()); xs.len()];
    for i in 0..y.len() {
        let mut onehot = vec![0.0; y.len()];
        onehot[i] = 1.0;
        let og = Tensor::new(Array::from_f64(y.dtype(), y.shape(), onehot));
        let grads = rt.gradient(&tape, std::slice::from_ref(&y), &ids, Some(vec![og]))?;
        for (k, (g, x)) in grads.into_iter().zip(xs).enumerate() {
            rows[k].push(g.unwrap_or_else(|| Tensor::zeros(x.dtype(), x.shape())));
        }
    }
    Ok((y, rows))
}

static CHECK_GRADIENTS: Native = Native::new(
    "check_gradients",
    &["*args", "order: int = 2", "atol=None", "rtol=None", "delta=None"],
    check_gradients,
);

/// `check_gradients(f, *xs, order=2, atol=None, rtol=None, delta=None)`: checks reverse-mode
/// derivatives of `f` at `xs` against central differences, up to `order` (1 or 2: the second
/// order differentiates the tape's own gradients, through nested tapes).
///
/// Shapes: any; `f(*xs)` is a float tensor.
/// Dtypes: float32 and float64 arguments. Tolerance: |analytic − numerical| ≤ atol + rtol·|numerical|,
/// by default 1e-2 each if any argument is float32, else 1e-5; δ defaults to 1/1024 (TF's).
/// Gradient: none; returns None when every derivative agrees.
/// Errors: AssertionError naming the order, the argument, the worst element (output and input
/// indices, flattened) and both values when they disagree; TypeError for non-float arguments;
/// ValueError for an order other than 1 or 2.
/// See: jax.test_util.check_grads (reverse mode); tf.test.compute_gradient.
fn check_gradients(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = CHECK_GRADIENTS.bind(rt, a)?;
    let order = b.int_or("order", 2)?;
    let (atol, rtol, delta) = (b.non_none("atol")?, b.non_none("rtol")?, b.non_none("delta")?);
    let mut rest = std::mem::take(&mut b.rest).into_iter();
    drop(b);
    let Some(f) = rest.next() else { bail!(Type, "check_gradients() missing 1 required argument: 'f'") };
    let items: Vec<Value> = rest.collect();
    if !(1..=2).contains(&order) {
        bail!(Value, "check_gradients() checks order 1 or 2, got {order}");
    }
    let xs = float_args(rt, &items, "check_gradients")?;
    if xs.is_empty() {
        return Ok(Value::None); // nothing to differentiate with respect to
    }
    let loose = xs.iter().any(|x| x.dtype() == DType::F32);
    let default_tol = if loose { 1e-2 } else { 1e-5 };
    let mut num = |v: Option<Value>, d: f64, what: &str| -> R<f64> { v.map_or(Ok(d), |v| rt.float_arg(&v, what)) };
    let (atol, rtol, delta) =
        (num(atol, default_tol, "atol")?, num(rtol, default_tol, "rtol")?, num(delta, DELTA, "delta")?);
    if !(delta > 0.0 && delta.is_finite()) {
        bail!(Value, "check_gradients() needs a positive delta, got {delta}");
    }
    for k in 0..order as usize {
        let (y, rows) = analytic(rt, &f, &xs, k, "check_gradients")?;
        let f2 = f.clone();
        let nums = numerical(rt, &xs, delta, &mut |rt, xs| level(rt, &f2, xs, k, "check_gradients"))?;
        // The worst element over every argument, by how far past its tolerance it is.
        let mut worst: Option<(f64, usize, usize, usize, f64, f64)> = None;
        for (arg, (rows, nums)) in rows.iter().zip(&nums).enumerate() {
            let nx = xs[arg].len();
            for (i, row) in rows.iter().enumerate() {
                for (j, an) in row.data.to_f64_vec().into_iter().enumerate() {
                    let nu = nums[i * nx + j];
                    let ratio = (an - nu).abs() / (atol + rtol * nu.abs());
                    let bad = ratio > 1.0 || an.is_nan() != nu.is_nan();
                    if bad && worst.as_ref().is_none_or(|w| ratio > w.0 || ratio.is_nan()) {
                        worst = Some((ratio, arg, i, j, an, nu));
                    }
                }
            }
        }
        if let Some((_, arg, i, j, an, nu)) = worst {
            let (n, of) = (y.len(), (atol, rtol, delta));
            if k == 0 {
                bail!(
                    Assertion,
                    "check_gradients: the derivative of output element {i} (of {n}) with respect to element {j} \
                     of argument {arg} disagrees: analytic {an}, numerical {nu} (atol {}, rtol {}, delta {})",
                    of.0,
                    of.1,
                    of.2
                );
            }
            bail!(
                Assertion,
                "check_gradients: the second derivative, of first-derivative entry {i} (of {n}: output-major, \
                 arguments in order) with respect to element {j} of argument {arg}, disagrees: analytic {an}, \
                 numerical {nu} (atol {}, rtol {}, delta {})",
                of.0,
                of.1,
                of.2
            );
        }
    }
    Ok(Value::None)
}

static FUNCTION: Native = Native::new(
    "function",
    &[
        "func=None",
        "input_signature=None",
        "autograph=True",
        "jit_compile=None",
        "reduce_retracing=False",
        "experimental_relax_shapes=None",
        "name=None",
    ],
    function,
)
.spelled(&["tf.function"])
.exported_as("dgl_tf.function");

/// `function(func=None, input_signature=None, autograph=True, jit_compile=None,
/// reduce_retracing=False, experimental_relax_shapes=None, name=None)`: TF's `tf.function`, a
/// function traced once per input signature into a graph that each call replays (Python side
/// effects at tracing, `tf.print` and updates on every call, AutoGraph's `if`/`for`/`while` on
/// tensors); as a decorator with or without arguments. `autograph` and `jit_compile` change
/// nothing. The machinery is stdlib/_function.dgl and runtime/trace.rs (docs/language.md
/// "Traced functions").
///
/// Errors: TypeError when `func` is given and is not callable; a call's errors are described
/// in docs/language.md "Traced functions".
/// See: tf.function.
fn function(rt: &mut Interp, a: &mut Args) -> R<Value> {
    FUNCTION.bind(rt, &mut Args { this: None, pos: a.pos.clone(), kw: a.kw.clone(), fname: a.fname.clone() })?;
    let module = rt.import_path(&["_function"])?;
    let module = module.last().expect("the module").clone();
    let Some(f) = module.globals.get(crate::intern::intern("function")) else {
        bail!(Runtime, "internal error: _function.function is missing")
    };
    rt.call_value(&f, std::mem::take(&mut a.pos), std::mem::take(&mut a.kw))
}

static IDENTITY: Native =
    Native::new("identity", &["input: TensorLike", "name=None"], identity).spelled(&["tf.identity"]);

/// `identity(input, name=None)`: the same values as a new tensor.
///
/// Shapes and dtypes: input's. Gradient: the upstream gradient, unchanged.
/// See: tf.identity.
fn identity(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let t = IDENTITY.bind(rt, a)?.tensor("input")?;
    Ok(Value::Tensor(rt.ad.identity(&t)))
}

static ADD_N: Native = Native::new("add_n", &["inputs", "name=None"], add_n).spelled(&["tf.math.add_n", "tf.add_n"]);

/// `add_n(inputs, name=None)`: the elementwise sum of a list of tensors.
///
/// Shapes: every input the same shape (no broadcasting), which the result has.
/// Dtypes: one dtype for every input (numbers become float32 tensors).
/// Gradient: the upstream gradient, to every input.
/// Errors: ValueError for no inputs; ShapeError for different shapes; TypeError for different dtypes.
/// See: tf.math.add_n.
fn add_n(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let inputs = ADD_N.bind(rt, a)?.value("inputs")?;
    let items = rt.iterate(&inputs)?;
    if items.is_empty() {
        bail!(Value, "add_n() needs at least one tensor");
    }
    let ts: Vec<Tensor> = items
        .iter()
        .map(|v| match v {
            Value::Tensor(_) | Value::Variable(_) => rt.to_tensor(v, None),
            other => rt.to_tensor(other, Some(DType::F32)),
        })
        .collect::<R<_>>()?;
    let first = ts[0].clone();
    for (i, t) in ts.iter().enumerate().skip(1) {
        if t.dtype() != first.dtype() {
            bail!(
                Type,
                "add_n() needs one dtype, input 0 is {} and input {i} is {}",
                first.dtype().name(),
                t.dtype().name()
            );
        }
        if t.shape() != first.shape() {
            bail!(
                Shape,
                "add_n() needs one shape, input 0 is {} and input {i} is {}",
                crate::tensor::shape_str(first.shape()),
                crate::tensor::shape_str(t.shape())
            );
        }
    }
    Ok(Value::Tensor(rt.ad.add_n(&ts)?))
}
