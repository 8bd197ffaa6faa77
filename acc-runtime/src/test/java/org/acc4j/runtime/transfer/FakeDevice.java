package org.acc4j.runtime.transfer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Device memory for {@link FakeLanes}: either bytes kept on the heap ({@link #bytes}) or, for arrays beyond what a
 * test can hold twice, a {@code long[]} whose element {@code i} is {@link #value}{@code (i)}, checked as it arrives
 * and produced as it is read ({@link #pattern}), so that only the host array takes memory.
 */
abstract class FakeDevice {
    /** Bytes written and read so far, and the furthest byte touched. */
    final AtomicLong written = new AtomicLong();
    final AtomicLong read = new AtomicLong();
    final AtomicLong end = new AtomicLong();

    abstract long size();

    /** Copies {@code count} bytes from the start of {@code from} to byte {@code offset}. */
    final void write(long offset, ByteBuffer from, int count) {
        check(offset, count);
        store(offset, from.slice(0, count).order(ByteOrder.nativeOrder()));
        written.addAndGet(count);
        end.accumulateAndGet(offset + count, Math::max);
    }

    /** Copies {@code count} bytes from byte {@code offset} to the start of {@code into}. */
    final void read(long offset, ByteBuffer into, int count) {
        check(offset, count);
        load(offset, into.slice(0, count).order(ByteOrder.nativeOrder()));
        read.addAndGet(count);
        end.accumulateAndGet(offset + count, Math::max);
    }

    private void check(long offset, int count) {
        if (offset < 0 || count < 0 || offset + count > size()) {
            throw new IllegalArgumentException(count + " bytes at " + offset + " outside a " + size() + "-byte device");
        }
    }

    abstract void store(long offset, ByteBuffer from);

    abstract void load(long offset, ByteBuffer into);

    static Bytes bytes(int size) {
        return new Bytes(size);
    }

    static Pattern pattern(long longs) {
        return new Pattern(longs);
    }

    /** The value of element {@code i} of a {@link Pattern} device: distinct, all bits used. */
    static long value(long i) {
        return i * 0x9E3779B97F4A7C15L ^ (i >>> 7);
    }

    /** Device memory held on the heap. */
    static final class Bytes extends FakeDevice {
        final ByteBuffer data;

        Bytes(int size) {
            data = ByteBuffer.allocate(size).order(ByteOrder.nativeOrder());
        }

        @Override
        long size() {
            return data.capacity();
        }

        @Override
        synchronized void store(long offset, ByteBuffer from) {
            data.put((int) offset, from, 0, from.remaining());
        }

        @Override
        synchronized void load(long offset, ByteBuffer into) {
            into.put(0, data, (int) offset, into.remaining());
        }
    }

    /** A {@code long[]} of {@link #value}s, any size: writes are checked against it, reads produce it. */
    static final class Pattern extends FakeDevice {
        private final long longs;
        /** The first wrong element written, or -1. */
        final AtomicLong wrong = new AtomicLong(-1);

        Pattern(long longs) {
            this.longs = longs;
        }

        @Override
        long size() {
            return 8 * longs;
        }

        @Override
        void store(long offset, ByteBuffer from) {
            long first = offset / 8;
            var values = from.asLongBuffer();
            for (int i = 0; i < values.limit(); i++) {
                if (values.get(i) != value(first + i)) {
                    wrong.compareAndSet(-1, first + i);
                    return;
                }
            }
        }

        @Override
        void load(long offset, ByteBuffer into) {
            long first = offset / 8;
            var values = into.asLongBuffer();
            for (int i = 0; i < values.limit(); i++) {
                values.put(i, value(first + i));
            }
        }
    }
}
