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
     */
    Buffer allocate(Object hostArray);

    /** Bytes held by buffers not yet closed. */
    long bytesInUse();
}
