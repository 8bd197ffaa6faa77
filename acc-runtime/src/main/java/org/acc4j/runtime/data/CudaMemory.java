package org.acc4j.runtime.data;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.driver.CUresult;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.Pending;
import org.acc4j.runtime.transfer.CudaLane;
import org.acc4j.runtime.transfer.StagedCopy;

/**
 * {@link DeviceMemory} on a CUDA device, one {@link DeviceBuffer} per host array or raw buffer.
 *
 * <p>Every call (allocation, transfers, close) needs the CUDA context current on the calling
 * thread; the runtime makes it current on entry. Arrays of every primitive type are taken; a
 * boolean[] is one byte per element on the device, 0 or 1. The launcher reaches the device address of a buffer
 * through {@link #deviceBuffer(Buffer)}. Array copies of 8 MiB or more (rows of 1 MiB or more) go through a
 * {@link StagedCopy} (pinned staging, pipelined), the others and those it declines straight from the Java array;
 * the staging memory is freed by {@link #close()}. A few buffers closed lately are kept for reuse at the same
 * size (see {@link #spareBytes()}), also freed by {@link #close()}. Thread-safe.
 */
public final class CudaMemory implements DeviceMemory {

    /** A {@link Buffer} backed by a {@link DeviceBuffer}; a raw one has no array type and takes no host array. */
    public static final class CudaBuffer implements Buffer {

        private final DeviceBuffer buffer;
        private final Class<?> arrayType;
        private final int length;
        private final AtomicLong inUse;
        private final StagedCopy<DeviceBuffer> staging;
        /** The memory that may keep its device memory for reuse once it is closed. */
        private final CudaMemory spareTo;
        /** The memory it came from, whose deferred kernels a copy or a free waits for first. */
        private final CudaMemory memory;
        private final AtomicBoolean closed = new AtomicBoolean();

        private CudaBuffer(DeviceBuffer buffer, Class<?> arrayType, int length, AtomicLong inUse,
                           StagedCopy<DeviceBuffer> staging, CudaMemory spareTo, CudaMemory memory) {
            this.memory = memory;
            this.buffer = buffer;
            this.arrayType = arrayType;
            this.length = length;
            this.inUse = inUse;
            this.staging = staging;
            this.spareTo = spareTo;
        }

        /** The CUDA buffer, e.g. for {@code KernelArgs.addPointer}. */
        public DeviceBuffer deviceBuffer() {
            return buffer;
        }

        @Override
        public long bytes() {
            return buffer.bytes();
        }

        @Override
        public long address() {
            return buffer.address();
        }

        @Override
        public void writeLongs(long[] values) {
            memory.settle(this, "a write of");
            // DeviceBuffer checks that the words fill the buffer exactly
            buffer.copyFromHost(values);
        }

        @Override
        public void upload(Object hostArray) {
            memory.settle(this, "a copy to the device of");
            Object array = match(hostArray);
            if (!staging.toDevice(array, buffer)) {
                buffer.copyFromHost(array);
            }
        }

        @Override
        public void download(Object hostArray) {
            memory.settle(this, "a copy to the host of");
            Object array = match(hostArray);
            if (!staging.toHost(buffer, array)) {
                buffer.copyToHost(array);
            }
        }

        @Override
        public void zero() {
            memory.settle(this, "zeroing");
            buffer.zero();
        }

        @Override
        public void uploadAt(long offset, Object hostArray) {
            memory.settle(this, "a copy to the device of");
            buffer.copyFromHost(offset, hostArray);
        }

        @Override
        public void downloadAt(long offset, Object hostArray) {
            memory.settle(this, "a copy to the host of");
            buffer.copyToHost(offset, hostArray);
        }

        @Override
        public void uploadRows(Object[] rows) {
            memory.settle(this, "a copy to the device of");
            if (!staging.rowsToDevice(rows, buffer)) {
                Buffer.super.uploadRows(rows);
            }
        }

        @Override
        public void downloadRows(Object[] rows) {
            memory.settle(this, "a copy to the host of");
            if (!staging.rowsToHost(buffer, rows)) {
                Buffer.super.downloadRows(rows);
            }
        }

        @Override
        public void downloadWindow(Object[] rows, int firstRow, int endRow, int firstColumn, int endColumn) {
            memory.settle(this, "a copy to the host of");
            if (firstRow >= endRow || firstColumn >= endColumn
                    || staging.rowsToHost(buffer, rows, firstRow, endRow, firstColumn, endColumn)) {
                return;
            }
            // the rows' range in one copy through a flat array, then the window into the rows
            int length = HostArrays.length(rows[0]);
            Object flat = java.lang.reflect.Array.newInstance(rows[0].getClass().getComponentType(),
                    Math.multiplyExact(endRow - firstRow, length));
            buffer.copyToHost(firstRow * HostArrays.byteSize(rows[0]), flat);
            for (int i = firstRow; i < endRow; i++) {
                System.arraycopy(flat, (i - firstRow) * length + firstColumn, rows[i], firstColumn,
                        endColumn - firstColumn);
            }
        }

        @Override
        public void close() {
            if (!closed.get()) {
                // its memory may be freed or handed to the next allocation: kernels still using it end first
                memory.settle(this, "freeing");
            }
            if (closed.compareAndSet(false, true)) {
                // count the bytes as released even when cuMemFree reports an error
                inUse.addAndGet(-buffer.bytes());
                if (spareTo == null || !spareTo.keep(buffer)) {
                    buffer.close();
                }
            }
        }

        @Override
        public void abandon() {
            if (closed.compareAndSet(false, true)) {
                inUse.addAndGet(-buffer.bytes());
                buffer.abandon();
            }
        }

        private Object match(Object hostArray) {
            if (hostArray == null || arrayType == null || hostArray.getClass() != arrayType
                    || java.lang.reflect.Array.getLength(hostArray) != length) {
                throw new IllegalArgumentException("buffer for " + buffer.what() + " cannot transfer "
                        + (hostArray == null ? "null" : HostArrays.describe(hostArray)));
            }
            return hostArray;
        }

        @Override
        public String toString() {
            return "CudaBuffer[" + buffer + "]";
        }
    }

    private final AtomicLong inUse = new AtomicLong();
    private final StagedCopy<DeviceBuffer> staging;
    /** Kernels queued that the host has not waited for (null: every launch is waited for). */
    private volatile Pending pending;

    /** Memory whose array copies are staged with {@link StagedCopy.Settings#DEFAULT}. */
    public CudaMemory() {
        this(StagedCopy.Settings.DEFAULT);
    }

    /** Memory whose array copies are staged with {@code staging}. */
    public CudaMemory(StagedCopy.Settings staging) {
        this.staging = new StagedCopy<>(staging, CudaLane::open, CudaLane::openWriteCombined);
    }

    /**
     * From now on every copy into or out of a buffer of this memory, and every free (or return to the spare buffers),
     * first waits for the kernels {@code p} holds: the one place where device data is read, written or reused.
     */
    public void settleWith(Pending p) {
        this.pending = p;
    }

    /** Waits for the pending kernels before {@code what} is done to {@code b}. */
    private void settle(CudaBuffer b, String what) {
        Pending p = pending;
        if (p != null && p.any()) {
            p.settle(what + " " + b.buffer.what());
        }
    }

    /** The staged copies of this memory's buffers. */
    public StagedCopy<DeviceBuffer> staging() {
        return staging;
    }

    /** Frees the pinned staging memory; needs the context current. Buffers stay usable (staging opens again). */
    @Override
    public void close() {
        try {
            freeSpare();
        } finally {
            staging.close();
        }
    }

    /** Forgets the pinned staging memory: its context was destroyed. */
    @Override
    public void abandon() {
        synchronized (this) {
            for (DeviceBuffer b : spare) {
                b.abandon();
            }
            spare.clear();
            spareBytes = 0;
        }
        staging.abandon();
    }

    @Override
    public CudaBuffer allocate(Object hostArray) {
        HostArrays.require(hostArray);
        long bytes = HostArrays.byteSize(hostArray);
        // a staged upload usually follows: its staging threads wake meanwhile
        staging.expect(bytes);
        DeviceBuffer buffer = spareOrNew(bytes, HostArrays.describe(hostArray));
        inUse.addAndGet(bytes);
        return new CudaBuffer(buffer, hostArray.getClass(), HostArrays.length(hostArray), inUse, staging,
                bytes <= SPARE_ARRAY_MAX_BYTES ? this : null, this);
    }

    @Override
    public CudaBuffer allocateRaw(long bytes, String what) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative size " + bytes + " for " + what);
        }
        staging.expect(bytes);
        DeviceBuffer buffer = spareOrNew(bytes, what);
        inUse.addAndGet(bytes);
        return new CudaBuffer(buffer, null, -1, inUse, staging, this, this);
    }

    /** A spare buffer of {@code bytes}, else a new one; when the device is full, the spare buffers are freed first. */
    private DeviceBuffer spareOrNew(long bytes, String what) {
        DeviceBuffer buffer = reuse(bytes);
        if (buffer != null) {
            return buffer;
        }
        try {
            return allocateBuffer(bytes, what);
        } catch (OutOfDeviceMemoryException e) {
            // the spare buffers may be what is missing
            if (!freeSpare()) {
                throw e;
            }
            return allocateBuffer(bytes, what);
        }
    }

    /** Buffers smaller than this are freed, not kept. */
    static final long SPARE_MIN_BYTES = 4 << 10;
    /**
     * An array's buffer larger than this is freed, not kept: its allocation is small against its copy, and memory
     * that a call could not fit is given back at once.
     */
    static final long SPARE_ARRAY_MAX_BYTES = 64L << 20;
    /** At most this many buffers are kept, {@link #SPARE_MAX_BYTES} in all. */
    static final int SPARE_BUFFERS = 8;
    static final long SPARE_MAX_BYTES = 256L << 20;

    /**
     * Buffers closed lately, kept for the next allocation of the same size, raw or of an array up to {@link
     * #SPARE_ARRAY_MAX_BYTES}: an array's buffer (a two-dimensional array's block and table) is allocated and freed at
     * every call that takes the array to the device, {@code cuMemAlloc} costs about as much as copying a small array
     * and {@code cuMemFree} waits for the device. Freed by {@link #close()}, and before an allocation that does not
     * fit otherwise.
     */
    private final java.util.List<DeviceBuffer> spare = new java.util.ArrayList<>();
    private long spareBytes;

    private synchronized boolean keep(DeviceBuffer buffer) {
        long bytes = buffer.bytes();
        if (bytes < SPARE_MIN_BYTES || spare.size() >= SPARE_BUFFERS || spareBytes + bytes > SPARE_MAX_BYTES
                || buffer.isClosed()) {
            return false;
        }
        spare.add(buffer);
        spareBytes += bytes;
        return true;
    }

    /**
     * A spare buffer of {@code bytes}, or null. The device is synchronised first, as {@code cuMemFree} would have
     * been: nothing queued before can still use the memory when it is handed out again.
     */
    private synchronized DeviceBuffer reuse(long bytes) {
        for (int i = spare.size() - 1; i >= 0; i--) {
            if (spare.get(i).bytes() == bytes) {
                org.acc4j.runtime.cuda.Driver.check(jcuda.driver.JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize",
                        "before reusing " + bytes + " bytes of device memory");
                spareBytes -= bytes;
                return spare.remove(i);
            }
        }
        return null;
    }

    /** Frees the spare buffers; whether there were any. */
    private synchronized boolean freeSpare() {
        boolean any = !spare.isEmpty();
        RuntimeException failure = null;
        for (DeviceBuffer b : spare) {
            try {
                b.close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        spare.clear();
        spareBytes = 0;
        if (failure != null) {
            throw failure;
        }
        return any;
    }

    /** Device memory kept for reuse now, in bytes (not counted by {@link #bytesInUse()}). */
    public synchronized long spareBytes() {
        return spareBytes;
    }

    /**
     * {@link DeviceBuffer#allocate}, with {@code CUDA_ERROR_OUT_OF_MEMORY} turned into an {@link
     * OutOfDeviceMemoryException} that names the bytes asked and free.
     */
    public static DeviceBuffer allocateBuffer(long bytes, String what) {
        try {
            return DeviceBuffer.allocate(bytes, what);
        } catch (DriverException e) {
            if (e.result() != CUresult.CUDA_ERROR_OUT_OF_MEMORY) {
                throw e;
            }
            Context.MemInfo info = Context.currentMemInfo();
            throw new OutOfDeviceMemoryException(what, bytes, info == null ? -1 : info.free(),
                    info == null ? -1 : info.total(), e);
        }
    }

    @Override
    public boolean blocks() {
        return true;
    }

    @Override
    public boolean keepsLayouts() {
        return true;
    }

    @Override
    public long bytesInUse() {
        return inUse.get();
    }

    /**
     * The {@link DeviceBuffer} behind a buffer this memory allocated.
     *
     * @throws IllegalArgumentException when {@code buffer} did not come from a {@code CudaMemory}
     */
    public static DeviceBuffer deviceBuffer(Buffer buffer) {
        if (buffer instanceof CudaBuffer cuda) {
            return cuda.deviceBuffer();
        }
        throw new IllegalArgumentException("not a CUDA buffer: " + buffer);
    }
}
