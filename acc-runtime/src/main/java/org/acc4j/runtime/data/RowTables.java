package org.acc4j.runtime.data;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;

/**
 * The device side of two-dimensional arrays: each present {@code T[][]}'s row table (a raw buffer of {@value
 * PresentTable#ROW_ENTRY_BYTES} bytes per row, the row's device address and length, then a trailer), the row
 * references its rows carry, and the one-buffer {@link Block} a rectangular array is laid out in when its rows are
 * all new to the table. {@link PresentTable}'s class comment gives the rules; this class keeps them.
 *
 * <p>Invariants: a present two-dimensional array's entry lists its rows and their entries in order, and holds one
 * row reference on each listed row entry (two for a row listed twice), so a table never points at freed memory; its
 * buffer holds exactly those rows' addresses and lengths, and its trailer the block's start and row length when the
 * rows are its block's in order ({@link Entry#listsBlock}), else 0 and -1. A rows-newer mark on an array stands for a
 * device-newer mark on each of its rows and is {@linkplain #settle settled} before a row is looked at alone. On a
 * failure nothing is left held or allocated, and a present entry is left as it was.
 *
 * <p>Owned by one {@link PresentTable} and used only under its lock; it has no lock of its own.
 */
final class RowTables {

    private final PresentTable table;
    private final Entries entries;
    private final Traffic traffic;
    private final KeptLayouts kept;

    RowTables(PresentTable table, Entries entries, Traffic traffic, KeptLayouts kept) {
        this.table = table;
        this.entries = entries;
        this.traffic = traffic;
        this.kept = kept;
    }

    /**
     * A two-dimensional array's entry, counts 0: holds each row (entering it with {@code clause} when absent), then
     * allocates, fills and uploads the row table; a rectangular array of new rows is laid out as one block. On
     * failure nothing is left held or allocated.
     */
    Entry create(Object array, Clause clause) {
        Entry reused = reuse(array, clause);
        if (reused != null) {
            return reused;
        }
        Object[] rows = currentRows(array);
        if (blockable(rows, clause)) {
            return createBlock(array, rows, clause);
        }
        Entry[] held = new Entry[rows.length];
        int taken = 0;
        try {
            for (; taken < rows.length; taken++) {
                held[taken] = hold(rows[taken], clause, array, taken);
            }
        } catch (RuntimeException e) {
            throw unholding(held, 0, taken, e);
        }
        Buffer buffer;
        try {
            buffer = allocateTable(rows.length, HostArrays.describe(array));
        } catch (RuntimeException e) {
            throw unholding(held, 0, rows.length, e);
        }
        try {
            writeTable(buffer, rows, held, null);
        } catch (RuntimeException e) {
            throw unholding(held, 0, rows.length, traffic.freeing(buffer, e));
        }
        Entry entry = entries.record(array, buffer, rows, held);
        noteRows(entry);
        return entry;
    }

    /**
     * A rectangular array of rows new to the table entered as one block with nothing copied in, its {@linkplain
     * Entry#window window} {@code [firstRow, endRow) x [firstColumn, endColumn)} (clipped to the array); null, having
     * done nothing, when the array would not be one block.
     */
    Entry createWritten(Object array, long firstRow, long endRow, long firstColumn, long endColumn) {
        Entry entry = reuse(array, null);
        if (entry == null) {
            Object[] now = currentRows(array);
            if (!blockable(now, Clause.COPY)) {
                return null;
            }
            entry = createBlock(array, now, null);
        }
        Object[] now = entry.rows;
        int columns = HostArrays.length(now[0]);
        entry.window = new int[] {clip(firstRow, now.length), clip(endRow, now.length), clip(firstColumn, columns),
                clip(endColumn, columns)};
        entry.block.windowed = entry;
        return entry;
    }

    private static int clip(long v, int limit) {
        return (int) Math.max(0, Math.min(v, limit));
    }

    /**
     * Makes the block of {@code entry}, entered with a window, hold the whole array: when a kernel has written the
     * window, it is copied to the host's rows first; then the host's rows are copied in, and the window is dropped.
     * On failure the window stays (nothing outside it is copied back).
     */
    void complete(Entry entry) {
        int[] w = entry.window;
        if (entry.windowWritten) {
            traffic.downloadWindow(entry.block.buffer, entry.rows, w);
            entry.windowWritten = false;
        }
        traffic.uploadRows(entry.block.buffer, entry.rows);
        dropWindow(entry);
    }

    /** Forgets {@code entry}'s window: its block holds the whole array or is going. */
    static void dropWindow(Entry entry) {
        entry.window = null;
        entry.windowWritten = false;
        if (entry.block != null && entry.block.windowed == entry) {
            entry.block.windowed = null;
        }
    }

    /** The entry whose window is alone on the device in the block of row entry {@code row}, or null. */
    static Entry windowedBy(Entry row) {
        return row.buffer instanceof Block.Slice slice ? slice.block().windowed : null;
    }

    /** Copies a windowed entry's window back into the rows its table lists, and only it. */
    void downloadWindow(Entry entry) {
        traffic.downloadWindow(entry.block.buffer, entry.rows, entry.window);
        clearNewer(entry);
    }

    /**
     * The layout {@link KeptLayouts} kept for {@code array}, back in the table with its data copied in as {@code
     * clause} says (null: nothing), when its rows are still the kept ones; else null, having done nothing. On failure
     * the layout is freed.
     */
    private Entry reuse(Object array, Clause clause) {
        if (clause == Clause.PRESENT) {
            return null;
        }
        Entry e = kept.take(array);
        if (e == null) {
            return null;
        }
        try {
            if (clause == null) {
                // entered for kernels that write it: nothing to copy in
            } else if (clause.uploadsOnEntry()) {
                traffic.uploadRows(e.block.buffer, e.rows);
            } else {
                e.block.buffer.zero();
            }
        } catch (RuntimeException x) {
            try {
                kept.free(e);
            } catch (RuntimeException y) {
                x.addSuppressed(y);
            }
            throw x;
        }
        kept.restore(e);
        return e;
    }

    /** A row table of {@code rows} entries and its trailer (see {@link #writeTable}); no bytes for no rows. */
    Buffer allocateTable(int rows, String array) {
        return traffic.allocateRaw(rows == 0 ? 0 : (long) (rows + 1) * PresentTable.ROW_ENTRY_BYTES,
                array + " row table");
    }

    /**
     * Whether a two-dimensional array becoming present is laid out as one block: the memory lays out blocks, and
     * its rows are arrays of one type (not {@code boolean}) and one non-zero length, each listed once and none
     * present already (a row present on its own, or in another table, keeps its own buffer).
     */
    private boolean blockable(Object[] rows, Clause clause) {
        if (!traffic.memory().blocks() || clause == Clause.PRESENT || rows.length == 0
                || rows[0] instanceof boolean[]) {
            return false;
        }
        Class<?> type = rows[0].getClass();
        int length = HostArrays.length(rows[0]);
        if (length == 0) {
            return false;
        }
        IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>();
        for (Object row : rows) {
            if (row.getClass() != type || HostArrays.length(row) != length || seen.put(row, Boolean.TRUE) != null
                    || entries.find(row) != null) {
                return false;
            }
        }
        return true;
    }

    /**
     * A rectangular array's entry laid out as one block: the rows are uploaded (or zero-filled) as one copy, each
     * row gets an entry whose buffer is its slice of the block, then the table is written. On failure nothing is
     * left held or allocated.
     */
    private Entry createBlock(Object array, Object[] rows, Clause clause) {
        long rowBytes = HostArrays.byteSize(rows[0]);
        Buffer raw = traffic.allocateRaw(rows.length * rowBytes, HostArrays.describe(array) + " rows");
        Block block = new Block(traffic, raw, rowBytes);
        try {
            if (clause == null) {
                // entered for kernels that write it: nothing to copy in (see PresentTable#enterWritten)
            } else if (clause.uploadsOnEntry()) {
                traffic.uploadRows(raw, rows);
            } else {
                raw.zero();
            }
        } catch (RuntimeException e) {
            throw traffic.freeing(raw, e);
        }
        // the array's own hold, dropped when its entry's buffer is freed
        block.hold();
        Entry[] held = new Entry[rows.length];
        for (int i = 0; i < rows.length; i++) {
            held[i] = entries.record(rows[i], block.slice(i, rows[i]), null, null);
            held[i].rowReferences = 1;
        }
        Buffer buffer;
        try {
            buffer = allocateTable(rows.length, HostArrays.describe(array));
        } catch (RuntimeException e) {
            block.release();
            throw unholding(held, 0, rows.length, e);
        }
        boolean listed;
        try {
            listed = writeTable(buffer, rows, held, block);
        } catch (RuntimeException e) {
            block.release();
            throw unholding(held, 0, rows.length, traffic.freeing(buffer, e));
        }
        Entry entry = entries.record(array, buffer, rows, held);
        entry.block = block;
        entry.listsBlock = listed;
        noteRows(entry);
        return entry;
    }

    /**
     * Fills {@code buffer} with each row's device address and length, then the trailer, and uploads it (one
     * transfer). The trailer (one more entry, after the last row's) says whether the rows are {@code block}'s in
     * order: its start address and the row length then, else 0 and -1. A kernel indexes a contiguous array as a flat
     * one from it. An array of no rows has an empty table and no trailer. Returns whether the rows are the block's.
     */
    boolean writeTable(Buffer buffer, Object[] rows, Entry[] rowEntries, Block block) {
        int words = PresentTable.ROW_ENTRY_BYTES / Long.BYTES;
        long[] values = new long[rows.length == 0 ? 0 : (rows.length + 1) * words];
        boolean contiguous = rows.length > 0 && block != null && block.listedBy(rowEntries);
        if (rows.length > 0) {
            values[rows.length * words] = contiguous ? block.buffer.address() : 0;
            values[rows.length * words + 1] = contiguous ? HostArrays.length(rows[0]) : 0xFFFF_FFFFL;
        }
        for (int i = 0; i < rows.length; i++) {
            values[i * words] = rowEntries[i].buffer.address();
            // the s32 length sits in the low half of the second word (little-endian); the high half is padding
            values[i * words + 1] = HostArrays.length(rows[i]);
        }
        traffic.writeLongs(buffer, values);
        return contiguous;
    }

    /**
     * Makes a present two-dimensional array's table list the host's rows now: rows replaced since are held (entered
     * with {@code clause} when absent) before the replaced ones are dropped without copying back, and the rewritten
     * table is uploaded. Does nothing for one dimension or when no row changed; on failure the entry is left as it
     * was.
     */
    void refresh(Entry entry, Object array, Clause clause) {
        if (entry.rows == null || rowsUnchanged(entry, (Object[]) array)) {
            return;
        }
        settle(entry);
        Object[] now = currentRows(array);
        List<Integer> changed = new ArrayList<>();
        for (int i = 0; i < now.length; i++) {
            if (now[i] != entry.rows[i]) {
                changed.add(i);
            }
        }
        if (changed.isEmpty()) {
            return;
        }
        Entry[] fresh = entry.rowEntries.clone();
        int taken = 0;
        boolean listed;
        try {
            for (; taken < changed.size(); taken++) {
                int i = changed.get(taken);
                fresh[i] = hold(now[i], clause, array, i);
            }
            listed = changed.size() <= PARTIAL_WRITES
                    ? writeChanged(entry, now, fresh, changed) : writeTable(entry.buffer, now, fresh, entry.block);
        } catch (RuntimeException e) {
            RuntimeException failure = e;
            for (int t = taken - 1; t >= 0; t--) {
                int i = changed.get(t);
                failure = unholding(fresh, i, i + 1, failure);
            }
            throw failure;
        }
        Entry[] old = entry.rowEntries.clone();
        Object[] oldRows = entry.rows.clone();
        System.arraycopy(now, 0, entry.rows, 0, now.length);
        System.arraycopy(fresh, 0, entry.rowEntries, 0, fresh.length);
        entry.listsBlock = listed;
        if (!permuted(oldRows, now, changed)) {
            noteRows(entry);
        }
        RuntimeException failure = null;
        for (int i : changed) {
            try {
                unhold(old[i], oldRows[i], false);
            } catch (RuntimeException e) {
                failure = Traffic.chain(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Changed rows up to which a rebuilt table is written entry by entry (rows swapped), not whole. */
    private static final int PARTIAL_WRITES = 8;

    /**
     * Writes the table entries of the rows at {@code changed} (and the trailer, if the rows stop or start being the
     * block's in order), each one small copy, as {@link #writeTable} would write them.
     */
    private boolean writeChanged(Entry entry, Object[] rows, Entry[] rowEntries, List<Integer> changed) {
        int words = PresentTable.ROW_ENTRY_BYTES / Long.BYTES;
        boolean contiguous = entry.block != null && entry.block.listedBy(rowEntries);
        for (int i : changed) {
            long t0 = System.nanoTime();
            entry.buffer.uploadAt((long) i * PresentTable.ROW_ENTRY_BYTES,
                    new long[] {rowEntries[i].buffer.address(), HostArrays.length(rows[i])});
            traffic.uploaded(PresentTable.ROW_ENTRY_BYTES, System.nanoTime() - t0);
        }
        if (contiguous != entry.listsBlock) {
            long t0 = System.nanoTime();
            entry.buffer.uploadAt((long) rows.length * words * Long.BYTES, new long[] {
                contiguous ? entry.block.buffer.address() : 0,
                contiguous ? HostArrays.length(rows[0]) : 0xFFFF_FFFFL});
            traffic.uploaded(PresentTable.ROW_ENTRY_BYTES, System.nanoTime() - t0);
        }
        return contiguous;
    }

    /** Whether the rows now at {@code changed} are the rows that were there, in another order (a swap). */
    private static boolean permuted(Object[] was, Object[] now, List<Integer> changed) {
        if (changed.size() > PARTIAL_WRITES) {
            return false;
        }
        boolean[] used = new boolean[changed.size()];
        for (int i : changed) {
            boolean found = false;
            for (int k = 0; k < changed.size() && !found; k++) {
                if (!used[k] && was[changed.get(k)] == now[i]) {
                    used[k] = true;
                    found = true;
                }
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }

    /** Uploads every row a present two-dimensional array's table lists (one copy for a block), each row once. */
    void upload(Entry entry) {
        if (contiguous(entry)) {
            traffic.uploadRows(entry.block.buffer, entry.rows);
            clearNewer(entry);
            return;
        }
        settle(entry);
        for (int i : distinctRows(entry)) {
            traffic.upload(entry.rowEntries[i], entry.rows[i]);
        }
    }

    /** Downloads every row a present two-dimensional array's table lists into its row object (a block in one copy). */
    void download(Entry entry) {
        if (contiguous(entry)) {
            downloadBlock(entry);
            return;
        }
        settle(entry);
        for (int i : distinctRows(entry)) {
            traffic.download(entry.rowEntries[i], entry.rows[i]);
        }
    }

    /**
     * Whether releasing {@code entry} frees every row it lists with its block: the table lists its block's rows in
     * order and each row entry is held by the table alone. Such an array is copied back as one copy ({@link
     * #downloadBlock}) before it is released.
     */
    boolean leavesAsBlock(Entry entry) {
        if (!contiguous(entry)) {
            return false;
        }
        for (Entry row : entry.rowEntries) {
            if (row.rowReferences != 1 || row.structured != 0 || row.dynamic != 0) {
                return false;
            }
        }
        return true;
    }

    /** Downloads a contiguous array's rows as one copy, into the row objects its table lists. */
    void downloadBlock(Entry entry) {
        traffic.downloadRows(entry.block.buffer, entry.rows);
        clearNewer(entry);
    }

    /**
     * For a released two-dimensional array: drops its table's row reference on each row, releasing a row then
     * unused, copied back into the row object the table listed when {@code download}. Failures are added to {@code
     * failure}, which it returns (null when there were none).
     */
    RuntimeException unholdAll(Entry entry, boolean download, RuntimeException failure) {
        for (int i = 0; i < entry.rows.length; i++) {
            try {
                unhold(entry.rowEntries[i], entry.rows[i], download);
            } catch (RuntimeException e) {
                failure = Traffic.chain(failure, e);
            }
        }
        return failure;
    }

    /** See {@link PresentTable#leastRowLength}. */
    int leastRowLength(Object array) {
        Entry entry = unchanged(array);
        return entry == null ? -1 : entry.leastRowLength;
    }

    /** See {@link PresentTable#ownRows}. */
    boolean ownRows(Object array) {
        Entry entry = unchanged(array);
        if (entry == null || !entry.rowsDistinct) {
            return false;
        }
        if (contiguous(entry)) {
            return true;
        }
        for (Entry row : entry.rowEntries) {
            if (row.rowReferences != 1 || row.structured != 0 || row.dynamic != 0) {
                return false;
            }
        }
        return true;
    }

    /** See {@link PresentTable#listedAsRow}. */
    boolean listedAsRow(Object array) {
        Entry entry = entries.find(array);
        return entry != null && entry.rowReferences > 0;
    }

    /** Moves a two-dimensional array's {@link Entry#rowsNewer} into its rows' own marks. */
    static void settle(Entry entry) {
        if (entry.rowsNewer) {
            entry.rowsNewer = false;
            for (Entry row : entry.rowEntries) {
                row.deviceNewer = true;
            }
        }
    }

    /** The indices of a row table's rows, each row object once. */
    static List<Integer> distinctRows(Entry entry) {
        IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>();
        List<Integer> indices = new ArrayList<>();
        for (int i = 0; i < entry.rows.length; i++) {
            if (seen.put(entry.rows[i], Boolean.TRUE) == null) {
                indices.add(i);
            }
        }
        return indices;
    }

    /** A snapshot of a two-dimensional array's rows, none null. */
    static Object[] currentRows(Object array) {
        Object[] rows = ((Object[]) array).clone();
        for (int i = 0; i < rows.length; i++) {
            if (rows[i] == null) {
                throw new IllegalArgumentException("row " + i + " of " + HostArrays.describe(array) + " (identity "
                        + Integer.toHexString(System.identityHashCode(array)) + ") is null: every row of a"
                        + " two-dimensional array must be an array to go to the device");
            }
        }
        return rows;
    }

    /** Whether {@code entry}'s table lists its block's rows in order (see {@link Entry#isContiguous()}). */
    private static boolean contiguous(Entry entry) {
        return entry.block != null && entry.listsBlock;
    }

    /** Host and device rows of a block were just made equal by one copy. */
    private static void clearNewer(Entry entry) {
        entry.rowsNewer = false;
        for (Entry row : entry.rowEntries) {
            row.deviceNewer = false;
        }
    }

    /** The entry of a present two-dimensional array whose host rows are its table's, or null. */
    private Entry unchanged(Object array) {
        if (!HostArrays.isRank2(array)) {
            return null;
        }
        Entry entry = entries.find(array);
        return entry == null || entry.rows == null || !rowsUnchanged(entry, (Object[]) array) ? null : entry;
    }

    /** Records what {@link #ownRows} and {@link #leastRowLength} need of the rows {@code entry}'s table now lists. */
    private static void noteRows(Entry entry) {
        IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>();
        int least = entry.rows.length == 0 ? 0 : Integer.MAX_VALUE;
        boolean distinct = true;
        for (Object row : entry.rows) {
            least = Math.min(least, HostArrays.length(row));
            distinct &= seen.put(row, Boolean.TRUE) == null;
        }
        entry.rowsDistinct = distinct;
        entry.leastRowLength = least;
    }

    /** Whether {@code now} holds exactly {@code listed}'s row objects, in order (identity, no row touched). */
    /** The launch being prepared on {@link #callThread} (numbered from 1), or 0 outside one. */
    private long call;
    private long calls;
    private Thread callThread;

    /**
     * A launch starts on this thread: until {@link #endCall}, a present array whose host rows were found to be its
     * table's is not scanned again on this thread (a launch asks for each array's rows up to three times: entering
     * its clause, the aliasing check and the bounds proofs, each a pass over every row).
     */
    void beginCall() {
        call = ++calls;
        callThread = Thread.currentThread();
    }

    /** The launch of {@link #beginCall} is over: every later question about the rows looks at them. */
    void endCall() {
        call = 0;
        callThread = null;
    }

    /** Whether the host's rows of {@code entry}'s array are still those its table lists ({@code now}, the array). */
    private boolean rowsUnchanged(Entry entry, Object[] now) {
        boolean inCall = call != 0 && callThread == Thread.currentThread();
        if (inCall && entry.rowsSeenInCall == call) {
            return true;
        }
        if (!sameRows(now, entry.rows)) {
            return false;
        }
        if (inCall) {
            entry.rowsSeenInCall = call;
        }
        return true;
    }

    private static boolean sameRows(Object[] now, Object[] listed) {
        if (now.length != listed.length) {
            return false;
        }
        for (int i = 0; i < now.length; i++) {
            if (now[i] != listed[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Takes one row reference on {@code row}, entering it with {@code clause} (count 0) when absent. Row {@code
     * index} of {@code outer} is named in the message when PRESENT finds it absent.
     */
    private Entry hold(Object row, Clause clause, Object outer, int index) {
        Entry entry = entries.find(row);
        Entry windowed = entry == null ? null : windowedBy(entry);
        if (windowed != null) {
            // another table lists a row of which only a window is on the device: the whole block goes there first
            complete(windowed);
        }
        if (entry == null) {
            if (clause == Clause.PRESENT) {
                throw new IllegalStateException("row " + index + " of " + HostArrays.describe(outer) + " ("
                        + HostArrays.describe(row) + ") is not present on the device: it replaced the row the device"
                        + " copy was made with, and a present clause needs it copied in first");
            }
            entry = table.create(row, clause);
        }
        entry.rowReferences++;
        return entry;
    }

    /** Drops one row reference; a row then unused is released, copied back into {@code row} if asked. */
    private void unhold(Entry entry, Object row, boolean download) {
        entry.rowReferences--;
        if (entry.unused()) {
            table.release(entry, download ? row : null);
        }
    }

    /** Drops the row references {@code held[from..to)} without copying back, adding failures to {@code e}. */
    private RuntimeException unholding(Entry[] held, int from, int to, RuntimeException e) {
        for (int i = to - 1; i >= from; i--) {
            try {
                unhold(held[i], null, false);
            } catch (RuntimeException dropping) {
                e.addSuppressed(dropping);
            }
        }
        return e;
    }
}
