//! The memory the declared rows of a Matrix Market file take, measured: what `run smvm` holds
//! for a matrix of many empty rows stays within `io::BYTES_PER_ROW` a row (the figure the
//! reader checks against the memory budget at the size line), so the check cannot let through
//! a file whose rows do not fit.

use flatland_cli::harness::compute::{smvm, smvm_ones};
use flatland_cli::harness::measure::{CountingAlloc, peak_during};
use flatland_cli::io::{BYTES_PER_ROW, parse_matrix_market};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn declared_rows_take_no_more_than_the_reader_checks() {
    let rows = 1_000_000;
    let text =
        format!("%%MatrixMarket matrix coordinate real general\n{rows} 4 3\n1 1 1\n2 2 2\n9 4 3\n");
    for with_vector in [false, true] {
        let (y, peak) = peak_during(|| {
            let a = parse_matrix_market("m.mtx", &text).unwrap().to_csr();
            if with_vector {
                smvm(a, &[1.0; 4])
            } else {
                smvm_ones(&a)
            }
        });
        assert_eq!(y.len(), rows);
        let peak = peak.expect("the counting allocator is installed");
        let allowed = (rows + 1) * BYTES_PER_ROW + (64 << 10);
        eprintln!("with_vector {with_vector}: peak {peak} bytes for {rows} rows");
        assert!(
            peak <= allowed,
            "with_vector {with_vector}: {peak} bytes, more than the {allowed} checked"
        );
    }
}
