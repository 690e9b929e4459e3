//! Regular arrays: the Mathematics of Arrays (MoA), the einsum-like `map_reduce` of the matrix
//! dialect, and dimension lifting.
//!
//! An [`Array`] is a shape and a row-major content list, exactly the operational definition of
//! the MoA paper (Mullin et al., "Array Algebra and Cost Functions"). The operators follow the
//! paper's operational semantics, limit cases included:
//!
//! | MoA | here |
//! | --- | --- |
//! | `ρ ξ`, `δ ξ`, `τ ξ` | [`Array::rho`] / [`Array::shape`], [`Array::dim`], [`Array::size`] |
//! | `ι σ`, `ι v` | [`iota`], [`iota_shape`], [`iota_of`] |
//! | `i Ψ ξ` | [`Array::psi`] (short index vectors), [`Array::psi_array`] (arrays of them) |
//! | `s ↑ ξ`, `s ↓ ξ` | [`Array::take`], [`Array::drop`] |
//! | `rav ξ`, `γ_row`, `γ_col` | [`Array::rav`], [`gamma_row`], [`gamma_col`] |
//! | `ρ' ρ̂ ξ` | [`Array::reshape`] (cyclic fill) |
//! | `red_⊕ ξ` | [`Array::reduce`], [`Array::reduce_axis`] |
//! | transpose | [`Array::transpose`] |
//! | scalar extension | [`Array::map`], [`Array::zip_with`] |
//! | outer / inner product | [`Array::outer`], [`Array::inner`], [`matmul`] |
//! | nested view (regular `Segd`s, no copy) | [`Array::segd_view`], [`Array::segd_levels`], [`Array::from_segd_levels`] |
//! | dimension lifting | [`Lift`], [`Array::lift`] |
//! | lazy elementwise `+ - * /`, comparisons, select | [`ArrayExpr`], [`lazy`], [`select`] |
//! | einsum (matrix dialect) | [`map_reduce`], [`Spec`]; rewrites [`transpose_mr`], [`sum_mr`], [`matmul_mr`] |
//!
//! ```
//! use flatland_runtime::moa::{iota, iota_shape, matmul};
//! let a = iota(12).map(|&x| x as f64).reshape(&[3, 4]).unwrap();
//! let b = iota(12).map(|&x| x as f64 + 12.0).reshape(&[4, 3]).unwrap();
//! let c = matmul(&a, &b).unwrap();
//! assert_eq!(c.psi(&[0]).unwrap().as_slice(), &[114.0, 120.0, 126.0]);
//! // Theorem 1: (ι (ρ ξ)) Ψ ξ = ξ.
//! assert_eq!(c.psi_array(&iota_shape(c.shape()).unwrap()).unwrap(), c);
//! ```

/// Element counts at or above this run in parallel (building a buffer, scalar extension, the
/// reductions and `map_reduce`).
const PAR_ELEMENTS: usize = 1 << 15;

mod array;
mod buffer;
mod index;
mod lazy;
mod lift;
mod map_reduce;
mod nested;
mod ops;
mod products;
mod psi;
mod reduce;
mod reshape;

pub use array::Array;
pub use index::{gamma_col, gamma_row, gamma_row_inverse, iota, iota_of, iota_shape};
#[doc(hidden)]
pub use lazy::Leaf;
pub use lazy::{ArrayExpr, Elem, IntoArrayExpr, Num, is_lazy, lazy, select};
pub use lift::Lift;
pub use map_reduce::{Spec, map_reduce, matmul_mr, sum_mr, transpose_mr};
pub use products::matmul;

#[cfg(test)]
mod tests;
