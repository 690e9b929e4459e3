//! A heavy lane's bulk operations (folds, filters, a filter of a range) go across the pool in
//! the tasks the runtime's scheduler plans (`sched::plan_op`, each recorded by
//! `sched::audit::audited` under its own name), with the bits and the first error of the
//! sequential form whatever the plan.

use flatland_runtime::assoc;
use flatland_runtime::sched::audit::audited;
use flatland_vectoriser::lane::{
    Cow, Iota, Lanes, PARALLEL_ELEMENTS, filter_class_in, fold_in, fold_mapped_in, fold_total_in,
    select_iota_in, split, split_in,
};
use flatland_vectoriser::{Error, Result};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
}

/// Values whose sum depends on the association (so a wrong leaf order shows in the bits).
fn values(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 1.0 / (1.0 + (i as f64).sqrt()) * if i % 3 == 0 { -1.0 } else { 1.0 })
        .collect()
}

#[test]
fn a_heavy_lanes_operations_are_planned_by_the_runtimes_scheduler() {
    let n = 4 * PARALLEL_ELEMENTS;
    let xs = values(n);
    let ints: Vec<i64> = (0..n as i64).collect();
    let ((), records) = pool(2).install(|| {
        audited(|| {
            let sum = fold_in(Lanes::Model, &xs, 0.0, |a, b| a + b);
            assert_eq!(sum.to_bits(), assoc::fold(&xs, 0.0, |a, b| a + b).to_bits());
            let get = |i: usize| Ok(xs[i] * 0.5);
            let halves = fold_mapped_in(Lanes::Model, n, get, 0.0, |a, b| a + b).unwrap();
            let want = assoc::fold_by(n, |i| xs[i] * 0.5, 0.0, |a, b| a + b);
            assert_eq!(halves.to_bits(), want.to_bits());
            let total = fold_total_in(Lanes::Model, n, |i| xs[i] * 0.5, 0.0, |a, b| a + b);
            assert_eq!(total.to_bits(), want.to_bits());
            let class = |i: usize| Ok(usize::from(ints[i] % 3 == 0));
            let two = split_in(Lanes::Model, &ints, [true, true], class).unwrap();
            assert_eq!(two, split(&ints, [true, true], class).unwrap());
            let class3 = |i: usize| Ok((ints[i] % 3) as usize);
            let three = split_in(Lanes::Model, &ints, [true, false, true], class3).unwrap();
            assert_eq!(three, split(&ints, [true, false, true], class3).unwrap());
            let by_value = |_: usize, x: &i64| Ok(usize::from(x % 5 != 0));
            let owned = Cow::Owned(ints.clone());
            let kept = filter_class_in::<_, 2>(Lanes::Model, owned, 0, by_value).unwrap();
            assert_eq!(
                kept,
                ints.iter()
                    .copied()
                    .filter(|x| x % 5 == 0)
                    .collect::<Vec<_>>()
            );
            let odd = select_iota_in(Lanes::Model, Iota::new(n, 0, 1), |r| {
                Ok(r.clone()
                    .map(|i| u64::from(i % 2 == 1) << (i - r.start))
                    .sum())
            })
            .unwrap();
            assert_eq!(odd.len(), n / 2);
        })
    });
    let ops: Vec<&str> = records.iter().map(|r| r.op).collect();
    for op in [
        "lane::fold",
        "lane::fold_mapped",
        "lane::split",
        "lane::filter_in_place",
        "lane::select_iota",
    ] {
        assert!(ops.contains(&op), "{op} planned: {ops:?}");
    }
    assert!(records.iter().all(|r| r.elements == n), "{records:?}");
}

#[test]
fn a_planned_filter_reports_the_lowest_failing_element() {
    let n = 3 * PARALLEL_ELEMENTS + 5;
    let ints: Vec<i64> = (0..n as i64).collect();
    for bad in [0, 5000, n / 2, n - 1] {
        let class = move |i: usize| -> Result<usize> {
            if i >= bad {
                return Err(Error::Input {
                    detail: format!("element {i} fails"),
                });
            }
            Ok(usize::from(i % 2 == 0))
        };
        for threads in [1, 2, 3] {
            let (two, three) = pool(threads).install(|| {
                (
                    split_in(Lanes::Model, &ints, [true, false], class),
                    split_in(Lanes::Model, &ints, [true, true, false], class),
                )
            });
            let want = format!("element {bad} fails");
            assert!(two.unwrap_err().to_string().contains(&want), "{threads}");
            assert!(three.unwrap_err().to_string().contains(&want), "{threads}");
        }
    }
}
