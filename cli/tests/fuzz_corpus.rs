//! Replays every fuzz corpus (`fuzz/corpus/NAME/`, minimised with `cargo fuzz cmin`) through its
//! target's body (`fuzz/targets/NAME.rs`) on the stable toolchain: each input that the fuzzer
//! found interesting runs here in every CI run (about 40 s in a debug build).
//!
//! Left out of `eval_exec`'s corpus: the 44 inputs that took over 50 ms each in a debug build
//! (together 350 s: programs whose nested lambda reductions cost |a|^9 steps, which the
//! executor runs about 10 times slower than the reference interpreter), and one whose program
//! overflows a 2 MiB test-thread stack in a debug build (it passes in release on the main
//! thread); both are described in the closing note of the fuzzing issue.

#[path = "../../fuzz/targets/mod.rs"]
mod targets;

use std::path::Path;

#[test]
fn every_corpus_replays() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    for &(name, run) in targets::TARGETS {
        let dir = root.join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|f| f.expect("a corpus entry").path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}: empty corpus", dir.display());
        for f in &files {
            let data = std::fs::read(f).expect("a corpus file");
            let r = std::panic::catch_unwind(|| run(&data));
            assert!(r.is_ok(), "{name}: {} fails", f.display());
        }
        eprintln!("{name}: {} inputs replayed", files.len());
    }
}
