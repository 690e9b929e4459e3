//! The array of a per-lane `map` whose lanes take their elements by value
//! ([`super::Ctx::map`] over an [`Owning`]): a lane that hands its array down a recursion
//! frees it there, instead of the map keeping every lane's array until the last lane returns.
//! A lane's array may also be borrowed (a literal's slices of an array in scope,
//! `[xs[..half], xs[half..]]`: handed down without a copy).

use super::Cow;
use std::sync::Mutex;

/// The arrays of a map's lanes, each taken once, by the lane that reads it. The lengths stay
/// readable (the map balances its tasks on them) after the arrays are taken.
///
/// ```
/// use flatland_vectoriser::lane::{Cow, Owning};
/// let parts = Owning::new(vec![vec![3, 1], vec![], vec![2]]);
/// assert_eq!((parts.len(), parts.len_at(0), parts.len_at(1)), (3, 2, 0));
/// assert_eq!(parts.take(2), vec![2]);
/// assert_eq!(parts.len_at(2), 1);
/// // Borrowed parts stay borrowed.
/// let xs = [5, 6, 7];
/// let halves = Owning::new([Cow::Borrowed(&xs[..1]), Cow::Borrowed(&xs[1..])]);
/// assert!(matches!(halves.take(1), Cow::Borrowed(&[6, 7])));
/// ```
#[derive(Debug)]
pub struct Owning<'a, T: Clone> {
    /// Each lane's length and array, in one allocation (a recursion makes one per call).
    slots: Vec<Slot<'a, T>>,
}

/// One lane of an [`Owning`]: its length, and its array until the lane takes it.
#[derive(Debug)]
struct Slot<'a, T: Clone> {
    len: usize,
    array: Mutex<Option<Cow<'a, [T]>>>,
}

impl<'a, T: Clone> Owning<'a, T> {
    /// The lanes' arrays, none taken yet (from a `Vec` of them, or an array literal's parts
    /// without a `Vec` between), owned (`Vec`s) or borrowed (`Cow`s).
    pub fn new<A: Into<Cow<'a, [T]>>>(arrays: impl IntoIterator<Item = A>) -> Owning<'a, T> {
        let slots = arrays
            .into_iter()
            .map(|a| {
                let a = a.into();
                Slot {
                    len: a.len(),
                    array: Mutex::new(Some(a)),
                }
            })
            .collect();
        Owning { slots }
    }

    /// The number of lanes.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are no lanes.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The length of lane `i`'s array (taken or not).
    pub fn len_at(&self, i: usize) -> usize {
        self.slots[i].len
    }

    /// Lane `i`'s array, handed over to the lane.
    ///
    /// # Panics
    /// If lane `i`'s array was taken before: a map runs each lane once.
    pub fn take(&self, i: usize) -> Cow<'a, [T]> {
        let mut slot = self.slots[i]
            .array
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slot.take()
            .unwrap_or_else(|| panic!("lane {i} of a map took its array twice"))
    }
}
