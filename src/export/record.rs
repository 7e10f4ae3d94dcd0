//! The run `dgl export` makes of the program: DGL's random draws, in the order the program
//! made them (recomputations included: they see the forward's numbers again), saved as an
//! `.npz` that the exported script replays, since TF's generators draw other numbers. The
//! statements `--drop-inspection` leaves out are skipped here too, so this run's stdout is
//! what the exported script must print.

use crate::runtime::RunObserver;
use crate::source::SourceId;
use crate::tensor::{Array, Tensor};
use std::cell::RefCell;
use std::collections::HashSet;
use std::path::Path;
use std::rc::Rc;

/// One draw, in a form that leaves the interpreter's thread.
pub struct Draw {
    pub op: &'static str,
    pub shape: Vec<usize>,
    pub values: Values,
}

pub enum Values {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I64(Vec<i64>),
    I32(Vec<i32>),
    Bool(Vec<bool>),
}

/// What the run gave.
pub struct Recorded {
    pub draws: Vec<Draw>,
    pub stdout: String,
    pub code: i32,
}

/// The run's observer: skips the main script's statements at `skip` and keeps every draw.
struct Recorder {
    /// Start offsets of the main script's statements to leave out.
    skip: HashSet<u32>,
    /// The main script's source: the first one a statement runs from.
    main: Option<SourceId>,
    /// (op, tensor) for every random op's result, in order.
    draws: Rc<RefCell<Vec<(&'static str, Tensor)>>>,
}

impl RunObserver for Recorder {
    fn runs(&mut self, src: SourceId, pos: u32) -> bool {
        let main = *self.main.get_or_insert(src);
        !(src == main && self.skip.contains(&pos))
    }

    fn drawn(&mut self, op: &'static str, t: &Tensor) {
        self.draws.borrow_mut().push((op, t.clone()));
    }
}

/// Runs the script at `path` (source `text`), skipping the statements at `skip`.
pub fn run(path: &Path, text: &str, skip: &HashSet<u32>) -> Result<Recorded, String> {
    let (path, text, skip) = (path.to_path_buf(), text.to_string(), skip.clone());
    crate::with_big_stack(move || {
        let buf = Rc::new(RefCell::new(Vec::<u8>::new()));
        let mut rt = crate::runtime::Interp::new(buf.clone());
        let draws = Rc::new(RefCell::new(Vec::new()));
        rt.observe(Box::new(Recorder { skip, main: None, draws: draws.clone() }));
        let r = crate::run_script(&mut rt, &path, &path.display().to_string(), &text, &[]);
        drop(rt);
        let draws = std::mem::take(&mut *draws.borrow_mut());
        let draws = draws
            .into_iter()
            .map(|(op, t)| {
                let shape = t.shape().to_vec();
                let values = match &*t.data.widened() {
                    Array::F32(a) => Values::F32(a.iter().copied().collect()),
                    Array::F64(a) => Values::F64(a.iter().copied().collect()),
                    Array::I64(a) => Values::I64(a.iter().copied().collect()),
                    Array::I32(a) => Values::I32(a.iter().copied().collect()),
                    Array::Bool(a) => Values::Bool(a.iter().copied().collect()),
                    narrow => unreachable!("{} widens to a wide dtype", narrow.dtype()),
                };
                Draw { op, shape, values }
            })
            .collect();
        let stdout = String::from_utf8_lossy(&buf.borrow()).into_owned();
        Ok(Recorded { draws, stdout, code: r.code })
    })
}

/// Writes the draws as an `.npz`: `draw_00000`, … in order, and `meta`, the UTF-8 bytes of
/// a JSON list of each draw's op name.
pub fn write_npz(path: &Path, draws: &[Draw]) -> Result<(), String> {
    use ndarray::{ArrayD, IxDyn};
    let io = |e: &dyn std::fmt::Display| format!("Error: IOError: cannot write {}: {e}\n", path.display());
    let file = std::fs::File::create(path).map_err(|e| io(&e))?;
    let mut npz = ndarray_npy::NpzWriter::new(file);
    for (i, d) in draws.iter().enumerate() {
        let name = format!("draw_{i:05}");
        let dims = IxDyn(&d.shape);
        let r = match &d.values {
            Values::F32(v) => npz.add_array(name, &ArrayD::from_shape_vec(dims, v.clone()).expect("shape")),
            Values::F64(v) => npz.add_array(name, &ArrayD::from_shape_vec(dims, v.clone()).expect("shape")),
            Values::I64(v) => npz.add_array(name, &ArrayD::from_shape_vec(dims, v.clone()).expect("shape")),
            Values::I32(v) => npz.add_array(name, &ArrayD::from_shape_vec(dims, v.clone()).expect("shape")),
            Values::Bool(v) => npz.add_array(name, &ArrayD::from_shape_vec(dims, v.clone()).expect("shape")),
        };
        r.map_err(|e| io(&e))?;
    }
    let ops: Vec<String> = draws.iter().map(|d| format!("\"{}\"", d.op)).collect();
    let meta: Vec<u8> = format!("[{}]", ops.join(", ")).into_bytes();
    npz.add_array("meta", &ndarray::Array1::from(meta)).map_err(|e| io(&e))?;
    npz.finish().map_err(|e| io(&e))?;
    Ok(())
}
