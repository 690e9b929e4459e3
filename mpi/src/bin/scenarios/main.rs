//! Scenario runner for `tests/mpirun.rs`: `mpirun -n N flatland-mpi-scenarios NAME` runs the
//! named check on every rank and exits non-zero (a panic) on the first mismatch.

mod errors;
mod flat;
mod fold_scan;
mod inputs;
mod mtx;
mod nested;
mod seg_select;

use flatland_mpi::{Comm, DistNested};
use flatland_segd::Segd;
use mpi::traits::{Communicator, CommunicatorCollectives};

/// Runs `f` on every descriptor family with seeded data, the same on every rank.
pub(crate) fn for_each_case(comm: &Comm, mut f: impl FnMut(&str, &Segd, &[f64])) {
    for (i, (name, lengths)) in inputs::families().into_iter().enumerate() {
        let segd = Segd::from_lengths(lengths).unwrap();
        let data = inputs::floats(i as u64, segd.elements());
        f(&name, &segd, &data);
        // Keep the ranks in step between cases (a failure names its case).
        comm.raw().barrier();
    }
}

/// The array distributed two ways: scattered from rank 0 (balanced, long segments split) and
/// from parts of whole segments that each rank takes itself.
pub(crate) fn build(
    comm: &Comm,
    segd: &Segd,
    data: &[f64],
) -> Vec<(&'static str, DistNested<f64>)> {
    let root = (comm.rank() == 0).then_some((segd, data));
    let scattered = DistNested::scatter(comm, 0, root).unwrap();
    scattered.layout().validate().unwrap();
    if segd.len() == 1 && segd.elements() >= 7 * flatland_runtime::assoc::LEAF {
        // One segment spanning every rank: each holds a piece of it.
        for r in 0..comm.size() {
            assert_eq!(scattered.layout().segments_of(r), 0..1, "spanning layout");
        }
    }
    assert_eq!(scattered.layout().segments(), segd.len());
    let (s, d) = scattered.gather_all();
    assert_eq!(&s, segd, "scatter then gather keeps the descriptor");
    same_bits(&d, data, "scatter then gather keeps the data");
    let last = comm.size() - 1;
    match scattered.gather_to(last) {
        Some((s, d)) => {
            assert_eq!(&s, segd, "gather_to keeps the descriptor");
            same_bits(&d, data, "gather_to keeps the data");
        }
        None => assert_ne!(comm.rank(), last, "gather_to gives the root the array"),
    }
    let (p, r) = (comm.size(), comm.rank());
    let (lo, hi) = (segd.len() * r / p, segd.len() * (r + 1) / p);
    let (a, b) = if lo < hi {
        (segd.start(lo), segd.start(hi - 1) + segd.length(hi - 1))
    } else {
        (0, 0)
    };
    let part = Segd::from_lengths(segd.lengths()[lo..hi].to_vec()).unwrap();
    let parts = DistNested::from_parts(comm, part, data[a..b].to_vec()).unwrap();
    // From parts to the balanced layout: the layout scatter chose, the same elements.
    let rebalanced = parts.rebalance();
    assert_eq!(
        rebalanced.layout(),
        scattered.layout(),
        "rebalance gives the balanced layout"
    );
    assert_eq!(
        rebalanced.segd(),
        scattered.segd(),
        "rebalance gives the balanced pieces"
    );
    same_bits(
        rebalanced.data(),
        scattered.data(),
        "rebalance moves the elements",
    );
    vec![
        ("scattered", scattered),
        ("from parts", parts),
        ("rebalanced", rebalanced),
    ]
}

/// Asserts bitwise equality of two float vectors.
pub(crate) fn same_bits(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits(),
            "{what}: element {i}: got {g:e} ({:#x}), want {w:e} ({:#x})",
            g.to_bits(),
            w.to_bits()
        );
    }
}

fn main() {
    let universe = mpi::initialize().expect("MPI initialises once");
    let comm = Comm::new(universe.world());
    // A failed check on one rank takes the whole job down at once (the others would wait in
    // their next collective).
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        mpi::topology::SimpleCommunicator::world().abort(101);
    }));
    let name = std::env::args().nth(1).unwrap_or_default();
    match name.as_str() {
        "fold" => fold_scan::fold(&comm),
        "scan" => fold_scan::scan(&comm),
        "filter" => flat::filter(&comm),
        "partition" => flat::partition(&comm),
        "gather" => flat::gather(&comm),
        "index_l" => nested::index_l(&comm),
        "smvm" => nested::smvm(&comm),
        "smvm_bytes" => nested::smvm_bytes(&comm),
        "errors" => errors::errors(&comm),
        "filter_s" => seg_select::filter_s(&comm),
        "mtx" => mtx::mtx(&comm),
        "partition_s" => seg_select::partition_s(&comm),
        other => panic!("unknown scenario {other:?}"),
    }
    comm.raw().barrier();
    if comm.rank() == 0 {
        println!("scenario {name}: ok on {} ranks", comm.size());
    }
}
