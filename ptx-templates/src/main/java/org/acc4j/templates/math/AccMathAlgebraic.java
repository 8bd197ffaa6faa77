package org.acc4j.templates.math;

/**
 * The Java mirror of the algebraic PTX routines ({@code hypot_f64.ptx}), under the conventions of
 * {@link AccMath}: the same operations in the same order, so every result has the GPU's bits; faithful (measured
 * at 0.5 ulp: the results are correctly rounded but for rare near-halfway cases), semi-monotonic, with the
 * special cases of {@link Math}'s javadoc. Stateless and thread-safe.
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
}
