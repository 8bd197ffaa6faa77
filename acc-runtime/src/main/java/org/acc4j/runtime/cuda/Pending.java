package org.acc4j.runtime.cuda;

import java.util.ArrayList;
import java.util.List;

/**
 * Kernels launched on the context's default stream that the host has not waited for: a synchronous call whose
 * launches cannot raise a Java exception and whose data stays on the device returns once they are queued, and the
 * first operation that could observe or change device data, or reuse device memory, waits for them here ({@link
 * #settle}). Later launches on the same stream need no wait: the stream runs them in order.
 *
 * <p>A settle is one {@code cuCtxSynchronize}. When it fails (the device faulted while the kernels ran), the list is
 * cleared and the driver's failure is thrown naming the kernels it waited for and what wanted the device, for the
 * device-failure path to handle. Thread-safe; the device lock serialises its use in the runtime.
 *
 * <p>The host stays at most one deferred launch ahead of the device: each deferred launch is followed by a mark on
 * the default stream ({@link Marks}), and {@link #add} waits for the mark of the deferred launch before it. That keeps
 * the next kernel queued while the current one runs, which is all deferral is for (no idle device between calls), and
 * keeps a loop of long kernels from queuing minutes of work the host has run ahead of.
 */
public final class Pending {
    /** Waits for everything on the context, naming what was waited for in a failure ({@link Context#synchronize}). */
    @FunctionalInterface
    public interface Sync {
        void synchronize(String waitingFor);
    }

    /**
     * Two marks on the default stream, recorded after deferred launches in turn; {@link #NONE} marks nothing (the
     * host then never waits in {@link #add}, for tests without a device).
     */
    public interface Marks {
        /** Marks nothing. */
        Marks NONE = new Marks() {
            @Override
            public void record(int mark) {
            }

            @Override
            public void await(int mark) {
            }

            @Override
            public void abandon() {
            }

            @Override
            public void close() {
            }
        };

        /** Records mark {@code mark} (0 or 1) on the default stream, after the work queued there so far. */
        void record(int mark);

        /** Waits for the work before mark {@code mark}'s last record. */
        void await(int mark);

        /** Forgets the marks without releasing them: their context was destroyed. */
        void abandon();

        /** Releases the marks. */
        void close();
    }

    /** {@link Marks} as two CUDA events without timing, made at their first record in the context current then. */
    public static final class EventMarks implements Marks {
        private final Event[] events = new Event[2];

        @Override
        public void record(int mark) {
            if (events[mark] == null) {
                events[mark] = Event.fence("the mark after a deferred launch");
            }
            events[mark].record();
        }

        @Override
        public void await(int mark) {
            events[mark].synchronize();
        }

        @Override
        public void abandon() {
            events[0] = null;
            events[1] = null;
        }

        @Override
        public void close() {
            try {
                if (events[0] != null) {
                    events[0].close();
                }
            } finally {
                if (events[1] != null) {
                    events[1].close();
                }
                abandon();
            }
        }
    }

    /** How many distinct kernels a failure's message names. */
    static final int NAMED = 6;

    private final Sync sync;
    private final Marks marks;
    /** The mark the next deferred launch records; the other one follows the launch before it, if {@link #marked}. */
    private int next;
    /** Whether the other mark follows a deferred launch the host has not waited for through it. */
    private boolean marked;
    /** The kernels queued since the last settle, each once, in launch order (up to {@link #NAMED}). */
    private final List<String> kernels = new ArrayList<>();
    /** Whether a kernel was left out of {@link #kernels}: there were more than it holds. */
    private boolean more;
    private volatile boolean any;
    private long launches;
    private long settles;

    /** Bookkeeping only: the host never waits in {@link #add} ({@link Marks#NONE}). */
    public Pending(Sync sync) {
        this(sync, Marks.NONE);
    }

    public Pending(Sync sync, Marks marks) {
        this.sync = sync;
        this.marks = marks;
    }

    /** Whether a kernel is queued that the host has not waited for. */
    public boolean any() {
        return any;
    }

    /**
     * A kernel was queued and the host does not wait for it now; {@code kernel} names it (kernel, method, source
     * line), for a failure's message. The same string each launch of a kernel: it is compared by identity first.
     * Marks the stream after it, then waits for the deferred launch before it, if the host has not waited for that
     * one yet; when that wait fails (the device faulted), the failure is thrown naming the kernels, as {@link #settle}
     * throws it.
     */
    public synchronized void add(String kernel) {
        note(kernel);
        marks.record(next);
        boolean before = marked;
        int other = 1 - next;
        next = other;
        marked = true;
        if (before) {
            try {
                marks.await(other);
            } catch (RuntimeException e) {
                settle("the deferred launch of " + kernel);
                throw e;
            }
        }
    }

    private void note(String kernel) {
        launches++;
        any = true;
        int n = kernels.size();
        if (n > 0 && kernels.get(n - 1) == kernel) {
            return;
        }
        if (!kernels.contains(kernel)) {
            if (n < NAMED) {
                kernels.add(kernel);
            } else {
                more = true;
            }
        }
    }

    /**
     * Waits for the queued kernels, if any; {@code before} says what needs the device now (a routine, a copy, a
     * call). Throws the driver's failure, naming the kernels, when the device failed while they ran.
     */
    public void settle(String before) {
        if (!any) {
            return;
        }
        String waitingFor;
        synchronized (this) {
            if (!any) {
                return;
            }
            waitingFor = describe() + " before " + before;
            settles++;
            any = false;
            marked = false;
            kernels.clear();
            more = false;
        }
        sync.synchronize(waitingFor);
    }

    /**
     * The host waited for everything on the context itself (a synchronous launch's own wait): nothing is pending.
     * A failure there named its own launch; call this only after that wait succeeded.
     */
    public synchronized void settled() {
        any = false;
        marked = false;
        kernels.clear();
        more = false;
    }

    /** Forgets the queued kernels without waiting: the context that ran them was destroyed. */
    public synchronized void forget() {
        marks.abandon();
        marked = false;
        any = false;
        kernels.clear();
        more = false;
    }

    /** Releases the marks; call after a last {@link #settle}. */
    public synchronized void close() {
        marked = false;
        marks.close();
    }

    /** The queued kernels as a failure's message names them. */
    public synchronized String describe() {
        StringBuilder b = new StringBuilder("the deferred kernel");
        if (kernels.size() != 1) {
            b.append('s');
        }
        b.append(' ').append(String.join(", ", kernels));
        if (more) {
            b.append(" and others");
        }
        return b.toString();
    }

    /** Launches deferred since this object was made. */
    public synchronized long launches() {
        return launches;
    }

    /** Settles that had kernels to wait for. */
    public synchronized long settles() {
        return settles;
    }
}
