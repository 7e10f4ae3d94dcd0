//! `Model.fit` under `--distribute` (tests/export/distributed/RECIPE.md §3): finds the models
//! a program trains with `model.fit`, their `compile`, and marks what the emitter rewrites:
//! the model's and the optimizer's creation inside the strategy's scope, `compile` given
//! Keras's optimizer and per-example loss, `fit` and `evaluate` run by the support module's
//! distributed loop (`dgl_tf.fit`, `dgl_tf.evaluate`). Forms it cannot write so that every
//! replica takes the single-process steps are refused with a span saying what is needed.

use super::{call_name, each_expr, name_of, needs, refuse_random, Plan, Refusal, OPTIMIZERS};
use crate::export::inspect::walk_expr;
use crate::syntax::ast::*;
use std::collections::{HashMap, HashSet};

/// How a call of `compile`, `fit` or `evaluate` on a trained model is written.
pub enum FitCall {
    /// `dgl_tf.compile_model(MODEL, optimizer=..., loss=dgl_tf.per_example_loss(KERAS_NAME,
    /// SETTINGS), metrics=...)`.
    Compile { optimizer: Optimizer, loss: String, settings: Vec<(String, Expr)>, metrics: Option<Expr> },
    /// `dgl_tf.fit(MODEL, ARGS)`.
    Fit,
    /// `dgl_tf.evaluate(MODEL, ARGS)`.
    Evaluate,
}

/// The optimizer given to `compile`.
pub enum Optimizer {
    /// `optim.CLASS(ARGS)` → `tf.keras.optimizers.CLASS(ARGS)`.
    Call(String, Vec<Arg>),
    /// A name bound to `optim.CLASS(...)` by a top-level statement (rewritten there).
    Named(Expr),
    /// A name such as `'adam'` → `tf.keras.optimizers.Adam()` (the same defaults).
    Default(String),
}

const FIT_PARAMS: &[&str] =
    &["x", "y", "batch_size", "epochs", "verbose", "validation_data", "shuffle", "initial_epoch"];
const COMPILE_PARAMS: &[&str] = &["optimizer", "loss", "metrics"];

/// DGL's loss names (functions, their aliases, classes) → Keras's per-example function and
/// the settings it takes. DGL's functions return the mean, Keras's one loss per example.
const LOSSES: &[(&str, &str, &[&str])] = &[
    ("mean_squared_error", "mean_squared_error", &[]),
    ("mse", "mean_squared_error", &[]),
    ("MSE", "mean_squared_error", &[]),
    ("MeanSquaredError", "mean_squared_error", &[]),
    ("mean_absolute_error", "mean_absolute_error", &[]),
    ("mae", "mean_absolute_error", &[]),
    ("MAE", "mean_absolute_error", &[]),
    ("MeanAbsoluteError", "mean_absolute_error", &[]),
    ("mean_squared_logarithmic_error", "mean_squared_logarithmic_error", &[]),
    ("msle", "mean_squared_logarithmic_error", &[]),
    ("MSLE", "mean_squared_logarithmic_error", &[]),
    ("MeanSquaredLogarithmicError", "mean_squared_logarithmic_error", &[]),
    ("huber", "huber", &["delta"]),
    ("Huber", "huber", &["delta"]),
    ("kl_divergence", "kl_divergence", &[]),
    ("kld", "kl_divergence", &[]),
    ("KLD", "kl_divergence", &[]),
    ("KLDivergence", "kl_divergence", &[]),
    ("hinge", "hinge", &[]),
    ("Hinge", "hinge", &[]),
    ("binary_crossentropy", "binary_crossentropy", &["from_logits", "label_smoothing"]),
    ("bce", "binary_crossentropy", &["from_logits", "label_smoothing"]),
    ("BCE", "binary_crossentropy", &["from_logits", "label_smoothing"]),
    ("BinaryCrossentropy", "binary_crossentropy", &["from_logits", "label_smoothing"]),
    ("categorical_crossentropy", "categorical_crossentropy", &["from_logits", "label_smoothing"]),
    ("CategoricalCrossentropy", "categorical_crossentropy", &["from_logits", "label_smoothing"]),
    ("sparse_categorical_crossentropy", "sparse_categorical_crossentropy", &["from_logits"]),
    ("SparseCategoricalCrossentropy", "sparse_categorical_crossentropy", &["from_logits"]),
];

/// The Keras function and its settings for the DGL loss `name`.
pub(super) fn keras_loss(name: &str) -> Option<(&'static str, &'static [&'static str])> {
    LOSSES.iter().find(|(n, _, _)| *n == name).map(|&(_, k, s)| (k, s))
}

fn is_class(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase()) && name.chars().any(|c| c.is_ascii_lowercase())
}

const FIT_NEEDED: &str = "--distribute needs fit(x, y, ..., shuffle=False) with x and y tensors";
const LOSS_NEEDED: &str = "--distribute needs compile(loss=...) as a loss name ('mse', 'sparse_categorical_crossentropy', ...), losses.f or a losses object (losses.SparseCategoricalCrossentropy(from_logits=True)): each maps to Keras's per-example function";
const OPTIMIZER_NEEDED: &str =
    "--distribute needs compile(optimizer=...) as optim.SGD, Adam, AdamW, RMSprop or Adagrad (made there or by a top-level statement before compile), or one of their names ('adam', ...)";

/// The arguments of a call by parameter name, or the argument that does not fit `params`.
fn by_name<'a>(args: &'a [Arg], params: &[&str]) -> Result<HashMap<String, &'a Expr>, Option<&'a Expr>> {
    let mut out = HashMap::new();
    let mut position = 0;
    for a in args {
        match a {
            Arg::Pos(e) if position < params.len() => {
                out.insert(params[position].to_string(), e);
                position += 1;
            }
            Arg::Kw(k, e) if params.contains(&&*k.name()) => {
                out.insert(k.name().to_string(), e);
            }
            Arg::Pos(e) | Arg::Kw(_, e) | Arg::Star(e) | Arg::StarStar(e) => return Err(Some(e)),
        }
    }
    Ok(out)
}

/// A top-level call `MODEL.METHOD(...)`.
struct MethodCall<'a> {
    stmt: usize,
    call: &'a Expr,
    model: Option<String>,
    method: String,
    args: &'a [Arg],
}

fn method_calls(body: &[Stmt]) -> Vec<MethodCall<'_>> {
    let mut out = vec![];
    for (i, s) in body.iter().enumerate() {
        if matches!(s.kind, StmtKind::Def(_) | StmtKind::Class(_)) {
            continue;
        }
        each_expr(std::slice::from_ref(s), &mut |e| {
            if let ExprKind::Call(f, args) = &e.kind {
                if let ExprKind::Attr(obj, m) = &f.kind {
                    let method = m.name().to_string();
                    if matches!(method.as_str(), "fit" | "compile" | "evaluate") {
                        out.push(MethodCall { stmt: i, call: e, model: name_of(obj), method, args });
                    }
                }
            }
        });
    }
    out
}

/// The top-level statements binding `name` (a single target).
fn bindings<'a>(body: &'a [Stmt], name: &str) -> Vec<(usize, &'a Expr)> {
    body.iter()
        .enumerate()
        .filter_map(|(i, s)| match &s.kind {
            StmtKind::Assign(t, v) if t.len() == 1 && name_of(&t[0]).as_deref() == Some(name) => Some((i, v)),
            _ => None,
        })
        .collect()
}

/// The plan for a program that trains with `Model.fit`, or what is missing.
pub fn plan(body: &[Stmt], kind: &str) -> Result<Plan, Vec<Refusal>> {
    let mut refusals = vec![];
    let mut calls = HashMap::new();
    let mut optimizers = HashMap::new();
    let mut models: Vec<String> = vec![];
    let mut in_scope: Vec<usize> = vec![];
    let found = method_calls(body);
    let key = |e: &Expr| (e.span.start, e.span.end);

    for fit in found.iter().filter(|c| c.method == "fit") {
        let Some(model) = fit.model.clone() else {
            refusals.push(needs(
                fit.call.span,
                "this `fit`",
                "--distribute needs fit called on a model named by a variable (model.fit(...))",
            ));
            continue;
        };
        // The arguments: x and y tensors, shuffle=False.
        match by_name(fit.args, FIT_PARAMS) {
            Err(at) => refusals.push(needs(at.map_or(fit.call.span, |e| e.span), "this argument of `fit`", FIT_NEEDED)),
            Ok(args) => {
                match args.get("shuffle") {
                    Some(Expr { kind: ExprKind::Bool(false), .. }) => {}
                    other => refusals.push(needs(
                        other.map_or(fit.call.span, |e| e.span),
                        "`fit` with shuffling",
                        "--distribute needs fit(..., shuffle=False): DGL's shuffle draws from DGL's generator, which TensorFlow's cannot replay on every replica; shuffle the tensors before fit",
                    )),
                }
                let dataset = args.get("x").and_then(|x| name_of(x)).is_some_and(|n| {
                    bindings(body, &n).iter().any(|(_, v)| {
                        let mut ds = false;
                        walk_expr(v, &mut |e| {
                            ds |= matches!(&e.kind, ExprKind::Attr(_, m) if &*m.name() == "from_tensor_slices" || &*m.name() == "Dataset")
                        });
                        ds
                    })
                });
                if !args.contains_key("x") || !args.contains_key("y") || dataset {
                    refusals.push(needs(fit.call.span, "`fit` without x and y tensors", FIT_NEEDED));
                }
            }
        }
        calls.insert(key(fit.call), FitCall::Fit);
        if !models.contains(&model) {
            models.push(model);
        }
    }

    for model in &models {
        let first_fit = found.iter().filter(|c| c.method == "fit" && c.model.as_deref() == Some(model)).map(|c| c.stmt);
        let first_fit = first_fit.min().unwrap_or(body.len());
        let at_fit = found.iter().find(|c| c.method == "fit" && c.model.as_deref() == Some(model)).unwrap();
        // The model: bound once, at top level, by a call, before fit.
        let bound = bindings(body, model);
        let made = match bound.as_slice() {
            [(i, v @ Expr { kind: ExprKind::Call(..), .. })] if *i < first_fit => (*i, *v),
            _ => {
                refusals.push(needs(
                    at_fit.call.span,
                    &format!("the model `{model}`"),
                    "--distribute needs the model that fit trains made once, by a top-level statement before compile (model = nn.Sequential([...]) or a subclass of nn.Model)",
                ));
                continue;
            }
        };
        in_scope.push(made.0);
        refuse_random(std::slice::from_ref(&body[made.0]), "in the model", &mut refusals);
        // A subclass: no train_step of its own (fit runs the support module's), no draws.
        if let Some(class) = call_name(made.1) {
            for s in body {
                let StmtKind::Class(c) = &s.kind else { continue };
                if &*c.name.name() != class.as_str() {
                    continue;
                }
                refuse_random(&c.body, "in the model", &mut refusals);
                for m in &c.body {
                    if let StmtKind::Def(d) = &m.kind {
                        let n = d.name.name();
                        if matches!(&*n, "train_step" | "compute_loss" | "test_step") {
                            refusals.push(needs(
                                m.span,
                                &format!("`{class}.{n}`"),
                                "--distribute's fit runs its own distributed step: a model that overrides train_step, compute_loss or test_step must be trained by a custom loop",
                            ));
                        }
                    }
                }
            }
        }
        // compile: once, as a top-level statement between the model's creation and fit.
        let compiles: Vec<&MethodCall> =
            found.iter().filter(|c| c.method == "compile" && c.model.as_deref() == Some(model)).collect();
        let compile = match compiles.as_slice() {
            [c] if c.stmt > made.0
                && c.stmt < first_fit
                && matches!(&body[c.stmt].kind, StmtKind::Expr(e) if e.span == c.call.span) =>
            {
                c
            }
            _ => {
                refusals.push(needs(
                    at_fit.call.span,
                    &format!("the compile of `{model}`"),
                    "--distribute needs one model.compile(...) statement at top level, between the model's creation and fit",
                ));
                continue;
            }
        };
        in_scope.push(compile.stmt);
        // Other methods of the model called before fit (build, ...) run in the scope too.
        for (i, s) in body.iter().enumerate().take(first_fit).skip(made.0) {
            if let StmtKind::Expr(Expr { kind: ExprKind::Call(f, _), .. }) = &s.kind {
                if matches!(&f.kind, ExprKind::Attr(obj, _) if name_of(obj).as_deref() == Some(model)) {
                    in_scope.push(i);
                }
            }
        }
        match compile_call(body, compile, &mut optimizers, &mut in_scope) {
            Ok(c) => {
                calls.insert(key(compile.call), c);
            }
            Err(r) => refusals.extend(r),
        }
    }
    for c in found.iter().filter(|c| c.method == "evaluate") {
        if c.model.as_ref().is_some_and(|m| models.contains(m)) {
            calls.insert(key(c.call), FitCall::Evaluate);
        }
    }
    if !refusals.is_empty() {
        return Err(refusals);
    }
    let first = *in_scope.iter().min().unwrap_or(&0);
    let last = *in_scope.iter().max().unwrap_or(&0);
    Ok(Plan {
        kind: kind.to_string(),
        dataset: None,
        scope: (body[first].span.start, body[last].span.start),
        optimizers,
        models,
        builds: vec![],
        step: None,
        loss: HashMap::new(),
        loops: HashSet::new(),
        calls,
    })
}

/// Checks a `compile` call and says how to write it.
fn compile_call(
    body: &[Stmt],
    compile: &MethodCall,
    optimizers: &mut HashMap<u32, String>,
    in_scope: &mut Vec<usize>,
) -> Result<FitCall, Vec<Refusal>> {
    let mut refusals = vec![];
    let args = match by_name(compile.args, COMPILE_PARAMS) {
        Ok(a) => a,
        Err(at) => {
            return Err(vec![needs(
                at.map_or(compile.call.span, |e| e.span),
                "this argument of `compile`",
                "--distribute needs compile(optimizer=..., loss=..., metrics=[...])",
            )])
        }
    };
    // The optimizer.
    let optimizer = match args.get("optimizer").map(|e| (&e.kind, *e)) {
        None => Some(Optimizer::Default("RMSprop".into())),
        Some((ExprKind::Str(s), _)) => {
            OPTIMIZERS.iter().find(|o| o.eq_ignore_ascii_case(s)).map(|o| Optimizer::Default(o.to_string()))
        }
        Some((ExprKind::Call(_, a), e)) => {
            call_name(e).filter(|c| OPTIMIZERS.contains(&c.as_str())).map(|c| Optimizer::Call(c, a.clone()))
        }
        Some((ExprKind::Name(n, _), e)) => {
            let bound = bindings(body, &n.name());
            match bound.as_slice() {
                [(i, v)] if *i < compile.stmt => call_name(v).filter(|c| OPTIMIZERS.contains(&c.as_str())).map(|c| {
                    optimizers.insert(body[*i].span.start, c);
                    in_scope.push(*i);
                    Optimizer::Named(e.clone())
                }),
                _ => None,
            }
        }
        Some(_) => None,
    };
    if optimizer.is_none() {
        let at = args.get("optimizer").map_or(compile.call.span, |e| e.span);
        refusals.push(needs(at, "this optimizer", OPTIMIZER_NEEDED));
    }
    // The loss.
    let loss = match args.get("loss") {
        None => {
            refusals.push(needs(compile.call.span, "`compile` without a loss", LOSS_NEEDED));
            None
        }
        Some(e) => match loss_of(e) {
            Ok(l) => Some(l),
            Err(r) => {
                refusals.push(r);
                None
            }
        },
    };
    // The metrics: none, or 'accuracy'.
    let metrics = match args.get("metrics") {
        None | Some(Expr { kind: ExprKind::None, .. }) => None,
        Some(e @ Expr { kind: ExprKind::List(items), .. }) => {
            for m in items {
                if !matches!(&m.kind, ExprKind::Str(s) if &**s == "accuracy" || &**s == "acc") {
                    refusals.push(needs(
                        m.span,
                        "this metric",
                        "--distribute's fit computes metrics=['accuracy'] only (the metrics it can sum over the replicas)",
                    ));
                }
            }
            Some((*e).clone())
        }
        Some(e) => {
            refusals.push(needs(
                e.span,
                "these metrics",
                "--distribute needs compile(metrics=[...]) as a list: ['accuracy']",
            ));
            None
        }
    };
    match (optimizer, loss, refusals.is_empty()) {
        (Some(optimizer), Some((loss, settings)), true) => Ok(FitCall::Compile { optimizer, loss, settings, metrics }),
        _ => Err(refusals),
    }
}

/// The Keras per-example function and settings of a loss given to `compile`.
fn loss_of(e: &Expr) -> Result<(String, Vec<(String, Expr)>), Refusal> {
    let refuse = |at: &Expr, what: &str, why: &str| Err(needs(at.span, what, why));
    let function = |name: &str| keras_loss(name).filter(|_| !is_class(name)).map(|(k, _)| (k.to_string(), vec![]));
    match &e.kind {
        ExprKind::Str(s) => {
            keras_loss(s).map(|(k, _)| (k.to_string(), vec![])).ok_or_else(|| needs(e.span, "this loss", LOSS_NEEDED))
        }
        ExprKind::Name(n, _) | ExprKind::Attr(_, n) => {
            function(&n.name()).ok_or_else(|| needs(e.span, "this loss", LOSS_NEEDED))
        }
        ExprKind::Call(_, args) => {
            let class = call_name(e).unwrap_or_default();
            let Some((keras, allowed)) = keras_loss(&class).filter(|_| is_class(&class)) else {
                return refuse(e, "this loss", LOSS_NEEDED);
            };
            let mut settings = vec![];
            for a in args {
                match a {
                    Arg::Kw(k, v) if allowed.contains(&&*k.name()) => settings.push((k.name().to_string(), v.clone())),
                    Arg::Kw(k, _) if &*k.name() == "name" => {}
                    Arg::Kw(k, v) if &*k.name() == "reduction" => {
                        if !matches!(&v.kind, ExprKind::Str(s) if &**s == "sum_over_batch_size" || &**s == "mean") {
                            return refuse(
                                v,
                                "this reduction",
                                "--distribute's fit averages the per-example losses over the global batch: give the loss its default reduction",
                            );
                        }
                    }
                    Arg::Kw(_, v) | Arg::Pos(v) | Arg::Star(v) | Arg::StarStar(v) => {
                        return refuse(
                            v,
                            &format!("this argument of `{class}`"),
                            &format!(
                                "--distribute maps `{class}` to Keras's `{keras}`, which takes {} by keyword",
                                if allowed.is_empty() { "no settings".to_string() } else { allowed.join(", ") }
                            ),
                        )
                    }
                }
            }
            Ok((keras.to_string(), settings))
        }
        _ => refuse(e, "this loss", LOSS_NEEDED),
    }
}
