package org.acc4j.runtime.data;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The structured references that async calls in flight hold on the present table, and their exits at the waits.
 *
 * <p>An async call enters its data clauses when it is queued and exits them at the wait. A call queued on queue 4
 * after {@code Acc.waitAsync(new int[] {1}, 4)} runs, on the device, after the calls of queue 1; as if in that order,
 * a {@code copy} or {@code copyout} of queue 1's call must reach the host when that call ends, even though queue 4's
 * call entered the same array meanwhile (finding it present, and taking a reference that kept the count above zero
 * at queue 1's exit). So an exit that copies back and leaves references held only by other async calls in flight
 * (none by an enclosing {@code @Data} region, none dynamic), none of which copies the array back itself (so none
 * writes it), copies the device's values back now. A later call that copies the array back copies it at its own
 * exit, as before (and copies nothing when its kernel failed). References of enclosing regions keep OpenACC's rule:
 * the last exit copies back.
 *
 * <p>Not thread-safe: the device lock guards it.
 */
public final class QueuedHolds {
    private final Map<Object, Integer> holds = new IdentityHashMap<>();
    /** Of those, the references whose clauses copy back at their exits. */
    private final Map<Object, Integer> copying = new IdentityHashMap<>();

    /** Records the reference an async call took on {@code array} with {@code clause} (after entering it). */
    public void entered(Object array, Clause clause) {
        holds.merge(array, 1, Integer::sum);
        if (clause.downloadsOnExit()) {
            copying.merge(array, 1, Integer::sum);
        }
    }

    /** The references async calls in flight hold on {@code array}. */
    public int held(Object array) {
        return holds.getOrDefault(array, 0);
    }

    /**
     * The structured exit of an async call's reference at the wait: {@link PresentTable#exit}, and when the clause
     * copies back but other async calls in flight still hold the array (and nothing else does), the copy back now.
     */
    public void exit(PresentTable table, Object array, Clause clause) {
        release(array, clause);
        table.exit(array, clause);
        if (clause.downloadsOnExit() && table.isPresent(array)) {
            int structured = table.structuredCount(array);
            if (structured > 0 && structured == held(array) && !copying.containsKey(array)
                    && table.dynamicCount(array) == 0) {
                table.updateHost(array);
            }
        }
    }

    /**
     * The exit of a failed async call's reference with {@code clause} ({@link PresentTable#discard}): nothing is
     * copied back.
     */
    public void discard(PresentTable table, Object array, Clause clause) {
        release(array, clause);
        table.discard(array);
    }

    /** Forgets every reference (the device was lost, or the table closed). */
    public void clear() {
        holds.clear();
        copying.clear();
    }

    private void release(Object array, Clause clause) {
        drop(holds, array);
        if (clause.downloadsOnExit()) {
            drop(copying, array);
        }
    }

    private static void drop(Map<Object, Integer> counts, Object array) {
        Integer n = counts.get(array);
        if (n != null) {
            if (n <= 1) {
                counts.remove(array);
            } else {
                counts.put(array, n - 1);
            }
        }
    }
}
