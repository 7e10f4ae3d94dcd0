//! The user documentation stays true: every ```dgl block under `docs/` runs
//! without error, and when an ```output block follows it, prints exactly that.

use dgl::testing::run_text;
use std::path::Path;

/// One runnable example: where it is, its code, and its expected stdout if given.
struct Example {
    at: String,
    code: String,
    output: Option<String>,
}

/// The ```dgl blocks of a Markdown text, each with the ```output block right after it
/// (only blank lines between them), if any.
fn examples(name: &str, text: &str) -> Vec<Example> {
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
        if info == "dgl" {
            let output = blocks.get(i + 1).filter(|b| b.1 == "output" && !b.3).map(|b| b.2.clone());
            i += if output.is_some() { 2 } else { 1 };
            out.push(Example { at: format!("{name}:{line}"), code: code.clone(), output });
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn every_example_in_docs_runs_and_prints_what_the_page_says() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut pages: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    pages.retain(|p| p.extension().is_some_and(|e| e == "md"));
    pages.sort();
    let mut failures = Vec::new();
    let mut count = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        for ex in examples(&name, &text) {
            count += 1;
            let got = run_text(&ex.code);
            if got.code != 0 {
                failures.push(format!("{}: exit {}\n{}", ex.at, got.code, got.stderr));
            } else if let Some(want) = &ex.output {
                if &got.stdout != want {
                    failures.push(format!("{}: printed\n{}\nbut the page says\n{}", ex.at, got.stdout, want));
                }
            }
        }
    }
    assert!(count >= 10, "only {count} examples found under docs/");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_example_reader_pairs_code_with_its_output() {
    let md = "text\n```dgl\nprint(1)\n```\n\n```output\n1\n```\n```dgl\nx = 2\n```\n```python\nno\n```\n\
              ```dgl\nprint(3)\n```\nprose\n```output\n3\n```\n";
    let ex = examples("t.md", md);
    assert_eq!(ex.len(), 3);
    assert_eq!(ex[2].output, None, "prose between the blocks: not this example's output");
    assert_eq!((ex[0].code.as_str(), ex[0].output.as_deref()), ("print(1)\n", Some("1\n")));
    assert_eq!((ex[1].at.as_str(), ex[1].output.as_deref()), ("t.md:9", None));
}
