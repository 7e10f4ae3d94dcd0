//! `@custom_gradient` and `grad_pass_through` (LANGUAGE.md §5).
//!
//! The decorated function runs as ordinary code (its body is recorded too);
//! its outputs are renamed and one tape entry maps them back to the inputs
//! and the Variables the body read, with `grad_fn` as the VJP.

use super::tape::{CustomCall, Op};
use super::variable::Variable;
use crate::runtime::error::R;
use crate::runtime::intern::intern;
use crate::runtime::value::Value;
use crate::runtime::Interp;
use crate::syntax::ast::ParamKind;
use crate::tensor::{shape_str, DType, Tensor};
use crate::{bail, err};
use std::rc::Rc;

impl Interp {
    /// The name of a callable, for messages.
    pub fn callable_name(&self, f: &Value) -> Rc<str> {
        match f {
            Value::Func(f) => f.def.name.name(),
            Value::Builtin(b) => b.name.clone(),
            Value::Method(m) => self.callable_name(&m.1),
            Value::Instance(i) => i.class.name.clone(),
            Value::Class(c) => c.name.clone(),
            _ => "<callable>".into(),
        }
    }

    /// The tensors of a result: a tensor, a Variable (read), or a tuple/list of them.
    pub fn flatten_tensors(&mut self, v: &Value, what: &str) -> R<Vec<Tensor>> {
        match v {
            Value::Tensor(_) | Value::Variable(_) => Ok(vec![self.to_tensor(v, None)?]),
            Value::Tuple(_) | Value::List(_) => {
                let mut out = Vec::new();
                for x in self.iterate(v)? {
                    match x {
                        Value::Tensor(_) | Value::Variable(_) => out.push(self.to_tensor(&x, None)?),
                        other => bail!(Type, "{what} must return tensors, got a {}", other.type_name()),
                    }
                }
                Ok(out)
            }
            Value::Int(_) | Value::Float(_) => Ok(vec![self.to_tensor(v, None)?]),
            other => bail!(Type, "{what} must return a tensor or a tuple of tensors, got a {}", other.type_name()),
        }
    }

    /// Rebuilds `v`'s structure around new output tensors.
    pub fn rebuild(v: &Value, outs: &mut impl Iterator<Item = Tensor>) -> Value {
        match v {
            Value::Tuple(t) => Value::tuple(t.iter().map(|x| Self::rebuild(x, outs)).collect()),
            Value::List(l) => Value::list(l.borrow().iter().map(|x| Self::rebuild(x, outs)).collect()),
            _ => Value::Tensor(outs.next().expect("one output per tensor")),
        }
    }

    /// Whether any active tape watches this tensor or Variable.
    fn watched_anywhere(&mut self, v: &Value) -> bool {
        let id = match v {
            Value::Tensor(t) => t.id,
            Value::Variable(var) => var.handle,
            _ => return false,
        };
        self.tapes.iter().any(|t| t.borrow().watched.contains(&id))
    }

    /// Calls `custom_gradient(f)` with these arguments.
    pub fn call_custom_gradient(&mut self, f: &Value, pos: Vec<Value>, kw: Vec<(Rc<str>, Value)>) -> R<Value> {
        let name = self.callable_name(f);
        // LANGUAGE.md §5: a watched tensor passed by keyword would silently get no gradient.
        for (k, v) in &kw {
            if self.watched_anywhere(v) {
                bail!(
                    Type,
                    "{name}() got the watched tensor '{k}' as a keyword argument: custom_gradient inputs are the positional arguments, so pass it positionally"
                );
            }
        }
        self.var_watchers.push(Vec::new());
        let result = self.call_value(f, pos.clone(), kw);
        let read = self.var_watchers.pop().unwrap_or_default();
        let result = result?;
        let (y, grad_fn) = match &result {
            Value::Tuple(t) if t.len() == 2 => (t[0].clone(), t[1].clone()),
            Value::List(l) if l.borrow().len() == 2 => (l.borrow()[0].clone(), l.borrow()[1].clone()),
            other => bail!(
                Type,
                "a @custom_gradient function must return (y, grad_fn), but {name}() returned a {}",
                other.type_name()
            ),
        };
        let variables: Vec<Rc<Variable>> = read
            .into_iter()
            .filter(|v| !pos.iter().any(|p| matches!(p, Value::Variable(x) if Rc::ptr_eq(x, v))))
            .collect();
        if !variables.is_empty() && !accepts_variables(&grad_fn) {
            let mut names = Vec::with_capacity(variables.len());
            for v in &variables {
                names.push(self.repr_of(&Value::Variable(v.clone()))?);
            }
            bail!(
                Type,
                "@custom_gradient grad_fn must accept keyword argument 'variables', since function uses variables: [{}]",
                names.join(", ")
            );
        }
        let mut ids = Vec::with_capacity(pos.len() + variables.len());
        let mut inputs = Vec::with_capacity(pos.len());
        for p in &pos {
            match p {
                Value::Tensor(_) | Value::Variable(_) => {
                    let t = self.to_tensor(p, None)?;
                    ids.push(t.id);
                    inputs.push(Some((t.shape().to_vec(), t.dtype())));
                }
                Value::Int(_) | Value::Float(_) => {
                    ids.push(0);
                    inputs.push(Some((vec![], DType::F32)));
                }
                _ => {
                    ids.push(0);
                    inputs.push(None);
                }
            }
        }
        for v in &variables {
            ids.push(self.read_variable(v).id);
        }
        let outs: Vec<Tensor> = self
            .flatten_tensors(&y, &format!("@custom_gradient function {name}"))?
            .iter()
            .map(|t| t.renamed())
            .collect();
        let refs: Vec<&Tensor> = outs.iter().collect();
        self.record_ids(&ids, &refs, || {
            Op::Custom(Rc::new(CustomCall { name: name.clone(), grad_fn, inputs, variables }))
        });
        Ok(Self::rebuild(&y, &mut outs.into_iter()))
    }

    /// The VJP of a custom-gradient call: runs `grad_fn` and checks what it returns.
    pub fn custom_vjp(&mut self, call: &CustomCall, upstream: Vec<Tensor>) -> R<Vec<Option<Tensor>>> {
        let ups: Vec<Value> = upstream.into_iter().map(Value::Tensor).collect();
        let kw = if call.variables.is_empty() {
            vec![]
        } else {
            vec![("variables".into(), Value::list(call.variables.iter().map(|v| Value::Variable(v.clone())).collect()))]
        };
        let r = self.call_value(&call.grad_fn, ups, kw)?;
        let (input_grads, var_grads) = if call.variables.is_empty() {
            (r, None)
        } else {
            let parts = match &r {
                Value::Tuple(_) | Value::List(_) => self.iterate(&r)?,
                _ => vec![],
            };
            if parts.len() != 2 {
                bail!(Value, "@custom_gradient grad_fn of {} must return (input_gradients, variable_gradients) since the function uses variables", call.name);
            }
            (parts[0].clone(), Some(parts[1].clone()))
        };
        let flat = match &input_grads {
            Value::Tuple(_) | Value::List(_) => self.iterate(&input_grads)?,
            other => vec![other.clone()],
        };
        let n = call.inputs.len();
        if flat.len() != n {
            bail!(
                Value,
                "custom_gradient function expected to return {} gradients, but returned {} instead",
                n,
                flat.len()
            );
        }
        let mut out = Vec::with_capacity(n + call.variables.len());
        for (i, (g, meta)) in flat.iter().zip(&call.inputs).enumerate() {
            out.push(self.check_grad(&call.name, "input", i, g, meta.as_ref())?);
        }
        if let Some(vg) = var_grads {
            let vgs = self.iterate(&vg)?;
            if vgs.len() != call.variables.len() {
                bail!(
                    Value,
                    "Must return gradient for each variable from @custom_gradient grad_fn: {} expected {}, got {}",
                    call.name,
                    call.variables.len(),
                    vgs.len()
                );
            }
            for (i, (g, v)) in vgs.iter().zip(&call.variables).enumerate() {
                let t = v.peek();
                let meta = (t.shape().to_vec(), t.dtype());
                out.push(self.check_grad(&call.name, "variable", i, g, Some(&meta))?);
            }
        }
        Ok(out)
    }

    /// LANGUAGE.md §5: each returned gradient must match its input's shape and
    /// dtype; a Python number is accepted for a scalar input.
    fn check_grad(
        &mut self,
        fname: &str,
        what: &str,
        i: usize,
        g: &Value,
        meta: Option<&(Vec<usize>, DType)>,
    ) -> R<Option<Tensor>> {
        let Some((shape, dtype)) = meta else { return Ok(None) };
        match g {
            Value::None => Ok(None),
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                if !shape.is_empty() {
                    bail!(
                        Value,
                        "custom_gradient function {fname}: gradient for {what} {i} is a Python number but the {what} has shape {}",
                        shape_str(shape)
                    );
                }
                Ok(Some(self.to_tensor(g, Some(*dtype))?))
            }
            Value::Tensor(_) | Value::Variable(_) => {
                let t = self.to_tensor(g, None)?;
                if t.shape() != shape.as_slice() {
                    bail!(
                        Value,
                        "custom_gradient function {fname}: gradient for {what} {i} has shape {} but the {what} has shape {}",
                        shape_str(t.shape()),
                        shape_str(shape)
                    );
                }
                if t.dtype() != *dtype {
                    bail!(
                        Value,
                        "custom_gradient function {fname}: gradient for {what} {i} has dtype {} but the {what} has dtype {}",
                        t.dtype(),
                        dtype
                    );
                }
                Ok(Some(t))
            }
            other => Err(err!(
                Type,
                "custom_gradient function {fname}: gradient for {what} {i} is a {}, not a tensor",
                other.type_name()
            )),
        }
    }

    /// Calls `grad_pass_through(f)`: f's forward values, an identity gradient.
    pub fn call_pass_through(&mut self, f: &Value, pos: Vec<Value>, kw: Vec<(Rc<str>, Value)>) -> R<Value> {
        self.var_watchers.push(Vec::new());
        let result = self.call_value(f, pos.clone(), kw);
        self.var_watchers.pop();
        let result = result?;
        let mut ids = Vec::with_capacity(pos.len());
        for p in &pos {
            ids.push(match p {
                Value::Tensor(t) => t.id,
                Value::Variable(v) => v.handle,
                _ => 0,
            });
        }
        let name = self.callable_name(f);
        let outs: Vec<Tensor> = self
            .flatten_tensors(&result, &format!("grad_pass_through function {name}"))?
            .iter()
            .map(|t| t.renamed())
            .collect();
        let refs: Vec<&Tensor> = outs.iter().collect();
        self.record_ids(&ids, &refs, || Op::PassThrough);
        Ok(Self::rebuild(&result, &mut outs.into_iter()))
    }
}

/// Whether `grad_fn` can take `variables=`: a parameter of that name or `**kwargs`.
fn accepts_variables(grad_fn: &Value) -> bool {
    match grad_fn {
        Value::Func(f) => f.def.params.iter().any(|p| {
            p.kind == ParamKind::VarKw
                || (p.name == intern("variables") && matches!(p.kind, ParamKind::Normal | ParamKind::KwOnly))
        }),
        Value::Method(m) => accepts_variables(&m.1),
        Value::Builtin(_) => true,
        Value::Instance(i) => i.class.lookup(intern("__call__")).is_some_and(|c| accepts_variables(&c)),
        _ => false,
    }
}
