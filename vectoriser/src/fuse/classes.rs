//! Partition-reduce and the "mega" step: a `filter`/`partition` over an array fused with
//! the consumers of its classes (maps, built-in reductions, nested filters/partitions of a
//! class) into ONE pass ([`crate::ir::Classes`]): every element's class is computed by one
//! combined key (the keys of nested partitions refine the classes of their source, as
//! [`super::fusion2`] merges the partition of `y1` into the partition of `a`), reductions accumulate by class
//! in the packed order of their class, and the arrays that are still used elsewhere are
//! partitioned once, at the end.
//!
//! A cluster with one output (a reduction of one class: partition-reduce; or one class's
//! mapped array) is always fused. With several outputs the pass computes every output's value
//! on every element (the divergence of the classes' work), so it is taken only when the cost model
//! ([`flatland_runtime::cost`], the current [`cost::Machine`]) predicts fewer nanoseconds per
//! element than the partition followed by the per-class steps; the rule is reported as
//! `"mega"` or `"mega-declined"`, and the prediction is kept in [`Classes::explain`]. A
//! cluster whose outputs are all classes as they are (no reduction, no map: quicksort's three
//! parts) is a plain partition, which the unfused steps already run as one key pass and one
//! partition, in parallel: it is always declined (the kernel is one sequential pass).

use super::graph::{Chain, has_fused, ops, projections, subst_projections, uses};
use super::rules::Fuser;
use crate::ir::{BinaryOp, ClassOut, Classes, Expr, Fused, FusedForm, Lambda, ReduceOp};
use flatland_runtime::cost::{self, ElemCost};
use std::collections::HashMap;
use std::sync::Arc;

/// A class stream: the elements of the input whose classes satisfy `cond` (pairs of a part
/// and one of its classes, outermost first), each mapped to `value` (in terms of the element
/// variable), after `maps` maps.
#[derive(Clone)]
struct Stream {
    cond: Vec<(usize, usize)>,
    value: Expr,
    maps: usize,
}

/// A filter or partition of the cluster: the stream it splits, its key (an `i64` class in
/// `0..classes`, in terms of the element variable) and the class of each projection.
struct Part {
    name: String,
    src: Stream,
    key: Expr,
    classes: usize,
    interest: Vec<usize>,
    /// Whether the key may be out of range (a partition's; a filter's never is).
    checked: bool,
}

/// How the rest of the chain reaches an output of the fused node.
enum Bind {
    /// A binding of this name (a reduction, or a mapped class array).
    Name(String),
    /// Projection `k` of part `p`.
    Proj(usize, usize),
}

struct Out {
    stream: Stream,
    fold: Option<(ReduceOp, Expr)>,
    bind: Bind,
}

/// The key of a filter (`if p0 then 0 else if p1 then 1 .. else n`) or partition over the
/// stream value `v`, and its number of classes and classes of interest.
fn part_key(f: &mut Fuser, e: &Expr, v: &Expr) -> Option<(Expr, usize, Vec<usize>)> {
    Some(match e {
        Expr::Filter(ps, _) if ps.iter().all(|p| p.params.len() == 1) => {
            let y = f.fresh("y");
            let mut k = Expr::i64(ps.len() as i64);
            for (c, p) in ps.iter().enumerate().rev() {
                let holds = Expr::Let(
                    p.params[0].0.clone(),
                    Arc::new(Expr::var(&y)),
                    p.body.clone(),
                );
                k = Expr::if_(holds, Expr::i64(c as i64), k);
            }
            let n = ps.len() + 1;
            (Expr::let_(&y, v.clone(), k), n, (0..n).collect())
        }
        Expr::Partition {
            classes,
            interest,
            key,
            ..
        } if key.params.len() == 1 => (
            Expr::Let(
                key.params[0].0.clone(),
                Arc::new(v.clone()),
                key.body.clone(),
            ),
            *classes,
            interest.clone(),
        ),
        _ => return None,
    })
}

fn array_of(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Filter(_, a) => Some(a),
        Expr::Partition { array, .. } => Some(array),
        _ => None,
    }
}

fn with_array(e: &Expr, a: Expr) -> Expr {
    match e {
        Expr::Filter(ps, _) => Expr::Filter(ps.clone(), Arc::new(a)),
        Expr::Partition {
            classes,
            interest,
            key,
            ..
        } => Expr::Partition {
            classes: *classes,
            interest: interest.clone(),
            key: key.clone(),
            array: Arc::new(a),
        },
        other => other.clone(),
    }
}

/// A literal built-in reduction: its operator and identity.
fn builtin(op: &ReduceOp, z: &Expr) -> Option<(ReduceOp, Expr)> {
    (op.bin_op().is_some() && matches!(z, Expr::Lit(_))).then(|| (op.clone(), z.clone()))
}

struct Cluster<'c> {
    /// Names bound at or after the cluster's first node: a member may not read them.
    later: Vec<&'c str>,
    parts: Vec<Part>,
    streams: Vec<(String, Stream)>,
}

impl Cluster<'_> {
    fn reads_later(&self, l: &Lambda) -> bool {
        self.later
            .iter()
            .any(|n| !l.params.iter().any(|(p, _)| p == n) && uses(&l.body, n) > 0)
    }

    fn stream(&self, e: &Expr) -> Option<Stream> {
        match e {
            Expr::Var(n) => self
                .streams
                .iter()
                .find(|(m, _)| m == n)
                .map(|(_, s)| s.clone()),
            Expr::Proj(a, k) => {
                let Expr::Var(n) = &**a else { return None };
                let (p, part) = self.parts.iter().enumerate().find(|(_, q)| q.name == *n)?;
                let mut s = part.src.clone();
                s.cond.push((p, *part.interest.get(*k)?));
                Some(s)
            }
            _ => None,
        }
    }

    fn mentions(&self, e: &Expr) -> bool {
        self.parts.iter().any(|p| uses(e, &p.name) > 0)
            || self.streams.iter().any(|(n, _)| uses(e, n) > 0)
    }
}

impl Fuser {
    /// Fuses the partition bound at node `i` of `c` with the consumers of its classes (see the
    /// module documentation); whether it did.
    pub(super) fn classes(&mut self, c: &mut Chain, i: usize) -> bool {
        let (tname, top) = c.binds[i].clone();
        let Some(array) = array_of(&top) else {
            return false;
        };
        let later: Vec<&str> = c.binds[i..].iter().map(|(n, _)| n.as_str()).collect();
        if (1..later.len()).any(|k| later[..k].contains(&later[k])) || uses(array, &tname) > 0 {
            return false;
        }
        let x = self.fresh("x");
        let root = Stream {
            cond: vec![],
            value: Expr::var(&x),
            maps: 0,
        };
        let Some((key, classes, interest)) = part_key(self, &top, &root.value) else {
            return false;
        };
        let mut cl = Cluster {
            later,
            parts: vec![Part {
                name: tname.clone(),
                src: root,
                key,
                classes,
                interest,
                checked: matches!(top, Expr::Partition { .. }),
            }],
            streams: vec![],
        };
        let mut members = vec![false; c.binds.len()];
        members[i] = true;
        let mut outs: Vec<Out> = vec![];
        for (j, (name, e)) in c.binds.iter().enumerate().skip(i + 1) {
            if !cl.mentions(e) {
                continue;
            }
            let member = match e {
                Expr::Map(l, xs) if xs.len() == 1 && l.params.len() == 1 && !cl.reads_later(l) => {
                    cl.stream(&xs[0]).map(|s| {
                        let value =
                            Expr::Let(l.params[0].0.clone(), Arc::new(s.value), l.body.clone());
                        cl.streams.push((
                            name.clone(),
                            Stream {
                                cond: s.cond,
                                value,
                                maps: s.maps + 1,
                            },
                        ));
                    })
                }
                Expr::Reduce(op, z, a) => builtin(op, z).zip(cl.stream(a)).map(|(fold, s)| {
                    outs.push(Out {
                        stream: s,
                        fold: Some(fold),
                        bind: Bind::Name(name.clone()),
                    });
                }),
                Expr::Redomap(op, z, l, xs)
                    if xs.len() == 1 && l.params.len() == 1 && !cl.reads_later(l) =>
                {
                    builtin(op, z).zip(cl.stream(&xs[0])).map(|(fold, s)| {
                        let value =
                            Expr::Let(l.params[0].0.clone(), Arc::new(s.value), l.body.clone());
                        outs.push(Out {
                            stream: Stream {
                                cond: s.cond,
                                value,
                                maps: s.maps + 1,
                            },
                            fold: Some(fold),
                            bind: Bind::Name(name.clone()),
                        });
                    })
                }
                Expr::Filter(..) | Expr::Partition { .. } => {
                    let lams: Vec<&Lambda> = match e {
                        Expr::Filter(ps, _) => ps.iter().collect(),
                        Expr::Partition { key, .. } => vec![key],
                        _ => vec![],
                    };
                    let src = array_of(e).and_then(|a| cl.stream(a));
                    match src {
                        Some(s)
                            if !lams.iter().any(|l| cl.reads_later(l))
                                && !cl.parts.iter().any(|p| p.src.cond == s.cond) =>
                        {
                            let v = s.value.clone();
                            part_key(self, e, &v).map(|(key, classes, interest)| {
                                cl.parts.push(Part {
                                    name: name.clone(),
                                    src: s,
                                    key,
                                    classes,
                                    interest,
                                    checked: matches!(e, Expr::Partition { .. }),
                                });
                            })
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            members[j] = member.is_some();
        }
        // The other uses of the cluster's arrays: each becomes an output (a packed array).
        let rest: Vec<&Expr> = c
            .binds
            .iter()
            .enumerate()
            .filter(|(j, _)| *j > i && !members[*j])
            .map(|(_, (_, e))| e)
            .chain(std::iter::once(&c.result))
            .collect();
        for e in &rest {
            if cl.mentions(e) && has_fused(e) {
                return false;
            }
            for (n, s) in &cl.streams {
                if uses(e, n) > 0
                    && !outs
                        .iter()
                        .any(|o| matches!(&o.bind, Bind::Name(m) if m == n))
                {
                    outs.push(Out {
                        stream: s.clone(),
                        fold: None,
                        bind: Bind::Name(n.clone()),
                    });
                }
            }
            for p in 0..cl.parts.len() {
                let mut ks = vec![];
                if projections(e, &cl.parts[p].name, &mut ks) {
                    return false;
                }
                for k in ks {
                    let seen = outs
                        .iter()
                        .any(|o| matches!(o.bind, Bind::Proj(q, l) if q == p && l == k));
                    if !seen {
                        let Some(s) = cl.stream(&Expr::proj(Expr::var(&cl.parts[p].name), k))
                        else {
                            return false;
                        };
                        outs.push(Out {
                            stream: s,
                            fold: None,
                            bind: Bind::Proj(p, k),
                        });
                    }
                }
            }
        }
        if outs.is_empty() {
            return false;
        }
        // A name rebound where the fused node is must not be read, as an outer variable of the
        // same name, by a node that stays between the partition and its binding.
        for o in &outs {
            let Bind::Name(n) = &o.bind else { continue };
            let at = c.binds[i..]
                .iter()
                .position(|(m, _)| m == n)
                .map_or(i, |k| i + k);
            if (i + 1..at).any(|j| !members[j] && uses(&c.binds[j].1, n) > 0) {
                return false;
            }
        }
        // The combined key: leaves of the class tree numbered depth first.
        let mut leaves: Vec<Option<Vec<(usize, usize)>>> = vec![];
        let key = self.combined_key(&cl.parts, &[], &mut leaves);
        let leaf_set = |cond: &[(usize, usize)]| -> Vec<usize> {
            (0..leaves.len())
                .filter(|&l| leaves[l].as_ref().is_some_and(|c| c.starts_with(cond)))
                .collect()
        };
        let live = leaves.iter().flatten().count();
        let class_outs: Vec<ClassOut> = outs
            .iter()
            .map(|o| ClassOut {
                classes: leaf_set(&o.stream.cond),
                value: Lambda::new(&[&x], o.stream.value.clone()),
                fold: o.fold.clone(),
            })
            .collect();
        let explain = if outs.len() == 1 {
            self.applied.push(if outs[0].fold.is_some() {
                "partition-reduce"
            } else {
                "partition-map"
            });
            "one output: always fused".to_string()
        } else {
            let reach: Vec<f64> = cl
                .parts
                .iter()
                .map(|p| leaf_set(&p.src.cond).len() as f64 / live as f64)
                .collect();
            let (take, why) = if class_outs.iter().all(plain_class) {
                // Nothing to fuse: the unfused steps are this very partition (one key pass,
                // one partition of the elements), in parallel, where the kernel is one
                // sequential pass.
                (
                    false,
                    "mega declined: a plain partition (every output a class as it is), which \
                     the unfused steps run in parallel"
                        .to_string(),
                )
            } else {
                match self.decide {
                    super::Decide::Predict => {
                        mega_gain(&cl.parts, &reach, &outs, &class_outs, &key, live)
                    }
                    super::Decide::Take => (true, "mega taken: forced".to_string()),
                    super::Decide::Decline => (false, "mega declined: forced".to_string()),
                }
            };
            if !take {
                self.applied.push("mega-declined");
                self.explained.push(why);
                return false;
            }
            self.applied.push("mega");
            why
        };
        self.explained.push(explain.clone());
        // The new chain: the fused node where the partition was, the outputs bound to the names
        // the rest of the chain reads, then the rest.
        let (arr_name, arr_bind) = match array {
            Expr::Var(n) => (n.clone(), None),
            other => {
                let n = self.fresh("arr");
                (n.clone(), Some((n, other.clone())))
            }
        };
        let mut original = Chain {
            binds: vec![(tname.clone(), with_array(&top, Expr::var(&arr_name)))],
            result: Expr::Tuple(vec![]),
        };
        original.binds.extend(
            c.binds
                .iter()
                .enumerate()
                .filter(|(j, _)| *j > i && members[*j])
                .map(|(_, b)| b.clone()),
        );
        original.result = Expr::Tuple(
            outs.iter()
                .map(|o| match &o.bind {
                    Bind::Name(n) => Expr::var(n),
                    Bind::Proj(p, k) => Expr::proj(Expr::var(&cl.parts[*p].name), *k),
                })
                .collect(),
        );
        let t = self.fresh("classes");
        let fused = Expr::Fused(Arc::new(Fused {
            form: FusedForm::Classes(Classes {
                array: arr_name,
                key: Lambda::new(&[&x], key),
                classes: leaves.len(),
                outs: class_outs,
                explain,
            }),
            original: original.build(),
        }));
        let mut substs: Vec<HashMap<usize, String>> = vec![HashMap::new(); cl.parts.len()];
        let mut binds: Vec<(String, Expr)> = c.binds[..i].to_vec();
        binds.extend(arr_bind);
        binds.push((t.clone(), fused));
        for (o, out) in outs.iter().enumerate() {
            let name = match &out.bind {
                Bind::Name(n) => n.clone(),
                Bind::Proj(p, k) => {
                    let n = self.fresh(&cl.parts[*p].name);
                    substs[*p].insert(*k, n.clone());
                    n
                }
            };
            binds.push((name, Expr::proj(Expr::var(&t), o)));
        }
        let subst = |e: &Expr| {
            cl.parts
                .iter()
                .zip(&substs)
                .fold(e.clone(), |e, (p, to)| subst_projections(&e, &p.name, to))
        };
        for (j, (n, e)) in c.binds.iter().enumerate().skip(i + 1) {
            if !members[j] {
                binds.push((n.clone(), subst(e)));
            }
        }
        let result = subst(&c.result);
        drop(cl);
        c.binds = binds;
        c.result = result;
        true
    }

    /// The combined key of the classes of the part refining `cond`: its classes are numbered
    /// from `leaves.len()` on (`base + k`), and a class refined by a nested part dispatches to
    /// that part's numbers instead (its own number stays unused). A partition's key out of
    /// range gives `-1`, which the kernel rejects (the original then reports it).
    fn combined_key(
        &mut self,
        parts: &[Part],
        cond: &[(usize, usize)],
        leaves: &mut Vec<Option<Vec<(usize, usize)>>>,
    ) -> Expr {
        let p = parts
            .iter()
            .position(|p| p.src.cond == cond)
            .expect("the caller passes a refined class");
        let (base, classes) = (leaves.len(), parts[p].classes);
        let class = |c: usize| {
            let mut sub = cond.to_vec();
            sub.push((p, c));
            sub
        };
        leaves.extend((0..classes).map(|c| Some(class(c))));
        let k = self.fresh("k");
        let mut e = if base == 0 {
            Expr::var(&k)
        } else {
            Expr::var(&k) + Expr::i64(base as i64)
        };
        for c in 0..classes {
            let sub = class(c);
            if parts.iter().any(|q| q.src.cond == sub) {
                leaves[base + c] = None;
                let nested = self.combined_key(parts, &sub, leaves);
                e = Expr::if_(
                    Expr::binary(BinaryOp::Eq, Expr::var(&k), Expr::i64(c as i64)),
                    nested,
                    e,
                );
            }
        }
        if parts[p].checked {
            let in_range = Expr::binary(
                BinaryOp::And,
                Expr::binary(BinaryOp::Ge, Expr::var(&k), Expr::i64(0)),
                Expr::var(&k).lt(Expr::i64(classes as i64)),
            );
            e = Expr::if_(in_range, e, Expr::i64(-1));
        }
        Expr::let_(&k, parts[p].key.clone(), e)
    }
}

/// Whether `o` is the elements of its classes as they are (no reduction, the identity map).
fn plain_class(o: &ClassOut) -> bool {
    o.fold.is_none()
        && matches!(&*o.value.body, Expr::Var(v) if o.value.params.first().is_some_and(|(p, _)| p == v))
}

/// Elements moved per element partitioned by the unfused steps, as the `stats` counters give
/// them for `filter([p], a).1` through the executor: 4 reads (the element for its key, the keys
/// and the permutation, the element again), 2 writes (keys, permutation) and 1 copy (the
/// element to its class).
const PARTITION_TRANSFERS: f64 = 7.0;

/// The cost model's verdict on the mega step: predicted nanoseconds per input element of the
/// one fused pass (every output's value computed on every element, the combined key, one read,
/// the packed arrays written) against the unfused steps (each part's key on the elements that
/// reach it, its partition, and each output's maps and reduction on its class's elements,
/// classes assumed equally likely), on the current machine profile.
fn mega_gain(
    parts: &[Part],
    reach: &[f64],
    outs: &[Out],
    class_outs: &[ClassOut],
    key: &Expr,
    leaves: usize,
) -> (bool, String) {
    let frac = |o: &ClassOut| o.classes.len() as f64 / leaves as f64;
    let value_ops = |o: &ClassOut| ops(&o.value.body) as f64 + 1.0;
    let fused = ElemCost::new(
        ops(key) as f64 + class_outs.iter().map(value_ops).sum::<f64>(),
        1.0 + class_outs
            .iter()
            .filter(|o| o.fold.is_none())
            .map(frac)
            .sum::<f64>(),
    );
    let unfused = ElemCost::new(
        parts
            .iter()
            .zip(reach)
            .map(|(p, r)| r * ops(&p.key) as f64)
            .sum::<f64>()
            + class_outs
                .iter()
                .map(|o| frac(o) * value_ops(o))
                .sum::<f64>(),
        reach.iter().sum::<f64>() * PARTITION_TRANSFERS
            + outs
                .iter()
                .zip(class_outs)
                .map(|(o, c)| {
                    frac(c) * (2.0 * o.stream.maps as f64 + f64::from(u8::from(o.fold.is_some())))
                })
                .sum::<f64>(),
    );
    let m = cost::current();
    let (f, u) = (m.elem_ns(fused), m.elem_ns(unfused));
    let take = f < u;
    (
        take,
        format!(
            "mega {}: predicted {f:.2} ns/element fused ({:.1} ops, {:.2} transfers) vs {u:.2} unfused ({:.1} ops, {:.2} transfers) on {m}",
            if take { "taken" } else { "declined" },
            fused.ops,
            fused.transfers,
            unfused.ops,
            unfused.transfers
        ),
    )
}
