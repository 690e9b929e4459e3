//! `treeLookup` from the DPH virtual-segments paper: halve the index array (slice) and recurse on
//! both halves under map, with the table free in the lifted calls. With virtual segments the
//! table is never copied: O(n log n) work instead of O(n²).
//!
//! `cargo run --example tree_lookup`
use flatland::vectoriser::programs;

fn main() {
    let (p, tl) = programs::tree_lookup();
    println!("{}", p.ir());
    let n = 1 << 12;
    let table: Vec<i64> = (0..n).map(|i| i * i).collect();
    let xs: Vec<i64> = (0..n).map(|i| (i * 31) % n).collect();
    let out = p
        .exec(&tl, (table.clone(), xs.clone()))
        .expect("treeLookup runs");
    assert!(out.iter().zip(&xs).all(|(o, &i)| *o == table[i as usize]));
    println!("looked up {} indices; first {:?}", out.len(), &out[..8]);
}
