package org.acc4j.templates.math;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.math.BigDecimal;
import java.util.SplittableRandom;
import java.util.function.DoubleUnaryOperator;
import org.acc4j.templates.math.Inputs.Kind;
import org.junit.jupiter.api.Test;

/**
 * Accuracy, special cases and semi-monotonicity of {@link AccMath#sin}, {@link AccMath#cos} and {@link AccMath#tan},
 * as {@link AccMathTest} does for the others; the inputs reach the largest doubles and the doubles closest to
 * multiples of pi/2, where only an exact reduction keeps the result faithful.
 */
class AccMathTrigTest {
    private static final int N = AccMathTest.N;
    private static final int SAMPLE = 250;

    private static Accuracy run(String name, Kind kind, DoubleUnaryOperator acc, DoubleUnaryOperator strict, int mode) {
        double[] xs = Inputs.doubles(kind, N, AccMathTest.SEED);
        Accuracy a = new Accuracy(name, false);
        for (int i = 0; i < N; i++) {
            double x = xs[i];
            double r = acc.applyAsDouble(x);
            double s = strict.applyAsDouble(x);
            a.strictDistance(r, s);
            if (!Double.isFinite(x)) {
                a.countExact();
                if (!Double.isNaN(r)) {
                    fail(name + "(" + x + ") = " + r + ", expected NaN");
                }
                continue;
            }
            if ((r == s && Accuracy.interior(s, false) || unitCertified(x, r, mode)) && i % SAMPLE != 0) {
                a.countShortcut();
                continue;
            }
            BigDecimal v = BigMath.trig(x, mode);
            Accuracy.Check c = a.reference(r, v, Double.toHexString(x));
            if (!c.faithful()) {
                fail(name + "(" + x + " = " + Double.toHexString(x) + ") = " + r + " is not faithful: exact " + v
                        + ", error " + c.ulps() + " ulp");
            }
        }
        System.out.println(a.summary());
        return a;
    }

    /**
     * A result of +-1 for sin (cos) is faithful where StrictMath's cos (sin) is below 2^-27: the exact cosine
     * (sine) is then below 2^-26 and the exact |sin| (|cos|) = sqrt(1 - cos^2) is above 1 - 2^-53.
     */
    private static boolean unitCertified(double x, double r, int mode) {
        if (mode == 2 || Math.abs(r) != 1.0) {
            return false;
        }
        double other = mode == 0 ? StrictMath.cos(x) : StrictMath.sin(x);
        double same = mode == 0 ? StrictMath.sin(x) : StrictMath.cos(x);
        return Math.abs(other) < 0x1p-27 && same == r;
    }

    @Test
    void sinIsFaithful() {
        assertTrue(run("sin", Kind.SIN, AccMath::sin, StrictMath::sin, 0).maxUlps() < 1.0);
    }

    @Test
    void cosIsFaithful() {
        assertTrue(run("cos", Kind.COS, AccMath::cos, StrictMath::cos, 1).maxUlps() < 1.0);
    }

    @Test
    void tanIsFaithful() {
        assertTrue(run("tan", Kind.TAN, AccMath::tan, StrictMath::tan, 2).maxUlps() < 1.0);
    }

    private static void assertSame(double expected, double actual, String what) {
        assertEquals(Double.doubleToLongBits(expected), Double.doubleToLongBits(actual),
                what + ": expected " + expected + " but got " + actual);
    }

    @Test
    void specialCases() {
        for (double x : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertSame(Double.NaN, AccMath.sin(x), "sin(" + x + ")");
            assertSame(Double.NaN, AccMath.cos(x), "cos(" + x + ")");
            assertSame(Double.NaN, AccMath.tan(x), "tan(" + x + ")");
        }
        for (double z : new double[] {0.0, -0.0, Double.MIN_VALUE, -Double.MIN_VALUE, 0x1p-1022, -0x1p-30}) {
            assertSame(z, AccMath.sin(z), "sin(" + z + ")");
            assertSame(z, AccMath.tan(z), "tan(" + z + ")");
            assertSame(1.0, AccMath.cos(z), "cos(" + z + ")");
        }
    }

    @Test
    void hugeAndHardArgumentsAreExact() {
        // the double closest to a multiple of pi/2, the largest doubles, and neighbours of k pi/2 for big k
        double[] xs = {0x1.6ac5b262ca1ffp+849, Double.MAX_VALUE, -Double.MAX_VALUE, 0x1p1023, 1e300, 1e22, 0x1p20,
            Math.nextDown(0x1p20), 0x1.921fb54442d18p+0, 0x1.921fb54442d18p+1, 0x1.2d97c7f3321d2p+1, 1e16, 5e15};
        for (double x0 : xs) {
            for (double x : Inputs.adjacent(Math.nextDown(Math.nextDown(x0)), 5)) {
                if (!Double.isFinite(x)) {
                    continue;
                }
                for (int mode = 0; mode < 3; mode++) {
                    double r = mode == 0 ? AccMath.sin(x) : mode == 1 ? AccMath.cos(x) : AccMath.tan(x);
                    BigDecimal v = BigMath.trig(x, mode);
                    assertTrue(Accuracy.check(r, v, false).faithful(),
                            "mode " + mode + " of " + Double.toHexString(x) + " = " + r + ", exact " + v);
                }
            }
        }
    }

    /**
     * Runs of adjacent inputs, skipping those where {@code slope} (the derivative, or for tan the cosine) changes
     * sign or nearly vanishes: an extremum or a pole inside; tan always increases between its poles.
     */
    private static void semiMonotone(String name, DoubleUnaryOperator f, DoubleUnaryOperator slope, double[] starts) {
        for (double start : starts) {
            double[] xs = Inputs.adjacent(start, 64);
            double d0 = slope.applyAsDouble(xs[0]);
            double d1 = slope.applyAsDouble(xs[63]);
            if (!(d0 * d1 > 0) || Math.abs(d0) < 1e-6) {
                continue;
            }
            if (name.equals("tan")) {
                d0 = 1;
            }
            double prev = f.applyAsDouble(xs[0]);
            for (int i = 1; i < 64; i++) {
                double cur = f.applyAsDouble(xs[i]);
                if (d0 > 0 ? cur < prev : cur > prev) {
                    fail(name + " is not semi-monotonic at " + Double.toHexString(xs[i - 1]) + ": " + prev + ", " + cur);
                }
                prev = cur;
            }
        }
    }

    @Test
    void semiMonotonic() {
        SplittableRandom rnd = new SplittableRandom(9);
        double[] starts = new double[6000];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = switch (i % 4) {
                case 0 -> rnd.nextDouble(-10, 10);
                case 1 -> rnd.nextDouble(-1e6, 1e6);
                case 2 -> (rnd.nextInt(-26, 27) * 0.03125 + 0.015625) - 32 * 0x1p-52;
                default -> rnd.nextInt(-1000, 1000) * 0x1.921fb54442d18p-1;
            };
        }
        semiMonotone("sin", AccMath::sin, StrictMath::cos, starts);
        semiMonotone("cos", AccMath::cos, x -> -StrictMath.sin(x), starts);
        semiMonotone("tan", AccMath::tan, StrictMath::cos, starts);
        double[] edges = {Math.nextDown(0x1p20) - 0x1p-30, 0x1.921fb54442d18p-1 - 0x1p-48, 0x1p-27 - 0x1p-75,
            -0x1p-27 - 0x1p-75};
        for (double e : edges) {
            semiMonotone("sin", AccMath::sin, StrictMath::cos, new double[] {e});
            semiMonotone("cos", AccMath::cos, x -> -StrictMath.sin(x), new double[] {e});
            semiMonotone("tan", AccMath::tan, StrictMath::cos, new double[] {e});
        }
    }
}
