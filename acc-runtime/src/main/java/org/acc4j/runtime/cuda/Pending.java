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
 */
public final class Pending {
    /** Waits for everything on the context, naming what was waited for in a failure ({@link Context#synchronize}). */
    @FunctionalInterface
    public interface Sync {
        void synchronize(String waitingFor);
    }

    /** How many distinct kernels a failure's message names. */
    static final int NAMED = 6;

    private final Sync sync;
    /** The kernels queued since the last settle, each once, in launch order (up to {@link #NAMED}). */
    private final List<String> kernels = new ArrayList<>();
    /** Whether a kernel was left out of {@link #kernels}: there were more than it holds. */
    private boolean more;
    private volatile boolean any;
    private long launches;
    private long settles;

    public Pending(Sync sync) {
        this.sync = sync;
    }

    /** Whether a kernel is queued that the host has not waited for. */
    public boolean any() {
        return any;
    }

    /**
     * A kernel was queued and the host does not wait for it now; {@code kernel} names it (kernel, method, source
     * line), for a failure's message. The same string each launch of a kernel: it is compared by identity first.
     */
    public synchronized void add(String kernel) {
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
        kernels.clear();
        more = false;
    }

    /** Forgets the queued kernels without waiting: the context that ran them was destroyed. */
    public synchronized void forget() {
        any = false;
        kernels.clear();
        more = false;
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
