package org.acc4j.templates.math;

import static org.acc4j.templates.math.Tables.EXP_TAB;
import static org.acc4j.templates.math.Tables.LOG_TAB;
import static org.acc4j.templates.math.Tables.TRIG_TAB;
import static org.acc4j.templates.math.Tables.TWO_OVER_PI;

/**
 * The Java mirror of the PTX math routines in {@code org/acc4j/templates/math/*.ptx}: the same operations in the
 * same order, so that every result has the GPU's bits. {@code Math.fma} stands for {@code fma.rn}, {@code + - * /}
 * for {@code add.rn}, {@code sub.rn}, {@code mul.rn}, {@code div.rn}, {@code Math.rint} for {@code cvt.rni}, and raw
 * bits for the integer operations; a comment names the PTX form where the mapping is not one to one.
 *
 * <p>Contract, as for {@link Math}: every finite result is within 1 ulp of the exact value (faithfully rounded;
 * measured below 0.51 ulp), the functions are semi-monotonic, and the special cases are those of the
 * {@link Math} javadoc. A NaN argument is returned as it is; a NaN made here is {@link Double#NaN}. The float
 * versions widen, call the double routine and round once, which is faithful for float.
 *
 * <p>Methods: {@code exp} and {@code pow} share {@link #expCore}, {@code log} and {@code pow} share
 * {@link #logCore}, {@code sin}, {@code cos} and {@code tan} share {@link #trig}. Stateless and thread-safe.
 */
public final class AccMath {
    private AccMath() {
    }

    // exp: x = k ln2/128 + r, e^x = 2^(k/128) e^r; ln2/128 = L1 + L2 with L1 of 35 bits, so k * L1 is exact.
    static final double INV_LN2N = 0x1.71547652b82fep+7;
    static final double NEG_L1 = -0x1.62e42fefc0000p-8;
    static final double L2 = -0x1.c610ca86c3899p-44;
    static final double NEG_L2 = 0x1.c610ca86c3899p-44;
    /** Above this e^x is +Infinity for every caller; between it and ln(MAX_VALUE) expCore overflows itself. */
    static final double EXP_OVERFLOW = 709.79;
    /** Below this e^x rounds to +0 (e^-745.2 is under half of MIN_VALUE). */
    static final double EXP_UNDERFLOW = -745.2;
    static final double C3 = 0x1.5555555555555p-3;
    static final double C4 = 0x1.5555555555555p-5;
    static final double C5 = 0x1.1111111111111p-7;
    static final double C6 = 0x1.6c16c16c16c17p-10;
    static final double C7 = 0x1.a01a01a01a01ap-13;
    static final double C8 = 0x1.a01a01a01a01ap-16;
    static final double C9 = 0x1.71de3a556c734p-19;

    // log: ln2 = LN2H + LN2L with LN2H of 42 bits, so e * LN2H is exact for every exponent e.
    static final double LN2H = 0x1.62e42fefa3800p-1;
    static final double LN2L = 0x1.ef35793c76730p-45;
    static final long LOG_OFF = 0x3fe6a00000000000L;

    // trig: pi/2 = P1 + P2 + P3 + P4, P1..P3 of at most 33 bits so k * Pi is exact for |k| < 2^20.
    static final double TWO_OVER_PI_D = 0x1.45f306dc9c883p-1;
    static final double NEG_P1 = -0x1.921fb54400000p+0;
    static final double NEG_P2 = -0x1.0b4611a600000p-34;
    static final double NEG_P3 = -0x1.3198a2e000000p-69;
    static final double NEG_P4 = -0x1.b839a252049c1p-104;
    static final double PIO2H = 0x1.921fb54442d18p+0;
    static final double PIO2L = 0x1.1a62633145c07p-54;
    static final double PIO4 = 0x1.921fb54442d18p-1;

    static final double NAN = Double.NaN;
    static final double INF = Double.POSITIVE_INFINITY;

    /** A double-double value {@code hi + lo} with {@code |lo| <= ulp(hi)/2} where a routine says so. */
    record Dd(double hi, double lo) {
    }

    /** A reduced trig argument: x = q pi/2 + (hi + lo) modulo 2 pi, q in 0..3. */
    record Reduced(long q, double hi, double lo) {
    }

    // ---------------------------------------------------------------- exp

    /** e^x, as {@code acc_math_exp_f64}. */
    public static double exp(double x) {
        if (x != x) {
            return x;
        }
        if (x > EXP_OVERFLOW) {
            return INF;
        }
        if (x < EXP_UNDERFLOW) {
            return 0.0;
        }
        return expCore(x, 0.0);
    }

    /**
     * e^(hi + lo) for hi in [EXP_UNDERFLOW, EXP_OVERFLOW] and |lo| at most a few ulps of hi, as
     * {@code acc_math_exp_core_f64}. Rounds once at the end, also where the result is subnormal.
     */
    static double expCore(double hi, double lo) {
        double kd = Math.rint(hi * INV_LN2N);
        long k = (long) kd;
        double r = Math.fma(kd, NEG_L1, hi);
        r = Math.fma(kd, NEG_L2, r) + lo;
        int j = (int) (k & 127);
        long m = k >> 7;
        double th = Double.longBitsToDouble(EXP_TAB[2 * j]);
        double tl = Double.longBitsToDouble(EXP_TAB[2 * j + 1]);
        // e^r - 1 = r + r^2 (1/2 + r/6 + ... + r^4/720), |r| < 0.0028
        double r2 = r * r;
        double p = Math.fma(r, C6, C5);
        p = Math.fma(r, p, C4);
        p = Math.fma(r, p, C3);
        p = Math.fma(r, p, 0.5);
        p = Math.fma(r2, p, r);
        double tail = Math.fma(th, p, Math.fma(tl, p, tl));
        if (m >= -1021) {
            // both halves of the scale are normal and so is the product: one rounding, in th + tail
            long m1 = m >> 1;
            return (th + tail) * pow2(m1) * pow2(m - m1);
        }
        // subnormal result: round (th + tail) * 2^(m + 1074) to an integer once, then scale exactly
        double f = pow2(m + 1074);
        double a = th * f;
        double b = tail * f;
        double s = a + b;
        double e = (a - s) + b;
        double n = Math.rint(s);
        double d = s - n;
        if (d == 0.5 && e > 0.0) {
            n = n + 1.0;
        }
        if (d == -0.5 && e < 0.0) {
            n = n - 1.0;
        }
        return n * Double.MIN_VALUE;
    }

    /** 2^n for -1022 <= n <= 1023, from its bits. */
    static double pow2(long n) {
        return Double.longBitsToDouble((n + 1023) << 52);
    }

    // ---------------------------------------------------------------- log

    /** The natural logarithm, as {@code acc_math_log_f64}. */
    public static double log(double x) {
        if (!(x > 0.0)) {
            if (x == 0.0) {
                return Double.NEGATIVE_INFINITY;
            }
            return x != x ? x : NAN;
        }
        if (x == INF) {
            return INF;
        }
        return logCore(x).hi();
    }

    /**
     * log(x) for positive finite x (subnormals included) as a normalized double-double with a relative error
     * below 2^-68, as {@code acc_math_log_core_f64}.
     */
    static Dd logCore(double x) {
        long ix = Double.doubleToRawLongBits(x);
        long eAdj = 0;
        if (ix < 0x0010000000000000L) {
            // subnormal: scale into the normal range
            ix = Double.doubleToRawLongBits(x * 0x1p52);
            eAdj = 52;
        }
        // x = 2^e * m with m in [0x1.6ap-1, 0x1.6ap0); slice i of that range by the bit pattern
        long tmp = ix - LOG_OFF;
        int i = (int) ((tmp >> 45) & 127);
        long e0 = tmp >> 52;
        double m = Double.longBitsToDouble(ix - (e0 << 52));
        double ed = (double) (e0 - eAdj);
        double invc = Double.longBitsToDouble(LOG_TAB[3 * i]);
        double ch = Double.longBitsToDouble(LOG_TAB[3 * i + 1]);
        double cl = Double.longBitsToDouble(LOG_TAB[3 * i + 2]);
        // r = m * invc - 1 exactly, as rh + rl
        double ph = m * invc;
        double rl = Math.fma(m, invc, -ph);
        double rh = ph - 1.0;
        // log1p(r) = rh - rh^2/2 + rh^3 (1/3 - rh/4 + ... - rh^7/10) + rl (1 - rh + rh^2)
        double sq = rh * rh;
        double sql = Math.fma(rh, rh, -sq);
        double hr2 = -0.5 * sq;
        double hr2l = -0.5 * sql;
        double q = Math.fma(rh, -0.1, 0x1.c71c71c71c71cp-4);
        q = Math.fma(rh, q, -0.125);
        q = Math.fma(rh, q, 0x1.2492492492492p-3);
        q = Math.fma(rh, q, -0x1.5555555555555p-3);
        q = Math.fma(rh, q, 0x1.999999999999ap-3);
        q = Math.fma(rh, q, -0.25);
        q = Math.fma(rh, q, 0x1.5555555555555p-2);
        double cubic = sq * rh * q;
        double rlt = rl * ((1.0 - rh) + sq);
        // e*LN2H + ch + rh + hr2 in exact two-sums, the rest in one low word
        double a = ed * LN2H;
        double s1 = a + ch;
        double bb = s1 - a;
        double e1 = (a - (s1 - bb)) + (ch - bb);
        double s2 = s1 + rh;
        bb = s2 - s1;
        double e2 = (s1 - (s2 - bb)) + (rh - bb);
        double s3 = s2 + hr2;
        bb = s3 - s2;
        double e3 = (s2 - (s3 - bb)) + (hr2 - bb);
        double lo = ((((cubic + rlt) + hr2l) + e3) + e2) + e1;
        lo = Math.fma(ed, LN2L, lo + cl);
        double hi = s3 + lo;
        return new Dd(hi, lo - (hi - s3));
    }

    // ---------------------------------------------------------------- pow

    /** x^y with every special case of {@link Math#pow}, as {@code acc_math_pow_f64}. */
    public static double pow(double x, double y) {
        if (y == 0.0) {
            return 1.0;
        }
        if (y != y) {
            return y;
        }
        if (x != x) {
            return x;
        }
        if (y == 1.0) {
            return x;
        }
        double ax = Math.abs(x);
        double ay = Math.abs(y);
        if (ay == INF) {
            if (ax == 1.0) {
                return NAN;
            }
            return (ax > 1.0) == (y > 0.0) ? INF : 0.0;
        }
        // cvt.rzi.f64.f64 and cvt.rzi.s64.f64
        boolean yInt = trunc(y) == y;
        boolean yOdd = yInt && ay < 0x1p53 && (((long) y) & 1) != 0;
        boolean negate = Double.doubleToRawLongBits(x) < 0 && yOdd;
        double r;
        if (ax == 0.0 || ax == INF) {
            r = (ax == 0.0) == (y > 0.0) ? 0.0 : INF;
        } else {
            if (Double.doubleToRawLongBits(x) < 0 && !yInt) {
                return NAN;
            }
            Dd l = logCore(ax);
            double th = y * l.hi();
            if (th > EXP_OVERFLOW) {
                r = INF;
            } else if (th < EXP_UNDERFLOW) {
                r = 0.0;
            } else {
                double tl = Math.fma(y, l.lo(), Math.fma(y, l.hi(), -th));
                r = expCore(th, tl);
            }
        }
        return negate ? -r : r;
    }

    /** Rounding toward zero to an integral double, as {@code cvt.rzi.f64.f64}. */
    static double trunc(double v) {
        return v >= 0.0 ? Math.floor(v) : Math.ceil(v);
    }

    // ---------------------------------------------------------------- tanh

    /** The hyperbolic tangent, as {@code acc_math_tanh_f64}: expm1(2|x|) / (expm1(2|x|) + 2) in double-double. */
    public static double tanh(double x) {
        if (x != x) {
            return x;
        }
        double ax = Math.abs(x);
        if (ax < 0x1p-28) {
            return x;
        }
        if (ax >= 20.0) {
            return x > 0.0 ? 1.0 : -1.0;
        }
        double z = ax + ax;
        double kd = Math.rint(z * INV_LN2N);
        long k = (long) kd;
        double r0 = Math.fma(kd, NEG_L1, z);
        double pk = kd * NEG_L2;
        double pkl = Math.fma(kd, NEG_L2, -pk);
        // r = rh + rl = z - k ln2/128
        double rh = r0 + pk;
        double bb = rh - r0;
        double rl = ((r0 - (rh - bb)) + (pk - bb)) + pkl;
        // expm1(r) = ph + pl
        double sq = rh * rh;
        double sql = Math.fma(rh, rh, -sq);
        double c = Math.fma(rh, C7, C6);
        c = Math.fma(rh, c, C5);
        c = Math.fma(rh, c, C4);
        c = Math.fma(rh, c, C3);
        c = sq * rh * c;
        double hh = 0.5 * sq;
        double ph = rh + hh;
        double pl = ((c + 0.5 * sql) + (hh - (ph - rh))) + Math.fma(rl, rh, rl);
        // expm1(z) = 2^m (t (1 + p)) - 1 = eh + el
        int j = (int) (k & 127);
        long m = k >> 7;
        double th = Double.longBitsToDouble(EXP_TAB[2 * j]);
        double tl = Double.longBitsToDouble(EXP_TAB[2 * j + 1]);
        double ah = th * ph;
        double al = Math.fma(th, ph, -ah);
        double low = Math.fma(th, pl, al) + Math.fma(tl, ph, tl);
        double sc = pow2(m);
        double g = th * sc - 1.0;
        double as = ah * sc;
        double eh = g + as;
        bb = eh - g;
        double el = Math.fma(low, sc, (g - (eh - bb)) + (as - bb));
        double en = eh + el;
        el = el - (en - eh);
        eh = en;
        // tanh = E / (E + 2), the division corrected by its exact remainder
        double dh = eh + 2.0;
        bb = dh - eh;
        double dl = ((eh - (dh - bb)) + (2.0 - bb)) + el;
        double q0 = eh / dh;
        double rem = Math.fma(-q0, dh, eh);
        rem = Math.fma(-q0, dl, rem + el);
        double q = q0 + rem / dh;
        return x < 0.0 ? -q : q;
    }

    // ---------------------------------------------------------------- sin, cos, tan

    /** The sine, as {@code acc_math_sin_f64}. */
    public static double sin(double x) {
        return trig(x, 0);
    }

    /** The cosine, as {@code acc_math_cos_f64}. */
    public static double cos(double x) {
        return trig(x, 1);
    }

    /** The tangent, as {@code acc_math_tan_f64}. */
    public static double tan(double x) {
        return trig(x, 2);
    }

    /**
     * sin (mode 0), cos (mode 1) or tan (mode 2) of x, as {@code acc_math_trig_f64}: reduction to
     * [-pi/4, pi/4] (exact: Cody-Waite below 2^20, Payne-Hanek above), then a table of sin and cos at j/32.
     */
    static double trig(double x, int mode) {
        if (x != x) {
            return x;
        }
        double ax = Math.abs(x);
        if (ax == INF) {
            return NAN;
        }
        if (ax < 0x1p-27) {
            return mode == 1 ? 1.0 : x;
        }
        long quadrant;
        double rh;
        double rl;
        if (ax <= PIO4) {
            quadrant = 0;
            rh = x;
            rl = 0.0;
        } else if (ax < 0x1p20) {
            double kd = Math.rint(x * TWO_OVER_PI_D);
            double r0 = Math.fma(kd, NEG_P1, x);
            double a2 = kd * NEG_P2;
            double s = r0 + a2;
            double bb = s - r0;
            double e1 = (r0 - (s - bb)) + (a2 - bb);
            double a3 = kd * NEG_P3;
            double s2 = s + a3;
            bb = s2 - s;
            double e2 = (s - (s2 - bb)) + (a3 - bb);
            double lo = Math.fma(kd, NEG_P4, e1 + e2);
            rh = s2 + lo;
            rl = lo - (rh - s2);
            quadrant = (long) kd & 3;
        } else {
            Reduced red = payneHanek(ax);
            quadrant = red.q();
            rh = red.hi();
            rl = red.lo();
            if (x < 0.0) {
                quadrant = -quadrant & 3;
                rh = -rh;
                rl = -rl;
            }
        }
        // work on u = |r|; the sine kernel carries the sign of r
        boolean rNeg = rh < 0.0;
        double u = Math.abs(rh);
        double ul = rNeg ? -rl : rl;
        long qq = mode == 1 ? quadrant + 1 : quadrant;
        boolean useCos = (qq & 1) != 0;
        Dd num = kernel(u, ul, useCos);
        double result;
        boolean negate;
        if (mode != 2) {
            result = num.hi() + num.lo();
            negate = ((qq & 2) != 0) ^ (!useCos && rNeg);
        } else {
            Dd den = kernel(u, ul, !useCos);
            double nh = num.hi() + num.lo();
            double nl = num.lo() - (nh - num.hi());
            double dh = den.hi() + den.lo();
            double dl = den.lo() - (dh - den.hi());
            double q0 = nh / dh;
            double rem = Math.fma(-q0, dh, nh);
            rem = Math.fma(-q0, dl, rem + nl);
            result = q0 + rem / dh;
            negate = useCos ^ rNeg;
        }
        return negate ? -result : result;
    }

    /**
     * sin(u + ul) (cosine false) or cos(u + ul) (cosine true) for 0 <= u <= pi/4 + tiny, as an unnormalized
     * double-double H + L: with a = j/32 nearest u and t = u - a, both are A + B t + A (cos t - 1) + B (sin t - t)
     * with (A, B) = (sin a, cos a) or (cos a, -sin a).
     */
    static Dd kernel(double u, double ul, boolean cosine) {
        double jd = Math.rint(u * 32.0);
        int j = (int) jd;
        double t = u - jd * 0.03125;
        double sh = Double.longBitsToDouble(TRIG_TAB[4 * j]);
        double sl = Double.longBitsToDouble(TRIG_TAB[4 * j + 1]);
        double chi = Double.longBitsToDouble(TRIG_TAB[4 * j + 2]);
        double clo = Double.longBitsToDouble(TRIG_TAB[4 * j + 3]);
        double ah = cosine ? chi : sh;
        double al = cosine ? clo : sl;
        double bh = cosine ? -sh : chi;
        double bl = cosine ? -sl : clo;
        double t2 = t * t;
        double sm = Math.fma(t2, C9, -C7);
        sm = Math.fma(t2, sm, C5);
        sm = Math.fma(t2, sm, -C3);
        sm = t2 * t * sm;
        double cm = Math.fma(t2, C8, -C6);
        cm = Math.fma(t2, cm, C4);
        cm = Math.fma(t2, cm, -0.5);
        cm = t2 * cm;
        double p = bh * t;
        double pl = Math.fma(bh, t, -p);
        double h = ah + p;
        double bb = h - ah;
        double he = (ah - (h - bb)) + (p - bb);
        double l = (he + pl) + al;
        l = Math.fma(bl, t, l);
        l = Math.fma(bh, ul, l);
        l = Math.fma(ah, cm, l);
        l = Math.fma(bh, sm, l);
        return new Dd(h, l);
    }

    /**
     * Payne-Hanek reduction of a finite ax >= 2^20: ax * 2/pi modulo 4 from a 192-bit window of the bits of 2/pi
     * (exact to 2^-137 absolute), as {@code acc_math_trig_f64}'s large-argument path.
     */
    static Reduced payneHanek(double ax) {
        long ix = Double.doubleToRawLongBits(ax);
        long mant = (ix & 0x000FFFFFFFFFFFFFL) | 0x0010000000000000L;
        // ax = mant * 2^e; the window starts at fraction bit e - 1 of 2/pi (word 0 of the table is padding)
        int s = (int) (ix >>> 52) - 1075 + 62;
        int w = s >> 6;
        int sh = s & 63;
        long t0 = TWO_OVER_PI[w];
        long t1 = TWO_OVER_PI[w + 1];
        long t2 = TWO_OVER_PI[w + 2];
        long t3 = TWO_OVER_PI[w + 3];
        // shifts by 63 - sh after a shift by 1, so that sh = 0 needs no shift by 64 (PTX and Java differ there)
        long w2 = (t0 << sh) | ((t1 >>> 1) >>> (63 - sh));
        long w1 = (t1 << sh) | ((t2 >>> 1) >>> (63 - sh));
        long w0 = (t2 << sh) | ((t3 >>> 1) >>> (63 - sh));
        // mant * window modulo 2^192 = q2:q1:q0, binary point 190 bits up
        long q0 = mant * w0;
        long hi0 = umulhi(mant, w0);
        long lo1 = mant * w1;
        long hi1 = umulhi(mant, w1);
        long lo2 = mant * w2;
        long q1 = hi0 + lo1;
        long carry = Long.compareUnsigned(q1, hi0) < 0 ? 1 : 0;
        long q2 = hi1 + lo2 + carry;
        long k = q2 >>> 62;
        long f2 = (q2 << 2) | (q1 >>> 62);
        long f1 = (q1 << 2) | (q0 >>> 62);
        long f0 = q0 << 2;
        boolean negative = f2 < 0;
        if (negative) {
            // fraction >= 1/2: round the quadrant up, take 1 - fraction (one's complement, off by 2^-192)
            k = k + 1;
            f2 = ~f2;
            f1 = ~f1;
            f0 = ~f0;
        }
        int ws = 0;
        if (f2 == 0) {
            f2 = f1;
            f1 = f0;
            f0 = 0;
            ws = 64;
        }
        int lz = Long.numberOfLeadingZeros(f2);
        long a = (f2 << lz) | ((f1 >>> 1) >>> (63 - lz));
        long b = (f1 << lz) | ((f0 >>> 1) >>> (63 - lz));
        double fh = (double) (a >>> 11) * pow2(-53 - lz - ws);
        double fl = (double) (((a & 0x7FF) << 52) | (b >>> 12)) * pow2(-116 - lz - ws);
        // r = fraction * pi/2
        double rh = fh * PIO2H;
        double re = Math.fma(fh, PIO2H, -rh);
        double rl = Math.fma(fl, PIO2H, Math.fma(fh, PIO2L, re));
        double h = rh + rl;
        double l = rl - (h - rh);
        return negative ? new Reduced(k & 3, -h, -l) : new Reduced(k & 3, h, l);
    }

    /** The high 64 bits of the unsigned product of a (non-negative) and b, as {@code mul.hi.u64}. */
    static long umulhi(long a, long b) {
        return Math.multiplyHigh(a, b) + (b < 0 ? a : 0);
    }

    // ---------------------------------------------------------------- float versions

    /** e^x for a float, as {@code acc_math_exp_f32}. */
    public static float expf(float x) {
        return (float) exp(x);
    }

    /** log(x) for a float, as {@code acc_math_log_f32}. */
    public static float logf(float x) {
        return (float) log(x);
    }

    /** x^y for floats, as {@code acc_math_pow_f32}. */
    public static float powf(float x, float y) {
        return (float) pow(x, y);
    }

    /** sin(x) for a float, as {@code acc_math_sin_f32}. */
    public static float sinf(float x) {
        return (float) sin(x);
    }

    /** cos(x) for a float, as {@code acc_math_cos_f32}. */
    public static float cosf(float x) {
        return (float) cos(x);
    }

    /** tan(x) for a float, as {@code acc_math_tan_f32}. */
    public static float tanf(float x) {
        return (float) tan(x);
    }

    /** tanh(x) for a float, as {@code acc_math_tanh_f32}. */
    public static float tanhf(float x) {
        return (float) tanh(x);
    }
}
