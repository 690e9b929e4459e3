//! Distributed flat filter, partition and gather against `flatland_runtime::flat`.

use crate::inputs::Rng;
use crate::{for_each_case, same_bits};
use flatland_mpi::{Comm, DistArray};
use flatland_runtime::flat;

/// The flat array scattered (balanced) and from uneven parts (rank r takes r + 1 shares).
fn build(comm: &Comm, data: &[f64]) -> Vec<(&'static str, DistArray<f64>)> {
    let root = (comm.rank() == 0).then_some(data);
    let scattered = DistArray::scatter(comm, 0, root).unwrap();
    same_bits(&scattered.gather_all(), data, "scatter then gather");
    let p = comm.size();
    let shares = p * (p + 1) / 2;
    let r = comm.rank();
    let cut = |k: usize| data.len() * (k * (k + 1) / 2) / shares;
    let parts = DistArray::from_parts(comm, data[cut(r)..cut(r + 1)].to_vec());
    assert_eq!(parts.len(), data.len());
    vec![("scattered", scattered), ("uneven parts", parts)]
}

fn keys(xs: &[f64]) -> Vec<u8> {
    xs.iter().map(|x| (x.to_bits() % 3) as u8).collect()
}

pub(crate) fn filter(comm: &Comm) {
    for_each_case(comm, |name, _, data| {
        for (how, d) in build(comm, data) {
            let got = d.filter(|x| x > 0.0);
            let want = flat::filter(data, |x| x > 0.0);
            same_bits(&got.gather_all(), &want, &format!("filter {name} ({how})"));
            let balanced: Vec<usize> = (0..=comm.size())
                .map(|r| want.len() * r / comm.size())
                .collect();
            assert_eq!(got.offsets(), &balanced[..], "filter output is balanced");
        }
    });
}

pub(crate) fn partition(comm: &Comm) {
    for_each_case(comm, |name, _, data| {
        for (how, d) in build(comm, data) {
            let o = d.offsets();
            let r = comm.rank();
            let local_keys = keys(&data[o[r]..o[r + 1]]);
            let got = d.partition(&local_keys, 3).unwrap();
            let want = flat::partition(data, &keys(data), 3, None).unwrap();
            same_bits(
                &got.data.gather_all(),
                &want.data,
                &format!("partition {name} ({how})"),
            );
            assert_eq!(
                got.class_offsets, want.offsets,
                "partition {name} ({how}): offsets"
            );
        }
    });
}

pub(crate) fn gather(comm: &Comm) {
    for_each_case(comm, |name, _, data| {
        for (how, d) in build(comm, data) {
            // Each rank asks for its own indices (none when the array is empty).
            let mut g = Rng::new(1000 + comm.rank() as u64);
            let idx: Vec<u32> = if data.is_empty() {
                Vec::new()
            } else {
                (0..57).map(|_| g.below(data.len()) as u32).collect()
            };
            let got = d.gather(&idx).unwrap();
            let want = flat::gather(data, &idx).unwrap();
            same_bits(&got, &want, &format!("gather {name} ({how})"));
        }
    });
}
