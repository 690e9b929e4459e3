//! A triply nested map with free variables bound at every level.
//!
//! `cargo run --example nested_maps`
use flatland::vectoriser::programs;

fn main() {
    let (p, f) = programs::nested3();
    println!("{}", p.ir());
    let xsss = vec![
        vec![vec![1, 2, 3], vec![]],
        vec![],
        vec![vec![-4], vec![5, 6]],
    ];
    let ws = vec![10, 20, 30];
    let flat = p.exec(&f, (xsss.clone(), ws.clone())).expect("runs");
    assert_eq!(flat, p.eval(&f, (xsss, ws)).expect("evaluates"));
    println!("{flat:?}");
}
