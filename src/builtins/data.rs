//! Data loading (docs/language.md §4, Data): `read_csv`. Relative paths resolve
//! against the running script's folder.

use crate::builtins::Native;
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::tensor::budget::{MAX_BYTES, MAX_ELEMENTS};
use crate::tensor::scalar::float_to_int;
use crate::tensor::{Array, DType, Tensor};
use crate::{bail, err};
use std::path::PathBuf;

/// Registers the data functions.
pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&READ_CSV);
    reg(&LOAD_NPY);
    reg(&LOAD_NPZ);
    reg(&SAVE_NPY);
}

/// A path argument: a string.
fn path_arg(v: Value, f: &str) -> R<crate::text::Text> {
    match v {
        Value::Str(s) => Ok(s),
        other => bail!(Type, "{f} path must be a string, not {}", other.type_name()),
    }
}

static LOAD_NPY: Native = Native::new("load_npy", &["path"], load_npy)
    // Paths relative to the script's folder (docs/language.md §4), through NumPy.
    .exported_as("dgl_tf.load_npy");

/// `load_npy(path)`: a tensor from NumPy's `.npy` format (float16, float32, float64, uint8,
/// int8, int16, int32, int64, bool; C or Fortran order).
///
/// Errors: IOError when the file cannot be read or holds another dtype.
fn load_npy(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let path = path_arg(LOAD_NPY.bind(rt, args)?.value("path")?, "load_npy")?;
    let full = rt.resolve_path(&path);
    let bytes = read_bounded(&full, &path)?;
    Ok(Value::Tensor(Tensor::new(npy_array(&bytes, &path)?)))
}

/// The array of a `.npy` file's bytes; `path` names it in errors.
///
/// Errors: IOError for a malformed or truncated file or a dtype DGL lacks.
fn npy_array(bytes: &[u8], path: &str) -> R<Array> {
    use ndarray::ArrayD;
    use ndarray_npy::ReadNpyExt;
    let bytes = bytes.to_vec();
    check_npy_header(&bytes, path)?;
    let data = if let Ok(x) = ArrayD::<f32>::read_npy(bytes.as_slice()) {
        Array::F32(x)
    } else if let Ok(x) = ArrayD::<f64>::read_npy(bytes.as_slice()) {
        Array::F64(x)
    } else if let Ok(x) = ArrayD::<i64>::read_npy(bytes.as_slice()) {
        Array::I64(x)
    } else if let Ok(x) = ArrayD::<i32>::read_npy(bytes.as_slice()) {
        Array::I32(x)
    } else if let Ok(x) = ArrayD::<bool>::read_npy(bytes.as_slice()) {
        Array::Bool(x)
    } else if let Ok(x) = ArrayD::<u8>::read_npy(bytes.as_slice()) {
        Array::U8(x)
    } else if let Ok(x) = ArrayD::<i8>::read_npy(bytes.as_slice()) {
        Array::I8(x)
    } else if let Ok(x) = ArrayD::<i16>::read_npy(bytes.as_slice()) {
        Array::I16(x)
    } else if let Some(Ok(x)) = half_as_bits(&bytes).map(|b| ArrayD::<u16>::read_npy(b.as_slice())) {
        Array::F16(x.mapv(half::f16::from_bits))
    } else if ends_early(&bytes) {
        bail!(IO, "'{}' is truncated: it ends before the data its header describes", path);
    } else {
        bail!(IO, "'{}' is not a .npy file of a DGL dtype (float16, float32, float64, uint8, int8, int16, int32, int64, bool)", path);
    };
    Ok(data)
}

static LOAD_NPZ: Native = Native::new("load_npz", &["path"], load_npz).exported_as("dgl_tf.load_npz");

/// `load_npz(path)`: the arrays of a NumPy `.npz` archive (`np.savez`, `np.savez_compressed`)
/// as a dict of tensors by name (the member's name without `.npy`), in the archive's order.
///
/// Errors: IOError when the file cannot be read, is not a zip archive, or holds a member that
/// is not a `.npy` file of a DGL dtype; ValueError when it is over the size budget.
fn load_npz(rt: &mut Interp, args: &mut Args) -> R<Value> {
    use std::io::Read;
    let path = path_arg(LOAD_NPZ.bind(rt, args)?.value("path")?, "load_npz")?;
    let full = rt.resolve_path(&path);
    let bytes = read_bounded(&full, &path)?;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| err!(IO, "'{}' is not a .npz archive: {}", path, e))?;
    let mut out = crate::runtime::value::Dict::default();
    for i in 0..zip.len() {
        let mut member = zip.by_index(i).map_err(|e| err!(IO, "cannot read '{}': {}", path, e))?;
        let name = member.name().to_string();
        let shown = format!("{path}:{name}");
        crate::tensor::budget::reserve(member.size() as u128)?;
        if member.size() > crate::tensor::budget::MAX_BYTES as u64 {
            bail!(Value, "the member '{}' ({} bytes) is too large (the limit is {} bytes)", shown, member.size(), crate::tensor::budget::MAX_BYTES);
        }
        let mut data = Vec::with_capacity(member.size() as usize);
        member.by_ref().take(crate::tensor::budget::MAX_BYTES as u64 + 1).read_to_end(&mut data)
            .map_err(|e| err!(IO, "cannot read '{}': {}", shown, e))?;
        let key: crate::text::Text = name.strip_suffix(".npy").unwrap_or(&name).into();
        let array = Value::Tensor(Tensor::new(npy_array(&data, &shown)?));
        out.insert(crate::runtime::value::HashKey::Str(key.clone()), (Value::Str(key), array));
    }
    Ok(Value::Dict(std::rc::Rc::new(std::cell::RefCell::new(out))))
}

/// The `.npy` dtype codes of float16 and of uint16: the same width, so a header's code can be
/// swapped in place (ndarray-npy reads and writes uint16 but not float16; the bits are the same).
const HALF_CODES: [(&[u8], &[u8]); 2] = [(b"'<f2'", b"'<u2'"), (b"'>f2'", b"'>u2'")];

/// A float16 `.npy` file's bytes with the header's dtype read as uint16 (`None` when the header
/// names another dtype).
fn half_as_bits(bytes: &[u8]) -> Option<Vec<u8>> {
    let header_end = bytes.iter().position(|&b| b == b'\n')?;
    let (code, bits) =
        HALF_CODES.iter().find(|(code, _)| bytes[..header_end].windows(code.len()).any(|w| w == *code))?;
    let at = bytes[..header_end].windows(code.len()).position(|w| w == *code)?;
    let mut out = bytes.to_vec();
    out[at..at + bits.len()].copy_from_slice(bits);
    Some(out)
}

/// Reads a whole file that a script named, refusing anything that is not a
/// regular file (a FIFO, `/dev/zero`, a directory) and any file over the
/// allocation budget, before reading it.
///
/// Errors: IOError when the file cannot be read or is not a regular file;
/// ValueError when it is larger than [`MAX_BYTES`].
pub(crate) fn read_bounded(full: &std::path::Path, shown: &str) -> R<Vec<u8>> {
    use std::io::Read;
    // Look before opening: opening a FIFO for reading blocks until a writer appears.
    let meta = std::fs::metadata(full).map_err(|e| err!(IO, "cannot read '{}': {}", shown, e))?;
    if !meta.is_file() {
        bail!(IO, "cannot read '{}': not a regular file", shown);
    }
    let file = std::fs::File::open(full).map_err(|e| err!(IO, "cannot read '{}': {}", shown, e))?;
    let meta = file.metadata().map_err(|e| err!(IO, "cannot read '{}': {}", shown, e))?;
    if !meta.is_file() {
        bail!(IO, "cannot read '{}': not a regular file", shown);
    }
    let limit = MAX_BYTES as u64 + NPY_HEADER_ROOM;
    if meta.len() > limit {
        bail!(Value, "the file '{}' ({} bytes) is too large (the limit is {} bytes)", shown, meta.len(), MAX_BYTES);
    }
    crate::tensor::budget::reserve(meta.len() as u128)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may grow while it is read: never take more than the budget.
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| err!(IO, "cannot read '{}': {}", shown, e))?;
    if bytes.len() as u64 > limit {
        bail!(Value, "the file '{}' is too large (the limit is {} bytes)", shown, MAX_BYTES);
    }
    Ok(bytes)
}

/// Room for an `.npy` header on top of the data budget, in bytes.
const NPY_HEADER_ROOM: u64 = 1 << 16;

/// Validates an `.npy` header before any array is built: the shape through the
/// one shape validator, and the data length the header promises against the
/// bytes the file holds (a 144-byte file cannot claim 2^40 elements).
///
/// Errors: IOError for a malformed header or a data length that does not match;
/// ValueError when the shape is over budget.
fn check_npy_header(bytes: &[u8], shown: &str) -> R<()> {
    let bad = |why: &str| err!(IO, "'{}' is not a valid .npy file: {}", shown, why);
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("no .npy magic string"));
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        _ => return Err(bad("unknown format version")),
    };
    let end = start
        .checked_add(len)
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| err!(IO, "'{}' is truncated: it ends inside its .npy header", shown))?;
    let header = std::str::from_utf8(&bytes[start..end]).map_err(|_| bad("the header is not text"))?;
    // 'descr': '<f4' — the item size is the digits at its end.
    let descr = header
        .split_once("'descr'")
        .and_then(|(_, rest)| rest.split('\'').nth(1))
        .ok_or_else(|| bad("no 'descr' in the header"))?;
    let item: usize =
        descr.trim_start_matches(|c: char| !c.is_ascii_digit()).parse().map_err(|_| bad("unknown 'descr'"))?;
    // 'shape': (d0, d1, ...)
    let dims = header
        .split_once("'shape'")
        .and_then(|(_, rest)| rest.split_once('('))
        .and_then(|(_, rest)| rest.split_once(')'))
        .ok_or_else(|| bad("no 'shape' in the header"))?
        .0;
    let mut shape = Vec::new();
    for d in dims.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let d = d.trim_end_matches('L');
        shape.push(d.parse::<usize>().map_err(|_| bad(&format!("bad dimension '{d}' in the shape")))?);
    }
    crate::tensor::budget::check_shape(&shape)?;
    let want = crate::tensor::budget::checked_count(&shape).and_then(|n| n.checked_mul(item));
    let have = bytes.len() - end;
    match want {
        Some(w) if w == have => {}
        // A file cut short (an interrupted copy or download) says so.
        Some(w) if have < w => {
            bail!(IO, "'{}' is truncated: its header promises {} bytes of data, the file holds {}", shown, w, have)
        }
        _ => bail!(
            IO,
            "'{}' is not a valid .npy file: its header promises {} bytes of data, the file holds {}",
            shown,
            want.map_or("too many".to_string(), |w| w.to_string()),
            have
        ),
    }
    Ok(())
}

static SAVE_NPY: Native = Native::new("save_npy", &["path", "tensor: TensorLike"], save_npy)
    // Paths relative to the script's folder (docs/language.md §4), through NumPy.
    .exported_as("dgl_tf.save_npy");

/// `save_npy(path, tensor)`: writes NumPy's `.npy` format (C order),
/// atomically: the file is either the previous one or the complete new one.
///
/// Errors: IOError when the file cannot be written (the previous file, if any, is kept).
fn save_npy(rt: &mut Interp, args: &mut Args) -> R<Value> {
    use ndarray_npy::WriteNpyExt;
    let mut a = SAVE_NPY.bind(rt, args)?;
    let path = path_arg(a.value("path")?, "save_npy")?;
    let t = a.tensor("tensor")?;
    let full = rt.resolve_path(&path);
    // Atomic (temporary file, fsync, rename): a failed write keeps the previous file.
    let r = crate::files::write_atomic(&full, |w| {
        match &*t.data {
            // Written as uint16 with the header's dtype code made float16's.
            Array::F16(x) => {
                let mut bytes = vec![];
                x.mapv(half::f16::to_bits).as_standard_layout().write_npy(&mut bytes).and_then(|()| {
                    let at = bytes.windows(5).position(|w| w == HALF_CODES[0].1).expect("a uint16 header");
                    bytes[at..at + 5].copy_from_slice(HALF_CODES[0].0);
                    w.write_all(&bytes).map_err(ndarray_npy::WriteNpyError::Io)
                })
            }
            Array::F32(x) => x.as_standard_layout().write_npy(w),
            Array::F64(x) => x.as_standard_layout().write_npy(w),
            Array::U8(x) => x.as_standard_layout().write_npy(w),
            Array::I8(x) => x.as_standard_layout().write_npy(w),
            Array::I16(x) => x.as_standard_layout().write_npy(w),
            Array::I32(x) => x.as_standard_layout().write_npy(w),
            Array::I64(x) => x.as_standard_layout().write_npy(w),
            Array::Bool(x) => x.as_standard_layout().write_npy(w),
        }
        .map_err(|e| match e {
            ndarray_npy::WriteNpyError::Io(e) => e,
            other => std::io::Error::other(other),
        })
    });
    r.map_err(|e| err!(IO, "cannot write '{}': {}", path, e))?;
    Ok(Value::None)
}

/// Whether a file that failed to load is a `.npy` file cut short: it starts
/// like one and some dtype's reader ran out of bytes (say "truncated").
fn ends_early(bytes: &[u8]) -> bool {
    use ndarray::ArrayD;
    use ndarray_npy::{ReadNpyError, ReadNpyExt};
    const MAGIC: &[u8] = b"\x93NUMPY";
    fn short<T>(r: Result<T, ReadNpyError>) -> bool {
        match r {
            Err(ReadNpyError::MissingData) => true,
            Err(ReadNpyError::Io(e)) => e.kind() == std::io::ErrorKind::UnexpectedEof,
            _ => false,
        }
    }
    !bytes.is_empty()
        && MAGIC.starts_with(&bytes[..bytes.len().min(MAGIC.len())])
        && (short(ArrayD::<f32>::read_npy(bytes))
            || short(ArrayD::<f64>::read_npy(bytes))
            || short(ArrayD::<i64>::read_npy(bytes))
            || short(ArrayD::<i32>::read_npy(bytes))
            || short(ArrayD::<bool>::read_npy(bytes)))
}

impl Interp {
    /// A path argument, resolved against the script's folder.
    pub fn resolve_path(&self, p: &str) -> PathBuf {
        let path = PathBuf::from(p);
        if path.is_absolute() {
            path
        } else {
            self.script_dir.join(path)
        }
    }
}

/// One parsed CSV cell: int64 columns stay integers.
enum Cell {
    Int(i64),
    Float(f64),
}

static READ_CSV: Native =
    Native::new("read_csv", &["path", "header: bool = True", "dtype: DType | None = None"], read_csv)
        // Paths relative to the script's folder (docs/language.md §4), through NumPy.
        .exported_as("dgl_tf.read_csv");

/// `read_csv(path, header=True)` → `(tensor, column_names)`: a float32 [rows, cols] tensor.
///
/// Errors: IOError when the file cannot be read; ValueError for a non-numeric
/// cell or rows of different lengths (naming the line).
fn read_csv(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = READ_CSV.bind(rt, args)?;
    let path = path_arg(a.value("path")?, "read_csv")?;
    let header = a.bool_or("header", true)?;
    let dtype = a.opt_dtype("dtype")?.unwrap_or(DType::F32);
    let full = rt.resolve_path(&path);
    let bytes = read_bounded(&full, &path)?;
    let mut reader = csv::ReaderBuilder::new().has_headers(header).from_reader(bytes.as_slice());
    let names: Vec<Value> = if header {
        reader.headers().map_err(|e| err!(IO, "cannot read '{}': {}", path, e))?.iter().map(Value::str).collect()
    } else {
        vec![]
    };
    let mut values = Vec::new();
    let mut cols = None;
    let mut rows = 0;
    for (i, rec) in reader.records().enumerate() {
        let rec = rec.map_err(|e| err!(Value, "{}: {}", path, e))?;
        let line = i + 1 + header as usize;
        match cols {
            None => cols = Some(rec.len()),
            Some(c) if c != rec.len() => {
                bail!(Value, "{}: line {} has {} fields, expected {}", path, line, rec.len(), c)
            }
            _ => {}
        }
        if values.len() + rec.len() > MAX_ELEMENTS {
            bail!(Value, "{}: more than {} cells is too large for one tensor", path, MAX_ELEMENTS);
        }
        for cell in rec.iter() {
            let not_number = || err!(Value, "{}: line {}: '{}' is not a number", path, line, cell);
            let text = cell.trim();
            values.push(if dtype == DType::I64 {
                // int64 cells are parsed as integers: 9007199254740993 must not pass through float64.
                match text.parse::<i64>() {
                    Ok(i) => Cell::Int(i),
                    Err(_) => Cell::Int(float_to_int(text.parse().map_err(|_| not_number())?)?),
                }
            } else {
                Cell::Float(text.parse().map_err(|_| not_number())?)
            });
        }
        rows += 1;
    }
    let cols = cols.unwrap_or(names.len());
    let data = if dtype == DType::I64 {
        let ints = values.into_iter().map(|c| if let Cell::Int(i) = c { i } else { 0 }).collect();
        Array::I64(ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[rows, cols]), ints).expect("rows checked"))
    } else {
        let floats = values.into_iter().map(|c| if let Cell::Float(f) = c { f } else { 0.0 }).collect();
        Array::from_f64(dtype, &[rows, cols], floats)
    };
    let t = Tensor::new(data);
    Ok(Value::tuple(vec![Value::Tensor(t), Value::list(names)]))
}
