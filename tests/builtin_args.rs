//! Every registered builtin and every method of the builtin types, called with
//! random argument lists (wrong arity, wrong types, unknown and repeated
//! keywords), never panics and never raises an internal error: each call returns
//! or raises an exception of a kind a user can act on.
//!
//! The script runs in an empty temporary folder, so the file builtins
//! (`save_npy`, `load_npy`, `read_csv`) only ever see relative paths such as
//! `'x'` inside it: nothing is read or written elsewhere. No builtin reads stdin.

use dgl::autodiff::{Tape, Variable};
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
    let mut names: Vec<String> =
        rt.builtins().iter().filter(|(_, v)| matches!(v, Value::Builtin(_))).map(|(k, _)| k.name().to_string()).collect();
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
