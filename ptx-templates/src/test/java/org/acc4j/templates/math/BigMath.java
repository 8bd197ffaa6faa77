package org.acc4j.templates.math;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * High-precision reference values (about 40 significant digits, far below the 2^-100 needed to decide which
 * doubles bracket an exact result) for the functions of {@link AccMath}, and the constants its tables hold.
 * Arguments are converted to BigDecimal exactly. Slow (tens of microseconds a call): the tests use it where
 * StrictMath cannot decide and on samples.
 */
final class BigMath {
    private BigMath() {
    }

    private static final BigDecimal TWO = BigDecimal.valueOf(2);
    static final MathContext MC = new MathContext(40, RoundingMode.HALF_EVEN);
    private static final MathContext WIDE = new MathContext(48, RoundingMode.HALF_EVEN);
    private static final MathContext LONG = new MathContext(70, RoundingMode.HALF_EVEN);
    /** Enough digits of pi to reduce any double modulo pi/2 and keep 50 digits of the remainder. */
    private static final MathContext HUGE = new MathContext(420, RoundingMode.HALF_EVEN);
    static final BigDecimal PI = pi(HUGE);
    static final BigDecimal HALF_PI = PI.divide(BigDecimal.valueOf(2), HUGE);
    static final BigDecimal LN2 = ln2(LONG);

    /** pi by Machin's formula. */
    private static BigDecimal pi(MathContext mc) {
        MathContext w = new MathContext(mc.getPrecision() + 10);
        BigDecimal a = arctanInverse(5, w).multiply(BigDecimal.valueOf(16), w);
        BigDecimal b = arctanInverse(239, w).multiply(BigDecimal.valueOf(4), w);
        return a.subtract(b, w).round(mc);
    }

    private static BigDecimal arctanInverse(int n, MathContext mc) {
        BigDecimal x = BigDecimal.ONE.divide(BigDecimal.valueOf(n), mc);
        BigDecimal x2 = x.multiply(x, mc);
        BigDecimal term = x;
        BigDecimal sum = BigDecimal.ZERO;
        BigDecimal eps = BigDecimal.ONE.movePointLeft(mc.getPrecision() + 5);
        for (int k = 0; term.abs().compareTo(eps) > 0; k++) {
            BigDecimal t = term.divide(BigDecimal.valueOf(2L * k + 1), mc);
            sum = (k & 1) == 0 ? sum.add(t, mc) : sum.subtract(t, mc);
            term = term.multiply(x2, mc);
        }
        return sum;
    }

    /** ln 2 = 2 atanh(1/3). */
    private static BigDecimal ln2(MathContext mc) {
        BigDecimal z = BigDecimal.ONE.divide(BigDecimal.valueOf(3), mc);
        BigDecimal z2 = z.multiply(z, mc);
        BigDecimal term = z;
        BigDecimal sum = BigDecimal.ZERO;
        BigDecimal eps = BigDecimal.ONE.movePointLeft(mc.getPrecision() + 5);
        for (int k = 1; term.compareTo(eps) > 0; k += 2) {
            sum = sum.add(term.divide(BigDecimal.valueOf(k), mc), mc);
            term = term.multiply(z2, mc);
        }
        return sum.multiply(TWO, mc);
    }

    /** Taylor series of e^y - 1 for |y| below about 1 (no cancellation). */
    static BigDecimal expm1Series(BigDecimal y, MathContext mc) {
        BigDecimal term = y;
        BigDecimal sum = y;
        for (int n = 2; n < 200; n++) {
            term = term.multiply(y, mc).divide(BigDecimal.valueOf(n), mc);
            sum = sum.add(term, mc);
            if (term.signum() == 0 || term.abs().compareTo(sum.abs().ulp()) < 0) {
                break;
            }
        }
        return sum;
    }

    /** e^x for |x| below about 2000. */
    static BigDecimal exp(BigDecimal x) {
        long n = x.divide(LN2, MathContext.DECIMAL64).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
        BigDecimal y = x.subtract(LN2.multiply(BigDecimal.valueOf(n), WIDE), WIDE);
        // e^y = (e^(y/256))^256
        BigDecimal e = expm1Series(y.divide(BigDecimal.valueOf(256), WIDE), WIDE).add(BigDecimal.ONE, WIDE);
        for (int i = 0; i < 8; i++) {
            e = e.multiply(e, WIDE);
        }
        BigDecimal scale = new BigDecimal(BigInteger.ONE.shiftLeft((int) Math.abs(n)));
        return (n >= 0 ? e.multiply(scale, WIDE) : e.divide(scale, WIDE)).round(MC);
    }

    static BigDecimal exp(double x) {
        return exp(exact(x));
    }

    /** A double to 70 digits: exact where it matters (a relative 1e-70 is far below what any check needs). */
    private static BigDecimal exact(double x) {
        return new BigDecimal(x).round(LONG);
    }

    /** log x for positive finite x: a Halley step on e^y = x from the double logarithm (cubes its error). */
    static BigDecimal log(double x) {
        BigDecimal bx = exact(x);
        BigDecimal y = new BigDecimal(StrictMath.log(x));
        for (int i = 0; i < 1; i++) {
            BigDecimal e = exp(y);
            y = y.add(TWO.multiply(bx.subtract(e, WIDE), WIDE).divide(bx.add(e, WIDE), WIDE), WIDE);
        }
        return y.round(MC);
    }

    /**
     * |x|^y for finite nonzero x and finite y (the caller settles signs and special cases); null when the result
     * is beyond e^+-2000 (so certainly +Infinity or 0 in double).
     */
    static BigDecimal powAbs(double x, double y) {
        BigDecimal t = exact(y).multiply(log(Math.abs(x)), WIDE);
        if (t.abs().compareTo(BigDecimal.valueOf(2000)) > 0) {
            return null;
        }
        return exp(t);
    }

    /** tanh x = E / (E + 2) with E = e^(2x) - 1. */
    static BigDecimal tanh(double x) {
        BigDecimal z = exact(x).multiply(TWO);
        if (z.abs().compareTo(BigDecimal.valueOf(200)) > 0) {
            return BigDecimal.valueOf(x > 0 ? 1 : -1);
        }
        BigDecimal e = z.abs().compareTo(BigDecimal.ONE) < 0 ? expm1Series(z, WIDE)
                : exp(z).subtract(BigDecimal.ONE, WIDE);
        return e.divide(e.add(TWO, WIDE), MC);
    }

    /** x reduced modulo pi/2: {quadrant (0..3), remainder in [-pi/4, pi/4]}. */
    static Object[] reduce(double x) {
        BigDecimal bx = new BigDecimal(x);
        // digits for the integer part of x / (pi/2), plus 70 for a remainder that may be as small as 2^-61
        MathContext mc = new MathContext(65 + Math.max(0, (int) (Math.getExponent(x) * 0.302)));
        BigDecimal k = bx.divide(HALF_PI, mc).setScale(0, RoundingMode.HALF_EVEN);
        BigDecimal r = bx.subtract(k.multiply(HALF_PI, mc), mc).round(WIDE);
        int q = k.toBigInteger().and(BigInteger.valueOf(3)).intValue();
        return new Object[] {q, r};
    }

    /** sin and cos of |r| <= pi/4 + tiny by their Taylor series: {sin r, cos r}. */
    static BigDecimal[] sinCosSmall(BigDecimal r) {
        BigDecimal r2 = r.multiply(r, WIDE);
        BigDecimal s = r;
        BigDecimal c = BigDecimal.ONE;
        BigDecimal ts = r;
        BigDecimal tc = BigDecimal.ONE;
        BigDecimal eps = BigDecimal.ONE.movePointLeft(50);
        for (int n = 1; n < 100; n++) {
            ts = ts.multiply(r2, WIDE).divide(BigDecimal.valueOf((2L * n) * (2L * n + 1)), WIDE).negate();
            tc = tc.multiply(r2, WIDE).divide(BigDecimal.valueOf((2L * n - 1) * (2L * n)), WIDE).negate();
            s = s.add(ts, WIDE);
            c = c.add(tc, WIDE);
            if (tc.abs().compareTo(eps) < 0 && ts.abs().compareTo(eps.multiply(r.abs())) <= 0) {
                break;
            }
        }
        return new BigDecimal[] {s, c};
    }

    /** sin (mode 0), cos (mode 1) or tan (mode 2) of a finite x. */
    static BigDecimal trig(double x, int mode) {
        Object[] red = reduce(x);
        int q = (Integer) red[0];
        BigDecimal[] sc = sinCosSmall((BigDecimal) red[1]);
        BigDecimal s = sc[0];
        BigDecimal c = sc[1];
        BigDecimal sinX = switch (q) {
            case 0 -> s;
            case 1 -> c;
            case 2 -> s.negate();
            default -> c.negate();
        };
        BigDecimal cosX = switch (q) {
            case 0 -> c;
            case 1 -> s.negate();
            case 2 -> c.negate();
            default -> s;
        };
        return switch (mode) {
            case 0 -> sinX.round(MC);
            case 1 -> cosX.round(MC);
            default -> sinX.divide(cosX, MC);
        };
    }

    /** The double-double nearest to v: {hi, lo}. */
    static double[] doubleDouble(BigDecimal v) {
        double hi = v.doubleValue();
        double lo = v.subtract(new BigDecimal(hi), WIDE).doubleValue();
        return new double[] {hi, lo};
    }

    /** 2/pi in binary: bits 1..n of its fraction as a BigInteger floor(2/pi * 2^n). */
    static BigInteger twoOverPiBits(int n) {
        BigDecimal twoOverPi = TWO.divide(PI, HUGE);
        return twoOverPi.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(n)), HUGE).toBigInteger();
    }

    /** atan v for an exact v >= 0: pi/2 - atan(1/v) above 1, three argument halvings, then the series. */
    static BigDecimal atan(BigDecimal v) {
        if (v.signum() == 0) {
            return BigDecimal.ZERO;
        }
        if (v.compareTo(BigDecimal.ONE) > 0) {
            return HALF_PI.subtract(atan(BigDecimal.ONE.divide(v, WIDE)), WIDE);
        }
        // atan v = 2 atan(v / (1 + sqrt(1 + v^2)))
        BigDecimal w = v;
        for (int i = 0; i < 3; i++) {
            BigDecimal root = BigDecimal.ONE.add(w.multiply(w, WIDE), WIDE).sqrt(WIDE);
            w = w.divide(BigDecimal.ONE.add(root, WIDE), WIDE);
        }
        BigDecimal w2 = w.multiply(w, WIDE);
        BigDecimal term = w;
        BigDecimal sum = w;
        for (int k = 1; k < 200; k++) {
            term = term.multiply(w2, WIDE).negate();
            BigDecimal t = term.divide(BigDecimal.valueOf(2L * k + 1), WIDE);
            sum = sum.add(t, WIDE);
            if (t.abs().compareTo(sum.abs().ulp()) < 0) {
                break;
            }
        }
        return sum.multiply(BigDecimal.valueOf(8), WIDE);
    }

    /** atan2(y, x) for finite y and x, not both zero. */
    static BigDecimal atan2(double y, double x) {
        BigDecimal t = x == 0 ? HALF_PI.round(WIDE) : atan(new BigDecimal(Math.abs(y)).divide(new BigDecimal(Math.abs(x)), WIDE));
        if (Double.doubleToRawLongBits(x) < 0) {
            t = PI.subtract(t, WIDE);
        }
        return (Double.doubleToRawLongBits(y) < 0 ? t.negate() : t).round(MC);
    }

    /** sqrt(1 - x^2) for |x| <= 1, 1 - x^2 exact. */
    private static BigDecimal cosOfAsin(double x) {
        BigDecimal bx = new BigDecimal(x);
        return BigDecimal.ONE.subtract(bx.multiply(bx, LONG)).sqrt(WIDE);
    }

    /** asin x for |x| <= 1. */
    static BigDecimal asin(double x) {
        BigDecimal c = cosOfAsin(x);
        BigDecimal t = c.signum() == 0 ? HALF_PI.round(WIDE) : atan(new BigDecimal(Math.abs(x)).divide(c, WIDE));
        return (x < 0 ? t.negate() : t).round(MC);
    }

    /** acos x for |x| <= 1. */
    static BigDecimal acos(double x) {
        BigDecimal c = cosOfAsin(x);
        BigDecimal t = x == 0 ? HALF_PI.round(WIDE) : atan(c.divide(new BigDecimal(Math.abs(x)), WIDE));
        return (x < 0 ? PI.subtract(t, WIDE) : t).round(MC);
    }

    /** sqrt(x^2 + y^2) for finite x and y, the sum of squares exact. */
    static BigDecimal hypot(double x, double y) {
        BigDecimal bx = exact(x);
        BigDecimal by = exact(y);
        return bx.multiply(bx, LONG).add(by.multiply(by, LONG), LONG).sqrt(MC);
    }

    /** ln 10. */
    static final BigDecimal LN10 = log(10.0);

    /** log10 x for positive finite x. */
    static BigDecimal log10(double x) {
        return log(x).divide(LN10, MC);
    }

    /** 2 atanh z = log((1 + z) / (1 - z)) for |z| <= 1/5 by its series. */
    private static BigDecimal twoAtanh(BigDecimal z) {
        BigDecimal z2 = z.multiply(z, WIDE);
        BigDecimal term = z;
        BigDecimal sum = z;
        for (int k = 1; k < 400 && term.signum() != 0; k++) {
            term = term.multiply(z2, WIDE);
            BigDecimal t = term.divide(BigDecimal.valueOf(2L * k + 1), WIDE);
            sum = sum.add(t, WIDE);
            if (t.abs().compareTo(sum.abs().ulp()) < 0) {
                break;
            }
        }
        return sum.multiply(TWO, WIDE);
    }

    /** log(1 + x) for finite x > -1, 1 + x exact. */
    static BigDecimal log1p(double x) {
        BigDecimal u = BigDecimal.ONE.add(new BigDecimal(x));
        if (u.compareTo(new BigDecimal("0.6")) > 0 && u.compareTo(new BigDecimal("1.5")) < 0) {
            BigDecimal bx = new BigDecimal(x);
            return twoAtanh(bx.divide(TWO.add(bx), WIDE)).round(MC);
        }
        // log u = log d + log(u / d), d the double nearest u
        double d = u.doubleValue();
        BigDecimal q = u.divide(new BigDecimal(d), WIDE);
        BigDecimal z = q.subtract(BigDecimal.ONE).divide(q.add(BigDecimal.ONE), WIDE);
        return log(d).add(twoAtanh(z), WIDE).round(MC);
    }

    /** e^x - 1 for finite x below 800. */
    static BigDecimal expm1(double x) {
        if (Math.abs(x) < 1) {
            return expm1Series(exact(x), WIDE).round(MC);
        }
        return exp(exact(x)).subtract(BigDecimal.ONE, MC);
    }

    /** sinh x for finite x below 800 in magnitude: (E + E / (E + 1)) / 2 with E = e^|x| - 1, x's sign. */
    static BigDecimal sinh(double x) {
        double ax = Math.abs(x);
        BigDecimal e = ax < 1 ? expm1Series(exact(ax), WIDE) : exp(exact(ax)).subtract(BigDecimal.ONE, WIDE);
        BigDecimal s = e.add(e.divide(e.add(BigDecimal.ONE, WIDE), WIDE), WIDE).divide(TWO, MC);
        return x < 0 ? s.negate() : s;
    }

    /** cosh x for finite x below 800 in magnitude: (U + 1/U) / 2 with U = e^x. */
    static BigDecimal cosh(double x) {
        BigDecimal u = Math.abs(x) < 1 ? expm1Series(exact(x), WIDE).add(BigDecimal.ONE, WIDE) : exp(exact(x));
        return u.add(BigDecimal.ONE.divide(u, WIDE), WIDE).divide(TWO, MC);
    }

    /**
     * The cube root of a finite nonzero x, taken exactly: |x| = n 2^(3j + s) with n its integer significand and
     * s in {0, 1, 2}, so cbrt |x| = cbrt(n 2^s) 2^j; the root of the integer n 2^s (below 2^55) by Newton's
     * method from the double root, three steps (each doubles the 16 correct digits), with x's sign.
     */
    static BigDecimal cbrt(double x) {
        double a = Math.abs(x);
        long bits = Double.doubleToRawLongBits(a);
        int biased = (int) (bits >>> 52);
        long n = bits & 0xFFFFFFFFFFFFFL;
        int k = biased == 0 ? -1074 : biased - 1075;
        if (biased != 0) {
            n |= 1L << 52;
        }
        int j = Math.floorDiv(k, 3);
        BigDecimal t = new BigDecimal(BigInteger.valueOf(n).shiftLeft(k - 3 * j));
        BigDecimal y = new BigDecimal(Math.cbrt(t.doubleValue()));
        BigDecimal three = BigDecimal.valueOf(3);
        for (int i = 0; i < 3; i++) {
            BigDecimal y2 = y.multiply(y, WIDE);
            y = y.subtract(y2.multiply(y, WIDE).subtract(t, WIDE).divide(three.multiply(y2, WIDE), WIDE), WIDE);
        }
        BigDecimal p = new BigDecimal(BigInteger.ONE.shiftLeft(Math.abs(j)));
        BigDecimal r = j >= 0 ? y.multiply(p, WIDE) : y.divide(p, WIDE);
        return (x < 0 ? r.negate() : r).round(MC);
    }
}
