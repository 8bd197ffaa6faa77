package org.acc4j.runtime.data;

/**
 * A snapshot of the transfers a {@link PresentTable} made since it was created.
 *
 * <p>Times are host wall time around each copy, measured with {@link System#nanoTime()}: copies from and to
 * Java arrays (pageable memory) return only when the data has arrived, so this is the copy's whole cost.
 *
 * @param copiesToDevice number of host-to-device copies (uploads)
 * @param bytesToDevice  bytes uploaded
 * @param copiesToHost   number of device-to-host copies (downloads)
 * @param bytesToHost    bytes downloaded
 * @param allocations    buffers allocated
 * @param frees          buffers freed
 * @param nanosToDevice  time spent uploading, in nanoseconds
 * @param nanosToHost    time spent downloading, in nanoseconds
 */
public record TransferStats(long copiesToDevice, long bytesToDevice, long copiesToHost, long bytesToHost,
                            long allocations, long frees, long nanosToDevice, long nanosToHost) {

    /** No transfers at all. */
    public static final TransferStats NONE = new TransferStats(0, 0, 0, 0, 0, 0);

    /** Counts only, with both times 0 (what tests compare: times vary from run to run). */
    public TransferStats(long copiesToDevice, long bytesToDevice, long copiesToHost, long bytesToHost,
                         long allocations, long frees) {
        this(copiesToDevice, bytesToDevice, copiesToHost, bytesToHost, allocations, frees, 0, 0);
    }

    /** These counts with both times 0. */
    public TransferStats withoutTimes() {
        return new TransferStats(copiesToDevice, bytesToDevice, copiesToHost, bytesToHost, allocations, frees);
    }

    TransferStats upload(long bytes, long nanos) {
        return new TransferStats(copiesToDevice + 1, bytesToDevice + bytes, copiesToHost, bytesToHost,
                allocations, frees, nanosToDevice + nanos, nanosToHost);
    }

    TransferStats download(long bytes, long nanos) {
        return new TransferStats(copiesToDevice, bytesToDevice, copiesToHost + 1, bytesToHost + bytes,
                allocations, frees, nanosToDevice, nanosToHost + nanos);
    }

    TransferStats allocate() {
        return new TransferStats(copiesToDevice, bytesToDevice, copiesToHost, bytesToHost,
                allocations + 1, frees, nanosToDevice, nanosToHost);
    }

    TransferStats free() {
        return new TransferStats(copiesToDevice, bytesToDevice, copiesToHost, bytesToHost,
                allocations, frees + 1, nanosToDevice, nanosToHost);
    }
}
