//! `dgl export --tf` without TensorFlow: what it writes, what it refuses and how,
//! `--check` and `--drop-inspection`. The exported scripts themselves run under TensorFlow in
//! tests/export/parity.py (.ci/run).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dgl(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dgl")).args(args).current_dir(dir).output().expect("dgl runs")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn export_writes_the_script_its_support_module_and_requirements() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "prog.dgl",
        "# A comment before the code.\nx = Variable(2.0)  # the input\nwith GradientTape() as tape:\n    y = x * x\nprint(tape.gradient(y, x))\n",
    );
    let out = dgl(&["export", "--tf", src.to_str().unwrap(), "-o", "out/prog.py"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let script = std::fs::read_to_string(dir.path().join("out/prog.py")).unwrap();
    assert!(script.contains("import tensorflow as tf"), "{script}");
    assert!(script.contains("x = tf.Variable(2.0)  # the input"), "{script}");
    assert!(script.contains("# A comment before the code."), "{script}");
    assert!(script.contains("with dgl_tf.GradientTape() as tape:\n    y = x * x\n"), "{script}");
    assert!(dir.path().join("out/dgl_tf.py").is_file());
    let req = std::fs::read_to_string(dir.path().join("out/requirements.txt")).unwrap();
    assert!(req.contains("tensorflow-cpu==2.21.0"), "{req}");
    // No random numbers drawn: no .npz.
    assert!(!dir.path().join("out/prog.draws.npz").exists());
}

#[test]
fn random_draws_are_written_beside_the_script_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "r.dgl", "set_seed(1)\nw = random_normal([3, 2])\nprint(reduce_sum(w))\n");
    let out = dgl(&["export", "--tf", src.to_str().unwrap()], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let script = std::fs::read_to_string(dir.path().join("r.py")).unwrap();
    assert!(script.contains("dgl_tf.load_draws(\"r.draws.npz\")"), "{script}");
    assert!(script.contains("w = dgl_tf.random_normal([3, 2])"), "{script}");
    let npz = std::fs::read(dir.path().join("r.draws.npz")).unwrap();
    assert!(npz.starts_with(b"PK"), "an .npz is a zip archive");
}

const INSPECTING: &str = "\
x = Variable(3.0)
with GradientTape() as tape:
    y = x * x
stats = tape.stats()
print('saved', stats['saved_bytes'])
print('gradient', tape.gradient(y, x))
if is_recomputing():
    print('never')
fig = plot([1.0, 2.0])
";

#[test]
fn a_refusal_is_a_spanned_error_naming_the_construct_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "insp.dgl", INSPECTING);
    let out = dgl(&["export", "--tf", src.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("Error: NotImplementedError: cannot export `tape.stats` to TensorFlow"), "{err}");
    assert!(err.contains("insp.dgl:4:9"), "the span points at tape.stats: {err}");
    assert!(err.contains("`dgl export --check` lists them all"), "{err}");
    assert!(!dir.path().join("insp.py").exists(), "nothing is written");
}

#[test]
fn an_import_cycle_is_refused_at_the_import_that_closes_it() {
    // main -> a -> b -> c -> a: the span is c's `import a`, the edge that closes the cycle,
    // whichever file holds it.
    let dir = tempfile::tempdir().unwrap();
    let main = write(dir.path(), "main.dgl", "import helper\nimport a\nprint(a.x)\n");
    write(dir.path(), "helper.dgl", "y = 1\n");
    write(dir.path(), "a.dgl", "import b\nx = 1\n");
    write(dir.path(), "b.dgl", "# b\nimport helper\nimport c\n");
    write(dir.path(), "c.dgl", "z = 2\n\nimport a\n");
    let out = dgl(&["export", "--tf", main.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot export an import cycle (a -> b -> c -> a)"), "{err}");
    assert!(err.contains("c.dgl:3:1"), "the span is c's import: {err}");
    assert!(!dir.path().join("main.py").exists(), "nothing is written");
}

#[test]
fn the_export_never_overwrites_a_file_it_did_not_write() {
    // Each file the export writes, in turn, is already there as the user's own: the export
    // stops before it runs the program or writes anything, and leaves the file as it was.
    let main = "import helper\nx = random_normal([2])\nprint(helper.y, x.shape)\n";
    let targets = ["main.py", "dgl_tf.py", "requirements.txt", "main.draws.npz", "helper.py", "dgl_stdlib/__init__.py"];
    for own in targets {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "main.dgl", &format!("import nn\n{main}"));
        write(dir.path(), "helper.dgl", "y = 1\n");
        std::fs::create_dir_all(dir.path().join("dgl_stdlib")).unwrap();
        let mine = format!("the user's own {own}\n");
        write(dir.path(), own, &mine);
        let out = dgl(&["export", "--tf", "main.dgl"], dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{own}: {err}");
        assert!(err.contains("a file that `dgl export` did not write is there"), "{own}: {err}");
        assert_eq!(std::fs::read_to_string(dir.path().join(own)).unwrap(), mine, "{own} is untouched");
        assert!(!dir.path().join(if own == "main.py" { "dgl_tf.py" } else { "main.py" }).exists(), "{own}");
        // Without it, the export writes everything; a second export replaces its own files.
        std::fs::remove_file(dir.path().join(own)).unwrap();
        for _ in 0..2 {
            let out = dgl(&["export", "--tf", "main.dgl"], dir.path());
            assert!(out.status.success(), "{own}: {}", String::from_utf8_lossy(&out.stderr));
        }
        for t in targets {
            assert!(dir.path().join(t).is_file(), "{own}: {t} written");
        }
    }
    // Outputs that would land on a DGL source or on each other.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "main.dgl", main);
    write(dir.path(), "helper.dgl", "y = 1\n");
    for (o, says) in [
        ("main.dgl", "that is the DGL source"),
        ("helper.dgl", "that is the DGL source"),
        ("./helper.py", "goes there too"),
        ("dgl_tf.py", "goes there too"),
        ("requirements.txt", "goes there too"),
    ] {
        let out = dgl(&["export", "--tf", "main.dgl", "-o", o], dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "-o {o}: {err}");
        assert!(err.contains(says), "-o {o}: {err}");
    }
    assert_eq!(std::fs::read_to_string(dir.path().join("main.dgl")).unwrap(), main);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "nothing written");
    // A module of the user's own named as one the script needs.
    write(dir.path(), "dgl_tf.dgl", "z = 1\n");
    write(dir.path(), "m.dgl", "# uses it\nimport dgl_tf\n");
    let out = dgl(&["export", "--tf", "m.dgl"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("a module of your own named `dgl_tf`") && err.contains("m.dgl:2:1"), "{err}");
}

/// `n` nested blocks of one kind, as DGL source (which DGL runs at any depth).
fn nested(kind: &str, n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let p = "    ".repeat(i);
        out += &match kind {
            "for" => format!("{p}for _ in [1]:\n"),
            "with" => format!("{p}with open(\"f.txt\", \"w\") as f:\n"),
            "try" => format!("{p}try:\n"),
            "except" => format!("{p}try:\n{p}    raise ValueError()\n{p}except ValueError as e:\n"),
            "finally" => format!("{p}try:\n{p}    pass\n{p}finally:\n"),
            _ => format!("{p}if True:\n"),
        };
    }
    out += &format!("{}pass\n", "    ".repeat(n));
    if kind == "try" {
        for i in (0..n).rev() {
            out += &format!("{p}except ValueError:\n{p}    pass\n", p = "    ".repeat(i));
        }
    }
    out
}

#[test]
fn what_python_cannot_compile_is_refused_and_what_it_can_is_not() {
    // The deepest nesting CPython 3.11 compiles, found by compiling these very shapes (one
    // more is "too many statically nested blocks", "too many levels of indentation" or a
    // RecursionError during compilation). DGL runs every one of them.
    let deepest = [("for", 20), ("with", 20), ("try", 19), ("except", 10), ("finally", 20), ("if", 99)];
    let dir = tempfile::tempdir().unwrap();
    for (kind, n) in deepest {
        for (depth, refused) in [(n, false), (n + 1, true)] {
            // Inside a function the blocks count from 0 again (indentation does not).
            for in_def in [false, true] {
                let mut src = nested(kind, depth);
                if in_def && kind == "if" {
                    continue;
                }
                if in_def {
                    src = format!("def f():\n{}", src.lines().map(|l| format!("    {l}\n")).collect::<String>());
                }
                let path = write(dir.path(), "deep.dgl", &src);
                let out = dgl(&["export", "--check", path.to_str().unwrap()], dir.path());
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(
                    out.status.code(),
                    Some(if refused { 1 } else { 0 }),
                    "{kind} x{depth} (in a def: {in_def}): {err}"
                );
            }
        }
    }
    // Blocks in a function do not count toward those around the def.
    let src = format!("{}{}", nested("for", 15).replace("pass\n", "def g():\n"), "");
    let inner: String = nested("for", 15).lines().map(|l| format!("{}{l}\n", "    ".repeat(16))).collect();
    let path = write(dir.path(), "deep.dgl", &format!("{src}{inner}"));
    let out = dgl(&["export", "--check", path.to_str().unwrap()], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A left-nested chain of 5000 additions (Python's compiler stops near 3000); 900 is fine.
    for (terms, refused) in [(900, false), (5000, true)] {
        let path = write(dir.path(), "deep.dgl", &format!("x = 1{}\nprint(x)\n", " + 1".repeat(terms)));
        let out = dgl(&["export", "--check", path.to_str().unwrap()], dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(if refused { 1 } else { 0 }), "{terms} terms: {err}");
        if refused {
            assert!(err.contains("an expression nested more than 1000 deep"), "{err}");
        }
    }
}

#[test]
fn check_lists_every_construct_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "insp.dgl", INSPECTING);
    let out = dgl(&["export", "--tf", "--check", src.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    for construct in ["`tape.stats`", "`is_recomputing` (DGL only)", "`plot` (DGL's figures)"] {
        assert!(err.contains(&format!("cannot export {construct}")), "{construct} missing: {err}");
    }
    assert!(err.contains("insp.dgl: 3 construct(s) TensorFlow lacks"), "{err}");
    // Every refusal of an inspection tool points at --drop-inspection; one of another kind does not.
    for line in err.lines().filter(|l| l.contains("cannot export")) {
        let inspection = ["`tape.", "`plot`"].iter().any(|c| line.contains(c));
        assert_eq!(line.contains("--drop-inspection"), inspection, "{line}");
    }
    let ok = write(dir.path(), "fine.dgl", "print(reduce_sum(constant([1.0, 2.0])))\n");
    let out = dgl(&["export", "--tf", "--check", ok.to_str().unwrap()], dir.path());
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("exportable to TensorFlow"));
}

#[test]
fn drop_inspection_leaves_inspection_and_what_uses_it_out() {
    let dir = tempfile::tempdir().unwrap();
    let text = INSPECTING.replace("if is_recomputing():\n    print('never')\n", "");
    let src = write(dir.path(), "insp.dgl", &text);
    let out = dgl(
        &["export", "--tf", "--drop-inspection", src.to_str().unwrap(), "--expected-out", "expected.txt"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let script = std::fs::read_to_string(dir.path().join("insp.py")).unwrap();
    for line in ["stats = tape.stats()", "print('saved', stats['saved_bytes'])", "fig = plot([1.0, 2.0])"] {
        assert!(script.contains(&format!("# left out by --drop-inspection: {line}")), "{script}");
    }
    assert!(script.contains("print(\"gradient\", tape.gradient(y, x))"), "{script}");
    // The DGL run the export makes skips the same statements: its output is the parity target.
    let expected = std::fs::read_to_string(dir.path().join("expected.txt")).unwrap();
    assert_eq!(expected, "gradient 6.0\n");
    assert_eq!(std::fs::read_to_string(dir.path().join("expected.txt.status")).unwrap(), "0\n");
}

/// Every example and golden case exports (its translation, `--check`) or is refused with a
/// NotImplementedError; and so does every prefix of them cut at a line (a generated corpus of
/// half-programs): never a panic, never an internal error.
#[test]
fn every_case_and_every_cut_of_it_is_exported_or_refused_cleanly() {
    let mut files = vec![];
    for folder in [
        "examples",
        "tests/lang",
        "tests/tensor",
        "tests/autodiff",
        "tests/stdlib",
        "tests/seeds",
        "tests/errors",
        "tests/modules",
        "tests/tfstyle",
    ] {
        let Ok(entries) = std::fs::read_dir(root().join(folder)) else { continue };
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "dgl") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    assert!(files.len() > 250, "the corpus: {}", files.len());
    let dir = tempfile::tempdir().unwrap();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut cases = 0;
    for (i, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // The whole file, and for every fourth file a cut at a pseudo-random line.
        let mut variants = vec![text.clone()];
        if i % 4 == 0 && lines.len() > 2 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let cut = 1 + (seed >> 33) as usize % (lines.len() - 1);
            variants.push(lines[..cut].join("\n") + "\n");
        }
        for v in variants {
            let p = write(dir.path(), "case.dgl", &v);
            // Data files a case names stay where the case is: check from its folder.
            let out = dgl(&["export", "--tf", "--check", p.to_str().unwrap()], f.parent().unwrap());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!err.contains("internal error") && !err.contains("panicked"), "{}: {err}", f.display());
            match out.status.code() {
                Some(0) => {}
                Some(1) => assert!(
                    err.contains("Error: NotImplementedError: cannot export") || err.contains("Error: SyntaxError"),
                    "{}: {err}",
                    f.display()
                ),
                Some(2) => assert!(
                    err.contains("Error: SyntaxError") || err.contains("Error: IOError"),
                    "{}: {err}",
                    f.display()
                ),
                other => panic!("{}: exit {other:?}: {err}", f.display()),
            }
            cases += 1;
        }
    }
    assert!(cases > 300, "{cases}");
}

/// docs/export.md's mapping table is the exporter's own (src/export/names.rs), regenerated
/// with `DGL_BLESS=1 cargo test --test export`.
#[test]
fn the_mapping_table_in_the_docs_is_the_exporters() {
    let path = root().join("docs/export.md");
    let page = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = ("<!-- mapping:begin -->\n", "<!-- mapping:end -->");
    let (Some(a), Some(b)) = (page.find(begin), page.find(end)) else {
        panic!("docs/export.md lacks the mapping markers")
    };
    let table = dgl::export::names::mapping_table();
    let current = &page[a + begin.len()..b];
    if std::env::var_os("DGL_BLESS").is_some() {
        std::fs::write(&path, format!("{}{table}{}", &page[..a + begin.len()], &page[b..])).unwrap();
        return;
    }
    assert_eq!(current, table, "docs/export.md's mapping table is stale: DGL_BLESS=1 cargo test --test export");
    for line in
        ["| `reduce_sum` | `dgl_tf.reduce_sum` |", "| `exp` | `tf.exp` |", "| `GradientTape` | `dgl_tf.GradientTape` |"]
    {
        assert!(table.contains(line), "{line}");
    }
}

/// Every program of tests/lang/ the exporter takes becomes a script Python can compile: the
/// Python DGL speaks is written back as Python (a receiver `(5).__class__` keeps its
/// parentheses: `5.__class__` does not parse). Needs `python3`, as the CPython tester does.
#[test]
fn every_exported_language_case_is_python_that_compiles() {
    let dir = tempfile::tempdir().unwrap();
    let mut written = Vec::new();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(root().join("tests/lang"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dgl"))
        .collect();
    cases.sort();
    for case in &cases {
        let name = case.file_stem().unwrap().to_string_lossy().into_owned();
        let script = dir.path().join(format!("{name}.py"));
        let out = dgl(&["export", "--tf", case.to_str().unwrap(), "-o", script.to_str().unwrap()], dir.path());
        if out.status.success() {
            written.push(script);
        }
    }
    assert!(written.len() >= 20, "only {} of {} cases exported", written.len(), cases.len());
    let check = "import ast, sys\nbad = []\nfor f in sys.argv[1:]:\n    try:\n        ast.parse(open(f, encoding='utf-8').read(), f)\n    except SyntaxError as e:\n        bad.append(f'{f}:{e.lineno}: {e.msg}')\nprint('\\n'.join(bad))\nsys.exit(1 if bad else 0)\n";
    let out = Command::new("python3").arg("-c").arg(check).args(&written).output().expect("python3 runs");
    assert!(out.status.success(), "exported scripts Python cannot compile:\n{}", String::from_utf8_lossy(&out.stdout));
}

/// A program that plots with `import matplotlib.pyplot as plt` exports to a script importing the
/// real matplotlib (DGL's is its names over DGL's figures), which requirements.txt then lists; a
/// program that does not plot does not require it.
#[test]
fn a_plotting_program_exports_to_real_matplotlib() {
    let dir = tempfile::tempdir().unwrap();
    let plots = "import tensorflow as tf\nimport matplotlib.pyplot as plt\nx = tf.linspace(0.0, 1.0, 5)\n\
                 plt.plot(x, tf.square(x), label='y')\nplt.legend()\nplt.show()\nprint(float(x[1]))\n";
    write(dir.path(), "plots.dgl", plots);
    let out = dgl(&["export", "--tf", "plots.dgl"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let script = std::fs::read_to_string(dir.path().join("plots.py")).unwrap();
    assert!(script.contains("from matplotlib import pyplot as plt\n"), "{script}");
    assert!(!script.contains("dgl_stdlib.matplotlib"), "{script}");
    let requirements = std::fs::read_to_string(dir.path().join("requirements.txt")).unwrap();
    assert!(requirements.ends_with("matplotlib>=3.8\n"), "{requirements}");
    write(dir.path(), "plain.dgl", "print(1)\n");
    let out = dgl(&["export", "--tf", "plain.dgl"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let requirements = std::fs::read_to_string(dir.path().join("requirements.txt")).unwrap();
    assert!(!requirements.contains("matplotlib"), "{requirements}");
}
