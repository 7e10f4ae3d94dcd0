//! The `dgl` binary: a thin wrapper over the library's CLI.

fn main() {
    std::process::exit(dgl::cli::main());
}
