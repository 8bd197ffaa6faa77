package org.acc4j.runtime.tune;

import org.acc4j.runtime.cuda.Event;

/**
 * The device's clock around a launch: two CUDA events on the default stream, created at the first timed launch (a
 * run that tunes nothing creates none) and destroyed by {@link #close()}. Needs the context current.
 */
public final class EventTiming implements Tuner.Timing {
    private Event started;
    private Event finished;

    @Override
    public void start() {
        if (started == null) {
            Event s = Event.create("before a timed launch");
            try {
                finished = Event.create("after a timed launch");
            } catch (RuntimeException e) {
                s.close();
                throw e;
            }
            started = s;
        }
        started.record();
    }

    @Override
    public void stop() {
        finished.record();
    }

    @Override
    public long nanos() {
        return Math.round(finished.millisSince(started) * 1e6);
    }

    /** Destroys the events, once. */
    @Override
    public void close() {
        if (started != null) {
            try {
                started.close();
            } finally {
                finished.close();
                started = null;
                finished = null;
            }
        }
    }

    /** Forgets the events without destroying them: the device is lost. */
    @Override
    public void abandon() {
        if (started != null) {
            started.abandon();
            finished.abandon();
        }
        started = null;
        finished = null;
    }
}
