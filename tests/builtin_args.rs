//! Every registered builtin and every method of the builtin types, called with
//! random argument lists (wrong arity, wrong types, unknown and repeated
//! keywords), never panics and never raises an internal error: each call returns
//! or raises an exception of a kind a user can act on. Every declared builtin,
//! called with arguments of its parameters' declared types, reads each as declared.
//!
//! The script runs in an empty temporary folder, so the file builtins
//! (`save_npy`, `load_npy`, `read_csv`) only ever see relative paths such as
//! `'x'` inside it: nothing is read or written elsewhere. No builtin reads stdin.

use dgl::autodiff::{Tape, Variable};
use dgl::builtins::{Native, Signature, Ty};
use dgl::runtime::value::BuiltinKind;
use dgl::runtime::value::Value;
use dgl::tensor::{Array, DType, Tensor};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

/// Argument values, as DGL source: every type a builtin might meet, all small.
const POOL: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "2.5",
    "True",
    "None",
    "'x'",
    "'float32'",
    "[1, 2]",
    "[[1.0, 2.0], [3.0, 4.0]]",
    "(0,)",
    "{'a': 1}",
    "constant([1.0, 2.0])",
    "constant([[1, 2]], dtype=int64)",
    "float32",
    "int64",
    "Variable([1.0, 2.0])",
    "len",
    "lambda *a: 0",
    "range(3)",
    "GradientTape()",
];

/// Keyword names: parameter names of many builtins, and ones that no builtin has.
const KEYWORDS: &[&str] =
    &["x", "axis", "dtype", "key", "default", "start", "value", "shape", "keepdims", "reverse", "sep", "name", "bogus"];

/// The exception kinds a wrong call may raise (RuntimeError: a used non-persistent tape).
const ALLOWED: &[&str] = &[
    "TypeError",
    "ValueError",
    "ShapeError",
    "IndexError",
    "KeyError",
    "AttributeError",
    "IOError",
    // `os`'s file calls, as CPython's (the script's folder is an empty temporary one).
    "FileNotFoundError",
    "FileExistsError",
    "IsADirectoryError",
    "NotADirectoryError",
    "PermissionError",
    "RuntimeError",
    "ZeroDivisionError",
    "OverflowError",
];

/// Receivers of the method tables, as DGL source, with a Rust value of the same type.
fn receivers() -> Vec<(&'static str, Value)> {
    let tensor = Tensor::new(Array::zeros(DType::F32, &[2]));
    vec![
        ("[3, 1, 2]", Value::list(vec![])),
        ("{'a': 1, 'b': 2}", Value::Dict(Rc::default())),
        ("'a b'", Value::str("")),
        ("constant([1.0, 2.0])", Value::Tensor(tensor.clone())),
        ("Variable([1.0, 2.0])", Value::Variable(Rc::new(Variable::new((*tensor.data).clone(), true, None)))),
        ("GradientTape(persistent=True)", Value::Tape(Rc::new(RefCell::new(Tape::new(true, true))))),
    ]
}

fn lcg(seed: &mut u64) -> usize {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*seed >> 33) as usize
}

/// A random call of `callee`: 0–4 positional arguments, and in one call of three 1–2 keywords.
fn random_call(callee: &str, seed: &mut u64) -> String {
    let mut args: Vec<String> = (0..lcg(seed) % 5).map(|_| POOL[lcg(seed) % POOL.len()].to_string()).collect();
    let keywords = if lcg(seed).is_multiple_of(3) { 1 + lcg(seed) % 2 } else { 0 };
    for _ in 0..keywords {
        args.push(format!("{}={}", KEYWORDS[lcg(seed) % KEYWORDS.len()], POOL[lcg(seed) % POOL.len()]));
    }
    // Python rejects `f(x=1, x=2)` and `f(x=1, 2)` at parse time; keep the call well formed.
    let mut seen = BTreeSet::new();
    args.retain(|a| {
        a.split_once('=').is_none_or(|(k, _)| k.contains(['(', '[', '{', '\'']) || seen.insert(k.to_string()))
    });
    args.sort_by_key(|a| a.split_once('=').is_some_and(|(k, _)| !k.contains(['(', '[', '{', '\''])));
    format!("{callee}({})", args.join(", "))
}

/// Runs `src` in an empty temporary folder; returns (exit code, stdout, stderr).
fn run(src: String) -> (i32, String, String) {
    dgl::with_big_stack(move || {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("fuzz.dgl");
        let buf = Rc::new(RefCell::new(Vec::<u8>::new()));
        let out: dgl::runtime::Output = buf.clone();
        let mut rt = dgl::runtime::Interp::new(out);
        let r = dgl::run_program(&mut rt, "fuzz.dgl", Some(&path), &src, vec![]);
        let stdout = String::from_utf8_lossy(&buf.borrow()).into_owned();
        (r.code, stdout, r.stderr)
    })
}

/// Calls each callee (`name`, `receiver.method`) 60 times at random; every outcome line is checked.
fn check(callees: Vec<(String, String)>) {
    let mut seed = 11;
    let mut src = String::new();
    for (setup, callee) in &callees {
        for _ in 0..60 {
            let call = random_call(callee, &mut seed);
            src.push_str(&format!(
                "try:\n    {setup}\n    {call}\nexcept Exception as e:\n    print('raised', type(e).__name__, {:?}, str(e))\n",
                call
            ));
        }
    }
    let (code, stdout, stderr) = run(src);
    assert_eq!(code, 0, "the script failed: {stderr}");
    let mut raised = 0;
    for line in stdout.lines().filter(|l| l.starts_with("raised ")) {
        raised += 1;
        let kind = line.split(' ').nth(1).unwrap_or("");
        assert!(ALLOWED.contains(&kind), "unexpected kind: {line}");
        assert!(!line.contains("internal error"), "internal error: {line}");
    }
    // The test must be able to fail: most random calls are wrong.
    assert!(raised > callees.len() * 10, "only {raised} calls raised");
}

#[test]
fn every_builtin_function_survives_random_arguments() {
    let rt = dgl::runtime::Interp::new(Rc::new(RefCell::new(Vec::<u8>::new())));
    let mut names: Vec<String> = rt
        .builtins()
        .iter()
        .filter(|(_, v)| matches!(v, Value::Builtin(_)))
        .map(|(k, _)| k.name().to_string())
        .collect();
    // `input` reads the test process's own stdin (which may be a terminal): not fuzzed.
    names.retain(|n| n != "input");
    names.sort();
    assert!(names.len() > 80, "only {} builtins registered", names.len());
    check(names.into_iter().map(|n| ("pass".to_string(), n)).collect());
}

#[test]
fn every_builtin_method_survives_random_arguments() {
    let mut callees = Vec::new();
    for (src, value) in receivers() {
        let names = dgl::builtins::methods::attr_names(&value);
        assert!(!names.is_empty(), "{src} has no attributes");
        for name in names {
            // A fresh receiver per call: methods such as `clear` or `reset` change it.
            callees.push((format!("recv = {src}"), format!("recv.{name}")));
        }
    }
    check(callees);
}

/// A DGL value of each declared parameter type ([`Ty`]), and one of a wrong type (`None` for
/// `bool`, which takes any value), both as source.
fn typed_value(ty: Ty) -> (&'static str, Option<&'static str>) {
    match ty {
        Ty::Object => ("1", None),
        Ty::TensorLike => ("constant([1.0, 2.0])", Some("'x'")),
        Ty::Int | Ty::OptInt => ("1", Some("'x'")),
        Ty::Float => ("0.25", Some("'x'")),
        Ty::Bool => ("True", None),
        Ty::Axes => ("0", Some("'x'")),
        Ty::Shape | Ty::OptShape => ("[2]", Some("'x'")),
        Ty::DType | Ty::OptDType => ("float32", Some("'x'")),
    }
}

/// Values tried for the unannotated parameters, which each builtin converts itself.
const OBJECTS: &[&str] = &["1", "constant([1.0, 2.0])", "[1, 2]", "'x'", "None"];

/// A receiver, as DGL source, for each builtin type whose methods are declared.
fn receiver_of(ty: &str) -> Option<&'static str> {
    Some(match ty {
        "Tensor" => "constant([1.0, 2.0])",
        "Variable" => "Variable([1.0, 2.0])",
        "GradientTape" => "GradientTape(persistent=True)",
        "ForwardAccumulator" => "ForwardAccumulator(constant(1.0), constant(1.0))",
        "list" => "[3, 1, 2]",
        "dict" => "{'a': 1, 'b': 2}",
        "str" => "'a b'",
        "set" => "{1, 2}",
        "frozenset" => "frozenset({1, 2})",
        "int" => "7",
        "float" => "2.5",
        "complex" => "(1.5-2j)",
        "tuple" => "(1, 2)",
        "TensorShape" => "TensorShape([2, None])",
        "range" => "range(3)",
        "slice" => "slice(1, 2)",
        "dtype" => "float32",
        "file" => "open('f', 'w')",
        "property" => "property(lambda s: 1)",
        "generator" => "(i for i in range(3))",
        _ => return None,
    })
}

/// How a declared builtin is reached from a script: (setup, callee).
fn reach(key: &str) -> (String, String) {
    match key.split_once('.') {
        Some((module @ ("math" | "random" | "time" | "json" | "os" | "_plot" | "_progress_bar"), _)) => {
            (format!("import {module}"), key.to_string())
        }
        Some(("linalg", _)) => ("pass".into(), key.to_string()),
        Some(("tf", _)) => ("import tensorflow as tf".into(), key.to_string()),
        Some((ty, name)) => {
            let recv = receiver_of(ty).unwrap_or_else(|| panic!("no receiver for the methods of {ty}"));
            (format!("recv = {recv}"), format!("recv.{name}"))
        }
        None => ("pass".into(), key.to_string()),
    }
}

/// Every declared builtin called with arguments of its parameters' declared types, by keyword:
/// a getter that reads a parameter as another type than its declaration's raises an internal
/// error, so this finds every declaration whose types are not the ones its function reads. Each
/// typed parameter is also given a value of a wrong type, which must raise an exception a user
/// can act on.
#[test]
fn every_declared_parameter_is_read_as_its_declared_type() {
    let mut src = String::new();
    let mut calls = 0;
    // The declared builtins, and the natives of the private modules the standard library imports.
    let mut natives: Vec<(String, &'static Native)> = dgl::builtins::declared().to_vec();
    let mut rt = dgl::runtime::Interp::new(Rc::new(RefCell::new(Vec::<u8>::new())));
    for module in ["_plot", "_progress_bar"] {
        let build = dgl::builtins::modules::find(module).expect("a native module");
        for (name, v) in build(&mut rt).expect("the module builds") {
            if let Value::Builtin(b) = v {
                if let BuiltinKind::Native(f, _) = b.kind {
                    natives.push((format!("{module}.{name}"), f));
                }
            }
        }
    }
    assert!(natives.len() > dgl::builtins::declared().len() + 8);
    for (key, native) in &natives {
        // `input` reads stdin; `time.sleep` would sleep; `exit` ends the script.
        if matches!(key.as_str(), "input" | "time.sleep" | "exit" | "quit") {
            continue;
        }
        let (setup, callee) = reach(key);
        let sig = &native.sig;
        let named: Vec<(usize, &str)> = (0..sig.params.len())
            .filter(|&i| !sig.params[i].starts_with('*'))
            .map(|i| (i, sig.names().nth(named_index(sig, i)).expect("a name")))
            .collect();
        let call = |object: &str, wrong: Option<usize>| {
            let args: Vec<String> = named
                .iter()
                .map(|&(i, name)| {
                    let (good, bad) = typed_value(sig.ty(i));
                    let v = match (sig.ty(i), wrong) {
                        (Ty::Object, _) => object,
                        (_, Some(w)) if w == i => bad.expect("a wrong value"),
                        _ => good,
                    };
                    format!("{name}={v}")
                })
                .collect();
            format!("{callee}({})", args.join(", "))
        };
        let mut variants: Vec<(String, bool)> = OBJECTS.iter().map(|o| (call(o, None), false)).collect();
        for &(i, _) in &named {
            if typed_value(sig.ty(i)).1.is_some() {
                variants.push((call(OBJECTS[0], Some(i)), true));
            }
        }
        for (call, must_raise) in variants {
            calls += 1;
            let must_raise = if must_raise { "True" } else { "False" };
            src.push_str(&format!(
                "try:\n    {setup}\n    {call}\n    if {must_raise}:\n        print('returned', {call:?})\nexcept Exception as e:\n    print('raised', type(e).__name__, {call:?}, str(e))\n"
            ));
        }
    }
    let (code, stdout, stderr) = run(src);
    assert_eq!(code, 0, "the script failed: {stderr}");
    let bad: Vec<&str> = stdout
        .lines()
        .filter(|l| {
            l.starts_with("returned ")
                || l.contains("internal error")
                || (l.starts_with("raised ") && !ALLOWED.contains(&l.split(' ').nth(1).unwrap_or("")))
        })
        .collect();
    assert!(bad.is_empty(), "{} of {calls} calls:\n{}", bad.len(), bad.join("\n"));
    assert!(calls > 2000, "only {calls} calls");
}

/// The position among the named parameters (markers skipped) of `params[i]`.
fn named_index(sig: &Signature, i: usize) -> usize {
    sig.params[..i].iter().filter(|p| !p.starts_with('*')).count()
}
