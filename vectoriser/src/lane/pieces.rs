//! The output of a task of lanes that a `concat(map(..))` writes into its destination
//! ([`super::Ctx::flat_map`], [`super::Ctx::map`]): what the lanes append, in order, kept as a
//! list of pieces so that a lane's own large array is moved into the result, not copied twice.

/// The length from which an owned array appended to [`Pieces`] is kept as a piece of its own
/// (moved) instead of being copied into the current buffer. Shorter ones are copied: a piece
/// per lane of a few elements would cost more to track and concatenate than to copy.
pub const OWNED_PIECE: usize = 256;

/// What the lanes of a task appended, in order: single elements and borrowed arrays go to the
/// current buffer; an owned array of [`OWNED_PIECE`] elements or more becomes a piece of its
/// own. [`super::concat_parts`] of the pieces of all tasks gives the concatenation with each
/// element copied once.
///
/// ```
/// use flatland_vectoriser::lane::{Pieces, concat_parts};
/// let mut out = Pieces::new();
/// out.push(1);
/// out.extend_owned(vec![7; 300]); // moved: a piece of its own
/// out.extend_from_slice(&[2, 3]);
/// let parts = out.into_parts();
/// assert_eq!(parts.len(), 3);
/// let all = concat_parts(parts).unwrap();
/// assert_eq!((all.len(), all[0], all[301], all[302]), (303, 1, 2, 3));
/// ```
#[derive(Debug)]
pub struct Pieces<T> {
    done: Vec<Vec<T>>,
    current: Vec<T>,
}

impl<T> Default for Pieces<T> {
    fn default() -> Self {
        Pieces::new()
    }
}

impl<T> Pieces<T> {
    /// Nothing appended yet.
    #[inline]
    pub fn new() -> Pieces<T> {
        Pieces {
            done: Vec::new(),
            current: Vec::new(),
        }
    }

    /// Appends one element.
    #[inline]
    pub fn push(&mut self, x: T) {
        self.current.push(x);
    }

    /// Appends the elements of `xs`.
    #[inline]
    pub fn extend(&mut self, xs: impl IntoIterator<Item = T>) {
        self.current.extend(xs);
    }

    /// Appends `x` where `keep` holds (a filter's element): for elements without drop glue,
    /// written to the next free slot and the slot kept only where `keep` holds, so that no
    /// branch follows the data (a filter of random data mispredicts about half of them).
    ///
    /// ```
    /// use flatland_vectoriser::lane::Pieces;
    /// let (mut plain, mut boxed) = (Pieces::new(), Pieces::new());
    /// for x in 0..10 {
    ///     plain.push_if(x, x % 3 == 0);
    ///     boxed.push_if(vec![x], x == 4); // with drop glue: pushed where kept
    /// }
    /// assert_eq!(plain.into_vec().unwrap(), vec![0, 3, 6, 9]);
    /// assert_eq!(boxed.into_vec().unwrap(), vec![vec![4]]);
    /// ```
    #[inline]
    pub fn push_if(&mut self, x: T, keep: bool) {
        if std::mem::needs_drop::<T>() {
            if keep {
                self.current.push(x);
            }
            return;
        }
        if self.current.len() == self.current.capacity() {
            self.current.reserve(1);
        }
        let len = self.current.len();
        // SAFETY: the reservation above leaves room for slot `len`; a value written there
        // and not kept is overwritten by the next one or dropped with the spare capacity,
        // which leaks nothing (`T` has no drop glue); the length grows over the slot only
        // where `keep` holds, after the slot was written.
        unsafe {
            self.current.as_mut_ptr().add(len).write(x);
            self.current.set_len(len + usize::from(keep));
        }
    }

    /// Reserves room for `n` more elements in the current buffer.
    #[inline]
    pub fn reserve(&mut self, n: usize) {
        self.current.reserve(n);
    }

    /// Appends an owned array: moved as a piece of its own from [`OWNED_PIECE`] elements,
    /// copied into the current buffer below.
    #[inline]
    pub fn extend_owned(&mut self, xs: Vec<T>) {
        if xs.len() < OWNED_PIECE {
            self.current.extend(xs);
            return;
        }
        if !self.current.is_empty() {
            self.done.push(std::mem::take(&mut self.current));
        }
        self.done.push(xs);
    }

    /// Appends the arrays `parts`, in order, each as a piece of its own (moved, not copied):
    /// what the tasks of a map appending into this buffer gave ([`super::Ctx::flat_map_into`]).
    ///
    /// ```
    /// use flatland_vectoriser::lane::Pieces;
    /// let mut out = Pieces::new();
    /// out.push(1);
    /// out.append_parts(vec![vec![2, 3], vec![], vec![4]]);
    /// out.push(5);
    /// assert_eq!(out.into_vec().unwrap(), vec![1, 2, 3, 4, 5]);
    /// ```
    pub fn append_parts(&mut self, parts: Vec<Vec<T>>) {
        if !self.current.is_empty() {
            self.done.push(std::mem::take(&mut self.current));
        }
        self.done
            .extend(parts.into_iter().filter(|p| !p.is_empty()));
    }

    /// The concatenation of the pieces: the one buffer itself where nothing was moved in as a
    /// piece of its own (most maps of a few lanes: no list of pieces is built), else
    /// [`super::concat_parts`] of [`Pieces::into_parts`].
    ///
    /// # Errors
    /// As [`super::concat_parts`]: a concatenation over the memory budget.
    ///
    /// ```
    /// use flatland_vectoriser::lane::Pieces;
    /// let mut out = Pieces::new();
    /// out.extend_from_slice(&[1, 2]);
    /// assert_eq!(out.into_vec().unwrap(), vec![1, 2]);
    /// let mut out = Pieces::new();
    /// out.push(0);
    /// out.extend_owned(vec![7; 300]);
    /// assert_eq!(out.into_vec().unwrap().len(), 301);
    /// ```
    pub fn into_vec(self) -> crate::Result<Vec<T>>
    where
        T: Send,
    {
        if self.done.is_empty() {
            return Ok(self.current);
        }
        super::concat_parts(self.into_parts())
    }

    /// The pieces, in order (empty ones left out).
    pub fn into_parts(self) -> Vec<Vec<T>> {
        let mut parts = self.done;
        if !self.current.is_empty() {
            parts.push(self.current);
        }
        parts
    }
}

impl<T: Clone> Pieces<T> {
    /// Appends a copy of the elements of `xs`.
    #[inline]
    pub fn extend_from_slice(&mut self, xs: &[T]) {
        self.current.extend_from_slice(xs);
    }
}
