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

    void waitAll();

    /** The time profile as text, or a short text saying why there is none; prints nothing. */
    default String report() {
        return "acc4j: no profile is available from the backend " + name() + "\n";
    }
}
