package org.acc4j.runtime.data;

/**
 * One array present in a {@link PresentTable}: its device buffer, its structured and dynamic reference counts, the
 * row references a row carries, and for a two-dimensional array the rows its row table lists and their entries.
 *
 * <p>Invariants, between table operations: an entry is in its table exactly while one of its counts or row
 * references is above zero (until the table is closed or the device lost), and leaving the table frees its buffer
 * and clears its key; it never references its own array, only a two-dimensional array's rows. The fields are the
 * package's to change, and change only under the table's lock, which the public getters take too.
 */
public final class Entry {

    private final Object lock;
    final WeakKey key;
    /** Replaced only by {@link PresentTable#restore()}. */
    Buffer buffer;
    /** The description of a two-dimensional array, made once; null for one dimension (made from the next two). */
    private final String described;
    private final Class<?> type;
    private final int length;
    /** For a two-dimensional array, the rows its table lists, in order; null for one dimension. */
    final Object[] rows;
    /** The entries of {@link #rows}, each holding one row reference for this table. */
    final Entry[] rowEntries;
    /** For a two-dimensional array laid out as one block, that block (this entry holds it); else null. */
    Block block;
    /** Whether the table as last written lists {@link #block}'s rows in order (see {@link #isContiguous()}). */
    boolean listsBlock;
    /** As the table was last written: whether it lists each row object once, and its shortest row's length. */
    boolean rowsDistinct;
    int leastRowLength;
    /** The launch ({@link RowTables#beginCall}) in which the host's rows were last found to be {@link #rows}, or 0. */
    long rowsSeenInCall;
    int structured;
    int dynamic;
    int rowReferences;
    /** A kernel may have changed the device copy since host and device were last made equal (a copy either way). */
    boolean deviceNewer;
    /**
     * For a two-dimensional array: every row it lists is device-newer, recorded here in one store rather than
     * in each row; {@link RowTables#settle} moves it into the rows before anything looks at them one by one.
     */
    boolean rowsNewer;
    /**
     * For a block entered for a call's kernels that only write it: the rows and columns they write, {firstRow,
     * endRow, firstColumn, endColumn}, the only part of the block whose device data counts (nothing was copied in);
     * null when the whole block holds the array. See {@link PresentTable#enterWritten}.
     */
    int[] window;
    /** Whether a kernel has written {@link #window}: completing the block then copies it to the host first. */
    boolean windowWritten;
    /** While kept out of the table with its layout ({@link KeptLayouts}): that layout's array entry; else null. */
    Entry keptBy;
    /** For a kept layout's array entry: one of its arrays became present anew, so it cannot be taken back. */
    boolean keptBroken;

    /** A new entry, every count 0, of the table whose lock is {@code lock}. */
    Entry(Object lock, WeakKey key, Buffer buffer, Object array, Object[] rows, Entry[] rowEntries) {
        this.lock = lock;
        this.key = key;
        this.buffer = buffer;
        this.described = HostArrays.isRank2(array) ? HostArrays.describe(array) : null;
        this.type = array.getClass();
        this.length = java.lang.reflect.Array.getLength(array);
        this.rows = rows;
        this.rowEntries = rowEntries;
    }

    /**
     * The device buffer (the row table of a two-dimensional array); closed once the entry is removed, replaced
     * when the table is {@linkplain PresentTable#restore() restored} after a fault.
     */
    public Buffer buffer() {
        synchronized (lock) {
            return buffer;
        }
    }

    /** The array's description, such as {@code double[1024]} or {@code double[37][41]}. */
    public String array() {
        // a row's description is made only when a message needs it, not for every row entered
        return described != null ? described : type.getComponentType().getName() + "[" + length + "]";
    }

    /** The structured reference count now. */
    public int structuredCount() {
        synchronized (lock) {
            return structured;
        }
    }

    /** The dynamic reference count now. */
    public int dynamicCount() {
        synchronized (lock) {
            return dynamic;
        }
    }

    /**
     * How many times present row tables list this array as a row (a table listing it twice counts
     * twice); 0 for a two-dimensional array.
     */
    public int rowReferences() {
        synchronized (lock) {
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
        synchronized (lock) {
            return listsBlock;
        }
    }

    /** The device address of the block when {@link #isContiguous()}, else 0. */
    public long blockAddress() {
        synchronized (lock) {
            return listsBlock ? block.buffer.address() : 0;
        }
    }

    /** The length of every row when {@link #isContiguous()}, else -1. */
    public int blockRowLength() {
        synchronized (lock) {
            return listsBlock ? HostArrays.length(rows[0]) : -1;
        }
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "Entry[" + array() + ", structured " + structured + ", dynamic " + dynamic
                    + (rowReferences > 0 ? ", row references " + rowReferences : "") + "]";
        }
    }

    /** Whether nothing holds this entry any more: no count and no row reference. */
    boolean unused() {
        return structured == 0 && dynamic == 0 && rowReferences == 0;
    }
}
