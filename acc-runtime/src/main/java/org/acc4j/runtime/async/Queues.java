package org.acc4j.runtime.async;

import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.Stream;

/**
 * The async queues of one device, created on first use (one CUDA stream each) and kept until {@link #close()}.
 *
 * <p>The runtime's ordering rule: work on one queue runs in order; queues have no order between them; every
 * synchronous operation first calls {@link #finishAll()}, so it sees the results of everything queued before it.
 *
 * <p>Not thread-safe: every call runs under the device lock with the context current.
 */
public final class Queues implements AutoCloseable {
    private final Map<Integer, Queue> queues = new TreeMap<>();
    /** Queues whose work was lost when the device was rebuilt, said once by their next wait. */
    private final Set<Integer> lost = new TreeSet<>();

    /** The queue numbered {@code number} (0 and up, or {@code Acc.ASYNC_NOVAL}), made on first use. */
    public Queue get(int number) {
        if (number < 0 && number != org.acc4j.Acc.ASYNC_NOVAL) {
            throw new IllegalArgumentException("acc4j: " + number + " is not a queue number");
        }
        Queue q = queues.get(number);
        if (q == null) {
            q = new Queue(number, Stream.create(Queue.name(number)));
            queues.put(number, q);
        }
        return q;
    }

    /**
     * Makes the work queued on {@code queue} from now on wait, on the device, for the work queued so far on each of
     * {@code sources} (OpenACC's {@code wait(sources) async(queue)}; see {@link Queue#waitFor}); the host does not
     * wait. A source never used, or the queue itself, adds nothing.
     */
    public void waitOn(int[] sources, int queue) {
        Queue target = null;
        for (int s : sources) {
            Queue source = queues.get(s);
            if (source != null && s != queue) {
                if (target == null) {
                    target = get(queue);
                }
                target.waitFor(source);
            }
        }
    }

    /** Waits for one queue and runs its host-side work; a queue never used returns at once. */
    public void finish(int number) {
        reportLost(number);
        Queue q = queues.get(number);
        if (q != null) {
            q.finish();
        }
    }

    /**
     * Waits for every queue in turn (all of them, even after one throws) and runs their host-side work; throws the
     * first failure, a CUDA error before a kernel's Java exception, the others suppressed in it.
     */
    public void finishAll() {
        RuntimeException failure = null;
        if (!lost.isEmpty()) {
            int first = lost.iterator().next();
            try {
                reportLost(first);
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        for (Queue q : queues.values()) {
            try {
                q.finish();
            } catch (RuntimeException e) {
                failure = merge(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Whether a queue has completed, joining it when it has ({@link Queue#test()}). */
    public boolean test(int number) {
        reportLost(number);
        Queue q = queues.get(number);
        return q == null || q.test();
    }

    /** Whether every queue has completed, joining those that have. */
    public boolean testAll() {
        boolean all = true;
        RuntimeException failure = null;
        for (Queue q : queues.values()) {
            try {
                all &= q.test();
            } catch (RuntimeException e) {
                failure = merge(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return all;
    }

    /** Whether any queue has work since its last wait. */
    public boolean busy() {
        for (Queue q : queues.values()) {
            if (q.busy()) {
                return true;
            }
        }
        return false;
    }

    private static RuntimeException merge(RuntimeException failure, RuntimeException e) {
        if (failure == null) {
            return e;
        }
        if (e instanceof DriverException && !(failure instanceof DriverException)) {
            e.addSuppressed(failure);
            return e;
        }
        failure.addSuppressed(e);
        return failure;
    }

    private void reportLost(int number) {
        if (lost.remove(number)) {
            lost.clear();
            throw new IllegalStateException("acc4j: the work queued on " + Queue.name(number) + " was lost when the"
                    + " device was rebuilt after a fault: its copies back to the host and its kernels' results did not"
                    + " reach the host");
        }
    }

    /**
     * Forgets every queue without freeing anything, after the context was destroyed (a sticky fault); queues that
     * had work say so at their next wait. Streams are made again on next use.
     */
    public void abandon() {
        for (Queue q : queues.values()) {
            if (q.busy()) {
                lost.add(q.number());
            }
            q.abandon();
        }
        queues.clear();
    }

    /**
     * Waits for every queue (its results reach the host), then frees every stream and pinned buffer; throws the
     * first failure at the end.
     */
    @Override
    public void close() {
        RuntimeException failure = null;
        try {
            finishAll();
        } catch (RuntimeException e) {
            failure = e;
        }
        for (Queue q : new ArrayList<>(queues.values())) {
            try {
                q.close();
            } catch (RuntimeException e) {
                failure = merge(failure, e);
            }
        }
        queues.clear();
        lost.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
