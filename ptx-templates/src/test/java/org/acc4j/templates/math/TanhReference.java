package org.acc4j.templates.math;

/**
 * A double-double tanh (relative error near 2^-95, by a different method from {@link AccMath#tanh}: Taylor series
 * and repeated squaring) that certifies most results without BigDecimal. StrictMath.tanh cannot serve: its
 * contract allows 2.5 ulps.
 */
final class TanhReference {
    private TanhReference() {
    }

    private static final double[] LN2 = BigMath.doubleDouble(BigMath.LN2);
    /** The bound used on the reference's relative error. */
    private static final double ERR = 0x1p-85;

    /** True when r is certainly one of the two doubles that bracket tanh(x); false when undecided. */
    static boolean certainlyFaithful(double x, double r) {
        double ax = Math.abs(x);
        if (!(ax >= 0x1p-30) || ax >= 22.0) {
            // |tanh x - x| < x^3/3 < ulp(x)/4 below 2^-30, and 1 - tanh x < 2^-62 above 22
            return ax < 0x1p-30 ? r == x : r == Math.copySign(1.0, x);
        }
        double[] t = tanhPositive(ax);
        double hi = t[0];
        double lo = t[1];
        double err = ERR * hi;
        double ar = Math.copySign(r, 1.0);
        if ((r < 0) != (x < 0)) {
            return false;
        }
        if (lo > err) {
            return ar == hi || ar == Math.nextUp(hi);
        }
        if (lo < -err) {
            return ar == hi || ar == Math.nextDown(hi);
        }
        return false;
    }

    /** tanh of 2^-30 <= ax < 22 as {hi, lo}. */
    static double[] tanhPositive(double ax) {
        double z = 2 * ax;
        double[] e = z < 0.5 ? expm1Series(z) : add(exp(z), -1.0, 0.0);
        return div(e, add(e, 2.0, 0.0));
    }

    private static double[] expm1Series(double z) {
        double[] term = {z, 0.0};
        double[] sum = {z, 0.0};
        for (int n = 2; n < 40; n++) {
            term = divD(mulD(term, z), n);
            sum = add(sum, term[0], term[1]);
        }
        return sum;
    }

    private static double[] exp(double z) {
        double n = Math.rint(z / LN2[0]);
        double[] w = add(new double[] {z, 0.0}, -n * LN2[0], -Math.fma(n, LN2[0], -n * LN2[0]));
        w = add(w, -n * LN2[1], 0.0);
        double[] u = {w[0] / 1024, w[1] / 1024};
        double[] term = {1.0, 0.0};
        double[] sum = {1.0, 0.0};
        for (int k = 1; k < 12; k++) {
            term = divD(mul(term, u), k);
            sum = add(sum, term[0], term[1]);
        }
        for (int i = 0; i < 10; i++) {
            sum = mul(sum, sum);
        }
        double scale = Math.scalb(1.0, (int) n);
        return new double[] {sum[0] * scale, sum[1] * scale};
    }

    private static double[] add(double[] a, double bh, double bl) {
        double s = a[0] + bh;
        double bb = s - a[0];
        double e = (a[0] - (s - bb)) + (bh - bb) + a[1] + bl;
        double h = s + e;
        return new double[] {h, e - (h - s)};
    }

    private static double[] add(double[] a, double[] b) {
        return add(a, b[0], b[1]);
    }

    private static double[] mul(double[] a, double[] b) {
        double p = a[0] * b[0];
        double e = Math.fma(a[0], b[0], -p) + (a[0] * b[1] + a[1] * b[0]);
        double h = p + e;
        return new double[] {h, e - (h - p)};
    }

    private static double[] mulD(double[] a, double b) {
        return mul(a, new double[] {b, 0.0});
    }

    private static double[] divD(double[] a, double b) {
        return div(a, new double[] {b, 0.0});
    }

    private static double[] div(double[] a, double[] b) {
        double q1 = a[0] / b[0];
        double[] r = add(a, neg(mul(b, new double[] {q1, 0.0})));
        double q2 = r[0] / b[0];
        r = add(r, neg(mul(b, new double[] {q2, 0.0})));
        double q3 = r[0] / b[0];
        double[] q = add(new double[] {q1, 0.0}, q2, 0.0);
        return add(q, q3, 0.0);
    }

    private static double[] neg(double[] a) {
        return new double[] {-a[0], -a[1]};
    }
}
