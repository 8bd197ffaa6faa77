package org.acc4j.templates.reduce;

import java.util.Arrays;
import java.util.Objects;
import org.acc4j.templates.Reductions;
import org.acc4j.templates.Reductions.Kind;
import org.acc4j.templates.Reductions.Op;
import org.acc4j.templates.Reductions.Routine;

/**
 * The host mirror of the {@link Reductions} routines: the same combinations in the same order, so the same bits,
 * for any per-thread values and launch shape. The kernel interpreter uses it to reproduce the device's result,
 * and the GPU tests compare the device with it bit for bit.
 *
 * <p>Values are raw bits in a {@code long}: for the 32-bit kinds the low 32 bits (the high ones are ignored on
 * input and 0 on output), floats as {@link Float#floatToRawIntBits}, doubles as
 * {@link Double#doubleToRawLongBits}.
 */
public final class ReduceOrder {
    private static final int WARP = 32;
    private static final long CANONICAL_NAN_F32 = Float.floatToRawIntBits(Float.NaN) & 0xFFFF_FFFFL;
    private static final long CANONICAL_NAN_F64 = Double.doubleToRawLongBits(Double.NaN);

    private ReduceOrder() {
    }

    /**
     * The bits the device routine {@code op}/{@code kind} writes to {@code *result} when thread {@code l} of block
     * {@code b} passes {@code perThreadBits[b * T + l]}, where T is the block's thread count and l and b are the
     * linear ids (x fastest).
     *
     * @param block threads on x, y, z, each at least 1, at most 1024 in all
     * @param grid blocks on x, y, z, each at least 1
     * @throws IllegalArgumentException for an operation that does not apply to the kind, a bad shape, or a
     *     number of values other than threads x blocks, naming them
     */
    public static long combine(Op op, Kind kind, long[] perThreadBits, int[] block, int[] grid) {
        new Routine(op, kind);
        Objects.requireNonNull(perThreadBits, "perThreadBits");
        long threads = checkedProduct(block, "block");
        long blocks = checkedProduct(grid, "grid");
        if (threads > 1024) {
            throw new IllegalArgumentException("a block of " + Arrays.toString(block) + " has " + threads
                    + " threads, more than 1024");
        }
        if (threads * blocks != perThreadBits.length) {
            throw new IllegalArgumentException(perThreadBits.length + " values for " + threads + " threads x "
                    + blocks + " blocks (block " + Arrays.toString(block) + ", grid " + Arrays.toString(grid) + ")");
        }
        int t = (int) threads;
        int nb = (int) blocks;
        long[] partials = new long[nb];
        long[] scratch = new long[t];
        for (int b = 0; b < nb; b++) {
            System.arraycopy(perThreadBits, b * t, scratch, 0, t);
            partials[b] = blockTree(op, kind, scratch, t);
        }
        int n = Math.min(t, nb);
        for (int l = 0; l < n; l++) {
            long a = partials[l];
            for (int i = l + t; i < nb; i += t) {
                a = apply(op, kind, a, partials[i]);
            }
            scratch[l] = a;
        }
        return blockTree(op, kind, scratch, n);
    }

    private static long checkedProduct(int[] dims, String what) {
        if (dims == null || dims.length != 3) {
            throw new IllegalArgumentException(what + " needs x, y and z, not " + Arrays.toString(dims));
        }
        long p = 1;
        for (int d : dims) {
            if (d < 1) {
                throw new IllegalArgumentException(what + " " + Arrays.toString(dims) + " has a dimension below 1");
            }
            p *= d;
        }
        if (p > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(what + " " + Arrays.toString(dims) + " is too large to mirror");
        }
        return p;
    }

    /** The block tree over {@code v[0..n)} (overwritten): each warp's lane tree, then warp 0's over the slots. */
    private static long blockTree(Op op, Kind kind, long[] v, int n) {
        int warps = (n + WARP - 1) / WARP;
        long[] slots = new long[warps];
        for (int w = 0; w < warps; w++) {
            slots[w] = laneTree(op, kind, v, w * WARP, Math.min(WARP, n - w * WARP));
        }
        return laneTree(op, kind, slots, 0, warps);
    }

    /**
     * The shuffle tree of one warp over the {@code count} values from {@code v[base]}: lane i takes
     * op(lane i, lane i + o) for o = 16, 8, 4, 2, 1 while i + o < count. Only lanes below o matter at step o
     * (the rest are never read again), so only those are updated, each from a lane not yet updated in that step.
     */
    private static long laneTree(Op op, Kind kind, long[] v, int base, int count) {
        for (int o = WARP / 2; o > 0; o >>= 1) {
            for (int i = 0; i < o && i + o < count; i++) {
                v[base + i] = apply(op, kind, v[base + i], v[base + i + o]);
            }
        }
        return v[base];
    }

    /**
     * One combination {@code op(a, b)} as the device does it: wrapping integers, IEEE floats rounded to nearest
     * with a NaN result made canonical for ADD and MUL, and {@link Math#max}/{@link Math#min} keeping the bits of
     * the operand they return.
     */
    public static long apply(Op op, Kind kind, long a, long b) {
        return switch (kind) {
            case I32 -> applyInt(op, (int) a, (int) b) & 0xFFFF_FFFFL;
            case I64 -> applyLong(op, a, b);
            case F32 -> applyFloat(op, (int) a, (int) b) & 0xFFFF_FFFFL;
            case F64 -> applyDouble(op, a, b);
        };
    }

    private static int applyInt(Op op, int a, int b) {
        return switch (op) {
            case ADD -> a + b;
            case MUL -> a * b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case AND -> a & b;
            case OR -> a | b;
            case XOR -> a ^ b;
        };
    }

    private static long applyLong(Op op, long a, long b) {
        return switch (op) {
            case ADD -> a + b;
            case MUL -> a * b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case AND -> a & b;
            case OR -> a | b;
            case XOR -> a ^ b;
        };
    }

    private static int applyFloat(Op op, int a, int b) {
        float x = Float.intBitsToFloat(a);
        float y = Float.intBitsToFloat(b);
        return switch (op) {
            case ADD -> canonical(x + y);
            case MUL -> canonical(x * y);
            // Math.max/min on the bits: the first NaN, the AND/OR of two zeros' bits, else the larger/smaller
            case MAX -> x != x ? a : y != y ? b : x == 0 && y == 0 ? a & b : x >= y ? a : b;
            case MIN -> x != x ? a : y != y ? b : x == 0 && y == 0 ? a | b : x <= y ? a : b;
            default -> throw new IllegalArgumentException(op + " over F32");
        };
    }

    private static long applyDouble(Op op, long a, long b) {
        double x = Double.longBitsToDouble(a);
        double y = Double.longBitsToDouble(b);
        return switch (op) {
            case ADD -> canonical(x + y);
            case MUL -> canonical(x * y);
            case MAX -> x != x ? a : y != y ? b : x == 0 && y == 0 ? a & b : x >= y ? a : b;
            case MIN -> x != x ? a : y != y ? b : x == 0 && y == 0 ? a | b : x <= y ? a : b;
            default -> throw new IllegalArgumentException(op + " over F64");
        };
    }

    private static int canonical(float r) {
        return r != r ? (int) CANONICAL_NAN_F32 : Float.floatToRawIntBits(r);
    }

    private static long canonical(double r) {
        return r != r ? CANONICAL_NAN_F64 : Double.doubleToRawLongBits(r);
    }
}
