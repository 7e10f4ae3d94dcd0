//! `help(x)` and `dir(x)`: the doc texts of src/help, and the names a value has.

use super::Native;
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;

pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&HELP);
    reg(&DIR);
}

static HELP: Native = Native::new("help", &["request=None"], help);

/// `help(request=None)`: prints the help text of `request` (a value, or a name as a string, as
/// Python's help reads one);
/// without an argument, how to use help and the reference's sections. Returns None.
/// See: Python's `help` (pydoc), which pages the text where DGL prints it.
fn help(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let request = HELP.bind(rt, args)?.opt("request")?;
    let text = match request {
        None => crate::help::intro(),
        Some(Value::Str(name)) => crate::help::help_name(rt, &name),
        Some(v) => crate::help::help_text(rt, &v),
    };
    rt.write_out(&text)?;
    Ok(Value::None)
}

static DIR: Native = Native::new("dir", &["object=None"], dir);

/// `dir(object=None)`: the sorted names of `object`'s attributes (its builtin type's, and those
/// its own namespace binds); without an argument, the names bound in the running module.
/// Python lists every object's special attributes too (`__class__`, `__repr__`, …); DGL lists
/// the ones the value has. See: Python's `dir`.
fn dir(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let object = DIR.bind(rt, args)?.opt("object")?;
    let names = match object {
        Some(v) => crate::help::dir_names(rt, &v),
        None => {
            let mut names: Vec<String> = match rt.scope() {
                Some(g) => g.bound().iter().map(|(n, _)| n.name().to_string()).collect(),
                None => vec![],
            };
            names.sort();
            names
        }
    };
    Ok(Value::list(names.into_iter().map(|n| Value::str(&n)).collect()))
}
