//! The error type of tensor kernels. tensor/ depends on nothing above it, so
//! kernels raise a [`TensorError`]; `runtime::error` turns it into the
//! user-facing exception of the same kind and message (`?` converts).

/// What kind of user error a kernel found; each names the exception a script sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorErrorKind {
    /// TypeError: a dtype the operation does not take, or two dtypes that do not mix.
    Type,
    /// ValueError: a value out of range (int64 overflow, a cast of NaN) or over budget.
    Value,
    /// ShapeError: shapes that do not broadcast, an axis out of range, a bad reshape.
    Shape,
    /// ZeroDivisionError: int64 division or modulo by zero.
    ZeroDivision,
    /// MemoryError: an allocation the memory limit refuses (crate::memory).
    Memory,
}

/// A kernel's error: its kind and the message a script sees (lower case, no trailing period).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct TensorError {
    pub kind: TensorErrorKind,
    pub message: String,
}

impl TensorError {
    /// An error of `kind` with `message`.
    pub fn new(kind: TensorErrorKind, message: impl Into<String>) -> TensorError {
        TensorError { kind, message: message.into() }
    }
}

/// The result of a kernel that can fail on user input.
pub type TensorResult<T> = Result<T, TensorError>;

/// `tensor_err!(Shape, "…{}", x)`: a [`TensorError`] of the named kind.
macro_rules! tensor_err {
    ($kind:ident, $($fmt:tt)+) => {
        $crate::tensor::error::TensorError::new($crate::tensor::error::TensorErrorKind::$kind, format!($($fmt)+))
    };
}

/// `tensor_bail!(Shape, "…")`: returns early with a [`TensorError`].
macro_rules! tensor_bail {
    ($kind:ident, $($fmt:tt)+) => {
        return Err($crate::tensor::error::tensor_err!($kind, $($fmt)+))
    };
}

pub(crate) use {tensor_bail, tensor_err};
