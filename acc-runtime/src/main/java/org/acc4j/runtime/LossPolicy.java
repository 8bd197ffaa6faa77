package org.acc4j.runtime;

import java.util.function.Supplier;
import org.acc4j.runtime.cuda.DeviceLostException;
import org.acc4j.runtime.launch.Guard;

/**
 * What the runtime does once a fault has lost the device, in one place: an operation acts as it would on the host
 * (an offload runs the method as plain Java, a data routine does nothing or answers as shared memory does), except
 * that an array whose device-side changes the fault lost is refused by name, since its host copy is stale.
 * Whether the loss came before the operation or during it makes no difference.
 */
final class LossPolicy {
    private final Guard guard;

    LossPolicy(Guard guard) {
        this.guard = guard;
    }

    /**
     * Runs {@code work} under the device lock ({@code what} names it in a fault's message) while the device works,
     * else {@code onHost}. A loss found during the work goes to {@code onHost} too; a loss that names an array is
     * thrown.
     */
    <T> T run(String what, Supplier<T> work, Supplier<T> onHost) {
        return orHost(() -> guard.run(what, work::get), onHost);
    }

    /**
     * {@link #run} for work that takes the device lock itself where it needs it (an offload compiles before it
     * launches, and must not hold the lock meanwhile).
     */
    <T> T orHost(Supplier<T> work, Supplier<T> onHost) {
        if (guard.lost() == null) {
            try {
                return work.get();
            } catch (DeviceLostException e) {
                if (e.array() != null) {
                    throw e;
                }
            }
        }
        return onHost.get();
    }

    /**
     * Refuses {@code array} in {@code routine} when a fault lost the device-side changes a kernel had made to it
     * (its host copy is stale).
     */
    void refuseLost(String routine, Object array) {
        String lost = guard.lostArray(array);
        if (lost != null) {
            throw DeviceLostException.array(routine, lost, guard.lost());
        }
    }
}
