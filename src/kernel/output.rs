//! What the interpreter thread sends out: replies for the shell socket and
//! messages for iopub, through one ordered channel (so a cell's `busy`, its
//! output, its reply and `idle` leave in the order they were made), and the
//! writers that turn the program's stdout and stderr into `stream` messages
//! while the cell runs.

use jupyter_protocol::{JupyterMessage, JupyterMessageContent, Stdio, StreamContent};
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;
use tokio::sync::mpsc;

/// How many outgoing messages may wait for the sockets before a printing cell waits for
/// them (a `while True: print(i)` cell is slowed to the sockets' pace, not buffered in memory).
pub const OUTBOX_CAPACITY: usize = 1024;

/// The largest text one `stream` message carries when consecutive writes are joined (bytes).
pub const STREAM_CHUNK_BYTES: usize = 1 << 20;

/// A message on its way to a socket.
#[derive(Debug)]
pub enum Out {
    /// A reply to a shell request.
    Shell(JupyterMessage),
    /// Any iopub message but stream text.
    IoPub(JupyterMessage),
    /// Text the program wrote; consecutive pieces with the same parent and stream are joined
    /// into one `stream` message by the sender.
    Stream { parent: Arc<JupyterMessage>, name: Stdio, text: String },
}

impl Out {
    /// The `stream` message of a piece of text.
    pub fn stream_message(parent: &JupyterMessage, name: Stdio, text: &str) -> JupyterMessage {
        StreamContent { name, text: text.to_string() }.as_child_of(parent)
    }
}

/// The interpreter thread's end of the channel, with the request being answered now (the
/// parent of every message it sends). Cheap to clone: the writers and the display hook share it.
#[derive(Clone)]
pub struct Outbox {
    tx: mpsc::Sender<Out>,
    parent: Rc<RefCell<Option<Arc<JupyterMessage>>>>,
}

impl Outbox {
    pub fn new(tx: mpsc::Sender<Out>) -> Outbox {
        Outbox { tx, parent: Rc::new(RefCell::new(None)) }
    }

    /// Makes `parent` the request that messages answer from now on.
    pub fn set_parent(&self, parent: Arc<JupyterMessage>) {
        *self.parent.borrow_mut() = Some(parent);
    }

    pub fn parent(&self) -> Option<Arc<JupyterMessage>> {
        self.parent.borrow().clone()
    }

    /// Sends `out`, waiting while the channel is full. A closed channel (the kernel is shutting
    /// down) drops it: there is no one left to tell.
    pub fn send(&self, out: Out) {
        let _ = self.tx.blocking_send(out);
    }

    /// Publishes `content` on iopub as a child of the current request.
    pub fn publish(&self, content: impl Into<JupyterMessageContent>) {
        if let Some(parent) = self.parent() {
            self.send(Out::IoPub(JupyterMessage::new(content, Some(&parent))));
        }
    }

    /// Replies to the current request on the shell socket.
    pub fn reply(&self, content: impl Into<JupyterMessageContent>) {
        if let Some(parent) = self.parent() {
            self.send(Out::Shell(JupyterMessage::new(content, Some(&parent))));
        }
    }
}

/// The program's stdout or stderr inside the kernel: each write becomes stream text of the
/// current request at once (the sender joins what arrives together), so output shows while the
/// cell runs. Bytes that end in the middle of a UTF-8 character wait for the rest; bytes that
/// are not UTF-8 at all are shown as U+FFFD.
pub struct StreamWriter {
    outbox: Outbox,
    name: Stdio,
    pending: Vec<u8>,
}

impl StreamWriter {
    pub fn new(outbox: Outbox, name: Stdio) -> StreamWriter {
        StreamWriter { outbox, name, pending: Vec::new() }
    }

    fn emit(&mut self, text: String) {
        if text.is_empty() {
            return;
        }
        if let Some(parent) = self.outbox.parent() {
            self.outbox.send(Out::Stream { parent, name: self.name.clone(), text });
        }
    }
}

impl Write for StreamWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        // Keep an unfinished character (at most 3 bytes) for the next write.
        let keep = match std::str::from_utf8(&self.pending) {
            Ok(_) => 0,
            Err(e) if e.error_len().is_none() => self.pending.len() - e.valid_up_to(),
            Err(_) => 0,
        };
        let ready: Vec<u8> = self.pending.drain(..self.pending.len() - keep).collect();
        self.emit(String::from_utf8_lossy(&ready).into_owned());
        Ok(buf.len())
    }

    /// Sends whatever is held back, even half a character (as U+FFFD).
    fn flush(&mut self) -> std::io::Result<()> {
        let rest = std::mem::take(&mut self.pending);
        self.emit(String::from_utf8_lossy(&rest).into_owned());
        Ok(())
    }
}

/// Joins the stream text waiting behind `first` in `rx` (same parent, same stream, up to
/// [`STREAM_CHUNK_BYTES`]) into one message. Returns that message and the first message that
/// did not belong to it, which the caller sends next.
pub fn join_stream(
    parent: Arc<JupyterMessage>,
    name: Stdio,
    mut text: String,
    rx: &mut mpsc::Receiver<Out>,
) -> (JupyterMessage, Option<Out>) {
    let mut next = None;
    while text.len() < STREAM_CHUNK_BYTES {
        match rx.try_recv() {
            Ok(Out::Stream { parent: p, name: n, text: t }) if Arc::ptr_eq(&p, &parent) && same_stream(&n, &name) => {
                text.push_str(&t)
            }
            Ok(other) => {
                next = Some(other);
                break;
            }
            Err(_) => break,
        }
    }
    (Out::stream_message(&parent, name, &text), next)
}

fn same_stream(a: &Stdio, b: &Stdio) -> bool {
    matches!((a, b), (Stdio::Stdout, Stdio::Stdout) | (Stdio::Stderr, Stdio::Stderr))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jupyter_protocol::ExecuteRequest;

    #[test]
    fn writes_become_stream_text_and_split_characters_wait_for_their_end() {
        let (tx, mut rx) = mpsc::channel(16);
        let outbox = Outbox::new(tx);
        let mut w = StreamWriter::new(outbox.clone(), Stdio::Stdout);
        // Nothing is sent before there is a request to answer.
        w.write_all(b"lost").unwrap();
        assert!(rx.try_recv().is_err());
        outbox.set_parent(Arc::new(ExecuteRequest::new("print('é')".into()).into()));
        let e = "é".as_bytes();
        w.write_all(&[b'a', e[0]]).unwrap();
        w.write_all(&[e[1], b'\n', 0xff]).unwrap();
        w.write_all(&[0xc3]).unwrap();
        w.flush().unwrap();
        let texts: Vec<String> = std::iter::from_fn(|| rx.try_recv().ok())
            .map(|o| match o {
                Out::Stream { text, .. } => text,
                other => panic!("expected stream text, got {other:?}"),
            })
            .collect();
        assert_eq!(texts, ["a", "é\n\u{fffd}", "\u{fffd}"]);
    }

    #[test]
    fn consecutive_stream_text_is_joined_until_another_message() {
        let (tx, mut rx) = mpsc::channel(16);
        let parent: Arc<JupyterMessage> = Arc::new(ExecuteRequest::new("x".into()).into());
        let piece = |name, text: &str| Out::Stream { parent: parent.clone(), name, text: text.into() };
        for out in [piece(Stdio::Stdout, "b"), piece(Stdio::Stdout, "c"), piece(Stdio::Stderr, "d")] {
            tx.try_send(out).unwrap();
        }
        let (msg, next) = join_stream(parent.clone(), Stdio::Stdout, "a".into(), &mut rx);
        match msg.content {
            JupyterMessageContent::StreamContent(s) => assert_eq!(s.text, "abc"),
            other => panic!("expected a stream message, got {other:?}"),
        }
        assert!(matches!(next, Some(Out::Stream { name: Stdio::Stderr, .. })));
    }
}
