//! `import os` and `os.path`: the process's environment and the file-system calls the Keras and
//! TensorFlow guides make around saving (`os.path.exists`, `os.makedirs`, `os.listdir`,
//! `os.remove`, `os.path.join`), with CPython's results and error kinds. Relative paths are
//! resolved as every file DGL opens is (docs/language.md "Data files"): against the script's
//! folder, or the working folder in the REPL and notebook.

use crate::builtins::Native;
use crate::error::{ErrorKind, R};
use crate::runtime::value::{Args, Dict, Globals, HashKey, Module, Value};
use crate::runtime::Interp;
use crate::bail;
use std::path::Path;
use std::rc::Rc;

/// `os`'s functions (help entries `os.NAME`).
pub const FNS: &[&Native] = &[&GETCWD, &LISTDIR, &MAKEDIRS, &MKDIR, &REMOVE, &UNLINK, &RMDIR, &RENAME, &GETENV];

/// `os.path`'s functions (help entries `os.path.NAME`).
pub const PATH_FNS: &[&Native] =
    &[&EXISTS, &ISDIR, &ISFILE, &JOIN, &BASENAME, &DIRNAME, &SPLIT, &SPLITEXT, &ABSPATH, &GETSIZE, &EXPANDUSER];

/// The module's names and values: the functions, `environ` (a dict of the process's environment
/// when `os` was first imported; assigning to it changes what DGL's code reads, not the
/// process's), `sep`, `linesep`, `name`, and `path`, which is also importable as `os.path`.
pub fn build(rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    let path = Rc::new(Module::new("os.path", Rc::new(Globals::default()), None));
    for f in PATH_FNS {
        path.globals.set(crate::intern::intern(f.name), f.value());
    }
    path.globals.set(crate::intern::intern("sep"), Value::str("/"));
    rt.modules.insert("os.path".to_string(), path.clone());
    let mut environ = Dict::default();
    for (k, v) in std::env::vars() {
        let key: crate::text::Text = k.as_str().into();
        environ.insert(HashKey::Str(key.clone()), (Value::Str(key), Value::str(&v)));
    }
    let mut out: Vec<(&'static str, Value)> = FNS.iter().map(|b| (b.name, b.value())).collect();
    out.extend([
        ("environ", Value::Dict(Rc::new(std::cell::RefCell::new(environ)))),
        ("sep", Value::str("/")),
        ("linesep", Value::str("\n")),
        ("name", Value::str("posix")),
        ("path", Value::Module(path)),
    ]);
    Ok(out)
}

/// The path argument as text (a str; CPython also takes bytes and path objects).
fn text(v: Value, f: &str) -> R<String> {
    match v {
        Value::Str(s) => Ok(s.to_string()),
        other => bail!(Type, "{f}: path should be string, not {}", other.type_name()),
    }
}

/// The error CPython raises for a failed call on `path`: FileNotFoundError, FileExistsError,
/// IsADirectoryError, NotADirectoryError or PermissionError by the OS's error, else OSError.
fn os_error(e: std::io::Error, path: &str) -> crate::error::Exc {
    use std::io::ErrorKind as K;
    let kind = match e.kind() {
        K::NotFound => ErrorKind::FileNotFound,
        K::AlreadyExists => ErrorKind::FileExists,
        K::PermissionDenied => ErrorKind::Permission,
        K::IsADirectory => ErrorKind::IsADirectory,
        K::NotADirectory => ErrorKind::NotADirectory,
        _ => ErrorKind::IO,
    };
    let code = e.raw_os_error().unwrap_or(0);
    let what = e.to_string();
    let what = what.split(" (os error").next().unwrap_or(&what).to_string();
    crate::error::Exc::new(kind, format!("[Errno {code}] {what}: '{path}'"))
}

static GETCWD: Native = Native::new("getcwd", &[], getcwd);

/// `os.getcwd()`: the folder relative paths are resolved against, absolute.
fn getcwd(rt: &mut Interp, args: &mut Args) -> R<Value> {
    GETCWD.bind(rt, args)?;
    let here = rt.resolve_path(".");
    let here = std::fs::canonicalize(&here).unwrap_or(here);
    Ok(Value::str(&here.display().to_string()))
}

static LISTDIR: Native = Native::new("listdir", &["path='.'"], listdir);

/// `os.listdir(path='.')`: the names in the folder, sorted (CPython's order is the OS's).
fn listdir(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let path = text(LISTDIR.bind(rt, args)?.value_or("path", Value::str("."))?, "listdir")?;
    let entries = std::fs::read_dir(rt.resolve_path(&path)).map_err(|e| os_error(e, &path))?;
    let mut names: Vec<String> = entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into()).collect();
    names.sort();
    Ok(Value::list(names.iter().map(|n| Value::str(n)).collect()))
}

static MAKEDIRS: Native = Native::new("makedirs", &["name", "mode=511", "exist_ok: bool = False"], makedirs);

/// `os.makedirs(name, mode=0o777, exist_ok=False)`: makes the folder and its missing parents.
///
/// Errors: FileExistsError when it exists and `exist_ok` is False; OSError when it cannot be made.
fn makedirs(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut b = MAKEDIRS.bind(rt, args)?;
    let name = text(b.value("name")?, "makedirs")?;
    let exist_ok = b.bool_or("exist_ok", false)?;
    let full = rt.resolve_path(&name);
    if full.exists() {
        if exist_ok && full.is_dir() {
            return Ok(Value::None);
        }
        bail!(FileExists, "[Errno 17] File exists: '{name}'");
    }
    std::fs::create_dir_all(&full).map_err(|e| os_error(e, &name))?;
    Ok(Value::None)
}

static MKDIR: Native = Native::new("mkdir", &["path", "mode=511"], mkdir);

/// `os.mkdir(path)`: makes one folder.
///
/// Errors: FileExistsError when it exists; FileNotFoundError when its parent does not.
fn mkdir(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let path = text(MKDIR.bind(rt, args)?.value("path")?, "mkdir")?;
    std::fs::create_dir(rt.resolve_path(&path)).map_err(|e| os_error(e, &path))?;
    Ok(Value::None)
}

static REMOVE: Native = Native::new("remove", &["path"], remove);
static UNLINK: Native = Native::new("unlink", &["path"], remove);

/// `os.remove(path)`, `os.unlink(path)`: deletes a file.
///
/// Errors: FileNotFoundError when there is none; IsADirectoryError for a folder.
fn remove(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let path = text(REMOVE.bind(rt, args)?.value("path")?, "remove")?;
    let full = rt.resolve_path(&path);
    if full.is_dir() {
        bail!(IsADirectory, "[Errno 21] Is a directory: '{path}'");
    }
    std::fs::remove_file(full).map_err(|e| os_error(e, &path))?;
    Ok(Value::None)
}

static RMDIR: Native = Native::new("rmdir", &["path"], rmdir);

/// `os.rmdir(path)`: deletes an empty folder.
///
/// Errors: FileNotFoundError; OSError when it is not empty.
fn rmdir(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let path = text(RMDIR.bind(rt, args)?.value("path")?, "rmdir")?;
    std::fs::remove_dir(rt.resolve_path(&path)).map_err(|e| os_error(e, &path))?;
    Ok(Value::None)
}

static RENAME: Native = Native::new("rename", &["src", "dst"], rename);

/// `os.rename(src, dst)`: moves a file or folder, replacing a file at `dst`.
///
/// Errors: FileNotFoundError when `src` is missing.
fn rename(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut b = RENAME.bind(rt, args)?;
    let (src, dst) = (text(b.value("src")?, "rename")?, text(b.value("dst")?, "rename")?);
    std::fs::rename(rt.resolve_path(&src), rt.resolve_path(&dst)).map_err(|e| os_error(e, &src))?;
    Ok(Value::None)
}

static GETENV: Native = Native::new("getenv", &["key", "default=None"], getenv);

/// `os.getenv(key, default=None)`: `os.environ[key]`, or `default` when it is not set.
fn getenv(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut b = GETENV.bind(rt, args)?;
    let key = text(b.value("key")?, "getenv")?;
    let default = b.value_or("default", Value::None)?;
    let environ = rt.modules.get("os").and_then(|m| m.globals.get(crate::intern::intern("environ")));
    if let Some(Value::Dict(d)) = environ {
        if let Some((_, v)) = d.borrow().get(&HashKey::Str(key.as_str().into())) {
            return Ok(v.clone());
        }
        return Ok(default);
    }
    Ok(std::env::var(&key).map(|v| Value::str(&v)).unwrap_or(default))
}

macro_rules! path_test {
    ($static:ident, $name:literal, $f:ident, $test:expr, $doc:literal) => {
        static $static: Native = Native::new($name, &["path"], $f);
        #[doc = $doc]
        fn $f(rt: &mut Interp, args: &mut Args) -> R<Value> {
            let v = $static.bind(rt, args)?.value("path")?;
            let Value::Str(p) = v else { return Ok(Value::Bool(false)) };
            let test: fn(&Path) -> bool = $test;
            Ok(Value::Bool(test(&rt.resolve_path(&p))))
        }
    };
}

path_test!(EXISTS, "exists", exists, |p| p.exists(), "`os.path.exists(path)`: whether there is a file or folder at `path`.");
path_test!(ISDIR, "isdir", isdir, |p| p.is_dir(), "`os.path.isdir(path)`: whether `path` is a folder.");
path_test!(ISFILE, "isfile", isfile, |p| p.is_file(), "`os.path.isfile(path)`: whether `path` is a file.");

static JOIN: Native = Native::new("join", &["a", "*p"], join);

/// `os.path.join(a, *p)`: the parts joined with `/`; a part starting with `/` starts afresh.
fn join(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut b = JOIN.bind(rt, args)?;
    let mut out = text(b.value("a")?, "join")?;
    for part in std::mem::take(&mut b.rest) {
        let part = text(part, "join")?;
        if part.starts_with('/') {
            out = part;
        } else if out.is_empty() || out.ends_with('/') {
            out.push_str(&part);
        } else {
            out.push('/');
            out.push_str(&part);
        }
    }
    Ok(Value::str(&out))
}

/// `(head, tail)` as CPython's posixpath.split: tail after the last `/`, head without its
/// trailing slashes (unless it is all slashes).
fn split_text(p: &str) -> (String, String) {
    let i = p.rfind('/').map_or(0, |i| i + 1);
    let (head, tail) = p.split_at(i);
    let trimmed = head.trim_end_matches('/');
    let head = if trimmed.is_empty() { head } else { trimmed };
    (head.to_string(), tail.to_string())
}

static SPLIT: Native = Native::new("split", &["p"], split);

/// `os.path.split(p)`: `(head, tail)`, tail being the part after the last `/`.
fn split(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let p = text(SPLIT.bind(rt, args)?.value("p")?, "split")?;
    let (head, tail) = split_text(&p);
    Ok(Value::tuple(vec![Value::str(&head), Value::str(&tail)]))
}

static BASENAME: Native = Native::new("basename", &["p"], basename);

/// `os.path.basename(p)`: the part after the last `/`.
fn basename(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let p = text(BASENAME.bind(rt, args)?.value("p")?, "basename")?;
    Ok(Value::str(&split_text(&p).1))
}

static DIRNAME: Native = Native::new("dirname", &["p"], dirname);

/// `os.path.dirname(p)`: the part before the last `/`.
fn dirname(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let p = text(DIRNAME.bind(rt, args)?.value("p")?, "dirname")?;
    Ok(Value::str(&split_text(&p).0))
}

static SPLITEXT: Native = Native::new("splitext", &["p"], splitext);

/// `os.path.splitext(p)`: `(root, ext)`, `ext` from the last dot of the last part (empty when
/// that part has no dot past its leading dots).
fn splitext(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let p = text(SPLITEXT.bind(rt, args)?.value("p")?, "splitext")?;
    let start = p.rfind('/').map_or(0, |i| i + 1);
    let name = &p[start..];
    let leading = name.len() - name.trim_start_matches('.').len();
    let (root, ext) = match name[leading..].rfind('.') {
        Some(i) => p.split_at(start + leading + i),
        None => (p.as_str(), ""),
    };
    Ok(Value::tuple(vec![Value::str(root), Value::str(ext)]))
}

static ABSPATH: Native = Native::new("abspath", &["path"], abspath);

/// `os.path.abspath(path)`: the absolute path, with `.` and `..` parts resolved in the text.
fn abspath(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let p = text(ABSPATH.bind(rt, args)?.value("path")?, "abspath")?;
    let full = rt.resolve_path(&p);
    let mut parts: Vec<String> = vec![];
    for c in full.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(s) => parts.push(s.to_string_lossy().into()),
            _ => {}
        }
    }
    Ok(Value::str(&format!("/{}", parts.join("/"))))
}

static GETSIZE: Native = Native::new("getsize", &["filename"], getsize);

/// `os.path.getsize(filename)`: the size of the file in bytes.
///
/// Errors: FileNotFoundError when there is no such file.
fn getsize(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let p = text(GETSIZE.bind(rt, args)?.value("filename")?, "getsize")?;
    let m = std::fs::metadata(rt.resolve_path(&p)).map_err(|e| os_error(e, &p))?;
    Ok(Value::Int(i64::try_from(m.len()).unwrap_or(i64::MAX)))
}

static EXPANDUSER: Native = Native::new("expanduser", &["path"], expanduser);

/// `os.path.expanduser(path)`: a leading `~` replaced by the home folder (`$HOME`).
fn expanduser(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let p = text(EXPANDUSER.bind(rt, args)?.value("path")?, "expanduser")?;
    let home = std::env::var("HOME").unwrap_or_default();
    if p == "~" {
        return Ok(Value::str(&home));
    }
    Ok(Value::str(&match p.strip_prefix("~/") {
        Some(rest) if !home.is_empty() => format!("{}/{rest}", home.trim_end_matches('/')),
        _ => p,
    }))
}

#[cfg(test)]
mod tests {
    use super::split_text;

    #[test]
    fn split_follows_posixpath() {
        // CPython 3.11's posixpath.split on each input.
        for (p, head, tail) in
            [("a/b/c.txt", "a/b", "c.txt"), ("/x", "/", "x"), ("a//b", "a", "b"), ("//", "//", ""), ("c", "", "c")]
        {
            assert_eq!(split_text(p), (head.to_string(), tail.to_string()), "{p}");
        }
    }
}
