package org.acc4j.runtime.data;

import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Device memory simulated on the heap: each buffer keeps its own copy of the data, so tests
 * can tell what reached the "device" and what came back. Counts every operation and records
 * misuse (use after close, closing twice, a host array on a raw buffer) in {@link #violations()}
 * instead of trusting the code under test. Never references the host arrays it was allocated for.
 *
 * <p>Buffers get fake device addresses: distinct, 256-byte aligned, never reused, and 0 for an
 * empty buffer, as on CUDA. A raw buffer holds bytes; {@link FakeBuffer#words()} reads them back.
 */
final class FakeMemory implements DeviceMemory {

    /** A fake buffer holding a private array of the host array's type and length, or raw bytes. */
    final class FakeBuffer implements Buffer {

        private final Object data;
        private final boolean raw;
        private final long address;
        private boolean closed;
        /** The simulated context that held it was destroyed ({@link FakeMemory#loseContext()}). */
        private boolean lost;

        private FakeBuffer(Object data, boolean raw, long address) {
            this.data = data;
            this.raw = raw;
            this.address = address;
        }

        @Override
        public long bytes() {
            return HostArrays.byteSize(data);
        }

        @Override
        public long address() {
            synchronized (FakeMemory.this) {
                live("address");
                return address;
            }
        }

        @Override
        public void writeLongs(long[] values) {
            synchronized (FakeMemory.this) {
                live("writeLongs");
                // a real buffer takes words anywhere; the present table writes them only to row tables
                if (!raw || (long) values.length * Long.BYTES != bytes()) {
                    violations.add("writeLongs of " + values.length + " words on a buffer for " + what());
                    throw new IllegalArgumentException("mismatched words");
                }
                ByteBuffer.wrap((byte[]) data).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().put(values);
                wordWrites++;
            }
        }

        @Override
        public void upload(Object hostArray) {
            synchronized (FakeMemory.this) {
                use("upload", hostArray);
                if (failUploads) {
                    throw new IllegalStateException("simulated upload failure");
                }
                System.arraycopy(hostArray, 0, data, 0, Array.getLength(data));
                uploads++;
            }
        }

        /** A buffer of an array's own type copies the window in place, as a device buffer does at an offset. */
        @Override
        public void uploadRange(Object hostArray, int from, int to) {
            if (raw) {
                Buffer.super.uploadRange(hostArray, from, to);
                return;
            }
            synchronized (FakeMemory.this) {
                use("uploadRange", hostArray);
                if (failUploads) {
                    throw new IllegalStateException("simulated upload failure");
                }
                System.arraycopy(hostArray, from, data, from, to - from);
                uploads++;
            }
        }

        @Override
        public void download(Object hostArray) {
            synchronized (FakeMemory.this) {
                use("download", hostArray);
                System.arraycopy(data, 0, hostArray, 0, Array.getLength(data));
                downloads++;
            }
        }

        @Override
        public void uploadAt(long offset, Object hostArray) {
            synchronized (FakeMemory.this) {
                ByteBuffer at = slice("uploadAt", offset, hostArray);
                if (failUploads) {
                    throw new IllegalStateException("simulated upload failure");
                }
                copyBytes(at, hostArray, true);
                uploads++;
            }
        }

        @Override
        public void downloadAt(long offset, Object hostArray) {
            synchronized (FakeMemory.this) {
                copyBytes(slice("downloadAt", offset, hostArray), hostArray, false);
                downloads++;
            }
        }

        @Override
        public void uploadRows(Object[] rows) {
            synchronized (FakeMemory.this) {
                Buffer.super.uploadRows(rows);
                // the rows' copies count as one, as one pipelined copy on a device
                uploads -= rows.length - 1;
                blockCopies++;
            }
        }

        @Override
        public void downloadRows(Object[] rows) {
            synchronized (FakeMemory.this) {
                Buffer.super.downloadRows(rows);
                downloads -= rows.length - 1;
                blockCopies++;
            }
        }

        @Override
        public void downloadWindow(Object[] rows, int firstRow, int endRow, int firstColumn, int endColumn) {
            synchronized (FakeMemory.this) {
                int before = downloads;
                Buffer.super.downloadWindow(rows, firstRow, endRow, firstColumn, endColumn);
                // one copy of the rows' range, as on a device
                downloads = before + 1;
                blockCopies++;
                windowCopies++;
            }
        }

        /** The bytes of this raw buffer from {@code offset} that {@code hostArray} covers, in the device's order. */
        private ByteBuffer slice(String operation, long offset, Object hostArray) {
            live(operation);
            long n = HostArrays.byteSize(hostArray);
            if (!raw || hostArray instanceof boolean[] || offset < 0 || offset + n > bytes()) {
                violations.add(operation + " of " + HostArrays.describe(hostArray) + " at " + offset + " on " + what());
                throw new IllegalArgumentException("a copy that does not fit");
            }
            return ByteBuffer.wrap((byte[]) data, (int) offset, (int) n).slice().order(ByteOrder.LITTLE_ENDIAN);
        }

        @Override
        public void zero() {
            synchronized (FakeMemory.this) {
                use("zero", data);
                // a fresh array of the same type is all zero
                Object zeros = Array.newInstance(data.getClass().getComponentType(), Array.getLength(data));
                System.arraycopy(zeros, 0, data, 0, Array.getLength(data));
                zeroFills++;
            }
        }

        @Override
        public void close() {
            synchronized (FakeMemory.this) {
                if (closed) {
                    violations.add("double free of " + what());
                    return;
                }
                if (lost) {
                    violations.add("free of " + what() + " after its context was destroyed");
                }
                closed = true;
                open.remove(this);
                live--;
                frees++;
                bytesInUse -= bytes();
            }
        }

        @Override
        public void abandon() {
            synchronized (FakeMemory.this) {
                if (closed) {
                    return;
                }
                if (!lost) {
                    violations.add("abandon of " + what() + " while its context is alive (a leak)");
                }
                closed = true;
                open.remove(this);
                live--;
                abandoned++;
                bytesInUse -= bytes();
            }
        }

        /** A raw buffer's contents as little-endian 64-bit words. */
        long[] words() {
            synchronized (FakeMemory.this) {
                live("inspect");
                long[] words = new long[((byte[]) data).length / Long.BYTES];
                ByteBuffer.wrap((byte[]) data).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(words);
                return words;
            }
        }

        /** A copy of what the device holds. */
        Object contents() {
            synchronized (FakeMemory.this) {
                use("inspect", data);
                Object copy = Array.newInstance(data.getClass().getComponentType(), Array.getLength(data));
                System.arraycopy(data, 0, copy, 0, Array.getLength(data));
                return copy;
            }
        }

        /** Lets a test play kernel: {@code body} edits the device data in place. */
        void kernel(Consumer<Object> body) {
            synchronized (FakeMemory.this) {
                use("kernel", data);
                body.accept(data);
            }
        }

        boolean isClosed() {
            synchronized (FakeMemory.this) {
                return closed;
            }
        }

        private String what() {
            return (raw ? "raw " : "") + HostArrays.describe(data);
        }

        private void live(String operation) {
            if (lost && !closed) {
                violations.add(operation + " of " + what() + " after its context was destroyed");
                throw new IllegalStateException(operation + " after the context was destroyed");
            }
            if (closed) {
                violations.add(operation + " after close of " + what());
                throw new IllegalStateException(operation + " after close");
            }
        }

        private void use(String operation, Object hostArray) {
            live(operation);
            if (raw && hostArray != data) {
                violations.add(operation + " with " + HostArrays.describe(hostArray) + " on " + what());
                throw new IllegalArgumentException("a host array on a raw buffer");
            }
            if (hostArray.getClass() != data.getClass() || Array.getLength(hostArray) != Array.getLength(data)) {
                violations.add(operation + " with " + HostArrays.describe(hostArray) + " on a buffer for "
                        + HostArrays.describe(data));
                throw new IllegalArgumentException("mismatched array");
            }
        }
    }

    /** Copies a one-dimensional array to ({@code in}) or from little-endian bytes. */
    private static void copyBytes(ByteBuffer b, Object array, boolean in) {
        if (array instanceof double[] a) {
            if (in) { b.asDoubleBuffer().put(a); } else { b.asDoubleBuffer().get(a); }
        } else if (array instanceof long[] a) {
            if (in) { b.asLongBuffer().put(a); } else { b.asLongBuffer().get(a); }
        } else if (array instanceof float[] a) {
            if (in) { b.asFloatBuffer().put(a); } else { b.asFloatBuffer().get(a); }
        } else if (array instanceof int[] a) {
            if (in) { b.asIntBuffer().put(a); } else { b.asIntBuffer().get(a); }
        } else if (array instanceof short[] a) {
            if (in) { b.asShortBuffer().put(a); } else { b.asShortBuffer().get(a); }
        } else if (array instanceof char[] a) {
            if (in) { b.asCharBuffer().put(a); } else { b.asCharBuffer().get(a); }
        } else {
            if (in) { b.put((byte[]) array); } else { b.get((byte[]) array); }
        }
    }

    /** Where the next non-empty buffer starts: far from 0, like a real device address. */
    private long nextAddress = 0x7f00_0000_0000L;
    private final List<String> violations = new ArrayList<>();
    private int allocations;
    private int frees;
    private int live;
    private int uploads;
    private int downloads;
    private int zeroFills;
    private int wordWrites;
    private int blockCopies;
    private int windowCopies;
    private boolean blocks;
    private long bytesInUse;
    private boolean failUploads;
    private long capacity = Long.MAX_VALUE;
    private int abandoned;
    /** The buffers not yet closed or abandoned. */
    private final java.util.Set<FakeBuffer> open = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    @Override
    public synchronized FakeBuffer allocate(Object hostArray) {
        HostArrays.require(hostArray);
        Object data = Array.newInstance(hostArray.getClass().getComponentType(), Array.getLength(hostArray));
        // poison the fresh buffer so a missing zero-fill or upload shows
        if (data instanceof int[] ints) {
            java.util.Arrays.fill(ints, 0xDEAD);
        } else if (data instanceof double[] doubles) {
            java.util.Arrays.fill(doubles, Double.NaN);
        } else if (data instanceof byte[] bytes) {
            java.util.Arrays.fill(bytes, (byte) 0x5A);
        } else if (data instanceof short[] shorts) {
            java.util.Arrays.fill(shorts, (short) 0x5A5A);
        } else if (data instanceof char[] chars) {
            java.util.Arrays.fill(chars, (char) 0xDEAD);
        } else if (data instanceof boolean[] booleans) {
            java.util.Arrays.fill(booleans, true);
        }
        return track(data, false);
    }

    @Override
    public synchronized FakeBuffer allocateRaw(long bytes, String what) {
        if (bytes < 0 || bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("fake raw buffer of " + bytes + " bytes for " + what);
        }
        byte[] data = new byte[(int) bytes];
        java.util.Arrays.fill(data, (byte) 0xAB);
        return track(data, true);
    }

    private FakeBuffer track(Object data, boolean raw) {
        long bytes = HostArrays.byteSize(data);
        if (bytes > capacity - bytesInUse) {
            throw new OutOfDeviceMemoryException((raw ? "raw " : "") + HostArrays.describe(data), bytes,
                    capacity - bytesInUse, capacity, null);
        }
        long address = 0;
        if (bytes > 0) {
            address = nextAddress;
            nextAddress += (bytes + 255) & ~255L;
        }
        allocations++;
        live++;
        bytesInUse += bytes;
        FakeBuffer buffer = new FakeBuffer(data, raw, address);
        open.add(buffer);
        return buffer;
    }

    /** Device memory of {@code bytes} in all: an allocation beyond it throws {@link OutOfDeviceMemoryException}. */
    synchronized void capacity(long bytes) {
        capacity = bytes;
    }

    /**
     * Simulates a destroyed context: every open buffer is lost, so any use but {@link Buffer#abandon()} (a free
     * included) is a violation. Buffers allocated afterwards are fine.
     */
    synchronized void loseContext() {
        for (FakeBuffer b : open) {
            b.lost = true;
        }
    }

    /** Buffers forgotten through {@link Buffer#abandon()}. */
    synchronized int abandoned() {
        return abandoned;
    }

    @Override
    public synchronized long bytesInUse() {
        return bytesInUse;
    }

    synchronized void failUploads(boolean fail) {
        failUploads = fail;
    }

    synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    synchronized int allocations() {
        return allocations;
    }

    synchronized int frees() {
        return frees;
    }

    synchronized int live() {
        return live;
    }

    synchronized int uploads() {
        return uploads;
    }

    synchronized int downloads() {
        return downloads;
    }

    synchronized int zeroFills() {
        return zeroFills;
    }

    private boolean keepsLayouts;

    /** Whether the table may keep the layouts of arrays that left (off unless a test turns it on). */
    synchronized void keepsLayouts(boolean on) {
        keepsLayouts = on;
    }

    @Override
    public synchronized boolean keepsLayouts() {
        return keepsLayouts;
    }

    @Override
    public synchronized boolean blocks() {
        return blocks;
    }

    /** Whether a rectangular two-dimensional array is laid out as one block (off unless a test turns it on). */
    synchronized void blocks(boolean on) {
        blocks = on;
    }

    /** Calls of {@link Buffer#uploadRows} and {@link Buffer#downloadRows}: a whole block moved at once. */
    /** Copies back of a window of a block's rows ({@link Buffer#downloadWindow}). */
    synchronized int windowCopies() {
        return windowCopies;
    }

    synchronized int blockCopies() {
        return blockCopies;
    }

    /** Calls of {@link Buffer#writeLongs} (row tables written). */
    synchronized int wordWrites() {
        return wordWrites;
    }
}
