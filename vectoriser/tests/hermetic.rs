//! What a build compiles reads no machine profile: [`native::kernel_programs`] (the kernels
//! `#[vectorise]` compiles) prepares under both forced outcomes of the size-dependent "mega"
//! fusion, where preparing to run decides it by the cost model on the current profile.
//!
//! One test in this file: the profile-read counter is process-wide.

use flatland_vectoriser::exec::{ExecOptions, Prepared};
use flatland_vectoriser::fuse;
use flatland_vectoriser::native;
use flatland_vectoriser::runtime::cost::profile_reads;
use flatland_vectoriser::runtime::expr::CompiledExpr;

#[test]
fn kernels_are_found_without_reading_the_profile_that_running_reads() {
    let Some(start) = profile_reads() else {
        // A release build counts nothing.
        return;
    };
    let p = fuse::fusion2();
    let kernels = native::kernel_programs(&p).unwrap();
    assert_eq!(
        profile_reads(),
        Some(start),
        "kernel_programs read the profile"
    );
    // Preparing to run decides the mega step on the profile (so the counter can see a read).
    let run = Prepared::new(&p, "fusion2", &ExecOptions::default()).unwrap();
    assert!(profile_reads().unwrap() > start);
    // Whatever it decided, its programs are among the build's.
    let keys: Vec<String> = kernels.iter().map(CompiledExpr::key).collect();
    for k in run.expression_programs() {
        assert!(keys.contains(&k.key()), "{}", k.key());
    }
    // And the two forced outcomes differ (the build covers both).
    let taken = fuse::fuse_deciding(&p, fuse::Decide::Take).0.to_string();
    let declined = fuse::fuse_deciding(&p, fuse::Decide::Decline).0.to_string();
    assert_ne!(taken, declined);
}
