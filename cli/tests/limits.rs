//! The limits: what NaN does in each ordering operation of the kernels, the checked
//! compute layer and the readers; and the recursion depth limit in the code `#[vectorise]`
//! generates, the same error as the executor's and the interpreter's.

use flatland::vectorise;
use flatland_cli::harness::baselines::fusion2::fusion2_seq;
use flatland_cli::harness::compute::{self, ComputeError, try_quickhull, try_quicksort};
use flatland_cli::io::{parse_numbers, parse_points};
use flatland_cli::kernels;
use flatland_vectoriser::value::Value;
use flatland_vectoriser::{Error, eval, exec, fuse, limits};

#[vectorise]
mod deep {
    /// `n + 1` calls deep.
    pub fn count_down(n: i64) -> i64 {
        if n <= 0 { 0 } else { count_down(n - 1) + 1 }
    }

    /// As deep as `xs` is long on sorted input.
    pub fn quicksort_first(xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let pivot = xs[0];
            let lo = xs.iter().filter(|&x| x < pivot).collect();
            let eq = xs.iter().filter(|&x| x == pivot).collect();
            let hi = xs.iter().filter(|&x| x > pivot).collect();
            let sorted = [lo, hi].map(|part| quicksort_first(part));
            [sorted[0], eq, sorted[1]].concat()
        }
    }
}

#[vectorise]
mod minmax {
    use flatland::prelude::Nested;

    /// Direct code: one flat reduction.
    pub fn lowest(xs: &[f64]) -> f64 {
        xs.min()
    }

    /// Direct code: one segmented reduction.
    pub fn row_max(rows: &Nested<f64>) -> Vec<f64> {
        rows.map(|r| r.max())
    }

    /// Direct code: a flat map (`minimum`: IEEE 754-2019; `x.min(hi)` is Rust's, NaN-ignoring).
    pub fn clamp(xs: &[f64], hi: f64) -> Vec<f64> {
        xs.map(|x| x.minimum(hi))
    }

    /// Staged code: reductions under a map, a lambda operator turned built-in.
    pub fn part_min(xss: &[Vec<f64>]) -> Vec<f64> {
        xss.map(|xs| xs.reduce(f64::INFINITY, |a, b| a.minimum(b)))
    }
}

fn limit_error(function: &str, limit: usize) -> Error {
    Error::RecursionLimit {
        function: function.into(),
        depth: limit + 1,
        limit,
    }
}

// ---- recursion depth -------------------------------------------------------------------------

#[test]
fn ten_to_the_five_levels_run_and_one_more_is_refused() {
    let t = std::time::Instant::now();
    assert_eq!(deep::count_down(99_999), 99_999);
    eprintln!("depth 10^5 in {:.2?}", t.elapsed());
    let e = limit_error("count_down", limits::DEFAULT_MAX_RECURSION_DEPTH);
    assert_eq!(deep::try_count_down(100_000).unwrap_err(), e);
    assert_eq!(deep::plan::count_down::executor(100_000).unwrap_err(), e);
    assert_eq!(deep::plan::count_down::reference(100_000).unwrap_err(), e);
}

#[test]
fn a_lower_limit_is_the_same_error_in_try_f_executor_and_reference() {
    limits::with_max_recursion_depth(500, || {
        assert_eq!(deep::count_down(499), 499);
        let e = limit_error("count_down", 500);
        assert_eq!(deep::try_count_down(10_000).unwrap_err(), e);
        assert_eq!(deep::plan::count_down::executor(10_000).unwrap_err(), e);
        assert_eq!(deep::plan::count_down::reference(10_000).unwrap_err(), e);

        let sorted: Vec<i64> = (0..500).collect();
        assert_eq!(deep::quicksort_first(&sorted), sorted);
        let sorted: Vec<i64> = (0..501).collect();
        let e = limit_error("quicksort_first", 500);
        assert_eq!(deep::try_quicksort_first(&sorted).unwrap_err(), e);
        assert_eq!(
            deep::plan::quicksort_first::executor(&sorted).unwrap_err(),
            e
        );
        assert_eq!(
            deep::plan::quicksort_first::reference(&sorted).unwrap_err(),
            e
        );
    });
    // Back to the default afterwards.
    assert_eq!(deep::count_down(10_000), 10_000);
}

#[test]
fn the_checked_quicksort_passes_the_kernels_recursion_error_on() {
    // A middle-pivot quicksort of 64 keys is about 7 levels deep.
    let xs: Vec<f64> = (0..64).map(f64::from).collect();
    let e = limits::with_max_recursion_depth(3, || try_quicksort(&xs)).unwrap_err();
    assert_eq!(
        e,
        ComputeError::Kernel {
            kernel: "kernels::quicksort_f64",
            error: limit_error("quicksort_f64", 3),
        }
    );
    assert!(e.to_string().starts_with(
        "kernels::quicksort_f64: recursion limit: a call of `quicksort_f64` at depth 4"
    ));
}

// ---- NaN -------------------------------------------------------------------------------------

/// The kernel's filters are IEEE comparisons (user semantics): a NaN key is dropped, a NaN pivot
/// drops its part; `try_f`, the executor and the interpreter agree.
#[test]
fn quicksort_kernel_drops_nan_by_its_ieee_filters() {
    let nan = f64::NAN;
    let cases: [(&[f64], &[f64]); 4] = [
        (&[2.0, nan, 1.0], &[]),         // the pivot (middle) is NaN: all dropped
        (&[nan, 2.0, 1.0], &[1.0, 2.0]), // a NaN key is in no filter: dropped
        (&[1.0, 3.0, 2.0, nan], &[1.0, 2.0, 3.0]),
        (
            &[f64::INFINITY, 0.0, f64::NEG_INFINITY],
            &[f64::NEG_INFINITY, 0.0, f64::INFINITY],
        ),
    ];
    for (xs, want) in cases {
        let got = kernels::quicksort_f64(xs);
        assert_eq!(got, want, "{xs:?}");
        assert_eq!(
            kernels::plan::quicksort_f64::executor(xs).unwrap(),
            want,
            "{xs:?}"
        );
        assert_eq!(
            kernels::plan::quicksort_f64::reference(xs).unwrap(),
            want,
            "{xs:?}"
        );
    }
}

#[test]
fn checked_quicksort_refuses_nan_naming_the_key_and_takes_infinities() {
    assert_eq!(
        try_quicksort(&[2.0, f64::NAN, 1.0]).unwrap_err(),
        ComputeError::NanKey { index: 1 }
    );
    assert_eq!(
        try_quicksort(&[0.0, 1.0, -f64::NAN])
            .unwrap_err()
            .to_string(),
        "key 2 is NaN: quicksort takes keys that are not NaN"
    );
    let inf = f64::INFINITY;
    assert_eq!(
        try_quicksort(&[inf, -inf, 0.0]).unwrap(),
        vec![-inf, 0.0, inf]
    );
}

#[test]
#[should_panic(expected = "quicksort: key 1 is NaN")]
fn unchecked_quicksort_panics_on_nan_naming_the_key() {
    let _ = compute::quicksort(&[2.0, f64::NAN, 1.0]);
}

/// The hull kernels compare by IEEE `>`/`<`: a NaN point is left out of the hull (or, first,
/// taken as an extreme); the checked form refuses it by its index.
#[test]
fn hull_kernels_on_nan_and_the_checked_hull() {
    let square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
    let with_nan = [
        (0.0, 0.0),
        (1.0, 0.0),
        (f64::NAN, 0.5),
        (1.0, 1.0),
        (0.0, 1.0),
    ];
    // Not first: never a vertex (its cross products are NaN, `NaN > 0.0` is false).
    let want = kernels::convex_hull(&square);
    assert_eq!(kernels::convex_hull(&with_nan), want);
    assert_eq!(
        kernels::plan::convex_hull::reference(&with_nan).unwrap(),
        want
    );
    assert_eq!(kernels::hull(&with_nan), kernels::hull(&square));
    // The checked form names it instead.
    let e = try_quickhull(&with_nan).unwrap_err();
    assert_eq!(
        e,
        ComputeError::NonFinitePoint {
            index: 2,
            point: (f64::NAN, 0.5)
        }
    );
    assert_eq!(
        e.to_string(),
        "point 2 (NaN, 0.5): the convex hull takes finite coordinates only"
    );
    let e = try_quickhull(&[(0.0, f64::NEG_INFINITY)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "point 0 (0, -inf): the convex hull takes finite coordinates only"
    );
    assert_eq!(try_quickhull(&square).unwrap(), vec![0, 1, 2, 3]);
}

#[test]
fn a_nan_first_point_is_taken_as_the_hulls_extreme() {
    // `lex_min`/`lex_max` keep their first candidate unless another compares `<`/`>`: a NaN
    // first point compares neither way, so it is both ends (`NaN == NaN` is false, so not the
    // one-point hull), and no point is left of a line through it (NaN cross products): the
    // kernel's hull is that point twice.
    let pts = [(f64::NAN, 0.0), (0.0, 0.0), (1.0, 0.0), (0.0, 1.0)];
    let bits = |h: Vec<(f64, f64)>| -> Vec<(u64, u64)> {
        h.iter().map(|p| (p.0.to_bits(), p.1.to_bits())).collect()
    };
    let h = kernels::convex_hull(&pts);
    assert_eq!(
        bits(h.clone()),
        bits(kernels::plan::convex_hull::reference(&pts).unwrap())
    );
    assert_eq!(h.len(), 2, "{h:?}");
    assert!(h.iter().all(|p| p.0.is_nan() && p.1 == 0.0), "{h:?}");
    assert_eq!(
        try_quickhull(&pts).unwrap_err(),
        ComputeError::NonFinitePoint {
            index: 0,
            point: (f64::NAN, 0.0)
        }
    );
}

#[test]
#[should_panic(expected = "quickhull: point 1 (NaN, 1)")]
fn unchecked_quickhull_panics_on_nan_naming_the_point() {
    let _ = compute::quickhull(&[(0.0, 0.0), (f64::NAN, 1.0), (1.0, 0.0)]);
}

/// The readers of `flatland run` take finite numbers only: NaN and infinities in any spelling
/// Rust parses are refused with the file and line.
#[test]
fn readers_refuse_nan_and_infinities_with_file_and_line() {
    for word in [
        "NaN", "nan", "-nan", "inf", "-inf", "+inf", "infinity", "Infinity", "1e400",
    ] {
        let e = parse_numbers("v.txt", &format!("1\n{word}\n"), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("v.txt:2: '{word}' is not a finite number")
        );
        let e = parse_points("p.txt", &format!("0 0\n\n1 {word}\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("p.txt:3: y '{word}' is not a finite number")
        );
        let e = parse_points("p.txt", &format!("{word} 1\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("p.txt:1: x '{word}' is not a finite number")
        );
    }
    // `-0` and subnormals are finite.
    assert_eq!(parse_numbers("v", "-0\n5e-324\n", None).unwrap().len(), 2);
}

/// The built-in `min`/`max` reductions and `minimum`/`maximum` are IEEE 754-2019 `minimum`/
/// `maximum` on every path: the run's choice, per-lane, executor, interpreter (Rust's NaN-ignoring `x.min(y)`
/// is `flatland/tests/vectorise_math.rs`'s).
#[test]
fn min_and_max_propagate_nan_on_every_path() {
    let nan = f64::NAN;
    let xs = [1.0, nan, -1.0];
    for r in [
        minmax::try_lowest(&xs),
        minmax::plan::lowest::per_lane(&xs),
        minmax::plan::lowest::executor(&xs),
        minmax::plan::lowest::reference(&xs),
    ] {
        assert!(r.unwrap().is_nan());
    }
    assert_eq!(
        minmax::lowest(&[1.0, -0.0, 0.0]).to_bits(),
        (-0.0f64).to_bits()
    );
    let rows =
        flatland::prelude::Nested::from_offsets(vec![0, 2, 3, 3], vec![nan, 2.0, 3.0]).unwrap();
    for r in [
        minmax::try_row_max(&rows),
        minmax::plan::row_max::executor(&rows),
        minmax::plan::row_max::reference(&rows),
    ] {
        let r = r.unwrap();
        assert!(r[0].is_nan());
        assert_eq!(&r[1..], &[3.0, f64::NEG_INFINITY]);
    }
    for r in [
        minmax::try_clamp(&xs, 0.0),
        minmax::plan::clamp::executor(&xs, 0.0),
        minmax::plan::clamp::reference(&xs, 0.0),
    ] {
        let r = r.unwrap();
        assert!(r[1].is_nan());
        assert_eq!((r[0], r[2]), (0.0, -1.0));
    }
    let xss = vec![vec![2.0, nan], vec![], vec![5.0, 4.0]];
    for r in [
        minmax::try_part_min(&xss),
        minmax::plan::part_min::per_lane(&xss),
        minmax::plan::part_min::executor(&xss),
        minmax::plan::part_min::reference(&xss),
    ] {
        let r = r.unwrap();
        assert!(r[0].is_nan());
        assert_eq!(&r[1..], &[f64::INFINITY, 4.0]);
    }
    let explain = minmax::plan::explain();
    assert!(explain.contains("lowest: per-lane"), "{explain}");
}

/// The `fusion2` baseline takes the IR's minimum (NaN wins), so it agrees with the program on
/// NaN input.
#[test]
fn fusion2_baseline_agrees_with_the_program_on_nan() {
    let xs = [0.5, f64::NAN, 400.0, 3.0];
    let ((s1, s2, s3), (x0, z2, y3)) = fusion2_seq(&xs);
    let a = Value::array(xs.iter().map(|&x| Value::F64(x)).collect());
    let r = exec::run(&fuse::fusion2(), "fusion2", vec![a.clone()]).unwrap();
    assert_eq!(r, eval::run(&fuse::fusion2(), "fusion2", vec![a]).unwrap());
    let Value::Tuple(t) = r else {
        panic!("a tuple")
    };
    let f = |v: &Value| match v {
        Value::F64(x) => *x,
        other => panic!("f64: {other}"),
    };
    let fs = |v: &Value| -> Vec<u64> {
        v.as_array()
            .expect("an array")
            .iter()
            .map(|x| f(x).to_bits())
            .collect()
    };
    let bits = |xs: &[f64]| -> Vec<u64> { xs.iter().map(|x| x.to_bits()).collect() };
    assert_eq!((f(&t[0]), f(&t[1])), (s1, s2));
    assert!(s3.is_nan() && f(&t[2]).is_nan());
    assert_eq!(fs(&t[3]), bits(&x0));
    assert_eq!(fs(&t[4]), bits(&z2));
    assert_eq!(t[5].as_array().map(<[Value]>::len), Some(y3.len()));
}

/// `flatland run quicksort` / `quickhull` stop at a NaN or infinite input with its file and
/// line (exit code 2), before any kernel runs.
#[test]
fn run_refuses_nan_input_with_its_file_and_line() {
    let dir = std::env::temp_dir().join(format!("flatland-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |cmd: &str, flag: &str, name: &str, text: &str| {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_flatland"))
            .args(["run", cmd, flag, f.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(out.stdout.is_empty());
        (f.display().to_string(), err)
    };
    let (f, err) = run("quickhull", "--points", "nan.txt", "0 0\n1 0\nnan 1\n");
    assert!(
        err.contains(&format!("{f}:3: x 'nan' is not a finite number")),
        "{err}"
    );
    let (f, err) = run("quickhull", "--points", "inf.txt", "0 -inf\n");
    assert!(
        err.contains(&format!("{f}:1: y '-inf' is not a finite number")),
        "{err}"
    );
    let (f, err) = run("quicksort", "--input", "inf.txt", "1\n\ninf\n");
    assert!(
        err.contains(&format!("{f}:3: 'inf' is not a finite number")),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
