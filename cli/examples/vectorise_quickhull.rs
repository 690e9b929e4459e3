//! Quickhull (NESL) written with `#[vectorise]` ([`flatland_cli::kernels::hull`] in `src/kernels.rs`): lifted max-by-distance (a `reduce` with a
//! lambda), lifted `filter`, and lifted recursion on two lines under `map`. Checked bitwise
//! against the dsl program (`programs::quickhull`), `hull_reference` and plain Rust; and
//! `convex_hull` (split at the lexicographic extremes, as `flatland run quickhull` uses it)
//! against the harness's sequential quickhull baseline.
//!
//! `cargo run --example vectorise_quickhull`
use flatland::vectoriser::programs::{self, Point};
use flatland_cli::harness::baselines::quickhull::hull_seq;
use flatland_cli::kernels;
use quickcheck::QuickCheck;

fn bits(ps: &[Point]) -> Vec<(u64, u64)> {
    ps.iter().map(|p| (p.0.to_bits(), p.1.to_bits())).collect()
}

fn agree(pts: &[Point]) -> bool {
    let want = bits(&programs::quickhull_ref(pts));
    let (p, f) = programs::quickhull();
    let got = [
        kernels::hull(pts),
        kernels::plan::hull::reference(pts).expect("hull evaluates"),
        p.exec(&f, pts.to_vec()).expect("dsl runs"),
        p.eval(&f, pts.to_vec()).expect("dsl evaluates"),
    ];
    got.iter().all(|g| bits(g) == want)
}

/// `convex_hull` (clockwise from the lexicographically smallest point) by the macro, the executor
/// and the reference interpreter equals the baseline's vertices (counter-clockwise from the same
/// point, edge points and repeated duplicates left out), reversed after the first.
fn agree_convex(pts: &[Point]) -> bool {
    let mut want: Vec<Point> = hull_seq(pts).into_iter().map(|i| pts[i]).collect();
    if want.len() > 1 {
        want[1..].reverse();
    }
    let got = [
        kernels::convex_hull(pts),
        kernels::plan::convex_hull::executor(pts).expect("convex_hull executes"),
        kernels::plan::convex_hull::reference(pts).expect("convex_hull evaluates"),
    ];
    got.iter().all(|g| bits(g) == bits(&want))
}

fn prop(raw: Vec<(i8, i8)>) -> bool {
    let pts: Vec<Point> = raw
        .iter()
        .map(|&(x, y)| (f64::from(x) * 0.5, f64::from(y) * 0.25))
        .collect();
    agree(&pts) && agree_convex(&pts)
}

/// Degenerate inputs (empty, one point, duplicates, collinear, a circle), then generated ones;
/// panics on any disagreement.
pub(crate) fn check() {
    let circle: Vec<Point> = (0..64).map(|k| (f64::from(k) * 0.1).sin_cos()).collect();
    let line: Vec<Point> = (0..10)
        .map(|k| (f64::from(k), 2.0 * f64::from(k)))
        .collect();
    let vertical: Vec<Point> = (0..6).map(|k| (1.0, f64::from((k * 7) % 6))).collect();
    for pts in [vec![], vec![(1.0, 2.0)], vec![(0.5, 0.5); 5], line, circle] {
        assert!(agree(&pts), "disagreement on {pts:?}");
        assert!(agree_convex(&pts), "convex_hull disagrees on {pts:?}");
    }
    assert!(
        agree_convex(&vertical),
        "convex_hull disagrees on {vertical:?}"
    );
    QuickCheck::new()
        .tests(40)
        .quickcheck(prop as fn(Vec<(i8, i8)>) -> bool);
}

fn main() {
    check();
    let pts = vec![(0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (1.0, -1.0), (1.0, 0.0)];
    println!("{}", kernels::plan::program());
    println!("hull: {:?}", kernels::hull(&pts));
    println!("macro, reference, dsl and plain Rust agree bitwise");
}
