//! The doc-entry files (`src/help/*.md`, format: /work/help-split/FORMAT.md), parsed once on
//! first use into sections of entries, found by key (`reduce_sum`, `Tensor.numpy`).

use std::collections::HashMap;
use std::sync::OnceLock;

/// The entry files in the reference's reading order: each is one section of `dgl doc`.
pub const FILES: &[(&str, &str)] = &[
    ("tensors.md", include_str!("tensors.md")),
    ("math.md", include_str!("math.md")),
    ("special.md", include_str!("special.md")),
    ("shapes.md", include_str!("shapes.md")),
    ("selection.md", include_str!("selection.md")),
    ("random.md", include_str!("random.md")),
    ("linalg.md", include_str!("linalg.md")),
    ("autodiff.md", include_str!("autodiff.md")),
    ("nn.md", include_str!("nn.md")),
    ("data.md", include_str!("data.md")),
    ("figures.md", include_str!("figures.md")),
    ("methods.md", include_str!("methods.md")),
    ("modules.md", include_str!("modules.md")),
    ("python.md", include_str!("python.md")),
];

/// One `## heading` and the text under it.
#[derive(Debug)]
pub struct Entry {
    /// The text before `(` in the heading: `reduce_sum`, `Tensor.numpy`, `float32`.
    pub key: String,
    /// The heading without its `## `: `reduce_sum(input_tensor, axis=None, keepdims=False)`.
    pub heading: String,
    /// The paragraphs, bullets and examples under the heading, without surrounding blank lines.
    pub body: String,
}

impl Entry {
    /// What `help(name)` prints: the heading, a blank line, the body (each line as in the file).
    pub fn text(&self) -> String {
        if self.body.is_empty() {
            format!("{}\n", self.heading)
        } else {
            format!("{}\n\n{}\n", self.heading, self.body)
        }
    }

    /// The body's first paragraph on one line (the summary), for listings.
    pub fn summary(&self) -> String {
        self.body.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect::<Vec<_>>().join(" ")
    }
}

/// One file: its `# title`, the paragraphs before the first entry, its entries in order.
#[derive(Debug)]
pub struct Section {
    pub file: &'static str,
    pub title: String,
    pub intro: String,
    pub entries: Vec<Entry>,
}

/// Every section, and each entry's place by key (the first entry of a key wins; the
/// coverage tests reject duplicates).
pub struct Registry {
    pub sections: Vec<Section>,
    by_key: HashMap<String, (usize, usize)>,
}

impl Registry {
    /// The registry, parsed on first use (start-up parses nothing).
    pub fn get() -> &'static Registry {
        static REGISTRY: OnceLock<Registry> = OnceLock::new();
        REGISTRY.get_or_init(|| {
            let mut registry = Registry::parse(FILES);
            registry.declare(crate::builtins::declared());
            registry
        })
    }

    /// Parses the entry files. Tolerant: text before a file's title or a file with no title
    /// still parses (the title is then empty), and `## ` inside a code fence is not a heading.
    pub fn parse(files: &[(&'static str, &str)]) -> Registry {
        let sections: Vec<Section> = files.iter().map(|(name, text)| parse_file(name, text)).collect();
        let mut by_key = HashMap::new();
        for (s, section) in sections.iter().enumerate() {
            for (e, entry) in section.entries.iter().enumerate() {
                by_key.entry(entry.key.clone()).or_insert((s, e));
            }
        }
        Registry { sections, by_key }
    }

    /// Gives each declared builtin's entry its heading: the .md file names the builtin alone
    /// (`## reduce_sum`), and its declaration (builtins/, runtime/native.rs) writes the signature.
    pub fn declare(&mut self, declared: &[(String, &'static crate::runtime::native::Native)]) {
        for (key, native) in declared {
            if let Some(&(s, e)) = self.by_key.get(key) {
                let entry = &mut self.sections[s].entries[e];
                if entry.heading == entry.key {
                    entry.heading = native.sig.heading(key);
                }
            }
        }
    }

    /// The entry of `key`, if any.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        let &(s, e) = self.by_key.get(key)?;
        Some(&self.sections[s].entries[e])
    }

    /// Every entry, in reading order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.sections.iter().flat_map(|s| s.entries.iter())
    }

    /// The entries whose key is `prefix.name` (a type's attributes), in reading order.
    pub fn members<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries().filter(move |e| e.key.strip_prefix(prefix).and_then(|r| r.strip_prefix('.')).is_some())
    }
}

/// The key of a heading: the text before `(`, trimmed (`Variable(initial_value, …)` → `Variable`).
pub fn key_of(heading: &str) -> &str {
    heading.split('(').next().unwrap_or(heading).trim()
}

fn parse_file(file: &'static str, text: &str) -> Section {
    let mut section = Section { file, title: String::new(), intro: String::new(), entries: vec![] };
    let mut current: Option<(String, Vec<&str>)> = None;
    let mut intro: Vec<&str> = vec![];
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let heading = if fenced { None } else { line.strip_prefix("## ") };
        if let Some(h) = heading {
            if let Some((head, body)) = current.take() {
                section.entries.push(make_entry(head, &body));
            }
            current = Some((h.trim().to_string(), vec![]));
        } else if let Some((_, body)) = current.as_mut() {
            body.push(line);
        } else if let (Some(t), true) = (line.strip_prefix("# "), section.title.is_empty() && !fenced) {
            section.title = t.trim().to_string();
        } else {
            intro.push(line);
        }
    }
    if let Some((head, body)) = current.take() {
        section.entries.push(make_entry(head, &body));
    }
    section.intro = trim_blank(&intro);
    section
}

fn make_entry(heading: String, body: &[&str]) -> Entry {
    Entry { key: key_of(&heading).to_string(), body: trim_blank(body), heading }
}

/// The lines joined, without leading or trailing blank lines or trailing spaces.
fn trim_blank(lines: &[&str]) -> String {
    let start = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len());
    let end = lines.iter().rposition(|l| !l.trim().is_empty()).map_or(start, |i| i + 1);
    lines[start..end].iter().map(|l| l.trim_end()).collect::<Vec<_>>().join("\n")
}

/// The doc entry of a builtin, method (`Tensor.numpy`) or native-module name (`math.sqrt`), by
/// name: the entry's text, and for a type (`list`, `Tensor`) the summaries of its attributes.
pub fn lookup(name: &str) -> Option<String> {
    let registry = Registry::get();
    let mut text = registry.entry(name)?.text();
    let members: Vec<_> = registry.members(name).collect();
    if !members.is_empty() {
        text.push_str("\nAttributes and methods:\n\n");
        for e in members {
            text.push_str(&format!("    {}\n        {}\n", e.heading, e.summary()));
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_split_at_headings_outside_code() {
        let text = "# Title\n\nIntro.\n\n## f(x, y=1)\n\nSums\nit.\n\n```dgl\n## not a heading\n```\n\n## A.b\n\nAn attribute.\n";
        let r = Registry::parse(&[("t.md", text)]);
        let s = &r.sections[0];
        assert_eq!((s.title.as_str(), s.intro.as_str()), ("Title", "Intro."));
        assert_eq!(s.entries.len(), 2);
        let f = r.entry("f").expect("f has an entry");
        assert_eq!(f.text(), "f(x, y=1)\n\nSums\nit.\n\n```dgl\n## not a heading\n```\n");
        assert_eq!(f.summary(), "Sums it.");
        assert_eq!(r.entry("A.b").map(|e| e.heading.as_str()), Some("A.b"));
        assert_eq!(r.members("A").count(), 1);
        assert!(r.entry("g").is_none());
    }

    #[test]
    fn a_title_only_file_has_no_entries() {
        let r = Registry::parse(&[("t.md", "# Random numbers\n")]);
        assert_eq!(r.sections[0].title, "Random numbers");
        assert!(r.sections[0].entries.is_empty());
    }
}
