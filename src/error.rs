//! Errors (LANGUAGE.md §7), shared by every layer above tensor/: the autodiff layer
//! and the interpreter raise the same [`Exc`]. Native code raises span-less errors;
//! the evaluator attaches the offending expression's span and, while the error
//! unwinds through calls, one call site per frame. Nothing here knows the
//! interpreter's values: a raised user instance travels as an opaque [`Raised`].

use crate::source::{SourceId, Span};
use std::any::Any;
use std::fmt;
use std::rc::Rc;

/// The error kinds of LANGUAGE.md §7; the user-facing name comes from [`ErrorKind::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Syntax,
    Name,
    Type,
    Value,
    Shape,
    Index,
    Key,
    Attribute,
    ZeroDivision,
    Assertion,
    Runtime,
    NotImplemented,
    Recursion,
    IO,
    /// Int arithmetic whose result leaves the 64-bit range (DGL ints are 64-bit, LANGUAGE.md §3).
    Overflow,
    /// `input()` at the end of its input.
    EOF,
    /// `import` of a module that does not exist.
    Import,
    /// Raised by Ctrl-C.
    KeyboardInterrupt,
    /// Raised by an iterator's `__next__` when it is exhausted.
    StopIteration,
    /// Running out of memory: a request past the memory limit (memory.rs, docs/language.md "Limits").
    Memory,
    /// `Exception(...)` itself, and user exception classes derived from it directly.
    Exception,
}

impl ErrorKind {
    /// The kinds with a builtin name of their own (`Exception` is bound separately: it matches all).
    pub const ALL: [ErrorKind; 20] = [
        ErrorKind::Syntax,
        ErrorKind::Name,
        ErrorKind::Type,
        ErrorKind::Value,
        ErrorKind::Shape,
        ErrorKind::Index,
        ErrorKind::Key,
        ErrorKind::Attribute,
        ErrorKind::ZeroDivision,
        ErrorKind::Assertion,
        ErrorKind::Runtime,
        ErrorKind::NotImplemented,
        ErrorKind::Recursion,
        ErrorKind::IO,
        ErrorKind::Overflow,
        ErrorKind::EOF,
        ErrorKind::Import,
        ErrorKind::KeyboardInterrupt,
        ErrorKind::StopIteration,
        ErrorKind::Memory,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "SyntaxError",
            ErrorKind::Name => "NameError",
            ErrorKind::Type => "TypeError",
            ErrorKind::Value => "ValueError",
            ErrorKind::Shape => "ShapeError",
            ErrorKind::Index => "IndexError",
            ErrorKind::Key => "KeyError",
            ErrorKind::Attribute => "AttributeError",
            ErrorKind::ZeroDivision => "ZeroDivisionError",
            ErrorKind::Assertion => "AssertionError",
            ErrorKind::Runtime => "RuntimeError",
            ErrorKind::NotImplemented => "NotImplementedError",
            ErrorKind::Recursion => "RecursionError",
            ErrorKind::IO => "IOError",
            ErrorKind::Overflow => "OverflowError",
            ErrorKind::EOF => "EOFError",
            ErrorKind::Import => "ImportError",
            ErrorKind::KeyboardInterrupt => "KeyboardInterrupt",
            ErrorKind::StopIteration => "StopIteration",
            ErrorKind::Memory => "MemoryError",
            ErrorKind::Exception => "Exception",
        }
    }

    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.iter().copied().find(|k| k.name() == name)
    }
}

/// A raised error travelling up the Rust stack. Boxed so that `Result<Value, Exc>` stays small.
#[derive(Clone, Debug)]
pub struct Exc(pub Box<ExcData>);

#[derive(Clone, Debug)]
pub struct ExcData {
    pub kind: ErrorKind,
    pub message: String,
    /// The innermost offending expression, once the evaluator has seen it.
    pub at: Option<(SourceId, Span)>,
    /// Call sites, innermost first (reversed when rendered).
    pub trace: Vec<(SourceId, Span, String)>,
    /// The raised instance, when a user exception class was raised (`except … as e` binds it).
    pub instance: Option<Raised>,
    /// A "did you mean" hint (`. Did you mean: 'length'?`), shown after the message in
    /// reports but not part of `str(e)`, as in CPython's tracebacks.
    pub hint: Option<String>,
    /// Set only when the error is a module's failed parse (`import` of a file
    /// with a syntax error): that exits with status 2 like a script's own
    /// parse failure; a raised `SyntaxError(...)` is an ordinary runtime error.
    pub from_parse: bool,
}

pub type R<T> = Result<T, Exc>;

/// An instance of a user exception class, carried by the error raised with it. The
/// interpreter puts its value in and takes it out (`runtime::value::raised_value`);
/// layers below it only read the class name.
#[derive(Clone)]
pub struct Raised {
    /// The instance's class name, as reports show it.
    pub class_name: Rc<str>,
    /// The instance itself, opaque here.
    pub value: Rc<dyn Any>,
}

impl fmt::Debug for Raised {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "<{} instance>", self.class_name)
    }
}

impl Exc {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Exc {
        Exc(Box::new(ExcData {
            kind,
            message: message.into(),
            at: None,
            trace: Vec::new(),
            instance: None,
            hint: None,
            from_parse: false,
        }))
    }

    /// The error's type name as reports show it: a user class's name, or the kind's.
    pub fn type_name(&self) -> String {
        match &self.0.instance {
            Some(r) => r.class_name.to_string(),
            None => self.0.kind.name().to_string(),
        }
    }

    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// Attaches a location if the error has none yet (the innermost wins).
    pub fn at(mut self, src: SourceId, span: Span) -> Exc {
        if self.0.at.is_none() {
            self.0.at = Some((src, span));
        }
        self
    }
}

impl fmt::Display for Exc {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}: {}{}", self.type_name(), self.0.message, self.0.hint.as_deref().unwrap_or(""))
    }
}

/// A kernel's error becomes the exception of the same kind and message.
impl From<crate::tensor::error::TensorError> for Exc {
    fn from(e: crate::tensor::error::TensorError) -> Exc {
        use crate::tensor::error::TensorErrorKind;
        let kind = match e.kind {
            TensorErrorKind::Type => ErrorKind::Type,
            TensorErrorKind::Value => ErrorKind::Value,
            TensorErrorKind::Shape => ErrorKind::Shape,
            TensorErrorKind::ZeroDivision => ErrorKind::ZeroDivision,
            TensorErrorKind::Memory => ErrorKind::Memory,
        };
        Exc::new(kind, e.message)
    }
}

/// `return Err(err!(Type, "…{}", x))` — builds an [`Exc`] of the named kind.
#[macro_export]
macro_rules! err {
    ($kind:ident, $($fmt:tt)+) => {
        $crate::error::Exc::new($crate::error::ErrorKind::$kind, format!($($fmt)+))
    };
}

/// `bail!(Shape, "…")` — returns early with an [`Exc`].
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($fmt:tt)+) => {
        return Err($crate::err!($kind, $($fmt)+))
    };
}
