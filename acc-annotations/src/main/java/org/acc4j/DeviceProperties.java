package org.acc4j;

/**
 * What {@link Acc#deviceProperties()} says of a device (OpenACC's {@code acc_get_property}).
 *
 * @param number          the device number ({@link Acc#getDeviceNumber()}), 0 for the host
 * @param name            the device's name, such as {@code NVIDIA H100 80GB HBM3}, or {@code host}
 * @param memory          its memory in bytes (for the host: the most the JVM's heap may grow to)
 * @param freeMemory      free bytes now; -1 where it cannot be read without using the device (a GPU other than the
 *                        current one)
 * @param computeMajor    the compute capability's major number (9 for an H100); 0 for the host
 * @param computeMinor    the compute capability's minor number; 0 for the host
 * @param multiprocessors streaming multiprocessors (for the host: the cores the JVM may use)
 */
public record DeviceProperties(int number, String name, long memory, long freeMemory, int computeMajor,
                               int computeMinor, int multiprocessors) {

    /** The host as a device: OpenACC's host device, where every region runs as plain Java. */
    public static DeviceProperties host() {
        Runtime rt = Runtime.getRuntime();
        long free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
        return new DeviceProperties(0, "host", rt.maxMemory(), free, 0, 0, rt.availableProcessors());
    }

    /** The compute capability as {@code sm_90} (empty for the host). */
    public String smTarget() {
        return computeMajor == 0 ? "" : "sm_" + computeMajor + computeMinor;
    }
}
