//! `_plot`: the native half of the figures. `stdlib/_figures.dgl` defines
//! `Figure`, `plot`, `hist` and `imshow` in DGL; these functions check and convert their data
//! (tensors, Variables, lists; float32, float64 or int64) to float64 tensors when a layer is
//! added, so a wrong argument fails at the call that passed it, and turn a figure's layers
//! into SVG, PNG or text (src/plot/) when it is shown or saved.

use crate::bail;
use crate::builtins::{Native, Signature};
use crate::error::R;
use crate::plot::{ColorMap, Figure, Layer, MAX_BINS};
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::{shape_str, Array, DType, Tensor};
use std::rc::Rc;

/// The module's names and values.
pub fn build(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    Ok(vec![
        ("line", LINE.value()),
        ("values", VALUES.value()),
        ("image", IMAGE.value()),
        ("bins", BINS.value()),
        ("cmap", CMAP.value()),
        ("render", RENDER.value()),
        ("save", SAVE.value()),
        ("graph", GRAPH.value()),
    ])
}

/// `x` as float64 values and its shape.
///
/// Errors: TypeError for a value that is not numeric (a string, a dict, None).
fn numbers(rt: &mut Interp, v: &Value, f: &str, what: &str) -> R<(Vec<usize>, Vec<f64>)> {
    if matches!(v, Value::None | Value::Str(_) | Value::Dict(_)) {
        bail!(Type, "{f}() {what} must be a tensor, a Variable or a list of numbers, not {}", v.type_name());
    }
    let t = rt.to_tensor(v, Some(DType::F64))?;
    Ok((t.shape().to_vec(), t.data.to_f64_vec()))
}

fn vector(values: Vec<f64>) -> Value {
    let n = values.len();
    Value::Tensor(Tensor::new(Array::from_f64(DType::F64, &[n], values)))
}

static LINE: Native = Native::new("line", &["xs", "ys"], line);

/// `_plot.line(xs, ys)` → `(xs, ys)` as float64 vectors; `xs` None means 0, 1, 2, ….
///
/// Errors: ValueError when either is not 1-D (a scalar counts as one point) or their
/// lengths differ (matplotlib's "x and y must have same first dimension").
fn line(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = LINE.bind(rt, args)?;
    let (xs, ys) = (a.value("xs")?, a.value("ys")?);
    let (ys_shape, ys) = numbers(rt, &ys, "plot", "ys")?;
    if ys_shape.len() > 1 {
        bail!(Value, "plot() ys must be 1-D, got shape {}", shape_str(&ys_shape));
    }
    let xs = match xs {
        Value::None => (0..ys.len()).map(|i| i as f64).collect(),
        xs => {
            let (xs_shape, xs) = numbers(rt, &xs, "plot", "xs")?;
            if xs_shape.len() > 1 {
                bail!(Value, "plot() xs must be 1-D, got shape {}", shape_str(&xs_shape));
            }
            if xs.len() != ys.len() {
                bail!(
                    Value,
                    "plot() xs and ys must have the same length, but have shapes ({},) and ({},)",
                    xs.len(),
                    ys.len()
                );
            }
            xs
        }
    };
    Ok(Value::Tuple(Rc::from(vec![vector(xs), vector(ys)])))
}

static VALUES: Native = Native::new("values", &["x"], values);

/// `_plot.values(x)`: every element of `x` (any shape, flattened), for `hist`.
fn values(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = VALUES.bind(rt, args)?.value("x")?;
    let (_, v) = numbers(rt, &x, "hist", "x")?;
    Ok(vector(v))
}

static IMAGE: Native = Native::new("image", &["x"], image);

/// `_plot.image(x)`: a 2-D float64 tensor of the image's values.
///
/// Errors: ValueError when `x` is not 2-D or has no pixels.
fn image(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let x = IMAGE.bind(rt, args)?.value("x")?;
    let (shape, v) = numbers(rt, &x, "imshow", "x")?;
    if shape.len() != 2 {
        bail!(
            Value,
            "imshow() x must be 2-D (rows, columns), got shape {}; reshape it first, e.g. reshape(x, [8, 8])",
            shape_str(&shape)
        );
    }
    if v.is_empty() {
        bail!(Value, "imshow() x has no pixels: shape {}", shape_str(&shape));
    }
    Ok(Value::Tensor(Tensor::new(Array::from_f64(DType::F64, &shape, v))))
}

static BINS: Native = Native::new("bins", &["bins: int"], bins);

/// `_plot.bins(n)`: a histogram's bin count, checked.
///
/// Errors: TypeError for a non-int; ValueError outside 1..=10000.
fn bins(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let n = BINS.bind(rt, args)?.int("bins")?;
    if !(1..=MAX_BINS as i64).contains(&n) {
        bail!(Value, "hist() bins must be from 1 to {MAX_BINS}, got {n}");
    }
    Ok(Value::Int(n))
}

static CMAP: Native = Native::new("cmap", &["cmap"], cmap);

/// `_plot.cmap(name)`: the name, checked.
///
/// Errors: ValueError for a colour map DGL does not have.
fn cmap(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let v = CMAP.bind(rt, args)?.value("cmap")?;
    match &v {
        Value::Str(s) if ColorMap::by_name(s).is_some() => Ok(v),
        Value::Str(s) => bail!(Value, "imshow() cmap '{s}' is not known; use 'viridis', 'gray' or 'gray_r'"),
        other => bail!(Type, "imshow() cmap must be a str, not {}", other.type_name()),
    }
}

/// The figure a `Figure` instance's fields describe: `layers` as `_figures.dgl` builds them,
/// `("line", xs, ys, label)`, `("hist", values, bins, label)`, `("image", x, cmap)`.
fn figure(rt: &mut Interp, layers: &Value, labels: [Value; 3]) -> R<Figure> {
    let text = |v: &Value| match v {
        Value::Str(s) => Some(s.to_string()),
        _ => None,
    };
    let floats = |v: &Value| match v {
        Value::Tensor(t) => Ok((t.shape().to_vec(), t.data.to_f64_vec())),
        _ => bail!(Type, "_plot: a figure layer holds a tensor, not {}", v.type_name()),
    };
    let mut fig =
        Figure { title: text(&labels[0]), xlabel: text(&labels[1]), ylabel: text(&labels[2]), layers: vec![] };
    for layer in rt.iterate(layers)? {
        let Value::Tuple(parts) = &layer else {
            bail!(Type, "_plot: a figure layer is a tuple, not {}", layer.type_name())
        };
        let layer = match (parts.first(), parts.len()) {
            (Some(Value::Str(k)), 4) if &**k == "line" => {
                Layer::Line { xs: floats(&parts[1])?.1, ys: floats(&parts[2])?.1, label: text(&parts[3]) }
            }
            (Some(Value::Str(k)), 4) if &**k == "hist" => Layer::Hist {
                values: floats(&parts[1])?.1,
                bins: match parts[2] {
                    Value::Int(n) => n.clamp(1, MAX_BINS as i64) as usize,
                    _ => 10,
                },
                label: text(&parts[3]),
            },
            (Some(Value::Str(k)), 3) if &**k == "image" => {
                let (shape, values) = floats(&parts[1])?;
                if shape.len() != 2 {
                    bail!(Value, "_plot: an image layer holds a 2-D tensor, not shape {shape:?}");
                }
                let cmap = text(&parts[2]).and_then(|s| ColorMap::by_name(&s)).unwrap_or(ColorMap::Viridis);
                Layer::Image { rows: shape[0], cols: shape[1], values, cmap }
            }
            _ => bail!(
                Type,
                "_plot: a figure layer is ('line', xs, ys, label), ('hist', values, bins, label) or ('image', x, cmap)"
            ),
        };
        fig.layers.push(layer);
    }
    Ok(fig)
}

const FIGURE: Signature = Signature::new(&["kind", "layers", "title", "xlabel", "ylabel"]);

static RENDER: Native = Native::with("render", FIGURE, render);

/// `_plot.render(kind, layers, title, xlabel, ylabel)`: the figure as "svg" text, "png"
/// bytes in base64 (IPython's `_repr_png_`), or "text" (the terminal plot).
fn render(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = FIGURE.bind(rt, args)?;
    let kind = a.value("kind")?;
    let layers = a.value("layers")?;
    let labels = [a.value("title")?, a.value("xlabel")?, a.value("ylabel")?];
    let fig = figure(rt, &layers, labels)?;
    let text = match &kind {
        Value::Str(k) if &**k == "svg" => crate::plot::draw::svg(&fig).map_err(|m| crate::err!(Runtime, "{m}"))?,
        Value::Str(k) if &**k == "text" => crate::plot::text::render(&fig),
        _ => bail!(Value, "_plot: no figure format {}; use 'svg' or 'text'", rt.repr_of(&kind)?),
    };
    Ok(Value::str(&text))
}

static SAVE: Native = Native::new("save", &["path", "layers", "title", "xlabel", "ylabel"], save);

/// `_plot.save(path, layers, title, xlabel, ylabel)`: writes the figure as SVG (`.svg`) or PNG
/// (`.png`, the same SVG rasterised, src/plot/png.rs) through the one atomic writer
/// (src/files.rs), the path resolved against the script's folder.
///
/// Errors: TypeError for a path that is not a str; ValueError for another extension;
/// IOError naming the path when it cannot be written (no such folder, permission, full disk).
fn save(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = SAVE.bind(rt, args)?;
    let path = a.value("path")?;
    let layers = a.value("layers")?;
    let labels = [a.value("title")?, a.value("xlabel")?, a.value("ylabel")?];
    let Value::Str(p) = &path else { bail!(Type, "Figure.save() path must be a str, not {}", path.type_name()) };
    let ext = std::path::Path::new(&**p).extension().map(|e| e.to_string_lossy().to_lowercase());
    let fig = figure(rt, &layers, labels)?;
    let svg = || crate::plot::draw::svg(&fig).map_err(|m| crate::err!(Runtime, "{m}"));
    let bytes = match ext.as_deref() {
        Some("svg") => svg()?.into_bytes(),
        Some("png") => crate::plot::png::svg_to_png(&svg()?, 1.0).map_err(|m| crate::err!(Runtime, "{m}"))?,
        Some(e) => bail!(Value, "Figure.save() cannot write '.{e}' files; use a path ending in .svg or .png"),
        None => bail!(Value, "Figure.save() needs a file name ending in .svg or .png, got '{p}'"),
    };
    write_file(rt, p, &bytes)?;
    Ok(Value::None)
}

/// Writes `bytes` to `p` (resolved against the script's folder) through the one atomic writer.
///
/// Errors: IOError naming the path when it cannot be written (no such folder, permission, full disk).
fn write_file(rt: &mut Interp, p: &str, bytes: &[u8]) -> R<()> {
    let full = rt.resolve_path(p);
    crate::files::write_atomic(&full, |w| w.write_all(&bytes)).map_err(|e| {
        // The temporary file's random name stays out of the message (golden files pin it).
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such folder".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => e.to_string().split(" at path ").next().unwrap_or_default().to_string(),
        };
        crate::err!(IO, "cannot write '{p}': {why}")
    })
}

static GRAPH: Native = Native::new("graph", &["path", "title", "nodes", "edges", "dpi=96"], graph);

/// `_plot.graph(path, title, nodes, edges, dpi=96)`: draws boxes (`nodes`, each a list of text
/// lines, the first in bold) joined by arrows (`edges`, pairs of node indexes), laid out top to
/// bottom as Graphviz's `dot` would (src/svg.rs), and writes the picture to `path`: SVG for
/// `.svg`, PNG for `.png` (scaled to `dpi`; 96 is the SVG's own size), atomically. What
/// `keras.utils.plot_model` draws.
///
/// Errors: TypeError for arguments of the wrong kinds; ValueError for another extension or an
/// edge naming no node; IOError when the file cannot be written.
fn graph(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = GRAPH.bind(rt, args)?;
    let (path, title, nodes, edges, dpi) =
        (a.value("path")?, a.value("title")?, a.value("nodes")?, a.value("edges")?, a.value("dpi")?);
    let Value::Str(p) = &path else { bail!(Type, "plot_model: to_file must be a str, not {}", path.type_name()) };
    let texts = |v: &Value, what: &str| -> R<Vec<Value>> {
        match v {
            Value::List(items) => Ok(items.borrow().clone()),
            Value::Tuple(items) => Ok(items.to_vec()),
            other => bail!(Type, "plot_model: {what} must be a list, not {}", other.type_name()),
        }
    };
    let mut g = crate::svg::Graph { title: rt.str_of(&title)?, ..Default::default() };
    for node in texts(&nodes, "nodes")? {
        let lines = texts(&node, "a node")?.iter().map(|l| rt.str_of(l)).collect::<R<Vec<_>>>()?;
        g.nodes.push(crate::svg::Node { lines, look: crate::svg::Look::Op });
    }
    for edge in texts(&edges, "edges")? {
        let pair = texts(&edge, "an edge")?;
        let index = |v: Option<&Value>| match v {
            Some(Value::Int(i)) if *i >= 0 && (*i as usize) < g.nodes.len() => Ok(*i as usize),
            _ => bail!(Value, "plot_model: an edge names a node that is not there"),
        };
        let (from, to) = (index(pair.first())?, index(pair.get(1))?);
        g.edges.push(crate::svg::Edge { from, to, label: String::new() });
    }
    let svg = crate::svg::render(&g);
    let ext = std::path::Path::new(&**p).extension().map(|e| e.to_string_lossy().to_lowercase());
    let bytes = match ext.as_deref() {
        Some("svg") => svg.into_bytes(),
        Some("png") => {
            let dpi = match dpi {
                Value::Int(d) if d > 0 => d as f32,
                Value::Float(d) if d > 0.0 => d as f32,
                _ => bail!(Value, "plot_model: dpi must be a positive number"),
            };
            crate::plot::png::svg_to_png(&svg, dpi / 96.0).map_err(|m| crate::err!(Value, "plot_model: {m}"))?
        }
        _ => bail!(Value, "plot_model: DGL draws the model as '.png' or '.svg', not '{p}'"),
    };
    write_file(rt, p, &bytes)?;
    Ok(Value::None)
}
