//! `f` returns what the user wrote, not a `Result`: `?` on it does not compile (`try_f` is the
//! fallible form).
#[flatland_macros::vectorise(vectoriser = ::flatland_vectoriser)]
mod kernels {
    pub fn twice(x: i64) -> i64 {
        x * 2
    }
}

fn run() -> flatland_vectoriser::Result<i64> {
    let y = kernels::twice(1)?;
    Ok(y)
}

fn main() {
    let _ = run();
}
