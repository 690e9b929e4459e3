//! Distributed lifted indexing and smvm against `flatland_runtime::seg`.

use crate::inputs::{Rng, floats};
use crate::{build, for_each_case, same_bits};
use flatland_mpi::{Comm, DistCsr};
use flatland_runtime::{assoc::LEAF, seg};
use flatland_segd::{Segd, VSegd};
use mpi::traits::CommunicatorCollectives;

pub(crate) fn index_l(comm: &Comm) {
    for_each_case(comm, |name, segd, data| {
        let nonempty: Vec<usize> = (0..segd.len()).filter(|&s| segd.length(s) > 0).collect();
        let mut g = Rng::new(2000 + comm.rank() as u64);
        let (segs, idx): (Vec<usize>, Vec<i64>) = if nonempty.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            (0..61)
                .map(|_| {
                    let s = nonempty[g.below(nonempty.len())];
                    (s, g.below(segd.length(s)) as i64)
                })
                .unzip()
        };
        let vsegd = VSegd::from_segd(segd);
        let want = seg::index_l(&vsegd, &[data], &segs, &idx).unwrap();
        for (how, d) in build(comm, segd, data) {
            let got = d.index_l(&segs, &idx).unwrap();
            same_bits(&got, &want, &format!("index_l {name} ({how})"));
        }
    });
}

fn csr(segd: &Segd, seed: u64, ncols: usize) -> (Vec<usize>, Vec<f64>) {
    let mut g = Rng::new(seed);
    let cols = (0..segd.elements()).map(|_| g.below(ncols)).collect();
    (cols, floats(seed + 1, segd.elements()))
}

fn one_process(segd: &Segd, cols: &[usize], vals: &[f64], x: &[f64]) -> Vec<f64> {
    seg::fold_s_by(segd, |i| vals[i] * x[cols[i]], 0.0, |a, b| a + b)
}

pub(crate) fn smvm(comm: &Comm) {
    let ncols = 500;
    let x = floats(77, ncols);
    for_each_case(comm, |name, segd, _| {
        let (cols, vals) = csr(segd, segd.elements() as u64, ncols);
        let want = one_process(segd, &cols, &vals, &x);
        let root = (comm.rank() == 0).then_some((segd, &cols[..], &vals[..]));
        let m = DistCsr::scatter(comm, 0, root, ncols).unwrap();
        same_bits(
            &m.smvm(&x).unwrap().gather_all(),
            &want,
            &format!("smvm {name}"),
        );
    });
}

/// Bytes sent per non-zero by smvm, whole rows per rank and with long rows split; printed.
pub(crate) fn smvm_bytes(comm: &Comm) {
    let ncols = 10_000;
    let x = floats(5, ncols);
    let mut g = Rng::new(9);
    // About 2M non-zeros: short rows, a few long ones spanning ranks.
    let lengths: Vec<usize> = (0..200_000)
        .map(|i| {
            if i % 50_000 == 7 {
                100 * LEAF
            } else {
                g.below(10)
            }
        })
        .collect();
    let segd = Segd::from_lengths(lengths).unwrap();
    let (cols, vals) = csr(&segd, 3, ncols);
    let nnz = segd.elements();
    let root = (comm.rank() == 0).then_some((&segd, &cols[..], &vals[..]));
    let m = DistCsr::scatter(comm, 0, root, ncols).unwrap();
    let before = comm.bytes_sent();
    let y = m.smvm(&x).unwrap();
    let mine = comm.bytes_sent() - before;
    let mut all = vec![0u64; comm.size()];
    comm.raw().all_gather_into(&mine, &mut all[..]);
    let total: u64 = all.iter().sum();
    same_bits(
        &y.gather_all(),
        &one_process(&segd, &cols, &vals, &x),
        "smvm (bytes)",
    );
    if comm.rank() == 0 {
        println!(
            "smvm: {nnz} non-zeros on {} ranks: {total} bytes sent in all, {:.6} bytes per non-zero",
            comm.size(),
            total as f64 / nnz as f64
        );
    }
}
