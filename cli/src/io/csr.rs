//! Compressed sparse rows: the in-memory form of a sparse matrix.

/// A sparse matrix in compressed sparse row form: row `i` holds the column indices
/// `cols[offsets[i]..offsets[i + 1]]` (ascending, no duplicates) and the values at the same
/// positions.
///
/// ```
/// use flatland_cli::io::Csr;
/// let a = Csr::from_triplets(2, 3, vec![(1, 2, 5.0), (0, 0, 1.0), (1, 2, 1.0)]);
/// assert_eq!(a.offsets(), &[0, 1, 2]);
/// assert_eq!(a.row(1), (&[2usize][..], &[6.0][..]));
/// assert_eq!(a.nnz(), 2);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    rows: usize,
    cols: usize,
    offsets: Vec<usize>,
    indices: Vec<usize>,
    values: Vec<f64>,
}

impl Csr {
    /// Builds a matrix from `(row, column, value)` triplets (0-based), summing duplicates.
    ///
    /// Panics if an index is out of range: callers validate indices first (the Matrix Market
    /// reader reports them with their line).
    ///
    /// ```
    /// use flatland_cli::io::Csr;
    /// let a = Csr::from_triplets(1, 1, vec![(0, 0, 1.5), (0, 0, 2.0)]);
    /// assert_eq!(a.values(), &[3.5]);
    /// ```
    pub fn from_triplets(rows: usize, cols: usize, mut triplets: Vec<(usize, usize, f64)>) -> Self {
        for &(r, c, _) in &triplets {
            assert!(
                r < rows && c < cols,
                "Csr::from_triplets: ({r}, {c}) outside {rows}x{cols}"
            );
        }
        // Stable, so duplicates are summed in file order.
        triplets.sort_by_key(|&(r, c, _)| (r, c));
        let mut offsets = vec![0; rows + 1];
        let mut indices = Vec::with_capacity(triplets.len());
        let mut values: Vec<f64> = Vec::with_capacity(triplets.len());
        let mut last = None;
        for (r, c, v) in triplets {
            if last == Some((r, c)) {
                *values.last_mut().expect("a previous entry exists") += v;
            } else {
                offsets[r + 1] += 1;
                indices.push(c);
                values.push(v);
                last = Some((r, c));
            }
        }
        for i in 0..rows {
            offsets[i + 1] += offsets[i];
        }
        Self {
            rows,
            cols,
            offsets,
            indices,
            values,
        }
    }

    /// Adopts CSR arrays; `None` unless they describe a valid matrix (offsets start at 0, never
    /// decrease and end at `indices.len() == values.len()`; column indices in range).
    ///
    /// ```
    /// use flatland_cli::io::Csr;
    /// assert!(Csr::from_parts(1, 2, vec![0, 1], vec![1], vec![2.0]).is_some());
    /// assert!(Csr::from_parts(1, 2, vec![0, 1], vec![2], vec![2.0]).is_none());
    /// ```
    pub fn from_parts(
        rows: usize,
        cols: usize,
        offsets: Vec<usize>,
        indices: Vec<usize>,
        values: Vec<f64>,
    ) -> Option<Self> {
        let ok = rows.checked_add(1) == Some(offsets.len())
            && offsets.first() == Some(&0)
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets.last() == Some(&indices.len())
            && indices.len() == values.len()
            && indices.iter().all(|&c| c < cols);
        ok.then_some(Self {
            rows,
            cols,
            offsets,
            indices,
            values,
        })
    }

    /// Number of rows.
    ///
    /// ```
    /// # use flatland_cli::io::Csr;
    /// assert_eq!(Csr::from_triplets(3, 1, vec![]).rows(), 3);
    /// ```
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    ///
    /// ```
    /// # use flatland_cli::io::Csr;
    /// assert_eq!(Csr::from_triplets(3, 1, vec![]).cols(), 1);
    /// ```
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Number of stored entries.
    ///
    /// ```
    /// # use flatland_cli::io::Csr;
    /// assert_eq!(Csr::from_triplets(3, 1, vec![(2, 0, 1.0)]).nnz(), 1);
    /// ```
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Row offsets (`rows + 1` entries, starting at 0).
    ///
    /// ```
    /// # use flatland_cli::io::Csr;
    /// assert_eq!(Csr::from_triplets(2, 1, vec![(1, 0, 1.0)]).offsets(), &[0, 0, 1]);
    /// ```
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// Column index of every stored entry, row after row.
    ///
    /// ```
    /// # use flatland_cli::io::Csr;
    /// assert_eq!(Csr::from_triplets(1, 3, vec![(0, 2, 1.0)]).indices(), &[2]);
    /// ```
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// Value of every stored entry, row after row.
    ///
    /// ```
    /// # use flatland_cli::io::Csr;
    /// assert_eq!(Csr::from_triplets(1, 3, vec![(0, 2, 7.0)]).values(), &[7.0]);
    /// ```
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The matrix taken apart: row offsets, column indices and values (no copy).
    ///
    /// ```
    /// # use flatland_cli::io::Csr;
    /// let (offsets, indices, values) = Csr::from_triplets(2, 3, vec![(1, 2, 7.0)]).into_parts();
    /// assert_eq!((offsets, indices, values), (vec![0, 0, 1], vec![2], vec![7.0]));
    /// ```
    #[must_use]
    pub fn into_parts(self) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
        (self.offsets, self.indices, self.values)
    }

    /// Column indices and values of row `i`.
    ///
    /// ```
    /// # use flatland_cli::io::Csr;
    /// let a = Csr::from_triplets(2, 2, vec![(1, 0, 1.0), (1, 1, 2.0)]);
    /// assert_eq!(a.row(1), (&[0usize, 1][..], &[1.0, 2.0][..]));
    /// ```
    pub fn row(&self, i: usize) -> (&[usize], &[f64]) {
        let r = self.offsets[i]..self.offsets[i + 1];
        (&self.indices[r.clone()], &self.values[r])
    }
}
