//! The layers of src/README.md, checked: each lower layer imports nothing from the ones
//! above it (issue 8: tensor/ depends on nothing above it, syntax/ does not import the
//! runtime, autodiff/ is a layer of its own, and no import circle joins runtime/, autodiff/
//! and builtins/). A `use` of a higher layer anywhere in a lower one fails this test. Within
//! autodiff/, the core does not import the tools' wing (`autodiff/tools/`), which sees it
//! through its observer.

use std::fs;
use std::path::{Path, PathBuf};

/// Every .rs file under `dir`, recursively.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot read {}: {e}", d.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The places in `layer` that name one of `forbidden` (crate paths such as `crate::runtime`).
fn violations(layer: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(layer);
    let files = sources(&root);
    assert!(!files.is_empty(), "no sources under {}", root.display());
    let mut found = Vec::new();
    for f in files {
        let text = fs::read_to_string(&f).expect("readable source");
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for bad in forbidden {
                if code.contains(bad) {
                    found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn tensor_depends_on_nothing_above_it() {
    let v = violations(
        "tensor",
        &["crate::runtime", "crate::autodiff", "crate::builtins", "crate::syntax", "crate::error"],
    );
    assert!(v.is_empty(), "tensor/ imports a higher layer:\n{}", v.join("\n"));
}

#[test]
fn syntax_does_not_import_the_runtime() {
    let v = violations("syntax", &["crate::runtime", "crate::autodiff", "crate::builtins", "crate::tensor"]);
    assert!(v.is_empty(), "syntax/ imports a higher layer:\n{}", v.join("\n"));
}

#[test]
fn runtime_does_not_import_builtins() {
    // The builtins layer sits on the runtime: it installs itself (`Interp::new`, `builtin_attr`).
    let v = violations("runtime", &["crate::builtins"]);
    assert!(v.is_empty(), "runtime/ imports builtins/:\n{}", v.join("\n"));
}

#[test]
fn autodiff_imports_neither_runtime_nor_builtins() {
    let v = violations("autodiff", &["crate::runtime", "crate::builtins", "crate::syntax"]);
    assert!(v.is_empty(), "autodiff/ imports the interpreter:\n{}", v.join("\n"));
}

/// The autodiff core: the recorder, the tape, the backward pass, forward mode, the recording
/// ops, `Variable` and the observer interface through which the tools see them.
const AUTODIFF_CORE: &[&str] = &[
    "autodiff/mod.rs",
    "autodiff/observer.rs",
    "autodiff/recorder.rs",
    "autodiff/tape.rs",
    "autodiff/backward.rs",
    "autodiff/forward.rs",
    "autodiff/variable.rs",
    "autodiff/ops",
];

/// The `.rs` files of `AUTODIFF_CORE` with their code lines (comments cut off), numbered.
fn core_code() -> Vec<(PathBuf, usize, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    for part in AUTODIFF_CORE {
        let p = src.join(part);
        let files = if p.is_dir() { sources(&p) } else { vec![p] };
        for f in files {
            let text = fs::read_to_string(&f).unwrap_or_else(|e| panic!("cannot read {}: {e}", f.display()));
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                out.push((f.clone(), i + 1, code.to_string()));
            }
        }
    }
    out
}

#[test]
fn the_autodiff_core_does_not_import_its_tools() {
    // The tools (`autodiff/tools/`: meter, notes, explain, check, inspect, ledger, advisor) see
    // the core through its observer and import it; the core imports none of them. mod.rs only
    // declares the wing.
    let v: Vec<String> = core_code()
        .into_iter()
        .filter(|(f, _, code)| {
            let declares = f.ends_with("autodiff/mod.rs") && code.trim() == "pub mod tools;";
            let names_wing = code.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| w == "tools");
            let old_paths = ["meter", "notes", "explain", "check", "inspect", "ledger", "advisor"]
                .iter()
                .any(|m| code.contains(&format!("super::{m}")) || code.contains(&format!("autodiff::{m}")));
            !declares && (names_wing || old_paths)
        })
        .map(|(f, i, code)| format!("{}:{i}: {}", f.display(), code.trim()))
        .collect();
    assert!(v.is_empty(), "the autodiff core imports its tools:\n{}", v.join("\n"));
}

#[test]
fn the_backward_pass_names_none_of_the_tools() {
    // `backward.rs` reads as the algorithm: what the tools measure or show, it tells the
    // observer at named points, without naming them.
    const TOOLS: &[&str] = &[
        "meter", "notes", "ledger", "inspect", "check", "checks", "advisor", "explain", "tools", "savedcounts",
        "backwardstats",
    ];
    let v: Vec<String> = core_code()
        .into_iter()
        .filter(|(f, _, code)| {
            f.ends_with("autodiff/backward.rs")
                && code
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|word| TOOLS.contains(&word.to_lowercase().as_str()))
        })
        .map(|(f, i, code)| format!("{}:{i}: {}", f.display(), code.trim()))
        .collect();
    assert!(v.is_empty(), "backward.rs names a tool:\n{}", v.join("\n"));
}
