//! Native kernels: `#[vectorise]` compiles every expression-machine program the executor runs
//! for the module into Rust at build time (`flatland::runtime::expr::native`). Every operator on
//! every type, on edge values (wrapping `i64`, shifts past 63, NaN, signed zeros, infinities),
//! through the executor (whose scalar trees now run natively) equals the reference interpreter
//! bitwise; a failing lane gives the machine's error; and with the `stats` feature the runs are
//! checked to have interpreted no lane at all.

use flatland::runtime::expr::op::float::canonical_bits;
use flatland::vectorise;

#[vectorise]
mod ops {
    pub fn int_arith(a: &[i64], b: &[i64]) -> Vec<(i64, i64, i64, i64)> {
        a.zip(b)
            .map(|(x, y)| (x + y, x - y, x * y, (x & y) ^ (x | y)))
    }

    pub fn int_unary(a: &[i64], b: &[i64]) -> Vec<(i64, i64, i64, i64)> {
        a.zip(b).map(|(x, y)| (x << y, x >> y, -x, !x.abs()))
    }

    pub fn int_order(a: &[i64], b: &[i64]) -> Vec<(i64, i64, bool, bool)> {
        a.zip(b)
            .map(|(x, y)| (x.min(y), x.max(y), x < y || x == y, x >= y && x != y))
    }

    pub fn int_div(a: &[i64], b: &[i64]) -> Vec<(i64, i64)> {
        a.zip(b).map(|(x, y)| (x / y, x % y))
    }

    pub fn float_arith(a: &[f64], b: &[f64]) -> Vec<(f64, f64, f64, f64)> {
        a.zip(b).map(|(x, y)| (x + y, x - y, x * y, x / y))
    }

    pub fn float_more(a: &[f64], b: &[f64]) -> Vec<(f64, f64, f64, f64)> {
        a.zip(b)
            .map(|(x, y)| (x % y, x.min(y), x.max(y), (-x).abs().sqrt()))
    }

    pub fn float_order(a: &[f64], b: &[f64]) -> Vec<(bool, bool, bool, bool)> {
        a.zip(b)
            .map(|(x, y)| (x < y, x <= y, (x > y) == (x != y), x >= y))
    }

    pub fn casts(a: &[i64], b: &[f64]) -> Vec<(f64, i64, bool, i64)> {
        a.zip(b).map(|(x, y)| {
            (
                x as f64,
                y as i64,
                (x as bool) ^ (y as bool),
                (y > 0.0) as i64,
            )
        })
    }

    pub fn bools(a: &[bool], b: &[bool]) -> Vec<(bool, bool, bool, bool)> {
        a.zip(b).map(|(p, q)| (p & q, p | !q, p ^ q, p < q))
    }

    /// Selects, shared subtrees, register reuse and the fused `a * b + c` instructions.
    pub fn mixed(a: &[f64], b: &[f64], k: i64) -> Vec<f64> {
        a.zip(b).map(|(x, y)| {
            let t = x * y + 1.5;
            let u = if x > y { t * 2.0 - y } else { y - t * x };
            (u + t) * (u - t) + (k as f64) * x - (1.0 - y * y)
        })
    }

    /// A range (the executor's `iota` program) mapped.
    pub fn stepped(n: i64, s: i64) -> Vec<i64> {
        (0..n).step_by(s).map(|i| i * 3 - n)
    }

    /// Lifted: a scalar tree per element of nested rows, then a reduction per row.
    pub fn rows(xs: &[Vec<f64>], w: f64) -> Vec<f64> {
        xs.map(|r| r.map(|x| if x < w { x * w } else { x - w }).sum())
    }
}

fn ints() -> Vec<i64> {
    vec![
        i64::MIN,
        i64::MIN + 1,
        -65,
        -64,
        -2,
        -1,
        0,
        1,
        2,
        3,
        7,
        63,
        64,
        65,
        1 << 40,
        i64::MAX,
    ]
}

fn floats() -> Vec<f64> {
    vec![
        f64::NEG_INFINITY,
        -1e308,
        -2.5,
        -1.0,
        -0.0,
        0.0,
        f64::MIN_POSITIVE,
        5e-324,
        0.5,
        1.0,
        3.0,
        1e308,
        f64::INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff8_0000_0000_0abc),
    ]
}

/// Every pair of `xs` (as two columns).
fn pairs<T: Copy>(xs: &[T]) -> (Vec<T>, Vec<T>) {
    xs.iter()
        .flat_map(|&a| xs.iter().map(move |&b| (a, b)))
        .unzip()
}

macro_rules! agree {
    ($f:ident, ($($arg:expr),*), $norm:expr) => {{
        let ran = run_counted(|| ops::plan::$f::executor($($arg),*));
        let expected = ops::plan::$f::reference($($arg),*);
        let norm = $norm;
        assert_eq!(
            ran.0.as_ref().map(&norm).map_err(ToString::to_string),
            expected.as_ref().map(&norm).map_err(ToString::to_string),
            "{}",
            stringify!($f)
        );
        ran.1
    }};
}

/// The result and the lanes the expression machine interpreted (0 without the `stats` feature).
fn run_counted<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let (r, w) = flatland::runtime::stats::measure(f);
    (r, w.lanes_interpreted)
}

#[allow(clippy::ptr_arg)] // mapped over `Result<&Vec<_>, _>`
fn f64_bits(v: &Vec<f64>) -> Vec<u64> {
    v.iter().map(|&x| canonical_bits(x)).collect()
}

#[allow(clippy::ptr_arg)]
fn f64x4_bits(v: &Vec<(f64, f64, f64, f64)>) -> Vec<[u64; 4]> {
    v.iter()
        .map(|&(a, b, c, d)| {
            [
                canonical_bits(a),
                canonical_bits(b),
                canonical_bits(c),
                canonical_bits(d),
            ]
        })
        .collect()
}

#[test]
fn every_operator_on_edge_values_equals_the_reference_without_interpreting() {
    let (ia, ib) = pairs(&ints());
    let (fa, fb) = pairs(&floats());
    let ba: Vec<bool> = (0..4).map(|k| k & 1 == 1).collect();
    let bb: Vec<bool> = (0..4).map(|k| k & 2 == 2).collect();
    let fi: Vec<f64> = fa.iter().take(ia.len()).copied().collect();
    let mut interpreted = 0;
    interpreted += agree!(int_arith, (&ia, &ib), Clone::clone);
    interpreted += agree!(int_unary, (&ia, &ib), Clone::clone);
    interpreted += agree!(int_order, (&ia, &ib), Clone::clone);
    interpreted += agree!(float_arith, (&fa, &fb), f64x4_bits);
    interpreted += agree!(float_more, (&fa, &fb), f64x4_bits);
    interpreted += agree!(float_order, (&fa, &fb), Clone::clone);
    interpreted += agree!(bools, (&ba, &bb), Clone::clone);
    interpreted += agree!(mixed, (&fa, &fb, 3), f64_bits);
    interpreted += agree!(mixed, (&fa, &fb, -7), f64_bits);
    let casts_bits = |v: &Vec<(f64, i64, bool, i64)>| -> Vec<(u64, i64, bool, i64)> {
        v.iter()
            .map(|&(a, b, c, d)| (canonical_bits(a), b, c, d))
            .collect()
    };
    interpreted += agree!(casts, (&ia, &fi), casts_bits);
    for (n, s) in [(0, 1), (1, 1), (10, 3), (5000, 7), (100_000, 1)] {
        interpreted += agree!(stepped, (n, s), Clone::clone);
    }
    let rows: Vec<Vec<f64>> = (0..300)
        .map(|r| {
            (0..r % 23)
                .map(|j| f64::from(j) - f64::from(r % 5))
                .collect()
        })
        .collect();
    interpreted += agree!(rows, (&rows, 1.5), f64_bits);
    assert_eq!(interpreted, 0, "lanes run by the expression machine");
}

/// Division by zero on some lanes: the kernel gives up, the machine reruns the lanes and the
/// error is the reference interpreter's (same operation, same lane).
#[test]
fn a_failing_lane_reports_the_machines_error() {
    let a: Vec<i64> = (0..5000).map(|i| i * 7 - 3).collect();
    let mut b: Vec<i64> = (0..5000).map(|i| i % 13 + 1).collect();
    assert_eq!(
        ops::plan::int_div::executor(&a, &b).unwrap(),
        ops::plan::int_div::reference(&a, &b).unwrap()
    );
    b[4321] = 0;
    b[4999] = 0;
    let got = ops::plan::int_div::executor(&a, &b)
        .unwrap_err()
        .to_string();
    let want = ops::plan::int_div::reference(&a, &b)
        .unwrap_err()
        .to_string();
    assert_eq!(got, want);
    assert!(got.contains("4321"), "{got}");
    let (ia, mut ib) = pairs(&ints());
    for y in &mut ib {
        if *y == 0 {
            *y = 1;
        }
    }
    assert_eq!(
        ops::plan::int_div::executor(&ia, &ib).unwrap(),
        ops::plan::int_div::reference(&ia, &ib).unwrap()
    );
}

/// The kernels of `flatland_cli::kernels` through the executor: every elementwise program runs
/// native (the counters see no interpreted lane), and the results are the reference's.
#[cfg(feature = "stats")]
#[test]
fn the_library_kernels_interpret_no_lane() {
    use flatland::runtime::elt::Nested;
    use flatland_cli::kernels as k;
    let xs: Vec<f64> = (0..3000)
        .map(|i| f64::from((i * 7919) % 1009) / 7.0)
        .collect();
    let pts: Vec<(f64, f64)> = (0..2000)
        .map(|i| (f64::from((i * 37) % 101), f64::from((i * 91) % 97)))
        .collect();
    let rows: Vec<Vec<(i64, f64)>> = (0..500)
        .map(|i: i64| (0..i % 9).map(|j| ((i * j) % 50, j as f64)).collect())
        .collect();
    let v: Vec<f64> = (0..50).map(f64::from).collect();
    let offsets: Vec<usize> = (0..=100).map(|i| i * 3).collect();
    let cols = Nested::from_offsets(
        offsets.clone(),
        (0..300i64).map(|i| i % 50).collect::<Vec<_>>(),
    )
    .unwrap();
    let vals = Nested::from_offsets(offsets, (0..300).map(f64::from).collect::<Vec<_>>()).unwrap();
    let runs: Vec<(&str, u64, bool)> = vec![
        {
            let (r, n) = run_counted(|| k::plan::quicksort_f64::executor(&xs));
            (
                "quicksort_f64",
                n,
                r.unwrap() == k::plan::quicksort_f64::reference(&xs).unwrap(),
            )
        },
        {
            let (r, n) = run_counted(|| k::plan::primes::executor(5000));
            (
                "primes",
                n,
                r.unwrap() == k::plan::primes::reference(5000).unwrap(),
            )
        },
        {
            let base = k::primes(100);
            let (r, n) = run_counted(|| k::plan::primes_between::executor(9000, 9500, &base));
            let want = k::plan::primes_between::reference(9000, 9500, &base).unwrap();
            ("primes_between", n, r.unwrap() == want)
        },
        {
            let (r, n) = run_counted(|| k::plan::hull::executor(&pts));
            (
                "hull",
                n,
                r.unwrap() == k::plan::hull::reference(&pts).unwrap(),
            )
        },
        {
            let (r, n) = run_counted(|| k::plan::convex_hull::executor(&pts));
            (
                "convex_hull",
                n,
                r.unwrap() == k::plan::convex_hull::reference(&pts).unwrap(),
            )
        },
        {
            let (r, n) = run_counted(|| k::plan::smvm::executor(&rows, &v));
            (
                "smvm",
                n,
                r.unwrap() == k::plan::smvm::reference(&rows, &v).unwrap(),
            )
        },
        {
            let (r, n) = run_counted(|| k::plan::smvm_csr::executor(&cols, &vals, &v));
            (
                "smvm_csr",
                n,
                r.unwrap() == k::plan::smvm_csr::reference(&cols, &vals, &v).unwrap(),
            )
        },
    ];
    for (name, interpreted, same) in runs {
        assert!(same, "{name}: executor differs from the reference");
        assert_eq!(interpreted, 0, "{name}: lanes interpreted");
    }
}
