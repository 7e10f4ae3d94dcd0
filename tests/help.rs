//! The help system's coverage: every builtin, method, native-module name and stdlib def has a
//! doc text; each native builtin is declared once and its entry's heading is its declaration's;
//! help(name) prints the entry as docs/reference.md shows it; and
//! docs/reference.md is `dgl doc`'s current output.

use dgl::builtins::{methods, modules, Native, Signature};
use dgl::help::entries::Registry;
use dgl::runtime::value::{BuiltinKind, Value};
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
    for m in ["math", "time", "random", "sys", "json"] {
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

/// Every native builtin value the interpreter holds (bare names, and the native modules' and
/// `linalg`'s functions), with its help key.
fn native_values(rt: &mut Interp) -> Vec<(String, &'static Native)> {
    let mut out = vec![];
    let builtins: Vec<(String, Value)> = rt.builtins().iter().map(|(k, v)| (k.name().to_string(), v.clone())).collect();
    let linalg = rt.import("linalg").expect("linalg imports");
    let linalg: Vec<(String, Value)> = linalg
        .names()
        .into_iter()
        .filter_map(|n| Some((format!("linalg.{n}"), linalg.globals.get(dgl::intern::intern(&n))?)))
        .filter(|(n, _)| {
            !["linalg.matmul", "linalg.eye", "linalg.norm", "linalg.global_norm", "linalg.einsum"].contains(&n.as_str())
        })
        .collect();
    for (key, v) in builtins.into_iter().chain(native_module_names(rt)).chain(linalg) {
        if let Value::Builtin(b) = &v {
            if let BuiltinKind::Native(f, _) = b.kind {
                out.push((key, f));
            }
        }
    }
    out
}

#[test]
fn declarations_and_entries_match_one_to_one() {
    let declared = dgl::builtins::declared();
    let mut bad = vec![];
    let mut keys = std::collections::HashSet::new();
    for (key, native) in declared {
        if !keys.insert(key.clone()) {
            bad.push(format!("{key}: declared twice"));
        }
        match Registry::get().entry(key) {
            None => bad.push(format!("{key}: declared, but src/help/*.md has no entry")),
            // The entry's heading is the declaration's (the .md file gives the name alone).
            Some(e) if e.heading != native.sig.heading(key) => bad.push(format!(
                "{key}: help shows `{}`, the declaration says `{}`",
                e.heading,
                native.sig.heading(key)
            )),
            Some(_) => {}
        }
    }
    // Each entry of a declared builtin names it alone: a signature written in the .md file
    // would be a second declaration.
    for section in &Registry::parse(dgl::help::entries::FILES).sections {
        for e in &section.entries {
            if keys.contains(&e.key) && e.heading != e.key {
                bad.push(format!(
                    "{}: src/help/{} writes a signature (`{}`); the declaration gives it",
                    e.key, section.file, e.heading
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn every_native_value_is_its_declaration() {
    let mut rt = interp();
    let declared = dgl::builtins::declared();
    let bad: Vec<String> = native_values(&mut rt)
        .into_iter()
        .filter(|(key, f)| !declared.iter().any(|(k, d)| k == key && std::ptr::eq(*d, *f)))
        .map(|(key, f)| format!("{key} (declared as {})", f.name))
        .collect();
    // `float16` and the other dtypes DGL lacks share one declaration, which raises, as does
    // `Tensor`, a type's name (its entry is the type's).
    let bad: Vec<String> =
        bad.into_iter().filter(|k| !k.ends_with("(declared as dtype)") && !k.starts_with("Tensor ")).collect();
    assert!(bad.is_empty(), "native builtins that are not their declared() entry:\n{}", bad.join("\n"));
}

#[test]
fn the_heading_of_a_declaration_is_its_python_text() {
    static SIG: Signature = Signature::new(&["x", "axis=None"]);
    static KW: Signature = Signature::new(&["a", "b", "*", "transpose_a=False"]);
    static VAR: Signature = Signature::new(&["equation", "*inputs", "name=None"]);
    assert_eq!(SIG.heading("f"), "f(x, axis=None)");
    assert_eq!((SIG.required, KW.required, VAR.required), (1, 2, 1));
    assert_eq!(KW.heading("matmul"), "matmul(a, b, *, transpose_a=False)");
    assert_eq!(VAR.names().collect::<Vec<_>>(), ["equation", "name"]);
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
        // `newaxis` is None and `half` is float16: their values' help is None's and float16's;
        // `OSError` and `EnvironmentError` are the one object `IOError` (docs/language.md
        // "Exceptions"), whose help their value shows.
        let value = rt.builtins().get(&dgl::intern::intern(&e.key)).cloned();
        let alias = ["half", "OSError", "EnvironmentError"].contains(&e.key.as_str());
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

#[test]
fn a_declarations_first_tf_spelling_is_the_first_its_entry_names() {
    // The help text says what `import tensorflow as tf` binds and what `dgl export` writes.
    let mut bad = vec![];
    for (key, native) in dgl::builtins::declared() {
        let tf: Vec<&str> = native.spellings.iter().copied().filter(|s| s.starts_with("tf.")).collect();
        let Some(entry) = Registry::get().entry(&key) else { continue };
        let line = entry.body.lines().find_map(|l| l.trim().strip_prefix("- TF:")).unwrap_or("");
        let named: Vec<&str> = line.split('`').skip(1).step_by(2).filter(|n| n.starts_with("tf.")).collect();
        // Where both name one, they agree (a builtin's entry may name a TF counterpart that
        // `tf` binds to another builtin, as `neg`'s names `tf.negative`).
        if let (Some(first), Some(said)) = (tf.first(), named.first()) {
            if first != said {
                bad.push(format!("{key}: declared {first} first, its entry's TF line names {said} first"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
