package org.acc4j.templates.math;

import java.util.SplittableRandom;

/**
 * Seeded argument sets for testing the math routines, shared by the host tests of this module and the GPU tests
 * of the runtime so that both look at the same inputs. Each set mixes the whole useful range: uniform draws,
 * small and tiny values down to subnormals, random bit patterns (NaN and infinities included), values near the
 * overflow and underflow thresholds, near the reduction points of each algorithm and, for the trig functions,
 * near multiples of pi/2 up to the largest doubles. The same (function, count, seed) always gives the same array.
 */
public final class Inputs {
    private Inputs() {
    }

    /** The functions an argument set can be drawn for. */
    public enum Kind {
        EXP, LOG, POW, SIN, COS, TAN, TANH, ATAN2, ATAN, HYPOT, ASIN, ACOS, LOG10, LOG1P, EXPM1, SINH, COSH, CBRT
    }

    /** Whether the kind's function takes two arguments (see {@link #seconds}). */
    public static boolean binary(Kind kind) {
        return kind == Kind.POW || kind == Kind.ATAN2 || kind == Kind.HYPOT;
    }

    /** Arguments of a one-argument function (for a two-argument one, the first arguments; see {@link #seconds}). */
    public static double[] doubles(Kind kind, int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed ^ kind.ordinal() * 0x9E3779B97F4A7C15L);
        double[] out = new double[count];
        for (int i = 0; i < count; i++) {
            out[i] = switch (kind) {
                case EXP -> expArg(rnd);
                case LOG -> logArg(rnd);
                case POW -> powPair(rnd)[0];
                case SIN, COS, TAN -> trigArg(rnd);
                case TANH -> tanhArg(rnd);
                case ATAN2 -> atan2Pair(rnd)[0];
                case HYPOT -> hypotPair(rnd)[0];
                case ATAN -> atanArg(rnd);
                case ASIN, ACOS -> arcArg(rnd);
                case LOG10 -> rnd.nextInt(5) == 0 ? ulpsAway(rnd, Double.parseDouble("1e" + rnd.nextInt(-323, 309)), 2)
                        : logArg(rnd);
                case LOG1P -> log1pArg(rnd);
                case EXPM1 -> expm1Arg(rnd);
                case SINH, COSH -> hyperbolicArg(rnd);
                case CBRT -> cbrtArg(rnd);
            };
        }
        return out;
    }

    /**
     * The second arguments that go with {@code doubles(kind, count, seed)} for a two-argument function, element for
     * element (for POW the exponents, for ATAN2 the x that goes with each y); zeros for a one-argument function.
     */
    public static double[] seconds(Kind kind, int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed ^ kind.ordinal() * 0x9E3779B97F4A7C15L);
        double[] out = new double[count];
        for (int i = 0; i < count && binary(kind); i++) {
            out[i] = switch (kind) {
                case POW -> powPair(rnd)[1];
                case ATAN2 -> atan2Pair(rnd)[1];
                default -> hypotPair(rnd)[1];
            };
        }
        return out;
    }

    /** The exponents that go with {@code doubles(Kind.POW, count, seed)}, element for element. */
    public static double[] powExponents(int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed ^ Kind.POW.ordinal() * 0x9E3779B97F4A7C15L);
        double[] out = new double[count];
        for (int i = 0; i < count; i++) {
            out[i] = powPair(rnd)[1];
        }
        return out;
    }

    /**
     * Float arguments: the double set rounded to float, with a fifth of them (not for POW, whose bases pair with
     * {@link #powExponentsFloat}) replaced by random float bit patterns.
     */
    public static float[] floats(Kind kind, int count, long seed) {
        double[] d = doubles(kind, count, seed);
        SplittableRandom rnd = new SplittableRandom(seed * 31 + kind.ordinal());
        float[] out = new float[count];
        for (int i = 0; i < count; i++) {
            out[i] = rnd.nextInt(5) == 0 && kind != Kind.POW ? Float.intBitsToFloat(rnd.nextInt()) : (float) d[i];
        }
        return out;
    }

    /** Float exponents that go with {@code floats(Kind.POW, count, seed)}. */
    public static float[] powExponentsFloat(int count, long seed) {
        double[] d = powExponents(count, seed);
        float[] out = new float[count];
        for (int i = 0; i < count; i++) {
            out[i] = (float) d[i];
        }
        return out;
    }

    private static double expArg(SplittableRandom rnd) {
        return switch (rnd.nextInt(10)) {
            case 0, 1, 2 -> uniform(rnd, -746.0, 710.0);
            case 3 -> uniform(rnd, -1.0, 1.0);
            case 4 -> signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), -rnd.nextInt(1080)));
            case 5 -> near(rnd, pick(rnd, 709.782712893384, -745.1332191019411, -708.3964185322641, -744.44007192138,
                    -745.1332191019412), 1e-9 * rnd.nextInt(1_000_000));
            case 6 -> randomBits(rnd);
            case 7 -> ulpsAway(rnd, Math.rint(uniform(rnd, -137_000, 131_000)) * 0x1.62e42fefa39efp-8, 64);
            case 8 -> Math.rint(uniform(rnd, -750, 712)) * (rnd.nextBoolean() ? 1.0 : 0.5);
            default -> uniform(rnd, -40.0, 40.0);
        };
    }

    private static double logArg(SplittableRandom rnd) {
        return switch (rnd.nextInt(10)) {
            case 0, 1, 2, 3 -> Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1022, 1024));
            case 4, 5 -> 1.0 + signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), -rnd.nextInt(1, 60)));
            case 6 -> Double.longBitsToDouble(rnd.nextLong(1L, 0x0010000000000000L));
            case 7 -> uniform(rnd, 0.5, 2.0);
            case 8 -> randomBits(rnd);
            default -> ulpsAway(rnd, Math.scalb(Double.longBitsToDouble(0x3fe6a00000000000L
                    + ((long) rnd.nextInt(129) << 45)), rnd.nextInt(-1022, 1023)), 32);
        };
    }

    private static double tanhArg(SplittableRandom rnd) {
        return switch (rnd.nextInt(10)) {
            case 0, 1, 2 -> uniform(rnd, -20.0, 20.0);
            case 3, 4 -> uniform(rnd, -1.0, 1.0);
            case 5 -> signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), -rnd.nextInt(1080)));
            case 6 -> signed(rnd, near(rnd, pick(rnd, 0x1p-28, 20.0, 19.06, 0x1.62e42fefa39efp-9, 0.55), 1e-3));
            case 7 -> randomBits(rnd);
            case 8 -> signed(rnd, ulpsAway(rnd, 0.5 * Math.rint(uniform(rnd, 0, 7400)) * 0x1.62e42fefa39efp-8, 64));
            default -> uniform(rnd, -3.0, 3.0);
        };
    }

    private static double trigArg(SplittableRandom rnd) {
        return switch (rnd.nextInt(12)) {
            case 0, 1 -> uniform(rnd, -10.0, 10.0);
            case 2 -> uniform(rnd, -1e6, 1e6);
            case 3 -> signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, 1024)));
            case 4, 5 -> signed(rnd, ulpsAway(rnd, nearestHalfPiMultiple(rnd.nextLong(1, 1L << rnd.nextInt(1, 53))), 4));
            case 6 -> signed(rnd, near(rnd, pick(rnd, 0x1p20, 0x1.921fb54442d18p-1, 0x1p-27, 0x1p-26), 1e-9 * rnd.nextInt(100)));
            case 7 -> signed(rnd, ulpsAway(rnd, rnd.nextInt(27) * 0.03125 + 0.015625 * rnd.nextInt(-1, 2), 8));
            case 8 -> randomBits(rnd);
            case 9 -> signed(rnd, ulpsAway(rnd, pick(rnd, 0x1.6ac5b262ca1ffp+849, 0x1.8a4a1a25b7a9dp+798,
                    0x1.5b5d2d8e6f9b2p+1023, 0x1.fffffffffffffp+1023, 0x1.ac2e0e2d1b7a5p+55, 0x1.921fb54442d18p+0), 2));
            case 10 -> signed(rnd, uniform(rnd, 0.0, 0x1p30));
            default -> uniform(rnd, -2.0, 2.0);
        };
    }

    private static double[] powPair(SplittableRandom rnd) {
        double x;
        double y;
        switch (rnd.nextInt(10)) {
            case 0, 1, 2 -> {
                // a finite result most of the time: y chosen so that y log|x| lands in the exponent range
                x = Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, 1024));
                double t = uniform(rnd, -760.0, 720.0);
                double lx = Math.log(x);
                y = lx == 0.0 ? t : t / lx;
            }
            case 3 -> {
                x = 1.0 + signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), -rnd.nextInt(1, 53)));
                y = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(0, 60)));
            }
            case 4 -> {
                // negative bases with integer exponents, and the occasional non-integer
                x = -Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-30, 30));
                y = rnd.nextInt(8) == 0 ? uniform(rnd, -40, 40) : rnd.nextInt(-60, 61);
            }
            case 5 -> {
                x = rnd.nextInt(-40, 41);
                y = rnd.nextInt(-40, 41) * (rnd.nextInt(4) == 0 ? 0.5 : 1.0);
            }
            case 6 -> {
                x = uniform(rnd, 0.0, 4.0);
                y = uniform(rnd, -30.0, 30.0);
            }
            case 7 -> {
                x = randomBits(rnd);
                y = rnd.nextBoolean() ? randomBits(rnd) : uniform(rnd, -4, 4);
            }
            case 8 -> {
                x = signed(rnd, Math.scalb(1.0, rnd.nextInt(-1074, 1024)));
                y = rnd.nextBoolean() ? rnd.nextInt(-3, 4) * 0.5 : uniform(rnd, -2, 2);
            }
            default -> {
                x = uniform(rnd, 0.0, 2.0);
                double t = pick(rnd, 709.78, -708.4, -745.13, 709.782712893384);
                double lx = Math.log(x);
                y = lx == 0.0 ? t : near(rnd, t, 1e-6) / lx;
            }
        }
        return new double[] {x, y};
    }

    private static double atanArg(SplittableRandom rnd) {
        return switch (rnd.nextInt(10)) {
            case 0, 1 -> uniform(rnd, -2.0, 2.0);
            case 2 -> uniform(rnd, -100.0, 100.0);
            case 3 -> signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, 1024)));
            case 4 -> signed(rnd, ulpsAway(rnd, (rnd.nextInt(32) + 0.5) / 32, 16));
            case 5 -> signed(rnd, ulpsAway(rnd, 32 / (rnd.nextInt(32) + 0.5), 16));
            case 6 -> signed(rnd, near(rnd, pick(rnd, 1.0, 0x1p-27, 0x1p-26, 0x1p53), 1e-9 * rnd.nextInt(100) * rnd.nextDouble()));
            case 7 -> randomBits(rnd);
            case 8 -> signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-30, 30)));
            default -> uniform(rnd, -10.0, 10.0);
        };
    }

    /** (y, x) pairs for atan2: every quadrant, wide and narrow ratios, zeros, infinities, subnormals. */
    private static double[] atan2Pair(SplittableRandom rnd) {
        double y;
        double x;
        switch (rnd.nextInt(10)) {
            case 0, 1 -> {
                y = uniform(rnd, -4, 4);
                x = uniform(rnd, -4, 4);
            }
            case 2 -> {
                y = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, 1024)));
                x = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, 1024)));
            }
            case 3 -> {
                // quotients near the table points j/32 and their reciprocals
                x = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-60, 60)));
                double q = ulpsAway(rnd, (rnd.nextInt(33) + 0.5 * rnd.nextInt(-1, 2)) / 32, 8);
                y = signed(rnd, x * (rnd.nextBoolean() ? q : 1 / q));
            }
            case 4 -> {
                x = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, -1000)));
                y = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, -1000)));
            }
            case 5 -> {
                y = pick(rnd, 0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, 1.0, -3.5);
                x = pick(rnd, 0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, 2.0, -0.25);
            }
            case 6 -> {
                x = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-20, 20)));
                y = signed(rnd, ulpsAway(rnd, Math.abs(x), 64));
            }
            case 7 -> {
                y = randomBits(rnd);
                x = randomBits(rnd);
            }
            case 8 -> {
                x = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, 1024)));
                y = signed(rnd, x * Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-70, 70)));
            }
            default -> {
                y = uniform(rnd, -1, 1);
                x = uniform(rnd, -100, 100);
            }
        }
        return new double[] {y, x};
    }

    /** (x, y) pairs for hypot: all scales, ratios near 2^27, the scaling thresholds, specials. */
    private static double[] hypotPair(SplittableRandom rnd) {
        double x;
        double y;
        switch (rnd.nextInt(10)) {
            case 0, 1 -> {
                x = uniform(rnd, -10, 10);
                y = uniform(rnd, -10, 10);
            }
            case 2 -> {
                x = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, 1024)));
                y = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, 1024)));
            }
            case 3 -> {
                x = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, 1024)));
                y = signed(rnd, x * Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-30, 30)));
            }
            case 4 -> {
                x = signed(rnd, Math.scalb(near(rnd, 1.5, 0.5), (int) pick(rnd, 500, 501, 499, -500, -501, -499, 1023)));
                y = signed(rnd, x * Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-28, 1)));
            }
            case 5 -> {
                x = pick(rnd, 0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, 3.0, Double.MIN_VALUE);
                y = pick(rnd, 0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, 4.0, Double.MAX_VALUE);
            }
            case 6 -> {
                // Pythagorean triples (exact results), scaled
                long m = rnd.nextLong(2, 1L << 20);
                long n = rnd.nextLong(1, m);
                double s = Math.scalb(1.0, rnd.nextInt(-1000, 900));
                x = (double) (m * m - n * n) * s;
                y = (double) (2 * m * n) * s;
            }
            case 7 -> {
                x = randomBits(rnd);
                y = randomBits(rnd);
            }
            case 8 -> {
                x = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, -1000)));
                y = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1074, -1000)));
            }
            default -> {
                x = signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-40, 40)));
                y = signed(rnd, ulpsAway(rnd, Math.abs(x), 8));
            }
        }
        return new double[] {x, y};
    }

    /** Arguments of asin and acos: mostly in [-1, 1], crowding +-1, 0, 1/2 and sqrt(1/2). */
    private static double arcArg(SplittableRandom rnd) {
        return switch (rnd.nextInt(10)) {
            case 0, 1, 2 -> uniform(rnd, -1.0, 1.0);
            case 3 -> signed(rnd, 1.0 - Math.scalb(1.0 + rnd.nextDouble(), -rnd.nextInt(1, 54)));
            case 4 -> signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), -rnd.nextInt(1, 1075)));
            case 5 -> signed(rnd, ulpsAway(rnd, pick(rnd, 0.5, 0x1.6a09e667f3bcdp-1, 1.0, 0x1p-27, 0x1p-26), 64));
            case 6 -> randomBits(rnd);
            case 7 -> signed(rnd, uniform(rnd, 0.9, 1.0));
            case 8 -> signed(rnd, uniform(rnd, 1.0, 2.0));
            default -> signed(rnd, uniform(rnd, 0.0, 0.6));
        };
    }

    private static double log1pArg(SplittableRandom rnd) {
        return switch (rnd.nextInt(10)) {
            case 0, 1 -> uniform(rnd, -1.0, 2.0);
            case 2, 3 -> signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), -rnd.nextInt(1, 1075)));
            case 4 -> signed(rnd, ulpsAway(rnd, 0x1p-16, 64));
            case 5 -> -1.0 + Math.scalb(1.0 + rnd.nextDouble(), -rnd.nextInt(1, 54));
            case 6 -> Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-20, 1024));
            case 7 -> randomBits(rnd);
            case 8 -> signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), -rnd.nextInt(1, 60)));
            default -> uniform(rnd, -0.5, 0.5);
        };
    }

    private static double expm1Arg(SplittableRandom rnd) {
        return switch (rnd.nextInt(10)) {
            case 0, 1 -> uniform(rnd, -2.0, 2.0);
            case 2 -> uniform(rnd, -45.0, 65.0);
            case 3, 4 -> signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), -rnd.nextInt(1, 1075)));
            case 5 -> signed(rnd, ulpsAway(rnd, Math.rint(uniform(rnd, 0, 3000)) * 0x1.62e42fefa39efp-8, 64));
            case 6 -> near(rnd, pick(rnd, 709.782712893384, 709.79, -40.0, 60.0, 0x1p-54, -0x1p-54), 1e-9 * rnd.nextInt(1000));
            case 7 -> randomBits(rnd);
            case 8 -> uniform(rnd, -750.0, 710.0);
            default -> uniform(rnd, -0.01, 0.01);
        };
    }

    private static double hyperbolicArg(SplittableRandom rnd) {
        return switch (rnd.nextInt(10)) {
            case 0, 1 -> uniform(rnd, -3.0, 3.0);
            case 2, 3 -> uniform(rnd, -45.0, 45.0);
            case 4 -> signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), -rnd.nextInt(1, 1075)));
            case 5 -> signed(rnd, near(rnd, pick(rnd, 0x1p-26, 40.0, 710.4758600739439, 709.78, 0.5), 1e-9 * rnd.nextInt(1000)));
            case 6 -> randomBits(rnd);
            case 7 -> signed(rnd, ulpsAway(rnd, Math.rint(uniform(rnd, 0, 5000)) * 0x1.62e42fefa39efp-8, 64));
            case 8 -> uniform(rnd, -720.0, 720.0);
            default -> uniform(rnd, -0.1, 0.1);
        };
    }

    /**
     * Arguments of cbrt: the whole range with subnormals, exact cubes (integers, dyadic and scaled by powers of 8)
     * and their neighbours, neighbours of powers of two (where e mod 3 and the significand wrap).
     */
    private static double cbrtArg(SplittableRandom rnd) {
        return switch (rnd.nextInt(10)) {
            case 0, 1 -> uniform(rnd, -10.0, 10.0);
            case 2, 3 -> signed(rnd, Math.scalb(1.0 + rnd.nextDouble(), rnd.nextInt(-1022, 1024)));
            case 4 -> signed(rnd, Double.longBitsToDouble(rnd.nextLong(1L, 0x0010000000000000L)));
            case 5 -> {
                // n^3 2^(3k): a double for n below 2^17.6 and 3k in [-1074, 1023 - exponent], subnormals included
                double n = rnd.nextInt(1, 208_064);
                double c = n * n * n;
                int k = rnd.nextInt(-358, (1023 - Math.getExponent(c)) / 3 + 1);
                yield signed(rnd, Math.scalb(c, 3 * k));
            }
            case 6 -> signed(rnd, ulpsAway(rnd, Math.scalb(1.0, rnd.nextInt(-1074, 1024)), 8));
            case 7 -> randomBits(rnd);
            case 8 -> {
                double n = rnd.nextInt(1, 208_064);
                yield signed(rnd, ulpsAway(rnd, Math.scalb(n * n * n, 3 * rnd.nextInt(-60, 60)), 4));
            }
            default -> uniform(rnd, 0.0, 8.0);
        };
    }

    /** The double nearest k pi/2, from a 128-bit pi/2. */
    private static double nearestHalfPiMultiple(long k) {
        // pi/2 = H + M + L; k * H and k * M are formed in double-double so that the sum keeps about 100 bits
        double h = 0x1.921fb54442d18p+0;
        double m = 0x1.1a62633145c07p-54;
        double a = k * h;
        double ae = Math.fma(k, h, -a);
        return a + (ae + k * m);
    }

    private static double uniform(SplittableRandom rnd, double lo, double hi) {
        return lo + (hi - lo) * rnd.nextDouble();
    }

    private static double signed(SplittableRandom rnd, double v) {
        return rnd.nextBoolean() ? v : -v;
    }

    private static double near(SplittableRandom rnd, double v, double spread) {
        return v + spread * (2 * rnd.nextDouble() - 1);
    }

    private static double ulpsAway(SplittableRandom rnd, double v, int ulps) {
        long bits = Double.doubleToRawLongBits(v) + rnd.nextInt(-ulps, ulps + 1);
        return Double.longBitsToDouble(bits);
    }

    private static double pick(SplittableRandom rnd, double... values) {
        return values[rnd.nextInt(values.length)];
    }

    private static double randomBits(SplittableRandom rnd) {
        return Double.longBitsToDouble(rnd.nextLong());
    }

    /** Adjacent doubles from {@code start} upward, {@code length} of them, for semi-monotonicity checks. */
    public static double[] adjacent(double start, int length) {
        double[] out = new double[length];
        double v = start;
        for (int i = 0; i < length; i++) {
            out[i] = v;
            v = Math.nextUp(v);
        }
        return out;
    }
}
