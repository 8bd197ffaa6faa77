package org.acc4j.runtime.data;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.driver.CUresult;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.CudaException;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.transfer.CudaLane;
import org.acc4j.runtime.transfer.StagedCopy;

/**
 * {@link DeviceMemory} on a CUDA device, one {@link DeviceBuffer} per host array or raw buffer.
 *
 * <p>Every call (allocation, transfers, close) needs the CUDA context current on the calling
 * thread; the runtime makes it current on entry. Arrays of every primitive type are taken; a
 * boolean[] is one byte per element on the device, 0 or 1. The launcher reaches the device address of a buffer
 * through {@link #deviceBuffer(Buffer)}. Array copies of a megabyte or more go through a {@link StagedCopy}
 * (pinned staging, pipelined), the others and those it declines straight from the Java array; the staging memory
 * is freed by {@link #close()}. Thread-safe.
 */
public final class CudaMemory implements DeviceMemory {

    /** A {@link Buffer} backed by a {@link DeviceBuffer}; a raw one has no array type and takes no host array. */
    public static final class CudaBuffer implements Buffer {

        private final DeviceBuffer buffer;
        private final Class<?> arrayType;
        private final int length;
        private final AtomicLong inUse;
        private final StagedCopy<DeviceBuffer> staging;
        private final AtomicBoolean closed = new AtomicBoolean();

        private CudaBuffer(DeviceBuffer buffer, Class<?> arrayType, int length, AtomicLong inUse,
                           StagedCopy<DeviceBuffer> staging) {
            this.buffer = buffer;
            this.arrayType = arrayType;
            this.length = length;
            this.inUse = inUse;
            this.staging = staging;
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
            // DeviceBuffer checks that the words fill the buffer exactly
            buffer.copyFromHost(values);
        }

        @Override
        public void upload(Object hostArray) {
            Object array = match(hostArray);
            if (!staging.toDevice(array, buffer)) {
                buffer.copyFromHost(array);
            }
        }

        @Override
        public void download(Object hostArray) {
            Object array = match(hostArray);
            if (!staging.toHost(buffer, array)) {
                buffer.copyToHost(array);
            }
        }

        @Override
        public void zero() {
            buffer.zero();
        }

        @Override
        public void uploadAt(long offset, Object hostArray) {
            buffer.copyFromHost(offset, hostArray);
        }

        @Override
        public void downloadAt(long offset, Object hostArray) {
            buffer.copyToHost(offset, hostArray);
        }

        @Override
        public void uploadRows(Object[] rows) {
            if (!staging.rowsToDevice(rows, buffer)) {
                Buffer.super.uploadRows(rows);
            }
        }

        @Override
        public void downloadRows(Object[] rows) {
            if (!staging.rowsToHost(buffer, rows)) {
                Buffer.super.downloadRows(rows);
            }
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                // count the bytes as released even when cuMemFree reports an error
                inUse.addAndGet(-buffer.bytes());
                buffer.close();
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

    /** Memory whose array copies are staged with {@link StagedCopy.Settings#DEFAULT}. */
    public CudaMemory() {
        this(StagedCopy.Settings.DEFAULT);
    }

    /** Memory whose array copies are staged with {@code staging}. */
    public CudaMemory(StagedCopy.Settings staging) {
        this.staging = new StagedCopy<>(staging, CudaLane::open);
    }

    /** The staged copies of this memory's buffers. */
    public StagedCopy<DeviceBuffer> staging() {
        return staging;
    }

    /** Frees the pinned staging memory; needs the context current. Buffers stay usable (staging opens again). */
    @Override
    public void close() {
        staging.close();
    }

    /** Forgets the pinned staging memory: its context was destroyed. */
    @Override
    public void abandon() {
        staging.abandon();
    }

    @Override
    public CudaBuffer allocate(Object hostArray) {
        HostArrays.require(hostArray);
        long bytes = HostArrays.byteSize(hostArray);
        DeviceBuffer buffer = allocateBuffer(bytes, HostArrays.describe(hostArray));
        inUse.addAndGet(bytes);
        return new CudaBuffer(buffer, hostArray.getClass(), HostArrays.length(hostArray), inUse, staging);
    }

    @Override
    public CudaBuffer allocateRaw(long bytes, String what) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative size " + bytes + " for " + what);
        }
        DeviceBuffer buffer = allocateBuffer(bytes, what);
        inUse.addAndGet(bytes);
        return new CudaBuffer(buffer, null, -1, inUse, staging);
    }

    /**
     * {@link DeviceBuffer#allocate}, with {@code CUDA_ERROR_OUT_OF_MEMORY} turned into an {@link
     * OutOfDeviceMemoryException} that names the bytes asked and free.
     */
    public static DeviceBuffer allocateBuffer(long bytes, String what) {
        try {
            return DeviceBuffer.allocate(bytes, what);
        } catch (CudaException e) {
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
