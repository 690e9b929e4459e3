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

/// `y = A x` on every rank of `MPI_COMM_WORLD` (`vector` read by every rank; default all
/// ones), then `report(rank, outcome)` on every rank while MPI is still up: the outcome is the
/// product on rank 0 (`Ok(None)` elsewhere), or the error every rank agreed on. A barrier after
/// `report` keeps every rank alive until rank 0 has written its output or its error (mpirun ends
/// the job when a rank exits with an error).
///
/// # Errors
/// When MPI cannot be initialised.
pub fn smvm<R>(
    matrix: &Path,
    vector: Option<&Path>,
    report: impl FnOnce(usize, Result<Option<Vec<f64>>, String>) -> R,
) -> Result<R, String> {
    use mpi::collective::CommunicatorCollectives as _;
    use mpi::topology::Communicator as _;
    let universe = mpi::initialize().ok_or("MPI is already initialised")?;
    let world = universe.world();
    let rank = usize::try_from(world.rank()).unwrap_or(0);
    let r = report(rank, product(&Comm::new(universe.world()), matrix, vector));
    world.barrier();
    Ok(r)
}

fn product(comm: &Comm, matrix: &Path, vector: Option<&Path>) -> Result<Option<Vec<f64>>, String> {
    let a = DistCsr::read_mtx(comm, matrix).map_err(|e| located(matrix, &e))?;
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
    Ok(a.smvm(&x).map_err(|e| local(&e))?.gather_to(0))
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
