package org.acc4j.runtime.launch;

import org.acc4j.runtime.cuda.DeviceBuffer;

/**
 * Device memory for the reductions of one launch at a time: the results (8 bytes each), the block counters
 * (8 bytes each, zero between launches: the reduction templates reset them) and the per-block partial values.
 * It grows when a launch needs more and is zeroed whenever it is allocated. Used under the launcher's lock.
 */
final class ReductionScratch implements AutoCloseable {
    private DeviceBuffer buffer;

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
        DeviceBuffer b = DeviceBuffer.allocate(size, "the reductions' scratch");
        b.zero();
        buffer = b;
    }

    long address() {
        return buffer.address();
    }

    /** The first {@code count} 8-byte results. */
    void copyToHost(long[] into, int count) {
        buffer.copyToHost(into, count);
    }

    @Override
    public void close() {
        if (buffer != null) {
            buffer.close();
            buffer = null;
        }
    }
}
