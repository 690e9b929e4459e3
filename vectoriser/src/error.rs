//! The vectoriser's error type: type errors (naming the node) and runtime errors (naming the
//! operation and the lane, converted from [`flatland_runtime::Error`]).
//!
//! ```
//! use flatland_vectoriser::Error;
//! let e = Error::Type { function: "main".into(), node: "x[1.0]".into(), detail: "index must be i64, found f64".into() };
//! assert_eq!(e.to_string(), "type error in `main` at `x[1.0]`: index must be i64, found f64");
//! ```

use std::fmt;

/// What went wrong while checking or running a program.
///
/// ```
/// use flatland_vectoriser::Error;
/// let e = Error::from(flatland_runtime::Error::DivisionByZero { op: "/", lane: 3 });
/// assert_eq!(e.to_string(), "/: lane 3: division by zero");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// An ill-typed or ill-formed program.
    Type {
        /// The function holding the node.
        function: String,
        /// The offending node, pretty-printed (shortened when long).
        node: String,
        /// What is wrong.
        detail: String,
    },
    /// An error while running a program: the operation and the lane (position in the innermost
    /// enclosing `map`, 0 outside any map).
    Runtime(flatland_runtime::Error),
    /// Inputs that do not fit the function's parameters.
    Input {
        /// What is wrong.
        detail: String,
    },
    /// A call that would nest deeper than the recursion depth limit ([`crate::limits`]): the
    /// same error, fields included, from the reference interpreter, the executor and the code
    /// `#[vectorise]` generates.
    ///
    /// ```
    /// use flatland_vectoriser::Error;
    /// let e = Error::RecursionLimit { function: "f".into(), depth: 11, limit: 10 };
    /// assert!(e.to_string().starts_with("recursion limit: a call of `f` at depth 11 goes past the limit of 10 levels"));
    /// ```
    RecursionLimit {
        /// The function called.
        function: String,
        /// The depth the call would have had (the entry function is at depth 1): `limit + 1`.
        depth: usize,
        /// The limit in force for the run.
        limit: usize,
    },
    /// A value that does not fit the narrow Rust type (`u32`, `i32`, `usize`, `f32`) of a
    /// function's parameter or result ([`crate::boundary`]).
    ///
    /// ```
    /// use flatland_vectoriser::Error;
    /// let e = Error::DoesNotFit { place: "the result of `f`".into(), index: Box::new([2]), value: "-1".into(), ty: "usize" };
    /// assert_eq!(e.to_string(), "the result of `f`: the value -1 at [2] does not fit in usize");
    /// ```
    ///
    /// Its fields are boxed slices so that the error (in every `Result` of the executor's deep
    /// recursion) stays as small as it was without them.
    DoesNotFit {
        /// The argument (`argument `xs` of `f``) or the result.
        place: Box<str>,
        /// Where in it: one position per level of `Vec`s (outermost first); for a `Nested`
        /// array, the position among its stored elements; empty for a scalar.
        index: Box<[usize]>,
        /// The value, printed.
        value: Box<str>,
        /// The narrow type.
        ty: &'static str,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Type {
                function,
                node,
                detail,
            } => write!(f, "type error in `{function}` at `{node}`: {detail}"),
            Error::Runtime(e) => write!(f, "{e}"),
            Error::Input { detail } => write!(f, "bad input: {detail}"),
            Error::RecursionLimit {
                function,
                depth,
                limit,
            } => write!(
                f,
                "recursion limit: a call of `{function}` at depth {depth} goes past the limit of \
                 {limit} levels (flatland_vectoriser::limits::set_max_recursion_depth)"
            ),
            Error::DoesNotFit {
                place,
                index,
                value,
                ty,
            } => {
                write!(f, "{place}: the value {value} ")?;
                if !index.is_empty() {
                    write!(f, "at ")?;
                    for i in index {
                        write!(f, "[{i}]")?;
                    }
                    write!(f, " ")?;
                }
                write!(f, "does not fit in {ty}")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Runtime(e) => Some(e),
            _ => None,
        }
    }
}

impl From<flatland_runtime::Error> for Error {
    fn from(e: flatland_runtime::Error) -> Self {
        Error::Runtime(e)
    }
}

impl From<flatland_segd::Error> for Error {
    /// A descriptor error, through the runtime's ([`flatland_runtime::Error::Segd`]).
    fn from(e: flatland_segd::Error) -> Self {
        Error::Runtime(e.into())
    }
}

/// The vectoriser's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::Error;

    /// Every `Result` of the executor's and the interpreter's recursion carries an `Error`: a
    /// variant that grew it would deepen every frame (the fuzz corpus's deepest programs run
    /// near a debug test thread's stack). `Type`'s three strings are the largest payload.
    #[test]
    fn the_error_is_no_larger_than_three_strings_and_a_tag() {
        assert!(
            size_of::<Error>() <= 3 * size_of::<String>() + 8,
            "{} bytes",
            size_of::<Error>()
        );
    }
}
