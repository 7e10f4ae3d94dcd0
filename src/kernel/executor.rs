//! The interpreter's side of the kernel: one [`Session`] that lives across cells, answering
//! shell requests one at a time (execute, complete, inspect, is_complete, kernel_info,
//! comm_info, history) on its own big-stack thread. Each request is framed by `busy` and `idle`
//! on iopub, as the messaging protocol asks; everything leaves through the [`Outbox`].

use super::output::{Outbox, StreamWriter};
use crate::runtime::{Failure, INTERRUPTED};
use crate::session::{is_complete, mime_bundle, Completeness, Session};
use jupyter_protocol::{
    CodeMirrorMode, CommInfoReply, CompleteReply, DisplayData, ErrorOutput, ExecuteInput, ExecuteReply, ExecuteRequest,
    ExecuteResult, ExecutionCount, HistoryReply, InspectReply, IsCompleteReply, JupyterMessage, JupyterMessageContent,
    KernelInfoReply, LanguageInfo, Media, MediaType, ReplyError, ReplyStatus, Status, Stdio, Transient,
};
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;
use std::sync::Arc;

/// The messaging protocol version the kernel speaks.
pub const PROTOCOL_VERSION: &str = "5.3";

/// The kernel_info_reply: DGL's language_info, highlighted as Python (its syntax is Python's).
pub fn kernel_info() -> KernelInfoReply {
    let version = env!("CARGO_PKG_VERSION").to_string();
    KernelInfoReply {
        status: ReplyStatus::Ok,
        protocol_version: PROTOCOL_VERSION.into(),
        implementation: "dgl".into(),
        implementation_version: version.clone(),
        language_info: LanguageInfo {
            name: "dgl".into(),
            version,
            mimetype: Some("text/x-dgl".into()),
            file_extension: Some(".dgl".into()),
            pygments_lexer: Some("python".into()),
            codemirror_mode: Some(CodeMirrorMode::python()),
            nbconvert_exporter: Some("script".into()),
        },
        banner: format!("DGL {}: a differentiable scripting language", env!("CARGO_PKG_VERSION")),
        help_links: vec![],
        debugger: false,
        error: None,
    }
}

/// One interpreter and the requests it answers.
pub struct Executor {
    pub session: Session,
    outbox: Outbox,
    /// The requests not answered yet (while `serve` runs).
    queue: Option<Receiver<JupyterMessage>>,
    /// Requests taken from the queue when a cell failed, before its reply left: the cells
    /// among them are aborted, the rest answered.
    after_failure: Vec<JupyterMessage>,
}

impl Executor {
    /// A session whose stdout, stderr and `display(x)` go to iopub through `outbox`.
    pub fn new(outbox: Outbox) -> Executor {
        let out = Rc::new(RefCell::new(StreamWriter::new(outbox.clone(), Stdio::Stdout)));
        let mut session = Session::new(out);
        session.rt.err_out = Rc::new(RefCell::new(StreamWriter::new(outbox.clone(), Stdio::Stderr)));
        session.rt.set_interactive_logging(true);
        // Notebooks render ANSI colours in tracebacks.
        session.rt.set_config(session.rt.config().with_color(true));
        let hook_box = outbox.clone();
        session.rt.set_display_hook(Rc::new(move |rt, v| {
            let data = media(mime_bundle(rt, v)?);
            hook_box.publish(DisplayData::new(data));
            Ok(())
        }));
        Executor { session, outbox, queue: None, after_failure: Vec::new() }
    }

    /// Answers requests until the channel closes.
    ///
    /// When a cell fails (with `stop_on_error`, the default), the cells waiting when it failed
    /// (sent before the client could see the error: "Run all") are aborted, not run, as
    /// IPython does; a cell sent after the error reply runs.
    pub fn serve(&mut self, requests: Receiver<JupyterMessage>) {
        self.queue = Some(requests);
        while let Some(request) = self.queue.as_ref().and_then(|q| q.recv().ok()) {
            self.handle(request);
            for waiting in std::mem::take(&mut self.after_failure) {
                match waiting.content {
                    JupyterMessageContent::ExecuteRequest(_) => self.abort(waiting),
                    _ => self.handle(waiting),
                }
            }
        }
    }

    /// Answers one shell request: `busy`, the reply and its output, `idle`. An interpreter
    /// panic (a bug) while answering is logged, and the kernel goes on.
    pub fn handle(&mut self, request: JupyterMessage) {
        let request = Arc::new(request);
        self.outbox.set_parent(request.clone());
        self.outbox.publish(Status::busy());
        if std::panic::catch_unwind(AssertUnwindSafe(|| self.answer(&request))).is_err() {
            log(&format!("internal error answering a '{}' message; this is a bug in dgl", request.message_type()));
        }
        self.outbox.publish(Status::idle());
    }

    fn answer(&mut self, request: &JupyterMessage) {
        match &request.content {
            JupyterMessageContent::ExecuteRequest(r) => self.execute(r),
            JupyterMessageContent::CompleteRequest(r) => {
                let (start, end, matches) = self.complete(&r.code, r.cursor_pos);
                let reply = CompleteReply { matches, cursor_start: start, cursor_end: end, ..Default::default() };
                self.outbox.reply(reply);
            }
            JupyterMessageContent::InspectRequest(r) => {
                let pos = byte_offset(&r.code, r.cursor_pos);
                let help = self.session.inspect(&r.code, pos);
                let reply = InspectReply {
                    found: help.is_some(),
                    data: help.map(|h| Media::new(vec![MediaType::Plain(h)])).unwrap_or_default(),
                    ..Default::default()
                };
                self.outbox.reply(reply);
            }
            JupyterMessageContent::IsCompleteRequest(r) => self.outbox.reply(match is_complete(&r.code) {
                Completeness::Complete => IsCompleteReply::complete(),
                Completeness::Incomplete { indent } => IsCompleteReply::incomplete(indent),
                Completeness::Invalid => IsCompleteReply::invalid(),
            }),
            JupyterMessageContent::KernelInfoRequest(_) => self.outbox.reply(kernel_info()),
            // No comms (widgets) and no stored history: empty answers, so front ends that ask go on.
            JupyterMessageContent::CommInfoRequest(_) => self.outbox.reply(CommInfoReply::default()),
            JupyterMessageContent::HistoryRequest(_) => self.outbox.reply(HistoryReply::new(vec![])),
            other => log(&format!("no reply to a '{}' message on the shell channel", other.message_type())),
        }
    }

    /// Replies `aborted` to a cell that is not run.
    fn abort(&mut self, request: JupyterMessage) {
        self.outbox.set_parent(Arc::new(request));
        self.outbox.publish(Status::busy());
        let execution_count = ExecutionCount::new(self.session.count);
        self.outbox.reply(ExecuteReply { status: ReplyStatus::Aborted, execution_count, ..Default::default() });
        self.outbox.publish(Status::idle());
    }

    /// `text[..cursor]` (cursor in characters, as the protocol counts since 5.2) completed:
    /// the replaced range in characters and the candidates.
    fn complete(&self, text: &str, cursor: usize) -> (usize, usize, Vec<String>) {
        let pos = byte_offset(text, cursor);
        let (start, matches) = self.session.complete(text, pos);
        (text[..start].chars().count(), text[..pos].chars().count(), matches)
    }

    /// Runs a cell: `execute_input`, its streams as it runs, the value of its last expression
    /// as `execute_result` (not when silent), an uncaught error as `error` with DGL's report;
    /// then the `execute_reply`. An interpreter panic (a bug) is reported as an error of the
    /// cell, and the kernel goes on.
    fn execute(&mut self, r: &ExecuteRequest) {
        // An interrupt that came while no cell ran is not meant for this one.
        INTERRUPTED.store(false, Ordering::Relaxed);
        let count = ExecutionCount::new(self.session.count + 1);
        if !r.silent {
            self.outbox.publish(ExecuteInput { code: r.code.clone(), execution_count: count });
        }
        let run = std::panic::catch_unwind(AssertUnwindSafe(|| self.run_cell(&r.code, r.silent)));
        let _ = self.session.rt.out.borrow_mut().flush();
        let _ = self.session.rt.err_out.borrow_mut().flush();
        let failure = match run {
            Ok(Ok(())) => None,
            Ok(Err(f)) => Some(self.describe(&f)),
            Err(_) => Some(ReplyError {
                ename: "InternalError".into(),
                evalue: "internal error: the interpreter panicked (this is a bug in dgl)".into(),
                traceback: vec!["internal error: the interpreter panicked; this is a bug in dgl".into()],
            }),
        };
        INTERRUPTED.store(false, Ordering::Relaxed);
        let execution_count = ExecutionCount::new(self.session.count);
        // Jupyter's schema wants `user_expressions` as an object, even empty (DGL evaluates none).
        let user_expressions = Some(HashMap::new());
        if failure.is_some() && r.stop_on_error {
            if let Some(q) = &self.queue {
                self.after_failure.extend(q.try_iter());
            }
        }
        let reply = match failure {
            None => ExecuteReply { execution_count, user_expressions, ..Default::default() },
            Some(e) => {
                self.outbox.publish(ErrorOutput {
                    ename: e.ename.clone(),
                    evalue: e.evalue.clone(),
                    traceback: e.traceback.clone(),
                });
                ExecuteReply {
                    status: ReplyStatus::Error,
                    execution_count,
                    error: Some(Box::new(e)),
                    ..Default::default()
                }
            }
        };
        self.outbox.reply(reply);
    }

    fn run_cell(&mut self, code: &str, silent: bool) -> Result<(), Failure> {
        // `run_input`: code, `%magic` lines and `%%magic` cells, `x?` queries, as in the REPL.
        let Some(v) = self.session.run_input(code)? else { return Ok(()) };
        if silent || crate::session::ends_with_semicolon(code) {
            return Ok(());
        }
        let data = mime_bundle(&mut self.session.rt, &v).map_err(Failure::Runtime)?;
        let count = ExecutionCount::new(self.session.count);
        // `transient` is an object or absent in Jupyter's schema, never null.
        let result = ExecuteResult { transient: Some(Transient::default()), ..ExecuteResult::new(count, media(data)) };
        self.outbox.publish(result);
        Ok(())
    }

    /// The `error` content of a failure: its type, its message and DGL's rendered report as
    /// the traceback lines.
    fn describe(&self, f: &Failure) -> ReplyError {
        let (ename, evalue) = match f {
            Failure::Syntax(_, errs) => ("SyntaxError".to_string(), errs.first().map(|e| e.message.clone())),
            Failure::Runtime(e) => (e.type_name(), Some(e.message().to_string())),
        };
        let report = self.session.report(f);
        ReplyError {
            ename,
            evalue: evalue.unwrap_or_default(),
            traceback: report.trim_end().lines().map(str::to_string).collect(),
        }
    }
}

/// A MIME bundle as the protocol's `Media`.
pub fn media(bundle: Vec<(String, String)>) -> Media {
    let items = bundle.into_iter().map(|(mime, data)| match mime.as_str() {
        "text/plain" => MediaType::Plain(data),
        "text/html" => MediaType::Html(data),
        "text/markdown" => MediaType::Markdown(data),
        "text/latex" => MediaType::Latex(data),
        "image/svg+xml" => MediaType::Svg(data),
        "image/png" => MediaType::Png(data),
        _ => MediaType::Other((mime, serde_json::Value::String(data))),
    });
    Media::new(items.collect())
}

/// The byte offset of character `chars` of `text` (its end when past it).
pub fn byte_offset(text: &str, chars: usize) -> usize {
    text.char_indices().nth(chars).map_or(text.len(), |(i, _)| i)
}

/// A line on the kernel's own stderr (the notebook server's log), for what no client asked.
pub fn log(message: &str) {
    let _ = writeln!(std::io::stderr(), "dgl kernel: {message}");
}

#[cfg(test)]
#[path = "executor_tests.rs"]
mod tests;
