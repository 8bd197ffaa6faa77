package org.acc4j.runtime.data;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Rectangular two-dimensional arrays that left the device as a whole block, kept for their next entry: the block and
 * row table stay allocated and the entries (the array's and each row's, with their keys and slices) stay built, in
 * the table's map but marked kept, so not present. When the same array is entered again with the very same row objects, none present meanwhile, the
 * layout is taken back as it was: the rows' entries go back into the table, the data is copied in (or not, as the
 * clause says), and nothing is allocated, built or written to the row table, whose addresses and lengths are still
 * right. A call that moves a {@code T[][]} to the device and back thus costs its copies and a pass over its rows.
 *
 * <p>At most {@value #MOST} layouts of at most {@value #MOST_BYTES_ONE} bytes each and {@value #MOST_BYTES} in all are
 * kept, the least recently kept freed first; all are freed when an allocation does not fit, at the table's close, and
 * abandoned with the device. A kept array the collector reclaimed is freed when the list is next looked at. Kept only
 * where the memory says so ({@link DeviceMemory#keepsLayouts}).
 *
 * <p>Owned by one {@link PresentTable} and used only under its lock.
 */
final class KeptLayouts {
    static final int MOST = 8;
    static final long MOST_BYTES_ONE = 64L << 20;
    static final long MOST_BYTES = 256L << 20;

    private final Entries entries;
    private final Traffic traffic;
    /** Most recently kept first. */
    private final ArrayDeque<Entry> kept = new ArrayDeque<>();
    private long bytes;

    KeptLayouts(Entries entries, Traffic traffic) {
        this.entries = entries;
        this.traffic = traffic;
    }

    /**
     * Whether {@code entry}, a two-dimensional array about to leave the device whose table lists its block's rows in
     * order, each held by the table alone, may be kept: the memory keeps layouts, its array is still reachable and it
     * is not too large.
     */
    boolean wanted(Entry entry) {
        return traffic.memory().keepsLayouts() && entry.block != null && entry.listsBlock && entry.key.get() != null
                && size(entry) <= MOST_BYTES_ONE;
    }

    private static long size(Entry entry) {
        return entry.block.buffer.bytes() + entry.buffer.bytes();
    }

    /**
     * Keeps {@code entry} ({@link #wanted}), released with its counts at zero: it and its rows' entries stay in the
     * map under their keys, marked kept, so that nothing present finds them and no map changes ({@link
     * Entries#keep}). Frees the least recently kept layouts beyond the limits.
     */
    void keep(Entry entry) {
        entries.keep(entry, entry);
        for (Entry row : entry.rowEntries) {
            entries.keep(row, entry);
        }
        entry.keptBroken = false;
        kept.addFirst(entry);
        bytes += size(entry);
        while (kept.size() > MOST || bytes > MOST_BYTES) {
            Entry last = kept.removeLast();
            bytes -= size(last);
            free(last);
        }
    }

    /**
     * The layout kept for {@code array}, taken out of the list, when {@code array}'s rows are still its rows and none
     * of them became present meanwhile; null otherwise (a kept layout of {@code array} that cannot be used is freed). The caller
     * gives it back to the table ({@link #restore}) or frees it ({@link #free}).
     */
    Entry take(Object array) {
        if (kept.isEmpty()) {
            return null;
        }
        for (Iterator<Entry> it = kept.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            Object owner = e.key.get();
            if (owner != null && owner != array) {
                continue;
            }
            it.remove();
            bytes -= size(e);
            if (owner == null || !usable(e, (Object[]) array)) {
                free(e);
                if (owner == null) {
                    // a reclaimed array's layout: look on for this one's
                    return take(array);
                }
                return null;
            }
            return e;
        }
        return null;
    }

    /** Whether {@code now} holds exactly the kept rows, none of them present on its own or in another table. */
    private boolean usable(Entry e, Object[] now) {
        Object[] rows = e.rows;
        if (now.length != rows.length) {
            return false;
        }
        for (int i = 0; i < rows.length; i++) {
            if (now[i] != rows[i]) {
                return false;
            }
        }
        // a row that became present meanwhile, on its own or in another table, replaced its kept entry in the map
        return !e.keptBroken;
    }

    /**
     * Puts a layout {@link #take taken} back into the table, every count 0 but each row's one row reference, as
     * {@link RowTables#create} leaves a new one; its data is the caller's to copy.
     */
    void restore(Entry e) {
        for (Entry row : e.rowEntries) {
            row.structured = 0;
            row.dynamic = 0;
            row.rowReferences = 1;
            row.deviceNewer = false;
            entries.unkeep(row);
        }
        e.structured = 0;
        e.dynamic = 0;
        e.rowReferences = 0;
        e.deviceNewer = false;
        e.rowsNewer = false;
        e.window = null;
        e.windowWritten = false;
        entries.unkeep(e);
    }

    /** Frees a layout that is in neither the table nor the list: its rows' slices, its table and its block. */
    void free(Entry e) {
        RuntimeException failure = null;
        entries.dropKept(e);
        for (Entry row : e.rowEntries) {
            entries.dropKept(row);
            row.key.clear();
            try {
                traffic.free(row);
            } catch (RuntimeException x) {
                failure = Traffic.chain(failure, x);
            }
        }
        e.key.clear();
        try {
            traffic.free(e);
        } catch (RuntimeException x) {
            failure = Traffic.chain(failure, x);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Frees every kept layout; returns whether there was one (an allocation that did not fit may then). */
    boolean freeAll() {
        boolean any = !kept.isEmpty();
        RuntimeException failure = null;
        while (!kept.isEmpty()) {
            try {
                free(kept.removeFirst());
            } catch (RuntimeException x) {
                failure = Traffic.chain(failure, x);
            }
        }
        bytes = 0;
        if (failure != null) {
            throw failure;
        }
        return any;
    }

    /** Forgets every kept layout without touching the device: the context that held them was destroyed. */
    void abandonAll() {
        for (Entry e : kept) {
            entries.dropKept(e);
            e.key.clear();
            for (Entry row : e.rowEntries) {
                entries.dropKept(row);
                row.key.clear();
            }
            e.buffer.abandon();
            e.block.buffer.abandon();
        }
        kept.clear();
        bytes = 0;
    }
}
