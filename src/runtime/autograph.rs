//! AutoGraph's conversions inside a `tf.function` trace (docs/language.md "Traced
//! functions"): an `if` whose condition is a traced tensor traces both branches and becomes a
//! conditional node; a `for` over a traced tensor or a `while` on one traces its body once and
//! becomes a loop node. The graph they join is runtime/trace.rs's.

use super::trace::{fill, Branches, Call, LoopBody, Node};
use super::value::Value;
use super::Interp;
use crate::error::R;
use crate::tensor::Tensor;
use crate::{bail, err};
use std::rc::Rc;

impl Interp {
    /// An `if` whose condition is a traced tensor, converted as AutoGraph converts it: both
    /// branches are traced (their Python side effects happen, in order), and each local
    /// variable the branches leave different becomes the output of a conditional node that
    /// picks per call. Returns the branches' flow.
    pub(crate) fn autograph_if(
        &mut self,
        cond: &Value,
        then_b: &[crate::syntax::ast::Stmt],
        else_b: Option<&[crate::syntax::ast::Stmt]>,
        env: &mut super::value::Frame,
        span: crate::source::Span,
    ) -> R<super::exec::Flow> {
        use super::exec::Flow;
        let pred_t = self.trace.as_ref().expect("tracing").tmpl(cond, 0);
        let take = {
            let t = self.to_tensor(cond, None)?;
            if t.len() != 1 {
                bail!(
                    Value,
                    "the condition of an `if` inside a traced tf.function must be a scalar tensor, not shape {}",
                    crate::tensor::shape_str(t.shape())
                );
            }
            t.data.first_f64() != 0.0
        };
        let before = snapshot(env);
        self.trace.as_mut().expect("tracing").lists.push(Vec::new());
        let then_flow = self.exec_block(then_b, env);
        let then_nodes = self.trace.as_mut().expect("tracing").lists.pop().expect("the branch");
        let then_flow = then_flow?;
        let after_then = snapshot(env);
        restore(env, &before);
        self.trace.as_mut().expect("tracing").lists.push(Vec::new());
        let else_flow = match else_b {
            Some(b) => self.exec_block(b, env),
            None => Ok(Flow::Normal),
        };
        let else_nodes = self.trace.as_mut().expect("tracing").lists.pop().expect("the branch");
        let else_flow = else_flow?;
        let after_else = snapshot(env);
        // `return` in both branches: the value returned is merged as a local would be.
        let mut after_then = after_then;
        let mut after_else = after_else;
        let returns = match (&then_flow, &else_flow) {
            (Flow::Return(a), Flow::Return(b)) => {
                after_then.push(Some(a.clone()));
                after_else.push(Some(b.clone()));
                true
            }
            _ => false,
        };
        if !returns && (!matches!(then_flow, Flow::Normal) || !matches!(else_flow, Flow::Normal)) {
            return Err(err!(
                Syntax,
                "DGL's tf.function cannot convert a `return`, `break` or `continue` inside an `if` on a tensor: assign the \
                 result to a variable in both branches and return it after the `if` (or use tf.cond)"
            )
            .at(self.run.src, span));
        }
        let mut then_outs = Vec::new();
        let mut else_outs = Vec::new();
        let mut merged = Vec::new();
        let n = after_then.len();
        for i in 0..n {
            let (a, b) = (&after_then[i], &after_else[i]);
            let same = match (a, b) {
                (None, None) => true,
                (Some(x), Some(y)) => same_value(x, y),
                _ => false,
            };
            if same {
                continue;
            }
            let (Some(x), Some(y)) = (a, b) else {
                return Err(err!(
                    Value,
                    "a variable is set in one branch of an `if` on a tensor and not the other: inside a traced tf.function \
                     both branches must give it a value (AutoGraph's rule)"
                )
                .at(self.run.src, span));
            };
            let tensorish = |v: &Value| {
                matches!(v, Value::Tensor(_) | Value::Variable(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_))
            };
            if !tensorish(x) || !tensorish(y) {
                return Err(err!(
                    Type,
                    "the branches of an `if` on a tensor leave a variable as different Python values ({} and {}): inside a \
                     traced tf.function it must be a tensor in both",
                    x.type_name(),
                    y.type_name()
                )
                .at(self.run.src, span));
            }
            // A Python number beside a tensor becomes a tensor of the tensor's dtype.
            let (x, y) = match (x, y) {
                (Value::Tensor(_) | Value::Variable(_), Value::Tensor(_) | Value::Variable(_)) => {
                    (x.clone(), y.clone())
                }
                (Value::Tensor(_) | Value::Variable(_), _) => {
                    let d = self.to_tensor(x, None)?.dtype();
                    (x.clone(), Value::Tensor(self.to_tensor(y, Some(d))?))
                }
                (_, Value::Tensor(_) | Value::Variable(_)) => {
                    let d = self.to_tensor(y, None)?.dtype();
                    (Value::Tensor(self.to_tensor(x, Some(d))?), y.clone())
                }
                _ => (Value::Tensor(self.to_tensor(x, None)?), Value::Tensor(self.to_tensor(y, None)?)),
            };
            let tr = self.trace.as_ref().expect("tracing");
            then_outs.push(tr.tmpl(&x, 0));
            else_outs.push(tr.tmpl(&y, 0));
            merged.push((i, if take { x } else { y }));
        }
        // The locals as the branch taken at tracing left them, each merged one a new tensor.
        let n_frame = env.locals.len() + env.cells.len();
        restore(env, if take { &after_then[..n_frame] } else { &after_else[..n_frame] });
        let mut outs = Vec::new();
        let mut returned = None;
        for (i, v) in merged {
            let t = self.to_tensor(&v, None)?.renamed();
            let tr = self.trace.as_mut().expect("tracing");
            let s = tr.bind_tensor(&t, "cond");
            outs.push((vec![], s));
            if i == n_frame {
                returned = Some(Value::Tensor(t));
            } else {
                set_local(env, i, Value::Tensor(t));
            }
        }
        if returns && returned.is_none() {
            // Both branches return the same value.
            returned = after_then[n_frame].clone();
        }
        let node = Node {
            call: Call::Cond(Rc::new(Branches { then_nodes, then_outs, else_nodes, else_outs })),
            this: None,
            pos: vec![pred_t],
            kw: vec![],
            outs,
            effect: true,
            deferred: false,
        };
        self.trace.as_mut().expect("tracing").push(node);
        Ok(match returned {
            Some(v) => Flow::Return(v),
            None => Flow::Normal,
        })
    }

    /// Runs a converted loop's passes and returns the loop variables' last values.
    pub(super) fn run_loop(&mut self, lp: &LoopBody, slots: &mut Vec<Option<Value>>, dry: bool) -> R<Vec<Value>> {
        let mut cur: Vec<Value> = lp.vars_init.iter().map(|t| fill(t, slots)).collect::<R<_>>()?;
        let over = match &lp.over {
            Some((t, s)) => {
                let v = fill(t, slots)?;
                let n = self.to_tensor(&v, None)?.shape().first().copied().unwrap_or(0);
                Some((v, *s, n))
            }
            None => None,
        };
        let mut k = 0usize;
        loop {
            self.check_interrupt()?;
            for (s, v) in lp.vars_in.iter().zip(&cur) {
                slots[*s] = Some(v.clone());
            }
            match &over {
                Some((v, s, n)) => {
                    if k >= *n {
                        break;
                    }
                    slots[*s] = Some(self.get_item(v, &Value::Int(k as i64))?);
                }
                None => {
                    self.run_nodes(&lp.cond_nodes, slots, dry)?;
                    let c = fill(lp.cond.as_ref().expect("a while loop's condition"), slots)?;
                    if !self.truthy(&c)? {
                        break;
                    }
                }
            }
            self.run_nodes(&lp.body, slots, dry)?;
            cur = lp.vars_out.iter().map(|t| fill(t, slots)).collect::<R<_>>()?;
            k += 1;
        }
        Ok(cur)
    }

    /// A `for` over a traced tensor or a `while` on one, converted as AutoGraph converts it: the
    /// body is traced once (its Python side effects happen once), with each local tensor a loop
    /// variable, and a loop node runs the passes on every call.
    pub(crate) fn autograph_loop(
        &mut self,
        over: Option<(&crate::syntax::ast::Expr, &Value)>,
        cond: Option<&crate::syntax::ast::Expr>,
        body: &[crate::syntax::ast::Stmt],
        env: &mut super::value::Frame,
        span: crate::source::Span,
    ) -> R<super::exec::Flow> {
        use super::exec::Flow;
        let before = snapshot(env);
        // Every local tensor becomes a loop variable, a placeholder of its value at entry.
        let mut vars = Vec::new();
        for (i, v) in before.iter().enumerate() {
            if let Some(Value::Tensor(t)) = v {
                let p = t.renamed();
                let tr = self.trace.as_mut().expect("tracing");
                let init = tr.tmpl(&Value::Tensor(t.clone()), 0);
                let s = tr.bind_tensor(&p, "while/Placeholder");
                set_local(env, i, Value::Tensor(p.clone()));
                vars.push((i, s, init, p));
            }
        }
        let mut over_t = None;
        let mut cond_nodes = Vec::new();
        let mut cond_t = None;
        self.trace.as_mut().expect("tracing").lists.push(Vec::new());
        let r: R<()> = (|| {
            match (over, cond) {
                (Some((target, it)), _) => {
                    let t = self.to_tensor(it, None)?;
                    let Some(&n0) = t.shape().first() else {
                        bail!(Type, "iteration over a 0-d tensor is not allowed")
                    };
                    let elem = if n0 > 0 {
                        self.trace.as_mut().expect("tracing").depth += 1;
                        let e = self.get_item(it, &Value::Int(0));
                        self.trace.as_mut().expect("tracing").depth -= 1;
                        self.to_tensor(&e?, None)?.renamed()
                    } else {
                        Tensor::zeros(t.dtype(), &t.shape()[1..])
                    };
                    let tr = self.trace.as_mut().expect("tracing");
                    let s = tr.bind_tensor(&elem, "while/TensorArrayV2Read");
                    over_t = Some((tr.tmpl(it, 0), s));
                    self.assign(target, Value::Tensor(elem), env)?;
                }
                (None, Some(c)) => {
                    let v = self.eval(c, env)?;
                    cond_t = Some(self.trace.as_ref().expect("tracing").tmpl(&v, 0));
                    cond_nodes =
                        std::mem::take(self.trace.as_mut().expect("tracing").lists.last_mut().expect("a list"));
                }
                _ => {}
            }
            match self.exec_block(body, env)? {
                Flow::Normal | Flow::Continue => Ok(()),
                _ => Err(err!(
                    Syntax,
                    "DGL's tf.function cannot convert a `break` or `return` inside a loop over a tensor: keep the loop \
                     going with a condition (tf.while_loop), or loop over a Python range"
                )),
            }
        })();
        let body_nodes = self.trace.as_mut().expect("tracing").lists.pop().expect("the body");
        r.map_err(|e| e.at(self.run.src, span))?;
        let after = snapshot(env);
        // Python values the body changes cannot be carried from pass to pass.
        for (i, (b, a)) in before.iter().zip(&after).enumerate() {
            if vars.iter().any(|(j, ..)| *j == i) {
                continue;
            }
            let changed = match (b, a) {
                (Some(x), Some(y)) => !same_value(x, y),
                (None, _) => false,
                _ => true,
            };
            if changed && !matches!(a, Some(Value::Tensor(_))) {
                if let Some(x) = b {
                    if !matches!(x, Value::List(_) | Value::Dict(_) | Value::Instance(_) | Value::Func(_)) {
                        return Err(err!(
                            Type,
                            "a loop over a tensor inside a traced tf.function changes a Python {} from pass to pass: \
                             make it a tensor before the loop (tf.constant) so each pass can carry it",
                            x.type_name()
                        )
                        .at(self.run.src, span));
                    }
                }
            }
        }
        let tr = self.trace.as_ref().expect("tracing");
        let mut vars_out = Vec::new();
        for (i, _, _, p) in &vars {
            let v = after[*i].clone().unwrap_or(Value::Tensor(p.clone()));
            vars_out.push(tr.tmpl(&v, 0));
        }
        let lp = LoopBody {
            over: over_t,
            cond_nodes,
            cond: cond_t,
            body: body_nodes,
            vars_in: vars.iter().map(|v| v.1).collect(),
            vars_init: vars.iter().map(|v| v.2.clone()).collect(),
            vars_out,
        };
        // The values after the loop, for the rest of the trace: the loop run now on the trace's
        // values (updates and printing left for the calls).
        let mut slots: Vec<Option<Value>> = vec![None; self.trace.as_ref().expect("tracing").n_slots];
        self.trace_values(&mut slots);
        self.trace.as_mut().expect("tracing").depth += 1;
        let results = self.run_loop(&lp, &mut slots, true);
        self.trace.as_mut().expect("tracing").depth -= 1;
        let results = results.map_err(|e| e.at(self.run.src, span))?;
        let mut outs = Vec::new();
        for ((i, ..), v) in vars.iter().zip(results) {
            let t = self.to_tensor(&v, None)?.renamed();
            let tr = self.trace.as_mut().expect("tracing");
            let s = tr.bind_tensor(&t, "while");
            outs.push((vec![], s));
            set_local(env, *i, Value::Tensor(t));
        }
        let node = Node {
            call: Call::Loop(Rc::new(lp)),
            this: None,
            pos: vec![],
            kw: vec![],
            outs,
            effect: true,
            deferred: false,
        };
        self.trace.as_mut().expect("tracing").push(node);
        Ok(Flow::Normal)
    }

    /// The trace's own values of its slots so far (what the tracing run computed).
    fn trace_values(&self, slots: &mut [Option<Value>]) {
        let tr = self.trace.as_ref().expect("tracing");
        for (v, s) in &tr.values {
            if let Some(x) = slots.get_mut(*s) {
                *x = Some(v.clone());
            }
        }
    }
}

/// The error for a `while`/`for` on a traced tensor, which DGL does not convert.
pub fn loop_error() -> crate::error::Exc {
    err!(
        Type,
        "a loop with an `else` block over a tensor inside a traced tf.function: DGL converts a `for` over a tensor \
         and a `while` on one (AutoGraph's loops) but not their `else` blocks; move the `else` block after the loop"
    )
}

/// The error for the truth of a traced tensor read by Python code.
pub fn truth_error() -> crate::error::Exc {
    err!(
        Type,
        "using a tensor's value as a Python bool inside a traced tf.function: its value is not known at tracing (DGL \
         converts an `if` statement on it, as AutoGraph does, but not `and`/`or`/`not`, a conditional expression, \
         `bool()` or `assert`); use tf.cond, tf.logical_and/tf.logical_or, or tf.config.run_functions_eagerly(True)"
    )
}

pub(super) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Tensor(x), Value::Tensor(y)) => x.id == y.id,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::None, Value::None) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        _ => a.is(b),
    }
}

type Snapshot = Vec<Option<Value>>;

/// The frame's locals, then its cells' values.
fn snapshot(env: &super::value::Frame) -> Snapshot {
    let mut s = env.locals.clone();
    s.extend(env.cells.iter().map(|c| c.borrow().clone()));
    s
}

fn restore(env: &mut super::value::Frame, s: &[Option<Value>]) {
    let n = env.locals.len();
    env.locals.clone_from_slice(&s[..n]);
    for (c, v) in env.cells.iter().zip(&s[n..]) {
        *c.borrow_mut() = v.clone();
    }
}

fn set_local(env: &mut super::value::Frame, i: usize, v: Value) {
    let n = env.locals.len();
    if i < n {
        env.locals[i] = Some(v);
    } else {
        *env.cells[i - n].borrow_mut() = Some(v);
    }
}
