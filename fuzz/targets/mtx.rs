//! The Matrix Market reader: any text gives a located error or a matrix whose CSR form holds
//! the entries, and the all-ones product of it runs (in memory proportional to the entries).

use flatland_cli::harness::compute::smvm_ones;
use flatland_cli::io::parse_matrix_market;

pub fn run(data: &[u8]) {
    super::budget();
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_matrix_market("f.mtx", text) {
        Ok(m) => {
            let a = m.to_csr();
            assert_eq!(a.rows(), m.rows());
            assert!(a.nnz() <= m.entries().len());
            assert!(a.offsets().windows(2).all(|w| w[0] <= w[1]));
            assert!(a.indices().iter().all(|&c| c < m.cols()));
            assert_eq!(smvm_ones(&a).len(), a.rows());
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.starts_with("f.mtx:"), "unlocated error: {msg}");
            assert!(!msg.contains('\n'), "error of more than one line: {msg}");
        }
    }
}
