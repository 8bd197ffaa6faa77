package org.acc4j.templates.math;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * Decides whether a computed result is faithfully rounded (one of the two grid values that bracket the exact
 * value) and measures its error in ulps of the exact value's binade, on the double or the float grid.
 * One instance gathers the statistics of one function's run.
 */
final class Accuracy {
    /** Relative distance below which a reference value is taken to be the grid value it is next to. */
    private static final BigDecimal SNAP = new BigDecimal("1e-36");

    private final String name;
    private final boolean isFloat;
    private long checked;
    private long sameAsStrict;
    private long referenced;
    private double maxUlps;
    private String worst = "none";
    private double maxStrictUlps;

    Accuracy(String name, boolean isFloat) {
        this.name = name;
        this.isFloat = isFloat;
    }

    /** A checked result: faithful or not, with its error in ulps. */
    record Check(boolean faithful, double ulps) {
    }

    /** Counts one input certified without BigDecimal: equal to StrictMath's result, or by an error bound. */
    void countShortcut() {
        checked++;
        sameAsStrict++;
    }

    /** Counts one input checked exactly (special value or non-finite result). */
    void countExact() {
        checked++;
    }

    /** Records the distance in ulps between the result and StrictMath's, as information. */
    void strictDistance(double r, double s) {
        if (Double.isFinite(r) && Double.isFinite(s) && r != s) {
            double d = Math.abs(r - s) / Math.ulp(isFloat ? (float) s : s);
            maxStrictUlps = Math.max(maxStrictUlps, d);
        }
    }

    /** Checks r against the exact value v and records the error; returns the check. */
    Check reference(double r, BigDecimal v, String input) {
        checked++;
        referenced++;
        Check c = check(r, v, isFloat);
        if (c.ulps() > maxUlps || !c.faithful()) {
            maxUlps = Math.max(maxUlps, c.ulps());
            worst = input + " -> " + r + " (exact " + v.round(new java.math.MathContext(25)) + ")";
        }
        return c;
    }

    double maxUlps() {
        return maxUlps;
    }

    String worst() {
        return worst;
    }

    String summary() {
        return String.format(Locale.ROOT, "%-6s %8d inputs, max error %.4f ulp (%d checked against the BigDecimal"
                + " reference, %d certified without it), max distance to StrictMath %.2f ulp; worst: %s",
                name, checked, maxUlps, referenced, sameAsStrict, maxStrictUlps, worst);
    }

    /** True when s can vouch for a result equal to it: finite, nonzero, not next to a power of two. */
    static boolean interior(double s, boolean isFloat) {
        if (isFloat) {
            float f = (float) s;
            int m = Float.floatToRawIntBits(f) & 0x7FFFFF;
            return Float.isFinite(f) && f != 0 && m != 0 && m != 0x7FFFFF;
        }
        long m = Double.doubleToRawLongBits(s) & 0xFFFFFFFFFFFFFL;
        return Double.isFinite(s) && s != 0 && m != 0 && m != 0xFFFFFFFFFFFFFL;
    }

    /** Faithfulness and error of r against the exact value v on the chosen grid. */
    static Check check(double r, BigDecimal v, boolean isFloat) {
        if (Double.isNaN(r)) {
            return new Check(false, Double.POSITIVE_INFINITY);
        }
        int sign = v.signum();
        if (sign == 0) {
            return r == 0 ? new Check(true, 0) : new Check(false, Double.POSITIVE_INFINITY);
        }
        if (r != 0 && (r > 0) != (sign > 0) || r == 0 && Math.copySign(1.0, r) != sign) {
            return new Check(false, Double.POSITIVE_INFINITY);
        }
        BigDecimal av = v.abs();
        double ar = Math.abs(r);
        double max = isFloat ? Float.MAX_VALUE : Double.MAX_VALUE;
        if (av.compareTo(new BigDecimal(max)) > 0) {
            boolean ok = ar == Double.POSITIVE_INFINITY || ar == max;
            return new Check(ok, ok ? 0 : Double.POSITIVE_INFINITY);
        }
        if (Double.isInfinite(ar)) {
            return new Check(false, Double.POSITIVE_INFINITY);
        }
        double d = isFloat ? av.floatValue() : av.doubleValue();
        BigDecimal bd = new BigDecimal(d);
        if (d != 0 && av.subtract(bd).abs().compareTo(av.multiply(SNAP)) <= 0) {
            // an exact case (2^10, exp(0)...): only that value is faithful
            return ar == d ? new Check(true, 0) : new Check(false, ulps(ar, bd, d, isFloat));
        }
        double rd = bd.compareTo(av) <= 0 ? d : down(d, isFloat);
        double ru = up(rd, isFloat);
        BigDecimal spacing = new BigDecimal(ru).subtract(new BigDecimal(rd));
        double err = new BigDecimal(ar).subtract(av).abs().divide(spacing, BigMath.MC).doubleValue();
        return new Check(ar == rd || ar == ru, err);
    }

    private static double ulps(double ar, BigDecimal exact, double d, boolean isFloat) {
        BigDecimal spacing = new BigDecimal(up(d, isFloat)).subtract(new BigDecimal(d));
        return new BigDecimal(ar).subtract(exact).abs().divide(spacing, BigMath.MC).doubleValue();
    }

    private static double up(double d, boolean isFloat) {
        return isFloat ? Math.nextUp((float) d) : Math.nextUp(d);
    }

    private static double down(double d, boolean isFloat) {
        return isFloat ? Math.nextDown((float) d) : Math.nextDown(d);
    }
}
