package org.acc4j.runtime.data;

import java.lang.reflect.Array;

/**
 * One device buffer holding every row of a rectangular two-dimensional array, row {@code i} at byte {@code i *
 * rowBytes}. Its holders are the array's entry and each row entry whose buffer is a {@link Slice} of it; it is freed
 * when the last lets go, so a row that outlives its table (present on its own) keeps its memory.
 *
 * <p>Invariant: the holder count is the number of open slices plus one while the array's entry holds the block.
 * Used only under the present table's lock.
 */
final class Block {

    final Buffer buffer;
    final long rowBytes;
    private final Traffic traffic;
    private int holders;
    /** The entry of the array whose {@linkplain Entry#window window} alone is on the device, or null. */
    Entry windowed;

    Block(Traffic traffic, Buffer buffer, long rowBytes) {
        this.traffic = traffic;
        this.buffer = buffer;
        this.rowBytes = rowBytes;
    }

    /** The array's own hold, dropped when its entry's buffer is freed ({@link Traffic#free}). */
    void hold() {
        holders++;
    }

    /** Lets go of one hold; the last frees the buffer. */
    void release() {
        if (--holders == 0) {
            buffer.close();
            traffic.freed();
        }
    }

    /** Row {@code index}'s part of this block, for {@code row}; the slice holds the block until closed. */
    Slice slice(int index, Object row) {
        return new Slice(index * rowBytes, row);
    }

    /** Whether {@code rowEntries} are this block's rows in order: entry {@code i}'s buffer its open slice {@code i}. */
    boolean listedBy(Entry[] rowEntries) {
        for (int i = 0; i < rowEntries.length; i++) {
            if (!(rowEntries[i].buffer instanceof Slice slice) || slice.block() != this || slice.closed
                    || slice.offset != i * rowBytes) {
                return false;
            }
        }
        return true;
    }

    /** A row's part of a {@link Block}: the row entry's buffer. Closing it lets go of the block. */
    final class Slice implements Buffer {
        private final long offset;
        private final Class<?> type;
        private final int length;
        private boolean closed;

        private Slice(long offset, Object row) {
            this.offset = offset;
            this.type = row.getClass();
            this.length = HostArrays.length(row);
            holders++;
        }

        Block block() {
            return Block.this;
        }

        @Override
        public long bytes() {
            return rowBytes;
        }

        @Override
        public long address() {
            return buffer.address() + offset;
        }

        @Override
        public void upload(Object hostArray) {
            buffer.uploadAt(offset, match(hostArray));
        }

        @Override
        public void download(Object hostArray) {
            buffer.downloadAt(offset, match(hostArray));
        }

        /** Bytes from {@code at} within this row's part of the block. */
        @Override
        public void uploadAt(long at, Object hostArray) {
            if (at < 0 || at + HostArrays.byteSize(hostArray) > rowBytes) {
                throw new IllegalArgumentException(HostArrays.describe(hostArray) + " does not fit at byte " + at
                        + " of a row of " + rowBytes + " bytes");
            }
            buffer.uploadAt(offset + at, hostArray);
        }

        @Override
        public void writeLongs(long[] values) {
            throw new UnsupportedOperationException("a row takes no raw words");
        }

        @Override
        public void zero() {
            buffer.uploadAt(offset, Array.newInstance(type.getComponentType(), length));
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                release();
            }
        }

        @Override
        public void abandon() {
            if (!closed) {
                closed = true;
                buffer.abandon();
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
            return "RowSlice[" + offset + " of " + buffer + "]";
        }
    }
}
