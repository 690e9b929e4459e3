//! The integer types accepted as indices and class keys, and the numbers `iota` can step.

mod sealed {
    pub trait Sealed {}
}

/// An integer usable as an index or class key (`u8` ..= `u64`, `usize`, `i8` ..= `i64`,
/// `isize`). Negative values are never in range.
///
/// ```
/// use flatland_runtime::flat::Index;
/// assert_eq!(3i64.to_index(), Some(3));
/// assert_eq!((-1i64).to_index(), None);
/// assert_eq!(u64::MAX.to_i64(), i64::MAX);
/// ```
pub trait Index: Copy + Send + Sync + sealed::Sealed {
    /// The value as a `usize`, if it is one.
    fn to_index(self) -> Option<usize>;
    /// The value as an `i64` for error reports (saturating).
    fn to_i64(self) -> i64;
}

macro_rules! index {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Index for $t {
            #[inline]
            fn to_index(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
            #[inline]
            fn to_i64(self) -> i64 {
                i64::try_from(self).unwrap_or(i64::MAX)
            }
        }
    )*};
}
index!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// A number `iota` can produce: element `i` is `start + i * step` (integers wrap, floats compute
/// `start + (i as f) * step` without accumulating).
///
/// ```
/// use flatland_runtime::flat::Step;
/// assert_eq!(i64::nth(10, -3, 4), -2);
/// assert_eq!(f64::nth(0.5, 0.25, 2), 1.0);
/// assert_eq!(u8::nth(250, 3, 2), 0);
/// ```
pub trait Step: Copy + Send + Sync {
    /// `start + i * step`.
    fn nth(start: Self, step: Self, i: usize) -> Self;
}

macro_rules! step_int {
    ($($t:ty),*) => {$(
        impl Step for $t {
            #[inline]
            fn nth(start: Self, step: Self, i: usize) -> Self {
                start.wrapping_add(step.wrapping_mul(i as $t))
            }
        }
    )*};
}
step_int!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

macro_rules! step_float {
    ($($t:ty),*) => {$(
        impl Step for $t {
            #[inline]
            fn nth(start: Self, step: Self, i: usize) -> Self {
                start + (i as $t) * step
            }
        }
    )*};
}
step_float!(f32, f64);
