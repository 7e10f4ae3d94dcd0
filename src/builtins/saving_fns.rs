//! The native module `_saving_io`: the files under Keras's and TensorFlow's saving
//! (stdlib/_saving.dgl; docs/language.md "Saving and restoring"), and `import json`.
//!
//! - HDF5 (`h5_write`, `h5_read`): Keras 3's weight layout (`layers/dense/vars/0`), read and
//!   written with the pure-Rust `hdf5-pure` crate, so a `.weights.h5` file moves between DGL and
//!   Keras both ways; DGL's checkpoints use the same format.
//! - The `.keras` archive (`archive_write`, `archive_read`): a zip of `config.json`,
//!   `metadata.json` and `model.weights.h5`, as Keras 3 writes it.
//! - `write_text`: a text file, atomically.
//!
//! Every file is written through the one atomic writer (`files::write_atomic`): a failed or
//! interrupted save keeps the previous file whole.

use super::Native;
use crate::error::R;
use crate::runtime::value::{Args, Dict, HashKey, Value};
use crate::runtime::Interp;
use crate::tensor::budget::{check_shape, checked_count, MAX_BYTES};
use crate::tensor::{Array, Tensor};
use crate::{bail, err};
use indexmap::IndexMap;
use std::cell::RefCell;
use std::io::{Read, Write};
use std::rc::Rc;

/// The module's names and values.
pub(crate) fn build(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    Ok(named(IO_FNS))
}

/// `import json`: Python's `dumps` and `loads`.
pub(crate) fn build_json(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    Ok(named(JSON_FNS))
}

/// Each native under its own name, as a module binds it.
fn named(fns: &[&'static Native]) -> Vec<(&'static str, Value)> {
    fns.iter().map(|b| (b.name, b.value())).collect()
}

/// `json`'s functions (their help entries are `json.dumps` and `json.loads`).
pub const JSON_FNS: &[&Native] = &[&DUMPS, &LOADS];

/// `_saving_io`'s functions.
const IO_FNS: &[&Native] =
    &[&H5_WRITE, &H5_READ, &ARCHIVE_WRITE, &ARCHIVE_READ, &WRITE_TEXT, &READ_TEXT, &EXISTS, &MAKEDIRS, &REMOVE, &PNG_WRITE];

fn path_of(v: Value, f: &str) -> R<crate::text::Text> {
    match v {
        Value::Str(s) => Ok(s),
        other => bail!(Type, "{f}: the path must be a string, not {}", other.type_name()),
    }
}

fn new_dict(items: Vec<(String, Value)>) -> Value {
    let mut d = Dict::default();
    for (k, v) in items {
        let k: crate::text::Text = k.as_str().into();
        d.insert(HashKey::Str(k.clone()), (Value::Str(k), v));
    }
    Value::Dict(Rc::new(RefCell::new(d)))
}

/// The (key, value) pairs of a dict argument whose keys are strings.
fn str_items(v: &Value, what: &str) -> R<Vec<(String, Value)>> {
    let Value::Dict(d) = v else { bail!(Type, "{what} must be a dict, not {}", v.type_name()) };
    let mut out = vec![];
    for (k, val) in d.borrow().values() {
        let Value::Str(k) = k else { bail!(Type, "{what}: keys must be strings, not {}", k.type_name()) };
        out.push((k.to_string(), val.clone()));
    }
    Ok(out)
}

// ---------------------------------------------------------------- HDF5

/// A group of the file being written: its `name` attribute (Keras writes one on each `vars`
/// group) and its members in insertion order.
#[derive(Default)]
struct Node {
    name_attr: Option<String>,
    groups: IndexMap<String, Node>,
    datasets: IndexMap<String, Tensor>,
}

impl Node {
    /// The group at `path` (slash-separated), made with its parents if missing.
    fn group(&mut self, path: &str) -> &mut Node {
        let mut node = self;
        for part in path.split('/').filter(|p| !p.is_empty()) {
            node = node.groups.entry(part.to_string()).or_default();
        }
        node
    }
}

/// The tree described by `groups` (path → `name` attribute or None) and `datasets` (path →
/// tensor).
fn tree(rt: &mut Interp, groups: &Value, datasets: &Value) -> R<Node> {
    let mut root = Node::default();
    for (path, name) in str_items(groups, "h5_write groups")? {
        let node = root.group(&path);
        node.name_attr = match name {
            Value::None => None,
            Value::Str(s) => Some(s.to_string()),
            other => bail!(Type, "h5_write: a group's name must be a string or None, not {}", other.type_name()),
        };
    }
    for (path, value) in str_items(datasets, "h5_write datasets")? {
        let t = rt.tensor_arg(&value)?;
        let (dir, leaf) = path.rsplit_once('/').unwrap_or(("", &path));
        if leaf.is_empty() {
            bail!(Value, "h5_write: '{path}' is not a dataset path");
        }
        root.group(dir).datasets.insert(leaf.to_string(), t);
    }
    Ok(root)
}

/// Adds `t` as dataset `name` through `create` (the file's or a group's `create_dataset`).
/// float16 is stored as float32 (exact; restored to the variable's dtype on load), bool as
/// uint8 0/1.
fn add_dataset(ds: &mut hdf5_pure::DatasetBuilder, t: &Tensor) {
    let shape: Vec<u64> = t.shape().iter().map(|&d| d as u64).collect();
    let a = crate::map_dtype!(&*t.data, x => x.as_standard_layout().into_owned());
    match &a {
        Array::F16(x) => ds.with_f32_data(&x.iter().map(|v| v.to_f32()).collect::<Vec<_>>()),
        Array::F32(x) => ds.with_f32_data(x.as_slice().expect("standard layout")),
        Array::F64(x) => ds.with_f64_data(x.as_slice().expect("standard layout")),
        Array::U8(x) => ds.with_u8_data(x.as_slice().expect("standard layout")),
        Array::I8(x) => ds.with_i8_data(x.as_slice().expect("standard layout")),
        Array::I16(x) => ds.with_i16_data(x.as_slice().expect("standard layout")),
        Array::I32(x) => ds.with_i32_data(x.as_slice().expect("standard layout")),
        Array::I64(x) => ds.with_i64_data(x.as_slice().expect("standard layout")),
        Array::Bool(x) => ds.with_u8_data(&x.iter().map(|&b| b as u8).collect::<Vec<_>>()),
    };
    ds.with_shape(&shape);
}

/// What the file's root and its groups share for writing (hdf5-pure gives them two types).
trait H5Parent {
    fn set_attr(&mut self, name: &str, v: hdf5_pure::AttrValue);
    fn create_dataset(&mut self, name: &str) -> &mut hdf5_pure::DatasetBuilder;
    fn create_group(&mut self, name: &str) -> hdf5_pure::GroupBuilder;
    fn add_group(&mut self, g: hdf5_pure::FinishedGroup);
}

macro_rules! h5_parent {
    ($t:ty) => {
        impl H5Parent for $t {
            fn set_attr(&mut self, name: &str, v: hdf5_pure::AttrValue) {
                <$t>::set_attr(self, name, v);
            }
            fn create_dataset(&mut self, name: &str) -> &mut hdf5_pure::DatasetBuilder {
                <$t>::create_dataset(self, name)
            }
            fn create_group(&mut self, name: &str) -> hdf5_pure::GroupBuilder {
                <$t>::create_group(self, name)
            }
            fn add_group(&mut self, g: hdf5_pure::FinishedGroup) {
                <$t>::add_group(self, g);
            }
        }
    };
}
h5_parent!(hdf5_pure::FileBuilder);
h5_parent!(hdf5_pure::GroupBuilder);

/// Writes `node`'s attribute, datasets and groups (recursively) into `parent`.
fn write_node(parent: &mut impl H5Parent, node: &Node) {
    if let Some(name) = &node.name_attr {
        parent.set_attr("name", hdf5_pure::AttrValue::String(name.clone()));
    }
    for (name, t) in &node.datasets {
        add_dataset(parent.create_dataset(name), t);
    }
    for (name, child) in &node.groups {
        let mut sub = parent.create_group(name);
        write_node(&mut sub, child);
        parent.add_group(sub.finish());
    }
}

/// The bytes of an HDF5 file holding `root`.
fn h5_bytes(root: &Node) -> R<Vec<u8>> {
    let mut b = hdf5_pure::FileBuilder::new();
    write_node(&mut b, root);
    b.finish().map_err(|e| err!(IO, "cannot encode the HDF5 file: {e}"))
}

fn write_bytes(rt: &Interp, path: &str, bytes: &[u8]) -> R<()> {
    let full = rt.resolve_path(path);
    crate::files::write_atomic(&full, |w| w.write_all(bytes)).map_err(|e| err!(IO, "cannot write '{}': {}", path, e))
}

static H5_WRITE: Native = Native::new("h5_write", &["path", "groups", "datasets"], h5_write);

/// `h5_write(path, groups, datasets)`: writes an HDF5 file (atomically) with the groups of
/// `groups` (a dict from slash path to the group's `name` attribute, or None) and the datasets
/// of `datasets` (a dict from slash path to a tensor, Variable or array); missing parent groups
/// are made.
///
/// Errors: TypeError for non-dict arguments or non-string keys; IOError when the file cannot be
/// written (the previous file is kept).
fn h5_write(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = H5_WRITE.bind(rt, args)?;
    let path = path_of(a.value("path")?, "h5_write")?;
    let (groups, datasets) = (a.value("groups")?, a.value("datasets")?);
    let root = tree(rt, &groups, &datasets)?;
    let bytes = h5_bytes(&root)?;
    write_bytes(rt, &path, &bytes)?;
    Ok(Value::None)
}

/// Reads a whole file the program named, through the one bounded reader of script-named files
/// (`data::read_bounded`); a missing file is Python's FileNotFoundError.
fn read_file(rt: &Interp, path: &str) -> R<Vec<u8>> {
    let full = rt.resolve_path(path);
    if let Err(e) = std::fs::metadata(&full) {
        if e.kind() == std::io::ErrorKind::NotFound {
            bail!(FileNotFound, "No such file or directory: '{}'", path);
        }
    }
    super::data::read_bounded(&full, path)
}

/// One dataset as a tensor, its shape checked against the budget before it is read.
fn read_dataset(d: &hdf5_pure::Dataset, shown: &str) -> R<Tensor> {
    let bad = |e: hdf5_pure::Error| err!(IO, "cannot read dataset '{}': {}", shown, e);
    let shape: Vec<usize> = d.shape().map_err(bad)?.iter().map(|&n| n as usize).collect();
    check_shape(&shape)?;
    let n = checked_count(&shape).ok_or_else(|| err!(Value, "dataset '{}' is too large", shown))?;
    let sh = ndarray::IxDyn(&shape);
    fn arr<T>(sh: ndarray::IxDyn, v: Vec<T>, n: usize, shown: &str) -> R<ndarray::ArrayD<T>> {
        if v.len() != n {
            bail!(IO, "dataset '{}' holds {} values for its shape's {}", shown, v.len(), n);
        }
        Ok(ndarray::ArrayD::from_shape_vec(sh, v).expect("the length was checked"))
    }
    use hdf5_pure::DType as H;
    let data = match d.dtype().map_err(bad)? {
        H::F32 => Array::F32(arr(sh, d.read_f32().map_err(bad)?, n, shown)?),
        H::F64 => Array::F64(arr(sh, d.read_f64().map_err(bad)?, n, shown)?),
        H::I8 => Array::I8(arr(sh, d.read_i8().map_err(bad)?, n, shown)?),
        H::I16 => Array::I16(arr(sh, d.read_i16().map_err(bad)?, n, shown)?),
        H::I32 => Array::I32(arr(sh, d.read_i32().map_err(bad)?, n, shown)?),
        H::I64 => Array::I64(arr(sh, d.read_i64().map_err(bad)?, n, shown)?),
        H::U8 => Array::U8(arr(sh, d.read_u8().map_err(bad)?, n, shown)?),
        other => bail!(
            IO,
            "dataset '{}' has HDF5 type {:?}, which DGL does not read (it reads float32, float64 and integers)",
            shown,
            other
        ),
    };
    Ok(Tensor::new(data))
}

/// Every dataset under `prefix` of `g`, depth first, as (slash path, tensor).
fn walk(g: &hdf5_pure::Group, prefix: &str, out: &mut Vec<(String, Value)>, depth: usize) -> R<()> {
    if depth > 64 {
        bail!(IO, "the HDF5 file nests groups more than 64 deep");
    }
    let bad = |e: hdf5_pure::Error| err!(IO, "cannot read group '{}': {}", prefix, e);
    for name in g.datasets().map_err(bad)? {
        let path = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        let d = g.dataset(&name).map_err(bad)?;
        out.push((path.clone(), Value::Tensor(read_dataset(&d, &path)?)));
    }
    for name in g.groups().map_err(bad)? {
        let path = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        let sub = g.group(&name).map_err(bad)?;
        walk(&sub, &path, out, depth + 1)?;
    }
    Ok(())
}

/// The datasets of the HDF5 file in `bytes`, as a dict from slash path to tensor.
fn h5_datasets(bytes: Vec<u8>, shown: &str) -> R<Value> {
    if !bytes.starts_with(b"\x89HDF\r\n\x1a\n") {
        bail!(IO, "'{}' is not an HDF5 file (no HDF5 signature)", shown);
    }
    let f = hdf5_pure::File::from_bytes(bytes).map_err(|e| err!(IO, "cannot read '{}' as HDF5: {}", shown, e))?;
    let mut out = vec![];
    walk(&f.root(), "", &mut out, 0)?;
    Ok(new_dict(out))
}

static H5_READ: Native = Native::new("h5_read", &["path"], h5_read);

/// `h5_read(path)`: every dataset of an HDF5 file, as a dict from slash path to tensor
/// (float32, float64 and the integer dtypes).
///
/// Errors: IOError when the file cannot be read, is not HDF5, or holds another type.
fn h5_read(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let path = path_of(H5_READ.bind(rt, args)?.value("path")?, "h5_read")?;
    let bytes = read_file(rt, &path)?;
    h5_datasets(bytes, &path)
}

// ---------------------------------------------------------------- the .keras archive

static ARCHIVE_WRITE: Native =
    Native::new("archive_write", &["path", "texts", "weights_name", "groups", "datasets"], archive_write);

/// `archive_write(path, texts, weights_name, groups, datasets)`: a zip archive (atomically) of
/// the text members `texts` (name → str) and of the HDF5 file of `groups`/`datasets` (as
/// `h5_write`) under `weights_name`, as Keras 3's `.keras` files are made.
///
/// Errors: as `h5_write`.
fn archive_write(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = ARCHIVE_WRITE.bind(rt, args)?;
    let path = path_of(a.value("path")?, "archive_write")?;
    let texts = a.value("texts")?;
    let weights_name = path_of(a.value("weights_name")?, "archive_write")?;
    let (groups, datasets) = (a.value("groups")?, a.value("datasets")?);
    let root = tree(rt, &groups, &datasets)?;
    let h5 = h5_bytes(&root)?;
    let mut members: Vec<(String, Vec<u8>)> = vec![];
    for (name, text) in str_items(&texts, "archive_write texts")? {
        let Value::Str(s) = text else { bail!(Type, "archive_write: member '{name}' must be a string") };
        members.push((name, s.as_bytes().to_vec()));
    }
    members.push((weights_name.to_string(), h5));
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in &members {
            z.start_file(name.as_str(), opts).map_err(|e| err!(IO, "cannot write '{}': {}", path, e))?;
            z.write_all(bytes).map_err(|e| err!(IO, "cannot write '{}': {}", path, e))?;
        }
        z.finish().map_err(|e| err!(IO, "cannot write '{}': {}", path, e))?;
    }
    write_bytes(rt, &path, &buf.into_inner())?;
    Ok(Value::None)
}

static ARCHIVE_READ: Native = Native::new("archive_read", &["path"], archive_read);

/// `archive_read(path)`: the members of a zip archive as a dict: `.json` and `.txt` members as
/// strings, `.h5` members as the dict `h5_read` gives; other members are left out.
///
/// Errors: IOError when the file is not a zip archive or a member cannot be read; ValueError
/// when a member is larger than the allocation budget.
fn archive_read(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let path = path_of(ARCHIVE_READ.bind(rt, args)?.value("path")?, "archive_read")?;
    let bytes = read_file(rt, &path)?;
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| err!(IO, "'{}' is not a zip archive ({}); a .keras file is one", path, e))?;
    let mut out = vec![];
    for i in 0..z.len() {
        let mut f = z.by_index(i).map_err(|e| err!(IO, "cannot read '{}': {}", path, e))?;
        let name = f.name().to_string();
        if f.size() > MAX_BYTES as u64 {
            bail!(Value, "member '{}' of '{}' is too large ({} bytes)", name, path, f.size());
        }
        let is_text = name.ends_with(".json") || name.ends_with(".txt");
        if !is_text && !name.ends_with(".h5") {
            continue;
        }
        let mut data = vec![];
        (&mut f)
            .take(MAX_BYTES as u64 + 1)
            .read_to_end(&mut data)
            .map_err(|e| err!(IO, "cannot read '{}': {}", path, e))?;
        let value = if is_text {
            Value::str(
                &String::from_utf8(data).map_err(|_| err!(IO, "member '{}' of '{}' is not UTF-8 text", name, path))?,
            )
        } else {
            h5_datasets(data, &format!("{path}/{name}"))?
        };
        out.push((name, value));
    }
    Ok(new_dict(out))
}

static WRITE_TEXT: Native = Native::new("write_text", &["path", "text"], write_text);

/// `write_text(path, text)`: writes `text` to `path` atomically (the previous file is kept when
/// the write fails).
///
/// Errors: TypeError for a non-string; IOError when the file cannot be written.
fn write_text(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = WRITE_TEXT.bind(rt, args)?;
    let path = path_of(a.value("path")?, "write_text")?;
    let Value::Str(text) = a.value("text")? else { bail!(Type, "write_text: the text must be a string") };
    write_bytes(rt, &path, text.as_bytes())?;
    Ok(Value::None)
}

static READ_TEXT: Native = Native::new("read_text", &["path"], read_text);

/// `read_text(path)`: the UTF-8 text of the file at `path`.
///
/// Errors: IOError when it cannot be read or is not UTF-8; ValueError when it is over the budget.
fn read_text(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let path = path_of(READ_TEXT.bind(rt, args)?.value("path")?, "read_text")?;
    let bytes = read_file(rt, &path)?;
    let text = String::from_utf8(bytes).map_err(|_| err!(IO, "'{}' is not UTF-8 text", path))?;
    Ok(Value::str(&text))
}

static PNG_WRITE: Native = Native::new("png_write", &["path", "pixels"], png_write);

/// `png_write(path, pixels)`: a PNG file (atomically) of `pixels`, a uint8 tensor of shape
/// `[height, width, channels]` with 1 (grey), 2 (grey and alpha), 3 (RGB) or 4 (RGBA) channels,
/// as PIL's `Image.save` writes an image of those modes (`keras.utils.array_to_img`).
///
/// Errors: ValueError for another shape, dtype or channel count, or an empty image; IOError
/// when the file cannot be written.
fn png_write(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = PNG_WRITE.bind(rt, args)?;
    let path = path_of(a.value("path")?, "png_write")?;
    let pixels = a.value("pixels")?;
    let t = rt.tensor_arg(&pixels)?;
    let shape = t.shape().to_vec();
    let [h, w, c] = shape[..] else { bail!(Value, "png_write: pixels must be [height, width, channels], not {:?}", shape) };
    let color = match c {
        1 => png::ColorType::Grayscale,
        2 => png::ColorType::GrayscaleAlpha,
        3 => png::ColorType::Rgb,
        4 => png::ColorType::Rgba,
        _ => bail!(Value, "png_write: an image has 1, 2, 3 or 4 channels, not {c}"),
    };
    let (Ok(w32), Ok(h32)) = (u32::try_from(w), u32::try_from(h)) else {
        bail!(Value, "png_write: an image of {h}x{w} pixels is too large for PNG")
    };
    if w == 0 || h == 0 {
        bail!(Value, "png_write: an image must have at least one pixel, not {h}x{w}");
    }
    let Array::U8(x) = &*t.data else { bail!(Value, "png_write: pixels must be uint8, not {}", t.dtype().name()) };
    let bytes: Vec<u8> = x.iter().copied().collect();
    let mut out = Vec::new();
    {
        let fail = |e: png::EncodingError| err!(Value, "png_write: cannot encode the PNG: {e}");
        let mut enc = png::Encoder::new(&mut out, w32, h32);
        enc.set_color(color);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(fail)?;
        writer.write_image_data(&bytes).map_err(fail)?;
    }
    write_bytes(rt, &path, &out)?;
    Ok(Value::None)
}

static EXISTS: Native = Native::new("exists", &["path"], exists);

/// `exists(path)`: "file", "dir" or None: what is at `path` (relative to the script's folder).
fn exists(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let path = path_of(EXISTS.bind(rt, args)?.value("path")?, "exists")?;
    Ok(match std::fs::metadata(rt.resolve_path(&path)) {
        Ok(m) if m.is_dir() => Value::str("dir"),
        Ok(_) => Value::str("file"),
        Err(_) => Value::None,
    })
}

static MAKEDIRS: Native = Native::new("makedirs", &["path"], makedirs);

/// `makedirs(path)`: makes the folder `path` and its parents when missing.
///
/// Errors: IOError when they cannot be made (a file in the way, no permission).
fn makedirs(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let path = path_of(MAKEDIRS.bind(rt, args)?.value("path")?, "makedirs")?;
    std::fs::create_dir_all(rt.resolve_path(&path))
        .map_err(|e| err!(IO, "cannot make the folder '{}': {}", path, e))?;
    Ok(Value::None)
}

static REMOVE: Native = Native::new("remove", &["path"], remove);

/// `remove(path)`: deletes the file at `path`; a missing file is not an error.
///
/// Errors: IOError when it exists and cannot be deleted.
fn remove(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let path = path_of(REMOVE.bind(rt, args)?.value("path")?, "remove")?;
    match std::fs::remove_file(rt.resolve_path(&path)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => bail!(IO, "cannot remove '{}': {}", path, e),
        _ => Ok(Value::None),
    }
}

// ---------------------------------------------------------------- json

static DUMPS: Native = Native::new("dumps", &["obj", "indent=None", "sort_keys: bool = False"], dumps);

/// `json.dumps(obj, indent=None, sort_keys=False)`: JSON text of dicts (string keys), lists,
/// tuples, strings, ints, floats, bools and None, as Python's `json.dumps` writes it
/// (`", "`/`": "` separators, or newlines and `indent` spaces; non-ASCII as `\uXXXX`;
/// `NaN`/`Infinity` for the non-finite floats).
///
/// Errors: TypeError "Object of type X is not JSON serializable"; ValueError "Circular
/// reference detected" for a container that holds itself.
fn dumps(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = DUMPS.bind(rt, args)?;
    let obj = a.value("obj")?;
    let indent = match a.opt("indent")?.unwrap_or(Value::None) {
        Value::None => None,
        Value::Int(n) => Some(" ".repeat(n.clamp(0, 64) as usize)),
        Value::Str(s) => Some(s.to_string()),
        other => bail!(Type, "indent must be an int, a string or None, not {}", other.type_name()),
    };
    let sort_keys = a.bool_or("sort_keys", false)?;
    let mut out = String::new();
    let mut stack = vec![];
    dump(&obj, &indent, sort_keys, 0, &mut stack, &mut out)?;
    Ok(Value::str(&out))
}

fn json_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{:04x}", unit));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn newline(indent: &Option<String>, level: usize, out: &mut String) {
    if let Some(ind) = indent {
        out.push('\n');
        for _ in 0..level {
            out.push_str(ind);
        }
    }
}

fn dump(
    v: &Value,
    indent: &Option<String>,
    sort: bool,
    level: usize,
    stack: &mut Vec<usize>,
    out: &mut String,
) -> R<()> {
    if level > 500 {
        bail!(Recursion, "maximum recursion depth exceeded while encoding a JSON object");
    }
    let item_sep = if indent.is_some() { "," } else { ", " };
    let enter = |stack: &mut Vec<usize>, id: usize| -> R<()> {
        if stack.contains(&id) {
            bail!(Value, "Circular reference detected");
        }
        stack.push(id);
        Ok(())
    };
    match v {
        Value::None => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) if f.is_nan() => out.push_str("NaN"),
        Value::Float(f) if f.is_infinite() => out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" }),
        Value::Float(f) => out.push_str(&crate::tensor::scalar::fmt_f64(*f)),
        Value::Str(s) => json_str(s, out),
        Value::List(_) | Value::Tuple(_) | Value::Shape(_) => {
            let (items, id): (Vec<Value>, usize) = match v {
                Value::List(l) => (l.borrow().clone(), Rc::as_ptr(l) as *const u8 as usize),
                Value::Tuple(t) | Value::Shape(t) => (t.to_vec(), Rc::as_ptr(t) as *const u8 as usize),
                _ => unreachable!(),
            };
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            enter(stack, id)?;
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline(indent, level + 1, out);
                dump(x, indent, sort, level + 1, stack, out)?;
            }
            newline(indent, level, out);
            out.push(']');
            stack.pop();
        }
        Value::Dict(d) => {
            let mut items: Vec<(String, Value)> = vec![];
            for (k, x) in d.borrow().values() {
                let key = match k {
                    Value::Str(s) => s.to_string(),
                    Value::Int(i) => i.to_string(),
                    Value::Bool(b) => (if *b { "true" } else { "false" }).to_string(),
                    Value::None => "null".to_string(),
                    Value::Float(f) => crate::tensor::scalar::fmt_f64(*f),
                    other => bail!(Type, "keys must be str, int, float, bool or None, not {}", other.type_name()),
                };
                items.push((key, x.clone()));
            }
            if items.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            if sort {
                items.sort_by(|a, b| a.0.cmp(&b.0));
            }
            enter(stack, Rc::as_ptr(d) as *const u8 as usize)?;
            out.push('{');
            for (i, (k, x)) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline(indent, level + 1, out);
                json_str(k, out);
                out.push_str(": ");
                dump(x, indent, sort, level + 1, stack, out)?;
            }
            newline(indent, level, out);
            out.push('}');
            stack.pop();
        }
        other => bail!(Type, "Object of type {} is not JSON serializable", other.type_name()),
    }
    Ok(())
}

static LOADS: Native = Native::new("loads", &["s"], loads);

/// `json.loads(s)`: the value of JSON text `s`: objects become dicts (in the text's order),
/// arrays lists, integers ints (floats past int64's range), and `NaN`/`Infinity` floats, as
/// Python's `json.loads` reads them.
///
/// Errors: TypeError for a non-string; ValueError naming the line and column of malformed text.
fn loads(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let Value::Str(s) = LOADS.bind(rt, args)?.value("s")? else { bail!(Type, "the JSON object must be str") };
    // serde_json keeps object order with `preserve_order`, which DGL does not enable; parse
    // here instead, so that dicts come back in the text's order as Python's do.
    let mut p = JsonParser { s: s.as_bytes(), at: 0, depth: 0 };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.at != p.s.len() {
        return Err(p.fail("Extra data"));
    }
    Ok(v)
}

struct JsonParser<'a> {
    s: &'a [u8],
    at: usize,
    depth: usize,
}

impl JsonParser<'_> {
    fn fail(&self, what: &str) -> crate::error::Exc {
        let before = &self.s[..self.at.min(self.s.len())];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let col = before.len() - before.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1) + 1;
        err!(Value, "{}: line {} column {} (char {})", what, line, col, self.at)
    }

    fn ws(&mut self) {
        while self.at < self.s.len() && matches!(self.s[self.at], b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    fn eat(&mut self, word: &str) -> bool {
        if self.s[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> R<Value> {
        if self.depth > 500 {
            bail!(Recursion, "maximum recursion depth exceeded while decoding a JSON document");
        }
        let Some(&c) = self.s.get(self.at) else { return Err(self.fail("Expecting value")) };
        match c {
            b'{' => {
                self.at += 1;
                self.depth += 1;
                let mut items = vec![];
                self.ws();
                if self.eat("}") {
                    self.depth -= 1;
                    return Ok(new_dict(items));
                }
                loop {
                    self.ws();
                    if self.s.get(self.at) != Some(&b'"') {
                        return Err(self.fail("Expecting property name enclosed in double quotes"));
                    }
                    let k = self.string()?;
                    self.ws();
                    if !self.eat(":") {
                        return Err(self.fail("Expecting ':' delimiter"));
                    }
                    self.ws();
                    let v = self.value()?;
                    items.retain(|(key, _): &(String, Value)| *key != k);
                    items.push((k, v));
                    self.ws();
                    if self.eat(",") {
                        continue;
                    }
                    if self.eat("}") {
                        break;
                    }
                    return Err(self.fail("Expecting ',' delimiter"));
                }
                self.depth -= 1;
                Ok(new_dict(items))
            }
            b'[' => {
                self.at += 1;
                self.depth += 1;
                let mut items = vec![];
                self.ws();
                if self.eat("]") {
                    self.depth -= 1;
                    return Ok(Value::list(items));
                }
                loop {
                    self.ws();
                    items.push(self.value()?);
                    self.ws();
                    if self.eat(",") {
                        continue;
                    }
                    if self.eat("]") {
                        break;
                    }
                    return Err(self.fail("Expecting ',' delimiter"));
                }
                self.depth -= 1;
                Ok(Value::list(items))
            }
            b'"' => Ok(Value::str(&self.string()?)),
            _ if self.eat("null") => Ok(Value::None),
            _ if self.eat("true") => Ok(Value::Bool(true)),
            _ if self.eat("false") => Ok(Value::Bool(false)),
            _ if self.eat("NaN") => Ok(Value::Float(f64::NAN)),
            _ if self.eat("Infinity") => Ok(Value::Float(f64::INFINITY)),
            _ if self.eat("-Infinity") => Ok(Value::Float(f64::NEG_INFINITY)),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.fail("Expecting value")),
        }
    }

    fn number(&mut self) -> R<Value> {
        let start = self.at;
        let mut float = false;
        if self.s[self.at] == b'-' {
            self.at += 1;
        }
        let digits = |p: &mut Self| {
            let s = p.at;
            while p.at < p.s.len() && p.s[p.at].is_ascii_digit() {
                p.at += 1;
            }
            p.at > s
        };
        if !digits(self) {
            self.at = start;
            return Err(self.fail("Expecting value"));
        }
        if self.s.get(self.at) == Some(&b'.') {
            self.at += 1;
            float = true;
            if !digits(self) {
                return Err(self.fail("Expecting value"));
            }
        }
        if matches!(self.s.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            float = true;
            if matches!(self.s.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !digits(self) {
                return Err(self.fail("Expecting value"));
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.at]).expect("ASCII digits");
        if !float {
            if let Ok(i) = text.parse::<i64>() {
                return Ok(Value::Int(i));
            }
        }
        Ok(Value::Float(text.parse::<f64>().map_err(|_| self.fail("Expecting value"))?))
    }

    fn hex4(&mut self) -> R<u32> {
        let h = self.s.get(self.at..self.at + 4).ok_or_else(|| self.fail("Invalid \\uXXXX escape"))?;
        let h = std::str::from_utf8(h).ok().and_then(|h| u32::from_str_radix(h, 16).ok());
        let h = h.ok_or_else(|| self.fail("Invalid \\uXXXX escape"))?;
        self.at += 4;
        Ok(h)
    }

    fn string(&mut self) -> R<String> {
        let start = self.at;
        self.at += 1;
        let mut out: Vec<u8> = vec![];
        loop {
            let Some(&c) = self.s.get(self.at) else {
                self.at = start;
                return Err(self.fail("Unterminated string starting at"));
            };
            self.at += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = self.s.get(self.at) else { return Err(self.fail("Invalid \\escape")) };
                    self.at += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let mut u = self.hex4()?;
                            if (0xd800..0xdc00).contains(&u) && self.s[self.at..].starts_with(b"\\u") {
                                let save = self.at;
                                self.at += 2;
                                let lo = self.hex4()?;
                                if (0xdc00..0xe000).contains(&lo) {
                                    u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                                } else {
                                    self.at = save;
                                }
                            }
                            char::from_u32(u).unwrap_or('\u{fffd}')
                        }
                        _ => {
                            self.at -= 2;
                            return Err(self.fail("Invalid \\escape"));
                        }
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c if c < 0x20 => {
                    self.at -= 1;
                    return Err(self.fail("Invalid control character at"));
                }
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| self.fail("Invalid UTF-8 in string"))
    }
}
