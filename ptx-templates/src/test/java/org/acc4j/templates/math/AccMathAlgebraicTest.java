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
 * powers of two, the BigDecimal reference for the rest and for one input in 250.
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
}
