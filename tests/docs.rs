//! The user documentation stays true: every ```dgl block under `docs/` runs, and
//!
//! - when an ```output block follows it, prints exactly that on stdout;
//! - when an ```error block follows it (directly, or after its ```output block), fails, and
//!   its diagnostic (stderr without colour) begins with exactly those lines;
//! - without an ```error block, runs without error.
//!
//! Each example runs as a script named `gen.dgl` (the name `testing::run_text` gives, which
//! outputs already on the pages show) in a scratch folder of its page's own, so a report
//! reads `gen.dgl:LINE:COL` and files an example writes vanish with the folder; a block whose info string is `dgl file=NAME.dgl` is
//! not run but written to that folder as `NAME.dgl`, for the page's later examples to import.
//! `docs/language.md` must also keep a section for every topic of the language contract.

use dgl::testing::run_case;
use std::path::{Path, PathBuf};

/// One runnable example: where it is, its code, and what the page expects of it.
#[derive(Debug)]
struct Example {
    at: String,
    code: String,
    output: Option<String>,
    error: Option<String>,
}

/// What a page holds: its examples and the module files they may import, in page order.
#[derive(Debug)]
enum Item {
    Run(Example),
    File { name: String, text: String },
}

/// The ```dgl blocks of a Markdown text, each with the ```output and ```error blocks right
/// after it (only blank lines between them), if any.
fn items(name: &str, text: &str) -> Vec<Item> {
    // (line, info string, body, whether prose came between it and the block before)
    let mut blocks: Vec<(usize, String, String, bool)> = Vec::new();
    let mut prose = false;
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            prose |= !line.trim().is_empty();
            continue;
        };
        let mut body = String::new();
        for (_, l) in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        blocks.push((n + 1, info.trim().to_string(), body, prose));
        prose = false;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < blocks.len() {
        let (line, info, code, _) = &blocks[i];
        i += 1;
        if let Some(file) = info.strip_prefix("dgl file=") {
            out.push(Item::File { name: file.trim().to_string(), text: code.clone() });
            continue;
        }
        if info != "dgl" {
            continue;
        }
        // The block right after, if it is of this kind and no prose came between.
        let mut follows = |kind: &str| {
            let b = blocks.get(i).filter(|b| b.1 == kind && !b.3)?;
            i += 1;
            Some(b.2.clone())
        };
        let output = follows("output");
        let error = follows("error");
        out.push(Item::Run(Example { at: format!("{name}:{line}"), code: code.clone(), output, error }));
    }
    out
}

/// The examples alone.
fn examples(name: &str, text: &str) -> Vec<Example> {
    items(name, text)
        .into_iter()
        .filter_map(|it| match it {
            Item::Run(ex) => Some(ex),
            Item::File { .. } => None,
        })
        .collect()
}

/// `text` without ANSI colour sequences and with each line's trailing blanks removed
/// (the report's drawing pads some lines).
fn plain(text: &str) -> String {
    let mut s = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            s.push(c);
        }
    }
    s.lines().map(|l| l.trim_end().to_string() + "\n").collect()
}

/// Runs `ex` as `dir/gen.dgl`; a description of the first way it disagrees with the
/// page, or `None` when it does what the page says.
fn check(ex: &Example, dir: &Path) -> Option<String> {
    let path = dir.join("gen.dgl");
    std::fs::write(&path, &ex.code).unwrap();
    let got = run_case(&path);
    if let Some(want) = &ex.output {
        if &got.stdout != want {
            return Some(format!("{}: printed\n{}\nbut the page says\n{}", ex.at, got.stdout, want));
        }
    }
    let stderr = plain(&got.stderr);
    match &ex.error {
        None if got.code != 0 => Some(format!("{}: exit {}\n{}", ex.at, got.code, got.stderr)),
        None => None,
        Some(want) if got.code == 0 => Some(format!("{}: ran without error, but the page expects\n{}", ex.at, want)),
        Some(want) => {
            let want = plain(want);
            let n = want.lines().count();
            let head: String = stderr.lines().take(n).map(|l| l.to_string() + "\n").collect();
            (want.trim().is_empty() || head != want)
                .then(|| format!("{}: reported\n{}\nbut the page expects it to begin with\n{}", ex.at, stderr, want))
        }
    }
}

/// A fresh, empty folder for one page's examples, removed when dropped (also when a test
/// fails).
struct Scratch(PathBuf);

impl Scratch {
    fn new(page: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("dgl-docs-{}-{page}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn docs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs")
}

#[test]
fn every_example_in_docs_runs_and_prints_what_the_page_says() {
    let mut pages: Vec<_> = std::fs::read_dir(docs_dir()).unwrap().map(|e| e.unwrap().path()).collect();
    pages.retain(|p| p.extension().is_some_and(|e| e == "md"));
    pages.sort();
    let mut failures = Vec::new();
    let (mut count, mut errors) = (0, 0);
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        let dir = Scratch::new(&name);
        for item in items(&name, &text) {
            match item {
                Item::File { name, text } => std::fs::write(dir.0.join(name), text).unwrap(),
                Item::Run(ex) => {
                    count += 1;
                    errors += ex.error.is_some() as usize;
                    failures.extend(check(&ex, &dir.0));
                }
            }
        }
    }
    assert!(count >= 10, "only {count} examples found under docs/");
    assert!(errors >= 10, "only {errors} examples under docs/ state their error");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_example_reader_pairs_code_with_its_output_and_error() {
    let md = "text\n```dgl\nprint(1)\n```\n\n```output\n1\n```\n```dgl\nx = 2\n```\n```python\nno\n```\n\
              ```dgl\nprint(3)\n```\nprose\n```output\n3\n```\n\
              ```dgl\nprint(4)\n1 / 0\n```\n```output\n4\n```\n\n```error\nError: ZeroDivisionError\n```\n\
              ```dgl\nx\n```\n```error\nError: NameError\n```\n\
              ```dgl file=m.dgl\nk = 5\n```\n";
    let it = items("t.md", md);
    assert_eq!(it.len(), 6);
    assert!(matches!(&it[5], Item::File { name, text } if name == "m.dgl" && text == "k = 5\n"));
    let ex = examples("t.md", md);
    assert_eq!(ex.len(), 5);
    assert_eq!(ex[2].output, None, "prose between the blocks: not this example's output");
    assert_eq!((ex[0].code.as_str(), ex[0].output.as_deref()), ("print(1)\n", Some("1\n")));
    assert_eq!((ex[1].at.as_str(), ex[1].output.as_deref(), ex[1].error.as_deref()), ("t.md:9", None, None));
    assert_eq!((ex[3].output.as_deref(), ex[3].error.as_deref()), (Some("4\n"), Some("Error: ZeroDivisionError\n")));
    assert_eq!((ex[4].output.as_deref(), ex[4].error.as_deref()), (None, Some("Error: NameError\n")));
}

/// The checker itself: a right expectation passes, and each kind of wrong one fails.
#[test]
fn a_wrong_expectation_fails() {
    let scratch = Scratch::new("self-test");
    let dir = &scratch.0;
    let ex = |code: &str, output: Option<&str>, error: Option<&str>| Example {
        at: "t.md:1".into(),
        code: code.into(),
        output: output.map(str::to_string),
        error: error.map(str::to_string),
    };
    let fails = "print('a')\nx = [1][3]\n";
    let report = "Error: IndexError: index 3 is out of range for length 1\n   ╭─[ gen.dgl:2:5 ]\n";
    assert_eq!(check(&ex(fails, Some("a\n"), Some(report)), dir), None);
    assert_eq!(check(&ex(fails, None, Some("Error: IndexError: index 3 is out of range for length 1")), dir), None);
    for (what, wrong) in [
        ("an error the page does not expect", ex(fails, Some("a\n"), None)),
        ("an error of another kind", ex(fails, None, Some("Error: KeyError: index 3 is out of range for length 1\n"))),
        ("another message", ex(fails, None, Some("Error: IndexError: index 3\n"))),
        (
            "another place",
            ex(fails, None, Some("Error: IndexError: index 3 is out of range for length 1\n   ╭─[ gen.dgl:1:5 ]\n")),
        ),
        ("another output before the error", ex(fails, Some("b\n"), Some(report))),
        ("an empty expectation", ex(fails, None, Some("\n"))),
        ("no error where one is expected", ex("print('a')\n", Some("a\n"), Some(report))),
        ("another output", ex("print('a')\n", Some("a \n"), None)),
    ] {
        assert!(check(&wrong, dir).is_some(), "{what} passed");
    }
    // Colour and the drawing's padding do not count.
    assert_eq!(plain("\u{1b}[31mError\u{1b}[0m: x  \n │ \n"), "Error: x\n │\n");
}

/// The topics of the language contract, each with the heading of `docs/language.md` that
/// covers it: its sections carry the contract's numbers, which the source cites. A clone has no contract beside it, so the list lives here.
/// The REPL's section shows sessions, which tests/repl.rs checks, instead of examples.
const TOPICS: &[(&str, &str, bool)] = &[
    ("running dgl, exit statuses", "## 1. Running DGL", true),
    ("lexical structure and syntax", "## 2. Syntax", true),
    ("values and printing", "## 3. Values and printing", true),
    ("tensors", "## 4. Tensors", true),
    ("differentiation", "## 5. Differentiation", true),
    ("custom_gradient", "### `@custom_gradient`", true),
    ("recompute_grad", "### `@recompute_grad`", true),
    ("modules and the standard library", "## 6. Modules and the standard library", true),
    ("errors", "## 7. Errors", true),
    ("the REPL", "## 8. The REPL", false),
];

#[test]
fn the_language_reference_covers_every_topic_of_the_contract() {
    let text = std::fs::read_to_string(docs_dir().join("language.md")).unwrap();
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with('#')).map(str::trim_end).collect();
    let mut at = 0;
    for (topic, heading, shows) in TOPICS {
        let Some(i) = headings.iter().position(|h| h == heading) else {
            panic!("docs/language.md has no heading {heading:?} for {topic}");
        };
        assert!(i >= at, "docs/language.md: {heading:?} is out of the contract's order");
        at = i;
        // A section holds at least one example, so that what it says is checked.
        let body: String = text
            .split_once(&format!("\n{heading}\n"))
            .map(|(_, rest)| rest.split("\n## ").next().unwrap_or("").to_string())
            .unwrap_or_default();
        assert!(!shows || body.contains("```dgl\n"), "docs/language.md: {heading:?} shows no example");
    }
    assert!(text.contains("](python.md)") && text.contains("](gradients.md"), "language.md links its companions");
}

/// The source cites the project's own specification, never a file outside the repository or
/// an issue: every `docs/language.md §N` names one of its numbered sections.
#[test]
fn the_source_cites_the_specification_by_its_numbered_sections() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = std::fs::read_to_string(docs_dir().join("language.md")).unwrap();
    let sections = spec.lines().filter(|l| l.starts_with("## ")).count();
    let mut bad = Vec::new();
    let mut stack = vec![root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            for (i, line) in text.lines().enumerate() {
                let at = format!("{}:{}", path.display(), i + 1);
                if line.contains("LANGUAGE.md") {
                    bad.push(format!("{at}: cites LANGUAGE.md"));
                }
                if cites_an_issue(line) {
                    bad.push(format!("{at}: cites an issue: {}", line.trim()));
                }
                for cite in line.split("docs/language.md §").skip(1) {
                    let n: String = cite.chars().take_while(char::is_ascii_digit).collect();
                    if !n.parse::<usize>().is_ok_and(|n| (1..=sections).contains(&n)) {
                        bad.push(format!("{at}: no section §{n}"));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Whether `line` cites an issue by number ("issue 9", "issue #7", "issues 3 and 4").
fn cites_an_issue(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.match_indices("issue").any(|(i, _)| {
        let rest = lower[i + 5..].trim_start_matches('s');
        let rest = rest.strip_prefix(' ').unwrap_or("x");
        rest.trim_start_matches('#').starts_with(|c: char| c.is_ascii_digit())
    })
}
