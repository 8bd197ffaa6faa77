package org.acc4j.templates.math;

import static org.acc4j.templates.math.Tables.ATAN_TAB;

/**
 * The Java mirror of the inverse trigonometric PTX routines ({@code atan_core_f64.ptx}, {@code atan2_f64.ptx},
 * {@code atan_f64.ptx}, {@code asin_f64.ptx}, {@code acos_f64.ptx}), under the conventions of {@link AccMath}:
 * the same operations in the same order, so every result has the GPU's bits; faithful (measured below 0.51 ulp),
 * semi-monotonic, with the special cases of {@link Math}'s javadoc.
 *
 * <p>All four share {@link #atanCore}: the angle of the point (b, a) in the first quadrant, a and b given as
 * double-doubles, from atan of the quotient of the smaller by the larger, folded into the quadrant asked for.
 * Stateless and thread-safe.
 */
public final class AccMathInverse {
    private AccMathInverse() {
    }

    static final double PIO2H = 0x1.921fb54442d18p+0;
    static final double PIO2L = 0x1.1a62633145c07p-54;
    static final double PIH = 0x1.921fb54442d18p+1;
    static final double PIL = 0x1.1a62633145c07p-53;
    /**
     * Below this numerator both terms of the quotient are scaled by 2^200 (unless the denominator is above 2^800,
     * where the quotient is 0), so that the remainder of the division is exact.
     */
    static final double TINY_NUM = 0x1p-800;
    static final double SCALE_UP = 0x1p200;

    /**
     * The angle, in [0, pi], of the point (+-(b + bl), a + al) for a, b >= 0 finite, not both zero, as
     * {@code acc_math_atan_core_f64}: the point's x is negative when {@code left}. With z = min/max of a and b
     * (a double-double quotient), j = rint(32 z) and t = (z - j/32) / (1 + z j/32), |t| <= 1/64:
     * atan z = atan(j/32) + t - t^3/3 + ... - t^11/11, and the angle is atan z, pi/2 -+ atan z or pi - atan z.
     */
    static double atanCore(double a, double al, double b, double bl, boolean left) {
        boolean swap = a > b;
        double nh = swap ? b : a;
        double nl = swap ? bl : al;
        double dh = swap ? a : b;
        double dl = swap ? al : bl;
        double sc = nh < TINY_NUM && dh < 0x1p800 ? SCALE_UP : 1.0;
        nh = nh * sc;
        nl = nl * sc;
        dh = dh * sc;
        dl = dl * sc;
        // z = zh + zl = (nh + nl) / (dh + dl), the remainder of the division exact; below 2^-40 zh alone (atan z
        // is then within 2^-80 z of z, and zl may be subnormal)
        double zh = nh / dh;
        double rem = Math.fma(-zh, dh, nh);
        rem = rem + nl;
        rem = Math.fma(-zh, dl, rem);
        double zl = zh < 0x1p-40 ? 0.0 : rem / dh;
        // t = (z - c) / (1 + z c), c = j/32; zh - c is exact, the denominator a double-double
        double jd = Math.rint(zh * 32.0);
        int j = (int) jd;
        double c = jd * 0.03125;
        double n1 = zh - c;
        double p = zh * c;
        double pe = Math.fma(zh, c, -p);
        double d1 = 1.0 + p;
        double de = (1.0 - d1) + p;
        de = Math.fma(zl, c, de + pe);
        double th = n1 / d1;
        double tr = Math.fma(-th, d1, n1);
        tr = tr + zl;
        tr = Math.fma(-th, de, tr);
        double tl = tr / d1;
        // atan t = th + tl + th^3 (-1/3 + t^2/5 - t^4/7 + t^6/9 - t^8/11)
        double t2 = th * th;
        double q = Math.fma(t2, -0x1.745d1745d1746p-4, 0x1.c71c71c71c71cp-4);
        q = Math.fma(t2, q, -0x1.2492492492492p-3);
        q = Math.fma(t2, q, 0x1.999999999999ap-3);
        q = Math.fma(t2, q, -0x1.5555555555555p-2);
        double poly = t2 * th * q;
        double ah = Double.longBitsToDouble(ATAN_TAB[2 * j]);
        double al2 = Double.longBitsToDouble(ATAN_TAB[2 * j + 1]);
        // atan z = s1 + low
        double s1 = ah + th;
        double bb = s1 - ah;
        double e1 = (ah - (s1 - bb)) + (th - bb);
        double low = ((poly + tl) + al2) + e1;
        // the angle: base + sign * atan z with (base, sign) = (0, +), (pi/2, -), (pi, -) or (pi/2, +)
        double baseH = swap ? PIO2H : left ? PIH : 0.0;
        double baseL = swap ? PIO2L : left ? PIL : 0.0;
        if (swap != left) {
            s1 = -s1;
            low = -low;
        }
        double r = baseH + s1;
        bb = r - baseH;
        double e2 = (baseH - (r - bb)) + (s1 - bb);
        double l = (baseL + low) + e2;
        return r + l;
    }

    /**
     * The angle theta of the point (x, y), in [-pi, pi], as {@code acc_math_atan2_f64}, with every special case
     * of {@link Math#atan2}: the sign of y (zeros included) is the sign of the result, and x's sign bit picks the
     * left half-plane (so atan2(+0, -0) is pi).
     */
    public static double atan2(double y, double x) {
        if (y != y) {
            return y;
        }
        if (x != x) {
            return x;
        }
        double a = Math.abs(y);
        double b = Math.abs(x);
        boolean aInf = a == AccMath.INF;
        boolean bInf = b == AccMath.INF;
        // infinities become the finite point of the same angle; a zero y takes b = 1 (angle 0 or pi)
        double a1 = aInf ? 1.0 : bInf ? 0.0 : a;
        double b1 = bInf ? 1.0 : aInf ? 0.0 : b;
        b1 = a1 == 0.0 ? 1.0 : b1;
        double r = atanCore(a1, 0.0, b1, 0.0, Double.doubleToRawLongBits(x) < 0);
        return Double.doubleToRawLongBits(y) < 0 ? -r : r;
    }

    /** The arc tangent, in [-pi/2, pi/2], as {@code acc_math_atan_f64}: the angle of (1, x). */
    public static double atan(double x) {
        if (x != x) {
            return x;
        }
        double a = Math.abs(x);
        if (a < 0x1p-27) {
            return x;
        }
        // atan(+-Infinity) = +-pi/2: the point (0, 1)
        double a1 = a == AccMath.INF ? 1.0 : a;
        double b1 = a == AccMath.INF ? 0.0 : 1.0;
        double r = atanCore(a1, 0.0, b1, 0.0, false);
        return x < 0.0 ? -r : r;
    }

    /**
     * The arc sine, in [-pi/2, pi/2], as {@code acc_math_asin_f64}: the angle of (sqrt(1 - x^2), |x|), with the
     * square root as a double-double; NaN for |x| > 1, x itself below 2^-27.
     */
    public static double asin(double x) {
        if (x != x) {
            return x;
        }
        double a = Math.abs(x);
        if (a > 1.0) {
            return AccMath.NAN;
        }
        if (a < 0x1p-27) {
            return x;
        }
        double[] s = sqrtOneMinusSquare(a);
        double r = atanCore(a, 0.0, s[0], s[1], false);
        return x < 0.0 ? -r : r;
    }

    /**
     * The arc cosine, in [0, pi], as {@code acc_math_acos_f64}: the angle of (x, sqrt(1 - x^2)), with the square
     * root as a double-double; NaN for |x| > 1.
     */
    public static double acos(double x) {
        if (x != x) {
            return x;
        }
        double a = Math.abs(x);
        if (a > 1.0) {
            return AccMath.NAN;
        }
        double[] s = sqrtOneMinusSquare(a);
        return atanCore(s[0], s[1], a, 0.0, x < 0.0);
    }

    /**
     * sqrt(1 - a^2) for 0 <= a <= 1 as a double-double {hi, lo}: 1 - a^2 to about 2^-104 relative ((1 - a)(1 + a)
     * with 1 - a exact from 1/2 on, 1 - a*a as a double-double below), its rounded square root corrected by the
     * exact residual.
     */
    static double[] sqrtOneMinusSquare(double a) {
        double wh;
        double wl;
        if (a >= 0.5) {
            double u = 1.0 - a;
            double vh = 1.0 + a;
            double vl = (1.0 - vh) + a;
            wh = u * vh;
            wl = Math.fma(u, vh, -wh);
            wl = Math.fma(u, vl, wl);
        } else {
            double sq = a * a;
            double sql = Math.fma(a, a, -sq);
            wh = 1.0 - sq;
            wl = ((1.0 - wh) - sq) - sql;
        }
        double s = Math.sqrt(wh);
        double e = Math.fma(-s, s, wh);
        double sl = (e + wl) / (s + s);
        // sqrt(0) = 0 gives 0/0 above; the point is then (1, 0)
        return new double[] {s, s == 0.0 ? 0.0 : sl};
    }
}
