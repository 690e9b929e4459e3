//! Segmented (lifted) operations over segment descriptors ([`flatland_segd`]).
//!
//! Every operation comes in a form over a descriptor and plain data blocks, so code that holds
//! dynamically typed columns (the vectoriser) can call it directly:
//!
//! - contiguous: `&Segd` + `&[T]` ([`fold_s`], [`fold_s_by`] for computed elements,
//!   [`fold_s_leaves`] and [`fold_s_leaves_split`] for leaves folded by the caller, [`scan_s`], [`scan_s_exclusive`],
//!   [`count_s`], [`count_s_bits`], [`pack_s`], [`partition_s`], [`split_s`], [`replicate_s`], [`iota_s`],
//!   [`append_s`], [`hist_s`]);
//! - virtual: `&VSegd` + `&[B]` with `B: AsRef<[T]>`, `blocks[i]` being data block `i` of
//!   `vsegd.ssegd()` ([`fold_vs`], [`index_l`], [`concat_vs`], [`append_vs`], [`extracts`]).
//!
//! The descriptor-only operations (replicate, pack, append, combine, extract of whole segments)
//! are methods of [`flatland_segd::VSegd`] and of [`crate::elt::Nested`], which wraps a
//! descriptor with its typed blocks.
//!
//! Reductions and scans give exactly the bits of [`crate::assoc`] applied to each segment, for
//! every pool size: the work is split by *elements* at leaf boundaries (so a power-law spread of
//! segment lengths is balanced), and segments that span tasks combine their per-leaf results
//! left to right. Small inputs run sequentially.
//!
//! ```
//! use flatland_runtime::seg;
//! use flatland_segd::Segd;
//! let segd = Segd::from_lengths(vec![3, 1]).unwrap();
//! let xs = [1.0, 2.0, 3.0, 4.0];
//! assert_eq!(seg::fold_s(&segd, &xs, 0.0, |a, b| a + b).unwrap(), vec![6.0, 4.0]);
//! assert_eq!(seg::scan_s(&segd, &xs, 0.0, |a, b| a + b).unwrap(), vec![1.0, 3.0, 6.0, 4.0]);
//! ```

mod expand;
mod fold;
mod gather;
mod hist;
mod partition;
mod plan;
mod scan;
mod select;
mod sort;
mod split;

pub use expand::{iota_s, positions_l, replicate_s, zip_replicated_s};
pub use fold::{count_s, fold_s, fold_s_by, fold_s_leaves, fold_s_leaves_split, fold_vs};
pub use gather::{append_plan, append_s, append_vs, concat_vs, extracts, index_l, unconcat};
pub(crate) use gather::{gather_slices, locate_lanes};
pub use hist::hist_s;
pub use partition::{PartitionS, partition_s};
pub use scan::{scan_s, scan_s_exclusive};
pub use select::{count_s_bits, pack_s};
pub use sort::{argsort_f64_s, argsort_i64_s, sort_f64_s, sort_i64_s};
pub use split::{SplitS, split_s};

use crate::{Error, Result};
use flatland_segd::VSegd;

/// Checks that `blocks` are the data blocks `vsegd` describes (count and lengths).
pub(crate) fn check_blocks<T, B: AsRef<[T]>>(
    op: &'static str,
    vsegd: &VSegd,
    blocks: &[B],
) -> Result<()> {
    let lens = vsegd.ssegd().block_lens();
    if lens.len() != blocks.len() {
        return Err(Error::Invalid {
            op,
            detail: format!(
                "descriptor names {} data blocks, {} given",
                lens.len(),
                blocks.len()
            ),
        });
    }
    for (i, (b, &l)) in blocks.iter().zip(lens).enumerate() {
        if b.as_ref().len() != l {
            return Err(Error::Invalid {
                op,
                detail: format!(
                    "data block {i} has length {}, descriptor expects {l}",
                    b.as_ref().len()
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
