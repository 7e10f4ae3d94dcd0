//! The command line (docs/language.md §1): `dgl FILE`, `dgl run FILE`, `dgl -c
//! CODE`, `dgl test`, `dgl check FILE`, `dgl doc`, `dgl lsp`, `dgl kernel` (Jupyter), and the
//! REPL when given nothing.
//!
//! Output never panics (Rust's `print!` family does on a write error): every
//! write here is fallible. When stdout is a pipe whose reader has gone
//! (`dgl test | head -1`), dgl ends quietly as Unix tools do: SIGPIPE is left
//! at its default action, so the process ends by that signal with nothing on
//! stderr (where SIGPIPE does not exist, a broken pipe ends it with status
//! 141, the shell's status for that signal, also silently). Any other write
//! failure on stdout, such as a full disk, is reported as an IOError on
//! stderr with exit status 1. If stderr itself cannot be written, the exit
//! status is still non-zero.

use crate::runtime::Interp;
use clap::{Parser, Subcommand};
use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "dgl",
    version,
    about = "DGL: a small differentiable scripting language with TensorFlow 2's gradient tape",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// Run CODE as a script.
    #[arg(short = 'c', value_name = "CODE")]
    code: Option<String>,

    /// A script to run; with no script and no -c, the REPL starts.
    file: Option<PathBuf>,

    /// Arguments for the script, returned by argv().
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a script.
    Run {
        file: PathBuf,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Golden tests: run every X.dgl that has an X.out beside it.
    Test {
        /// Files or folders (default: tests/).
        paths: Vec<PathBuf>,
        /// Write the actual output as the expectation.
        #[arg(long)]
        bless: bool,
        /// A case running longer than SECONDS fails, and the run goes on.
        #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = parse_timeout)]
        timeout: f64,
    },
    /// Parse only; report every syntax error.
    Check { file: PathBuf },
    /// Translate a DGL program into a TensorFlow 2.21 Python script with the same output
    /// (docs/export.md): OUT.py, the support module dgl_tf.py, requirements.txt, and the
    /// random numbers DGL drew (OUT.draws.npz) beside it.
    Export {
        /// The DGL program.
        file: PathBuf,
        /// Target TensorFlow (the only target).
        #[arg(long)]
        tf: bool,
        /// The Python script to write (default: FILE with the extension .py).
        #[arg(short = 'o', long = "output", value_name = "OUT.py")]
        out: Option<PathBuf>,
        /// List every construct TensorFlow lacks, and write nothing.
        #[arg(long)]
        check: bool,
        /// Leave statements that only inspect the tape out (each becomes a comment).
        #[arg(long)]
        drop_inspection: bool,
        /// Train under tf.distribute: `mirrored` (the devices of one machine) or
        /// `multiworker` (several machines, TF_CONFIG).
        #[arg(long, value_name = "STRATEGY", value_parser = ["mirrored", "multiworker"])]
        distribute: Option<String>,
        /// At its end, the exported script saves every Variable it made into DIR (.npy files
        /// DGL's load_npy reads, and variables.txt): trained weights come back to DGL.
        #[arg(long, value_name = "DIR")]
        save_variables: Option<String>,
        /// Also write the output the DGL run printed (for parity tests).
        #[arg(long, value_name = "FILE", hide = true)]
        expected_out: Option<PathBuf>,
    },
    /// The language server (LSP over stdin/stdout), for editors.
    Lsp,
    /// Print the reference of every builtin, method and stdlib name as Markdown (docs/reference.md).
    Doc,
    /// The Jupyter kernel: `dgl kernel install` writes its kernelspec; Jupyter runs it as
    /// `dgl kernel --connection-file F`.
    #[command(args_conflicts_with_subcommands = true)]
    Kernel {
        /// The connection file Jupyter wrote (ports and key).
        #[arg(long, value_name = "FILE")]
        connection_file: Option<PathBuf>,
        #[command(subcommand)]
        action: Option<KernelAction>,
    },
}

#[derive(Subcommand, Debug)]
enum KernelAction {
    /// Write the kernelspec (kernels/dgl/kernel.json); with no option, for this user.
    Install {
        /// In Jupyter's user data folder (the default).
        #[arg(long, conflicts_with_all = ["sys_prefix", "prefix"])]
        user: bool,
        /// In the active Python environment (sys.prefix).
        #[arg(long, conflicts_with = "prefix")]
        sys_prefix: bool,
        /// Under PREFIX/share/jupyter.
        #[arg(long, value_name = "PREFIX")]
        prefix: Option<PathBuf>,
    },
}

/// Runs the CLI; returns the process exit status.
pub fn main() -> i32 {
    default_sigpipe();
    // A panic is an interpreter bug, never the user's fault (STYLE.md lesson 8).
    std::panic::set_hook(Box::new(|info| {
        // A panic inside the layout crate is caught, and the drawing laid out another way (svg.rs).
        if crate::svg::laying_out() {
            return;
        }
        let _ = writeln!(
            std::io::stderr(),
            "Error: internal error: {info}\nThis is a bug in dgl; please report it with the script that caused it."
        );
    }));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            return match e.print() {
                Ok(()) => code,
                Err(err) if e.use_stderr() => stderr_failed(code, err),
                Err(err) => stdout_failed(err),
            };
        }
    };
    let color = std::io::stderr().is_terminal();
    install_ctrlc();
    match cli.command {
        Some(Command::Run { file, args }) => run_script(file, args, color),
        Some(Command::Test { paths, bless, timeout }) => {
            let opts = crate::testing::Options { paths, bless, timeout: Duration::from_secs_f64(timeout) };
            let (mut out, mut err) = (std::io::stdout().lock(), StderrChecked::default());
            match crate::testing::main(opts, &mut out, &mut err) {
                Ok(code) => code,
                Err(e) if err.failed => stderr_failed(2, e),
                Err(e) => stdout_failed(e),
            }
        }
        Some(Command::Check { file }) => check(&file, color),
        Some(Command::Export {
            file,
            tf: _,
            out,
            check,
            drop_inspection,
            distribute,
            save_variables,
            expected_out,
        }) => {
            let opts =
                crate::export::Options { file, out, check, drop_inspection, expected_out, distribute, save_variables };
            crate::with_big_stack(move || crate::export::main(opts, color))
        }
        Some(Command::Lsp) => crate::lsp::main(),
        Some(Command::Doc) => match crate::with_big_stack(crate::help::reference::generate) {
            Ok(text) => {
                let mut out = std::io::stdout().lock();
                match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                    Ok(()) => 0,
                    Err(e) => stdout_failed(e),
                }
            }
            Err(message) => report(&format!("Error: internal error: {message}\n"), 1),
        },
        Some(Command::Kernel { connection_file, action }) => kernel(connection_file, action),
        None => match (cli.code, cli.file) {
            (Some(code), file) => {
                // With -c, the would-be script name is the first script argument.
                let mut argv = vec!["-c".to_string()];
                argv.extend(file.map(|f| f.display().to_string()));
                argv.extend(cli.args);
                crate::with_big_stack(move || {
                    let (sink, out) = stdout_sink();
                    let mut rt = Interp::new(out);
                    rt.set_config(rt.config().with_color(color));
                    let r = crate::run_program(&mut rt, "<string>", None, &code, argv);
                    finish(r, &sink)
                })
            }
            (None, Some(file)) => run_script(file, cli.args, color),
            (None, None) => crate::repl::main(),
        },
    }
}

/// `dgl kernel install [--user|--sys-prefix|--prefix P]` or `dgl kernel --connection-file F`.
fn kernel(connection_file: Option<PathBuf>, action: Option<KernelAction>) -> i32 {
    use crate::kernel::install::Target;
    match (action, connection_file) {
        (Some(KernelAction::Install { sys_prefix: true, .. }), _) => crate::kernel::install::main(&Target::SysPrefix),
        (Some(KernelAction::Install { prefix: Some(p), .. }), _) => crate::kernel::install::main(&Target::Prefix(p)),
        (Some(KernelAction::Install { .. }), _) => crate::kernel::install::main(&Target::User),
        (None, Some(file)) => crate::kernel::main(&file),
        (None, None) => report("Error: dgl kernel needs --connection-file FILE (Jupyter passes it), or `install`\n", 2),
    }
}

/// `dgl check FILE`: parse only, every syntax error on stderr.
fn check(file: &Path, color: bool) -> i32 {
    let text = match crate::files::read_source(file) {
        Ok(t) => t,
        Err(message) => return report(&format!("Error: IOError: {message}\n"), 2),
    };
    let (text_report, code) = crate::check_source(&file.display().to_string(), &text, color);
    if code != 0 {
        return report(&text_report, code);
    }
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{}: no syntax errors", file.display()).and_then(|_| out.flush()) {
        Ok(()) => 0,
        Err(e) => stdout_failed(e),
    }
}

fn run_script(file: PathBuf, args: Vec<String>, color: bool) -> i32 {
    crate::with_big_stack(move || {
        let (sink, out) = stdout_sink();
        let r = crate::run_file(&file, &file.display().to_string(), &args, out, color);
        finish(r, &sink)
    })
}

/// The end of a program run: output still buffered is flushed (a failure
/// there, with nothing else wrong, is an IOError of its own), then the
/// diagnostics go to stderr. Returns the exit status.
fn finish(r: crate::RunResult, sink: &Sink) -> i32 {
    let mut r = r;
    if let Err(e) = sink.borrow_mut().flush() {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return BROKEN_PIPE_STATUS;
        }
        if r.code == 0 {
            r = crate::RunResult { stderr: format!("Error: IOError: cannot write output: {e}\n"), code: 1 };
        }
    }
    report(&r.stderr, r.code)
}

/// Writes a diagnostic to stderr; returns `code`, made non-zero if stderr failed.
fn report(text: &str, code: i32) -> i32 {
    if text.is_empty() {
        return code;
    }
    let mut err = std::io::stderr().lock();
    match err.write_all(text.as_bytes()).and_then(|_| err.flush()) {
        Ok(()) => code,
        Err(e) => stderr_failed(code, e),
    }
}

/// Exit status when the reader of a closed pipe has gone (128 + SIGPIPE, as a shell shows it).
const BROKEN_PIPE_STATUS: i32 = 141;

/// Stdout could not be written: a closed pipe ends quietly, anything else
/// (a full disk) is an IOError on stderr. Returns the exit status.
fn stdout_failed(e: std::io::Error) -> i32 {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return BROKEN_PIPE_STATUS;
    }
    report(&format!("Error: IOError: cannot write to stdout: {e}\n"), 1)
}

/// Stderr could not be written: nothing can be said, but the status is not 0.
fn stderr_failed(code: i32, _e: std::io::Error) -> i32 {
    if code == 0 {
        1
    } else {
        code
    }
}

/// Stderr for the golden runner's messages, remembering whether it failed
/// (so that a stderr failure is not mistaken for a stdout one).
#[derive(Default)]
struct StderrChecked {
    failed: bool,
}

impl Write for StderrChecked {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        std::io::stderr().write(buf).inspect_err(|_| self.failed = true)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush().inspect_err(|_| self.failed = true)
    }
}

type Sink = Rc<RefCell<std::io::LineWriter<std::io::Stdout>>>;

/// Stdout, flushed at every newline even when it is not a terminal
/// (docs/language.md §1); the typed handle is kept to flush it at the end.
fn stdout_sink() -> (Sink, crate::runtime::Output) {
    let sink: Sink = Rc::new(RefCell::new(std::io::LineWriter::new(std::io::stdout())));
    let out: crate::runtime::Output = sink.clone();
    (sink, out)
}

/// Restores SIGPIPE's default action (Rust ignores it), so that writing to a
/// closed pipe ends dgl silently, like any Unix filter.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: installing the default disposition for a signal has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// `--timeout SECONDS`: a positive number of seconds.
fn parse_timeout(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 1e9 => Ok(t),
        _ => Err(format!("'{s}' is not a number of seconds between 0 and 10^9")),
    }
}

/// Ctrl-C sets the flag the interpreter polls (loops, calls, the backward pass).
fn install_ctrlc() {
    let _ = ctrlc::set_handler(|| crate::runtime::INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed));
}
