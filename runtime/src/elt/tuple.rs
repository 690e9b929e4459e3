//! Tuples as structs of arrays: one store per field.

use super::{Elt, Store, sealed::Sealed};
use crate::{Error, Result};
use flatland_segd::PSeg;

/// The store of a tuple type: one store per field, all of one length (struct of arrays).
///
/// ```
/// use flatland_runtime::elt::{Buffer, Soa, Store};
/// let s = Soa::try_new((Buffer::from(vec![1i64, 2]), Buffer::from(vec![0.5f64, 1.5]))).unwrap();
/// assert_eq!(s.get(1), Some((2, 1.5)));
/// assert_eq!(s.fields().0.as_slice(), &[1, 2]);
/// assert!(Soa::try_new((Buffer::from(vec![1i64]), Buffer::from(vec![0.5f64, 1.5]))).is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Soa<S> {
    fields: S,
    len: usize,
}

/// A tuple of field stores that can form a [`Soa`] (implemented for tuples of 2 to 4 stores).
///
/// ```
/// use flatland_runtime::elt::{Buffer, Fields};
/// assert_eq!((Buffer::from(vec![1i64]), Buffer::from(vec![2u8, 3])).lens(), vec![1, 2]);
/// ```
pub trait Fields {
    /// The length of every field, in order.
    fn lens(&self) -> Vec<usize>;
}

impl<S: Fields> Soa<S> {
    /// Builds a tuple store from field stores of one length.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] naming the first field whose length differs from field 0's.
    ///
    /// ```
    /// use flatland_runtime::elt::{Buffer, Soa};
    /// assert!(Soa::try_new((Buffer::from(vec![1i64]), Buffer::from(vec![2u8]))).is_ok());
    /// ```
    pub fn try_new(fields: S) -> Result<Self> {
        let lens = fields.lens();
        let len = lens[0];
        if let Some(&found) = lens.iter().find(|&&l| l != len) {
            return Err(Error::LengthMismatch {
                op: "Soa::try_new",
                expected: len,
                found,
            });
        }
        Ok(Soa { fields, len })
    }
}

impl<S> Soa<S> {
    /// The field stores.
    ///
    /// ```
    /// use flatland_runtime::elt::{Elt, Store};
    /// let s = <(u32, bool) as Elt>::Store::from_vec(vec![(1u32, true)]);
    /// assert_eq!(s.fields().1.get(0), Some(true));
    /// ```
    pub fn fields(&self) -> &S {
        &self.fields
    }

    /// The field stores, by value.
    ///
    /// ```
    /// use flatland_runtime::elt::{Elt, Store};
    /// let (a, b) = <(u32, bool) as Elt>::Store::from_vec(vec![(1u32, true)]).into_fields();
    /// assert_eq!((a.len(), b.len()), (1, 1));
    /// ```
    pub fn into_fields(self) -> S {
        self.fields
    }
}

impl<S> Sealed for Soa<S> {}

macro_rules! soa {
    ($($T:ident $S:ident $v:ident $i:tt),+) => {
        impl<$($T: Elt),+> Sealed for ($($T,)+) {}
        impl<$($T: Elt),+> Elt for ($($T,)+) {
            type Store = Soa<($($T::Store,)+)>;
            type Row<'a> = super::RowView<'a, ($($T,)+)>;
            fn row(store: &Self::Store, range: std::ops::Range<usize>) -> Self::Row<'_> {
                super::RowView::new(store, range)
            }
        }

        impl<$($S: Store),+> Fields for ($($S,)+) {
            fn lens(&self) -> Vec<usize> {
                vec![$(self.$i.len()),+]
            }
        }

        impl<$($S: Store),+> Store for Soa<($($S,)+)> {
            type Elem = ($($S::Elem,)+);

            fn len(&self) -> usize {
                self.len
            }

            fn get(&self, i: usize) -> Option<Self::Elem> {
                Some(($(self.fields.$i.get(i)?,)+))
            }

            fn from_vec(v: Vec<Self::Elem>) -> Self {
                let len = v.len();
                $(let mut $v = Vec::with_capacity(len);)+
                for t in v {
                    $($v.push(t.$i);)+
                }
                Soa { fields: ($($S::from_vec($v),)+), len }
            }

            fn gather_ranges(blocks: &[Self], ranges: &[PSeg]) -> Self {
                let len = super::ranges_total(ranges);
                $(let $v: Vec<$S> = blocks.iter().map(|b| b.fields.$i.clone()).collect();)+
                Soa { fields: ($($S::gather_ranges(&$v, ranges),)+), len }
            }

            fn replicate_each(&self, counts: &[usize]) -> Self {
                let len = counts.iter().sum();
                Soa { fields: ($(self.fields.$i.replicate_each(counts),)+), len }
            }
        }
    };
}

soa!(A SA a 0, B SB b 1);
soa!(A SA a 0, B SB b 1, C SC c 2);
soa!(A SA a 0, B SB b 1, C SC c 2, D SD d 3);
