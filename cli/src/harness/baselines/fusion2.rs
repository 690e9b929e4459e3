//! The Futhark seed's "Fusion 2.0" program (`flatland_vectoriser::fuse::fusion2`) as one
//! sequential loop: each element is classified once and lands in at most one result.

/// The three reductions and three arrays of the program: `((s1, s2, s3), (x0, z2, y3))` where
/// `x0` holds the `a < 1`, `z2` the `10 * a` of `1 <= a < 10` that are at most 50 (`s1` their
/// sum), `s2` is the product of the `10 <= a <= 100`, `y3` the square roots of the rest (`s3`
/// their minimum, `+inf` when empty). The minimum is the IR's (IEEE 754-2019 `minimum`, NaN
/// wins: `flatland_runtime::expr::op::float::min`), not `f64::min` (which skips NaN), so a NaN
/// input (in the last class: every comparison with it is false) gives the program's NaN `s3`.
///
/// ```
/// use flatland_cli::harness::baselines::fusion2::fusion2_seq;
/// let out = fusion2_seq(&[0.5, 3.0, 7.0, 16.0, 400.0]);
/// assert_eq!(out, ((30.0, 16.0, 20.0), (vec![0.5], vec![30.0], vec![20.0])));
/// assert!(fusion2_seq(&[400.0, f64::NAN]).0.2.is_nan());
/// ```
#[allow(clippy::type_complexity)]
pub fn fusion2_seq(a: &[f64]) -> ((f64, f64, f64), (Vec<f64>, Vec<f64>, Vec<f64>)) {
    let (mut s1, mut s2, mut s3) = (0.0, 1.0, f64::INFINITY);
    let (mut x0, mut z2, mut y3) = (Vec::new(), Vec::new(), Vec::new());
    for &x in a {
        if x < 1.0 {
            x0.push(x);
        } else if x < 10.0 {
            let y = x * 10.0;
            if y <= 50.0 || y.is_nan() {
                z2.push(y);
                s1 += y;
            }
        } else if x <= 100.0 {
            s2 *= x;
        } else {
            let y = x.sqrt();
            y3.push(y);
            s3 = flatland_runtime::expr::op::float::min(s3, y);
        }
    }
    ((s1, s2, s3), (x0, z2, y3))
}
