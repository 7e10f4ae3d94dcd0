//! DGL: a small, Python-shaped differentiable scripting language with
//! TensorFlow 2's eager gradient tape. See `src/README.md` for a map.

pub mod autodiff;
pub mod builtins;
pub mod cli;
pub mod diagnostic;
pub mod error;
pub mod export;
pub mod files;
pub mod help;
pub mod intern;
pub mod kernel;
pub mod lsp;
pub mod memory;
pub mod plot;
pub mod repl;
pub mod runtime;
pub mod session;
pub mod source;
pub mod svg;
pub mod syntax;
pub mod tensor;
pub mod testing;
pub mod text;

/// Every allocation is counted against the memory limit (memory.rs, docs/language.md "Limits").
#[global_allocator]
static ALLOCATOR: memory::Counting = memory::Counting;

use runtime::value::Globals;
use runtime::{Failure, Interp, Output};
use std::path::Path;

/// Native stack for the interpreter thread: deep DGL recursion reaches
/// RecursionError long before this is used up.
pub const STACK_BYTES: usize = 1 << 30;

/// Runs `f` on a thread with a large stack (the tree-walker recurses natively).
pub fn with_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(f)
        .expect("internal error: cannot start the interpreter thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// What running a program produced.
pub struct RunResult {
    /// The diagnostic text, if the program failed.
    pub stderr: String,
    /// 0 on success, 1 on an uncaught runtime error, 2 on a syntax error or bad file (docs/language.md §1).
    pub code: i32,
}

/// Runs source `text` named `name` (a file at `path`, if any) with `argv()`
/// = `argv`, writing the program's output to `out`.
pub fn run_program(rt: &mut Interp, name: &str, path: Option<&Path>, text: &str, argv: Vec<String>) -> RunResult {
    if let Some(dir) = path.and_then(|p| p.parent()) {
        rt.script_dir = if dir.as_os_str().is_empty() { ".".into() } else { dir.to_path_buf() };
    }
    rt.argv = argv;
    let id = rt.sources.add_script(name, path.map(|p| p.to_path_buf()), text);
    let globals = std::rc::Rc::new(Globals::default());
    let result = rt.run_source(id, &globals);
    let _ = std::io::Write::flush(&mut *rt.out.borrow_mut());
    match result {
        Ok(_) => RunResult { stderr: String::new(), code: 0 },
        Err(f) => RunResult { stderr: rt.report(&f), code: f.exit_code() },
    }
}

/// Reads and runs the script at `path`; diagnostics call it `display`.
pub fn run_file(path: &Path, display: &str, args: &[String], out: Output, color: bool) -> RunResult {
    let text = match files::read_source(path) {
        Ok(t) => t,
        Err(message) => return RunResult { stderr: format!("Error: IOError: {message}\n"), code: 2 },
    };
    let mut rt = Interp::new(out);
    rt.set_config(rt.config().with_color(color));
    run_script(&mut rt, path, display, &text, args)
}

/// Runs the script `text` read from `path` on `rt`, with `args` after its name in `argv()`.
pub fn run_script(rt: &mut Interp, path: &Path, display: &str, text: &str, args: &[String]) -> RunResult {
    let mut argv = vec![path.display().to_string()];
    argv.extend(args.iter().cloned());
    run_program(rt, display, Some(path), text, argv)
}

/// Parses a file and reports every syntax error (`dgl check`).
pub fn check_source(name: &str, text: &str, color: bool) -> (String, i32) {
    let mut sources = crate::source::SourceMap::default();
    let id = sources.add(name, None, text);
    match syntax::parse_module(text) {
        Ok(_) => (String::new(), 0),
        Err(errs) => (Failure::Syntax(id, errs).render(&sources, color, true), 2),
    }
}
