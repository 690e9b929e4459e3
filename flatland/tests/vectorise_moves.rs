//! Per-lane code moves an array at its last read and drops the dead arrays before a recursive
//! call (`vectoriser/macros/src/last_use.rs`, `recursion.rs`): these kernels put last reads
//! where a wrong move would not compile (an alias alive, a value borrowing beside the read, a
//! read under a lambda, branches, renamings, slices, indexes) or would change a value, and
//! each must give the reference interpreter's value under its per-lane form, its executor and
//! the run's choice. A tuple pattern's names take their fields by value (`lane.rs`
//! `destructure`).

use flatland::vectorise;

#[vectorise]
mod k {
    /// An alias of `xs` alive beside its last read.
    pub fn alias_beside(xs: &[i64]) -> Vec<i64> {
        let ys = xs;
        let n = xs.len();
        [ys, xs.filter(|x| x > n)].concat()
    }

    /// The last read in one branch, a length in the other; the condition reads it too.
    pub fn branches(xs: &[i64], c: bool) -> Vec<i64> {
        if xs.len() > 2 && c {
            xs.filter(|x| x % 2 == 0)
        } else {
            let n = xs.len();
            vec![n; 2]
        }
    }

    /// A read under a lambda after the array's last read outside it would move it first.
    pub fn under_lambda(xs: &[i64]) -> Vec<i64> {
        let evens = xs.filter(|x| x % 2 == 0);
        evens.map(|e| e + xs.len())
    }

    /// Slices of one array as a literal's parts (renamings), then the array read again.
    pub fn halves_and_all(xs: &[i64]) -> (Vec<Vec<i64>>, i64) {
        let half = xs.len() / 2;
        let parts = [xs[..half].to_vec(), xs[half..].to_vec()];
        (parts, xs.sum())
    }

    /// The last index of an array of scalars, after a filter that read it.
    pub fn last_index(xs: &[i64]) -> i64 {
        if xs.len() == 0 {
            0
        } else {
            let big = xs.filter(|x| x > 10).len();
            big + xs[xs.len() - 1]
        }
    }

    /// A recursion down a tail of a computed array: each level's array dropped before the call.
    pub fn count_down(xs: &[i64], acc: i64) -> i64 {
        if xs.len() == 0 {
            acc
        } else {
            let rest = xs.map(|x| x - 1).filter(|x| x > 0);
            let here = xs.len();
            count_down(rest, acc + here)
        }
    }

    /// Quicksort with its parts in a tuple read in place (held: the executor's unless forced).
    pub fn sort_tuple(xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let p = xs[0];
            let parts = (
                xs.filter(|x| x < p),
                xs.filter(|x| x == p),
                xs.filter(|x| x > p),
            );
            let sorted = [parts.0, parts.2].map(|part| sort_tuple(part));
            [sorted[0], parts.1, sorted[1]].concat()
        }
    }

    /// Quicksort over a map of its parts, the pivot's part read after the recursive map.
    pub fn sort_map(xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let p = xs[xs.len() / 2];
            let lo = xs.filter(|x| x < p);
            let eq = xs.filter(|x| x == p);
            let hi = xs.filter(|x| x > p);
            let sorted = [lo, hi].map(|part| sort_map(part));
            [sorted[0], eq, sorted[1]].concat()
        }
    }

    /// Rows of an array of arrays at distinct constant indices as a concatenation's parts, at
    /// its last read: each row taken (the first part, row 2, grown into the output).
    pub fn rows_taken(xs: &[i64]) -> Vec<i64> {
        let parts = [
            xs.filter(|x| x < 0),
            xs.filter(|x| x > 10),
            xs.map(|x| x * 2),
        ];
        [parts[2], xs.to_vec(), parts[0]].concat()
    }

    /// One row named twice: nothing may be taken (the second read would find it gone).
    pub fn row_twice(xs: &[i64]) -> Vec<i64> {
        let parts = [xs.map(|x| x + 1), xs.filter(|x| x > 0)];
        [parts[0], parts[1], parts[0]].concat()
    }

    /// Rows read again after the concatenation: nothing is taken.
    pub fn rows_then_count(xs: &[i64]) -> (Vec<i64>, i64) {
        let parts = [xs.map(|x| x + 1), xs.filter(|x| x > 0)];
        let joined = [parts[1], parts[0]].concat();
        (joined, parts.len())
    }

    /// A row past the end: the interpreter's error, after the rows before it were taken.
    pub fn row_past_end(xs: &[i64]) -> Vec<i64> {
        let parts = [xs.map(|x| x + 1), xs.filter(|x| x > 0)];
        [parts[0], parts[2]].concat()
    }

    /// Rows of an argument (borrowed: read in place, not copied first).
    pub fn rows_of_argument(xss: &[Vec<i64>]) -> Vec<i64> {
        [xss[1], xss[0]].concat()
    }

    /// Three parts of `xs` around `p` and their sizes, as a tuple.
    fn three_parts(xs: &[i64], p: i64) -> (Vec<i64>, Vec<i64>, (Vec<i64>, i64)) {
        let lo = xs.filter(|x| x < p);
        let hi = xs.filter(|x| x > p);
        (lo, xs.filter(|x| x == p), (hi, xs.len()))
    }

    /// A quicksort whose parts come out of a tuple pattern: moved into their names (the
    /// pattern's lets destructure the tuple), then into the lanes of the recursive map.
    pub fn sort_pattern(xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let p = xs[xs.len() / 2];
            let (lo, eq, (hi, n)) = three_parts(xs, p);
            let sorted = [lo, hi].map(|part| sort_pattern(part));
            [sorted[0], eq, sorted[1], vec![n; 0]].concat()
        }
    }

    /// Fields skipped by `_`, a field read twice, and the tuple named and read after its
    /// pattern: only what the pattern names moves.
    pub fn pattern_partly(xs: &[i64]) -> (Vec<i64>, i64) {
        let t = three_parts(xs, 0);
        let (_, eq, _) = three_parts(xs, 3);
        let (lo, _, rest) = t;
        let (again, _, _) = t;
        ([lo, eq, rest.0, again].concat(), rest.1)
    }
}

fn inputs() -> Vec<Vec<i64>> {
    let mut out = vec![vec![], vec![5], vec![3, 3], vec![12, -4, 7, 7, 30, 0, 1]];
    let mut s = 7u64;
    out.push(
        (0..3000)
            .map(|_| {
                s = s
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((s >> 33) % 200) as i64 - 50
            })
            .collect(),
    );
    out.push((0..500).collect());
    out
}

/// `f`'s run's choice, per-lane form and executor agree with the reference interpreter.
macro_rules! agree {
    ($f:ident, $($arg:expr),*) => {{
        let want = k::plan::$f::reference($($arg),*).unwrap();
        assert_eq!(k::$f($($arg),*), want, "{}", stringify!($f));
        assert_eq!(k::plan::$f::per_lane($($arg),*).unwrap(), want, "{} per-lane", stringify!($f));
        assert_eq!(k::plan::$f::executor($($arg),*).unwrap(), want, "{} executor", stringify!($f));
    }};
}

#[test]
fn moved_arrays_give_the_interpreters_values() {
    for xs in inputs() {
        agree!(alias_beside, &xs);
        agree!(branches, &xs, true);
        agree!(branches, &xs, false);
        agree!(under_lambda, &xs);
        agree!(halves_and_all, &xs);
        agree!(last_index, &xs);
        agree!(count_down, &xs, 0);
        agree!(sort_tuple, &xs);
        agree!(sort_map, &xs);
        agree!(rows_taken, &xs);
        agree!(row_twice, &xs);
        agree!(rows_then_count, &xs);
        agree!(sort_pattern, &xs);
        agree!(pattern_partly, &xs);
        let half = xs.len() / 2;
        let rows = vec![xs[..half].to_vec(), xs[half..].to_vec()];
        agree!(rows_of_argument, &rows);
    }
}

#[test]
fn a_taken_row_out_of_range_fails_as_in_the_interpreter() {
    for xs in inputs() {
        let want = k::plan::row_past_end::reference(&xs)
            .unwrap_err()
            .to_string();
        assert_eq!(want, "index: lane 0: index 2 out of range for length 2");
        let per_lane = k::plan::row_past_end::per_lane(&xs)
            .unwrap_err()
            .to_string();
        let executor = k::plan::row_past_end::executor(&xs)
            .unwrap_err()
            .to_string();
        assert_eq!((per_lane, executor), (want.clone(), want));
    }
    let short = vec![vec![1]];
    let want = k::plan::rows_of_argument::reference(&short)
        .unwrap_err()
        .to_string();
    assert_eq!(
        k::plan::rows_of_argument::per_lane(&short)
            .unwrap_err()
            .to_string(),
        want
    );
}

#[test]
fn a_recursion_that_hands_its_arrays_down_is_measured() {
    let sort_map = k::plan::sort_map::explain();
    assert!(sort_map.contains(": per-lane: "), "{sort_map}");
    // `rest` moves into the call, `xs` is dropped before it.
    let count_down = k::plan::count_down::explain();
    assert!(count_down.contains(": per-lane: "), "{count_down}");
    let sort_tuple = k::plan::sort_tuple::explain();
    assert!(
        sort_tuple.contains(": flatten (recursive): "),
        "{sort_tuple}"
    );
}

#[test]
fn a_recursion_over_a_tuple_patterns_parts_runs_per_lane() {
    // The pattern consumes the tuple, so nothing dead is held across the recursive map.
    let sort = k::plan::sort_pattern::explain();
    assert!(sort.contains("sort_pattern: per-lane: "), "{sort}");
    // A tuple whose fields are read where they are used (no pattern) is still held.
    let tuple = k::plan::sort_tuple::explain();
    assert!(
        tuple.contains("sort_tuple: flatten (recursive): "),
        "{tuple}"
    );
}
