//! The issue-4 programs through the dsl and the reference interpreter, against plain Rust,
//! including empty inputs and empty segments.

#![allow(clippy::items_after_statements)] // quickcheck properties sit next to the cases they extend

use flatland_runtime::assoc;
use flatland_vectoriser::dsl::{Func, ProgramBuilder, Ty};
use flatland_vectoriser::programs::{self, Pivot, Point};
use flatland_vectoriser::{Result, eval, exec};
use quickcheck::{QuickCheck, TestResult};

/// Runs `f` with the reference interpreter and flattened; they must agree bitwise (errors too).
fn both1<A: Ty, R: Ty>(p: &ProgramBuilder, f: &Func<(A,), R>, a: A::Rust) -> Result<R::Rust> {
    let args = vec![A::to_value(a)];
    let e = eval::run(p.ir(), f.name(), args.clone());
    let x = exec::run(p.ir(), f.name(), args.clone());
    assert_eq!(e, x, "eval and exec differ on {args:?}\n{}", p.ir());
    let off = exec::ExecOptions { fuse: false };
    let u = exec::run_with(p.ir(), f.name(), args.clone(), &off);
    assert_eq!(
        x,
        u,
        "fused and unfused exec differ on {args:?}\n{}",
        p.ir()
    );
    e.map(|v| R::from_value(v).expect("result type"))
}

/// [`both1`] for two parameters.
fn both2<A: Ty, B: Ty, R: Ty>(
    p: &ProgramBuilder,
    f: &Func<(A, B), R>,
    a: A::Rust,
    b: B::Rust,
) -> Result<R::Rust> {
    let args = vec![A::to_value(a), B::to_value(b)];
    let e = eval::run(p.ir(), f.name(), args.clone());
    let x = exec::run(p.ir(), f.name(), args.clone());
    assert_eq!(e, x, "eval and exec differ on {args:?}\n{}", p.ir());
    let off = exec::ExecOptions { fuse: false };
    let u = exec::run_with(p.ir(), f.name(), args.clone(), &off);
    assert_eq!(
        x,
        u,
        "fused and unfused exec differ on {args:?}\n{}",
        p.ir()
    );
    e.map(|v| R::from_value(v).expect("result type"))
}

fn fsum(xs: &[f64]) -> f64 {
    assoc::fold(xs, 0.0, |a, b| a + b)
}

fn bits(xs: &[f64]) -> Vec<u64> {
    xs.iter().map(|x| x.to_bits()).collect()
}

fn qc() -> QuickCheck {
    QuickCheck::new()
        .rng(quickcheck::Gen::new(20))
        .tests(60)
        .max_tests(600)
}

#[test]
fn dot_and_sum_squares() {
    let (p, dot) = programs::dot();
    let (q, ssq) = programs::sum_squares();
    assert_eq!(both2(&p, &dot, vec![], vec![]).unwrap(), 0.0);
    assert_eq!(both1(&q, &ssq, vec![]).unwrap(), 0.0);
    assert!(
        both2(&p, &dot, vec![1.0], vec![]).is_err(),
        "length mismatch is an error"
    );
    let xs: Vec<f64> = (0..10_000).map(|i| f64::from(i) * 0.37 - 11.0).collect();
    let ys: Vec<f64> = xs.iter().map(|x| x.sin()).collect();
    let prods: Vec<f64> = xs.iter().zip(&ys).map(|(a, b)| a * b).collect();
    assert_eq!(
        both2(&p, &dot, xs.clone(), ys).unwrap().to_bits(),
        fsum(&prods).to_bits()
    );
    let sq: Vec<f64> = xs.iter().map(|x| x * x).collect();
    assert_eq!(both1(&q, &ssq, xs).unwrap().to_bits(), fsum(&sq).to_bits());
}

fn smvm_ref(rows: &[Vec<(i64, f64)>], v: &[f64]) -> Vec<f64> {
    rows.iter()
        .map(|r| {
            fsum(
                &r.iter()
                    .map(|&(i, x)| x * v[i as usize])
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

#[test]
fn smvm_against_rust() {
    let (p, f) = programs::smvm();
    assert_eq!(both2(&p, &f, vec![], vec![]).unwrap(), Vec::<f64>::new());
    assert_eq!(
        both2(&p, &f, vec![vec![], vec![]], vec![]).unwrap(),
        vec![0.0, 0.0]
    );
    fn prop(shape: Vec<Vec<(u8, i16)>>, vlen: u8) -> TestResult {
        let (p, f) = programs::smvm();
        let n = usize::from(vlen);
        if n == 0 && shape.iter().any(|r| !r.is_empty()) {
            return TestResult::discard();
        }
        let rows: Vec<Vec<(i64, f64)>> = shape
            .iter()
            .map(|r| {
                r.iter()
                    .map(|&(i, x)| ((usize::from(i) % n.max(1)) as i64, f64::from(x) * 0.5))
                    .collect()
            })
            .collect();
        let v: Vec<f64> = (0..n).map(|i| i as f64 * 1.25 - 3.0).collect();
        let got = both2(&p, &f, rows.clone(), v.clone()).unwrap();
        TestResult::from_bool(bits(&got) == bits(&smvm_ref(&rows, &v)))
    }
    qc().quickcheck(prop as fn(Vec<Vec<(u8, i16)>>, u8) -> TestResult);
}

fn primes_ref(n: i64) -> Vec<i64> {
    (2..n.max(2))
        .filter(|k| (2..*k).take_while(|d| d * d <= *k).all(|d| k % d != 0))
        .collect()
}

#[test]
fn primes_sieve() {
    let (p, f) = programs::primes();
    for n in [-5, 0, 1, 2, 3, 4, 5, 24, 25, 26, 49, 50, 121, 1000, 1024] {
        assert_eq!(both1(&p, &f, n).unwrap(), primes_ref(n), "primes below {n}");
    }
}

#[test]
fn quicksort_against_sort() {
    for pivot in [Pivot::Middle, Pivot::First] {
        let (p, f) = programs::quicksort(pivot);
        assert_eq!(both1(&p, &f, vec![]).unwrap(), Vec::<i64>::new());
    }
    fn prop(xs: Vec<i64>, first: bool) -> bool {
        let (p, f) = programs::quicksort(if first { Pivot::First } else { Pivot::Middle });
        let mut want = xs.clone();
        want.sort_unstable();
        both1(&p, &f, xs).unwrap() == want
    }
    qc().quickcheck(prop as fn(Vec<i64>, bool) -> bool);
}

#[test]
fn quickhull_against_rust() {
    let (p, f) = programs::quickhull();
    assert_eq!(both1(&p, &f, vec![]).unwrap(), Vec::<Point>::new());
    assert_eq!(both1(&p, &f, vec![(1.0, 2.0)]).unwrap(), vec![(1.0, 2.0)]);
    fn prop(raw: Vec<(i8, i8)>) -> bool {
        let (p, f) = programs::quickhull();
        let pts: Vec<Point> = raw
            .iter()
            .map(|&(x, y)| (f64::from(x) * 0.5, f64::from(y) * 0.25))
            .collect();
        both1(&p, &f, pts.clone()).unwrap() == programs::quickhull_ref(&pts)
    }
    qc().quickcheck(prop as fn(Vec<(i8, i8)>) -> bool);
    // A circle: every point is on the hull.
    let circle: Vec<Point> = (0..64).map(|k| (f64::from(k) * 0.1).sin_cos()).collect();
    assert_eq!(
        both1(&p, &f, circle.clone()).unwrap(),
        programs::quickhull_ref(&circle)
    );
    assert_eq!(programs::quickhull_ref(&circle).len(), 64);
}

#[test]
fn tree_lookup_and_indices() {
    let (p, tl) = programs::tree_lookup();
    let (q, ix) = programs::indices();
    assert_eq!(both2(&p, &tl, vec![], vec![]).unwrap(), Vec::<i64>::new());
    assert_eq!(both2(&q, &ix, vec![1], vec![]).unwrap(), Vec::<i64>::new());
    fn prop(table: Vec<i64>, raw: Vec<u16>) -> TestResult {
        let (p, tl) = programs::tree_lookup();
        let (q, ix) = programs::indices();
        if table.is_empty() {
            return TestResult::discard();
        }
        let xs: Vec<i64> = raw
            .iter()
            .map(|&i| i64::from(i) % table.len() as i64)
            .collect();
        let want: Vec<i64> = xs.iter().map(|&i| table[i as usize]).collect();
        TestResult::from_bool(
            both2(&p, &tl, table.clone(), xs.clone()).unwrap() == want
                && both2(&q, &ix, table, xs).unwrap() == want,
        )
    }
    qc().quickcheck(prop as fn(Vec<i64>, Vec<u16>) -> TestResult);
    let err = both2(&p, &tl, vec![1, 2], vec![0, 5]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "index: lane 0: index 5 out of range for length 2"
    );
}

#[test]
fn futhark_three_predicate_filter() {
    let (p, f) = programs::futhark_filter();
    assert_eq!(both1(&p, &f, vec![]).unwrap(), (vec![], vec![]));
    fn prop(xs: Vec<i64>) -> bool {
        let (p, f) = programs::futhark_filter();
        let x0: Vec<i64> = xs.iter().copied().filter(|a| a % 4 == 0).collect();
        let x3: Vec<i64> = xs
            .iter()
            .copied()
            .filter(|a| !matches!(a % 4, 0..=2))
            .collect();
        both1(&p, &f, xs).unwrap() == (x0, x3)
    }
    qc().quickcheck(prop as fn(Vec<i64>) -> bool);
}

#[test]
fn triply_nested_map() {
    let (p, f) = programs::nested3();
    assert_eq!(
        both2(&p, &f, vec![], vec![]).unwrap(),
        Vec::<Vec<Vec<i64>>>::new()
    );
    fn prop(xsss: Vec<Vec<Vec<i32>>>, ws: Vec<i32>) -> bool {
        let (p, f) = programs::nested3();
        let xsss: Vec<Vec<Vec<i64>>> = xsss
            .iter()
            .map(|xss| {
                xss.iter()
                    .map(|xs| xs.iter().map(|&x| i64::from(x)).collect())
                    .collect()
            })
            .collect();
        let ws: Vec<i64> = ws.iter().map(|&w| i64::from(w)).collect();
        let s: i64 = ws.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let want: Vec<Vec<Vec<i64>>> = xsss
            .iter()
            .map(|xss| {
                let a = xss.len() as i64;
                xss.iter()
                    .map(|xs| {
                        let b: i64 = xs.iter().fold(0i64, |u, v| u.wrapping_add(*v));
                        xs.iter()
                            .map(|&x| {
                                let w = if ws.is_empty() {
                                    0
                                } else {
                                    ws[(x.wrapping_abs() % ws.len() as i64) as usize]
                                };
                                x.wrapping_mul(s)
                                    .wrapping_add(a.wrapping_mul(b))
                                    .wrapping_add(w)
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        both2(&p, &f, xsss, ws).unwrap() == want
    }
    qc().quickcheck(prop as fn(Vec<Vec<Vec<i32>>>, Vec<i32>) -> bool);
}

/// Array literals of slices of one array, which the executor describes anew over the shared
/// block instead of copying: in order (`[xs[..h], xs[h..]]`, tiling the block), rotated, with a
/// part repeated, and empty, each row's parts summed and concatenated, against plain Rust.
#[test]
fn literals_of_slices_of_one_array() {
    use flatland_vectoriser::dsl::{Arr, Ex, array, let_};
    fn parts(xs: &[i64], cut: usize) -> Vec<Vec<i64>> {
        let h = xs.len() / 2;
        let c = cut % (xs.len() + 1);
        [&xs[..h], &xs[h..], &xs[c..], &xs[..c], &xs[..c], &xs[h..h]]
            .iter()
            .map(|s| s.to_vec())
            .collect()
    }
    fn prop(xss: Vec<Vec<i64>>, cut: u8) -> bool {
        let mut p = ProgramBuilder::new();
        let f = p.function("f", ["xss"], move |_, xss: Ex<Arr<Arr<i64>>>| {
            xss.map(move |xs| {
                let_(xs.len() / 2, |h| {
                    let_(xs.len() + 1, |n1| {
                        let c = Ex::from(i64::from(cut)) % n1;
                        let rest = xs.len() - h.clone();
                        let literal = array(vec![
                            xs.slice(0, h.clone()),
                            xs.slice(h.clone(), rest),
                            xs.slice(c.clone(), xs.len() - c.clone()),
                            xs.slice(0, c.clone()),
                            xs.slice(0, c),
                            xs.slice(h, 0),
                        ]);
                        let sums = literal.map(|s| s.sum());
                        array(vec![sums, literal.concat()]).concat()
                    })
                })
            })
        });
        let want: Vec<Vec<i64>> = xss
            .iter()
            .map(|xs| {
                let ps = parts(xs, usize::from(cut));
                let sums = ps
                    .iter()
                    .map(|s| s.iter().fold(0i64, |a, &b| a.wrapping_add(b)));
                sums.chain(ps.concat()).collect()
            })
            .collect();
        both1(&p, &f, xss).unwrap() == want
    }
    assert!(prop(vec![], 3));
    assert!(prop(vec![vec![], vec![5], vec![1, 2, 3, 4, 5]], 7));
    qc().quickcheck(prop as fn(Vec<Vec<i64>>, u8) -> bool);
}

/// Arrays of tuples appended and put in array literals, lane by lane (copied once, column by
/// column), with empty rows and rows of different lengths, against plain Rust.
#[test]
fn appends_and_literals_of_arrays_of_tuples() {
    use flatland_vectoriser::dsl::{Arr, Ex, array};
    type Rows = Vec<Vec<(i64, f64)>>;
    type Table = Ex<Arr<Arr<(i64, f64)>>>;
    fn prop(xss: Rows, yss: Rows) -> TestResult {
        if xss.len() != yss.len() {
            return TestResult::discard();
        }
        let mut p = ProgramBuilder::new();
        let f = p.function("f", ["xss", "yss"], |_, (xss, yss): (Table, Table)| {
            xss.zip_map(&yss, |xs, ys| {
                array(vec![ys.clone(), xs.clone()]).concat().append(&xs)
            })
        });
        let want: Rows = xss
            .iter()
            .zip(&yss)
            .map(|(xs, ys)| [&ys[..], &xs[..], &xs[..]].concat())
            .collect();
        let got = both2(&p, &f, xss, yss).unwrap();
        let bits = |r: &Rows| -> Vec<Vec<(i64, u64)>> {
            r.iter()
                .map(|xs| xs.iter().map(|&(i, x)| (i, x.to_bits())).collect())
                .collect()
        };
        TestResult::from_bool(bits(&got) == bits(&want))
    }
    assert!(!prop(vec![], vec![]).is_failure());
    assert!(!prop(vec![vec![], vec![(1, 2.0)]], vec![vec![(3, -0.0)], vec![]]).is_failure());
    qc().quickcheck(prop as fn(Rows, Rows) -> TestResult);
}
