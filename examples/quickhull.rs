//! Quickhull (NESL): lifted max-by-distance, lifted filter and lifted recursion on two lines.
//!
//! `cargo run --example quickhull`
use flatland::vectoriser::programs;

fn main() {
    let (p, hull) = programs::quickhull();
    println!("{}", p.ir());
    let pts: Vec<(f64, f64)> = (0..200)
        .map(|k| {
            let t = f64::from(k) * 0.7;
            (t.cos() * f64::from(k % 17), t.sin() * f64::from(k % 13))
        })
        .collect();
    let flat = p.exec1(&hull, pts.clone()).expect("quickhull runs");
    assert_eq!(flat, p.eval1(&hull, pts).expect("quickhull evaluates"));
    println!("{} hull points: {flat:?}", flat.len());
}
