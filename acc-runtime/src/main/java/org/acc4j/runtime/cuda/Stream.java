package org.acc4j.runtime.cuda;

import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * Owns one CUDA stream ({@code cuStreamCreate}): the device side of an async queue.
 *
 * <p>Created <em>blocking</em> ({@code CU_STREAM_DEFAULT}), so it keeps the legacy default stream's implicit order:
 * work on the default stream (the runtime's synchronous copies, zero-fills and launches) waits for the work queued
 * here before it, and work queued here waits for the default stream's work before it. Streams do not wait for each
 * other. Needs its context current on the calling thread. {@link #close()} is idempotent; other calls after it (or
 * after {@link #abandon()}) throw {@link IllegalStateException}.
 */
public final class Stream extends Handle {
    private final CUstream stream = new CUstream();
    private final String what;

    private Stream(String what) {
        this.what = what;
    }

    /**
     * Creates a stream.
     *
     * @param what what it serves, for messages, e.g. {@code async queue 2}
     */
    public static Stream create(String what) {
        Stream s = new Stream(what);
        Driver.check(JCudaDriver.cuStreamCreate(s.stream, CUstream_flags.CU_STREAM_DEFAULT), "cuStreamCreate",
                "creating the stream of " + what);
        return s;
    }

    /** What the stream serves, as given to {@link #create}. */
    public String what() {
        return what;
    }

    /**
     * Makes the work queued on this stream from now on wait until {@code event}'s last record has completed
     * ({@code cuStreamWaitEvent}); the host does not wait. The event may be destroyed at once afterwards.
     */
    public void waitFor(Event event) {
        Driver.check(JCudaDriver.cuStreamWaitEvent(handle(), event.handle(), 0), "cuStreamWaitEvent",
                "making " + what() + " wait for the event " + event.what());
    }

    /** The JCuda handle, for copies and launches on this stream. */
    CUstream handle() {
        ensureOpen();
        return stream;
    }

    /** Waits until everything queued on the stream has completed ({@code cuStreamSynchronize}). */
    public void synchronize(String waitingFor) {
        Driver.check(JCudaDriver.cuStreamSynchronize(handle()), "cuStreamSynchronize",
                "waiting for " + waitingFor + " on " + what);
    }

    /** Whether everything queued on the stream has completed ({@code cuStreamQuery}); does not wait. */
    public boolean idle() {
        int r = JCudaDriver.cuStreamQuery(handle());
        if (r == CUresult.CUDA_ERROR_NOT_READY) {
            return false;
        }
        Driver.check(r, "cuStreamQuery", "asking whether " + what + " has completed");
        return true;
    }

    @Override
    protected String closedMessage() {
        return "the stream of " + what + " is destroyed";
    }

    @Override
    protected void release() {
        Driver.check(JCudaDriver.cuStreamDestroy(stream), "cuStreamDestroy", "destroying the stream of " + what);
    }

    @Override
    public String toString() {
        return "Stream[" + what + "]";
    }
}
