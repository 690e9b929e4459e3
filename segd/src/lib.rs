//! Segment descriptors for flattened nested arrays, after DPH's three levels (ICFP 2012, "Work
//! Efficient Higher-Order Vectorisation"):
//!
//! - [`Segd`]: contiguous segments of one data array (explicit, or regular with no per-segment
//!   arrays);
//! - [`SSegd`]: scattered physical segments over several data blocks, so appending arrays copies
//!   no element;
//! - [`VSegd`]: virtual segments sharing physical ones, so replication copies no element.
//!
//! Every descriptor operation costs O(segments), never O(elements); each documents its cost.
//! Constructors come in three strengths: `try_new` (validates, returns an [`Error`] naming the
//! first violated invariant and where), `new` (panics with that message) and `unsafe
//! new_unchecked`.
//!
//! ```
//! use flatland_segd::{Segd, VSegd};
//! // [[1, 2], [3]] replicated lifted by [2, 3]: [[1, 2], [1, 2], [3], [3], [3]].
//! let v = VSegd::from_segd(&Segd::from_lengths(vec![2, 1]).unwrap());
//! let r = v.replicate_s(&[2, 3]).unwrap();
//! assert_eq!(&*r.vsegids(), &[0, 0, 1, 1, 1]);
//! assert_eq!(r.virtual_elements(), 7);
//! let (segd, plan) = r.demote().unwrap();
//! assert_eq!(segd.elements(), 7);
//! assert_eq!(plan.len(), 5);
//! ```

mod error;
mod segd;
mod split;
mod ssegd;
mod vsegd;

pub use error::{Error, Result};
pub use segd::Segd;
pub use split::Chunk;
pub use ssegd::{PSeg, SSegd};
pub use vsegd::{Culled, VSegd};
