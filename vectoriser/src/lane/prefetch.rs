//! Gathers a map over rows asks for early: the lanes of a map over the rows of an array of
//! arrays whose code reads `v[c]` at the elements `c` of its row (smvm's `v[c]` over the
//! columns of a sparse row) wait on memory at every gather once `v` is out of cache, and on
//! short rows the processor looks only a few lanes ahead on its own. Per-lane code then asks
//! for the gathers of the row [`LANES_AHEAD`] lanes on before it runs each lane
//! ([`prefetch_row_gathers`]), where [`gathers_pay`] says, once per map, that it pays. A hint:
//! it changes no result.

use super::RowsOf;
use flatland_runtime::hint;

/// How many lanes ahead a lane asks for the gathers of a row: on rows of two entries, about
/// as far ahead as the runtime's segmented loops prefetch (24 entries).
pub const LANES_AHEAD: usize = 8;

/// At most this many elements of the row ahead are prefetched: all of a short row's (with 8,
/// rows of 20 random columns ran 1.25x slower than without prefetching, the elements past
/// the eighth still waited on memory), part of a long row's, whose own loop keeps the
/// processor's look-ahead busy anyway.
pub const ELEMENTS_PER_ROW: usize = 32;

/// Whether prefetching the gathers `xs[c]` at the elements `c` of `rows` pays: `xs` is beyond
/// the caches and the indices of the first rows (up to `hint::PREFETCH_SAMPLE` rows and indices) jump
/// across cache lines ([`hint::prefetch_pays`] on them). Samples only where `xs` is that
/// large.
///
/// ```
/// use flatland_runtime::elt::Nested;
/// use flatland_vectoriser::lane::{Rows, gathers_pay};
/// let cols: Vec<Vec<i64>> = (0..600).map(|i| vec![i * 7919 % (1 << 23), i * 104_729 % (1 << 23)]).collect();
/// let cols = Nested::from(cols);
/// let big = vec![0.0f64; 1 << 23];
/// assert!(gathers_pay(&big, &Rows::new(&cols)));
/// assert!(!gathers_pay(&big[..1000], &Rows::new(&cols)));
/// ```
pub fn gathers_pay<T, R: RowsOf<i64>>(xs: &[T], rows: &R) -> bool {
    if !hint::beyond_cache(xs) {
        return false;
    }
    // On the stack: a map inside a lane decides once per call, and an allocation per call
    // would cost more than a short map's lanes.
    let mut sample = [0i64; hint::PREFETCH_SAMPLE];
    let mut n = 0;
    // At most as many rows as indices: a map whose first rows are empty costs no walk of them.
    for i in 0..rows.count().min(sample.len()) {
        let row = rows.row(i);
        let take = row.len().min(sample.len() - n);
        sample[n..n + take].copy_from_slice(&row[..take]);
        n += take;
        if n == sample.len() {
            break;
        }
    }
    hint::prefetch_pays(xs, &sample[..n])
}

/// Asks for the gathers `xs[c]` at the first [`ELEMENTS_PER_ROW`] elements `c` of row `lane`
/// of `rows`, if there is such a row; out-of-range indices are skipped (their lane reports
/// them when it runs). Changes no result.
///
/// ```
/// use flatland_vectoriser::lane::{Cow, prefetch_row_gathers};
/// let rows: Cow<'_, [Vec<i64>]> = Cow::Owned(vec![vec![3, -1, 99]]);
/// let v = vec![1.0f64; 10];
/// prefetch_row_gathers(&v, &rows, 0);
/// prefetch_row_gathers(&v, &rows, 5); // past the last row: nothing happens
/// ```
#[inline]
pub fn prefetch_row_gathers<T, R: RowsOf<i64>>(xs: &[T], rows: &R, lane: usize) {
    if lane < rows.count() {
        for &c in rows.row(lane).iter().take(ELEMENTS_PER_ROW) {
            hint::prefetch(xs, c as u64 as usize);
        }
    }
}
