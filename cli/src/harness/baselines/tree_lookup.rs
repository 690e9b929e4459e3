//! treeLookup (DPH, ICFP 2012): look every index up in a table. The nested program halves the
//! index array recursively; the baseline is the flat loop it computes.

/// `out[i] = table[indices[i]]`, by a sequential loop. Panics on an out-of-range index (inputs
/// are generated in range).
///
/// ```
/// use flatland_cli::harness::baselines::tree_lookup::lookup_seq;
/// assert_eq!(lookup_seq(&[10, 20, 30], &[2, 0, 2]), vec![30, 10, 30]);
/// ```
pub fn lookup_seq(table: &[i64], indices: &[usize]) -> Vec<i64> {
    indices.iter().map(|&i| table[i]).collect()
}

/// The nested program itself, run directly: split the indices in half until one is left, look
/// it up, concatenate. A reference for the flattened version (same result as [`lookup_seq`]).
///
/// ```
/// use flatland_cli::harness::baselines::tree_lookup::{lookup_nested, lookup_seq};
/// let t: Vec<i64> = (0..16).map(|x| x * x).collect();
/// let ix = [3, 1, 4, 1, 5, 9, 2, 6];
/// assert_eq!(lookup_nested(&t, &ix), lookup_seq(&t, &ix));
/// ```
pub fn lookup_nested(table: &[i64], indices: &[usize]) -> Vec<i64> {
    match indices.len() {
        0 => Vec::new(),
        1 => vec![table[indices[0]]],
        n => {
            let (a, b) = indices.split_at(n / 2);
            let mut out = lookup_nested(table, a);
            out.extend(lookup_nested(table, b));
            out
        }
    }
}
