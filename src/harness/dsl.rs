//! Flatland variants through the vectoriser's staged dsl: the reference programs of
//! `flatland_vectoriser::programs`, run by its flattened executor (`exec::run`), which lifts the
//! nested program onto the runtime's bulk primitives.
//!
//! The executor takes and returns `Value` trees: inputs are converted once when a case is
//! prepared (not timed); each timed run includes the executor's conversion of its `Value`
//! arguments to flat columns and of its result back, as every caller of the dsl pays today.

use crate::io::Csr;
use flatland_vectoriser::dsl::Program;
use flatland_vectoriser::exec;
use flatland_vectoriser::value::Value;

/// A dsl program ready to run one of its functions.
///
/// ```
/// use flatland::harness::dsl::{Dsl, i64s};
/// let d = Dsl::primes();
/// assert_eq!(i64s(&d.run(vec![flatland_vectoriser::value::Value::I64(10)])), vec![2, 3, 5, 7]);
/// ```
pub struct Dsl {
    program: Program,
    function: &'static str,
}

impl Dsl {
    /// `smvm(rows: [[(i64, f64)]], v: [f64]) -> [f64]`.
    ///
    /// ```
    /// use flatland::{harness::dsl::{Dsl, csr_rows, f64s, floats}, io::Csr};
    /// let a = Csr::from_triplets(2, 2, vec![(0, 1, 2.0), (1, 0, 1.0)]);
    /// assert_eq!(f64s(&Dsl::smvm().run(vec![csr_rows(&a), floats(&[3.0, 4.0])])), vec![8.0, 3.0]);
    /// ```
    pub fn smvm() -> Self {
        Self {
            program: flatland_vectoriser::programs::smvm().0,
            function: "smvm",
        }
    }

    /// `primes(n: i64) -> [i64]`: the primes below `n` (NESL's sieve).
    ///
    /// ```
    /// use flatland::harness::dsl::{Dsl, i64s};
    /// use flatland_vectoriser::value::Value;
    /// assert_eq!(i64s(&Dsl::primes().run(vec![Value::I64(12)])), vec![2, 3, 5, 7, 11]);
    /// ```
    pub fn primes() -> Self {
        Self {
            program: flatland_vectoriser::programs::primes().0,
            function: "primes",
        }
    }

    /// `tree_lookup(table: [i64], xs: [i64]) -> [i64]` (recursive halving, table free).
    ///
    /// ```
    /// use flatland::harness::dsl::{Dsl, i64s, ints};
    /// assert_eq!(i64s(&Dsl::tree_lookup().run(vec![ints(&[10, 20]), ints(&[1, 0, 1])])), vec![20, 10, 20]);
    /// ```
    pub fn tree_lookup() -> Self {
        Self {
            program: flatland_vectoriser::programs::tree_lookup().0,
            function: "tree_lookup",
        }
    }

    /// `quicksort(xs: [i64]) -> [i64]` (middle pivot, three-way filter, recursion under `map`).
    ///
    /// ```
    /// use flatland::harness::dsl::{Dsl, i64s, ints};
    /// assert_eq!(i64s(&Dsl::quicksort().run(vec![ints(&[3, -1, 2])])), vec![-1, 2, 3]);
    /// ```
    pub fn quicksort() -> Self {
        let p =
            flatland_vectoriser::programs::quicksort(flatland_vectoriser::programs::Pivot::Middle)
                .0;
        Self {
            program: p,
            function: "quicksort",
        }
    }

    /// `hull(points: [(f64, f64)]) -> [(f64, f64)]` (NESL quickhull).
    ///
    /// ```
    /// use flatland::harness::dsl::{Dsl, points, point_list};
    /// let h = point_list(&Dsl::quickhull().run(vec![points(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.1, 0.1)])]));
    /// assert_eq!(h.len(), 3);
    /// ```
    pub fn quickhull() -> Self {
        Self {
            program: flatland_vectoriser::programs::quickhull().0,
            function: "hull",
        }
    }

    /// Runs the function flattened. Panics on an executor error: the harness only passes
    /// well-typed, in-range inputs, so an error is a bug to surface.
    ///
    /// ```
    /// use flatland::harness::dsl::{Dsl, i64s};
    /// use flatland_vectoriser::value::Value;
    /// assert!(i64s(&Dsl::primes().run(vec![Value::I64(2)])).is_empty());
    /// ```
    pub fn run(&self, args: Vec<Value>) -> Value {
        exec::run(self.program.ir(), self.function, args)
            .unwrap_or_else(|e| panic!("dsl {}: {e}", self.function))
    }
}

/// An array of `f64` as a `Value`.
///
/// ```
/// use flatland::harness::dsl::{f64s, floats};
/// assert_eq!(f64s(&floats(&[1.5])), vec![1.5]);
/// ```
pub fn floats(xs: &[f64]) -> Value {
    Value::array(xs.iter().map(|&x| Value::F64(x)).collect())
}

/// An array of `i64` as a `Value`.
///
/// ```
/// use flatland::harness::dsl::{i64s, ints};
/// assert_eq!(i64s(&ints(&[-2])), vec![-2]);
/// ```
pub fn ints(xs: &[i64]) -> Value {
    Value::array(xs.iter().map(|&x| Value::I64(x)).collect())
}

/// Points as an array of `(f64, f64)` tuples.
///
/// ```
/// use flatland::harness::dsl::{point_list, points};
/// assert_eq!(point_list(&points(&[(1.0, 2.0)])), vec![(1.0, 2.0)]);
/// ```
pub fn points(ps: &[(f64, f64)]) -> Value {
    Value::array(
        ps.iter()
            .map(|&(x, y)| Value::Tuple(vec![Value::F64(x), Value::F64(y)]))
            .collect(),
    )
}

/// The rows of a CSR matrix as `[[(column, value)]]`.
///
/// ```
/// use flatland::{harness::dsl::csr_rows, io::Csr};
/// let v = csr_rows(&Csr::from_triplets(2, 1, vec![(1, 0, 1.0)]));
/// assert_eq!(v.as_array().unwrap().len(), 2);
/// ```
pub fn csr_rows(a: &Csr) -> Value {
    Value::array(
        (0..a.rows())
            .map(|i| {
                let (c, v) = a.row(i);
                Value::array(
                    c.iter()
                        .zip(v)
                        .map(|(&c, &v)| Value::Tuple(vec![Value::I64(c as i64), Value::F64(v)]))
                        .collect(),
                )
            })
            .collect(),
    )
}

fn elements(v: &Value) -> &[Value] {
    v.as_array().expect("the program returns an array")
}

/// A returned array of `f64`.
///
/// ```
/// use flatland::harness::dsl::{f64s, floats};
/// assert!(f64s(&floats(&[])).is_empty());
/// ```
pub fn f64s(v: &Value) -> Vec<f64> {
    elements(v)
        .iter()
        .map(|x| match x {
            Value::F64(f) => *f,
            other => panic!("expected f64, got {other:?}"),
        })
        .collect()
}

/// A returned array of `i64`.
///
/// ```
/// use flatland::harness::dsl::{i64s, ints};
/// assert_eq!(i64s(&ints(&[1, 2])), vec![1, 2]);
/// ```
pub fn i64s(v: &Value) -> Vec<i64> {
    elements(v)
        .iter()
        .map(|x| match x {
            Value::I64(i) => *i,
            other => panic!("expected i64, got {other:?}"),
        })
        .collect()
}

/// A returned array of points.
///
/// ```
/// use flatland::harness::dsl::{point_list, points};
/// assert!(point_list(&points(&[])).is_empty());
/// ```
pub fn point_list(v: &Value) -> Vec<(f64, f64)> {
    elements(v)
        .iter()
        .map(|p| match p {
            Value::Tuple(t) => match t.as_slice() {
                [Value::F64(x), Value::F64(y)] => (*x, *y),
                other => panic!("expected a point, got {other:?}"),
            },
            other => panic!("expected a point, got {other:?}"),
        })
        .collect()
}
