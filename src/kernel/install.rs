//! `dgl kernel install [--user | --sys-prefix | --prefix P]`: writes the kernelspec
//! (`kernels/dgl/kernel.json`) where Jupyter looks for it, naming this very `dgl` binary.

use jupyter_protocol::JupyterKernelspec;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The kernel's name: its folder under `kernels/` and what notebooks record.
pub const KERNEL_NAME: &str = "dgl";

/// Where the kernelspec goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Jupyter's user data folder: `$JUPYTER_DATA_DIR`, else `~/.local/share/jupyter` on Linux
    /// (`$XDG_DATA_HOME/jupyter` when set), `~/Library/Jupyter` on macOS, `%APPDATA%\jupyter`.
    User,
    /// The active Python environment's `sys.prefix`: `$VIRTUAL_ENV`, else `$CONDA_PREFIX`,
    /// else what `python3` says.
    SysPrefix,
    /// `P/share/jupyter` (Jupyter's `--prefix`).
    Prefix(PathBuf),
}

/// The data folder (`.../share/jupyter` or the user's) of `target`.
pub fn data_dir(target: &Target) -> Result<PathBuf, String> {
    match target {
        Target::User => match std::env::var_os("JUPYTER_DATA_DIR") {
            Some(d) if !d.is_empty() => Ok(PathBuf::from(d)),
            _ => jupyter_zmq_client::user_data_dir().map_err(|e| format!("cannot find Jupyter's user folder: {e}")),
        },
        Target::SysPrefix => Ok(sys_prefix()?.join("share").join("jupyter")),
        Target::Prefix(p) => Ok(p.join("share").join("jupyter")),
    }
}

/// The active Python environment's prefix.
fn sys_prefix() -> Result<PathBuf, String> {
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = std::env::var_os(var).filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(p));
        }
    }
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.prefix)"])
        .output()
        .map_err(|e| format!("--sys-prefix needs an active Python environment: cannot run python3: {e}"))?;
    let prefix = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || prefix.is_empty() {
        return Err("--sys-prefix: python3 did not print its sys.prefix".into());
    }
    Ok(PathBuf::from(prefix))
}

/// The kernelspec of the `dgl` binary at `exe`: it is started with the connection file, is
/// interrupted by an `interrupt_request` message (SIGINT works too), and highlights as Python.
pub fn kernelspec(exe: &Path) -> JupyterKernelspec {
    let mut metadata = HashMap::new();
    metadata.insert("codemirror_mode".to_string(), serde_json::json!("python"));
    JupyterKernelspec {
        argv: vec![exe.display().to_string(), "kernel".into(), "--connection-file".into(), "{connection_file}".into()],
        display_name: "DGL".into(),
        language: "dgl".into(),
        metadata: Some(metadata),
        interrupt_mode: Some("message".into()),
        env: Some(HashMap::new()),
    }
}

/// Writes `kernels/dgl/kernel.json` under `target`'s data folder for the running binary;
/// returns the kernelspec's folder.
pub fn install(target: &Target) -> Result<PathBuf, String> {
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("cannot find the dgl binary's path: {e}"))?;
    install_at(&data_dir(target)?, &exe)
}

/// Writes the kernelspec of `exe` under the data folder `data` (atomically: a kernel.json is
/// never seen half written).
pub fn install_at(data: &Path, exe: &Path) -> Result<PathBuf, String> {
    let dir = data.join("kernels").join(KERNEL_NAME);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
    let json = serde_json::to_string_pretty(&kernelspec(exe)).map_err(|e| format!("internal error: {e}"))?;
    let file = dir.join("kernel.json");
    crate::files::write_atomic(&file, |w| w.write_all(format!("{json}\n").as_bytes()))
        .map_err(|e| format!("cannot write '{}': {e}", file.display()))?;
    Ok(dir)
}

/// `dgl kernel install`: installs and says where. Returns the exit status.
pub fn main(target: &Target) -> i32 {
    use std::io::Write;
    match install(target) {
        Ok(dir) => {
            let _ = writeln!(std::io::stdout(), "Installed the DGL kernel in {}", dir.display());
            0
        }
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "Error: {message}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernelspec_names_this_binary_and_the_connection_file() {
        let dir = tempfile::tempdir().unwrap();
        let spec_dir = install_at(dir.path(), Path::new("/opt/dgl/bin/dgl")).unwrap();
        assert_eq!(spec_dir, dir.path().join("kernels/dgl"));
        let text = std::fs::read_to_string(spec_dir.join("kernel.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v["argv"],
            serde_json::json!(["/opt/dgl/bin/dgl", "kernel", "--connection-file", "{connection_file}"])
        );
        assert_eq!((v["display_name"].as_str(), v["language"].as_str()), (Some("DGL"), Some("dgl")));
        assert_eq!(v["interrupt_mode"], "message");
        // Jupyter reads `env` and `metadata` as objects: never null.
        assert!(v["env"].is_object() && v["metadata"].is_object());
        // Installing again replaces the file.
        install_at(dir.path(), Path::new("/usr/bin/dgl")).unwrap();
        let again = std::fs::read_to_string(spec_dir.join("kernel.json")).unwrap();
        assert!(again.contains("/usr/bin/dgl") && !again.contains("/opt/dgl"));
    }

    #[test]
    fn a_prefix_holds_share_jupyter() {
        let d = data_dir(&Target::Prefix(PathBuf::from("/p"))).unwrap();
        assert_eq!(d, PathBuf::from("/p/share/jupyter"));
    }
}
