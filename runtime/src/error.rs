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
    /// An operand outside the scalar operator's domain where `std` would panic (a `clamp`
    /// whose lower bound is above its upper bound, or a NaN bound).
    Domain {
        /// The operation.
        op: &'static str,
        /// The lane.
        lane: usize,
        /// What was wrong.
        detail: &'static str,
    },
    /// Shapes that do not fit the operation (MoA arrays, reshapes, products).
    Shape {
        /// The operation.
        op: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// An allocation refused before it was made: it would take the bytes the runtime holds above
    /// the memory budget ([`crate::budget`]).
    MemoryBudget {
        /// What would have been allocated.
        what: &'static str,
        /// Its size in bytes.
        bytes: usize,
        /// The bytes held when it was refused.
        live: usize,
        /// The budget.
        limit: usize,
    },
    /// CSR-style offsets that do not describe segments of the values given.
    Offsets {
        /// The operation.
        op: &'static str,
        /// The first offset that is wrong, and why.
        error: OffsetsError,
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
            Error::Domain { op, lane, detail } => write!(f, "{op}: lane {lane}: {detail}"),
            Error::Offsets { op, error } => write!(f, "{op}: {error}"),
            Error::MemoryBudget {
                what,
                bytes,
                live,
                limit,
            } => write!(
                f,
                "{what}: {} more, with {} in use, exceeds the memory budget of {} (raise it with --max-memory or flatland_runtime::budget::set_limit)",
                Bytes(*bytes),
                Bytes(*live),
                Bytes(*limit)
            ),
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
            Error::Offsets { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl From<flatland_segd::Error> for Error {
    fn from(e: flatland_segd::Error) -> Self {
        Error::Segd(e)
    }
}

/// What is wrong with CSR-style offsets (`offsets[i]..offsets[i + 1]` is segment `i` of
/// `values`): the first offending offset and its position, as arrow-rs's `try_new` reports.
///
/// ```
/// use flatland_runtime::OffsetsError;
/// assert_eq!(OffsetsError::check(&[0, 2, 5], 5), Ok(vec![2, 3]));
/// assert_eq!(OffsetsError::check(&[1, 2], 2), Err(OffsetsError::NonZeroStart { first: 1 }));
/// assert_eq!(
///     OffsetsError::check(&[0, 2], 3).unwrap_err().to_string(),
///     "last offset 2 differs from the number of values 3"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OffsetsError {
    /// No offsets at all: even zero segments need the one entry `0`.
    Empty,
    /// The first offset is not 0.
    NonZeroStart {
        /// The first offset.
        first: usize,
    },
    /// An offset below the one before it.
    Decreasing {
        /// Its position in the offsets.
        position: usize,
        /// The offset.
        offset: usize,
        /// The offset before it (at `position - 1`).
        previous: usize,
    },
    /// The last offset is not the number of values.
    LastMismatch {
        /// The last offset.
        last: usize,
        /// The number of values.
        values: usize,
    },
}

impl OffsetsError {
    /// Checks `offsets` against `values` values and returns the segment lengths, or the first
    /// offset that is wrong. O(offsets); reads no value.
    ///
    /// # Errors
    /// The first rule broken, in the order of the offsets: [`OffsetsError::Empty`],
    /// [`OffsetsError::NonZeroStart`], [`OffsetsError::Decreasing`],
    /// [`OffsetsError::LastMismatch`].
    pub fn check(offsets: &[usize], values: usize) -> Result<Vec<usize>, OffsetsError> {
        match offsets.first() {
            None => return Err(OffsetsError::Empty),
            Some(&first) if first != 0 => return Err(OffsetsError::NonZeroStart { first }),
            Some(_) => {}
        }
        let mut lengths = Vec::with_capacity(offsets.len() - 1);
        for (i, w) in offsets.windows(2).enumerate() {
            if w[1] < w[0] {
                return Err(OffsetsError::Decreasing {
                    position: i + 1,
                    offset: w[1],
                    previous: w[0],
                });
            }
            lengths.push(w[1] - w[0]);
        }
        let last = offsets[offsets.len() - 1];
        if last != values {
            return Err(OffsetsError::LastMismatch { last, values });
        }
        Ok(lengths)
    }
}

impl fmt::Display for OffsetsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OffsetsError::Empty => write!(f, "offsets are empty; they need at least the entry 0"),
            OffsetsError::NonZeroStart { first } => write!(f, "offset 0 is {first}, must be 0"),
            OffsetsError::Decreasing {
                position,
                offset,
                previous,
            } => write!(
                f,
                "offset {position} ({offset}) is less than offset {} ({previous})",
                position - 1
            ),
            OffsetsError::LastMismatch { last, values } => write!(
                f,
                "last offset {last} differs from the number of values {values}"
            ),
        }
    }
}

impl std::error::Error for OffsetsError {}

/// A byte count for people: `1.5 GiB`, `12 KiB`, `80 bytes`.
///
/// ```
/// use flatland_runtime::error::Bytes;
/// assert_eq!(Bytes(3 << 29).to_string(), "1.5 GiB");
/// assert_eq!(Bytes(80).to_string(), "80 bytes");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes(pub usize);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
        if self.0 < 1024 {
            return write!(f, "{} bytes", self.0);
        }
        let mut v = self.0 as f64 / 1024.0;
        let mut unit = 0;
        while v >= 1024.0 && unit + 1 < UNITS.len() {
            v /= 1024.0;
            unit += 1;
        }
        if v >= 100.0 || v.fract() == 0.0 {
            write!(f, "{v:.0} {}", UNITS[unit])
        } else {
            write!(f, "{:.1} {}", (v * 10.0).round() / 10.0, UNITS[unit])
        }
    }
}

/// The runtime's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
