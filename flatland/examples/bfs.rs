//! Breadth-first search to completion under `#[vectorise]`: a `while` loop runs while the
//! frontier is not empty, each iteration expanding the whole frontier at once (its neighbours
//! gathered, the unvisited ones kept, their level scattered into the distances).
//!
//! `cargo run -p flatland --example bfs`
use flatland::prelude::*;

#[vectorise]
mod search {
    /// The distance of every node from `src` (-1 where it cannot be reached), on a graph given
    /// by each node's neighbours.
    pub fn bfs(adj: Vec<Vec<i64>>, src: i64) -> Vec<i64> {
        let n = adj.len();
        let mut dist = vec![-1; n].scatter(vec![src], vec![0]);
        let mut frontier = vec![src];
        let mut level = 0;
        while !frontier.is_empty() {
            let reached = frontier.map(|v| adj[v]).concat();
            let fresh = reached.filter(|u| dist[u] == -1);
            level += 1;
            dist = dist.scatter(fresh, vec![level; fresh.len()]);
            // Each newly reached node once: the nodes whose distance is this level.
            frontier = (0..n).filter(|u| dist[u] == level);
        }
        dist
    }
}

/// The same search as plain Rust.
fn bfs_plain(adj: &[Vec<i64>], src: i64) -> Vec<i64> {
    let n = adj.len();
    let mut dist = vec![-1; n];
    dist[src as usize] = 0;
    let mut frontier = vec![src];
    let mut level = 0;
    while !frontier.is_empty() {
        level += 1;
        let mut next = Vec::new();
        for &v in &frontier {
            for &u in &adj[v as usize] {
                if dist[u as usize] == -1 {
                    dist[u as usize] = level;
                    next.push(u);
                }
            }
        }
        next.sort_unstable();
        frontier = next;
    }
    dist
}

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
    let d = search::try_bfs(adj.clone(), 0)?;
    assert_eq!(d, bfs_plain(&adj, 0));
    assert_eq!(d, search::plan::bfs::executor(adj.clone(), 0)?);
    assert_eq!(d, search::plan::bfs::reference(adj, 0)?);
    assert_eq!(d[200], -1);
    println!("farthest node at distance {}", d.iter().max().unwrap_or(&0));
    Ok(())
}
