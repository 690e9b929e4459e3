//! k-means clustering of points in the plane under `#[vectorise]`: a `for` loop over the
//! rounds, each assigning every point to its nearest centre (a loop over the centres per point)
//! and moving each centre to the mean of its points (sums and counts by centre: `hist`).
//!
//! `cargo run -p flatland-cli --example vectorise_kmeans` (the kernel is `flatland_cli::kernels::kmeans`, which the benchmark harness runs too)
use flatland::prelude::*;
use flatland_cli::harness::workloads::kmeans::kmeans_seq;
use flatland_cli::kernels;

fn main() -> Result<()> {
    // Four blobs of 10,000 points each.
    let centres = [(0.0, 0.0), (5.0, 1.0), (1.0, 6.0), (7.0, 7.0)];
    let mut state = 12345u64;
    let mut unit = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..40_000 {
        let (cx, cy) = centres[i % 4];
        xs.push(cx + 2.0 * unit());
        ys.push(cy + 2.0 * unit());
    }
    let (cx0, cy0) = (vec![1.0, 2.0, 3.0, 4.0], vec![1.0, 2.0, 3.0, 4.0]);
    let got = kernels::try_kmeans(&xs, &ys, &cx0, &cy0, 8)?;
    // The same rounds as plain Rust (the benchmark's sequential baseline; fewer points than a
    // histogram block, so its left-to-right sums by centre are the canonical ones).
    assert_eq!(got, kmeans_seq(&xs, &ys, &cx0, &cy0, 8));
    assert_eq!(
        got,
        kernels::plan::kmeans::executor(&xs, &ys, &cx0, &cy0, 8)?
    );
    assert_eq!(
        got,
        kernels::plan::kmeans::reference(&xs, &ys, &cx0, &cy0, 8)?
    );
    println!("centres {:?}", got.0.iter().zip(&got.1).collect::<Vec<_>>());
    Ok(())
}
