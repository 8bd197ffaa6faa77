package org.acc4j.compiler.jvm;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.acc4j.Colouring;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.ColourPlan;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.Region;

/**
 * The colouring of one coloured nest ({@code @Loop(increments = COLOUR)}) on the host's cores: made at a call with
 * {@link Colouring#ofRange} (greedy, in iteration order, as the GPU path makes it) and kept, with copies of the index
 * arrays' ranges it was made from, while the loop's bounds, the index arrays (by identity) and their contents are
 * unchanged; a call compares the index arrays with the copies (in parallel on the pool: a pass over the maps, far
 * cheaper than colouring again) and colours again on any change, so a colouring is never stale. Thread-safe: calls
 * racing on a change each colour, and the last one kept.
 */
final class HostColours {
    /** Elements per task of the parallel comparison of an index array with its copy. */
    private static final int PIECE = 1 << 18;

    private record Kept(int lo, int hi, int limit, int[][] maps, int[][] copies, Colouring colouring) {
    }

    private final AtomicReference<Kept> kept = new AtomicReference<>();

    /** A call's colouring: its iterations' bounds and, through {@link #order}, the colour order. */
    record Call(Colouring colouring, int lo, int hi) {
    }

    /**
     * The colouring of {@code r}'s loop for this call, its bounds and index arrays read through {@code sources} after
     * the region's device prologue.
     *
     * @throws HostKernels.HostInstead when an iteration needs more than {@link Colouring#MAX_COLOURS} colours (nothing
     *     ran), or the bounds cannot be evaluated on the host
     */
    Call colouring(Region r, Evaluator ev, Function<ArrayRef.Source, Object> sources, HostKernels.Pool pool) {
        ColourPlan c = r.colour();
        int lo;
        int hi;
        try {
            ev.run(r.devicePrologue());
            lo = Math.toIntExact(ev.evalLong(c.lower()));
            hi = Math.toIntExact(ev.evalLong(c.bound()) + (c.inclusive() ? 1 : 0));
        } catch (Evaluator.NotEvaluable | ArithmeticException e) {
            throw new HostKernels.HostInstead("the bounds of the coloured loop at line " + r.loop().line()
                    + " cannot be evaluated on the host (" + e.getMessage() + ")");
        }
        int[][] maps = new int[c.maps().size()][];
        for (int j = 0; j < maps.length; j++) {
            maps[j] = (int[]) sources.apply(c.maps().get(j).source());
            if (maps[j] == null) {
                throw new HostKernels.HostInstead("the index array " + c.maps().get(j).name() + " is null");
            }
        }
        int[] lengths = new int[c.targets().size()];
        for (int j = 0; j < lengths.length; j++) {
            Object a = sources.apply(c.targets().get(j).array().source());
            if (a == null) {
                throw new HostKernels.HostInstead("the array " + c.targets().get(j).array().name() + " is null");
            }
            lengths[j] = java.lang.reflect.Array.getLength(a);
        }
        int limit = c.limit(lengths);
        Kept k = kept.get();
        if (k != null && k.lo == lo && k.hi == hi && k.limit == limit && sameMaps(k, maps, pool)) {
            return new Call(k.colouring, lo, hi);
        }
        Colouring col;
        try {
            col = c.inOrder() ? Colouring.ofRangeInOrder(lo, hi, limit, maps) : Colouring.ofRange(lo, hi, limit, maps);
        } catch (IllegalArgumentException e) {
            throw new HostKernels.HostInstead(e.getMessage());
        }
        int[][] copies = new int[maps.length][];
        int from = Math.max(0, lo);
        for (int j = 0; j < maps.length; j++) {
            int to = Math.max(from, Math.min(hi, maps[j].length));
            copies[j] = from >= maps[j].length ? new int[0] : Arrays.copyOfRange(maps[j], from, to);
        }
        kept.set(new Kept(lo, hi, limit, maps.clone(), copies, col));
        return new Call(col, lo, hi);
    }

    /** Whether {@code maps} are the kept colouring's arrays with the contents it was made from. */
    private static boolean sameMaps(Kept k, int[][] maps, HostKernels.Pool pool) {
        if (maps.length != k.maps.length) {
            return false;
        }
        for (int j = 0; j < maps.length; j++) {
            if (maps[j] != k.maps[j]) {
                return false;
            }
        }
        int from = Math.max(0, k.lo);
        AtomicBoolean differs = new AtomicBoolean();
        for (int j = 0; j < maps.length; j++) {
            int[] now = maps[j];
            int[] copy = k.copies[j];
            int expected = from >= now.length ? 0 : Math.max(0, Math.min(k.hi, now.length) - from);
            if (copy.length != expected) {
                return false;
            }
            int pieces = (copy.length + PIECE - 1) / PIECE;
            if (pieces <= 1) {
                if (!Arrays.equals(now, from, from + copy.length, copy, 0, copy.length)) {
                    return false;
                }
                continue;
            }
            pool.run(pieces, p -> {
                int a = p * PIECE;
                int b = Math.min(copy.length, a + PIECE);
                if (!differs.get() && !Arrays.equals(now, from + a, from + b, copy, a, b)) {
                    differs.set(true);
                }
            });
            if (differs.get()) {
                return false;
            }
        }
        return true;
    }

    /** The order of iterations {@code lo..hi-1} as Java runs them: how a call that threw finds Java's exception. */
    static int[] javaOrder(int lo, int hi) {
        int[] order = new int[Math.max(0, hi - lo)];
        for (int t = 0; t < order.length; t++) {
            order[t] = lo + t;
        }
        return order;
    }
}
