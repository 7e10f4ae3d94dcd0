//! Help inside the tool (issue 11, item 3): the doc text of every builtin,
//! method and stdlib function, as `help(x)`, `x?` in the REPL, the kernel's
//! inspect, the language server's hover and `dgl doc` show it.
//!
//! (A first interface: the texts and `dgl doc` are still to come.)

use crate::runtime::value::Value;
use crate::runtime::Interp;

/// The help text of a value: a builtin's doc entry, a user function's signature and docstring,
/// a class with its methods, a module with its names, or the type of any other value.
pub fn help_text(rt: &mut Interp, v: &Value) -> String {
    let _ = rt;
    format!("{}\n", v.type_name())
}

/// The help text of attribute `attr` of `v` (`Tensor.numpy`, `GradientTape.gradient`), if any.
pub fn attribute_help(rt: &mut Interp, v: &Value, attr: &str) -> Option<String> {
    let _ = (rt, v, attr);
    None
}

/// The doc entry of a builtin, method (`Tensor.numpy`) or stdlib name, by name.
pub fn lookup(name: &str) -> Option<String> {
    let _ = name;
    None
}
