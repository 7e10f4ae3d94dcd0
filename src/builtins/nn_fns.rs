//! Neural-network functions (TF's `tf.nn.*` without the prefix): convolution,
//! pooling, sigmoid cross-entropy, L2 loss and normalisation, dropout. The differentiable ones
//! record through the autodiff [`Recorder`](crate::autodiff::Recorder) (`autodiff/ops/conv.rs`,
//! `autodiff/ops/nn_losses.rs`); the `nn` module of the stdlib exposes them as `nn.*` too.

use crate::bail;
use crate::builtins::{Native, Signature};
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::conv::{Padding, Window};
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::{shape_str, Array, Tensor};
use rand::Rng;

/// Registers this file's functions.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&CONV2D);
    reg(&CONV2D_TRANSPOSE);
    reg(&MAX_POOL2D);
    reg(&AVG_POOL2D);
    reg(&SIGMOID_CROSS_ENTROPY_WITH_LOGITS);
    reg(&L2_LOSS);
    reg(&L2_NORMALIZE);
    reg(&DROPOUT);
}

/// The layout of a 4-D image tensor (`data_format`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Nhwc,
    Nchw,
}

impl Format {
    fn parse(rt: &mut Interp, v: Option<Value>, what: &str) -> R<Format> {
        match v {
            None => Ok(Format::Nhwc),
            Some(Value::Str(s)) if &*s == "NHWC" => Ok(Format::Nhwc),
            Some(Value::Str(s)) if &*s == "NCHW" => Ok(Format::Nchw),
            Some(other) => {
                let shown = rt.repr_of(&other)?;
                bail!(Value, "{what}: data_format must be 'NHWC' or 'NCHW', got {shown}")
            }
        }
    }

    /// The positions of (height, width) in a 4-entry list of this layout.
    fn spatial(self) -> (usize, usize) {
        match self {
            Format::Nhwc => (1, 2),
            Format::Nchw => (2, 3),
        }
    }

    /// The positions of (batch, channels).
    fn other(self) -> (usize, usize) {
        match self {
            Format::Nhwc => (0, 3),
            Format::Nchw => (0, 1),
        }
    }
}

/// `strides`, `dilations` or `ksize`: an int, or a list of 1, 2 or 4 positive ints (4 in
/// `data_format`'s order, with 1 for batch and channels), as TF reads them; `(rows, columns)`.
///
/// Errors: ValueError for another length or a value below 1; NotImplementedError for a
/// batch or channel entry other than 1 (TF's UnimplementedError).
fn window_pair(rt: &mut Interp, v: &Value, param: &str, what: &str, fmt: Format) -> R<(usize, usize)> {
    let list = match v {
        Value::List(_) | Value::Tuple(_) => {
            let items = rt.iterate(v)?;
            items.iter().map(|x| rt.int_arg(x, param)).collect::<R<Vec<i64>>>()?
        }
        other => vec![rt.int_arg(other, param)?],
    };
    let (r, c) = match list.len() {
        1 => (list[0], list[0]),
        2 => (list[0], list[1]),
        4 => {
            let ((b, ch), (h, w)) = (fmt.other(), fmt.spatial());
            if list[b] != 1 || list[ch] != 1 {
                bail!(NotImplemented, "{what}: {param} in the batch and channel dimensions must be 1, got {list:?}");
            }
            (list[h], list[w])
        }
        n => bail!(Value, "{what}: {param} must be an int or a list of 1, 2 or 4 ints, got a list of length {n}"),
    };
    if r < 1 || c < 1 {
        bail!(Value, "{what}: {param} must be positive, got {list:?}");
    }
    // Bounded like any size (tensor/budget.rs), so the window arithmetic cannot overflow.
    let limit = crate::tensor::budget::MAX_ELEMENTS as i64;
    if r > limit || c > limit {
        bail!(Value, "{what}: {param} of {list:?} is too large (the limit is {limit})");
    }
    Ok((r as usize, c as usize))
}

/// `padding`: 'SAME', 'VALID' or, where `explicit` is allowed, 4 `[before, after]` pairs in
/// `data_format`'s order (zeros for batch and channels).
///
/// Errors: ValueError for anything else (TF spells the modes in capitals only).
fn padding(rt: &mut Interp, v: &Value, what: &str, fmt: Format, explicit: bool) -> R<Padding> {
    match v {
        Value::Str(s) if &**s == "SAME" => return Ok(Padding::Same),
        Value::Str(s) if &**s == "VALID" => return Ok(Padding::Valid),
        Value::List(_) | Value::Tuple(_) if explicit => {
            let pairs = rt.iterate(v)?;
            if pairs.len() != 4 {
                bail!(
                    Value,
                    "{what}: an explicit padding is a list of 4 [before, after] pairs, got {} entries",
                    pairs.len()
                );
            }
            let mut p = [[0i64; 2]; 4];
            for (slot, pair) in p.iter_mut().zip(&pairs) {
                let items = rt.iterate(pair)?;
                if items.len() != 2 {
                    bail!(
                        Value,
                        "{what}: each explicit padding entry is a [before, after] pair, got {} values",
                        items.len()
                    );
                }
                for (s, x) in slot.iter_mut().zip(&items) {
                    *s = rt.int_arg(x, "padding")?;
                    if *s < 0 || *s > crate::tensor::budget::MAX_ELEMENTS as i64 {
                        bail!(
                            Value,
                            "{what}: padding must be non-negative and at most {}, got {}",
                            crate::tensor::budget::MAX_ELEMENTS,
                            *s
                        );
                    }
                }
            }
            let ((b, ch), (h, w)) = (fmt.other(), fmt.spatial());
            if p[b] != [0, 0] || p[ch] != [0, 0] {
                bail!(Value, "{what}: padding in the batch and channel dimensions must be 0, got {p:?}");
            }
            let u = |x: i64| x as usize;
            return Ok(Padding::Explicit([[u(p[h][0]), u(p[h][1])], [u(p[w][0]), u(p[w][1])]]));
        }
        _ => {}
    }
    let shown = rt.repr_of(v)?;
    let allowed = if explicit { "'SAME', 'VALID' or a list of 4 [before, after] pairs" } else { "'SAME' or 'VALID'" };
    bail!(Value, "{what}: padding must be {allowed}, got {shown}")
}

/// An NCHW tensor as NHWC (a recorded transpose), or the tensor itself.
fn to_nhwc(rt: &mut Interp, x: &Tensor, fmt: Format, what: &str) -> R<Tensor> {
    if fmt == Format::Nhwc {
        return Ok(x.clone());
    }
    if x.shape().len() != 4 {
        bail!(
            Shape,
            "{what} needs an input of rank 4 [batch, channels, height, width], got shape {}",
            shape_str(x.shape())
        );
    }
    rt.ad.transpose(x, Some(vec![0, 2, 3, 1]))
}

fn from_nhwc(rt: &mut Interp, y: Tensor, fmt: Format) -> R<Tensor> {
    match fmt {
        Format::Nhwc => Ok(y),
        Format::Nchw => rt.ad.transpose(&y, Some(vec![0, 3, 1, 2])),
    }
}

static CONV2D: Native = Native::new(
    "conv2d",
    &[
        "input: TensorLike",
        "filters: TensorLike",
        "strides",
        "padding",
        "data_format='NHWC'",
        "dilations=None",
        "name=None",
    ],
    conv2d,
)
.spelled(&["tf.nn.conv2d"])
// TF's oneDNN conv2d gives a wrong shape where the VALID output is empty.
.exported_as("dgl_tf.conv2d");

/// `conv2d(input, filters, strides, padding, data_format='NHWC', dilations=None)`: 2-D
/// convolution (cross-correlation, as TF), computed as im2col + GEMM.
///
/// Shapes: input [batch, h, w, in_c] (NCHW: [batch, in_c, h, w]), filters [fh, fw, in_c,
/// out_c] → [batch, out_h, out_w, out_c]; SAME gives out = ceil(in / stride), VALID
/// (in − (f − 1)·dilation − 1) / stride + 1, explicit padding `[[0, 0], [top, bottom],
/// [left, right], [0, 0]]` likewise over the padded input.
/// Dtypes: float32, float64 (both operands alike).
/// Gradient: input: the transposed convolution of the upstream; filters: the correlation of
/// input and upstream; both recorded, so gradients of every order work.
/// Errors: ShapeError naming both shapes for wrong ranks, channels or a window that does not
/// fit; ValueError for bad strides, dilations or padding; NotImplementedError for strides in
/// the batch or channel dimensions (as TF); TypeError for other or mixed dtypes.
/// See: tf.nn.conv2d (also `nn.conv2d`).
fn conv2d(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = CONV2D.bind(rt, args)?;
    let (x, w, strides, pad) = (a.tensor("input")?, a.tensor("filters")?, a.value("strides")?, a.value("padding")?);
    let layout = (a.non_none("data_format")?, a.non_none("dilations")?);
    let (fmt, win) = conv_window(rt, layout, &strides, &pad, "conv2d")?;
    let xin = to_nhwc(rt, &x, fmt, "conv2d")?;
    let y = rt.ad.conv2d(&xin, &w, win)?;
    Ok(Value::Tensor(from_nhwc(rt, y, fmt)?))
}

/// The layout and the window of a convolution from its `strides`, `padding` and its
/// `data_format` and `dilations` parameters, read as `conv2d` reads them.
fn conv_window(
    rt: &mut Interp,
    (fmt, dil): (Option<Value>, Option<Value>),
    strides: &Value,
    pad: &Value,
    what: &str,
) -> R<(Format, Window)> {
    let fmt = Format::parse(rt, fmt, what)?;
    let strides = window_pair(rt, strides, "strides", what, fmt)?;
    let dilations = match dil {
        Some(d) => window_pair(rt, &d, "dilations", what, fmt)?,
        None => (1, 1),
    };
    let padding = padding(rt, pad, what, fmt, true)?;
    Ok((fmt, Window { strides, dilations, padding }))
}

static CONV2D_TRANSPOSE: Native = Native::new(
    "conv2d_transpose",
    &[
        "input: TensorLike",
        "filters: TensorLike",
        "output_shape: Shape",
        "strides",
        "padding='SAME'",
        "data_format='NHWC'",
        "dilations=None",
        "name=None",
    ],
    conv2d_transpose,
)
.spelled(&["tf.nn.conv2d_transpose"]);

/// `conv2d_transpose(input, filters, output_shape, strides, padding='SAME', data_format='NHWC',
/// dilations=None)`: the transposed convolution (the gradient of `conv2d` with respect to its
/// input, TF's Conv2DBackpropInput), computed as GEMM + col2im.
///
/// Shapes: input [batch, h, w, in_c], filters [fh, fw, out_c, in_c], output_shape [batch,
/// out_h, out_w, out_c] (a list or a 1-D tensor); `conv2d` of an `output_shape` tensor with the
/// same filters, strides and padding must give the input's shape.
/// Dtypes: float32, float64 (both operands alike).
/// Gradient: input: `conv2d` of the upstream with the filters; filters: the correlation of the
/// upstream and the input; both recorded, so gradients of every order work.
/// Errors: ShapeError when the shapes do not fit that way (naming them); ValueError for bad
/// strides, dilations or padding; TypeError for other or mixed dtypes.
/// See: tf.nn.conv2d_transpose (Keras's Conv2DTranspose computes with it).
fn conv2d_transpose(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = CONV2D_TRANSPOSE.bind(rt, args)?;
    let (x, w, out) = (a.tensor("input")?, a.tensor("filters")?, a.shape("output_shape")?);
    let (strides, pad) = (a.value("strides")?, a.value_or("padding", Value::str("SAME"))?);
    let layout = (a.non_none("data_format")?, a.non_none("dilations")?);
    let (fmt, win) = conv_window(rt, layout, &strides, &pad, "conv2d_transpose")?;
    if out.len() != 4 || out.iter().any(|&d| d < 0) {
        bail!(Value, "conv2d_transpose: output_shape must be 4 non-negative sizes, got {out:?}");
    }
    let mut out: Vec<usize> = out.iter().map(|&d| d as usize).collect();
    if fmt == Format::Nchw {
        out = vec![out[0], out[2], out[3], out[1]];
    }
    let xin = to_nhwc(rt, &x, fmt, "conv2d_transpose")?;
    let y = rt.ad.conv2d_transpose(&xin, &w, &out, win)?;
    Ok(Value::Tensor(from_nhwc(rt, y, fmt)?))
}

#[derive(Clone, Copy)]
enum Pool {
    Max,
    Avg,
}

const POOL2D_SIG: Signature =
    Signature::new(&["input: TensorLike", "ksize", "strides", "padding", "data_format='NHWC'", "name=None"]);
static MAX_POOL2D: Native =
    Native::with("max_pool2d", POOL2D_SIG, |rt, a| pool2d(rt, a, Pool::Max)).spelled(&["tf.nn.max_pool2d"]);
static AVG_POOL2D: Native =
    Native::with("avg_pool2d", POOL2D_SIG, |rt, a| pool2d(rt, a, Pool::Avg)).spelled(&["tf.nn.avg_pool2d"]);

/// `max_pool2d(input, ksize, strides, padding, data_format='NHWC')` and
/// `avg_pool2d(…)`: the maximum or mean of each ksize window.
///
/// Shapes: input [batch, h, w, c] → [batch, out_h, out_w, c] (sizes as conv2d's).
/// Dtypes: float32, float64.
/// Values: SAME padding never wins a maximum and is not counted in a mean (TF's rule).
/// max_pool2d also takes explicit padding, as TF; avg_pool2d does not.
/// Gradient: max: to the first maximum of each window in row-major order (TF's CPU rule);
/// avg: spread evenly over the window's input elements. Both recorded (second order works).
/// Errors: ShapeError for a rank other than 4 or a window that does not fit; ValueError for
/// bad ksize, strides or padding; NotImplementedError for pooling over batch or channels.
/// See: tf.nn.max_pool2d, tf.nn.avg_pool2d (also `nn.max_pool2d`, `nn.avg_pool2d`).
fn pool2d(rt: &mut Interp, args: &mut Args, kind: Pool) -> R<Value> {
    let what = match kind {
        Pool::Max => "max_pool2d",
        Pool::Avg => "avg_pool2d",
    };
    let mut a = POOL2D_SIG.bind(rt, args)?;
    let (x, k, strides, pad) = (a.tensor("input")?, a.value("ksize")?, a.value("strides")?, a.value("padding")?);
    let fmt = a.non_none("data_format")?;
    let fmt = Format::parse(rt, fmt, what)?;
    let k = window_pair(rt, &k, "ksize", what, fmt)?;
    let strides = window_pair(rt, &strides, "strides", what, fmt)?;
    let padding = padding(rt, &pad, what, fmt, matches!(kind, Pool::Max))?;
    let xin = to_nhwc(rt, &x, fmt, what)?;
    let win = Window { strides, dilations: (1, 1), padding };
    let y = match kind {
        Pool::Max => rt.ad.max_pool2d(&xin, k, win)?,
        Pool::Avg => rt.ad.avg_pool2d(&xin, k, win)?,
    };
    Ok(Value::Tensor(from_nhwc(rt, y, fmt)?))
}

static SIGMOID_CROSS_ENTROPY_WITH_LOGITS: Native =
    Native::new("sigmoid_cross_entropy_with_logits", &["labels", "logits: TensorLike", "name=None"], sigmoid_xent)
        .spelled(&["tf.nn.sigmoid_cross_entropy_with_logits"]);

/// `sigmoid_cross_entropy_with_logits(labels, logits)`: see
/// [`Recorder::sigmoid_xent`](crate::autodiff::Recorder::sigmoid_xent).
///
/// Shapes: labels and logits alike. Dtypes: float32, float64 (Python numbers and lists take
/// the logits' dtype). Gradient: σ(logits) − labels, and −logits for the labels.
/// Errors: ShapeError naming both shapes; TypeError for other dtypes.
/// See: tf.nn.sigmoid_cross_entropy_with_logits.
fn sigmoid_xent(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SIGMOID_CROSS_ENTROPY_WITH_LOGITS.bind(rt, args)?;
    let (labels, logits) = (a.value("labels")?, a.tensor("logits")?);
    // A tensor keeps its dtype, which must be the logits' (TF refuses a mismatch, as every
    // float32/float64 mix is refused); Python numbers and lists take the logits' dtype.
    let labels = match &labels {
        Value::Tensor(_) | Value::Variable(_) => {
            let t = rt.to_tensor(&labels, None)?;
            if t.dtype() != logits.dtype() {
                let (d, l) = (t.dtype(), logits.dtype());
                bail!(Type, "sigmoid_cross_entropy_with_logits: labels are {d} but logits are {l} (cast one)");
            }
            t
        }
        _ => rt.to_tensor(&labels, Some(logits.dtype()))?,
    };
    Ok(Value::Tensor(rt.ad.sigmoid_xent(&labels, &logits)?))
}

static L2_LOSS: Native = Native::new("l2_loss", &["t: TensorLike", "name=None"], l2_loss).spelled(&["tf.nn.l2_loss"]);

/// `l2_loss(t)`: `sum(t²) / 2`, a scalar of t's dtype.
///
/// Dtypes: float32, float64. Gradient: t times the upstream.
/// Errors: TypeError for other dtypes.
/// See: tf.nn.l2_loss.
fn l2_loss(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let t = L2_LOSS.bind(rt, args)?.tensor("t")?;
    Ok(Value::Tensor(rt.ad.l2_loss(&t)?))
}

static L2_NORMALIZE: Native = Native::new(
    "l2_normalize",
    &["x: TensorLike", "axis: Axes = None", "epsilon: float = 1e-12", "name=None"],
    l2_normalize,
)
.spelled(&["tf.math.l2_normalize", "tf.nn.l2_normalize", "tf.linalg.l2_normalize"]);

/// `l2_normalize(x, axis=None, epsilon=1e-12)`: `x / sqrt(max(sum(x², axis), epsilon))`.
///
/// Shapes: x's (`axis`: None for all, an int or a list). Dtypes: float32, float64.
/// Gradient: through the composition (TF's).
/// Errors: ShapeError for an axis out of range; TypeError for other dtypes.
/// See: tf.math.l2_normalize.
fn l2_normalize(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = L2_NORMALIZE.bind(rt, args)?;
    let (x, axes, eps) = (a.tensor("x")?, a.axes("axis")?, a.float_or("epsilon", 1e-12)?);
    Ok(Value::Tensor(rt.ad.l2_normalize(&x, axes.as_deref(), eps)?))
}

static DROPOUT: Native = Native::new(
    "dropout",
    &["x: TensorLike", "rate: float", "noise_shape=None", "seed: int | None = None", "name=None"],
    dropout,
)
.spelled(&["tf.nn.dropout"])
// DGL's draws, replayed from the .npz written beside the script.
.exported_as("dgl_tf.dropout");

/// `dropout(x, rate, noise_shape=None, seed=None)`: keeps each element with probability
/// 1 − rate, scaled by 1 / (1 − rate), and zeroes the rest.
///
/// Shapes: x's; `noise_shape` (ints, `None` entries meaning x's size) shapes the random keep
/// mask, which broadcasts over x (so `[batch, 1]` drops whole rows).
/// Dtypes: float32, float64.
/// Randomness: one uniform draw per mask element from the seeded streams (`seed=` as every
/// random op); under `recompute_grad` the recomputation sees the same mask (docs/language.md §5).
/// `rate = 0` returns x itself and draws nothing.
/// Gradient: the same mask times 1 / (1 − rate).
/// Errors: ValueError for a rate outside [0, 1) or a non-float x (TF's kinds); ShapeError for
/// a noise_shape that does not broadcast to x's shape.
/// See: tf.nn.dropout (also `nn.dropout`).
fn dropout(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = DROPOUT.bind(rt, args)?;
    let (x, rate, noise) = (a.tensor("x")?, a.float("rate")?, a.non_none("noise_shape")?);
    let seed = a.opt_int("seed")?;
    if !x.dtype().is_float() {
        bail!(Value, "dropout needs a float x, as it is scaled, got {}", x.dtype());
    }
    if !(0.0..1.0).contains(&rate) {
        bail!(Value, "dropout: rate must be in the range [0, 1), got {rate}");
    }
    if rate == 0.0 {
        return Ok(Value::Tensor(x));
    }
    let shape = match noise {
        None => x.shape().to_vec(),
        Some(v) => noise_shape(rt, &v, x.shape())?,
    };
    let n: usize = shape.iter().product();
    let scale = 1.0 / (1.0 - rate);
    let mut rng = rt.rng.stream("dropout", seed);
    let mask = (0..n).map(|_| if rng.random::<f64>() >= rate { scale } else { 0.0 }).collect();
    let mask = rt.drawn("dropout", Tensor::new(Array::from_f64(x.dtype(), &shape, mask)));
    Ok(Value::Tensor(rt.ad.mul(&x, &mask)?))
}

/// dropout's `noise_shape`: ints or `None` (x's size there), broadcasting to x's shape.
fn noise_shape(rt: &mut Interp, v: &Value, xs: &[usize]) -> R<Vec<usize>> {
    let items = match v {
        Value::List(_) | Value::Tuple(_) => rt.iterate(v)?,
        _ => {
            let dims = rt.shape_arg(v)?;
            dims.into_iter().map(Value::Int).collect()
        }
    };
    let mut shape = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let d = match item {
            Value::None => {
                let Some(d) = (xs.len() + i).checked_sub(items.len()).and_then(|j| xs.get(j)) else {
                    bail!(Shape, "dropout: noise_shape has more dimensions than x of shape {}", shape_str(xs));
                };
                *d as i64
            }
            other => rt.int_arg(other, "a noise_shape entry")?,
        };
        if d < 0 {
            bail!(Value, "dropout: noise_shape entries must be non-negative, got {d}");
        }
        shape.push(d as usize);
    }
    if broadcast_shapes(xs, &shape).ok().as_deref() != Some(xs) {
        bail!(Shape, "dropout: noise_shape {} does not broadcast to x's shape {}", shape_str(&shape), shape_str(xs));
    }
    Ok(shape)
}
