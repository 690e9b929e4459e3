//! Destination passing in the per-lane form (`vectoriser/macros/src/append_calls.rs`): a call
//! whose array the caller appends to a `concat` is written by the callee's append form into
//! the caller's buffer; a map appended there pushes its values; a literal of slices of an
//! array in scope hands the slices to a recursive map's lanes without copying them; an array
//! that a recursion only passes on and indexes does not weigh on its lanes (`whole_reads.rs`).
//! Each kernel must give the reference interpreter's values and errors under its per-lane
//! form (every choice of parallel lanes, 1, 2, 3 and 8 threads), its executor and the run's
//! choice.

mod common;
use common::ints;
use flatland::vectorise;
use flatland::vectoriser::lane::{Lanes, with_lanes};

#[vectorise]
mod k {
    /// DPH's treeLookup: halves down to single indices, the table free in every lane.
    pub fn tree_lookup(table: &[i64], xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.iter().map(|&i| table[i]).collect()
        } else {
            let half = xs.len() / 2;
            [xs[..half].to_vec(), xs[half..].to_vec()]
                .map(|part| tree_lookup(table, part))
                .concat()
        }
    }

    /// `depth` levels of three-way splits (one part empty when short), then each element
    /// scaled: an `if` and a `let` in the appending position, a map appended at the leaves.
    pub fn expand(xs: &[i64], depth: i64, scale: i64) -> Vec<i64> {
        if depth <= 0 || xs.len() < 2 {
            let k = scale + depth;
            xs.map(|x| x * k)
        } else {
            let third = xs.len() / 3;
            let parts = [
                xs[..third].to_vec(),
                xs[third..2 * third].to_vec(),
                xs[2 * third..].to_vec(),
            ];
            parts.map(|p| expand(p, depth - 1, scale + 1)).concat()
        }
    }

    /// Two functions appending each other's results (mutual recursion), with a nested
    /// `concat` of a `map` in between, and a filter's class appended at the bottom.
    pub fn ping(xs: &[i64], n: i64) -> Vec<i64> {
        if n <= 0 || xs.len() < 2 {
            xs.filter(|x| x % 3 != 0)
        } else {
            let half = xs.len() / 2;
            [xs[half..].to_vec(), xs[..half].to_vec()]
                .map(|p| pong(p, n - 1))
                .concat()
        }
    }

    /// See [`ping`]: each part again split in two, reversed, each appended by `ping`.
    pub fn pong(xs: &[i64], n: i64) -> Vec<i64> {
        let half = xs.len() / 2;
        [xs[..half].to_vec(), xs[half..].to_vec()]
            .map(|p| [p, vec![n; 1]].map(|q| ping(q, n)).concat())
            .concat()
    }

    /// Halves of a computed array (borrowed from the local), the array read again after the
    /// recursive map, and an array of arrays halved as well.
    pub fn halves_of_local(xs: &[i64], rows: &[Vec<i64>], depth: i64) -> Vec<i64> {
        if depth <= 0 || xs.len() < 2 {
            [xs.to_vec(), rows.map(|r| r.len()).to_vec()].concat()
        } else {
            let ys = xs.map(|x| x * 3 - depth);
            let h = ys.len() / 2;
            let r = rows.len() / 2;
            let below = [ys[..h].to_vec(), ys[h..].to_vec()]
                .map(|p| halves_of_local(p, rows[..r].to_vec(), depth - 1))
                .concat();
            let sides = [rows[r..].to_vec(), rows[..r].to_vec()]
                .map(|rs| halves_of_local(vec![ys.len(); 1], rs, depth - 1))
                .concat();
            [below, sides, vec![ys.len(); 1]].concat()
        }
    }

    /// A literal of a slice and a computed part (the slice copied: not every part borrows),
    /// each half recursed on.
    pub fn mixed(xs: &[i64], depth: i64) -> Vec<i64> {
        if depth <= 0 || xs.len() < 2 {
            xs.to_vec()
        } else {
            let half = xs.len() / 2;
            [xs[..half].to_vec(), xs.map(|x| x + depth)]
                .map(|p| mixed(p, depth - 1))
                .concat()
        }
    }
}

/// The inputs: empty, one element, short, long enough for parallel lanes, one more than a
/// power of two.
fn inputs() -> Vec<Vec<i64>> {
    vec![
        vec![],
        vec![4],
        vec![3, 0, 7],
        ints(3000, 5, 1000),
        ints(1025, 9, 50),
    ]
}

/// Runs `f` under every choice of parallel lanes on pools of 1, 2, 3 and 8 threads.
fn everywhere(f: impl Fn() + Sync) {
    for threads in [1, 2, 3, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        pool.install(|| {
            for l in [Lanes::Sequential, Lanes::Parallel, Lanes::Model] {
                with_lanes(l, &f);
            }
        });
    }
}

/// `f`'s per-lane form (under every choice), run's choice and executor agree with the
/// reference interpreter, values and errors.
macro_rules! agree {
    ($f:ident, $try_f:ident, $($arg:expr),*) => {{
        let want = k::plan::$f::reference($($arg),*).map_err(|e| e.to_string());
        everywhere(|| {
            let got = k::plan::$f::per_lane($($arg),*).map_err(|e| e.to_string());
            assert_eq!(got, want, "{} per-lane", stringify!($f));
        });
        let chosen = k::$try_f($($arg),*).map_err(|e| e.to_string());
        assert_eq!(chosen, want, "{} run's choice", stringify!($f));
        let executor = k::plan::$f::executor($($arg),*).map_err(|e| e.to_string());
        assert_eq!(executor, want, "{} executor", stringify!($f));
    }};
}

#[test]
fn appended_results_give_the_interpreters_values() {
    for xs in inputs() {
        let table: Vec<i64> = (0..1000).map(|i| i * 7 - 3).collect();
        agree!(tree_lookup, try_tree_lookup, &table, &xs);
        for depth in [0, 1, 9] {
            agree!(expand, try_expand, &xs, depth, 2);
            agree!(mixed, try_mixed, &xs, depth);
        }
        agree!(ping, try_ping, &xs, 5);
        let rows: Vec<Vec<i64>> = xs.chunks(7).map(<[i64]>::to_vec).collect();
        agree!(halves_of_local, try_halves_of_local, &xs, &rows, 6);
    }
}

#[test]
fn an_index_out_of_range_fails_as_in_the_interpreter() {
    // Two indices out of range, in different halves: the lowest lane's error, everywhere.
    let table: Vec<i64> = (0..100).collect();
    let mut xs = ints(5000, 3, 100);
    xs[3100] = 100;
    xs[4000] = -1;
    let want = k::plan::tree_lookup::reference(&table, &xs)
        .unwrap_err()
        .to_string();
    assert!(want.contains("index 100 out of range"), "{want}");
    agree!(tree_lookup, try_tree_lookup, &table, &xs);
}

#[test]
fn a_recursion_that_only_indexes_a_free_array_runs_per_lane() {
    // treeLookup reads its table only by index and passes it on: its lanes weigh their
    // parts alone, so the lower levels run on this thread (no task per call).
    let explain = k::plan::tree_lookup::explain();
    assert!(explain.contains("tree_lookup: per-lane: "), "{explain}");
}
