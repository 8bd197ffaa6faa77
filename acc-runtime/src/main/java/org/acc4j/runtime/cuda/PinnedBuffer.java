package org.acc4j.runtime.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.JCudaDriver;

/**
 * Owns one block of page-locked host memory ({@code cuMemHostAlloc}): the staging area of async copies, which the
 * device reads and writes by DMA while the host goes on. (A copy from a Java array is never asynchronous: JCuda
 * pins the array for the call.)
 *
 * <p>{@link #stage} copies a primitive Java array in, {@link #unstage} copies the first bytes back out into one, in
 * the host's byte order, the device's. The capacity may exceed what one copy moves, so that buffers can be reused.
 * Needs its context current on the calling thread for {@link #allocate} and {@link #close()}. {@link #close()} is
 * idempotent; other calls after it (or {@link #abandon()}) throw {@link IllegalStateException}.
 */
public final class PinnedBuffer extends Handle {
    /** The largest slice viewed as one {@link ByteBuffer} (whose size is an int). */
    private static final long SLICE = 1L << 30;
    /** Arrays of at least this many bytes are copied in {@link #PIECE}s on several cores. */
    private static final long PARALLEL_BYTES = 8L << 20;
    private static final long PIECE = 2L << 20;

    /** The largest buffer: JCuda views pinned memory through one {@link ByteBuffer}, indexed by int. */
    public static final long MAX_BYTES = Integer.MAX_VALUE;

    private final Pointer pointer;
    private final long capacity;
    private final boolean writeCombined;

    private PinnedBuffer(Pointer pointer, long capacity, boolean writeCombined) {
        this.pointer = pointer;
        this.capacity = capacity;
        this.writeCombined = writeCombined;
    }

    /**
     * Allocates {@code bytes} of pinned host memory (at least 1 byte is allocated).
     *
     * @throws DriverException e.g. {@code CUDA_ERROR_OUT_OF_MEMORY} when the host cannot pin that much
     */
    public static PinnedBuffer allocate(long bytes, String what) {
        return allocate(bytes, what, false);
    }

    /**
     * Allocates {@code bytes} of write-combined pinned host memory ({@code CU_MEMHOSTALLOC_WRITECOMBINED}): the
     * host's writes bypass its caches (no line is read before it is written) and the device reads it without looking
     * into them, but a read by the host is uncached and very slow: the memory is for copies to the device only, and
     * {@link #unstage} and {@link #readLongs} refuse it.
     *
     * @throws DriverException e.g. {@code CUDA_ERROR_OUT_OF_MEMORY} when the host cannot pin that much
     */
    public static PinnedBuffer allocateWriteCombined(long bytes, String what) {
        return allocate(bytes, what, true);
    }

    private static PinnedBuffer allocate(long bytes, String what, boolean writeCombined) {
        if (bytes < 0 || bytes > MAX_BYTES) {
            throw new IllegalArgumentException("pinned staging takes 0 to " + MAX_BYTES + " bytes, not " + bytes
                    + ", for " + what);
        }
        Pointer p = new Pointer();
        long size = Math.max(1, bytes);
        int flags = writeCombined ? JCudaDriver.CU_MEMHOSTALLOC_WRITECOMBINED : 0;
        Driver.check(JCudaDriver.cuMemHostAlloc(p, size, flags), "cuMemHostAlloc",
                "pinning " + size + (writeCombined ? " write-combined" : "") + " bytes of host memory for " + what);
        return new PinnedBuffer(p, size, writeCombined);
    }

    /** Whether the memory is write-combined: written by the host, read by the device only. */
    public boolean writeCombined() {
        return writeCombined;
    }

    /** Size in bytes. */
    public long capacity() {
        return capacity;
    }

    /** The whole memory as a buffer in the host's byte order (the device's), for copies by the host. */
    public ByteBuffer view() {
        return view(0, capacity);
    }

    /** The host pointer, for async copies. */
    Pointer pointer() {
        ensureOpen();
        return pointer;
    }

    /**
     * Copies a whole primitive array into the first bytes: a boolean[] as one byte per element, 1 for true and 0
     * for false, as a kernel reads it.
     *
     * @return the bytes copied
     */
    public long stage(Object array) {
        return move(array, true);
    }

    /** Copies the first bytes into a whole primitive array, the reverse of {@link #stage} (a byte not 0 is true). */
    public void unstage(Object array) {
        refuseRead();
        move(array, false);
    }

    /** Copies {@code count} longs from the first bytes into {@code into}. */
    public void readLongs(long[] into, int count) {
        refuseRead();
        if (8L * count > capacity) {
            throw new IllegalArgumentException(count + " longs from " + capacity + " pinned bytes");
        }
        view(0, 8L * count).asLongBuffer().get(into, 0, count);
    }

    private void refuseRead() {
        if (writeCombined) {
            throw new IllegalStateException("the " + capacity + " write-combined pinned bytes are for copies to the"
                    + " device: the host does not read them");
        }
    }

    private long move(Object array, boolean in) {
        int width = width(array);
        int length = java.lang.reflect.Array.getLength(array);
        long bytes = (long) width * length;
        if (bytes > capacity) {
            throw new IllegalArgumentException("a " + array.getClass().getComponentType() + "[" + length + "] ("
                    + bytes + " bytes) does not fit in " + capacity + " pinned bytes");
        }
        // large arrays are copied in pieces on the common fork-join pool: one core copies far slower than the
        // memory and the PCIe link move data, and these copies are what async transfers wait for
        int perPiece = (int) ((bytes >= PARALLEL_BYTES ? PIECE : SLICE) / width);
        int pieces = (int) ((length + (long) perPiece - 1) / perPiece);
        java.util.function.IntConsumer piece = i -> {
            int from = i * perPiece;
            movePiece(array, in, from, Math.min(perPiece, length - from), width);
        };
        if (pieces > 1 && bytes >= PARALLEL_BYTES) {
            java.util.stream.IntStream.range(0, pieces).parallel().forEach(piece);
        } else {
            for (int i = 0; i < pieces; i++) {
                piece.accept(i);
            }
        }
        return bytes;
    }

    private void movePiece(Object array, boolean in, int from, int n, int width) {
        ByteBuffer b = view((long) from * width, (long) n * width);
        if (array instanceof double[] a) {
            if (in) b.asDoubleBuffer().put(a, from, n); else b.asDoubleBuffer().get(a, from, n);
        } else if (array instanceof float[] a) {
            if (in) b.asFloatBuffer().put(a, from, n); else b.asFloatBuffer().get(a, from, n);
        } else if (array instanceof long[] a) {
            if (in) b.asLongBuffer().put(a, from, n); else b.asLongBuffer().get(a, from, n);
        } else if (array instanceof int[] a) {
            if (in) b.asIntBuffer().put(a, from, n); else b.asIntBuffer().get(a, from, n);
        } else if (array instanceof short[] a) {
            if (in) b.asShortBuffer().put(a, from, n); else b.asShortBuffer().get(a, from, n);
        } else if (array instanceof char[] a) {
            if (in) b.asCharBuffer().put(a, from, n); else b.asCharBuffer().get(a, from, n);
        } else if (array instanceof boolean[] a) {
            moveBooleans(b, a, from, n, in);
        } else {
            byte[] a = (byte[]) array;
            if (in) b.put(a, from, n); else b.get(a, from, n);
        }
    }

    /**
     * Elements {@code from .. from + n} of {@code a} into the first {@code n} bytes of {@code b} (true is 1, false 0),
     * or back out of them ({@code in} false: a byte not 0 is true).
     */
    static void moveBooleans(ByteBuffer b, boolean[] a, int from, int n, boolean in) {
        for (int i = 0; i < n; i++) {
            if (in) {
                b.put(i, a[from + i] ? (byte) 1 : 0);
            } else {
                a[from + i] = b.get(i) != 0;
            }
        }
    }

    private ByteBuffer view(long offset, long bytes) {
        ensureOpen();
        ByteBuffer b = pointer.getByteBuffer(offset, bytes);
        if (b == null) {
            throw new IllegalStateException("JCuda gives no view of the " + capacity + " pinned bytes");
        }
        return b.order(ByteOrder.nativeOrder());
    }

    /** Bytes per element of a primitive array on the device (a boolean is one byte). */
    static int width(Object array) {
        if (array instanceof double[] || array instanceof long[]) {
            return 8;
        }
        if (array instanceof float[] || array instanceof int[]) {
            return 4;
        }
        if (array instanceof short[] || array instanceof char[]) {
            return 2;
        }
        if (array instanceof byte[] || array instanceof boolean[]) {
            return 1;
        }
        throw new IllegalArgumentException("pinned staging takes one-dimensional primitive arrays, not "
                + (array == null ? "null" : array.getClass().getTypeName()));
    }

    @Override
    protected String closedMessage() {
        return "pinned buffer of " + capacity + " bytes is freed";
    }

    /** Frees the memory ({@code cuMemFreeHost}), once. */
    @Override
    protected void release() {
        Driver.check(JCudaDriver.cuMemFreeHost(pointer), "cuMemFreeHost", "freeing " + capacity + " pinned bytes");
    }
}
