package org.acc4j.templates.math;

import static org.acc4j.templates.math.AccMathTest.assertSame;
import static org.acc4j.templates.math.AccMathTest.semiMonotone;
import static org.acc4j.templates.math.AccMathTest.starts;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.math.BigDecimal;
import java.util.function.DoubleFunction;
import java.util.function.DoubleUnaryOperator;
import org.acc4j.templates.math.Inputs.Kind;
import org.junit.jupiter.api.Test;

/**
 * Accuracy, special cases and semi-monotonicity of {@link AccMathLogExp}, as {@link AccMathTest} checks its
 * functions: 10^6 seeded inputs a function, StrictMath (1 ulp contract for these) vouching for equal results away
 * from powers of two, the BigDecimal reference for the rest and for one input in 250; sinh and cosh, whose
 * StrictMath contract is 2.5 ulps, on 2 10^5 inputs each checked against the reference.
 */
class AccMathLogExpTest {
    private static final int N_HYP = 200_000;

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

    /** Every input against the reference but where the certificate proves the result, or exact(x) is null. */
    private static Accuracy runReferenced(String name, Kind kind, DoubleUnaryOperator acc, DoubleUnaryOperator strict,
            DoubleFunction<BigDecimal> exact, AccMathTest.Certificate certificate) {
        double[] xs = Inputs.doubles(kind, N_HYP, AccMathTest.SEED);
        Accuracy a = new Accuracy(name, false);
        for (double x : xs) {
            double r = acc.applyAsDouble(x);
            double s = strict.applyAsDouble(x);
            a.strictDistance(r, s);
            if (certificate.certifies(x, r)) {
                a.countShortcut();
                continue;
            }
            BigDecimal v = exact.apply(x);
            if (v == null) {
                a.countExact();
                assertSame(s, r, name + "(" + x + ") (special case)");
                continue;
            }
            Accuracy.Check c = a.reference(r, v, Double.toString(x));
            if (!c.faithful()) {
                fail(name + "(" + Double.toHexString(x) + ") = " + r + " is not faithful: exact " + v + ", error "
                        + c.ulps() + " ulp");
            }
        }
        System.out.println(a.summary());
        return a;
    }

    static BigDecimal exactSinh(double x) {
        return Math.abs(x) < 800 ? BigMath.sinh(x) : null;
    }

    static BigDecimal exactCosh(double x) {
        return Math.abs(x) < 800 ? BigMath.cosh(x) : null;
    }

    @Test
    void sinhIsFaithful() {
        // x below 2^-26 (|sinh x - x| < x^3/6 < ulp(x)/4); beyond 710.48 the result overflows
        Accuracy a = runReferenced("sinh", Kind.SINH, AccMathLogExp::sinh, StrictMath::sinh, AccMathLogExpTest::exactSinh,
                (x, r) -> Math.abs(x) < 0x1p-26 && r == x || x > 710.48 && r == Double.POSITIVE_INFINITY
                        || x < -710.48 && r == Double.NEGATIVE_INFINITY);
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void coshIsFaithful() {
        // 1 below 2^-26 (cosh x - 1 < x^2 < 2^-52, and 1 + 2^-53 rounds to 1)
        Accuracy a = runReferenced("cosh", Kind.COSH, AccMathLogExp::cosh, StrictMath::cosh, AccMathLogExpTest::exactCosh,
                (x, r) -> Math.abs(x) < 0x1p-26 && r == 1.0 || Math.abs(x) > 710.48 && r == Double.POSITIVE_INFINITY);
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void hyperbolicSpecialCases() {
        double inf = Double.POSITIVE_INFINITY;
        assertSame(Double.NaN, AccMathLogExp.sinh(Double.NaN), "sinh(NaN)");
        assertSame(Double.NaN, AccMathLogExp.cosh(Double.NaN), "cosh(NaN)");
        assertSame(inf, AccMathLogExp.sinh(inf), "sinh(+inf)");
        assertSame(-inf, AccMathLogExp.sinh(-inf), "sinh(-inf)");
        assertSame(inf, AccMathLogExp.cosh(inf), "cosh(+inf)");
        assertSame(inf, AccMathLogExp.cosh(-inf), "cosh(-inf)");
        assertSame(0.0, AccMathLogExp.sinh(0.0), "sinh(+0)");
        assertSame(-0.0, AccMathLogExp.sinh(-0.0), "sinh(-0)");
        assertSame(1.0, AccMathLogExp.cosh(0.0), "cosh(+0)");
        assertSame(1.0, AccMathLogExp.cosh(-0.0), "cosh(-0)");
        assertSame(-Double.MIN_VALUE, AccMathLogExp.sinh(-Double.MIN_VALUE), "sinh(-MIN_VALUE)");
        // overflow: e^x / 2 passes MAX_VALUE at x = 710.4758600739439
        assertSame(inf, AccMathLogExp.sinh(710.476), "sinh overflow");
        assertSame(-inf, AccMathLogExp.sinh(-710.476), "sinh overflow");
        assertSame(inf, AccMathLogExp.cosh(-710.476), "cosh overflow");
        assertSame(inf, AccMathLogExp.cosh(Double.MAX_VALUE), "cosh(MAX_VALUE)");
        for (double x : new double[] {710.4758600739439, 710.47586007394, 709.79, 40.0, Math.nextUp(40.0), 20.0}) {
            assertTrue(Accuracy.check(AccMathLogExp.sinh(x), BigMath.sinh(x), false).faithful(), "sinh(" + x + ")");
            assertTrue(Accuracy.check(AccMathLogExp.cosh(-x), BigMath.cosh(-x), false).faithful(), "cosh(" + -x + ")");
        }
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
        semiMonotone("sinh", AccMathLogExp::sinh, x -> 1, starts(34, 2000, u -> -45 + 90 * u), 64);
        semiMonotone("cosh", AccMathLogExp::cosh, x -> 1, starts(35, 2000, u -> 45 * u), 64);
        semiMonotone("cosh", AccMathLogExp::cosh, x -> -1, starts(36, 2000, u -> -45 * u), 64);
        semiMonotone("sinh", AccMathLogExp::sinh, x -> 1, new double[] {40 - 0x1p-42, -40 - 0x1p-42, 0x1p-26 - 0x1p-74,
            -0x1p-26 - 0x1p-74, 710.47586007394 - 0x1p-38}, 1024);
        semiMonotone("cosh", AccMathLogExp::cosh, x -> 1, new double[] {40 - 0x1p-42, 0x1p-26 - 0x1p-74,
            710.47586007394 - 0x1p-38}, 1024);
    }
}
