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
 * Accuracy, special cases and semi-monotonicity of {@link AccMathAlgebraic}, as {@link AccMathTest} checks its
 * functions: 10^6 seeded inputs a function, StrictMath (1 ulp contract) vouching for equal results away from
 * powers of two, the BigDecimal reference for the rest and for one input in 250; cbrt's first 2 10^5 inputs
 * are also each checked against the reference, for its maximum error.
 */
class AccMathAlgebraicTest {
    private static final int N = AccMathTest.N;
    private static final int SAMPLE = 250;

    @Test
    void hypotIsFaithful() {
        double[] xs = Inputs.doubles(Kind.HYPOT, N, AccMathTest.SEED);
        double[] ys = Inputs.seconds(Kind.HYPOT, N, AccMathTest.SEED);
        Accuracy a = new Accuracy("hypot", false);
        for (int i = 0; i < N; i++) {
            double x = xs[i];
            double y = ys[i];
            double r = AccMathAlgebraic.hypot(x, y);
            double s = StrictMath.hypot(x, y);
            a.strictDistance(r, s);
            if (!Double.isFinite(x) || !Double.isFinite(y)) {
                a.countExact();
                assertSame(s, r, "hypot(" + x + ", " + y + ")");
                continue;
            }
            if (r == s && Accuracy.interior(s, false) && i % SAMPLE != 0) {
                a.countShortcut();
                continue;
            }
            BigDecimal v = BigMath.hypot(x, y);
            Accuracy.Check c = a.reference(r, v, x + ", " + y);
            if (!c.faithful()) {
                fail("hypot(" + Double.toHexString(x) + ", " + Double.toHexString(y) + ") = " + r
                        + " is not faithful: exact " + v + ", error " + c.ulps() + " ulp");
            }
        }
        System.out.println(a.summary());
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void hypotSpecialCases() {
        double inf = Double.POSITIVE_INFINITY;
        for (double v : new double[] {Double.NaN, inf, -inf, 0.0, -0.0, 1.0, -Double.MAX_VALUE, Double.MIN_VALUE}) {
            assertSame(inf, AccMathAlgebraic.hypot(inf, v), "hypot(inf, " + v + ")");
            assertSame(inf, AccMathAlgebraic.hypot(v, -inf), "hypot(" + v + ", -inf)");
            if (!Double.isInfinite(v)) {
                assertSame(Double.NaN, AccMathAlgebraic.hypot(Double.NaN, v), "hypot(NaN, " + v + ")");
                assertSame(Double.NaN, AccMathAlgebraic.hypot(v, Double.NaN), "hypot(" + v + ", NaN)");
            }
        }
        assertSame(0.0, AccMathAlgebraic.hypot(0.0, 0.0), "hypot(0, 0)");
        assertSame(0.0, AccMathAlgebraic.hypot(-0.0, -0.0), "hypot(-0, -0)");
        assertSame(2.5, AccMathAlgebraic.hypot(-0.0, -2.5), "hypot(-0, -2.5)");
        assertSame(5.0, AccMathAlgebraic.hypot(3.0, -4.0), "hypot(3, -4)");
        assertSame(5 * 0x1p-1070, AccMathAlgebraic.hypot(3 * 0x1p-1070, 4 * 0x1p-1070), "hypot of subnormals");
        assertSame(5 * 0x1p1000, AccMathAlgebraic.hypot(3 * 0x1p1000, 4 * 0x1p1000), "hypot near overflow");
        assertSame(inf, AccMathAlgebraic.hypot(Double.MAX_VALUE, Double.MAX_VALUE), "hypot(MAX, MAX)");
        assertSame(Double.MAX_VALUE, AccMathAlgebraic.hypot(Double.MAX_VALUE, 1.0), "hypot(MAX, 1)");
        assertSame(Double.MIN_VALUE, AccMathAlgebraic.hypot(Double.MIN_VALUE, Double.MIN_VALUE), "hypot(MIN, MIN)");
        for (long m = 2; m < 300; m++) {
            for (long n = 1; n < m; n++) {
                double p = m * m - n * n;
                double q = 2 * m * n;
                assertSame(m * m + n * n, AccMathAlgebraic.hypot(p, q), "hypot(" + p + ", " + q + ")");
            }
        }
    }

    @Test
    void hypotIsSemiMonotonic() {
        for (double fixed : new double[] {1.0, 0.75, 1e-300, 1e300, 0x1p500, 0x1p-500}) {
            semiMonotone("hypot(x, " + fixed + ")", x -> AccMathAlgebraic.hypot(x, fixed), x -> 1,
                    starts(21, 1000, u -> fixed * Math.scalb(1 + u, (int) (u * 70) - 35)), 64);
        }
        semiMonotone("hypot", x -> AccMathAlgebraic.hypot(x, 1.0), x -> 1, new double[] {0x1p27 - 0x1p-20,
            0x1p500 - 0x1p450, 0x1p-500 - 0x1p-550, 0x1p-27 - 0x1p-75}, 4096);
    }

    static BigDecimal exactCbrt(double x) {
        return Double.isFinite(x) && x != 0 ? BigMath.cbrt(x) : null;
    }

    @Test
    void cbrtIsFaithful() {
        Accuracy a = AccMathTest.run("cbrt", Kind.CBRT, AccMathAlgebraic::cbrt, StrictMath::cbrt,
                AccMathAlgebraicTest::exactCbrt, true);
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void cbrtMaxErrorAgainstTheReference() {
        double[] xs = Inputs.doubles(Kind.CBRT, N / 5, AccMathTest.SEED);
        Accuracy a = new Accuracy("cbrt*", false);
        for (double x : xs) {
            double r = AccMathAlgebraic.cbrt(x);
            BigDecimal v = exactCbrt(x);
            if (v == null) {
                a.countExact();
                assertSame(StrictMath.cbrt(x), r, "cbrt(" + x + ") (special case)");
                continue;
            }
            Accuracy.Check c = a.reference(r, v, Double.toString(x));
            if (!c.faithful()) {
                fail("cbrt(" + Double.toHexString(x) + ") = " + r + " is not faithful: exact " + v + ", error "
                        + c.ulps() + " ulp");
            }
        }
        System.out.println(a.summary());
        // the last step leaves about 2^-90 relative before rounding: correctly rounded but for near-halfway cases
        assertTrue(a.maxUlps() < 0.5001, a.summary());
    }

    @Test
    void cbrtSpecialCases() {
        double inf = Double.POSITIVE_INFINITY;
        assertSame(Double.NaN, AccMathAlgebraic.cbrt(Double.NaN), "cbrt(NaN)");
        assertSame(inf, AccMathAlgebraic.cbrt(inf), "cbrt(+inf)");
        assertSame(-inf, AccMathAlgebraic.cbrt(-inf), "cbrt(-inf)");
        assertSame(0.0, AccMathAlgebraic.cbrt(0.0), "cbrt(0)");
        assertSame(-0.0, AccMathAlgebraic.cbrt(-0.0), "cbrt(-0)");
        assertSame(3.0, AccMathAlgebraic.cbrt(27.0), "cbrt(27)");
        assertSame(-2.0, AccMathAlgebraic.cbrt(-8.0), "cbrt(-8)");
        assertSame(1.0, AccMathAlgebraic.cbrt(1.0), "cbrt(1)");
        assertSame(1.5, AccMathAlgebraic.cbrt(3.375), "cbrt(3.375)");
        assertSame(0x1p-358, AccMathAlgebraic.cbrt(Double.MIN_VALUE), "cbrt(MIN_VALUE)");
        assertSame(-3 * 0x1p-358, AccMathAlgebraic.cbrt(-27 * Double.MIN_VALUE), "cbrt(-27 MIN_VALUE)");
        assertSame(0x1p-341, AccMathAlgebraic.cbrt(0x1p-1023), "cbrt(2^-1023)");
        // powers of 8, and of 2 on either side of them
        for (int k = -358; k <= 341; k++) {
            double c = Math.scalb(1.0, 3 * k);
            assertSame(Math.scalb(1.0, k), AccMathAlgebraic.cbrt(c), "cbrt(2^" + 3 * k + ")");
            assertSame(-Math.scalb(1.0, k), AccMathAlgebraic.cbrt(-c), "cbrt(-2^" + 3 * k + ")");
        }
        // every integer cube that is a double, and some scaled by powers of 8 (down into the subnormals)
        for (int n = 1; n < 208_064; n++) {
            double c = (double) n * n * n;
            assertSame(n, AccMathAlgebraic.cbrt(c), "cbrt(" + n + "^3)");
            assertSame(-n, AccMathAlgebraic.cbrt(-c), "cbrt(-" + n + "^3)");
            int k = (n * 7919) % 700 - 358;
            if (3 * k + Math.getExponent(c) <= 1023) {
                assertSame(Math.scalb((double) n, k), AccMathAlgebraic.cbrt(Math.scalb(c, 3 * k)),
                        "cbrt(" + n + "^3 2^" + 3 * k + ")");
            }
        }
        // odd symmetry on the whole input set
        for (double x : Inputs.doubles(Kind.CBRT, 100_000, AccMathTest.SEED + 1)) {
            assertSame(-AccMathAlgebraic.cbrt(x), AccMathAlgebraic.cbrt(-x), "cbrt(-" + x + ")");
        }
        Accuracy.Check c = Accuracy.check(AccMathAlgebraic.cbrt(Double.MAX_VALUE), BigMath.cbrt(Double.MAX_VALUE),
                false);
        assertTrue(c.faithful(), "cbrt(MAX_VALUE)");
    }

    @Test
    void cbrtIsSemiMonotonic() {
        semiMonotone("cbrt", AccMathAlgebraic::cbrt, x -> 1,
                starts(31, 2000, u -> Math.scalb(1 + u, (int) (u * 2098) - 1074)), 256);
        semiMonotone("cbrt", AccMathAlgebraic::cbrt, x -> 1, starts(32, 500, u -> -8 * u), 256);
        // across powers of two (e mod 3 and the significand wrap), the subnormal threshold, exact cubes
        double[] edges = new double[40];
        for (int i = 0; i < 40; i++) {
            double e = i < 10 ? Math.scalb(1.0, i - 5) : i < 20 ? Math.scalb(1.0, 3 * (i - 15) + 1)
                    : i < 30 ? Math.scalb(1.0, 990 + i) : (double) (i * i * i);
            edges[i] = Math.nextDown(e - 1000 * Math.ulp(Math.nextDown(e)));
        }
        semiMonotone("cbrt", AccMathAlgebraic::cbrt, x -> 1, edges, 4096);
        semiMonotone("cbrt", AccMathAlgebraic::cbrt, x -> 1, new double[] {0x1p-1022 - 0x1p-1060, -0x1p-1022,
            -Double.MIN_VALUE * 100, Double.MAX_VALUE - 0x1p960}, 4096);
    }
}
