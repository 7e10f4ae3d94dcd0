//! `import sys`: `argv` (the script and its arguments, as `argv()` gives them),
//! `stdout` and `stderr` (file objects writing through the interpreter's
//! writers, for `print(..., file=sys.stderr)`), and `maxsize` (the largest int).

use crate::error::R;
use crate::runtime::file::{FileObj, Stream};
use crate::runtime::value::Value;
use crate::runtime::Interp;
use std::rc::Rc;

/// The module's names and values.
pub fn build(rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    let argv = Value::list(rt.argv.iter().map(|s| Value::str(s)).collect());
    Ok(vec![
        ("argv", argv),
        ("stdout", Value::File(Rc::new(FileObj::new("<stdout>", "w", Stream::Stdout)))),
        ("stderr", Value::File(Rc::new(FileObj::new("<stderr>", "w", Stream::Stderr)))),
        ("maxsize", Value::Int(i64::MAX)),
    ])
}
