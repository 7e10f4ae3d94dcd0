//! The editor files are well-formed and agree with each other: the VS Code extension's
//! JSON parses, its language id, grammar and configuration point at files that exist, the
//! grammar is `source.dgl` built on Python's, and `.gitattributes` marks `*.dgl` as Python.

use serde_json::Value;
use std::path::{Path, PathBuf};

fn vscode() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("editors").join("vscode")
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

#[test]
fn the_vscode_extension_is_consistent() {
    let package = json(&vscode().join("package.json"));
    let languages = package["contributes"]["languages"].as_array().expect("contributes.languages");
    assert_eq!(languages.len(), 1);
    let language = &languages[0];
    assert_eq!(language["id"], "dgl");
    assert_eq!(language["extensions"], serde_json::json!([".dgl"]));
    let grammars = package["contributes"]["grammars"].as_array().expect("contributes.grammars");
    assert_eq!(
        (grammars[0]["language"].as_str(), grammars[0]["scopeName"].as_str()),
        (Some("dgl"), Some("source.dgl"))
    );

    // Every file the manifest names exists and parses.
    let configuration = json(&vscode().join(language["configuration"].as_str().expect("a configuration path")));
    let grammar = json(&vscode().join(grammars[0]["path"].as_str().expect("a grammar path")));
    assert!(vscode().join(package["main"].as_str().expect("main")).is_file());

    assert_eq!(grammar["scopeName"], "source.dgl");
    let includes: Vec<&str> =
        grammar["patterns"].as_array().expect("patterns").iter().filter_map(|p| p["include"].as_str()).collect();
    assert!(includes.contains(&"source.python"), "{includes:?}");

    assert_eq!(configuration["comments"]["lineComment"], "#");
    for pair in ["()", "[]", "{}"] {
        let (open, close) = pair.split_at(1);
        let brackets = configuration["brackets"].as_array().expect("brackets");
        assert!(brackets.contains(&serde_json::json!([open, close])), "{pair} missing from brackets");
        let closing = configuration["autoClosingPairs"].as_array().expect("autoClosingPairs");
        assert!(closing.iter().any(|p| p["open"] == open && p["close"] == close), "{pair} is not auto-closed");
    }
    let increase = configuration["indentationRules"]["increaseIndentPattern"].as_str().expect("indentation rule");
    assert!(increase.contains("def") && increase.contains(":"), "{increase}");

    // The client's one dependency is declared.
    assert!(package["dependencies"]["vscode-languageclient"].is_string(), "{}", package["dependencies"]);
}

#[test]
fn github_highlights_dgl_as_python() {
    let attributes = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".gitattributes"))
        .expect("a .gitattributes file");
    assert!(attributes.lines().any(|l| l.trim() == "*.dgl linguist-language=Python"), "{attributes}");
}
