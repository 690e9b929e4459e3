//! Flatland variants through the vectoriser's staged dsl: the reference programs of
//! `flatland_vectoriser::programs`, run by its flattened executor (`exec::Prepared`: checked and
//! fused once per program), which lifts the nested program onto the runtime's bulk primitives.
//!
//! Arguments are passed in the executor's columnar form (`exec::Arg`: flat columns and segment
//! descriptors, built once when a case is prepared, cheap to clone); each timed run includes the
//! executor's work and the conversion of its result to Rust vectors.

use crate::io::Csr;
use flatland_vectoriser::dsl::{self, Arr, Ex, Func, Ty, array, if_, let_};
use flatland_vectoriser::exec::{Arg, ExecOptions, Prepared};
use flatland_vectoriser::ir::{Expr, Program, Type};

/// A dsl program ready to run one of its functions.
///
/// ```
/// use flatland_cli::harness::dsl::{Dsl, i64s, scalar};
/// assert_eq!(i64s(&Dsl::primes().run(vec![scalar(10)])), vec![2, 3, 5, 7]);
/// ```
pub struct Dsl {
    program: Program,
    function: &'static str,
    /// Checked and fused once (`exec::Prepared`), so a timed run is the executor's work only.
    prepared: Prepared,
}

impl Dsl {
    fn new(program: Program, function: &'static str) -> Self {
        Self::prepared(program, function, ExecOptions::default())
    }

    fn prepared(program: Program, function: &'static str, options: ExecOptions) -> Self {
        let prepared = Prepared::new(&program, function, &options)
            .unwrap_or_else(|e| panic!("dsl {function}: {e}"));
        Self {
            program,
            function,
            prepared,
        }
    }

    /// The same program run with the executor's fusion (`flatland_vectoriser::fuse`) on or off
    /// (on by default).
    ///
    /// ```
    /// use flatland_cli::harness::dsl::{Dsl, i64s, scalar};
    /// assert_eq!(i64s(&Dsl::primes().fused(false).run(vec![scalar(10)])), vec![2, 3, 5, 7]);
    /// ```
    #[must_use]
    pub fn fused(self, on: bool) -> Self {
        Self::prepared(self.program, self.function, ExecOptions { fuse: on })
    }

    /// `partition4(a: [f64]) -> ([f64], [f64], [f64], [f64])`: the stable 4-way partition
    /// `filter([|x| x < -64.0, |x| x < 0.0, |x| x < 64.0], a)` (each element in the class of the
    /// first predicate it satisfies, the rest last), read back by [`partition4_parts`].
    ///
    /// ```
    /// use flatland_cli::harness::dsl::{Dsl, floats, partition4_parts};
    /// let out = partition4_parts(&Dsl::partition4().run(vec![floats(&[70.0, -100.0, 1.0, -1.0, -70.0])]));
    /// assert_eq!(out, [vec![-100.0, -70.0], vec![-1.0], vec![1.0], vec![70.0]]);
    /// ```
    pub fn partition4() -> Self {
        use flatland_vectoriser::ir::{BinaryOp, Function, Lambda};
        let below = |b: f64| {
            Lambda::new(
                &["x"],
                Expr::binary(BinaryOp::Lt, Expr::var("x"), Expr::f64(b)),
            )
        };
        let fa = Type::array(Type::F64);
        let body = Expr::filter(vec![below(-64.0), below(0.0), below(64.0)], Expr::var("a"));
        let ret = Type::Tuple(vec![fa.clone(), fa.clone(), fa.clone(), fa.clone()]);
        let f = Function::new("partition4", vec![("a".into(), fa)], ret, body);
        Self::new(Program::new(vec![f]), "partition4")
    }

    /// The Futhark seed's "Fusion 2.0" program (`flatland_vectoriser::fuse::fusion2`), its six
    /// results regrouped as `((s1, s2, s3), (x0, z2, y3))` so that [`fusion2_parts`] can read
    /// them back: `fusion2(a: [f64]) -> ((f64, f64, f64), ([f64], [f64], [f64]))`.
    ///
    /// ```
    /// use flatland_cli::harness::dsl::{Dsl, floats, fusion2_parts};
    /// let out = fusion2_parts(&Dsl::fusion2().run(vec![floats(&[0.5, 3.0, 16.0, 400.0])]));
    /// assert_eq!(out, ((30.0, 16.0, 20.0), (vec![0.5], vec![30.0], vec![20.0])));
    /// ```
    pub fn fusion2() -> Self {
        let mut p = flatland_vectoriser::fuse::fusion2();
        let f = &mut p.functions[0];
        let body = std::mem::replace(&mut f.body, Expr::f64(0.0));
        let r = || Expr::var("r");
        let group = |ix: [usize; 3]| Expr::Tuple(ix.map(|i| Expr::proj(r(), i)).to_vec());
        f.body = Expr::let_(
            "r",
            body,
            Expr::Tuple(vec![group([0, 1, 2]), group([3, 4, 5])]),
        );
        let Type::Tuple(ts) = std::mem::replace(&mut f.ret, Type::F64) else {
            unreachable!("fusion2 returns a tuple")
        };
        f.ret = Type::Tuple(vec![
            Type::Tuple(ts[..3].to_vec()),
            Type::Tuple(ts[3..].to_vec()),
        ]);
        Self::new(p, "fusion2")
    }

    /// `smvm(rows: [[(i64, f64)]], v: [f64]) -> [f64]`.
    ///
    /// ```
    /// use flatland_cli::{harness::dsl::{Dsl, csr_rows, f64s, floats}, io::Csr};
    /// let a = Csr::from_triplets(2, 2, vec![(0, 1, 2.0), (1, 0, 1.0)]);
    /// assert_eq!(f64s(&Dsl::smvm().run(vec![csr_rows(&a), floats(&[3.0, 4.0])])), vec![8.0, 3.0]);
    /// ```
    pub fn smvm() -> Self {
        Self::new(flatland_vectoriser::programs::smvm().0.ir().clone(), "smvm")
    }

    /// `primes(n: i64) -> [i64]`: the primes below `n` (NESL's sieve).
    ///
    /// ```
    /// use flatland_cli::harness::dsl::{Dsl, i64s, scalar};
    /// assert_eq!(i64s(&Dsl::primes().run(vec![scalar(12)])), vec![2, 3, 5, 7, 11]);
    /// ```
    pub fn primes() -> Self {
        Self::new(
            flatland_vectoriser::programs::primes().0.ir().clone(),
            "primes",
        )
    }

    /// `tree_lookup(table: [i64], xs: [i64]) -> [i64]` (recursive halving, table free).
    ///
    /// ```
    /// use flatland_cli::harness::dsl::{Dsl, i64s, ints};
    /// assert_eq!(i64s(&Dsl::tree_lookup().run(vec![ints(&[10, 20]), ints(&[1, 0, 1])])), vec![20, 10, 20]);
    /// ```
    pub fn tree_lookup() -> Self {
        Self::new(
            flatland_vectoriser::programs::tree_lookup().0.ir().clone(),
            "tree_lookup",
        )
    }

    /// `quicksort_f64(xs: [f64]) -> [f64]`: [`quicksort_f64`]'s program.
    ///
    /// ```
    /// use flatland_cli::harness::dsl::{Dsl, f64s, floats};
    /// assert_eq!(f64s(&Dsl::quicksort().run(vec![floats(&[3.0, -1.0, 2.0])])), vec![-1.0, 2.0, 3.0]);
    /// ```
    pub fn quicksort() -> Self {
        Self::new(quicksort_f64().0.ir().clone(), "quicksort_f64")
    }

    /// `hull(points: [(f64, f64)]) -> [(f64, f64)]` (NESL quickhull).
    ///
    /// ```
    /// use flatland_cli::harness::dsl::{Dsl, points, point_list};
    /// let h = point_list(&Dsl::quickhull().run(vec![points(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.1, 0.1)])]));
    /// assert_eq!(h.len(), 3);
    /// ```
    pub fn quickhull() -> Self {
        Self::new(
            flatland_vectoriser::programs::quickhull().0.ir().clone(),
            "hull",
        )
    }

    /// Runs the function flattened on one lane of arguments. Panics on an executor error: the
    /// harness only passes well-typed, in-range inputs, so an error is a bug to surface.
    ///
    /// ```
    /// use flatland_cli::harness::dsl::{Dsl, i64s, scalar};
    /// assert!(i64s(&Dsl::primes().run(vec![scalar(2)])).is_empty());
    /// ```
    pub fn run(&self, args: Vec<Arg>) -> Arg {
        self.prepared
            .run_args(args)
            .unwrap_or_else(|e| panic!("dsl {}: {e}", self.function))
    }
}

/// Quicksort of `f64` keys in the dsl, the program `flatland_cli::kernels::quicksort_f64` lowers to:
/// three filters around the middle element (`x < pivot`, `x == pivot`, `x > pivot`; stable; NaN
/// keys, in none of them, are lost), the outer two parts sorted by one recursive call
/// under `map`, the parts appended. (`flatland_vectoriser::programs::quicksort` is the `i64`
/// program, with a two-predicate filter whose third part is the rest.)
///
/// ```
/// let (p, f) = flatland_cli::harness::dsl::quicksort_f64();
/// assert_eq!(p.exec(&f, vec![0.5, -3.0, 0.5, 2.0]).unwrap(), vec![-3.0, 0.5, 0.5, 2.0]);
/// ```
pub fn quicksort_f64() -> (dsl::ProgramBuilder, Func<(Arr<f64>,), Arr<f64>>) {
    let mut p = dsl::ProgramBuilder::new();
    let f = p.function("quicksort_f64", ["xs"], |qs, xs: Ex<Arr<f64>>| {
        let sorted = let_(xs.at(xs.len() / 2), |pivot| {
            let lo = xs.filter(|x| x.lt(pivot.clone()));
            let eq = xs.filter(|x| x.equals(pivot.clone()));
            let hi = xs.filter(|x| x.gt(pivot));
            let outer = array(vec![lo, hi]).map(|part| qs.call(part));
            let_(outer, move |s| s.at(0).append(&eq).append(&s.at(1)))
        });
        if_(xs.len().le(1), xs.clone(), sorted)
    });
    (p, f)
}

/// One array argument (one lane) over `inner`'s lanes.
fn one_array(len: usize, inner: Arg) -> Arg {
    Arg::arrays(vec![len], inner).expect("the length is the lane count")
}

/// An `i64` scalar argument.
///
/// ```
/// use flatland_cli::harness::dsl::scalar;
/// let _n = scalar(10);
/// ```
pub fn scalar(n: i64) -> Arg {
    Arg::i64s(vec![n])
}

/// An array of `f64` argument.
///
/// ```
/// use flatland_cli::harness::dsl::floats;
/// let _xs = floats(&[1.5]);
/// ```
pub fn floats(xs: &[f64]) -> Arg {
    one_array(xs.len(), Arg::f64s(xs.to_vec()))
}

/// An array of `i64` argument.
///
/// ```
/// use flatland_cli::harness::dsl::{i64s, ints};
/// assert_eq!(i64s(&ints(&[-2])), vec![-2]);
/// ```
pub fn ints(xs: &[i64]) -> Arg {
    one_array(xs.len(), Arg::i64s(xs.to_vec()))
}

/// An array of `(f64, f64)` points argument.
///
/// ```
/// use flatland_cli::harness::dsl::{point_list, points};
/// assert_eq!(point_list(&points(&[(1.0, 2.0)])), vec![(1.0, 2.0)]);
/// ```
pub fn points(ps: &[(f64, f64)]) -> Arg {
    let xs = Arg::f64s(ps.iter().map(|p| p.0).collect());
    let ys = Arg::f64s(ps.iter().map(|p| p.1).collect());
    one_array(ps.len(), Arg::tuple(vec![xs, ys]).expect("equal lengths"))
}

/// The rows of a CSR matrix as one `[[(column, value)]]` argument (columns and values adopted as
/// flat columns, the row lengths as the descriptor).
///
/// ```
/// use flatland_cli::{harness::dsl::csr_rows, io::Csr};
/// let _rows = csr_rows(&Csr::from_triplets(2, 1, vec![(1, 0, 1.0)]));
/// ```
pub fn csr_rows(a: &Csr) -> Arg {
    let cols = Arg::i64s(a.indices().iter().map(|&c| c as i64).collect());
    let vals = Arg::f64s(a.values().to_vec());
    let entries = Arg::tuple(vec![cols, vals]).expect("one value per column index");
    let lengths = a.offsets().windows(2).map(|w| w[1] - w[0]).collect();
    let rows = Arg::arrays(lengths, entries).expect("row lengths add up to nnz");
    one_array(a.rows(), rows)
}

fn single<T>(lanes: Option<Vec<T>>) -> T {
    lanes
        .and_then(|v| v.into_iter().next())
        .expect("the program returns one lane of the expected type")
}

/// A returned array of `f64`.
///
/// ```
/// use flatland_cli::harness::dsl::{f64s, floats};
/// assert_eq!(f64s(&floats(&[0.5])), vec![0.5]);
/// ```
pub fn f64s(v: &Arg) -> Vec<f64> {
    single(<Arr<f64> as Ty>::from_lanes(v))
}

/// A returned array of `i64`.
///
/// ```
/// use flatland_cli::harness::dsl::{i64s, ints};
/// assert_eq!(i64s(&ints(&[1, 2])), vec![1, 2]);
/// ```
pub fn i64s(v: &Arg) -> Vec<i64> {
    single(<Arr<i64> as Ty>::from_lanes(v))
}

/// A returned array of points.
///
/// ```
/// use flatland_cli::harness::dsl::{point_list, points};
/// assert!(point_list(&points(&[])).is_empty());
/// ```
pub fn point_list(v: &Arg) -> Vec<(f64, f64)> {
    single(<Arr<(f64, f64)> as Ty>::from_lanes(v))
}

/// The regrouped results of [`Dsl::fusion2`]: `((s1, s2, s3), (x0, z2, y3))`.
///
/// ```
/// use flatland_cli::harness::dsl::{Dsl, floats, fusion2_parts};
/// let ((s1, s2, s3), _) = fusion2_parts(&Dsl::fusion2().run(vec![floats(&[])]));
/// assert_eq!((s1, s2, s3), (0.0, 1.0, f64::INFINITY));
/// ```
#[allow(clippy::type_complexity)]
pub fn fusion2_parts(v: &Arg) -> ((f64, f64, f64), (Vec<f64>, Vec<f64>, Vec<f64>)) {
    single(<((f64, f64, f64), (Arr<f64>, Arr<f64>, Arr<f64>)) as Ty>::from_lanes(v))
}

/// The four classes returned by [`Dsl::partition4`].
///
/// ```
/// use flatland_cli::harness::dsl::{Dsl, floats, partition4_parts};
/// assert!(partition4_parts(&Dsl::partition4().run(vec![floats(&[])])).iter().all(Vec::is_empty));
/// ```
pub fn partition4_parts(v: &Arg) -> [Vec<f64>; 4] {
    let (a, b, c, d) = single(<(Arr<f64>, Arr<f64>, Arr<f64>, Arr<f64>) as Ty>::from_lanes(v));
    [a, b, c, d]
}
