//! The Futhark seed's filter with three predicates (if-elif classes `a % 4 == 0, 1, 2`, the rest
//! last), keeping the first and last of the four classes.
//!
//! `cargo run --example futhark_filter`
use flatland::vectoriser::programs;

fn main() {
    let (p, f) = programs::futhark_filter();
    println!("{}", p.ir());
    let a: Vec<i64> = (0..20).collect();
    let (x0, x3) = p.exec(&f, a.clone()).expect("filter runs");
    assert_eq!(
        (x0.clone(), x3.clone()),
        p.eval(&f, a).expect("filter evaluates")
    );
    println!("x0 = {x0:?}\nx3 = {x3:?}");
}
