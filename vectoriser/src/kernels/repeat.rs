//! Free scalars repeated over the elements of a kernel's segments, remembered for the next
//! kernel on the same thread.
//!
//! A filter's predicate that reads a scalar of its lane (quicksort's pivot) runs over the
//! elements with that scalar repeated once per element: a full-size column. Sibling filters of
//! one array (quicksort's three around one pivot) repeat the same scalars over the same
//! segments, so the last repetition is kept and handed out again while its source column and
//! descriptor are the same. The memo holds clones of both, so a source compared by address is
//! still the same immutable buffer. [`Forget`] drops it when an executor run ends, so nothing
//! outlives the run.

use crate::lval::LaneColumn;
use flatland_segd::Segd;
use std::cell::RefCell;

struct Memo {
    source: LaneColumn,
    segd: Segd,
    out: LaneColumn,
}

thread_local! {
    static LAST: RefCell<Option<Memo>> = const { RefCell::new(None) };
}

/// `source` (one value per segment of `segd`) repeated over the segments' elements: the kept
/// column when the last call had the same source buffer and the same segments, else a new one
/// (kept in turn). `None` when the lengths disagree.
pub(crate) fn repeated(source: &LaneColumn, segd: &Segd) -> Option<LaneColumn> {
    let kept = LAST.with(|last| {
        let mut last = last.borrow_mut();
        match &*last {
            Some(m) if m.source.same_buffer(source) && m.segd == *segd => Some(m.out.clone()),
            // Drop the old repetition before making the new one: at most one is alive.
            _ => {
                *last = None;
                None
            }
        }
    });
    if kept.is_some() {
        return kept;
    }
    // No borrow is held while repeating: waiting on its tasks, this thread may run another
    // run's kernel (rayon work stealing), which uses the memo in turn. Whoever stored it, a
    // hit is right: the key is the source's buffer (kept alive) and the segments.
    let out = source.replicate_s(segd).ok()?;
    LAST.with(|last| {
        *last.borrow_mut() = Some(Memo {
            source: source.clone(),
            segd: segd.clone(),
            out: out.clone(),
        });
    });
    Some(out)
}

/// Forgets the kept repetition of this thread when dropped (at the end of an executor run,
/// errors and panics included).
pub(crate) struct Forget;

impl Drop for Forget {
    fn drop(&mut self) {
        // `try_with`: the thread may be tearing its locals down.
        let _ = LAST.try_with(|last| last.borrow_mut().take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lval::adopt;

    fn f64s(c: &LaneColumn) -> Vec<f64> {
        match c {
            LaneColumn::F64(v) => v.to_vec(),
            _ => panic!("not f64"),
        }
    }

    #[test]
    fn the_same_source_over_the_same_segments_is_repeated_once() {
        let _forget = Forget;
        let pivots = LaneColumn::F64(adopt(vec![1.5, -2.0]));
        let segd = Segd::from_lengths(vec![2, 3]).unwrap();
        let a = repeated(&pivots, &segd).unwrap();
        assert_eq!(f64s(&a), vec![1.5, 1.5, -2.0, -2.0, -2.0]);
        // Equal segments in another descriptor, and the same source: the kept column.
        let again = repeated(&pivots, &Segd::from_lengths(vec![2, 3]).unwrap()).unwrap();
        assert!(again.same_buffer(&a));
        // Equal values in another buffer, or other segments: repeated anew.
        let copy = LaneColumn::F64(adopt(vec![1.5, -2.0]));
        let b = repeated(&copy, &segd).unwrap();
        assert!(!b.same_buffer(&a));
        assert_eq!(f64s(&b), f64s(&a));
        let c = repeated(&copy, &Segd::from_lengths(vec![3, 2]).unwrap()).unwrap();
        assert_eq!(f64s(&c), vec![1.5, 1.5, 1.5, -2.0, -2.0]);
        // Lengths that disagree: no column.
        assert!(repeated(&copy, &Segd::from_lengths(vec![1]).unwrap()).is_none());
    }

    #[test]
    fn a_run_forgets_what_it_kept() {
        let pivots = LaneColumn::I64(adopt(vec![7]));
        let segd = Segd::from_lengths(vec![4]).unwrap();
        let a = {
            let _forget = Forget;
            repeated(&pivots, &segd).unwrap()
        };
        assert!(LAST.with(|l| l.borrow().is_none()));
        assert!(!repeated(&pivots, &segd).unwrap().same_buffer(&a));
        drop(Forget);
        assert!(LAST.with(|l| l.borrow().is_none()));
    }
}
