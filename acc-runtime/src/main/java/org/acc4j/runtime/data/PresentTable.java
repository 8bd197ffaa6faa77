package org.acc4j.runtime.data;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.plan.Abi;

/**
 * Which host arrays have device copies, with OpenACC 2.5+ reference counting.
 *
 * <p>Each present array has one {@link Entry}: its device {@link Buffer}, a <em>structured</em>
 * count (data regions and compute constructs: {@link #enter}/{@link #exit}) and a
 * <em>dynamic</em> count ({@code enter data}/{@code exit data}: {@link #enterDynamic}/{@link
 * #exitDynamic}). Data moves only when an array first becomes present (upload for {@code copyin}
 * and {@code copy}, zero-fill for {@code create} and {@code copyout}, so unwritten elements of a
 * copyout array come back as zero) and when both counts reach zero (download for {@code copy}
 * and {@code copyout} on that final exit), plus explicit updates. Entering data that is already
 * present only raises a count.
 *
 * <p>Arrays are keyed by identity, never by {@code equals}, and held weakly: a host array that
 * becomes unreachable while present has its buffer freed at the next operation on this table
 * (or by {@link #drainCollected()}), on the caller's thread, never on a GC thread, because
 * freeing needs the CUDA context current. Entries never reference their array.
 *
 * <p><b>Two-dimensional arrays.</b> A {@code double[][]} (any primitive element; rectangular or jagged) is
 * present as its rows plus a <em>row table</em>: a raw buffer of {@value #ROW_ENTRY_BYTES} bytes per row,
 * holding the row's device address (u64 at offset 0) and length (s32 at offset 8, then 4 zero bytes), which
 * is what a kernel receives for the array. The outer array has an entry of its own, with its own counts,
 * whose buffer is the table. Each row is an ordinary entry in its own right: a row shared by two
 * two-dimensional arrays, or also used as a one-dimensional array, is one device buffer. Besides its own
 * structured and dynamic counts a row has {@linkplain Entry#rowReferences() row references}, one per
 * place a present row table lists it; a row is freed only when all three are zero, so a table never
 * points at freed memory (and an {@code exit data finalize} on a row cannot free it under a table).
 * <ul>
 *   <li>When the outer array becomes present, each row is entered with the same clause (uploaded or
 *       zero-filled if it was absent, only referenced if present), then the table is filled and uploaded
 *       once. A null row is rejected with {@link IllegalArgumentException} naming its index, before
 *       anything is allocated.</li>
 *   <li>Every later entry of the present outer array ({@link #enter}, {@link #enterDynamic}) and {@link
 *       #updateDevice} compare its rows with the table's by identity. Rows replaced since are entered with
 *       that entry's clause (a {@code present} clause needs them present), the table is rewritten and
 *       uploaded again, and the replaced rows lose their row reference <em>without being copied back</em>:
 *       the device copy of the array now follows the host's rows. Unchanged rows cost nothing.</li>
 *   <li>When the outer array's counts both reach zero its table is freed and each of its rows loses a row
 *       reference; a row whose counts are then all zero is copied back if the exit clause copies out (into
 *       the row object the table listed) and freed. {@link #updateHost} copies back every listed row.</li>
 * </ul>
 * An outer entry references its rows (never the outer array), so rows stay reachable while listed.
 *
 * <p>Thread-safe: every operation holds the table's lock, transfers included. After {@link
 * #close()} (idempotent, frees every buffer) data operations throw {@link IllegalStateException}
 * and queries see an empty table.
 */
public final class PresentTable implements AutoCloseable {

    /**
     * One present array: its buffer and counts. The counts, and the rows of a two-dimensional array, change
     * under the table's lock.
     */
    public static final class Entry {

        private final PresentTable table;
        private final Key key;
        /** Replaced only by {@link PresentTable#restore()}. */
        private Buffer buffer;
        private final String array;
        /** For a two-dimensional array, the rows its table lists, in order; null for one dimension. */
        private final Object[] rows;
        /** The entries of {@link #rows}, each holding one row reference for this table. */
        private final Entry[] rowEntries;
        /** For a two-dimensional array laid out as one block, that block (this entry holds it); else null. */
        private Block block;
        /** Whether the table as last written lists {@link #block}'s rows in order (see {@link #isContiguous()}). */
        private boolean listsBlock;
        /** As the table was last written: whether it lists each row object once, and its shortest row's length. */
        private boolean rowsDistinct;
        private int leastRowLength;
        private int structured;
        private int dynamic;
        private int rowReferences;
        /** A kernel may have changed the device copy since host and device were last made equal (a copy either way). */
        private boolean deviceNewer;
        /**
         * For a two-dimensional array: every row it lists is device-newer, recorded here in one store rather than
         * in each row; {@link PresentTable#settle} moves it into the rows before anything looks at them one by one.
         */
        private boolean rowsNewer;

        private Entry(PresentTable table, Key key, Buffer buffer, String array, Object[] rows, Entry[] rowEntries) {
            this.table = table;
            this.key = key;
            this.buffer = buffer;
            this.array = array;
            this.rows = rows;
            this.rowEntries = rowEntries;
        }

        /**
         * The device buffer (the row table of a two-dimensional array); closed once the entry is removed, replaced
         * when the table is {@linkplain PresentTable#restore() restored} after a fault.
         */
        public Buffer buffer() {
            synchronized (table) {
                return buffer;
            }
        }

        /** The array's description, such as {@code double[1024]} or {@code double[37][41]}. */
        public String array() {
            return array;
        }

        /** The structured reference count now. */
        public int structuredCount() {
            synchronized (table) {
                return structured;
            }
        }

        /** The dynamic reference count now. */
        public int dynamicCount() {
            synchronized (table) {
                return dynamic;
            }
        }

        /**
         * How many times present row tables list this array as a row (a table listing it twice counts
         * twice); 0 for a two-dimensional array.
         */
        public int rowReferences() {
            synchronized (table) {
                return rowReferences;
            }
        }

        /** Whether this entry is a two-dimensional array, whose buffer is its row table. */
        public boolean isRowTable() {
            return rows != null;
        }

        /**
         * Whether this two-dimensional array's rows are, as its table lists them now, one block: row {@code i} at
         * byte {@code i * rowBytes} of one buffer, which a kernel then indexes as a flat array.
         */
        public boolean isContiguous() {
            synchronized (table) {
                return listsBlock;
            }
        }

        /** The device address of the block when {@link #isContiguous()}, else 0. */
        public long blockAddress() {
            synchronized (table) {
                return listsBlock ? block.buffer.address() : 0;
            }
        }

        /** The length of every row when {@link #isContiguous()}, else -1. */
        public int blockRowLength() {
            synchronized (table) {
                return listsBlock ? HostArrays.length(rows[0]) : -1;
            }
        }

        @Override
        public String toString() {
            synchronized (table) {
                return "Entry[" + array + ", structured " + structured + ", dynamic " + dynamic
                        + (rowReferences > 0 ? ", row references " + rowReferences : "") + "]";
            }
        }

        private boolean unused() {
            return structured == 0 && dynamic == 0 && rowReferences == 0;
        }
    }

    /** Bytes per row-table entry: u64 device address, s32 length, 4 bytes padding. */
    public static final int ROW_ENTRY_BYTES = Abi.ROW_ENTRY_BYTES;

    /**
     * One device buffer holding every row of a rectangular two-dimensional array, row {@code i} at byte {@code i *
     * rowBytes}. Its holders are the array's entry and each row entry whose buffer is a {@link RowSlice} of it; it
     * is freed when the last lets go, so a row that outlives its table (present on its own) keeps its memory.
     */
    private final class Block {
        private final Buffer buffer;
        private final long rowBytes;
        private int holders;

        private Block(Buffer buffer, long rowBytes) {
            this.buffer = buffer;
            this.rowBytes = rowBytes;
        }

        private void release() {
            if (--holders == 0) {
                buffer.close();
                stats = stats.free();
            }
        }
    }

    /** A row's part of a {@link Block}: the row entry's buffer. Closing it lets go of the block. */
    private final class RowSlice implements Buffer {
        private final Block block;
        private final long offset;
        private final Class<?> type;
        private final int length;
        private boolean closed;

        private RowSlice(Block block, long offset, Object row) {
            this.block = block;
            this.offset = offset;
            this.type = row.getClass();
            this.length = HostArrays.length(row);
            block.holders++;
        }

        @Override
        public long bytes() {
            return block.rowBytes;
        }

        @Override
        public long address() {
            return block.buffer.address() + offset;
        }

        @Override
        public void upload(Object hostArray) {
            block.buffer.uploadAt(offset, match(hostArray));
        }

        @Override
        public void download(Object hostArray) {
            block.buffer.downloadAt(offset, match(hostArray));
        }

        @Override
        public void writeLongs(long[] values) {
            throw new UnsupportedOperationException("a row takes no raw words");
        }

        @Override
        public void zero() {
            block.buffer.uploadAt(offset, java.lang.reflect.Array.newInstance(type.getComponentType(), length));
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                block.release();
            }
        }

        @Override
        public void abandon() {
            if (!closed) {
                closed = true;
                block.buffer.abandon();
            }
        }

        private Object match(Object hostArray) {
            if (hostArray == null || hostArray.getClass() != type || HostArrays.length(hostArray) != length) {
                throw new IllegalArgumentException("the row at byte " + offset + " of a block cannot transfer "
                        + (hostArray == null ? "null" : HostArrays.describe(hostArray)));
            }
            return hostArray;
        }

        @Override
        public String toString() {
            return "RowSlice[" + offset + " of " + block.buffer + "]";
        }
    }

    /** A weak identity key; a cleared key equals only itself, so it can still be removed. */
    private static final class Key extends WeakReference<Object> {

        private final int hash;

        Key(Object array, ReferenceQueue<Object> queue) {
            super(array, queue);
            this.hash = System.identityHashCode(array);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            if (this == other) {
                return true;
            }
            if (!(other instanceof Key key) || key.hash != hash) {
                return false;
            }
            Object referent = get();
            return referent != null && referent == key.get();
        }
    }

    private final DeviceMemory memory;
    private final ReferenceQueue<Object> collected = new ReferenceQueue<>();
    private final Map<Key, Entry> entries = new HashMap<>();
    /**
     * Arrays whose device copies a kernel had changed when the device faulted, before the change reached the host:
     * their host copies are stale, so the runtime refuses them (see {@link #lostArray}); held weakly.
     */
    private final Map<Key, String> lost = new HashMap<>();
    private TransferStats stats = TransferStats.NONE;
    private volatile TransferListener listener;
    private boolean closed;

    /** A table that takes buffers from {@code memory}. */
    public PresentTable(DeviceMemory memory) {
        if (memory == null) {
            throw new IllegalArgumentException("device memory must not be null");
        }
        this.memory = memory;
    }

    /**
     * Structured entry (data region or compute construct). Present data has its structured count
     * raised, with no transfer (a two-dimensional array's replaced rows excepted, see the class
     * comment). Absent data is allocated with count 1 and uploaded for COPYIN and COPY, zero-filled
     * for CREATE and COPYOUT.
     *
     * @param clause COPYIN, COPYOUT, COPY, CREATE or PRESENT
     * @throws IllegalStateException    for PRESENT when the array (or a replaced row) is not present
     * @throws IllegalArgumentException for DELETE, an array that is not primitive of one or two
     *                                  dimensions, or a two-dimensional array with a null row
     */
    public synchronized Entry enter(Object array, Clause clause) {
        prepare(array);
        if (clause == null || clause == Clause.DELETE) {
            throw new IllegalArgumentException("enter takes copyin, copyout, copy, create or present, not " + clause);
        }
        Entry entry = find(array);
        if (entry != null) {
            refreshRows(entry, array, clause);
            entry.structured++;
            return entry;
        }
        if (clause == Clause.PRESENT) {
            throw new IllegalStateException(HostArrays.describe(array) + " (identity "
                    + Integer.toHexString(System.identityHashCode(array)) + ") is not present on the device:"
                    + " a present clause needs it copied in first; use Acc.copyin or an enclosing @Data");
        }
        entry = create(array, clause);
        entry.structured = 1;
        return entry;
    }

    /**
     * Structured exit: lowers the structured count; when both counts are then zero, downloads for
     * COPY and COPYOUT, frees the buffer and removes the entry. For a two-dimensional array the rows
     * its table lists are released as the class comment says; the host's rows now are not looked at.
     *
     * @throws IllegalStateException when the array is absent or has no structured reference
     */
    public synchronized void exit(Object array, Clause clause) {
        prepare(array);
        if (clause == null || clause == Clause.DELETE) {
            throw new IllegalArgumentException("exit takes copyin, copyout, copy, create or present, not " + clause);
        }
        Entry entry = requireStructured(array, "exit");
        entry.structured--;
        if (entry.unused()) {
            release(entry, clause.downloadsOnExit() ? array : null);
        }
    }

    /**
     * Drops a structured reference without copying back (for a failed kernel whose results must
     * not reach the host); frees when both counts reach zero. An absent array is ignored, so
     * failure paths may call this for every array they might have entered.
     *
     * @throws IllegalStateException when the array is present without a structured reference
     */
    public synchronized void discard(Object array) {
        prepare(array);
        if (find(array) == null) {
            return;
        }
        Entry entry = requireStructured(array, "discard");
        entry.structured--;
        if (entry.unused()) {
            release(entry, null);
        }
    }

    /**
     * Dynamic entry ({@code enter data}, {@code Acc.copyin}/{@code Acc.create}): present data has
     * its dynamic count raised (a two-dimensional array's replaced rows entered), absent data is
     * allocated with dynamic count 1 and uploaded (COPYIN) or zero-filled (CREATE).
     */
    public synchronized Entry enterDynamic(Object array, Clause clause) {
        prepare(array);
        if (clause != Clause.COPYIN && clause != Clause.CREATE) {
            throw new IllegalArgumentException("enterDynamic takes copyin or create, not " + clause);
        }
        Entry entry = find(array);
        if (entry == null) {
            entry = create(array, clause);
        } else {
            refreshRows(entry, array, clause);
        }
        entry.dynamic++;
        return entry;
    }

    /**
     * Dynamic exit ({@code exit data}, {@code Acc.copyout}/{@code Acc.delete}): lowers the dynamic
     * count, or sets it to zero when {@code finalize}; when both counts are then zero, downloads
     * for COPYOUT and frees. An absent array, or one whose dynamic count is already zero, is left
     * alone, as OpenACC specifies. A row still listed by a present row table stays on the device.
     */
    public synchronized void exitDynamic(Object array, Clause clause, boolean finalize) {
        prepare(array);
        if (clause != Clause.COPYOUT && clause != Clause.DELETE) {
            throw new IllegalArgumentException("exitDynamic takes copyout or delete, not " + clause);
        }
        Entry entry = find(array);
        if (entry == null || entry.dynamic == 0) {
            return;
        }
        entry.dynamic = finalize ? 0 : entry.dynamic - 1;
        if (entry.unused()) {
            release(entry, clause.downloadsOnExit() ? array : null);
        }
    }

    /**
     * Copies the host array to its device copy ({@code update device}). For a two-dimensional array:
     * enters rows replaced since the table was built (see the class comment), then uploads every row.
     */
    public synchronized void updateDevice(Object array) {
        prepare(array);
        Entry entry = requirePresent(array, "update device");
        if (entry.rows == null) {
            upload(entry, array);
            return;
        }
        refreshRows(entry, array, Clause.CREATE);
        if (contiguous(entry)) {
            uploadBlock(entry);
            return;
        }
        settle(entry);
        for (int i : distinctRows(entry)) {
            upload(entry.rowEntries[i], entry.rows[i]);
        }
    }

    /**
     * Copies the device copy back into the host array ({@code update host}). For a two-dimensional
     * array: downloads every row the table lists into that row object.
     */
    public synchronized void updateHost(Object array) {
        prepare(array);
        Entry entry = requirePresent(array, "update host");
        if (entry.rows == null) {
            download(entry, array);
            return;
        }
        if (contiguous(entry)) {
            downloadBlock(entry);
            return;
        }
        settle(entry);
        for (int i : distinctRows(entry)) {
            download(entry.rowEntries[i], entry.rows[i]);
        }
    }

    /** A copy an async queue makes in place of the table: a buffer and the host array (or row) it mirrors. */
    public record Transfer(Buffer buffer, Object host) {
    }

    /**
     * {@link #updateDevice} for an async queue: the uploads it would make, for the caller to queue. For a
     * two-dimensional array, rows replaced since the table was built are entered first (as {@link #updateDevice}
     * does, synchronously), then each distinct row is one transfer.
     */
    public synchronized List<Transfer> updateDeviceTransfers(Object array) {
        prepare(array);
        Entry entry = requirePresent(array, "update device");
        if (entry.rows == null) {
            return List.of(new Transfer(entry.buffer, array));
        }
        refreshRows(entry, array, Clause.CREATE);
        return rowTransfers(entry);
    }

    /** {@link #updateHost} for an async queue: the downloads it would make (each distinct row of a rank-2 array). */
    public synchronized List<Transfer> updateHostTransfers(Object array) {
        prepare(array);
        Entry entry = requirePresent(array, "update host");
        return entry.rows == null ? List.of(new Transfer(entry.buffer, array)) : rowTransfers(entry);
    }

    /**
     * {@link #enterDynamic enterDynamic(array, COPYIN)} for an async queue: raises the dynamic count as it does, and
     * returns the uploads it would make for the caller to queue (an array, or the rows of a rank-2 array, that were
     * absent are allocated and zero-filled now). Present data only gains a count (a rank-2 array's replaced rows are
     * entered synchronously), and the list is empty.
     */
    public synchronized List<Transfer> copyinTransfers(Object array) {
        prepare(array);
        if (find(array) != null) {
            enterDynamic(array, Clause.COPYIN);
            return List.of();
        }
        List<Object> fresh = new ArrayList<>();
        if (HostArrays.isRank2(array)) {
            IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>();
            for (Object row : currentRows(array)) {
                if (find(row) == null && seen.put(row, Boolean.TRUE) == null) {
                    fresh.add(row);
                }
            }
        } else {
            fresh.add(array);
        }
        enterDynamic(array, Clause.CREATE);
        List<Transfer> transfers = new ArrayList<>();
        for (Object a : fresh) {
            transfers.add(new Transfer(find(a).buffer, a));
        }
        return transfers;
    }

    /**
     * For {@code copyout} on an async queue: the download that {@link #exitDynamic exitDynamic(array, COPYOUT,
     * false)} would make if it ran now, when it would release a one-dimensional array (the last dynamic reference,
     * no structured one); null otherwise (absent, still referenced, or two-dimensional). Changes nothing: the caller
     * queues the download and exits with {@link Clause#DELETE} at the wait.
     */
    public synchronized Transfer copyoutTransfer(Object array) {
        prepare(array);
        Entry entry = find(array);
        if (entry == null || entry.rows != null || entry.dynamic != 1 || entry.structured != 0
                || entry.rowReferences != 0) {
            return null;
        }
        return new Transfer(entry.buffer, array);
    }

    private static List<Transfer> rowTransfers(Entry entry) {
        List<Transfer> transfers = new ArrayList<>();
        for (int i : distinctRows(entry)) {
            transfers.add(new Transfer(entry.rowEntries[i].buffer, entry.rows[i]));
        }
        return transfers;
    }

    /**
     * The shortest row's length of {@code array} when it is a present two-dimensional array whose rows are, right
     * now, the very row objects its table lists; else -1. Java arrays never change length, so the length found when
     * the table was written holds: a launch needs to read no row. The test compares the host's outer array with the
     * table's copy of it by identity and touches no row object; a row replaced since gives -1, and the caller looks
     * at the rows themselves.
     */
    public synchronized int leastRowLength(Object array) {
        Entry entry = unchanged(array);
        return entry == null ? -1 : entry.leastRowLength;
    }

    /**
     * Whether {@code array} is a present two-dimensional array whose rows are, right now, its table's (see {@link
     * #leastRowLength}), each listed once and by no other present table, none present on its own: its rows then
     * cannot be one another or another bound array's row, unless that array is one {@link #listedAsRow} finds. For
     * one block this holds by construction; for other layouts each row's entry is looked at (not the row itself).
     */
    public synchronized boolean ownRows(Object array) {
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

    /** The entry of a present two-dimensional array whose host rows are its table's, or null. */
    private Entry unchanged(Object array) {
        if (closed || !HostArrays.isRank2(array)) {
            return null;
        }
        Entry entry = find(array);
        return entry == null || entry.rows == null || !sameRows((Object[]) array, entry.rows) ? null : entry;
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

    /**
     * Whether {@code array}, a one-dimensional array, is listed as a row by a present row table. One that is not
     * cannot be a row of an array {@link #ownRows} vouches for, since such an array's rows are all listed.
     */
    public synchronized boolean listedAsRow(Object array) {
        if (closed) {
            return false;
        }
        Entry entry = find(array);
        return entry != null && entry.rowReferences > 0;
    }

    /** Whether {@code now} holds exactly {@code listed}'s row objects, in order (identity, no row touched). */
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

    /** Whether {@code array} has a device copy. */
    public synchronized boolean isPresent(Object array) {
        return lookup(array) != null;
    }

    /**
     * The buffer of {@code array} (a two-dimensional array's row table), or null when it is not
     * present.
     */
    public synchronized Buffer lookup(Object array) {
        Entry entry = entry(array);
        return entry == null ? null : entry.buffer;
    }

    /**
     * The host array whose device copy starts at {@code address} (OpenACC's {@code acc_hostptr}): the inverse of
     * {@link #lookup}{@code (array).address()}. A two-dimensional array is found by its row table's address; a
     * present row by its own.
     *
     * @throws IllegalArgumentException when no present array's copy starts there, saying whether the address
     *                                  falls inside one (Java has no interior pointers to give back)
     */
    public synchronized Object hostArray(long address) {
        drainCollected();
        String inside = null;
        for (Map.Entry<Key, Entry> e : entries.entrySet()) {
            Buffer b = e.getValue().buffer;
            Object array = e.getKey().get();
            if (array == null || b.bytes() == 0) {
                continue;
            }
            if (b.address() == address) {
                return array;
            }
            if (address > b.address() && address - b.address() < b.bytes()) {
                inside = " (it is byte " + (address - b.address()) + " of the copy of " + e.getValue().array
                        + ", which starts at 0x" + Long.toHexString(b.address())
                        + ": Acc.hostptr takes the address Acc.deviceptr gives)";
            }
        }
        throw new IllegalArgumentException("0x" + Long.toHexString(address) + " is not the device address of a present"
                + " array" + (inside != null ? inside : ": no present array's copy starts or lies there (an array"
                + " not present, or one of length 0, has no device address)"));
    }

    /** The entry of {@code array}, or null when it is not present. */
    public synchronized Entry entry(Object array) {
        HostArrays.requireData(array);
        drainCollected();
        return find(array);
    }

    /** The structured count of {@code array}, 0 when absent. */
    public synchronized int structuredCount(Object array) {
        Entry entry = entry(array);
        return entry == null ? 0 : entry.structured;
    }

    /** The dynamic count of {@code array}, 0 when absent. */
    public synchronized int dynamicCount(Object array) {
        Entry entry = entry(array);
        return entry == null ? 0 : entry.dynamic;
    }

    /**
     * Number of entries (after freeing those collected): a present two-dimensional array counts
     * one, and each distinct row one more.
     */
    public synchronized int size() {
        drainCollected();
        return entries.size();
    }

    /**
     * Sets the listener told of every copy from now on (the time profile), or removes it with null. Without
     * one a copy costs two clock reads more than the copy itself.
     */
    public void listener(TransferListener listener) {
        this.listener = listener;
    }

    /** Transfers and allocations so far, row tables included. */
    public synchronized TransferStats transferStats() {
        return stats;
    }

    /**
     * Frees the buffers of arrays the garbage collector has reclaimed; needs the CUDA context
     * current on this thread. Every table operation does this first. A reclaimed two-dimensional
     * array releases its rows without copying them back.
     *
     * @return how many arrays were freed (rows released with them not counted)
     */
    public synchronized int drainCollected() {
        int freed = 0;
        RuntimeException failure = null;
        for (Reference<?> ref = collected.poll(); ref != null; ref = collected.poll()) {
            // a cleared key equals only itself; explicitly released keys were cleared, never queued
            Entry entry = entries.get(ref);
            if (entry == null) {
                continue;
            }
            try {
                release(entry, null);
                freed++;
            } catch (RuntimeException e) {
                failure = chain(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return freed;
    }

    /**
     * Rebuilds the device side after the context that held every buffer was destroyed (a sticky fault, then {@code
     * Context.reset}): each buffer is abandoned, not freed; each present array gets a new buffer filled from the host
     * array as it is now, and each two-dimensional array a new row table listing its rows' new buffers. Counts are
     * kept; arrays the collector reclaimed are dropped. Device-side changes not yet copied back are therefore lost.
     * If a buffer cannot be made again, every entry is dropped (nothing stays present) and the failure is thrown.
     * Needs the new context current on this thread.
     *
     * @return how many arrays (rows and two-dimensional arrays each counted) are present again
     */
    public synchronized int restore() {
        if (closed) {
            return 0;
        }
        memory.abandon();
        for (Entry entry : entries.values()) {
            entry.buffer.abandon();
            if (entry.block != null) {
                // the rows come back each in a buffer of its own
                entry.block.buffer.abandon();
                entry.block = null;
            }
            entry.listsBlock = false;
        }
        while (collected.poll() != null) {
            // reclaimed arrays are found by their cleared keys below
        }
        for (Entry entry : List.copyOf(entries.values())) {
            if (entry.key.get() == null) {
                entries.remove(entry.key);
                if (entry.rows != null) {
                    for (Entry row : entry.rowEntries) {
                        row.rowReferences--;
                    }
                }
            }
        }
        // rows only a reclaimed table listed
        entries.values().removeIf(Entry::unused);
        List<Entry> restored = new ArrayList<>();
        try {
            // rows before the tables that list their addresses
            List<Entry> gone = new ArrayList<>();
            for (Entry entry : entries.values()) {
                if (entry.rows == null) {
                    // hold the array while it is uploaded; one reclaimed just now is dropped
                    Object array = entry.key.get();
                    if (array == null) {
                        gone.add(entry);
                        continue;
                    }
                    entry.buffer = memory.allocate(array);
                    restored.add(entry);
                    stats = stats.allocate();
                    upload(entry, array);
                }
            }
            for (Entry entry : gone) {
                entries.remove(entry.key);
            }
            for (Entry entry : entries.values()) {
                if (entry.rows != null) {
                    entry.buffer = allocateTable(entry.rows.length, entry.array);
                    restored.add(entry);
                    entry.listsBlock = writeRowTable(entry.buffer, entry.rows, entry.rowEntries, null);
                }
            }
        } catch (RuntimeException e) {
            for (Entry entry : restored) {
                try {
                    closeBuffer(entry);
                } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                }
            }
            for (Entry entry : entries.values()) {
                entry.key.clear();
            }
            entries.clear();
            throw new IllegalStateException("acc4j: the present data could not be restored on the device after a"
                    + " fault, so no array is present any more: " + e.getMessage(), e);
        }
        return entries.size();
    }

    /**
     * Records that a kernel about to run may write {@code array}'s device copy (every row of a two-dimensional
     * array), so that a fault before its next copy to the host can say the change is lost ({@link #markLost}).
     * An absent array is ignored.
     */
    public synchronized void markWritten(Object array) {
        Entry entry = find(array);
        if (entry == null) {
            return;
        }
        if (entry.rows == null) {
            entry.deviceNewer = true;
        } else {
            entry.rowsNewer = true;
        }
    }

    /** Moves a two-dimensional array's {@link Entry#rowsNewer} into its rows' own flags. */
    private static void settle(Entry entry) {
        if (entry.rowsNewer) {
            entry.rowsNewer = false;
            for (Entry row : entry.rowEntries) {
                row.deviceNewer = true;
            }
        }
    }

    /**
     * After a sticky fault, before the device side is {@linkplain #restore() restored} or {@linkplain #lose() lost}:
     * every present array a kernel may have changed since its last copy to or from the host is recorded as lost,
     * since its host copy is stale (see {@link #lostArray}).
     *
     * @return their descriptions, such as {@code double[1024]}, in no particular order
     */
    public synchronized List<String> markLost() {
        List<String> names = new ArrayList<>();
        for (Entry entry : entries.values()) {
            if (entry.rows != null) {
                settle(entry);
            }
        }
        for (Entry entry : entries.values()) {
            Object array = entry.key.get();
            if (entry.deviceNewer && array != null) {
                lost.put(new Key(array, null), entry.array);
                names.add(entry.array);
                entry.deviceNewer = false;
            }
        }
        return names;
    }

    /**
     * The device is gone for the rest of the process (a sticky fault the driver does not let the runtime recover
     * from): every buffer is abandoned, not freed, and nothing is present any more. Call {@link #markLost} first.
     * Needs no context.
     */
    public synchronized void lose() {
        memory.abandon();
        for (Entry entry : entries.values()) {
            entry.buffer.abandon();
            if (entry.block != null) {
                entry.block.buffer.abandon();
                entry.block = null;
            }
            entry.key.clear();
        }
        entries.clear();
        while (collected.poll() != null) {
            // nothing to free: the buffers went with the context
        }
    }

    /**
     * The description of {@code array} (or of its first row) if a fault lost its device-side changes
     * ({@link #markLost}), else null; a two-dimensional array is looked at with its rows as they are now.
     */
    public synchronized String lostArray(Object array) {
        if (lost.isEmpty() || array == null) {
            return null;
        }
        lost.keySet().removeIf(k -> k.get() == null);
        String name = lost.get(new Key(array, null));
        if (name != null || !HostArrays.isRank2(array)) {
            return name;
        }
        Object[] rows = (Object[]) array;
        for (int i = 0; i < rows.length; i++) {
            String row = rows[i] == null ? null : lost.get(new Key(rows[i], null));
            if (row != null) {
                return "row " + i + " (" + row + ") of " + HostArrays.describe(array);
            }
        }
        return null;
    }

    /**
     * Forgets that {@code array} (and its rows) lost device-side changes: the user's {@code Acc.delete}, saying the
     * device copy is not wanted, after giving the host copy the values it needs.
     */
    public synchronized void forgetLost(Object array) {
        lost.remove(new Key(array, null));
        if (HostArrays.isRank2(array)) {
            for (Object row : (Object[]) array) {
                if (row != null) {
                    lost.remove(new Key(row, null));
                }
            }
        }
    }

    /** Frees every buffer (without copying back); later calls do nothing. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        for (Entry entry : List.copyOf(entries.values())) {
            entry.key.clear();
            try {
                closeBuffer(entry);
            } catch (RuntimeException e) {
                failure = chain(failure, e);
            }
        }
        entries.clear();
        // forget keys already queued
        while (collected.poll() != null) {
            // nothing to free: their entries were closed above
        }
        try {
            memory.close();
        } catch (RuntimeException e) {
            failure = chain(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Checks the table is open and the array supported, then frees collected arrays. */
    private void prepare(Object array) {
        if (closed) {
            throw new IllegalStateException("the present table is closed");
        }
        HostArrays.requireData(array);
        drainCollected();
    }

    private Entry find(Object array) {
        // a temporary key without a queue; the caller's reference keeps the referent alive
        return entries.get(new Key(array, null));
    }

    private Entry requirePresent(Object array, String operation) {
        Entry entry = find(array);
        if (entry == null) {
            throw new IllegalStateException(HostArrays.describe(array) + " is not present on the device at "
                    + operation + ": use Acc.copyin or an enclosing @Data first");
        }
        return entry;
    }

    private Entry requireStructured(Object array, String operation) {
        Entry entry = find(array);
        if (entry == null) {
            throw new IllegalStateException(operation + " of " + HostArrays.describe(array)
                    + ", which is not present on the device (no matching enter)");
        }
        if (entry.structured == 0) {
            throw new IllegalStateException(operation + " of " + HostArrays.describe(array)
                    + " without a matching structured enter (structured count is 0, dynamic count "
                    + entry.dynamic + ")");
        }
        return entry;
    }

    /** Allocates and initialises a new entry with every count 0, then records it. */
    private Entry create(Object array, Clause clause) {
        if (HostArrays.isRank2(array)) {
            return createRowTable(array, clause);
        }
        Buffer buffer = memory.allocate(array);
        stats = stats.allocate();
        try {
            if (clause.uploadsOnEntry()) {
                long t0 = System.nanoTime();
                buffer.upload(array);
                uploaded(buffer.bytes(), System.nanoTime() - t0);
            } else {
                buffer.zero();
            }
        } catch (RuntimeException e) {
            // the entry was never recorded: free the buffer here
            throw freeing(buffer, e);
        }
        return record(array, buffer, null, null);
    }

    /**
     * A two-dimensional array's entry: holds each row (entering it with {@code clause} when absent),
     * then allocates, fills and uploads the row table. On failure nothing is left held or allocated.
     */
    private Entry createRowTable(Object array, Clause clause) {
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
        Buffer table;
        try {
            table = allocateTable(rows.length, HostArrays.describe(array));
        } catch (RuntimeException e) {
            throw unholding(held, 0, rows.length, e);
        }
        try {
            writeRowTable(table, rows, held, null);
        } catch (RuntimeException e) {
            throw unholding(held, 0, rows.length, freeing(table, e));
        }
        Entry entry = record(array, table, rows, held);
        noteRows(entry);
        return entry;
    }

    /** A row table of {@code rows} entries and its trailer (see {@link #writeRowTable}); no bytes for no rows. */
    private Buffer allocateTable(int rows, String array) {
        Buffer table = memory.allocateRaw(rows == 0 ? 0 : (long) (rows + 1) * ROW_ENTRY_BYTES, array + " row table");
        stats = stats.allocate();
        return table;
    }

    /**
     * Whether a two-dimensional array becoming present is laid out as one block: the memory lays out blocks, and
     * its rows are arrays of one type (not {@code boolean}) and one non-zero length, each listed once and none
     * present already (a row present on its own, or in another table, keeps its own buffer).
     */
    private boolean blockable(Object[] rows, Clause clause) {
        if (!memory.blocks() || clause == Clause.PRESENT || rows.length == 0 || rows[0] instanceof boolean[]) {
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
                    || find(row) != null) {
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
        Buffer raw = memory.allocateRaw(rows.length * rowBytes, HostArrays.describe(array) + " rows");
        stats = stats.allocate();
        Block block = new Block(raw, rowBytes);
        try {
            if (clause.uploadsOnEntry()) {
                long t0 = System.nanoTime();
                raw.uploadRows(rows);
                uploaded(raw.bytes(), System.nanoTime() - t0);
            } else {
                raw.zero();
            }
        } catch (RuntimeException e) {
            throw freeing(raw, e);
        }
        // the array's own hold, dropped by closeBuffer
        block.holders = 1;
        Entry[] held = new Entry[rows.length];
        for (int i = 0; i < rows.length; i++) {
            held[i] = record(rows[i], new RowSlice(block, i * rowBytes, rows[i]), null, null);
            held[i].rowReferences = 1;
        }
        Buffer table;
        try {
            table = allocateTable(rows.length, HostArrays.describe(array));
        } catch (RuntimeException e) {
            block.release();
            throw unholding(held, 0, rows.length, e);
        }
        boolean listed;
        try {
            listed = writeRowTable(table, rows, held, block);
        } catch (RuntimeException e) {
            block.release();
            throw unholding(held, 0, rows.length, freeing(table, e));
        }
        Entry entry = record(array, table, rows, held);
        entry.block = block;
        entry.listsBlock = listed;
        noteRows(entry);
        return entry;
    }

    /** Whether {@code entry}'s table lists its block's rows in order (see {@link Entry#isContiguous()}). */
    private static boolean contiguous(Entry entry) {
        return entry.block != null && entry.listsBlock;
    }

    private static boolean listsBlock(Entry[] rowEntries, Block block) {
        if (block == null) {
            return false;
        }
        for (int i = 0; i < rowEntries.length; i++) {
            if (!(rowEntries[i].buffer instanceof RowSlice slice) || slice.block != block || slice.closed
                    || slice.offset != i * block.rowBytes) {
                return false;
            }
        }
        return true;
    }

    /** Uploads a contiguous array's rows as one copy. */
    private void uploadBlock(Entry entry) {
        long t0 = System.nanoTime();
        entry.block.buffer.uploadRows(entry.rows);
        entry.rowsNewer = false;
        for (Entry row : entry.rowEntries) {
            row.deviceNewer = false;
        }
        uploaded(entry.block.buffer.bytes(), System.nanoTime() - t0);
    }

    /** Downloads a contiguous array's rows as one copy, into the row objects its table lists. */
    private void downloadBlock(Entry entry) {
        long t0 = System.nanoTime();
        entry.block.buffer.downloadRows(entry.rows);
        entry.rowsNewer = false;
        for (Entry row : entry.rowEntries) {
            row.deviceNewer = false;
        }
        downloaded(entry.block.buffer.bytes(), System.nanoTime() - t0);
    }

    private Entry record(Object array, Buffer buffer, Object[] rows, Entry[] rowEntries) {
        Key key = new Key(array, collected);
        Entry entry = new Entry(this, key, buffer, HostArrays.describe(array), rows, rowEntries);
        entries.put(key, entry);
        return entry;
    }

    /** A snapshot of a two-dimensional array's rows, none null. */
    private static Object[] currentRows(Object array) {
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

    /**
     * Takes one row reference on {@code row}, entering it with {@code clause} (count 0) when absent.
     * Row {@code index} of {@code outer} is named in the message when PRESENT finds it absent.
     */
    private Entry hold(Object row, Clause clause, Object outer, int index) {
        Entry entry = find(row);
        if (entry == null) {
            if (clause == Clause.PRESENT) {
                throw new IllegalStateException("row " + index + " of " + HostArrays.describe(outer) + " ("
                        + HostArrays.describe(row) + ") is not present on the device: it replaced the row the device"
                        + " copy was made with, and a present clause needs it copied in first");
            }
            entry = create(row, clause);
        }
        entry.rowReferences++;
        return entry;
    }

    /** Drops one row reference; a row then unused is released, copied back into {@code row} if asked. */
    private void unhold(Entry entry, Object row, boolean download) {
        entry.rowReferences--;
        if (entry.unused()) {
            release(entry, download ? row : null);
        }
    }

    /**
     * Makes a present two-dimensional array's table list the host's rows now: rows replaced since
     * are held (entered with {@code clause} when absent) before the replaced ones are dropped without
     * copying back, and the rewritten table is uploaded. Does nothing for one dimension or when no
     * row changed; on failure the entry is left as it was.
     */
    private void refreshRows(Entry entry, Object array, Clause clause) {
        if (entry.rows == null || sameRows((Object[]) array, entry.rows)) {
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
            listed = writeRowTable(entry.buffer, now, fresh, entry.block);
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
        noteRows(entry);
        RuntimeException failure = null;
        for (int i : changed) {
            try {
                unhold(old[i], oldRows[i], false);
            } catch (RuntimeException e) {
                failure = chain(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Fills {@code table} with each row's device address and length, then the trailer, and uploads it (one
     * transfer). The trailer (one more entry, after the last row's) says whether the rows are {@code block}'s in
     * order: its start address and the row length then, else 0 and -1. A kernel indexes a contiguous array as a flat
     * one from it. An array of no rows has an empty table and no trailer. Returns whether the rows are the block's.
     */
    private boolean writeRowTable(Buffer table, Object[] rows, Entry[] rowEntries, Block block) {
        int words = ROW_ENTRY_BYTES / Long.BYTES;
        long[] values = new long[rows.length == 0 ? 0 : (rows.length + 1) * words];
        boolean contiguous = rows.length > 0 && listsBlock(rowEntries, block);
        if (rows.length > 0) {
            values[rows.length * words] = contiguous ? block.buffer.address() : 0;
            values[rows.length * words + 1] = contiguous ? HostArrays.length(rows[0]) : 0xFFFF_FFFFL;
        }
        for (int i = 0; i < rows.length; i++) {
            values[i * words] = rowEntries[i].buffer.address();
            // the s32 length sits in the low half of the second word (little-endian); the high half is padding
            values[i * words + 1] = HostArrays.length(rows[i]);
        }
        long t0 = System.nanoTime();
        table.writeLongs(values);
        uploaded(table.bytes(), System.nanoTime() - t0);
        return contiguous;
    }

    /** The indices of a row table's rows, each row object once. */
    private static List<Integer> distinctRows(Entry entry) {
        IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>();
        List<Integer> indices = new ArrayList<>();
        for (int i = 0; i < entry.rows.length; i++) {
            if (seen.put(entry.rows[i], Boolean.TRUE) == null) {
                indices.add(i);
            }
        }
        return indices;
    }

    private void upload(Entry entry, Object array) {
        long t0 = System.nanoTime();
        entry.buffer.upload(array);
        entry.deviceNewer = false;
        uploaded(entry.buffer.bytes(), System.nanoTime() - t0);
    }

    private void download(Entry entry, Object array) {
        long t0 = System.nanoTime();
        entry.buffer.download(array);
        entry.deviceNewer = false;
        downloaded(entry.buffer.bytes(), System.nanoTime() - t0);
    }

    private void uploaded(long bytes, long nanos) {
        stats = stats.upload(bytes, nanos);
        TransferListener l = listener;
        if (l != null) {
            l.transferred(true, bytes, nanos);
        }
    }

    private void downloaded(long bytes, long nanos) {
        stats = stats.download(bytes, nanos);
        TransferListener l = listener;
        if (l != null) {
            l.transferred(false, bytes, nanos);
        }
    }

    /**
     * Removes the entry and frees its buffer (even when a download fails). Unless {@code downloadTo} is
     * null, a one-dimensional entry is first downloaded into it; a two-dimensional entry's rows each lose
     * a row reference, and those then unused are released in turn, copied back into the row objects the
     * table listed unless {@code downloadTo} is null.
     */
    private void release(Entry entry, Object downloadTo) {
        if (entry.rows != null) {
            // rows that stay present (listed elsewhere, or present on their own) keep their state
            settle(entry);
        }
        entries.remove(entry.key);
        // a cleared reference is not queued, so the GC will not report this array again
        entry.key.clear();
        RuntimeException failure = null;
        if (downloadTo != null && entry.rows == null) {
            try {
                download(entry, downloadTo);
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        boolean rowsCopied = false;
        if (downloadTo != null && contiguous(entry) && releasesEveryRow(entry)) {
            // every row leaves the device with this table: one copy back instead of one per row
            try {
                downloadBlock(entry);
            } catch (RuntimeException e) {
                failure = e;
            }
            rowsCopied = true;
        }
        try {
            closeBuffer(entry);
        } catch (RuntimeException e) {
            failure = chain(failure, e);
        }
        if (entry.rows != null) {
            for (int i = 0; i < entry.rows.length; i++) {
                try {
                    unhold(entry.rowEntries[i], entry.rows[i], downloadTo != null && !rowsCopied);
                } catch (RuntimeException e) {
                    failure = chain(failure, e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Whether each row entry of {@code entry} is held by its table alone, so that releasing the table frees it. */
    private static boolean releasesEveryRow(Entry entry) {
        for (Entry row : entry.rowEntries) {
            if (row.rowReferences != 1 || row.structured != 0 || row.dynamic != 0) {
                return false;
            }
        }
        return true;
    }

    private void closeBuffer(Entry entry) {
        boolean slice = entry.buffer instanceof RowSlice;
        try {
            entry.buffer.close();
            if (!slice) {
                stats = stats.free();
            }
        } finally {
            if (entry.block != null) {
                Block block = entry.block;
                entry.block = null;
                block.release();
            }
        }
    }

    /** Frees a buffer that was never recorded, adding any failure to {@code e}, which it returns. */
    private RuntimeException freeing(Buffer buffer, RuntimeException e) {
        try {
            buffer.close();
            stats = stats.free();
        } catch (RuntimeException closing) {
            e.addSuppressed(closing);
        }
        return e;
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

    private static RuntimeException chain(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    @Override
    public synchronized String toString() {
        return "PresentTable[" + entries.size() + " arrays" + (closed ? ", closed" : "") + "]";
    }
}
