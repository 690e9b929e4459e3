//! Nested programs flattened by hand onto flatland's runtime primitives, as the vectoriser will
//! flatten them: these are the flatland variants until the dsl and `#[vectorise]` paths exist.

use crate::io::Csr;
use flatland_runtime::{flat, seg};
use flatland_segd::{Segd, VSegd};

/// The row descriptor of a CSR matrix (one segment per row over its stored entries).
///
/// ```
/// use flatland_cli::{harness::flattened::row_segd, io::Csr};
/// let s = row_segd(&Csr::from_triplets(3, 2, vec![(0, 0, 1.0), (2, 1, 1.0), (2, 0, 1.0)]));
/// assert_eq!(s.lengths().as_ref(), &[1, 0, 2]);
/// ```
pub fn row_segd(a: &Csr) -> Segd {
    let off = a.offsets();
    let lengths = off.windows(2).map(|w| w[1] - w[0]).collect();
    Segd::try_new(lengths, off[..a.rows()].to_vec(), a.nnz())
        .expect("CSR offsets describe contiguous rows")
}

/// `y = A x`, i.e. `[: sum [: v * x[c] | (c, v) <- row :] | row <- A :]` flattened, unfused:
/// gather `x` by column index, multiply by the values, fold each row segment (`rows` is
/// [`row_segd`] of `a`). Row sums use the canonical association, so their bits do not depend on
/// the thread count.
///
/// ```
/// use flatland_cli::{harness::flattened::{row_segd, smvm}, io::Csr};
/// let a = Csr::from_triplets(2, 2, vec![(0, 1, 2.0), (1, 0, 1.0)]);
/// assert_eq!(smvm(&a, &row_segd(&a), &[3.0, 4.0]), vec![8.0, 3.0]);
/// ```
pub fn smvm(a: &Csr, rows: &Segd, x: &[f64]) -> Vec<f64> {
    assert_eq!(x.len(), a.cols(), "smvm: vector length");
    let xs = flat::gather(x, a.indices()).expect("CSR column indices are below cols");
    let products = flat::zip_with(a.values(), &xs, |v, x| v * x).expect("one product per entry");
    drop(xs);
    seg::fold_s(rows, &products, 0.0, |p, q| p + q).expect("row descriptor covers the entries")
}

/// `y = A x` flattened and fused: the gather of `x` and the multiplication feed the segmented
/// fold directly (`seg::fold_s_by`, a leaf of products buffered per task, no array of products),
/// as the vectoriser's fusion of a gather into a consuming segmented fold will generate it.
/// Bitwise equal to [`smvm`].
///
/// ```
/// use flatland_cli::{harness::flattened::{row_segd, smvm, smvm_fused}, io::Csr};
/// let a = Csr::from_triplets(2, 3, vec![(0, 1, 2.0), (0, 2, 0.1), (1, 0, 1.0)]);
/// let rows = row_segd(&a);
/// assert_eq!(smvm_fused(&a, &rows, &[3.0, 4.0, 0.7]), smvm(&a, &rows, &[3.0, 4.0, 0.7]));
/// ```
pub fn smvm_fused(a: &Csr, rows: &Segd, x: &[f64]) -> Vec<f64> {
    assert_eq!(x.len(), a.cols(), "smvm: vector length");
    let (cols, vals) = (a.indices(), a.values());
    seg::fold_s_by(rows, |j| vals[j] * x[cols[j]], 0.0, |p, q| p + q)
}

/// treeLookup (DPH): the recursive halving of the index array flattens to one lifted index into
/// the table, which every lane shares as a free variable: the table is replicated *virtually*
/// (a `VSegd` of `n` segments over its one physical copy) and read with `seg::index_l`.
///
/// ```
/// use flatland_cli::harness::flattened::tree_lookup;
/// assert_eq!(tree_lookup(&[10, 20, 30], &[2, 0, 2]), vec![30, 10, 30]);
/// ```
pub fn tree_lookup(table: &[i64], indices: &[i64]) -> Vec<i64> {
    let n = indices.len();
    let one = VSegd::from_segd(&Segd::from_lengths(vec![table.len()]).expect("one segment"));
    let shared = one.replicate(n).expect("n copies fit");
    let lanes: Vec<usize> = flat::iota(0, 1, n);
    seg::index_l(&shared, &[table], &lanes, indices).expect("generated indices are in range")
}

/// Most composites generated at once by [`primes`]; more are sieved in rounds.
const ROUND: usize = 1 << 26;

/// The primes `p <= n`, by NESL's recursive sieve flattened onto runtime primitives:
/// `sq = primes(isqrt n)`; the multiples `p*p, p*p + p, ... <= n` of every `p` in `sq` are one
/// nested array, built flat (one lifted range per prime, `seg::iota_s`), scattered as `false`
/// into a flag array (`flat::scatter_value`), and the survivors `>= 2` packed. Composites are
/// generated at most 2^26 at a time (groups of whole segments), so memory stays bounded for
/// large `n`.
///
/// ```
/// use flatland_cli::harness::flattened::primes;
/// assert_eq!(primes(30), vec![2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
/// assert_eq!(primes(1), Vec::<u64>::new());
/// ```
pub fn primes(n: u64) -> Vec<u64> {
    if n < 2 {
        return Vec::new();
    }
    let sq = primes(n.isqrt());
    let counts: Vec<usize> = flat::map(&sq, |p| ((n - p * p) / p + 1) as usize);
    let mut flags = flat::replicate(true, n as usize + 1);
    let mut first = 0;
    while first < sq.len() {
        // A group of whole segments with at most ROUND composites (or one larger segment).
        let mut last = first;
        let mut total = 0;
        while last < sq.len() && (last == first || total + counts[last] <= ROUND) {
            total += counts[last];
            last += 1;
        }
        let segd = Segd::from_lengths(counts[first..last].to_vec()).expect("counts add up");
        // Primes below isqrt(n) <= 2^32: p * p fits in i64.
        let squares: Vec<i64> = sq[first..last].iter().map(|&p| (p * p) as i64).collect();
        let steps: Vec<i64> = sq[first..last].iter().map(|&p| p as i64).collect();
        let composites = seg::iota_s(&segd, &squares, &steps).expect("one range per prime");
        // Every write is `false`: a marking scatter, no lane order to settle.
        flags = flat::scatter_value(&flags, &composites, false).expect("composites are <= n");
        first = last;
    }
    let candidates: Vec<u64> = flat::iota(2, 1, n as usize - 1);
    flat::filter(&candidates, |i| flags[i as usize])
}

#[cfg(test)]
mod tests {
    #[test]
    fn primes_match_trial_division_around_squares() {
        let naive = |n: u64| -> Vec<u64> {
            (2..=n)
                .filter(|&i| (2..=i.isqrt()).all(|d| i % d != 0))
                .collect()
        };
        for n in [
            0, 1, 2, 3, 4, 24, 25, 26, 48, 49, 50, 1023, 1024, 1025, 7919, 10_000,
        ] {
            assert_eq!(super::primes(n), naive(n), "n = {n}");
        }
    }
}
