package org.acc4j.runtime.launch;

import org.acc4j.compiler.plan.Abi;
import org.acc4j.compiler.plan.Slot;
import org.acc4j.runtime.cuda.DeviceBuffer;

/**
 * Device memory for the reductions of one launch at a time, at fixed places: the block counters of reductions
 * 0 to 63 first (8 bytes each; zero between launches, since the templates' last block resets them, so no other
 * data may ever land there), then their results (8 bytes each), then the per-block partial values. It grows when
 * a launch needs more and is zeroed whenever it is allocated. Not thread-safe: one launcher owns it and uses it
 * under its lock (the device lock), so launches from many threads never share it at the same time.
 */
final class ReductionScratch implements AutoCloseable {
    /** Reductions one kernel may have (the compiler refuses more). */
    static final int MAX = Abi.MAX_REDUCTIONS;

    private DeviceBuffer buffer;

    static long counter(int j) {
        return 8L * j;
    }

    static long result(int j) {
        return 8L * MAX + 8L * j;
    }

    /** Where reduction {@code j}'s partial values start; {@code partials(n, blocks)} is the size n of them need. */
    static long partials(int j, long blocks) {
        return 16L * MAX + 8L * blocks * j;
    }

    /**
     * Where part {@code part} of a scan's state starts for a launch of {@code tiles} blocks: the ticket at reduction
     * 0's counter, then from the partials on, the tiles' flags (4 bytes each, rounded up to 8 bytes in all), their
     * aggregates and their inclusive prefixes (8 bytes each). A region with a scan has no reductions.
     */
    static long scan(Slot.ScanPart part, long tiles) {
        long flags = partials(0, tiles);
        long aggregates = flags + (4 * tiles + 7) / 8 * 8;
        return switch (part) {
            case TICKET -> counter(0);
            case FLAGS -> flags;
            case AGGREGATES -> aggregates;
            case INCLUSIVE -> aggregates + 8 * tiles;
        };
    }

    /** The bytes a scan of {@code tiles} tiles needs, from the buffer's start. */
    static long scanBytes(long tiles) {
        return scan(Slot.ScanPart.INCLUSIVE, tiles) + 8 * tiles;
    }

    /** Queues clearing a scan's tile flags before its launch, on {@code stream} (null: the default stream). */
    void clearScanFlags(long tiles, org.acc4j.runtime.cuda.Stream stream) {
        long at = scan(Slot.ScanPart.FLAGS, tiles);
        buffer.zeroAsync(at, 4 * tiles, stream);
    }

    /** Makes at least {@code bytes} available. */
    void reserve(long bytes) {
        if (buffer != null && buffer.bytes() >= bytes) {
            return;
        }
        long size = Math.max(bytes, 1 << 16);
        if (buffer != null) {
            size = Math.max(size, buffer.bytes() * 2);
            buffer.close();
            buffer = null;
        }
        DeviceBuffer b = org.acc4j.runtime.data.CudaMemory.allocateBuffer(size, "the reductions' scratch");
        b.zero();
        buffer = b;
    }

    long address() {
        return buffer.address();
    }

    /** The first {@code count} 8-byte results. */
    void copyToHost(long[] into, int count) {
        buffer.copyToHost(result(0), into, count);
    }

    /** Forgets the buffer without freeing it: its context was destroyed. The next launch allocates a new one. */
    void abandon() {
        if (buffer != null) {
            buffer.abandon();
            buffer = null;
        }
    }

    @Override
    public void close() {
        if (buffer != null) {
            buffer.close();
            buffer = null;
        }
    }
}
