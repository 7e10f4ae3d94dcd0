//! Another library's namespaces made of DGL's own values: `import tensorflow as tf` and
//! `import numpy as np`. A [`Library`] is one table of module paths and the
//! names each binds; every module of the family is built together on the first import of
//! any of them, binding builtins at once and stdlib values (`tf.keras.layers.Dense` is
//! `nn.Dense`) on first read, so importing TensorFlow loads no stdlib module. A name the
//! table lacks is an AttributeError naming the library's API.

use crate::err;
use crate::error::{Exc, R};
use crate::intern::{intern, Sym};
use crate::runtime::value::{Builtin, BuiltinKind, Dialect, Globals, Module, ModuleHooks, Value};
use crate::runtime::Interp;
use std::rc::Rc;
use std::sync::OnceLock;

/// A library's namespaces, as DGL provides them.
pub struct Library {
    /// The top module's import name (`tensorflow`).
    pub root: &'static str,
    /// How code usually names the top module (`tf`), for error messages.
    pub alias: &'static str,
    /// The library's name in prose (`TensorFlow`).
    pub title: &'static str,
    /// Each module's path (`tensorflow.math`) and the names no builtin's declaration spells
    /// (those are added from [`crate::builtins::declared`]), separated by white space:
    /// `NAME` is DGL's builtin of that name, `NAME=builtin` another builtin, and
    /// `NAME=module.attr` an attribute of a DGL module read on first use (`Dense=nn.Dense`).
    /// A module's parents are modules too, and each binds its children by their last part.
    pub table: &'static [(&'static str, &'static str)],
    /// Other import names of a module (`keras` for `tensorflow.keras`), with their children.
    pub other_names: &'static [(&'static str, &'static str)],
    /// The hooks every module of the family carries (built from this library).
    pub hooks: &'static ModuleHooks,
    /// The rules the library's builtins follow (`tf.add(1, 2)` is int32).
    pub dialect: Dialect,
}

/// The libraries whose names builtins' declarations spell (`tf.`, `np.`).
static LIBRARIES: [&Library; 2] = [&super::tensorflow::TENSORFLOW, &super::numpy::NUMPY];

/// A name a builtin's declaration gives a library's module (`tf.math.reduce_sum`).
pub struct Spelled {
    /// The library's alias (`tf`).
    pub alias: &'static str,
    /// The module's path (`tensorflow.math`).
    pub path: String,
    /// The name in it (`reduce_sum`).
    pub name: &'static str,
    /// Where its value comes from (an [`Entry`]'s source): the builtin's key (`reduce_sum`,
    /// `linalg.solve`), or `_tf_native.print` for a TF-only native.
    pub key: &'static str,
}

/// One name of a module: its name in the library and where DGL's value comes from.
pub struct Entry {
    pub name: &'static str,
    /// A builtin's name, or `module.attr`.
    pub source: &'static str,
}

impl Library {
    /// The names the module `path` binds: the table's, then the builtins whose declarations
    /// spell them in this library (`tf.math.reduce_sum`).
    pub fn entries<'a>(&'a self, path: &'a str) -> impl Iterator<Item = Entry> + 'a {
        let rows = self.table.iter().filter(move |(p, _)| *p == path);
        let table = rows.flat_map(|(_, names)| names.split_whitespace()).map(|token| match token.split_once('=') {
            Some((name, source)) => Entry { name, source },
            None => Entry { name: token, source: token },
        });
        let spelled = self.spelled().filter(move |s| s.path == path);
        table.chain(spelled.map(|s| Entry { name: s.name, source: s.key }))
    }

    /// The names the declarations of builtins give this library's modules, in declaration order.
    fn spelled(&self) -> impl Iterator<Item = &'static Spelled> + '_ {
        static ALL: OnceLock<Vec<Spelled>> = OnceLock::new();
        let all = ALL.get_or_init(|| {
            let mut out = vec![];
            for (key, native) in crate::builtins::declared() {
                for spelling in native.spellings {
                    let (alias, rest) = spelling.split_once('.').unwrap_or((spelling, ""));
                    let (module, name) = rest.rsplit_once('.').unwrap_or(("", rest));
                    let Some(library) = LIBRARIES.iter().find(|l| l.alias == alias) else { continue };
                    let path =
                        if module.is_empty() { library.root.to_string() } else { format!("{}.{module}", library.root) };
                    // The TF-only natives (`tf.print`) live in the native module `_tf_native`.
                    let source = match key.strip_prefix("tf.") {
                        Some(rest) => format!("_tf_native.{rest}").leak(),
                        None => key.as_str(),
                    };
                    out.push(Spelled { alias: library.alias, path, name, key: source });
                }
            }
            out
        });
        all.iter().filter(move |s| s.alias == self.alias)
    }

    /// Every module path of the family: the table's, the spelled ones, and their parents, parents first.
    pub fn modules(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        let paths = self.table.iter().map(|(p, _)| *p).chain(self.spelled().map(|s| s.path.as_str()));
        for path in paths {
            for (i, _) in path.match_indices('.').chain([(path.len(), "")]) {
                if !out.contains(&&path[..i]) {
                    out.push(&path[..i]);
                }
            }
        }
        out
    }

    /// The module path an import name stands for (`keras.layers` is `tensorflow.keras.layers`).
    pub fn resolve_import(&self, name: &str) -> Option<String> {
        let full = self
            .other_names
            .iter()
            .find_map(|(other, path)| {
                let rest = name.strip_prefix(other)?;
                (rest.is_empty() || rest.starts_with('.')).then(|| format!("{path}{rest}"))
            })
            .unwrap_or_else(|| name.to_string());
        self.modules().contains(&full.as_str()).then_some(full)
    }

    /// `tf.keras.layers` for the module path `tensorflow.keras.layers`.
    pub fn shown(&self, path: &str) -> String {
        format!("{}{}", self.alias, &path[self.root.len()..])
    }

    /// Builds every module of the family and registers each under its import names.
    pub fn register(&self, rt: &mut Interp) -> R<()> {
        let mut built: Vec<(&'static str, Rc<Module>)> = Vec::new();
        for path in self.modules() {
            let globals = Rc::new(Globals::default());
            let module = Rc::new(Module { hooks: Some(self.hooks), ..Module::new(path, globals, None) });
            for e in self.entries(path).filter(|e| !e.source.contains('.')) {
                let v =
                    rt.builtins.get(&intern(e.source)).cloned().ok_or_else(|| {
                        err!(Runtime, "internal error: {path}.{} names no builtin {}", e.name, e.source)
                    })?;
                rt.set_global(&module.globals, intern(e.name), self.bound(v));
            }
            if let Some((parent, last)) = path.rsplit_once('.') {
                if let Some((_, p)) = built.iter().find(|(n, _)| *n == parent) {
                    rt.set_global(&p.globals, intern(last), Value::Module(module.clone()));
                }
            }
            built.push((path, module));
        }
        for (path, module) in built {
            for (other, target) in self.other_names {
                if let Some(rest) = path.strip_prefix(target).filter(|r| r.is_empty() || r.starts_with('.')) {
                    rt.modules.insert(format!("{other}{rest}"), module.clone());
                }
            }
            rt.modules.insert(path.to_string(), module);
        }
        Ok(())
    }

    /// The value of `name` in module `m`, bound now; or the AttributeError naming the API
    /// DGL lacks, with a near name of the module as a hint.
    pub fn missing(&self, rt: &mut Interp, m: &Module, name: Sym) -> R<Value> {
        let text = name.name();
        let Some(entry) = self.entries(&m.name).find(|e| e.name == &*text) else {
            return Err(self.lacks(m, &text));
        };
        let v = self.bound(source_value(rt, entry.source)?);
        rt.set_global(&m.globals, name, v.clone());
        Ok(v)
    }

    /// `v` as the library binds it: a native function follows the library's rules
    /// ([`Library::dialect`]); any other value is itself.
    fn bound(&self, v: Value) -> Value {
        match &v {
            // NumPy's functions written in DGL (stdlib/_numpy.dgl) give NumPy values too.
            Value::Func(f) if self.dialect == Dialect::NumPy => {
                crate::runtime::numpy::numpy_wrapper(&f.name, v.clone())
            }
            Value::Builtin(b) => match b.kind {
                BuiltinKind::Native(native, d) if d != self.dialect => Value::Builtin(Rc::new(Builtin {
                    name: b.name.clone(),
                    kind: BuiltinKind::Native(native, self.dialect),
                })),
                _ => v,
            },
            _ => v,
        }
    }

    /// The error for a name the module `m` does not have: whether the library itself has it
    /// (its name lists, [`library_names`]), with DGL's nearest name in the module as a hint.
    pub fn lacks(&self, m: &Module, name: &str) -> Exc {
        let api = format!("{}.{name}", self.shown(&m.name));
        let e = match library_names(self.root) {
            Some((version, names)) if names.contains(api.as_str()) => {
                err!(Attribute, "DGL has no {api} ({} {version} has it; DGL does not implement it)", self.title)
            }
            Some((version, _)) => err!(Attribute, "{api} does not exist in {} {version} either", self.title),
            None => err!(Attribute, "DGL has no {api} ({}'s {api} is not implemented)", self.title),
        };
        let names = m.names();
        crate::runtime::suggest::with_hint(e, name, names.iter().map(String::as_str))
    }

    /// The names of module `m` read on first use (for `dir`, `help` and hints).
    pub fn unbound(&self, m: &Module) -> Vec<&'static str> {
        self.entries(&m.name).filter(|e| e.source.contains('.')).map(|e| e.name).collect()
    }
}

/// The version and the public names (`tf.math.reduce_sum`) of the library imported as `root`,
/// as listed in src/builtins/modules/names/ (made from the libraries themselves by
/// tools/tfnames/make.py); `None` for a library without a list.
fn library_names(root: &str) -> Option<&'static (String, rustc_hash::FxHashSet<&'static str>)> {
    type Names = (String, rustc_hash::FxHashSet<&'static str>);
    fn parse(text: &'static str) -> Names {
        let mut lines = text.lines();
        // The first line: `# The public names of tensorflow 2.21.0, made by …`.
        let header = lines.next().unwrap_or("");
        let version = header.split(" ").nth(6).unwrap_or("").trim_end_matches(',').to_string();
        (version, lines.filter(|l| !l.is_empty()).collect())
    }
    static TF: OnceLock<Names> = OnceLock::new();
    static NP: OnceLock<Names> = OnceLock::new();
    match root {
        "tensorflow" => Some(TF.get_or_init(|| parse(include_str!("names/tensorflow.txt")))),
        "numpy" => Some(NP.get_or_init(|| parse(include_str!("names/numpy.txt")))),
        _ => None,
    }
}

/// DGL's value for a table source: a builtin, or `module.attr` of a DGL module (imported
/// from the standard library or the native modules, never from a user's file).
pub fn source_value(rt: &mut Interp, source: &str) -> R<Value> {
    match source.split_once('.') {
        None => rt
            .builtins
            .get(&intern(source))
            .cloned()
            .ok_or_else(|| err!(Runtime, "internal error: no builtin {source}")),
        Some((module, attr)) => {
            let m = rt.import_stdlib(module)?;
            rt.get_attr(&Value::Module(m), intern(attr))
        }
    }
}
