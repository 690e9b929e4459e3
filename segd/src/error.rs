//! The descriptor error type: which invariant or argument was wrong, and where.

use std::fmt;

/// What is wrong with a descriptor or with an argument of a descriptor operation, and where.
///
/// Every variant names the first violated invariant (or bad argument) and its position, so the
/// message alone locates the problem.
///
/// ```
/// use flatland_segd::{Error, SSegd};
/// let e = SSegd::try_new(vec![0], vec![40], vec![9], vec![45]).unwrap_err();
/// assert_eq!(
///     e,
///     Error::SegmentOutOfBlock { segment: 0, start: 40, len: 9, block: 0, block_len: 45 }
/// );
/// assert_eq!(e.to_string(), "segment 0: start 40 + length 9 exceeds data block 0 of length 45");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A per-segment field has a different number of entries than the segments it describes.
    FieldLength {
        /// The field (`"starts"`, `"sources"`, ...).
        field: &'static str,
        /// The entries required (one per segment).
        expected: usize,
        /// The entries given.
        found: usize,
    },
    /// A contiguous segment whose start is not the sum of the lengths before it.
    StartNotScan {
        /// The segment.
        segment: usize,
        /// Its start.
        start: usize,
        /// The exclusive scan of the lengths at this segment.
        expected: usize,
    },
    /// A declared element count that differs from the sum of the segment lengths.
    ElementCount {
        /// The element count given.
        found: usize,
        /// The sum of the lengths.
        expected: usize,
    },
    /// A count that does not fit its integer type.
    Overflow {
        /// The operation or constructor.
        op: &'static str,
        /// The quantity that overflowed (`"element count"`, `"virtual segment count"`, ...).
        quantity: &'static str,
        /// The type it must fit (`"usize"`, `"u64"`).
        limit: &'static str,
        /// The segment at which it overflowed, where there is one.
        position: Option<usize>,
    },
    /// A physical segment naming a data block that does not exist.
    SourceOutOfRange {
        /// The physical segment.
        segment: usize,
        /// Its source block.
        source: usize,
        /// The number of data blocks.
        blocks: usize,
    },
    /// A physical segment that does not lie inside its data block.
    SegmentOutOfBlock {
        /// The physical segment.
        segment: usize,
        /// Its start inside the block.
        start: usize,
        /// Its length.
        len: usize,
        /// The block.
        block: usize,
        /// The length of that block.
        block_len: usize,
    },
    /// A virtual segment naming a physical segment that does not exist.
    VSegIdOutOfRange {
        /// The virtual segment.
        vsegment: usize,
        /// Its vsegid.
        vsegid: usize,
        /// The number of physical segments.
        physical: usize,
    },
    /// An argument of an operation with the wrong number of entries.
    LengthMismatch {
        /// The operation.
        op: &'static str,
        /// The argument (`"mask"`, `"counts"`, ...).
        what: &'static str,
        /// The entries required.
        expected: usize,
        /// The entries given.
        found: usize,
    },
    /// A `combine` selector that takes a different number of segments from one side than it has.
    SelectorCount {
        /// The side (`"self"` for `false` entries, `"other"` for `true` entries).
        side: &'static str,
        /// The segments that side has.
        expected: usize,
        /// The segments the selector takes from it (counted up to the first excess).
        found: usize,
    },
    /// A range of segments that is reversed or outside the descriptor.
    RangeOutOfBounds {
        /// The operation.
        op: &'static str,
        /// The first segment of the range.
        start: usize,
        /// One past the last segment of the range.
        end: usize,
        /// The number of segments.
        len: usize,
    },
    /// An element index outside the descriptor.
    ElementOutOfRange {
        /// The element index.
        element: usize,
        /// The number of elements.
        elements: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::FieldLength {
                field,
                expected,
                found,
            } => {
                write!(
                    f,
                    "{field} has {found} entries, expected {expected} (one per segment)"
                )
            }
            Error::StartNotScan {
                segment,
                start,
                expected,
            } => write!(
                f,
                "segment {segment}: start {start}, expected {expected} (the sum of the lengths before it)"
            ),
            Error::ElementCount { found, expected } => {
                write!(
                    f,
                    "element count {found} differs from the sum of the lengths {expected}"
                )
            }
            Error::Overflow {
                op,
                quantity,
                limit,
                position,
            } => {
                write!(f, "{op}: {quantity} overflows {limit}")?;
                if let Some(p) = position {
                    write!(f, " at segment {p}")?;
                }
                Ok(())
            }
            Error::SourceOutOfRange {
                segment,
                source,
                blocks,
            } => {
                write!(
                    f,
                    "segment {segment}: source {source} out of range for {blocks} data blocks"
                )
            }
            Error::SegmentOutOfBlock {
                segment,
                start,
                len,
                block,
                block_len,
            } => write!(
                f,
                "segment {segment}: start {start} + length {len} exceeds data block {block} of length {block_len}"
            ),
            Error::VSegIdOutOfRange {
                vsegment,
                vsegid,
                physical,
            } => write!(
                f,
                "virtual segment {vsegment}: vsegid {vsegid} out of range for {physical} physical segments"
            ),
            Error::LengthMismatch {
                op,
                what,
                expected,
                found,
            } => {
                write!(f, "{op}: {what} has {found} entries, expected {expected}")
            }
            Error::SelectorCount {
                side,
                expected,
                found,
            } => write!(
                f,
                "combine: selector takes {found} segments from {side}, which has {expected}"
            ),
            Error::RangeOutOfBounds {
                op,
                start,
                end,
                len,
            } => {
                write!(
                    f,
                    "{op}: range {start}..{end} out of bounds for {len} segments"
                )
            }
            Error::ElementOutOfRange { element, elements } => {
                write!(f, "element {element} out of range for {elements} elements")
            }
        }
    }
}

impl std::error::Error for Error {}

/// The descriptor crate's result type.
///
/// ```
/// use flatland_segd::{Result, Segd};
/// let s: Result<Segd> = Segd::from_lengths(vec![1, 2]);
/// assert_eq!(s.unwrap().elements(), 3);
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;
