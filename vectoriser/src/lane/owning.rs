//! The array of a per-lane `map` whose lanes take their elements by value
//! ([`super::Ctx::flat_map_owning_into`] over an [`Owning`]): a lane that hands its array down
//! a recursion frees it there, instead of the map keeping every lane's array until the last
//! lane returns. A lane's array may also be borrowed (a literal's slices of an array in scope,
//! `[xs[..half], xs[half..]]`: handed down without a copy).
//!
//! The map hands each lane its array as it runs it (the arrays split between the tasks before
//! they start), so no lane has to take its array out of a shared cell: a lock per call of a
//! recursion was a full fence that waited for every load in flight, which serialised
//! treeLookup's cache misses.

use super::Cow;

/// The arrays of a map's lanes, each handed by value to the lane that reads it; their lengths
/// (the map balances its tasks on them) are read first.
///
/// ```
/// use flatland_vectoriser::lane::{Cow, Owning};
/// let parts = Owning::new(vec![vec![3, 1], vec![], vec![2]]);
/// assert_eq!((parts.len(), parts.len_at(0), parts.len_at(1)), (3, 2, 0));
/// // Borrowed parts stay borrowed.
/// let xs = [5, 6, 7];
/// let halves = Owning::new([Cow::Borrowed(&xs[..1]), Cow::Borrowed(&xs[1..])]);
/// assert!(matches!(halves.into_vec()[1], Cow::Borrowed(&[6, 7])));
/// // Any number of lanes.
/// let many = Owning::new((0..9).map(|k| vec![k; k]));
/// assert_eq!((many.len(), many.len_at(8)), (9, 8));
/// assert_eq!(many.into_vec()[3], Cow::<[usize]>::Owned(vec![3; 3]));
/// ```
#[derive(Debug)]
pub struct Owning<'a, T: Clone> {
    arrays: Arrays<'a, T>,
}

/// Lanes held inline (an array literal's parts: a recursion makes an [`Owning`] per call,
/// and an allocation per call was a tenth of DPH's treeLookup in cache). Two, the parts of a
/// divide and conquer (quicksort's, merge sort's, treeLookup's): each slot more is moved and
/// dropped on every call (four slots cost treeLookup 4% more instructions than two), and a
/// literal of three or more parts takes one allocation.
const INLINE: usize = 2;

/// The arrays of an [`Owning`]: up to [`INLINE`] inline (the slots past the count empty),
/// more in one allocation.
#[derive(Debug)]
enum Arrays<'a, T: Clone> {
    Inline([Cow<'a, [T]>; INLINE], usize),
    Heap(Vec<Cow<'a, [T]>>),
}

impl<'a, T: Clone> Owning<'a, T> {
    /// The lanes' arrays (from a `Vec` of them, or an array literal's parts without a `Vec`
    /// between), owned (`Vec`s) or borrowed (`Cow`s).
    #[inline]
    pub fn new<A: Into<Cow<'a, [T]>>>(arrays: impl IntoIterator<Item = A>) -> Owning<'a, T> {
        let mut arrays = arrays.into_iter();
        let mut inline: [Cow<'a, [T]>; INLINE] = std::array::from_fn(|_| Cow::Borrowed(&[][..]));
        for n in 0..=INLINE {
            let Some(a) = arrays.next() else {
                return Owning {
                    arrays: Arrays::Inline(inline, n),
                };
            };
            if n == INLINE {
                let mut heap: Vec<Cow<'a, [T]>> = inline.into_iter().collect();
                heap.push(a.into());
                heap.extend(arrays.map(Into::into));
                return Owning {
                    arrays: Arrays::Heap(heap),
                };
            }
            inline[n] = a.into();
        }
        unreachable!("the loop returns by its last round")
    }

    fn arrays(&self) -> &[Cow<'a, [T]>] {
        match &self.arrays {
            Arrays::Inline(arrays, n) => &arrays[..*n],
            Arrays::Heap(arrays) => arrays,
        }
    }

    /// The number of lanes.
    #[inline]
    pub fn len(&self) -> usize {
        self.arrays().len()
    }

    /// Whether there are no lanes.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.arrays().is_empty()
    }

    /// The length of lane `i`'s array.
    #[inline]
    pub fn len_at(&self, i: usize) -> usize {
        self.arrays()[i].len()
    }

    /// The arrays, in lane order.
    pub fn into_vec(self) -> Vec<Cow<'a, [T]>> {
        match self.arrays {
            Arrays::Inline(arrays, n) => arrays.into_iter().take(n).collect(),
            Arrays::Heap(arrays) => arrays,
        }
    }

    /// Calls `f(i, array)` for each lane `i` in order, until one fails (no `Vec` made of
    /// arrays held inline).
    #[inline]
    pub(super) fn try_for_each<E>(
        self,
        mut f: impl FnMut(usize, Cow<'a, [T]>) -> Result<(), E>,
    ) -> Result<(), E> {
        match self.arrays {
            // Each array taken out of its slot (an empty borrowed slice left behind): walking
            // the slots costs less than the array's by-value iterator, per call of a recursion.
            Arrays::Inline(mut arrays, n) => {
                for (i, slot) in arrays[..n].iter_mut().enumerate() {
                    f(i, std::mem::replace(slot, Cow::Borrowed(&[])))?;
                }
                Ok(())
            }
            Arrays::Heap(arrays) => arrays
                .into_iter()
                .enumerate()
                .try_for_each(|(i, a)| f(i, a)),
        }
    }
}
