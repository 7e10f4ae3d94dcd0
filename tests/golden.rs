//! Runs every golden case under tests/ through the same runner as `dgl test`.

fn golden(path: &std::path::Path) -> datatest_stable::Result<()> {
    if !path.with_extension("out").exists() {
        // A helper module imported by cases, not a case itself.
        return Ok(());
    }
    dgl::testing::check_case(path).map_err(|report| report.into())
}

datatest_stable::harness! {
    { test = golden, root = "tests", pattern = r".*\.dgl$" },
    { test = golden, root = "examples", pattern = r".*\.dgl$" },
}
