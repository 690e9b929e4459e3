//! Stable k-way partition: the elements of class 0 in input order, then class 1, and so on.

/// Stable partition of `values` by `class` (each result `< k`), sequentially: one counting pass,
/// then one scattering pass. Returns the class sizes and the partitioned values.
///
/// ```
/// use flatland_cli::harness::baselines::partition::stable_seq;
/// let (sizes, out) = stable_seq(&[3.0, 0.5, 2.0, 0.25], 4, |x| x as usize);
/// assert_eq!(sizes, vec![2, 0, 1, 1]);
/// assert_eq!(out, vec![0.5, 0.25, 2.0, 3.0]);
/// ```
pub fn stable_seq(
    values: &[f64],
    k: usize,
    class: impl Fn(f64) -> usize,
) -> (Vec<usize>, Vec<f64>) {
    let mut sizes = vec![0usize; k];
    for &v in values {
        sizes[class(v)] += 1;
    }
    let mut next = Vec::with_capacity(k);
    let mut acc = 0;
    for &s in &sizes {
        next.push(acc);
        acc += s;
    }
    let mut out = vec![0.0; values.len()];
    for &v in values {
        let c = class(v);
        out[next[c]] = v;
        next[c] += 1;
    }
    (sizes, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_filters() {
        let xs: Vec<f64> = (0..1000)
            .map(|i| f64::from((i * 37) % 101) / 25.0)
            .collect();
        let class = |x: f64| (x as usize).min(3);
        let (sizes, out) = stable_seq(&xs, 4, class);
        let naive: Vec<f64> = (0..4)
            .flat_map(|c| xs.iter().copied().filter(move |&x| class(x) == c))
            .collect();
        assert_eq!(out, naive);
        assert_eq!(sizes.iter().sum::<usize>(), xs.len());
    }
}
