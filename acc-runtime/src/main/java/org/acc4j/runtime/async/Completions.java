package org.acc4j.runtime.async;

import java.util.ArrayDeque;

/**
 * The host's side of one async queue: what must happen on the host once the queue's device work has completed
 * (copying staged results into Java arrays, reading a kernel's error record, exiting its data clauses), in the
 * order the work was queued. {@link #finish} runs it all at the wait.
 *
 * <p>Invariant: once an item reports a failure (a kernel's Java exception, or an exception of its own), every later
 * item of the same {@link #finish} runs with {@code failed} set and copies nothing into host arrays; the first failure
 * is thrown at the end, later ones suppressed in it. Not thread-safe: the device lock guards it.
 */
public final class Completions {
    /** Host-side work of one queued operation. */
    @FunctionalInterface
    public interface Item {
        /**
         * Runs after the queue's device work has completed.
         *
         * @param failed whether an earlier item failed: copy nothing into host arrays, but release what was taken
         * @return the exception the operation ended with (a kernel's Java exception), or null
         */
        RuntimeException finish(boolean failed);
    }

    private final ArrayDeque<Item> items = new ArrayDeque<>();

    /** Adds an item after those already queued. */
    public void add(Item item) {
        items.add(item);
    }

    /** Whether nothing is waiting. */
    public boolean isEmpty() {
        return items.isEmpty();
    }

    /** How many items are waiting. */
    public int size() {
        return items.size();
    }

    /**
     * Runs every item in order and empties the list; throws the first failure, with later ones suppressed in it.
     * Every item runs, even after a failure.
     */
    public void finish() {
        finish(false);
    }

    /** {@link #finish()}, with every item told {@code failed} when {@code failedBefore} is true. */
    private void finish(boolean failedBefore) {
        RuntimeException first = null;
        for (Item item = items.poll(); item != null; item = items.poll()) {
            RuntimeException e;
            try {
                e = item.finish(failedBefore || first != null);
            } catch (RuntimeException thrown) {
                e = thrown;
            }
            if (e != null) {
                if (first == null) {
                    first = e;
                } else if (e != first) {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Moves every waiting item into one item, which is left in their place and also returned, so that another queue
     * can hold it too (a queue that waits on this one, OpenACC's {@code wait(...) async(...)}). The shared item runs
     * the moved items once, at whichever holder's wait comes first; both holders see the same result: the first
     * failure among them, so that neither queue copies into host arrays what followed a failed kernel. The caller
     * must make sure the second holder's device work cannot complete before the device work of the moved items (an
     * event the second holder's stream waits for). With nothing waiting, returns null and changes nothing.
     */
    public Item share() {
        if (items.isEmpty()) {
            return null;
        }
        Completions moved = new Completions();
        moved.items.addAll(items);
        items.clear();
        Item shared = new Item() {
            private boolean done;
            private RuntimeException failure;

            @Override
            public RuntimeException finish(boolean failed) {
                if (!done) {
                    done = true;
                    try {
                        moved.finish(failed);
                    } catch (RuntimeException e) {
                        failure = e;
                    }
                }
                return failure;
            }
        };
        items.add(shared);
        return shared;
    }

    /** Forgets every item without running it (the device that held their work was lost). */
    public void clear() {
        items.clear();
    }
}
