//! The Jupyter kernel: `dgl kernel --connection-file F` serves one
//! interactive session to a notebook; `dgl kernel install` writes the kernelspec (install.rs).
//!
//! The wire is the maintained crates' (jupyter-protocol's message types, jupyter-zmq-client's
//! sockets and HMAC-SHA256 signing over the pure-Rust `zeromq` crate), on a small tokio
//! runtime: one task per socket. The interpreter is single-threaded (`Rc` values), so it runs
//! on a big-stack thread of its own (executor.rs) that takes shell requests from a channel in
//! order and sends its replies and output back through another (output.rs). The control
//! socket is served while a cell runs: `interrupt_request` sets the flag the interpreter polls
//! (and SIGINT does too, cli.rs), `shutdown_request` ends the process.

pub mod executor;
pub mod install;
pub mod output;

use executor::log;
use jupyter_protocol::{
    ConnectionInfo, InterruptReply, JupyterMessage, JupyterMessageContent, ShutdownReply, ShutdownRequest, Status,
};
use jupyter_zmq_client::{
    create_kernel_control_connection, create_kernel_heartbeat_connection, create_kernel_iopub_connection,
    create_kernel_shell_connection, create_kernel_stdin_connection, KernelControlConnection, KernelIoPubConnection,
    RouterSendConnection,
};
use output::Out;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::mpsc;

/// The largest connection file read (bytes): a real one is a few hundred.
const MAX_CONNECTION_FILE_BYTES: u64 = 1 << 20;

/// How long a reply to `shutdown_request` is given to leave before the process ends.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(100);

/// How often the kernel checks that the process that started it is still there.
const PARENT_POLL: Duration = Duration::from_secs(1);

/// After a socket fails to read, the pause before it reads again (no busy loop on a broken socket).
const READ_RETRY: Duration = Duration::from_millis(100);

/// `dgl kernel --connection-file F`: serves the kernel until a shutdown request. Returns the
/// exit status: 2 for a connection file that cannot be used, 1 when the sockets cannot be bound.
pub fn main(connection_file: &Path) -> i32 {
    let info = match read_connection_file(connection_file) {
        Ok(info) => info,
        Err(message) => {
            log(&message);
            return 2;
        }
    };
    detach_stdin();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            log(&format!("cannot start the kernel's event loop: {e}"));
            return 1;
        }
    };
    match runtime.block_on(serve(info)) {
        Ok(()) => 0,
        Err(message) => {
            log(&message);
            1
        }
    }
}

/// Reads and checks a connection file: JSON with the five ports, the key and an
/// `hmac-sha256` signature scheme (or an empty key: no signing).
pub fn read_connection_file(path: &Path) -> Result<ConnectionInfo, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot open connection file '{shown}': {e}"))?;
    if !meta.is_file() || meta.len() > MAX_CONNECTION_FILE_BYTES {
        return Err(format!("connection file '{shown}' is not a regular file of at most 1 MiB"));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read connection file '{shown}': {e}"))?;
    parse_connection_info(&text).map_err(|e| format!("bad connection file '{shown}': {e}"))
}

/// Parses a connection file's text (see [`read_connection_file`]).
pub fn parse_connection_info(text: &str) -> Result<ConnectionInfo, String> {
    let info: ConnectionInfo = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if !info.key.is_empty() && info.signature_scheme != "hmac-sha256" {
        return Err(format!("signature scheme '{}' is not supported (only hmac-sha256)", info.signature_scheme));
    }
    Ok(info)
}

/// The kernel reads nothing from its own stdin (the notebook has none to give): `input()`
/// meets the end of input at once (EOFError) instead of waiting forever on the launcher's pipe.
fn detach_stdin() {
    #[cfg(unix)]
    if let Ok(null) = std::fs::File::open("/dev/null") {
        use std::os::unix::io::AsRawFd;
        // SAFETY: dup2 onto fd 0 with a descriptor we own; no Rust object owns fd 0.
        unsafe {
            libc::dup2(null.as_raw_fd(), 0);
        }
    }
}

/// Binds the five sockets and serves them until shutdown.
async fn serve(info: ConnectionInfo) -> Result<(), String> {
    let session_id = format!("dgl-kernel-{}", std::process::id());
    let bind = |what: &str, e: jupyter_zmq_client::RuntimeError| format!("cannot bind the {what} socket: {e}");
    let mut iopub = create_kernel_iopub_connection(&info, &session_id).await.map_err(|e| bind("iopub", e))?;
    let shell = create_kernel_shell_connection(&info, &session_id).await.map_err(|e| bind("shell", e))?;
    let control = create_kernel_control_connection(&info, &session_id).await.map_err(|e| bind("control", e))?;
    // input() is not served (see detach_stdin), but clients connect to the stdin socket.
    let _stdin = create_kernel_stdin_connection(&info, &session_id).await.map_err(|e| bind("stdin", e))?;
    let mut heartbeat = create_kernel_heartbeat_connection(&info).await.map_err(|e| bind("heartbeat", e))?;
    let starting = JupyterMessage::new(Status::starting(), None);
    let _ = iopub.send(starting).await;

    let (out_tx, out_rx) = mpsc::channel(output::OUTBOX_CAPACITY);
    let (request_tx, request_rx) = std::sync::mpsc::channel::<JupyterMessage>();
    let executor_out = out_tx.clone();
    std::thread::Builder::new()
        .name("dgl-interpreter".into())
        .stack_size(crate::STACK_BYTES)
        .spawn(move || executor::Executor::new(output::Outbox::new(executor_out)).serve(request_rx))
        .map_err(|e| format!("cannot start the interpreter thread: {e}"))?;

    let (shell_send, mut shell_recv) = shell.split();
    tokio::spawn(send_outgoing(out_rx, iopub, shell_send));
    tokio::spawn(async move {
        loop {
            if heartbeat.single_heartbeat().await.is_err() {
                tokio::time::sleep(READ_RETRY).await;
            }
        }
    });
    tokio::spawn(serve_control(control, out_tx.clone()));
    tokio::spawn(exit_with_parent());
    // The shell socket: every request goes to the interpreter in order, except shutdown,
    // which older clients send here.
    loop {
        let request = match shell_recv.read().await {
            Ok(m) => m,
            Err(e) => {
                unreadable("shell", e).await;
                continue;
            }
        };
        if let JupyterMessageContent::ShutdownRequest(r) = &request.content {
            let _ = out_tx.send(Out::Shell(shutdown_reply(r).as_child_of(&request))).await;
            shutdown().await;
        }
        if request_tx.send(request).is_err() {
            return Err("the interpreter thread has stopped".into());
        }
    }
}

/// Sends what the interpreter thread produced: shell replies, and iopub messages with
/// consecutive stream text joined.
async fn send_outgoing(mut rx: mpsc::Receiver<Out>, mut iopub: KernelIoPubConnection, mut shell: RouterSendConnection) {
    let mut next = None;
    loop {
        let out = match next.take() {
            Some(out) => out,
            None => match rx.recv().await {
                Some(out) => out,
                None => return,
            },
        };
        let sent = match out {
            Out::Shell(m) => shell.send(m).await,
            Out::IoPub(m) => iopub.send(m).await,
            Out::Stream { parent, name, text } => {
                let (m, after) = output::join_stream(parent, name, text, &mut rx);
                next = after;
                iopub.send(m).await
            }
        };
        if let Err(e) = sent {
            log(&format!("cannot send a message: {e}"));
        }
    }
}

/// The control socket, served while a cell runs: interrupt, shutdown, kernel_info.
async fn serve_control(mut control: KernelControlConnection, out: mpsc::Sender<Out>) {
    loop {
        let request = match control.read().await {
            Ok(m) => m,
            Err(e) => {
                unreadable("control", e).await;
                continue;
            }
        };
        let _ = out.send(Out::IoPub(Status::busy().as_child_of(&request))).await;
        let reply = match &request.content {
            JupyterMessageContent::InterruptRequest(_) => {
                crate::runtime::INTERRUPTED.store(true, Ordering::Relaxed);
                Some(InterruptReply::new().as_child_of(&request))
            }
            JupyterMessageContent::ShutdownRequest(r) => {
                let _ = control.send(shutdown_reply(r).as_child_of(&request)).await;
                shutdown().await
            }
            JupyterMessageContent::KernelInfoRequest(_) => Some(executor::kernel_info().as_child_of(&request)),
            other => {
                log(&format!("no reply to a '{}' message on the control channel", other.message_type()));
                None
            }
        };
        if let Some(reply) = reply {
            if let Err(e) = control.send(reply).await {
                log(&format!("cannot send a control reply: {e}"));
            }
        }
        let _ = out.send(Out::IoPub(Status::idle().as_child_of(&request))).await;
    }
}

/// A kernel whose parent (the notebook server) has died would otherwise live on unseen: it
/// ends when it is handed to another parent.
async fn exit_with_parent() {
    #[cfg(unix)]
    {
        // SAFETY: getppid has no preconditions and cannot fail.
        let parent = unsafe { libc::getppid() };
        loop {
            tokio::time::sleep(PARENT_POLL).await;
            // SAFETY: as above.
            if unsafe { libc::getppid() } != parent {
                log("the process that started the kernel has ended; exiting");
                std::process::exit(0);
            }
        }
    }
}

/// A message that could not be read (unsigned or wrongly signed, not JSON, content of the
/// wrong shape) is logged and dropped: with no readable header there is no one to answer. A
/// failing socket is read again after a pause.
async fn unreadable(socket: &str, e: jupyter_zmq_client::RuntimeError) {
    log(&format!("ignored a {socket} message that cannot be read: {e}"));
    if let jupyter_zmq_client::RuntimeError::ZmqError(_) = e {
        tokio::time::sleep(READ_RETRY).await;
    }
}

fn shutdown_reply(r: &ShutdownRequest) -> ShutdownReply {
    ShutdownReply { restart: r.restart, ..Default::default() }
}

/// Ends the process once the shutdown reply has had time to leave (a restart is the client
/// starting a new process).
async fn shutdown() -> ! {
    tokio::time::sleep(SHUTDOWN_GRACE).await;
    std::process::exit(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"ip": "127.0.0.1", "transport": "tcp", "shell_port": 5001, "iopub_port": 5002,
        "stdin_port": 5003, "control_port": 5004, "hb_port": 5005, "key": "k",
        "signature_scheme": "hmac-sha256", "kernel_name": "dgl"}"#;

    #[test]
    fn connection_files_are_checked_before_anything_is_bound() {
        let info = parse_connection_info(GOOD).unwrap();
        assert_eq!(info.shell_url(), "tcp://127.0.0.1:5001");
        assert!(parse_connection_info("{").unwrap_err().contains("EOF"));
        assert!(parse_connection_info(r#"{"ip": "127.0.0.1"}"#).unwrap_err().contains("missing field"));
        let md5 = GOOD.replace("hmac-sha256", "hmac-md5");
        assert!(parse_connection_info(&md5).unwrap_err().contains("hmac-md5"));
        let dir = tempfile::tempdir().unwrap();
        assert!(read_connection_file(dir.path()).unwrap_err().contains("not a regular file"));
        assert!(read_connection_file(&dir.path().join("none.json")).unwrap_err().starts_with("cannot open"));
    }
}
