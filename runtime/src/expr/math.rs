//! The math operators' scalar functions (re-exported by [`op::float`](super::op::float) and
//! [`op::int`](super::op::int), where every consumer calls them).
//!
//! Each one equals the Rust `std` method of the same name under
//! [`float::same`](super::op::float::same) wherever `std` returns a value, with three
//! definitions made explicit so that no consumer depends on how a compiler expands them:
//! - `powi` is square-and-multiply over the bits of the exponent (the algorithm of LLVM's
//!   `__powidf2`, which `std`'s `powi` calls at run time; constant folding may use another), and
//!   takes an `i64` exponent;
//! - `min_num` / `max_num` (`std`'s `f64::min` / `max`: a NaN operand is ignored) order
//!   `-0.0 < +0.0`, where `std` leaves the zero it returns unspecified;
//! - the `i64` operators wrap where `std` would overflow (`pow`, `rem_euclid`, `div_euclid`), and
//!   return `None` where `std` divides by zero.

/// The `f64` math functions.
pub(super) mod float {
    macro_rules! std_unary {
        ($($(#[$m:meta])* $name:ident => $std:ident;)*) => {
            $(
                $(#[$m])*
                #[inline(always)]
                pub fn $name(a: f64) -> f64 {
                    a.$std()
                }
            )*
        };
    }

    std_unary! {
        /// `e^a`.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::exp(0.0), 1.0);
        /// ```
        exp => exp;
        /// `2^a`.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::exp2(3.0), 8.0);
        /// ```
        exp2 => exp2;
        /// `e^a - 1`, accurate near zero.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::exp_m1(0.0), 0.0);
        /// ```
        exp_m1 => exp_m1;
        /// Natural logarithm (`ln(-1) = NaN`, `ln(0) = -inf`).
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::ln(1.0), 0.0);
        /// ```
        ln => ln;
        /// `ln(1 + a)`, accurate near zero.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::ln_1p(0.0), 0.0);
        /// ```
        ln_1p => ln_1p;
        /// Base-2 logarithm.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::log2(8.0), 3.0);
        /// ```
        log2 => log2;
        /// Base-10 logarithm.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::log10(100.0), 2.0);
        /// ```
        log10 => log10;
        /// Sine (radians).
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::sin(0.0), 0.0);
        /// ```
        sin => sin;
        /// Cosine (radians).
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::cos(0.0), 1.0);
        /// ```
        cos => cos;
        /// Tangent (radians).
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::tan(0.0), 0.0);
        /// ```
        tan => tan;
        /// Arcsine (NaN outside `[-1, 1]`).
        ///
        /// ```
        /// assert!(flatland_runtime::expr::op::float::asin(2.0).is_nan());
        /// ```
        asin => asin;
        /// Arccosine (NaN outside `[-1, 1]`).
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::acos(1.0), 0.0);
        /// ```
        acos => acos;
        /// Arctangent.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::atan(0.0), 0.0);
        /// ```
        atan => atan;
        /// Hyperbolic sine.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::sinh(0.0), 0.0);
        /// ```
        sinh => sinh;
        /// Hyperbolic cosine.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::cosh(0.0), 1.0);
        /// ```
        cosh => cosh;
        /// Hyperbolic tangent.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::tanh(f64::INFINITY), 1.0);
        /// ```
        tanh => tanh;
        /// Round toward negative infinity.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::floor(-1.5), -2.0);
        /// ```
        floor => floor;
        /// Round toward positive infinity.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::ceil(-1.5), -1.0);
        /// ```
        ceil => ceil;
        /// Round to nearest, halfway cases away from zero.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::round(-2.5), -3.0);
        /// ```
        round => round;
        /// Round toward zero.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::trunc(-2.7), -2.0);
        /// ```
        trunc => trunc;
        /// The fractional part, `a - trunc(a)` (sign of `a`).
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::fract(-2.5), -0.5);
        /// ```
        fract => fract;
        /// `1 / a`.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::recip(4.0), 0.25);
        /// ```
        recip => recip;
        /// `1.0` for `+0.0` and positive numbers, `-1.0` for `-0.0` and negative ones, NaN for NaN.
        ///
        /// ```
        /// assert_eq!(flatland_runtime::expr::op::float::signum(-0.0), -1.0);
        /// ```
        signum => signum;
    }

    /// Whether `a` is NaN.
    ///
    /// ```
    /// assert!(flatland_runtime::expr::op::float::is_nan(f64::NAN));
    /// ```
    #[inline(always)]
    pub fn is_nan(a: f64) -> bool {
        a.is_nan()
    }

    /// Whether `a` is neither infinite nor NaN.
    ///
    /// ```
    /// assert!(!flatland_runtime::expr::op::float::is_finite(f64::INFINITY));
    /// ```
    #[inline(always)]
    pub fn is_finite(a: f64) -> bool {
        a.is_finite()
    }

    /// Whether `a` is `+inf` or `-inf`.
    ///
    /// ```
    /// assert!(flatland_runtime::expr::op::float::is_infinite(f64::NEG_INFINITY));
    /// ```
    #[inline(always)]
    pub fn is_infinite(a: f64) -> bool {
        a.is_infinite()
    }

    /// `a^b` (`std`'s `powf`: `pow(x, 0) = 1` even for NaN `x`).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::float::powf(2.0, 0.5), 2f64.sqrt());
    /// ```
    #[inline(always)]
    pub fn powf(a: f64, b: f64) -> f64 {
        a.powf(b)
    }

    /// `a^n` by square-and-multiply over the bits of `|n|` (one rounding per multiplication),
    /// then `1 / r` for a negative `n`: the algorithm of `std`'s `powi` at run time, over an
    /// `i64` exponent.
    ///
    /// ```
    /// use flatland_runtime::expr::op::float::powi;
    /// assert_eq!(powi(3.0, 4), 81.0);
    /// assert_eq!(powi(2.0, -2), 0.25);
    /// assert_eq!(powi(f64::NAN, 0), 1.0);
    /// ```
    #[inline]
    pub fn powi(a: f64, n: i64) -> f64 {
        let mut e = n.unsigned_abs();
        let (mut x, mut r) = (a, 1.0);
        loop {
            if e & 1 == 1 {
                r *= x;
            }
            e >>= 1;
            if e == 0 {
                break;
            }
            x *= x;
        }
        if n < 0 { 1.0 / r } else { r }
    }

    /// The angle of the point `(b, a)` (`a.atan2(b)`: `y.atan2(x)`), in `[-pi, pi]`.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::float::atan2(0.0, -1.0), std::f64::consts::PI);
    /// ```
    #[inline(always)]
    pub fn atan2(a: f64, b: f64) -> f64 {
        a.atan2(b)
    }

    /// `sqrt(a^2 + b^2)` without undue overflow.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::float::hypot(3.0, 4.0), 5.0);
    /// ```
    #[inline(always)]
    pub fn hypot(a: f64, b: f64) -> f64 {
        a.hypot(b)
    }

    /// The magnitude of `a` with the sign of `b`.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::float::copysign(2.0, -0.0), -2.0);
    /// ```
    #[inline(always)]
    pub fn copysign(a: f64, b: f64) -> f64 {
        a.copysign(b)
    }

    /// `a * b + c` with one rounding (IEEE 754 fused multiply-add, exact by definition, so
    /// every consumer gets the same bits).
    ///
    /// ```
    /// use flatland_runtime::expr::op::float::mul_add;
    /// assert_eq!(mul_add(2.0, 3.0, 1.0), 7.0);
    /// // one rounding: the product's low bits survive the subtraction
    /// let x = 1.0 + f64::EPSILON;
    /// assert_eq!(mul_add(x, x, -1.0 - 2.0 * f64::EPSILON), f64::EPSILON * f64::EPSILON);
    /// ```
    #[inline(always)]
    pub fn mul_add(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }

    /// `a` restricted to `lo..=hi` as `std`'s `f64::clamp` computes it (a NaN `a` stays NaN,
    /// `-0.0` stays below `0.0`), or `None` where `std` panics: `lo > hi` or a NaN bound.
    ///
    /// ```
    /// use flatland_runtime::expr::op::float::clamp;
    /// assert_eq!(clamp(5.0, 0.0, 1.0), Some(1.0));
    /// assert_eq!(clamp(-0.0, 0.0, 1.0).map(f64::to_bits), Some((-0.0f64).to_bits()));
    /// assert!(clamp(f64::NAN, 0.0, 1.0).unwrap().is_nan());
    /// assert_eq!(clamp(0.5, 1.0, 0.0), None);
    /// assert_eq!(clamp(0.5, f64::NAN, 1.0), None);
    /// ```
    #[inline(always)]
    #[allow(clippy::manual_clamp)] // std's clamp panics where this returns `None`
    pub fn clamp(a: f64, lo: f64, hi: f64) -> Option<f64> {
        if lo.partial_cmp(&hi).is_none_or(std::cmp::Ordering::is_gt) {
            return None;
        }
        Some(if a < lo {
            lo
        } else if a > hi {
            hi
        } else {
            a
        })
    }

    /// Euclidean remainder: `r` in `[0, |b|)` with `a = b * q + r` (`std`'s `rem_euclid`).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::float::rem_euclid(-7.0, 2.0), 1.0);
    /// ```
    #[inline(always)]
    pub fn rem_euclid(a: f64, b: f64) -> f64 {
        a.rem_euclid(b)
    }

    /// Euclidean division (`std`'s `div_euclid`).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::float::div_euclid(-7.0, 2.0), -4.0);
    /// ```
    #[inline(always)]
    pub fn div_euclid(a: f64, b: f64) -> f64 {
        a.div_euclid(b)
    }

    /// IEEE 754-2019 `minimum`: NaN if either is NaN, `-0.0 < +0.0`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::float::min;
    /// assert!(min(f64::NAN, 1.0).is_nan());
    /// assert_eq!(min(0.0, -0.0).to_bits(), (-0.0f64).to_bits());
    /// ```
    #[inline(always)]
    pub fn min(a: f64, b: f64) -> f64 {
        // Written as selects so the block loop vectorises. Equal operands have equal bits except
        // for zeros, where OR-ing the bits picks -0.0.
        let m = if a < b { a } else { b };
        let m = if a == b {
            f64::from_bits(a.to_bits() | b.to_bits())
        } else {
            m
        };
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            m
        }
    }

    /// IEEE 754-2019 `maximum`: NaN if either is NaN, `+0.0 > -0.0`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::float::max;
    /// assert!(max(1.0, f64::NAN).is_nan());
    /// assert_eq!(max(-0.0, 0.0).to_bits(), 0.0f64.to_bits());
    /// ```
    #[inline(always)]
    pub fn max(a: f64, b: f64) -> f64 {
        // As `min`; AND-ing the bits of equal zeros picks +0.0.
        let m = if a > b { a } else { b };
        let m = if a == b {
            f64::from_bits(a.to_bits() & b.to_bits())
        } else {
            m
        };
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            m
        }
    }

    /// `std`'s `f64::min`: a NaN operand is ignored (NaN only if both are), `-0.0 < +0.0`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::float::min_num;
    /// assert_eq!(min_num(f64::NAN, 1.0), 1.0);
    /// assert_eq!(min_num(0.0, -0.0).to_bits(), (-0.0f64).to_bits());
    /// ```
    #[inline(always)]
    pub fn min_num(a: f64, b: f64) -> f64 {
        let m = min(a, b);
        if a.is_nan() {
            b
        } else if b.is_nan() {
            a
        } else {
            m
        }
    }

    /// `std`'s `f64::max`: a NaN operand is ignored (NaN only if both are), `+0.0 > -0.0`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::float::max_num;
    /// assert_eq!(max_num(1.0, f64::NAN), 1.0);
    /// assert_eq!(max_num(-0.0, 0.0).to_bits(), 0.0f64.to_bits());
    /// ```
    #[inline(always)]
    pub fn max_num(a: f64, b: f64) -> f64 {
        let m = max(a, b);
        if a.is_nan() {
            b
        } else if b.is_nan() {
            a
        } else {
            m
        }
    }
}

/// The `i64` math functions.
pub(super) mod int {
    /// `-1`, `0` or `1`.
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::signum(-5), -1);
    /// ```
    #[inline(always)]
    pub fn signum(a: i64) -> i64 {
        a.signum()
    }

    /// The number of one bits (of the two's complement).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::count_ones(-1), 64);
    /// ```
    #[inline(always)]
    pub fn count_ones(a: i64) -> i64 {
        i64::from(a.count_ones())
    }

    /// The number of leading zero bits (64 for 0, 0 for a negative number).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::leading_zeros(1), 63);
    /// ```
    #[inline(always)]
    pub fn leading_zeros(a: i64) -> i64 {
        i64::from(a.leading_zeros())
    }

    /// `a` restricted to `lo..=hi` (`std`'s `Ord::clamp`), or `None` where `std` panics:
    /// `lo > hi`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::int::clamp;
    /// assert_eq!(clamp(-7, 0, 10), Some(0));
    /// assert_eq!(clamp(1, 2, 1), None);
    /// ```
    #[inline(always)]
    pub fn clamp(a: i64, lo: i64, hi: i64) -> Option<i64> {
        (lo <= hi).then(|| a.clamp(lo, hi))
    }

    /// The number of trailing zero bits (64 for 0).
    ///
    /// ```
    /// assert_eq!(flatland_runtime::expr::op::int::trailing_zeros(8), 3);
    /// ```
    #[inline(always)]
    pub fn trailing_zeros(a: i64) -> i64 {
        i64::from(a.trailing_zeros())
    }

    /// `a^b`, wrapping, for `b >= 0` (`std`'s `wrapping_pow` for `b <= u32::MAX`). For `b < 0`
    /// the truncated reciprocal `1 / a^|b|`: `1` for `a == 1`, `±1` for `a == -1`, `0` for
    /// `|a| > 1`, and `None` (a division by zero) for `a == 0`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::int::pow;
    /// assert_eq!(pow(3, 4), Some(81));
    /// assert_eq!(pow(2, 64), Some(0));
    /// assert_eq!(pow(-1, -3), Some(-1));
    /// assert_eq!(pow(0, -1), None);
    /// ```
    #[inline]
    pub fn pow(a: i64, b: i64) -> Option<i64> {
        if b < 0 {
            return match a {
                0 => None,
                1 => Some(1),
                -1 => Some(if b & 1 == 1 { -1 } else { 1 }),
                _ => Some(0),
            };
        }
        let (mut e, mut x, mut r) = (b as u64, a, 1i64);
        while e != 0 {
            if e & 1 == 1 {
                r = r.wrapping_mul(x);
            }
            x = x.wrapping_mul(x);
            e >>= 1;
        }
        Some(r)
    }

    /// Euclidean remainder, in `[0, |b|)`; `None` when `b == 0`; `i64::MIN.rem_euclid(-1) == 0`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::int::rem_euclid;
    /// assert_eq!(rem_euclid(-7, 2), Some(1));
    /// assert_eq!(rem_euclid(-7, -2), Some(1));
    /// assert_eq!(rem_euclid(1, 0), None);
    /// ```
    #[inline(always)]
    pub fn rem_euclid(a: i64, b: i64) -> Option<i64> {
        if b == 0 {
            None
        } else {
            Some(a.wrapping_rem_euclid(b))
        }
    }

    /// Euclidean division (`a == b * q + rem_euclid(a, b)`); `None` when `b == 0`;
    /// `i64::MIN.div_euclid(-1)` wraps to `i64::MIN`.
    ///
    /// ```
    /// use flatland_runtime::expr::op::int::div_euclid;
    /// assert_eq!(div_euclid(-7, 2), Some(-4));
    /// assert_eq!(div_euclid(-7, -2), Some(4));
    /// assert_eq!(div_euclid(i64::MIN, -1), Some(i64::MIN));
    /// ```
    #[inline(always)]
    pub fn div_euclid(a: i64, b: i64) -> Option<i64> {
        if b == 0 {
            None
        } else {
            Some(a.wrapping_div_euclid(b))
        }
    }
}
