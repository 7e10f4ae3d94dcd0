//! What the CPython table tests share (tests/*_table.rs): each reads a table that a tools/gen_*.py
//! script recorded from CPython 3.11, runs one DGL program that prints one line per row, and
//! compares the lines with the rows.

/// The rows of a tab-separated table.
pub fn rows(table: &str) -> Vec<Vec<&str>> {
    table.lines().map(|l| l.split('\t').collect()).collect()
}

/// Runs `program` in DGL, which must print one line per row, and fails listing (up to 40 of)
/// the rows whose line differs from `want(row)`; `name(row, got)` describes a difference.
pub fn check_lines(
    program: &str,
    rows: &[Vec<&str>],
    want: impl Fn(&[&str]) -> String,
    name: impl Fn(&[&str], &str) -> String,
) {
    let out = dgl::testing::run_text(program);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), rows.len());
    let wrong: Vec<String> =
        rows.iter().zip(&lines).filter(|(r, got)| want(r) != **got).map(|(r, got)| name(r, got)).collect();
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        rows.len(),
        wrong.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}
