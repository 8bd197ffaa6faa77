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
 * The float routines of {@link AccMath} (widen, the double routine, one rounding): 10^6 float inputs a function,
 * each result proved a faithful float. StrictMath's double result pins the exact value to an interval a few
 * double ulps wide; where no float lies inside it the faithful floats are known, otherwise the BigDecimal
 * reference decides. Special cases are compared with {@code (float) StrictMath.f(x)}.
 */
class AccMathFloatTest {
    private static final int N = AccMathTest.N;
    private static final int SAMPLE = 250;

    /** A sampled input: always checked against the reference, for the maximum error printed. */
    private static void sample(Accuracy a, String what, float r, BigDecimal v) {
        if (v != null && !a.reference(r, v, what).faithful()) {
            fail(what + " = " + r + " is not a faithful float: exact " + v);
        }
    }

    /** Float faithfulness of r for the exact value somewhere in (s - k ulp(s), s + k ulp(s)); null when undecided. */
    static Boolean decide(float r, double s, int k) {
        double lo = s - k * Math.ulp(s);
        double hi = s + k * Math.ulp(s);
        float fl = (float) lo;
        if (fl > lo) {
            fl = Math.nextDown(fl);
        }
        float fu = Math.nextUp(fl);
        if (!Double.isFinite(s) || lo <= 0 && hi >= 0 || !Float.isFinite(fl) || !Float.isFinite(fu)) {
            return null;
        }
        if (fu >= hi) {
            // no float inside the interval: the faithful floats are fl and fu
            return r == fl && (fl != 0 || Math.copySign(1f, r) == Math.signum(s)) || r == fu;
        }
        // one float g inside: g itself is faithful wherever the exact value is, as long as g's neighbours are
        // outside the interval
        float g = fu;
        if (r == g && Math.nextUp(g) >= hi && Math.nextDown(g) <= lo) {
            return true;
        }
        return null;
    }

    private static void run(String name, Kind kind, FloatFn acc, DoubleUnaryOperator strict, int ulps,
            DoubleFunction<BigDecimal> exact) {
        float[] xs = Inputs.floats(kind, N, AccMathTest.SEED);
        Accuracy a = new Accuracy(name, true);
        for (int i = 0; i < N; i++) {
            float x = xs[i];
            float r = acc.apply(x);
            double s = strict.applyAsDouble(x);
            if (!Float.isFinite(x)) {
                a.countExact();
                same((float) s, r, name + "(" + x + ")");
            } else if (i % SAMPLE == 0 && Float.isFinite(r) && r != 0) {
                sample(a, name + "(" + x + ")", r, exact.apply(x));
            } else {
                check(a, name + "(" + x + ")", r, s, ulps, () -> exact.apply(x));
            }
        }
        System.out.println(a.summary());
        assertTrue(a.maxUlps() < 1.0);
    }

    interface FloatFn {
        float apply(float x);
    }

    static void check(Accuracy a, String what, float r, double s, int ulps, java.util.function.Supplier<BigDecimal> exact) {
        float sf = (float) s;
        a.strictDistance(r, sf);
        if (!Float.isFinite(sf) || Double.isNaN(s) || s == 0) {
            a.countExact();
            if (Float.compare(r, sf) != 0) {
                BigDecimal v = Double.isFinite(s) ? exact.get() : null;
                if (v == null || !a.reference(r, v, what).faithful()) {
                    fail(what + " = " + r + ", expected " + sf);
                }
            }
            return;
        }
        // far beyond the float range (StrictMath within a few ulps): +-Infinity, or a zero or MIN_VALUE
        if (Math.abs(s) >= 2.0 * Float.MAX_VALUE && r == (float) s
                || Math.abs(s) < Float.MIN_VALUE / 4.0 && (r == 0f || Math.abs(r) == Float.MIN_VALUE)
                && Math.copySign(1f, r) == Math.signum(s)) {
            a.countShortcut();
            return;
        }
        Boolean ok = decide(r, s, ulps);
        if (Boolean.TRUE.equals(ok)) {
            a.countShortcut();
            return;
        }
        BigDecimal v = exact.get();
        if (v == null) {
            fail(what + ": no reference");
        }
        Accuracy.Check c = a.reference(r, v, what);
        if (!c.faithful()) {
            fail(what + " = " + r + " is not a faithful float: exact " + v + ", error " + c.ulps() + " ulp");
        }
    }

    @Test
    void expf() {
        run("expf", Kind.EXP, AccMath::expf, StrictMath::exp, 1, AccMathTest::exactExp);
    }

    @Test
    void logf() {
        run("logf", Kind.LOG, AccMath::logf, StrictMath::log, 1, AccMathTest::exactLog);
    }

    @Test
    void tanhf() {
        // StrictMath.tanh is only within 2.5 ulps
        run("tanhf", Kind.TANH, AccMath::tanhf, StrictMath::tanh, 3, AccMathTest::exactTanh);
    }

    @Test
    void sinf() {
        run("sinf", Kind.SIN, AccMath::sinf, StrictMath::sin, 1, x -> BigMath.trig(x, 0));
    }

    @Test
    void cosf() {
        run("cosf", Kind.COS, AccMath::cosf, StrictMath::cos, 1, x -> BigMath.trig(x, 1));
    }

    @Test
    void tanf() {
        run("tanf", Kind.TAN, AccMath::tanf, StrictMath::tan, 1, x -> BigMath.trig(x, 2));
    }

    @Test
    void powf() {
        float[] xs = Inputs.floats(Kind.POW, N, AccMathTest.SEED);
        float[] ys = Inputs.powExponentsFloat(N, AccMathTest.SEED);
        Accuracy a = new Accuracy("powf", true);
        for (int i = 0; i < N; i++) {
            float x = xs[i];
            float y = ys[i];
            float r = AccMath.powf(x, y);
            Double special = AccMathTest.javadocPow(x, y);
            if (special != null) {
                a.countExact();
                assertEquals(Float.floatToIntBits((float) special.doubleValue()), Float.floatToIntBits(r),
                        "powf(" + x + ", " + y + ")");
                continue;
            }
            // fdlibm's pow is not within 1 ulp for |y| > 2^31: use a wider interval there
            int ulps = Math.abs(y) < 0x1p31 ? 1 : 1024;
            if (i % SAMPLE == 0 && Float.isFinite(r) && r != 0) {
                sample(a, "powf(" + x + ", " + y + ")", r, AccMathTest.exactPow(x, y));
                continue;
            }
            check(a, "powf(" + x + ", " + y + ")", r, StrictMath.pow(x, y), ulps, () -> AccMathTest.exactPow(x, y));
        }
        System.out.println(a.summary());
        assertTrue(a.maxUlps() < 1.0);
    }

    @Test
    void specialCases() {
        float[] specials = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f, Float.MIN_VALUE,
            -Float.MIN_VALUE, 1f, -1f, Float.MAX_VALUE, -Float.MAX_VALUE};
        for (float x : specials) {
            same((float) StrictMath.exp(x), AccMath.expf(x), "expf(" + x + ")");
            same((float) StrictMath.log(x), AccMath.logf(x), "logf(" + x + ")");
            same((float) StrictMath.tanh(x), AccMath.tanhf(x), "tanhf(" + x + ")");
            if (!Float.isFinite(x) || x == 0 || Math.abs(x) == Float.MIN_VALUE) {
                same((float) StrictMath.sin(x), AccMath.sinf(x), "sinf(" + x + ")");
                same((float) StrictMath.cos(x), AccMath.cosf(x), "cosf(" + x + ")");
                same((float) StrictMath.tan(x), AccMath.tanf(x), "tanf(" + x + ")");
            }
            for (float y : specials) {
                Double expected = AccMathTest.javadocPow(x, y);
                if (expected != null) {
                    same((float) expected.doubleValue(), AccMath.powf(x, y), "powf(" + x + ", " + y + ")");
                }
            }
        }
    }

    private static void same(float expected, float actual, String what) {
        assertEquals(Float.floatToIntBits(expected), Float.floatToIntBits(actual), what);
    }
}
