//! k-means clustering of points in the plane under `#[vectorise]`: a `for` loop over the
//! rounds, each assigning every point to its nearest centre (a loop over the centres per point)
//! and moving each centre to the mean of its points (sums and counts by centre: `hist`).
//!
//! `cargo run -p flatland --example kmeans`
use flatland::prelude::*;

#[vectorise]
mod cluster {
    /// The centres after `rounds` rounds of Lloyd's algorithm from `(cx, cy)`; a centre
    /// without points stays where it is.
    pub fn kmeans(
        xs: &[f64],
        ys: &[f64],
        cx: &[f64],
        cy: &[f64],
        rounds: i64,
    ) -> (Vec<f64>, Vec<f64>) {
        let k = cx.len();
        let mut cx = cx.to_vec();
        let mut cy = cy.to_vec();
        for _ in 0..rounds {
            let near = xs.zip(ys).map(|(x, y)| {
                let mut best = 0;
                let mut best_d = f64::INFINITY;
                for j in 0..k {
                    let d = (x - cx[j]) * (x - cx[j]) + (y - cy[j]) * (y - cy[j]);
                    if d < best_d {
                        best_d = d;
                        best = j;
                    }
                }
                best
            });
            let sx = hist(k, 0.0, |a, b| a + b, near, xs);
            let sy = hist(k, 0.0, |a, b| a + b, near, ys);
            let count = count_by_index(k, near);
            let old_x = cx;
            let old_y = cy;
            cx = (0..k).map(|j| {
                if count[j] > 0 {
                    sx[j] / count[j] as f64
                } else {
                    old_x[j]
                }
            });
            cy = (0..k).map(|j| {
                if count[j] > 0 {
                    sy[j] / count[j] as f64
                } else {
                    old_y[j]
                }
            });
        }
        (cx, cy)
    }
}

/// The same rounds as plain Rust (fewer points than a histogram block, so the sums by centre
/// are the plain left-to-right sums).
fn kmeans_plain(
    xs: &[f64],
    ys: &[f64],
    cx: &[f64],
    cy: &[f64],
    rounds: i64,
) -> (Vec<f64>, Vec<f64>) {
    let k = cx.len();
    let (mut cx, mut cy) = (cx.to_vec(), cy.to_vec());
    for _ in 0..rounds {
        let (mut sx, mut sy, mut count) = (vec![0.0; k], vec![0.0; k], vec![0i64; k]);
        for (&x, &y) in xs.iter().zip(ys) {
            let mut best = 0;
            let mut best_d = f64::INFINITY;
            for j in 0..k {
                let d = (x - cx[j]) * (x - cx[j]) + (y - cy[j]) * (y - cy[j]);
                if d < best_d {
                    best_d = d;
                    best = j;
                }
            }
            sx[best] += x;
            sy[best] += y;
            count[best] += 1;
        }
        for j in 0..k {
            if count[j] > 0 {
                cx[j] = sx[j] / count[j] as f64;
                cy[j] = sy[j] / count[j] as f64;
            }
        }
    }
    (cx, cy)
}

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
    let got = cluster::try_kmeans(&xs, &ys, &cx0, &cy0, 8)?;
    assert_eq!(got, kmeans_plain(&xs, &ys, &cx0, &cy0, 8));
    assert_eq!(
        got,
        cluster::plan::kmeans::executor(&xs, &ys, &cx0, &cy0, 8)?
    );
    assert_eq!(
        got,
        cluster::plan::kmeans::reference(&xs, &ys, &cx0, &cy0, 8)?
    );
    println!("centres {:?}", got.0.iter().zip(&got.1).collect::<Vec<_>>());
    Ok(())
}
