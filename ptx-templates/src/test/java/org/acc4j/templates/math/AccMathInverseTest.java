package org.acc4j.templates.math;

import static org.acc4j.templates.math.AccMathTest.assertSame;
import static org.acc4j.templates.math.AccMathTest.semiMonotone;
import static org.acc4j.templates.math.AccMathTest.starts;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.math.BigDecimal;
import org.acc4j.templates.math.Inputs.Kind;
import org.junit.jupiter.api.Test;

/**
 * Accuracy, special cases and semi-monotonicity of {@link AccMathInverse}: atan, asin and acos on 10^6 seeded
 * inputs each as {@link AccMathTest} checks its functions (StrictMath, whose contract for them is 1 ulp, vouches
 * for equal results away from powers of two); atan2, whose StrictMath contract is 2 ulps, on 2 10^5 input pairs
 * each checked against the BigDecimal reference.
 */
class AccMathInverseTest {
    private static final int N = AccMathTest.N;
    private static final int N_ATAN2 = 200_000;
    private static final double PI = Math.PI;
    private static final double HALF_PI = Math.PI / 2;

    static BigDecimal exactAtan(double x) {
        if (!Double.isFinite(x)) {
            return null;
        }
        BigDecimal t = BigMath.atan(new BigDecimal(Math.abs(x)));
        return (x < 0 ? t.negate() : t).round(BigMath.MC);
    }

    static BigDecimal exactAsin(double x) {
        return Math.abs(x) <= 1.0 ? BigMath.asin(x) : null;
    }

    static BigDecimal exactAcos(double x) {
        return Math.abs(x) <= 1.0 ? BigMath.acos(x) : null;
    }

    @Test
    void atanIsFaithful() {
        // |atan x - x| < |x|^3/3 < ulp(x)/4 below 2^-27
        Accuracy a = AccMathTest.run("atan", Kind.ATAN, AccMathInverse::atan, StrictMath::atan,
                AccMathInverseTest::exactAtan, true, (x, r) -> Math.abs(x) < 0x1p-27 && r == x);
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void asinIsFaithful() {
        Accuracy a = AccMathTest.run("asin", Kind.ASIN, AccMathInverse::asin, StrictMath::asin,
                AccMathInverseTest::exactAsin, true, (x, r) -> Math.abs(x) < 0x1p-27 && r == x);
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void acosIsFaithful() {
        Accuracy a = AccMathTest.run("acos", Kind.ACOS, AccMathInverse::acos, StrictMath::acos,
                AccMathInverseTest::exactAcos, true);
        assertTrue(a.maxUlps() < 1.0);
    }

    /** The result Math.atan2's javadoc prescribes for NaN, zero and infinite arguments; null otherwise. */
    static Double javadocAtan2(double y, double x) {
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return Double.NaN;
        }
        boolean yNeg = Double.doubleToRawLongBits(y) < 0;
        boolean xNeg = Double.doubleToRawLongBits(x) < 0;
        double m;
        if (Double.isInfinite(y) && Double.isInfinite(x)) {
            m = xNeg ? 3 * PI / 4 : PI / 4;
        } else if (Double.isInfinite(y) || x == 0 && y != 0) {
            m = HALF_PI;
        } else if (y == 0 || Double.isInfinite(x)) {
            m = xNeg ? PI : 0.0;
        } else {
            return null;
        }
        return yNeg ? -m : m;
    }

    @Test
    void atan2IsFaithful() {
        double[] ys = Inputs.doubles(Kind.ATAN2, N_ATAN2, AccMathTest.SEED);
        double[] xs = Inputs.seconds(Kind.ATAN2, N_ATAN2, AccMathTest.SEED);
        Accuracy a = new Accuracy("atan2", false);
        for (int i = 0; i < N_ATAN2; i++) {
            double y = ys[i];
            double x = xs[i];
            double r = AccMathInverse.atan2(y, x);
            a.strictDistance(r, StrictMath.atan2(y, x));
            Double special = javadocAtan2(y, x);
            if (special != null) {
                a.countExact();
                assertSame(special, r, "atan2(" + y + ", " + x + ")");
                continue;
            }
            BigDecimal v = BigMath.atan2(y, x);
            Accuracy.Check c = a.reference(r, v, y + ", " + x);
            if (!c.faithful()) {
                fail("atan2(" + Double.toHexString(y) + ", " + Double.toHexString(x) + ") = " + r
                        + " is not faithful: exact " + v + ", error " + c.ulps() + " ulp");
            }
        }
        System.out.println(a.summary());
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void atan2SpecialCases() {
        double[] vs = {Double.NaN, Double.NEGATIVE_INFINITY, -Double.MAX_VALUE, -2.0, -Double.MIN_VALUE, -0.0, 0.0,
            Double.MIN_VALUE, 0x1p-1022, 1.0, 3.0, Double.MAX_VALUE, Double.POSITIVE_INFINITY};
        int general = 0;
        for (double y : vs) {
            for (double x : vs) {
                double r = AccMathInverse.atan2(y, x);
                Double special = javadocAtan2(y, x);
                if (special != null) {
                    assertSame(special, r, "atan2(" + y + ", " + x + ")");
                    assertSame(special, StrictMath.atan2(y, x), "StrictMath.atan2(" + y + ", " + x + ") (oracle)");
                } else {
                    general++;
                    BigDecimal v = BigMath.atan2(y, x);
                    assertTrue(Accuracy.check(r, v, false).faithful(), "atan2(" + y + ", " + x + ") = " + r
                            + ", exact " + v);
                }
            }
        }
        assertTrue(general > 50);
        assertSame(PI / 4, AccMathInverse.atan2(1.0, 1.0), "atan2(1, 1)");
        assertSame(-3 * PI / 4, AccMathInverse.atan2(-5.0, -5.0), "atan2(-5, -5)");
        assertSame(HALF_PI, AccMathInverse.atan2(Double.MIN_VALUE, 0.0), "atan2(MIN_VALUE, 0)");
        assertSame(Double.MIN_VALUE, AccMathInverse.atan2(Double.MIN_VALUE, 1.0), "atan2(MIN_VALUE, 1)");
        assertSame(0.0, AccMathInverse.atan2(Double.MIN_VALUE, Double.MAX_VALUE), "atan2(MIN_VALUE, MAX_VALUE)");
        assertSame(PI, AccMathInverse.atan2(Double.MIN_VALUE, -Double.MAX_VALUE), "atan2(MIN_VALUE, -MAX_VALUE)");
    }

    @Test
    void atanAsinAcosSpecialCases() {
        assertSame(Double.NaN, AccMathInverse.atan(Double.NaN), "atan(NaN)");
        assertSame(0.0, AccMathInverse.atan(0.0), "atan(+0)");
        assertSame(-0.0, AccMathInverse.atan(-0.0), "atan(-0)");
        assertSame(HALF_PI, AccMathInverse.atan(Double.POSITIVE_INFINITY), "atan(+inf)");
        assertSame(-HALF_PI, AccMathInverse.atan(Double.NEGATIVE_INFINITY), "atan(-inf)");
        assertSame(PI / 4, AccMathInverse.atan(1.0), "atan(1)");
        assertSame(-HALF_PI, AccMathInverse.atan(-Double.MAX_VALUE), "atan(-MAX_VALUE)");
        assertSame(Double.MIN_VALUE, AccMathInverse.atan(Double.MIN_VALUE), "atan(MIN_VALUE)");
        for (double x : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.0000000000000002,
            -1.0000000000000002, 2.0, -Double.MAX_VALUE}) {
            assertSame(Double.NaN, AccMathInverse.asin(x), "asin(" + x + ")");
            assertSame(Double.NaN, AccMathInverse.acos(x), "acos(" + x + ")");
        }
        assertSame(0.0, AccMathInverse.asin(0.0), "asin(+0)");
        assertSame(-0.0, AccMathInverse.asin(-0.0), "asin(-0)");
        assertSame(-Double.MIN_VALUE, AccMathInverse.asin(-Double.MIN_VALUE), "asin(-MIN_VALUE)");
        assertSame(HALF_PI, AccMathInverse.asin(1.0), "asin(1)");
        assertSame(-HALF_PI, AccMathInverse.asin(-1.0), "asin(-1)");
        assertSame(0.0, AccMathInverse.acos(1.0), "acos(1)");
        assertSame(PI, AccMathInverse.acos(-1.0), "acos(-1)");
        assertSame(HALF_PI, AccMathInverse.acos(0.0), "acos(+0)");
        assertSame(HALF_PI, AccMathInverse.acos(-0.0), "acos(-0)");
        for (double x : new double[] {0.5, -0.5, 0x1.6a09e667f3bcdp-1, 0x1p-27, 1 - 0x1p-53}) {
            assertTrue(Accuracy.check(AccMathInverse.asin(x), BigMath.asin(x), false).faithful(), "asin(" + x + ")");
            assertTrue(Accuracy.check(AccMathInverse.acos(x), BigMath.acos(x), false).faithful(), "acos(" + x + ")");
        }
    }

    @Test
    void semiMonotonic() {
        semiMonotone("atan", AccMathInverse::atan, x -> 1, starts(11, 3000, u -> Math.scalb(2 * u - 1, (int) (u * 80) - 40)), 64);
        double[] edges = new double[70];
        for (int j = 0; j < 33; j++) {
            edges[2 * j] = (j + 0.5) / 32 - 32 * 0x1p-53;
            edges[2 * j + 1] = 32 / (j + 0.5) - 32 * 0x1p-47;
        }
        edges[66] = 1.0 - 0x1p-47;
        edges[67] = 0x1p-27 - 0x1p-75;
        edges[68] = -0x1p-27 - 0x1p-75;
        edges[69] = 0x1p-900 - 0x1p-940;
        semiMonotone("atan", AccMathInverse::atan, x -> 1, edges, 128);
        semiMonotone("asin", AccMathInverse::asin, x -> 1, starts(12, 3000, u -> 2 * u - 1), 64);
        semiMonotone("acos", AccMathInverse::acos, x -> -1, starts(13, 3000, u -> 2 * u - 1), 64);
        semiMonotone("asin", AccMathInverse::asin, x -> 1, new double[] {0.5 - 0x1p-48, -0.5 - 0x1p-48,
            0x1.6a09e667f3bcdp-1 - 0x1p-47, 1 - 0x1p-46, -1.0, 0x1p-27 - 0x1p-75}, 256);
        semiMonotone("acos", AccMathInverse::acos, x -> -1, new double[] {0.5 - 0x1p-48, -0.5 - 0x1p-48,
            0x1.6a09e667f3bcdp-1 - 0x1p-47, 1 - 0x1p-46, -1.0, -0x1p-60}, 256);
        // atan2 along y for a fixed x > 0 increases, along x for a fixed y > 0 decreases
        for (double fixed : new double[] {1.0, 3.5, 1e-300, 1e300}) {
            semiMonotone("atan2(y, " + fixed + ")", y -> AccMathInverse.atan2(y, fixed), y -> 1,
                    starts(14, 500, u -> fixed * Math.scalb(2 * u - 1, (int) (u * 20) - 10)), 64);
            semiMonotone("atan2(" + fixed + ", x)", x -> AccMathInverse.atan2(fixed, x), x -> -1,
                    starts(15, 500, u -> fixed * Math.scalb(2 * u - 1, (int) (u * 20) - 10)), 64);
        }
    }
}
