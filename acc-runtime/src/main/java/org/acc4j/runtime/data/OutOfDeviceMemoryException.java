package org.acc4j.runtime.data;

import java.util.Locale;

/**
 * Device memory ran out: an allocation asked for more than the device had free. Nothing the failing operation
 * allocated before is left behind, and the device stays usable (running out is not a fault).
 *
 * <p>The message names what the memory was for (such as {@code double[16777216]} or the array's name in a
 * {@code @Data} clause), the bytes asked and the bytes free ({@code cuMemGetInfo}) when known.
 */
public final class OutOfDeviceMemoryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String what;
    private final long requested;
    private final long free;
    private final long total;

    /**
     * @param what      what the memory was for, e.g. {@code double[16777216]}
     * @param requested bytes asked for
     * @param free      bytes free on the device, -1 when unknown
     * @param total     bytes on the device, -1 when unknown
     * @param cause     the driver's failure, or null
     */
    public OutOfDeviceMemoryException(String what, long requested, long free, long total, Throwable cause) {
        super(message(what, requested, free, total), cause);
        this.what = what;
        this.requested = requested;
        this.free = free;
        this.total = total;
    }

    /** What the memory was for. */
    public String what() {
        return what;
    }

    /** Bytes asked for. */
    public long requested() {
        return requested;
    }

    /** Bytes free on the device when the allocation failed, -1 when unknown. */
    public long free() {
        return free;
    }

    /** Bytes on the device, -1 when unknown. */
    public long total() {
        return total;
    }

    /** The same failure, naming {@code where} the memory was asked for, e.g. {@code the array b of @Data in K.run}. */
    public OutOfDeviceMemoryException in(String where) {
        OutOfDeviceMemoryException e = new OutOfDeviceMemoryException(what + " (" + where + ")", requested, free,
                total, getCause());
        e.setStackTrace(getStackTrace());
        return e;
    }

    private static String message(String what, long requested, long free, long total) {
        String freeText = free < 0 ? "the free amount is unknown"
                : "only " + size(free) + " are free" + (total < 0 ? "" : " of " + size(total));
        return "acc4j: out of device memory: " + what + " needs " + size(requested) + ", but " + freeText;
    }

    /** Bytes exactly, with a readable size after them. */
    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " bytes";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return bytes + " bytes (" + String.format(Locale.ROOT, "%.1f", v) + " " + units[u] + ")";
    }
}
