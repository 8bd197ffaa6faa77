package org.acc4j.templates.math;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.math.BigDecimal;
import java.util.function.DoubleFunction;
import java.util.function.DoubleUnaryOperator;
import org.acc4j.templates.math.Inputs.Kind;
import org.junit.jupiter.api.Test;

/**
 * Accuracy, special cases and semi-monotonicity of the double routines of {@link AccMath}: 10^6 seeded inputs a
 * function (see {@link Inputs}), each result proved faithful: equal to StrictMath's (which is within 1 ulp)
 * away from powers of two, or else checked against the BigDecimal reference; one input in 250 is checked against
 * the reference regardless, for the maximum error printed.
 */
class AccMathTest {
    static final int N = 1_000_000;
    static final long SEED = 0x5EED_ACC4L;
    private static final int SAMPLE = 250;

    /** A proof by analysis that r is faithful for this x (no reference needed), or false when there is none. */
    interface Certificate {
        boolean certifies(double x, double r);
    }

    /**
     * Runs one unary function over its input set; exact(x) is null where the result is a special case (then it
     * must equal StrictMath's). StrictMath vouches for an equal result away from powers of two when
     * {@code strictVouches} (its contract is 1 ulp), the certificate where it proves the result faithful; the
     * rest, and one input in 250 regardless, are checked against exact(x).
     */
    static Accuracy run(String name, Kind kind, DoubleUnaryOperator acc, DoubleUnaryOperator strict,
            DoubleFunction<BigDecimal> exact, boolean strictVouches) {
        return run(name, kind, acc, strict, exact, strictVouches, (x, r) -> false);
    }

    static Accuracy run(String name, Kind kind, DoubleUnaryOperator acc, DoubleUnaryOperator strict,
            DoubleFunction<BigDecimal> exact, boolean strictVouches, Certificate certificate) {
        double[] xs = Inputs.doubles(kind, N, SEED);
        Accuracy a = new Accuracy(name, false);
        for (int i = 0; i < xs.length; i++) {
            double x = xs[i];
            double r = acc.applyAsDouble(x);
            double s = strict.applyAsDouble(x);
            a.strictDistance(r, s);
            BigDecimal v = null;
            boolean sampled = i % SAMPLE == 0;
            boolean shortcut = strictVouches && r == s && Accuracy.interior(s, false) || certificate.certifies(x, r);
            if (shortcut && !sampled) {
                a.countShortcut();
                continue;
            }
            v = exact.apply(x);
            if (v == null) {
                a.countExact();
                if (Double.compare(r, s) != 0) {
                    fail(name + "(" + x + ") = " + r + ", expected " + s + " (special case)");
                }
                continue;
            }
            Accuracy.Check c = a.reference(r, v, Double.toString(x));
            if (!c.faithful()) {
                fail(name + "(" + x + " = " + Double.toHexString(x) + ") = " + r + " is not faithful: exact "
                        + v + ", error " + c.ulps() + " ulp");
            }
        }
        System.out.println(a.summary());
        return a;
    }

    /** Adjacent-input runs: each sequence must move (weakly) in the direction the exact function moves. */
    static void semiMonotone(String name, DoubleUnaryOperator acc, DoubleUnaryOperator slope, double[] starts,
            int length) {
        for (double start : starts) {
            double[] xs = Inputs.adjacent(start, length);
            double d0 = slope.applyAsDouble(xs[0]);
            double d1 = slope.applyAsDouble(xs[length - 1]);
            if (!(d0 * d1 > 0)) {
                continue; // an extremum or a pole inside the run, or no slope known
            }
            double prev = acc.applyAsDouble(xs[0]);
            for (int i = 1; i < length; i++) {
                double cur = acc.applyAsDouble(xs[i]);
                if (d0 > 0 ? cur < prev : cur > prev) {
                    fail(name + " is not semi-monotonic at " + Double.toHexString(xs[i - 1]) + ", "
                            + Double.toHexString(xs[i]) + ": " + prev + ", " + cur);
                }
                prev = cur;
            }
        }
    }

    static double[] starts(long seed, int count, DoubleUnaryOperator gen) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        double[] out = new double[count];
        for (int i = 0; i < count; i++) {
            out[i] = gen.applyAsDouble(rnd.nextDouble());
        }
        return out;
    }

    static void assertSame(double expected, double actual, String what) {
        assertEquals(Double.doubleToLongBits(expected), Double.doubleToLongBits(actual),
                what + ": expected " + expected + " but got " + actual);
    }

    // ---------------------------------------------------------------- exp

    static BigDecimal exactExp(double x) {
        return Double.isFinite(x) && x > -800 && x < 800 ? BigMath.exp(x) : null;
    }

    @Test
    void expIsFaithful() {
        // e^x is in (1 - 2^-53, 1 + 2^-52) for |x| < 2^-53, above MAX_VALUE past 709.79, below MIN_VALUE/2 under -745.2
        Accuracy a = run("exp", Kind.EXP, AccMath::exp, StrictMath::exp, AccMathTest::exactExp, true,
                (x, r) -> Math.abs(x) < 0x1p-53 && r == 1.0 || x > 709.79 && r == Double.POSITIVE_INFINITY
                        || x < -745.2 && Double.doubleToRawLongBits(r) == 0);
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void expSpecialCases() {
        assertSame(Double.NaN, AccMath.exp(Double.NaN), "exp(NaN)");
        assertSame(Double.POSITIVE_INFINITY, AccMath.exp(Double.POSITIVE_INFINITY), "exp(+inf)");
        assertSame(0.0, AccMath.exp(Double.NEGATIVE_INFINITY), "exp(-inf)");
        assertSame(1.0, AccMath.exp(0.0), "exp(0)");
        assertSame(1.0, AccMath.exp(-0.0), "exp(-0)");
        assertSame(Double.POSITIVE_INFINITY, AccMath.exp(709.7827128933841), "exp overflow");
        assertSame(0x1.fffffffffff2ap1023, AccMath.exp(709.782712893384), "exp near MAX");
        assertSame(Double.MIN_VALUE, AccMath.exp(-744.4400719213812), "exp to MIN_VALUE");
        assertSame(0.0, AccMath.exp(-745.2), "exp underflow");
        assertSame(Double.MIN_VALUE, AccMath.exp(-745.1332191019411), "exp just above MIN_VALUE/2");
        for (double x : new double[] {Double.MIN_VALUE, -Double.MIN_VALUE, 0x1p-60, -0x1p-60, 1e-300}) {
            assertSame(1.0, AccMath.exp(x), "exp(" + x + ")");
        }
    }

    @Test
    void expIsSemiMonotonic() {
        semiMonotone("exp", AccMath::exp, x -> 1, starts(1, 3000, u -> -745.2 + 1455 * u), 64);
        semiMonotone("exp", AccMath::exp, x -> 1, starts(2, 3000, u -> Math.rint(-137000 + 268000 * u)
                * 0x1.62e42fefa39efp-8 - 32 * Math.ulp(700.0)), 128);
        semiMonotone("exp", AccMath::exp, x -> 1, new double[] {-1e-300, -0x1p-53, 0x1p-54, -745.14, -708.4,
                709.78, -0x1.62e42fefa39efp-9 - 0x1p-60}, 4096);
    }

    // ---------------------------------------------------------------- log

    static BigDecimal exactLog(double x) {
        return x > 0 && x < Double.POSITIVE_INFINITY ? BigMath.log(x) : null;
    }

    @Test
    void logIsFaithful() {
        Accuracy a = run("log", Kind.LOG, AccMath::log, StrictMath::log, AccMathTest::exactLog, true);
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void logSpecialCases() {
        assertSame(Double.NaN, AccMath.log(Double.NaN), "log(NaN)");
        assertSame(Double.NaN, AccMath.log(-1.0), "log(-1)");
        assertSame(Double.NaN, AccMath.log(-Double.MIN_VALUE), "log(-MIN_VALUE)");
        assertSame(Double.NaN, AccMath.log(Double.NEGATIVE_INFINITY), "log(-inf)");
        assertSame(Double.POSITIVE_INFINITY, AccMath.log(Double.POSITIVE_INFINITY), "log(+inf)");
        assertSame(Double.NEGATIVE_INFINITY, AccMath.log(0.0), "log(+0)");
        assertSame(Double.NEGATIVE_INFINITY, AccMath.log(-0.0), "log(-0)");
        assertSame(0.0, AccMath.log(1.0), "log(1)");
        assertSame(StrictMath.log(Double.MIN_VALUE), AccMath.log(Double.MIN_VALUE), "log(MIN_VALUE)");
        assertSame(StrictMath.log(Double.MAX_VALUE), AccMath.log(Double.MAX_VALUE), "log(MAX_VALUE)");
    }

    @Test
    void logIsSemiMonotonic() {
        semiMonotone("log", AccMath::log, x -> 1, starts(3, 3000, u -> Math.scalb(1.0 + u, (int) (u * 2000) - 1000)), 64);
        double[] slices = new double[258];
        for (int i = 0; i < 129; i++) {
            double b = Double.longBitsToDouble(0x3fe6a00000000000L + ((long) i << 45));
            slices[2 * i] = Math.nextDown(Math.nextDown(b));
            slices[2 * i + 1] = Math.scalb(slices[2 * i], 700);
        }
        semiMonotone("log", AccMath::log, x -> 1, slices, 8);
        semiMonotone("log", AccMath::log, x -> 1, new double[] {1 - 0x1p-40, 0.5 - 0x1p-50, Math.nextDown(0x1p-1022),
                0x1p-1074}, 4096);
    }

    // ---------------------------------------------------------------- tanh

    static BigDecimal exactTanh(double x) {
        return Double.isFinite(x) ? BigMath.tanh(x) : null;
    }

    @Test
    void tanhIsFaithful() {
        Accuracy a = run("tanh", Kind.TANH, AccMath::tanh, StrictMath::tanh, AccMathTest::exactTanh, false,
                TanhReference::certainlyFaithful);
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void tanhSpecialCases() {
        assertSame(Double.NaN, AccMath.tanh(Double.NaN), "tanh(NaN)");
        assertSame(0.0, AccMath.tanh(0.0), "tanh(+0)");
        assertSame(-0.0, AccMath.tanh(-0.0), "tanh(-0)");
        assertSame(1.0, AccMath.tanh(Double.POSITIVE_INFINITY), "tanh(+inf)");
        assertSame(-1.0, AccMath.tanh(Double.NEGATIVE_INFINITY), "tanh(-inf)");
        assertSame(Double.MIN_VALUE, AccMath.tanh(Double.MIN_VALUE), "tanh(MIN_VALUE)");
        assertSame(-1.0, AccMath.tanh(-25.0), "tanh(-25)");
    }

    @Test
    void tanhIsSemiMonotonic() {
        semiMonotone("tanh", AccMath::tanh, x -> 1, starts(4, 3000, u -> -20 + 40 * u), 64);
        semiMonotone("tanh", AccMath::tanh, x -> 1, new double[] {0x1p-28 - 0x1p-70, -0x1p-28 - 0x1p-70, 19.06, 20 - 0x1p-48,
                Math.nextDown(0x1.62e42fefa39efp-9), 0.5 * 0x1.62e42fefa39efp-1 - 0x1p-50}, 4096);
    }

    // ---------------------------------------------------------------- pow

    /** The result {@link Math#pow}'s javadoc prescribes, or null where the general rule (|x|^y, signed) applies. */
    static Double javadocPow(double x, double y) {
        if (y == 0.0) {
            return 1.0;
        }
        if (y == 1.0) {
            return x;
        }
        if (Double.isNaN(y) || Double.isNaN(x)) {
            return Double.NaN;
        }
        double ax = Math.abs(x);
        if (Double.isInfinite(y)) {
            if (ax == 1.0) {
                return Double.NaN;
            }
            return ax > 1.0 == y > 0.0 ? Double.POSITIVE_INFINITY : 0.0;
        }
        boolean isInt = Math.ceil(y) == y;
        boolean odd = isInt && Math.abs(y) < 0x1p53 && (long) y % 2 != 0;
        boolean negZero = Double.doubleToRawLongBits(x) == Long.MIN_VALUE;
        if (x == 0.0 && !negZero && y > 0 || x == Double.POSITIVE_INFINITY && y < 0) {
            return 0.0;
        }
        if (x == 0.0 && !negZero && y < 0 || x == Double.POSITIVE_INFINITY && y > 0) {
            return Double.POSITIVE_INFINITY;
        }
        if (negZero && y > 0 || x == Double.NEGATIVE_INFINITY && y < 0) {
            return odd ? -0.0 : 0.0;
        }
        if (negZero && y < 0 || x == Double.NEGATIVE_INFINITY && y > 0) {
            return odd ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (x < 0 && !isInt) {
            return Double.NaN;
        }
        return null;
    }

    /**
     * Proofs by analysis for pow where javadocPow gives no special case: t = y log|x| is known to a relative
     * 2^-50 from StrictMath.log, and |x|^y = e^t is then surely above MAX_VALUE, below MIN_VALUE/2, or within
     * 2^-54 of 1 (where 1 is faithful).
     */
    static boolean powCertified(double x, double y, double r) {
        double t = y * StrictMath.log(Math.abs(x));
        double sign = x < 0 && Math.abs(y) < 0x1p53 && (long) y % 2 != 0 ? -1.0 : 1.0;
        if (t > 710.0) {
            return r == sign * Double.POSITIVE_INFINITY;
        }
        if (t < -746.0) {
            return Double.doubleToRawLongBits(r) == Double.doubleToRawLongBits(sign * 0.0);
        }
        return Math.abs(t) < 0x1p-55 && r == sign;
    }

    /** The exact x^y where javadocPow gives no special case; null when it is far outside the double range. */
    static BigDecimal exactPow(double x, double y) {
        if (y == Math.rint(y) && Math.abs(y) <= 64 && Math.abs(Math.getExponent(x)) <= 64) {
            // an integer power exactly, or its reciprocal to 40 digits
            BigDecimal p = new BigDecimal(x).pow((int) Math.abs(y));
            return y > 0 ? p : BigDecimal.ONE.divide(p, BigMath.MC);
        }
        BigDecimal v = BigMath.powAbs(x, y);
        boolean odd = Math.abs(y) < 0x1p53 && (long) y % 2 != 0;
        return v == null ? null : x < 0 && odd ? v.negate() : v;
    }

    @Test
    void powIsFaithful() {
        double[] xs = Inputs.doubles(Kind.POW, N, SEED);
        double[] ys = Inputs.powExponents(N, SEED);
        Accuracy a = new Accuracy("pow", false);
        for (int i = 0; i < N; i++) {
            double x = xs[i];
            double y = ys[i];
            double r = AccMath.pow(x, y);
            double s = StrictMath.pow(x, y);
            a.strictDistance(r, s);
            Double special = javadocPow(x, y);
            if (special != null) {
                a.countExact();
                assertSame(special, r, "pow(" + x + ", " + y + ")");
                continue;
            }
            // fdlibm's pow is off by hundreds of ulps for |y| > 2^31 (its short log series): no vouching there
            if ((r == s && Accuracy.interior(s, false) && Math.abs(y) < 0x1p31 || powCertified(x, y, r))
                    && i % SAMPLE != 0) {
                a.countShortcut();
                continue;
            }
            BigDecimal v = exactPow(x, y);
            if (v == null) {
                a.countExact();
                assertSame(s, r, "pow(" + x + ", " + y + ") far out of range");
                continue;
            }
            Accuracy.Check c = a.reference(r, v, x + ", " + y);
            if (!c.faithful()) {
                fail("pow(" + x + ", " + y + ") = " + r + " is not faithful: exact " + v + ", error " + c.ulps());
            }
        }
        System.out.println(a.summary());
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void powSpecialCases() {
        double[] xs = {Double.NaN, Double.NEGATIVE_INFINITY, -Double.MAX_VALUE, -3.0, -2.5, -2.0, -1.0, -0.5,
            -Double.MIN_VALUE, -0.0, 0.0, Double.MIN_VALUE, 0.5, 1.0, 2.0, 2.5, 3.0, Double.MAX_VALUE,
            Double.POSITIVE_INFINITY, Math.nextUp(1.0), Math.nextDown(1.0), -Math.nextUp(1.0), -Math.nextDown(1.0)};
        double[] ys = {Double.NaN, Double.NEGATIVE_INFINITY, -1e300, -0x1p53 - 2, -0x1p53, -3.0, -2.0, -1.0, -0.5,
            -Double.MIN_VALUE, -0.0, 0.0, Double.MIN_VALUE, 0.1, 0.5, 1.0, 2.0, 3.0, 0x1p52 + 1, 0x1p53, 0x1p53 + 2,
            0x1p60, 1e300, Double.POSITIVE_INFINITY, Math.nextUp(1.0), Math.nextDown(1.0)};
        int general = 0;
        for (double x : xs) {
            for (double y : ys) {
                double r = AccMath.pow(x, y);
                Double special = javadocPow(x, y);
                if (special != null) {
                    assertSame(special, r, "pow(" + x + ", " + y + ")");
                    assertSame(special, StrictMath.pow(x, y), "StrictMath.pow(" + x + ", " + y + ") (test oracle)");
                    continue;
                }
                general++;
                BigDecimal v = exactPow(x, y);
                if (v == null) {
                    assertSame(StrictMath.pow(x, y), r, "pow(" + x + ", " + y + ")");
                } else {
                    assertTrue(Accuracy.check(r, v, false).faithful(), "pow(" + x + ", " + y + ") = " + r + ", exact " + v);
                }
            }
        }
        assertTrue(general > 100);
    }

    @Test
    void powOfIntegersIsExactWhenRepresentable() {
        for (int x = -40; x <= 40; x++) {
            for (int y = -40; y <= 60; y++) {
                java.math.BigInteger p = java.math.BigInteger.valueOf(x).abs().pow(Math.abs(y));
                if (x == 0 || y == 0 || p.bitLength() > 1000) {
                    continue;
                }
                BigDecimal exact = y > 0 ? new BigDecimal(p) : BigDecimal.ONE.divide(new BigDecimal(p), BigMath.MC);
                if (x < 0 && (y & 1) != 0) {
                    exact = exact.negate();
                }
                double d = exact.doubleValue();
                if (new BigDecimal(d).compareTo(exact) == 0) {
                    assertSame(d, AccMath.pow(x, y), "pow(" + x + ", " + y + ")");
                }
            }
        }
        assertSame(0x1p-1074, AccMath.pow(2, -1074), "pow(2, -1074)");
        assertSame(0x1p1023, AccMath.pow(2, 1023), "pow(2, 1023)");
        assertSame(Double.POSITIVE_INFINITY, AccMath.pow(2, 1024), "pow(2, 1024)");
        assertSame(3.0, AccMath.pow(9, 0.5), "pow(9, 0.5)");
    }

    @Test
    void powIsSemiMonotonic() {
        for (double y : new double[] {-7.0, -2.5, -1.0, -0.5, 0.3, 0.5, 2.0, 3.0, 17.5, 1000.0}) {
            double yy = y;
            DoubleUnaryOperator f = x -> AccMath.pow(x, yy);
            semiMonotone("pow(x, " + y + ")", f, x -> Math.signum(yy), starts(5, 500, u -> Math.scalb(1 + u, (int) (u * 40) - 20)), 64);
        }
        for (double x : new double[] {0.3, 0.999, 1.0001, 2.0, 10.0}) {
            double xx = x;
            DoubleUnaryOperator f = y -> AccMath.pow(xx, y);
            semiMonotone("pow(" + x + ", y)", f, y -> Math.signum(Math.log(xx)), starts(6, 500, u -> -30 + 60 * u), 64);
        }
        semiMonotone("pow(x, 2)", x -> AccMath.pow(x, 2.0), x -> -1, starts(7, 500, u -> -Math.scalb(1 + u, (int) (u * 40) - 20)), 64);
        semiMonotone("pow(x, 3)", x -> AccMath.pow(x, 3.0), x -> 1, starts(8, 500, u -> -Math.scalb(1 + u, (int) (u * 40) - 20)), 64);
    }
}
