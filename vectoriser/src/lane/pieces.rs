//! The output of a task of lanes that a `concat(map(..))` writes into its destination
//! ([`super::Ctx::flat_map`], [`super::Ctx::map`]): what the lanes append, in order, kept as a
//! list of pieces so that a lane's own large array is moved into the result, not copied twice.

/// The length from which an owned array appended to [`Pieces`] is kept as a piece of its own
/// (moved) instead of being copied into the current buffer. Shorter ones are copied: a piece
/// per lane of a few elements would cost more to track and concatenate than to copy.
pub const OWNED_PIECE: usize = 256;

/// Elements [`Pieces::extend_kept`] reserves room for at a time: a bound on the spare capacity
/// a filter that keeps few elements leaves behind.
pub const KEPT_BLOCK: usize = 4096;

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

    /// A buffer that starts with the elements of `v`, appended to in `v`'s own allocation
    /// (its spare capacity first).
    ///
    /// ```
    /// use flatland_vectoriser::lane::Pieces;
    /// let mut out = Pieces::from_vec(Vec::with_capacity(3));
    /// assert!(out.is_empty());
    /// out.extend_from_slice(&[1, 2]);
    /// assert!(!out.is_empty());
    /// assert_eq!(out.into_vec().unwrap(), vec![1, 2]);
    /// ```
    #[inline]
    pub fn from_vec(v: Vec<T>) -> Pieces<T> {
        Pieces {
            done: Vec::new(),
            current: v,
        }
    }

    /// Whether nothing has been appended.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.current.is_empty() && self.done.iter().all(Vec::is_empty)
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

    /// Appends, for each `i` in `0..n` in order, the element `kept(i)` gives where it says to
    /// keep it (a filter's class appended to a `concat`). For elements without drop glue each
    /// is written to the next free slot and the slot kept only where it says so, so no branch
    /// follows the data (a filter of random data mispredicts about half of them), and the
    /// buffer's length stays in a register over a block of [`KEPT_BLOCK`] elements: pushed one
    /// at a time, the length was stored and read back at every element, a chain through
    /// memory of some 6 cycles that bounded the filter. Stops at the first error, keeping what
    /// was appended before it.
    ///
    /// # Errors
    /// The first error of `kept`.
    ///
    /// ```
    /// use flatland_vectoriser::lane::Pieces;
    /// let xs = [5, 8, 13, 21, 34];
    /// let mut out = Pieces::new();
    /// out.extend_kept(xs.len(), |i| Ok((xs[i], xs[i] % 2 == 1))).unwrap();
    /// assert_eq!(out.into_vec().unwrap(), vec![5, 13, 21]);
    /// ```
    #[inline]
    pub fn extend_kept(
        &mut self,
        n: usize,
        mut kept: impl FnMut(usize) -> crate::Result<(T, bool)>,
    ) -> crate::Result<()> {
        if std::mem::needs_drop::<T>() {
            for i in 0..n {
                let (x, keep) = kept(i)?;
                if keep {
                    self.current.push(x);
                }
            }
            return Ok(());
        }
        for start in (0..n).step_by(KEPT_BLOCK) {
            let end = (start + KEPT_BLOCK).min(n);
            self.current.reserve(end - start);
            let free = self.current.as_mut_ptr();
            let mut len = self.current.len();
            let mut failed = None;
            for i in start..end {
                match kept(i) {
                    Ok((x, keep)) => {
                        // SAFETY: `end - start` slots past the length at the block's start
                        // are reserved, and `len` grows by at most one per element of the
                        // block, so slot `len` is inside the allocation. A value written and
                        // not kept is overwritten by the next one or left in the spare
                        // capacity, which leaks nothing (`T` has no drop glue).
                        unsafe { free.add(len).write(x) };
                        len += usize::from(keep);
                    }
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            // SAFETY: the slots below `len` were all written (the kept ones, in order), and
            // `len` is within the capacity (see above).
            unsafe { self.current.set_len(len) };
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
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
