//! Flatland's runtime: element stores, the scheduler and cost model, flat and segmented bulk
//! primitives, the elementwise expression machine, regular (MoA) arrays and work counters.
//!
//! `docs/ARCHITECTURE.md` places it among the crates and lists the contracts it keeps (the
//! canonical association, arithmetic, memory, work counters). The runtime knows nothing of the vectoriser's IR: it offers bulk
//! operations over flat buffers and over nested arrays described by `flatland_segd` descriptors.

pub mod assoc;
pub mod budget;
pub mod cost;
pub mod elt;
pub mod error;
pub mod expr;
pub mod flat;
pub mod fused;
pub mod hint;
pub mod moa;
pub mod progress;
pub mod sched;
pub mod seg;
pub mod spare;
pub mod stats;

pub use error::{Error, OffsetsError, Result};
