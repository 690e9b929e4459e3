//! Random `#[vectorise]` functions (`native_random/generated.rs`, written by
//! `native_random/gen.rs` from a fixed seed): scalar bodies mixing every operator, cast, select
//! and `let` of the macro's subset, so that the native kernels the macro emits meet many
//! instruction sequences (registers reused across types, fused `a * b + c`, constants, selects).
//! Each function runs three ways on edge values (wrapping `i64`, shifts past 63, NaN payloads,
//! signed zeros, infinities): the executor with its native kernels, the reference interpreter
//! and `try_fK` (the run's choice, per-lane at these sizes); all three must agree bit for bit (any NaN equals any NaN, see
//! `Bits for f64`), errors included, and (with `stats`) a successful executor run interprets no
//! lane.
//!
//! After changing the generator, regenerate the file with
//! `FLATLAND_REGENERATE=1 cargo test --test vectorise_native_random`.

#[path = "native_random/gen.rs"]
mod generator;

include!("native_random/generated.rs");

const FUNCTIONS: usize = 60;
const SEED: u64 = 20_261_130;

/// A value shown with its exact bits.
trait Bits {
    fn bits(&self) -> String;
}

impl Bits for i64 {
    fn bits(&self) -> String {
        self.to_string()
    }
}

/// Every NaN shows as `NaN`: Rust leaves the sign and payload of an arithmetic operation's NaN
/// result unspecified (RFC 3514), and an optimised build folds and commutes operations so that
/// they differ between the paths (`(NaN + f) - |f|` on the three paths, release build); every
/// other value is compared by its exact bits, signed zeros included.
impl Bits for f64 {
    fn bits(&self) -> String {
        if self.is_nan() {
            "NaN".to_string()
        } else {
            format!("{:#x}", self.to_bits())
        }
    }
}

impl Bits for bool {
    fn bits(&self) -> String {
        self.to_string()
    }
}

fn show<T: Bits>(r: flatland::vectoriser::Result<Vec<T>>) -> String {
    match r {
        Ok(v) => v.iter().map(Bits::bits).collect::<Vec<_>>().join(","),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn the_generated_file_is_the_generators_output() {
    let want = generator::file(FUNCTIONS, SEED);
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/native_random/generated.rs"
    );
    if std::env::var_os("FLATLAND_REGENERATE").is_some() {
        std::fs::write(path, &want).expect("write generated.rs");
    }
    let have = std::fs::read_to_string(path).expect("read generated.rs");
    assert!(
        have == want,
        "tests/native_random/generated.rs is stale: run FLATLAND_REGENERATE=1 cargo test --test vectorise_native_random"
    );
}

/// Edge values for both columns, every pair once, then a long run (several leaves and tasks).
fn inputs() -> Vec<(Vec<i64>, Vec<f64>)> {
    let ints = [
        i64::MIN,
        -65,
        -64,
        -7,
        -1,
        0,
        1,
        2,
        3,
        63,
        64,
        1 << 40,
        i64::MAX,
    ];
    let floats = [
        f64::NEG_INFINITY,
        -1e300,
        -2.5,
        -0.0,
        0.0,
        5e-324,
        0.5,
        1.0,
        3.0,
        1e300,
        f64::INFINITY,
        f64::NAN,
        f64::from_bits(0x7ff8_0000_0000_0abc),
    ];
    let (a, x): (Vec<i64>, Vec<f64>) = ints
        .iter()
        .flat_map(|&i| floats.iter().map(move |&f| (i, f)))
        .unzip();
    let n = 20_000;
    let long_a: Vec<i64> = (0..n)
        .map(|k| ints[k % ints.len()].wrapping_mul(k as i64 % 5 + 1))
        .collect();
    let long_x: Vec<f64> = (0..n)
        .map(|k| floats[(k * 7) % floats.len()] * (k % 3) as f64)
        .collect();
    vec![(Vec::new(), Vec::new()), (a, x), (long_a, long_x)]
}

#[test]
fn generated_functions_agree_three_ways_without_interpreting() {
    let inputs = inputs();
    let mut interpreted = 0;
    let mut failures = Vec::new();
    let mut errors = 0;
    for (name, run) in CASES {
        for (a, x) in &inputs {
            let ([exec, reference, chosen], w) = flatland::runtime::stats::measure(|| run(a, x));
            if exec != reference || chosen != reference {
                failures.push(format!(
                    "{name} on {} lanes:\n  executor  {exec:.200}\n  reference {reference:.200}\n  try_f     {chosen:.200}",
                    a.len()
                ));
            }
            if reference.starts_with("error") {
                errors += 1;
            } else {
                interpreted += w.lanes_interpreted;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        interpreted, 0,
        "lanes interpreted by successful executor runs"
    );
    // The generator makes some divisions that can fail: errors are compared too.
    assert!(errors < CASES.len() * inputs.len(), "every run failed");
}
