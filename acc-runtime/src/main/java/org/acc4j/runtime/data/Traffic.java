package org.acc4j.runtime.data;


/**
 * The present table's traffic with the device: every buffer it allocates or frees and every copy it makes between a
 * host array and a buffer goes through here, counted in one {@link TransferStats}; each copy is timed and told to the
 * {@link TransferListener}.
 *
 * <p>Invariants: a buffer is counted as allocated once and freed once (a row's slice of a {@link Block} is not a
 * buffer of its own: the block is counted); a copy that throws is not counted. A copy between an entry and its host
 * array leaves host and device equal, so it clears the entry's device-newer mark.
 *
 * <p>Owned by one {@link PresentTable} and used only under its lock, like the rest of the table's state; the listener
 * alone is set and read without the lock (volatile), since a profile may be switched from any thread.
 */
final class Traffic {

    private final DeviceMemory memory;
    private TransferStats stats = TransferStats.NONE;
    private volatile TransferListener listener;

    Traffic(DeviceMemory memory) {
        this.memory = memory;
    }

    /** Where the buffers come from. */
    DeviceMemory memory() {
        return memory;
    }

    TransferStats stats() {
        return stats;
    }

    void listener(TransferListener listener) {
        this.listener = listener;
    }

    /** Frees memory kept for later when an allocation does not fit; returns whether it freed any. */
    private java.util.function.BooleanSupplier pressure = () -> false;

    void pressure(java.util.function.BooleanSupplier freeKept) {
        this.pressure = freeKept;
    }

    /** A buffer sized for the one-dimensional {@code array}, counted (contents undefined). */
    Buffer allocate(Object array) {
        Buffer buffer;
        try {
            buffer = memory.allocate(array);
        } catch (OutOfDeviceMemoryException e) {
            if (!pressure.getAsBoolean()) {
                throw e;
            }
            buffer = memory.allocate(array);
        }
        stats = stats.allocate();
        return buffer;
    }

    /** A raw buffer of {@code bytes}, counted (contents undefined). */
    Buffer allocateRaw(long bytes, String what) {
        Buffer buffer;
        try {
            buffer = memory.allocateRaw(bytes, what);
        } catch (OutOfDeviceMemoryException e) {
            if (!pressure.getAsBoolean()) {
                throw e;
            }
            buffer = memory.allocateRaw(bytes, what);
        }
        stats = stats.allocate();
        return buffer;
    }

    /** Counts a buffer freed elsewhere (a {@link Block}'s, by its last holder). */
    void freed() {
        stats = stats.free();
    }

    /** Copies {@code array} into a buffer no entry holds yet. */
    void upload(Buffer buffer, Object array) {
        long t0 = System.nanoTime();
        buffer.upload(array);
        uploaded(buffer.bytes(), System.nanoTime() - t0);
    }

    /** Copies {@code array} into {@code entry}'s buffer; host and device copies are then equal. */
    void upload(Entry entry, Object array) {
        long t0 = System.nanoTime();
        entry.buffer.upload(array);
        entry.deviceNewer = false;
        uploaded(entry.buffer.bytes(), System.nanoTime() - t0);
    }

    /** Copies elements {@code [from, to)} of {@code array} into {@code entry}'s buffer; counted as their bytes. */
    void uploadRange(Entry entry, Object array, int from, int to) {
        long t0 = System.nanoTime();
        entry.buffer.uploadRange(array, from, to);
        uploaded((long) (to - from) * HostArrays.elementBytes(array), System.nanoTime() - t0);
    }

    /** Copies {@code entry}'s buffer into {@code array}; host and device copies are then equal. */
    void download(Entry entry, Object array) {
        long t0 = System.nanoTime();
        entry.buffer.download(array);
        entry.deviceNewer = false;
        downloaded(entry.buffer.bytes(), System.nanoTime() - t0);
    }

    /** Copies {@code rows} into {@code raw} one after the other, as one copy ({@link Buffer#uploadRows}). */
    void uploadRows(Buffer raw, Object[] rows) {
        long t0 = System.nanoTime();
        raw.uploadRows(rows);
        uploaded(raw.bytes(), System.nanoTime() - t0);
    }

    /** Copies {@code raw} back into {@code rows}, as one copy ({@link Buffer#downloadRows}). */
    void downloadRows(Buffer raw, Object[] rows) {
        long t0 = System.nanoTime();
        raw.downloadRows(rows);
        downloaded(raw.bytes(), System.nanoTime() - t0);
    }

    /**
     * Copies {@code window} ({firstRow, endRow, firstColumn, endColumn}) of {@code raw}, laid out as {@code rows},
     * back into those rows ({@link Buffer#downloadWindow}); counted as the window's bytes.
     */
    void downloadWindow(Buffer raw, Object[] rows, int[] window) {
        long t0 = System.nanoTime();
        raw.downloadWindow(rows, window[0], window[1], window[2], window[3]);
        long bytes = window[1] <= window[0] || window[3] <= window[2] ? 0
                : (long) (window[1] - window[0]) * (window[3] - window[2]) * HostArrays.elementBytes(rows[0]);
        downloaded(bytes, System.nanoTime() - t0);
    }

    /** Replaces {@code raw}'s contents with {@code values} (a row table), one copy. */
    void writeLongs(Buffer raw, long[] values) {
        long t0 = System.nanoTime();
        raw.writeLongs(values);
        uploaded(raw.bytes(), System.nanoTime() - t0);
    }

    /** Frees {@code entry}'s buffer, and lets go of its {@link Block} if it holds one (even when freeing fails). */
    void free(Entry entry) {
        boolean slice = entry.buffer instanceof Block.Slice;
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

    /** Frees a buffer that no entry holds, adding any failure to {@code e}, which it returns. */
    RuntimeException freeing(Buffer buffer, RuntimeException e) {
        try {
            buffer.close();
            stats = stats.free();
        } catch (RuntimeException closing) {
            e.addSuppressed(closing);
        }
        return e;
    }

    /** {@code first} with {@code next} added as suppressed, or {@code next} when there is no first failure. */
    static RuntimeException chain(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    void uploaded(long bytes, long nanos) {
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
}
