//! Readers for the files that `flatland run` takes: Matrix Market matrices, vectors (one number a
//! line) and point sets (`x y` a line).
//!
//! Every reader reports bad input as an [`InputError`] naming the file, the line and the problem,
//! so the command can print one line and exit with code 2; no input makes a reader panic.
//!
//! ```
//! use flatland_cli::io::{parse_matrix_market, parse_numbers};
//! let m = parse_matrix_market("A.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 4.5\n")
//!     .unwrap();
//! assert_eq!(m.to_csr().row(0), (&[1usize][..], &[4.5][..]));
//! let err = parse_numbers("v.txt", "1\nx\n", None).unwrap_err();
//! assert_eq!(err.to_string(), "v.txt:2: 'x' is not a number");
//! ```

mod csr;
mod error;
mod lines;
mod mtx;
mod numbers;

pub use csr::Csr;
pub use error::InputError;
pub use mtx::{BYTES_PER_ROW, MatrixMarket, Symmetry, parse_matrix_market, read_matrix_market};
pub use numbers::{parse_numbers, parse_points, read_numbers, read_points};
