//! The help system's coverage (issue 11, item 3): every builtin, method, native-module name and
//! stdlib def has a doc text; each entry's heading matches how the builtin binds its
//! arguments; help(name) prints the entry as docs/reference.md shows it; and
//! docs/reference.md is `dgl doc`'s current output.

use dgl::builtins::{methods, modules, probe_signature, Signature};
use dgl::help::entries::{key_of, Registry};
use dgl::runtime::value::{BuiltinKind, NativeFn, Value};
use dgl::runtime::Interp;
use std::cell::RefCell;
use std::rc::Rc;

fn interp() -> Interp {
    Interp::new(Rc::new(RefCell::new(Vec::<u8>::new())))
}

/// The Python-level builtins whose entries src/help/python.md holds (the help slice's names;
/// the tensor ops and autodiff names are checked by `every_builtin_and_stdlib_def_is_documented`).
const PYTHON_NAMES: &str = "
AssertionError AttributeError EOFError Exception IOError BaseException SystemExit GeneratorExit StopAsyncIteration ArithmeticError FloatingPointError BufferError ModuleNotFoundError LookupError MemoryError UnboundLocalError OSError EnvironmentError FileNotFoundError FileExistsError PermissionError IsADirectoryError NotADirectoryError TimeoutError IndentationError TabError UnicodeError UnicodeDecodeError UnicodeEncodeError Warning UserWarning DeprecationWarning RuntimeWarning issubclass ImportError IndexError KeyError KeyboardInterrupt NameError NotImplementedError OverflowError RecursionError RuntimeError ShapeError StopIteration SyntaxError Tensor TypeError UnconnectedGradients ValueError ZeroDivisionError abs all any argv bfloat16 bin bool callable chr classmethod complex128 complex64 dict display divmod enumerate filter float float16 float32 float64 format function getattr half hasattr hash hex int int16 int32 int64 int8 isinstance iter len list map max min newaxis next object oct open print property qint32 qint8 quint8 range repr reversed set staticmethod str sum tuple type uint16 uint32 uint64 uint8 zip input ord sorted help dir";

#[test]
fn docs_reference_md_is_the_output_of_dgl_doc() {
    let generated = dgl::help::reference::generate().expect("the reference generates");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reference.md");
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        generated == checked_in,
        "docs/reference.md is not the output of `dgl doc`: regenerate it with `cargo run -- doc > docs/reference.md`"
    );
}

#[test]
fn no_key_has_two_entries() {
    let mut seen = std::collections::HashSet::new();
    let dups: Vec<&str> =
        Registry::get().entries().map(|e| e.key.as_str()).filter(|k| !seen.insert(k.to_string())).collect();
    assert!(dups.is_empty(), "keys with more than one entry: {dups:?}");
}

#[test]
fn every_python_builtin_has_an_entry() {
    let missing: Vec<&str> = PYTHON_NAMES.split_whitespace().filter(|n| Registry::get().entry(n).is_none()).collect();
    assert!(missing.is_empty(), "builtins without an entry in src/help/python.md: {missing:?}");
    let rt = interp();
    let absent: Vec<&str> =
        PYTHON_NAMES.split_whitespace().filter(|n| !rt.builtins().contains_key(&dgl::intern::intern(n))).collect();
    assert!(absent.is_empty(), "entries for names that are not builtins: {absent:?}");
}

#[test]
fn every_attribute_of_every_builtin_type_has_an_entry() {
    let missing: Vec<String> = methods::attribute_tables()
        .into_iter()
        .map(|(ty, name, _)| format!("{ty}.{name}"))
        .filter(|k| Registry::get().entry(k).is_none())
        .collect();
    assert!(missing.is_empty(), "attributes without an entry in src/help/methods.md: {missing:?}");
}

/// The native modules' names, as `module.name` keys, with their values.
fn native_module_names(rt: &mut Interp) -> Vec<(String, Value)> {
    let mut out = vec![];
    for m in ["math", "time", "random", "sys"] {
        let build = modules::find(m).expect("a native module");
        for (name, v) in build(rt).expect("the module builds") {
            out.push((format!("{m}.{name}"), v));
        }
    }
    out
}

#[test]
fn every_name_of_the_native_modules_has_an_entry() {
    let mut rt = interp();
    let missing: Vec<String> = native_module_names(&mut rt)
        .into_iter()
        .map(|(k, _)| k)
        .filter(|k| Registry::get().entry(k).is_none())
        .collect();
    assert!(missing.is_empty(), "module names without an entry in src/help/modules.md: {missing:?}");
}

/// A heading's parameters: (names of the named parameters in order, how many are required,
/// whether it takes `*args`), or None for a heading without parentheses.
fn heading_params(heading: &str) -> Option<(Vec<String>, usize, bool)> {
    let open = heading.find('(')?;
    let inner = heading.get(open + 1..heading.rfind(')')?)?;
    // Split at top-level commas (defaults may hold brackets or quoted commas).
    let (mut parts, mut depth, mut quote, mut cur) = (vec![], 0i32, None::<char>, String::new());
    for c in inner.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur);
    let (mut names, mut required, mut varargs) = (vec![], 0, false);
    for p in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        if p.starts_with("**") {
            continue;
        } else if p.starts_with('*') {
            // `*args`, or a bare `*` (keyword-only parameters: a varargs Signature whose
            // builtin rejects extra positional arguments itself).
            varargs = true;
        } else if let Some((name, _)) = p.split_once('=') {
            names.push(name.trim().to_string());
        } else {
            names.push(p.to_string());
            required += 1;
        }
    }
    Some((names, required, varargs))
}

/// How a heading differs from the signature a builtin binds with, if it does.
fn mismatch(heading: &str, sig: &Signature) -> Option<String> {
    let (mut names, mut required, varargs) = heading_params(heading)?;
    let want: Vec<&str> = sig.params.to_vec();
    // A `*args` builtin reads its leading positional arguments itself (`einsum(equation,
    // *inputs)`, `matmul(a, b)`): the heading may name them; the keyword parameters must match.
    if sig.varargs {
        names.retain(|n| want.contains(&&n[..]));
        required = sig.required;
    }
    let same = names == want && required == sig.required && varargs == sig.varargs;
    (!same).then(|| {
        format!(
            "`{heading}`: the builtin binds {}({}{}) with {} required",
            key_of(heading),
            if sig.varargs { "*args, " } else { "" },
            want.join(", "),
            sig.required
        )
    })
}

#[test]
fn the_heading_check_catches_names_required_counts_and_varargs() {
    static SIG: Signature = Signature::new(&["x", "axis"], 1);
    static VAR: Signature = Signature::varargs(&["sep"]);
    assert_eq!(mismatch("f(x, axis=None)", &SIG), None);
    assert_eq!(mismatch("f(x, axes=None)", &SIG).is_some(), true, "a renamed parameter");
    assert_eq!(mismatch("f(x, axis)", &SIG).is_some(), true, "a parameter made required");
    assert_eq!(mismatch("f(x, axis=None, keepdims=False)", &SIG).is_some(), true, "an extra parameter");
    assert_eq!(mismatch("f(*args, sep=' ')", &VAR), None);
    assert_eq!(mismatch("f(*, sep=', ')", &VAR), None);
    assert_eq!(mismatch("f(sep=' ')", &VAR).is_some(), true, "varargs left out");
    assert_eq!(mismatch("f(equation, *inputs, sep=None)", &VAR), None);
    assert_eq!(mismatch("f(equation, *inputs, end=None)", &VAR).is_some(), true, "a keyword renamed");
}

/// A receiver of each builtin type with methods, for probing the methods' signatures.
fn receivers(rt: &mut Interp) -> Vec<(&'static str, Value)> {
    let code = "[constant(1.0), Variable(1.0), GradientTape(), [1], {1: 2}, 'a', {1}, ValueError('e'), (x for x in [1]), float32, print, ValueError]";
    let id = rt.add_source("<probe>", &format!("_values = {code}\n"));
    let globals = Rc::new(dgl::runtime::value::Globals::default());
    rt.run_source(id, &globals).ok().expect("the probe values build");
    let values = globals.get(dgl::intern::intern("_values")).expect("bound");
    let items = rt.iterate(&values).expect("a list");
    let types = [
        "Tensor",
        "Variable",
        "GradientTape",
        "list",
        "dict",
        "str",
        "set",
        "Exception",
        "generator",
        "dtype",
        "function",
        "type",
    ];
    types.into_iter().zip(items).collect()
}

/// Each native fn with an entry and the signature it binds with, checked against the heading.
fn check_signatures(rt: &mut Interp, named: Vec<(String, NativeFn, Option<Value>)>) -> Vec<String> {
    let mut bad = vec![];
    for (key, f, this) in named {
        let Some(entry) = Registry::get().entry(&key) else { continue };
        let name = key.rsplit('.').next().unwrap_or(&key).to_string();
        // A builtin that reads its arguments without a Signature is checked by name only.
        if let Some(sig) = probe_signature(rt, f, this, &name) {
            bad.extend(mismatch(&entry.heading, sig));
        }
    }
    bad
}

fn native(v: &Value) -> Option<NativeFn> {
    match v {
        Value::Builtin(b) => match b.kind {
            BuiltinKind::Native(f) => Some(f),
            _ => None,
        },
        _ => None,
    }
}

#[test]
fn every_heading_matches_the_signature_its_builtin_binds() {
    let mut rt = interp();
    let mut named: Vec<(String, NativeFn, Option<Value>)> = vec![];
    let builtins: Vec<(String, Value)> = rt.builtins().iter().map(|(k, v)| (k.name().to_string(), v.clone())).collect();
    for (name, v) in builtins {
        if let Some(f) = native(&v) {
            named.push((name, f, None));
        }
    }
    for (key, v) in native_module_names(&mut rt) {
        if let Some(f) = native(&v) {
            named.push((key, f, None));
        }
    }
    let receivers = receivers(&mut rt);
    for (ty, name, f) in methods::attribute_tables() {
        let (Some(f), Some((_, this))) = (f, receivers.iter().find(|(t, _)| *t == ty)) else { continue };
        named.push((format!("{ty}.{name}"), f, Some(this.clone())));
    }
    // The file methods probe on sys.stdout.
    let sys = rt.import("sys").expect("sys imports");
    let stdout = sys.globals.get(dgl::intern::intern("stdout")).expect("sys.stdout");
    for (ty, name, f) in methods::attribute_tables() {
        if let ("file", Some(f)) = (ty, f) {
            named.push((format!("file.{name}"), f, Some(stdout.clone())));
        }
    }
    named.sort_by(|a, b| a.0.cmp(&b.0));
    let bad = check_signatures(&mut rt, named);
    assert!(bad.is_empty(), "headings that differ from their builtin's parameters:\n{}", bad.join("\n"));
}

#[test]
fn help_of_each_entry_prints_the_entry_as_the_reference_shows_it() {
    let reference = dgl::help::reference::generate().expect("the reference generates");
    let mut rt = interp();
    let mut bad = vec![];
    for e in Registry::get().entries() {
        let text = e.text();
        if !reference.contains(&format!("\n## {text}")) {
            bad.push(format!("{}: not in the reference as help shows it", e.key));
        }
        // help("name") and help(value) print the entry (and a type's attribute summaries after it).
        let by_name = dgl::help::help_name(&mut rt, &e.key);
        if !by_name.starts_with(&text) {
            bad.push(format!("{}: help(\"{}\") prints another text", e.key, e.key));
        }
        // `newaxis` is None and `int32` is int64: their values' help is None's and int64's;
        // `OSError` and `EnvironmentError` are the one object `IOError` (docs/language.md
        // "Exceptions"), whose help their value shows.
        let value = rt.builtins().get(&dgl::intern::intern(&e.key)).cloned();
        let alias = ["int32", "OSError", "EnvironmentError"].contains(&e.key.as_str());
        if let Some(v) = value.filter(|v| !matches!(v, Value::None) && !alias) {
            if dgl::help::help_text(&mut rt, &v) != by_name {
                bad.push(format!("{}: help({}) differs from help(\"{}\")", e.key, e.key, e.key));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_reference_ends_each_dgl_example_with_its_output() {
    let reference = dgl::help::reference::generate().expect("the reference generates");
    let lines: Vec<&str> = reference.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.trim() == "```dgl" {
            let close = lines[i + 1..].iter().position(|l| l.trim() == "```").map(|j| i + 1 + j);
            let next = close.and_then(|c| lines[c + 1..].iter().find(|l| !l.trim().is_empty()));
            assert_eq!(
                next.map(|l| l.trim()),
                Some("```output"),
                "the ```dgl block at line {} has no ```output",
                i + 1
            );
        }
    }
}

#[test]
fn every_builtin_and_stdlib_def_is_documented() {
    let rt = interp();
    let mut missing: Vec<String> =
        rt.builtins().keys().map(|k| k.name().to_string()).filter(|n| Registry::get().entry(n).is_none()).collect();
    missing.sort();
    let reference = dgl::help::reference::generate().expect("the reference generates");
    // A stdlib entry without a docstring is its heading followed directly by the next heading.
    let lines: Vec<&str> = reference.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("## ") || l.starts_with("### ") {
            let next = lines[i + 1..].iter().find(|l| !l.trim().is_empty());
            if next.map_or(true, |n| n.starts_with('#')) {
                missing.push(l.trim_start_matches('#').trim().to_string());
            }
        }
    }
    assert!(missing.is_empty(), "builtins without an entry, stdlib defs without a docstring:\n{}", missing.join("\n"));
}
