package org.acc4j.templates.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.acc4j.templates.Reductions;
import org.acc4j.templates.Reductions.Kind;
import org.acc4j.templates.Reductions.Op;
import org.acc4j.templates.Reductions.Routine;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The host mirror: it is the order the PTX runs (checked against a lane-by-lane simulation of the warps, with
 * garbage in every lane that holds no value and the blocks arriving in a random order), it is exact against a plain
 * sequential fold for the integer operations and MAX/MIN, and within the bound of its tree depth for float ADD
 * and MUL; its MAX/MIN are Java's.
 */
class ReduceOrderTest {
    static final long SEED = 0x5EED_4EDL;
    /** Block and grid shapes: non-multiples of 32, 3D, one block, thousands of blocks. */
    static final int[][][] SHAPES = {
        {{1, 1, 1}, {1, 1, 1}}, {{1, 1, 1}, {70, 1, 1}}, {{32, 1, 1}, {1, 1, 1}}, {{100, 1, 1}, {1, 1, 1}},
        {{100, 1, 1}, {7, 1, 1}}, {{16, 2, 1}, {5, 3, 1}}, {{33, 3, 1}, {4, 2, 3}}, {{7, 5, 3}, {130, 1, 1}},
        {{1024, 1, 1}, {3, 1, 1}}, {{8, 8, 16}, {2, 1, 1}}, {{64, 1, 1}, {3000, 1, 1}}, {{37, 1, 1}, {2049, 1, 1}},
    };

    static int threads(int[] d) {
        return d[0] * d[1] * d[2];
    }

    @TestFactory
    List<DynamicTest> mirrorIsTheLaneByLaneOrder() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Routine r : Reductions.all()) {
            tests.add(DynamicTest.dynamicTest(r.symbol(), () -> {
                SplittableRandom rnd = new SplittableRandom(SEED ^ r.hashCode());
                for (int[][] s : SHAPES) {
                    long[] v = values(r, threads(s[0]) * threads(s[1]), rnd);
                    long mirror = ReduceOrder.combine(r.op(), r.kind(), v, s[0], s[1]);
                    long simulated = Simt.run(r.op(), r.kind(), v, threads(s[0]), threads(s[1]), rnd);
                    assertEquals(simulated, mirror, r.symbol() + " block " + List.of(s[0][0], s[0][1], s[0][2])
                            + " grid " + List.of(s[1][0], s[1][1], s[1][2]));
                }
            }));
        }
        return tests;
    }

    /** Values where the order of float additions shows: wide magnitudes, both signs. */
    static long[] values(Routine r, int n, SplittableRandom rnd) {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            double d = (rnd.nextDouble() - 0.5) * Math.scalb(1.0, rnd.nextInt(-30, 30));
            v[i] = switch (r.kind()) {
                case I32 -> rnd.nextLong() & 0xFFFF_FFFFL;
                case I64 -> rnd.nextLong();
                case F32 -> Float.floatToRawIntBits(r.op() == Op.MUL ? (float) (1 + d / Math.scalb(1.0, 30)) : (float) d)
                        & 0xFFFF_FFFFL;
                case F64 -> Double.doubleToRawLongBits(r.op() == Op.MUL ? 1 + d / Math.scalb(1.0, 30) : d);
            };
        }
        return v;
    }

    /** The warps lane by lane, as the PTX runs them: every lane shuffles, only valid lanes combine. */
    static final class Simt {
        static long run(Op op, Kind kind, long[] v, int t, int blocks, SplittableRandom garbage) {
            long[] partials = new long[blocks];
            // arrival order does not matter: each block's value depends on its own threads only
            List<Integer> order = new ArrayList<>();
            for (int b = 0; b < blocks; b++) {
                order.add(b);
            }
            java.util.Collections.shuffle(order, new java.util.Random(garbage.nextLong()));
            for (int b : order) {
                long[] mine = new long[t];
                System.arraycopy(v, b * t, mine, 0, t);
                partials[b] = block(op, kind, mine, t, t, garbage);
            }
            long[] acc = new long[t];
            for (int l = 0; l < t; l++) {
                if (l >= blocks) {
                    acc[l] = garbage.nextLong();
                    continue;
                }
                acc[l] = partials[l];
                for (int i = l + t; i < blocks; i += t) {
                    acc[l] = ReduceOrder.apply(op, kind, acc[l], partials[i]);
                }
            }
            return block(op, kind, acc, t, Math.min(t, blocks), garbage);
        }

        private static long block(Op op, Kind kind, long[] a, int t, int n, SplittableRandom garbage) {
            int warps = (t + 31) / 32;
            long[] slots = new long[32];
            for (int w = 0; w < warps; w++) {
                long[] lanes = new long[32];
                int present = Math.min(32, t - 32 * w);
                for (int i = 0; i < 32; i++) {
                    lanes[i] = i < present ? a[32 * w + i] : garbage.nextLong();
                }
                int valid = Math.max(0, Math.min(32, n - 32 * w));
                warp(op, kind, lanes, present, valid);
                if (valid > 0) {
                    slots[w] = lanes[0];
                }
            }
            long[] lanes = new long[32];
            int present = Math.min(32, t);
            int valid = (n + 31) / 32;
            for (int i = 0; i < 32; i++) {
                lanes[i] = i < valid ? slots[i] : garbage.nextLong();
            }
            warp(op, kind, lanes, present, valid);
            return lanes[0];
        }

        private static void warp(Op op, Kind kind, long[] lanes, int present, int valid) {
            for (int o = 16; o > 0; o >>= 1) {
                long[] before = lanes.clone();
                for (int i = 0; i < present; i++) {
                    long other = before[i + o <= 31 ? i + o : i];
                    if (i + o < valid) {
                        lanes[i] = ReduceOrder.apply(op, kind, before[i], other);
                    }
                }
            }
        }
    }

    @TestFactory
    List<DynamicTest> exactAgainstASequentialFoldForIntegersAndMaxMin() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Routine r : Reductions.all()) {
            if (!r.kind().isInteger() && (r.op() == Op.ADD || r.op() == Op.MUL)) {
                continue;
            }
            tests.add(DynamicTest.dynamicTest(r.symbol(), () -> {
                SplittableRandom rnd = new SplittableRandom(SEED + r.hashCode());
                for (int[][] s : SHAPES) {
                    for (int special = 0; special < 2; special++) {
                        long[] v = values(r, threads(s[0]) * threads(s[1]), rnd);
                        if (special == 1) {
                            sprinkleSpecials(r.kind(), v, rnd);
                        }
                        long seq = Reductions.identityBits(r.op(), r.kind());
                        for (long x : v) {
                            seq = ReduceOrder.apply(r.op(), r.kind(), seq, x);
                        }
                        long tree = ReduceOrder.combine(r.op(), r.kind(), v, s[0], s[1]);
                        // which NaN a tree returns may differ from a fold; any other result is unique
                        assertEquals(canonical(r.kind(), seq), canonical(r.kind(), tree), r.symbol());
                    }
                }
            }));
        }
        return tests;
    }

    /** Zeros of both signs, infinities, NaNs with payloads (floats); extremes (integers). */
    static void sprinkleSpecials(Kind k, long[] v, SplittableRandom rnd) {
        long[] specials = switch (k) {
            case F64 -> new long[] {0L, Long.MIN_VALUE, 0x7FF0_0000_0000_0000L, 0xFFF0_0000_0000_0000L,
                0x7FF8_0000_0000_0001L, 0xFFF4_0000_0000_0000L, 1L};
            case F32 -> new long[] {0L, 0x8000_0000L, 0x7F80_0000L, 0xFF80_0000L, 0x7FC0_0001L, 0xFFA0_0000L, 1L};
            case I32 -> new long[] {0x8000_0000L, 0x7FFF_FFFFL, 0xFFFF_FFFFL, 0L};
            case I64 -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE, -1L, 0L};
        };
        int count = 1 + v.length / 50;
        for (int i = 0; i < count; i++) {
            v[rnd.nextInt(v.length)] = specials[rnd.nextInt(specials.length)];
        }
    }

    private static long canonical(Kind k, long bits) {
        return switch (k) {
            case F64 -> Double.doubleToLongBits(Double.longBitsToDouble(bits));
            case F32 -> Float.floatToIntBits(Float.intBitsToFloat((int) bits)) & 0xFFFF_FFFFL;
            default -> bits;
        };
    }

    /**
     * Float ADD and MUL, with gamma(n) = n u / (1 - n u): a sum's error is at most gamma(h) * sum|x_i|, h the
     * mirror's tree depth (5 + 5 within the block, ceil(blocks/T) - 1 in the fold, 5 + 5 in the last block), against
     * gamma(N - 1) for the sequential fold; a product of N factors makes N - 1 roundings in any order, so its error
     * is at most gamma(N - 1) * |exact| for both. The mirror and the fold differ by at most the two bounds added.
     */
    @TestFactory
    List<DynamicTest> floatSumsAndProductsWithinTheirTreeBound() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Routine r : Reductions.all()) {
            if (r.kind().isInteger() || !(r.op() == Op.ADD || r.op() == Op.MUL)) {
                continue;
            }
            tests.add(DynamicTest.dynamicTest(r.symbol(), () -> {
                SplittableRandom rnd = new SplittableRandom(SEED - r.hashCode());
                double u = r.kind() == Kind.F64 ? 0x1p-53 : 0x1p-24;
                double worst = 0;
                for (int[][] s : SHAPES) {
                    int t = threads(s[0]);
                    int blocks = threads(s[1]);
                    long[] v = values(r, t * blocks, rnd);
                    double tree = value(r.kind(), ReduceOrder.combine(r.op(), r.kind(), v, s[0], s[1]));
                    double seq = value(r.kind(), Reductions.identityBits(r.op(), r.kind()));
                    BigDecimal exact = r.op() == Op.ADD ? BigDecimal.ZERO : BigDecimal.ONE;
                    double scale = 0;
                    MathContext mc = new MathContext(60);
                    for (long x : v) {
                        double d = value(r.kind(), x);
                        seq = r.kind() == Kind.F64 ? (r.op() == Op.ADD ? seq + d : seq * d)
                                : (r.op() == Op.ADD ? (float) seq + (float) d : (float) seq * (float) d);
                        exact = r.op() == Op.ADD ? exact.add(new BigDecimal(d)) : exact.multiply(new BigDecimal(d), mc);
                        scale += Math.abs(d);
                    }
                    if (r.op() == Op.MUL) {
                        scale = Math.abs(exact.doubleValue());
                    }
                    int h = r.op() == Op.ADD ? 20 + (blocks + t - 1) / t - 1 : v.length - 1;
                    double treeBound = gamma(h, u) * scale;
                    double bothBound = (gamma(h, u) + gamma(v.length - 1, u)) * scale;
                    double toExact = Math.abs(new BigDecimal(tree).subtract(exact).doubleValue());
                    assertTrue(toExact <= treeBound, r.symbol() + ": " + tree + " is " + toExact + " from the exact "
                            + exact.doubleValue() + ", beyond " + treeBound);
                    assertTrue(Math.abs(tree - seq) <= bothBound, r.symbol() + ": " + tree + " vs fold " + seq);
                    if (treeBound > 0) {
                        worst = Math.max(worst, toExact / treeBound);
                    }
                }
                System.out.printf(Locale.ROOT, "%s: mirror error at most %.3f of its bound on %d shapes%n",
                        r.symbol(), worst, SHAPES.length);
            }));
        }
        return tests;
    }

    private static double gamma(int n, double u) {
        return n * u / (1 - n * u);
    }

    private static double value(Kind k, long bits) {
        return k == Kind.F64 ? Double.longBitsToDouble(bits) : Float.intBitsToFloat((int) bits);
    }

    @Test
    void maxAndMinAreJavasKeepingBits() {
        double[] xs = {Double.NaN, Double.longBitsToDouble(0xFFF8_0000_0000_0042L), 0.0, -0.0, 1.0, -1.0,
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -Double.MAX_VALUE};
        for (double x : xs) {
            for (double y : xs) {
                long a = Double.doubleToRawLongBits(x);
                long b = Double.doubleToRawLongBits(y);
                long max = ReduceOrder.apply(Op.MAX, Kind.F64, a, b);
                long min = ReduceOrder.apply(Op.MIN, Kind.F64, a, b);
                assertEquals(Double.doubleToLongBits(Math.max(x, y)), Double.doubleToLongBits(Double.longBitsToDouble(max)));
                assertEquals(Double.doubleToLongBits(Math.min(x, y)), Double.doubleToLongBits(Double.longBitsToDouble(min)));
                // a NaN result is the first NaN operand, bits and all
                if (x != x) {
                    assertEquals(a, max);
                    assertEquals(a, min);
                } else if (y != y) {
                    assertEquals(b, max);
                    assertEquals(b, min);
                }
                float fx = (float) x;
                float fy = (float) y;
                long fa = Float.floatToRawIntBits(fx) & 0xFFFF_FFFFL;
                long fb = Float.floatToRawIntBits(fy) & 0xFFFF_FFFFL;
                assertEquals(Float.floatToIntBits(Math.max(fx, fy)),
                        Float.floatToIntBits(Float.intBitsToFloat((int) ReduceOrder.apply(Op.MAX, Kind.F32, fa, fb))));
                assertEquals(Float.floatToIntBits(Math.min(fx, fy)),
                        Float.floatToIntBits(Float.intBitsToFloat((int) ReduceOrder.apply(Op.MIN, Kind.F32, fa, fb))));
            }
        }
        assertEquals(Double.doubleToRawLongBits(Double.NaN), ReduceOrder.apply(Op.ADD, Kind.F64,
                Double.doubleToRawLongBits(Double.POSITIVE_INFINITY), Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY)));
        assertEquals(0x7FC0_0000L, ReduceOrder.apply(Op.MUL, Kind.F32, 0x7F80_0000L, 0L));
    }

    @Test
    void smallCasesByHand() {
        // one block of 3: lane 0 takes lane 2 at o = 2, then lane 1 at o = 1
        long[] v = {1, 2, 4};
        assertEquals(7, ReduceOrder.combine(Op.XOR, Kind.I32, v, new int[] {3, 1, 1}, new int[] {1, 1, 1}));
        // 2 threads x 3 blocks: partials 1+2, 3+4, 5+6; thread 0 folds 3 then 11, thread 1 holds 7: 14 + 7
        long[] w = {1, 2, 3, 4, 5, 6};
        assertEquals(21, ReduceOrder.combine(Op.ADD, Kind.I64, w, new int[] {2, 1, 1}, new int[] {3, 1, 1}));
        // integers wrap
        long[] big = {0x7FFF_FFFFL, 1};
        assertEquals(0x8000_0000L, ReduceOrder.combine(Op.ADD, Kind.I32, big, new int[] {1, 1, 1}, new int[] {2, 1, 1}));
        // (1e16 + -1e16) + (1 + 1) by the tree, where ((1e16 + 1) + -1e16) + 1 = 1 left to right
        long[] f = {bits(1e16), bits(1.0), bits(-1e16), bits(1.0)};
        assertEquals(bits(2.0), ReduceOrder.combine(Op.ADD, Kind.F64, f, new int[] {4, 1, 1}, new int[] {1, 1, 1}));
    }

    private static long bits(double d) {
        return Double.doubleToRawLongBits(d);
    }

    @Test
    void badShapesAndCountsAreRejectedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReduceOrder.combine(Op.ADD, Kind.I32, new long[5], new int[] {2, 1, 1}, new int[] {3, 1, 1}));
        assertTrue(e.getMessage().contains("5 values"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ReduceOrder.combine(Op.ADD, Kind.I32, new long[2048], new int[] {2048, 1, 1}, new int[] {1, 1, 1}));
        assertTrue(e.getMessage().contains("1024"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> ReduceOrder.combine(Op.ADD, Kind.I32, new long[0], new int[] {0, 1, 1}, new int[] {1, 1, 1}));
        e = assertThrows(IllegalArgumentException.class,
                () -> ReduceOrder.combine(Op.AND, Kind.F64, new long[1], new int[] {1, 1, 1}, new int[] {1, 1, 1}));
        assertTrue(e.getMessage().contains("AND") && e.getMessage().contains("F64"), e.getMessage());
    }
}
