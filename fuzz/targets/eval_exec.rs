//! The flattened executor (fusion on and off) against the reference interpreter, bitwise, on
//! well-typed random programs whose every choice comes from the input (the generator of
//! `vectoriser/tests/random.rs`), with small inputs drawn the same way. Both must give the same
//! value or the same error; a case either refuses for the memory budget is skipped.

#[path = "../../vectoriser/tests/random_programs/gen.rs"]
mod generator;

use flatland::vectoriser::{Error, eval, exec};
use generator::{Rng, inputs_from, program_from};

pub fn run(data: &[u8]) {
    super::budget();
    let mut rng = Rng::from_bytes(data);
    let budget = 2 + rng.below(5) as u32;
    let args = inputs_from(&mut rng);
    let p = program_from(rng, budget);
    if let Err(e) = flatland::vectoriser::check::check_program(&p) {
        panic!("the generator made an ill-typed program: {e}\n{p}");
    }
    let want = eval::run(&p, "main", args.clone());
    let off = exec::ExecOptions { fuse: false };
    let unfused = exec::run_with(&p, "main", args.clone(), &off);
    let fused = exec::run(&p, "main", args);
    let refused = |r: &Result<_, Error>| {
        matches!(
            r,
            Err(Error::Runtime(
                flatland::runtime::Error::MemoryBudget { .. }
            ))
        )
    };
    if refused(&want) || refused(&unfused) || refused(&fused) {
        return;
    }
    assert!(
        want == unfused && want == fused,
        "eval: {want:?}\nexec unfused: {unfused:?}\nexec fused: {fused:?}\nprogram:\n{p}"
    );
}
