//! Help inside the tool: the doc text of every builtin, method and stdlib
//! function, as `help(x)`, `x?` in the REPL, the kernel's inspect, the language server's hover
//! and `dgl doc` show it.
//!
//! Builtins, methods and native-module names have entries in `src/help/*.md` (the format:
//! a `## name(signature)` heading, then the text; [`entries`]), parsed once on first use.
//! Functions and classes written in DGL (the stdlib, the user's) carry docstrings
//! ([`values`]). [`reference`] puts both together as the Markdown reference (`dgl doc`).

pub mod entries;
pub mod reference;
pub mod values;

use crate::runtime::value::Value;
use crate::runtime::Interp;
use entries::Registry;

pub use entries::lookup;
pub use values::type_key;

/// The help text of a value: a builtin's doc entry, a user function's signature and docstring,
/// a class with its methods, a module with its names, or the type of any other value.
pub fn help_text(rt: &mut Interp, v: &Value) -> String {
    values::help_of(rt, v)
}

/// What `x?` shows of a value that is data, not documented code (values::is_data): its
/// type, shape and dtype, length, string form and its type's summary, as IPython's `x?` does.
pub fn describe_object(rt: &mut Interp, v: &Value) -> Option<String> {
    values::is_data(v).then(|| values::describe(rt, v))
}

/// What `help("name")` prints (Python's help looks a string up as a name): the entry of a
/// builtin, method or native-module name, else the help of the stdlib value it names
/// (`nn.Dense`, `Module`), else a line saying there is none.
pub fn help_name(rt: &mut Interp, name: &str) -> String {
    values::name_help(rt, name)
}

/// The help text of attribute `attr` of `v` (`Tensor.numpy`, `GradientTape.gradient`), if any.
pub fn attribute_help(rt: &mut Interp, v: &Value, attr: &str) -> Option<String> {
    if let Some(key) = type_key(v) {
        if let Some(text) = lookup(&format!("{key}.{attr}")) {
            return Some(text);
        }
        // A Variable has every tensor attribute.
        if key == "Variable" {
            return lookup(&format!("Tensor.{attr}"));
        }
    }
    if let Value::Module(m) = v {
        if let Some(text) = lookup(&format!("{}.{attr}", m.name)) {
            return Some(text);
        }
    }
    let value = rt.get_attr(v, crate::intern::intern(attr)).ok()?;
    Some(values::help_of(rt, &value))
}

/// What `help()` without an argument prints: how to ask for help, and the reference's sections.
pub fn intro() -> String {
    let mut text = String::from(
        "Welcome to DGL's help.\n\n\
         help(x) shows the documentation of x: a builtin (help(reduce_sum)), a method\n\
         (help(xs.append), help(\"Tensor.numpy\")), a module (import nn; help(nn)), a function or\n\
         class with a docstring, or the type of any value. help(\"name\") looks a name up.\n\
         In the REPL, x? shows the same text. dir(x) lists x's attributes; dir() the names\n\
         defined so far. `dgl doc` prints the whole reference as Markdown.\n\nSections:\n\n",
    );
    for s in &Registry::get().sections {
        text.push_str(&format!("    {}\n", s.title));
    }
    text.push_str("    the stdlib modules: ");
    text.push_str(&reference::STDLIB.iter().map(|(m, _)| *m).collect::<Vec<_>>().join(", "));
    text.push('\n');
    text
}

/// The names `dir(v)` lists (see [`values::dir_names`]).
pub fn dir_names(rt: &Interp, v: &Value) -> Vec<String> {
    values::dir_names(rt, v)
}
