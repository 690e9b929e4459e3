//! `map_reduce`: the einsum-like operation of the matrix dialect. Each input is read through an
//! index map (one index name per axis), every output element starts at `zero` and is combined
//! with the input elements at every point of the reduction indices, in lexicographic order of
//! those indices. `transpose`, `sum` and `matmul` are rewritten into it ([`transpose_mr`],
//! [`sum_mr`], [`matmul_mr`]).
//!
//! Lowering: the loop nest over output and reduction indices is ordered for contiguous access
//! (the index with the smallest total stride over all arrays innermost, then outward), keeping
//! the reduction indices in their given relative order so every output element sees its
//! elements in the specified order. When the outermost loop is the output's first axis and the
//! nest is large, that axis is lifted into blocks that own contiguous parts of the output and run
//! in parallel. Loops of zero extent run no iteration: an empty output is an empty array of its
//! shape, and an empty reduction leaves `zero`.

use std::ops::{Add, Mul};

use std::ops::Range;

use super::PAR_ELEMENTS;
use super::array::{Array, shape_error};
use super::buffer;
use super::lift::Lift;
use crate::{Error, Result, stats};

/// An einsum-style index map: the index names of every input's axes, of the output's axes, and
/// the reduction indices in the order they are folded (outermost first).
///
/// ```
/// use flatland_runtime::moa::Spec;
/// let mm = Spec::parse("ik,kj->ij").unwrap();
/// assert_eq!(mm.reduction(), "k");
/// assert!(Spec::parse("ij->ii").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    inputs: Vec<Vec<u8>>,
    output: Vec<u8>,
    reduce: Vec<u8>,
}

fn spec_error(detail: impl Into<String>) -> Error {
    Error::Invalid {
        op: "map_reduce",
        detail: detail.into(),
    }
}

fn names(s: &str) -> Result<Vec<u8>> {
    s.bytes()
        .map(|c| {
            if c.is_ascii_alphabetic() {
                Ok(c)
            } else {
                Err(spec_error(format!(
                    "index name {:?} in {s:?} is not an ASCII letter",
                    c as char
                )))
            }
        })
        .collect()
}

fn distinct(what: &str, xs: &[u8]) -> Result<()> {
    for (i, x) in xs.iter().enumerate() {
        if xs[..i].contains(x) {
            return Err(spec_error(format!(
                "index {} repeated in the {what}",
                *x as char
            )));
        }
    }
    Ok(())
}

impl Spec {
    /// A spec from the inputs' index names, the output's, and the reduction indices in fold
    /// order. Every index of an input must be an output or a reduction index, and every output
    /// and reduction index must appear in some input (its extent comes from there). An index
    /// repeated within one input reads a diagonal.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`](crate::Error::Invalid) for an index name that is not an ASCII letter, a repeated output or reduction index, an index both kept and reduced, an input index neither kept nor reduced, or an output or reduction index in no input.
    ///
    /// ```
    /// use flatland_runtime::moa::Spec;
    /// assert!(Spec::new(&["ij"], "", "ji").is_ok());
    /// assert!(Spec::new(&["ij"], "i", "").is_err()); // j is neither kept nor reduced
    /// assert!(Spec::new(&["i"], "ij", "").is_err()); // j has no extent
    /// ```
    pub fn new(inputs: &[&str], output: &str, reduce: &str) -> Result<Spec> {
        let inputs: Vec<Vec<u8>> = inputs.iter().map(|s| names(s)).collect::<Result<_>>()?;
        let (output, reduce) = (names(output)?, names(reduce)?);
        distinct("output", &output)?;
        distinct("reduction", &reduce)?;
        if let Some(x) = output.iter().find(|x| reduce.contains(x)) {
            return Err(spec_error(format!(
                "index {} is both kept and reduced",
                *x as char
            )));
        }
        for x in inputs.iter().flatten() {
            if !output.contains(x) && !reduce.contains(x) {
                return Err(spec_error(format!(
                    "input index {} is neither kept nor reduced",
                    *x as char
                )));
            }
        }
        for x in output.iter().chain(&reduce) {
            if !inputs.iter().flatten().any(|y| y == x) {
                return Err(spec_error(format!(
                    "index {} appears in no input",
                    *x as char
                )));
            }
        }
        Ok(Spec {
            inputs,
            output,
            reduce,
        })
    }

    /// Parses `"in1,in2,...->out"`; the reduction indices are the input indices missing from the
    /// output, in order of first appearance.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`](crate::Error::Invalid) for a string without `->` or a spec [`Spec::new`] rejects.
    ///
    /// ```
    /// use flatland_runtime::moa::Spec;
    /// assert_eq!(Spec::parse("ij->").unwrap().reduction(), "ij");
    /// assert_eq!(Spec::parse("ij->ji").unwrap().reduction(), "");
    /// assert!(Spec::parse("ij").is_err());
    /// ```
    pub fn parse(s: &str) -> Result<Spec> {
        let (ins, out) = s
            .split_once("->")
            .ok_or_else(|| spec_error(format!("{s:?} has no \"->\"")))?;
        let inputs: Vec<&str> = if ins.is_empty() {
            Vec::new()
        } else {
            ins.split(',').collect()
        };
        let mut reduce = String::new();
        for c in inputs.iter().flat_map(|s| s.chars()) {
            if !out.contains(c) && !reduce.contains(c) {
                reduce.push(c);
            }
        }
        Spec::new(&inputs, out, &reduce)
    }

    /// The reduction indices in fold order.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::moa::Spec::parse("ab,bc->ac").unwrap().reduction(), "b");
    /// ```
    pub fn reduction(&self) -> String {
        self.reduce.iter().map(|&c| c as char).collect()
    }

    /// The loop nest `map_reduce` runs for inputs of these shapes: index names from the outermost
    /// loop to the innermost.
    ///
    /// # Errors
    ///
    /// As [`map_reduce`] for shapes that do not fit the spec.
    ///
    /// ```
    /// use flatland_runtime::moa::Spec;
    /// let mm = Spec::parse("ik,kj->ij").unwrap();
    /// assert_eq!(mm.loop_order(&[&[3, 4], &[4, 5]]).unwrap(), "ikj"); // the MoA ONF order
    /// ```
    pub fn loop_order(&self, shapes: &[&[usize]]) -> Result<String> {
        Ok(self
            .lower(shapes)?
            .order
            .iter()
            .map(|&x| self.all()[x] as char)
            .collect())
    }

    /// Output indices then reduction indices; loop variables are positions in this list.
    fn all(&self) -> Vec<u8> {
        self.output.iter().chain(&self.reduce).copied().collect()
    }

    fn lower(&self, shapes: &[&[usize]]) -> Result<Nest> {
        if shapes.len() != self.inputs.len() {
            return Err(Error::LengthMismatch {
                op: "map_reduce",
                expected: self.inputs.len(),
                found: shapes.len(),
            });
        }
        let all = self.all();
        let mut extent: Vec<Option<usize>> = vec![None; all.len()];
        let mut strides = Vec::with_capacity(shapes.len() + 1);
        for (a, (names, shape)) in self.inputs.iter().zip(shapes).enumerate() {
            if names.len() != shape.len() {
                return Err(shape_error(
                    "map_reduce",
                    format!(
                        "input {a} has shape {shape:?} but {} index names",
                        names.len()
                    ),
                ));
            }
            let mut s = vec![0usize; all.len()];
            let mut stride = 1usize;
            for (&name, &n) in names.iter().zip(shape.iter()).rev() {
                let x = all
                    .iter()
                    .position(|&y| y == name)
                    .expect("validated by Spec::new");
                match extent[x] {
                    Some(e) if e != n => {
                        return Err(shape_error(
                            "map_reduce",
                            format!("index {} has extent {e} and {n} (input {a})", name as char),
                        ));
                    }
                    _ => extent[x] = Some(n),
                }
                s[x] += stride;
                stride *= n;
            }
            strides.push(s);
        }
        let extent: Vec<usize> = extent
            .into_iter()
            .map(|e| e.expect("validated by Spec::new"))
            .collect();
        let out_shape: Vec<usize> = extent[..self.output.len()].to_vec();
        let mut s = vec![0usize; all.len()];
        let mut stride = 1usize;
        for x in (0..self.output.len()).rev() {
            s[x] = stride;
            stride = stride.saturating_mul(extent[x]);
        }
        strides.push(s);
        // Innermost first: the eligible index with the smallest total stride. Reductions are
        // eligible only last-to-first, keeping their fold order.
        let mut left: Vec<usize> = (0..all.len()).collect();
        let mut inner_first = Vec::with_capacity(all.len());
        while !left.is_empty() {
            let last_reduction = left
                .iter()
                .copied()
                .filter(|&x| x >= self.output.len())
                .max();
            let best = left
                .iter()
                .copied()
                .filter(|&x| x < self.output.len() || Some(x) == last_reduction)
                .min_by_key(|&x| {
                    (
                        strides
                            .iter()
                            .map(|s| s[x])
                            .fold(0usize, usize::saturating_add),
                        x,
                    )
                })
                .expect("an output index or the last reduction is always eligible");
            left.retain(|&x| x != best);
            inner_first.push(best);
        }
        inner_first.reverse();
        Ok(Nest {
            order: inner_first,
            extent,
            strides,
            out_shape,
        })
    }
}

/// A lowered loop nest: loop variables outermost first, their extents, and per array (inputs,
/// then the output) the stride of every loop variable.
struct Nest {
    order: Vec<usize>,
    extent: Vec<usize>,
    strides: Vec<Vec<usize>>,
    out_shape: Vec<usize>,
}

/// Runs the einsum-like `map_reduce` of the matrix dialect: for every output index, `acc = zero`,
/// then `acc = combine(acc, elements)` for every point of the reduction indices in lexicographic
/// order, where `elements[a]` is input `a` at the current indices. See the module docs for the
/// loop order. Errors: input count, dimensionality or extents that do not fit the spec.
///
/// # Errors
///
/// [`Error::LengthMismatch`](crate::Error::LengthMismatch) for the wrong number of inputs, [`Error::Shape`](crate::Error::Shape) for an input whose dimensionality differs from its index names or an index with two different extents.
///
/// ```
/// use flatland_runtime::moa::{Array, Spec, iota, map_reduce};
/// let a = iota(6).reshape(&[2, 3]).unwrap();
/// // Row sums and a transpose.
/// let rows = map_reduce(&Spec::parse("ij->i").unwrap(), 0, |acc, e| acc + e[0], &[&a]).unwrap();
/// assert_eq!(rows.as_slice(), &[3, 12]);
/// let t = map_reduce(&Spec::parse("ij->ji").unwrap(), 0, |_, e| e[0], &[&a]).unwrap();
/// assert_eq!(t, a.transpose(&[1, 0]).unwrap());
/// // Zero-sized reduction: every output element stays `zero`.
/// let e = Array::<usize>::from_vec(vec![2, 0], vec![]).unwrap();
/// let z = map_reduce(&Spec::parse("ij->i").unwrap(), 7, |acc, e| acc + e[0], &[&e]).unwrap();
/// assert_eq!(z.as_slice(), &[7, 7]);
/// ```
pub fn map_reduce<T: Clone + Sync, A: Clone + Send>(
    spec: &Spec,
    zero: A,
    combine: impl Fn(A, &[T]) -> A + Sync,
    inputs: &[&Array<T>],
) -> Result<Array<A>> {
    let shapes: Vec<&[usize]> = inputs.iter().map(|a| a.shape()).collect();
    let nest = spec.lower(&shapes)?;
    let out_len = super::array::shape_size("map_reduce", &nest.out_shape)?;
    let mut out_buf = buffer::filled(out_len, &zero);
    let out = std::sync::Arc::get_mut(&mut out_buf).expect("a fresh buffer is unique");
    let points = nest
        .extent
        .iter()
        .try_fold(1usize, |acc, &e| acc.checked_mul(e));
    let points =
        points.ok_or_else(|| shape_error("map_reduce", "the iteration space overflows usize"))?;
    if points > 0 {
        let data: Vec<&[T]> = inputs.iter().map(|a| a.as_slice()).collect();
        match nest.order.first() {
            // The outermost loop runs over the output's first axis: lift it into blocks that own
            // contiguous parts of the output and run in parallel.
            Some(&0) if points >= PAR_ELEMENTS && nest.extent[0] > 1 => {
                let row = out_len / nest.extent[0];
                let lift = Lift::new(
                    nest.extent[0],
                    nest.extent[0].min(4 * rayon::current_num_threads()),
                )
                .expect("at least one block");
                lift.par_rows_mut(out, row, |range, block| {
                    run_nest(&nest, &data, &combine, block, range.start * row, range);
                })
                .expect("the output has extent[0] rows");
            }
            _ => {
                let all = 0..nest.order.first().map_or(1, |&x| nest.extent[x]);
                run_nest(&nest, &data, &combine, out, 0, all);
            }
        }
        stats::record_read((points * inputs.len()) as u64);
    }
    stats::record_written(out_len as u64);
    Ok(Array::from_arc(nest.out_shape, out_buf))
}

/// Runs the loop nest with the outermost loop restricted to `outer`, writing `out`, which holds
/// the output from element `out_base` on. Every extent is non-zero.
fn run_nest<T: Clone, A: Clone>(
    nest: &Nest,
    data: &[&[T]],
    combine: &impl Fn(A, &[T]) -> A,
    out: &mut [A],
    out_base: usize,
    outer: Range<usize>,
) {
    // Every extent is non-zero, so every input has an element 0.
    let mut elems: Vec<T> = data.iter().map(|d| d[0].clone()).collect();
    let depth = nest.order.len();
    let arrays = nest.strides.len();
    // Loop `level` runs over lo[level]..hi[level].
    let mut lo = vec![0usize; depth];
    let mut hi: Vec<usize> = nest.order.iter().map(|&x| nest.extent[x]).collect();
    if depth > 0 {
        (lo[0], hi[0]) = (outer.start, outer.end);
    }
    let mut offsets = vec![0usize; arrays];
    for (level, &x) in nest.order.iter().enumerate() {
        for (o, s) in offsets.iter_mut().zip(&nest.strides) {
            *o += lo[level] * s[x];
        }
    }
    offsets[arrays - 1] -= out_base;
    let mut counters = lo.clone();
    let (inner_len, inner_strides): (usize, Vec<usize>) = match nest.order.last() {
        Some(&x) => (
            hi[depth - 1] - lo[depth - 1],
            nest.strides.iter().map(|s| s[x]).collect(),
        ),
        None => (1, vec![0; arrays]),
    };
    loop {
        let mut off = offsets.clone();
        for _ in 0..inner_len {
            for (a, e) in elems.iter_mut().enumerate() {
                *e = data[a][off[a]].clone();
            }
            let o = &mut out[off[arrays - 1]];
            *o = combine(o.clone(), &elems);
            for (x, s) in off.iter_mut().zip(&inner_strides) {
                *x += s;
            }
        }
        // Odometer over the outer loops.
        let mut level = depth.saturating_sub(1);
        loop {
            if level == 0 {
                return;
            }
            level -= 1;
            let x = nest.order[level];
            counters[level] += 1;
            for (o, s) in offsets.iter_mut().zip(&nest.strides) {
                *o += s[x];
            }
            if counters[level] < hi[level] {
                break;
            }
            for (o, s) in offsets.iter_mut().zip(&nest.strides) {
                *o -= s[x] * (hi[level] - lo[level]);
            }
            counters[level] = lo[level];
        }
    }
}

/// The axis names `a, b, c, ...` of an array of dimensionality `d` (at most 52).
fn axis_names(op: &'static str, d: usize) -> Result<Vec<u8>> {
    let letters: Vec<u8> = (b'a'..=b'z').chain(b'A'..=b'Z').collect();
    if d > letters.len() {
        return Err(shape_error(
            op,
            format!(
                "dimensionality {d} exceeds the {} index names",
                letters.len()
            ),
        ));
    }
    Ok(letters[..d].to_vec())
}

fn as_str(names: &[u8]) -> &str {
    std::str::from_utf8(names).expect("ASCII letters")
}

/// Transpose rewritten into `map_reduce` (no reduction indices; the output names are the input's
/// permuted): agrees with [`Array::transpose`].
///
/// # Errors
///
/// [`Error::Shape`](crate::Error::Shape) when `perm` is not a permutation of the axes or there are more than 52 axes.
///
/// ```
/// use flatland_runtime::moa::{iota, transpose_mr};
/// let a = iota(24).reshape(&[2, 3, 4]).unwrap();
/// assert_eq!(transpose_mr(&a, &[2, 0, 1]).unwrap(), a.transpose(&[2, 0, 1]).unwrap());
/// ```
pub fn transpose_mr<T: Clone + Default + Send + Sync>(
    a: &Array<T>,
    perm: &[usize],
) -> Result<Array<T>> {
    let input = axis_names("transpose_mr", a.dim())?;
    let d = a.dim();
    let mut seen = vec![false; d];
    if perm.len() != d
        || !perm
            .iter()
            .all(|&p| p < d && !std::mem::replace(&mut seen[p], true))
    {
        return Err(shape_error(
            "transpose_mr",
            format!("{perm:?} is not a permutation of 0..{d}"),
        ));
    }
    let output: Vec<u8> = perm.iter().map(|&p| input[p]).collect();
    let spec = Spec::new(&[as_str(&input)], as_str(&output), "")?;
    map_reduce(&spec, T::default(), |_, e| e[0].clone(), &[a])
}

/// The sum of all elements rewritten into `map_reduce` (every axis a reduction index, a scalar
/// result): folds left to right in row-major order, `zero + x0 + x1 + ...`. It agrees exactly
/// with [`Array::reduce`] applied to every axis for exact arithmetic (integers); for floats the
/// direct reduction uses the canonical association instead of this left fold.
///
/// # Errors
///
/// [`Error::Shape`](crate::Error::Shape) for more than 52 axes.
///
/// ```
/// use flatland_runtime::moa::{iota, sum_mr};
/// let a = iota(24).reshape(&[2, 3, 4]).unwrap();
/// assert_eq!(sum_mr(&a).unwrap().as_slice(), &[276]);
/// ```
pub fn sum_mr<T: Clone + Default + Add<Output = T> + Send + Sync>(
    a: &Array<T>,
) -> Result<Array<T>> {
    let input = axis_names("sum_mr", a.dim())?;
    let spec = Spec::new(&[as_str(&input)], "", as_str(&input))?;
    map_reduce(&spec, T::default(), |acc, e| acc + e[0].clone(), &[a])
}

/// The matrix product rewritten into `map_reduce` (`ik,kj->ij`, lowered to the `i, k, j` loop
/// order): agrees with [`matmul`](super::matmul) for exact arithmetic.
///
/// # Errors
///
/// [`Error::Shape`](crate::Error::Shape) unless both arguments are matrices with matching inner extents.
///
/// ```
/// use flatland_runtime::moa::{iota, matmul, matmul_mr};
/// let a = iota(12).reshape(&[3, 4]).unwrap();
/// let b = iota(12).reshape(&[4, 3]).unwrap();
/// assert_eq!(matmul_mr(&a, &b).unwrap(), matmul(&a, &b).unwrap());
/// assert!(matmul_mr(&a, &a).is_err());
/// ```
pub fn matmul_mr<T: Clone + Default + Add<Output = T> + Mul<Output = T> + Send + Sync>(
    a: &Array<T>,
    b: &Array<T>,
) -> Result<Array<T>> {
    let spec = Spec::new(&["ik", "kj"], "ij", "k")?;
    map_reduce(
        &spec,
        T::default(),
        |acc, e| acc + e[0].clone() * e[1].clone(),
        &[a, b],
    )
}
