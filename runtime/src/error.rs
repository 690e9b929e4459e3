//! The runtime's error type: one enum for the crate, converting from the descriptor errors below
//! it and into the vectoriser's above it.

use std::fmt;

/// What went wrong in a runtime operation, and where.
///
/// ```
/// use flatland_runtime::Error;
/// let e = Error::LengthMismatch { op: "zip_with", expected: 3, found: 4 };
/// assert_eq!(e.to_string(), "zip_with: expected length 3, found 4");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// An invalid segment descriptor.
    Segd(flatland_segd::Error),
    /// Two inputs that must have equal lengths do not.
    LengthMismatch {
        /// The operation.
        op: &'static str,
        /// The length required.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// An index (gather, scatter, lifted index) outside its array.
    IndexOutOfRange {
        /// The operation.
        op: &'static str,
        /// The lane (position in the index array) that held the bad index.
        lane: usize,
        /// The index.
        index: i64,
        /// The length of the array indexed.
        len: usize,
    },
    /// A partition asked for more classes than the runtime supports.
    TooManyClasses {
        /// The operation.
        op: &'static str,
        /// The classes asked for.
        classes: usize,
        /// The most allowed.
        max: usize,
    },
    /// A key outside `0..classes`.
    ClassOutOfRange {
        /// The operation.
        op: &'static str,
        /// The lane holding the key.
        lane: usize,
        /// The key.
        class: usize,
        /// The number of classes.
        classes: usize,
    },
    /// Integer division or remainder by zero.
    DivisionByZero {
        /// The operation.
        op: &'static str,
        /// The lane.
        lane: usize,
    },
    /// Shapes that do not fit the operation (MoA arrays, reshapes, products).
    Shape {
        /// The operation.
        op: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// Any other invalid argument.
    Invalid {
        /// The operation.
        op: &'static str,
        /// What was wrong.
        detail: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Segd(e) => write!(f, "{e}"),
            Error::LengthMismatch {
                op,
                expected,
                found,
            } => {
                write!(f, "{op}: expected length {expected}, found {found}")
            }
            Error::IndexOutOfRange {
                op,
                lane,
                index,
                len,
            } => {
                write!(
                    f,
                    "{op}: lane {lane}: index {index} out of range for length {len}"
                )
            }
            Error::TooManyClasses { op, classes, max } => {
                write!(
                    f,
                    "{op}: {classes} classes requested, at most {max} supported"
                )
            }
            Error::ClassOutOfRange {
                op,
                lane,
                class,
                classes,
            } => {
                write!(
                    f,
                    "{op}: lane {lane}: class {class} out of range 0..{classes}"
                )
            }
            Error::DivisionByZero { op, lane } => write!(f, "{op}: lane {lane}: division by zero"),
            Error::Shape { op, detail } | Error::Invalid { op, detail } => {
                write!(f, "{op}: {detail}")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Segd(e) => Some(e),
            _ => None,
        }
    }
}

impl From<flatland_segd::Error> for Error {
    fn from(e: flatland_segd::Error) -> Self {
        Error::Segd(e)
    }
}

/// The runtime's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
