package org.acc4j.runtime.launch;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.acc4j.Colouring;
import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.PresentTable;

/**
 * The colourings of the coloured loops ({@code @Loop(increments = COLOUR)}), one per kernel: made at a launch with
 * {@link Colouring#ofRange} (greedy, in iteration order) and kept, with copies of the index arrays' ranges it was
 * made from, while the loop's bounds, the index arrays (by identity) and their contents (compared element by element at
 * every call, in parallel chunks for long arrays: far cheaper than colouring again, but a pass over the maps) are
 * unchanged; any change colours again, so a colouring is never stale. The comparison is with the host's arrays: index
 * arrays kept present on the device must be changed on both sides together (an update after a change on the host),
 * as any data the kernels read. Each
 * colouring's order stays present on the device while it is kept (a dynamic reference, released when it is
 * replaced), so a call on unchanged maps copies nothing for it.
 */
final class ColourLaunch {
    private final PresentTable table;
    private final Consumer<String> report;
    private final Map<String, Cached> cached = new HashMap<>();
    /** Elements per chunk of the parallel comparison of an index array with its copy. */
    private static final int CHUNK = 1 << 20;

    /** One kernel's colouring and what it was made from. */
    private record Cached(int lo, int hi, int limit, int[][] maps, int[][] copies, Colouring colouring) {
        boolean holds(int lo, int hi, int limit, int[][] now) {
            if (lo != this.lo || hi != this.hi || limit != this.limit || now.length != maps.length) {
                return false;
            }
            for (int k = 0; k < now.length; k++) {
                if (now[k] != maps[k] || !same(now[k], Math.max(0, lo), copies[k])) {
                    return false;
                }
            }
            return true;
        }

        /** Whether {@code a} from {@code from} holds {@code copy}: compared in parallel chunks when it is long. */
        private static boolean same(int[] a, int from, int[] copy) {
            if (from + copy.length > a.length) {
                return false;
            }
            int chunks = (copy.length + CHUNK - 1) / CHUNK;
            if (chunks <= 1) {
                return Arrays.equals(a, from, from + copy.length, copy, 0, copy.length);
            }
            return java.util.stream.IntStream.range(0, chunks).parallel().allMatch(c -> {
                int lo = c * CHUNK;
                int hi = Math.min(copy.length, lo + CHUNK);
                return Arrays.equals(a, from + lo, from + hi, copy, lo, hi);
            });
        }
    }

    ColourLaunch(PresentTable table, Consumer<String> report) {
        this.table = table;
        this.report = report;
    }

    /**
     * The colouring of kernel {@code key}'s iterations {@code lo..hi-1} through {@code maps}, whose values name
     * elements {@code 0..limit-1}: the kept one when nothing changed, else a new one (reported as {@code where} says).
     *
     * @throws IllegalArgumentException when an iteration needs more than {@link Colouring#MAX_COLOURS} colours
     */
    synchronized Colouring colouring(String key, String where, int lo, int hi, int limit, int[][] maps) {
        Cached c = cached.get(key);
        if (c != null && c.holds(lo, hi, limit, maps)) {
            hold(c.colouring().order());
            return c.colouring();
        }
        long t0 = System.nanoTime();
        Colouring col = Colouring.ofRange(lo, hi, limit, maps);
        double ms = (System.nanoTime() - t0) / 1e6;
        int[][] copies = new int[maps.length][];
        for (int k = 0; k < maps.length; k++) {
            int from = Math.max(0, lo);
            int to = Math.max(from, Math.min(hi, maps[k].length));
            copies[k] = Arrays.copyOfRange(maps[k], from, to);
        }
        if (c != null) {
            release(c.colouring().order());
        }
        cached.put(key, new Cached(lo, hi, limit, maps.clone(), copies, col));
        hold(col.order());
        if (report != null) {
            report.accept(where + ": colour by colour: " + col.colours() + " colour" + (col.colours() == 1 ? "" : "s")
                    + " over " + Math.max(0, hi - lo) + " iterations, " + col.colours() + " launch"
                    + (col.colours() == 1 ? "" : "es") + " a call; coloured in "
                    + String.format(java.util.Locale.ROOT, "%.3f ms", ms)
                    + (c != null ? " (again: the loop's bounds or index arrays changed)" : ""));
        }
        return col;
    }

    /** Keeps {@code order} present on the device while its colouring is kept (again after a device loss). */
    private void hold(int[] order) {
        if (order.length > 0 && !table.isPresent(order)) {
            table.enterDynamic(order, Clause.COPYIN);
        }
    }

    private void release(int[] order) {
        if (order.length > 0 && table.isPresent(order)) {
            table.exitDynamic(order, Clause.DELETE, false);
        }
    }
}
