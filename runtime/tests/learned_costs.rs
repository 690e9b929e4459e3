//! The cost model learns what an operation really costs per element from its runs on the
//! process-wide profile, and plans its next runs with it; a profile installed with
//! `with_machine` learns nothing; an operation inside the tasks of a split learns as its caller
//! would; the results are the same bits whatever was learned. (A test binary of its own: each
//! thread learns apart, but `learned` reads and `forget` clears every thread's table.)

use flatland_runtime::cost::{ElemCost, Machine, with_machine};
use flatland_runtime::sched::{self, Op, audit, learned};
use flatland_runtime::{assoc, flat};

/// Held by each test: what is learned is process-wide, and one test forgets it all.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// About `ns` nanoseconds of work that the optimiser cannot remove, returning `x`.
fn slow(x: f64, ns: u32) -> f64 {
    let mut acc = x;
    for _ in 0..ns {
        acc = std::hint::black_box(acc);
    }
    acc
}

/// A pool of two threads, where the process-wide profile lets the model choose between
/// forms; `None` (the test skips) where it has one core.
fn two_workers() -> Option<rayon::ThreadPool> {
    if Machine::global().cores < 2 {
        eprintln!("skipped: the process-wide profile has one core, so no schedule is a choice");
        return None;
    }
    Some(
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap(),
    )
}

/// What the model has learned for the operation `op` from its runs in the form `split` (this
/// binary runs one closure type per operation on the process-wide profile).
fn learned_for(op: &str, split: bool) -> Option<learned::Learned> {
    learned::learned()
        .into_iter()
        .find(|l| l.key.op == op && l.key.split == split)
}

#[test]
fn an_operation_dearer_than_its_model_learns_so_and_keeps_its_bits() {
    let _one_at_a_time = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(pool) = two_workers() else {
        return;
    };
    // Two leaves: sequential on any profile until the model learns what an element costs.
    let xs: Vec<f64> = (0..1 << 13).map(|i| f64::from(i) * 0.25).collect();
    let expected: Vec<f64> = xs.iter().map(|&x| slow(x, 40) + 1.0).collect();
    let dear_map = |x: f64| slow(x, 40) + 1.0;
    let (results, records) = pool.install(|| {
        audit::audited(|| {
            (0..2 * learned::MIN_SAMPLES)
                .map(|_| flat::map(&xs, dear_map))
                .collect::<Vec<_>>()
        })
    });
    assert!(results.iter().all(|r| r == &expected));
    // On a pool of two workers every one of these plans is the model's choice, on the
    // process-wide profile: each sequential one added its time.
    let l = learned_for("flat::map", false).expect("flat::map learned its cost");
    assert!(l.samples >= learned::MIN_SAMPLES, "{l:?}");
    // About 40 loop rounds per element against the model's one op and two transfers: several
    // times what the model predicts on any profile.
    let factor = l.factor.expect("enough samples");
    assert!(factor > 4.0, "learned factor {factor}");
    // The later runs were planned with it: their predictions come close to their times, where
    // the first runs' were far below.
    assert_eq!(records.len(), 2 * learned::MIN_SAMPLES);
    let (first, last) = (&records[0], records.last().unwrap());
    assert!(first.ratio() < 0.5, "first run predicted {first:?}");
    assert!(
        last.ratio() > first.ratio() * 2.0,
        "{first:?} then {last:?}"
    );

    // A profile installed by the caller is taken as it is: nothing learned under it.
    let cheap_fold = |a: f64, b: f64| slow(a, 30) + b;
    let m = Machine::new(0.5, 1.0, 2_000.0, 2);
    let sum = pool.install(|| with_machine(m, || flat::reduce(&xs, 0.0, cheap_fold)));
    assert_eq!(sum.to_bits(), assoc::fold(&xs, 0.0, cheap_fold).to_bits());
    assert!(
        learned::learned()
            .iter()
            .all(|l| l.key.op != "flat::reduce")
    );

    // `forget` starts over.
    learned::forget();
    assert!(learned::learned().iter().all(|l| l.key.op != "flat::map"));
    let (s, _timing) = pool.install(|| {
        sched::plan_op(
            Op::of("flat::map", &dear_map),
            1 << 13,
            ElemCost::new(1.0, 2.0),
        )
    });
    assert!(!s.explain().contains("learned"), "{}", s.explain());
}

#[test]
fn a_split_form_learns_its_whole_time_apart() {
    let Some(pool) = two_workers() else {
        return;
    };
    // Far more work than the model thinks, on 2^18 elements: split from the first run.
    let xs: Vec<f64> = (0..1 << 18).map(f64::from).collect();
    let dear = |x: f64, y: f64| slow(x, 40) * 0.5 + y;
    let _one_at_a_time = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (outs, records) = pool.install(|| {
        audit::audited(|| {
            (0..2 * learned::MIN_SAMPLES)
                .map(|_| flat::zip_with(&xs, &xs, dear).unwrap())
                .collect::<Vec<_>>()
        })
    });
    assert!(outs.iter().all(|o| o == &outs[0]));
    let split: Vec<_> = records.iter().filter(|r| r.tasks > 1).collect();
    assert!(split.len() >= learned::MIN_SAMPLES, "{records:?}");
    let l = learned_for("flat::zip_with", true).expect("the split form learned its time");
    assert!(l.samples >= learned::MIN_SAMPLES, "{l:?}");
    assert!(l.factor.expect("enough samples") > 2.0, "{l:?}");
    // Its later predictions came closer to its times.
    let (first, last) = (split[0], split[split.len() - 1]);
    assert!(
        last.ratio() > first.ratio() * 2.0,
        "{first:?} then {last:?}"
    );
}

#[test]
fn operations_inside_a_splits_tasks_learn_costs_beyond_the_old_limit() {
    let Some(pool) = two_workers() else {
        return;
    };
    let _one_at_a_time = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Thousands of loop rounds per element against the model's one op and two transfers: as a
    // recursion's map is, whose lanes weigh their lengths while each element costs the calls
    // below it.
    let xs: Vec<f64> = (0..1 << 13).map(|i| f64::from(i) * 0.5).collect();
    let very_dear = |x: f64| slow(x, 2000) - 1.0;
    let expected: Vec<f64> = xs.iter().map(|&x| very_dear(x)).collect();
    // The maps run inside the tasks of a split, planned on the process-wide profile (no
    // profile installed by this caller).
    let outs = pool.install(|| {
        sched::run_parts(vec![(); 2], |_, ()| {
            (0..learned::MIN_SAMPLES)
                .map(|_| flat::map(&xs, very_dear))
                .collect::<Vec<_>>()
        })
    });
    assert!(outs.iter().flatten().all(|o| o == &expected));
    let kind = std::any::type_name_of_val(&very_dear);
    let l = learned::learned()
        .into_iter()
        .find(|l| l.key.op == "flat::map" && l.key.kind == kind && !l.key.split)
        .expect("the maps inside the tasks learned their cost");
    assert!(l.samples >= learned::MIN_SAMPLES, "{l:?}");
    // Clamped at 64, as the correction was, such an operation's plans stayed far below its
    // times.
    let factor = l.factor.expect("enough samples");
    assert!(factor > 64.0, "learned factor {factor}");
}
