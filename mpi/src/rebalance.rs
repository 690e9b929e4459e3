//! Rebalancing: moving pieces of segments, wherever they are, into a balanced layout. The
//! last step of the segmented filter and partition (whose outputs no longer fall on leaf
//! boundaries).

use crate::boundary::{Split, continuation};
use crate::comm::{Comm, Elem};
use crate::dist_nested::DistNested;
use crate::partition::{Cut, Layout, snap, target};
use flatland_segd::Segd;

/// A piece of a segment that this rank holds, in the global array to be laid out.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Piece {
    /// The global segment.
    pub(crate) seg: usize,
    /// Where the segment starts in the global array, and its length.
    pub(crate) seg_start: usize,
    pub(crate) seg_len: usize,
    /// Where the piece starts in the global array, and its length.
    pub(crate) pos: usize,
    pub(crate) len: usize,
    /// Where the piece starts in this rank's data.
    pub(crate) local: usize,
}

/// The global array of `segments` segments and `elements` elements, held as `pieces` of
/// `data` (pieces of all ranks tile the elements), in the balanced layout
/// ([`Layout::balanced`] of the global array).
///
/// Cost: one all-reduce of `3 * (ranks - 1)` words (each cut is found by the rank holding its
/// target element); two all-to-alls, moving each element at most once with a 24-byte header
/// per run of consecutive elements of one piece.
pub(crate) fn rebalance<T: Elem>(
    comm: &Comm,
    pieces: &[Piece],
    data: &[T],
    segments: usize,
    elements: usize,
) -> DistNested<T> {
    let (me, p) = (comm.rank(), comm.size());
    let cuts: Vec<Cut> = if elements == 0 {
        (1..p)
            .map(|r| Cut {
                seg: target(r, segments, p),
                head: 0,
                elem: 0,
            })
            .collect()
    } else {
        let mut words = vec![0u64; 3 * (p - 1)];
        let targets: Vec<usize> = (1..p).map(|r| target(r, elements, p)).collect();
        for pc in pieces.iter().filter(|pc| pc.len > 0) {
            let first = targets.partition_point(|&t| t < pc.pos);
            for (i, &t) in targets.iter().enumerate().skip(first) {
                if t >= pc.pos + pc.len {
                    break;
                }
                let c = snap(t, pc.seg, pc.seg_start, pc.seg_len);
                words[3 * i..3 * i + 3].copy_from_slice(&[
                    c.seg as u64,
                    c.head as u64,
                    c.elem as u64,
                ]);
            }
        }
        let words = comm.all_max(&words);
        words
            .chunks(3)
            .map(|w| Cut {
                seg: w[0] as usize,
                head: w[1] as usize,
                elem: w[2] as usize,
            })
            .collect()
    };
    let layout = Layout::from_cuts(&cuts, segments, elements);
    // Cut the pieces into runs, one per destination rank.
    let mut runs: Vec<(usize, Piece)> = Vec::new();
    for pc in pieces.iter().filter(|pc| pc.len > 0) {
        let mut at = pc.pos;
        while at < pc.pos + pc.len {
            let d = layout.rank_of_element(at);
            let end = (pc.pos + pc.len).min(layout.elements_of(d).end);
            let run = Piece {
                pos: at,
                len: end - at,
                local: pc.local + (at - pc.pos),
                ..*pc
            };
            runs.push((d, run));
            at = end;
        }
    }
    runs.sort_by_key(|&(d, _)| d);
    let mut counts = vec![0usize; p];
    let mut header_counts = vec![0usize; p];
    let mut send = Vec::with_capacity(data.len());
    let mut headers = Vec::with_capacity(3 * runs.len());
    for (d, r) in &runs {
        counts[*d] += r.len;
        header_counts[*d] += 3;
        send.extend_from_slice(&data[r.local..r.local + r.len]);
        headers.extend([r.seg as u64, r.pos as u64, r.len as u64]);
    }
    let (got, _) = comm.all_to_all_v(&send, &counts);
    let (got_headers, _) = comm.all_to_all_v(&headers, &header_counts);
    let segs = layout.segments_of(me);
    let elems = layout.elements_of(me);
    let mut lengths = vec![0usize; segs.len()];
    let mut out = vec![T::default(); elems.len()];
    let mut at = 0;
    for h in got_headers.chunks(3) {
        let (seg, pos, len) = (h[0] as usize, h[1] as usize, h[2] as usize);
        lengths[seg - segs.start] += len;
        out[pos - elems.start..pos - elems.start + len].copy_from_slice(&got[at..at + len]);
        at += len;
    }
    DistNested {
        comm: comm.clone(),
        layout,
        segd: Segd::from_lengths(lengths).expect("pieces tile the elements"),
        data: out,
    }
}

/// Prefix sums: `[0, xs[0], xs[0] + xs[1], ...]`.
pub(crate) fn prefix(xs: &[usize]) -> Vec<usize> {
    let mut v = vec![0];
    let mut acc = 0;
    for &x in xs {
        acc += x;
        v.push(acc);
    }
    v
}

/// The pieces of `layout`'s segments when this rank's pieces have the lengths of `segd` (one
/// per segment of `layout.segments_of(rank)`, in order), and the global element count.
///
/// Cost: a gather of one count to every rank; when a segment spans ranks, two more.
pub(crate) fn pieces(comm: &Comm, layout: &Layout, segd: &Segd) -> (Vec<Piece>, usize) {
    let (me, p) = (comm.rank(), comm.size());
    let starts = prefix(&comm.all_gather(segd.elements()));
    let m = segd.len();
    let sp = Split::of(layout, me, m);
    let (heads, tails) = if layout.has_split() {
        let head = if sp.head { segd.length(0) } else { 0 };
        let tail = if sp.tail { segd.length(m - 1) } else { 0 };
        (comm.all_gather(head), comm.all_gather(tail))
    } else {
        (vec![0; p], vec![0; p])
    };
    let rest = |h: usize| continuation(layout, h).map(|q| heads[q]).sum::<usize>();
    let seg_lo = layout.segments_of(me).start;
    let pieces = (0..m)
        .map(|k| {
            let (local, len) = (segd.start(k), segd.length(k));
            let pos = starts[me] + local;
            let (seg_start, seg_len) = if sp.head && k == 0 {
                let h = layout.home(seg_lo);
                (starts[h + 1] - tails[h], tails[h] + rest(h))
            } else if sp.tail && k == m - 1 {
                (pos, len + rest(me))
            } else {
                (pos, len)
            };
            Piece {
                seg: seg_lo + k,
                seg_start,
                seg_len,
                pos,
                len,
                local,
            }
        })
        .collect();
    (pieces, starts[p])
}

impl<T: Elem> DistNested<T> {
    /// The same nested array in the balanced layout ([`Layout::balanced`] of the global array):
    /// for arrays built from uneven parts ([`DistNested::from_parts`]).
    ///
    /// Cost: gathers of one to three counts to every rank, an all-reduce of
    /// `3 * (ranks - 1)` words and two all-to-alls moving each element at most once (none
    /// that stays on its rank).
    pub fn rebalance(&self) -> DistNested<T> {
        let (pieces, elements) = pieces(&self.comm, &self.layout, &self.segd);
        rebalance(
            &self.comm,
            &pieces,
            &self.data,
            self.layout.segments(),
            elements,
        )
    }
}
