//! Data loading (LANGUAGE.md §4, Data): `read_csv`. Relative paths resolve
//! against the running script's folder.

use crate::runtime::error::R;
use crate::runtime::value::{Args, NativeFn, Value};
use crate::runtime::Interp;
use crate::tensor::{Array, DType, Tensor};
use crate::{bail, err};
use std::path::PathBuf;

pub fn register(reg: &mut impl FnMut(&str, NativeFn)) {
    reg("read_csv", read_csv);
    reg("load_npy", load_npy);
    reg("save_npy", save_npy);
}

fn path_arg(v: Option<Value>, f: &str) -> R<std::rc::Rc<str>> {
    match v {
        Some(Value::Str(s)) => Ok(s),
        Some(other) => bail!(Type, "{f} path must be a string, not {}", other.type_name()),
        None => bail!(Type, "{f}() missing required argument 'path'"),
    }
}

/// `load_npy(path)`: a tensor from NumPy's `.npy` format (float32, float64,
/// int64, int32 → int64, bool; C or Fortran order).
///
/// Errors: IOError when the file cannot be read or holds another dtype.
fn load_npy(rt: &mut Interp, a: &mut Args) -> R<Value> {
    use ndarray::ArrayD;
    use ndarray_npy::ReadNpyExt;
    let [path] = a.bind(["path"], 1)?;
    let path = path_arg(path, "load_npy")?;
    let full = rt.resolve_path(&path);
    let bytes = std::fs::read(&full).map_err(|e| err!(IO, "cannot read '{}': {}", path, e))?;
    let data = if let Ok(x) = ArrayD::<f32>::read_npy(bytes.as_slice()) {
        Array::F32(x)
    } else if let Ok(x) = ArrayD::<f64>::read_npy(bytes.as_slice()) {
        Array::F64(x)
    } else if let Ok(x) = ArrayD::<i64>::read_npy(bytes.as_slice()) {
        Array::I64(x)
    } else if let Ok(x) = ArrayD::<i32>::read_npy(bytes.as_slice()) {
        Array::I64(x.mapv(|v| v as i64))
    } else if let Ok(x) = ArrayD::<bool>::read_npy(bytes.as_slice()) {
        Array::Bool(x)
    } else if ends_early(&bytes) {
        bail!(IO, "'{}' is truncated: it ends before the data its header describes", path);
    } else {
        bail!(IO, "'{}' is not a .npy file of float32, float64, int64, int32 or bool", path);
    };
    crate::tensor::shape::check_size(data.shape())?;
    Ok(Value::Tensor(Tensor::new(data)))
}

/// `save_npy(path, tensor)`: writes NumPy's `.npy` format (C order),
/// atomically: the file is either the previous one or the complete new one.
///
/// Errors: IOError when the file cannot be written (the previous file, if any, is kept).
fn save_npy(rt: &mut Interp, a: &mut Args) -> R<Value> {
    use ndarray_npy::WriteNpyExt;
    let [path, x] = a.bind(["path", "tensor"], 2)?;
    let path = path_arg(path, "save_npy")?;
    let t = rt.tensor_arg(&x.unwrap())?;
    let full = rt.resolve_path(&path);
    // Atomic (temporary file, fsync, rename): a failed write keeps the previous file.
    let r = crate::files::write_atomic(&full, |w| {
        match &*t.data {
            Array::F32(x) => x.as_standard_layout().write_npy(w),
            Array::F64(x) => x.as_standard_layout().write_npy(w),
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
/// like one and some dtype's reader ran out of bytes (issue #7: say "truncated").
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

/// `read_csv(path, header=True)` → `(tensor, column_names)`: a float32 [rows, cols] tensor.
///
/// Errors: IOError when the file cannot be read; ValueError for a non-numeric
/// cell or rows of different lengths (naming the line).
fn read_csv(rt: &mut Interp, a: &mut Args) -> R<Value> {
    let [path, header, dtype] = a.bind(["path", "header", "dtype"], 1)?;
    let path = match path.unwrap() {
        Value::Str(s) => s,
        other => bail!(Type, "read_csv path must be a string, not {}", other.type_name()),
    };
    let header = match header {
        Some(h) => rt.truthy(&h)?,
        None => true,
    };
    let dtype = match dtype {
        None | Some(Value::None) => DType::F32,
        Some(d) => rt.dtype_arg(&d)?,
    };
    let full = rt.resolve_path(&path);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(header)
        .from_path(&full)
        .map_err(|e| err!(IO, "cannot read '{}': {}", path, e))?;
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
        for cell in rec.iter() {
            let v: f64 =
                cell.trim().parse().map_err(|_| err!(Value, "{}: line {}: '{}' is not a number", path, line, cell))?;
            values.push(v);
        }
        rows += 1;
    }
    let cols = cols.unwrap_or(names.len());
    let t = Tensor::new(Array::from_f64(dtype, &[rows, cols], values));
    Ok(Value::tuple(vec![Value::Tensor(t), Value::list(names)]))
}
