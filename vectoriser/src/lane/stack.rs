//! The stack check of a recursive call of per-lane code ([`super::Ctx::has_stack_room`]): one comparison
//! of the stack's address against a floor read once per stack segment, instead of asking
//! `stacker` for the stack's bounds on every call.
//!
//! `stacker::maybe_grow` reads a thread-local limit and the stack pointer on every call: about
//! 30 instructions, a tenth of a call of DPH's treeLookup (a recursion of one call per
//! element). The floor is the address below which fewer than [`super::CALL_RED_ZONE`] bytes
//! are left; above it a call runs where it is. At or below it the call goes through `stacker`,
//! which moves it to a new segment on the heap where needed, and the floor is read again for
//! that segment (and put back when the call returns or unwinds). Stacks grow downwards on
//! every target Rust's `stacker` supports but a few (none of which this crate is built for);
//! where the bounds are unknown the floor is the top of the address space, so every call asks
//! `stacker`, as before.

use std::cell::Cell;

/// The address below which a call must go through `stacker` (see the module docs).
#[derive(Debug)]
pub(super) struct StackFloor(Cell<usize>);

impl StackFloor {
    /// The floor of the stack segment this thread runs on now.
    pub(super) fn here() -> StackFloor {
        StackFloor(Cell::new(floor_now()))
    }

    /// Whether at least [`super::CALL_RED_ZONE`] bytes of stack are left here.
    #[inline]
    pub(super) fn has_room(&self) -> bool {
        stack_address() > self.0.get()
    }

    /// Runs `f` through `stacker::maybe_grow` (on a new segment of [`SEGMENT`] bytes where
    /// fewer than [`super::CALL_RED_ZONE`] are left), with the floor of the segment it runs on.
    #[cold]
    #[inline(never)]
    pub(super) fn grow<R>(&self, f: impl FnOnce() -> R) -> R {
        stacker::maybe_grow(super::CALL_RED_ZONE, SEGMENT, || {
            /// Puts the caller's floor back, also when `f` unwinds.
            struct Restore<'a>(&'a Cell<usize>, usize);
            impl Drop for Restore<'_> {
                fn drop(&mut self) {
                    self.0.set(self.1);
                }
            }
            let _restore = Restore(&self.0, self.0.replace(floor_now()));
            f()
        })
    }
}

/// The size of a stack segment `stacker` allocates for a deep recursion.
const SEGMENT: usize = 2 * 1024 * 1024;

/// An address in the current frame (the stack pointer, to within the frame's size).
#[inline(always)]
fn stack_address() -> usize {
    let here = 0u8;
    std::ptr::from_ref::<u8>(std::hint::black_box(&here)) as usize
}

/// The floor of the segment this thread runs on now: [`super::CALL_RED_ZONE`] above its
/// limit, or the top of the address space where its bounds are unknown.
fn floor_now() -> usize {
    match stacker::remaining_stack() {
        Some(left) => stack_address()
            .saturating_sub(left)
            .saturating_add(super::CALL_RED_ZONE),
        None => usize::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the per-lane code of a recursive function does before it enters its level.
    fn checked<R>(floor: &StackFloor, f: impl FnOnce() -> R) -> R {
        if floor.has_room() { f() } else { floor.grow(f) }
    }

    #[test]
    fn a_thread_with_room_has_room_and_keeps_its_floor() {
        let floor = StackFloor::here();
        let before = floor.0.get();
        assert!(
            floor.has_room(),
            "the test thread has more than the red zone"
        );
        assert_eq!(checked(&floor, || 7), 7);
        assert_eq!(floor.0.get(), before);
    }

    #[test]
    fn a_call_below_the_floor_goes_through_stacker_and_restores_the_floor() {
        let floor = StackFloor(Cell::new(usize::MAX));
        assert!(!floor.has_room());
        let inner = checked(&floor, || {
            // On the segment the call ran on, the floor was read again.
            assert!(floor.has_room());
            floor.0.get()
        });
        assert!(inner < usize::MAX);
        assert_eq!(floor.0.get(), usize::MAX);
    }

    #[test]
    fn the_floor_is_restored_when_the_call_unwinds() {
        let floor = StackFloor(Cell::new(usize::MAX));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            floor.grow(|| panic!("unwinds"));
        }));
        assert!(r.is_err());
        assert_eq!(floor.0.get(), usize::MAX);
    }

    #[test]
    fn deep_recursion_moves_to_new_segments() {
        fn down(floor: &StackFloor, n: usize) -> usize {
            if n == 0 {
                return 0;
            }
            // A frame of some size, so that 100,000 levels need more than one segment.
            let pad = std::hint::black_box([1u8; 512]);
            checked(floor, || down(floor, n - 1)) + usize::from(pad[n % 512])
        }
        let floor = StackFloor::here();
        assert_eq!(down(&floor, 100_000), 100_000);
    }
}
