//! `DistNested`: a nested array distributed by segments, and its constructors.

use crate::comm::{Comm, Elem};
use crate::partition::Layout;
use crate::{Error, Result};
use flatland_segd::Segd;

/// A nested array partitioned across the ranks of a communicator by segments, with balanced
/// element counts.
///
/// Each rank holds the descriptor of its own pieces (O(segments / ranks)), their elements, and
/// the [`Layout`] (O(ranks), the same on every rank). One long segment may span ranks; it is
/// then cut only at multiples of [`flatland_runtime::assoc::LEAF`] elements from its start, so
/// that segmented reductions and scans return the bits of one process
/// ([`DistNested::fold_s`], [`DistNested::scan_s`]).
///
/// Every method is collective: all ranks call it, in the same order.
///
/// ```
/// use flatland_mpi::{Comm, DistNested};
/// use flatland_segd::Segd;
/// let universe = mpi::initialize().unwrap();
/// let comm = Comm::new(universe.world());
/// let global = (comm.rank() == 0).then(|| (Segd::from_lengths(vec![2, 3]).unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0]));
/// let xs = DistNested::scatter(&comm, 0, global.as_ref().map(|(s, d)| (s, &d[..]))).unwrap();
/// let sums = xs.fold_s(0.0, |a, b| a + b).gather_all();
/// assert_eq!(sums, vec![3.0, 12.0]);
/// ```
#[derive(Clone)]
pub struct DistNested<T> {
    pub(crate) comm: Comm,
    pub(crate) layout: Layout,
    pub(crate) segd: Segd,
    pub(crate) data: Vec<T>,
}

impl<T: Elem> DistNested<T> {
    /// Scatters the nested array `global` (given on `root`, `None` elsewhere) in a balanced
    /// layout ([`Layout::balanced`]).
    ///
    /// Cost: the root computes the layout from the O(segments) lengths; one broadcast of the
    /// O(ranks) table; two scatters (the piece lengths and the elements), so each rank
    /// receives its O(segments / ranks) lengths and O(elements / ranks) elements.
    ///
    /// # Errors
    /// The same [`Error::OnRank`] everywhere when `root` is not a rank or gave no array, or its
    /// descriptor and data disagree, or a rank's share is over MPI's count limit.
    pub fn scatter(comm: &Comm, root: usize, global: Option<(&Segd, &[T])>) -> Result<Self> {
        let p = comm.size();
        let op = "DistNested::scatter";
        let prepared = if root >= p {
            Err(Error::invalid(
                op,
                format!("root {root} out of range for {p} ranks"),
            ))
        } else if comm.rank() == root {
            prepare_scatter(op, global, p)
        } else {
            Ok(None)
        };
        let prepared = comm.agree(prepared)?;
        let mut words = vec![0u64; 3 * p + 2];
        if let Some((layout, ..)) = &prepared {
            words = layout.to_words();
        }
        comm.broadcast(root, &mut words);
        let layout = Layout::from_words(&words, p);
        let me = comm.rank();
        let lens = comm.scatter_v(
            root,
            prepared.as_ref().map(|(_, l, c)| (&l[..], &c[..])),
            layout.segments_of(me).len(),
        );
        let counts: Option<Vec<usize>> = prepared
            .as_ref()
            .map(|_| (0..p).map(|r| layout.elements_of(r).len()).collect());
        let data = comm.scatter_v(
            root,
            global.zip(counts.as_ref()).map(|((_, d), c)| (d, &c[..])),
            layout.elements_of(me).len(),
        );
        let segd = Segd::from_lengths(lens).expect("scattered lengths sum to the elements");
        Ok(DistNested {
            comm: comm.clone(),
            layout,
            segd,
            data,
        })
    }

    /// The distributed array whose rank `r` part is the `segd`, `data` that rank `r` holds
    /// (whole segments; the global array is the parts in rank order). The layout is as given,
    /// not rebalanced.
    ///
    /// Cost: one error agreement and two gathers of one count to every rank.
    ///
    /// # Errors
    /// The same [`Error::OnRank`] everywhere when some rank's descriptor and data disagree
    /// ([`Error::LengthMismatch`]) or its part is over MPI's count limit.
    pub fn from_parts(comm: &Comm, segd: Segd, data: Vec<T>) -> Result<Self> {
        let op = "DistNested::from_parts";
        let check = if segd.elements() == data.len() {
            Comm::check_count(op, data.len())
        } else {
            Err(Error::LengthMismatch {
                op: op.to_string(),
                expected: segd.elements(),
                found: data.len(),
            })
        };
        comm.agree(check)?;
        let segs = comm.all_gather(segd.len());
        let elems = comm.all_gather(data.len());
        Ok(DistNested {
            comm: comm.clone(),
            layout: Layout::of_whole(&segs, &elems),
            segd,
            data,
        })
    }

    /// Scatters `global` (on `root`; `None` elsewhere), an array of this array's global shape,
    /// in this array's layout. The root must have checked its length.
    pub(crate) fn scatter_like<U: Elem>(&self, root: usize, global: Option<&[U]>) -> DistNested<U> {
        let p = self.comm.size();
        let counts: Vec<usize> = (0..p).map(|r| self.layout.elements_of(r).len()).collect();
        let data = self.comm.scatter_v(
            root,
            global.map(|g| (g, &counts[..])),
            counts[self.comm.rank()],
        );
        DistNested {
            comm: self.comm.clone(),
            layout: self.layout.clone(),
            segd: self.segd.clone(),
            data,
        }
    }

    /// The partition table.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// This rank's descriptor: one segment per piece it holds ([`Layout::segments_of`]).
    pub fn segd(&self) -> &Segd {
        &self.segd
    }

    /// This rank's elements.
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// The communicator.
    pub fn comm(&self) -> &Comm {
        &self.comm
    }

    /// `f` of every element, in the same layout (no communication).
    ///
    /// ```
    /// use flatland_mpi::{Comm, DistNested};
    /// use flatland_segd::Segd;
    /// let universe = mpi::initialize().unwrap();
    /// let comm = Comm::new(universe.world());
    /// let xs = DistNested::from_parts(&comm, Segd::from_lengths(vec![2]).unwrap(), vec![3, 4]).unwrap();
    /// let squares = xs.map(|x| x * x);
    /// assert_eq!(squares.data(), &[9, 16]);
    /// if let Some((segd, data)) = squares.gather_to(0) {
    ///     assert_eq!((segd.len(), data.len()), (comm.size(), 2 * comm.size()));
    /// }
    /// ```
    pub fn map<U: Elem>(&self, f: impl Fn(T) -> U + Sync) -> DistNested<U> {
        DistNested {
            comm: self.comm.clone(),
            layout: self.layout.clone(),
            segd: self.segd.clone(),
            data: flatland_runtime::flat::map(&self.data, f),
        }
    }

    /// The whole array on `root` (`None` on the other ranks): for results too big to hold
    /// on every rank. Cost: two gathers of a count and two of the pieces' lengths and
    /// elements to `root`.
    pub fn gather_to(&self, root: usize) -> Option<(Segd, Vec<T>)> {
        let lengths = self.segd.lengths();
        let pieces = self.comm.gather_v(root, &lengths);
        let counts = self.comm.gather_v(root, &[lengths.len()]);
        let data = self.comm.gather_v(root, &self.data)?;
        let (pieces, counts) = (pieces?, counts?);
        Some((self.join_pieces(&pieces, &counts), data))
    }

    /// The global descriptor from every rank's piece lengths (`counts[r]` of them from rank r).
    fn join_pieces(&self, pieces: &[usize], counts: &[usize]) -> Segd {
        let mut global: Vec<usize> = Vec::with_capacity(self.layout.segments());
        let mut at = 0;
        for (r, &c) in counts.iter().enumerate() {
            let mine = &pieces[at..at + c];
            at += c;
            let skip = if self.layout.continues_left(r) {
                *global
                    .last_mut()
                    .expect("a continued segment started earlier") += mine[0];
                1
            } else {
                0
            };
            global.extend_from_slice(&mine[skip..]);
        }
        Segd::from_lengths(global).expect("pieces sum to the elements")
    }

    /// The whole array on every rank (for tests and small results).
    ///
    /// Cost: two gathers to all ranks, O(segments + elements) received by each.
    pub fn gather_all(&self) -> (Segd, Vec<T>) {
        let lengths = self.segd.lengths();
        let (pieces, counts) = self.comm.all_gather_v(&lengths);
        let (data, _) = self.comm.all_gather_v(&self.data);
        (self.join_pieces(&pieces, &counts), data)
    }
}

/// On the root: the layout and every rank's piece lengths (concatenated) and counts.
type Prepared = (Layout, Vec<usize>, Vec<usize>);

fn prepare_scatter<T>(
    op: &str,
    global: Option<(&Segd, &[T])>,
    ranks: usize,
) -> Result<Option<Prepared>> {
    let Some((segd, data)) = global else {
        return Err(Error::invalid(op, "the root gave no array"));
    };
    if segd.elements() != data.len() {
        return Err(Error::LengthMismatch {
            op: op.to_string(),
            expected: segd.elements(),
            found: data.len(),
        });
    }
    let lengths = segd.lengths();
    let starts = segd.starts();
    let layout = Layout::balanced(&lengths, ranks);
    let mut all = Vec::new();
    let mut counts = Vec::with_capacity(ranks);
    for r in 0..ranks {
        let ps = layout.pieces(r, &lengths, &starts);
        Comm::check_count(op, ps.len())?;
        Comm::check_count(op, layout.elements_of(r).len())?;
        counts.push(ps.len());
        all.extend(ps);
    }
    Ok(Some((layout, all, counts)))
}
