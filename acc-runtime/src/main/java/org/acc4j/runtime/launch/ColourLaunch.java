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
 * made from, while the loop's bounds, the index arrays (by identity) and their contents (compared element by element,
 * far cheaper than colouring again) are unchanged; any change colours again, so a colouring is never stale. Each
 * colouring's order stays present on the device while it is kept (a dynamic reference, released when it is
 * replaced), so a call on unchanged maps copies nothing for it.
 */
final class ColourLaunch {
    private final PresentTable table;
    private final Consumer<String> report;
    private final Map<String, Cached> cached = new HashMap<>();

    /** One kernel's colouring and what it was made from. */
    private record Cached(int lo, int hi, int limit, int[][] maps, int[][] copies, Colouring colouring) {
        boolean holds(int lo, int hi, int limit, int[][] now) {
            if (lo != this.lo || hi != this.hi || limit != this.limit || now.length != maps.length) {
                return false;
            }
            for (int k = 0; k < now.length; k++) {
                int[] range = copies[k];
                int from = Math.max(0, lo);
                if (now[k] != maps[k] || !Arrays.equals(now[k], from, from + range.length, range, 0, range.length)) {
                    return false;
                }
            }
            return true;
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
