//! The signatures `#[vectorise]` generates, spelt out: `f` as written, `try_f` returning
//! `Result`, `Nested` results and narrow boundary types.
use flatland_runtime::elt::Nested;
use flatland_vectoriser::{Error, Result};

#[flatland_macros::vectorise(vectoriser = ::flatland_vectoriser)]
mod k {
    use flatland_runtime::elt::Nested;

    pub fn dot(xs: &[f64], ys: &[f64]) -> f64 {
        xs.zip(ys).map(|(x, y)| x * y).sum()
    }

    pub fn flags(rows: &Nested<(i64, bool)>) -> Nested<bool> {
        rows.map(|r| r.map(|(_, b)| !b))
    }

    pub fn counts(rows: &[Vec<usize>], k: u32) -> Vec<usize> {
        rows.map(|r| r.len() * k)
    }

    pub fn halve(xs: Vec<f32>) -> Vec<f32> {
        xs.map(|x| x / 2.0)
    }
}

fn main() {
    let f: fn(&[f64], &[f64]) -> f64 = k::dot;
    let try_f: fn(&[f64], &[f64]) -> Result<f64> = k::try_dot;
    let executor: fn(&[f64], &[f64]) -> Result<f64> = k::plan::dot::executor;
    let reference: fn(&[f64], &[f64]) -> Result<f64> = k::plan::dot::reference;
    assert_eq!(f(&[1.0], &[2.0]), 2.0);
    assert_eq!(try_f(&[1.0], &[2.0]).unwrap(), 2.0);
    assert!(executor(&[1.0], &[]).is_err());
    assert!(reference(&[1.0], &[]).is_err());

    let flags: fn(&Nested<(i64, bool)>) -> Nested<bool> = k::flags;
    let try_flags: fn(&Nested<(i64, bool)>) -> Result<Nested<bool>> = k::try_flags;
    let _ = (flags, try_flags);

    let counts: fn(&[Vec<usize>], u32) -> Vec<usize> = k::counts;
    assert_eq!(counts(&[vec![1, 2]], 3), vec![6]);
    let halve: fn(Vec<f32>) -> Vec<f32> = k::halve;
    assert_eq!(halve(vec![1.0]), vec![0.5]);
    let e: Error = k::try_counts(&[vec![usize::MAX]], 1).unwrap_err();
    assert!(matches!(e, Error::DoesNotFit { .. }));
}
