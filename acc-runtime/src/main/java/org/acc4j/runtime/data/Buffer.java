package org.acc4j.runtime.data;

/**
 * Device memory handed out by {@link DeviceMemory}: sized for one host array ({@link DeviceMemory#allocate}),
 * or raw bytes such as a row table ({@link DeviceMemory#allocateRaw}).
 *
 * <p>Transfers always move the whole buffer; the array passed to {@link #upload} and {@link #download} must
 * have the type and length of the one the buffer was allocated for, and a raw buffer takes no host array
 * there. {@link #writeLongs} fills any buffer with raw 64-bit words. After {@link #close()} (idempotent) every
 * other call but {@link #bytes()} throws {@link IllegalStateException}.
 */
public interface Buffer extends AutoCloseable {

    /** Size in bytes. */
    long bytes();

    /** The device address of the first byte, as a kernel sees it; 0 for an empty buffer. */
    long address();

    /** Copies the host array to the device. */
    void upload(Object hostArray);

    /** Copies the device data into the host array. */
    void download(Object hostArray);

    /**
     * Replaces the whole contents with {@code values}, each stored little-endian as the device reads a
     * {@code u64}.
     *
     * @throws IllegalArgumentException when {@code values.length * 8} is not {@link #bytes()}
     */
    void writeLongs(long[] values);

    /** Sets the device data to all zero bytes. */
    void zero();

    /** Frees the device memory; later calls do nothing. */
    @Override
    void close();

    /**
     * Forgets the device memory without freeing it, because the context that held it was destroyed (after a
     * sticky fault): freeing would fail. Afterwards the buffer counts as closed; later calls do nothing.
     */
    void abandon();
}
