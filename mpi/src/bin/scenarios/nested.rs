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
    // Bytes all ranks sent during `f`.
    let measure = |f: &mut dyn FnMut()| {
        let before = comm.bytes_sent();
        f();
        let mine = comm.bytes_sent() - before;
        let mut all = vec![0u64; comm.size()];
        comm.raw().all_gather_into(&mine, &mut all[..]);
        all.iter().sum::<u64>()
    };
    let root = (comm.rank() == 0).then_some((&segd, &cols[..], &vals[..]));
    let mut m = None;
    let scatter = measure(&mut || m = Some(DistCsr::scatter(comm, 0, root, ncols).unwrap()));
    let m = m.unwrap();
    let mut y = None;
    let product = measure(&mut || y = Some(m.smvm(&x).unwrap()));
    let want = one_process(&segd, &cols, &vals, &x);
    same_bits(&y.unwrap().gather_all(), &want, "smvm (bytes)");
    // Whole rows per rank (no row spans ranks): only the error agreement.
    let (p, r) = (comm.size(), comm.rank());
    let (lo, hi) = (segd.len() * r / p, segd.len() * (r + 1) / p);
    let (a, b) = (segd.start(lo), segd.start(hi - 1) + segd.length(hi - 1));
    let part = Segd::from_lengths(segd.lengths()[lo..hi].to_vec()).unwrap();
    let whole = DistCsr::from_parts(comm, part, cols[a..b].to_vec(), vals[a..b].to_vec(), ncols);
    let whole = whole.unwrap();
    let mut y = None;
    let whole_product = measure(&mut || y = Some(whole.smvm(&x).unwrap()));
    same_bits(
        &y.unwrap().gather_all(),
        &want,
        "smvm of whole rows (bytes)",
    );
    if comm.rank() == 0 {
        let per = |b: u64| b as f64 / nnz as f64;
        println!(
            "smvm: {nnz} non-zeros on {p} ranks: smvm sent {product} bytes ({:.6} per non-zero); \
             with whole rows per rank {whole_product} bytes ({:.6} per non-zero); distributing \
             the matrix (scatter) sent {scatter} bytes ({:.3} per non-zero)",
            per(product),
            per(whole_product),
            per(scatter)
        );
    }
}
