//! The rows of an array of arrays at its last read, when that read names several of its rows
//! (`[sorted[0], equal, sorted[1]].concat()`): each named row is handed over by value where
//! the array is owned, instead of copied out of it, so the array's rows are not held twice.

use super::{Cow, index};
use crate::Result;

/// An array of arrays whose rows are taken, each at most once (the emitter takes only rows at
/// distinct constant indices, and reads the array no more after them).
///
/// ```
/// use flatland_vectoriser::lane::{Cow, TakenRows};
/// let rows: Cow<[Vec<i64>]> = Cow::Owned(vec![vec![1, 2], vec![3]]);
/// let mut rows = TakenRows::new(rows);
/// assert!(matches!(rows.take(1, 0).unwrap(), Cow::Owned(r) if r == vec![3]));
/// assert_eq!(rows.take(2, 4).unwrap_err().to_string(), "index: lane 4: index 2 out of range for length 2");
/// let held = [vec![5]];
/// let mut rows = TakenRows::new(Cow::Borrowed(&held[..]));
/// assert!(matches!(rows.take(0, 0).unwrap(), Cow::Borrowed(r) if r == [5]));
/// ```
#[derive(Debug)]
pub struct TakenRows<'a, T: Clone> {
    rows: Cow<'a, [Vec<T>]>,
}

impl<'a, T: Clone> TakenRows<'a, T> {
    /// The array, none of its rows taken yet.
    pub fn new(rows: Cow<'a, [Vec<T>]>) -> TakenRows<'a, T> {
        TakenRows { rows }
    }

    /// Row `i`: moved out of an owned array (leaving it empty there), read in place in a
    /// borrowed one.
    ///
    /// # Errors
    /// `i` out of range: the error of [`index`] in lane `lane`.
    pub fn take(&mut self, i: i64, lane: usize) -> Result<Cow<'a, [T]>> {
        index(&self.rows[..], i, lane)?;
        // (In range: checked above; a negative `i` failed there.)
        #[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)]
        let i = i as usize;
        Ok(match &mut self.rows {
            Cow::Borrowed(rows) => {
                let rows: &'a [Vec<T>] = rows;
                Cow::Borrowed(&rows[i][..])
            }
            Cow::Owned(rows) => Cow::Owned(std::mem::take(&mut rows[i])),
        })
    }
}
