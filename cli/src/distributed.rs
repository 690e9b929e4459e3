//! `flatland run smvm` under `mpirun` (the `mpi` feature): the matrix read by every rank from
//! its byte range of the file, rows distributed by non-zeros, the vector replicated, and the
//! product gathered to rank 0, which writes it. The output is the one-process output, bit for
//! bit ([`flatland::mpi::DistCsr::smvm`] keeps the canonical association across ranks).
//!
//! Errors agree: every rank gets the same error; rank 0 prints it.

use flatland::mpi::{Comm, DistCsr, Error};
use std::path::Path;

/// Whether this process was started by `mpirun` (Open MPI or another PMI launcher).
pub fn under_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// What a distributed run produced on this rank: the product on rank 0, nothing elsewhere.
pub struct Output {
    /// This rank.
    pub rank: usize,
    /// The product (rank 0 only).
    pub y: Option<Vec<f64>>,
}

/// `y = A x` on every rank of `MPI_COMM_WORLD`; `vector` is read by every rank (default: all
/// ones).
///
/// # Errors
/// The same error on every rank: the matrix or vector file's problem (with its global line),
/// or a distributed operation's.
pub fn smvm(matrix: &Path, vector: Option<&Path>) -> Result<Output, String> {
    let universe = mpi::initialize().ok_or("MPI is already initialised")?;
    let comm = Comm::new(universe.world());
    let a = DistCsr::read_mtx(&comm, matrix).map_err(|e| located(matrix, &e))?;
    let x = if let Some(v) = vector {
        let read = crate::io::read_numbers(v, Some(a.ncols())).map_err(|e| Error::Invalid {
            op: INPUT.into(),
            detail: e.to_string(),
        });
        comm.agree(read).map_err(|e| local(&e))?
    } else {
        let fits =
            flatland::runtime::budget::check_elements::<f64>("the vector of ones", a.ncols())
                .map_err(Error::from);
        comm.agree(fits).map_err(|e| located(matrix, &e))?;
        vec![1.0; a.ncols()]
    };
    let y = a.smvm(&x).map_err(|e| local(&e))?.gather_to(0);
    Ok(Output {
        rank: comm.rank(),
        y,
    })
}

/// The lowest failing rank's own error (every rank holds the same), naming `file`.
fn located(file: &Path, e: &Error) -> String {
    match e.local() {
        Error::Parse { line, detail } => format!("{}:{line}: {detail}", file.display()),
        other => format!("{}: {other}", file.display()),
    }
}

/// The lowest failing rank's own error, as the one-process command words it for input files.
fn local(e: &Error) -> String {
    match e.local() {
        Error::Invalid { op, detail } if op == INPUT => detail.clone(),
        other => other.to_string(),
    }
}

/// The operation named by a reader's error carried through [`Comm::agree`].
const INPUT: &str = "input";
