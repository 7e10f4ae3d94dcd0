//! `dgl export --tf FILE.dgl`: a DGL program as a TensorFlow 2.21 Python script with the same
//! stdout. DGL is a Python subset with TF's op names, so the translation is
//! statement by statement: builtins become `tf.` names ([`names`]), DGL's printing and the few
//! semantics TF lacks come from the support module `dgl_tf.py` written beside the script, and
//! the random numbers DGL drew are replayed from an `.npz` ([`record`]). What TF cannot do
//! (tape inspection, DGL-only builtins) stops the export with a spanned error naming the
//! construct and TF's nearest equivalent; `--check` lists them all; `--drop-inspection`
//! leaves statements that only inspect the tape out ([`inspect`]).

mod distribute;
mod emit;
mod expr;
mod inspect;
pub mod names;
mod record;
mod scope;

use crate::source::Span;
use crate::syntax::ast::*;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The support module written beside every exported script.
pub const SUPPORT: &str =
    concat!(include_str!("dgl_tf.py"), include_str!("dgl_tf_runtime.py"), include_str!("dgl_tf_distribute.py"));

/// The pinned Python packages of an exported script.
pub const REQUIREMENTS: &str =
    "# Written by `dgl export --tf` for the scripts beside it.\ntensorflow-cpu==2.21.0\nnumpy>=1.26,<3\n";

/// Module names the exported scripts need for themselves: a user module of one of these
/// names would be shadowed by (or shadow) the support module, DGL's stdlib package, the
/// replay of `random`, or TensorFlow and NumPy.
const RESERVED_MODULES: &[&str] = &["dgl_tf", "dgl_stdlib", "dgl_tf_random", "tensorflow", "numpy"];

/// A construct the export cannot carry to TensorFlow.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The file the construct is in (the script or a module).
    pub file: String,
    pub span: Span,
    /// What it is: "`tape.stats`", "`plot` (DGL only)".
    pub construct: String,
    /// TF's nearest equivalent, or why there is none.
    pub nearest: String,
}

/// One comment of the source.
#[derive(Debug, Clone)]
pub struct Comment {
    pub pos: u32,
    pub text: String,
    /// A blank line stood before it.
    pub blank_before: bool,
}

/// The translator of one source file.
pub struct Exporter<'a> {
    pub src: &'a str,
    pub file: String,
    pub out: String,
    pub indent: usize,
    /// How deep the expression being translated is nested ([`expr::MAX_PYTHON_EXPR_DEPTH`]).
    pub expr_depth: usize,
    /// The loop, `with` and `try` blocks around the statement being translated, in the
    /// current function (CPython's compiler allows 20 in one code object).
    pub static_blocks: usize,
    pub code_lines: usize,
    pub comments: Vec<Comment>,
    pub next_comment: usize,
    scopes: Vec<(HashSet<String>, bool)>,
    pub class_depth: usize,
    pub problems: Vec<Problem>,
    pub in_fstring: bool,
    /// Statements left out (their start offsets), with `--drop-inspection`.
    pub dropped: HashSet<u32>,
    /// Whether `--drop-inspection` was given (a refusal of inspection then needs no hint).
    pub drop_inspection: bool,
    /// Names bound by `with GradientTape() as t` or `t = GradientTape()`.
    pub tapes: HashSet<String>,
    /// The modules imported: (name, is DGL's stdlib, the span of its first import).
    pub imports: Vec<(String, bool, Span)>,
    /// The stdlib modules of the lazily loaded builtins the file uses (`Module`: `_module`).
    pub lazy: Vec<String>,
    /// Names bound by `import tensorflow as tf` (or numpy) to a module of the import
    /// bridge: name → module path (`tensorflow.keras`).
    pub foreign_modules: std::collections::HashMap<String, String>,
    /// Names bound by `from tensorflow.keras.layers import Dense` to a bridge value: name →
    /// its source in the bridge's table (`nn.Dense`).
    pub foreign_values: std::collections::HashMap<String, String>,
    /// Python modules the import bridge's names need (`math` for `np.pi`).
    pub py_modules: Vec<String>,
    /// Functions and lambdas being emitted (0: module-level code).
    pub fn_depth: usize,
    /// The module names bound by the statements emitted so far.
    pub module_defined: HashSet<String>,
    /// The folder of the script (user modules are looked up there).
    pub dir: PathBuf,
    /// Under `--distribute`: the statements written in their distributed form.
    pub plan: Option<std::rc::Rc<distribute::Plan>>,
    /// The name the next `def` is written under (the step's per-replica function).
    pub def_rename: Option<String>,
}

impl<'a> Exporter<'a> {
    pub fn new(src: &'a str, file: &str, dir: &Path) -> Exporter<'a> {
        Exporter {
            src,
            file: file.to_string(),
            out: String::new(),
            indent: 0,
            expr_depth: 0,
            static_blocks: 0,
            code_lines: 0,
            comments: comments(src),
            next_comment: 0,
            scopes: vec![],
            class_depth: 0,
            problems: vec![],
            in_fstring: false,
            dropped: HashSet::new(),
            drop_inspection: false,
            tapes: HashSet::new(),
            imports: vec![],
            lazy: vec![],
            fn_depth: 0,
            py_modules: vec![],
            foreign_modules: Default::default(),
            foreign_values: Default::default(),
            module_defined: HashSet::new(),
            dir: dir.to_path_buf(),
            plan: None,
            def_rename: None,
        }
    }

    pub fn push_scope(&mut self, names: HashSet<String>) {
        self.scopes.push((names, false));
    }

    pub(super) fn push_class_scope(&mut self, names: HashSet<String>) {
        self.scopes.push((names, true));
    }

    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    /// Whether the program binds `n` where it is read: a class body's names are seen by the
    /// class body only, not by the methods in it (Python's rule).
    pub fn is_bound(&self, n: &str) -> bool {
        let last = self.scopes.len().saturating_sub(1);
        self.scopes.iter().enumerate().any(|(i, (names, class))| {
            // Module code runs top to bottom: before its binding, a module name that is also
            // a builtin reads the builtin (`relu = relu` re-exports it).
            if i == 0 && self.fn_depth == 0 {
                return self.module_defined.contains(n);
            }
            (!class || i == last) && names.contains(n)
        })
    }

    pub fn refuse(&mut self, span: Span, construct: String, nearest: String) {
        if self.problems.iter().any(|p| p.span == span && p.construct == construct) {
            return;
        }
        self.problems.push(Problem { file: self.file.clone(), span, construct, nearest });
    }

    /// Refuses a use of an inspection tool (a tape method TF lacks, an inspection builtin, a
    /// figure): every such refusal points at `--drop-inspection`, which leaves the statements
    /// that only inspect out of the export.
    pub fn refuse_inspection(&mut self, span: Span, construct: String, nearest: String) {
        let nearest = if self.drop_inspection {
            format!(
                "{nearest} (--drop-inspection keeps this statement: what it computes is used by code that is exported)"
            )
        } else {
            format!("{nearest}; or export with --drop-inspection, which leaves the statements that only inspect out")
        };
        self.refuse(span, construct, nearest);
    }

    /// Whether `e` names a GradientTape the program made.
    pub fn is_tape(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Name(n, _) if self.tapes.contains(&*n.name()))
    }

    /// `import a.b as c` in Python: DGL's stdlib modules come from the package `dgl_stdlib`
    /// written beside the script, the user's own from their exported `.py` beside it.
    fn import_line(&mut self, path: &[String], alias: Option<String>, span: Span) -> String {
        let module = self.module_path(path, span);
        // `import a.b` binds `a` in both languages (a module of the user's own, unrenamed).
        if alias.is_none() && module == path.join(".") {
            return format!("import {module}");
        }
        let bound = alias.unwrap_or_else(|| path[0].clone());
        if module == bound {
            format!("import {module}")
        } else if let Some((pkg, last)) = module.rsplit_once('.') {
            if last == bound {
                format!("from {pkg} import {last}")
            } else {
                format!("from {pkg} import {last} as {bound}")
            }
        } else {
            format!("import {module} as {bound}")
        }
    }

    /// The Python module path of a DGL import, noting the module to export.
    fn module_path(&mut self, path: &[String], span: Span) -> String {
        let name = path.join(".");
        // DGL's preinstalled namespaces come before files (tests/tensor/linalg.dgl imports the
        // builtin linalg, not itself).
        let preinstalled = name == "linalg";
        let user = !preinstalled && self.dir.join(format!("{}.dgl", name.replace('.', "/"))).is_file();
        // DGL's matplotlib is matplotlib's names over DGL's figures: the script imports the real one.
        let matplotlib = name == "matplotlib" || name.starts_with("matplotlib.");
        let stdlib = !user && !matplotlib && crate::runtime::import::STDLIB.iter().any(|(n, _)| *n == name);
        if !self.imports.iter().any(|(n, ..)| *n == name) && (user || stdlib) {
            self.imports.push((name.clone(), stdlib, span));
        }
        match name.as_str() {
            _ if user => name,
            // DGL's preinstalled namespaces are TF's.
            "linalg" => "tensorflow.linalg".into(),
            _ if stdlib => format!("dgl_stdlib.{name}"),
            "math" | "time" | "sys" | "json" => name,
            // The files under DGL's saving (stdlib/_saving.dgl): the support module's Python.
            "_saving_io" => "dgl_tf.saving_io".into(),
            // Tracing (stdlib/_function.dgl, optim.dgl): TF's own tracing answers.
            "_trace" => "dgl_tf.trace".into(),
            // DGL's `random` draws other numbers than Python's: the support module's
            // `dgl_tf_random` replays the ones the DGL run drew.
            "random" => "dgl_tf_random".into(),
            _ => name,
        }
    }

    /// Translates a whole module.
    pub fn module(&mut self, body: &[Stmt], header: &str) {
        self.out.push_str(header);
        self.push_scope(scope::module_scope(body));
        self.tapes = inspect::tape_names(body);
        for s in body {
            self.distributed_before(s);
            self.stmt(s);
            self.distributed_after(s);
            self.module_defined.extend(scope::module_scope(std::slice::from_ref(s)));
        }
        self.comments_before(u32::MAX);
        self.pop_scope();
    }
}

/// The comments of `src`: the text between tokens that starts with `#`.
fn comments(src: &str) -> Vec<Comment> {
    use logos::Logos;
    let mut out = vec![];
    let mut last = 0usize;
    let mut gaps = vec![];
    for (_, span) in crate::syntax::token::Tok::lexer(src).spanned() {
        gaps.push((last, span.start));
        last = span.end;
    }
    gaps.push((last, src.len()));
    for (a, b) in gaps {
        let gap = &src[a..b];
        let mut offset = 0;
        while let Some(i) = gap[offset..].find('#') {
            let start = offset + i;
            let end = gap[start..].find('\n').map(|e| start + e).unwrap_or(gap.len());
            let text = gap[start..end].trim_end().to_string();
            let blank_before = blank_line_before(src, a + start);
            // An own-line comment belongs before what follows it; a trailing one to its line.
            out.push(Comment { pos: (a + start) as u32, text, blank_before });
            offset = end;
            if offset >= gap.len() {
                break;
            }
        }
    }
    out
}

/// Whether `offset` starts its line (only blanks before it) and a blank line stands above
/// it: the blank lines the export keeps before comments and statements.
fn blank_line_before(src: &str, offset: usize) -> bool {
    let line_start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
    if line_start == 0 || !src[line_start..offset].trim().is_empty() {
        return false;
    }
    let above = src[..line_start - 1].rsplit('\n').next().unwrap_or("");
    above.trim().is_empty()
}

/// What `dgl export` was asked for.
pub struct Options {
    pub file: PathBuf,
    pub out: Option<PathBuf>,
    pub check: bool,
    pub drop_inspection: bool,
    /// Write the stdout the DGL run printed (the prints left out skipped) here.
    pub expected_out: Option<PathBuf>,
    pub distribute: Option<String>,
    /// The folder the exported script saves its Variables into at its end.
    pub save_variables: Option<String>,
}

/// Runs `dgl export`; returns the exit status, the report written to stderr.
pub fn main(opts: Options, color: bool) -> i32 {
    match run(&opts, color) {
        Ok(code) => code,
        Err(text) => {
            let _ = std::io::Write::write_all(&mut std::io::stderr(), text.as_bytes());
            if text.starts_with("Error: IOError") {
                2
            } else {
                1
            }
        }
    }
}

/// A translated file: its Python text and what could not be carried over.
pub struct Translated {
    pub python: String,
    pub problems: Vec<Problem>,
    pub dropped: HashSet<u32>,
    pub imports: Vec<(String, bool, Span)>,
}

/// Where the lines a translation decides last go: the stdlib modules DGL's lazily loaded
/// builtins come from; in the script, `set_script` and `load_draws`.
const PROLOGUE: &str = "#<prologue>\n";

const HEADER: &str = "import tensorflow as tf\n\nimport dgl_tf\nfrom dgl_tf import print, str, repr, format  # DGL's print format (docs/language.md §3)\n";

/// Translates the DGL source `text` of the file `name` (in folder `dir`).
pub fn translate(text: &str, name: &str, dir: &Path, drop_inspection: bool, main: bool) -> Result<Translated, String> {
    translate_distributed(text, name, dir, drop_inspection, main, None)
}

/// [`translate`], with `--distribute KIND` for the script (`main`).
pub fn translate_distributed(
    text: &str,
    name: &str,
    dir: &Path,
    drop_inspection: bool,
    main: bool,
    distribute: Option<&str>,
) -> Result<Translated, String> {
    let body = crate::syntax::parse_module(text).map_err(|errs| {
        let mut sources = crate::source::SourceMap::default();
        let id = sources.add(name, None, text);
        crate::runtime::Failure::Syntax(id, errs).render(&sources, false, false)
    })?;
    let mut ex = Exporter::new(text, name, dir);
    if drop_inspection {
        ex.dropped = inspect::droppable(&body);
        ex.drop_inspection = true;
    }
    if let (true, Some(kind)) = (main, distribute) {
        match distribute::plan(&body, text, kind) {
            Ok(plan) => ex.plan = Some(std::rc::Rc::new(plan)),
            Err(refusals) => {
                for (span, construct, nearest) in refusals {
                    ex.refuse(span, construct, nearest);
                }
            }
        }
    }
    let header = if main {
        format!("# Exported from {name} by `dgl export --tf`: TensorFlow 2.21 code with the same output.\n{HEADER}{PROLOGUE}")
    } else {
        format!("# Exported from {name} by `dgl export --tf`.\n{HEADER}{PROLOGUE}")
    };
    ex.module(&body, &header);
    let mut prologue: String = ex.py_modules.iter().map(|m| format!("import {m}\n")).collect();
    prologue.extend(ex.lazy.iter().map(|m| format!("import dgl_stdlib.{m}\n")));
    for m in &ex.lazy {
        if !ex.imports.iter().any(|(n, ..)| n == m) {
            ex.imports.push((m.clone(), true, Span::new(0, 0)));
        }
    }
    if main {
        prologue.push_str("\ndgl_tf.set_script(__file__)\n");
    }
    if let (true, Some(plan)) = (main, &ex.plan) {
        prologue.push_str(&format!(
            "# --distribute {0}: the strategy comes before any other TensorFlow operation; only the chief prints.\nstrategy = dgl_tf.make_strategy({1})\n",
            plan.kind,
            expr::py_str(&plan.kind)
        ));
    }
    ex.out = ex.out.replacen(PROLOGUE, &prologue, 1);
    if let (true, Some(plan)) = (main, &ex.plan) {
        let models: Vec<String> = plan.models.iter().map(|m| ex.local_name(m)).collect();
        ex.out.push_str(&format!(
            "\ndgl_tf.save_trained_weights(__file__, {})  # --distribute: the chief writes the trained weights\n",
            models.join(", ")
        ));
    }
    if main {
        ex.out.push_str("\ndgl_tf.finish()\n");
    }
    Ok(Translated { python: ex.out, problems: ex.problems, dropped: ex.dropped, imports: ex.imports })
}

fn run(opts: &Options, color: bool) -> Result<i32, String> {
    let text = crate::files::read_source(&opts.file).map_err(|m| format!("Error: IOError: {m}\n"))?;
    let dir =
        opts.file.parent().map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d }).unwrap_or(Path::new("."));
    let display = opts.file.display().to_string();
    let stem = opts.file.file_stem().and_then(|s| s.to_str()).unwrap_or("exported").to_string();
    // The script, then every module it imports (and they import), each translated once.
    let main_t = translate_distributed(&text, &display, dir, opts.drop_inspection, true, opts.distribute.as_deref())?;
    let mut files: Vec<(String, String)> = vec![];
    let mut problems = main_t.problems.clone();
    let mut pending = main_t.imports.clone();
    let mut done: HashSet<String> = HashSet::new();
    // The DGL files read: none of them may be overwritten by what the export writes.
    let mut sources = vec![opts.file.clone()];
    // Which user module imports which: DGL refuses an import cycle at run time (a
    // RuntimeError), where Python would run the half-initialised modules.
    let mut graph = vec![ImportNode { module: String::new(), file: display.clone(), imports: user_imports(&main_t) }];
    while let Some((name, stdlib, _)) = pending.pop() {
        if !done.insert(name.clone()) {
            continue;
        }
        let (src, shown) = if stdlib {
            let src = crate::runtime::import::STDLIB.iter().find(|(n, _)| *n == name).map(|(_, s)| s.to_string());
            (src.unwrap_or_default(), format!("<stdlib>/{name}.dgl"))
        } else {
            let path = dir.join(format!("{}.dgl", name.replace('.', "/")));
            sources.push(path.clone());
            (
                crate::files::read_source(&path).map_err(|m| format!("Error: IOError: {m}\n"))?,
                path.display().to_string(),
            )
        };
        let t = translate(&src, &shown, dir, false, false)?;
        if !stdlib {
            graph.push(ImportNode { module: name.clone(), file: shown.clone(), imports: user_imports(&t) });
        }
        problems.extend(t.problems);
        pending.extend(t.imports);
        let out = if stdlib { format!("dgl_stdlib/{name}.py") } else { format!("{}.py", name.replace('.', "/")) };
        files.push((out, t.python));
    }
    if let Some((cycle, file, span)) = import_cycle(&graph) {
        problems.push(Problem {
            file,
            span,
            construct: format!("an import cycle ({})", cycle.join(" -> ")),
            nearest: "DGL stops it with a RuntimeError, Python would run the modules half-initialised".into(),
        });
    }
    for node in &graph {
        for (m, span) in &node.imports {
            let root = m.split('.').next().unwrap_or(m);
            if RESERVED_MODULES.contains(&root) {
                problems.push(Problem {
                    file: node.file.clone(),
                    span: *span,
                    construct: format!("a module of your own named `{root}`"),
                    nearest: "the exported scripts need that name for themselves; rename the module".into(),
                });
            }
        }
    }
    if opts.check {
        return Ok(report_check(&display, &text, &problems, color));
    }
    if let Some(p) = problems.first() {
        return Err(render_problem(p, &text, color, problems.len()));
    }
    let out_path = opts.out.clone().unwrap_or_else(|| dir.join(format!("{stem}.py")));
    let out_dir =
        out_path.parent().map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d }).unwrap_or(Path::new("."));
    let npz_name = format!("{}.draws.npz", out_path.file_stem().and_then(|s| s.to_str()).unwrap_or("exported"));
    // Every file the export writes, checked before anything runs or is written.
    let mut targets = vec![
        ("the script".to_string(), out_path.clone()),
        ("the support module".into(), out_dir.join("dgl_tf.py")),
        ("requirements.txt".into(), out_dir.join("requirements.txt")),
        ("the random numbers DGL drew".into(), out_dir.join(&npz_name)),
    ];
    if files.iter().any(|(f, _)| f.starts_with("dgl_stdlib/")) {
        targets.push(("DGL's stdlib package".into(), out_dir.join("dgl_stdlib/__init__.py")));
    }
    for (f, _) in &files {
        targets.push((format!("the export of {}", f.trim_end_matches(".py").replace('/', ".")), out_dir.join(f)));
    }
    check_targets(&targets, &sources)?;
    // The run that records DGL's random draws (and, for the parity test, its stdout).
    let recorded = record::run(&opts.file, &text, &main_t.dropped)?;
    let mut python = main_t.python;
    std::fs::create_dir_all(out_dir)
        .map_err(|e| format!("Error: IOError: cannot create {}: {e}\n", out_dir.display()))?;
    // Relative paths stay relative to the DGL script's folder (docs/language.md §4).
    let data_dir = relative_dir(out_dir, dir);
    let mut setup = if data_dir != "." {
        format!(
            "dgl_tf.set_script(__file__, {})  # where the DGL script's relative paths start\n",
            expr::py_str(&data_dir)
        )
    } else {
        "dgl_tf.set_script(__file__)\n".to_string()
    };
    std::fs::create_dir_all(out_dir)
        .map_err(|e| format!("Error: IOError: cannot create {}: {e}\n", out_dir.display()))?;
    if !recorded.draws.is_empty() {
        setup.push_str(&format!("dgl_tf.load_draws({})  # the random numbers DGL drew\n", expr::py_str(&npz_name)));
        record::write_npz(&out_dir.join(&npz_name), &recorded.draws)?;
    }
    setup.push('\n');
    python = python.replacen("dgl_tf.set_script(__file__)\n", &setup, 1);
    if let Some(folder) = &opts.save_variables {
        python = python.replacen(
            "\ndgl_tf.finish()\n",
            &format!(
                "\ndgl_tf.finish()\ndgl_tf.save_variables({})  # the trained Variables, for DGL's load_npy\n",
                expr::py_str(folder)
            ),
            1,
        );
    }
    if recorded.code != 0 {
        python = python.replacen("\ndgl_tf.finish()\n", "\n", 1);
    }
    write(&out_path, &python)?;
    write(&out_dir.join("dgl_tf.py"), SUPPORT)?;
    // A script that plots imports the real matplotlib (module_path), which then is a requirement.
    let plots = std::iter::once(&python)
        .chain(files.iter().map(|(_, p)| p))
        .any(|p| p.lines().any(|l| l.starts_with("import matplotlib") || l.starts_with("from matplotlib import")));
    let requirements = if plots { format!("{REQUIREMENTS}matplotlib>=3.8\n") } else { REQUIREMENTS.to_string() };
    write(&out_dir.join("requirements.txt"), &requirements)?;
    if files.iter().any(|(f, _)| f.starts_with("dgl_stdlib/")) {
        write(
            &out_dir.join("dgl_stdlib/__init__.py"),
            "# DGL's standard library (stdlib/*.dgl), exported by `dgl export --tf`.\n",
        )?;
    }
    for (f, text) in &files {
        write(&out_dir.join(f), text)?;
    }
    if let Some(p) = &opts.expected_out {
        write(p, &recorded.stdout)?;
        let mut status = p.clone().into_os_string();
        status.push(".status");
        write(Path::new(&status), &format!("{}\n", recorded.code))?;
    }
    Ok(0)
}

/// Refuses an export that would overwrite a file it did not write: one of the DGL sources,
/// a file of the user's own (a hand-written `helper.py`, the project's `requirements.txt`),
/// or two of its own outputs on one path (`-o helper.py` beside a module `helper`). An
/// existing output is replaced only if an earlier export wrote it.
fn check_targets(targets: &[(String, PathBuf)], sources: &[PathBuf]) -> Result<(), String> {
    // A path made absolute, through the links of the part that exists already.
    let resolved = |p: &Path| -> PathBuf {
        if let Ok(p) = p.canonicalize() {
            return p;
        }
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        match (parent.canonicalize(), p.file_name()) {
            (Ok(d), Some(name)) => d.join(name),
            _ => p.to_path_buf(),
        }
    };
    let read: Vec<PathBuf> = sources.iter().map(|s| resolved(s)).collect();
    let places: Vec<PathBuf> = targets.iter().map(|(_, p)| resolved(p)).collect();
    for (i, (what, path)) in targets.iter().enumerate() {
        if let Some(src) = read.iter().position(|s| *s == places[i]).map(|k| &sources[k]) {
            return Err(format!(
                "Error: IOError: cannot write {what} to {}: that is the DGL source {}; choose another output with -o\n",
                path.display(),
                src.display()
            ));
        }
        if let Some(k) = places[..i].iter().position(|p| *p == places[i]) {
            let other = &targets[k].0;
            return Err(format!(
                "Error: IOError: cannot write {what} to {}: {other} goes there too; choose another output with -o\n",
                path.display()
            ));
        }
        if path.is_dir() {
            return Err(format!("Error: IOError: cannot write {}: it is a folder\n", path.display()));
        }
        if path.exists() && !written_by_export(path) {
            return Err(format!(
                "Error: IOError: cannot write {what} to {}: a file that `dgl export` did not write is there; \
                 export into another folder with -o, or move the file\n",
                path.display()
            ));
        }
    }
    Ok(())
}

/// Whether the file at `path` is one an earlier export wrote (so replacing it loses nothing):
/// the first line of every text file the export writes says so; the `.draws.npz` holds `meta`.
fn written_by_export(path: &Path) -> bool {
    if path.extension().is_some_and(|e| e == "npz") {
        let Ok(f) = std::fs::File::open(path) else { return false };
        let Ok(mut npz) = ndarray_npy::NpzReader::new(f) else { return false };
        return npz.names().is_ok_and(|n| n.iter().any(|n| n == "meta" || n == "meta.npy"));
    }
    // What the first exports wrote as requirements.txt, without the line that says so.
    if std::fs::read(path).is_ok_and(|b| b == b"tensorflow-cpu==2.21.0\nnumpy>=1.26,<3\n") {
        return true;
    }
    let Ok(f) = std::fs::File::open(path) else { return false };
    let mut first = String::new();
    use std::io::{BufRead, Read};
    let _ = std::io::BufReader::new(f.take(4096)).read_line(&mut first);
    [
        "# Exported from ",
        "# Written by `dgl export --tf`",
        "\"\"\"dgl_tf: the support module",
        "# DGL's standard library (stdlib/*.dgl), exported by",
    ]
    .iter()
    .any(|m| first.starts_with(m))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(d) = path.parent() {
        if !d.as_os_str().is_empty() {
            std::fs::create_dir_all(d).map_err(|e| format!("Error: IOError: cannot create {}: {e}\n", d.display()))?;
        }
    }
    crate::files::write_atomic(path, |w| w.write_all(text.as_bytes()))
        .map_err(|e| format!("Error: IOError: cannot write {}: {e}\n", path.display()))
}

/// The spanned error for the first construct the export cannot carry over.
fn render_problem(p: &Problem, text: &str, color: bool, count: usize) -> String {
    let more =
        if count > 1 { format!(" ({} more: `dgl export --check` lists them all)", count - 1) } else { String::new() };
    let message = format!("cannot export {} to TensorFlow: {}{more}", p.construct, p.nearest);
    render(p, text, &message, color)
}

fn render(p: &Problem, main_text: &str, message: &str, color: bool) -> String {
    let text = if p.file.starts_with("<stdlib>/") {
        let name = p.file.trim_start_matches("<stdlib>/").trim_end_matches(".dgl");
        crate::runtime::import::STDLIB.iter().find(|(n, _)| *n == name).map(|(_, s)| s.to_string()).unwrap_or_default()
    } else if std::path::Path::new(&p.file).is_file() {
        crate::files::read_source(Path::new(&p.file)).unwrap_or_else(|_| main_text.to_string())
    } else {
        main_text.to_string()
    };
    let mut sources = crate::source::SourceMap::default();
    let id = sources.add(&p.file, None, &text);
    let mut e = crate::error::Exc::new(crate::error::ErrorKind::NotImplemented, message.to_string());
    e.0.at = Some((id, p.span));
    crate::runtime::Failure::Runtime(e).render(&sources, color, false)
}

/// `dgl export --check`: every construct that stops the export, at once.
fn report_check(display: &str, text: &str, problems: &[Problem], color: bool) -> i32 {
    use std::io::Write;
    if problems.is_empty() {
        let _ = writeln!(std::io::stdout(), "{display}: exportable to TensorFlow");
        return 0;
    }
    let mut err = std::io::stderr().lock();
    for p in problems {
        let message = format!("cannot export {} to TensorFlow: {}", p.construct, p.nearest);
        let _ = err.write_all(render(p, text, &message, color).as_bytes());
    }
    let _ = writeln!(err, "{display}: {} construct(s) TensorFlow lacks", problems.len());
    1
}

/// `to` relative to `from` (both folders), for the exported script to find the DGL
/// script's data: `../../examples`, or `.` when they are the same folder.
fn relative_dir(from: &Path, to: &Path) -> String {
    let (Ok(a), Ok(b)) = (std::fs::canonicalize(from), std::fs::canonicalize(to)) else { return ".".into() };
    let common = a.components().zip(b.components()).take_while(|(x, y)| x == y).count();
    if common <= 1 {
        // Nothing shared but the root: the absolute path reads better than ../../..
        return b.display().to_string();
    }
    let mut parts: Vec<String> = a.components().skip(common).map(|_| "..".to_string()).collect();
    parts.extend(b.components().skip(common).map(|c| c.as_os_str().to_string_lossy().into_owned()));
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// The import bridge's library a module path belongs to.
pub fn foreign_library(path: &str) -> &'static crate::builtins::modules::foreign::Library {
    if path == "numpy" || path.starts_with("numpy.") {
        &crate::builtins::modules::numpy::NUMPY
    } else {
        &crate::builtins::modules::tensorflow::TENSORFLOW
    }
}

/// The bridge module an import names (`tensorflow`, `keras.layers`, `numpy`), if any.
fn foreign_module(name: &str) -> Option<String> {
    let top = name.split('.').next().unwrap_or(name);
    match top {
        "tensorflow" | "keras" => crate::builtins::modules::tensorflow::TENSORFLOW.resolve_import(name),
        "numpy" => crate::builtins::modules::numpy::NUMPY.resolve_import(name),
        _ => None,
    }
}

/// A file of the user's program (the script is module `""`) and the user modules it imports,
/// each with the span of its import statement.
struct ImportNode {
    module: String,
    file: String,
    imports: Vec<(String, Span)>,
}

fn user_imports(t: &Translated) -> Vec<(String, Span)> {
    t.imports.iter().filter(|(_, stdlib, _)| !stdlib).map(|(n, _, span)| (n.clone(), *span)).collect()
}

/// A cycle among the user's modules (`a -> b -> a`), if the import graph has one, with the
/// file and span of the import that closes it.
fn import_cycle(graph: &[ImportNode]) -> Option<(Vec<String>, String, Span)> {
    fn visit(n: &str, graph: &[ImportNode], path: &mut Vec<String>) -> Option<(Vec<String>, String, Span)> {
        let node = graph.iter().find(|g| g.module == n)?;
        path.push(n.to_string());
        for (m, span) in &node.imports {
            if let Some(i) = path.iter().position(|p| p == m) {
                let mut cycle = path[i..].to_vec();
                cycle.push(m.clone());
                return Some((cycle, node.file.clone(), *span));
            }
            if let Some(found) = visit(m, graph, path) {
                return Some(found);
            }
        }
        path.pop();
        None
    }
    visit("", graph, &mut vec![])
}
