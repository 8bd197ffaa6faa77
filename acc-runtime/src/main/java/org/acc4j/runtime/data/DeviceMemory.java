package org.acc4j.runtime.data;

/**
 * Where {@link PresentTable} gets device memory from: {@link CudaMemory} on a GPU, a fake in
 * tests. Implementations are thread-safe.
 */
public interface DeviceMemory {

    /**
     * Allocates a buffer sized for {@code hostArray} (contents undefined; nothing is copied).
     *
     * @throws IllegalArgumentException when the array type is not supported
     * @throws OutOfDeviceMemoryException when the device has not enough free memory
     */
    Buffer allocate(Object hostArray);

    /**
     * Allocates {@code bytes} of device memory for data that mirrors no host array, such as the row table of
     * a two-dimensional array (contents undefined). The buffer takes {@link Buffer#writeLongs} and
     * {@link Buffer#zero}, no host array.
     *
     * @param what what the memory is for, for messages, e.g. {@code double[37][41] row table}
     * @throws IllegalArgumentException when {@code bytes} is negative
     * @throws OutOfDeviceMemoryException when the device has not enough free memory
     */
    Buffer allocateRaw(long bytes, String what);

    /**
     * Whether a rectangular two-dimensional array may be laid out as one block: a raw buffer taking {@link
     * Buffer#uploadAt}, {@link Buffer#downloadAt}, {@link Buffer#uploadRows} and {@link Buffer#downloadRows}.
     */
    default boolean blocks() {
        return false;
    }

    /**
     * Whether the present table may keep the block and row table of a rectangular two-dimensional array that left the
     * device, for the array's next entry ({@link KeptLayouts}).
     */
    default boolean keepsLayouts() {
        return false;
    }

    /** Bytes held by buffers not yet closed. */
    long bytesInUse();

    /**
     * Frees what this memory holds besides its buffers, such as pinned staging memory (the table's close); it may be
     * used again afterwards.
     */
    default void close() {
    }

    /**
     * Forgets what this memory holds besides its buffers without touching the device, because the context that held
     * it was destroyed (after a sticky fault).
     */
    default void abandon() {
    }
}
