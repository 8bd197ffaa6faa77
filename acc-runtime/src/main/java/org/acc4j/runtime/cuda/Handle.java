package org.acc4j.runtime.cuda;

/**
 * The life of one CUDA handle: open until the first {@link #close()} releases it (later calls do nothing) or
 * {@link #abandon()} forgets it; any other use after that throws {@link IllegalStateException} naming the handle.
 * Each kind of handle is one final subclass holding the JCuda object and saying how it is released. Thread-safe.
 */
public abstract class Handle implements AutoCloseable {
    private boolean closed;

    protected Handle() {
    }

    /** Releases the handle through the driver; called once, by the first {@link #close()}. */
    protected abstract void release();

    /** The message when the handle is used after its close, e.g. {@code the stream of Saxpy.run is destroyed}. */
    protected abstract String closedMessage();

    /** Releases the handle; later calls do nothing. */
    @Override
    public final void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        release();
    }

    /**
     * Forgets the handle without releasing it, because the context that held it was destroyed (after a fault): the
     * driver's release would fail. Afterwards it is closed.
     */
    public final synchronized void abandon() {
        closed = true;
    }

    /** True once {@link #close()} or {@link #abandon()} has been called. */
    public final synchronized boolean isClosed() {
        return closed;
    }

    /** Throws {@link IllegalStateException} when closed. */
    protected final synchronized void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(closedMessage());
        }
    }
}
