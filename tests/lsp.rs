//! `dgl lsp` driven as an editor drives it: the binary spawned, JSON-RPC framed by
//! Content-Length over its stdin and stdout. Every read has a deadline, so a server that
//! hangs fails the test instead of stalling the suite.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

const URI: &str = "file:///tmp/gallery/example.dgl";
const DEADLINE: Duration = Duration::from_secs(60);

struct Client {
    child: Child,
    stdin: ChildStdin,
    inbox: Receiver<Value>,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dgl"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dgl lsp starts");
        let stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, inbox) = channel();
        std::thread::spawn(move || loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length: ") {
                    length = v.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; length.expect("every frame has a Content-Length")];
            stdout.read_exact(&mut body).expect("a whole body");
            let msg: Value = serde_json::from_slice(&body).expect("the server writes JSON");
            if tx.send(msg).is_err() {
                return;
            }
        });
        Client { child, stdin, inbox }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("the server reads");
        self.stdin.flush().expect("flush");
    }

    fn send(&mut self, msg: Value) {
        let body = serde_json::to_vec(&msg).expect("json");
        self.send_raw(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        self.send_raw(&body);
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let msg = self.next();
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn next(&mut self) -> Value {
        self.inbox.recv_timeout(DEADLINE).expect("the server answers in time")
    }

    /// The next diagnostics published (other notifications skipped).
    fn diagnostics(&mut self) -> Value {
        loop {
            let msg = self.next();
            if msg["method"] == "textDocument/publishDiagnostics" {
                return msg["params"].clone();
            }
        }
    }

    fn position(&mut self, id: i64, method: &str, line: u32, character: u32) -> Value {
        let params = json!({ "textDocument": { "uri": URI }, "position": { "line": line, "character": character } });
        self.request(id, method, params)
    }

    fn finish(mut self) -> i32 {
        let shutdown = self.request(900, "shutdown", Value::Null);
        assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
        self.notify("exit", Value::Null);
        drop(self.stdin);
        let status = self.child.wait().expect("the server ends");
        status.code().expect("an exit status, not a signal")
    }
}

fn initialize(c: &mut Client) {
    let init = c.request(1, "initialize", json!({ "capabilities": {}, "processId": null, "rootUri": null }));
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["textDocumentSync"], json!(1), "full sync: {init}");
    assert_eq!(caps["completionProvider"]["triggerCharacters"], json!(["."]), "{init}");
    assert_eq!(caps["hoverProvider"], json!(true), "{init}");
    c.notify("initialized", json!({}));
}

#[test]
fn diagnostics_completion_and_hover_over_stdio() {
    let mut c = Client::start();
    initialize(&mut c);

    // A syntax error after non-ASCII text: 'é' is one UTF-16 unit, '𝜃' two, so the
    // stray ')' on line 2 is at column 15 (it is byte 18 of its line).
    let broken = "import nn\n# weights θ\nname = 'é𝜃' + )\nx = 1\n";
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": URI, "languageId": "dgl", "version": 1, "text": broken } }),
    );
    let d = c.diagnostics();
    assert_eq!(d["uri"], URI);
    let errors = d["diagnostics"].as_array().expect("a list");
    assert_eq!(errors.len(), 1, "{d}");
    assert_eq!(
        errors[0]["range"],
        json!({ "start": { "line": 2, "character": 15 }, "end": { "line": 2, "character": 16 } })
    );
    assert_eq!(errors[0]["severity"], json!(1));
    // The message is the one `dgl check` prints.
    let (report, _) = dgl::check_source("example.dgl", broken, false);
    let message = errors[0]["message"].as_str().expect("a message");
    assert!(report.contains(message), "{message:?} is not in:\n{report}");

    let fixed = "import nn\n\ndef scale(x, by=2.0):\n    \"\"\"Multiply x by `by`.\"\"\"\n    return x * by\n\ntotal = redu\nlayer = nn.De\n";
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": URI, "version": 2 }, "contentChanges": [{ "text": fixed }] }),
    );
    let d = c.diagnostics();
    assert_eq!((d["diagnostics"].clone(), d["version"].clone()), (json!([]), json!(2)), "{d}");

    let labels = |msg: &Value| -> Vec<String> {
        let items = msg["result"].as_array().unwrap_or_else(|| panic!("a list of items: {msg}"));
        items.iter().map(|i| i["label"].as_str().expect("a label").to_string()).collect()
    };
    let got = labels(&c.position(2, "textDocument/completion", 6, 12));
    assert!(got.contains(&"reduce_sum".to_string()), "{got:?}");
    assert!(got.iter().all(|l| l.starts_with("redu")), "{got:?}");
    // The document's own names, read from its syntax tree.
    let got = labels(&c.position(3, "textDocument/completion", 6, 8));
    assert!(got.contains(&"scale".to_string()) && got.contains(&"total".to_string()), "{got:?}");
    // Attributes of an imported stdlib module.
    let got = labels(&c.position(4, "textDocument/completion", 7, 13));
    assert!(got.contains(&"Dense".to_string()), "{got:?}");
    // Attributes of a tape and of a tensor, known from the builtin that made them.
    let typed = format!("{fixed}with GradientTape() as tape:\n    w = constant([1.0])\n    tape.gr\nw.nu\n");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": URI, "version": 3 }, "contentChanges": [{ "text": typed }] }),
    );
    c.diagnostics();
    let got = labels(&c.position(7, "textDocument/completion", 10, 11));
    assert!(got.contains(&"gradient".to_string()), "{got:?}");
    let got = labels(&c.position(8, "textDocument/completion", 11, 4));
    assert_eq!(got, ["numpy"]);

    // Hover on a builtin: the help text crate::help gives, as Markdown.
    let mut session = dgl::session::Session::new(std::rc::Rc::new(std::cell::RefCell::new(std::io::sink())));
    let expected = session.inspect("reduce_sum", 3).expect("help for reduce_sum");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": URI, "version": 4 }, "contentChanges": [{ "text": format!("{fixed}y = reduce_sum(x)\n") }] }),
    );
    c.diagnostics();
    let hover = c.position(5, "textDocument/hover", 8, 6);
    assert_eq!(hover["result"]["contents"]["kind"], "markdown", "{hover}");
    let value = hover["result"]["contents"]["value"].as_str().expect("text");
    assert!(!value.trim().is_empty());
    assert_eq!(value, expected);
    assert_eq!(
        hover["result"]["range"],
        json!({ "start": { "line": 8, "character": 4 }, "end": { "line": 8, "character": 14 } })
    );
    // Hover on the document's own def: its signature and docstring.
    let hover = c.position(6, "textDocument/hover", 2, 5);
    assert_eq!(hover["result"]["contents"]["value"], "```python\ndef scale(x, by=2.0)\n```\n\nMultiply x by `by`.");

    assert_eq!(c.finish(), 0);
}

#[test]
fn malformed_input_does_not_end_the_server() {
    let mut c = Client::start();
    // Before initialize, a request is refused, and the server goes on.
    let early = c.request(7, "textDocument/hover", json!({}));
    assert_eq!(early["error"]["code"], json!(-32002), "{early}");
    initialize(&mut c);

    // Garbage headers, a body that is not JSON, JSON that is not a message: each answered
    // with a parse error whose id is null.
    c.send_raw(b"this is not a header\r\n\r\n");
    c.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    c.send_raw(b"Content-Length: 2\r\n\r\n[]");
    for _ in 0..3 {
        let e = c.next();
        assert_eq!((e["id"].clone(), e["error"]["code"].clone()), (Value::Null, json!(-32700)), "{e}");
    }
    // An unknown method, and known ones with bad parameters or unknown documents.
    let e = c.request(10, "workspace/nothingLikeThis", json!({}));
    assert_eq!(e["error"]["code"], json!(-32601), "{e}");
    let e = c.request(11, "textDocument/completion", json!({ "textDocument": 5 }));
    assert_eq!(e["error"]["code"], json!(-32602), "{e}");
    let e = c.position(12, "textDocument/hover", 0, 0);
    assert_eq!(e["result"], Value::Null, "{e}");
    c.notify("textDocument/didChange", json!({ "nonsense": true }));
    c.notify("$/unknownNotification", json!({}));

    // Positions past the end of a line and of the document, inside a surrogate pair.
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": URI, "languageId": "dgl", "version": 1, "text": "s = '𝜃'\r\nt = 'φ'" } }),
    );
    assert_eq!(c.diagnostics()["diagnostics"], json!([]));
    for (i, (line, character)) in
        [(0, 5), (0, 6), (0, 999), (1, 5), (99, 0), (u32::MAX, u32::MAX)].into_iter().enumerate()
    {
        let r = c.position(20 + i as i64, "textDocument/completion", line, character);
        assert!(r["result"].is_array(), "{r}");
        let r = c.position(40 + i as i64, "textDocument/hover", line, character);
        assert!(r.get("error").is_none(), "{r}");
    }
    // Still serving.
    let r = c.position(60, "textDocument/completion", 0, 0);
    assert!(r["result"].is_array(), "{r}");
    assert_eq!(c.finish(), 0);
}

#[test]
fn exit_without_shutdown_is_status_1() {
    let mut c = Client::start();
    initialize(&mut c);
    c.notify("exit", Value::Null);
    drop(c.stdin);
    assert_eq!(c.child.wait().expect("ends").code(), Some(1));
}
