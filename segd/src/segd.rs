//! [`Segd`]: contiguous, non-overlapping segments of one data array, in an explicit or a regular
//! form.

use std::borrow::Cow;
use std::sync::Arc;

use crate::error::{Error, Result};

/// A descriptor of contiguous segments: segment `i` holds the elements
/// `start(i) .. start(i) + length(i)` of one data array, and the starts are the exclusive scan of
/// the lengths, so segments neither overlap nor leave gaps.
///
/// Two forms share the type: the *explicit* form stores a length and a start per segment; the
/// *regular* form ([`Segd::regular`]) stores only the segment count and the common length, so
/// regular nesting (MoA shapes) costs O(1) descriptor space. Clones are cheap (`Arc` inside).
/// Equality compares the described segments, not the form.
///
/// ```
/// use flatland_segd::Segd;
/// let s = Segd::from_lengths(vec![2, 0, 3]).unwrap();
/// assert_eq!(s.len(), 3);
/// assert_eq!(s.elements(), 5);
/// assert_eq!(s.iter().collect::<Vec<_>>(), vec![(0, 2), (2, 0), (2, 3)]);
/// assert_eq!(Segd::regular(2, 3), Segd::from_lengths(vec![3, 3]).unwrap());
/// ```
#[derive(Clone, Debug)]
pub struct Segd {
    repr: Repr,
    elements: usize,
}

#[derive(Clone, Debug)]
enum Repr {
    Regular {
        n: usize,
        len: usize,
    },
    Explicit {
        lengths: Arc<[usize]>,
        starts: Arc<[usize]>,
    },
}

/// Checks the contiguous-segment invariants over accessors, in order: starts are the exclusive
/// scan of the lengths (first bad segment reported), the sum fits `usize`, and it equals
/// `elements`.
fn check_contiguous(
    n: usize,
    length: impl Fn(usize) -> usize,
    start: impl Fn(usize) -> usize,
    elements: usize,
) -> Result<()> {
    let mut sum = 0usize;
    for i in 0..n {
        let s = start(i);
        if s != sum {
            return Err(Error::StartNotScan {
                segment: i,
                start: s,
                expected: sum,
            });
        }
        sum = sum.checked_add(length(i)).ok_or(Error::Overflow {
            op: "Segd",
            quantity: "element count",
            limit: "usize",
            position: Some(i),
        })?;
    }
    if sum != elements {
        return Err(Error::ElementCount {
            found: elements,
            expected: sum,
        });
    }
    Ok(())
}

impl Segd {
    /// Builds an explicit descriptor from per-segment lengths and starts and the element count,
    /// checking every invariant. Cost: O(segments).
    ///
    /// # Errors
    /// The first violated invariant: [`Error::FieldLength`] if `starts` and `lengths` differ in
    /// length, [`Error::StartNotScan`] at the first start that is not the sum of the lengths
    /// before it, [`Error::Overflow`] if the lengths sum past `usize::MAX`,
    /// [`Error::ElementCount`] if `elements` is not their sum.
    ///
    /// ```
    /// use flatland_segd::{Error, Segd};
    /// assert!(Segd::try_new(vec![2, 1], vec![0, 2], 3).is_ok());
    /// let e = Segd::try_new(vec![2, 1], vec![0, 3], 4).unwrap_err();
    /// assert_eq!(e, Error::StartNotScan { segment: 1, start: 3, expected: 2 });
    /// ```
    pub fn try_new(lengths: Vec<usize>, starts: Vec<usize>, elements: usize) -> Result<Segd> {
        if starts.len() != lengths.len() {
            return Err(Error::FieldLength {
                field: "starts",
                expected: lengths.len(),
                found: starts.len(),
            });
        }
        check_contiguous(lengths.len(), |i| lengths[i], |i| starts[i], elements)?;
        Ok(Segd {
            repr: Repr::Explicit {
                lengths: lengths.into(),
                starts: starts.into(),
            },
            elements,
        })
    }

    /// Like [`Segd::try_new`], for input known to be valid. Cost: O(segments).
    ///
    /// # Panics
    /// With the message of the error [`Segd::try_new`] would return.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// let s = Segd::new(vec![1, 1], vec![0, 1], 2);
    /// assert_eq!(s.start(1), 1);
    /// ```
    pub fn new(lengths: Vec<usize>, starts: Vec<usize>, elements: usize) -> Segd {
        Segd::try_new(lengths, starts, elements).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Builds an explicit descriptor without checking anything. Cost: O(1) beyond moving the
    /// vectors.
    ///
    /// # Safety
    /// The arguments must satisfy every invariant [`Segd::try_new`] checks: `starts` and
    /// `lengths` have equal length, `starts` is the exclusive scan of `lengths`, and `elements`
    /// is their sum (without overflow). Consumers index data arrays without bounds checks on the
    /// strength of these invariants, so violating them may cause out-of-bounds memory access.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// // SAFETY: starts [0, 2] are the scan of lengths [2, 3], which sum to 5.
    /// let s = unsafe { Segd::new_unchecked(vec![2, 3], vec![0, 2], 5) };
    /// assert!(s.validate().is_ok());
    /// ```
    pub unsafe fn new_unchecked(lengths: Vec<usize>, starts: Vec<usize>, elements: usize) -> Segd {
        Segd {
            repr: Repr::Explicit {
                lengths: lengths.into(),
                starts: starts.into(),
            },
            elements,
        }
    }

    /// Builds an explicit descriptor from lengths alone; the starts are their exclusive scan.
    /// Cost: O(segments).
    ///
    /// # Errors
    /// [`Error::Overflow`] (with the segment) if the lengths sum past `usize::MAX`.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// let s = Segd::from_lengths(vec![3, 0, 2]).unwrap();
    /// assert_eq!(s.starts().into_owned(), vec![0, 3, 3]);
    /// assert!(Segd::from_lengths(vec![usize::MAX, 1]).is_err());
    /// ```
    pub fn from_lengths(lengths: Vec<usize>) -> Result<Segd> {
        Segd::scan_lengths("Segd::from_lengths", lengths)
    }

    /// [`Segd::from_lengths`], reporting overflow as an error of `op`.
    pub(crate) fn scan_lengths(op: &'static str, lengths: Vec<usize>) -> Result<Segd> {
        let mut sum = 0usize;
        for (i, &l) in lengths.iter().enumerate() {
            sum = sum.checked_add(l).ok_or(Error::Overflow {
                op,
                quantity: "element count",
                limit: "usize",
                position: Some(i),
            })?;
        }
        // Written straight into the shared array (a map over a range: one allocation of the
        // known length), not collected into a vector and copied.
        let mut running = 0usize;
        let starts: Arc<[usize]> = (0..lengths.len())
            .map(|i| {
                let s = running;
                running += lengths[i];
                s
            })
            .collect();
        Ok(Segd {
            repr: Repr::Explicit {
                lengths: lengths.into(),
                starts,
            },
            elements: sum,
        })
    }

    /// The regular descriptor of `n` segments of `len` elements each; it stores no per-segment
    /// arrays. Cost: O(1).
    ///
    /// # Errors
    /// [`Error::Overflow`] if `n * len` exceeds `usize::MAX`.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// assert_eq!(Segd::try_regular(4, 5).unwrap().elements(), 20);
    /// assert!(Segd::try_regular(usize::MAX, 2).is_err());
    /// ```
    pub fn try_regular(n: usize, len: usize) -> Result<Segd> {
        let elements = n.checked_mul(len).ok_or(Error::Overflow {
            op: "Segd::regular",
            quantity: "element count",
            limit: "usize",
            position: None,
        })?;
        Ok(Segd {
            repr: Repr::Regular { n, len },
            elements,
        })
    }

    /// The regular descriptor of `n` segments of `len` elements each, see [`Segd::try_regular`].
    /// Cost: O(1).
    ///
    /// # Panics
    /// If `n * len` exceeds `usize::MAX`.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// let s = Segd::regular(3, 2);
    /// assert_eq!((s.len(), s.elements(), s.start(2)), (3, 6, 4));
    /// assert_eq!(s.regular_len(), Some(2));
    /// ```
    pub fn regular(n: usize, len: usize) -> Segd {
        Segd::try_regular(n, len).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The number of segments. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// assert_eq!(Segd::from_lengths(vec![0, 0]).unwrap().len(), 2);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Regular { n, .. } => *n,
            Repr::Explicit { lengths, .. } => lengths.len(),
        }
    }

    /// Whether there are no segments. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// assert!(Segd::regular(0, 7).is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The total number of elements (the length of the data array). Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// assert_eq!(Segd::regular(3, 4).elements(), 12);
    /// ```
    #[inline]
    pub fn elements(&self) -> usize {
        self.elements
    }

    /// The length of segment `i`. Cost: O(1).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// assert_eq!(Segd::from_lengths(vec![4, 1]).unwrap().length(1), 1);
    /// ```
    #[inline]
    pub fn length(&self, i: usize) -> usize {
        match &self.repr {
            Repr::Regular { n, len } => {
                assert!(i < *n, "segment {i} out of range for {n} segments");
                *len
            }
            Repr::Explicit { lengths, .. } => lengths[i],
        }
    }

    /// The start of segment `i` in the data array. Cost: O(1).
    ///
    /// # Panics
    /// If `i >= self.len()`.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// assert_eq!(Segd::from_lengths(vec![4, 1]).unwrap().start(1), 4);
    /// ```
    #[inline]
    pub fn start(&self, i: usize) -> usize {
        match &self.repr {
            Repr::Regular { n, len } => {
                assert!(i < *n, "segment {i} out of range for {n} segments");
                i * len
            }
            Repr::Explicit { starts, .. } => starts[i],
        }
    }

    /// The segment lengths: borrowed for the explicit form, built (O(segments)) for the regular
    /// form.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// assert_eq!(&*Segd::regular(2, 5).lengths(), &[5, 5]);
    /// ```
    pub fn lengths(&self) -> Cow<'_, [usize]> {
        match &self.repr {
            Repr::Regular { n, len } => Cow::Owned(vec![*len; *n]),
            Repr::Explicit { lengths, .. } => Cow::Borrowed(lengths),
        }
    }

    /// The segment starts: borrowed for the explicit form, built (O(segments)) for the regular
    /// form.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// assert_eq!(&*Segd::regular(3, 5).starts(), &[0, 5, 10]);
    /// ```
    pub fn starts(&self) -> Cow<'_, [usize]> {
        match &self.repr {
            Repr::Regular { n, len } => Cow::Owned((0..*n).map(|i| i * len).collect()),
            Repr::Explicit { starts, .. } => Cow::Borrowed(starts),
        }
    }

    /// `(start, length)` of every segment in order, without materialising anything. Cost: O(1)
    /// per item.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// let v: Vec<_> = Segd::regular(2, 3).iter().collect();
    /// assert_eq!(v, vec![(0, 3), (3, 3)]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (usize, usize)> + DoubleEndedIterator + '_ {
        (0..self.len()).map(move |i| (self.start(i), self.length(i)))
    }

    /// The common segment length if this is the regular form ([`Segd::regular`]); `None` for the
    /// explicit form, even when its lengths happen to be equal. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// assert_eq!(Segd::regular(4, 2).regular_len(), Some(2));
    /// assert_eq!(Segd::from_lengths(vec![2, 2]).unwrap().regular_len(), None);
    /// ```
    #[inline]
    pub fn regular_len(&self) -> Option<usize> {
        match &self.repr {
            Repr::Regular { len, .. } => Some(*len),
            Repr::Explicit { .. } => None,
        }
    }

    /// Checks every invariant [`Segd::try_new`] checks on this descriptor (useful after
    /// [`Segd::new_unchecked`]). Cost: O(segments) for the explicit form, O(1) for the regular.
    ///
    /// # Errors
    /// The first violated invariant, as [`Segd::try_new`] reports it.
    ///
    /// ```
    /// use flatland_segd::{Error, Segd};
    /// // SAFETY: not used for indexing; the point is that validate() catches the bad count.
    /// let s = unsafe { Segd::new_unchecked(vec![2], vec![0], 3) };
    /// assert_eq!(s.validate(), Err(Error::ElementCount { found: 3, expected: 2 }));
    /// ```
    pub fn validate(&self) -> Result<()> {
        match &self.repr {
            Repr::Regular { n, len } => {
                if n.checked_mul(*len) == Some(self.elements) {
                    Ok(())
                } else {
                    Err(Error::Overflow {
                        op: "Segd::regular",
                        quantity: "element count",
                        limit: "usize",
                        position: None,
                    })
                }
            }
            Repr::Explicit { lengths, starts } => {
                if starts.len() != lengths.len() {
                    return Err(Error::FieldLength {
                        field: "starts",
                        expected: lengths.len(),
                        found: starts.len(),
                    });
                }
                check_contiguous(lengths.len(), |i| lengths[i], |i| starts[i], self.elements)
            }
        }
    }

    /// The segment holding element `e` and the offset of `e` inside it; empty segments never
    /// hold elements, so the answer is the unique non-empty segment covering `e`. Cost: O(1) for
    /// the regular form, O(log segments) for the explicit form.
    ///
    /// # Errors
    /// [`Error::ElementOutOfRange`] if `e >= self.elements()`.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// let s = Segd::from_lengths(vec![2, 0, 3]).unwrap();
    /// assert_eq!(s.try_segment_of_element(3), Ok((2, 1)));
    /// assert!(s.try_segment_of_element(5).is_err());
    /// ```
    pub fn try_segment_of_element(&self, e: usize) -> Result<(usize, usize)> {
        if e >= self.elements {
            return Err(Error::ElementOutOfRange {
                element: e,
                elements: self.elements,
            });
        }
        Ok(match &self.repr {
            // len > 0 because e < elements = n * len.
            Repr::Regular { len, .. } => (e / len, e % len),
            Repr::Explicit { starts, .. } => {
                // The last segment starting at or before e; it is non-empty (an empty segment
                // is followed by one with the same start, or is last with start = elements).
                let s = starts.partition_point(|&st| st <= e) - 1;
                (s, e - starts[s])
            }
        })
    }

    /// The segment holding each element of `es`, as [`Segd::try_segment_of_element`] gives it.
    /// Made for increasing `es` (the lanes a mask keeps): the search resumes from the previous
    /// answer and only runs when an element leaves its segment, so the cost is O(`es.len()`) plus
    /// O(log segments) per segment change, never a search per element. Elements out of order
    /// cost a full search each.
    ///
    /// # Errors
    /// [`Error::ElementOutOfRange`] for the first element `>= self.elements()`.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// let s = Segd::from_lengths(vec![2, 0, 3]).unwrap();
    /// assert_eq!(s.segments_of_elements(&[0, 1, 2, 4, 1]), Ok(vec![0, 0, 2, 2, 0]));
    /// assert!(s.segments_of_elements(&[5]).is_err());
    /// ```
    pub fn segments_of_elements(&self, es: &[usize]) -> Result<Vec<usize>> {
        let starts = match &self.repr {
            Repr::Regular { .. } => {
                return es
                    .iter()
                    .map(|&e| self.try_segment_of_element(e).map(|(s, _)| s))
                    .collect();
            }
            Repr::Explicit { starts, .. } => starts,
        };
        // Segment `s` covers `starts[s]..end` where `end` is the next larger start.
        let (mut s, mut lo, mut end) = (0, 0, 0);
        es.iter()
            .map(|&e| {
                if e >= self.elements {
                    return Err(Error::ElementOutOfRange {
                        element: e,
                        elements: self.elements,
                    });
                }
                if e < lo || e >= end {
                    let from = if e >= end { s } else { 0 };
                    s = from + starts[from..].partition_point(|&st| st <= e) - 1;
                    lo = starts[s];
                    // The last start <= e is followed by a larger one (or by the end).
                    end = starts.get(s + 1).copied().unwrap_or(self.elements);
                }
                Ok(s)
            })
            .collect()
    }

    /// The segment holding element `e` and the offset of `e` inside it, see
    /// [`Segd::try_segment_of_element`]. Cost: O(1) regular, O(log segments) explicit.
    ///
    /// # Panics
    /// If `e >= self.elements()`, as slice indexing does.
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// assert_eq!(Segd::regular(3, 4).segment_of_element(9), (2, 1));
    /// ```
    pub fn segment_of_element(&self, e: usize) -> (usize, usize) {
        self.try_segment_of_element(e)
            .unwrap_or_else(|err| panic!("{err}"))
    }

    /// The number of `usize` entries stored in per-segment arrays: 0 for the regular form,
    /// `2 * len()` for the explicit form. A structural measure of descriptor size. Cost: O(1).
    ///
    /// ```
    /// use flatland_segd::Segd;
    /// assert_eq!(Segd::regular(1_000_000, 3).stored_entries(), 0);
    /// assert_eq!(Segd::from_lengths(vec![1, 2]).unwrap().stored_entries(), 4);
    /// ```
    pub fn stored_entries(&self) -> usize {
        match &self.repr {
            Repr::Regular { .. } => 0,
            Repr::Explicit { lengths, starts } => lengths.len() + starts.len(),
        }
    }
}

impl PartialEq for Segd {
    /// Equal when they describe the same segments, whatever their forms. Cost: O(segments)
    /// unless both are regular or share their arrays (clones of one descriptor).
    fn eq(&self, other: &Segd) -> bool {
        if self.len() != other.len() || self.elements != other.elements {
            return false;
        }
        match (&self.repr, &other.repr) {
            // No segments: equal whatever length the empty regular form was made with.
            (Repr::Regular { len: a, .. }, Repr::Regular { len: b, .. }) => {
                a == b || self.is_empty()
            }
            // Contiguous segments with equal lengths have equal starts; shared arrays (clones of
            // one descriptor) compare in O(1), others as one slice comparison.
            (Repr::Explicit { lengths: a, .. }, Repr::Explicit { lengths: b, .. }) => {
                Arc::ptr_eq(a, b) || a == b
            }
            _ => self.iter().eq(other.iter()),
        }
    }
}

impl Eq for Segd {}
