package org.acc4j.runtime.cuda;

import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.JCudaDriver;

/**
 * One CUDA event ({@code cuEventCreate}): recorded on the default stream to time the work between two events, or
 * ({@link #fence}) on a stream to wait for the work queued there before it.
 *
 * <p>{@link #create} gives default flags (timing enabled, no blocking sync). Needs its context current on the calling
 * thread for every call. {@link #close()} is idempotent; other calls after it throw {@link IllegalStateException}.
 */
public final class Event extends Handle {
    private final CUevent event = new CUevent();
    private final String what;

    private Event(String what) {
        this.what = what;
    }

    /**
     * Creates an event.
     *
     * @param what what it marks, for messages, e.g. {@code kernel start}
     */
    public static Event create(String what) {
        Event e = new Event(what);
        Driver.check(JCudaDriver.cuEventCreate(e.event, CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate",
                "creating the event " + what);
        return e;
    }

    /**
     * Creates an event that only marks completion (no timing: {@code CU_EVENT_DISABLE_TIMING}, cheaper to record and
     * wait for), such as the end of a copy on a stream.
     *
     * @param what what it marks, for messages, e.g. {@code staging slot 2}
     */
    public static Event fence(String what) {
        Event e = new Event(what);
        Driver.check(JCudaDriver.cuEventCreate(e.event, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate",
                "creating the event " + what);
        return e;
    }

    /** Records the event on {@code stream}, after the work queued there so far; does not wait. */
    public void record(Stream stream) {
        ensureOpen();
        int r = JCudaDriver.cuEventRecord(event, stream.handle());
        // the message only on failure: staged copies record one per chunk
        if (r != jcuda.driver.CUresult.CUDA_SUCCESS) {
            Driver.check(r, "cuEventRecord", "recording the event " + what + " on " + stream.what());
        }
    }

    /** Waits until the work before the event's last record has completed; returns at once if it was never recorded. */
    public void synchronize() {
        ensureOpen();
        int r = JCudaDriver.cuEventSynchronize(event);
        if (r != jcuda.driver.CUresult.CUDA_SUCCESS) {
            Driver.check(r, "cuEventSynchronize", "waiting for the event " + what);
        }
    }

    /**
     * Whether the work before the event's last record has completed ({@code cuEventQuery}); true if it was never
     * recorded. Never waits.
     */
    public boolean isDone() {
        ensureOpen();
        int r = JCudaDriver.cuEventQuery(event);
        if (r == jcuda.driver.CUresult.CUDA_ERROR_NOT_READY) {
            return false;
        }
        if (r != jcuda.driver.CUresult.CUDA_SUCCESS) {
            Driver.check(r, "cuEventQuery", "asking whether the event " + what + " has completed");
        }
        return true;
    }

    /** What the event marks, for messages. */
    public String what() {
        return what;
    }

    /** The JCuda handle, for a stream to wait on. */
    CUevent handle() {
        ensureOpen();
        return event;
    }

    /** Records the event on the default stream, after the work queued there so far; does not wait. */
    public void record() {
        ensureOpen();
        Driver.check(JCudaDriver.cuEventRecord(event, null), "cuEventRecord", "recording the event " + what);
    }

    /**
     * Milliseconds of device time from {@code start} to this event; both must have completed (after a
     * synchronisation that followed both records), so this never waits.
     */
    public float millisSince(Event start) {
        ensureOpen();
        start.ensureOpen();
        float[] ms = new float[1];
        Driver.check(JCudaDriver.cuEventElapsedTime(ms, start.event, event), "cuEventElapsedTime",
                "timing from the event " + start.what + " to " + what);
        return ms[0];
    }

    @Override
    protected String closedMessage() {
        return "the event " + what + " is destroyed";
    }

    @Override
    protected void release() {
        Driver.check(JCudaDriver.cuEventDestroy(event), "cuEventDestroy", "destroying the event " + what);
    }
}
