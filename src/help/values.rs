//! Help for values: builtins by their entry; functions, classes and modules written in DGL by
//! their signature and docstring (Python's `help` shows the same); any other value by its
//! type's entry. Also `dir(x)`'s names.

use super::entries::lookup;
use crate::runtime::value::{BuiltinKind, Class, Function, Value};
use crate::runtime::Interp;
use crate::syntax::ast::ParamKind;
use std::rc::Rc;

/// The modules written in Rust, whose functions have entries keyed `module.name`.
const NATIVE_MODULES: &[&str] = &["math", "time", "random", "sys", "json", "os", "os.path"];

/// Builtins written in DGL and the stdlib module defining each (see `runtime/import.rs`).
const LAZY: &[(&str, &str)] = &[("Module", "_module"), ("checkpoint_sequential", "_checkpoint")];

/// The help text of `v` (see [`super::help_text`]).
pub fn help_of(rt: &mut Interp, v: &Value) -> String {
    // A builtin class, module or function written in DGL (`UnconnectedGradients`, `linalg`,
    // `Module`) has an entry.
    let own_name = match v {
        Value::Class(c) => Some(c.name.clone()),
        Value::Func(f) => Some(f.name.clone()),
        Value::Module(m) => Some(m.name.clone()),
        _ => None,
    };
    if let Some(name) = own_name {
        let builtin = rt.builtins.get(&crate::intern::intern(&name));
        if let (true, Some(text)) = (builtin.is_some_and(|b| b.is(v)), lookup(&name)) {
            return text;
        }
    }
    match v {
        Value::Func(f) => function_help(rt, f, false),
        Value::Method(m) => {
            // A method of a stdlib class with an entry (`Figure.save`) shows the entry.
            if let (Value::Instance(i), Value::Func(f)) = (&m.0, &m.1) {
                if let Some(text) = lookup(&format!("{}.{}", i.class.name, f.name)) {
                    return text;
                }
            }
            match &m.1 {
                Value::Func(f) => function_help(rt, f, true),
                other => help_of(rt, other),
            }
        }
        Value::Builtin(b) => match &b.kind {
            BuiltinKind::Native(..) => {
                let key = native_module_key(rt, v).unwrap_or_else(|| b.name.to_string());
                lookup(&key).unwrap_or_else(|| format!("{key}(...)\n\nNo help entry.\n"))
            }
            // `np.array` and NumPy's other functions written in DGL: the function's own help.
            BuiltinKind::Method(f, native) if crate::runtime::numpy::is_numpy_wrapper(native) => help_of(rt, f),
            BuiltinKind::Method(this, _) => {
                let key = type_key(this).unwrap_or("object");
                let text = lookup(&format!("{key}.{}", b.name));
                let text =
                    text.or_else(|| (key == "Variable").then(|| lookup(&format!("Tensor.{}", b.name))).flatten());
                text.unwrap_or_else(|| format!("{key}.{}(...)\n\nNo help entry.\n", b.name))
            }
            // A decorated function: the help of the function it wraps.
            BuiltinKind::CustomGradient(f)
            | BuiltinKind::Recompute(f, _)
            | BuiltinKind::PassThrough(f)
            | BuiltinKind::StaticMethod(f)
            | BuiltinKind::ClassMethod(f) => help_of(rt, f),
            BuiltinKind::Type => format!(
                "class {}\n\nThe type of {} values, as `type(x)` gives it; `isinstance(x, type(y))` tests for it.\n",
                b.name, b.name
            ),
        },
        Value::Class(c) => class_help(rt, c),
        Value::Instance(_) if rt.is_not_implemented(v) => lookup("NotImplemented").unwrap_or_default(),
        Value::Instance(i) => class_help(rt, &i.class),
        Value::Module(m) => {
            // A namespace that binds names on first use (`tf.keras.layers`) binds them all
            // now, so its help lists every name.
            if let Some(h) = m.hooks {
                for n in (h.unbound)(m) {
                    let n = crate::intern::intern(n);
                    if m.globals.get(n).is_none() {
                        let _ = (h.missing)(rt, m, n);
                    }
                }
            }
            module_help(rt, m)
        }
        Value::ErrorType(k) => lookup(k.name()).unwrap_or_default(),
        Value::DType(d) => lookup(d.name()).unwrap_or_default(),
        other => {
            let name = type_key(other).map_or_else(|| other.type_name(), str::to_string);
            lookup(&name).unwrap_or_else(|| format!("{name}: a value of type {name} (no help entry)\n"))
        }
    }
}

/// The text for a name without an entry: the entries it may mean — those whose key contains it
/// as a word part (`recompute` → `recompute_grad`, `GradientTape.suggest_checkpoints`…) and the
/// nearest by spelling — or a line saying there is none.
fn no_entry(name: &str) -> String {
    let registry = super::entries::Registry::get();
    let needle = name.to_lowercase();
    let mut found: Vec<&str> = vec![];
    if needle.len() >= 3 {
        found.extend(registry.entries().map(|e| e.key.as_str()).filter(|k| k.to_lowercase().contains(&needle)));
    }
    // The nearest by spelling (of a key or of its last part: `gradiant` → `GradientTape.gradient`),
    // among names of about its length (the speller looks at a bounded number of candidates).
    let len = name.chars().count();
    let last = |k: &'static str| k.rsplit('.').next().unwrap_or(k);
    let keys: Vec<&'static str> = registry.entries().map(|e| e.key.as_str()).collect();
    let similar = keys.iter().map(|&k| last(k)).filter(|p| p.chars().count().abs_diff(len) <= 3);
    if let Some(near) = crate::runtime::suggest::suggest(name, similar) {
        for &k in keys.iter().filter(|&&k| last(k) == near) {
            if !found.contains(&k) {
                found.insert(0, k);
            }
        }
    }
    const SHOWN: usize = 12;
    match found.len() {
        0 => format!("No help entry for '{name}'.\n"),
        n => {
            let more = if n > SHOWN { format!(", and {} more", n - SHOWN) } else { String::new() };
            let list: Vec<&str> = found.into_iter().take(SHOWN).collect();
            format!("No help entry for '{name}'. Entries it may mean: {}{more}.\n", list.join(", "))
        }
    }
}

/// `help("name")`: an entry, or a name of the stdlib (`nn.Dense`, `Module`) looked up in its module.
pub fn name_help(rt: &mut Interp, name: &str) -> String {
    if let Some(text) = lookup(name) {
        return text;
    }
    let found = match name.split_once('.') {
        Some((module, rest)) => rt.import(module).ok().and_then(|m| {
            let mut v = Value::Module(m);
            for part in rest.split('.') {
                v = rt.get_attr(&v, crate::intern::intern(part)).ok()?;
            }
            Some(v)
        }),
        None => match LAZY.iter().find(|(n, _)| *n == name) {
            Some((n, module)) => rt.import(module).ok().and_then(|m| m.globals.get(crate::intern::intern(n))),
            None => rt.import(name).ok().map(Value::Module),
        },
    };
    match found {
        Some(v) => help_of(rt, &v),
        None => no_entry(name),
    }
}

/// `math.sqrt` for a function of a loaded native module (its builtin's name is only `sqrt`).
fn native_module_key(rt: &Interp, v: &Value) -> Option<String> {
    for m in NATIVE_MODULES {
        let Some(module) = rt.modules.get(*m) else { continue };
        for (name, value) in module.globals.bound() {
            if value.is(v) {
                return Some(format!("{m}.{name}"));
            }
        }
    }
    None
}

/// `name(signature)`, then the docstring.
fn function_help(rt: &Interp, f: &Function, bound: bool) -> String {
    let head = format!("{}({})", f.name, signature(rt, f, bound));
    match &f.def.doc {
        Some(doc) => format!("{head}\n\n{doc}\n"),
        None => format!("{head}\n"),
    }
}

/// A user function's parameters as written: `a, b=2, *args, key=None, **kw` (defaults as
/// their source text); `bound` leaves out the first (`self` of a bound method).
pub fn signature(rt: &Interp, f: &Function, bound: bool) -> String {
    let text = rt.sources.get(f.source).text.clone();
    let mut parts = vec![];
    let mut star = false;
    for (i, p) in f.def.params.iter().enumerate() {
        if bound && i == 0 {
            continue;
        }
        let default = p.default.as_ref().map(|d| text.get(d.span.range()).unwrap_or("...").to_string());
        match p.kind {
            ParamKind::VarArgs => {
                star = true;
                parts.push(format!("*{}", p.name));
                continue;
            }
            ParamKind::VarKw => {
                parts.push(format!("**{}", p.name));
                continue;
            }
            ParamKind::KwOnly if !star => {
                star = true;
                parts.push("*".into());
            }
            _ => {}
        }
        parts.push(match default {
            Some(d) => format!("{}={d}", p.name),
            None => p.name.to_string(),
        });
    }
    parts.join(", ")
}

/// The first line of a docstring (its summary), or empty.
pub fn summary(doc: Option<&Rc<str>>) -> &str {
    doc.and_then(|d| d.lines().next()).unwrap_or("")
}

/// `class Name(Base)`, the constructor's signature, the docstring, then the methods with
/// their summaries (the class's own, then the names inherited).
fn class_help(rt: &Interp, c: &Rc<Class>) -> String {
    let mut text = match &c.base {
        Some(b) => format!("class {}({})\n", c.name, b.name),
        None => format!("class {}\n", c.name),
    };
    if let Some(Value::Func(init)) = c.lookup(crate::intern::sym::INIT) {
        text.push_str(&format!("\n    {}({})\n", c.name, signature(rt, &init, true)));
    }
    if let Some(Value::Str(doc)) = c.attrs.borrow().get(&crate::intern::sym::DOC) {
        text.push_str(&format!("\n{doc}\n"));
    }
    let mut own = methods(c);
    own.retain(|(n, _, _)| n != "__init__");
    if !own.is_empty() {
        text.push_str("\nMethods:\n\n");
        for (name, f, kind) in &own {
            text.push_str(&format!("    {}\n", method_heading(rt, name, f, *kind)));
            let s = summary(f.def.doc.as_ref());
            if !s.is_empty() {
                text.push_str(&format!("        {s}\n"));
            }
        }
    }
    let mut seen: Vec<String> = own.into_iter().map(|(n, _, _)| n).collect();
    seen.push("__init__".into());
    let mut base = c.base.clone();
    while let Some(b) = base {
        let names: Vec<String> = methods(&b).into_iter().map(|(n, _, _)| n).filter(|n| !seen.contains(n)).collect();
        seen.extend(names.iter().cloned());
        if !names.is_empty() {
            text.push_str(&format!("\nInherited from {}: {}\n", b.name, names.join(", ")));
        }
        base = b.base.clone();
    }
    text
}

/// A class's own public methods and properties (and `__init__`, `__call__`), sorted by name,
/// unwrapping decorators (`staticmethod`, `custom_gradient`, …).
pub fn methods(c: &Class) -> Vec<(String, Rc<Function>, MethodKind)> {
    let mut out: Vec<(String, Rc<Function>, MethodKind)> = c
        .attrs
        .borrow()
        .iter()
        .filter(|(name, _)| {
            let n = name.name();
            !n.starts_with('_') || matches!(&*n, "__init__" | "__call__")
        })
        .filter_map(|(name, v)| {
            let kind = match v {
                Value::Property(_) => MethodKind::Property,
                Value::Builtin(b) if matches!(b.kind, BuiltinKind::StaticMethod(_)) => MethodKind::Static,
                _ => MethodKind::Bound,
            };
            Some((name.name().to_string(), user_function(v)?, kind))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// How a class attribute that is a function is used.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    /// Called with the instance (or the class) as its first argument.
    Bound,
    /// `@staticmethod`: called with the arguments as given.
    Static,
    /// `@property`: read, not called.
    Property,
}

/// `name(signature)` of a method listed by [`methods`]; a property's name alone.
pub fn method_heading(rt: &Interp, name: &str, f: &Function, kind: MethodKind) -> String {
    match kind {
        MethodKind::Property => name.to_string(),
        MethodKind::Static => format!("{name}({})", signature(rt, f, false)),
        MethodKind::Bound => format!("{name}({})", signature(rt, f, true)),
    }
}

/// The user function a value is or wraps, if any.
pub fn user_function(v: &Value) -> Option<Rc<Function>> {
    match v {
        Value::Func(f) => Some(f.clone()),
        Value::Property(p) => user_function(&p[0]),
        Value::Builtin(b) => match &b.kind {
            BuiltinKind::CustomGradient(f)
            | BuiltinKind::Recompute(f, _)
            | BuiltinKind::PassThrough(f)
            | BuiltinKind::StaticMethod(f)
            | BuiltinKind::ClassMethod(f) => user_function(f),
            _ => None,
        },
        _ => None,
    }
}

/// `module name`, its docstring, then its public names with their summaries.
fn module_help(rt: &Interp, m: &crate::runtime::value::Module) -> String {
    // TensorFlow's and NumPy's namespaces: their entry, then the names with their DGL values.
    let entry = m.hooks.and_then(|_| lookup(&m.name));
    let mut text = entry.unwrap_or_else(|| format!("module {}\n", m.name));
    if let Some(doc) = &m.doc {
        text.push_str(&format!("\n{doc}\n"));
    }
    let mut names = m.globals.bound();
    names.retain(|(n, v)| !n.name().starts_with('_') && !matches!(v, Value::Module(_)));
    names.sort_by_key(|(n, _)| n.name());
    if !names.is_empty() {
        text.push_str("\nNames:\n\n");
    }
    for (n, v) in names {
        let (head, line) = match &v {
            Value::Class(c) => {
                let sig = match c.lookup(crate::intern::sym::INIT) {
                    Some(Value::Func(init)) => signature(rt, &init, true),
                    _ => String::new(),
                };
                let doc = match c.attrs.borrow().get(&crate::intern::sym::DOC) {
                    Some(Value::Str(d)) => Some(d.into()),
                    _ => None,
                };
                (format!("{n}({sig})"), summary(doc.as_ref()).to_string())
            }
            v => match user_function(v) {
                Some(f) => (format!("{n}({})", signature(rt, &f, false)), summary(f.def.doc.as_ref()).to_string()),
                None => {
                    let registry = super::entries::Registry::get();
                    // A builtin under another module's name (`tf.range`) shows its own entry.
                    let own = match &v {
                        Value::Builtin(b) => registry.entry(&b.name),
                        Value::DType(d) => registry.entry(d.name()),
                        _ => None,
                    };
                    match registry.entry(&format!("{}.{n}", m.name)).or(own) {
                        Some(e) if e.heading.split('(').next() == Some(&*n.name()) => (e.heading.clone(), e.summary()),
                        Some(e) => (format!("{n} = {}", e.heading), e.summary()),
                        None => (n.name().to_string(), String::new()),
                    }
                }
            },
        };
        text.push_str(&format!("    {head}\n"));
        if !line.is_empty() {
            text.push_str(&format!("        {line}\n"));
        }
    }
    text
}

/// `dir(x)`: the attributes of x's builtin type, and the names x's own namespace binds
/// (an instance's attributes and its class chain's, a class's and its bases', a module's
/// globals), sorted and without repeats.
pub fn dir_names(rt: &Interp, v: &Value) -> Vec<String> {
    let mut out: Vec<String> = rt.builtin_attr_names(v).into_iter().map(|s| s.to_string()).collect();
    let class_chain = |c: &Rc<Class>, out: &mut Vec<String>| {
        let mut c = Some(c.clone());
        while let Some(class) = c {
            out.extend(class.attrs.borrow().keys().map(|k| k.name().to_string()));
            c = class.base.clone();
        }
    };
    match v {
        Value::Instance(i) => {
            out.extend(i.attrs.borrow().keys().map(|k| k.name().to_string()));
            class_chain(&i.class, &mut out);
        }
        Value::Class(c) => class_chain(c, &mut out),
        Value::Module(m) => out.extend(m.names()),
        Value::Func(_) => out.extend(["__doc__".to_string(), "__name__".to_string()]),
        _ => {}
    }
    out.sort();
    out.dedup();
    out
}

/// How many lines, and characters, of a value's `repr` `x?` shows.
const PREVIEW_LINES: usize = 12;
const PREVIEW_CHARS: usize = 1000;

/// Whether `x?` describes `v` as an object (its type, string form, shape…) rather than showing
/// documentation: every value but the documented kinds (functions, methods, classes, modules,
/// error kinds, dtypes), as IPython's `x?` shows a value and documents a callable.
pub fn is_data(v: &Value) -> bool {
    !matches!(
        v,
        Value::Func(_)
            | Value::Builtin(_)
            | Value::Method(_)
            | Value::Class(_)
            | Value::Module(_)
            | Value::ErrorType(_)
            | Value::DType(_)
    )
}

/// What `x?` shows of a value (IPython's object info): its type; for a tensor or Variable its
/// shape and dtype; for a sized container its length; its string form (the `repr`, the first
/// lines of a long one); then the summary of its type's documentation.
pub fn describe(rt: &mut Interp, v: &Value) -> String {
    let type_name = v.type_name();
    let mut rows = vec![("Type", type_name.clone())];
    let tensor = match v {
        Value::Tensor(t) => Some(t.clone()),
        Value::Variable(var) => Some(var.peek()),
        _ => None,
    };
    if let Some(t) = &tensor {
        rows.push(("Shape", crate::tensor::shape_str(t.shape())));
        rows.push(("Dtype", t.dtype().name().to_string()));
    }
    let length = match v {
        Value::Str(s) => Some(s.chars().count()),
        Value::List(l) => Some(l.borrow().len()),
        Value::Tuple(t) => Some(t.len()),
        Value::Dict(d) => Some(d.borrow().len()),
        Value::Set(s) | Value::FrozenSet(s) => Some(s.borrow().len()),
        _ => None,
    };
    if let Some(n) = length {
        rows.push(("Length", n.to_string()));
    }
    let shown = match rt.repr_of(v) {
        Ok(text) => preview(&text),
        Err(e) => format!("<repr raised {}>", e.type_name()),
    };
    rows.push(("String form", shown));
    let doc = match v {
        Value::Instance(i) => match i.class.attrs.borrow().get(&crate::intern::sym::DOC) {
            Some(Value::Str(doc)) => doc.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string(),
            _ => String::new(),
        },
        other => {
            let key = type_key(other).map_or(type_name.clone(), str::to_string);
            super::entries::Registry::get().entry(&key).map(|e| e.summary()).unwrap_or_default()
        }
    };
    if !doc.is_empty() {
        rows.push(("Docstring", doc));
    }
    let mut out = String::new();
    for (label, text) in rows {
        // Continuation lines of a multi-line string form line up under its first.
        let text = text.replace('\n', &format!("\n{:13}", ""));
        out.push_str(&format!("{:13}{text}\n", format!("{label}:")));
    }
    out
}

/// The first `PREVIEW_LINES` lines and `PREVIEW_CHARS` characters of `text`, with `…` where
/// it was cut.
fn preview(text: &str) -> String {
    let mut out: String = text.lines().take(PREVIEW_LINES).collect::<Vec<_>>().join("\n");
    let mut cut = text.lines().count() > PREVIEW_LINES;
    if out.chars().count() > PREVIEW_CHARS {
        out = out.chars().take(PREVIEW_CHARS).collect();
        cut = true;
    }
    if cut {
        out.push('…');
    }
    out
}

/// The type part of the keys of a builtin value's attributes (`Tensor` in `Tensor.numpy`).
/// The builtin types whose methods a type object reads unbound (`str.upper`).
const METHOD_TYPES: &[&str] =
    &["GradientTape", "Tensor", "Variable", "TensorShape", "str", "list", "dict", "set", "frozenset", "tuple", "int", "float", "complex", "range"];

pub fn type_key(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::Tensor(_) => "Tensor",
        Value::Variable(_) => "Variable",
        Value::Tape(_) => "GradientTape",
        Value::Accumulator(_) => "ForwardAccumulator",
        Value::List(_) => "list",
        Value::Dict(_) => "dict",
        Value::Str(_) => "str",
        Value::Set(_) => "set",
        Value::FrozenSet(_) => "frozenset",
        Value::Tuple(_) => "tuple",
        Value::File(_) => "file",
        Value::Exception(_) => "Exception",
        Value::DType(_) => "dtype",
        Value::Generator(_) => "generator",
        // A type object whose methods have entries (`str` of `str.upper`, TF's
        // `tf.GradientTape` of `tf.GradientTape.gradient`): its methods' key.
        Value::Builtin(b) if crate::runtime::value::is_type_object(b) && METHOD_TYPES.contains(&b.name.as_ref()) => {
            METHOD_TYPES.iter().find(|t| **t == b.name.as_ref()).copied().unwrap_or("function")
        }
        Value::Builtin(b) if matches!(b.kind, BuiltinKind::Native(..) | BuiltinKind::Method(..)) => "function",
        Value::ErrorType(_) => "type",
        Value::Int(_) | Value::Bool(_) => "int",
        Value::Float(_) => "float",
        Value::Complex(..) => "complex",
        Value::Range(_) => "range",
        _ => return None,
    })
}
