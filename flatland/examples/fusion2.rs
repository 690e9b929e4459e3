//! The Futhark seed's "Fusion 2.0" program (three result arrays, three reductions), with the
//! seed's mistakes fixed, run flattened with fusion on and off and through the interpreter:
//!
//! ```text
//! fn fusion2(a: [f64]) -> (f64, f64, f64, [f64], [f64], [f64]) =
//!   let xs = filter([|a| a < 1.0, |a| a < 10.0, |a| a <= 100.0], a) in  -- X0, X1, X2, X3
//!   let y1 = map(|x| x * 10.0, xs.1) in                                 -- f1
//!   let z = filter([|y| 50.0 < y], y1) in                                -- Z1 (dead), Z2
//!   let y3 = map(|x| sqrt(x), xs.3) in                                   -- f3
//!   let s1 = reduce(+, 0.0, z.1) in
//!   let s2 = reduce(*, 1.0, xs.2) in
//!   let s3 = reduce(min, inf, y3) in
//!   (s1, s2, s3, xs.0, z.1, y3)
//! ```
//!
//! Fixes: the identity of `min` is `+inf` (the original Fusion 2.0 program's `-INF` makes `s3` always `-inf`);
//! its predicates `1.0 < a`, `10.0 < a`, `100.0 <= a` leave the second class empty (every
//! `a > 10` already satisfies `a > 1`), so the classes here are bounded above, in increasing
//! order: `a < 1`, `1 <= a < 10`, `10 <= a <= 100`, `a > 100` (NaN goes to the last).
//!
//! Fused, the whole program is one pass over `a` (the "mega" step of `vectoriser/src/fuse`, taken when the cost
//! model predicts a gain, as it does on the default machine profile): a combined key classifies
//! each element (`X1` refined by the second filter into `Z1`/`Z2`), `s1`, `s2`, `s3` accumulate
//! by class in their classes' packed order, and `X0`, `Z2`, `Y3` are partitioned once, at the
//! end. The example prints the fused program and the cost model's reasoning.
//!
//! `cargo run --release --example fusion2`

use flatland_vectoriser::exec::{self, ExecOptions};
use flatland_vectoriser::value::Value;
use flatland_vectoriser::{eval, fuse};

fn main() {
    let p = fuse::fusion2();
    let a: Vec<Value> = (0..100_000)
        .map(|i| Value::F64(f64::from((i * 7919) % 20_000) / 100.0))
        .collect();
    let args = vec![Value::array(a)];
    let fused = exec::run(&p, "fusion2", args.clone()).expect("fused run");
    let unfused =
        exec::run_with(&p, "fusion2", args.clone(), &ExecOptions { fuse: false }).expect("run");
    let meaning = eval::run(&p, "fusion2", args).expect("eval");
    assert_eq!(fused, unfused, "fused and unfused differ");
    assert_eq!(fused, meaning, "flattened and interpreted differ");
    let Value::Tuple(parts) = fused else {
        unreachable!("fusion2 returns a tuple")
    };
    println!("{p}");
    let (fused_program, rules) = fuse::fuse_reporting(&p);
    println!("fused program ({rules:?}):\n{fused_program}");
    for why in fuse::explain(&p) {
        println!("{why}");
    }
    println!("s1 = {}, s2 = {}, s3 = {}", parts[0], parts[1], parts[2]);
    for (name, v) in ["X0", "Z2", "Y3"].iter().zip(&parts[3..]) {
        println!(
            "{name}: {} elements",
            v.as_array().map_or(0, <[Value]>::len)
        );
    }
    println!("fused = unfused = eval, bitwise");
}
