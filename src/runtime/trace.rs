//! `tf.function` tracing (docs/language.md "Traced functions"): a traced call runs the
//! function's Python code once, recording every tensor operation it makes — native
//! operations, operators, indexing, tape and Variable methods — as a [`Graph`] whose inputs
//! are the call's tensors and Variables; later calls with the same signature replay the
//! graph, so Python side effects (`print`, list appends) happen at tracing only, as in TF,
//! while `tf.print`, Variable updates and random draws happen on every call.
//!
//! While tracing:
//! - an operation is recorded when one of its operands is a traced tensor or a Variable,
//!   or when it is stateful (`tf.print`, random draws, a `GradientTape` and its methods);
//!   anything else (Python values, tensors made from constants) is captured as a constant;
//! - a recorded operation runs at once for its value (shapes are static, as TF's are for a
//!   signature), except a Variable update or `tf.print`, which wait for the calls — the
//!   first call replays the graph after tracing, as TF runs its graph after tracing;
//! - the tapes of the caller are set aside (the trace's own operations are not the call's);
//! - a Python `if` on a traced tensor is converted as AutoGraph converts it (both branches
//!   traced, the choice made per call, [`Interp::autograph_if`]), and so is a `for` over one or
//!   a `while` on one ([`Interp::autograph_loop`]); what they cannot convert (a `return` in one
//!   branch only, a `break` in a loop) raises an error naming the line and the fix, never a
//!   branch or a count of passes baked into the graph.

use super::native::Native;
use super::value::{Builtin, BuiltinKind, Dialect, Value};
use super::Interp;
use crate::error::R;
use crate::intern::Sym;
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use crate::tensor::{Tensor, TensorId};
use crate::{bail, err};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::rc::Rc;

/// A recorded value: a constant captured at tracing, a slot filled as the graph runs, or a
/// container of them.
#[derive(Debug, Clone)]
pub enum Tmpl {
    Const(Value),
    Slot(usize),
    List(Vec<Tmpl>),
    Tuple(Vec<Tmpl>),
    Dict(Vec<(super::value::HashKey, Value, Tmpl)>),
}

/// What a recorded operation does.
#[derive(Debug, Clone)]
pub enum Call {
    /// A native function, a `custom_gradient`/`recompute_grad` function or another builtin.
    Value(Value),
    /// A native method, with the receiver as the node's `this`.
    Method(&'static Native, Rc<str>),
    Binary(BinOp),
    Inplace(BinOp),
    Unary(UnaryOp),
    Compare(CmpOp),
    /// `obj[index]`: operands `[obj, index]`.
    Item,
    /// `obj.name` (a getter making a tensor: `x.T`).
    Attr(Sym),
    /// A tape's (or stop_recording's, or accumulator's) `with` entry and exit.
    Enter,
    Exit,
    /// An `if` on a tensor, converted (AutoGraph): operand 0 is the predicate.
    Cond(Rc<Branches>),
    /// A `for` over a tensor or a `while` on one, converted (AutoGraph).
    Loop(Rc<LoopBody>),
}

/// A converted loop: each pass sets `vars_in` (and, for a `for`, `element`), runs `body`, and
/// carries `vars_out` over to the next pass; the node's outputs are the last values.
#[derive(Debug, Clone)]
pub struct LoopBody {
    /// `for`: the tensor walked along its first axis, and the slot of each element.
    pub over: Option<(Tmpl, usize)>,
    /// `while`: the condition's operations and value.
    pub cond_nodes: Vec<Node>,
    pub cond: Option<Tmpl>,
    pub body: Vec<Node>,
    /// The loop variables' slots inside the body, their values at entry, and after a pass.
    pub vars_in: Vec<usize>,
    pub vars_init: Vec<Tmpl>,
    pub vars_out: Vec<Tmpl>,
}

/// The two branches of a converted `if`: their operations and, per merged value, the
/// template each branch leaves.
#[derive(Debug)]
pub struct Branches {
    pub then_nodes: Vec<Node>,
    pub then_outs: Vec<Tmpl>,
    pub else_nodes: Vec<Node>,
    pub else_outs: Vec<Tmpl>,
}

/// One recorded operation.
#[derive(Debug, Clone)]
pub struct Node {
    pub call: Call,
    pub this: Option<Tmpl>,
    pub pos: Vec<Tmpl>,
    pub kw: Vec<(Rc<str>, Tmpl)>,
    /// Where its outputs go: a path into its result (list/tuple indices) and a slot.
    pub outs: Vec<(Vec<u32>, usize)>,
    /// Runs on every call even when nothing reads its outputs (updates, printing, tapes).
    pub effect: bool,
    /// Waits for the calls while tracing (a Variable update, `tf.print`).
    pub deferred: bool,
}

/// A traced function's graph: what one signature's calls replay.
#[derive(Debug)]
pub struct Graph {
    pub nodes: Vec<Node>,
    /// The slots of the call's tensors and Variables, in [`flatten_inputs`] order.
    pub inputs: Vec<usize>,
    pub output: Tmpl,
    pub n_slots: usize,
    /// How many Variables the tracing made.
    pub variables_made: usize,
    /// The text of the input placeholders (`Tensor("x:0", shape=(), dtype=int32)`).
    pub input_text: Vec<String>,
    /// What the tracing run returned (the result's structure, shapes and dtypes).
    pub traced_output: Value,
}

/// The state of a trace running.
#[derive(Debug, Default)]
pub struct Tracing {
    /// Traced tensors (by id) and the slots that hold them.
    pub(super) slots: FxHashMap<TensorId, usize>,
    /// Traced objects (tapes, input Variables) by address, and their slots.
    objects: FxHashMap<usize, usize>,
    /// Keeps those objects alive so that no other object takes an address while tracing.
    pinned: Vec<Value>,
    pub(super) n_slots: usize,
    /// Node lists being recorded, innermost last (a converted branch pushes one).
    pub(super) lists: Vec<Vec<Node>>,
    /// Above 0 while a recorded operation runs: what it does inside is its own.
    pub depth: usize,
    /// Variables made while tracing.
    pub variables_made: usize,
    /// The tracing run's value of each slot (a converted loop runs on them at tracing).
    pub(super) values: Vec<(Value, usize)>,
    /// How many traced tensors have each name so far (`add`, `add_1`, ...).
    name_counts: FxHashMap<String, usize>,
}

thread_local! {
    /// The names of the traced tensors while a trace runs, for their text (format.rs).
    static SYMBOLIC: RefCell<Vec<FxHashMap<TensorId, (Rc<str>, Option<Dims>)>>> = const { RefCell::new(Vec::new()) };
}

/// The TF text of a traced tensor (`Tensor("x:0", shape=(2,), dtype=float32)`), or None for
/// a tensor with a value.
/// A shape with unknown sizes (None), as a signature gives it.
pub type Dims = Rc<[Option<usize>]>;

/// The shape a traced input shows when its signature leaves sizes unknown (`x.shape` is
/// `(None,)` inside the function, as TF's placeholder's is).
pub fn shown_shape(t: &Tensor) -> Option<Dims> {
    SYMBOLIC.with(|s| s.borrow().last().and_then(|m| m.get(&t.id).and_then(|(_, d)| d.clone())))
}

fn dims_text(d: &[Option<usize>]) -> String {
    let parts: Vec<String> = d.iter().map(|x| x.map_or("None".to_string(), |n| n.to_string())).collect();
    match parts.len() {
        1 => format!("({},)", parts[0]),
        _ => format!("({})", parts.join(", ")),
    }
}

pub fn symbolic_text(t: &Tensor) -> Option<String> {
    let (name, shape) = symbolic_name(t)?;
    let shape = shape.map_or_else(|| crate::tensor::shape_str(t.shape()), |d| dims_text(&d));
    Some(format!("Tensor(\"{name}:0\", shape={shape}, dtype={})", t.dtype().name()))
}

/// The TF repr of a traced tensor (`<tf.Tensor 'x:0' shape=() dtype=int32>`).
pub fn symbolic_repr(t: &Tensor) -> Option<String> {
    let (name, shape) = symbolic_name(t)?;
    let shape = shape.map_or_else(|| crate::tensor::shape_str(t.shape()), |d| dims_text(&d));
    Some(format!("<tf.Tensor '{name}:0' shape={shape} dtype={}>", t.dtype().name()))
}

fn symbolic_name(t: &Tensor) -> Option<(Rc<str>, Option<Dims>)> {
    SYMBOLIC.with(|s| s.borrow().last().and_then(|m| m.get(&t.id).cloned()))
}


/// Address of an object that a trace follows by identity.
fn object_key(v: &Value) -> Option<usize> {
    match v {
        Value::Tape(t) | Value::StopRecording(t) => Some(Rc::as_ptr(t) as *const u8 as usize),
        Value::Variable(x) => Some(Rc::as_ptr(x) as *const u8 as usize),
        Value::Accumulator(a) => Some(Rc::as_ptr(a) as *const u8 as usize),
        _ => None,
    }
}

/// The tensors and Variables of a call's arguments, in order (lists, tuples and dict values
/// walked depth first): the graph's inputs.
pub fn flatten_inputs(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Tensor(_) | Value::Variable(_) => out.push(v.clone()),
        Value::List(l) => l.borrow().iter().for_each(|x| flatten_inputs(x, out)),
        Value::Tuple(t) => t.iter().for_each(|x| flatten_inputs(x, out)),
        Value::Dict(d) => d.borrow().values().for_each(|(_, x)| flatten_inputs(x, out)),
        _ => {}
    }
}

impl Tracing {
    fn new_slot(&mut self) -> usize {
        self.n_slots += 1;
        self.n_slots - 1
    }

    pub(super) fn bind_tensor(&mut self, t: &Tensor, name: &str) -> usize {
        self.bind_tensor_as(t, name, None)
    }

    /// Binds a traced tensor whose text shows `shape` (an input of a signature with unknown sizes).
    fn bind_tensor_as(&mut self, t: &Tensor, name: &str, shape: Option<Dims>) -> usize {
        let s = self.new_slot();
        self.slots.insert(t.id, s);
        self.values.push((Value::Tensor(t.clone()), s));
        let n = self.unique(name);
        SYMBOLIC.with(|m| {
            if let Some(top) = m.borrow_mut().last_mut() {
                top.insert(t.id, (n, shape));
            }
        });
        s
    }

    fn unique(&mut self, name: &str) -> Rc<str> {
        let c = self.name_counts.entry(name.to_string()).or_insert(0);
        let n = if *c == 0 { name.to_string() } else { format!("{name}_{c}") };
        *c += 1;
        n.into()
    }

    fn bind_object(&mut self, v: &Value) -> Option<usize> {
        let k = object_key(v)?;
        let s = self.new_slot();
        self.objects.insert(k, s);
        self.pinned.push(v.clone());
        self.values.push((v.clone(), s));
        Some(s)
    }

    /// Whether `v` holds a tensor that is not traced, or was bound at slot `since` or later
    /// (made inside the call being looked at).
    fn holds_untraced(&self, v: &Value, since: usize, deep: u32) -> bool {
        match v {
            Value::Tensor(t) => self.slots.get(&t.id).is_none_or(|s| *s >= since),
            _ if deep == 0 => false,
            Value::List(l) => l.borrow().iter().any(|x| self.holds_untraced(x, since, deep - 1)),
            Value::Tuple(t) => t.iter().any(|x| self.holds_untraced(x, since, deep - 1)),
            _ => false,
        }
    }

    /// Whether `v` is traced (a traced tensor or object), looking into lists, tuples and dicts.
    fn traced(&self, v: &Value, deep: u32) -> bool {
        match v {
            Value::Tensor(t) => self.slots.contains_key(&t.id),
            Value::Variable(_) => true,
            Value::Tape(_) | Value::StopRecording(_) | Value::Accumulator(_) => {
                object_key(v).is_some_and(|k| self.objects.contains_key(&k))
            }
            _ if deep == 0 => false,
            Value::List(l) => l.borrow().iter().any(|x| self.traced(x, deep - 1)),
            Value::Tuple(t) => t.iter().any(|x| self.traced(x, deep - 1)),
            Value::Dict(d) => d.borrow().values().any(|(_, x)| self.traced(x, deep - 1)),
            _ => false,
        }
    }

    pub(super) fn tmpl(&self, v: &Value, deep: u32) -> Tmpl {
        match v {
            Value::Tensor(t) => match self.slots.get(&t.id) {
                Some(s) => Tmpl::Slot(*s),
                None => Tmpl::Const(v.clone()),
            },
            Value::Variable(_) | Value::Tape(_) | Value::StopRecording(_) | Value::Accumulator(_) => {
                match object_key(v).and_then(|k| self.objects.get(&k)) {
                    Some(s) => Tmpl::Slot(*s),
                    None => Tmpl::Const(v.clone()),
                }
            }
            _ if deep == 0 || !self.traced(v, deep) => Tmpl::Const(v.clone()),
            Value::List(l) => Tmpl::List(l.borrow().iter().map(|x| self.tmpl(x, deep - 1)).collect()),
            Value::Tuple(t) => Tmpl::Tuple(t.iter().map(|x| self.tmpl(x, deep - 1)).collect()),
            Value::Dict(d) => Tmpl::Dict(
                d.borrow().iter().map(|(h, (k, x))| (h.clone(), k.clone(), self.tmpl(x, deep - 1))).collect(),
            ),
            _ => Tmpl::Const(v.clone()),
        }
    }

    /// Gives the tensors (and tapes) of an operation's result slots: (path, slot) pairs.
    fn bind_outputs(
        &mut self,
        v: &Value,
        path: &mut Vec<u32>,
        name: &str,
        out: &mut Vec<(Vec<u32>, usize)>,
        deep: u32,
    ) {
        match v {
            Value::Tensor(t) => {
                let s = self.bind_tensor(t, name);
                out.push((path.clone(), s));
            }
            Value::Tape(_) | Value::StopRecording(_) | Value::Accumulator(_) => {
                if let Some(s) = self.bind_object(v) {
                    out.push((path.clone(), s));
                }
            }
            Value::List(_) | Value::Tuple(_) if deep > 0 => {
                let items: Vec<Value> = match v {
                    Value::List(l) => l.borrow().clone(),
                    Value::Tuple(t) => t.to_vec(),
                    _ => unreachable!(),
                };
                for (i, x) in items.iter().enumerate() {
                    path.push(i as u32);
                    self.bind_outputs(x, path, name, out, deep - 1);
                    path.pop();
                }
            }
            _ => {}
        }
    }

    pub(super) fn push(&mut self, node: Node) {
        self.lists.last_mut().expect("a trace has a node list").push(node);
    }
}

/// How deep into containers operands are looked at.
const DEEP: u32 = 4;

/// Natives whose every call is recorded, traced operands or not: random draws (fresh on each
/// call), `tf.print`, and the tape's constructor.
fn always_recorded(n: &Native) -> bool {
    n.spellings
        .iter()
        .any(|s| s.starts_with("tf.random.") || *s == "tf.print" || *s == "tf.GradientTape" || *s == "tf.nn.dropout")
}

/// Natives whose calls wait for the graph's runs while tracing.
fn deferred(n: &Native, this: Option<&Value>) -> bool {
    match this {
        Some(Value::Variable(_)) => n.name.starts_with("assign") || n.name.starts_with("scatter"),
        Some(_) => false,
        None => n.spellings.contains(&"tf.print"),
    }
}

/// Whether a native is one of TensorFlow's operations (rather than a Python builtin such as
/// `print`, `len` or `list.append`).
fn is_tf_op(n: &Native) -> bool {
    n.spellings.iter().any(|s| s.starts_with("tf."))
}

impl Interp {
    /// The trace running, if any operation should be recorded now.
    fn recording(&self) -> bool {
        self.trace.as_ref().is_some_and(|t| t.depth == 0)
    }

    /// Whether a trace is running (`tf.executing_eagerly()` is false inside).
    pub fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    /// Whether `v` is a tensor whose value a trace does not know (a traced tensor or a Variable).
    pub fn is_symbolic(&self, v: &Value) -> bool {
        match (&self.trace, v) {
            (Some(t), Value::Tensor(_) | Value::Variable(_)) => t.traced(v, 0),
            _ => false,
        }
    }

    /// A call of a native while tracing: recorded when it is an operation on traced values
    /// (see the module's documentation), run as usual otherwise. `None`: not traced, call it.
    pub(crate) fn traced_native(
        &mut self,
        b: &Rc<Builtin>,
        pos: &[Value],
        kw: &[(Rc<str>, Value)],
    ) -> Option<R<Value>> {
        if !self.recording() {
            return None;
        }
        let tr = self.trace.as_ref().expect("recording");
        let (call, this, native) = match &b.kind {
            BuiltinKind::Native(n, _) => (Call::Value(Value::Builtin(b.clone())), None, Some(*n)),
            BuiltinKind::Method(this, n) => {
                // Methods of Python's containers and strings run at tracing, as Python code.
                if !matches!(
                    this,
                    Value::Tensor(_)
                        | Value::Variable(_)
                        | Value::Tape(_)
                        | Value::StopRecording(_)
                        | Value::Accumulator(_)
                ) {
                    return None;
                }
                (Call::Method(n, b.name.clone()), Some(this.clone()), Some(*n))
            }
            BuiltinKind::CustomGradient(_) | BuiltinKind::Recompute(..) | BuiltinKind::PassThrough(_) => {
                (Call::Value(Value::Builtin(b.clone())), None, None)
            }
            _ => return None,
        };
        let operands = this.iter().chain(pos.iter()).chain(kw.iter().map(|(_, v)| v));
        let traced = operands.clone().any(|v| tr.traced(v, DEEP));
        // Python's conversions of a traced tensor to a number would freeze the tracing run's
        // value into the graph.
        if let (Some(n), None) = (native, &this) {
            if matches!(n.name, "float" | "int" | "bool" | "complex") && pos.iter().any(|v| tr.traced(v, 0)) {
                return Some(Err(err!(
                    Type,
                    "{}() of a tensor inside a traced tf.function: its value is not known at tracing (the number \
                     would be frozen into the graph); keep it a tensor (tf.cast), or call \
                     tf.config.run_functions_eagerly(True)",
                    n.name
                )));
            }
        }
        let always = native.is_some_and(always_recorded);
        let tapeish = matches!(this, Some(Value::Tape(_) | Value::StopRecording(_) | Value::Accumulator(_)));
        let op = match native {
            Some(n) => this.is_some() || is_tf_op(n),
            None => true,
        };
        if !op && traced && this.is_none() {
            if let BuiltinKind::Native(n, dialect) = &b.kind {
                return Some(self.traced_builtin(b, n, *dialect, pos, kw));
            }
        }
        if !(op && (traced || always || tapeish)) {
            return None;
        }
        if let (Some(n), Some(t)) = (native, &this) {
            if n.name == "numpy" && self.is_symbolic(t) {
                return Some(Err(err!(
                    Attribute,
                    "'SymbolicTensor' object has no attribute 'numpy': a tensor inside a traced tf.function has no value \
                     until the function runs (use tf.print to print it, or return it)"
                )));
            }
        }
        let effect = tapeish || always || native.is_some_and(|n| deferred(n, this.as_ref()));
        let deferred = native.is_some_and(|n| deferred(n, this.as_ref()));
        let name = native.map_or("Identity", |n| n.name);
        Some(self.record(call, this, pos.to_vec(), kw.to_vec(), effect, deferred, name))
    }

    /// A Python builtin or one of DGL's own functions (no TF spelling) called on traced values:
    /// it runs with the operations inside it recorded; when its result holds a tensor those did
    /// not make (`neg(x)`, `abs(x)` computed natively), the call itself is recorded instead.
    fn traced_builtin(
        &mut self,
        b: &Rc<Builtin>,
        n: &'static Native,
        dialect: Dialect,
        pos: &[Value],
        kw: &[(Rc<str>, Value)],
    ) -> R<Value> {
        let tr = self.trace.as_ref().expect("recording");
        let (mark, slots_before) = (tr.lists.last().map_or(0, Vec::len), tr.n_slots);
        let v = self.call_native(b, n, dialect, pos.to_vec(), kw.to_vec())?;
        let tr = self.trace.as_mut().expect("recording");
        if !tr.holds_untraced(&v, slots_before, DEEP) {
            return Ok(v);
        }
        if let Some(l) = tr.lists.last_mut() {
            l.truncate(mark);
        }
        let node_pos = pos.iter().map(|v| tr.tmpl(v, DEEP)).collect();
        let node_kw = kw.iter().map(|(k, v)| (k.clone(), tr.tmpl(v, DEEP))).collect();
        let mut outs = Vec::new();
        tr.bind_outputs(&v, &mut Vec::new(), n.name, &mut outs, DEEP);
        let node = Node {
            call: Call::Value(Value::Builtin(b.clone())),
            this: None,
            pos: node_pos,
            kw: node_kw,
            outs,
            effect: false,
            deferred: false,
        };
        tr.push(node);
        Ok(v)
    }

    /// An operator, indexing or attribute read on a traced operand while tracing: recorded.
    /// `None`: no operand is traced, run it as usual.
    pub(crate) fn traced_op(&mut self, call: Call, operands: &[&Value]) -> Option<R<Value>> {
        if !self.recording() {
            return None;
        }
        let tr = self.trace.as_ref().expect("recording");
        if !operands.iter().any(|v| tr.traced(v, 1)) {
            return None;
        }
        // Operators of user classes run their Python methods at tracing.
        if operands.iter().any(|v| matches!(v, Value::Instance(_))) {
            return None;
        }
        let name = match &call {
            Call::Binary(op) | Call::Inplace(op) => binary_name(*op),
            Call::Unary(UnaryOp::Neg) => "Neg",
            Call::Unary(_) => "Identity",
            Call::Compare(op) => compare_name(*op),
            Call::Item => "strided_slice",
            _ => "Identity",
        };
        let pos = operands.iter().map(|v| (*v).clone()).collect();
        Some(self.record(call, None, pos, vec![], false, false, name))
    }

    /// A `with` entry or exit of a traced tape: recorded as an effect.
    pub(crate) fn traced_with(&mut self, enter: bool, ctx: &Value) {
        if !self.recording() || !self.trace.as_ref().expect("recording").traced(ctx, 0) {
            return;
        }
        let tr = self.trace.as_mut().expect("recording");
        let node = Node {
            call: if enter { Call::Enter } else { Call::Exit },
            this: Some(tr.tmpl(ctx, 0)),
            pos: vec![],
            kw: vec![],
            outs: vec![],
            effect: true,
            deferred: false,
        };
        tr.push(node);
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        call: Call,
        this: Option<Value>,
        pos: Vec<Value>,
        kw: Vec<(Rc<str>, Value)>,
        effect: bool,
        deferred: bool,
        name: &str,
    ) -> R<Value> {
        let tr = self.trace.as_mut().expect("recording");
        let node_this = this.as_ref().map(|v| tr.tmpl(v, DEEP));
        let this_is_tensor = matches!(this, Some(Value::Tensor(_) | Value::Variable(_)));
        let node_pos = pos.iter().map(|v| tr.tmpl(v, DEEP)).collect();
        let node_kw = kw.iter().map(|(k, v)| (k.clone(), tr.tmpl(v, DEEP))).collect();
        let result = if deferred {
            Ok(this.clone().unwrap_or(Value::None))
        } else {
            tr.depth += 1;
            let r = self.run_call(&call, this, pos, kw);
            self.trace.as_mut().expect("recording").depth -= 1;
            r
        };
        let v = result?;
        // A Python number read off a traced tensor (`x.item()`, `x.tolist()`) would be frozen.
        if matches!(v, Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Complex(..) | Value::List(_))
            && matches!(call, Call::Method(..))
            && this_is_tensor
        {
            return Err(err!(
                Type,
                "{name}() of a tensor inside a traced tf.function gives its value at tracing, which the graph would \
                 keep for every call; keep it a tensor, or call tf.config.run_functions_eagerly(True)"
            ));
        }
        let tr = self.trace.as_mut().expect("recording");
        let mut outs = Vec::new();
        if !deferred {
            tr.bind_outputs(&v, &mut Vec::new(), name, &mut outs, DEEP);
        }
        tr.push(Node { call, this: node_this, pos: node_pos, kw: node_kw, outs, effect, deferred });
        Ok(v)
    }

    /// Runs one operation (at tracing, or replaying a graph).
    fn run_call(
        &mut self,
        call: &Call,
        this: Option<Value>,
        mut pos: Vec<Value>,
        kw: Vec<(Rc<str>, Value)>,
    ) -> R<Value> {
        match call {
            Call::Value(f) => self.call_value(f, pos, kw),
            Call::Method(n, name) => {
                let Some(this) = this else { bail!(Runtime, "internal error: a traced method without its receiver") };
                let b = Rc::new(Builtin { name: name.clone(), kind: BuiltinKind::Method(this, n) });
                self.call_value(&Value::Builtin(b), pos, kw)
            }
            Call::Binary(op) => {
                let b = pos.pop().expect("two operands");
                let a = pos.pop().expect("two operands");
                self.binary_op(*op, a, b)
            }
            Call::Inplace(op) => {
                let b = pos.pop().expect("two operands");
                let a = pos.pop().expect("two operands");
                self.inplace_op(*op, a, b)
            }
            Call::Unary(op) => self.unary_op(*op, pos.pop().expect("one operand")),
            Call::Compare(op) => self.compare_op(*op, &pos[0], &pos[1]),
            Call::Item => self.get_item(&pos[0], &pos[1]),
            Call::Attr(name) => self.get_attr(&pos[0], *name),
            Call::Enter | Call::Exit | Call::Cond(_) | Call::Loop(_) => {
                bail!(Runtime, "internal error: a structural node run as a call")
            }
        }
    }

    /// Traces `f` called with `pos`/`kw`: the graph and the result of the tracing run (whose
    /// tensors have no meaning outside the trace). `names` names the flattened inputs.
    pub fn trace_function(
        &mut self,
        f: &Value,
        pos: Vec<Value>,
        kw: Vec<(Rc<str>, Value)>,
        names: &[String],
        shapes: &[Option<Vec<Option<usize>>>],
    ) -> R<Graph> {
        if self.trace.is_some() {
            bail!(Runtime, "internal error: a trace inside a trace");
        }
        let mut tr = Tracing { lists: vec![Vec::new()], ..Tracing::default() };
        SYMBOLIC.with(|s| s.borrow_mut().push(FxHashMap::default()));
        let mut flat = Vec::new();
        flatten_inputs(&Value::tuple(pos.clone()), &mut flat);
        kw.iter().for_each(|(_, v)| flatten_inputs(v, &mut flat));
        let mut inputs = Vec::new();
        let mut input_text = Vec::new();
        for (i, v) in flat.iter().enumerate() {
            let name = names.get(i).map_or("args", String::as_str);
            match v {
                Value::Tensor(t) => {
                    let shown: Option<Dims> = shapes.get(i).cloned().flatten().map(Rc::from);
                    let shape = shown.as_deref().map_or_else(|| crate::tensor::shape_str(t.shape()), dims_text);
                    inputs.push(tr.bind_tensor_as(t, name, shown));
                    input_text.push(format!("Tensor(\"{name}:0\", shape={shape}, dtype={})", t.dtype().name()));
                }
                _ => {
                    // A Variable is an input by identity: another Variable of its shape and
                    // dtype replays the same graph.
                    let s = match object_key(v).and_then(|k| tr.objects.get(&k)) {
                        Some(s) => *s,
                        None => tr.bind_object(v).expect("a Variable"),
                    };
                    inputs.push(s);
                    input_text.push(String::new());
                }
            }
        }
        self.trace = Some(Box::new(tr));
        let paused = self.ad.pause_all();
        let r = self.call_value(f, pos, kw);
        self.ad.resume_all(paused);
        SYMBOLIC.with(|s| s.borrow_mut().pop());
        let mut tr = *self.trace.take().expect("the trace");
        let out = r?;
        let output = tr.tmpl(&out, 16);
        let mut nodes = tr.lists.pop().expect("the top list");
        prune(&mut nodes, &output);
        Ok(Graph {
            nodes,
            inputs,
            output,
            n_slots: tr.n_slots,
            variables_made: tr.variables_made,
            input_text,
            traced_output: out,
        })
    }

    /// Runs a graph on a call's tensors and Variables ([`flatten_inputs`] order).
    pub fn replay(&mut self, g: &Graph, flat: Vec<Value>) -> R<Value> {
        if flat.len() != g.inputs.len() {
            bail!(Runtime, "internal error: a graph of {} inputs called with {}", g.inputs.len(), flat.len());
        }
        let mut slots: Vec<Option<Value>> = vec![None; g.n_slots];
        for (s, v) in g.inputs.iter().zip(flat) {
            slots[*s] = Some(v);
        }
        self.run_nodes(&g.nodes, &mut slots, false)?;
        fill(&g.output, &slots)
    }

    /// Runs recorded operations; `dry`: leaves out the deferred ones (while tracing).
    pub(super) fn run_nodes(&mut self, nodes: &[Node], slots: &mut Vec<Option<Value>>, dry: bool) -> R<()> {
        for n in nodes {
            if dry && n.deferred {
                continue;
            }
            match &n.call {
                Call::Loop(lp) => {
                    let results = self.run_loop(lp, slots, dry)?;
                    for ((_, s), v) in n.outs.iter().zip(results) {
                        slots[*s] = Some(v);
                    }
                }
                Call::Enter | Call::Exit => {
                    let ctx = fill(n.this.as_ref().expect("a context"), slots)?;
                    if matches!(n.call, Call::Enter) {
                        self.enter(&ctx)?;
                    } else {
                        self.exit(&ctx, None)?;
                    }
                }
                Call::Cond(br) => {
                    let p = fill(&n.pos[0], slots)?;
                    let take = self.truthy(&p)?;
                    let (nodes, outs) =
                        if take { (&br.then_nodes, &br.then_outs) } else { (&br.else_nodes, &br.else_outs) };
                    self.run_nodes(nodes, slots, dry)?;
                    for ((_, s), t) in n.outs.iter().zip(outs) {
                        slots[*s] = Some(fill(t, slots)?);
                    }
                }
                _ => {
                    let this = n.this.as_ref().map(|t| fill(t, slots)).transpose()?;
                    let pos = n.pos.iter().map(|t| fill(t, slots)).collect::<R<Vec<_>>>()?;
                    let kw = n.kw.iter().map(|(k, t)| Ok((k.clone(), fill(t, slots)?))).collect::<R<Vec<_>>>()?;
                    let v = self.run_call(&n.call, this, pos, kw)?;
                    for (path, s) in &n.outs {
                        slots[*s] = Some(at_path(&v, path)?);
                    }
                }
            }
        }
        Ok(())
    }

    /// Counts a Variable made while tracing (TF allows them on the first trace only).
    pub fn note_variable_made(&mut self) {
        if let Some(t) = self.trace.as_mut() {
            t.variables_made += 1;
        }
    }
}

pub(super) fn fill(t: &Tmpl, slots: &[Option<Value>]) -> R<Value> {
    Ok(match t {
        Tmpl::Const(v) => v.clone(),
        Tmpl::Slot(s) => match &slots[*s] {
            Some(v) => v.clone(),
            None => bail!(
                Runtime,
                "a tensor made inside a branch of an `if` on a tensor that this call did not take was used after it \
                 (keep tensors made in a branch in variables both branches set)"
            ),
        },
        Tmpl::List(xs) => Value::list(xs.iter().map(|x| fill(x, slots)).collect::<R<_>>()?),
        Tmpl::Tuple(xs) => Value::tuple(xs.iter().map(|x| fill(x, slots)).collect::<R<_>>()?),
        Tmpl::Dict(xs) => {
            let mut d = super::value::Dict::default();
            for (h, k, x) in xs {
                d.insert(h.clone(), (k.clone(), fill(x, slots)?));
            }
            Value::Dict(Rc::new(RefCell::new(d)))
        }
    })
}

fn at_path(v: &Value, path: &[u32]) -> R<Value> {
    let mut cur = v.clone();
    for i in path {
        let next = match &cur {
            Value::List(l) => l.borrow().get(*i as usize).cloned(),
            Value::Tuple(t) => t.get(*i as usize).cloned(),
            _ => None,
        };
        cur =
            next.ok_or_else(|| err!(Runtime, "a traced operation gave a result of another structure when replayed"))?;
    }
    Ok(cur)
}

/// Drops the operations whose results nothing uses (a Variable's initial value computed at
/// tracing, a tensor only printed by Python code), keeping every effect.
fn prune(nodes: &mut Vec<Node>, output: &Tmpl) {
    let mut used = rustc_hash::FxHashSet::default();
    mark(output, &mut used);
    prune_list(nodes, &mut used);
}

fn prune_list(nodes: &mut Vec<Node>, used: &mut rustc_hash::FxHashSet<usize>) {
    let mut keep = vec![false; nodes.len()];
    for i in (0..nodes.len()).rev() {
        let live = nodes[i].effect || nodes[i].outs.iter().any(|(_, s)| used.contains(s));
        if live {
            keep[i] = true;
            let n = &mut nodes[i];
            if let Call::Cond(br) = &n.call {
                // The branches' own operations are pruned against what the merge reads.
                let mut inner = used.clone();
                for t in br.then_outs.iter().chain(&br.else_outs) {
                    mark(t, &mut inner);
                }
                let mut b = Branches {
                    then_nodes: br.then_nodes.clone(),
                    then_outs: br.then_outs.clone(),
                    else_nodes: br.else_nodes.clone(),
                    else_outs: br.else_outs.clone(),
                };
                let mut u1 = inner.clone();
                prune_list(&mut b.then_nodes, &mut u1);
                let mut u2 = inner;
                prune_list(&mut b.else_nodes, &mut u2);
                used.extend(u1);
                used.extend(u2);
                n.call = Call::Cond(Rc::new(b));
            }
            let n = &nodes[i];
            if let Call::Loop(lp) = &n.call {
                mark_all(&lp.body, used);
                mark_all(&lp.cond_nodes, used);
                lp.vars_init.iter().for_each(|t| mark(t, used));
                if let Some((t, _)) = &lp.over {
                    mark(t, used);
                }
            }
            n.this.iter().chain(&n.pos).chain(n.kw.iter().map(|(_, t)| t)).for_each(|t| mark(t, used));
        }
    }
    let mut k = keep.into_iter();
    nodes.retain(|_| k.next().unwrap_or(true));
}

/// Marks every slot the operations read, inside converted branches and loops too.
fn mark_all(nodes: &[Node], used: &mut rustc_hash::FxHashSet<usize>) {
    for n in nodes {
        n.this.iter().chain(&n.pos).chain(n.kw.iter().map(|(_, t)| t)).for_each(|t| mark(t, used));
        match &n.call {
            Call::Cond(br) => {
                mark_all(&br.then_nodes, used);
                mark_all(&br.else_nodes, used);
                br.then_outs.iter().chain(&br.else_outs).for_each(|t| mark(t, used));
            }
            Call::Loop(lp) => {
                mark_all(&lp.body, used);
                mark_all(&lp.cond_nodes, used);
                lp.vars_init.iter().chain(&lp.vars_out).for_each(|t| mark(t, used));
                if let Some((t, _)) = &lp.over {
                    mark(t, used);
                }
            }
            _ => {}
        }
    }
}

fn mark(t: &Tmpl, used: &mut rustc_hash::FxHashSet<usize>) {
    match t {
        Tmpl::Const(_) => {}
        Tmpl::Slot(s) => {
            used.insert(*s);
        }
        Tmpl::List(xs) | Tmpl::Tuple(xs) => xs.iter().for_each(|x| mark(x, used)),
        Tmpl::Dict(xs) => xs.iter().for_each(|(_, _, x)| mark(x, used)),
    }
}

fn binary_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::Div => "truediv",
        BinOp::FloorDiv => "floordiv",
        BinOp::Mod => "mod",
        BinOp::Pow => "pow",
        BinOp::MatMul => "matmul",
        _ => "Identity",
    }
}

fn compare_name(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "Less",
        CmpOp::Le => "LessEqual",
        CmpOp::Gt => "Greater",
        CmpOp::Ge => "GreaterEqual",
        CmpOp::Eq => "Equal",
        CmpOp::Ne => "NotEqual",
        _ => "Identity",
    }
}
