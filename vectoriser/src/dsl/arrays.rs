//! The array operations of handles: `map`, reductions and scans, `filter`, `partition`,
//! `index`, `length`, slices, `concat` and the other IR array nodes, with their lambdas built
//! from closures ([`Predicate`] for the classes of a partition).
//!
//! Cost: each method builds one IR node (and its lambdas); nothing runs.

use super::handles::{Ex, fresh, lambda1, lambda2, lambda3, lambda4};
use super::operators::Num;
use super::types::{Arr, Ty};
use crate::ir::{Expr, ReduceOp};

impl<T: Ty> Ex<Arr<T>> {
    /// `length(self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(3).len().expr().to_string(), "length(iota(3, 0, 1))");
    /// ```
    pub fn len(&self) -> Ex<i64> {
        Ex::wrap(Expr::length(self.e.clone()))
    }

    /// `self[i]`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(3).at(1).expr().to_string(), "iota(3, 0, 1)[1]");
    /// ```
    pub fn at(&self, i: impl Into<Ex<i64>>) -> Ex<T> {
        Ex::wrap(Expr::index(self.e.clone(), i.into().e))
    }

    /// `map(f, self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).map(|x| x * 2).expr().to_string().starts_with("map(|x"));
    /// ```
    pub fn map<R>(&self, f: impl FnOnce(Ex<T>) -> Ex<R>) -> Ex<Arr<R>> {
        Ex::wrap(Expr::map(lambda1(f), vec![self.e.clone()]))
    }

    /// `map(f, self, other)`: the lambda takes one element of each.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).zip_map(&iota(3), |x, y| x + y).expr().to_string().starts_with("map(|x"));
    /// ```
    pub fn zip_map<U, R>(
        &self,
        other: &Ex<Arr<U>>,
        f: impl FnOnce(Ex<T>, Ex<U>) -> Ex<R>,
    ) -> Ex<Arr<R>> {
        Ex::wrap(Expr::map(lambda2(f), vec![self.e.clone(), other.e.clone()]))
    }

    /// `map(f, self, b, c)`: a zip of three equally long arrays consumed by a map (no tuple
    /// array is built); the lambda takes one element of each.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
    /// type F = Ex<Arr<f64>>;
    /// let mut p = ProgramBuilder::new();
    /// let f = p.function("fma", ["a", "b", "c"], |_, (a, b, c): (F, F, F)| {
    ///     a.zip3_map(&b, &c, |x, y, z| x.mul_add(y, z).clamp(0.0, 10.0))
    /// });
    /// let f = p.prepare(&f).unwrap();
    /// let out = f.call((vec![1.0, 2.0], vec![3.0, 4.0], vec![1.0, 5.0])).unwrap();
    /// assert_eq!(out, vec![4.0, 10.0]);
    /// ```
    pub fn zip3_map<B, C, R>(
        &self,
        b: &Ex<Arr<B>>,
        c: &Ex<Arr<C>>,
        f: impl FnOnce(Ex<T>, Ex<B>, Ex<C>) -> Ex<R>,
    ) -> Ex<Arr<R>> {
        let arrays = vec![self.e.clone(), b.e.clone(), c.e.clone()];
        Ex::wrap(Expr::map(lambda3(f), arrays))
    }

    /// `map(f, self, b, c, d)`: [`Ex::zip3_map`] of four arrays.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
    /// type I = Ex<Arr<i64>>;
    /// let mut p = ProgramBuilder::new();
    /// let f = p.function("dots", ["a", "b", "c", "d"], |_, (a, b, c, d): (I, I, I, I)| {
    ///     a.zip4_map(&b, &c, &d, |x, y, z, w| x * y + z * w)
    /// });
    /// let f = p.prepare(&f).unwrap();
    /// let out = f.call((vec![1, 2], vec![3, 4], vec![5, 6], vec![7, 8])).unwrap();
    /// assert_eq!(out, vec![38, 56]);
    /// ```
    pub fn zip4_map<B, C, D, R>(
        &self,
        b: &Ex<Arr<B>>,
        c: &Ex<Arr<C>>,
        d: &Ex<Arr<D>>,
        f: impl FnOnce(Ex<T>, Ex<B>, Ex<C>, Ex<D>) -> Ex<R>,
    ) -> Ex<Arr<R>> {
        let arrays = vec![self.e.clone(), b.e.clone(), c.e.clone(), d.e.clone()];
        Ex::wrap(Expr::map(lambda4(f), arrays))
    }

    /// `reduce(op, identity, self)` with a built-in operator.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::iota, ir::ReduceOp};
    /// assert_eq!(iota(3).reduce(ReduceOp::Max, 0).expr().to_string(), "reduce(max, 0, iota(3, 0, 1))");
    /// ```
    pub fn reduce(&self, op: ReduceOp, identity: impl Into<Ex<T>>) -> Ex<T> {
        Ex::wrap(Expr::reduce(op, identity.into().e, self.e.clone()))
    }

    /// `reduce(f, identity, self)` with an associative lambda.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).reduce_with(0, |a, b| a + b).expr().to_string().starts_with("reduce(|x"));
    /// ```
    pub fn reduce_with(
        &self,
        identity: impl Into<Ex<T>>,
        f: impl FnOnce(Ex<T>, Ex<T>) -> Ex<T>,
    ) -> Ex<T> {
        Ex::wrap(Expr::reduce(
            ReduceOp::Lambda(lambda2(f)),
            identity.into().e,
            self.e.clone(),
        ))
    }

    /// `scan(op, identity, self)` (inclusive) with a built-in operator.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::iota, ir::ReduceOp};
    /// assert_eq!(iota(3).scan(ReduceOp::Add, 0).expr().to_string(), "scan(+, 0, iota(3, 0, 1))");
    /// ```
    pub fn scan(&self, op: ReduceOp, identity: impl Into<Ex<T>>) -> Ex<Arr<T>> {
        Ex::wrap(Expr::scan(op, identity.into().e, self.e.clone()))
    }

    /// `scan(f, identity, self)` (inclusive) with an associative lambda.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).scan_with(0, |a, b| a + b).expr().to_string().starts_with("scan(|x"));
    /// ```
    pub fn scan_with(
        &self,
        identity: impl Into<Ex<T>>,
        f: impl FnOnce(Ex<T>, Ex<T>) -> Ex<T>,
    ) -> Ex<Arr<T>> {
        Ex::wrap(Expr::scan(
            ReduceOp::Lambda(lambda2(f)),
            identity.into().e,
            self.e.clone(),
        ))
    }

    /// `redomap(op, identity, f, self)`: reduce of the mapped elements in one pass.
    ///
    /// ```
    /// use flatland_vectoriser::{dsl::iota, ir::ReduceOp};
    /// assert!(iota(3).redomap(ReduceOp::Add, 0, |x| x * 2).expr().to_string().starts_with("redomap(+, 0"));
    /// ```
    pub fn redomap<R>(
        &self,
        op: ReduceOp,
        identity: impl Into<Ex<R>>,
        f: impl FnOnce(Ex<T>) -> Ex<R>,
    ) -> Ex<R> {
        Ex::wrap(Expr::redomap(
            op,
            identity.into().e,
            lambda1(f),
            vec![self.e.clone()],
        ))
    }

    /// The elements satisfying `pred`, in order (class 0 of a one-predicate `filter`).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(3).filter(|x| x.lt(2)).expr().to_string().starts_with("filter([|x"));
    /// ```
    pub fn filter(&self, pred: impl FnOnce(Ex<T>) -> Ex<bool>) -> Ex<Arr<T>> {
        Ex::wrap(Expr::proj(
            Expr::filter(vec![lambda1(pred)], self.e.clone()),
            0,
        ))
    }

    /// `filter(predicates, self)` with if-elif semantics: `body` receives the
    /// `predicates.len() + 1` classes (the last one takes the elements no predicate accepted).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{iota, Ex};
    /// let preds: Vec<Box<dyn FnOnce(Ex<i64>) -> Ex<bool>>> = vec![Box::new(|x| x.lt(1)), Box::new(|x| x.lt(2))];
    /// let e = iota(3).filter_with(preds, |parts| parts[2].len());
    /// assert!(e.expr().to_string().starts_with("let"));
    /// ```
    pub fn filter_with<R>(
        &self,
        predicates: Vec<Predicate<T>>,
        body: impl FnOnce(Vec<Ex<Arr<T>>>) -> Ex<R>,
    ) -> Ex<R> {
        let n = predicates.len() + 1;
        let ls = predicates.into_iter().map(lambda1).collect();
        bind_parts(Expr::filter(ls, self.e.clone()), n, body)
    }

    /// `partition(classes, interest, key, self)`: `body` receives one array per class of interest,
    /// in the order given.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// let e = iota(9).partition_with(3, vec![2, 0], |x| x % 3, |parts| parts[0].len() + parts[1].len());
    /// assert!(e.expr().to_string().contains("partition(3, {2, 0}"));
    /// ```
    pub fn partition_with<R>(
        &self,
        classes: usize,
        interest: Vec<usize>,
        key: impl FnOnce(Ex<T>) -> Ex<i64>,
        body: impl FnOnce(Vec<Ex<Arr<T>>>) -> Ex<R>,
    ) -> Ex<R> {
        let n = interest.len();
        bind_parts(
            Expr::partition(classes, interest, lambda1(key), self.e.clone()),
            n,
            body,
        )
    }

    /// `slice(self, start, len)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(5).slice(1, 2).expr().to_string(), "slice(iota(5, 0, 1), 1, 2)");
    /// ```
    pub fn slice(&self, start: impl Into<Ex<i64>>, len: impl Into<Ex<i64>>) -> Ex<Arr<T>> {
        Ex::wrap(Expr::slice(self.e.clone(), start.into().e, len.into().e))
    }

    /// `append(self, other)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert!(iota(1).append(&iota(2)).expr().to_string().starts_with("append("));
    /// ```
    pub fn append(&self, other: &Ex<Arr<T>>) -> Ex<Arr<T>> {
        Ex::wrap(Expr::append(self.e.clone(), other.e.clone()))
    }

    /// `scatter(self, indices, values)`: the last index wins on collisions.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{iota, replicate};
    /// assert!(iota(3).scatter(&iota(1), &replicate(1, 7)).expr().to_string().starts_with("scatter("));
    /// ```
    pub fn scatter(&self, indices: &Ex<Arr<i64>>, values: &Ex<Arr<T>>) -> Ex<Arr<T>> {
        Ex::wrap(Expr::scatter(
            self.e.clone(),
            indices.e.clone(),
            values.e.clone(),
        ))
    }
}

/// A boxed predicate for [`Ex::filter_with`].
pub type Predicate<T> = Box<dyn FnOnce(Ex<T>) -> Ex<bool>>;

fn bind_parts<T, R>(e: Expr, n: usize, body: impl FnOnce(Vec<Ex<Arr<T>>>) -> Ex<R>) -> Ex<R> {
    let t = fresh("parts");
    let parts = (0..n)
        .map(|k| Ex::wrap(Expr::proj(Expr::var(&t), k)))
        .collect();
    Ex::wrap(Expr::let_(&t, e, body(parts).e))
}

impl<T: Num> Ex<Arr<T>> {
    /// `reduce(+, 0, self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(3).sum().expr().to_string(), "reduce(+, 0, iota(3, 0, 1))");
    /// ```
    pub fn sum(&self) -> Ex<T> {
        Ex::wrap(Expr::reduce(
            ReduceOp::Add,
            Expr::Lit(T::zero()),
            self.e.clone(),
        ))
    }

    /// `reduce(*, 1, self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::iota;
    /// assert_eq!(iota(3).product().expr().to_string(), "reduce(*, 1, iota(3, 0, 1))");
    /// ```
    pub fn product(&self) -> Ex<T> {
        Ex::wrap(Expr::reduce(
            ReduceOp::Mul,
            Expr::Lit(T::one()),
            self.e.clone(),
        ))
    }
}

impl<T: Ty> Ex<Arr<Arr<T>>> {
    /// `concat(self)`.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{iota, replicate};
    /// assert_eq!(replicate(2, iota(2)).concat().expr().to_string(), "concat(replicate(2, iota(2, 0, 1)))");
    /// ```
    pub fn concat(&self) -> Ex<Arr<T>> {
        Ex::wrap(Expr::concat(self.e.clone()))
    }
}
