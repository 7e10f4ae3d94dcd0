//! `dgl doc`: the whole reference as Markdown (docs/reference.md is its output, checked in and
//! kept current by tests/help.rs). The entry files in reading order, then one section per
//! stdlib module, built from the docstrings of its public functions and classes.

use super::entries::Registry;
use super::values::{method_heading, methods, signature, user_function};
use crate::error::R;
use crate::runtime::value::{Class, Module, Value};
use crate::runtime::Interp;
use std::fmt::Write;
use std::rc::Rc;

/// The stdlib sections: (the name users write, the modules defining its names).
pub const STDLIB: &[(&str, &[&str])] = &[
    ("nn", &["nn"]),
    ("nn.Layer and nn.Model", &["_layers", "_model"]),
    ("optim", &["optim"]),
    ("losses", &["losses"]),
    ("metrics", &["metrics"]),
    ("data", &["data"]),
    ("initializers", &["initializers"]),
    ("Module and checkpoint_sequential", &["_module", "_checkpoint"]),
    ("Segment reductions and tf.math's other reductions", &["_segments"]),
    ("Ragged and sparse tensors", &["_ragged", "_sparse"]),
    ("numpy.random", &["_nprandom"]),
    ("matplotlib", &["matplotlib"]),
    ("matplotlib.pyplot", &["matplotlib.pyplot"]),
];

/// The reference as `dgl doc` prints it, from an interpreter of its own (whose output is
/// discarded). Errors: the message of a stdlib module that fails to load.
pub fn generate() -> Result<String, String> {
    let mut rt = Interp::new(Rc::new(std::cell::RefCell::new(std::io::sink())));
    reference(&mut rt).map_err(|e| e.message().to_string())
}

/// The reference: title, contents, each entry file, each stdlib section.
///
/// Errors: a stdlib module that fails to load (an interpreter bug).
pub fn reference(rt: &mut Interp) -> R<String> {
    let registry = Registry::get();
    let mut out = String::from("# DGL reference\n\n");
    out.push_str(
        "Every builtin, method and stdlib name of DGL, as `help(x)` (and `x?` in the REPL) shows it.\n\
         This file is generated: `cargo run -- doc > docs/reference.md` (tests/help.rs checks it is current).\n\
         DGL's names are TensorFlow's without the `tf.` prefix; each entry says which TF name it mirrors.\n\n",
    );
    let mut stdlib = vec![];
    for (title, modules) in STDLIB {
        stdlib.push(stdlib_section(rt, title, modules)?);
    }
    for s in &registry.sections {
        let _ = writeln!(out, "- [{}](#{})", s.title, anchor(&s.title));
    }
    for (title, _) in &stdlib {
        let _ = writeln!(out, "- [{title}](#{})", anchor(title));
    }
    for s in &registry.sections {
        let _ = write!(out, "\n# {}\n", s.title);
        if !s.intro.is_empty() {
            let _ = write!(out, "\n{}\n", s.intro);
        }
        for e in &s.entries {
            let _ = write!(out, "\n## {}", e.text());
        }
    }
    for (title, text) in stdlib {
        let _ = write!(out, "\n# {title}\n{text}");
    }
    Ok(out)
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.
fn anchor(title: &str) -> String {
    title
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c.to_ascii_lowercase() })
        .collect()
}

/// A stdlib section's title (`The nn module`) and text: each module's docstring, then an entry
/// per public function and class it defines (a class's public methods as `###` entries).
fn stdlib_section(rt: &mut Interp, name: &str, modules: &[&str]) -> R<(String, String)> {
    let title = if modules.len() == 1 { format!("The {name} module") } else { name.to_string() };
    let mut text = String::new();
    // The prefix users write: `nn.Dense`; the lazily loaded builtins have none.
    let prefix = match name {
        "Module and checkpoint_sequential" => "",
        "nn.Layer and nn.Model" => "nn.",
        _ => "",
    };
    for m in modules {
        let module = rt.import(m)?;
        if let Some(doc) = &module.doc {
            let _ = write!(text, "\n{doc}\n");
        }
        let prefix = if prefix.is_empty() && !m.starts_with('_') { format!("{m}.") } else { prefix.to_string() };
        for (sym, v) in module.globals.bound() {
            let n = sym.name();
            if n.starts_with('_') || !defined_in(rt, &module, &v) {
                continue;
            }
            match &v {
                Value::Class(c) => class_entry(rt, &mut text, &format!("{prefix}{n}"), c),
                v => {
                    if let Some(f) = user_function(v) {
                        let _ = write!(text, "\n## {prefix}{n}({})\n", signature(rt, &f, false));
                        if let Some(doc) = &f.def.doc {
                            let _ = write!(text, "\n{doc}\n");
                        }
                    }
                }
            }
        }
    }
    Ok((title, text))
}

fn class_entry(rt: &Interp, text: &mut String, key: &str, c: &Rc<Class>) {
    let sig = match c.lookup(crate::intern::sym::INIT) {
        Some(Value::Func(init)) => signature(rt, &init, true),
        _ => String::new(),
    };
    let _ = write!(text, "\n## {key}({sig})\n");
    if let Some(Value::Str(doc)) = c.attrs.borrow().get(&crate::intern::sym::DOC) {
        let _ = write!(text, "\n{doc}\n");
    }
    for (name, f, kind) in methods(c) {
        if name.starts_with('_') {
            continue;
        }
        let _ = write!(text, "\n### {key}.{}\n", method_heading(rt, &name, &f, kind));
        if let Some(doc) = &f.def.doc {
            let _ = write!(text, "\n{doc}\n");
        }
    }
}

/// Whether `v` (a function or class bound in `module`) was defined by the module's own source
/// rather than imported into it: a function's source file; a class's methods' source file.
fn defined_in(rt: &Interp, module: &Module, v: &Value) -> bool {
    let file = format!("<stdlib>/{}.dgl", module.name);
    let from_file = |f: &crate::runtime::value::Function| rt.sources.get(f.source).name == file;
    match v {
        Value::Class(c) => {
            let attrs = c.attrs.borrow();
            let mut funcs = attrs.values().filter_map(user_function).peekable();
            funcs.peek().is_none() || funcs.any(|f| from_file(&f))
        }
        v => user_function(v).is_some_and(|f| from_file(&f)),
    }
}
