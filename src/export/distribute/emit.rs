//! The statements `--distribute` marks, written in their distributed form (the hooks the
//! statement emitter calls: before and after a top-level statement, and for any statement).

use super::{FitCall, Loss, Optimizer, Plan};
use crate::export::Exporter;
use crate::source::Span;
use crate::syntax::ast::*;

impl Exporter<'_> {
    /// Writes `s` in its distributed form when the plan marks it; false when it is written
    /// as usual.
    pub(in crate::export) fn distributed_stmt(&mut self, s: &Stmt) -> bool {
        let Some(plan) = self.plan.clone() else { return false };
        self.distributed_stmt_with(s, &plan)
    }

    fn distributed_stmt_with(&mut self, s: &Stmt, plan: &Plan) -> bool {
        let at = s.span.start;
        let (dataset, dist_dataset) = match &plan.dataset {
            Some((start, _, dist)) => (Some(*start), dist.as_str()),
            None => (None, ""),
        };
        if Some(at) == dataset {
            let StmtKind::Assign(t, v) = &s.kind else { return false };
            let t = self.target(&t[0]);
            let text = self.expr(v);
            // DGL's Dataset becomes tf.data's (the same methods), which the strategy can split.
            let text = match text.find("Dataset.from_tensor_slices(") {
                Some(i) => format!("tf.data.{}", &text[i..]),
                None => text,
            };
            self.line(&format!("{t} = {text}"));
            self.line(&format!(
                "{dist_dataset} = strategy.experimental_distribute_dataset(dgl_tf.sharded_by_data({t}))"
            ));
            return true;
        }
        if let Some(class) = plan.optimizers.get(&at) {
            let StmtKind::Assign(t, Expr { kind: ExprKind::Call(_, args), .. }) = &s.kind else { return false };
            let t = self.target(&t[0]);
            let args = self.call_args(args);
            self.line(&format!(
                "{t} = tf.keras.optimizers.{class}({args})  # Keras's {class}: it all-reduces the gradients"
            ));
            return true;
        }
        if let Some(form) = plan.loss.get(&at) {
            let head = match &s.kind {
                StmtKind::Assign(t, _) => format!("{} = ", self.target(&t[0])),
                _ => "return ".to_string(),
            };
            let text = match form {
                Loss::Sum(pe, b) => {
                    format!("tf.nn.compute_average_loss({}, global_batch_size={})", self.expr(pe), self.expr(b))
                }
                Loss::Mean(pe) => {
                    let pe_text = self.expr(pe);
                    let pe_text = if matches!(pe.kind, ExprKind::Name(..)) {
                        pe_text
                    } else {
                        self.line(&format!("per_example = {pe_text}"));
                        "per_example".to_string()
                    };
                    format!("tf.nn.compute_average_loss({pe_text}, global_batch_size=dgl_tf.global_rows({pe_text}))")
                }
            };
            self.line(&format!("{head}{text}"));
            return true;
        }
        if Some(at) == plan.step {
            let StmtKind::Def(d) = &s.kind else { return false };
            let name = d.name.name().to_string();
            let params: Vec<String> = d.params.iter().map(|p| self.local_name(&p.name.name())).collect();
            self.def_rename = Some(format!("replica_{name}"));
            self.def(d);
            self.out.push_str("\n\n");
            self.line("@dgl_tf.record_steps  # with DGL_TF_RECORD set, notes every step (for the tests)");
            self.line("@tf.function");
            self.line(&format!("def {name}({}):", params.join(", ")));
            self.indent += 1;
            let args = if params.len() == 1 { format!("({},)", params[0]) } else { format!("({})", params.join(", ")) };
            self.line(&format!("per_replica = strategy.run(replica_{name}, args={args})"));
            self.line("return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)");
            self.indent -= 1;
            return true;
        }
        if plan.loops.contains(&at) {
            let StmtKind::For(target, _, body, orelse) = &s.kind else { return false };
            let t = self.target(target);
            self.line(&format!("for {t} in {dist_dataset}:"));
            self.indented(body);
            self.else_block(orelse);
            return true;
        }
        false
    }

    /// Before a top-level statement: opens the strategy's scope.
    pub(in crate::export) fn distributed_before(&mut self, s: &Stmt) {
        if self.plan.as_ref().is_some_and(|p| p.scope.0 == s.span.start) {
            self.comments_before(s.span.start);
            if !self.out.ends_with("\n\n") {
                self.out.push('\n');
            }
            self.comment_line(
                "# --distribute: the model's and the optimizer's variables are made in the scope (mirrored)",
            );
            self.line("with strategy.scope():");
            self.indent += 1;
        }
    }

    /// After a top-level statement: closes the strategy's scope, building the weights and
    /// the optimizers in it.
    pub(in crate::export) fn distributed_after(&mut self, s: &Stmt) {
        let Some(plan) = self.plan.clone() else { return };
        if plan.scope.1 == s.span.start {
            // (Model.fit builds the weights when it starts, in the scope.)
            if let Some((_, ds, _)) = &plan.dataset {
                for m in &plan.models {
                    let m = self.local_name(m);
                    self.line(&format!("dgl_tf.build_weights({m}, {ds})"));
                }
            }
            for (opt, vars) in &plan.builds {
                let v = self.expr(vars);
                self.line(&format!("dgl_tf.build_optimizer({}, {v})", self.local_name(opt)));
            }
            self.indent -= 1;
        }
    }

    /// A call of `compile`, `fit` or `evaluate` on a model trained by `Model.fit`, in its
    /// distributed form (`f` is the callee, `model.METHOD`); None for any other call.
    pub(in crate::export) fn distributed_call(&mut self, f: &Expr, args: &[Arg], span: Span) -> Option<String> {
        let plan = self.plan.clone()?;
        let call = plan.calls.get(&(span.start, span.end))?;
        let ExprKind::Attr(model, _) = &f.kind else { return None };
        let model = self.expr(model);
        Some(match call {
            FitCall::Fit | FitCall::Evaluate => {
                let name = if matches!(call, FitCall::Fit) { "fit" } else { "evaluate" };
                let args = self.call_args(args);
                let sep = if args.is_empty() { "" } else { ", " };
                format!("dgl_tf.{name}({model}{sep}{args})")
            }
            FitCall::Compile { optimizer, loss, settings, metrics } => {
                let optimizer = match optimizer {
                    Optimizer::Call(class, a) => format!("tf.keras.optimizers.{class}({})", self.call_args(a)),
                    Optimizer::Named(e) => self.expr(e),
                    Optimizer::Default(class) => format!("tf.keras.optimizers.{class}()"),
                };
                let mut loss_text = format!("dgl_tf.per_example_loss({}", crate::export::expr::py_str(loss));
                for (k, v) in settings {
                    let v = self.expr(v);
                    loss_text.push_str(&format!(", {k}={v}"));
                }
                loss_text.push(')');
                let metrics = metrics.as_ref().map_or("None".to_string(), |m| self.expr(m));
                format!("dgl_tf.compile_model({model}, optimizer={optimizer}, loss={loss_text}, metrics={metrics})")
            }
        })
    }
}
