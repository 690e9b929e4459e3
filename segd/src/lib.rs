//! Segment descriptors for flattened nested arrays (filled by issue 2).

use std::fmt;

/// A descriptor error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid descriptor")
    }
}

impl std::error::Error for Error {}
