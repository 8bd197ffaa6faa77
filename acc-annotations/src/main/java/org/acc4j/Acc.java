package org.acc4j;

import java.util.Objects;
import org.acc4j.spi.Backend;

/**
 * OpenACC's runtime routines in Java form.
 *
 * <p>Without {@code -javaagent:acc.jar} every routine has the semantics of OpenACC's host device: data is in
 * shared memory, so it is always present and transfers do nothing. A program compiled against these
 * routines therefore runs unchanged as plain Java. With the agent the same calls reach the GPU runtime.
 *
 * <p>Every routine that takes an array accepts a one-dimensional primitive array; a {@code null} throws
 * {@link NullPointerException} and anything else {@link IllegalArgumentException}, with or without a
 * device.
 */
public final class Acc {
    private static volatile Backend backend = new HostBackend();

    private Acc() {
    }

    /** Initialises the runtime (device discovery and context); optional, the first offload does it too. */
    public static void init() {
        backend.init();
    }

    /** Frees every device buffer and releases the device; later calls start the runtime again. */
    public static void shutdown() {
        backend.shutdown();
    }

    /** The number of GPUs the runtime can use: 0 without the agent or without a device. */
    public static int deviceCount() {
        return backend.deviceCount();
    }

    /** Whether offloaded regions run on a GPU (false on the host path). */
    public static boolean onDevice() {
        return backend.onDevice();
    }

    /** The backend's name for messages: "host" or the GPU's name. */
    public static String deviceName() {
        return backend.name();
    }

    /** Enter data: copies each array to the device unless present; raises its dynamic reference count. */
    public static void copyin(Object... arrays) {
        for (Object a : arrays) {
            backend.copyin(checkArray(a));
        }
    }

    /** Enter data: allocates each array on the device unless present; raises its dynamic reference count. */
    public static void create(Object... arrays) {
        for (Object a : arrays) {
            backend.create(checkArray(a));
        }
    }

    /** Exit data: lowers the dynamic count; at zero (and no structured reference) copies back and frees. */
    public static void copyout(Object... arrays) {
        for (Object a : arrays) {
            backend.copyout(checkArray(a));
        }
    }

    /** Exit data: lowers the dynamic count; at zero (and no structured reference) frees without copying. */
    public static void delete(Object... arrays) {
        for (Object a : arrays) {
            backend.delete(checkArray(a));
        }
    }

    /** Copies each present array from the host to the device; an error if it is not present. */
    public static void updateDevice(Object... arrays) {
        for (Object a : arrays) {
            backend.updateDevice(checkArray(a));
        }
    }

    /** Copies each present array from the device to the host; an error if it is not present. */
    public static void updateHost(Object... arrays) {
        for (Object a : arrays) {
            backend.updateHost(checkArray(a));
        }
    }

    /** Whether the array has a device copy (always true on the host device, where memory is shared). */
    public static boolean isPresent(Object array) {
        return backend.isPresent(checkArray(array));
    }

    /** Waits for all queued device work. */
    public static void waitAll() {
        backend.waitAll();
    }

    /**
     * The time profile so far (regions, kernels, transfers, compile times; see the README's Profile note), as text
     * in the style of PGI's {@code -Minfo=time}. It prints nothing: print or log the text yourself. With profiling
     * off ({@code -Dacc4j.profile=true} or {@code ACC4J_PROFILE=1} turns it on), or without the agent, the text is
     * one line saying there is no profile, and why.
     */
    public static String report() {
        return backend.report();
    }

    /**
     * Installs the runtime behind these routines. Called by the agent at start-up; not for applications.
     *
     * @return the backend that was installed before
     */
    public static Backend install(Backend runtime) {
        Backend old = backend;
        backend = Objects.requireNonNull(runtime, "runtime");
        return old;
    }

    static Object checkArray(Object a) {
        Objects.requireNonNull(a, "array");
        Class<?> c = a.getClass();
        boolean rank1 = c.isArray() && c.getComponentType().isPrimitive();
        boolean rank2 = c.isArray() && c.getComponentType().isArray() && c.getComponentType().getComponentType().isPrimitive();
        if (!rank1 && !rank2) {
            throw new IllegalArgumentException("acc4j: expected a primitive array of one or two dimensions, got "
                    + c.getTypeName());
        }
        return a;
    }

    /** OpenACC's host device: shared memory, so every routine is trivially satisfied. */
    private static final class HostBackend implements Backend {
        @Override public String name() { return "host"; }
        @Override public void init() { }
        @Override public void shutdown() { }
        @Override public int deviceCount() { return 0; }
        @Override public boolean onDevice() { return false; }
        @Override public void copyin(Object array) { }
        @Override public void create(Object array) { }
        @Override public void copyout(Object array) { }
        @Override public void delete(Object array) { }
        @Override public void updateDevice(Object array) { }
        @Override public void updateHost(Object array) { }
        @Override public boolean isPresent(Object array) { return true; }
        @Override public void waitAll() { }
        @Override public String report() {
            return "acc4j: no profile is available: running without the acc4j agent, every region runs as plain Java\n";
        }
    }
}
