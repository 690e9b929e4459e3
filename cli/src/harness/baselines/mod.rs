//! Baseline implementations that flatland's workloads are measured against: plain sequential
//! loops and hand-written rayon code, plus `sprs` for sparse matrix-vector multiplication.
//!
//! They are also the plain-Rust paths of `flatland run` where no flatland path exists yet.
//!
//! ```
//! use flatland_cli::harness::baselines::seg;
//! assert_eq!(seg::sum_seq(&[1.0, 2.0, 3.0], &[0, 2, 2, 3]), vec![3.0, 0.0, 3.0]);
//! ```

pub mod flat;
pub mod fusion2;
pub mod partition;
pub mod quickhull;
pub mod seg;
pub mod sieve;
pub mod smvm;
pub mod suite_divide;
pub mod suite_pairs;
pub mod suite_rows;
pub mod tree_lookup;
