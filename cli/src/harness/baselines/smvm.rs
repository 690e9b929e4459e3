//! Sparse matrix-vector multiplication `y = A x` over a [`Csr`] matrix.

use crate::io::Csr;
use rayon::prelude::*;

fn row_dot(a: &Csr, i: usize, x: &[f64]) -> f64 {
    let (cols, vals) = a.row(i);
    cols.iter().zip(vals).map(|(&c, &v)| v * x[c]).sum()
}

/// `A x` by the sequential CSR loop. Panics unless `x.len() == a.cols()`.
///
/// ```
/// use flatland_cli::{harness::baselines::smvm::smvm_seq, io::Csr};
/// let a = Csr::from_triplets(2, 2, vec![(0, 0, 2.0), (0, 1, 1.0), (1, 1, 3.0)]);
/// assert_eq!(smvm_seq(&a, &[1.0, 10.0]), vec![12.0, 30.0]);
/// ```
pub fn smvm_seq(a: &Csr, x: &[f64]) -> Vec<f64> {
    assert_eq!(x.len(), a.cols(), "smvm: vector length");
    (0..a.rows()).map(|i| row_dot(a, i, x)).collect()
}

/// `A x` with rayon, parallel over rows (the hand-written row-parallel CSR loop).
///
/// ```
/// use flatland_cli::{harness::baselines::smvm::smvm_rayon, io::Csr};
/// let a = Csr::from_triplets(2, 2, vec![(0, 0, 2.0), (1, 0, 1.0)]);
/// assert_eq!(smvm_rayon(&a, &[1.0, 10.0]), vec![2.0, 1.0]);
/// ```
pub fn smvm_rayon(a: &Csr, x: &[f64]) -> Vec<f64> {
    assert_eq!(x.len(), a.cols(), "smvm: vector length");
    (0..a.rows())
        .into_par_iter()
        .map(|i| row_dot(a, i, x))
        .collect()
}

/// The matrix as an `sprs` CSR matrix (copies the arrays).
///
/// ```
/// use flatland_cli::{harness::baselines::smvm::to_sprs, io::Csr};
/// let a = to_sprs(&Csr::from_triplets(2, 3, vec![(1, 2, 1.0)]));
/// assert_eq!((a.rows(), a.cols(), a.nnz()), (2, 3, 1));
/// ```
pub fn to_sprs(a: &Csr) -> sprs::CsMat<f64> {
    sprs::CsMat::new(
        (a.rows(), a.cols()),
        a.offsets().to_vec(),
        a.indices().to_vec(),
        a.values().to_vec(),
    )
}

/// `A x` by `sprs` (its sequential CSR matrix-vector product).
///
/// ```
/// use flatland_cli::{harness::baselines::smvm::{smvm_sprs, to_sprs}, io::Csr};
/// let a = to_sprs(&Csr::from_triplets(2, 2, vec![(0, 1, 2.0), (1, 0, 1.0)]));
/// assert_eq!(smvm_sprs(&a, &[3.0, 4.0]), vec![8.0, 3.0]);
/// ```
pub fn smvm_sprs(a: &sprs::CsMat<f64>, x: &[f64]) -> Vec<f64> {
    assert_eq!(x.len(), a.cols(), "smvm: vector length");
    let mut y = vec![0.0; a.rows()];
    sprs::prod::mul_acc_mat_vec_csr(a.view(), x, &mut y[..]);
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::inputs::{Rng, power_law_matrix};

    #[test]
    fn all_agree_with_dense() {
        let a = power_law_matrix(300, 200, 3000, 5);
        let mut r = Rng::new(1);
        let x: Vec<f64> = (0..200).map(|_| r.dyadic()).collect();
        let mut dense = vec![vec![0.0; 200]; 300];
        for (i, row) in dense.iter_mut().enumerate() {
            let (c, v) = a.row(i);
            for (&c, &v) in c.iter().zip(v) {
                row[c] += v;
            }
        }
        let want: Vec<f64> = dense
            .iter()
            .map(|row| row.iter().zip(&x).map(|(a, b)| a * b).sum())
            .collect();
        assert_eq!(smvm_seq(&a, &x), want);
        assert_eq!(smvm_rayon(&a, &x), want);
        assert_eq!(smvm_sprs(&to_sprs(&a), &x), want);
    }
}
