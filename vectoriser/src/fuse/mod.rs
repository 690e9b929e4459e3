//! Fusion (DESIGN.md section 4, `fuse`; Futhark's T2 graph reduction after Henriksen and
//! Oancea, FHPC 2013): an IR → IR pass that removes the full-size temporaries between bulk
//! steps, and the single-pass kernel that runs the fused redomaps.
//!
//! - [`graph`](self) (module `graph`): let chains as dependency graphs, use counts;
//! - `rules`: map-map, map-reduce (redomap), map-redomap, vertical fusion through lets whose
//!   only user is the next node, horizontal fusion of reductions over one array into a
//!   tuple-valued redomap;
//! - `kernel`: a redomap whose operator is built in (or component-wise built in, from horizontal
//!   fusion) and whose map body is a scalar tree over its parameters, free scalars and gathers
//!   `v[i]` from free arrays runs in ONE pass: blocks of whole leaves are computed with the
//!   expression machine and folded straight into the canonical per-leaf accumulators
//!   ([`flatland_runtime::fused::fold_blocks`]); no array of mapped values is ever built.
//!
//! Every rule keeps the canonical association and the order of the lifted bulk steps, so fused
//! and unfused runs give the same bits, errors included (a kernel that meets an error falls back
//! to the unfused steps, which report it exactly as before).
//!
//! ```
//! use flatland_vectoriser::{exec, fuse, programs, value::Value};
//! let (p, f) = programs::sum_squares();
//! let fused = fuse::fuse(p.ir());
//! assert!(fused.to_string().contains("redomap("));
//! let xs = Value::array(vec![Value::F64(1.5), Value::F64(2.0)]);
//! let on = exec::run(p.ir(), f.name(), vec![xs.clone()]).unwrap();
//! let off = exec::run_with(p.ir(), f.name(), vec![xs], &exec::ExecOptions { fuse: false }).unwrap();
//! assert_eq!(on, off);
//! ```

mod graph;
pub(crate) mod kernel;
mod rules;

pub(crate) use rules::from_map;

use crate::ir::{Function, Program};

/// `p` with every fusion rule applied (see the module documentation).
///
/// ```
/// use flatland_vectoriser::{fuse, programs};
/// let (p, _) = programs::smvm();
/// assert!(fuse::fuse(p.ir()).to_string().contains("redomap(+"));
/// ```
pub fn fuse(p: &Program) -> Program {
    fuse_reporting(p).0
}

/// `p` fused, with the names of the rules applied, in order (`"map-map"`, `"map-reduce"`,
/// `"map-redomap"`, `"horizontal"`).
///
/// ```
/// use flatland_vectoriser::{fuse, programs};
/// let (p, _) = programs::dot();
/// assert_eq!(fuse::fuse_reporting(p.ir()).1, vec!["map-reduce"]);
/// ```
pub fn fuse_reporting(p: &Program) -> (Program, Vec<&'static str>) {
    let mut f = rules::Fuser::default();
    let functions = p
        .functions
        .iter()
        .map(|func| Function {
            body: f.expr(&func.body),
            ..func.clone()
        })
        .collect();
    (Program::new(functions), f.applied)
}
