package org.acc4j.templates.math;

/**
 * The Java mirror of the algebraic PTX routines ({@code hypot_f64.ptx}, {@code cbrt_f64.ptx}), under the
 * conventions of {@link AccMath}: the same operations in the same order, so every result has the GPU's bits;
 * faithful (measured at 0.5 ulp: the results are correctly rounded but for rare near-halfway cases),
 * semi-monotonic, with the special cases of {@link Math}'s javadoc. Stateless and thread-safe.
 */
public final class AccMathAlgebraic {
    private AccMathAlgebraic() {
    }

    /**
     * sqrt(x^2 + y^2) without intermediate overflow or underflow, as {@code acc_math_hypot_f64}: +Infinity when
     * either argument is infinite (even with a NaN), else NaN for a NaN argument. With a >= b the absolute values,
     * a itself when b <= a 2^-27; otherwise both scaled by 2^-600 above 2^500 and by 2^600 below 2^-500,
     * a^2 + b^2 formed exactly as a double-double S, h = sqrt(S) rounded and corrected once by (S - h^2) / 2h
     * with the residual exact (Borges' correction), then scaled back; a result below 2^-1021 (both arguments
     * subnormal) is rounded once to the subnormal grid instead.
     */
    public static double hypot(double x, double y) {
        double ax = Math.abs(x);
        double ay = Math.abs(y);
        if (ax == AccMath.INF || ay == AccMath.INF) {
            return AccMath.INF;
        }
        if (x != x) {
            return x;
        }
        if (y != y) {
            return y;
        }
        boolean xLarger = ax > ay;
        double a = xLarger ? ax : ay;
        double b = xLarger ? ay : ax;
        if (b <= a * 0x1p-27) {
            return a;
        }
        boolean subnormal = a < 0x1p-1022;
        double sc = a > 0x1p500 ? 0x1p-600 : a < 0x1p-500 ? 0x1p600 : 1.0;
        double unscale = a > 0x1p500 ? 0x1p600 : a < 0x1p-500 ? 0x1p-600 : 1.0;
        a = a * sc;
        b = b * sc;
        // S = a^2 + b^2 = sh + sl, exact but for the last addition into sl
        double ah = a * a;
        double al = Math.fma(a, a, -ah);
        double bh = b * b;
        double bl = Math.fma(b, b, -bh);
        double sh = ah + bh;
        double el = (ah - sh) + bh;
        double sl = (el + al) + bl;
        // h = sqrt(sh), then h + (S - h^2) / 2h, S - h^2 exact as (sh - h^2) + sl
        double h = Math.sqrt(sh);
        double e = Math.fma(-h, h, sh);
        double c = (e + sl) / (h + h);
        if (subnormal) {
            // a result on the grid of 2^-1074: round h + c (2^474 times it, exactly) to an integer once
            double t = h + c;
            double te = (h - t) + c;
            t = t * 0x1p474;
            te = te * 0x1p474;
            double n = Math.rint(t);
            double d = t - n;
            if (d == 0.5 && te > 0.0) {
                n = n + 1.0;
            }
            if (d == -0.5 && te < 0.0) {
                n = n - 1.0;
            }
            return n * Double.MIN_VALUE;
        }
        return (h + c) * unscale;
    }

    // cbrt: cube root of m in [1, 2) to a relative 2^-13.7 (a near-minimax cubic), and 2^(1/3), 2^(2/3)
    static final double CBRT_P0 = 0x1.1b0bac5855942p-1;
    static final double CBRT_P1 = 0x1.2c9a3d6ba29efp-1;
    static final double CBRT_P2 = -0x1.4dc307e231a13p-3;
    static final double CBRT_P3 = 0x1.7a8d3887afa19p-6;
    static final double CBRT2 = 0x1.428a2f98d728bp+0;
    static final double CBRT4 = 0x1.965fea53d6e3dp+0;
    static final double THIRD = 0x1.5555555555555p-2;

    /**
     * The cube root, as {@code acc_math_cbrt_f64}: x itself for NaN, +-0 and +-Infinity, else the root of |x|
     * with x's sign (so cbrt(-x) == -cbrt(x)). A subnormal |x| is scaled by 2^54 first. |x| = 2^e m with m in
     * [1, 2) and e = 3q + r, r in {0, 1, 2}: the root of t = 2^r m in [1, 8) times 2^q. A cubic in m times
     * 2^(r/3) approximates it to 2^-13, two Newton steps y + (t/y^2 - y)/3 bring it to about 1 ulp, and one last
     * step y + (t - y^3) / 3y^2 with t - y^3 formed as a double-double (y^2 and y^2 y split exactly by fma) leaves
     * an error of about 2^-90 relative before the final rounding: faithful, in practice correctly rounded, and
     * exact when the root is a double (exact cubes). The scaling by 2^q is exact: the root is always normal.
     */
    public static double cbrt(double x) {
        double a = Math.abs(x);
        if (a == 0.0 || a == AccMath.INF || x != x) {
            return x;
        }
        boolean subnormal = a < 0x1p-1022;
        if (subnormal) {
            a = a * 0x1p54;
        }
        // e and m from the bits (shr.s64, and.b64, or.b64), e as a double
        long bits = Double.doubleToRawLongBits(a);
        long biased = (bits >> 52) - (subnormal ? 1077 : 1023);
        double e = (double) biased;
        double m = Double.longBitsToDouble(bits & 0x000FFFFFFFFFFFFFL | 0x3FF0000000000000L);
        // q = floor(e / 3) (the rounded quotient of an integer by 3 never crosses an integer), r = e - 3q
        double q = Math.floor(e / 3.0);
        double r = Math.fma(-3.0, q, e);
        double t = m * (r == 2.0 ? 4.0 : r == 1.0 ? 2.0 : 1.0);
        double c = r == 2.0 ? CBRT4 : r == 1.0 ? CBRT2 : 1.0;
        double y = Math.fma(Math.fma(Math.fma(CBRT_P3, m, CBRT_P2), m, CBRT_P1), m, CBRT_P0) * c;
        // two Newton steps on y^3 = t
        y = Math.fma(t / (y * y) - y, THIRD, y);
        y = Math.fma(t / (y * y) - y, THIRD, y);
        // y^3 = w y + wl y = p + pl + wl y exactly but for the last product; t - p is exact (Sterbenz)
        double w = y * y;
        double wl = Math.fma(y, y, -w);
        double p = w * y;
        double pl = Math.fma(w, y, -p);
        double res = ((t - p) - pl) - wl * y;
        y = y + res / (3.0 * w);
        // 2^q from its bits: q in [-358, 341]
        double scale = Double.longBitsToDouble((long) q + 1023 << 52);
        y = y * scale;
        return x < 0 ? -y : y;
    }
}
