//! Statements to Python lines, with the source's comments kept where they stood and the
//! statements `--drop-inspection` leaves out replaced by a comment.

use super::expr::py_str;
use super::Exporter;
use crate::syntax::ast::*;

/// CPython's limits on statement nesting, which DGL does not share.
const MAX_PYTHON_INDENT: usize = 100;
const MAX_PYTHON_BLOCKS: usize = 20;

impl Exporter<'_> {
    /// Emits a block at the current indentation (`pass` when nothing of it is left).
    pub fn block(&mut self, body: &[Stmt]) {
        let before = self.code_lines;
        for s in body {
            self.stmt(s);
        }
        if self.code_lines == before {
            self.line("pass");
        }
    }

    /// Emits one line of code at the current indentation.
    pub fn line(&mut self, text: &str) {
        let pad = "    ".repeat(self.indent);
        for (i, l) in text.lines().enumerate() {
            if i == 0 || !l.is_empty() {
                self.out.push_str(&pad);
            }
            self.out.push_str(l);
            self.out.push('\n');
        }
        self.code_lines += 1;
    }

    pub(super) fn comment_line(&mut self, text: &str) {
        let pad = "    ".repeat(self.indent);
        self.out.push_str(&format!("{pad}{text}\n"));
    }

    /// The comments that stand before byte `pos`, not yet written, each on its own line.
    pub(super) fn comments_before(&mut self, pos: u32) {
        while let Some(c) = self.comments.get(self.next_comment) {
            if c.pos >= pos {
                break;
            }
            self.next_comment += 1;
            if c.blank_before && !self.out.is_empty() && !self.out.ends_with("\n\n") {
                self.out.push('\n');
            }
            let text = c.text.clone();
            self.comment_line(&text);
        }
    }

    /// The comments inside `span` (a simple statement's own lines), appended to its last
    /// emitted line.
    fn comments_within(&mut self, span: crate::source::Span) {
        let mut trailing = vec![];
        while let Some(c) = self.comments.get(self.next_comment) {
            if c.pos >= self.line_end(span.end) {
                break;
            }
            self.next_comment += 1;
            trailing.push(c.text.clone());
        }
        if !trailing.is_empty() {
            self.out.pop();
            self.out.push_str(&format!("  {}\n", trailing.join(" ")));
        }
    }

    /// The byte offset of the end of the line holding `pos`.
    fn line_end(&self, pos: u32) -> u32 {
        let rest = &self.src[(pos as usize).min(self.src.len())..];
        pos + rest.find('\n').unwrap_or(rest.len()) as u32
    }

    /// The first line of a statement's source text.
    fn first_line(&self, s: &Stmt) -> String {
        let text = &self.src[s.span.start as usize..s.span.end as usize];
        text.lines().next().unwrap_or("").trim().to_string()
    }

    pub fn stmt(&mut self, s: &Stmt) {
        self.comments_before(s.span.start);
        if super::blank_line_before(self.src, s.span.start as usize)
            && !self.out.is_empty()
            && !self.out.ends_with("\n\n")
            && !self.out.ends_with(":\n")
        {
            self.out.push('\n');
        }
        if self.dropped.contains(&s.span.start) {
            let text = format!("# left out by --drop-inspection: {}", self.first_line(s));
            self.comment_line(&text);
            self.skip_comments_within(s.span);
            return;
        }
        if self.distributed_stmt(s) {
            self.comments_within(s.span);
            return;
        }
        match &s.kind {
            StmtKind::Expr(e) => {
                let t = self.expr(e);
                self.line(&t);
            }
            StmtKind::Assign(targets, value) => {
                let mut t: Vec<String> = targets.iter().map(|x| self.target(x)).collect();
                t.push(self.expr(value));
                self.line(&t.join(" = "));
            }
            StmtKind::AugAssign(target, op, value) => {
                let t = self.target(target);
                let v = self.expr(value);
                self.line(&format!("{t} {}= {v}", op.symbol()));
            }
            StmtKind::If(arms, orelse) => {
                for (i, (cond, body)) in arms.iter().enumerate() {
                    let c = self.expr(cond);
                    self.line(&format!("{} {c}:", if i == 0 { "if" } else { "elif" }));
                    self.indented(body);
                }
                if let Some(b) = orelse {
                    self.line("else:");
                    self.indented(b);
                }
                return;
            }
            StmtKind::While(cond, body, orelse) => {
                let c = self.expr(cond);
                self.line(&format!("while {c}:"));
                self.in_blocks(1, s.span, body);
                self.else_block(orelse);
                return;
            }
            StmtKind::For(target, iter, body, orelse) => {
                let t = self.target(target);
                let i = self.expr(iter);
                self.line(&format!("for {t} in {i}:"));
                self.in_blocks(1, s.span, body);
                self.else_block(orelse);
                return;
            }
            StmtKind::Break => self.line("break"),
            StmtKind::Continue => self.line("continue"),
            StmtKind::Pass => self.line("pass"),
            StmtKind::Return(None) => self.line("return"),
            StmtKind::Return(Some(x)) => {
                let t = match &x.kind {
                    ExprKind::Tuple(items) if items.len() > 1 => {
                        items.iter().map(|i| self.expr(i)).collect::<Vec<_>>().join(", ")
                    }
                    _ => self.expr(x),
                };
                self.line(&format!("return {t}"));
            }
            // A function or class body is a code object of its own, with its own blocks.
            StmtKind::Def(def) => {
                let outer = std::mem::take(&mut self.static_blocks);
                self.def(def);
                self.static_blocks = outer;
                return;
            }
            StmtKind::Class(c) => {
                let outer = std::mem::take(&mut self.static_blocks);
                self.class(c);
                self.static_blocks = outer;
                return;
            }
            StmtKind::With(items, body) => {
                let parts: Vec<String> = items
                    .iter()
                    .map(|(ctx, t)| match t {
                        Some(t) => format!("{} as {}", self.expr(ctx), self.target(t)),
                        None => self.expr(ctx),
                    })
                    .collect();
                self.line(&format!("with {}:", parts.join(", ")));
                self.in_blocks(items.len(), s.span, body);
                return;
            }
            StmtKind::Import(items) => {
                for (path, alias, _) in items {
                    let path: Vec<String> = path.iter().map(|p| p.name().to_string()).collect();
                    if let Some(module) = super::foreign_module(&path.join(".")) {
                        // DGL binds TF's names to its own values: each use is exported as
                        // that value is (so `tf.keras.layers.Dense` draws as DGL's does).
                        let bound = alias.as_ref().map(|a| a.name().to_string()).unwrap_or_else(|| path[0].clone());
                        let module =
                            if alias.is_none() { super::foreign_module(&path[0]).unwrap_or(module) } else { module };
                        let tf = module.starts_with("tensorflow");
                        self.foreign_modules.insert(bound, module);
                        let text = format!("# {}: its names become DGL's own below", self.first_line(s));
                        self.comment_line(&text);
                        if tf {
                            // From here on dtypes print as TF prints them, as in DGL (docs/language.md §6).
                            self.line("dgl_tf.tf_dtypes()");
                        }
                        continue;
                    }
                    let line = self.import_line(&path, alias.as_ref().map(|a| a.name().to_string()), s.span);
                    self.line(&line);
                }
            }
            StmtKind::FromImport(path, items)
                if super::foreign_module(&path.iter().map(|p| p.name().to_string()).collect::<Vec<_>>().join("."))
                    .is_some() =>
            {
                let joined = path.iter().map(|p| p.name().to_string()).collect::<Vec<_>>().join(".");
                let module = super::foreign_module(&joined).unwrap_or(joined);
                let lib = super::foreign_library(&module);
                for (n, alias, _, _) in items {
                    let bound = alias.as_ref().unwrap_or(n).name().to_string();
                    let child = format!("{module}.{}", n.name());
                    if lib.modules().contains(&child.as_str()) {
                        self.foreign_modules.insert(bound, child);
                    } else if let Some(entry) = lib.entries(&module).find(|e| e.name == &*n.name()) {
                        self.foreign_values.insert(bound, entry.source.to_string());
                    }
                }
                let text = format!("# {}: its names become DGL's own below", self.first_line(s));
                self.comment_line(&text);
                if module.starts_with("tensorflow") {
                    self.line("dgl_tf.tf_dtypes()");
                }
            }
            StmtKind::FromImport(path, items) => {
                let path: Vec<String> = path.iter().map(|p| p.name().to_string()).collect();
                let module = self.module_path(&path, s.span);
                let names: Vec<String> = items
                    .iter()
                    .map(|(n, alias, _, _)| match alias {
                        Some(a) => format!("{} as {}", n.name(), a.name()),
                        None => n.name().to_string(),
                    })
                    .collect();
                self.line(&format!("from {module} import {}", names.join(", ")));
            }
            StmtKind::Assert(cond, msg) => {
                let c = self.expr(cond);
                match msg {
                    Some(m) => {
                        let m = self.expr(m);
                        self.line(&format!("assert {c}, {m}"));
                    }
                    None => self.line(&format!("assert {c}")),
                }
            }
            StmtKind::Raise(None) => self.line("raise"),
            StmtKind::Raise(Some(x)) => {
                let t = self.expr(x);
                self.line(&format!("raise {t}"));
            }
            StmtKind::Try { body, handlers, orelse, finally } => {
                self.line("try:");
                self.in_blocks(1, s.span, body);
                for h in handlers {
                    self.comments_before(h.span.start);
                    if let Some(n) = &h.name {
                        if super::inspect::block_reads(&h.body, &n.name()) {
                            self.refuse(
                                h.span,
                                format!("the text of a caught error (`{}`)", n.name()),
                                "TF raises its own errors (tf.errors.*, ValueError, ...) with other messages than DGL's, so what the handler shows would differ".into(),
                            );
                        }
                    }
                    let head = match (&h.kind, &h.name) {
                        (Some(k), Some(n)) => {
                            format!("except {} as {}:", self.except_kind(k), self.local_name(&n.name()))
                        }
                        (Some(k), None) => format!("except {}:", self.except_kind(k)),
                        _ => "except:".to_string(),
                    };
                    self.line(&head);
                    self.in_blocks(2, h.span, &h.body);
                }
                self.else_block(orelse);
                if let Some(f) = finally {
                    self.line("finally:");
                    self.in_blocks(1, s.span, f);
                }
                return;
            }
            StmtKind::Global(ns) => {
                let n: Vec<String> = ns.iter().map(|n| self.local_name(&n.name())).collect();
                self.line(&format!("global {}", n.join(", ")));
            }
            StmtKind::Nonlocal(ns) => {
                let n: Vec<String> = ns.iter().map(|n| self.local_name(&n.name())).collect();
                self.line(&format!("nonlocal {}", n.join(", ")));
            }
            StmtKind::Del(targets) => {
                let t: Vec<String> = targets.iter().map(|x| self.target(x)).collect();
                self.line(&format!("del {}", t.join(", ")));
            }
        }
        self.comments_within(s.span);
    }

    fn skip_comments_within(&mut self, span: crate::source::Span) {
        let end = self.line_end(span.end);
        while self.comments.get(self.next_comment).is_some_and(|c| c.pos < end) {
            self.next_comment += 1;
        }
    }

    /// The exception kinds of an `except` clause. TF reports a bad argument to an op as
    /// `tf.errors.InvalidArgumentError` where DGL raises ValueError, ShapeError, IndexError or
    /// TypeError, so a clause catching one of those catches TF's too.
    fn except_kind(&mut self, k: &Expr) -> String {
        let catches_args = |e: &Expr| matches!(&e.kind, ExprKind::Name(n, _) if matches!(&*n.name(), "ValueError" | "ShapeError" | "IndexError" | "TypeError"));
        let kinds = match &k.kind {
            ExprKind::Tuple(items) => items.as_slice(),
            _ => std::slice::from_ref(k),
        };
        if !kinds.iter().any(catches_args) {
            return self.expr(k);
        }
        let mut texts: Vec<String> = kinds.iter().map(|e| self.expr(e)).collect();
        texts.push("tf.errors.InvalidArgumentError".into());
        format!("({})", texts.join(", "))
    }

    pub(super) fn indented(&mut self, body: &[Stmt]) {
        self.indent += 1;
        // CPython's tokenizer allows 100 levels of indentation ("too many levels of
        // indentation"); DGL has no such limit.
        if self.indent == MAX_PYTHON_INDENT {
            if let Some(first) = body.first() {
                self.refuse(
                    first.span,
                    format!("blocks nested {MAX_PYTHON_INDENT} deep"),
                    "Python allows 99 levels of indentation; move the inner blocks into functions".into(),
                );
            }
        }
        self.block(body);
        self.indent -= 1;
    }

    /// `body` indented, inside `n` more of the blocks CPython's compiler counts per function
    /// (loops, `with` items, `try` and its handlers): more than 20 is "too many statically
    /// nested blocks", which DGL does not limit.
    fn in_blocks(&mut self, n: usize, at: crate::source::Span, body: &[Stmt]) {
        self.static_blocks += n;
        if self.static_blocks > MAX_PYTHON_BLOCKS && self.static_blocks - n <= MAX_PYTHON_BLOCKS {
            self.refuse(
                at,
                format!("more than {MAX_PYTHON_BLOCKS} loop, with and try blocks nested in one function"),
                "Python's compiler allows 20 (\"too many statically nested blocks\"); move the inner ones into a function".into(),
            );
        }
        self.indented(body);
        self.static_blocks -= n;
    }

    pub(super) fn else_block(&mut self, orelse: &Option<Block>) {
        if let Some(b) = orelse {
            self.line("else:");
            self.indented(b);
        }
    }

    fn decorators(&mut self, decorators: &[Expr]) {
        for d in decorators {
            let t = self.expr(d);
            self.line(&format!("@{t}"));
        }
    }

    fn docstring(&mut self, doc: &Option<std::rc::Rc<str>>) {
        if let Some(d) = doc {
            if d.contains('\n') && !d.contains("\"\"\"") && !d.contains('\\') {
                let pad = "    ".repeat(self.indent);
                let body: Vec<String> = d
                    .lines()
                    .enumerate()
                    .map(|(i, l)| if i == 0 || l.is_empty() { l.to_string() } else { format!("{pad}{l}") })
                    .collect();
                self.line(&format!("\"\"\"{}\n{pad}\"\"\"", body.join("\n")));
            } else {
                self.line(&py_str(d));
            }
        }
    }

    pub(super) fn def(&mut self, def: &FuncDef) {
        // Under --distribute the step is written undecorated, as the per-replica function.
        let rename = self.def_rename.take();
        if rename.is_none() {
            self.decorators(&def.decorators);
        }
        let scope = super::scope::function_scope(def);
        // Defaults are evaluated where the def stands.
        let params = self.params(&def.params);
        self.push_scope(scope);
        self.fn_depth += 1;
        let name = rename.unwrap_or_else(|| self.local_name(&def.name.name()));
        self.line(&format!("def {name}({params}):"));
        self.indent += 1;
        self.docstring(&def.doc);
        let before = self.code_lines;
        for s in &def.body {
            self.stmt(s);
        }
        if self.code_lines == before && def.doc.is_none() {
            self.line("pass");
        }
        self.indent -= 1;
        self.fn_depth -= 1;
        self.pop_scope();
    }

    fn class(&mut self, c: &ClassDef) {
        self.decorators(&c.decorators);
        let head = match &c.base {
            Some(b) => format!("class {}({}):", c.name.name(), self.expr(b)),
            None => format!("class {}:", c.name.name()),
        };
        self.line(&head);
        self.push_class_scope(super::scope::class_scope(c));
        self.class_depth += 1;
        self.indent += 1;
        self.docstring(&c.doc);
        let before = self.code_lines;
        for s in &c.body {
            self.stmt(s);
        }
        if self.code_lines == before && c.doc.is_none() {
            self.line("pass");
        }
        self.indent -= 1;
        self.class_depth -= 1;
        self.pop_scope();
    }
}
