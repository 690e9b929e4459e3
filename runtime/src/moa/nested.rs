//! The regular segment-descriptor view of a dense array: the bridge to nested arrays. A
//! `[a, b, c]` array is a nested array whose descriptors are all regular (`Segd::regular`, no
//! per-segment arrays), over the same flat content, so converting either way copies nothing.

use std::sync::Arc;

use flatland_segd::Segd;

use super::array::{Array, shape_error};
use crate::elt::{Buffer, Nested, Prim};
use crate::{Result, stats};

impl<T> Array<T> {
    /// The outer axis as a regular descriptor over the content: `(ρ ξ)[0]` segments of
    /// `τ (1 ↓ ρ ξ)` elements each, segment `i` being the content of `<i> Ψ ξ`.
    ///
    /// # Errors
    /// [`Error::Shape`](crate::Error::Shape) for a scalar (it has no outer axis).
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// let a = iota(24).reshape(&[2, 3, 4]).unwrap();
    /// let s = a.segd_view().unwrap();
    /// assert_eq!((s.len(), s.regular_len(), s.elements()), (2, Some(12), 24));
    /// assert_eq!(&a.as_slice()[s.start(1)..][..s.length(1)], a.psi(&[1]).unwrap().as_slice());
    /// ```
    pub fn segd_view(&self) -> Result<Segd> {
        let Some((&n, rest)) = self.shape().split_first() else {
            return Err(shape_error("segd_view", "a scalar has no outer axis"));
        };
        Ok(Segd::regular(n, rest.iter().product()))
    }

    /// The descriptors of the array seen as a nested array of depth `δ ξ - 1`, outermost first:
    /// level `l` has `(ρ ξ)[0] × ... × (ρ ξ)[l]` segments of `(ρ ξ)[l + 1]` elements (a vector
    /// has none; a scalar is an error).
    ///
    /// # Errors
    /// [`Error::Shape`](crate::Error::Shape) for a scalar.
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// let a = iota(24).reshape(&[2, 3, 4]).unwrap();
    /// let levels = a.segd_levels().unwrap();
    /// assert_eq!(levels.len(), 2);
    /// assert_eq!((levels[0].len(), levels[0].regular_len()), (2, Some(3)));
    /// assert_eq!((levels[1].len(), levels[1].regular_len()), (6, Some(4)));
    /// ```
    pub fn segd_levels(&self) -> Result<Vec<Segd>> {
        if self.is_scalar() {
            return Err(shape_error("segd_levels", "a scalar is not a nested array"));
        }
        let shape = self.shape();
        let mut outer = 1usize;
        Ok((0..shape.len() - 1)
            .map(|l| {
                outer *= shape[l];
                Segd::regular(outer, shape[l + 1])
            })
            .collect())
    }

    /// The dense array of a nested array whose descriptors (outermost first) are regular, over
    /// its flat content, without copying: the inverse of [`segd_levels`](Self::segd_levels) with
    /// [`to_parts`](Self::to_parts). No level gives a vector. A descriptor in explicit form is
    /// accepted when all its segments have one length.
    ///
    /// # Errors
    /// [`Error::Shape`](crate::Error::Shape) when a level is irregular, a level's segment count
    /// is not the previous level's element count, or the last level does not cover `content`.
    ///
    /// ```
    /// use flatland_runtime::moa::{Array, iota};
    /// use flatland_segd::Segd;
    /// let a = iota(24).reshape(&[2, 3, 4]).unwrap();
    /// let (_, content) = a.to_parts();
    /// let back = Array::from_segd_levels(&a.segd_levels().unwrap(), content.clone()).unwrap();
    /// assert_eq!(back, a);
    /// let rows = Segd::from_lengths(vec![12, 12]).unwrap();
    /// assert_eq!(Array::from_segd_levels(&[rows], content).unwrap().shape(), &[2, 12]);
    /// assert!(Array::from_segd_levels(&[Segd::from_lengths(vec![2, 3]).unwrap()], Array::vector(vec![0; 5]).to_parts().1).is_err());
    /// ```
    pub fn from_segd_levels(levels: &[Segd], content: Arc<[T]>) -> Result<Array<T>> {
        let mut shape = Vec::with_capacity(levels.len() + 1);
        let mut count = match levels.first() {
            Some(s) => s.len(),
            None => content.len(),
        };
        shape.push(count);
        for (l, s) in levels.iter().enumerate() {
            if s.len() != count {
                return Err(shape_error(
                    "from_segd_levels",
                    format!(
                        "level {l} has {} segments, the level above has {count} elements",
                        s.len()
                    ),
                ));
            }
            let len = if let Some(len) = s.regular_len() {
                len
            } else {
                let lengths = s.lengths();
                let first = lengths.first().copied().unwrap_or(0);
                if let Some(i) = lengths.iter().position(|&x| x != first) {
                    return Err(shape_error(
                        "from_segd_levels",
                        format!(
                            "level {l}: segment {i} has length {} but segment 0 has {first}",
                            lengths[i]
                        ),
                    ));
                }
                first
            };
            shape.push(len);
            count = s.elements();
        }
        if count != content.len() {
            return Err(shape_error(
                "from_segd_levels",
                format!(
                    "the descriptors cover {count} elements, the content has {}",
                    content.len()
                ),
            ));
        }
        Array::from_parts(shape, content)
    }
}

impl<T: Prim> Array<T> {
    /// The array as a nested array over its outer axis: segment `i` holds the row-major content
    /// of `<i> Ψ ξ`. The descriptor is regular (no per-segment arrays) and the content is shared,
    /// so no element is copied.
    ///
    /// # Errors
    /// [`Error::Shape`](crate::Error::Shape) for a scalar (it has no outer axis).
    ///
    /// ```
    /// use flatland_runtime::moa::iota;
    /// let a = iota(6).reshape(&[2, 3]).unwrap().map(|&x| x as i64);
    /// let n = a.to_nested().unwrap();
    /// assert_eq!(n.to_vec(), vec![vec![0, 1, 2], vec![3, 4, 5]]);
    /// ```
    pub fn to_nested(&self) -> Result<Nested<T>> {
        let segd = self.segd_view()?;
        let (data, start) = self.shared();
        let values = Buffer::from(data).slice(start..start + self.size())?;
        Nested::from_segd(&segd, values)
    }

    /// A `[n, m]` array from a nested array of `n` segments of `m` elements each.
    ///
    /// When the nested array is manifest, held in one block built from a shared slice, and its
    /// segments lie back to back in order (as [`Array::to_nested`] makes them), the content is
    /// shared and nothing is copied; otherwise the segments are copied once, in order (counted
    /// as copied elements by `stats`). `rows` fixes the shape of an empty nested array's rows.
    ///
    /// # Errors
    /// [`Error::Shape`](crate::Error::Shape) when the segments do not all have length `m`.
    ///
    /// ```
    /// use flatland_runtime::elt::Nested;
    /// use flatland_runtime::moa::Array;
    /// let n = Nested::from(vec![vec![1i64, 2], vec![3, 4], vec![5, 6]]);
    /// let a = Array::from_nested(&n, 2).unwrap();
    /// assert_eq!(a.shape(), &[3, 2]);
    /// assert_eq!(Array::from_nested(&a.to_nested().unwrap(), 2).unwrap(), a);
    /// assert!(Array::from_nested(&Nested::from(vec![vec![1i64], vec![]]), 1).is_err());
    /// ```
    pub fn from_nested(nested: &Nested<T>, m: usize) -> Result<Array<T>> {
        let n = nested.len();
        let vsegd = nested.vsegd();
        if let Some(i) = (0..n).find(|&i| vsegd.length(i) != m) {
            return Err(shape_error(
                "from_nested",
                format!("segment {i} has length {}, expected {m}", vsegd.length(i)),
            ));
        }
        let shape = vec![n, m];
        let contiguous = vsegd.is_manifest()
            && nested.blocks().len() == 1
            && (0..n).all(|i| {
                let p = vsegd.physical(i);
                p.source == 0 && p.start == vsegd.physical(0).start + i * m
            });
        if contiguous && let Some((all, range)) = nested.blocks()[0].shared_slice() {
            let first = if n == 0 { 0 } else { vsegd.physical(0).start };
            let start = range.start + first;
            return Ok(Array::window(shape, all, start));
        }
        let mut content = Vec::with_capacity(n * m);
        for i in 0..n {
            content.extend_from_slice(nested.segment(i));
        }
        stats::record_copied((n * m) as u64);
        Array::from_vec(shape, content)
    }
}
