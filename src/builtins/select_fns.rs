//! Selection, sorting, einsum and mapping functions, named as TensorFlow's
//! without the prefix: `gather_nd`, `scatter_nd`, `tensor_scatter_nd_update`/`_add`,
//! `boolean_mask`, `sort`, `argsort`, `top_k`, `unique`, `einsum`, `vectorized_map`,
//! `map_fn`, and `newaxis`. The differentiable ones record through
//! `autodiff/ops/select.rs` and `autodiff/ops/einsum.rs`.
//!
//! Python's `range` stays Python's (docs/language.md §2); TF's `tf.range` is `range_tensor`.

use super::tensor_fns::index_tensor;
use super::{Native, Signature};
use crate::bail;
use crate::error::R;
use crate::intern::intern;
use crate::runtime::value::{Args, Class, Dialect, Instance, Value};
use crate::runtime::Interp;
use crate::tensor::{sorting, Array, DType, Tensor};
use std::rc::Rc;

/// Registers this file's functions.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&GATHER_ND);
    reg(&SCATTER_ND);
    reg(&TENSOR_SCATTER_ND_UPDATE);
    reg(&TENSOR_SCATTER_ND_ADD);
    reg(&BOOLEAN_MASK);
    reg(&SORT);
    reg(&ARGSORT);
    reg(&TOP_K);
    reg(&UNIQUE);
    reg(&EINSUM);
    reg(&VECTORIZED_MAP);
    reg(&MAP_FN);
}

static GATHER_ND: Native =
    Native::new("gather_nd", &["params: TensorLike", "indices", "batch_dims: int = 0"], gather_nd)
        .spelled(&["tf.gather_nd"]);

/// `gather_nd(params, indices, batch_dims=0)`: slices of params at index vectors (the
/// last axis of indices).
///
/// Shapes: params [B.., P0..P(M-1), S..], indices [B.., I.., M] → [B.., I.., S..]
/// (B: `batch_dims` axes shared by both). Dtypes: any params; indices int64 (ints and
/// lists of ints convert). Gradient: upstream scatter-added back to params.
/// Errors: IndexError naming the index vector and the bound (TF raises on CPU);
/// ValueError when M exceeds params' rank or batch axes differ; TypeError for float indices.
/// See: tf.gather_nd.
fn gather_nd(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = GATHER_ND.bind(rt, args)?;
    let (p, i, b) = (a.tensor("params")?, a.value("indices")?, a.int_or("batch_dims", 0)?);
    let i = index_tensor(rt, &i, "gather_nd indices")?;
    if b < 0 {
        bail!(Value, "gather_nd: batch_dims must be >= 0, got {b}");
    }
    Ok(Value::Tensor(rt.ad.gather_nd(&p, &i, b as usize)?))
}

static SCATTER_ND: Native = Native::new("scatter_nd", &["indices", "updates: TensorLike", "shape: Shape"], scatter_nd)
    .spelled(&["tf.scatter_nd"]);

/// `scatter_nd(indices, updates, shape)`: zeros of `shape` with each update slice added
/// at its index vector; duplicate indices add up (TF).
///
/// Shapes: indices [I.., M], updates [I.., shape[M:]..] → shape. Dtypes: any updates
/// (bools combine with or, int64 sums are checked); int64 indices. Gradient: to updates, upstream gathered at the indices.
/// Errors: IndexError naming the index vector and the bound; ShapeError for an updates
/// shape that does not match; ValueError for a negative or over-budget shape.
/// See: tf.scatter_nd.
fn scatter_nd(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SCATTER_ND.bind(rt, args)?;
    let (i, u, s) = (a.value("indices")?, a.tensor("updates")?, a.dims("shape")?);
    let i = index_tensor(rt, &i, "scatter_nd indices")?;
    Ok(Value::Tensor(rt.ad.scatter_nd(&i, &u, &s)?))
}

const TENSOR_SCATTER_SIG: Signature = Signature::new(&["tensor: TensorLike", "indices", "updates"]);
static TENSOR_SCATTER_ND_UPDATE: Native =
    Native::with("tensor_scatter_nd_update", TENSOR_SCATTER_SIG, |rt, a| tensor_scatter(rt, a, false))
        .spelled(&["tf.tensor_scatter_nd_update"]);
static TENSOR_SCATTER_ND_ADD: Native =
    Native::with("tensor_scatter_nd_add", TENSOR_SCATTER_SIG, |rt, a| tensor_scatter(rt, a, true))
        .spelled(&["tf.tensor_scatter_nd_add"]);

/// `tensor_scatter_nd_update(tensor, indices, updates)` / `tensor_scatter_nd_add(…)`: a
/// copy of tensor with the update slices written / added at the index vectors.
///
/// For an index given twice, update keeps the last update (TF leaves it unspecified);
/// add sums them. Shapes: as scatter_nd with `shape = tensor.shape`; updates take tensor's
/// dtype. Gradient: tensor gets upstream (zero where update overwrote); updates get
/// upstream at their positions (zero for an update a later one overwrote).
/// Errors: as scatter_nd; TypeError for bool with add.
/// See: tf.tensor_scatter_nd_update, tf.tensor_scatter_nd_add.
fn tensor_scatter(rt: &mut Interp, args: &mut Args, add: bool) -> R<Value> {
    let mut a = TENSOR_SCATTER_SIG.bind(rt, args)?;
    let (t, i, u) = (a.tensor("tensor")?, a.value("indices")?, a.value("updates")?);
    let i = index_tensor(rt, &i, "indices")?;
    let u = match &u {
        Value::Tensor(_) | Value::Variable(_) => rt.to_tensor(&u, None)?,
        other => rt.to_tensor(other, Some(t.dtype()))?,
    };
    Ok(Value::Tensor(rt.ad.tensor_scatter_nd(&t, &i, &u, add)?))
}

static BOOLEAN_MASK: Native =
    Native::new("boolean_mask", &["tensor: TensorLike", "mask", "axis: int | None = None"], boolean_mask)
        .spelled(&["tf.boolean_mask"]);

/// `boolean_mask(tensor, mask, axis=None)`: the slices of tensor where mask is True.
///
/// Shapes: tensor [A.., K.., S..] (A: `axis` axes, default 0), mask K → [A.., count, S..].
/// Dtypes: any tensor; mask bool, or any numeric mask or list, read as TF reads it (nonzero is
/// True: `boolean_mask(x, [1.0, 0.0])` keeps the first slice). Gradient: upstream scattered
/// back to the kept slices, zeros elsewhere.
/// Errors: ValueError for a scalar mask or a mask shape that does not match tensor's axes
/// from `axis`.
/// See: tf.boolean_mask.
fn boolean_mask(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = BOOLEAN_MASK.bind(rt, args)?;
    let (t, m, axis) = (a.tensor("tensor")?, a.value("mask")?, a.opt_int("axis")?.unwrap_or(0));
    let m = match &m {
        Value::Tensor(_) | Value::Variable(_) => rt.to_tensor(&m, None)?,
        other => rt.to_tensor(other, Some(DType::Bool))?,
    };
    // TF selects where the mask is nonzero, whatever its dtype; the mask is not differentiated.
    let m = if m.dtype() == DType::Bool { m } else { Tensor::new(m.data.cast(DType::Bool)) };
    Ok(Value::Tensor(rt.ad.boolean_mask(&t, &m, axis)?))
}

/// `direction='ASCENDING'|'DESCENDING'`: whether it is descending.
fn direction(rt: &mut Interp, v: Option<Value>, fname: &str) -> R<bool> {
    match v {
        None => Ok(false),
        Some(Value::Str(s)) if &*s == "ASCENDING" => Ok(false),
        Some(Value::Str(s)) if &*s == "DESCENDING" => Ok(true),
        Some(other) => {
            let r = rt.repr_of(&other)?;
            bail!(Value, "{fname}: direction must be 'ASCENDING' or 'DESCENDING', not {r}")
        }
    }
}

static SORT: Native = Native::new("sort", &["values: TensorLike", "axis: int = -1", "direction='ASCENDING'"], sort)
    .spelled(&["tf.sort"]);

/// `sort(values, axis=-1, direction='ASCENDING')`: the values sorted along `axis`.
///
/// Stable; NaN sorts above +inf (TF's CPU order for NaN is unspecified). Shapes: same as
/// values. Dtypes: float32, float64, int64. Gradient: upstream routed to each value's position.
/// Errors: ValueError for a scalar or a bad direction; ShapeError for a bad axis; TypeError for bool.
/// See: tf.sort.
fn sort(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SORT.bind(rt, args)?;
    let (t, axis, dir) = (a.tensor("values")?, a.int_or("axis", -1)?, a.opt("direction")?);
    let desc = direction(rt, dir, "sort")?;
    Ok(Value::Tensor(rt.ad.sort(&t, axis, desc)?))
}

static ARGSORT: Native = Native::new(
    "argsort",
    &["values: TensorLike", "axis: int = -1", "direction='ASCENDING'", "stable: bool = False"],
    argsort,
)
.spelled(&["tf.argsort"])
// DGL's int64 indices (TF's are int32, as `tf.argsort` gives them here).
.exported_as("dgl_tf.argsort");

/// The dtype of the indices `top_k`, `argsort` and `unique` give: int64, or TF's int32 when
/// called as `tf.`.
fn index_dtype(rt: &Interp) -> DType {
    if rt.dialect == Dialect::Tf {
        DType::I32
    } else {
        DType::I64
    }
}

/// `argsort(values, axis=-1, direction='ASCENDING', stable=False)`: int64 indices (int32 as
/// `tf.argsort`) that sort values along `axis`.
///
/// Always stable (ties keep their order, in either direction), whatever `stable` says;
/// NaN sorts above +inf. Shapes: same as values. Gradient: none (int64).
/// Errors: as sort.
/// See: tf.argsort.
fn argsort(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = ARGSORT.bind(rt, args)?;
    let (t, axis, dir) = (a.tensor("values")?, a.int_or("axis", -1)?, a.opt("direction")?);
    let _stable = a.bool_or("stable", false)?;
    let desc = direction(rt, dir, "argsort")?;
    if t.shape().is_empty() {
        bail!(Value, "argsort: values must have rank >= 1, got a scalar");
    }
    let axis = crate::tensor::shape::norm_axis(axis, t.shape().len())?;
    let n = t.shape()[axis];
    let post: usize = t.shape()[axis + 1..].iter().product();
    let perm = sorting::sort_perm(&t.data, axis, n, desc, "argsort")?;
    let pos: Vec<f64> = perm.iter().map(|&p| ((p / post.max(1)) % n.max(1)) as f64).collect();
    Ok(Value::Tensor(Tensor::new(Array::from_f64(index_dtype(rt), t.shape(), pos))))
}

static TOP_K: Native = Native::new("top_k", &["input: TensorLike", "k: int = 1", "sorted: bool = True"], top_k)
    .spelled(&["tf.math.top_k", "tf.nn.top_k"])
    // DGL's int64 indices (TF's are int32, as `tf.math.top_k` gives them here).
    .exported_as("dgl_tf.top_k");

/// `top_k(input, k=1, sorted=True)`: `(values, indices)` of the k largest entries along
/// the last axis, largest first, ties by lower index (the result unpacks as a pair and
/// has `.values` and `.indices`, as TF's namedtuple).
///
/// Shapes: [..., n] → [..., k] both. Dtypes: float32, float64, int64; indices int64 (int32 as
/// `tf.math.top_k`).
/// Gradient: to values, upstream routed to the selected positions. NaN counts as the
/// largest value (TF's CPU order for NaN is unspecified).
/// Errors: ValueError for a scalar input, k < 0 or k > n; TypeError for bool.
/// See: tf.math.top_k.
fn top_k(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = TOP_K.bind(rt, args)?;
    let (t, k, _sorted) = (a.tensor("input")?, a.int_or("k", 1)?, a.bool_or("sorted", true)?);
    let (v, i) = rt.ad.top_k(&t, k)?;
    let i = Tensor::new(i.data.cast(index_dtype(rt)));
    Ok(named_tuple(rt, "TopKV2", &[("values", Value::Tensor(v)), ("indices", Value::Tensor(i))]))
}

static UNIQUE: Native = Native::new("unique", &["x: TensorLike", "out_idx: DType | None = None"], unique)
    .spelled(&["tf.unique"])
    // DGL's int64 indices (TF's are int32, as `tf.unique` gives them here).
    .exported_as("dgl_tf.unique");

/// `unique(x)`: `(y, idx)`: the distinct values of a 1-D tensor in first-occurrence
/// order, and for each element of x the position of its value in y (`x == gather(y, idx)`).
///
/// The result unpacks as a pair and has `.y` and `.idx`, as TF's namedtuple. Dtypes:
/// float32, float64, int64; idx int64 (int32 as `tf.unique`), or `out_idx`. Gradient: none (TF registers none either).
/// Errors: ValueError when x is not 1-D; TypeError for bool.
/// See: tf.unique.
fn unique(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let default = index_dtype(rt);
    let mut a = UNIQUE.bind(rt, args)?;
    let (t, out_idx) = (a.tensor("x")?, a.index_dtype("out_idx", default)?);
    if t.shape().len() != 1 {
        bail!(Value, "unique: x must be 1-D, got shape {}", crate::tensor::shape_str(t.shape()));
    }
    let (first, idx) = sorting::unique(&t.data)?;
    let y = Tensor::new(sorting::take(&t.data, &first, &[first.len()]));
    let n = idx.len();
    let idx = Array::I64(ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[n]), idx).expect("1-D"));
    let idx = Tensor::new(idx.narrowed_to(out_idx));
    Ok(named_tuple(rt, "Unique", &[("y", Value::Tensor(y)), ("idx", Value::Tensor(idx))]))
}

static EINSUM: Native = Native::new("einsum", &["equation", "*inputs", "optimize=None", "name=None"], einsum)
    .spelled(&["tf.einsum", "tf.linalg.einsum", "np.einsum"]);

/// `einsum(equation, *inputs)`: Einstein summation over the labelled axes.
///
/// `equation`: `'ij,jk->ik'`; without `->` the output is the ellipsis axes then the labels
/// appearing once, alphabetically; a repeated label in one input takes a diagonal
/// (`'ii->i'`); `...` stands for broadcast leading axes. Dtypes: one of float32, float64,
/// int64 for all inputs. Gradient: through the contraction (each VJP is again a
/// contraction: the operations are batched matmuls, transposes, sums and diagonals).
/// Errors: ValueError naming the problem for a malformed equation, a wrong operand count or
/// an operand whose rank does not match its subscripts; ShapeError when one label has two sizes.
/// See: tf.einsum.
fn einsum(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = EINSUM.bind(rt, args)?;
    let _ = (a.opt("optimize")?, a.opt("name")?);
    let (eq, ops) = (a.value("equation")?, std::mem::take(&mut a.rest));
    let Value::Str(eq) = &eq else { bail!(Type, "einsum: equation must be a string, not {}", eq.type_name()) };
    if ops.is_empty() {
        bail!(Value, "einsum: equation '{eq}' needs at least one operand");
    }
    let ts = ops.iter().map(|v| rt.tensor_arg(v)).collect::<R<Vec<_>>>()?;
    Ok(Value::Tensor(rt.ad.einsum(eq, &ts)?))
}

const MAP_FIRST_AXIS_SIG: Signature = Signature::new(&[
    "fn",
    "elems",
    "fallback_to_while_loop=None",
    "dtype=None",
    "fn_output_signature=None",
    "parallel_iterations=None",
]);
static VECTORIZED_MAP: Native =
    Native::with("vectorized_map", MAP_FIRST_AXIS_SIG, |rt, a| map_first_axis(rt, a, "vectorized_map"))
        .spelled(&["tf.vectorized_map"])
        // Arguments TF's op lacks (dtype=, out_type=, the other mapping op's options), and
        // DGL's dtypes for fill and rank.
        .exported_as("dgl_tf.vectorized_map");
static MAP_FN: Native = Native::with("map_fn", MAP_FIRST_AXIS_SIG, |rt, a| map_first_axis(rt, a, "map_fn"))
    .spelled(&["tf.map_fn"])
    // Arguments TF's op lacks (dtype=, out_type=, the other mapping op's options), and
    // DGL's dtypes for fill and rank.
    .exported_as("dgl_tf.map_fn");

/// `vectorized_map(fn, elems)` / `map_fn(fn, elems)`: `fn` applied to each slice of elems
/// along axis 0, the results stacked along a new axis 0.
///
/// `elems` is a tensor or a (nested) tuple/list of tensors with one first-axis size; `fn`
/// gets one slice of the same structure and may return a tensor, a number or a (nested)
/// tuple/list/dict of them, stacked leaf by leaf. Runs as a loop (DGL does not vectorise),
/// so results equal TF's. Gradient: through the slices, fn's operations and the stack.
/// Errors: ValueError for an empty or scalar elems, differing first-axis sizes, or results
/// whose structure or shapes differ between slices; whatever fn raises.
/// See: tf.vectorized_map, tf.map_fn (`dtype`/`fn_output_signature` are accepted and unused).
fn map_first_axis(rt: &mut Interp, args: &mut Args, fname: &str) -> R<Value> {
    let mut a = MAP_FIRST_AXIS_SIG.bind(rt, args)?;
    let (f, elems) = (a.value("fn")?, a.value("elems")?);
    let n = first_axis(rt, &elems, fname)?;
    if n == Some(0) || n.is_none() {
        bail!(Value, "{fname}: elems must have at least one element along axis 0");
    }
    let n = n.expect("checked");
    let mut results = Vec::with_capacity(n);
    for i in 0..n {
        rt.check_interrupt()?;
        let slice = slice_structure(rt, &elems, i)?;
        results.push(rt.call_value(&f, vec![slice], vec![])?);
    }
    stack_structure(rt, &results, fname)
}

/// The common first-axis size of the tensors in a structure (`None` when it holds none).
fn first_axis(rt: &mut Interp, v: &Value, fname: &str) -> R<Option<usize>> {
    match v {
        Value::List(_) | Value::Tuple(_) => {
            let mut n = None;
            for x in rt.iterate(v)? {
                if let Some(m) = first_axis(rt, &x, fname)? {
                    if n.is_some_and(|n| n != m) {
                        bail!(Value, "{fname}: elems have different sizes along axis 0 ({} and {m})", n.unwrap_or(0));
                    }
                    n = Some(m);
                }
            }
            Ok(n)
        }
        _ => {
            let t = rt.tensor_arg(v)?;
            match t.shape().first() {
                Some(&d) => Ok(Some(d)),
                None => bail!(Value, "{fname}: elems must have rank >= 1, got a scalar"),
            }
        }
    }
}

/// Slice `i` along axis 0 of every tensor in a structure.
fn slice_structure(rt: &mut Interp, v: &Value, i: usize) -> R<Value> {
    Ok(match v {
        Value::List(_) => {
            let xs = rt.iterate(v)?;
            Value::list(xs.iter().map(|x| slice_structure(rt, x, i)).collect::<R<_>>()?)
        }
        Value::Tuple(xs) => Value::tuple(xs.iter().map(|x| slice_structure(rt, x, i)).collect::<R<_>>()?),
        _ => {
            let t = rt.tensor_arg(v)?;
            let info = crate::autodiff::ops::axis_slice(t.shape().len(), 0, ndarray::SliceInfoElem::Index(i as isize));
            Value::Tensor(rt.ad.index(&t, info)?)
        }
    })
}

/// Stacks per-slice results leaf by leaf (same structure each time).
fn stack_structure(rt: &mut Interp, rs: &[Value], fname: &str) -> R<Value> {
    let same = |want: &str| crate::err!(Value, "{fname}: fn returned {want} for one element but not for another");
    Ok(match &rs[0] {
        Value::List(_) | Value::Tuple(_) => {
            let parts: Vec<Vec<Value>> = rs.iter().map(|r| rt.iterate(r)).collect::<R<_>>()?;
            let k = parts[0].len();
            let kinds_match = rs.iter().all(|r| std::mem::discriminant(r) == std::mem::discriminant(&rs[0]));
            if !kinds_match || parts.iter().any(|p| p.len() != k) {
                return Err(same(&format!("a sequence of {k} items")));
            }
            let mut out = Vec::with_capacity(k);
            for j in 0..k {
                let col: Vec<Value> = parts.iter().map(|p| p[j].clone()).collect();
                out.push(stack_structure(rt, &col, fname)?);
            }
            if matches!(rs[0], Value::List(_)) {
                Value::list(out)
            } else {
                Value::tuple(out)
            }
        }
        Value::Dict(d0) => {
            let keys: Vec<Value> = d0.borrow().values().map(|(k, _)| k.clone()).collect();
            let out = Value::Dict(Default::default());
            for key in keys {
                let mut col = Vec::with_capacity(rs.len());
                for r in rs {
                    if !matches!(r, Value::Dict(_)) {
                        return Err(same("a dict"));
                    }
                    col.push(rt.get_item(r, &key)?);
                }
                let v = stack_structure(rt, &col, fname)?;
                rt.set_item(&out, key, v)?;
            }
            out
        }
        _ => {
            let ts = rs.iter().map(|r| rt.tensor_arg(r)).collect::<R<Vec<_>>>()?;
            if let Some(t) = ts.iter().find(|t| t.shape() != ts[0].shape() || t.dtype() != ts[0].dtype()) {
                bail!(
                    Value,
                    "{fname}: fn returned results of different shapes or dtypes: {} {} and {} {}",
                    ts[0].dtype(),
                    crate::tensor::shape_str(ts[0].shape()),
                    t.dtype(),
                    crate::tensor::shape_str(t.shape())
                );
            }
            Value::Tensor(rt.ad.stack(&ts, 0)?)
        }
    })
}

/// A result that unpacks as a tuple and names its fields (TF's namedtuples such as
/// `TopKV2(values=…, indices=…)`): an instance of a class of that name whose `__iter__`,
/// `__getitem__` and `__len__` are those of the tuple of its fields.
pub fn named_tuple(rt: &mut Interp, name: &str, fields: &[(&str, Value)]) -> Value {
    let class = named_tuple_class(rt, name, fields);
    let attrs = fields.iter().map(|(k, v)| (intern(k), v.clone())).collect();
    Value::Instance(Rc::new(Instance { class, attrs: std::cell::RefCell::new(attrs) }))
}

/// The class of [`named_tuple`] results named `name` (one per name, kept in the builtins
/// under a name no script can write: `<namedtuple NAME>`).
fn named_tuple_class(rt: &mut Interp, name: &str, fields: &[(&str, Value)]) -> Rc<Class> {
    let key = intern(&format!("<namedtuple {name}>"));
    if let Some(Value::Class(c)) = rt.builtins.get(&key) {
        return c.clone();
    }
    let class = Class { name: name.into(), base: None, attrs: Default::default(), error_kind: None };
    {
        let mut at = class.attrs.borrow_mut();
        let names = Value::tuple(fields.iter().map(|(k, _)| Value::str(k)).collect());
        at.insert(intern("_fields"), names);
        // `__iter__`/`__len__` are found by `call_dunder`, which passes the receiver first;
        // `__getitem__`, `__repr__`, `__str__` are read as attributes, so each is a property
        // that binds the receiver (class attributes that are builtins do not bind).
        for f in [&NAMED_TUPLE_ITER, &NAMED_TUPLE_LEN] {
            at.insert(intern(f.name), f.value());
        }
        for f in [&NAMED_TUPLE_GETITEM, &NAMED_TUPLE_REPR, &NAMED_TUPLE_STR] {
            at.insert(intern(f.name), Value::Property(Rc::new([f.value(), Value::None, Value::None])));
        }
    }
    let class = Rc::new(class);
    rt.builtins.insert(key, Value::Class(class.clone()));
    class
}

// A named tuple's special methods. `__iter__`/`__len__` are found by `call_dunder`, which passes
// the receiver first; the others are property getters that return the method bound to it.
static NAMED_TUPLE_ITER: Native = Native::new("__iter__", &["self"], field_tuple);
static NAMED_TUPLE_LEN: Native =
    Native::new("__len__", &["self"], |rt, a| Ok(Value::Int(field_values(rt, a)?.len() as i64)));
static NAMED_TUPLE_GETITEM: Native =
    Native::new("__getitem__", &["self"], |_, a| Ok(bind_receiver(a, &NAMED_TUPLE_ITEM)));
static NAMED_TUPLE_REPR: Native = Native::new("__repr__", &["self"], |_, a| Ok(bind_receiver(a, &NAMED_TUPLE_TEXT)));
static NAMED_TUPLE_STR: Native = Native::new("__str__", &["self"], |_, a| Ok(bind_receiver(a, &NAMED_TUPLE_TEXT)));
static NAMED_TUPLE_ITEM: Native = Native::new("__getitem__", &["index"], named_tuple_item);
static NAMED_TUPLE_TEXT: Native = Native::new("__repr__", &[], named_tuple_repr);

/// The field values of a named-tuple receiver (the first positional argument), in order.
fn field_values(rt: &mut Interp, a: &mut Args) -> R<Vec<Value>> {
    let Some(Value::Instance(me)) = a.pos.first().cloned() else {
        bail!(Type, "a named-tuple method needs its receiver")
    };
    let fields = rt.get_attr(&Value::Instance(me.clone()), intern("_fields"))?;
    let mut out = Vec::new();
    for f in rt.iterate(&fields)? {
        let Value::Str(s) = f else { continue };
        out.push(me.attrs.borrow().get(&intern(&s)).cloned().unwrap_or(Value::None));
    }
    Ok(out)
}

/// A property getter's result: `f` bound to the receiver (the getter's first argument).
fn bind_receiver(a: &mut Args, f: &'static Native) -> Value {
    let this = a.pos.first().cloned().unwrap_or(Value::None);
    Value::Method(Rc::new((this, f.value_named(&a.fname))))
}

/// `result[i]`: the fields as a tuple, indexed.
fn named_tuple_item(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let items = field_values(rt, a)?;
    let i = a.pos.get(1).cloned().unwrap_or(Value::None);
    rt.get_item(&Value::tuple(items), &i)
}

fn field_tuple(rt: &mut Interp, a: &mut Args) -> R<Value> {
    Ok(Value::tuple(field_values(rt, a)?))
}

/// `TopKV2(values=tensor([…]), indices=tensor([…], dtype=int64))`.
fn named_tuple_repr(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let Some(Value::Instance(me)) = a.pos.first().cloned() else {
        bail!(Type, "a named-tuple method needs its receiver")
    };
    let fields = rt.get_attr(&Value::Instance(me.clone()), intern("_fields"))?;
    let mut parts = Vec::new();
    for f in rt.iterate(&fields)? {
        let Value::Str(s) = f else { continue };
        let v = me.attrs.borrow().get(&intern(&s)).cloned().unwrap_or(Value::None);
        parts.push(format!("{s}={}", rt.repr_of(&v)?));
    }
    Ok(Value::str(&format!("{}({})", me.class.name, parts.join(", "))))
}
