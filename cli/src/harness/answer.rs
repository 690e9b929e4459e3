//! What a workload variant computed, and how two answers are compared.

use std::sync::Arc;

/// The result of one run of one variant, kept to check that flatland and every baseline agree.
///
/// ```
/// use flatland_cli::harness::answer::Answer;
/// let a = Answer::Floats(vec![1.0, 2.0]);
/// assert_eq!(a.mismatch(&Answer::Floats(vec![1.0, 2.0])), None);
/// assert_eq!(a.mismatch(&Answer::Floats(vec![1.0, 2.5])).unwrap(), "element 1: 2 vs 2.5");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// Floating-point values, compared bitwise (`-0.0 == 0.0`, NaN equals NaN).
    Floats(Vec<f64>),
    /// Integers, compared exactly.
    Ints(Vec<i64>),
    /// Indices or counts, compared exactly.
    Indices(Vec<usize>),
    /// Floating-point values and, for each, the largest difference any summation order can make
    /// (for inputs whose sums are not exact); two answers agree where they differ by no more than
    /// the larger of their bounds.
    Close(Vec<f64>, Arc<[f64]>),
    /// Several parts, compared part by part.
    Parts(Vec<Answer>),
}

impl Answer {
    /// `None` when `self` and `other` are equal, otherwise where and how they first differ.
    ///
    /// ```
    /// use flatland_cli::harness::answer::Answer;
    /// let a = Answer::Parts(vec![Answer::Indices(vec![1]), Answer::Ints(vec![5])]);
    /// let b = Answer::Parts(vec![Answer::Indices(vec![1]), Answer::Ints(vec![5, 6])]);
    /// assert_eq!(a.mismatch(&b).unwrap(), "part 1: length 1 vs 2");
    /// let bound: std::sync::Arc<[f64]> = vec![1e-12].into();
    /// let c = Answer::Close(vec![0.3], bound.clone());
    /// assert_eq!(c.mismatch(&Answer::Close(vec![0.1 + 0.2], bound.clone())), None);
    /// assert!(c.mismatch(&Answer::Close(vec![0.31], bound)).is_some());
    /// ```
    pub fn mismatch(&self, other: &Answer) -> Option<String> {
        match (self, other) {
            (Answer::Floats(a), Answer::Floats(b)) => {
                first_difference(a, b, |x, y| x == y || (x.is_nan() && y.is_nan()))
            }
            (Answer::Close(a, ea), Answer::Close(b, eb)) => {
                if a.len() != b.len() || ea.len() != a.len() || eb.len() != b.len() {
                    return Some(format!("length {} vs {}", a.len(), b.len()));
                }
                (0..a.len())
                    .find(|&i| !((a[i] - b[i]).abs() <= ea[i].max(eb[i]) || a[i] == b[i]))
                    .map(|i| {
                        format!(
                            "element {i}: {} vs {} (allowed difference {})",
                            a[i],
                            b[i],
                            ea[i].max(eb[i])
                        )
                    })
            }
            (Answer::Ints(a), Answer::Ints(b)) => first_difference(a, b, |x, y| x == y),
            (Answer::Indices(a), Answer::Indices(b)) => first_difference(a, b, |x, y| x == y),
            (Answer::Parts(a), Answer::Parts(b)) => {
                if a.len() != b.len() {
                    return Some(format!("{} parts vs {}", a.len(), b.len()));
                }
                a.iter()
                    .zip(b)
                    .enumerate()
                    .find_map(|(i, (x, y))| x.mismatch(y).map(|m| format!("part {i}: {m}")))
            }
            _ => Some("answers of different kinds".to_owned()),
        }
    }

    /// Gives every buffer of `self` back to the runtime's spare blocks
    /// ([`flatland::runtime::spare::give_back`]), so that the next output of about its size is
    /// built in pages already mapped: what the bench runner does with each timed run's answer,
    /// as a program that runs flattened code in a loop does with the runtime's containers (and
    /// as ParlayLib's pool allocator does with every sequence). With the spare limit at 0 (a
    /// library's default) the buffers are freed at once.
    ///
    /// ```
    /// use flatland_cli::harness::answer::Answer;
    /// Answer::Parts(vec![Answer::Floats(vec![1.0]), Answer::Indices(vec![2])]).recycle();
    /// ```
    pub fn recycle(self) {
        use flatland::runtime::spare::give_back;
        match self {
            Answer::Floats(v) | Answer::Close(v, _) => give_back(v),
            Answer::Ints(v) => give_back(v),
            Answer::Indices(v) => give_back(v),
            Answer::Parts(parts) => parts.into_iter().for_each(Answer::recycle),
        }
    }
}

fn first_difference<T: std::fmt::Display>(
    a: &[T],
    b: &[T],
    eq: impl Fn(&T, &T) -> bool,
) -> Option<String> {
    if a.len() != b.len() {
        return Some(format!("length {} vs {}", a.len(), b.len()));
    }
    a.iter()
        .zip(b)
        .position(|(x, y)| !eq(x, y))
        .map(|i| format!("element {i}: {} vs {}", a[i], b[i]))
}
