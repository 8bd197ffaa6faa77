package org.acc4j.runtime.launch;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.acc4j.Colouring;
import org.acc4j.compiler.plan.HostCall;
import org.acc4j.compiler.plan.LaunchPlan;
import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.Entry;
import org.acc4j.runtime.data.PresentTable;

/**
 * The colourings of the coloured loops ({@code @Loop(increments = COLOUR)}), one per kernel: made at a launch with
 * {@link Colouring#ofRange} (greedy, in iteration order) and kept, with copies of the index arrays' ranges it was
 * made from, while the loop's bounds, the index arrays (by identity) and their contents are unchanged; any change
 * colours again, so a colouring is never stale. How a call knows the contents are unchanged:
 * <ul>
 *   <li>when every index array has stayed present on the device since the colouring was last checked (the same
 *       present-table entry), nothing was copied to the device since (the table's upload count), and no data routine
 *       was queued for it ({@link #queued}) and no kernel wrote it ({@link #written}) since, the device copies the
 *       kernels read are the ones coloured: no comparison;
 *   <li>otherwise the host's arrays, which this call copies in or which the device copies mirror, are compared element
 *       by element with the copies (in parallel chunks for long arrays: far cheaper than colouring again, but a pass
 *       over the maps).
 * </ul>
 * An index array a kernel wrote while present differs from the host's: a loop coloured through it runs on the host
 * until it leaves the device. Each colouring's order stays present on the device while it is kept (a dynamic reference,
 * released when it is replaced), so a call on unchanged maps copies nothing for it.
 */
final class ColourLaunch {
    private final PresentTable table;
    private final Consumer<String> report;
    private final Map<String, Cached> cached = new HashMap<>();
    /** Arrays a kernel wrote on the device, with the entry they were written in (weak: arrays compare by identity). */
    private final Map<Object, Entry> deviceWritten = new java.util.WeakHashMap<>();
    /** Elements per chunk of the parallel comparison of an index array with its copy. */
    private static final int CHUNK = 1 << 20;

    /** One kernel's colouring, what it was made from, and the device's state when it was last checked. */
    private static final class Cached {
        final int lo;
        final int hi;
        final int limit;
        final int[][] maps;
        final int[][] copies;
        final Colouring colouring;
        Entry[] entries;
        long uploads;

        Cached(int lo, int hi, int limit, int[][] maps, int[][] copies, Colouring colouring) {
            this.lo = lo;
            this.hi = hi;
            this.limit = limit;
            this.maps = maps;
            this.copies = copies;
            this.colouring = colouring;
        }

        boolean sameShape(int lo, int hi, int limit, int[][] now) {
            if (lo != this.lo || hi != this.hi || limit != this.limit || now.length != maps.length) {
                return false;
            }
            for (int k = 0; k < now.length; k++) {
                if (now[k] != maps[k]) {
                    return false;
                }
            }
            return true;
        }

        boolean sameContents(int[][] now) {
            for (int k = 0; k < now.length; k++) {
                if (!same(now[k], Math.max(0, lo), copies[k])) {
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

    /** A loop that cannot be coloured for this call, with the reason: it runs on the host when nothing ran yet. */
    static final class Refused extends RuntimeException {
        Refused(String reason) {
            super(reason, null, false, false);
        }
    }

    ColourLaunch(PresentTable table, Consumer<String> report) {
        this.table = table;
        this.report = report;
    }

    /**
     * A kernel may have written {@code array} on the device: a colouring through it is checked again, and while it
     * stays present in this entry a loop coloured through it runs on the host.
     */
    synchronized void written(Object array) {
        if (!(array instanceof int[])) {
            // only int[] arrays are index arrays a loop is coloured through; the others need no record
            if (!cached.isEmpty()) {
                queued(array);
            }
            return;
        }
        Entry e = table.entry(array);
        if (e != null) {
            deviceWritten.put(array, e);
        }
        queued(array);
    }

    /** A data routine on an async queue may change {@code array}'s device copy: colourings through it are checked. */
    synchronized void queued(Object array) {
        if (cached.isEmpty()) {
            return;
        }
        for (Cached c : cached.values()) {
            for (int[] m : c.maps) {
                if (m == array) {
                    c.entries = null;
                }
            }
        }
    }

    /**
     * Why index array {@code map} cannot be coloured from the host now (a kernel wrote its device copy, which
     * differs from the host's), or null.
     */
    synchronized String deviceOnly(int[] map) {
        Entry e = deviceWritten.get(map);
        if (e == null) {
            return null;
        }
        if (table.entry(map) != e) {
            deviceWritten.remove(map);
            return null;
        }
        return "a kernel wrote it on the device, where it is still present, so its host copy is not what the kernels "
                + "read";
    }

    /**
     * The colouring of kernel {@code key}'s iterations {@code lo..hi-1} through {@code maps}, whose values name
     * elements {@code 0..limit-1}: the kept one when nothing changed, else a new one (reported as {@code where} says).
     *
     * @throws IllegalArgumentException when an iteration needs more than {@link Colouring#MAX_COLOURS} colours
     */
    Colouring colouring(String key, String where, int lo, int hi, int limit, int[][] maps) {
        return colouring(key, where, lo, hi, limit, maps, false);
    }

    /** As {@link #colouring(String, String, int, int, int, int[][])}; {@code inOrder}: {@link Colouring#ofRangeInOrder}. */
    synchronized Colouring colouring(String key, String where, int lo, int hi, int limit, int[][] maps,
                                     boolean inOrder) {
        Cached c = cached.get(key);
        long uploads = table.transferStats().copiesToDevice();
        Entry[] entries = new Entry[maps.length];
        boolean resident = true;
        for (int k = 0; k < maps.length; k++) {
            entries[k] = table.entry(maps[k]);
            resident &= entries[k] != null;
        }
        if (c != null && c.sameShape(lo, hi, limit, maps)) {
            boolean unchanged = resident && c.entries != null && uploads == c.uploads
                    && Arrays.equals(entries, c.entries);
            if (unchanged || c.sameContents(maps)) {
                c.entries = resident ? entries : null;
                c.uploads = uploads;
                hold(c.colouring.order());
                return c.colouring;
            }
        }
        long t0 = System.nanoTime();
        Colouring col = inOrder ? Colouring.ofRangeInOrder(lo, hi, limit, maps) : Colouring.ofRange(lo, hi, limit, maps);
        double ms = (System.nanoTime() - t0) / 1e6;
        int[][] copies = new int[maps.length][];
        for (int k = 0; k < maps.length; k++) {
            int from = Math.max(0, lo);
            int to = Math.max(from, Math.min(hi, maps[k].length));
            copies[k] = Arrays.copyOfRange(maps[k], from, to);
        }
        if (c != null) {
            release(c.colouring.order());
        }
        Cached now = new Cached(lo, hi, limit, maps.clone(), copies, col);
        now.entries = resident ? entries : null;
        now.uploads = uploads;
        cached.put(key, now);
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

    /**
     * Launches coloured kernel {@code p} once per colour of its iterations' colouring, each over that colour's range
     * of the colour order, which is bound in {@code arrays} first; {@code launch} makes one launch and gives its
     * reductions' results. {@link Refused} when the loop cannot be coloured (the call then runs on the host if nothing
     * was launched yet).
     */
    long[] byColour(String sourceFile, LaunchPlan p, HostCall call,
                    Object[] arrays, Supplier<long[]> launch) {
        String where = sourceFile + ":" + p.line() + ": kernel " + p.entry(false);
        LaunchPlan.ColourRange range;
        try {
            range = p.colourRange(call, arrays);
        } catch (IllegalArgumentException e) {
            throw new Refused(where + ": " + e.getMessage());
        }
        for (int j = 0; j < range.maps().length; j++) {
            String why = deviceOnly(range.maps()[j]);
            if (why != null) {
                throw new Refused(where + ": the index array " + range.names().get(j) + " cannot be coloured: " + why);
            }
        }
        Colouring colours;
        try {
            colours = colouring(p.entry(false), where + " (" + range.why() + ")", range.lo(), range.hi(),
                    range.limit(), range.maps(), range.inOrder());
        } catch (IllegalArgumentException e) {
            throw new Refused(where + ": " + e.getMessage() + " (at most " + Colouring.MAX_COLOURS
                    + "; use increments = ATOMIC for this loop)");
        }
        arrays[p.colourOrder()] = colours.order();
        long[] results = new long[p.reductions()];
        for (int colour = 0; colour < colours.colours(); colour++) {
            p.colour(call, colours.start(colour), colours.end(colour));
            results = launch.get();
        }
        return results;
    }
}
