//! The modules built in Rust: `math`, `time`, `random`, `sys`, and the namespaces of
//! TensorFlow and NumPy made of DGL's values (`tensorflow`, `keras`, `numpy`). Each is
//! built on its first `import` (the interpreter starts without them), then shared like
//! any module (docs/language.md §6).

pub mod foreign;
pub mod math;
pub mod numpy;
pub mod os;
mod plot;
mod progress;
pub mod random;
mod sys;
pub mod tensorflow;
pub mod time;

use crate::runtime::ModuleBuilder;

/// The builder of the native module `name`, if there is one.
pub fn find(name: &str) -> Option<ModuleBuilder> {
    Some(match name {
        "math" => math::build,
        "time" => time::build,
        "os" | "os.path" => os::build,
        "random" => random::build,
        "sys" => sys::build,
        "_plot" => plot::build,
        "_progress_bar" => progress::build,
        "_tf_errors" => tensorflow::build_errors,
        "_tf_native" => super::tf_fns::build,
        "_segment_kernels" => super::segment_fns::build,
        "_nprandom_kernels" => super::nprandom_fns::build,
        "_saving_io" => super::saving_fns::build,
        "_trace" => super::trace_fns::build,
        "json" => super::saving_fns::build_json,
        "_numpy_kernels" => crate::runtime::numpy::build_kernels,
        _ if tensorflow::TENSORFLOW.resolve_import(name).is_some() => tensorflow::build,
        _ if numpy::NUMPY.resolve_import(name).is_some() => numpy::build,
        _ => return None,
    })
}
