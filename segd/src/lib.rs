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
//! new_unchecked`; `validate()` rechecks a descriptor.
//!
//! **Structural invariants** (ICFP 2012): the physical fields have one entry per segment;
//! `Segd` starts are the exclusive scan of its lengths and sum to its element count; every
//! source names a block and `start + len <= block length`; every vsegid names a physical
//! segment; element counts fit `usize`, virtual element counts `u64` (operations that would
//! overflow return [`Error::Overflow`]).
//!
//! **Compact forms.** [`Segd::regular`] stores no per-segment arrays; promoting a `Segd`
//! ([`SSegd::from_segd`], [`VSegd::from_segd`]) stores none either, and replicating a manifest
//! [`VSegd`] yields *cyclic* vsegids that are not stored. [`VSegd::stored_entries`] measures what
//! a descriptor stores.
//!
//! **Reachability and culling.** Dropping virtual segments ([`VSegd::pack`],
//! [`VSegd::extract`], [`VSegd::combine`]'s inputs) never inspects the physical segments, so it
//! stays O(virtual segments) and may leave physical segments or blocks unreachable.
//! [`VSegd::is_culled`] reports it and [`VSegd::cull`] restores it (O(virtual + physical
//! segments + blocks), nothing copied, returning which old block each new block is). The policy
//! for consumers that walk the physical segments anyway (folds, `concat`) is
//! [`VSegd::cull_if_sparse`]: cull only when fewer than half of the physical elements are
//! reachable ([`VSegd::should_cull`]), so dead data never dominates.
//!
//! **Splitting.** [`Segd::split_on_elements`] cuts the elements into chunks of nearly equal
//! size, a segment possibly spanning chunks; an empty segment belongs to the chunk whose element
//! range contains its position (trailing ones to the last chunk).
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
