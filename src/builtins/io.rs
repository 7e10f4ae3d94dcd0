//! Files and console input: `open(path, mode='r', encoding=None)`,
//! the methods of file objects, and `input(prompt='')`. Files are UTF-8 text
//! (runtime/file.rs); a relative path is relative to the running script's
//! folder, as for `read_csv` (docs/language.md §4).

use super::{Native, NO_ARGS};
use crate::error::R;
use crate::runtime::file::{FileObj, Stream};
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use crate::{bail, err};
use std::rc::Rc;

pub fn register(reg: &mut impl FnMut(&'static Native)) {
    reg(&OPEN);
    reg(&INPUT);
    reg(&DISPLAY);
}

static DISPLAY: Native = Native::new("display", &["*values"], display);

/// `display(*values)`: shows each value. In a notebook it is a rich output of the cell (a
/// figure as its picture: the value's `_repr_svg_`/`_repr_png_`/`_repr_html_`, IPython's
/// protocol); elsewhere `repr(value)` on a line of its own. Returns None.
/// See: IPython's `display`.
fn display(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let a = DISPLAY.bind(rt, args)?;
    let values = a.rest;
    for v in &values {
        match rt.display_hook() {
            Some(hook) => hook(rt, v)?,
            None => {
                let text = rt.repr_of(v)?;
                rt.write_out(&format!("{text}\n"))?;
            }
        }
    }
    Ok(Value::None)
}

static OPEN: Native =
    Native::new("open", &["file", "mode='r'", "buffering=-1", "encoding=None", "errors=None", "newline=None"], open)
        // DGL's semantics, carried by the support module (dgl_tf.py).
        .exported_as("dgl_tf.open");

/// `open(file, mode='r', buffering=-1, encoding=None, errors=None, newline=None)`:
/// a text file object. Modes: `'r'` read, `'w'` write (truncating), `'a'` append,
/// `'x'` create (an error if the file exists); a `'t'` may follow. `encoding` must
/// be UTF-8 (or None); `buffering`, `errors` and `newline` are accepted and ignored.
/// A relative path is relative to the running script's folder (docs/language.md §4).
/// The file closes at the end of a `with` block, on `close()`, or when no longer referenced.
///
/// Errors: IOError "cannot open 'x.txt': No such file or directory (os error 2)" (the
/// OS's reason); ValueError "invalid mode: 'rb'" for binary, `+` and unknown modes;
/// ValueError for an encoding other than UTF-8.
/// See: Python's `open`.
fn open(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = OPEN.bind(rt, args)?;
    let path = match a.value("file")? {
        Value::Str(s) => s,
        other => bail!(Type, "expected str for the file path, not {}", other.type_name()),
    };
    let mode = match a.opt("mode")? {
        None => Rc::<str>::from("r"),
        Some(Value::Str(m)) => m.into(),
        Some(other) => bail!(Type, "open() argument 'mode' must be str, not {}", other.type_name()),
    };
    match a.non_none("encoding")? {
        None => {}
        Some(Value::Str(e)) if matches!(e.to_ascii_lowercase().as_str(), "utf-8" | "utf8" | "utf_8") => {}
        Some(Value::Str(e)) => bail!(Value, "DGL files are UTF-8 only, not encoding '{e}'"),
        Some(other) => bail!(Type, "open() argument 'encoding' must be str or None, not {}", other.type_name()),
    }
    let _ = (a.opt("buffering")?, a.opt("errors")?, a.opt("newline")?);
    let kind = mode.strip_suffix('t').unwrap_or(&mode);
    if path.is_empty() {
        bail!(IO, "cannot open '': No such file or directory (os error 2)");
    }
    let full = rt.resolve_path(&path);
    let fail = |e: std::io::Error| err!(IO, "cannot open '{path}': {e}");
    let mut opts = std::fs::OpenOptions::new();
    let stream = match kind {
        "r" => {
            if full.is_dir() {
                bail!(IO, "cannot open '{path}': Is a directory (os error 21)");
            }
            Stream::Read(std::io::BufReader::new(opts.read(true).open(&full).map_err(fail)?))
        }
        "w" | "a" | "x" => {
            match kind {
                "w" => opts.write(true).create(true).truncate(true),
                "a" => opts.append(true).create(true),
                _ => opts.write(true).create_new(true),
            };
            Stream::Write(std::io::BufWriter::new(opts.open(&full).map_err(fail)?))
        }
        _ => bail!(
            Value,
            "invalid mode: {} (DGL files are text, opened with 'r', 'w', 'a' or 'x')",
            crate::runtime::format::str_repr(&mode)
        ),
    };
    Ok(Value::File(Rc::new(FileObj::new(&path, kind, stream))))
}

static INPUT: Native = Native::new("input", &["prompt=''"], input);

/// `input(prompt='')`: writes the prompt, then reads one line from stdin without its newline.
///
/// Errors: EOFError "EOF when reading a line" at the end of the input; IOError when
/// stdin cannot be read.
fn input(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let prompt = INPUT.bind(rt, args)?.opt("prompt")?;
    if let Some(p) = prompt {
        let text = rt.str_of(&p)?;
        rt.write_out(&text)?;
        let _ = rt.out.borrow_mut().flush();
    }
    let mut line = String::new();
    let n = std::io::stdin().read_line(&mut line).map_err(|e| err!(IO, "cannot read stdin: {e}"))?;
    if n == 0 {
        bail!(EOF, "EOF when reading a line");
    }
    if line.ends_with('\n') {
        line.pop();
        if line.ends_with('\r') {
            line.pop();
        }
    }
    Ok(Value::str(&line))
}

/// The file a method is bound to.
fn this_file(a: &Args) -> R<Rc<FileObj>> {
    match &a.this {
        Some(Value::File(f)) => Ok(f.clone()),
        _ => bail!(Runtime, "internal error: a file method bound to something else"),
    }
}

pub(super) static FILE_READ: Native = Native::new("read", &["size: int | None = -1"], file_read);

/// `f.read(size=-1)`: the rest of the file, or at most `size` characters.
pub(super) fn file_read(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let f = this_file(args)?;
    let size = FILE_READ.bind(rt, args)?.opt_int("size")?;
    let n = size.filter(|&n| n >= 0).map(|n| n as usize);
    Ok(Value::str(&f.read(n)?))
}

pub(super) static FILE_READLINE: Native = Native::with("readline", NO_ARGS, file_readline);

/// `f.readline()`: the next line with its `'\n'`, or `''` at the end of the file.
pub(super) fn file_readline(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let f = this_file(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::str(&f.readline()?))
}

pub(super) static FILE_READLINES: Native = Native::with("readlines", NO_ARGS, file_readlines);

/// `f.readlines()`: a list of the remaining lines, each with its `'\n'`.
pub(super) fn file_readlines(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let f = this_file(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::list(f.readlines()?.iter().map(|l| Value::str(l)).collect()))
}

pub(super) static FILE_WRITE: Native = Native::new("write", &["s"], file_write);

/// `f.write(s)`: writes the string; returns the number of characters written.
///
/// Errors: TypeError "write() argument must be str, not int"; ValueError on a closed
/// file; IOError when the OS refuses (a full disk), naming the path.
pub(super) fn file_write(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let f = this_file(args)?;
    let s = match FILE_WRITE.bind(rt, args)?.value("s")? {
        Value::Str(s) => s,
        other => bail!(Type, "write() argument must be str, not {}", other.type_name()),
    };
    Ok(Value::Int(rt.file_write(&f, &s)? as i64))
}

pub(super) static FILE_WRITELINES: Native = Native::new("writelines", &["lines"], file_writelines);

/// `f.writelines(lines)`: writes each string, adding no newlines (as Python).
pub(super) fn file_writelines(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let f = this_file(args)?;
    let lines = FILE_WRITELINES.bind(rt, args)?.value("lines")?;
    for line in rt.iterate(&lines)? {
        match line {
            Value::Str(s) => rt.file_write(&f, &s)?,
            other => bail!(Type, "write() argument must be str, not {}", other.type_name()),
        };
    }
    Ok(Value::None)
}

pub(super) static FILE_CLOSE: Native = Native::with("close", NO_ARGS, file_close);

/// `f.close()`: flushes and closes (again is harmless). Errors: IOError if the flush fails.
pub(super) fn file_close(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let f = this_file(args)?;
    NO_ARGS.bind(rt, args)?;
    f.close()?;
    Ok(Value::None)
}

pub(super) static FILE_FLUSH: Native = Native::with("flush", NO_ARGS, file_flush);

/// `f.flush()`: writes buffered text to the OS.
pub(super) fn file_flush(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let f = this_file(args)?;
    NO_ARGS.bind(rt, args)?;
    rt.file_flush(&f)?;
    Ok(Value::None)
}

pub(super) static FILE_ENTER: Native = Native::with("__enter__", NO_ARGS, file_enter);

/// `f.__enter__()`: the file itself (for `with` blocks written by hand).
pub(super) fn file_enter(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let f = this_file(args)?;
    NO_ARGS.bind(rt, args)?;
    Ok(Value::File(f))
}

/// `f.closed`, `f.name`, `f.mode`.
pub(super) fn file_attr(v: &Value, which: &str) -> Option<Value> {
    let Value::File(f) = v else { return None };
    Some(match which {
        "closed" => Value::Bool(f.closed()),
        "name" => Value::Str(f.name.clone().into()),
        _ => Value::Str(f.mode.clone().into()),
    })
}
