//! Many callers at once: `#[vectorise]` functions, the executor and the segmented primitives
//! called from 8 OS threads together, inside a caller's rayon pool (of one thread and of
//! several), and nested (a kernel called from inside another parallel operation's closure).
//! Every result equals the one computed alone, bit for bit, nothing deadlocks, and the work
//! counters stay per scope.

use flatland::prelude::*;
use flatland::vectoriser::programs;
use rayon::prelude::*;

#[vectorise]
mod k {
    use flatland::prelude::Nested;

    pub fn row_sums(rows: &Nested<f64>) -> Vec<f64> {
        rows.map(|r| r.sum())
    }

    pub fn sorted(xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let p = xs[xs.len() / 2];
            let parts = [
                xs.iter().filter(|&x| x < p).collect(),
                xs.iter().filter(|&x| x > p).collect(),
            ];
            let s = parts.map(|q| sorted(q));
            [s[0], xs.iter().filter(|&x| x == p).collect(), s[1]].concat()
        }
    }
}

/// Rows of irregular length with values whose sum depends on the association.
fn rows(seed: u64) -> Nested<f64> {
    let mut s = seed;
    let mut next = move || {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        s >> 33
    };
    let mut offsets = vec![0];
    let mut values = Vec::new();
    for _ in 0..300 {
        let len = (next() % 40) as usize;
        values.extend((0..len).map(|_| (next() % 1000) as f64 * 0.001 + 1e-9));
        offsets.push(values.len());
    }
    // One long row, several leaves of the canonical association.
    values.extend((0..20_000).map(|i| f64::from(i) * 0.1 + 1e-7));
    offsets.push(values.len());
    Nested::from_offsets(offsets, values).expect("valid offsets")
}

fn keys(seed: i64) -> Vec<i64> {
    (0..3_000)
        .map(|i| (i * 7_919 + seed * 104_729) % 1_009 - 500)
        .collect()
}

fn bits(xs: &[f64]) -> Vec<u64> {
    xs.iter().map(|x| x.to_bits()).collect()
}

/// Everything computed once, alone, on the caller's thread.
struct Expected {
    sums: Vec<u64>,
    sorted: Vec<i64>,
    fold: Vec<u64>,
    scan: Vec<u64>,
    dsl: Vec<i64>,
}

fn expected() -> Expected {
    let r = rows(1);
    let (segd, flat) = r.as_flat().expect("built from offsets");
    let (p, qs) = programs::quicksort(programs::Pivot::Middle);
    Expected {
        sums: bits(&k::row_sums(&r)),
        sorted: k::sorted(&keys(3)),
        fold: bits(&seg::fold_s(segd, flat, 0.0, |a, b| a + b).unwrap()),
        scan: bits(&seg::scan_s(segd, flat, 0.0, |a, b| a + b).unwrap()),
        dsl: p.exec(&qs, keys(5)).unwrap(),
    }
}

/// Runs every computation once and compares it with `want`.
fn all_agree(want: &Expected) {
    let r = rows(1);
    let (segd, flat) = r.as_flat().expect("built from offsets");
    assert_eq!(bits(&k::row_sums(&r)), want.sums);
    assert_eq!(k::sorted(&keys(3)), want.sorted);
    assert_eq!(
        bits(&seg::fold_s(segd, flat, 0.0, |a, b| a + b).unwrap()),
        want.fold
    );
    assert_eq!(
        bits(&seg::scan_s(segd, flat, 0.0, |a, b| a + b).unwrap()),
        want.scan
    );
    let (p, qs) = programs::quicksort(programs::Pivot::Middle);
    assert_eq!(p.exec(&qs, keys(5)).unwrap(), want.dsl);
}

#[test]
fn eight_os_threads_at_once() {
    let want = expected();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..3 {
                    all_agree(&want);
                }
            });
        }
    });
}

#[test]
fn inside_callers_pools_of_one_and_of_three_threads() {
    let want = expected();
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| all_agree(&want));
        // Two pools used from two OS threads at the same time.
        let other = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        std::thread::scope(|s| {
            s.spawn(|| pool.install(|| all_agree(&want)));
            s.spawn(|| other.install(|| all_agree(&want)));
        });
    }
}

#[test]
fn kernels_called_inside_other_parallel_work() {
    let want = expected();
    // A kernel inside a rayon parallel iterator's closure (nested parallelism).
    let seeds: Vec<u64> = (0..16).map(|_| 1).collect();
    let got: Vec<Vec<u64>> = seeds
        .par_iter()
        .map(|&s| bits(&k::row_sums(&rows(s))))
        .collect();
    assert!(got.iter().all(|g| *g == want.sums));
    // A kernel inside the closure of one of the runtime's own parallel primitives.
    let starts: Vec<i64> = (0..8).collect();
    let firsts = flat::map(&starts, |_| k::sorted(&keys(3))[0]);
    assert!(firsts.iter().all(|&f| f == want.sorted[0]));
    // And one pool's work inside another's.
    let outer = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let inner = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    outer.install(|| {
        (0..4)
            .into_par_iter()
            .for_each(|_| inner.install(|| all_agree(&want)));
    });
}

#[cfg(feature = "stats")]
#[test]
fn work_counters_stay_per_scope_under_concurrency() {
    use flatland::runtime::stats;
    let r = rows(1);
    // The executor counts the elements its bulk steps read (per-lane code counts none).
    let (_, alone) = stats::measure(|| k::plan::row_sums::executor(&r));
    assert!(alone.elements_read > 0);
    let measured: Vec<stats::Work> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| stats::measure(|| k::plan::row_sums::executor(&r)).1))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for w in measured {
        assert_eq!(w.elements_read, alone.elements_read);
        assert_eq!(w.elements_written, alone.elements_written);
    }
}
