//! Dot product and sum of squares through the staged dsl, run flattened and interpreted.
//!
//! `cargo run --example dot`
use flatland::vectoriser::programs;

fn main() {
    let (p, dot) = programs::dot();
    let (q, ssq) = programs::sum_squares();
    println!("{}{}", p.ir(), q.ir());
    let a: Vec<f64> = (0..1000).map(|i| f64::from(i) * 0.5).collect();
    let b: Vec<f64> = (0..1000).map(|i| f64::from(i % 7)).collect();
    let flat = p.exec(&dot, (a.clone(), b.clone())).expect("dot runs");
    assert_eq!(
        flat.to_bits(),
        p.eval(&dot, (a.clone(), b))
            .expect("dot evaluates")
            .to_bits()
    );
    let s = q.exec(&ssq, a.clone()).expect("sum of squares runs");
    assert_eq!(s.to_bits(), q.eval(&ssq, a).expect("evaluates").to_bits());
    println!("dot = {flat}, sum of squares = {s}");
}
