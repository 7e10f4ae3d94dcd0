//! The modules built in Rust: `math`, `time`, `random`, `sys`. Each is built on
//! its first `import` (the interpreter starts without them), then shared like
//! any module (LANGUAGE.md §6).

mod math;
mod plot;
mod progress;
mod random;
mod sys;
mod time;

use crate::runtime::ModuleBuilder;

/// The builder of the native module `name`, if there is one.
pub fn find(name: &str) -> Option<ModuleBuilder> {
    Some(match name {
        "math" => math::build,
        "time" => time::build,
        "random" => random::build,
        "sys" => sys::build,
        "_plot" => plot::build,
        "_progress_bar" => progress::build,
        _ => return None,
    })
}
