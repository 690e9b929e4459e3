//! The flattened executor against the interpreter on the corners: runtime errors (operation and
//! lane), deep lifted recursion, empty contexts.

use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder, if_};
use flatland_vectoriser::programs::{self, Pivot};
use flatland_vectoriser::{Error, dsl::Ty};

/// Runs `f` both ways and returns the (equal) error message.
fn error_both<A: Ty, B: Ty, R: Ty>(
    p: &ProgramBuilder,
    f: &flatland_vectoriser::dsl::Func<(A, B), R>,
    a: A::Rust,
    b: B::Rust,
) -> String
where
    A::Rust: Clone,
    B::Rust: Clone,
{
    let e = p.eval(f, (a.clone(), b.clone())).err().expect("eval fails");
    let x = p.exec(f, (a, b)).err().expect("exec fails");
    assert_eq!(e, x, "eval and exec errors differ");
    e.to_string()
}

#[test]
fn division_by_zero_in_a_lifted_map_names_the_lane() {
    let mut p = ProgramBuilder::new();
    let f = p.function(
        "f",
        ["xss", "d"],
        |_, (xss, d): (Ex<Arr<Arr<i64>>>, Ex<i64>)| {
            xss.map(move |xs| xs.map(move |x| Ex::from(100i64) / (x - d)))
        },
    );
    assert_eq!(
        error_both(&p, &f, vec![vec![1, 2], vec![], vec![4, 3, 5]], 3),
        "div: lane 1: division by zero"
    );
    let e = p.exec(&f, (vec![vec![3]], 3)).unwrap_err();
    assert!(matches!(
        e,
        Error::Runtime(flatland_runtime::Error::DivisionByZero { op: "div", lane: 0 })
    ));
}

#[test]
fn several_failing_lanes_report_the_interpreters_first_error() {
    // Lane 0 fails at the index, lane 1 at the division computing it: the interpreter meets lane
    // 0's error first, while lifted execution runs the division over all lanes before any index.
    // Both report the interpreter's error.
    let mut p = ProgramBuilder::new();
    let f = p.function(
        "f",
        ["xs", "t"],
        |_, (xs, t): (Ex<Arr<i64>>, Ex<Arr<i64>>)| xs.map(move |x| t.at(Ex::from(10i64) / x)),
    );
    assert_eq!(
        error_both(&p, &f, vec![1, 0], vec![1, 2, 3]),
        "index: lane 0: index 10 out of range for length 3"
    );
    let g = p.function(
        "g",
        ["xss", "t"],
        |_, (xss, t): (Ex<Arr<Arr<i64>>>, Ex<Arr<i64>>)| {
            xss.map(move |xs| xs.map(move |x| t.at(Ex::from(10i64) / x)))
        },
    );
    assert_eq!(
        error_both(&p, &g, vec![vec![5, 1], vec![0]], vec![1, 2]),
        "index: lane 0: index 2 out of range for length 2"
    );
}

#[test]
fn index_out_of_range_in_a_lifted_map_names_the_lane() {
    let mut p = ProgramBuilder::new();
    let f = p.function(
        "f",
        ["xss", "t"],
        |_, (xss, t): (Ex<Arr<Arr<i64>>>, Ex<Arr<i64>>)| {
            xss.map(move |xs| xs.map(move |i| t.at(i)))
        },
    );
    assert_eq!(
        error_both(&p, &f, vec![vec![0], vec![1, 0, 9]], vec![4, 5]),
        "index: lane 2: index 9 out of range for length 2"
    );
    assert_eq!(
        error_both(&p, &f, vec![vec![], vec![-1]], vec![4, 5]),
        "index: lane 0: index -1 out of range for length 2"
    );
    // nested elements take the other path of lifted indexing
    let g = p.function(
        "g",
        ["xss", "is"],
        |_, (xss, is): (Ex<Arr<Arr<i64>>>, Ex<Arr<i64>>)| is.map(move |i| xss.at(i).len()),
    );
    assert_eq!(
        error_both(&p, &g, vec![vec![1], vec![]], vec![1, 0, 2]),
        "index: lane 2: index 2 out of range for length 2"
    );
    assert_eq!(
        p.exec(&g, (vec![vec![1], vec![]], vec![1, 0])).unwrap(),
        vec![0, 1]
    );
}

#[test]
fn other_runtime_errors_agree() {
    let mut p = ProgramBuilder::new();
    let sl = p.function("sl", ["xs", "n"], |_, (xs, n): (Ex<Arr<i64>>, Ex<i64>)| {
        xs.map(move |x| crate_iota(x).slice(n.clone(), 2))
    });
    assert_eq!(
        error_both(&p, &sl, vec![4, 1], 1),
        "slice: lane 1: start 1 and length 2 out of range for length 1"
    );
    let io = p.function("io", ["xs", "d"], |_, (xs, d): (Ex<Arr<i64>>, Ex<i64>)| {
        xs.map(move |x| crate_iota(x - d.clone()).len())
    });
    assert_eq!(
        error_both(&p, &io, vec![5, 6, 1], 2),
        "iota: lane 2: negative length -1"
    );
    let pa = p.function(
        "pa",
        ["xss", "c"],
        |_, (xss, c): (Ex<Arr<Arr<i64>>>, Ex<i64>)| {
            xss.map(move |xs| xs.partition_with(3, vec![0], move |x| x - c, |parts| parts[0].len()))
        },
    );
    assert_eq!(
        error_both(&p, &pa, vec![vec![2, 3], vec![5, 2]], 2),
        "partition: lane 0: class 3 out of range 0..3"
    );
    assert_eq!(
        error_both(&p, &pa, vec![vec![2, 1]], 2),
        "partition: lane 1: negative key -1"
    );
}

fn crate_iota(n: Ex<i64>) -> Ex<Arr<i64>> {
    flatland_vectoriser::dsl::iota(n)
}

fn countdown(depth: i64) {
    let mut p = ProgramBuilder::new();
    let down = p.function("down", ["n"], |down, n: Ex<i64>| {
        if_(n.le(0), Ex::from(0i64), down.call(n.clone() - 1) + 1)
    });
    let f = p.function("f", ["ns"], move |_, ns: Ex<Arr<i64>>| {
        ns.map(move |n| down.call(n))
    });
    assert_eq!(p.exec(&f, vec![depth, 3, 0]).unwrap(), vec![depth, 3, 0]);
}

#[test]
fn deep_lifted_recursion_does_not_overflow() {
    // 10,000 levels of a recursive call under map (the 8 MiB native stack holds a few hundred
    // debug-build levels); 100,000 in the ignored release test below.
    countdown(10_000);
}

#[test]
#[ignore = "large: run with --release -- --ignored"]
fn lifted_recursion_100_000_deep() {
    // 10^5 calls deep (`f`, then `down(99_998)` to `down(0)`): the default recursion limit.
    countdown(99_998);
}

#[test]
fn quicksort_on_sorted_input_with_a_bad_pivot() {
    // Recursion as deep as the input is long; quadratic work, so 1,000 here (see the ignored
    // test for 100,000 in release builds).
    let (p, qs) = programs::quicksort(Pivot::First);
    let xs: Vec<i64> = (0..1_000).collect();
    assert_eq!(p.exec(&qs, xs.clone()).unwrap(), xs);
}

#[test]
#[ignore = "quadratic work: run with --release -- --ignored"]
fn quicksort_100_000_deep() {
    // Recursion as deep as the input is long. Each level's bindings are released after their
    // last use and what waits across the recursive call is compacted, so live memory is linear
    // in the depth (tests/lifted_memory.rs at the workspace root checks the growth); the work
    // is quadratic (5e9 element comparisons), hence release builds only.
    let (p, qs) = programs::quicksort(Pivot::First);
    let xs: Vec<i64> = (0..100_000).collect();
    assert_eq!(p.exec(&qs, xs.clone()).unwrap(), xs);
}

#[test]
fn empty_contexts_skip_work() {
    let (p, qs) = programs::quicksort(Pivot::Middle);
    assert_eq!(p.exec(&qs, vec![]).unwrap(), Vec::<i64>::new());
    let (p, h) = programs::quickhull();
    assert_eq!(p.exec(&h, vec![]).unwrap(), Vec::<(f64, f64)>::new());
}
