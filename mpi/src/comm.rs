//! The communicator: MPI collectives in the forms this crate uses, error agreement, and a count
//! of the bytes each rank sends.

use crate::{Error, Result};
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Equivalence, Root};
use mpi::{Count, Rank};
use std::cell::Cell;
use std::rc::Rc;

/// An element type that can travel between ranks: a plain value with an MPI datatype
/// (`f64`, `i64`, `u32`, `usize`, ...).
pub trait Elem: Equivalence + Copy + Default + Send + Sync + 'static {}

impl<T: Equivalence + Copy + Default + Send + Sync + 'static> Elem for T {}

/// A handle on an MPI communicator, shared (cheaply cloned) by the distributed arrays built on
/// it. Every distributed operation is collective: all ranks of the communicator call it, in the
/// same order.
///
/// It counts the payload bytes this rank sends ([`Comm::bytes_sent`]) as if every collective
/// were point to point: a gather to all ranks counts the rank's contribution once per other
/// rank, an all-to-all the bytes addressed to other ranks, a reduction or broadcast its buffer
/// once.
///
/// ```
/// let universe = mpi::initialize().unwrap();
/// let comm = flatland_mpi::Comm::new(universe.world());
/// println!("rank {} of {}", comm.rank(), comm.size());
/// ```
#[derive(Clone)]
pub struct Comm {
    inner: Rc<SimpleCommunicator>,
    rank: usize,
    size: usize,
    sent: Rc<Cell<u64>>,
}

/// MPI counts and displacements are C ints.
fn count(n: usize) -> Count {
    Count::try_from(n).expect("message larger than an MPI count (checked before sending)")
}

fn displs(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |acc, &c| {
            let d = *acc;
            *acc += c;
            Some(d)
        })
        .collect()
}

impl Comm {
    /// Wraps a communicator (usually `universe.world()`).
    pub fn new(comm: SimpleCommunicator) -> Comm {
        let rank = comm.rank() as usize;
        let size = comm.size() as usize;
        Comm {
            inner: Rc::new(comm),
            rank,
            size,
            sent: Rc::new(Cell::new(0)),
        }
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The underlying rsmpi communicator.
    pub fn raw(&self) -> &SimpleCommunicator {
        &self.inner
    }

    /// Payload bytes this rank has sent through this handle (and its clones) so far.
    pub fn bytes_sent(&self) -> u64 {
        self.sent.get()
    }

    fn add_sent(&self, bytes: usize) {
        self.sent.set(self.sent.get() + bytes as u64);
    }

    /// Makes every rank agree on the outcome of a local step, before any exchange that depends
    /// on it: `Ok` everywhere if every rank succeeded, otherwise the same
    /// [`Error::OnRank`] on every rank, naming the lowest failing rank and its error.
    ///
    /// Cost: one all-reduce of one integer; on failure, two broadcasts (length and bytes of
    /// the error). A rank's error that is already [`Error::OnRank`] is passed on unchanged.
    ///
    /// # Errors
    /// The lowest failing rank's error, wrapped in [`Error::OnRank`].
    ///
    /// ```
    /// use flatland_mpi::{Comm, Error};
    /// let universe = mpi::initialize().unwrap();
    /// let comm = Comm::new(universe.world());
    /// let mine: Result<(), Error> = Err(Error::Io { detail: "gone".into() });
    /// let e = comm.agree(mine).unwrap_err();
    /// assert_eq!(e, Error::OnRank { rank: 0, error: Box::new(Error::Io { detail: "gone".into() }) });
    /// assert_eq!(comm.agree(Ok::<i32, Error>(1)).unwrap(), 1);
    /// ```
    pub fn agree<X>(&self, local: Result<X>) -> Result<X> {
        let mine = if local.is_err() { self.rank } else { self.size } as u64;
        let mut lowest = 0u64;
        self.inner
            .all_reduce_into(&mine, &mut lowest, SystemOperation::min());
        self.add_sent(8);
        let lowest = lowest as usize;
        if lowest == self.size {
            return local;
        }
        let root = self.inner.process_at_rank(lowest as Rank);
        let mut bytes = match &local {
            Err(e) if self.rank == lowest => e.encode(),
            _ => Vec::new(),
        };
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        bytes.resize(len as usize, 0);
        root.broadcast_into(&mut bytes[..]);
        if self.rank == lowest {
            self.add_sent(8 + bytes.len());
        }
        match Error::decode(&bytes) {
            e @ Error::OnRank { .. } => Err(e),
            e => Err(Error::OnRank {
                rank: lowest,
                error: Box::new(e),
            }),
        }
    }

    /// Checks that a message of `n` elements fits an MPI count (a local check, for `agree`).
    pub(crate) fn check_count(op: &str, n: usize) -> Result<()> {
        if Count::try_from(n).is_ok() {
            Ok(())
        } else {
            Err(Error::invalid(
                op,
                format!("{n} elements in one message, more than MPI's count limit"),
            ))
        }
    }

    /// `x` from every rank, in rank order.
    pub(crate) fn all_gather<T: Elem>(&self, x: T) -> Vec<T> {
        let mut out = vec![T::default(); self.size];
        self.inner.all_gather_into(&x, &mut out[..]);
        self.add_sent(size_of::<T>() * (self.size - 1));
        out
    }

    /// Every rank's `xs`, concatenated in rank order, with each rank's count.
    pub(crate) fn all_gather_v<T: Elem>(&self, xs: &[T]) -> (Vec<T>, Vec<usize>) {
        let counts = self.all_gather(xs.len());
        let c: Vec<Count> = counts.iter().map(|&n| count(n)).collect();
        let d = displs(&c);
        let mut out = vec![T::default(); counts.iter().sum()];
        {
            let mut part = PartitionMut::new(&mut out[..], c, &d[..]);
            self.inner.all_gather_varcount_into(xs, &mut part);
        }
        self.add_sent(size_of_val(xs) * (self.size - 1));
        (out, counts)
    }

    /// Every rank's `xs`, concatenated in rank order, on `root` only (`None` elsewhere).
    pub(crate) fn gather_v<T: Elem>(&self, root: usize, xs: &[T]) -> Option<Vec<T>> {
        let p = self.inner.process_at_rank(root as Rank);
        let n = xs.len();
        let mut counts = vec![0usize; self.size];
        if self.rank == root {
            p.gather_into_root(&n, &mut counts[..]);
        } else {
            p.gather_into(&n);
        }
        if self.rank != root {
            self.add_sent(size_of::<usize>() + size_of_val(xs));
        }
        if self.rank == root {
            let c: Vec<Count> = counts.iter().map(|&n| count(n)).collect();
            let d = displs(&c);
            let mut out = vec![T::default(); counts.iter().sum()];
            {
                let mut part = PartitionMut::new(&mut out[..], c, &d[..]);
                p.gather_varcount_into_root(xs, &mut part);
            }
            Some(out)
        } else {
            p.gather_varcount_into(xs);
            None
        }
    }

    /// Sends `send[..]` split by `counts` (one count per destination rank, in rank order) and
    /// returns what every rank sent here, in rank order, with the count from each rank.
    pub(crate) fn all_to_all_v<T: Elem>(
        &self,
        send: &[T],
        counts: &[usize],
    ) -> (Vec<T>, Vec<usize>) {
        debug_assert_eq!(counts.len(), self.size);
        debug_assert_eq!(counts.iter().sum::<usize>(), send.len());
        let mut recv_counts = vec![0usize; self.size];
        self.inner.all_to_all_into(counts, &mut recv_counts[..]);
        let sc: Vec<Count> = counts.iter().map(|&n| count(n)).collect();
        let rc: Vec<Count> = recv_counts.iter().map(|&n| count(n)).collect();
        let (sd, rd) = (displs(&sc), displs(&rc));
        let mut out = vec![T::default(); recv_counts.iter().sum()];
        {
            let part = Partition::new(send, sc, &sd[..]);
            let mut recv = PartitionMut::new(&mut out[..], rc, &rd[..]);
            self.inner.all_to_all_varcount_into(&part, &mut recv);
        }
        let to_others = send.len() - counts[self.rank];
        self.add_sent(size_of::<usize>() * (self.size - 1) + size_of::<T>() * to_others);
        (out, recv_counts)
    }

    /// The element-wise maximum over ranks of `xs` (the same length everywhere).
    pub(crate) fn all_max(&self, xs: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; xs.len()];
        self.inner
            .all_reduce_into(xs, &mut out[..], SystemOperation::max());
        self.add_sent(size_of_val(xs));
        out
    }

    /// Broadcasts `buf` from `root` (its length must be known everywhere).
    pub(crate) fn broadcast<T: Elem>(&self, root: usize, buf: &mut [T]) {
        self.inner.process_at_rank(root as Rank).broadcast_into(buf);
        if self.rank == root {
            self.add_sent(size_of_val(buf));
        }
    }

    /// Scatters `parts` (on `root`: the concatenation of every rank's part, with `counts`)
    /// from `root`; returns this rank's part of `n` elements.
    pub(crate) fn scatter_v<T: Elem>(
        &self,
        root: usize,
        parts: Option<(&[T], &[usize])>,
        n: usize,
    ) -> Vec<T> {
        let mut out = vec![T::default(); n];
        let p = self.inner.process_at_rank(root as Rank);
        if self.rank == root {
            let (send, counts) = parts.expect("the root scatters its parts");
            let c: Vec<Count> = counts.iter().map(|&n| count(n)).collect();
            let d = displs(&c);
            let part = Partition::new(send, c, &d[..]);
            p.scatter_varcount_into_root(&part, &mut out[..]);
            self.add_sent(size_of::<T>() * (send.len() - counts[root]));
        } else {
            p.scatter_varcount_into(&mut out[..]);
        }
        out
    }
}
