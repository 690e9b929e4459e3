//! Shared buffers of primitive numbers.

use super::{Elt, Store, sealed::Sealed};
use crate::{Error, Result};
use flatland_segd::PSeg;
use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

/// A primitive number stored in a plain [`Buffer`] (sealed).
///
/// ```
/// use flatland_runtime::elt::{Buffer, Prim};
/// fn first<T: Prim>(b: &Buffer<T>) -> Option<T> { b.first().copied() }
/// assert_eq!(first(&Buffer::from(vec![3u32, 4])), Some(3));
/// ```
pub trait Prim: Elt<Store = Buffer<Self>> + Copy + Default {}

macro_rules! prim {
    ($($t:ty),*) => {$(
        impl Sealed for $t {}
        impl Elt for $t {
            type Store = Buffer<$t>;
            type Row<'a> = &'a [$t];
            fn row(store: &Buffer<$t>, range: Range<usize>) -> &[$t] {
                &store.as_slice()[range]
            }
        }
        impl Prim for $t {}
    )*};
}
prim!(i64, i32, u64, u32, u8, usize, f64, f32);

/// Who owns the memory of a [`Buffer`]: a shared slice, or an adopted `Vec` (no copy on adoption).
enum Owner<T> {
    Slice(Arc<[T]>),
    Vec(Arc<Adopted<T>>),
}

/// An adopted vector, counted as live memory of the runtime ([`crate::budget`]) while it is
/// adopted; when the last buffer sharing it is dropped, its allocation goes to the runtime's
/// spare blocks ([`crate::spare`]) for the next output of about its size.
struct Adopted<T>(Vec<T>, #[allow(dead_code)] crate::budget::Charge);

impl<T> Adopted<T> {
    fn new(v: Vec<T>) -> Self {
        let bytes = v.capacity().saturating_mul(size_of::<T>());
        Adopted(v, crate::budget::Charge::new(bytes))
    }
}

impl<T> Drop for Adopted<T> {
    fn drop(&mut self) {
        crate::spare::give_back(std::mem::take(&mut self.0));
    }
}

impl<T> Clone for Owner<T> {
    fn clone(&self) -> Self {
        match self {
            Owner::Slice(a) => Owner::Slice(Arc::clone(a)),
            Owner::Vec(a) => Owner::Vec(Arc::clone(a)),
        }
    }
}

/// A shared, immutable buffer of primitive numbers: the store of `i64`, `f64`, `u32`, ...
///
/// Built from a `Vec<T>` without copying (the vector is adopted), or from an `Arc<[T]>`. Cloning
/// and [`Buffer::slice`] share the memory.
///
/// ```
/// use flatland_runtime::elt::Buffer;
/// let b = Buffer::from(vec![1i64, 2, 3, 4]);
/// let tail = b.slice(1..4).unwrap();
/// assert_eq!(&*tail, &[2, 3, 4]);
/// assert_eq!(tail.iter().sum::<i64>(), 9);
/// ```
pub struct Buffer<T> {
    owner: Owner<T>,
    start: usize,
    len: usize,
}

impl<T> Clone for Buffer<T> {
    fn clone(&self) -> Self {
        Buffer {
            owner: self.owner.clone(),
            start: self.start,
            len: self.len,
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: PartialEq> PartialEq for Buffer<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T> Buffer<T> {
    /// The elements as a slice.
    ///
    /// ```
    /// use flatland_runtime::elt::Buffer;
    /// assert_eq!(Buffer::from(vec![1u8, 2]).as_slice(), &[1, 2]);
    /// ```
    pub fn as_slice(&self) -> &[T] {
        let all: &[T] = match &self.owner {
            Owner::Slice(a) => a,
            Owner::Vec(v) => &v.0,
        };
        &all[self.start..self.start + self.len]
    }

    /// A sub-buffer sharing this buffer's memory (no copy).
    ///
    /// # Errors
    /// [`Error::Invalid`] when the range is not inside the buffer.
    ///
    /// ```
    /// use flatland_runtime::elt::Buffer;
    /// let b = Buffer::from(vec![1i32, 2, 3]);
    /// assert_eq!(b.slice(1..2).unwrap().as_slice(), &[2]);
    /// assert!(b.slice(2..5).is_err());
    /// ```
    pub fn slice(&self, range: Range<usize>) -> Result<Buffer<T>> {
        if range.start > range.end || range.end > self.len {
            return Err(Error::Invalid {
                op: "Buffer::slice",
                detail: format!("range {range:?} outside buffer of length {}", self.len),
            });
        }
        Ok(Buffer {
            owner: self.owner.clone(),
            start: self.start + range.start,
            len: range.end - range.start,
        })
    }
}

impl<T> Buffer<T> {
    /// The shared slice behind this buffer and the range of it the buffer covers, when the
    /// buffer was built from an `Arc<[T]>` (an adopted `Vec` has no such slice): lets another
    /// container share the memory without copying.
    ///
    /// ```
    /// use flatland_runtime::elt::Buffer;
    /// use std::sync::Arc;
    /// let b = Buffer::from(Arc::<[i64]>::from(vec![1, 2, 3])).slice(1..3).unwrap();
    /// let (all, range) = b.shared_slice().unwrap();
    /// assert_eq!(&all[range], &[2, 3]);
    /// assert!(Buffer::from(vec![1i64]).shared_slice().is_none());
    /// ```
    pub fn shared_slice(&self) -> Option<(Arc<[T]>, Range<usize>)> {
        match &self.owner {
            Owner::Slice(a) => Some((Arc::clone(a), self.start..self.start + self.len)),
            Owner::Vec(_) => None,
        }
    }
}

impl<T: Clone> Buffer<T> {
    /// The elements as a `Vec`: the adopted vector itself, with no copy, when this buffer is
    /// the only one sharing it and covers all of it; a copy otherwise.
    ///
    /// ```
    /// use flatland_runtime::elt::Buffer;
    /// let v = vec![1.5f64, 2.5];
    /// let ptr = v.as_ptr();
    /// let back = Buffer::from(v).into_vec();
    /// assert_eq!(back.as_ptr(), ptr); // the same allocation
    /// let shared = Buffer::from(vec![1i64, 2, 3]);
    /// let tail = shared.slice(1..3).unwrap();
    /// assert_eq!(tail.into_vec(), vec![2, 3]); // copied: `shared` still holds the vector
    /// let slice = Buffer::from(std::sync::Arc::<[u32]>::from(vec![7, 8]));
    /// assert_eq!(slice.into_vec(), vec![7, 8]); // copied out of the shared slice
    /// ```
    pub fn into_vec(self) -> Vec<T> {
        let Buffer { owner, start, len } = self;
        match owner {
            Owner::Vec(a) if start == 0 && len == a.0.len() => match Arc::try_unwrap(a) {
                // The emptied `Adopted` gives nothing back to the spare blocks.
                Ok(mut adopted) => std::mem::take(&mut adopted.0),
                Err(a) => a.0.clone(),
            },
            Owner::Vec(a) => a.0[start..start + len].to_vec(),
            Owner::Slice(a) => a[start..start + len].to_vec(),
        }
    }
}

impl<T> Deref for Buffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> AsRef<[T]> for Buffer<T> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> From<Vec<T>> for Buffer<T> {
    /// Adopts the vector: no element is copied.
    fn from(v: Vec<T>) -> Self {
        let len = v.len();
        Buffer {
            owner: Owner::Vec(Arc::new(Adopted::new(v))),
            start: 0,
            len,
        }
    }
}

impl<T> From<Arc<[T]>> for Buffer<T> {
    /// Shares the slice: no element is copied.
    fn from(a: Arc<[T]>) -> Self {
        let len = a.len();
        Buffer {
            owner: Owner::Slice(a),
            start: 0,
            len,
        }
    }
}

impl<T: Prim> FromIterator<T> for Buffer<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Buffer::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<T> Sealed for Buffer<T> {}

impl<T: Prim> Store for Buffer<T> {
    type Elem = T;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, i: usize) -> Option<T> {
        self.as_slice().get(i).copied()
    }

    fn from_vec(v: Vec<T>) -> Self {
        Buffer::from(v)
    }

    fn to_vec(&self) -> Vec<T> {
        self.as_slice().to_vec()
    }

    fn gather_ranges(blocks: &[Self], ranges: &[PSeg]) -> Self {
        Buffer::from(crate::seg::gather_slices(blocks, ranges))
    }

    fn replicate_each(&self, counts: &[usize]) -> Self {
        assert_eq!(
            counts.len(),
            self.len,
            "replicate_each: one count per element"
        );
        let segd = flatland_segd::Segd::from_lengths(counts.to_vec())
            .expect("replicate_each: the counts add up to at most usize::MAX");
        Buffer::from(crate::seg::replicate_s(&segd, self.as_slice()).expect("one count each"))
    }
}
