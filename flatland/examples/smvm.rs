//! Sparse matrix times dense vector, written with `#[vectorise]` over a CSR matrix held as two
//! `Nested` arrays (column indices and values, built from offsets without copying).
//!
//! The row body is ordinary Rust; the macro compiles it into one segmented reduction over the
//! rows, split by *elements* across the pool (so a matrix with one huge row is balanced), with
//! each row summed in the canonical association: the same bits on any number of threads.
//!
//! `cargo run -p flatland --example smvm`
use flatland::prelude::*;
use flatland::runtime::assoc;

#[vectorise]
mod sparse {
    use flatland::prelude::Nested;

    /// `y[r] = sum of vals[r][k] * v[cols[r][k]]` over the non-zeros of row `r`.
    pub fn smvm(cols: &Nested<i64>, vals: &Nested<f64>, v: &[f64]) -> Vec<f64> {
        cols.zip(vals)
            .map(|(cs, xs)| cs.zip(xs).map(|(c, x)| x * v[c]).sum())
    }
}

fn main() -> Result<()> {
    // A 5 x 4 matrix with an empty row, as CSR offsets, column indices and values.
    let offsets = vec![0, 2, 2, 5, 6, 8];
    let cols: Vec<i64> = vec![0, 3, 0, 1, 2, 3, 1, 2];
    let vals: Vec<f64> = vec![1.0, 2.0, 0.5, -1.0, 4.0, 3.0, 0.25, 8.0];
    let v = [1.0, 2.0, 3.0, 4.0];
    let cols = Nested::from_offsets(offsets.clone(), cols)?;
    let vals = Nested::from_offsets(offsets, vals)?;

    let y = sparse::try_smvm(&cols, &vals, &v)?;

    // The same product as a plain loop over borrowed rows, each row summed in the canonical
    // association, gives the same bits.
    let plain: Vec<f64> = cols
        .iter()
        .zip(vals.iter())
        .map(|(cs, xs)| {
            let products: Vec<f64> = cs
                .iter()
                .zip(xs)
                .map(|(&c, &x)| x * v[c as usize])
                .collect();
            assoc::fold(&products, 0.0, |a, b| a + b)
        })
        .collect();
    assert_eq!(y, plain);
    // ... and so does the reference interpreter the macro also generates.
    assert_eq!(y, sparse::plan::smvm::reference(&cols, &vals, &v)?);
    println!("y = {y:?}");
    Ok(())
}
