//! Distributed segmented filter and partition against `flatland_runtime::seg`.

use crate::{build, for_each_case, same_bits};
use flatland_mpi::{Comm, Layout};
use flatland_runtime::{flat, seg};

pub(crate) fn filter_s(comm: &Comm) {
    for_each_case(comm, |name, segd, data| {
        let mask = flat::mask(data, |x| x > -0.1);
        let (want_segd, want) = seg::pack_s(segd, data, &mask).unwrap();
        for (how, d) in build(comm, segd, data) {
            let got = d.filter_s(|x| x > -0.1);
            got.layout().validate().unwrap();
            assert_eq!(
                got.layout(),
                &Layout::balanced(&want_segd.lengths(), comm.size()),
                "filter_s {name} ({how}): balanced layout"
            );
            let (s, g) = got.gather_all();
            assert_eq!(s, want_segd, "filter_s {name} ({how}): descriptor");
            same_bits(&g, &want, &format!("filter_s {name} ({how})"));
            // The result folds to the bits of one process too.
            let folded = got.fold_s(0.0, |a, b| a + b).gather_all();
            let want_fold = seg::fold_s(&want_segd, &want, 0.0, |a, b| a + b).unwrap();
            same_bits(
                &folded,
                &want_fold,
                &format!("fold of filter_s {name} ({how})"),
            );
        }
    });
}

pub(crate) fn partition_s(comm: &Comm) {
    for_each_case(comm, |name, segd, data| {
        let keys: Vec<u8> = data.iter().map(|x| (x.to_bits() % 3) as u8).collect();
        let want = seg::partition_s(segd, data, &keys, 3).unwrap();
        for (how, d) in build(comm, segd, data) {
            let r = d.layout().elements_of(comm.rank());
            let got = d.partition_s(&keys[r], 3).unwrap();
            got.layout().validate().unwrap();
            assert_eq!(
                got.layout(),
                &Layout::balanced(&want.segd.lengths(), comm.size()),
                "partition_s {name} ({how}): balanced layout"
            );
            let (s, g) = got.gather_all();
            assert_eq!(s, want.segd, "partition_s {name} ({how}): descriptor");
            same_bits(&g, &want.data, &format!("partition_s {name} ({how})"));
        }
    });
}
