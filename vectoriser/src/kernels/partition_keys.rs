//! Partition keys in one pass ("map into the key computation"): the key lambda of a
//! `partition` compiled to one expression-machine tree and computed on every element (module
//! `elements`).
//!
//! Cost: one pass over the elements; it gives up (`None`) where the key fails or is out of
//! range, and the unfused steps report it.

use super::elements::eval_on_elements;
use super::lambda::LambdaCompiler;
use crate::env::Env;
use crate::ir::Lambda;
use crate::lval::LVal;
use flatland_runtime::expr::native::Kernels;
use flatland_segd::Segd;

/// The class keys of `partition(classes, _, key, xs)` in one expression-machine pass over the
/// elements ("map into the key computation"), or `None` when the key does not compile (it
/// reads only its parameter's fields, free scalars and constants) or some key is out of range (the unfused
/// steps then report it).
pub(crate) fn partition_keys(
    key: &Lambda,
    classes: usize,
    xs: &LVal,
    segd: &Segd,
    env: &Env,
    kernels: &Kernels,
) -> Option<Vec<u8>> {
    let [(p, _)] = &key.params[..] else {
        return None;
    };
    let mut c = LambdaCompiler::new(env, vec![p.clone()], vec![xs], kernels);
    let tree = c.tree(&key.body)?;
    let out = eval_on_elements(&c, &tree, xs, segd)?;
    out.as_i64()?
        .iter()
        .map(|&k| {
            usize::try_from(k)
                .ok()
                .filter(|&k| k < classes)
                .map(|k| k as u8)
        })
        .collect()
}
