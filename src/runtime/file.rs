//! Text files (`open(path, mode)`) and the standard streams (`sys.stdout`,
//! `sys.stderr`) as values: reading, writing and closing, with the errors of
//! docs/language.md §7 (IOError naming the path and the OS's reason). The standard
//! streams write through the interpreter's writers, so the golden runner
//! captures `print(..., file=sys.stdout)` too (STYLE.md lesson 4).
//!
//! Text is UTF-8; reading turns `\r\n` into `\n` (Python's universal newlines
//! for the common case). A file is closed when its last reference goes
//! (buffered writes are flushed then), or by `close()`/the end of a `with` block,
//! which report a failed flush (a full disk) as an IOError.

use super::Interp;
use crate::error::R;
use crate::{bail, err};
use std::cell::RefCell;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::rc::Rc;

/// An open file value.
#[derive(Debug)]
pub struct FileObj {
    /// The path as the script gave it (messages and `f.name` show it).
    pub name: Rc<str>,
    /// `'r'`, `'w'`, `'a'` or `'x'`.
    pub mode: Rc<str>,
    pub stream: RefCell<Stream>,
}

#[derive(Debug)]
pub enum Stream {
    Read(BufReader<File>),
    Write(BufWriter<File>),
    /// The program's stdout (`Interp::out`).
    Stdout,
    /// The program's stderr (`Interp::err_out`).
    Stderr,
    Closed,
}

/// A file's OS error as a message: "cannot write 'out.txt': No space left on device (os error 28)".
fn io_error(what: &str, name: &str, e: std::io::Error) -> crate::error::Exc {
    err!(IO, "cannot {what} '{name}': {e}")
}

/// The most bytes one `read()` or `readline()` takes (the allocation budget's limit).
const READ_LIMIT: u64 = crate::tensor::budget::MAX_BYTES as u64;

impl FileObj {
    pub fn new(name: &str, mode: &str, stream: Stream) -> FileObj {
        FileObj { name: name.into(), mode: mode.into(), stream: RefCell::new(stream) }
    }

    pub fn closed(&self) -> bool {
        matches!(*self.stream.borrow(), Stream::Closed)
    }

    /// Errors: ValueError "I/O operation on closed file" (CPython's); IOError "not readable".
    fn reader(&self) -> R<std::cell::RefMut<'_, BufReader<File>>> {
        let s = self.stream.borrow_mut();
        match *s {
            Stream::Read(_) => Ok(std::cell::RefMut::map(s, |s| match s {
                Stream::Read(r) => r,
                _ => unreachable!("checked above"),
            })),
            Stream::Closed => bail!(Value, "I/O operation on closed file."),
            _ => bail!(IO, "not readable: '{}' is open for writing (mode '{}')", self.name, self.mode),
        }
    }

    /// Everything left (`read()`), or at most `n` characters (`read(n)`).
    pub fn read(&self, n: Option<usize>) -> R<String> {
        let mut r = self.reader()?;
        let mut text = String::new();
        match n {
            None => {
                let mut bytes = Vec::new();
                (&mut *r).take(READ_LIMIT + 1).read_to_end(&mut bytes).map_err(|e| io_error("read", &self.name, e))?;
                self.check_read(bytes.len())?;
                text = self.decode(bytes)?;
            }
            Some(n) => {
                // Character by character: a UTF-8 character is 1 to 4 bytes, its first byte says how many.
                let mut count = 0;
                while count < n {
                    let mut first = [0u8; 1];
                    if r.read(&mut first).map_err(|e| io_error("read", &self.name, e))? == 0 {
                        break;
                    }
                    let len = match first[0] {
                        0..=0x7f => 1,
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        _ => 4,
                    };
                    let mut buf = vec![first[0]; len];
                    r.read_exact(&mut buf[1..]).map_err(|e| io_error("read", &self.name, e))?;
                    let ch = self.decode(buf)?;
                    if ch == "\r" && r.fill_buf().map_or(false, |b| b.first() == Some(&b'\n')) {
                        r.consume(1);
                        text.push('\n');
                    } else {
                        text.push_str(&ch);
                    }
                    count += 1;
                }
            }
        }
        Ok(text.replace("\r\n", "\n"))
    }

    /// The next line with its `\n` (`""` at the end of the file).
    pub fn readline(&self) -> R<String> {
        let mut r = self.reader()?;
        let mut bytes = Vec::new();
        (&mut *r).take(READ_LIMIT + 1).read_until(b'\n', &mut bytes).map_err(|e| io_error("read", &self.name, e))?;
        self.check_read(bytes.len())?;
        let mut line = self.decode(bytes)?;
        if line.ends_with("\r\n") {
            line.truncate(line.len() - 2);
            line.push('\n');
        }
        Ok(line)
    }

    /// Every remaining line.
    pub fn readlines(&self) -> R<Vec<String>> {
        let mut lines = Vec::new();
        loop {
            let line = self.readline()?;
            if line.is_empty() {
                return Ok(lines);
            }
            lines.push(line);
        }
    }

    /// What one read may take: the allocation budget's bytes (crate::tensor::budget).
    fn check_read(&self, len: usize) -> R<()> {
        if len as u64 > READ_LIMIT {
            bail!(Value, "reading '{}': the text is too large (the limit is {} bytes)", self.name, READ_LIMIT);
        }
        Ok(())
    }

    fn decode(&self, bytes: Vec<u8>) -> R<String> {
        String::from_utf8(bytes).map_err(|e| {
            err!(Value, "'{}' is not UTF-8 text: invalid byte at offset {}", self.name, e.utf8_error().valid_up_to())
        })
    }

    /// Closes the file, flushing buffered writes. Closing twice is allowed (as in Python).
    ///
    /// Errors: IOError when the flush fails (a full disk).
    pub fn close(&self) -> R<()> {
        let old = std::mem::replace(&mut *self.stream.borrow_mut(), Stream::Closed);
        match old {
            Stream::Write(mut w) => w.flush().map_err(|e| io_error("write", &self.name, e)),
            Stream::Stdout | Stream::Stderr => {
                // The standard streams stay usable, as closing sys.stdout in a script is never meant.
                *self.stream.borrow_mut() = old;
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

impl Interp {
    /// `f.write(text)`: the number of characters written.
    ///
    /// Errors: ValueError on a closed file; IOError when the file is open for reading
    /// or the OS refuses the write (a full disk), naming the path and the reason.
    pub fn file_write(&mut self, f: &FileObj, text: &str) -> R<usize> {
        let mut s = f.stream.borrow_mut();
        match &mut *s {
            Stream::Write(w) => w.write_all(text.as_bytes()).map_err(|e| io_error("write", &f.name, e))?,
            Stream::Stdout => {
                drop(s);
                self.write_out(text)?;
            }
            Stream::Stderr => {
                drop(s);
                let mut e = self.err_out.borrow_mut();
                e.write_all(text.as_bytes()).map_err(|e| err!(IO, "cannot write to stderr: {e}"))?;
                let _ = e.flush();
            }
            Stream::Closed => bail!(Value, "I/O operation on closed file."),
            Stream::Read(_) => bail!(IO, "not writable: '{}' is open for reading (mode 'r')", f.name),
        }
        Ok(text.chars().count())
    }

    /// `f.flush()`. Errors: as [`Interp::file_write`].
    pub fn file_flush(&mut self, f: &FileObj) -> R<()> {
        match &mut *f.stream.borrow_mut() {
            Stream::Write(w) => w.flush().map_err(|e| io_error("write", &f.name, e)),
            Stream::Closed => bail!(Value, "I/O operation on closed file."),
            Stream::Stdout => {
                let _ = self.out.borrow_mut().flush();
                Ok(())
            }
            _ => Ok(()),
        }
    }
}
