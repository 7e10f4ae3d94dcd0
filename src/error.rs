//! Errors (docs/language.md §7), shared by every layer above tensor/: the autodiff layer
//! and the interpreter raise the same [`Exc`]. Native code raises span-less errors;
//! the evaluator attaches the offending expression's span and, while the error
//! unwinds through calls, one call site per frame. Nothing here knows the
//! interpreter's values: a raised user instance travels as an opaque [`Raised`].

use crate::source::{SourceId, Span};
use std::any::Any;
use std::fmt;
use std::rc::Rc;

/// The error kinds of docs/language.md §7: CPython's builtin exception classes (the tree of
/// docs/language.md "Exceptions", [`ErrorKind::parent`]), DGL's `ShapeError`, and TF's
/// `tf.errors.OpError` and `InvalidArgumentError`. The user-facing name comes from
/// [`ErrorKind::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    BaseException,
    SystemExit,
    /// Raised by Ctrl-C.
    KeyboardInterrupt,
    /// Thrown into a generator by `close()` (and when a suspended generator is dropped).
    GeneratorExit,
    /// `Exception(...)` itself, and user exception classes derived from it directly.
    Exception,
    /// Raised by an iterator's `__next__` when it is exhausted.
    StopIteration,
    StopAsyncIteration,
    Arithmetic,
    FloatingPoint,
    /// Int arithmetic whose result leaves the 64-bit range (DGL ints are 64-bit, docs/language.md §3).
    Overflow,
    ZeroDivision,
    Assertion,
    Attribute,
    Buffer,
    /// `input()` at the end of its input.
    EOF,
    /// `import` of a module that does not exist.
    Import,
    ModuleNotFound,
    Lookup,
    Index,
    Key,
    Memory,
    Name,
    UnboundLocal,
    /// `OSError`; `IOError` and `EnvironmentError` are other names of it, as in Python 3.
    /// Reports call it IOError, docs/language.md §7's name (docs/python.md lists the difference).
    IO,
    FileNotFound,
    FileExists,
    Permission,
    IsADirectory,
    NotADirectory,
    Timeout,
    Runtime,
    NotImplemented,
    Recursion,
    Syntax,
    Indentation,
    Tab,
    Type,
    Value,
    Unicode,
    UnicodeDecode,
    UnicodeEncode,
    Warning,
    UserWarning,
    DeprecationWarning,
    RuntimeWarning,
    /// TF's `tf.errors.OpError` (not a builtin name: `tf.errors` binds it).
    OpError,
    /// TF's `tf.errors.InvalidArgumentError`: besides its subclass ShapeError, an `except`
    /// clause naming it also catches ValueError, IndexError and TypeError ([`ErrorKind::catches`]).
    InvalidArgument,
    /// Shapes that do not fit together: DGL's own kind, under TF's InvalidArgumentError.
    Shape,
}

impl ErrorKind {
    /// The kinds bound as builtin names (`IOError`, `OSError` and `EnvironmentError` are one kind).
    pub const ALL: [ErrorKind; 46] = [
        ErrorKind::BaseException,
        ErrorKind::SystemExit,
        ErrorKind::KeyboardInterrupt,
        ErrorKind::GeneratorExit,
        ErrorKind::Exception,
        ErrorKind::StopIteration,
        ErrorKind::StopAsyncIteration,
        ErrorKind::Arithmetic,
        ErrorKind::FloatingPoint,
        ErrorKind::Overflow,
        ErrorKind::ZeroDivision,
        ErrorKind::Assertion,
        ErrorKind::Attribute,
        ErrorKind::Buffer,
        ErrorKind::EOF,
        ErrorKind::Import,
        ErrorKind::ModuleNotFound,
        ErrorKind::Lookup,
        ErrorKind::Index,
        ErrorKind::Key,
        ErrorKind::Memory,
        ErrorKind::Name,
        ErrorKind::UnboundLocal,
        ErrorKind::IO,
        ErrorKind::FileNotFound,
        ErrorKind::FileExists,
        ErrorKind::Permission,
        ErrorKind::IsADirectory,
        ErrorKind::NotADirectory,
        ErrorKind::Timeout,
        ErrorKind::Runtime,
        ErrorKind::NotImplemented,
        ErrorKind::Recursion,
        ErrorKind::Syntax,
        ErrorKind::Indentation,
        ErrorKind::Tab,
        ErrorKind::Type,
        ErrorKind::Value,
        ErrorKind::Unicode,
        ErrorKind::UnicodeDecode,
        ErrorKind::UnicodeEncode,
        ErrorKind::Warning,
        ErrorKind::UserWarning,
        ErrorKind::DeprecationWarning,
        ErrorKind::RuntimeWarning,
        ErrorKind::Shape,
    ];

    pub fn name(self) -> &'static str {
        use ErrorKind::*;
        match self {
            BaseException => "BaseException",
            SystemExit => "SystemExit",
            KeyboardInterrupt => "KeyboardInterrupt",
            GeneratorExit => "GeneratorExit",
            Exception => "Exception",
            StopIteration => "StopIteration",
            StopAsyncIteration => "StopAsyncIteration",
            Arithmetic => "ArithmeticError",
            FloatingPoint => "FloatingPointError",
            Overflow => "OverflowError",
            ZeroDivision => "ZeroDivisionError",
            Assertion => "AssertionError",
            Attribute => "AttributeError",
            Buffer => "BufferError",
            EOF => "EOFError",
            Import => "ImportError",
            ModuleNotFound => "ModuleNotFoundError",
            Lookup => "LookupError",
            Index => "IndexError",
            Key => "KeyError",
            Memory => "MemoryError",
            Name => "NameError",
            UnboundLocal => "UnboundLocalError",
            IO => "IOError",
            FileNotFound => "FileNotFoundError",
            FileExists => "FileExistsError",
            Permission => "PermissionError",
            IsADirectory => "IsADirectoryError",
            NotADirectory => "NotADirectoryError",
            Timeout => "TimeoutError",
            Runtime => "RuntimeError",
            NotImplemented => "NotImplementedError",
            Recursion => "RecursionError",
            Syntax => "SyntaxError",
            Indentation => "IndentationError",
            Tab => "TabError",
            Type => "TypeError",
            Value => "ValueError",
            Unicode => "UnicodeError",
            UnicodeDecode => "UnicodeDecodeError",
            UnicodeEncode => "UnicodeEncodeError",
            Warning => "Warning",
            UserWarning => "UserWarning",
            DeprecationWarning => "DeprecationWarning",
            RuntimeWarning => "RuntimeWarning",
            OpError => "OpError",
            InvalidArgument => "InvalidArgumentError",
            Shape => "ShapeError",
        }
    }

    /// The kind's base class in the tree of docs/language.md "Exceptions" (`None` for
    /// BaseException, the root).
    pub fn parent(self) -> Option<ErrorKind> {
        use ErrorKind::*;
        Some(match self {
            BaseException => return None,
            SystemExit | KeyboardInterrupt | GeneratorExit | Exception => BaseException,
            FloatingPoint | Overflow | ZeroDivision => Arithmetic,
            ModuleNotFound => Import,
            Index | Key => Lookup,
            UnboundLocal => Name,
            FileNotFound | FileExists | Permission | IsADirectory | NotADirectory | Timeout => IO,
            NotImplemented | Recursion => Runtime,
            Indentation => Syntax,
            Tab => Indentation,
            Unicode => Value,
            UnicodeDecode | UnicodeEncode => Unicode,
            UserWarning | DeprecationWarning | RuntimeWarning => Warning,
            InvalidArgument => OpError,
            Shape => InvalidArgument,
            StopIteration | StopAsyncIteration | Arithmetic | Assertion | Attribute | Buffer | EOF | Import
            | Lookup | Memory | Name | IO | Runtime | Syntax | Type | Value | Warning | OpError => Exception,
        })
    }

    /// Whether the kind is `ancestor` or derives from it (Python's `issubclass`).
    pub fn is_a(self, ancestor: ErrorKind) -> bool {
        let mut k = Some(self);
        while let Some(x) = k {
            if x == ancestor {
                return true;
            }
            k = x.parent();
        }
        false
    }

    /// The kind and its bases, itself first (a class's `__mro__` without `object`).
    pub fn ancestors(self) -> Vec<ErrorKind> {
        std::iter::successors(Some(self), |k| k.parent()).collect()
    }

    /// Whether `except self` catches an error of kind `raised`: a kind derived from it, and,
    /// for TF's OpError and InvalidArgumentError, the ValueError, IndexError and TypeError
    /// that DGL's ops raise where TF's raise InvalidArgumentError (docs/language.md "Exceptions").
    pub fn catches(self, raised: ErrorKind) -> bool {
        raised.is_a(self)
            || (matches!(self, ErrorKind::InvalidArgument | ErrorKind::OpError)
                && [ErrorKind::Value, ErrorKind::Index, ErrorKind::Type].iter().any(|&k| raised.is_a(k)))
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
    /// The arguments a builtin error was constructed with (`KeyError('k')`: a tuple
    /// value, opaque here), when Python code constructed it; `None` for DGL's own errors,
    /// whose `args` are `(message,)`.
    pub args: Option<Rc<dyn Any>>,
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
            args: None,
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
