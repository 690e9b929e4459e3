//! The context of a lifted evaluation ([`Ctx`]): how many lanes, each lane's position in its
//! innermost map (kept unresolved until an error names a lane), and the fault a step met while
//! it unwinds ([`Fault`]; how faults are settled is module `errors`). Runtime errors raised over a context's lanes are renamed to the interpreter's
//! lanes here.
//!
//! Cost: entering, packing or gathering a context is O(lanes picked); naming a lane is a search
//! in its segments, paid only for an error.

use crate::error::Error;
use flatland_runtime::Error as RtError;
use flatland_segd::Segd;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// Each lane's position in its innermost map (only read to name lanes in errors, so nothing
/// per lane is computed until an error needs it).
#[derive(Clone, Debug)]
enum Lanes {
    /// Listed.
    Ids(Arc<Vec<usize>>),
    /// The lanes are the elements of these segments: a lane's position is its offset in its
    /// segment (computed on demand, so entering a map costs no per-lane work).
    Local(Segd),
    /// Lane `i` is element `idx[i]` of these segments (a subset of a [`Lanes::Local`] context,
    /// kept unresolved: resolving would search the segments once per lane).
    Picked(Segd, Arc<Vec<usize>>),
}

impl Lanes {
    pub(super) fn get(&self, i: usize) -> usize {
        let local = |s: &Segd, e: usize| s.try_segment_of_element(e).map_or(e, |(_, off)| off);
        match self {
            Lanes::Ids(v) => v.get(i).copied().unwrap_or(i),
            Lanes::Local(s) => local(s, i),
            Lanes::Picked(s, idx) => idx.get(i).map_or(i, |&e| local(s, e)),
        }
    }

    /// The lanes `idx` of these, in that order: O(`idx`), with no search.
    pub(super) fn gather(&self, idx: &[usize]) -> Lanes {
        let pick = |v: &[usize]| {
            idx.iter()
                .map(|&i| v.get(i).copied().unwrap_or(i))
                .collect()
        };
        match self {
            Lanes::Ids(v) => Lanes::Ids(Arc::new(pick(v))),
            Lanes::Local(s) => Lanes::Picked(s.clone(), Arc::new(idx.to_vec())),
            Lanes::Picked(s, v) => Lanes::Picked(s.clone(), Arc::new(pick(v))),
        }
    }
}

/// The lanes of a lifted evaluation: how many, and each one's position in its innermost map.
#[derive(Clone, Debug)]
pub(crate) struct Ctx {
    pub(super) n: usize,
    lanes: Lanes,
    /// The runtime error a step over these lanes met, while it unwinds ([`Fault`]).
    pub(super) fault: Rc<RefCell<Option<Fault>>>,
}

impl Ctx {
    /// The top-level context: one lane, lane 0.
    pub(crate) fn top() -> Ctx {
        Ctx {
            n: 1,
            lanes: Lanes::Ids(Arc::new(vec![0])),
            fault: Rc::default(),
        }
    }

    /// The context whose lanes are the elements of `segd`'s segments.
    pub(super) fn inner(segd: &Segd) -> Ctx {
        Ctx {
            n: segd.elements(),
            lanes: Lanes::Local(segd.clone()),
            fault: Rc::default(),
        }
    }

    pub(super) fn gather(&self, idx: &[usize]) -> Ctx {
        Ctx {
            n: idx.len(),
            lanes: self.lanes.gather(idx),
            fault: Rc::default(),
        }
    }

    pub(super) fn lane(&self, i: usize) -> usize {
        self.lanes.get(i)
    }

    /// Rewrites the lane of a runtime error raised by a primitive over this context's lanes
    /// (the lowest failing lane of its step), and keeps that lane for the error's way up.
    pub(super) fn fix(&self, e: RtError) -> Error {
        let lane = match &e {
            RtError::IndexOutOfRange { lane, .. }
            | RtError::DivisionByZero { lane, .. }
            | RtError::Domain { lane, .. }
            | RtError::ClassOutOfRange { lane, .. } => Some(*lane),
            _ => None,
        };
        let err = self.rename(e);
        match lane {
            Some(l) => self.fail(l, err),
            None => err,
        }
    }

    fn rename(&self, e: RtError) -> Error {
        let map = |l: usize| self.lanes.get(l);
        Error::Runtime(match e {
            RtError::IndexOutOfRange {
                op,
                lane,
                index,
                len,
            } => {
                let op = if op.starts_with("index_l") || op == "gather" {
                    "index"
                } else {
                    op
                };
                RtError::IndexOutOfRange {
                    op,
                    lane: map(lane),
                    index,
                    len,
                }
            }
            RtError::DivisionByZero { op, lane } => RtError::DivisionByZero {
                op,
                lane: map(lane),
            },
            RtError::Domain { op, lane, detail } => RtError::Domain {
                op,
                lane: map(lane),
                detail,
            },
            RtError::ClassOutOfRange {
                op,
                lane,
                class,
                classes,
            } => RtError::ClassOutOfRange {
                op,
                lane: map(lane),
                class,
                classes,
            },
            other => other,
        })
    }
}

/// A runtime error on its way up, as known by the node returning it.
#[derive(Clone, Debug)]
pub(crate) struct Fault {
    /// The error.
    pub(super) err: Error,
    /// A failing lane of the context (`None`: not known).
    pub(super) lane: Option<usize>,
    /// `err` is the interpreter's first error at `lane`.
    pub(super) exact: bool,
    /// No lane below `lane` fails.
    pub(super) lowest: bool,
    /// The node that returned it (`None`: a step of the node returning it now).
    pub(super) from: Option<usize>,
}

impl Fault {
    /// Nothing known but the error.
    pub(super) fn lost(err: Error) -> Fault {
        Fault {
            err,
            lane: None,
            exact: false,
            lowest: false,
            from: None,
        }
    }

    /// Whether this is the interpreter's first error over the context.
    pub(super) fn canonical(&self) -> bool {
        self.lane.is_some() && self.exact && (self.lowest || self.lane == Some(0))
    }
}
