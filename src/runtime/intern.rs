//! Interned names live in the crate-level [`crate::intern`] module (the front
//! end uses them too, and `syntax` does not depend on `runtime`).

pub use crate::intern::*;
