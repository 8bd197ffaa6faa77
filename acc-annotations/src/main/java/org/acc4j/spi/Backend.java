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

    /** Whether the work on {@code queue} has completed (then joined as by {@link #waitQueue}); the default: true. */
    default boolean asyncTest(int queue) {
        return true;
    }

    /** Whether the work on every queue has completed (then joined); the default: true. */
    default boolean asyncTestAll() {
        return true;
    }

    /** The time profile as text, or a short text saying why there is none; prints nothing. */
    default String report() {
        return "acc4j: no profile is available from the backend " + name() + "\n";
    }
}
