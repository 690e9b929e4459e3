//! Narrow Rust types at a function's boundary: `u32`, `i32`, `usize` (passed as the IR's `i64`)
//! and `f32` (as `f64`), alone or in slices and `Vec`s nested to any depth. Arguments are widened
//! on entry and results narrowed on exit, in one parallel pass over the elements (counted in
//! `runtime::stats::Work::elements_converted`); a value that does not fit is
//! [`Error::DoesNotFit`], naming the argument or result, the position and the value.
//!
//! Every `u32`, `i32` and `f32` fits in the wide type; a `usize` above `i64::MAX` does not. On
//! the way back, an `i64` fits when the narrow type holds it exactly, and an `f64` fits in `f32`
//! when it is NaN, infinite or at most `f32::MAX` in magnitude (it is rounded to the nearest
//! `f32`, as `as f32` does; a finite value beyond that range would become infinite).
//!
//! ```
//! use flatland_vectoriser::boundary::{Narrow, Widen};
//! let wide: Vec<i64> = [3usize, 4].widen("argument `xs` of `f`").unwrap();
//! assert_eq!(wide, vec![3, 4]);
//! let e = <Vec<u32>>::narrow(vec![1, -1], "the result of `f`").unwrap_err();
//! assert_eq!(e.to_string(), "the result of `f`: the value -1 at [1] does not fit in u32");
//! ```

use crate::error::{Error, Result};
use flatland_runtime::cost::ElemCost;
use flatland_runtime::{sched, stats};
use rayon::prelude::*;

/// A compare and a cast per element, one read and one write.
const CONVERT: ElemCost = ElemCost::new(1.0, 2.0);

/// A narrow scalar type and its wide IR counterpart.
///
/// ```
/// use flatland_vectoriser::boundary::Scalar;
/// assert_eq!(<usize as Scalar>::widen(5), Some(5i64));
/// assert_eq!(<i32 as Scalar>::narrow(1 << 40), None);
/// ```
pub trait Scalar: Copy + Send + Sync + std::fmt::Display + 'static {
    /// The IR's type for it (`i64` or `f64`).
    type Wide: Copy + Send + Sync + std::fmt::Display + 'static;
    /// The type's name, in errors.
    const NAME: &'static str;
    /// The wide value (`None` if it does not fit).
    fn widen(self) -> Option<Self::Wide>;
    /// The narrow value (`None` if it does not fit).
    fn narrow(w: Self::Wide) -> Option<Self>;
}

macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            type Wide = i64;
            const NAME: &'static str = stringify!($t);
            fn widen(self) -> Option<i64> {
                i64::try_from(self).ok()
            }
            fn narrow(w: i64) -> Option<$t> {
                <$t>::try_from(w).ok()
            }
        }
    )*};
}
int_scalar!(u32, i32, usize);

impl Scalar for f32 {
    type Wide = f64;
    const NAME: &'static str = "f32";
    fn widen(self) -> Option<f64> {
        Some(f64::from(self))
    }
    fn narrow(w: f64) -> Option<f32> {
        (!w.is_finite() || w.abs() <= f64::from(f32::MAX)).then_some(w as f32)
    }
}

fn does_not_fit(
    place: &str,
    index: Vec<usize>,
    value: impl std::fmt::Display,
    ty: &'static str,
) -> Error {
    Error::DoesNotFit {
        place: place.into(),
        index: index.into_boxed_slice(),
        value: value.to_string().into_boxed_str(),
        ty,
    }
}

/// Converts every element with `f`, in parallel on the runtime's schedule (the cost model picks
/// the grain; the output comes from the runtime's allocator); on a failure, the error of the
/// first failing element by position (the lowest failing task's first), so that the error does
/// not depend on threads.
fn convert_all<A: Copy + Sync, B: Copy + Send>(
    xs: &[A],
    f: impl Fn(&A) -> Option<B> + Sync,
    fail: impl Fn(usize, &A) -> Error + Sync,
) -> Result<Vec<B>> {
    let (s, _timing) = sched::plan_op(sched::Op::of("vectoriser::convert", &f), xs.len(), CONVERT);
    let (out, _) = sched::try_build_vec_tasks(&s, |_, r, out| {
        for i in r {
            match f(&xs[i]) {
                Some(b) => out.push(b),
                None => return Err(fail(i, &xs[i])),
            }
        }
        Ok(())
    })?;
    stats::record_converted(xs.len() as u64);
    Ok(out)
}

/// The narrow elements of a store widened (`place` names the argument in errors).
///
/// # Errors
/// [`Error::DoesNotFit`] for the first element that does not fit.
///
/// ```
/// let w = flatland_vectoriser::boundary::widen_all(&[1u32, 2], "argument `xs` of `f`").unwrap();
/// assert_eq!(w, vec![1i64, 2]);
/// ```
pub fn widen_all<N: Scalar>(xs: &[N], place: &str) -> Result<Vec<N::Wide>> {
    convert_all(
        xs,
        |x| x.widen(),
        |i, x| does_not_fit(place, vec![i], x, N::NAME),
    )
}

/// The wide elements of a result narrowed (`place` names the result in errors).
///
/// # Errors
/// [`Error::DoesNotFit`] for the first element that does not fit.
///
/// ```
/// let n = flatland_vectoriser::boundary::narrow_all::<usize>(&[1, 2], "the result of `f`").unwrap();
/// assert_eq!(n, vec![1usize, 2]);
/// ```
pub fn narrow_all<N: Scalar>(xs: &[N::Wide], place: &str) -> Result<Vec<N>> {
    convert_all(
        xs,
        |&w| N::narrow(w),
        |i, w| does_not_fit(place, vec![i], w, N::NAME),
    )
}

/// A parameter type with narrow elements, widened on entry to the IR's Rust value.
///
/// ```
/// use flatland_vectoriser::boundary::Widen;
/// let rows: Vec<Vec<i64>> = [vec![1usize], vec![]].widen("argument `rows` of `f`").unwrap();
/// assert_eq!(rows, vec![vec![1], vec![]]);
/// ```
pub trait Widen {
    /// The wide Rust value (`i64`, `f64`, `Vec` of them).
    type Wide;
    /// The wide value.
    ///
    /// # Errors
    /// [`Error::DoesNotFit`] naming `place`, the position and the value.
    fn widen(&self, place: &str) -> Result<Self::Wide>;
}

/// A result type with narrow elements, narrowed on exit from the IR's Rust value.
///
/// ```
/// use flatland_vectoriser::boundary::Narrow;
/// assert_eq!(<f32>::narrow(0.5, "the result of `f`").unwrap(), 0.5f32);
/// assert!(<f32>::narrow(1e300, "the result of `f`").is_err());
/// ```
pub trait Narrow: Sized {
    /// The wide Rust value.
    type Wide;
    /// The narrow value.
    ///
    /// # Errors
    /// [`Error::DoesNotFit`] naming `place`, the position and the value.
    fn narrow(w: Self::Wide, place: &str) -> Result<Self>;
}

macro_rules! scalar_boundary {
    ($($t:ty),*) => {$(
        impl Widen for $t {
            type Wide = <$t as Scalar>::Wide;
            fn widen(&self, place: &str) -> Result<Self::Wide> {
                stats::record_converted(1);
                Scalar::widen(*self).ok_or_else(|| does_not_fit(place, vec![], self, <$t>::NAME))
            }
        }
        impl Narrow for $t {
            type Wide = <$t as Scalar>::Wide;
            fn narrow(w: Self::Wide, place: &str) -> Result<$t> {
                stats::record_converted(1);
                <$t as Scalar>::narrow(w).ok_or_else(|| does_not_fit(place, vec![], w, <$t>::NAME))
            }
        }
        impl Widen for [$t] {
            type Wide = Vec<<$t as Scalar>::Wide>;
            fn widen(&self, place: &str) -> Result<Self::Wide> {
                widen_all(self, place)
            }
        }
        impl Widen for Vec<$t> {
            type Wide = Vec<<$t as Scalar>::Wide>;
            fn widen(&self, place: &str) -> Result<Self::Wide> {
                widen_all(self, place)
            }
        }
        impl Narrow for Vec<$t> {
            type Wide = Vec<<$t as Scalar>::Wide>;
            fn narrow(w: Self::Wide, place: &str) -> Result<Self> {
                narrow_all(&w, place)
            }
        }
    )*};
}
scalar_boundary!(u32, i32, usize, f32);

/// Runs `f` on every row (in parallel); the first failing row's error (by position), with the
/// row's position in front of its index.
fn rows<A: Sync, B: Send>(xs: &[A], f: impl Fn(&A) -> Result<B> + Sync) -> Result<Vec<B>> {
    first_row_error(xs.par_iter().map(&f).collect())
}

/// The rows, or the first failing row's error with the row's position in front of its index.
fn first_row_error<B>(out: Vec<Result<B>>) -> Result<Vec<B>> {
    out.into_iter()
        .enumerate()
        .map(|(i, r)| r.map_err(|e| at_row(e, i)))
        .collect()
}

impl<T: Sync> Widen for [Vec<T>]
where
    Vec<T>: Widen<Wide: Send>,
{
    type Wide = Vec<<Vec<T> as Widen>::Wide>;
    fn widen(&self, place: &str) -> Result<Self::Wide> {
        rows(self, |r| r.widen(place))
    }
}

impl<T: Sync> Widen for Vec<Vec<T>>
where
    Vec<T>: Widen<Wide: Send>,
{
    type Wide = Vec<<Vec<T> as Widen>::Wide>;
    fn widen(&self, place: &str) -> Result<Self::Wide> {
        self.as_slice().widen(place)
    }
}

impl<T: Send> Narrow for Vec<Vec<T>>
where
    Vec<T>: Narrow<Wide: Send>,
{
    type Wide = Vec<<Vec<T> as Narrow>::Wide>;
    fn narrow(w: Self::Wide, place: &str) -> Result<Self> {
        first_row_error(
            w.into_par_iter()
                .map(|r| <Vec<T>>::narrow(r, place))
                .collect(),
        )
    }
}

/// `e` with row `i` in front of its index.
fn at_row(e: Error, i: usize) -> Error {
    match e {
        Error::DoesNotFit {
            place,
            index,
            value,
            ty,
        } => Error::DoesNotFit {
            place,
            index: std::iter::once(i).chain(index.iter().copied()).collect(),
            value,
            ty,
        },
        other => other,
    }
}
