package org.acc4j.runtime.data;

/**
 * Told of each copy a {@link PresentTable} makes, on the thread that made it, after it finished (the time
 * profile attributes copies to the region running on that thread). Called under the table's lock: implementations
 * must be quick and must not call back into the table.
 */
@FunctionalInterface
public interface TransferListener {
    /**
     * @param toDevice true for host to device, false for device to host
     * @param bytes    bytes copied
     * @param nanos    host wall time of the copy
     */
    void transferred(boolean toDevice, long bytes, long nanos);
}
