package org.acc4j.spi;

/**
 * What {@link org.acc4j.Acc} delegates to. Without the agent this is the host backend, whose routines have
 * the semantics of OpenACC's host device (shared memory: data is always present, transfers do nothing).
 * The agent installs the GPU runtime in its place at start-up.
 *
 * <p>This is an internal interface between the annotations jar and the agent; applications call
 * {@link org.acc4j.Acc}.
 */
public interface Backend {
    /** Short name for messages: "host" or the device's name. */
    String name();

    void init();

    void shutdown();

    int deviceCount();

    boolean onDevice();

    void copyin(Object array);

    void create(Object array);

    void copyout(Object array);

    void delete(Object array);

    void updateDevice(Object array);

    void updateHost(Object array);

    boolean isPresent(Object array);

    /** Waits for every queue and all other device work. */
    void waitAll();

    // ---- async queues: the defaults run the work synchronously, which is correct for any backend (the work is
    // complete when the call returns, so waiting has nothing to do). {@code queue} is 0 or more, or Acc.ASYNC_NOVAL.

    /** {@link #copyin(Object)} on {@code queue}; the default does it now. */
    default void copyin(Object array, int queue) {
        copyin(array);
    }

    /** {@link #create(Object)} on {@code queue}; the default does it now. */
    default void create(Object array, int queue) {
        create(array);
    }

    /** {@link #copyout(Object)} on {@code queue}; the default does it now. */
    default void copyout(Object array, int queue) {
        copyout(array);
    }

    /** {@link #delete(Object)} on {@code queue}; the default does it now. */
    default void delete(Object array, int queue) {
        delete(array);
    }

    /** {@link #updateDevice(Object)} on {@code queue}; the default does it now. */
    default void updateDevice(Object array, int queue) {
        updateDevice(array);
    }

    /** {@link #updateHost(Object)} on {@code queue}; the default does it now. */
    default void updateHost(Object array, int queue) {
        updateHost(array);
    }

    /** Waits for the work on {@code queue}; the default waits for everything. */
    default void waitQueue(int queue) {
        waitAll();
    }

    /**
     * Makes the work queued on {@code queue} from now on wait for the work queued so far on each of {@code queues},
     * without a host wait (all checked by {@code Acc}; {@code queue} is not {@code Acc.ASYNC_SYNC}); the default,
     * where every routine is complete when it returns, has nothing to order.
     */
    default void waitAsync(int[] queues, int queue) {
    }

    /** Whether the work on {@code queue} has completed (then joined as by {@link #waitQueue}); the default: true. */
    default boolean asyncTest(int queue) {
        return true;
    }

    /** Whether the work on every queue has completed (then joined); the default: true. */
    default boolean asyncTestAll() {
        return true;
    }

    /** The time profile as text, or a short text saying why there is none; prints nothing. */
    // ---- devices and device memory: the defaults are OpenACC's host device (one device, number 0, no device memory)

    /** The number of the device in use (0 on the host). */
    default int deviceNumber() {
        return 0;
    }

    /**
     * Uses device {@code number} from now on (checked to be 0 or more by {@code Acc}).
     *
     * @throws IllegalArgumentException when there is no such device
     */
    default void deviceNumber(int number) {
        if (number != 0) {
            throw new IllegalArgumentException("acc4j: Acc.setDeviceNumber(" + number + "): there is no device " + number
                    + ": running as plain Java (OpenACC's host device), the only device is 0");
        }
    }

    /**
     * The properties of device {@code number} (checked to be 0 or more by {@code Acc}).
     *
     * @throws IllegalArgumentException when there is no such device
     */
    default org.acc4j.DeviceProperties properties(int number) {
        if (number != 0) {
            throw new IllegalArgumentException("acc4j: Acc.deviceProperties(" + number + "): there is no device " + number
                    + ": running as plain Java (OpenACC's host device), the only device is 0");
        }
        return org.acc4j.DeviceProperties.host();
    }

    /** Allocates {@code bytes} (checked to be 0 or more) of device memory: its address, 0 where there is none. */
    default long malloc(long bytes) {
        return 0;
    }

    /** Frees memory {@link #malloc} gave; 0 does nothing. */
    default void free(long address) {
        if (address != 0) {
            throw new IllegalArgumentException("acc4j: Acc.free(0x" + Long.toHexString(address) + "): not an address"
                    + " Acc.malloc gave (running as plain Java, Acc.malloc gives only 0)");
        }
    }

    /** The device address of {@code array}'s copy (a two-dimensional array's row table), 0 when it has none. */
    default long deviceptr(Object array) {
        return 0;
    }

    /**
     * The host array whose present copy starts at device address {@code address}; the default (no device memory)
     * knows no address.
     *
     * @throws IllegalArgumentException when no present array's copy starts at {@code address}
     */
    default Object hostptr(long address) {
        throw new IllegalArgumentException("acc4j: Acc.hostptr(0x" + Long.toHexString(address) + "): not the device"
                + " address of a present array (running as plain Java, arrays have no device copies and Acc.deviceptr"
                + " gives 0)");
    }

    /** {@code copyout} with OpenACC's {@code finalize}: the dynamic reference count goes to zero. */
    default void copyoutFinalize(Object array) {
        copyout(array);
    }

    /** {@code delete} with OpenACC's {@code finalize}: the dynamic reference count goes to zero. */
    default void deleteFinalize(Object array) {
        delete(array);
    }

    default String report() {
        return "acc4j: no profile is available from the backend " + name() + "\n";
    }
}
