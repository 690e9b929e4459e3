//! Flat primitives against a sequential loop and hand-written rayon, in the same run.
//!
//! `cargo bench --bench flat`. Gates (2 cores): sum of 10^7 at least 1.3x the sequential loop;
//! sum of 1,000 no worse than 2x the sequential loop. The machine profile in use is printed first
//! (`FLATLAND_CALIBRATE=1` to calibrate and cache one).

use divan::{Bencher, black_box};
use flatland_runtime::flat;
use std::sync::OnceLock;

fn main() {
    eprintln!("{}", flatland_runtime::cost::current());
    divan::main();
}

const BIG: usize = 10_000_000;
const SMALL: usize = 1_000;

fn big() -> &'static [f64] {
    static XS: OnceLock<Vec<f64>> = OnceLock::new();
    XS.get_or_init(|| (0..BIG).map(|i| (i % 1000) as f64 * 0.001).collect())
}

fn keys() -> &'static [u8] {
    static KS: OnceLock<Vec<u8>> = OnceLock::new();
    KS.get_or_init(|| (0..BIG).map(|i| ((i * 7919) % 4) as u8).collect())
}

mod sum_1e7 {
    use super::{Bencher, big, black_box, flat};
    use rayon::prelude::*;

    #[divan::bench(sample_count = 30)]
    fn flatland(b: Bencher) {
        let xs = big();
        b.bench(|| flat::reduce(black_box(xs), 0.0, |a, b| a + b));
    }

    /// The same reduction in a one-thread pool: the gain of the 8-lane leaf association alone.
    #[divan::bench(sample_count = 30)]
    fn flatland_one_thread(b: Bencher) {
        let xs = big();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        b.bench(|| pool.install(|| flat::reduce(black_box(xs), 0.0, |a, b| a + b)));
    }

    #[divan::bench(sample_count = 30)]
    fn sequential_loop(b: Bencher) {
        let xs = big();
        b.bench(|| black_box(xs).iter().sum::<f64>());
    }

    #[divan::bench(sample_count = 30)]
    fn rayon_par_iter(b: Bencher) {
        let xs = big();
        b.bench(|| black_box(xs).par_iter().sum::<f64>());
    }
}

mod sum_1e3 {
    use super::{Bencher, SMALL, big, black_box, flat};

    #[divan::bench(sample_count = 200)]
    fn flatland(b: Bencher) {
        let xs = &big()[..SMALL];
        b.bench(|| flat::reduce(black_box(xs), 0.0, |a, b| a + b));
    }

    #[divan::bench(sample_count = 200)]
    fn sequential_loop(b: Bencher) {
        let xs = &big()[..SMALL];
        b.bench(|| black_box(xs).iter().sum::<f64>());
    }
}

mod scan_1e7 {
    use super::{Bencher, big, black_box, flat};
    use rayon::prelude::*;

    #[divan::bench(sample_count = 20)]
    fn flatland(b: Bencher) {
        let xs = big();
        b.bench(|| flat::scan_inclusive(black_box(xs), 0.0, |a, b| a + b));
    }

    /// On two cores the cost model keeps scans sequential (a split scan does two passes); this
    /// row forces the split, on a profile with free tasks and a three-thread pool.
    #[divan::bench(sample_count = 20)]
    fn flatland_forced_split(b: Bencher) {
        let xs = big();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let eager = flatland_runtime::cost::Machine::new(0.5, 1.0, 0.0, 64);
        b.bench(|| {
            pool.install(|| {
                flatland_runtime::cost::with_machine(eager, || {
                    flat::scan_inclusive(black_box(xs), 0.0, |a, b| a + b)
                })
            })
        });
    }

    #[divan::bench(sample_count = 20)]
    fn sequential_loop(b: Bencher) {
        let xs = big();
        b.bench(|| {
            let mut acc = 0.0;
            black_box(xs)
                .iter()
                .map(|x| {
                    acc += x;
                    acc
                })
                .collect::<Vec<f64>>()
        });
    }

    /// Two passes: chunk totals in parallel, then each chunk scanned from its carry in parallel.
    #[divan::bench(sample_count = 20)]
    fn rayon_two_pass(b: Bencher) {
        let xs = big();
        b.bench(|| {
            let xs = black_box(xs);
            let chunk = xs.len().div_ceil(rayon::current_num_threads() * 4).max(1);
            let totals: Vec<f64> = xs.par_chunks(chunk).map(|c| c.iter().sum()).collect();
            let carries: Vec<f64> = totals
                .iter()
                .scan(0.0, |acc, t| {
                    let c = *acc;
                    *acc += t;
                    Some(c)
                })
                .collect();
            let mut out = vec![0.0; xs.len()];
            out.par_chunks_mut(chunk)
                .zip(xs.par_chunks(chunk))
                .zip(carries)
                .for_each(|((o, c), mut acc)| {
                    for (o, x) in o.iter_mut().zip(c) {
                        acc += x;
                        *o = acc;
                    }
                });
            out
        });
    }
}

mod partition4_1e7 {
    use super::{Bencher, big, black_box, flat, keys};

    #[divan::bench(sample_count = 20)]
    fn flatland(b: Bencher) {
        let (xs, ks) = (big(), keys());
        b.bench(|| flat::partition(black_box(xs), black_box(ks), 4, None).unwrap());
    }

    /// Count per class, then copy each element to its class's next slot.
    #[divan::bench(sample_count = 20)]
    fn sequential_stable(b: Bencher) {
        let (xs, ks) = (big(), keys());
        b.bench(|| {
            let (xs, ks) = (black_box(xs), black_box(ks));
            let mut counts = [0usize; 4];
            for &k in ks {
                counts[k as usize] += 1;
            }
            let mut at = [
                0,
                counts[0],
                counts[0] + counts[1],
                counts[0] + counts[1] + counts[2],
            ];
            let mut out = vec![0.0; xs.len()];
            for (&x, &k) in xs.iter().zip(ks) {
                out[at[k as usize]] = x;
                at[k as usize] += 1;
            }
            out
        });
    }
}
