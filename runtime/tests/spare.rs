//! The runtime's spare blocks (`flatland_runtime::spare`) as its containers use them: a large
//! buffer dropped by its last owner is kept, and the next output of about its size is built in
//! it. One test in its own binary, since the store is the process's.

use flatland_runtime::elt::Buffer;
use flatland_runtime::{flat, spare};

#[test]
fn a_dropped_buffer_is_where_the_next_output_is_built() {
    // Off by default (a library keeps nothing its caller gave back); programs opt in.
    assert_eq!(spare::limit(), 0);
    spare::set_limit(spare::SUGGESTED_LIMIT);
    spare::clear();
    let n = 1 << 18; // 2 MiB of i64
    let xs: Vec<i64> = (0..n as i64).collect();
    let first = Buffer::from(flat::map(&xs, |x| x * 2));
    let addr = first.as_ptr() as usize;
    let shared = first.clone();
    drop(first);
    // Still shared: nothing kept yet.
    assert_eq!(spare::kept_bytes(), 0);
    drop(shared);
    assert_eq!(spare::kept_bytes(), n * 8);
    // The next output of about that size reuses the block, and is right.
    let second = flat::map(&xs, |x| x + 1);
    assert_eq!(second.as_ptr() as usize, addr);
    assert_eq!(spare::kept_bytes(), 0);
    assert!(second.iter().zip(&xs).all(|(y, x)| *y == x + 1));
    // An output more than twice smaller does not take it.
    spare::give_back(second);
    let small = flat::map(&xs[..n / 4], |x| x - 1);
    assert_ne!(small.as_ptr() as usize, addr);
    assert_eq!(spare::kept_bytes(), n * 8);
    spare::clear();
    assert_eq!(spare::kept_bytes(), 0);
    // A block unused for longer than IDLE is freed at the next keep or take.
    spare::give_back(Vec::<i64>::with_capacity(n));
    assert_eq!(spare::kept_bytes(), n * 8);
    std::thread::sleep(spare::IDLE + std::time::Duration::from_millis(100));
    spare::give_back(Vec::<i64>::with_capacity(n / 2));
    assert_eq!(spare::kept_bytes(), n * 4);
    spare::clear();
}
