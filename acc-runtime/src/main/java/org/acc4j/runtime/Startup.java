package org.acc4j.runtime;

/**
 * Starts the runtime on a daemon thread, so that loading the driver and creating the context (hundreds of
 * milliseconds) overlap the application's own start. The start is the runtime's ordinary lazy one: a first real
 * call that arrives meanwhile waits for it on the runtime's lock, and one that arrives later finds it done. A
 * failure there is the runtime's to report (it says once that regions run as plain Java); nothing is thrown.
 */
final class Startup {

    /** The starting thread's name. */
    static final String THREAD = "acc4j-start";

    private Startup() {
    }

    /** Runs {@code start} on a new daemon thread named {@code acc4j-start}; returns at once with the thread. */
    static Thread inBackground(Runnable start) {
        Thread t = new Thread(() -> {
            try {
                start.run();
            } catch (RuntimeException | LinkageError e) {
                Log.debug("starting the runtime in the background failed: " + e);
            }
        }, THREAD);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
