package org.acc4j.runtime.cuda;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * Owns one block of device global memory ({@code cuMemAlloc}).
 *
 * <p>Copies move whole primitive arrays whose size in bytes equals {@link #bytes()}: int[],
 * long[], float[], double[], byte[], short[] and char[] directly (what JCuda's {@code Pointer.to}
 * takes), and boolean[] as one byte per element, 0 or 1, staged through a byte[] of at most
 * {@link #BOOLEAN_PIECE} bytes (JCuda has no pointer to a boolean[], and the JVM's layout of one
 * is its own). A zero-byte buffer allocates nothing: its {@link #address()} is 0 and copies and
 * {@link #zero()} do nothing, so empty arrays flow through like any other (kernels receive a
 * null pointer they never dereference).
 *
 * <p>The device address is read from the {@code CUdeviceptr} that {@code cuMemAlloc} filled in,
 * through a private subclass that may call JCuda's protected {@code getNativePointer()}.
 *
 * <p>Invariant: the memory is freed exactly once, by the first {@link #close()}; any other call
 * after that throws {@link IllegalStateException}. All calls need the owning {@link Context}
 * current on the calling thread. Thread-safe, though concurrent copies into one buffer race
 * like any shared memory.
 */
public final class DeviceBuffer extends Handle {

    /** A {@code CUdeviceptr} whose native address can be read. */
    private static final class AddressablePointer extends CUdeviceptr {
        AddressablePointer() {
        }

        AddressablePointer(CUdeviceptr p) {
            super(p);
        }

        long address() {
            // getNativePointer/getByteOffset are protected in JCuda; a subclass may call them
            return getNativePointer() + getByteOffset();
        }
    }

    /** The address a {@code CUdeviceptr} holds, as a number. */
    static long addressOf(CUdeviceptr p) {
        return new AddressablePointer(p).address();
    }

    /** The largest byte[] a boolean[] copy is staged through at a time. */
    static final int BOOLEAN_PIECE = 1 << 20;

    private final AddressablePointer pointer;
    private final long bytes;
    private final String what;

    private DeviceBuffer(AddressablePointer pointer, long bytes, String what) {
        this.pointer = pointer;
        this.bytes = bytes;
        this.what = what;
    }

    /**
     * Allocates {@code bytes} of device memory; the contents are undefined.
     *
     * @param bytes size in bytes, 0 or more
     * @param what  what the memory is for, for messages, e.g. {@code double[1048576]}
     * @throws DriverException e.g. {@code CUDA_ERROR_OUT_OF_MEMORY}
     */
    public static DeviceBuffer allocate(long bytes, String what) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative size " + bytes + " for " + what);
        }
        AddressablePointer pointer = new AddressablePointer();
        if (bytes > 0) {
            Driver.check(JCudaDriver.cuMemAlloc(pointer, bytes), "cuMemAlloc",
                    "allocating " + bytes + " bytes for " + what);
        }
        return new DeviceBuffer(pointer, bytes, what);
    }

    /** The device address, 0 for a zero-byte buffer. */
    public long address() {
        ensureOpen();
        return pointer.address();
    }

    /** Size in bytes. */
    public long bytes() {
        return bytes;
    }

    /** What this buffer holds, as given to {@link #allocate}. */
    public String what() {
        return what;
    }

    /** Copies a whole host array to the device ({@code cuMemcpyHtoD}); blocks until done. */
    public void copyFromHost(Object hostArray) {
        if (hostArray instanceof boolean[] z) {
            copyBooleans(z, true);
            return;
        }
        Pointer host = hostPointer(hostArray);
        ensureOpen();
        if (bytes > 0) {
            Driver.check(JCudaDriver.cuMemcpyHtoD(pointer, host, bytes), "cuMemcpyHtoD",
                    "copying " + bytes + " bytes to the device for " + what);
        }
    }

    /** Copies the device memory into a whole host array ({@code cuMemcpyDtoH}); blocks until done. */
    public void copyToHost(Object hostArray) {
        if (hostArray instanceof boolean[] z) {
            copyBooleans(z, false);
            return;
        }
        Pointer host = hostPointer(hostArray);
        ensureOpen();
        if (bytes > 0) {
            Driver.check(JCudaDriver.cuMemcpyDtoH(host, pointer, bytes), "cuMemcpyDtoH",
                    "copying " + bytes + " bytes to the host for " + what);
        }
    }

    /**
     * Copies a whole host array (not a boolean[]) to the device at byte {@code offset} ({@code cuMemcpyHtoD}); blocks
     * until done.
     */
    public void copyFromHost(long offset, Object hostArray) {
        long n = sliceBytes(offset, hostArray);
        Pointer host = hostPointer(hostArray, false);
        if (n > 0) {
            Driver.check(JCudaDriver.cuMemcpyHtoD(pointer.withByteOffset(offset), host, n), "cuMemcpyHtoD",
                    "copying " + n + " bytes at byte " + offset + " to the device for " + what);
        }
    }

    /** Copies device bytes from {@code offset} into a whole host array (not a boolean[]); blocks until done. */
    public void copyToHost(long offset, Object hostArray) {
        long n = sliceBytes(offset, hostArray);
        Pointer host = hostPointer(hostArray, false);
        if (n > 0) {
            Driver.check(JCudaDriver.cuMemcpyDtoH(host, pointer.withByteOffset(offset), n), "cuMemcpyDtoH",
                    "copying " + n + " bytes at byte " + offset + " to the host for " + what);
        }
    }

    private long sliceBytes(long offset, Object hostArray) {
        ensureOpen();
        int width = hostArray instanceof double[] || hostArray instanceof long[] ? 8
                : hostArray instanceof int[] || hostArray instanceof float[] ? 4
                : hostArray instanceof short[] || hostArray instanceof char[] ? 2
                : hostArray instanceof byte[] ? 1 : 0;
        long n = width == 0 ? 0 : (long) width * java.lang.reflect.Array.getLength(hostArray);
        if (width == 0 || offset < 0 || offset + n > bytes) {
            throw new IllegalArgumentException("cannot copy " + (hostArray == null ? "null"
                    : hostArray.getClass().getTypeName()) + " of " + n + " bytes at byte " + offset + " of the "
                    + bytes + "-byte device buffer for " + what);
        }
        return n;
    }

    /**
     * Copies a boolean[] to or from the device as bytes (true is 1, false 0), piece by piece through one byte[];
     * a byte read back is true when it is not 0.
     */
    private void copyBooleans(boolean[] z, boolean toDevice) {
        requireSize(z.length, "boolean[" + z.length + "]");
        ensureOpen();
        byte[] piece = new byte[Math.min(z.length, BOOLEAN_PIECE)];
        for (int from = 0; from < z.length; from += piece.length) {
            int n = Math.min(piece.length, z.length - from);
            CUdeviceptr at = pointer.withByteOffset(from);
            if (toDevice) {
                for (int i = 0; i < n; i++) {
                    piece[i] = z[from + i] ? (byte) 1 : 0;
                }
                Driver.check(JCudaDriver.cuMemcpyHtoD(at, Pointer.to(piece), n), "cuMemcpyHtoD",
                        "copying " + n + " bytes of a boolean[] to the device for " + what);
            } else {
                Driver.check(JCudaDriver.cuMemcpyDtoH(Pointer.to(piece), at, n), "cuMemcpyDtoH",
                        "copying " + n + " bytes of a boolean[] to the host for " + what);
                for (int i = 0; i < n; i++) {
                    z[from + i] = piece[i] != 0;
                }
            }
        }
    }

    /** Copies {@code count} longs from byte {@code offset} of the device memory into {@code into}; blocks until done. */
    public void copyToHost(long offset, long[] into, int count) {
        ensureOpen();
        long n = 8L * count;
        if (offset < 0 || offset + n > bytes || count > into.length) {
            throw new IllegalArgumentException(count + " longs at " + offset + " from " + bytes + " bytes of " + what);
        }
        if (n > 0) {
            Driver.check(JCudaDriver.cuMemcpyDtoH(Pointer.to(into), pointer.withByteOffset(offset), n), "cuMemcpyDtoH",
                    "copying " + n + " bytes to the host for " + what);
        }
    }

    /**
     * Queues a copy of the first {@link #bytes()} of {@code from} to the device on {@code stream}
     * ({@code cuMemcpyHtoDAsync}); returns at once. {@code from} must not change until the stream has done it.
     */
    public void copyFromPinnedAsync(PinnedBuffer from, Stream stream) {
        ensureOpen();
        requireCapacity(from);
        if (bytes > 0) {
            Driver.check(JCudaDriver.cuMemcpyHtoDAsync(pointer, from.pointer(), bytes, stream.handle()),
                    "cuMemcpyHtoDAsync", "queueing a copy of " + bytes + " bytes to the device for " + what + " on "
                            + stream.what());
        }
    }

    /**
     * Queues a copy of the device memory into the first {@link #bytes()} of {@code into} on {@code stream}
     * ({@code cuMemcpyDtoHAsync}); returns at once: {@code into} holds the data once the stream has done it.
     */
    public void copyToPinnedAsync(PinnedBuffer into, Stream stream) {
        ensureOpen();
        requireCapacity(into);
        if (bytes > 0) {
            Driver.check(JCudaDriver.cuMemcpyDtoHAsync(into.pointer(), pointer, bytes, stream.handle()),
                    "cuMemcpyDtoHAsync", "queueing a copy of " + bytes + " bytes to the host for " + what + " on "
                            + stream.what());
        }
    }

    /**
     * Queues a copy of the first {@code count} bytes of {@code from} to byte {@code offset} of the device memory on
     * {@code stream} ({@code cuMemcpyHtoDAsync}); returns at once. {@code from} must not change until the stream has
     * done it.
     */
    public void copyFromPinnedAsync(long offset, PinnedBuffer from, long count, Stream stream) {
        ensureOpen();
        requireRange(offset, count, from);
        if (count > 0) {
            int r = JCudaDriver.cuMemcpyHtoDAsync(pointer.withByteOffset(offset), from.pointer(), count,
                    stream.handle());
            // the message only on failure: staged copies queue many of these
            if (r != jcuda.driver.CUresult.CUDA_SUCCESS) {
                Driver.check(r, "cuMemcpyHtoDAsync", "queueing a copy of " + count + " bytes to byte " + offset
                        + " of the device buffer for " + what + " on " + stream.what());
            }
        }
    }

    /**
     * Queues a copy of {@code count} bytes from byte {@code offset} of the device memory into the start of {@code
     * into} on {@code stream} ({@code cuMemcpyDtoHAsync}); returns at once: {@code into} holds the data once the
     * stream has done it.
     */
    public void copyToPinnedAsync(long offset, PinnedBuffer into, long count, Stream stream) {
        ensureOpen();
        requireRange(offset, count, into);
        if (count > 0) {
            int r = JCudaDriver.cuMemcpyDtoHAsync(into.pointer(), pointer.withByteOffset(offset), count,
                    stream.handle());
            if (r != jcuda.driver.CUresult.CUDA_SUCCESS) {
                Driver.check(r, "cuMemcpyDtoHAsync", "queueing a copy of " + count + " bytes from byte " + offset
                        + " of the device buffer for " + what + " on " + stream.what());
            }
        }
    }

    private void requireRange(long offset, long count, PinnedBuffer pinned) {
        if (offset < 0 || count < 0 || offset > bytes - count || count > pinned.capacity()) {
            throw new IllegalArgumentException(count + " bytes at byte " + offset + " do not fit the " + bytes
                    + "-byte device buffer for " + what + " and the " + pinned.capacity() + " pinned bytes");
        }
    }

    /** Queues setting every byte to 0 on {@code stream} ({@code cuMemsetD8Async}); returns at once. */
    public void zeroAsync(Stream stream) {
        ensureOpen();
        if (bytes > 0) {
            Driver.check(JCudaDriver.cuMemsetD8Async(pointer, (byte) 0, bytes, stream.handle()), "cuMemsetD8Async",
                    "queueing a zero-fill of " + bytes + " bytes for " + what + " on " + stream.what());
        }
    }

    private void requireCapacity(PinnedBuffer pinned) {
        if (pinned.capacity() < bytes) {
            throw new IllegalArgumentException(pinned.capacity() + " pinned bytes cannot stage the " + bytes
                    + "-byte device buffer for " + what);
        }
    }

    /**
     * Queues setting {@code count} bytes from byte {@code offset} to 0 ({@code cuMemsetD8Async}), on {@code stream},
     * or on the default stream when it is null; returns at once.
     */
    public void zeroAsync(long offset, long count, Stream stream) {
        ensureOpen();
        if (offset < 0 || count < 0 || offset > bytes - count) {
            throw new IllegalArgumentException(count + " bytes at byte " + offset + " do not fit the " + bytes
                    + "-byte device buffer for " + what);
        }
        if (count > 0) {
            Driver.check(JCudaDriver.cuMemsetD8Async(pointer.withByteOffset(offset), (byte) 0, count,
                    stream == null ? null : stream.handle()), "cuMemsetD8Async", "queueing a zero-fill of " + count
                    + " bytes at byte " + offset + " of " + what);
        }
    }

    /** Sets every byte to 0 ({@code cuMemsetD8}). */
    public void zero() {
        ensureOpen();
        if (bytes > 0) {
            Driver.check(JCudaDriver.cuMemsetD8(pointer, (byte) 0, bytes), "cuMemsetD8",
                    "zero-filling " + bytes + " bytes for " + what);
        }
    }

    /** Frees the memory ({@code cuMemFree}), once. */
    @Override
    protected void release() {
        if (bytes > 0) {
            Driver.check(JCudaDriver.cuMemFree(pointer), "cuMemFree", "freeing " + bytes + " bytes of " + what);
        }
    }

    @Override
    protected String closedMessage() {
        return "device buffer for " + what + " is closed";
    }

    /** A JCuda pointer to the array, after checking its type and that its size matches. */
    private Pointer hostPointer(Object array) {
        return hostPointer(array, true);
    }

    private Pointer hostPointer(Object array, boolean whole) {
        Pointer host;
        long hostBytes;
        if (array instanceof int[] a) {
            host = Pointer.to(a);
            hostBytes = 4L * a.length;
        } else if (array instanceof long[] a) {
            host = Pointer.to(a);
            hostBytes = 8L * a.length;
        } else if (array instanceof float[] a) {
            host = Pointer.to(a);
            hostBytes = 4L * a.length;
        } else if (array instanceof double[] a) {
            host = Pointer.to(a);
            hostBytes = 8L * a.length;
        } else if (array instanceof byte[] a) {
            host = Pointer.to(a);
            hostBytes = a.length;
        } else if (array instanceof short[] a) {
            host = Pointer.to(a);
            hostBytes = 2L * a.length;
        } else if (array instanceof char[] a) {
            host = Pointer.to(a);
            hostBytes = 2L * a.length;
        } else {
            throw new IllegalArgumentException("expected a one-dimensional primitive array for " + what
                    + " but got " + (array == null ? "null" : array.getClass().getTypeName()));
        }
        if (whole) {
            requireSize(hostBytes, array.getClass().getComponentType() + "["
                    + java.lang.reflect.Array.getLength(array) + "]");
        }
        return host;
    }

    private void requireSize(long hostBytes, String host) {
        if (hostBytes != bytes) {
            throw new IllegalArgumentException("host array " + host + " of " + hostBytes + " bytes does not match the "
                    + bytes + "-byte device buffer for " + what);
        }
    }

    @Override
    public String toString() {
        return "DeviceBuffer[" + bytes + " bytes for " + what + (isClosed() ? ", closed" : "") + "]";
    }
}
