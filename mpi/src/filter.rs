//! Distributed flat filter and stable partition: local counts, a scan of the counts and an
//! all-to-all into balanced ranges.

use crate::comm::Elem;
use crate::dist_array::{DistArray, balanced_offsets};
use crate::{Error, Result};
use flatland_runtime::flat::{self, Index};

/// The result of [`DistArray::partition`]: the elements of class 0 (in input order), then
/// class 1, and so on, in balanced ranges.
#[derive(Clone)]
pub struct DistPartition<T> {
    /// The partitioned elements.
    pub data: DistArray<T>,
    /// Where each class starts in `data`, plus the total: `classes + 1` global offsets.
    pub class_offsets: Vec<usize>,
}

impl<T: Elem> DistArray<T> {
    /// The elements satisfying `pred`, in order, in balanced ranges: the same array as
    /// `flatland_runtime::flat::filter` of the whole array on one process.
    ///
    /// Cost: a gather of one count to every rank, and an all-to-all moving each kept element
    /// at most once.
    ///
    /// ```
    /// use flatland_mpi::{Comm, DistArray};
    /// let universe = mpi::initialize().unwrap();
    /// let comm = Comm::new(universe.world());
    /// let xs = DistArray::from_parts(&comm, vec![1, 2, 3, 4]);
    /// assert_eq!(&xs.filter(|x| x % 2 == 0).gather_all()[..2], &[2, 4]);
    /// ```
    pub fn filter(&self, pred: impl Fn(T) -> bool + Sync) -> DistArray<T> {
        DistArray::from_parts(&self.comm, flat::filter(&self.data, pred)).rebalance()
    }

    /// Stable partition by `keys` (this rank's keys, one per local element, in `0..classes`,
    /// at most 15 classes): the same elements and class offsets as
    /// `flatland_runtime::flat::partition(whole, keys, classes, None)` on one process, in
    /// balanced ranges.
    ///
    /// Cost: one error agreement; a gather of `classes` counts to every rank (each rank then
    /// knows where its runs go: the scan of the counts); an all-to-all moving each element at
    /// most once.
    ///
    /// # Errors
    /// The same [`Error::OnRank`] everywhere when a rank's keys have the wrong length, a key is
    /// outside `0..classes` (the error names the global lane, as one process would) or there are
    /// too many classes.
    ///
    /// ```
    /// use flatland_mpi::{Comm, DistArray};
    /// let universe = mpi::initialize().unwrap();
    /// let comm = Comm::new(universe.world());
    /// let xs = DistArray::from_parts(&comm, vec![7, 8, 9]);
    /// let p = xs.partition(&[1u8, 0, 1], 2).unwrap();
    /// assert_eq!(p.class_offsets, vec![0, comm.size(), 3 * comm.size()]);
    /// ```
    pub fn partition<K: Index>(&self, keys: &[K], classes: usize) -> Result<DistPartition<T>> {
        let comm = &self.comm;
        let (me, p) = (comm.rank(), comm.size());
        let local = if keys.len() == self.data.len() {
            flat::partition(&self.data, keys, classes, None).map_err(|e| {
                let mut e = Error::from(e);
                // Name the global lane, as one process would.
                if let Error::ClassOutOfRange { lane, .. } = &mut e {
                    *lane += self.offsets[me];
                }
                e
            })
        } else {
            Err(Error::LengthMismatch {
                op: "partition".into(),
                expected: self.data.len(),
                found: keys.len(),
            })
        };
        let local = comm.agree(local)?;
        let (all, _) = comm.all_gather_v(&local.sizes);
        let count = |q: usize, c: usize| all[q * classes + c];
        let mut class_offsets = vec![0];
        for c in 0..classes {
            let total: usize = (0..p).map(|q| count(q, c)).sum();
            class_offsets.push(class_offsets[c] + total);
        }
        // Rank q's run of class c starts at class_offsets[c] + the counts of earlier ranks.
        let run_start =
            |q: usize, c: usize| class_offsets[c] + (0..q).map(|o| count(o, c)).sum::<usize>();
        let n = class_offsets[classes];
        let to = balanced_offsets(n, p);
        let overlap = |lo: usize, len: usize, d: usize| {
            (lo + len).min(to[d + 1]).saturating_sub(lo.max(to[d]))
        };
        let send_counts: Vec<usize> = (0..p)
            .map(|d| {
                (0..classes)
                    .map(|c| overlap(run_start(me, c), count(me, c), d))
                    .sum()
            })
            .collect();
        let (got, _) = comm.all_to_all_v(&local.data, &send_counts);
        // Place what each rank sent: its runs' parts inside this rank's range, in class order.
        let mut out = vec![T::default(); to[me + 1] - to[me]];
        let mut at = 0;
        for q in 0..p {
            for c in 0..classes {
                let k = overlap(run_start(q, c), count(q, c), me);
                if k > 0 {
                    let lo = run_start(q, c).max(to[me]) - to[me];
                    out[lo..lo + k].copy_from_slice(&got[at..at + k]);
                    at += k;
                }
            }
        }
        Ok(DistPartition {
            data: DistArray {
                comm: comm.clone(),
                offsets: to,
                data: out,
            },
            class_offsets,
        })
    }
}
