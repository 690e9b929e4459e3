//! The program builder: functions of any arity with named parameters, defined from closures,
//! evaluated, or prepared once (checked, fused, analysed) and run many times.

use super::{Ex, Ty};
use crate::error::{Error, Result};
use crate::eval;
use crate::exec::{self, Arg, ExecOptions};
use crate::ir::{self, Expr, Function, Type};
use crate::value::Value;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

/// The parameters of a function: a tuple of dsl types, `(A,)` to `(A, B, C, D, E, F)`.
///
/// A one-parameter function takes and returns plain values (`Ex<A>`, `A::Rust`), a function of
/// more parameters tuples of them.
///
/// ```
/// use flatland_vectoriser::dsl::{Arr, Params};
/// assert_eq!(<(i64, Arr<f64>) as Params>::types().len(), 2);
/// ```
pub trait Params: 'static {
    /// The parameters' names, one per parameter.
    type Names;
    /// The handles a function's body receives (`Ex<A>`, or a tuple of handles).
    type Exs;
    /// The Rust values of the arguments (`A::Rust`, or a tuple of them).
    type Rust;
    /// The IR types of the parameters.
    fn types() -> Vec<Type>;
    /// The names as strings.
    fn names(names: Self::Names) -> Vec<String>;
    /// The argument expressions of a call.
    fn exprs(args: Self::Exs) -> Vec<Expr>;
    /// The arguments as values of the reference interpreter.
    fn values(args: Self::Rust) -> Vec<Value>;
    /// The arguments in the executor's columnar form (one lane each).
    fn lanes(args: Self::Rust) -> Vec<Arg>;
}

impl<A: Ty> Params for (A,) {
    type Names = [&'static str; 1];
    type Exs = Ex<A>;
    type Rust = A::Rust;
    fn types() -> Vec<Type> {
        vec![A::ty()]
    }
    fn names(names: Self::Names) -> Vec<String> {
        names.iter().map(|n| (*n).to_string()).collect()
    }
    fn exprs(args: Ex<A>) -> Vec<Expr> {
        vec![args.e]
    }
    fn values(args: A::Rust) -> Vec<Value> {
        vec![A::to_value(args)]
    }
    fn lanes(args: A::Rust) -> Vec<Arg> {
        vec![A::to_lanes(vec![args])]
    }
}

macro_rules! params_of {
    ($n:literal: $($a:ident $i:tt),*) => {
        impl<$($a: Ty),*> Params for ($($a,)*) {
            type Names = [&'static str; $n];
            type Exs = ($(Ex<$a>,)*);
            type Rust = ($($a::Rust,)*);
            fn types() -> Vec<Type> {
                vec![$($a::ty()),*]
            }
            fn names(names: Self::Names) -> Vec<String> {
                names.iter().map(|n| (*n).to_string()).collect()
            }
            fn exprs(args: Self::Exs) -> Vec<Expr> {
                vec![$(args.$i.e),*]
            }
            fn values(args: Self::Rust) -> Vec<Value> {
                vec![$($a::to_value(args.$i)),*]
            }
            fn lanes(args: Self::Rust) -> Vec<Arg> {
                vec![$($a::to_lanes(vec![args.$i])),*]
            }
        }
    };
}
/// The handles a function's body receives: `Ex<A>`, or a tuple of handles; the closure's
/// annotation of them says the function's parameter types.
///
/// ```
/// use flatland_vectoriser::dsl::{Ex, Handles};
/// let _: fn(&[String]) -> (Ex<i64>, Ex<f64>) = <(Ex<i64>, Ex<f64>) as Handles>::make;
/// ```
pub trait Handles: Sized {
    /// The parameter types.
    type Params: Params<Exs = Self>;
    /// Handles naming the parameters.
    fn make(names: &[String]) -> Self;
}

impl<A: Ty> Handles for Ex<A> {
    type Params = (A,);
    fn make(names: &[String]) -> Ex<A> {
        Ex::wrap(Expr::var(&names[0]))
    }
}

macro_rules! params {
    ($n:literal: $($a:ident $i:tt),*) => {
        params_of!($n: $($a $i),*);
        impl<$($a: Ty),*> Handles for ($(Ex<$a>,)*) {
            type Params = ($($a,)*);
            fn make(names: &[String]) -> Self {
                ($(Ex::wrap(Expr::var(&names[$i])),)*)
            }
        }
    };
}
params!(2: A 0, B 1);
params!(3: A 0, B 1, C 2);
params!(4: A 0, B 1, C 2, D 3);
params!(5: A 0, B 1, C 2, D 3, E 4);
params!(6: A 0, B 1, C 2, D 3, E 4, F 5);

/// The identities of programs: every [`ProgramBuilder`] gets its own.
static PROGRAMS: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The programs whose function bodies are being built on this thread, innermost last, and
    /// the calls of other programs' functions those bodies made.
    static BUILDING: RefCell<Vec<(u64, Vec<String>)>> = const { RefCell::new(Vec::new()) };
}

/// A handle on a function of a [`ProgramBuilder`], tied to it: running or calling it from another
/// program is an error naming the function.
///
/// ```
/// use flatland_vectoriser::dsl::{Ex, ProgramBuilder};
/// let mut p = ProgramBuilder::new();
/// let add = p.function("add", ["a", "b"], |_, (a, b): (Ex<i64>, Ex<i64>)| &a + &b);
/// assert_eq!(p.eval(&add, (1, 2)).unwrap(), 3);
/// assert_eq!(add.name(), "add");
/// ```
pub struct Func<P: Params, R> {
    name: String,
    program: u64,
    _t: PhantomData<fn(P) -> R>,
}

impl<P: Params, R> Func<P, R> {
    /// A call of the function (in the body of a function of the same program).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Ex, ProgramBuilder};
    /// let mut p = ProgramBuilder::new();
    /// let inc = p.function("inc", ["x"], |_, x: Ex<i64>| x + 1);
    /// let twice = p.function("twice", ["x"], |_, x: Ex<i64>| inc.call(inc.call(x)));
    /// assert_eq!(p.exec(&twice, 40).unwrap(), 42);
    /// ```
    pub fn call(&self, args: P::Exs) -> Ex<R> {
        BUILDING.with(|b| {
            if let Some((program, foreign)) = b.borrow_mut().last_mut()
                && *program != self.program
            {
                foreign.push(self.name.clone());
            }
        });
        Ex::wrap(Expr::call(&self.name, P::exprs(args)))
    }

    /// The function's name.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Ex, ProgramBuilder};
    /// let mut p = ProgramBuilder::new();
    /// assert_eq!(p.function("f", ["x"], |_, x: Ex<i64>| x).name(), "f");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A function prepared once by [`ProgramBuilder::prepare`] (checked, fused, typed, last uses analysed)
/// and run any number of times: a run converts its arguments and runs the flattened executor,
/// and re-checks or re-fuses nothing (`runtime::stats::Work::programs_prepared` stays where it
/// was).
///
/// ```
/// use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
/// let mut p = ProgramBuilder::new();
/// let dot = p.function("dot", ["xs", "ys"], |_, (xs, ys): (Ex<Arr<f64>>, Ex<Arr<f64>>)| {
///     xs.zip_map(&ys, |x, y| &x * &y).sum()
/// });
/// let dot = p.prepare(&dot).unwrap();
/// for k in 0..3 {
///     assert_eq!(dot.call((vec![1.0, 2.0], vec![k as f64, 1.0])).unwrap(), k as f64 + 2.0);
/// }
/// ```
pub struct Prepared<P: Params, R> {
    prepared: exec::Prepared,
    name: String,
    _t: PhantomData<fn(P) -> R>,
}

impl<P: Params, R: Ty> Prepared<P, R> {
    /// Runs the function on one value per parameter.
    ///
    /// # Errors
    /// A runtime error naming the operation and lane, or an argument that does not fit its
    /// parameter (named).
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
    /// let mut p = ProgramBuilder::new();
    /// let at = p.function("at", ["xs", "i"], |_, (xs, i): (Ex<Arr<i64>>, Ex<i64>)| xs.at(i));
    /// let at = p.prepare(&at).unwrap();
    /// assert_eq!(at.call((vec![5, 6], 1)).unwrap(), 6);
    /// assert!(at.call((vec![5, 6], 2)).unwrap_err().to_string().contains("lane 0"));
    /// ```
    pub fn call(&self, args: P::Rust) -> Result<R::Rust> {
        let out = self.prepared.run_args(P::lanes(args))?;
        result::<R>(&self.name, R::into_lanes(out).and_then(|mut v| v.pop()))
    }
}

fn result<R: Ty>(name: &str, out: Option<R::Rust>) -> Result<R::Rust> {
    out.ok_or_else(|| Error::Input {
        detail: format!("`{name}` returned a value not of type {}", R::ty()),
    })
}

/// A program under construction: functions defined from closures (a function may call itself
/// through the handle its closure receives, and any function defined before it).
///
/// ```
/// use flatland_vectoriser::dsl::{if_, Ex, ProgramBuilder};
/// let mut p = ProgramBuilder::new();
/// let fact = p.function("fact", ["n"], |fact, n: Ex<i64>| if_(n.le(1), 1, &n * fact.call(&n - 1)));
/// assert_eq!(p.eval(&fact, 10).unwrap(), 3_628_800);
/// ```
pub struct ProgramBuilder {
    ir: ir::Program,
    id: u64,
    /// What is wrong with the functions defined so far (reported by every run).
    defects: Vec<String>,
}

impl Default for ProgramBuilder {
    fn default() -> ProgramBuilder {
        ProgramBuilder {
            ir: ir::Program::default(),
            id: PROGRAMS.fetch_add(1, Ordering::Relaxed),
            defects: Vec::new(),
        }
    }
}

impl ProgramBuilder {
    /// An empty program.
    ///
    /// ```
    /// assert!(flatland_vectoriser::dsl::ProgramBuilder::new().ir().functions.is_empty());
    /// ```
    pub fn new() -> ProgramBuilder {
        ProgramBuilder::default()
    }

    /// The IR built so far.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Ex, ProgramBuilder};
    /// let mut p = ProgramBuilder::new();
    /// p.function("id", ["v"], |_, v: Ex<f64>| v);
    /// assert_eq!(p.ir().to_string(), "fn id(v: f64) -> f64 =\n  v\n");
    /// ```
    pub fn ir(&self) -> &ir::Program {
        &self.ir
    }

    /// Defines a function with parameters named `names` (which errors about its arguments
    /// name); `body` receives the function's own handle (for recursion) and the parameters'.
    ///
    /// Two parameters of one name, a second function of one name, or a call of another
    /// program's function make every later run of the program an error saying so.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
    /// let mut p = ProgramBuilder::new();
    /// let scale = p.function("scale", ["xs", "k"], |_, (xs, k): (Ex<Arr<f64>>, Ex<f64>)| {
    ///     xs.map(|x| &x * &k)
    /// });
    /// assert_eq!(p.exec(&scale, (vec![1.0, 2.0], 3.0)).unwrap(), vec![3.0, 6.0]);
    /// let e = p.exec(&scale, (vec![1.0], f64::NAN)).map(|v| v[0].is_nan());
    /// assert_eq!(e, Ok(true));
    /// ```
    pub fn function<H: Handles, R: Ty>(
        &mut self,
        name: &str,
        names: <H::Params as Params>::Names,
        body: impl FnOnce(&Func<H::Params, R>, H) -> Ex<R>,
    ) -> Func<H::Params, R> {
        let f = Func {
            name: name.to_string(),
            program: self.id,
            _t: PhantomData,
        };
        let names = <H::Params as Params>::names(names);
        for (k, n) in names.iter().enumerate() {
            if names[..k].contains(n) {
                self.defects
                    .push(format!("`{name}` has two parameters named `{n}`"));
            }
        }
        if self.ir.function(name).is_some() {
            self.defects
                .push(format!("the program defines `{name}` twice"));
        }
        BUILDING.with(|b| b.borrow_mut().push((self.id, Vec::new())));
        let b = body(&f, H::make(&names));
        let foreign = BUILDING.with(|b| b.borrow_mut().pop().map(|(_, f)| f).unwrap_or_default());
        for g in foreign {
            self.defects.push(format!(
                "the body of `{name}` calls `{g}`, a function of another program"
            ));
        }
        let params = names.into_iter().zip(H::Params::types()).collect();
        self.ir
            .functions
            .push(Function::new(name, params, R::ty(), b.e));
        f
    }

    /// The program's defects and whether `f` is one of its functions.
    fn own<P: Params, R>(&self, f: &Func<P, R>) -> Result<()> {
        if f.program != self.id {
            return Err(Error::Input {
                detail: format!("`{}` is a function of another program", f.name),
            });
        }
        match self.defects.first() {
            Some(d) => Err(Error::Input { detail: d.clone() }),
            None => Ok(()),
        }
    }

    /// Checks and fuses the program once and prepares `f` to run many times
    /// ([`Prepared::call`]).
    ///
    /// # Errors
    /// A type error in the program, a defect of its definition (see [`ProgramBuilder::function`]), or
    /// `f` a function of another program.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Ex, ProgramBuilder};
    /// let mut p = ProgramBuilder::new();
    /// let mut q = ProgramBuilder::new();
    /// let f = q.function("f", ["x"], |_, x: Ex<i64>| x);
    /// let e = p.prepare(&f).err().unwrap();
    /// assert_eq!(e.to_string(), "bad input: `f` is a function of another program");
    /// ```
    pub fn prepare<P: Params, R: Ty>(&self, f: &Func<P, R>) -> Result<Prepared<P, R>> {
        self.own(f)?;
        Ok(Prepared {
            prepared: exec::Prepared::new(&self.ir, &f.name, &ExecOptions::default())?,
            name: f.name.clone(),
            _t: PhantomData,
        })
    }

    /// Prepares `f` and runs it once flattened ([`crate::exec`]); to run it many times,
    /// [`ProgramBuilder::prepare`] it once.
    ///
    /// # Errors
    /// As [`ProgramBuilder::prepare`] and [`Prepared::call`].
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
    /// let mut p = ProgramBuilder::new();
    /// let sq = p.function("sq", ["xs"], |_, xs: Ex<Arr<i64>>| xs.map(|x| &x * &x).sum());
    /// assert_eq!(p.exec(&sq, vec![1, 2, 3]).unwrap(), 14);
    /// ```
    pub fn exec<P: Params, R: Ty>(&self, f: &Func<P, R>, args: P::Rust) -> Result<R::Rust> {
        self.prepare(f)?.call(args)
    }

    /// Evaluates `f` with the reference interpreter.
    ///
    /// # Errors
    /// As [`ProgramBuilder::prepare`], and a runtime error naming the operation and lane.
    ///
    /// ```
    /// use flatland_vectoriser::dsl::{Arr, Ex, ProgramBuilder};
    /// let mut p = ProgramBuilder::new();
    /// let at = p.function("at", ["xs", "i"], |_, (xs, i): (Ex<Arr<i64>>, Ex<i64>)| xs.at(i));
    /// assert_eq!(p.eval(&at, (vec![5, 6], 1)).unwrap(), 6);
    /// assert!(p.eval(&at, (vec![5, 6], 2)).is_err());
    /// ```
    pub fn eval<P: Params, R: Ty>(&self, f: &Func<P, R>, args: P::Rust) -> Result<R::Rust> {
        self.own(f)?;
        let v = eval::run(&self.ir, &f.name, P::values(args))?;
        result::<R>(&f.name, R::from_value(v))
    }
}
