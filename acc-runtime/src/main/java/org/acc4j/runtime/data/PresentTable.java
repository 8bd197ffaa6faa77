package org.acc4j.runtime.data;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * <p>Thread-safe: every operation holds the table's lock, transfers included. After {@link
 * #close()} (idempotent, frees every buffer) data operations throw {@link IllegalStateException}
 * and queries see an empty table.
 */
public final class PresentTable implements AutoCloseable {

    /** One present array: its buffer and counts. The counts change under the table's lock. */
    public static final class Entry {

        private final PresentTable table;
        private final Key key;
        private final Buffer buffer;
        private final String array;
        private int structured;
        private int dynamic;

        private Entry(PresentTable table, Key key, Buffer buffer, String array) {
            this.table = table;
            this.key = key;
            this.buffer = buffer;
            this.array = array;
        }

        /** The device buffer; closed once the entry is removed. */
        public Buffer buffer() {
            return buffer;
        }

        /** The array's description, such as {@code double[1024]}. */
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

        @Override
        public String toString() {
            synchronized (table) {
                return "Entry[" + array + ", structured " + structured + ", dynamic " + dynamic + "]";
            }
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
    private TransferStats stats = TransferStats.NONE;
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
     * raised, with no transfer. Absent data is allocated with count 1 and uploaded for COPYIN and
     * COPY, zero-filled for CREATE and COPYOUT.
     *
     * @param clause COPYIN, COPYOUT, COPY, CREATE or PRESENT
     * @throws IllegalStateException    for PRESENT when the array is not present
     * @throws IllegalArgumentException for DELETE or an array that is not one-dimensional primitive
     */
    public synchronized Entry enter(Object array, Clause clause) {
        prepare(array);
        if (clause == null || clause == Clause.DELETE) {
            throw new IllegalArgumentException("enter takes copyin, copyout, copy, create or present, not " + clause);
        }
        Entry entry = find(array);
        if (entry != null) {
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
     * COPY and COPYOUT, frees the buffer and removes the entry.
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
        if (entry.structured == 0 && entry.dynamic == 0) {
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
        if (entry.structured == 0 && entry.dynamic == 0) {
            release(entry, null);
        }
    }

    /**
     * Dynamic entry ({@code enter data}, {@code Acc.copyin}/{@code Acc.create}): present data has
     * its dynamic count raised, absent data is allocated with dynamic count 1 and uploaded
     * (COPYIN) or zero-filled (CREATE).
     */
    public synchronized Entry enterDynamic(Object array, Clause clause) {
        prepare(array);
        if (clause != Clause.COPYIN && clause != Clause.CREATE) {
            throw new IllegalArgumentException("enterDynamic takes copyin or create, not " + clause);
        }
        Entry entry = find(array);
        if (entry == null) {
            entry = create(array, clause);
        }
        entry.dynamic++;
        return entry;
    }

    /**
     * Dynamic exit ({@code exit data}, {@code Acc.copyout}/{@code Acc.delete}): lowers the dynamic
     * count, or sets it to zero when {@code finalize}; when both counts are then zero, downloads
     * for COPYOUT and frees. An absent array, or one whose dynamic count is already zero, is left
     * alone, as OpenACC specifies.
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
        if (entry.structured == 0 && entry.dynamic == 0) {
            release(entry, clause.downloadsOnExit() ? array : null);
        }
    }

    /** Copies the host array to its device copy ({@code update device}). */
    public synchronized void updateDevice(Object array) {
        prepare(array);
        Entry entry = requirePresent(array, "update device");
        entry.buffer.upload(array);
        stats = stats.upload(entry.buffer.bytes());
    }

    /** Copies the device copy back into the host array ({@code update host}). */
    public synchronized void updateHost(Object array) {
        prepare(array);
        Entry entry = requirePresent(array, "update host");
        entry.buffer.download(array);
        stats = stats.download(entry.buffer.bytes());
    }

    /** Whether {@code array} has a device copy. */
    public synchronized boolean isPresent(Object array) {
        return lookup(array) != null;
    }

    /** The buffer of {@code array}, or null when it is not present. */
    public synchronized Buffer lookup(Object array) {
        Entry entry = entry(array);
        return entry == null ? null : entry.buffer;
    }

    /** The entry of {@code array}, or null when it is not present. */
    public synchronized Entry entry(Object array) {
        HostArrays.require(array);
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

    /** Number of present arrays (after freeing those collected). */
    public synchronized int size() {
        drainCollected();
        return entries.size();
    }

    /** Transfers and allocations so far. */
    public synchronized TransferStats transferStats() {
        return stats;
    }

    /**
     * Frees the buffers of arrays the garbage collector has reclaimed; needs the CUDA context
     * current on this thread. Every table operation does this first.
     *
     * @return how many buffers were freed
     */
    public synchronized int drainCollected() {
        int freed = 0;
        RuntimeException failure = null;
        for (Reference<?> ref = collected.poll(); ref != null; ref = collected.poll()) {
            // a cleared key equals only itself; explicitly released keys were cleared, never queued
            Entry entry = entries.remove(ref);
            if (entry == null) {
                continue;
            }
            try {
                closeBuffer(entry);
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
        if (failure != null) {
            throw failure;
        }
    }

    /** Checks the table is open and the array supported, then frees collected arrays. */
    private void prepare(Object array) {
        if (closed) {
            throw new IllegalStateException("the present table is closed");
        }
        HostArrays.require(array);
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

    /** Allocates and initialises a new entry with both counts 0, then records it. */
    private Entry create(Object array, Clause clause) {
        Buffer buffer = memory.allocate(array);
        stats = stats.allocate();
        try {
            if (clause.uploadsOnEntry()) {
                buffer.upload(array);
                stats = stats.upload(buffer.bytes());
            } else {
                buffer.zero();
            }
        } catch (RuntimeException e) {
            // the entry was never recorded: free the buffer here
            try {
                buffer.close();
                stats = stats.free();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        Key key = new Key(array, collected);
        Entry entry = new Entry(this, key, buffer, HostArrays.describe(array));
        entries.put(key, entry);
        return entry;
    }

    /**
     * Removes the entry, downloads into {@code downloadTo} unless it is null, and frees the
     * buffer; the buffer is freed even when the download fails.
     */
    private void release(Entry entry, Object downloadTo) {
        entries.remove(entry.key);
        // a cleared reference is not queued, so the GC will not report this array again
        entry.key.clear();
        RuntimeException failure = null;
        if (downloadTo != null) {
            try {
                entry.buffer.download(downloadTo);
                stats = stats.download(entry.buffer.bytes());
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        try {
            closeBuffer(entry);
        } catch (RuntimeException e) {
            failure = chain(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void closeBuffer(Entry entry) {
        entry.buffer.close();
        stats = stats.free();
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
