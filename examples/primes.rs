//! The primes below n, as NESL's sieve (recursion on sqrt n, strided iota, scatter, filter).
//!
//! `cargo run --example primes -- 100`
use flatland::vectoriser::programs;

fn main() {
    let n: i64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let (p, primes) = programs::primes();
    println!("{}", p.ir());
    let flat = p.exec1(&primes, n).expect("primes runs");
    assert_eq!(flat, p.eval1(&primes, n).expect("primes evaluates"));
    println!("{} primes below {n}: {flat:?}", flat.len());
}
