package org.acc4j.runtime.data;

/**
 * Device memory sized for one host array, as handed out by {@link DeviceMemory#allocate}.
 *
 * <p>Transfers always move the whole array; the array passed must have the type and length of
 * the one the buffer was allocated for. After {@link #close()} (idempotent) every other call
 * throws {@link IllegalStateException}.
 */
public interface Buffer extends AutoCloseable {

    /** Size in bytes. */
    long bytes();

    /** Copies the host array to the device. */
    void upload(Object hostArray);

    /** Copies the device data into the host array. */
    void download(Object hostArray);

    /** Sets the device data to all zero bytes. */
    void zero();

    /** Frees the device memory; later calls do nothing. */
    @Override
    void close();
}
