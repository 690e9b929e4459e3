//! Reading a Matrix Market file on every rank against the entries written.

use crate::inputs::{Rng, floats};
use crate::same_bits;
use flatland_mpi::{Comm, DistCsr, Error, Layout};
use flatland_runtime::{assoc::LEAF, seg};
use flatland_segd::Segd;
use mpi::traits::{Communicator, CommunicatorCollectives, Root};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// A file name shared by all ranks (rank 0's process id).
fn shared_path(comm: &Comm, what: &str) -> PathBuf {
    let mut pid = std::process::id();
    comm.raw().process_at_rank(0).broadcast_into(&mut pid);
    std::env::temp_dir().join(format!("flatland-mpi-{pid}-{what}.mtx"))
}

/// Rank 0 writes `text` to `path`; every rank waits for it.
fn write_shared(comm: &Comm, path: &PathBuf, text: &str) {
    if comm.rank() == 0 {
        std::fs::write(path, text).unwrap();
    }
    comm.raw().barrier();
}

/// The agreed error's local part, checked to be the same (rank and all) on every rank.
fn agreed<X>(comm: &Comm, got: Result<X, Error>, what: &str) -> Error {
    let Err(e @ Error::OnRank { .. }) = got else {
        panic!("{what}: expected an agreed error");
    };
    let Error::OnRank { rank, .. } = &e else {
        unreachable!()
    };
    let mut ranks = vec![0usize; comm.size()];
    comm.raw().all_gather_into(rank, &mut ranks[..]);
    assert!(
        ranks.iter().all(|r| r == rank),
        "{what}: ranks disagree: {ranks:?}"
    );
    e.local().clone()
}

pub(crate) fn mtx(comm: &Comm) {
    let (rows, cols) = (300, 3 * LEAF + 500);
    let mut g = Rng::new(11);
    let mut entries: Vec<(usize, usize, f64)> = Vec::new();
    // A long row (it spans ranks once balanced), short random rows, duplicates.
    for j in 0..3 * LEAF + 100 {
        entries.push((5, (j * 7) % cols, g.float()));
    }
    for _ in 0..3_000 {
        entries.push((g.below(rows), g.below(cols), g.float()));
    }
    for k in 0..400 {
        let (r, c, _) = entries[g.below(entries.len())];
        entries.push((r, c, floats(k, 1)[0]));
    }
    let mut text = String::from("%%MatrixMarket matrix coordinate real general\n% a comment\n\n");
    writeln!(text, "{rows} {cols} {}", entries.len()).unwrap();
    for (k, &(r, c, v)) in entries.iter().enumerate() {
        if k % 997 == 0 {
            text.push_str("% a comment between entries\n");
        }
        writeln!(text, "{} {} {v:e}", r + 1, c + 1).unwrap();
    }
    let path = shared_path(comm, "good");
    write_shared(comm, &path, &text);
    let m = DistCsr::read_mtx(comm, &path).unwrap();
    // Duplicates summed in file order.
    let mut want: BTreeMap<(usize, usize), f64> = BTreeMap::new();
    for &(r, c, v) in &entries {
        want.entry((r, c)).and_modify(|x| *x += v).or_insert(v);
    }
    let mut lengths = vec![0usize; rows];
    for &(r, _) in want.keys() {
        lengths[r] += 1;
    }
    let want_segd = Segd::from_lengths(lengths.clone()).unwrap();
    let want_cols: Vec<usize> = want.keys().map(|&(_, c)| c).collect();
    let want_vals: Vec<f64> = want.values().copied().collect();
    let (s, c, v) = m.gather_all();
    assert_eq!(s, want_segd, "mtx rows");
    assert_eq!(c, want_cols, "mtx columns");
    same_bits(&v, &want_vals, "mtx values");
    assert_eq!(
        m.values().layout(),
        &Layout::balanced(&lengths, comm.size()),
        "mtx balanced"
    );
    let x = floats(99, cols);
    let y = m.smvm(&x).unwrap().gather_all();
    let want_y = seg::fold_s_by(
        &want_segd,
        |i| want_vals[i] * x[want_cols[i]],
        0.0,
        |a, b| a + b,
    );
    same_bits(&y, &want_y, "smvm of the file's matrix");

    // A bad line late in the file: every rank reports its global line number.
    let mut bad = text.clone();
    let line = bad.lines().count() as u64 + 1;
    bad.push_str("7 x 1.0\n");
    let path_bad = shared_path(comm, "bad");
    write_shared(
        comm,
        &path_bad,
        &bad.replacen(
            &format!("{}\n", entries.len()),
            &format!("{}\n", entries.len() + 1),
            1,
        ),
    );
    let e = agreed(comm, DistCsr::read_mtx(comm, &path_bad), "bad line");
    let detail = format!("column \"x\" not in 1..={cols}");
    assert_eq!(e, Error::Parse { line, detail }, "bad line");

    // A wrong entry count, and a missing file.
    let path_count = shared_path(comm, "count");
    write_shared(
        comm,
        &path_count,
        &text.replacen(&format!(" {}\n", entries.len()), " 5\n", 1),
    );
    let e = agreed(comm, DistCsr::read_mtx(comm, &path_count), "entry count");
    assert!(
        matches!(e, Error::Parse { line: 4, .. }),
        "entry count: {e}"
    );
    let e = agreed(
        comm,
        DistCsr::read_mtx(comm, "/nonexistent/flatland.mtx"),
        "missing file",
    );
    assert!(matches!(e, Error::Io { .. }), "missing file: {e}");

    comm.raw().barrier();
    if comm.rank() == 0 {
        for p in [path, path_bad, path_count] {
            std::fs::remove_file(p).ok();
        }
    }
}
