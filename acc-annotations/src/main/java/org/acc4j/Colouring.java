package org.acc4j;

import java.util.Arrays;

/**
 * A colouring of a loop's iterations ("items", the edges of a mesh) such that no two items of one colour reach the
 * same element through the index arrays ("maps", the cells on either side of each edge): the items of one colour can
 * add into those elements in parallel without atomics, one launch per colour. This is the global colouring that
 * G. D. Balogh, I. Z. Reguly and G. R. Mudalige, <i>Comparison of Parallelisation Approaches, Languages, and
 * Compilers for Unstructured Mesh Algorithms on GPUs</i>, describe for directive-based codes.
 *
 * <p>Greedy, in item order: each item takes the lowest colour that none of its elements has yet. A mesh whose
 * elements meet at most {@code d} items needs at most {@code 2d - 1} colours with two maps; at most 64 are supported.
 * {@link #order()} lists the items colour by colour, in increasing order within a colour (so neighbouring items
 * stay close in memory).
 *
 * <pre>{@code
 * Colouring.Cache cache = new Colouring.Cache();
 * Colouring col = cache.of(edges, cell1, cell2);   // coloured again only when cell1 or cell2 changed
 * for (int c = 0; c < col.colours(); c++) {
 *     fluxes(col.order(), col.start(c), col.end(c), ...);   // a @Kernels loop over order[start..end)
 * }
 * }</pre>
 */
public final class Colouring {
    /** The most colours a colouring may need. */
    public static final int MAX_COLOURS = 64;

    private final int[] order;
    private final int[] starts;

    private Colouring(int[] order, int[] starts) {
        this.order = order;
        this.starts = starts;
    }

    /**
     * Colours items {@code 0..items-1}: item {@code i} reaches element {@code m[i]} of each map {@code m}.
     *
     * @throws IllegalArgumentException when a map is shorter than {@code items}, an element is negative, or an item
     *     would need more than {@link #MAX_COLOURS} colours (naming it)
     */
    public static Colouring of(int items, int[]... maps) {
        int elements = 0;
        for (int[] m : maps) {
            if (m.length < items) {
                throw new IllegalArgumentException("a map of " + m.length + " elements for " + items + " items");
            }
            for (int i = 0; i < items; i++) {
                if (m[i] < 0) {
                    throw new IllegalArgumentException("item " + i + " maps to element " + m[i]);
                }
                elements = Math.max(elements, m[i] + 1);
            }
        }
        long[] used = new long[elements];
        byte[] colour = new byte[items];
        int[] count = new int[MAX_COLOURS];
        int colours = 0;
        for (int i = 0; i < items; i++) {
            long taken = 0;
            for (int[] m : maps) {
                taken |= used[m[i]];
            }
            if (taken == -1L) {
                throw new IllegalArgumentException("item " + i + " needs more than " + MAX_COLOURS + " colours");
            }
            int c = Long.numberOfTrailingZeros(~taken);
            for (int[] m : maps) {
                used[m[i]] |= 1L << c;
            }
            colour[i] = (byte) c;
            count[c]++;
            colours = Math.max(colours, c + 1);
        }
        return grouped(0, colour, count, colours);
    }

    /**
     * Colours the iterations {@code lo..hi-1} of a loop, as the runtime does for {@code @Loop(increments = COLOUR)}:
     * iteration {@code e} reaches element {@code m[e]} of each map {@code m}, and {@link #order()} lists the
     * iterations themselves. A map value outside {@code [0, limit)}, or an iteration past a map's end, reaches nothing
     * here: the loop's own bounds check fails there, as Java's would.
     *
     * @throws IllegalArgumentException when an iteration would need more than {@link #MAX_COLOURS} colours (naming it)
     */
    public static Colouring ofRange(int lo, int hi, int limit, int[]... maps) {
        int items = Math.max(0, hi - lo);
        long[] used = new long[Math.max(0, limit)];
        byte[] colour = new byte[items];
        int[] count = new int[MAX_COLOURS];
        int colours = 0;
        for (int i = 0; i < items; i++) {
            int e = lo + i;
            long taken = 0;
            for (int[] m : maps) {
                if (e >= 0 && e < m.length && m[e] >= 0 && m[e] < limit) {
                    taken |= used[m[e]];
                }
            }
            if (taken == -1L) {
                throw new IllegalArgumentException("iteration " + e + " needs more than " + MAX_COLOURS + " colours");
            }
            int c = Long.numberOfTrailingZeros(~taken);
            for (int[] m : maps) {
                if (e >= 0 && e < m.length && m[e] >= 0 && m[e] < limit) {
                    used[m[e]] |= 1L << c;
                }
            }
            colour[i] = (byte) c;
            count[c]++;
            colours = Math.max(colours, c + 1);
        }
        return grouped(lo, colour, count, colours);
    }

    /**
     * As {@link #ofRange}, with each element's iterations in increasing colours: an iteration takes the colour after
     * the highest any of its elements has so far, so that running the colours in turn applies each element's
     * increments in the loop's order (every sum Java's, bit for bit). It may need more colours than {@link #ofRange}:
     * as many as the most iterations that reach one element.
     *
     * @throws IllegalArgumentException when an iteration would need more than {@link #MAX_COLOURS} colours (naming it)
     */
    public static Colouring ofRangeInOrder(int lo, int hi, int limit, int[]... maps) {
        int items = Math.max(0, hi - lo);
        // per element: the colour after the last iteration that reached it (0: none yet)
        byte[] next = new byte[Math.max(0, limit)];
        byte[] colour = new byte[items];
        int[] count = new int[MAX_COLOURS];
        int colours = 0;
        for (int i = 0; i < items; i++) {
            int e = lo + i;
            int c = 0;
            for (int[] m : maps) {
                if (e >= 0 && e < m.length && m[e] >= 0 && m[e] < limit) {
                    c = Math.max(c, next[m[e]]);
                }
            }
            if (c >= MAX_COLOURS) {
                throw new IllegalArgumentException("iteration " + e + " needs more than " + MAX_COLOURS + " colours"
                        + " to keep each element's increments in order");
            }
            for (int[] m : maps) {
                if (e >= 0 && e < m.length && m[e] >= 0 && m[e] < limit) {
                    next[m[e]] = (byte) (c + 1);
                }
            }
            colour[i] = (byte) c;
            count[c]++;
            colours = Math.max(colours, c + 1);
        }
        return grouped(lo, colour, count, colours);
    }

    /** The iterations {@code lo + i} grouped by their colours, {@code count[c]} of colour {@code c}, in loop order. */
    private static Colouring grouped(int lo, byte[] colour, int[] count, int colours) {
        int[] starts = new int[colours + 1];
        for (int c = 0; c < colours; c++) {
            starts[c + 1] = starts[c] + count[c];
        }
        int[] position = Arrays.copyOf(starts, colours);
        int[] order = new int[colour.length];
        for (int i = 0; i < colour.length; i++) {
            order[position[colour[i]]++] = lo + i;
        }
        return new Colouring(order, starts);
    }

    /** How many colours. */
    public int colours() {
        return starts.length - 1;
    }

    /** The items, colour by colour (shared: do not change it). */
    public int[] order() {
        return order;
    }

    /** Where colour {@code c}'s items start in {@link #order()}. */
    public int start(int c) {
        return starts[c];
    }

    /** Where colour {@code c}'s items end (exclusive) in {@link #order()}. */
    public int end(int c) {
        return starts[c + 1];
    }

    /**
     * Keeps the last colouring with copies of its maps, and gives it again while the maps are the same arrays with
     * the same contents (compared element by element: a check far cheaper than colouring); otherwise colours again.
     * Not thread-safe: one cache per loop and thread.
     */
    public static final class Cache {
        private int items = -1;
        private int[][] maps;
        private int[][] copies;
        private Colouring last;

        /** As {@link Colouring#of}, reusing the last colouring when nothing changed. */
        public Colouring of(int items, int[]... maps) {
            if (last != null && items == this.items && maps.length == this.maps.length && unchanged(maps)) {
                return last;
            }
            Colouring c = Colouring.of(items, maps);
            this.items = items;
            this.maps = maps.clone();
            this.copies = new int[maps.length][];
            for (int k = 0; k < maps.length; k++) {
                copies[k] = Arrays.copyOf(maps[k], items);
            }
            last = c;
            return c;
        }

        private boolean unchanged(int[][] now) {
            for (int k = 0; k < now.length; k++) {
                if (now[k] != maps[k] || !Arrays.equals(now[k], 0, items, copies[k], 0, items)) {
                    return false;
                }
            }
            return true;
        }
    }
}
