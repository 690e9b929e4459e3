//! Baselines of the suite's per-row kernels ([`crate::suite`]): each row's computation written
//! once as a plain function of the row, run by the sequential loop over the rows of a CSR array
//! (`values` cut at `offsets`) and by rayon over the same rows (`par_windows`, no tuning).
//!
//! ```
//! use flatland_cli::harness::baselines::suite_rows::{Rows, mean};
//! let rows = Rows { values: &[1.0, 2.0, 4.0], offsets: &[0, 2, 2, 3] };
//! assert_eq!(rows.map_seq(mean), vec![1.5, 0.0, 4.0]);
//! assert_eq!(rows.map_rayon(mean), rows.map_seq(mean));
//! ```

use rayon::prelude::*;

/// Rows of a CSR array: row `i` is `values[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a> {
    /// Every row's values, one row after another.
    pub values: &'a [f64],
    /// Where each row starts, and the end (`rows + 1` offsets).
    pub offsets: &'a [usize],
}

impl<'a> Rows<'a> {
    fn row(&self, w: &[usize]) -> &'a [f64] {
        &self.values[w[0]..w[1]]
    }

    /// `f` of each row, row after row.
    ///
    /// ```
    /// # use flatland_cli::harness::baselines::suite_rows::Rows;
    /// let rows = Rows { values: &[1.0, 2.0], offsets: &[0, 1, 2] };
    /// assert_eq!(rows.map_seq(|r| r.len()), vec![1, 1]);
    /// ```
    pub fn map_seq<T>(&self, f: impl Fn(&[f64]) -> T) -> Vec<T> {
        self.offsets.windows(2).map(|w| f(self.row(w))).collect()
    }

    /// `f` of each row, rows in parallel (rayon over rows).
    ///
    /// ```
    /// # use flatland_cli::harness::baselines::suite_rows::Rows;
    /// let rows = Rows { values: &[1.0, 2.0], offsets: &[0, 1, 2] };
    /// assert_eq!(rows.map_rayon(|r| r[0]), vec![1.0, 2.0]);
    /// ```
    pub fn map_rayon<T: Send>(&self, f: impl Fn(&[f64]) -> T + Sync) -> Vec<T> {
        self.offsets
            .par_windows(2)
            .map(|w| f(self.row(w)))
            .collect()
    }
}

/// The mean of a row, 0 for an empty row.
///
/// ```
/// assert_eq!(flatland_cli::harness::baselines::suite_rows::mean(&[]), 0.0);
/// ```
pub fn mean(r: &[f64]) -> f64 {
    if r.is_empty() {
        0.0
    } else {
        r.iter().sum::<f64>() / r.len() as f64
    }
}

/// The sample variance of a row, 0 for fewer than two values.
///
/// ```
/// assert_eq!(flatland_cli::harness::baselines::suite_rows::variance(&[1.0, 3.0]), 2.0);
/// ```
pub fn variance(r: &[f64]) -> f64 {
    if r.len() < 2 {
        return 0.0;
    }
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    let squares: f64 = r.iter().map(|x| (x - mean) * (x - mean)).sum();
    squares / (r.len() - 1) as f64
}

/// The running sums of a row.
///
/// ```
/// assert_eq!(flatland_cli::harness::baselines::suite_rows::prefix_sums(&[1.0, 2.0]), vec![1.0, 3.0]);
/// ```
pub fn prefix_sums(r: &[f64]) -> Vec<f64> {
    let mut acc = 0.0;
    r.iter()
        .map(|x| {
            acc += x;
            acc
        })
        .collect()
}

/// A row smoothed by `(left + 2 x + right) / 4`, a missing neighbour replaced by the end.
///
/// ```
/// assert_eq!(flatland_cli::harness::baselines::suite_rows::smooth(&[4.0, 8.0]), vec![5.0, 7.0]);
/// ```
pub fn smooth(r: &[f64]) -> Vec<f64> {
    let n = r.len();
    (0..n)
        .map(|i| {
            let left = if i > 0 { r[i - 1] } else { r[i] };
            let right = if i + 1 < n { r[i + 1] } else { r[i] };
            (left + 2.0 * r[i] + right) / 4.0
        })
        .collect()
}

/// The index of the first largest value of a row, -1 when it is empty.
///
/// ```
/// assert_eq!(flatland_cli::harness::baselines::suite_rows::argmax(&[1.0, 3.0, 3.0]), 1);
/// ```
pub fn argmax(r: &[f64]) -> i64 {
    let mut best = -1i64;
    let mut best_value = f64::NEG_INFINITY;
    for (i, &x) in r.iter().enumerate() {
        if best < 0 || x > best_value {
            best = i as i64;
            best_value = x;
        }
    }
    best
}

/// The values of a row above its mean.
///
/// ```
/// let above: Vec<f64> = flatland_cli::harness::baselines::suite_rows::above_mean(&[1.0, 2.0, 6.0]).collect();
/// assert_eq!(above, vec![6.0]);
/// ```
pub fn above_mean(r: &[f64]) -> impl Iterator<Item = f64> + '_ {
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    r.iter().copied().filter(move |&x| x > mean)
}

/// Every row's values above its mean, row after row (sequential).
///
/// ```
/// use flatland_cli::harness::baselines::suite_rows::{Rows, above_mean_seq};
/// let rows = Rows { values: &[1.0, 3.0, 5.0], offsets: &[0, 2, 2, 3] };
/// assert_eq!(above_mean_seq(rows), vec![3.0]);
/// ```
pub fn above_mean_seq(rows: Rows<'_>) -> Vec<f64> {
    rows.offsets
        .windows(2)
        .flat_map(|w| above_mean(rows.row(w)))
        .collect()
}

/// [`above_mean_seq`] with rayon over rows.
///
/// ```
/// use flatland_cli::harness::baselines::suite_rows::{Rows, above_mean_rayon};
/// let rows = Rows { values: &[1.0, 3.0, 5.0], offsets: &[0, 2, 2, 3] };
/// assert_eq!(above_mean_rayon(rows), vec![3.0]);
/// ```
pub fn above_mean_rayon(rows: Rows<'_>) -> Vec<f64> {
    rows.offsets
        .par_windows(2)
        .flat_map_iter(|w| above_mean(rows.row(w)))
        .collect()
}
