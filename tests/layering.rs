//! The layers of src/README.md, checked: each lower layer imports nothing from the ones
//! above it (issue 8: tensor/ depends on nothing above it, syntax/ does not import the
//! runtime, autodiff/ is a layer of its own, and no import circle joins runtime/, autodiff/
//! and builtins/). A `use` of a higher layer anywhere in a lower one fails this test.

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
