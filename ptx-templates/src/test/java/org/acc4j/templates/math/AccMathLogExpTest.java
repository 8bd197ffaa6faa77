package org.acc4j.templates.math;

import static org.acc4j.templates.math.AccMathTest.assertSame;
import static org.acc4j.templates.math.AccMathTest.semiMonotone;
import static org.acc4j.templates.math.AccMathTest.starts;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import org.acc4j.templates.math.Inputs.Kind;
import org.junit.jupiter.api.Test;

/**
 * Accuracy, special cases and semi-monotonicity of {@link AccMathLogExp}, as {@link AccMathTest} checks its
 * functions: 10^6 seeded inputs a function, StrictMath (1 ulp contract for these) vouching for equal results away
 * from powers of two, the BigDecimal reference for the rest and for one input in 250.
 */
class AccMathLogExpTest {
    static BigDecimal exactLog10(double x) {
        return x > 0 && x < Double.POSITIVE_INFINITY ? BigMath.log10(x) : null;
    }

    static BigDecimal exactLog1p(double x) {
        return x > -1 && x < Double.POSITIVE_INFINITY ? BigMath.log1p(x) : null;
    }

    static BigDecimal exactExpm1(double x) {
        return x > -800 && x < 709.79 ? BigMath.expm1(x) : null;
    }

    @Test
    void log10IsFaithful() {
        Accuracy a = AccMathTest.run("log10", Kind.LOG10, AccMathLogExp::log10, StrictMath::log10,
                AccMathLogExpTest::exactLog10, true);
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void log1pIsFaithful() {
        // |log1p x - x| < x^2/2 < ulp(x)/4 below 2^-54
        Accuracy a = AccMathTest.run("log1p", Kind.LOG1P, AccMathLogExp::log1p, StrictMath::log1p,
                AccMathLogExpTest::exactLog1p, true, (x, r) -> Math.abs(x) < 0x1p-54 && r == x);
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void expm1IsFaithful() {
        // x below 2^-54 (|expm1 x - x| < ulp(x)/4), -1 below -40 (e^x < 2^-57)
        Accuracy a = AccMathTest.run("expm1", Kind.EXPM1, AccMathLogExp::expm1, StrictMath::expm1,
                AccMathLogExpTest::exactExpm1, true, (x, r) -> Math.abs(x) < 0x1p-54 && r == x
                        || x < -40 && r == -1.0 || x > 709.79 && r == Double.POSITIVE_INFINITY);
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void specialCases() {
        double inf = Double.POSITIVE_INFINITY;
        for (double x : new double[] {Double.NaN, -inf, -1.0, -Double.MIN_VALUE}) {
            assertSame(Double.NaN, AccMathLogExp.log10(x), "log10(" + x + ")");
        }
        assertSame(-inf, AccMathLogExp.log10(0.0), "log10(+0)");
        assertSame(-inf, AccMathLogExp.log10(-0.0), "log10(-0)");
        assertSame(inf, AccMathLogExp.log10(inf), "log10(+inf)");
        assertSame(0.0, AccMathLogExp.log10(1.0), "log10(1)");
        // log10(10^n) = n where 10^n is a double
        for (int n = 0; n <= 22; n++) {
            assertSame(n, AccMathLogExp.log10(Double.parseDouble("1e" + n)), "log10(1e" + n + ")");
        }
        for (double x : new double[] {Double.NaN, -inf, -1.0000000000000002, -2.0}) {
            assertSame(Double.NaN, AccMathLogExp.log1p(x), "log1p(" + x + ")");
        }
        assertSame(-inf, AccMathLogExp.log1p(-1.0), "log1p(-1)");
        assertSame(inf, AccMathLogExp.log1p(inf), "log1p(+inf)");
        assertSame(0.0, AccMathLogExp.log1p(0.0), "log1p(+0)");
        assertSame(-0.0, AccMathLogExp.log1p(-0.0), "log1p(-0)");
        assertSame(-Double.MIN_VALUE, AccMathLogExp.log1p(-Double.MIN_VALUE), "log1p(-MIN_VALUE)");
        assertSame(StrictMath.log1p(Double.MAX_VALUE), AccMathLogExp.log1p(Double.MAX_VALUE), "log1p(MAX_VALUE)");
        assertSame(Double.NaN, AccMathLogExp.expm1(Double.NaN), "expm1(NaN)");
        assertSame(inf, AccMathLogExp.expm1(inf), "expm1(+inf)");
        assertSame(-1.0, AccMathLogExp.expm1(-inf), "expm1(-inf)");
        assertSame(0.0, AccMathLogExp.expm1(0.0), "expm1(+0)");
        assertSame(-0.0, AccMathLogExp.expm1(-0.0), "expm1(-0)");
        assertSame(-1.0, AccMathLogExp.expm1(-100.0), "expm1(-100)");
        assertSame(-1.0, AccMathLogExp.expm1(-Double.MAX_VALUE), "expm1(-MAX_VALUE)");
        assertSame(inf, AccMathLogExp.expm1(709.7827128933841), "expm1 overflow");
        assertSame(StrictMath.expm1(709.782712893384), AccMathLogExp.expm1(709.782712893384), "expm1 near MAX");
        assertSame(Double.MIN_VALUE, AccMathLogExp.expm1(Double.MIN_VALUE), "expm1(MIN_VALUE)");
    }

    @Test
    void semiMonotonic() {
        semiMonotone("log10", AccMathLogExp::log10, x -> 1, starts(31, 2000, u -> Math.scalb(1.0 + u, (int) (u * 2000) - 1000)), 64);
        semiMonotone("log1p", AccMathLogExp::log1p, x -> 1, starts(32, 2000, u -> Math.scalb(2 * u - 1, (int) (u * 60) - 50)), 64);
        semiMonotone("log1p", AccMathLogExp::log1p, x -> 1, new double[] {0x1p-16 - 0x1p-64, -0x1p-16 - 0x1p-64,
            -1.0, 1 - 0x1p-45, Math.nextDown(0x1p-54)}, 1024);
        semiMonotone("expm1", AccMathLogExp::expm1, x -> 1, starts(33, 2000, u -> -42 + 750 * u * u), 64);
        semiMonotone("expm1", AccMathLogExp::expm1, x -> 1, new double[] {60 - 0x1p-42, -40 - 0x1p-42,
            -0x1p-54 - 0x1p-100, 0x1.62e42fefa39efp-9 - 0x1p-50, -0x1.62e42fefa39efp-9 - 0x1p-50, 709.78}, 1024);
    }
}
