//! The `#[vectorise]` examples (`examples/vectorise_*.rs`) as tests: each checks the macro's
//! executor path, its `NAME_reference`, the dsl program and plain Rust against each other
//! bitwise on degenerate and generated inputs.

#[allow(dead_code)]
#[path = "../examples/vectorise_smvm.rs"]
mod smvm;

#[allow(dead_code)]
#[path = "../examples/vectorise_quicksort.rs"]
mod quicksort;

#[allow(dead_code)]
#[path = "../examples/vectorise_primes.rs"]
mod primes;

#[allow(dead_code)]
#[path = "../examples/vectorise_quickhull.rs"]
mod quickhull;

#[test]
fn smvm_agrees() {
    smvm::check();
}

#[test]
fn quicksort_agrees() {
    quicksort::check();
}

#[test]
fn primes_agree() {
    primes::check();
}

#[test]
fn quickhull_agrees() {
    quickhull::check();
}

/// The executor walks the IR once per bulk step, never per element: quicksort on sorted input
/// (the middle pivot halves every part, so the lifted recursion is `log2 n` levels deep) walks
/// a number of nodes that grows with the depth, not with `n`, and no lane of its elementwise
/// work is interpreted (the three filters, merged, classify by one comparison per element; the
/// rest runs in native kernels).
#[cfg(feature = "stats")]
#[test]
fn quicksort_walks_nodes_per_level_not_per_element() {
    use flatland::runtime::stats;
    let walked = |log2n: u32| {
        let xs: Vec<f64> = (0..1u32 << log2n).map(f64::from).collect();
        let (sorted, w) =
            stats::measure(|| flatland_cli::kernels::plan::quicksort_f64::executor(&xs).unwrap());
        assert_eq!(sorted, xs);
        assert_eq!(w.lanes_interpreted, 0, "{w:?}");
        assert!(w.lanes_native > 0, "{w:?}");
        w.nodes_walked
    };
    // 2^8, 2^12 and 2^16 elements: 9, 13 and 17 levels (the last of one-element parts). Each
    // level walks the same nodes, so the count is affine in the depth, whatever `n` is.
    let (small, mid, large) = (walked(8), walked(12), walked(16));
    // The recursion's three filters were merged into one (`fuse::siblings`) at every level.
    let trace = flatland_cli::kernels::plan::quicksort_f64::trace().unwrap();
    assert!(trace.routes()["comparison keys"].kernel > 0, "{trace}");
    assert!(small > 0);
    assert_eq!(large - mid, mid - small, "{small}, {mid}, {large} nodes");
    assert!(large < 1 << 10, "{large} nodes for 65536 elements");
}

/// Several executor runs at once on one pool (quicksorts under a parallel iterator, on a machine
/// profile that splits every bulk step into tasks) each sort their own input. A thread waiting
/// on a bulk step's tasks may run another run's kernels (rayon work stealing) and so share the
/// thread's kept repetition of free scalars (`fuse::repeat`, which holds no borrow across a bulk
/// step); stealing is up to timing, so this is a smoke test of that sharing, not a proof.
#[test]
fn quicksorts_run_inside_each_others_tasks() {
    use rayon::prelude::*;
    let inputs: Vec<Vec<f64>> = (0..8u64)
        .map(|k| {
            (0..30_000u64)
                .map(|i| ((i * 2_654_435_761 + k * 97) % 100_003) as f64 - 5e4)
                .collect()
        })
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let sorted: Vec<Vec<f64>> = pool.install(|| {
        inputs
            .par_iter()
            .map(|xs| {
                // A machine on which every bulk step of two leaves or more splits into tasks.
                let eager = flatland::runtime::cost::Machine::new(0.5, 1.0, 0.0, 64);
                flatland::runtime::cost::with_machine(eager, || {
                    flatland_cli::kernels::quicksort_f64(xs)
                })
            })
            .collect()
    });
    for (xs, got) in inputs.iter().zip(&sorted) {
        let mut want = xs.clone();
        want.sort_by(f64::total_cmp);
        assert_eq!(got, &want);
    }
}
