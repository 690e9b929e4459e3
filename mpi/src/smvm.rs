//! Distributed sparse matrix-vector multiplication: CSR rows distributed by segment, the
//! dense vector replicated.

use crate::comm::Comm;
use crate::dist_array::DistArray;
use crate::dist_nested::DistNested;
use crate::fold::fold_leaves;
use crate::{Error, Result};
use flatland_runtime::assoc;
use flatland_segd::Segd;

/// A sparse matrix in CSR form, its rows distributed as the segments of a [`DistNested`]
/// (balanced by non-zeros; a very long row may span ranks).
///
/// ```
/// use flatland_mpi::{Comm, DistCsr};
/// use flatland_segd::Segd;
/// let universe = mpi::initialize().unwrap();
/// let comm = Comm::new(universe.world());
/// // [[1, 0, 2], [0, 3, 0]]
/// let rows = Segd::from_lengths(vec![2, 1]).unwrap();
/// let (cols, vals) = (vec![0, 2, 1], vec![1.0, 2.0, 3.0]);
/// let root = (comm.rank() == 0).then_some((&rows, &cols[..], &vals[..]));
/// let m = DistCsr::scatter(&comm, 0, root, 3).unwrap();
/// assert_eq!(m.smvm(&[1.0, 1.0, 1.0]).unwrap().gather_all(), vec![3.0, 3.0]);
/// ```
#[derive(Clone)]
pub struct DistCsr {
    pub(crate) vals: DistNested<f64>,
    pub(crate) cols: Vec<usize>,
    pub(crate) ncols: usize,
}

fn check_cols(op: &str, cols: &[usize], vals: usize, rows: &Segd, ncols: usize) -> Result<()> {
    if cols.len() != vals || rows.elements() != vals {
        return Err(Error::LengthMismatch {
            op: op.into(),
            expected: rows.elements(),
            found: if cols.len() == rows.elements() {
                vals
            } else {
                cols.len()
            },
        });
    }
    match cols.iter().position(|&c| c >= ncols) {
        Some(lane) => Err(Error::IndexOutOfRange {
            op: op.into(),
            lane,
            index: cols[lane] as i64,
            len: ncols,
        }),
        None => Ok(()),
    }
}

impl DistCsr {
    /// Scatters the matrix with rows `rows`, column indices `cols` and values `vals` (given on
    /// `root`) of `ncols` columns (given everywhere), balanced by non-zeros.
    ///
    /// Cost: as [`DistNested::scatter`], plus one scatter of the column indices.
    ///
    /// # Errors
    /// The same [`Error::OnRank`] everywhere when the root's arrays disagree in length or a
    /// column index is out of range.
    pub fn scatter(
        comm: &Comm,
        root: usize,
        global: Option<(&Segd, &[usize], &[f64])>,
        ncols: usize,
    ) -> Result<DistCsr> {
        let check = match global {
            _ if root >= comm.size() => Err(Error::invalid(
                "DistCsr::scatter",
                format!("root {root} out of range for {} ranks", comm.size()),
            )),
            Some((rows, cols, vals)) if comm.rank() == root => {
                check_cols("DistCsr::scatter", cols, vals.len(), rows, ncols)
            }
            _ => Ok(()),
        };
        comm.agree(check)?;
        let vals = DistNested::scatter(comm, root, global.map(|(r, _, v)| (r, v)))?;
        let cols = vals.scatter_like(root, global.map(|(_, c, _)| c)).data;
        Ok(DistCsr { vals, cols, ncols })
    }

    /// The matrix whose rank `r` rows are the `rows`, `cols`, `vals` rank `r` holds (whole
    /// rows, in rank order), of `ncols` columns.
    ///
    /// # Errors
    /// The same [`Error::OnRank`] everywhere when some rank's arrays disagree in length or hold
    /// a column out of range.
    pub fn from_parts(
        comm: &Comm,
        rows: Segd,
        cols: Vec<usize>,
        vals: Vec<f64>,
        ncols: usize,
    ) -> Result<DistCsr> {
        comm.agree(check_cols(
            "DistCsr::from_parts",
            &cols,
            vals.len(),
            &rows,
            ncols,
        ))?;
        let vals = DistNested::from_parts(comm, rows, vals)?;
        Ok(DistCsr { vals, cols, ncols })
    }

    /// The same matrix balanced by non-zeros ([`DistNested::rebalance`]; a long row may then
    /// span ranks). Cost: that of two rebalancings (the values and the column indices).
    pub fn rebalance(&self) -> DistCsr {
        let cols = DistNested {
            comm: self.vals.comm.clone(),
            layout: self.vals.layout.clone(),
            segd: self.vals.segd.clone(),
            data: self.cols.clone(),
        };
        DistCsr {
            vals: self.vals.rebalance(),
            cols: cols.rebalance().data,
            ncols: self.ncols,
        }
    }

    /// The whole matrix on every rank: row descriptor, column indices, values (for tests and
    /// small matrices). Cost: three gathers to every rank.
    pub fn gather_all(&self) -> (Segd, Vec<usize>, Vec<f64>) {
        let (rows, vals) = self.vals.gather_all();
        let (cols, _) = self.vals.comm.all_gather_v(&self.cols);
        (rows, cols, vals)
    }

    /// The values, as a distributed nested array (one segment per row).
    pub fn values(&self) -> &DistNested<f64> {
        &self.vals
    }

    /// This rank's column indices (one per local value).
    pub fn cols(&self) -> &[usize] {
        &self.cols
    }

    /// The number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// The product with the dense vector `x` (the same on every rank), one result per row at
    /// the row's home rank: bitwise equal to the one-process
    /// `flatland_runtime::seg::fold_s_by(rows, |i| vals[i] * x[cols[i]], 0.0, |a, b| a + b)`.
    ///
    /// Cost: one error agreement (8 bytes per rank), and, for rows spanning ranks, the
    /// exchange of their leaf sums as in [`DistNested::fold_s`] (8 bytes per 4,096 non-zeros of
    /// a split row, plus two counts per rank). `x` itself is not sent: replicating it is the
    /// caller's (one broadcast of `8 * ncols` bytes).
    ///
    /// # Errors
    /// The same [`Error::OnRank`] everywhere when some rank's `x` does not have `ncols`
    /// elements.
    pub fn smvm(&self, x: &[f64]) -> Result<DistArray<f64>> {
        let check = if x.len() == self.ncols {
            Ok(())
        } else {
            Err(Error::LengthMismatch {
                op: "smvm".into(),
                expected: self.ncols,
                found: x.len(),
            })
        };
        self.vals.comm.agree(check)?;
        let (vals, cols) = (&self.vals.data, &self.cols);
        let leaf = |r: std::ops::Range<usize>| {
            let lo = r.start;
            assoc::leaf_fold_by(
                r.len(),
                |i| vals[lo + i] * x[cols[lo + i]],
                0.0,
                |a, b| a + b,
            )
        };
        Ok(fold_leaves(
            &self.vals.comm,
            &self.vals.layout,
            &self.vals.segd,
            0.0,
            leaf,
            |a, b| a + b,
        ))
    }
}
