//! The native module `_trace`: tracing a function into a graph and replaying it, under
//! `tf.function` (stdlib/_function.dgl; docs/language.md "Traced functions"). The machinery is
//! runtime/trace.rs; a graph lives as long as the program, named by the handle `trace` returns.

use super::Native;
use crate::bail;
use crate::error::R;
use crate::runtime::trace::{flatten_inputs, Graph};
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use std::cell::RefCell;
use std::rc::Rc;

thread_local! {
    /// The graphs traced so far; a handle is an index.
    static GRAPHS: RefCell<Vec<Rc<Graph>>> = const { RefCell::new(Vec::new()) };
}

/// The module's names and values.
pub(crate) fn build(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    Ok(FNS.iter().map(|n| (n.name, n.value())).collect())
}

const FNS: &[&Native] = &[&TRACE, &REPLAY, &TRACING, &VARIABLES_MADE, &INPUT_TEXT, &OUTPUT, &KEY];

fn graph(h: i64) -> R<Rc<Graph>> {
    GRAPHS.with(|g| g.borrow().get(h as usize).cloned()).ok_or_else(|| crate::err!(Value, "no traced graph {h}"))
}

fn call_args(rt: &mut Interp, args: Value, kwargs: Value) -> R<(Vec<Value>, Vec<(Rc<str>, Value)>)> {
    let pos = rt.iterate(&args)?;
    let kw = match &kwargs {
        Value::Dict(d) => d
            .borrow()
            .values()
            .map(|(k, v)| match k {
                Value::Str(s) => Ok((Rc::from(s.as_str()), v.clone())),
                _ => bail!(Type, "keywords must be strings"),
            })
            .collect::<R<Vec<_>>>()?,
        Value::None => vec![],
        other => bail!(Type, "keywords must be a dict, not {}", other.type_name()),
    };
    Ok((pos, kw))
}

static TRACE: Native = Native::new("trace", &["fn", "args", "kwargs", "names", "shapes=None"], trace);

/// `trace(fn, args, kwargs, names, shapes=None)`: runs `fn(*args, **kwargs)` once as a trace
/// and returns the handle of its graph. `names` names the call's tensors and Variables in
/// order, and `shapes` gives the shape text each one's placeholder shows (None: its own; a
/// signature's `(None,)`). The trace's own result is not returned: the graph gives each call's.
///
/// Errors: whatever `fn` raises while tracing.
fn trace(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = TRACE.bind(rt, a)?;
    let (f, args, kwargs, names) = (b.value("fn")?, b.value("args")?, b.value("kwargs")?, b.value("names")?);
    let shapes = b.value("shapes")?;
    let names: Vec<String> = rt.iterate(&names)?.iter().map(|v| rt.str_of(v)).collect::<R<_>>()?;
    let mut dims = vec![];
    if !matches!(shapes, Value::None) {
        for s in rt.iterate(&shapes)? {
            dims.push(match s {
                Value::None => None,
                s => Some(
                    rt.iterate(&s)?
                        .iter()
                        .map(|d| match d {
                            Value::Int(n) if *n >= 0 => Ok(Some(*n as usize)),
                            Value::None => Ok(None),
                            _ => bail!(Type, "a shape's sizes are ints or None"),
                        })
                        .collect::<R<Vec<_>>>()?,
                ),
            });
        }
    }
    let shapes = dims;
    let (pos, kw) = call_args(rt, args, kwargs)?;
    let g = rt.trace_function(&f, pos, kw, &names, &shapes)?;
    let h = GRAPHS.with(|gs| {
        let mut gs = gs.borrow_mut();
        gs.push(Rc::new(g));
        gs.len() - 1
    });
    Ok(Value::Int(h as i64))
}

static REPLAY: Native = Native::new("replay", &["graph: int", "args", "kwargs"], replay);

/// `replay(graph, args, kwargs)`: runs a traced graph on a call's arguments (of the signature
/// it was traced for) and returns its result.
fn replay(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = REPLAY.bind(rt, a)?;
    let (h, args, kwargs) = (b.int("graph")?, b.value("args")?, b.value("kwargs")?);
    let g = graph(h)?;
    let (pos, kw) = call_args(rt, args, kwargs)?;
    let mut flat = Vec::new();
    flatten_inputs(&Value::tuple(pos), &mut flat);
    kw.iter().for_each(|(_, v)| flatten_inputs(v, &mut flat));
    rt.replay(&g, flat)
}

static TRACING: Native = Native::new("tracing", &[], tracing);

/// `tracing()`: whether a trace is running (`tf.executing_eagerly()` is its negation).
fn tracing(rt: &mut Interp, a: &mut Args) -> R<Value> {
    TRACING.bind(rt, a)?;
    Ok(Value::Bool(rt.tracing()))
}

static VARIABLES_MADE: Native = Native::new("variables_made", &["graph: int"], variables_made);

/// `variables_made(graph)`: how many Variables its tracing made.
fn variables_made(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let h = VARIABLES_MADE.bind(rt, a)?.int("graph")?;
    Ok(Value::Int(graph(h)?.variables_made as i64))
}

static INPUT_TEXT: Native = Native::new("input_text", &["graph: int"], input_text);

/// `input_text(graph)`: the text of each tensor input's placeholder (`Tensor("x:0", ...)`).
fn input_text(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let h = INPUT_TEXT.bind(rt, a)?.int("graph")?;
    Ok(Value::list(graph(h)?.input_text.iter().map(|s| Value::str(s)).collect()))
}

static OUTPUT: Native = Native::new("output", &["graph: int"], output);

/// `output(graph)`: what the tracing run returned (its tensors give the result's shapes and
/// dtypes; their values are the trace's, not a call's).
fn output(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let h = OUTPUT.bind(rt, a)?.int("graph")?;
    Ok(graph(h)?.traced_output.clone())
}

static KEY: Native = Native::new("key", &["args", "kwargs", "relax: bool = False"], key);

/// `key(args, kwargs, relax=False)`: the signature a call is traced for, as a hashable value:
/// a tensor's shape (its rank with `relax`) and dtype, a Variable's shape and dtype, a Python
/// number, string, bool or None by value, lists, tuples and dicts by their items, any other
/// object by identity (TF's trace types).
fn key(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let mut b = KEY.bind(rt, a)?;
    let (args, kwargs, relax) = (b.value("args")?, b.value("kwargs")?, b.bool_or("relax", false)?);
    Ok(Value::tuple(vec![key_of(&args, relax, 0)?, key_of(&kwargs, relax, 0)?]))
}

fn key_of(v: &Value, relax: bool, depth: usize) -> R<Value> {
    if depth > 64 {
        bail!(Recursion, "a tf.function argument nested more than 64 deep");
    }
    let tag = |t: &str, mut rest: Vec<Value>| {
        rest.insert(0, Value::str(t));
        Value::tuple(rest)
    };
    let dims = |s: &[usize]| Value::tuple(s.iter().map(|d| Value::Int(*d as i64)).collect());
    Ok(match v {
        Value::Variable(x) => {
            let t = x.peek();
            tag("V", vec![dims(t.shape()), Value::str(t.dtype().name())])
        }
        Value::Tensor(t) if relax => tag("T", vec![Value::Int(t.shape().len() as i64), Value::str(t.dtype().name())]),
        Value::Tensor(t) => tag("T", vec![dims(t.shape()), Value::str(t.dtype().name())]),
        Value::None | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => tag("P", vec![v.clone()]),
        Value::List(l) => {
            let items = l.borrow().iter().map(|x| key_of(x, relax, depth + 1)).collect::<R<Vec<_>>>()?;
            tag("L", items)
        }
        Value::Tuple(t) => tag("U", t.iter().map(|x| key_of(x, relax, depth + 1)).collect::<R<Vec<_>>>()?),
        Value::Dict(d) => {
            let items = d
                .borrow()
                .values()
                .map(|(k, x)| Ok(Value::tuple(vec![k.clone(), key_of(x, relax, depth + 1)?])))
                .collect::<R<Vec<_>>>()?;
            tag("D", items)
        }
        other => tag("O", vec![Value::Int(other.identity() as i64)]),
    })
}
