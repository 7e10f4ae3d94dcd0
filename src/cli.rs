//! The command line (LANGUAGE.md §1): `dgl FILE`, `dgl run FILE`, `dgl -c
//! CODE`, `dgl test`, `dgl check FILE`, and the REPL when given nothing.

use crate::runtime::Interp;
use clap::{Parser, Subcommand};
use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::rc::Rc;

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
    },
    /// Parse only; report every syntax error.
    Check { file: PathBuf },
}

/// Runs the CLI; returns the process exit status.
pub fn main() -> i32 {
    // A panic is an interpreter bug, never the user's fault (STYLE.md lesson 8).
    std::panic::set_hook(Box::new(|info| {
        eprintln!(
            "Error: internal error: {info}\nThis is a bug in dgl; please report it with the script that caused it."
        );
    }));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let color = std::io::stderr().is_terminal();
    install_ctrlc();
    match cli.command {
        Some(Command::Run { file, args }) => run_script(file, args, color),
        Some(Command::Test { paths, bless }) => crate::testing::main(paths, bless),
        Some(Command::Check { file }) => match std::fs::read_to_string(&file) {
            Ok(text) => {
                let (report, code) = crate::check_source(&file.display().to_string(), &text, color);
                eprint!("{report}");
                if code == 0 {
                    println!("{}: no syntax errors", file.display());
                }
                code
            }
            Err(e) => {
                eprintln!("Error: IOError: cannot open '{}': {}", file.display(), e);
                2
            }
        },
        None => match (cli.code, cli.file) {
            (Some(code), file) => {
                // With -c, the would-be script name is the first script argument.
                let mut argv = vec!["-c".to_string()];
                argv.extend(file.map(|f| f.display().to_string()));
                argv.extend(cli.args);
                crate::with_big_stack(move || {
                    let mut rt = Interp::new(stdout_sink());
                    rt.color = color;
                    let r = crate::run_program(&mut rt, "<string>", None, &code, argv);
                    let _ = std::io::stdout().flush();
                    eprint!("{}", r.stderr);
                    r.code
                })
            }
            (None, Some(file)) => run_script(file, cli.args, color),
            (None, None) => crate::repl::main(),
        },
    }
}

fn run_script(file: PathBuf, args: Vec<String>, color: bool) -> i32 {
    crate::with_big_stack(move || {
        let r = crate::run_file(&file, &file.display().to_string(), &args, stdout_sink(), color);
        let _ = std::io::stdout().flush();
        eprint!("{}", r.stderr);
        r.code
    })
}

/// Stdout, flushed at every newline even when it is not a terminal (LANGUAGE.md §1).
fn stdout_sink() -> crate::runtime::Output {
    Rc::new(RefCell::new(std::io::LineWriter::new(std::io::stdout())))
}

/// Ctrl-C sets the flag the interpreter polls (loops, calls, the backward pass).
fn install_ctrlc() {
    let _ = ctrlc::set_handler(|| crate::runtime::INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed));
}
