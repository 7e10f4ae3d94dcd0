//! `dgl export --tf --distribute mirrored|multiworker`: finds the custom training loop of a
//! program (a batched Dataset, a step decorated `@function` that calls `apply_gradients`,
//! tests/export/distributed/RECIPE.md §1) and marks the statements the emitter writes in
//! their distributed form: the strategy's scope around the state, the step run per replica
//! and reduced, the loss scaled by the global batch, the loop over the distributed dataset.
//! A program of another shape is refused with a span saying what structure is needed.

use super::inspect::{own_exprs, walk_expr, walk_stmts};
use crate::source::Span;
use crate::syntax::ast::*;
use std::collections::{HashMap, HashSet};

mod emit;
mod fit;

use fit::{FitCall, Optimizer};

/// The optimizers of DGL's `optim` that become Keras's (the same update rules): DGL's own
/// would update mirrored variables per replica without all-reducing the gradients.
const OPTIMIZERS: &[&str] = &["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"];

/// Builtins and layers that draw random numbers while training.
const RANDOM: &[&str] = &[
    "random_normal",
    "random_uniform",
    "truncated_normal",
    "random_shuffle",
    "categorical",
    "dropout",
    "shuffle",
    "Dropout",
    "GaussianNoise",
    "GaussianDropout",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "AlphaDropout",
];

/// How the step's loss is computed from the per-example losses.
pub enum Loss {
    /// `reduce_sum(PE) / B`.
    Sum(Expr, Expr),
    /// `reduce_mean(PE)`.
    Mean(Expr),
}

/// What the emitter writes differently, keyed by statement start offsets.
pub struct Plan {
    pub kind: String,
    /// The statement binding the dataset, its name, and the distributed dataset's name
    /// (the custom loop; None for `Model.fit`).
    pub dataset: Option<(u32, String, String)>,
    /// The first and last top-level statements inside `with strategy.scope():`.
    pub scope: (u32, u32),
    /// Statements making an optimizer: start → the Keras class.
    pub optimizers: HashMap<u32, String>,
    /// Names of the models (made by calls) the step uses, built in the scope.
    pub models: Vec<String>,
    /// (optimizer, the variables it updates) for each `apply_gradients`.
    pub builds: Vec<(String, Expr)>,
    /// The step's `def` (the custom loop; None for `Model.fit`).
    pub step: Option<u32>,
    /// The statement that computes the loss (an assignment or the `return`).
    pub loss: HashMap<u32, Loss>,
    /// The `for` statements over the dataset that call the step.
    pub loops: HashSet<u32>,
    /// `Model.fit`: the calls of compile, fit and evaluate, keyed by their spans (start, end).
    pub calls: HashMap<(u32, u32), FitCall>,
}

fn call_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Call(f, _) => match &f.kind {
            ExprKind::Name(n, _) => Some(n.name().to_string()),
            ExprKind::Attr(_, n) => Some(n.name().to_string()),
            _ => None,
        },
        _ => None,
    }
}

fn name_of(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n, _) => Some(n.name().to_string()),
        _ => None,
    }
}

fn is_function_decorator(d: &Expr) -> bool {
    let d = match &d.kind {
        ExprKind::Call(f, _) => f,
        _ => d,
    };
    match &d.kind {
        ExprKind::Name(n, _) => &*n.name() == "function",
        ExprKind::Attr(_, n) => &*n.name() == "function",
        _ => false,
    }
}

/// Every expression of `body` (nested blocks included), with `f`.
fn each_expr<'e>(body: &'e [Stmt], f: &mut impl FnMut(&'e Expr)) {
    walk_stmts(body, &mut |s| {
        let (reads, binds) = own_exprs(s);
        for e in reads.into_iter().chain(binds) {
            walk_expr(e, f);
        }
    });
}

/// A problem found while looking for the structure.
type Refusal = (Span, String, String);

fn needs(span: Span, what: &str, nearest: &str) -> Refusal {
    (span, what.to_string(), nearest.to_string())
}

const STEP_NEEDED: &str = "--distribute needs a training step: a function decorated @function that computes a loss under GradientTape and calls apply_gradients";
const DATASET_NEEDED: &str =
    "--distribute needs the step to be called on the elements of a batched Dataset (for x, y in ds: step(x, y))";
const LOSS_NEEDED: &str =
    "--distribute needs the loss as reduce_sum(per_example) / GLOBAL_BATCH or reduce_mean(per_example)";

/// The structure of `body` for `--distribute KIND`, or what is missing.
pub fn plan(body: &[Stmt], src: &str, kind: &str) -> Result<Plan, Vec<Refusal>> {
    let whole = Span { start: first_span(body).start, end: src.trim_end().len() as u32 };
    // 1. The step.
    let step = body.iter().find_map(|s| match &s.kind {
        StmtKind::Def(d) if d.decorators.iter().any(is_function_decorator) && trains(&d.body) => Some((s, d)),
        _ => None,
    });
    let Some((step_stmt, step)) = step else {
        if fit_call(body).is_some() {
            return fit::plan(body, kind);
        }
        let at = body.iter().find(|s| matches!(s.kind, StmtKind::For(..) | StmtKind::While(..))).map(|s| s.span);
        return Err(vec![needs(at.unwrap_or(whole), "this program's structure", STEP_NEEDED)]);
    };
    let step_name = step.name.name().to_string();
    let mut refusals = vec![];

    // 2. The loops that call it, over a batched dataset.
    let mut loops = HashSet::new();
    let mut ds_name: Option<String> = None;
    let mut called = false;
    let mut first_loop: Option<usize> = None;
    for (i, s) in body.iter().enumerate() {
        if matches!(s.kind, StmtKind::Def(_) | StmtKind::Class(_)) {
            continue;
        }
        find_calls(s, &step_name, None, &mut |call_span, innermost| {
            called = true;
            first_loop.get_or_insert(i);
            match innermost.and_then(|l| match &l.kind {
                StmtKind::For(_, it, _, _) => name_of(it).map(|n| (l, n)),
                _ => None,
            }) {
                Some((l, n)) if ds_name.as_ref().is_none_or(|d| *d == n) => {
                    loops.insert(l.span.start);
                    ds_name = Some(n);
                }
                _ => refusals.push(needs(call_span, &format!("the call of the step `{step_name}`"), DATASET_NEEDED)),
            }
        });
    }
    if !called {
        return Err(vec![needs(step_stmt.span, &format!("the step `{step_name}`"), DATASET_NEEDED)]);
    }
    let first_loop = first_loop.unwrap_or(body.len());
    let Some(ds_name) = ds_name else { return Err(refusals) };
    // The dataset: bound once, at top level, to from_tensor_slices(...).batch(B).
    let bindings: Vec<(usize, &Stmt, &Expr)> = body
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match &s.kind {
            StmtKind::Assign(t, v) if t.len() == 1 && name_of(&t[0]).as_deref() == Some(&ds_name) => Some((i, s, v)),
            _ => None,
        })
        .collect();
    let ds_index = match bindings.as_slice() {
        [(i, s, v)] => {
            if let Err(r) = check_chain(v) {
                refusals.push(r);
            }
            let _ = s;
            *i
        }
        _ => {
            let at = body.iter().find(|s| loops.contains(&s.span.start)).map(|s| s.span).unwrap_or(whole);
            refusals.push(needs(at, &format!("the dataset `{ds_name}`"), DATASET_NEEDED));
            return Err(refusals);
        }
    };

    // 3. The state: what the step reads that top-level statements before the loop make.
    let mut reads = HashSet::new();
    each_expr(&step.body, &mut |e| {
        if let ExprKind::Name(n, _) = &e.kind {
            reads.insert(n.name().to_string());
        }
    });
    let mut optimizers = HashMap::new();
    let mut models = vec![];
    let mut state_names = HashSet::new();
    let mut in_scope: Vec<usize> = vec![];
    for (i, s) in body.iter().enumerate().take(first_loop) {
        if let StmtKind::Assign(t, v) = &s.kind {
            let Some(n) = (t.len() == 1).then(|| name_of(&t[0])).flatten() else { continue };
            if !reads.contains(&n) || n == step_name {
                continue;
            }
            let Some(callee) = call_name(v) else { continue };
            state_names.insert(n.clone());
            in_scope.push(i);
            if OPTIMIZERS.contains(&callee.as_str()) {
                optimizers.insert(s.span.start, callee);
            } else if callee != "Variable" && !models.contains(&n) {
                models.push(n);
            }
        }
    }
    for (i, s) in body.iter().enumerate().take(first_loop) {
        if let StmtKind::Expr(Expr { kind: ExprKind::Call(f, _), .. }) = &s.kind {
            if let ExprKind::Attr(obj, _) = &f.kind {
                if name_of(obj).is_some_and(|n| state_names.contains(&n)) {
                    in_scope.push(i);
                }
            }
        }
    }
    if in_scope.is_empty() {
        refusals.push(needs(
            step_stmt.span,
            &format!("the step `{step_name}`"),
            "--distribute needs the model and optimizer the step uses made by top-level statements before the training loop",
        ));
        return Err(refusals);
    }
    let first = *in_scope.iter().min().unwrap();
    let last = (*in_scope.iter().max().unwrap()).max(ds_index);

    // Inside the step: the optimizers' variables, no state made, no random draws.
    let mut builds = vec![];
    let locals: HashMap<String, &Expr> = {
        let mut m = HashMap::new();
        walk_stmts(&step.body, &mut |s| {
            if let StmtKind::Assign(t, v) = &s.kind {
                if let [Expr { kind: ExprKind::Name(n, _), .. }] = t.as_slice() {
                    m.insert(n.name().to_string(), v);
                }
            }
        });
        m
    };
    each_expr(&step.body, &mut |e| {
        let ExprKind::Call(f, args) = &e.kind else { return };
        match &f.kind {
            ExprKind::Attr(obj, m) if &*m.name() == "apply_gradients" => {
                let opt = name_of(obj).unwrap_or_default();
                let made =
                    body.iter().take(first_loop).any(|s| optimizers.contains_key(&s.span.start) && binds(s, &opt));
                if !made {
                    refusals.push(needs(
                        e.span,
                        &format!("`{opt}.apply_gradients`"),
                        "--distribute needs the optimizer made before the training loop by optim.SGD, Adam, AdamW, RMSprop or Adagrad",
                    ));
                    return;
                }
                let vars = match args.first() {
                    Some(Arg::Pos(Expr { kind: ExprKind::Call(z, zargs), .. }))
                        if name_of(z).as_deref() == Some("zip") && zargs.len() == 2 =>
                    {
                        match &zargs[1] {
                            Arg::Pos(v) => Some(v),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                let vars = vars.map(|v| name_of(v).and_then(|n| locals.get(&n).copied()).unwrap_or(v));
                match vars {
                    Some(v) => builds.push((opt, v.clone())),
                    None => refusals.push(needs(
                        e.span,
                        &format!("`{opt}.apply_gradients`"),
                        "--distribute needs apply_gradients(zip(grads, variables))",
                    )),
                }
            }
            _ => {
                let callee = call_name(e).unwrap_or_default();
                if callee == "Variable" || OPTIMIZERS.contains(&callee.as_str()) {
                    refusals.push(needs(
                        e.span,
                        &format!("`{callee}` in the step"),
                        "it is created inside the step; create it before the training loop",
                    ));
                }
            }
        }
    });
    refuse_random(&step.body, "in the training step", &mut refusals);
    for s in body.iter().skip(first_loop) {
        if let StmtKind::For(_, _, b, _) | StmtKind::While(_, b, _) = &s.kind {
            refuse_random(b, "in the training loop", &mut refusals);
        }
    }
    for &i in &in_scope {
        refuse_random(std::slice::from_ref(&body[i]), "in the model", &mut refusals);
    }

    // 4. The loss.
    let mut loss = HashMap::new();
    match step.body.iter().rev().find(|s| matches!(s.kind, StmtKind::Return(_))) {
        Some(ret @ Stmt { kind: StmtKind::Return(Some(value)), .. }) => {
            let (at, expr) = match name_of(value) {
                Some(n) => {
                    let mut found = None;
                    walk_stmts(&step.body, &mut |s| {
                        if let StmtKind::Assign(t, v) = &s.kind {
                            if t.len() == 1 && name_of(&t[0]).as_deref() == Some(&n) {
                                found = Some((s.span.start, v));
                            }
                        }
                    });
                    found.unzip()
                }
                None => (Some(ret.span.start), Some(value)),
            };
            match (at, expr.and_then(loss_form)) {
                (Some(at), Some(form)) => {
                    loss.insert(at, form);
                }
                _ => refusals.push(needs(ret.span, "the step's loss", LOSS_NEEDED)),
            }
        }
        _ => refusals.push(needs(step_stmt.span, "the step's loss", LOSS_NEEDED)),
    }
    if !refusals.is_empty() {
        return Err(refusals);
    }
    Ok(Plan {
        kind: kind.to_string(),
        dataset: Some((body[ds_index].span.start, ds_name.clone(), format!("dist_{ds_name}"))),
        scope: (body[first].span.start, body[last].span.start),
        optimizers,
        models,
        builds,
        step: Some(step_stmt.span.start),
        loss,
        loops,
        calls: HashMap::new(),
    })
}

/// Refuses every call in `stmts` that draws random numbers (`place` says where it stands).
fn refuse_random(stmts: &[Stmt], place: &str, refusals: &mut Vec<Refusal>) {
    each_expr(stmts, &mut |e| {
        if let Some(c) = call_name(e) {
            if RANDOM.contains(&c.as_str()) {
                refusals.push(needs(
                    e.span,
                    &format!("`{c}` {place}"),
                    "--distribute cannot replay DGL's random draws on every replica: draw before the training loop, or train without them",
                ));
            }
        }
    });
}

/// The first `X.fit(...)` call at top level (outside functions and classes).
fn fit_call(body: &[Stmt]) -> Option<Span> {
    let mut found = None;
    for s in body.iter().filter(|s| !matches!(s.kind, StmtKind::Def(_) | StmtKind::Class(_))) {
        each_expr(std::slice::from_ref(s), &mut |e| {
            if let ExprKind::Call(f, _) = &e.kind {
                if matches!(&f.kind, ExprKind::Attr(_, m) if &*m.name() == "fit") && found.is_none() {
                    found = Some(e.span);
                }
            }
        });
    }
    found
}

fn first_span(body: &[Stmt]) -> Span {
    body.first().map(|s| s.span).unwrap_or_default()
}

fn binds(s: &Stmt, n: &str) -> bool {
    matches!(&s.kind, StmtKind::Assign(t, _) if t.len() == 1 && name_of(&t[0]).as_deref() == Some(n))
}

/// Whether a body computes under a GradientTape and calls apply_gradients.
fn trains(body: &[Stmt]) -> bool {
    let mut tape = false;
    let mut apply = false;
    walk_stmts(body, &mut |s| {
        if let StmtKind::With(items, _) = &s.kind {
            tape |= items.iter().any(|(c, _)| call_name(c).as_deref() == Some("GradientTape"));
        }
    });
    each_expr(body, &mut |e| {
        if let ExprKind::Call(f, _) = &e.kind {
            apply |= matches!(&f.kind, ExprKind::Attr(_, m) if &*m.name() == "apply_gradients");
        }
    });
    tape && apply
}

/// Calls `found(span of the call, innermost enclosing loop)` for each call of `step` in `s`.
fn find_calls<'a>(s: &'a Stmt, step: &str, lp: Option<&'a Stmt>, found: &mut impl FnMut(Span, Option<&'a Stmt>)) {
    let (reads, _) = own_exprs(s);
    for e in reads {
        walk_expr(e, &mut |x| {
            if let ExprKind::Call(f, _) = &x.kind {
                if name_of(f).as_deref() == Some(step) {
                    found(x.span, lp);
                }
            }
        });
    }
    let inner = if matches!(s.kind, StmtKind::For(..) | StmtKind::While(..)) { Some(s) } else { lp };
    let blocks: Vec<&Block> = match &s.kind {
        StmtKind::If(arms, orelse) => arms.iter().map(|(_, b)| b).chain(orelse.iter()).collect(),
        StmtKind::While(_, b, orelse) | StmtKind::For(_, _, b, orelse) => {
            std::iter::once(b).chain(orelse.iter()).collect()
        }
        StmtKind::With(_, b) => vec![b],
        StmtKind::Try { body, handlers, orelse, finally } => std::iter::once(body)
            .chain(handlers.iter().map(|h| &h.body))
            .chain(orelse.iter())
            .chain(finally.iter())
            .collect(),
        _ => vec![],
    };
    for b in blocks {
        for x in b {
            find_calls(x, step, inner, found);
        }
    }
}

/// Checks `Dataset.from_tensor_slices(...).batch(B)` (`.prefetch`, `.cache` allowed).
fn check_chain(v: &Expr) -> Result<(), Refusal> {
    let mut e = v;
    let mut batched = false;
    while let ExprKind::Call(f, _) = &e.kind {
        let ExprKind::Attr(obj, m) = &f.kind else { break };
        match &*m.name() {
            "from_tensor_slices" => {
                let ok = match &obj.kind {
                    ExprKind::Name(n, _) => &*n.name() == "Dataset",
                    ExprKind::Attr(_, n) => &*n.name() == "Dataset",
                    _ => false,
                };
                if ok && batched {
                    return Ok(());
                }
                break;
            }
            "batch" => batched = true,
            "prefetch" | "cache" => {}
            "shuffle" => {
                return Err(needs(
                    e.span,
                    "a shuffled Dataset",
                    "--distribute cannot replay DGL's shuffle on every replica: shuffle the tensors before making the Dataset, or train without shuffling",
                ))
            }
            other => {
                return Err(needs(
                    e.span,
                    &format!("`Dataset.{other}`"),
                    "--distribute supports a Dataset made as Dataset.from_tensor_slices(...).batch(B) (then .prefetch or .cache)",
                ))
            }
        }
        e = obj;
    }
    Err(needs(v.span, "the training data", DATASET_NEEDED))
}

fn loss_form(e: &Expr) -> Option<Loss> {
    let single = |c: &Expr, name: &str| -> Option<Expr> {
        let ExprKind::Call(_, args) = &c.kind else { return None };
        match (call_name(c).as_deref() == Some(name), args.as_slice()) {
            (true, [Arg::Pos(pe)]) => Some(pe.clone()),
            _ => None,
        }
    };
    match &e.kind {
        ExprKind::Binary(BinOp::Div, a, b) => single(a, "reduce_sum").map(|pe| Loss::Sum(pe, (**b).clone())),
        ExprKind::Call(..) => single(e, "reduce_mean").map(Loss::Mean),
        _ => None,
    }
}
