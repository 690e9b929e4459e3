//! Breadth-first search to completion under `#[vectorise]`: a `while` loop runs while the
//! frontier is not empty, each iteration expanding the whole frontier at once (its neighbours
//! gathered, the unvisited ones kept, their level scattered into the distances).
//!
//! `cargo run -p flatland-cli --example vectorise_bfs` (the kernel is `flatland_cli::kernels::bfs`, which the benchmark harness runs too)
use flatland::prelude::*;
use flatland_cli::harness::workloads::bfs::bfs_seq;
use flatland_cli::kernels;

fn main() -> Result<()> {
    // A ring of 200 nodes with chords, and an unreachable pair.
    let n = 202;
    let adj: Vec<Vec<i64>> = (0..n)
        .map(|v: i64| {
            if v >= 200 {
                vec![(v - 200 + 1) % 2 + 200]
            } else {
                vec![(v + 1) % 200, (v * 7) % 200]
            }
        })
        .collect();
    let d = kernels::try_bfs(&adj, 0)?;
    // The same search as plain Rust: a sequential queue (the benchmark's baseline).
    assert_eq!(d, bfs_seq(&adj, 0));
    assert_eq!(d, kernels::plan::bfs::executor(&adj, 0)?);
    assert_eq!(d, kernels::plan::bfs::reference(&adj, 0)?);
    assert_eq!(d[200], -1);
    println!("farthest node at distance {}", d.iter().max().unwrap_or(&0));
    Ok(())
}
