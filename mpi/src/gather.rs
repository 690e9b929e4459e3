//! Gathers from distributed arrays: `DistArray::gather` by global index and
//! `DistNested::index_l` by (segment, index) lanes. Requests and replies are all-to-alls.

use crate::boundary::continuation;
use crate::comm::{Comm, Elem};
use crate::dist_array::DistArray;
use crate::dist_nested::DistNested;
use crate::{Error, Result};
use flatland_runtime::flat::Index;

/// Sends each request (`width` words) to its rank, answers them with `answer` on the owner,
/// and returns the replies in request order, with their statuses when `status` (else zeros).
/// `dest[k]` is request `k`'s rank.
fn request<Q: Elem, A: Elem>(
    comm: &Comm,
    dest: &[usize],
    requests: &[Q],
    width: usize,
    status: bool,
    answer: impl Fn(&[Q]) -> (A, u64),
) -> (Vec<A>, Vec<u64>) {
    let p = comm.size();
    let mut counts = vec![0usize; p];
    for &d in dest {
        counts[d] += 1;
    }
    // A stable counting sort of the requests by rank.
    let mut next: Vec<usize> = counts
        .iter()
        .scan(0, |acc, &c| {
            let s = *acc;
            *acc += c;
            Some(s)
        })
        .collect();
    let mut order = vec![0usize; dest.len()];
    let mut send = vec![Q::default(); requests.len()];
    for (k, &d) in dest.iter().enumerate() {
        order[next[d]] = k;
        send[next[d] * width..(next[d] + 1) * width]
            .copy_from_slice(&requests[k * width..(k + 1) * width]);
        next[d] += 1;
    }
    let wide: Vec<usize> = counts.iter().map(|&c| c * width).collect();
    let (asked, asked_counts) = comm.all_to_all_v(&send, &wide);
    let (replies, statuses): (Vec<A>, Vec<u64>) = asked.chunks(width).map(answer).unzip();
    let back: Vec<usize> = asked_counts.iter().map(|&c| c / width).collect();
    let (got, _) = comm.all_to_all_v(&replies, &back);
    let got_status = if status {
        comm.all_to_all_v(&statuses, &back).0
    } else {
        vec![0; got.len()]
    };
    let mut out = vec![A::default(); dest.len()];
    let mut out_status = vec![0; dest.len()];
    for (slot, &k) in order.iter().enumerate() {
        out[k] = got[slot];
        out_status[k] = got_status[slot];
    }
    (out, out_status)
}

impl<T: Elem> DistArray<T> {
    /// `[whole[i] for i in idx]` for this rank's indices `idx` into the global array: the same
    /// as `flatland_runtime::flat::gather` on one process.
    ///
    /// Cost: one error agreement, then two all-to-alls: each index (8 bytes) to the rank
    /// holding it, each value back.
    ///
    /// # Errors
    /// The same [`Error::OnRank`] everywhere when some rank's index is out of range: the
    /// lowest failing rank's [`Error::IndexOutOfRange`] for its lowest bad lane.
    ///
    /// ```
    /// use flatland_mpi::{Comm, DistArray};
    /// let universe = mpi::initialize().unwrap();
    /// let comm = Comm::new(universe.world());
    /// let xs = DistArray::from_parts(&comm, vec![10, 20, 30]);
    /// assert_eq!(xs.gather(&[2u32, 0, 2]).unwrap(), vec![30, 10, 30]);
    /// assert!(xs.gather(&[3 * comm.size()]).is_err());
    /// ```
    pub fn gather<I: Index>(&self, idx: &[I]) -> Result<Vec<T>> {
        let n = self.len();
        let check = idx
            .iter()
            .enumerate()
            .try_for_each(|(lane, &i)| match i.to_index() {
                Some(k) if k < n => Ok(()),
                _ => Err(Error::IndexOutOfRange {
                    op: "gather".into(),
                    lane,
                    index: i.to_i64(),
                    len: n,
                }),
            });
        self.comm.agree(check)?;
        let global: Vec<usize> = idx.iter().map(|i| i.to_index().unwrap_or(0)).collect();
        let dest: Vec<usize> = global
            .iter()
            .map(|&g| self.offsets[1..].partition_point(|&o| o <= g))
            .collect();
        let lo = self.offsets[self.comm.rank()];
        let (out, _) = request(&self.comm, &dest, &global, 1, false, |q| {
            (self.data[q[0] - lo], 0)
        });
        Ok(out)
    }
}

/// The status of a good reply to a lifted index (a bad one holds the segment's length).
const GOOD: u64 = u64::MAX;

impl<T: Elem> DistNested<T> {
    /// Lifted indexing: lane `k` of this rank reads element `idx[k]` of segment `segs[k]` of
    /// the global array, the same as `flatland_runtime::seg::index_l` on one process.
    ///
    /// Cost: when a segment spans ranks, a gather of two piece lengths to every rank (to route
    /// requests to the piece holding them); an all-to-all of the requests (16 bytes each) to the
    /// ranks holding them and two of the replies (the value and an 8-byte status); one error
    /// agreement before and one after.
    ///
    /// # Errors
    /// The same [`Error::OnRank`] everywhere when some rank's lanes disagree in length or index
    /// out of range: the lowest failing rank's error for its lowest bad lane, as one process
    /// would report it.
    ///
    /// ```
    /// use flatland_mpi::{Comm, DistNested};
    /// use flatland_segd::Segd;
    /// let universe = mpi::initialize().unwrap();
    /// let comm = Comm::new(universe.world());
    /// let part = Segd::from_lengths(vec![2, 1]).unwrap();
    /// let xs = DistNested::from_parts(&comm, part, vec![5, 6, 7]).unwrap();
    /// assert_eq!(xs.index_l(&[1, 0], &[0, 1]).unwrap(), vec![7, 6]);
    /// let e = xs.index_l(&[0], &[2]).unwrap_err();
    /// assert_eq!(e.to_string(), "rank 0: index_l: lane 0: index 2 out of range for length 2");
    /// ```
    pub fn index_l(&self, segs: &[usize], idx: &[i64]) -> Result<Vec<T>> {
        let comm = &self.comm;
        let layout = &self.layout;
        let op = "index_l";
        let check = if segs.len() == idx.len() {
            Ok(())
        } else {
            Err(Error::LengthMismatch {
                op: op.into(),
                expected: segs.len(),
                found: idx.len(),
            })
        };
        comm.agree(check)?;
        let me = comm.rank();
        // Piece lengths of split segments: (head, tail) of every rank.
        let (pieces, _) = if layout.has_split() {
            let m = self.segd.len();
            let head = if layout.continues_left(me) {
                self.segd.length(0)
            } else {
                0
            };
            let tail = if layout.continues_right(me) {
                self.segd.length(m - 1)
            } else {
                0
            };
            comm.all_gather_v(&[head, tail])
        } else {
            (Vec::new(), Vec::new())
        };
        let nsegs = layout.segments();
        // Route every lane: (rank, segment, offset in that rank's piece), or a local error.
        let mut errors: Vec<Option<Error>> = vec![None; segs.len()];
        let mut dest = Vec::with_capacity(segs.len());
        let mut requests = Vec::with_capacity(2 * segs.len());
        for (lane, (&s, &i)) in segs.iter().zip(idx).enumerate() {
            if s >= nsegs {
                errors[lane] = Some(Error::IndexOutOfRange {
                    op: "index_l (segment)".into(),
                    lane,
                    index: s as i64,
                    len: nsegs,
                });
                continue;
            }
            let home = layout.home(s);
            let split = layout.continues_right(home) && layout.segments_of(home).end - 1 == s;
            let (mut rank, mut off) = (home, i);
            if split {
                // Route to the piece holding element i; out of range is found here.
                let total = pieces[2 * home + 1]
                    + continuation(layout, home)
                        .map(|q| pieces[2 * q])
                        .sum::<usize>();
                let Some(mut left) = usize::try_from(i).ok().filter(|&k| k < total) else {
                    errors[lane] = Some(Error::IndexOutOfRange {
                        op: op.into(),
                        lane,
                        index: i,
                        len: total,
                    });
                    continue;
                };
                if left >= pieces[2 * home + 1] {
                    left -= pieces[2 * home + 1];
                    for q in continuation(layout, home) {
                        if left < pieces[2 * q] {
                            rank = q;
                            break;
                        }
                        left -= pieces[2 * q];
                    }
                }
                off = left as i64;
            }
            dest.push(rank);
            requests.extend([s as i64, off]);
        }
        let (seg_lo, segd, data) = (layout.segments_of(me).start, &self.segd, &self.data);
        let (values, statuses) = request(comm, &dest, &requests, 2, true, |q| {
            let k = q[0] as usize - seg_lo;
            let len = segd.length(k);
            match usize::try_from(q[1]) {
                Ok(j) if j < len => (data[segd.start(k) + j], GOOD),
                _ => (T::default(), len as u64),
            }
        });
        let mut out = vec![T::default(); segs.len()];
        let mut replies = values.into_iter().zip(statuses);
        let mut first_bad: Option<Error> = None;
        for (lane, e) in errors.into_iter().enumerate() {
            let e = e.or_else(|| {
                let (value, status) = replies.next().expect("one reply per request");
                out[lane] = value;
                (status != GOOD).then(|| Error::IndexOutOfRange {
                    op: op.into(),
                    lane,
                    index: idx[lane],
                    len: status as usize,
                })
            });
            if first_bad.is_none() {
                first_bad = e;
            }
        }
        comm.agree(first_bad.map_or(Ok(out), Err))
    }
}
