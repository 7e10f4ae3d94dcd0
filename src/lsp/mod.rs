//! `dgl lsp`: a language server over stdio (LSP 3.17, synchronous, one thread).
//!
//! - Diagnostics: every syntax error `dgl check` reports, published on open and change.
//! - Completion (trigger `.`): keywords, builtins, the names the document binds where the
//!   cursor is; after `module.` or `builtin.`, that value's attributes.
//! - Hover: the document's own `def`s and classes (signature and docstring), else the help
//!   text of a builtin or stdlib name (crate::help), as Markdown.
//!
//! The server never runs the user's code: documents are parsed, not executed. Only DGL's
//! own standard library runs (on `import nn` in a document, to list and describe `nn.`).
//! No input ends it but `exit` or the end of its input: a malformed frame gets a JSON-RPC
//! parse error, a bad request an error response, and a request whose handling panics (an
//! interpreter bug) an internal error.

mod symbols;
mod text;
mod transport;

use crate::runtime::value::Value;
use crate::session::{Session, KEYWORDS};
use lsp_server::{ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{Completion, HoverRequest, Request as _};
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionOptions, CompletionParams, CompletionResponse, Diagnostic,
    DiagnosticSeverity, Hover, HoverContents, HoverParams, HoverProviderCapability, MarkupContent, MarkupKind,
    PublishDiagnosticsParams, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::panic::AssertUnwindSafe;
pub use text::{Document, Encoding};

/// Runs the server on stdin/stdout until `exit` or the end of input; returns the exit
/// status (0 after a `shutdown` request, 1 otherwise, as the protocol asks).
pub fn main() -> i32 {
    crate::with_big_stack(|| {
        let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
        let mut server = Server::new();
        server.serve(&mut stdin.lock(), &mut stdout.lock())
    })
}

/// An open document and the syntax tree completion and hover read, with the text it was
/// parsed from (see `Server::check` for which tree that is).
struct Open {
    doc: Document,
    tree: Option<crate::syntax::ast::Block>,
    tree_text: String,
}

/// The server's state: the open documents and an interpreter for the builtins' names and help.
pub struct Server {
    session: Session,
    docs: HashMap<String, Open>,
    /// The position encoding agreed at `initialize`.
    encoding: Encoding,
    initialized: bool,
    shutdown: bool,
}

impl Default for Server {
    fn default() -> Self {
        Self::new()
    }
}

impl Server {
    pub fn new() -> Server {
        // What a stdlib module prints while loading goes nowhere, never into the protocol's stream.
        let session = Session::new(std::rc::Rc::new(std::cell::RefCell::new(std::io::sink())));
        Server { session, docs: HashMap::new(), encoding: Encoding::default(), initialized: false, shutdown: false }
    }

    /// Reads and answers messages until `exit` or the end of `input`; returns the exit status.
    pub fn serve(&mut self, input: &mut impl BufRead, output: &mut impl Write) -> i32 {
        loop {
            let frame = match transport::read(input) {
                Ok(f) => f,
                Err(e) => {
                    eprintln_quiet(&format!("dgl lsp: cannot read the input: {e}"));
                    return 1;
                }
            };
            let replies = match frame {
                transport::Frame::Eof => return self.exit_status(),
                transport::Frame::Malformed(why) => {
                    eprintln_quiet(&format!("dgl lsp: {why}"));
                    if transport::write_parse_error(output, &why).is_err() {
                        return 1;
                    }
                    continue;
                }
                transport::Frame::Message(Message::Notification(n)) if n.method == "exit" => return self.exit_status(),
                transport::Frame::Message(m) => self.handle(m),
            };
            for reply in replies {
                if transport::write(output, reply).is_err() {
                    return 1;
                }
            }
        }
    }

    fn exit_status(&self) -> i32 {
        if self.shutdown {
            0
        } else {
            1
        }
    }

    /// The messages that answer `msg` (a response, diagnostics to publish, or nothing).
    fn handle(&mut self, msg: Message) -> Vec<Message> {
        match msg {
            Message::Request(req) => {
                let id = req.id.clone();
                let method = req.method.clone();
                match std::panic::catch_unwind(AssertUnwindSafe(|| self.request(req))) {
                    Ok(Ok(value)) => vec![Message::Response(Response { id, result: Some(value), error: None })],
                    Ok(Err((code, message))) => vec![Message::Response(Response::new_err(id, code as i32, message))],
                    Err(_) => vec![Message::Response(Response::new_err(
                        id,
                        ErrorCode::InternalError as i32,
                        format!("internal error while answering {method}; this is a bug in dgl"),
                    ))],
                }
            }
            Message::Notification(n) => {
                let method = n.method.clone();
                match std::panic::catch_unwind(AssertUnwindSafe(|| self.notification(n))) {
                    Ok(out) => out,
                    Err(_) => {
                        eprintln_quiet(&format!("dgl lsp: internal error while handling {method}"));
                        vec![]
                    }
                }
            }
            // The server sends no requests, so a response answers nothing.
            Message::Response(_) => vec![],
        }
    }

    fn request(&mut self, req: Request) -> Result<serde_json::Value, (ErrorCode, String)> {
        if req.method == "initialize" {
            if self.initialized {
                return Err((ErrorCode::InvalidRequest, "the server is already initialized".into()));
            }
            // Parameters the server cannot read leave the protocol's defaults.
            let offered = serde_json::from_value::<lsp_types::InitializeParams>(req.params)
                .ok()
                .and_then(|p| p.capabilities.general)
                .and_then(|g| g.position_encodings);
            self.encoding = Encoding::negotiate(offered.as_deref());
            self.initialized = true;
            return Ok(serde_json::json!({
                "capabilities": capabilities(self.encoding),
                "serverInfo": { "name": "dgl", "version": env!("CARGO_PKG_VERSION") },
            }));
        }
        if !self.initialized {
            return Err((ErrorCode::ServerNotInitialized, format!("{} before initialize", req.method)));
        }
        if self.shutdown {
            return Err((ErrorCode::InvalidRequest, format!("{} after shutdown", req.method)));
        }
        let to_json = |v: serde_json::Result<serde_json::Value>| {
            v.map_err(|e| (ErrorCode::InternalError, format!("cannot encode the result: {e}")))
        };
        match req.method.as_str() {
            "shutdown" => {
                self.shutdown = true;
                Ok(serde_json::Value::Null)
            }
            Completion::METHOD => {
                let p: CompletionParams = serde_json::from_value(req.params).map_err(|e| bad_params(&req.method, e))?;
                to_json(serde_json::to_value(self.completion(p)))
            }
            HoverRequest::METHOD => {
                let p: HoverParams = serde_json::from_value(req.params).map_err(|e| bad_params(&req.method, e))?;
                to_json(serde_json::to_value(self.hover(p)))
            }
            other => Err((ErrorCode::MethodNotFound, format!("unknown method {other}"))),
        }
    }

    fn notification(&mut self, n: Notification) -> Vec<Message> {
        if !self.initialized {
            return vec![]; // dropped, as the protocol says of notifications before initialize
        }
        let decoded = match n.method.as_str() {
            DidOpenTextDocument::METHOD => serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
                .map(|p| self.open(p.text_document.uri, p.text_document.text, p.text_document.version)),
            DidChangeTextDocument::METHOD => serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params)
                .map(|p| {
                    let key = p.text_document.uri.as_str().to_string();
                    match self.docs.get_mut(&key) {
                        Some(open) => {
                            open.doc.apply(p.content_changes, p.text_document.version);
                            self.check(&p.text_document.uri)
                        }
                        None => vec![],
                    }
                }),
            DidCloseTextDocument::METHOD => serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                .map(|p| {
                    self.docs.remove(p.text_document.uri.as_str());
                    vec![publish(p.text_document.uri, vec![], None)]
                }),
            // `initialized`, `$/cancelRequest`, `workspace/didChangeConfiguration`, …: nothing to do.
            _ => Ok(vec![]),
        };
        decoded.unwrap_or_else(|e| {
            eprintln_quiet(&format!("dgl lsp: bad parameters for {}: {e}", n.method));
            vec![]
        })
    }

    fn open(&mut self, uri: Uri, text: String, version: i32) -> Vec<Message> {
        let key = uri.as_str().to_string();
        self.docs.insert(
            key,
            Open { doc: Document::new(text, version, self.encoding), tree: None, tree_text: String::new() },
        );
        self.check(&uri)
    }

    /// Parses the document at `uri` and publishes its syntax errors (none clears them).
    ///
    /// Completion and hover keep serving a document with syntax errors. They read the tree
    /// the parser's recovery makes of the current text (the bad statements left out, every
    /// span the document's), so names bound by the good statements, before and after an
    /// error, are known at their true offsets. When the layout pass fails (a bad character,
    /// an unclosed bracket or string, bad indentation) there are no tokens to recover from:
    /// the lines holding those errors are blanked (same byte length, so the spans stay the
    /// document's) and the text parsed again, a few rounds at most. Only when that too
    /// fails does the server keep the last tree that parsed, with its own text (its offsets
    /// may then be off where the document changed since; it only ever names what the
    /// document once bound).
    fn check(&mut self, uri: &Uri) -> Vec<Message> {
        let Some(open) = self.docs.get_mut(uri.as_str()) else { return vec![] };
        let (errors, recovered) = parse_recovering(&open.doc.text);
        if let Some((tree, text)) = recovered {
            open.tree = Some(tree);
            open.tree_text = text;
        }
        let diagnostics = errors
            .into_iter()
            .map(|e| Diagnostic {
                range: open.doc.range(e.span.start as usize, e.span.end as usize),
                severity: Some(DiagnosticSeverity::ERROR),
                source: Some("dgl".into()),
                message: format!("SyntaxError: {}", e.message),
                ..Diagnostic::default()
            })
            .collect();
        vec![publish(uri.clone(), diagnostics, Some(open.doc.version))]
    }

    fn completion(&mut self, p: CompletionParams) -> Option<CompletionResponse> {
        let pos = p.text_document_position;
        let Server { session, docs, .. } = self;
        let open = docs.get(pos.text_document.uri.as_str())?;
        let offset = open.doc.offset(pos.position);
        // The dotted name before the cursor (`nn.De` of `nn.De|`).
        let (start, _) = open.doc.run_around(offset, |c| is_word_char(c) || c == '.');
        let word = &open.doc.text[start..offset];
        let mut items: Vec<CompletionItem> = match word.rsplit_once('.') {
            Some((obj, partial)) => {
                let imports = open.tree.as_ref().map(symbols::imported_modules).unwrap_or_default();
                let made_by = match (&open.tree, obj.contains('.')) {
                    (Some(tree), false) => symbols::constructor_of(tree, obj, offset),
                    _ => None,
                };
                let value = match made_by {
                    Some(f) => sample(session, &f),
                    None => resolve(session, obj, &imports),
                };
                let Some(v) = value else { return Some(CompletionResponse::Array(vec![])) };
                crate::help::dir_names(&session.rt, &v)
                    .into_iter()
                    .filter(|a| a.starts_with(partial) && !a.starts_with("__"))
                    .map(|a| item(a, CompletionItemKind::FIELD))
                    .collect()
            }
            None => {
                let own = open.tree.as_ref().map(|t| symbols::names_in_scope(t, offset)).unwrap_or_default();
                let keywords = KEYWORDS.iter().map(|k| item(k.to_string(), CompletionItemKind::KEYWORD));
                let builtins =
                    session.rt.builtins.keys().map(|k| item(k.name().to_string(), CompletionItemKind::FUNCTION));
                let own = own.into_iter().map(|n| item(n, CompletionItemKind::VARIABLE));
                own.chain(keywords).chain(builtins).filter(|i| i.label.starts_with(word)).collect()
            }
        };
        // One item per name, the document's own first (it shadows a builtin).
        let mut seen = std::collections::HashSet::new();
        items.retain(|i| seen.insert(i.label.clone()));
        items.sort_by(|a, b| a.label.cmp(&b.label));
        Some(CompletionResponse::Array(items))
    }

    fn hover(&mut self, p: HoverParams) -> Option<Hover> {
        let pos = p.text_document_position_params;
        let Server { session, docs, .. } = self;
        let open = docs.get(pos.text_document.uri.as_str())?;
        let offset = open.doc.offset(pos.position);
        let text = &open.doc.text;
        // The dotted name up to the end of the identifier under the cursor: `nn.Dense` on
        // `Dense`, `nn` on `nn`.
        let (start, _) = open.doc.run_around(offset, |c| is_word_char(c) || c == '.');
        let (_, end) = open.doc.run_around(offset, is_word_char);
        let word = text[start..end].trim_matches('.');
        if word.is_empty() || word.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let range = Some(open.doc.range(start, end));
        let own = match (&open.tree, word.contains('.')) {
            (Some(tree), false) => symbols::hover_text(tree, &open.tree_text, word, offset),
            _ => None,
        };
        let imports = open.tree.as_ref().map(symbols::imported_modules).unwrap_or_default();
        let value = match own {
            Some(markdown) => markdown,
            None => help(session, word, &imports)?,
        };
        if value.trim().is_empty() {
            return None;
        }
        Some(Hover { contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value }), range })
    }
}

/// How many times lines holding layout errors are blanked before the server gives up on
/// a tree for the current text.
const BLANKING_ROUNDS: usize = 8;

/// The syntax errors of `text` (as `dgl check` reports them), and a tree for completion
/// and hover with the text it was parsed from (`Server::check` says which).
fn parse_recovering(text: &str) -> (Vec<crate::syntax::SyntaxError>, Option<(crate::syntax::ast::Block, String)>) {
    let (tree, errors) = crate::syntax::parse_module_recovering(text);
    if let Some(tree) = tree {
        return (errors, Some((tree, text.to_string())));
    }
    let mut blanked = text.to_string();
    let mut round_errors = errors.clone();
    for _ in 0..BLANKING_ROUNDS {
        if round_errors.is_empty() {
            break;
        }
        for e in &round_errors {
            blanked = blank_lines(&blanked, e.span.start as usize, e.span.end as usize);
        }
        let (tree, next) = crate::syntax::parse_module_recovering(&blanked);
        if let Some(tree) = tree {
            return (errors, Some((tree, blanked)));
        }
        round_errors = next;
    }
    (errors, None)
}

/// `text` with every line that bytes `start..end` touch made spaces (its terminator kept),
/// byte for byte, so every other offset still means the same place.
fn blank_lines(text: &str, start: usize, end: usize) -> String {
    let bytes = text.as_bytes();
    let start = start.min(bytes.len());
    let end = end.clamp(start, bytes.len());
    let ends_line = |b: &u8| *b == b'\n' || *b == b'\r';
    let from = bytes[..start].iter().rposition(ends_line).map_or(0, |i| i + 1);
    let to = bytes[end..].iter().position(ends_line).map_or(bytes.len(), |i| end + i);
    let mut out = bytes.to_vec();
    for b in &mut out[from..to] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
    // Whole characters were replaced by ASCII spaces, so the bytes are still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// The help text (crate::help) of a builtin or stdlib dotted name.
fn help(session: &mut Session, word: &str, imports: &std::collections::BTreeMap<String, String>) -> Option<String> {
    if let Some(v) = resolve(session, word, imports) {
        return Some(crate::help::help_text(&mut session.rt, &v));
    }
    if let Some((obj, attr)) = word.rsplit_once('.') {
        if let Some(v) = resolve(session, obj, imports) {
            if let Some(h) = crate::help::attribute_help(&mut session.rt, &v, attr) {
                return Some(h);
            }
        }
    }
    // By name: `nn.Dense` under its module's own name, whatever the document calls it.
    let canonical = match word.split_once('.') {
        Some((first, rest)) => match imports.get(first) {
            Some(module) => format!("{module}.{rest}"),
            None => word.to_string(),
        },
        None => word.to_string(),
    };
    crate::help::lookup(&canonical)
}

/// The value of a dotted name without running the document: a module it imports
/// from DGL's standard library, or a builtin, then attributes of modules and classes.
fn resolve(session: &mut Session, dotted: &str, imports: &std::collections::BTreeMap<String, String>) -> Option<Value> {
    let (first, rest) = match dotted.split_once('.') {
        Some((f, r)) => (f, Some(r)),
        None => (dotted, None),
    };
    let Some(module) = imports.get(first) else { return session.lookup(dotted) };
    let mut v = Value::Module(session.rt.import_stdlib(module).ok()?);
    for part in rest.into_iter().flat_map(|r| r.split('.')) {
        v = crate::session::stored_attr(&v, crate::intern::intern(part))?;
    }
    Some(v)
}

/// Builtins whose result is a tensor, for completing `x.` after `x = constant(…)`.
const TENSOR_MAKERS: &[&str] = &[
    "constant",
    "convert_to_tensor",
    "zeros",
    "ones",
    "fill",
    "eye",
    "zeros_like",
    "ones_like",
    "range_tensor",
    "random_normal",
    "random_uniform",
    "truncated_normal",
    "matmul",
    "reshape",
    "transpose",
    "concat",
    "stack",
    "cast",
    "gather",
    "read_npy",
];

/// A value of the kind `constructor` makes, made by the server with fixed arguments (never
/// the document's): a tape, a Variable or a tensor, whose attributes completion lists.
fn sample(session: &mut Session, constructor: &str) -> Option<Value> {
    let builtin = |session: &Session, name: &str| session.rt.builtins.get(&crate::intern::intern(name)).cloned();
    let (maker, args) = match constructor {
        "GradientTape" => ("GradientTape", vec![]),
        "Variable" => ("Variable", vec![Value::Float(0.0)]),
        c if TENSOR_MAKERS.contains(&c) || c.starts_with("reduce_") => ("constant", vec![Value::Float(0.0)]),
        _ => return None,
    };
    let f = builtin(session, maker)?;
    session.rt.call_value(&f, args, vec![]).ok()
}

/// What the server offers: full text sync, completion after `.`, hover, positions in `encoding`.
pub fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into()]),
            ..CompletionOptions::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        ..ServerCapabilities::default()
    }
}

fn bad_params(method: &str, e: serde_json::Error) -> (ErrorCode, String) {
    (ErrorCode::InvalidParams, format!("bad parameters for {method}: {e}"))
}

fn publish(uri: Uri, diagnostics: Vec<Diagnostic>, version: Option<i32>) -> Message {
    let params = PublishDiagnosticsParams { uri, diagnostics, version };
    Message::Notification(Notification::new(PublishDiagnostics::METHOD.to_string(), params))
}

fn item(label: String, kind: CompletionItemKind) -> CompletionItem {
    CompletionItem { label, kind: Some(kind), ..CompletionItem::default() }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// A line on stderr, the server's log (clients show it); a failure to write it is ignored.
fn eprintln_quiet(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}
