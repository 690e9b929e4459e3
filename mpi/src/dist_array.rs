//! `DistArray`: a flat array distributed across ranks in consecutive ranges.

use crate::comm::{Comm, Elem};
use crate::partition::target;
use crate::{Error, Result};

/// A flat array cut into consecutive ranges, one per rank: rank `r` holds the global elements
/// `offsets()[r]..offsets()[r + 1]`. The offsets (O(ranks)) are the same on every rank.
///
/// Per-segment results of a [`crate::DistNested`] are `DistArray`s held by each segment's
/// home rank ([`crate::Layout::owned`]). Every method is collective.
///
/// ```
/// use flatland_mpi::{Comm, DistArray};
/// let universe = mpi::initialize().unwrap();
/// let comm = Comm::new(universe.world());
/// let xs: Vec<i64> = (0..10).collect();
/// let d = DistArray::scatter(&comm, 0, (comm.rank() == 0).then_some(&xs[..])).unwrap();
/// assert_eq!(d.gather_all(), xs);
/// ```
#[derive(Clone)]
pub struct DistArray<T> {
    pub(crate) comm: Comm,
    pub(crate) offsets: Vec<usize>,
    pub(crate) data: Vec<T>,
}

/// Balanced offsets of `n` elements over `ranks` ranks.
pub(crate) fn balanced_offsets(n: usize, ranks: usize) -> Vec<usize> {
    (0..=ranks).map(|r| target(r, n, ranks)).collect()
}

impl<T: Elem> DistArray<T> {
    /// An array from its parts: rank `r` holds `data`, the global array is the parts in rank
    /// order. Cost: one gather of a count to every rank.
    pub fn from_parts(comm: &Comm, data: Vec<T>) -> Self {
        let counts = comm.all_gather(data.len());
        let mut offsets = vec![0];
        let mut acc = 0;
        for c in counts {
            acc += c;
            offsets.push(acc);
        }
        DistArray {
            comm: comm.clone(),
            offsets,
            data,
        }
    }

    /// Scatters `global` (given on `root`, `None` elsewhere) in balanced ranges.
    ///
    /// Cost: one error agreement, one broadcast of the length, one scatter of the elements.
    ///
    /// # Errors
    /// The same [`Error::OnRank`] everywhere when `root` is not a rank or gave no array.
    pub fn scatter(comm: &Comm, root: usize, global: Option<&[T]>) -> Result<Self> {
        let op = "DistArray::scatter";
        let check = if root >= comm.size() {
            Err(Error::invalid(
                op,
                format!("root {root} out of range for {} ranks", comm.size()),
            ))
        } else if comm.rank() == root {
            global
                .map(<[T]>::len)
                .ok_or_else(|| Error::invalid(op, "the root gave no array"))
        } else {
            Ok(0)
        };
        let mut n = [comm.agree(check)? as u64];
        comm.broadcast(root, &mut n);
        let offsets = balanced_offsets(n[0] as usize, comm.size());
        let counts: Vec<usize> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
        let r = comm.rank();
        let data = comm.scatter_v(root, global.map(|g| (g, &counts[..])), counts[r]);
        Ok(DistArray {
            comm: comm.clone(),
            offsets,
            data,
        })
    }

    /// The ranges of every rank: `offsets()[r]..offsets()[r + 1]` is rank `r`'s.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// The global length.
    pub fn len(&self) -> usize {
        self.offsets[self.offsets.len() - 1]
    }

    /// Whether the global array is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// This rank's elements.
    pub fn local(&self) -> &[T] {
        &self.data
    }

    /// The communicator.
    pub fn comm(&self) -> &Comm {
        &self.comm
    }

    /// The whole array on every rank. Cost: one gather to all ranks (each receives the array).
    pub fn gather_all(&self) -> Vec<T> {
        self.comm.all_gather_v(&self.data).0
    }

    /// The whole array on `root` (`None` on the other ranks). Cost: one gather of a count and
    /// one of the elements to `root`.
    pub fn gather_to(&self, root: usize) -> Option<Vec<T>> {
        self.comm.gather_v(root, &self.data)
    }

    /// `f` of every element, in the same ranges (no communication).
    ///
    /// ```
    /// use flatland_mpi::{Comm, DistArray};
    /// let universe = mpi::initialize().unwrap();
    /// let comm = Comm::new(universe.world());
    /// let xs = DistArray::from_parts(&comm, vec![1, 2, 3]);
    /// assert_eq!(xs.map(|x| f64::from(x) / 2.0).local(), &[0.5, 1.0, 1.5]);
    /// assert_eq!(xs.gather_to(0).map(|v| v.len()), (comm.rank() == 0).then_some(3 * comm.size()));
    /// ```
    pub fn map<U: Elem>(&self, f: impl Fn(T) -> U + Sync) -> DistArray<U> {
        DistArray {
            comm: self.comm.clone(),
            offsets: self.offsets.clone(),
            data: flatland_runtime::flat::map(&self.data, f),
        }
    }

    /// The same array in balanced ranges. Cost: one all-to-all; each element moves at most once.
    pub fn rebalance(&self) -> Self {
        let offsets = balanced_offsets(self.len(), self.comm.size());
        let data = redistribute(&self.comm, &self.data, &self.offsets, &offsets);
        DistArray {
            comm: self.comm.clone(),
            offsets,
            data,
        }
    }
}

/// Moves a flat array held in ranges `from` (this rank's part `local`) into ranges `to`.
///
/// Cost: one all-to-all; each element moves at most once (none when the ranges agree).
pub(crate) fn redistribute<T: Elem>(
    comm: &Comm,
    local: &[T],
    from: &[usize],
    to: &[usize],
) -> Vec<T> {
    let r = comm.rank();
    let (lo, hi) = (from[r], from[r + 1]);
    let counts: Vec<usize> = (0..comm.size())
        .map(|d| hi.min(to[d + 1]).saturating_sub(lo.max(to[d])))
        .collect();
    comm.all_to_all_v(local, &counts).0
}
