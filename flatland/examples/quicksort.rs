//! Quicksort written with `#[vectorise]`: three filters around the middle element, the two outer
//! parts sorted by one recursive call under `map`, and a `concat`.
//!
//! Flatland runs the recursion *lifted*: every level of the recursion tree is one set of
//! segmented bulk operations over all of that level's parts at once, so the parallelism grows
//! with the number of parts instead of stopping at two.
//!
//! `cargo run -p flatland --example quicksort`
use flatland::prelude::*;

#[vectorise]
mod sorting {
    /// `xs` in ascending order (stable: equal keys keep their input order).
    pub fn quicksort(xs: &[i64]) -> Vec<i64> {
        if xs.len() <= 1 {
            xs.to_vec()
        } else {
            let pivot = xs[xs.len() / 2];
            let less = xs.iter().filter(|&x| x < pivot).collect();
            let equal = xs.iter().filter(|&x| x == pivot).collect();
            let greater = xs.iter().filter(|&x| x > pivot).collect();
            let sorted = [less, greater].map(|part| quicksort(part));
            [sorted[0], equal, sorted[1]].concat()
        }
    }
}

fn main() -> Result<()> {
    // Keys from a small linear congruential generator, with many duplicates.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let xs: Vec<i64> = (0..100_000)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) as i64 % 10_000 - 5_000
        })
        .collect();

    let sorted = sorting::try_quicksort(&xs)?;

    let mut want = xs.clone();
    want.sort_unstable();
    assert_eq!(sorted, want);
    assert_eq!(sorting::try_quicksort(&[])?, Vec::<i64>::new());
    println!(
        "sorted {} keys: {:?} .. {:?}",
        sorted.len(),
        &sorted[..3],
        &sorted[sorted.len() - 3..]
    );
    Ok(())
}
