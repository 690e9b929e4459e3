//! The canonical fold of a sequence that arrives in parts (a class of a partition, packed as the
//! classified array is read), without holding more than one leaf of it.

use super::{LEAF, combine_leaves, leaf_fold};

/// The canonical fold ([`fold`](super::fold)) of the values given to [`extend`](Self::extend)
/// since the last [`finish`](Self::finish), one segment after another: the current leaf is
/// buffered (at most [`LEAF`] values) and folded when full, so the result has the bits of
/// `fold` over the whole segment however its values were split between calls.
///
/// The operator is passed to each call rather than stored, so that a caller choosing it at run
/// time can pass the monomorphised function of each call's type; every call of one segment must
/// pass the same operator.
///
/// Cost: one copy of each value into the leaf buffer and the leaf folds of [`fold`](super::fold);
/// memory: one leaf.
///
/// ```
/// use flatland_runtime::assoc::{self, RunningFold};
/// let xs: Vec<f64> = (0..10_000).map(|i| f64::from(i) * 0.1).collect();
/// let add = |a: f64, b: f64| a + b;
/// let mut running = RunningFold::new(0.0);
/// for part in xs.chunks(999) {
///     running.extend(part.iter().copied(), add);
/// }
/// assert_eq!(running.finish(add).to_bits(), assoc::fold(&xs, 0.0, add).to_bits());
/// // The next segment starts from the identity.
/// assert_eq!(running.finish(add), 0.0);
/// ```
#[derive(Clone, Debug)]
pub struct RunningFold<T> {
    identity: T,
    /// The combination of the segment's full leaves so far, from the identity.
    leaves: T,
    /// The segment's current leaf (fewer than [`LEAF`] values).
    leaf: Vec<T>,
}

impl<T: Clone> RunningFold<T> {
    /// An empty segment of the fold with `identity`.
    pub fn new(identity: T) -> RunningFold<T> {
        RunningFold {
            leaves: identity.clone(),
            identity,
            leaf: Vec::with_capacity(LEAF),
        }
    }

    /// Appends `values` to the current segment.
    pub fn extend(&mut self, values: impl IntoIterator<Item = T>, op: impl Fn(T, T) -> T) {
        let mut values = values.into_iter();
        loop {
            let room = LEAF - self.leaf.len();
            self.leaf.extend(values.by_ref().take(room));
            if self.leaf.len() < LEAF {
                return;
            }
            let leaf = leaf_fold(&self.leaf, self.identity.clone(), &op);
            self.leaves = op(self.leaves.clone(), leaf);
            self.leaf.clear();
        }
    }

    /// The fold of the current segment; the next segment starts empty.
    pub fn finish(&mut self, op: impl Fn(T, T) -> T) -> T {
        let last =
            (!self.leaf.is_empty()).then(|| leaf_fold(&self.leaf, self.identity.clone(), &op));
        self.leaf.clear();
        let leaves = std::mem::replace(&mut self.leaves, self.identity.clone());
        combine_leaves(leaves, last, op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assoc::fold;
    use quickcheck::quickcheck;

    quickcheck! {
        /// Any split of any segments (around leaf boundaries included) gives `fold`'s bits.
        fn parts_fold_to_the_canonical_bits(segments: Vec<(u16, Vec<u16>)>) -> bool {
            let add = |a: f64, b: f64| a + b;
            let mut running = RunningFold::new(-0.0);
            segments.iter().all(|(len, cuts)| {
                let len = usize::from(*len) % (3 * LEAF);
                let xs: Vec<f64> = (0..len).map(|i| (i as f64 * 0.37).sin()).collect();
                let mut at = 0;
                for &c in cuts {
                    let end = (at + usize::from(c) % (LEAF + 2)).min(len);
                    running.extend(xs[at..end].iter().copied(), add);
                    at = end;
                }
                running.extend(xs[at..].iter().copied(), add);
                running.finish(add).to_bits() == fold(&xs, -0.0, add).to_bits()
            })
        }
    }

    #[test]
    fn a_segment_of_exactly_one_leaf_and_an_empty_one() {
        let mut running = RunningFold::new(0i64);
        running.extend(vec![1i64; LEAF], |a, b| a + b);
        assert_eq!(running.finish(|a, b| a + b), LEAF as i64);
        assert_eq!(running.finish(|a, b| a + b), 0);
    }
}
