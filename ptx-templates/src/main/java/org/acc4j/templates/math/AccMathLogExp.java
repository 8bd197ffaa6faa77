package org.acc4j.templates.math;

import static org.acc4j.templates.math.AccMath.C3;
import static org.acc4j.templates.math.AccMath.C4;
import static org.acc4j.templates.math.AccMath.C5;
import static org.acc4j.templates.math.AccMath.C6;
import static org.acc4j.templates.math.AccMath.C7;
import static org.acc4j.templates.math.AccMath.INF;
import static org.acc4j.templates.math.AccMath.INV_LN2N;
import static org.acc4j.templates.math.AccMath.NAN;
import static org.acc4j.templates.math.AccMath.NEG_L1;
import static org.acc4j.templates.math.AccMath.NEG_L2;
import static org.acc4j.templates.math.Tables.EXP_TAB;

import org.acc4j.templates.math.AccMath.Dd;

/**
 * The Java mirror of the PTX routines built on the double-double logarithm and exponential
 * ({@code log10_f64.ptx}, {@code log1p_f64.ptx}, {@code expm1_core_f64.ptx}, {@code expm1_f64.ptx},
 * {@code sinh_f64.ptx}, {@code cosh_f64.ptx}), under the
 * conventions of {@link AccMath}: the same operations in the same order, so every result has the GPU's bits;
 * faithful, semi-monotonic, with the special cases of {@link Math}'s javadoc. log10 and log1p use
 * {@link AccMath#logCore}; expm1, sinh and cosh {@link #expm1Core} (e^x - 1 as a double-double) and, for large
 * arguments, {@link AccMath#expCore}. Stateless and thread-safe.
 */
public final class AccMathLogExp {
    private AccMathLogExp() {
    }

    /** 1/ln 10 = IL10H + IL10L. */
    static final double IL10H = 0x1.bcb7b1526e50ep-2;
    static final double IL10L = 0x1.95355baaafad3p-57;
    /** Above this e^x - 1 is e^x to 2^-86: expm1 is expCore. */
    static final double EXPM1_BIG = 60.0;
    /** Below this e^x - 1 rounds to -1 (e^-40 < 2^-57). */
    static final double EXPM1_MINUS_ONE = -40.0;

    /** The base-10 logarithm, as {@code acc_math_log10_f64}: log(x) as a double-double times 1/ln 10. */
    public static double log10(double x) {
        if (!(x > 0.0)) {
            if (x == 0.0) {
                return Double.NEGATIVE_INFINITY;
            }
            return x != x ? x : NAN;
        }
        if (x == INF) {
            return INF;
        }
        Dd l = AccMath.logCore(x);
        double ph = l.hi() * IL10H;
        double pl = Math.fma(l.hi(), IL10H, -ph);
        pl = Math.fma(l.hi(), IL10L, pl);
        pl = Math.fma(l.lo(), IL10H, pl);
        return ph + pl;
    }

    /**
     * log(1 + x), as {@code acc_math_log1p_f64}: below 2^-16 in magnitude its series to x^5; else 1 + x = uh + ul
     * exactly and log1p x = log(uh) + ul/uh, log(uh) a double-double.
     */
    public static double log1p(double x) {
        if (x != x) {
            return x;
        }
        if (x < -1.0) {
            return NAN;
        }
        if (x == -1.0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (x == INF) {
            return INF;
        }
        if (Math.abs(x) < 0x1p-16) {
            // x + x^2 (-1/2 + x/3 - x^2/4 + x^3/5)
            double q = Math.fma(x, 0.2, -0.25);
            q = Math.fma(x, q, 0x1.5555555555555p-2);
            q = Math.fma(x, q, -0.5);
            return Math.fma(x * x, q, x);
        }
        double uh = 1.0 + x;
        double bb = uh - x;
        double ul = (x - (uh - bb)) + (1.0 - bb);
        Dd l = AccMath.logCore(uh);
        double c = ul / uh;
        return l.hi() + (l.lo() + c);
    }

    /**
     * e^x - 1, as {@code acc_math_expm1_f64}: x itself below 2^-54 in magnitude, -1 below -40, e^x from
     * {@link AccMath#expCore} above 60 (+Infinity above 709.79), else {@link #expm1Core} rounded.
     */
    public static double expm1(double x) {
        if (x != x) {
            return x;
        }
        if (x > AccMath.EXP_OVERFLOW) {
            return INF;
        }
        if (x < EXPM1_MINUS_ONE) {
            return -1.0;
        }
        if (Math.abs(x) < 0x1p-54) {
            return x;
        }
        if (x > EXPM1_BIG) {
            return AccMath.expCore(x, 0.0);
        }
        Dd e = expm1Core(x);
        return e.hi() + e.lo();
    }

    /**
     * e^x - 1 for -40 <= x <= 60 as an unnormalized double-double (the low part may reach 2^-28 of the high
     * one) with a relative error below 2^-70, as
     * {@code acc_math_expm1_core_f64}: x = k ln2/128 + r (r as a double-double), e^r - 1 = ph + pl by its
     * series, e^x - 1 = 2^m 2^(j/128) (1 + p) - 1 with every sum that may cancel formed exactly.
     */
    static Dd expm1Core(double x) {
        double kd = Math.rint(x * INV_LN2N);
        long k = (long) kd;
        double r0 = Math.fma(kd, NEG_L1, x);
        double pk = kd * NEG_L2;
        double pkl = Math.fma(kd, NEG_L2, -pk);
        double rh = r0 + pk;
        double bb = rh - r0;
        double rl = ((r0 - (rh - bb)) + (pk - bb)) + pkl;
        // e^r - 1 = ph + pl = rh + rh^2/2 + rh^3 (1/6 + ... + rh^4/5040) + rl (1 + rh)
        double sq = rh * rh;
        double sql = Math.fma(rh, rh, -sq);
        double c = Math.fma(rh, C7, C6);
        c = Math.fma(rh, c, C5);
        c = Math.fma(rh, c, C4);
        c = Math.fma(rh, c, C3);
        c = sq * rh * c;
        double hh = 0.5 * sq;
        double ph = rh + hh;
        double pl = ((c + 0.5 * sql) + (hh - (ph - rh))) + Math.fma(rl, rh, rl);
        // 2^m (th + tl) (1 + ph + pl) - 1
        int j = (int) (k & 127);
        long m = k >> 7;
        double th = Double.longBitsToDouble(EXP_TAB[2 * j]);
        double tl = Double.longBitsToDouble(EXP_TAB[2 * j + 1]);
        double ah = th * ph;
        double al = Math.fma(th, ph, -ah);
        double low = Math.fma(th, pl, al) + Math.fma(tl, ph, tl);
        double sc = AccMath.pow2(m);
        double ts = th * sc;
        double g = ts - 1.0;
        bb = g - ts;
        double ge = (ts - (g - bb)) + (-1.0 - bb);
        double as = ah * sc;
        double eh = g + as;
        bb = eh - g;
        double e2 = (g - (eh - bb)) + (as - bb);
        double el = Math.fma(low, sc, ge + e2);
        return new Dd(eh, el);
    }

    /** Above this sinh and cosh are e^|x| / 2 to 2^-115. */
    static final double HYP_BIG = 40.0;

    /**
     * e^ax / 2 for ax > 40 (+Infinity above 710.48), as the large-argument path of {@code acc_math_sinh_f64} and
     * {@code acc_math_cosh_f64}: e^(ax - ln2) from {@link AccMath#expCore}, ax - LN2H exact.
     */
    static double halfExp(double ax) {
        double h = ax - AccMath.LN2H;
        if (h > AccMath.EXP_OVERFLOW) {
            return INF;
        }
        return AccMath.expCore(h, -AccMath.LN2L);
    }

    /**
     * The hyperbolic sine, as {@code acc_math_sinh_f64}: x itself below 2^-26 in magnitude; e^|x| / 2 above 40;
     * else with E = e^|x| - 1 from {@link #expm1Core}, sinh |x| = (E + E / (E + 1)) / 2 in double-double.
     */
    public static double sinh(double x) {
        if (x != x) {
            return x;
        }
        double ax = Math.abs(x);
        if (ax < 0x1p-26) {
            return x;
        }
        double r;
        if (ax > HYP_BIG) {
            r = halfExp(ax);
        } else {
            Dd e = expm1Core(ax);
            double eh = e.hi() + e.lo();
            double el = e.lo() - (eh - e.hi());
            // d = E + 1
            double dh = eh + 1.0;
            double bb = dh - eh;
            double dl = ((eh - (dh - bb)) + (1.0 - bb)) + el;
            // q = E / d, corrected by the exact remainder
            double q0 = eh / dh;
            double rem = Math.fma(-q0, dh, eh);
            rem = Math.fma(-q0, dl, rem + el);
            double ql = rem / dh;
            double sh = eh + q0;
            bb = sh - eh;
            double sl = (((eh - (sh - bb)) + (q0 - bb)) + el) + ql;
            r = 0.5 * (sh + sl);
        }
        return x < 0.0 ? -r : r;
    }

    /**
     * The hyperbolic cosine, as {@code acc_math_cosh_f64}: 1 below 2^-26 in magnitude; e^|x| / 2 above 40; else
     * with U = e^|x| = 1 + E from {@link #expm1Core}, cosh x = (U + 1/U) / 2 in double-double.
     */
    public static double cosh(double x) {
        if (x != x) {
            return x;
        }
        double ax = Math.abs(x);
        if (ax < 0x1p-26) {
            return 1.0;
        }
        if (ax > HYP_BIG) {
            return halfExp(ax);
        }
        Dd e = expm1Core(ax);
        double eh = e.hi() + e.lo();
        double el = e.lo() - (eh - e.hi());
        // u = 1 + E
        double uh = eh + 1.0;
        double bb = uh - eh;
        double ul = ((eh - (uh - bb)) + (1.0 - bb)) + el;
        // v = 1/u, corrected by the exact remainder
        double v0 = 1.0 / uh;
        double vr = Math.fma(-v0, uh, 1.0);
        vr = Math.fma(-v0, ul, vr);
        double vl = vr / uh;
        double sh = uh + v0;
        double sl = (((uh - sh) + v0) + ul) + vl;
        return 0.5 * (sh + sl);
    }
}
