//! The user-kernel suite ([`crate::suite`]): one workload per kernel, each running
//! the `#[vectorise]` kernel's `try_` function (`vectorise`) and its per-lane form
//! (`per_lane`, `plan::f::per_lane`) beside the sequential loop a
//! programmer writes (`sequential`) and rayon over the rows or elements (`rayon`), on seeded
//! inputs ([`super::suite_inputs`]). `flatland bench --only kernels` runs them all
//! ([`GROUP`]).
//!
//! Answers are compared exactly where the kernel is integer or its floating-point operations are
//! the same in every variant (sums of dyadic values are exact in any association); the row
//! variances and the kernel density differ from the loops only in the association of a sum of
//! positive terms, and are compared within `n * EPSILON` of each result (`n` the terms summed).
//! The `#[vectorise]` kernels are compared with their reference interpreter bitwise by
//! `cli/tests/suite_kernels.rs`.

use super::suite_inputs::{
    BfsInput, RowsInput, bfs_input, dyadics, f64_keys, i64_keys, points, random_list,
};
use crate::harness::answer::Answer;
use crate::harness::baselines::{suite_divide, suite_pairs, suite_rows};
use crate::harness::workload::{Case, Extra, Instance, Role, Scale, Variant, Workload};
use crate::suite;
use std::sync::Arc;

/// The name `--only` takes for every suite kernel at once.
pub const GROUP: &str = "kernels";

/// Points of the all-pairs kernels (a case's size is the number of pairs: `size / POINTS`
/// queries).
pub const POINTS: usize = 1000;

/// Radius of [`suite::pair_counts`] (points are dyadic in `[-128, 128)`: about 1.5% of pairs).
pub const RADIUS: f64 = 2.0;

/// Bandwidth of [`suite::pair_density`].
pub const BANDWIDTH: f64 = 8.0;

/// Centres of [`suite::nearest_centre`].
pub const CENTRES: usize = 16;

/// One kernel of the suite as a workload.
pub struct SuiteKernel {
    name: &'static str,
    about: &'static str,
    input: &'static str,
    /// Sizes at `Check`, `Quick` and `Full` scale.
    sizes: [&'static [usize]; 3],
    /// Cases at least this large are timed once per variant after the warm-up (unless
    /// `--repeat` asks for more): their flattened form takes many seconds today.
    heavy: usize,
    prepare: fn(usize) -> Instance,
}

impl Workload for SuiteKernel {
    fn name(&self) -> &'static str {
        self.name
    }
    fn about(&self) -> &'static str {
        self.about
    }
    fn cases(&self, scale: Scale, _: &Extra) -> Vec<Case> {
        let sizes = match scale {
            Scale::Check => self.sizes[0],
            Scale::Quick => self.sizes[1],
            Scale::Full => self.sizes[2],
        };
        sizes
            .iter()
            .map(|&n| {
                let case = Case::new(self.input, n);
                if n >= self.heavy {
                    case.with_reps(1)
                } else {
                    case
                }
            })
            .collect()
    }
    /// No thread sweep at `--quick` scale (it would double the suite's time); the largest case
    /// otherwise.
    fn sweep_case(&self, scale: Scale, extra: &Extra) -> Option<Case> {
        match scale {
            Scale::Quick => None,
            _ => self.cases(scale, extra).into_iter().max_by_key(|c| c.size),
        }
    }
    fn prepare(&self, case: &Case, _: &Extra) -> Instance {
        (self.prepare)(case.size)
    }
}

const CHECK_ROWS: &[usize] = &[0, 1, 300, 5000];
const ROWS: &[usize] = &[1_000_000];
const FULL_ROWS: &[usize] = &[100_000, 1_000_000];
const CHECK_PAIRS: &[usize] = &[0, 5_000, 50_000];
const PAIRS: &[usize] = &[10_000_000];
const FULL_PAIRS: &[usize] = &[1_000_000, 10_000_000];
const CHECK_FLAT: &[usize] = &[0, 1, 2, 1000, 5000];
const FLAT: &[usize] = &[1_000_000];
const FULL_FLAT: &[usize] = &[100_000, 1_000_000];
/// `--quick` sizes of the kernels whose flattened form takes over a second at 10^6 today and
/// that have no stated size of their own (see `README.md`, "The user-kernel suite").
const SMALL: &[usize] = &[100_000];
/// Light enough to repeat at every size.
const LIGHT: usize = usize::MAX;

/// Every kernel of the suite, in table order.
///
/// ```
/// use flatland_cli::harness::workload::Workload;
/// let names: Vec<&str> = flatland_cli::harness::workloads::suite::KERNELS.iter().map(|k| k.name()).collect();
/// assert!(names.len() >= 12);
/// assert!(names.contains(&"row_means"));
/// ```
pub static KERNELS: [SuiteKernel; 13] = [
    SuiteKernel {
        name: "row_means",
        about: "suite: mean of each row with an empty-row branch (10^6 rows of 0-19 f64); vectorise = suite::try_row_means vs a loop over CSR rows, rayon par_windows",
        input: "rows-0-19",
        sizes: [CHECK_ROWS, ROWS, FULL_ROWS],
        heavy: LIGHT,
        prepare: row_means,
    },
    SuiteKernel {
        name: "row_variances",
        about: "suite: sample variance of each row (mean, then a map and sum under the branch); vectorise = suite::try_row_variances vs a loop over CSR rows, rayon par_windows",
        input: "rows-0-19",
        sizes: [CHECK_ROWS, ROWS, FULL_ROWS],
        heavy: LIGHT,
        prepare: row_variances,
    },
    SuiteKernel {
        name: "row_prefix_sums",
        about: "suite: running sums of each row (a per-row scan, Vec<Vec<f64>> out); vectorise = suite::try_row_prefix_sums vs a loop over CSR rows, rayon par_windows",
        input: "rows-0-19",
        sizes: [CHECK_ROWS, ROWS, FULL_ROWS],
        heavy: LIGHT,
        prepare: row_prefix_sums,
    },
    SuiteKernel {
        name: "row_smooth",
        about: "suite: 3-point stencil over each row (clamped ends, Vec<Vec<f64>> out); vectorise = suite::try_row_smooth vs a loop over CSR rows, rayon par_windows",
        input: "rows-0-19",
        sizes: [CHECK_ROWS, SMALL, FULL_ROWS],
        heavy: LIGHT,
        prepare: row_smooth,
    },
    SuiteKernel {
        name: "row_argmax",
        about: "suite: first arg-max of each row by a best-of reduce over enumerate; vectorise = suite::try_row_argmax vs a loop over CSR rows, rayon par_windows",
        input: "rows-0-19",
        sizes: [CHECK_ROWS, SMALL, FULL_ROWS],
        heavy: LIGHT,
        prepare: row_argmax,
    },
    SuiteKernel {
        name: "above_row_mean",
        about: "suite: each row filtered by its mean, concatenated (variable-length expansion); vectorise = suite::try_above_row_mean vs flat_map over CSR rows, rayon par_windows flat_map_iter",
        input: "rows-0-19",
        sizes: [CHECK_ROWS, ROWS, FULL_ROWS],
        heavy: LIGHT,
        prepare: above_row_mean,
    },
    SuiteKernel {
        name: "bfs_step",
        about: "suite: BFS step frontier.map(|u| adj[u].filter(|v| !visited[v])).concat() (nodes of degree 0-15 as &[Vec<i64>], every 4th in the frontier, every 3rd visited); vs flat_map, rayon par_iter flat_map_iter",
        input: "nodes",
        sizes: [CHECK_FLAT, FLAT, FULL_FLAT],
        heavy: LIGHT,
        prepare: bfs_step,
    },
    SuiteKernel {
        name: "pair_counts",
        about: "suite: all pairs, queries.map(|q| points.filter(|p| |p - q| <= r).len()) over a free array of 1000 points (size = pairs); vs nested loops, rayon par_iter over queries",
        input: "pairs",
        sizes: [CHECK_PAIRS, PAIRS, FULL_PAIRS],
        heavy: LIGHT,
        prepare: pair_counts,
    },
    SuiteKernel {
        name: "pair_density",
        about: "suite: all pairs, a Gaussian kernel sum per query over a free array of 1000 points (size = pairs); vs nested loops, rayon par_iter over queries",
        input: "pairs",
        sizes: [CHECK_PAIRS, PAIRS, FULL_PAIRS],
        heavy: LIGHT,
        prepare: pair_density,
    },
    SuiteKernel {
        name: "nearest_centre",
        about: "suite: nearest of 16 centres for each 2-d point by a best-of reduce; vs a loop over points and centres, rayon par_iter over points",
        input: "points",
        sizes: [CHECK_FLAT, FLAT, FULL_FLAT],
        heavy: LIGHT,
        prepare: nearest_centre,
    },
    SuiteKernel {
        name: "quicksort_i64",
        about: "suite: integer quicksort (three filters around the middle element, recursion under map, concat); vs sort_unstable, rayon par_sort_unstable, and the same functional quicksort in plain sequential Rust",
        input: "random",
        sizes: [CHECK_FLAT, FLAT, FULL_FLAT],
        heavy: LIGHT,
        prepare: quicksort_i64,
    },
    SuiteKernel {
        name: "merge_sort",
        about: "suite: f64 merge sort (halves under map, merged by binary search under map and two scatters); vs the stable sort_by(total_cmp), rayon par_sort_by",
        input: "random",
        sizes: [CHECK_FLAT, SMALL, FULL_FLAT],
        heavy: 1_000_000,
        prepare: merge_sort,
    },
    SuiteKernel {
        name: "list_rank",
        about: "suite: list ranking by pointer jumping, recursion over the whole array (one random list); vs walking the list, rayon pointer jumping with par_iter",
        input: "random-list",
        sizes: [CHECK_FLAT, SMALL, FULL_FLAT],
        heavy: LIGHT,
        prepare: list_rank,
    },
];

/// Whether `name` is a suite kernel.
///
/// ```
/// assert!(flatland_cli::harness::workloads::suite::is_kernel("list_rank"));
/// assert!(!flatland_cli::harness::workloads::suite::is_kernel("quicksort"));
/// ```
pub fn is_kernel(name: &str) -> bool {
    KERNELS.iter().any(|k| k.name == name)
}

/// How a variant runs a `#[vectorise]` kernel `f` of the suite.
#[derive(Clone, Copy)]
enum Path {
    /// `try_f`: the code the library chooses (variant `vectorise`).
    Library,
    /// `plan::f::per_lane`: the per-lane (sequential) form, its lanes in parallel where the run
    /// decides they pay (variant `per_lane`).
    PerLane,
}

/// Runs the suite kernel `f` (whose checked form is `try_f`) on `args` the way `path` says.
macro_rules! kernel {
    ($path:expr, $try_f:ident, $f:ident($($arg:expr),*)) => {
        match $path {
            Path::Library => suite::$try_f($($arg),*),
            Path::PerLane => suite::plan::$f::per_lane($($arg),*),
        }
    };
}

/// The four variants over one input: `vectorise` (flatland's `try_f`), `per_lane` (flatland's
/// per-lane form), `sequential`, `rayon`.
fn instance<I: Send + Sync + 'static>(
    input: I,
    elements: usize,
    bytes: usize,
    vectorise: fn(&I, Path) -> Answer,
    sequential: fn(&I) -> Answer,
    rayon: fn(&I) -> Answer,
) -> Instance {
    let input = Arc::new(input);
    let (a, b, c, d) = (input.clone(), input.clone(), input.clone(), input);
    Instance {
        elements: elements as u64,
        bytes: bytes as u64,
        variants: vec![
            Variant::new("vectorise", Role::Flatland, true, move || {
                vectorise(&a, Path::Library)
            }),
            Variant::new("per_lane", Role::Flatland, true, move || {
                vectorise(&d, Path::PerLane)
            }),
            Variant::new("sequential", Role::Baseline, false, move || sequential(&b)),
            Variant::new("rayon", Role::Baseline, true, move || rayon(&c)),
        ],
    }
}

/// A `#[vectorise]` kernel's result; an error is a bug in the suite or the library.
fn ok<T>(name: &str, r: flatland::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("suite kernel {name}: {e}"))
}

/// Rows as an answer, each row one part (moved, not copied).
fn row_parts(rows: Vec<Vec<f64>>) -> Answer {
    Answer::Parts(rows.into_iter().map(Answer::Floats).collect())
}

/// Values that may differ by `n * EPSILON` of their size, `n` the number of positive terms
/// summed for each.
fn close(values: Vec<f64>, terms: impl Fn(usize) -> usize) -> Answer {
    let bound = values
        .iter()
        .enumerate()
        .map(|(i, v)| v.abs() * terms(i) as f64 * f64::EPSILON)
        .collect();
    Answer::Close(values, bound)
}

fn rows_input(rows: usize) -> (RowsInput, usize) {
    let inp = RowsInput::rows_0_19(rows, 1800 + rows as u64);
    let n = inp.values.len();
    (inp, n)
}

fn row_means(rows: usize) -> Instance {
    let (inp, n) = rows_input(rows);
    instance(
        inp,
        n,
        8 * n + 16 * rows,
        |i, path| {
            Answer::Floats(ok(
                "row_means",
                kernel!(path, try_row_means, row_means(&i.nested)),
            ))
        },
        |i| Answer::Floats(i.rows().map_seq(suite_rows::mean)),
        |i| Answer::Floats(i.rows().map_rayon(suite_rows::mean)),
    )
}

fn variance_answer(i: &RowsInput, v: Vec<f64>) -> Answer {
    close(v, |r| i.offsets[r + 1] - i.offsets[r])
}

fn row_variances(rows: usize) -> Instance {
    let (inp, n) = rows_input(rows);
    instance(
        inp,
        n,
        8 * n + 16 * rows,
        |i, path| {
            variance_answer(
                i,
                ok(
                    "row_variances",
                    kernel!(path, try_row_variances, row_variances(&i.nested)),
                ),
            )
        },
        |i| variance_answer(i, i.rows().map_seq(suite_rows::variance)),
        |i| variance_answer(i, i.rows().map_rayon(suite_rows::variance)),
    )
}

fn row_prefix_sums(rows: usize) -> Instance {
    let (inp, n) = rows_input(rows);
    instance(
        inp,
        n,
        16 * n + 8 * rows,
        |i, path| {
            row_parts(ok(
                "row_prefix_sums",
                kernel!(path, try_row_prefix_sums, row_prefix_sums(&i.nested)),
            ))
        },
        |i| row_parts(i.rows().map_seq(suite_rows::prefix_sums)),
        |i| row_parts(i.rows().map_rayon(suite_rows::prefix_sums)),
    )
}

fn row_smooth(rows: usize) -> Instance {
    let (inp, n) = rows_input(rows);
    instance(
        inp,
        n,
        16 * n + 8 * rows,
        |i, path| {
            row_parts(ok(
                "row_smooth",
                kernel!(path, try_row_smooth, row_smooth(&i.nested)),
            ))
        },
        |i| row_parts(i.rows().map_seq(suite_rows::smooth)),
        |i| row_parts(i.rows().map_rayon(suite_rows::smooth)),
    )
}

fn row_argmax(rows: usize) -> Instance {
    let (inp, n) = rows_input(rows);
    instance(
        inp,
        n,
        8 * n + 16 * rows,
        |i, path| {
            Answer::Ints(ok(
                "row_argmax",
                kernel!(path, try_row_argmax, row_argmax(&i.nested)),
            ))
        },
        |i| Answer::Ints(i.rows().map_seq(suite_rows::argmax)),
        |i| Answer::Ints(i.rows().map_rayon(suite_rows::argmax)),
    )
}

fn above_row_mean(rows: usize) -> Instance {
    let (inp, n) = rows_input(rows);
    instance(
        inp,
        n,
        0,
        |i, path| {
            Answer::Floats(ok(
                "above_row_mean",
                kernel!(path, try_above_row_mean, above_row_mean(&i.nested)),
            ))
        },
        |i| Answer::Floats(suite_rows::above_mean_seq(i.rows())),
        |i| Answer::Floats(suite_rows::above_mean_rayon(i.rows())),
    )
}

fn bfs_step(nodes: usize) -> Instance {
    let g = bfs_input(nodes, 1810 + nodes as u64);
    let edges = g.frontier.iter().map(|&u| g.adj[u as usize].len()).sum();
    instance(
        g,
        edges,
        0,
        |g: &BfsInput, path| {
            Answer::Ints(ok(
                "bfs_step",
                kernel!(
                    path,
                    try_bfs_step,
                    bfs_step(&g.frontier, &g.adj, &g.visited)
                ),
            ))
        },
        |g| Answer::Ints(suite_pairs::bfs_step_seq(&g.frontier, &g.adj, &g.visited)),
        |g| Answer::Ints(suite_pairs::bfs_step_rayon(&g.frontier, &g.adj, &g.visited)),
    )
}

/// Queries and points of an all-pairs case of `pairs` pairs.
struct Pairs {
    queries: Vec<f64>,
    points: Vec<f64>,
}

fn pairs_input(pairs: usize) -> Pairs {
    Pairs {
        queries: dyadics(pairs / POINTS, 1820 + pairs as u64),
        points: dyadics(POINTS, 1821 + pairs as u64),
    }
}

fn pair_counts(pairs: usize) -> Instance {
    let p = pairs_input(pairs);
    let n = p.queries.len() * p.points.len();
    instance(
        p,
        n,
        0,
        |p: &Pairs, path| {
            Answer::Ints(ok(
                "pair_counts",
                kernel!(
                    path,
                    try_pair_counts,
                    pair_counts(&p.queries, &p.points, RADIUS)
                ),
            ))
        },
        |p| Answer::Ints(suite_pairs::pair_counts_seq(&p.queries, &p.points, RADIUS)),
        |p| {
            Answer::Ints(suite_pairs::pair_counts_rayon(
                &p.queries, &p.points, RADIUS,
            ))
        },
    )
}

fn density_answer(v: Vec<f64>) -> Answer {
    close(v, |_| POINTS)
}

fn pair_density(pairs: usize) -> Instance {
    let p = pairs_input(pairs);
    let n = p.queries.len() * p.points.len();
    instance(
        p,
        n,
        0,
        |p: &Pairs, path| {
            density_answer(ok(
                "pair_density",
                kernel!(
                    path,
                    try_pair_density,
                    pair_density(&p.queries, &p.points, BANDWIDTH)
                ),
            ))
        },
        |p| {
            density_answer(suite_pairs::pair_density_seq(
                &p.queries, &p.points, BANDWIDTH,
            ))
        },
        |p| {
            density_answer(suite_pairs::pair_density_rayon(
                &p.queries, &p.points, BANDWIDTH,
            ))
        },
    )
}

/// Points and centres of a nearest-centre case.
struct Assign {
    points: Vec<(f64, f64)>,
    centres: Vec<(f64, f64)>,
}

fn nearest_centre(n: usize) -> Instance {
    let a = Assign {
        points: points(n, 1830 + n as u64),
        centres: points(CENTRES, 1831),
    };
    instance(
        a,
        n * CENTRES,
        0,
        |a: &Assign, path| {
            Answer::Ints(ok(
                "nearest_centre",
                kernel!(
                    path,
                    try_nearest_centre,
                    nearest_centre(&a.points, &a.centres)
                ),
            ))
        },
        |a| Answer::Ints(suite_pairs::nearest_centre_seq(&a.points, &a.centres)),
        |a| Answer::Ints(suite_pairs::nearest_centre_rayon(&a.points, &a.centres)),
    )
}

/// Beside the usual baselines, the functional quicksort the kernel is written as, in plain
/// sequential Rust (`functional`): the reference for the per-lane form's work.
fn quicksort_i64(n: usize) -> Instance {
    let keys = Arc::new(i64_keys(n, 1840 + n as u64));
    let mut case = instance(
        keys.clone(),
        n,
        16 * n,
        |x: &Arc<Vec<i64>>, path| {
            Answer::Ints(ok(
                "quicksort_i64",
                kernel!(path, try_quicksort_i64, quicksort_i64(x)),
            ))
        },
        |x| Answer::Ints(suite_divide::sort_i64_seq(x)),
        |x| Answer::Ints(suite_divide::sort_i64_rayon(x)),
    );
    case.variants.push(Variant::new(
        "functional",
        Role::Baseline,
        false,
        move || Answer::Ints(suite_divide::quicksort_functional_i64(&keys)),
    ));
    case
}

fn merge_sort(n: usize) -> Instance {
    instance(
        f64_keys(n, 1850 + n as u64),
        n,
        16 * n,
        |x: &Vec<f64>, path| {
            Answer::Floats(ok(
                "merge_sort",
                kernel!(path, try_merge_sort, merge_sort(x)),
            ))
        },
        |x| Answer::Floats(suite_divide::sort_f64_seq(x)),
        |x| Answer::Floats(suite_divide::sort_f64_rayon(x)),
    )
}

fn list_rank(n: usize) -> Instance {
    instance(
        random_list(n, 1860 + n as u64),
        n,
        0,
        |x: &Vec<i64>, path| {
            Answer::Ints(ok("list_rank", kernel!(path, try_list_rank, list_rank(x))))
        },
        |x| Answer::Ints(suite_divide::list_rank_seq(x)),
        |x| Answer::Ints(suite_divide::list_rank_rayon(x)),
    )
}
