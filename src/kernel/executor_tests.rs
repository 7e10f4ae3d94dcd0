//! The executor answering requests without sockets: what it sends, in order.

use super::*;
use crate::kernel::output::Out;
use jupyter_protocol::{CompleteRequest, InspectRequest, IsCompleteReplyStatus, IsCompleteRequest};
use tokio::sync::mpsc;

/// An executor and the receiving end of its outbox.
fn executor() -> (Executor, mpsc::Receiver<Out>) {
    let (tx, rx) = mpsc::channel(256);
    (Executor::new(Outbox::new(tx)), rx)
}

/// Each message sent: its socket and content.
fn sent(rx: &mut mpsc::Receiver<Out>) -> Vec<(&'static str, JupyterMessageContent)> {
    std::iter::from_fn(|| rx.try_recv().ok())
        .map(|out| match out {
            Out::Shell(m) => ("shell", m.content),
            Out::IoPub(m) => ("iopub", m.content),
            Out::Stream { parent, name, text } => ("iopub", Out::stream_message(&parent, name, &text).content),
        })
        .collect()
}

/// Runs `code` as a cell; returns what was sent, as `(socket, message type)` and the contents.
fn run(ex: &mut Executor, rx: &mut mpsc::Receiver<Out>, code: &str) -> Vec<(&'static str, JupyterMessageContent)> {
    ex.handle(ExecuteRequest::new(code.into()).into());
    sent(rx)
}

fn kinds(msgs: &[(&'static str, JupyterMessageContent)]) -> Vec<String> {
    msgs.iter().map(|(socket, c)| format!("{socket}:{}", c.message_type())).collect()
}

fn plain(media: &Media) -> Option<&str> {
    media.content.iter().find_map(|m| match m {
        MediaType::Plain(t) => Some(t.as_str()),
        _ => None,
    })
}

#[test]
fn a_cell_sends_input_streams_its_result_and_reply_between_busy_and_idle() {
    let (mut ex, mut rx) = executor();
    let msgs = run(&mut ex, &mut rx, "x = 2\nprint('hi')\nx * 3");
    assert_eq!(
        kinds(&msgs),
        [
            "iopub:status",
            "iopub:execute_input",
            "iopub:stream",
            "iopub:execute_result",
            "shell:execute_reply",
            "iopub:status"
        ]
    );
    match (&msgs[2].1, &msgs[3].1, &msgs[4].1) {
        (
            JupyterMessageContent::StreamContent(s),
            JupyterMessageContent::ExecuteResult(r),
            JupyterMessageContent::ExecuteReply(reply),
        ) => {
            assert_eq!(s.text, "hi\n");
            assert_eq!(plain(&r.data), Some("6"));
            assert_eq!((r.execution_count.value(), reply.execution_count.value()), (1, 1));
            assert_eq!(reply.status, ReplyStatus::Ok);
        }
        other => panic!("unexpected messages {other:?}"),
    }
    // The interpreter lives across cells.
    let msgs = run(&mut ex, &mut rx, "x + 1");
    match &msgs[2].1 {
        JupyterMessageContent::ExecuteResult(r) => {
            assert_eq!((plain(&r.data), r.execution_count.value()), (Some("3"), 2))
        }
        other => panic!("expected execute_result, got {other:?}"),
    }
}

#[test]
fn an_uncaught_error_is_an_error_message_with_dgls_report_and_an_error_reply() {
    let (mut ex, mut rx) = executor();
    let msgs = run(&mut ex, &mut rx, "print('before')\nundefined_name + 1\nprint('after')");
    assert_eq!(
        kinds(&msgs),
        ["iopub:status", "iopub:execute_input", "iopub:stream", "iopub:error", "shell:execute_reply", "iopub:status"]
    );
    match (&msgs[3].1, &msgs[4].1) {
        (JupyterMessageContent::ErrorOutput(e), JupyterMessageContent::ExecuteReply(reply)) => {
            assert_eq!(e.ename, "NameError");
            assert!(e.evalue.contains("undefined_name"), "{}", e.evalue);
            assert!(e.traceback.iter().any(|l| l.contains("<input-1>")), "{:?}", e.traceback);
            assert_eq!(reply.status, ReplyStatus::Error);
            assert_eq!(reply.error.as_ref().map(|e| e.ename.as_str()), Some("NameError"));
        }
        other => panic!("unexpected messages {other:?}"),
    }
    let msgs = run(&mut ex, &mut rx, "def f(:\n  pass");
    match &msgs[2].1 {
        JupyterMessageContent::ErrorOutput(e) => assert_eq!(e.ename, "SyntaxError"),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn display_and_rich_results_carry_every_representation() {
    let (mut ex, mut rx) = executor();
    let code = "class Pic:\n    def _repr_svg_(self):\n        return '<svg/>'\n    def __repr__(self):\n        return 'Pic()'\n\
                display(Pic())\nPic()";
    let msgs = run(&mut ex, &mut rx, code);
    let mimes = |m: &Media| m.content.iter().map(|t| t.mime_type().to_string()).collect::<Vec<_>>();
    match (&msgs[2].1, &msgs[3].1) {
        (JupyterMessageContent::DisplayData(d), JupyterMessageContent::ExecuteResult(r)) => {
            assert_eq!(mimes(&d.data), ["text/plain", "image/svg+xml"]);
            assert_eq!(mimes(&r.data), ["text/plain", "image/svg+xml"]);
            assert_eq!(plain(&r.data), Some("Pic()"));
        }
        other => panic!("unexpected messages {other:?}"),
    }
}

#[test]
fn completion_and_inspection_count_characters_not_bytes() {
    let (mut ex, mut rx) = executor();
    run(&mut ex, &mut rx, "xs = [1]\nreduce_me = 1");
    // 'é' is two bytes and one character: the cursor after "reduce_" is character 12.
    let code = "s = 'é'; y = reduce_";
    ex.handle(CompleteRequest { code: code.into(), cursor_pos: code.chars().count() }.into());
    match &sent(&mut rx)[1].1 {
        JupyterMessageContent::CompleteReply(r) => {
            assert_eq!((r.cursor_start, r.cursor_end), (13, 20));
            assert!(r.matches.contains(&"reduce_me".to_string()) && r.matches.contains(&"reduce_sum".to_string()));
        }
        other => panic!("expected complete_reply, got {other:?}"),
    }
    ex.handle(InspectRequest { code: "reduce_me".into(), cursor_pos: 3, detail_level: Some(0) }.into());
    match &sent(&mut rx)[1].1 {
        JupyterMessageContent::InspectReply(r) => assert!(r.found && plain(&r.data).is_some()),
        other => panic!("expected inspect_reply, got {other:?}"),
    }
    ex.handle(InspectRequest { code: "no_such_name".into(), cursor_pos: 2, detail_level: Some(0) }.into());
    match &sent(&mut rx)[1].1 {
        JupyterMessageContent::InspectReply(r) => assert!(!r.found),
        other => panic!("expected inspect_reply, got {other:?}"),
    }
}

#[test]
fn is_complete_follows_the_repl() {
    let (mut ex, mut rx) = executor();
    for (code, status, indent) in [
        ("x = 1", IsCompleteReplyStatus::Complete, ""),
        ("for i in range(3):", IsCompleteReplyStatus::Incomplete, "    "),
        ("x = = 1", IsCompleteReplyStatus::Invalid, ""),
    ] {
        ex.handle(IsCompleteRequest { code: code.into() }.into());
        match &sent(&mut rx)[1].1 {
            JupyterMessageContent::IsCompleteReply(r) => assert_eq!((&r.status, r.indent.as_str()), (&status, indent)),
            other => panic!("expected is_complete_reply, got {other:?}"),
        }
    }
}

#[test]
fn unknown_requests_get_busy_and_idle_but_no_reply() {
    let (mut ex, mut rx) = executor();
    let msg: JupyterMessage = jupyter_protocol::UnknownMessage {
        msg_type: "frobnicate_request".into(),
        content: serde_json::json!({"x": 1}),
    }
    .into();
    ex.handle(msg);
    assert_eq!(kinds(&sent(&mut rx)), ["iopub:status", "iopub:status"]);
}

#[test]
fn after_a_failed_cell_the_waiting_cells_are_aborted_and_other_requests_answered() {
    let (mut ex, mut rx) = executor();
    let (tx, requests) = std::sync::mpsc::channel();
    tx.send(ExecuteRequest::new("1 / 0".into()).into()).unwrap();
    tx.send(ExecuteRequest::new("print('not run')".into()).into()).unwrap();
    tx.send(IsCompleteRequest { code: "x = 1".into() }.into()).unwrap();
    tx.send(ExecuteRequest { stop_on_error: false, ..ExecuteRequest::new("print('not run either')".into()) }.into())
        .unwrap();
    drop(tx);
    ex.serve(requests);
    let replies: Vec<String> = sent(&mut rx)
        .into_iter()
        .filter_map(|(socket, c)| match c {
            JupyterMessageContent::ExecuteReply(r) => Some(format!("{:?}", r.status)),
            JupyterMessageContent::StreamContent(s) => Some(format!("printed {:?}", s.text)),
            c if socket == "shell" => Some(c.message_type().to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(replies, ["Error", "Aborted", "is_complete_reply", "Aborted"]);
    // The next request runs normally.
    let msgs = run(&mut ex, &mut rx, "print('runs')");
    assert!(kinds(&msgs).contains(&"iopub:stream".to_string()));
}
