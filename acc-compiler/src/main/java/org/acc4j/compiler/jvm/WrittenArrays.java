package org.acc4j.compiler.jvm;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One call's saved copies of the arrays a nest that may throw writes, so that a call that threw leaves nothing
 * written. An array is saved in one of two ways:
 * <ul>
 *   <li><b>whole</b>, before the nest runs: a parallel copy on the pool into a buffer of its shape;
 *   <li><b>by chunk</b>, for a one-dimensional array the nest writes only at its chunked loop's index ({@code y[i] =
 *       ...}, {@code i} the outermost loop, stepping by one): each chunk copies the elements of its own iterations
 *       just before it runs them, on its own thread, while no other chunk writes there. The chunk then writes what
 *       its copy has just read into the cache, the call makes no separate pass over the array, and the copy is the
 *       only extra traffic.
 * </ul>
 * A call that threw copies back every whole array and, for an array saved by chunk, the ranges of the chunks that
 * started. The buffers are kept for the nest's next call ({@link #release}).
 */
final class WrittenArrays {
    /** Pieces of at least this many elements per task of a parallel copy. */
    private static final int COPY_PIECE = 1 << 16;

    private final AtomicReference<Object[]> spare;
    private final Object[] arrays;
    /** The saved copies by the position of their array; null for an array not written. */
    private final Object[] saved;
    /** By position: saved by chunk (null when none is). */
    private final boolean[] byChunk;
    /** The chunked loop's first index, for the ranges saved by chunk. */
    private final long lower;
    /** Which chunks saved their ranges; set by {@link #beforeChunk}, sized by {@link #chunks}. */
    private volatile boolean[] started;
    private long size;
    private long extra;

    private WrittenArrays(AtomicReference<Object[]> spare, Object[] arrays, Object[] saved, boolean[] byChunk,
                          long lower) {
        this.spare = spare;
        this.arrays = arrays;
        this.saved = saved;
        this.byChunk = byChunk;
        this.lower = lower;
    }

    /**
     * Saves the written arrays (by position in {@code arrays}, {@code written}) into buffers, the spare ones when their
     * shapes fit: whole ones now, in parallel on {@code pool}; those {@code byChunk} marks (may be null) at each chunk,
     * their elements from {@code lower} plus the chunk's first iteration.
     */
    static WrittenArrays save(AtomicReference<Object[]> spare, boolean[] written, Object[] arrays, boolean[] byChunk,
                              long lower, HostKernels.Pool pool) {
        Object[] saved = spare.getAndSet(null);
        if (saved == null || saved.length != arrays.length) {
            saved = new Object[arrays.length];
        }
        List<Object[]> pieces = new ArrayList<>();
        for (int i = 0; i < arrays.length; i++) {
            if (!written[i]) {
                saved[i] = null;
                continue;
            }
            saved[i] = fit(saved[i], arrays[i]);
            if (byChunk == null || !byChunk[i]) {
                pieces(arrays[i], saved[i], pieces);
            }
        }
        copy(pieces, pool);
        return new WrittenArrays(spare, arrays, saved, byChunk, lower);
    }

    /** The chunking of the run to come: {@code chunks} chunks of {@code trip} iterations, as the nest cuts them. */
    void chunks(int chunks, long trip) {
        started = new boolean[chunks];
        size = trip / chunks;
        extra = trip % chunks;
    }

    /** Before chunk {@code c} runs its iterations {@code [lo, hi)}: saves its ranges of the arrays saved by chunk. */
    void beforeChunk(int c, long lo, long hi) {
        if (byChunk == null) {
            return;
        }
        started[c] = true;
        for (int i = 0; i < arrays.length; i++) {
            if (byChunk[i]) {
                copyRange(arrays[i], saved[i], lo, hi);
            }
        }
    }

    /** Copies everything saved back, after a chunk threw. */
    void restore(HostKernels.Pool pool) {
        List<Object[]> pieces = new ArrayList<>();
        for (int i = 0; i < arrays.length; i++) {
            if (saved[i] != null && (byChunk == null || !byChunk[i])) {
                pieces(saved[i], arrays[i], pieces);
            }
        }
        copy(pieces, pool);
        boolean[] s = started;
        if (byChunk == null || s == null) {
            return;
        }
        for (int c = 0; c < s.length; c++) {
            if (s[c]) {
                long lo = c * size + Math.min(c, extra);
                long hi = lo + size + (c < extra ? 1 : 0);
                for (int i = 0; i < arrays.length; i++) {
                    if (byChunk[i]) {
                        copyRange(saved[i], arrays[i], lo, hi);
                    }
                }
            }
        }
    }

    /** Keeps the buffers for the nest's next call. */
    void release() {
        spare.set(saved);
    }

    /** Copies the elements of iterations {@code [lo, hi)}, from {@link #lower} on, those within the arrays. */
    private void copyRange(Object from, Object to, long lo, long hi) {
        int length = java.lang.reflect.Array.getLength(from);
        long a = Math.max(0, Math.min(length, lower + lo));
        long b = Math.max(a, Math.min(length, lower + hi));
        if (b > a) {
            System.arraycopy(from, (int) a, to, (int) a, (int) (b - a));
        }
    }

    /** A buffer of {@code array}'s shape: {@code old} when it has it, else a new one. */
    private static Object fit(Object old, Object array) {
        if (array instanceof Object[] rows) {
            Object[] o = old instanceof Object[] r && r.length == rows.length && r.getClass() == rows.getClass() ? r
                    : (Object[]) java.lang.reflect.Array.newInstance(rows.getClass().getComponentType(), rows.length);
            for (int i = 0; i < rows.length; i++) {
                o[i] = fit(o[i], rows[i]);
            }
            return o;
        }
        int length = java.lang.reflect.Array.getLength(array);
        if (old != null && old.getClass() == array.getClass() && java.lang.reflect.Array.getLength(old) == length) {
            return old;
        }
        return java.lang.reflect.Array.newInstance(array.getClass().getComponentType(), length);
    }

    /** The 1D copies ({from, to, offset, length}) that copy {@code from} into {@code to}, in pieces. */
    private static void pieces(Object from, Object to, List<Object[]> out) {
        if (from instanceof Object[] rows) {
            Object[] t = (Object[]) to;
            for (int i = 0; i < rows.length; i++) {
                pieces(rows[i], t[i], out);
            }
            return;
        }
        int length = java.lang.reflect.Array.getLength(from);
        for (int at = 0; at < length; at += COPY_PIECE) {
            out.add(new Object[] {from, to, at, Math.min(COPY_PIECE, length - at)});
        }
    }

    private static void copy(List<Object[]> pieces, HostKernels.Pool pool) {
        if (pieces.isEmpty()) {
            return;
        }
        int tasks = Math.min(pieces.size(), Math.max(1, pool.threads()) * HostKernels.CHUNKS_PER_THREAD);
        pool.run(tasks, t -> {
            for (int p = t; p < pieces.size(); p += tasks) {
                Object[] c = pieces.get(p);
                System.arraycopy(c[0], (Integer) c[2], c[1], (Integer) c[2], (Integer) c[3]);
            }
        });
    }
}
