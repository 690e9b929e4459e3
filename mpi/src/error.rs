//! The crate's error type. Every error a distributed operation returns is
//! [`Error::OnRank`], the same value on every rank: the lowest failing rank and the error it
//! found locally (see [`crate::Comm::agree`]).

use std::fmt;

/// What went wrong in a distributed operation.
///
/// Local errors (the plain variants) carry owned strings so that they can be sent to the other
/// ranks; [`Error::OnRank`] wraps the local error of the lowest failing rank and is what every
/// rank returns from a failed collective operation.
///
/// ```
/// use flatland_mpi::Error;
/// let e = Error::from(flatland_runtime::Error::LengthMismatch { op: "fold_s", expected: 3, found: 4 });
/// assert_eq!(e.to_string(), "fold_s: expected length 3, found 4");
/// let agreed = Error::OnRank { rank: 2, error: Box::new(e.clone()) };
/// assert_eq!(agreed.to_string(), "rank 2: fold_s: expected length 3, found 4");
/// assert_eq!(agreed.local(), &e);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The error every rank returns when some rank failed: the lowest failing rank and its error.
    OnRank {
        /// The lowest rank that failed.
        rank: usize,
        /// What it found.
        error: Box<Error>,
    },
    /// Two lengths that must agree do not.
    LengthMismatch {
        /// The operation.
        op: String,
        /// The length required.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// An index outside its array or segment.
    IndexOutOfRange {
        /// The operation.
        op: String,
        /// The lane (position in the calling rank's index array) that held the bad index.
        lane: usize,
        /// The index.
        index: i64,
        /// The length of the array or segment indexed.
        len: usize,
    },
    /// A partition key outside `0..classes`.
    ClassOutOfRange {
        /// The operation.
        op: String,
        /// The lane holding the key.
        lane: usize,
        /// The key.
        class: usize,
        /// The number of classes.
        classes: usize,
    },
    /// Any other invalid argument.
    Invalid {
        /// The operation.
        op: String,
        /// What was wrong.
        detail: String,
    },
    /// A malformed input file.
    Parse {
        /// The line, counted from 1 over the whole file.
        line: u64,
        /// What was wrong.
        detail: String,
    },
    /// Reading a file failed.
    Io {
        /// The operating system's message.
        detail: String,
    },
    /// Any other runtime or descriptor error, by its message.
    Runtime {
        /// The runtime's message.
        detail: String,
    },
}

impl Error {
    /// The error the failing rank found: the inner error of [`Error::OnRank`], else `self`.
    pub fn local(&self) -> &Error {
        match self {
            Error::OnRank { error, .. } => error.local(),
            e => e,
        }
    }

    /// An [`Error::Invalid`] for operation `op`.
    pub(crate) fn invalid(op: &str, detail: impl Into<String>) -> Error {
        Error::Invalid {
            op: op.to_string(),
            detail: detail.into(),
        }
    }

    /// The error as bytes, for [`Error::decode`] on another rank.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut w = Writer(Vec::new());
        w.error(self);
        w.0
    }

    /// The error [`Error::encode`] wrote; a malformed message decodes to [`Error::Runtime`].
    pub(crate) fn decode(bytes: &[u8]) -> Error {
        let mut r = Reader(bytes);
        r.error().unwrap_or_else(|| Error::Runtime {
            detail: "undecodable error message from another rank".to_string(),
        })
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn u64(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn error(&mut self, e: &Error) {
        match e {
            Error::OnRank { rank, error } => {
                self.0.push(0);
                self.u64(*rank as u64);
                self.error(error);
            }
            Error::LengthMismatch {
                op,
                expected,
                found,
            } => {
                self.0.push(1);
                self.str(op);
                self.u64(*expected as u64);
                self.u64(*found as u64);
            }
            Error::IndexOutOfRange {
                op,
                lane,
                index,
                len,
            } => {
                self.0.push(2);
                self.str(op);
                self.u64(*lane as u64);
                self.u64(*index as u64);
                self.u64(*len as u64);
            }
            Error::ClassOutOfRange {
                op,
                lane,
                class,
                classes,
            } => {
                self.0.push(3);
                self.str(op);
                self.u64(*lane as u64);
                self.u64(*class as u64);
                self.u64(*classes as u64);
            }
            Error::Invalid { op, detail } => {
                self.0.push(4);
                self.str(op);
                self.str(detail);
            }
            Error::Parse { line, detail } => {
                self.0.push(5);
                self.u64(*line);
                self.str(detail);
            }
            Error::Io { detail } => {
                self.0.push(6);
                self.str(detail);
            }
            Error::Runtime { detail } => {
                self.0.push(7);
                self.str(detail);
            }
        }
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u8(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }
    fn u64(&mut self) -> Option<u64> {
        let (head, rest) = self.0.split_at_checked(8)?;
        self.0 = rest;
        Some(u64::from_le_bytes(head.try_into().ok()?))
    }
    fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }
    fn str(&mut self) -> Option<String> {
        let n = self.usize()?;
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        String::from_utf8(head.to_vec()).ok()
    }
    fn error(&mut self) -> Option<Error> {
        Some(match self.u8()? {
            0 => Error::OnRank {
                rank: self.usize()?,
                error: Box::new(self.error()?),
            },
            1 => Error::LengthMismatch {
                op: self.str()?,
                expected: self.usize()?,
                found: self.usize()?,
            },
            2 => Error::IndexOutOfRange {
                op: self.str()?,
                lane: self.usize()?,
                index: self.u64()? as i64,
                len: self.usize()?,
            },
            3 => Error::ClassOutOfRange {
                op: self.str()?,
                lane: self.usize()?,
                class: self.usize()?,
                classes: self.usize()?,
            },
            4 => Error::Invalid {
                op: self.str()?,
                detail: self.str()?,
            },
            5 => Error::Parse {
                line: self.u64()?,
                detail: self.str()?,
            },
            6 => Error::Io {
                detail: self.str()?,
            },
            7 => Error::Runtime {
                detail: self.str()?,
            },
            _ => return None,
        })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OnRank { rank, error } => write!(f, "rank {rank}: {error}"),
            Error::LengthMismatch {
                op,
                expected,
                found,
            } => write!(f, "{op}: expected length {expected}, found {found}"),
            Error::IndexOutOfRange {
                op,
                lane,
                index,
                len,
            } => write!(
                f,
                "{op}: lane {lane}: index {index} out of range for length {len}"
            ),
            Error::ClassOutOfRange {
                op,
                lane,
                class,
                classes,
            } => write!(
                f,
                "{op}: lane {lane}: class {class} out of range 0..{classes}"
            ),
            Error::Invalid { op, detail } => write!(f, "{op}: {detail}"),
            Error::Parse { line, detail } => write!(f, "line {line}: {detail}"),
            Error::Io { detail } => write!(f, "i/o: {detail}"),
            Error::Runtime { detail } => write!(f, "{detail}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<flatland_runtime::Error> for Error {
    fn from(e: flatland_runtime::Error) -> Self {
        use flatland_runtime::Error as R;
        match e {
            R::LengthMismatch {
                op,
                expected,
                found,
            } => Error::LengthMismatch {
                op: op.to_string(),
                expected,
                found,
            },
            R::IndexOutOfRange {
                op,
                lane,
                index,
                len,
            } => Error::IndexOutOfRange {
                op: op.to_string(),
                lane,
                index,
                len,
            },
            R::ClassOutOfRange {
                op,
                lane,
                class,
                classes,
            } => Error::ClassOutOfRange {
                op: op.to_string(),
                lane,
                class,
                classes,
            },
            R::Invalid { op, detail } => Error::Invalid {
                op: op.to_string(),
                detail,
            },
            other => Error::Runtime {
                detail: other.to_string(),
            },
        }
    }
}

impl From<flatland_segd::Error> for Error {
    fn from(e: flatland_segd::Error) -> Self {
        Error::from(flatland_runtime::Error::from(e))
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_round_trip_through_bytes() {
        let inner = Error::IndexOutOfRange {
            op: "index_l".into(),
            lane: 3,
            index: -7,
            len: 12,
        };
        let cases = [
            Error::OnRank {
                rank: 5,
                error: Box::new(inner.clone()),
            },
            inner,
            Error::LengthMismatch {
                op: "x".into(),
                expected: 1,
                found: 2,
            },
            Error::ClassOutOfRange {
                op: "p".into(),
                lane: 0,
                class: 9,
                classes: 2,
            },
            Error::invalid("from_parts", "bad"),
            Error::Parse {
                line: 17,
                detail: "junk".into(),
            },
            Error::Io {
                detail: "gone".into(),
            },
            Error::Runtime {
                detail: "ünïcode".into(),
            },
        ];
        for e in cases {
            assert_eq!(Error::decode(&e.encode()), e);
        }
        assert!(matches!(Error::decode(&[99]), Error::Runtime { .. }));
        assert!(matches!(Error::decode(&[1, 2]), Error::Runtime { .. }));
    }
}
