package org.acc4j.runtime.data;

/**
 * A snapshot of the transfers a {@link PresentTable} made since it was created.
 *
 * @param copiesToDevice number of host-to-device copies (uploads)
 * @param bytesToDevice  bytes uploaded
 * @param copiesToHost   number of device-to-host copies (downloads)
 * @param bytesToHost    bytes downloaded
 * @param allocations    buffers allocated
 * @param frees          buffers freed
 */
public record TransferStats(long copiesToDevice, long bytesToDevice, long copiesToHost, long bytesToHost,
                            long allocations, long frees) {

    /** No transfers at all. */
    public static final TransferStats NONE = new TransferStats(0, 0, 0, 0, 0, 0);

    TransferStats upload(long bytes) {
        return new TransferStats(copiesToDevice + 1, bytesToDevice + bytes, copiesToHost, bytesToHost,
                allocations, frees);
    }

    TransferStats download(long bytes) {
        return new TransferStats(copiesToDevice, bytesToDevice, copiesToHost + 1, bytesToHost + bytes,
                allocations, frees);
    }

    TransferStats allocate() {
        return new TransferStats(copiesToDevice, bytesToDevice, copiesToHost, bytesToHost,
                allocations + 1, frees);
    }

    TransferStats free() {
        return new TransferStats(copiesToDevice, bytesToDevice, copiesToHost, bytesToHost,
                allocations, frees + 1);
    }
}
