//! Distributed segmented filter and stable partition (order kept inside each segment), into a
//! balanced layout.

use crate::boundary::{Split, continuation};
use crate::comm::Elem;
use crate::dist_nested::DistNested;
use crate::rebalance::{Piece, pieces, rebalance};
use crate::{Error, Result};
use flatland_runtime::{flat, seg};

impl<T: Elem> DistNested<T> {
    /// Lifted filter: inside each segment, the elements satisfying `pred`, in order, in a
    /// balanced layout (the one [`crate::Layout::balanced`] gives the result): the same nested
    /// array as `flatland_runtime::seg::pack_s` of the whole array with the mask of `pred`.
    ///
    /// Cost: a gather of one count to every rank (the scan of the kept counts), a gather of
    /// two piece lengths when a segment spans ranks, then the rebalancing: an all-reduce of
    /// `3 * (ranks - 1)` words and two all-to-alls moving each kept element at most once.
    ///
    /// ```
    /// use flatland_mpi::{Comm, DistNested};
    /// use flatland_segd::Segd;
    /// let universe = mpi::initialize().unwrap();
    /// let comm = Comm::new(universe.world());
    /// let part = Segd::from_lengths(vec![3, 2]).unwrap();
    /// let xs = DistNested::from_parts(&comm, part, vec![1, -2, 3, -4, -5]).unwrap();
    /// let (segd, data) = xs.filter_s(|x| x > 0).gather_all();
    /// assert_eq!(&segd.lengths()[..2], &[2, 0]);
    /// assert_eq!(&data[..2], &[1, 3]);
    /// ```
    pub fn filter_s(&self, pred: impl Fn(T) -> bool + Sync) -> DistNested<T> {
        let mask = flat::mask(&self.data, pred);
        let (packed_segd, packed) =
            seg::pack_s(&self.segd, &self.data, &mask).expect("descriptor and data agree");
        let (pieces, elements) = pieces(&self.comm, &self.layout, &packed_segd);
        rebalance(
            &self.comm,
            &pieces,
            &packed,
            self.layout.segments(),
            elements,
        )
    }

    /// Segmented stable partition by `keys` (this rank's keys, one per local element, in
    /// `0..classes`, at most 15 classes): class `c` of segment `s` becomes segment
    /// `s * classes + c`, in a balanced layout; the same nested array as
    /// `flatland_runtime::seg::partition_s` of the whole array on one process.
    ///
    /// Cost: one error agreement; when a segment spans ranks, a gather of `2 * classes`
    /// counts to every rank (where each rank's classes of a split segment go); then the
    /// rebalancing: an all-reduce of `3 * (ranks - 1)` words and two all-to-alls moving each
    /// element at most once.
    ///
    /// # Errors
    /// The same [`Error::OnRank`] everywhere when a rank's keys have the wrong length, a key
    /// is outside `0..classes` (naming the global lane, as one process would) or there are too
    /// many classes.
    ///
    /// ```
    /// use flatland_mpi::{Comm, DistNested};
    /// use flatland_segd::Segd;
    /// let universe = mpi::initialize().unwrap();
    /// let comm = Comm::new(universe.world());
    /// let part = Segd::from_lengths(vec![4]).unwrap();
    /// let xs = DistNested::from_parts(&comm, part, vec![10, 11, 12, 13]).unwrap();
    /// let (segd, data) = xs.partition_s(&[1u8, 0, 1, 0], 2).unwrap().gather_all();
    /// assert_eq!(&segd.lengths()[..2], &[2, 2]);
    /// assert_eq!(&data[..4], &[11, 13, 10, 12]);
    /// assert!(xs.partition_s(&[1u8, 0, 2, 0], 2).is_err());
    /// ```
    pub fn partition_s<K>(&self, keys: &[K], classes: usize) -> Result<DistNested<T>>
    where
        K: Copy + TryInto<usize> + Sync,
    {
        let (comm, layout) = (&self.comm, &self.layout);
        let (me, p) = (comm.rank(), comm.size());
        let base = layout.elements_of(me).start;
        let local = if keys.len() == self.data.len() {
            seg::partition_s(&self.segd, &self.data, keys, classes).map_err(|e| {
                let mut e = Error::from(e);
                if let Error::ClassOutOfRange { lane, .. } = &mut e {
                    *lane += base;
                }
                e
            })
        } else {
            Err(Error::LengthMismatch {
                op: "partition_s".into(),
                expected: self.data.len(),
                found: keys.len(),
            })
        };
        let local = comm.agree(local)?;
        let m = self.segd.len();
        let k = classes;
        let sp = Split::of(layout, me, m);
        let class_lens =
            |j: usize| -> Vec<usize> { (0..k).map(|c| local.segd.length(j * k + c)).collect() };
        // Every rank's class counts of its head and tail pieces.
        let (all, _) = if layout.has_split() {
            let head = if sp.head { class_lens(0) } else { vec![0; k] };
            let tail = if sp.tail {
                class_lens(m - 1)
            } else {
                vec![0; k]
            };
            comm.all_gather_v(&[head, tail].concat())
        } else {
            (vec![0; 2 * k * p], Vec::new())
        };
        let head_count = |q: usize, c: usize| all[2 * k * q + c];
        let tail_count = |q: usize, c: usize| all[2 * k * q + k + c];
        let seg_lo = layout.segments_of(me).start;
        let mut pieces = Vec::with_capacity(m * k);
        for j in 0..m {
            let s = seg_lo + j;
            let split = (sp.head && j == 0) || (sp.tail && j == m - 1);
            // Where class c of segment s starts, how long it is, and where this rank's part
            // of it starts.
            let place: Box<dyn Fn(usize) -> (usize, usize, usize)> = if split {
                let h = if sp.tail && j == m - 1 {
                    me
                } else {
                    layout.home(s)
                };
                let ranks: Vec<usize> = std::iter::once(h).chain(continuation(layout, h)).collect();
                let count = move |q: usize, c: usize| {
                    if q == h {
                        tail_count(q, c)
                    } else {
                        head_count(q, c)
                    }
                };
                let total = move |c: usize| ranks.iter().map(|&q| count(q, c)).sum::<usize>();
                let start =
                    layout.elements_of(h).end - (0..k).map(|c| tail_count(h, c)).sum::<usize>();
                Box::new(move |c| {
                    let seg_start = start + (0..c).map(&total).sum::<usize>();
                    let before: usize = std::iter::once(h)
                        .chain(continuation(layout, h))
                        .take_while(|&q| q != me)
                        .map(|q| count(q, c))
                        .sum();
                    (seg_start, total(c), seg_start + before)
                })
            } else {
                let start = base + self.segd.start(j);
                let lens = class_lens(j);
                Box::new(move |c| {
                    let seg_start = start + lens[..c].iter().sum::<usize>();
                    (seg_start, lens[c], seg_start)
                })
            };
            for c in 0..k {
                let (seg_start, seg_len, pos) = place(c);
                pieces.push(Piece {
                    seg: s * k + c,
                    seg_start,
                    seg_len,
                    pos,
                    len: local.segd.length(j * k + c),
                    local: local.segd.start(j * k + c),
                });
            }
        }
        Ok(rebalance(
            comm,
            &pieces,
            &local.data,
            layout.segments() * k,
            layout.elements(),
        ))
    }
}
