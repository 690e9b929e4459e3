//! The user-kernel suite (`flatland_cli::suite`) on small edge inputs: empty input,
//! empty rows, one row holding almost every element, and small random ones. Each kernel's
//! `try_` function (what `flatland bench` runs as `vectorise`) must equal its reference
//! interpreter bitwise and its sequential baseline (`harness::baselines::suite_*`): exactly for
//! integers and for float kernels whose operations are the same in both (sums of dyadic values
//! are exact in any association), within `n * EPSILON` where only a sum's association differs.
//! Each kernel's `try_` function must give the same bits under every strategy forced in turn
//! (`flatland::vectoriser::strategy`): the flattening executor, and the per-lane form (what
//! `flatland bench` runs as `per_lane`) with its lanes run sequentially and in parallel.

use flatland_cli::harness::baselines::suite_rows::{self, Rows};
use flatland_cli::harness::baselines::{suite_divide, suite_pairs};
use flatland_cli::harness::inputs::Rng;
use flatland_cli::harness::workloads::suite::{self as workloads, KERNELS};
use flatland_cli::harness::workloads::suite_inputs::{
    RowsInput, bfs_input, dyadics, f64_keys, i64_keys, points, random_list,
};
use flatland_cli::suite::{self, plan};

/// `run` (a kernel's `try_` function on the same input) gives `got` under every strategy
/// forced in turn: the flattening executor, and the per-lane form with its lanes and bulk
/// operations run sequentially and in parallel. Debug text is compared: for floats it is their
/// exact value (shortest round trip, the sign of zero included).
fn assert_strategies<T: std::fmt::Debug>(
    what: &str,
    got: &T,
    run: impl Fn() -> flatland::Result<T>,
) {
    use flatland::vectoriser::lane::{Lanes, with_lanes};
    use flatland::vectoriser::strategy::{Strategy, with_strategy};
    let flat = with_strategy(Strategy::Flatten, &run).unwrap();
    assert_eq!(format!("{flat:?}"), format!("{got:?}"), "{what}: flatten");
    for lanes in [Lanes::Sequential, Lanes::Parallel] {
        let lane = with_strategy(Strategy::PerLane, || with_lanes(lanes, &run)).unwrap();
        assert_eq!(
            format!("{lane:?}"),
            format!("{got:?}"),
            "{what}: per-lane, {lanes:?}"
        );
    }
}

/// Equal bits, or both NaN.
fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

fn assert_bits(what: &str, a: &[f64], b: &[f64]) {
    assert!(same_bits(a, b), "{what}: {a:?} vs {b:?}");
}

fn assert_rows_bits(what: &str, a: &[Vec<f64>], b: &[Vec<f64>]) {
    assert_eq!(a.len(), b.len(), "{what}: row counts");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert_bits(&format!("{what}, row {i}"), x, y);
    }
}

/// Within `terms * EPSILON` of the larger magnitude (positive terms summed in another order).
fn assert_close(what: &str, a: &[f64], b: &[f64], terms: impl Fn(usize) -> usize) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let bound = x.abs().max(y.abs()) * terms(i).max(1) as f64 * f64::EPSILON;
        assert!((x - y).abs() <= bound, "{what}, element {i}: {x} vs {y}");
    }
}

/// Row inputs: none, only empty rows, one row holding almost everything (past a leaf of the
/// canonical association), and small random rows.
fn row_inputs() -> Vec<(&'static str, RowsInput)> {
    vec![
        ("no rows", RowsInput::from_lengths(&[], 1)),
        ("empty rows", RowsInput::from_lengths(&[0, 0, 0], 2)),
        (
            "one big row",
            RowsInput::from_lengths(&[1, 0, 9000, 2, 0, 1], 3),
        ),
        ("random rows", RowsInput::rows_0_19(400, 4)),
    ]
}

#[test]
fn every_suite_kernel_runs_per_lane_or_flattened() {
    let explain = plan::explain();
    assert_eq!(explain.lines().count(), 16, "{explain}"); // 13 kernels and 3 helpers
    for line in explain.lines() {
        // Kernels whose recursion may keep a dead array alive across its calls run flattened;
        // the others per-lane or measured.
        assert!(
            line.contains(": per-lane: ") || line.contains(": flatten (recursive): "),
            "{line}"
        );
    }
    // The recursive kernels hand their arrays down (quicksort and merge sort through their
    // maps' lanes, list ranking by dropping `next` and `rank` before its tail call): their
    // per-lane recursion holds only live arrays, so they are measured like any kernel.
    for line in [
        plan::quicksort_i64::explain(),
        plan::merge_sort::explain(),
        plan::list_rank::explain(),
    ] {
        assert!(line.contains(": per-lane: "), "{line}");
    }
    // One workload per public kernel, each registered.
    let names: Vec<&str> = flatland_cli::harness::registry::all()
        .iter()
        .map(|w| w.name())
        .collect();
    for k in &KERNELS {
        use flatland_cli::harness::workload::Workload as _;
        assert!(names.contains(&k.name()), "{} is not registered", k.name());
        assert!(explain.contains(&format!("{}:", k.name())), "{}", k.name());
    }
    assert!(KERNELS.len() >= 12);
}

#[test]
fn row_kernels_equal_their_reference_and_the_loops() {
    for (what, inp) in row_inputs() {
        let rows = inp.rows();
        let nested = &inp.nested;
        let lengths = |r: usize| inp.offsets[r + 1] - inp.offsets[r];

        let means = suite::try_row_means(nested).unwrap();

        assert_strategies(what, &means, || suite::try_row_means(nested));
        assert_bits(what, &means, &plan::row_means::reference(nested).unwrap());
        assert_bits(what, &means, &rows.map_seq(suite_rows::mean));

        let vars = suite::try_row_variances(nested).unwrap();

        assert_strategies(what, &vars, || suite::try_row_variances(nested));
        assert_bits(
            what,
            &vars,
            &plan::row_variances::reference(nested).unwrap(),
        );
        assert_close(what, &vars, &rows.map_seq(suite_rows::variance), lengths);

        let prefix = suite::try_row_prefix_sums(nested).unwrap();

        assert_strategies(what, &prefix, || suite::try_row_prefix_sums(nested));
        assert_rows_bits(
            what,
            &prefix,
            &plan::row_prefix_sums::reference(nested).unwrap(),
        );
        assert_rows_bits(what, &prefix, &rows.map_seq(suite_rows::prefix_sums));

        let smooth = suite::try_row_smooth(nested).unwrap();

        assert_strategies(what, &smooth, || suite::try_row_smooth(nested));
        assert_rows_bits(what, &smooth, &plan::row_smooth::reference(nested).unwrap());
        assert_rows_bits(what, &smooth, &rows.map_seq(suite_rows::smooth));

        let argmax = suite::try_row_argmax(nested).unwrap();

        assert_strategies(what, &argmax, || suite::try_row_argmax(nested));
        assert_eq!(
            argmax,
            plan::row_argmax::reference(nested).unwrap(),
            "{what}"
        );
        assert_eq!(argmax, rows.map_seq(suite_rows::argmax), "{what}");

        let above = suite::try_above_row_mean(nested).unwrap();

        assert_strategies(what, &above, || suite::try_above_row_mean(nested));
        assert_bits(
            what,
            &above,
            &plan::above_row_mean::reference(nested).unwrap(),
        );
        assert_bits(what, &above, &suite_rows::above_mean_seq(rows));
        assert_bits(what, &above, &suite_rows::above_mean_rayon(rows));
    }
}

#[test]
fn row_baselines_in_parallel_equal_the_loops() {
    for (what, inp) in row_inputs() {
        let rows: Rows<'_> = inp.rows();
        assert_bits(
            what,
            &rows.map_rayon(suite_rows::mean),
            &rows.map_seq(suite_rows::mean),
        );
        assert_rows_bits(
            what,
            &rows.map_rayon(suite_rows::smooth),
            &rows.map_seq(suite_rows::smooth),
        );
    }
}

#[test]
fn bfs_step_equals_its_reference_and_the_loops() {
    let mut one_hub = bfs_input(50, 5);
    one_hub.adj[7] = (0..3000).map(|k| k % 50).collect();
    one_hub.frontier.push(7);
    let isolated = {
        let mut g = bfs_input(20, 6);
        g.adj.iter_mut().for_each(Vec::clear);
        g
    };
    let mut nobody = bfs_input(10, 7);
    nobody.frontier.clear();
    for (what, g) in [
        ("no nodes", bfs_input(0, 1)),
        ("no frontier", nobody),
        ("no edges", isolated),
        ("one hub", one_hub),
        ("random", bfs_input(500, 8)),
    ] {
        let got = suite::try_bfs_step(&g.frontier, &g.adj, &g.visited).unwrap();
        assert_strategies(what, &got, || {
            suite::try_bfs_step(&g.frontier, &g.adj, &g.visited)
        });
        let reference = plan::bfs_step::reference(&g.frontier, &g.adj, &g.visited).unwrap();
        assert_eq!(got, reference, "{what}");
        assert_eq!(
            got,
            suite_pairs::bfs_step_seq(&g.frontier, &g.adj, &g.visited),
            "{what}"
        );
        assert_eq!(
            got,
            suite_pairs::bfs_step_rayon(&g.frontier, &g.adj, &g.visited),
            "{what}"
        );
    }
}

#[test]
fn all_pairs_kernels_equal_their_reference_and_the_loops() {
    let (r, h) = (workloads::RADIUS, workloads::BANDWIDTH);
    for (what, queries, pts) in [
        ("no queries", vec![], dyadics(30, 1)),
        ("no points", dyadics(5, 2), vec![]),
        ("one query, many points", dyadics(1, 3), dyadics(5000, 4)),
        ("random", dyadics(60, 5), dyadics(300, 6)),
    ] {
        let counts = suite::try_pair_counts(&queries, &pts, r).unwrap();
        assert_strategies(what, &counts, || suite::try_pair_counts(&queries, &pts, r));
        assert_eq!(
            counts,
            plan::pair_counts::reference(&queries, &pts, r).unwrap(),
            "{what}"
        );
        assert_eq!(
            counts,
            suite_pairs::pair_counts_seq(&queries, &pts, r),
            "{what}"
        );

        let density = suite::try_pair_density(&queries, &pts, h).unwrap();

        assert_strategies(what, &density, || {
            suite::try_pair_density(&queries, &pts, h)
        });
        assert_bits(
            what,
            &density,
            &plan::pair_density::reference(&queries, &pts, h).unwrap(),
        );
        assert_close(
            what,
            &density,
            &suite_pairs::pair_density_seq(&queries, &pts, h),
            |_| pts.len(),
        );
    }
}

#[test]
fn nearest_centre_equals_its_reference_and_the_loop() {
    let mut ties = points(40, 9);
    ties.push((0.0, 0.0));
    for (what, pts, centres) in [
        ("no points", vec![], points(16, 1)),
        ("no centres", points(5, 2), vec![]),
        ("one centre", points(50, 3), points(1, 4)),
        (
            "equal centres",
            ties,
            vec![(1.0, 1.0), (-1.0, -1.0), (1.0, 1.0)],
        ),
        ("random", points(400, 5), points(16, 6)),
    ] {
        let got = suite::try_nearest_centre(&pts, &centres).unwrap();
        assert_strategies(what, &got, || suite::try_nearest_centre(&pts, &centres));
        assert_eq!(
            got,
            plan::nearest_centre::reference(&pts, &centres).unwrap(),
            "{what}"
        );
        assert_eq!(
            got,
            suite_pairs::nearest_centre_seq(&pts, &centres),
            "{what}"
        );
    }
}

#[test]
fn sorts_equal_their_reference_and_the_library_sorts() {
    let mut rng = Rng::new(10);
    let few_keys: Vec<i64> = (0..2000).map(|_| rng.below(3) as i64 - 1).collect();
    for (what, xs) in [
        ("empty", vec![]),
        ("one", vec![i64::MIN]),
        ("equal", vec![7; 100]),
        ("few keys", few_keys),
        ("random", i64_keys(3000, 11)),
    ] {
        let got = suite::try_quicksort_i64(&xs).unwrap();
        assert_strategies(what, &got, || suite::try_quicksort_i64(&xs));
        assert_eq!(got, plan::quicksort_i64::reference(&xs).unwrap(), "{what}");
        assert_eq!(got, suite_divide::sort_i64_seq(&xs), "{what}");
    }
    let sorted: Vec<f64> = (0..300).map(|i| i as f64 * 0.25).collect();
    let reversed: Vec<f64> = sorted.iter().rev().copied().collect();
    for (what, xs) in [
        ("empty", vec![]),
        ("one", vec![-1.5]),
        ("two equal", vec![0.5, 0.5]),
        ("sorted", sorted),
        ("reversed", reversed),
        ("dyadic, many equal", dyadics(400, 12)),
        ("random", f64_keys(500, 13)),
    ] {
        let got = suite::try_merge_sort(&xs).unwrap();
        assert_strategies(what, &got, || suite::try_merge_sort(&xs));
        assert_bits(what, &got, &plan::merge_sort::reference(&xs).unwrap());
        assert_bits(what, &got, &suite_divide::sort_f64_seq(&xs));
    }
}

#[test]
fn list_rank_equals_its_reference_and_the_loops() {
    // Two lists in one array: 0 -> 2 -> 4 and 1 -> 3.
    let forest = vec![2, 3, 4, -1, -1];
    for (what, next) in [
        ("empty", vec![]),
        ("one node", vec![-1]),
        (
            "in order",
            (1..=2000).map(|i| if i == 2000 { -1 } else { i }).collect(),
        ),
        ("two lists", forest),
        ("random", random_list(3000, 14)),
    ] {
        let got = suite::try_list_rank(&next).unwrap();
        assert_strategies(what, &got, || suite::try_list_rank(&next));
        assert_eq!(got, plan::list_rank::reference(&next).unwrap(), "{what}");
        assert_eq!(got, suite_divide::list_rank_seq(&next), "{what}");
        assert_eq!(got, suite_divide::list_rank_rayon(&next), "{what}");
    }
}
