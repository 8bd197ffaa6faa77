package org.acc4j.runtime.async;

import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.PresentTable;

/**
 * The data routines on an async queue ({@code Acc.copyinAsync} and the others): what each moves on the queue's
 * stream, and what it leaves to the wait. Call under the device lock.
 * <ul>
 *   <li>{@code copyin}: the counts change now; data that becomes present is allocated now and its upload queued
 *       (staged now). Present data only gains a count.</li>
 *   <li>{@code create}: done now (allocation and zero-fill need no queue; later work on any queue sees them).</li>
 *   <li>{@code updateDevice}: uploads queued, staged now; {@code updateHost}: downloads queued, into the host arrays
 *       at the wait.</li>
 *   <li>{@code copyout}: when this exit would free the array (its last reference, one dimension), its download is
 *       queued now; at the wait the host array gets the values and the count drops (the device copy is freed).
 *       Otherwise, and for two-dimensional arrays, the whole exit runs at the wait, copying back synchronously then
 *       if it frees the array.</li>
 *   <li>{@code delete}: the exit runs at the wait, after the queue's earlier work, which may still use the array.</li>
 * </ul>
 */
public final class QueuedData {
    private QueuedData() {
    }

    public static void copyin(PresentTable table, Queue q, Object array) {
        for (PresentTable.Transfer t : table.copyinTransfers(array)) {
            q.upload(t.buffer(), t.host());
        }
    }

    public static void create(PresentTable table, Queue q, Object array) {
        table.enterDynamic(array, Clause.CREATE);
    }

    public static void updateDevice(PresentTable table, Queue q, Object array) {
        for (PresentTable.Transfer t : table.updateDeviceTransfers(array)) {
            q.upload(t.buffer(), t.host());
        }
    }

    public static void updateHost(PresentTable table, Queue q, Object array) {
        for (PresentTable.Transfer t : table.updateHostTransfers(array)) {
            q.download(t.buffer(), t.host(), null);
        }
    }

    public static void copyout(PresentTable table, Queue q, Object array) {
        PresentTable.Transfer t = table.copyoutTransfer(array);
        if (t == null) {
            // after an earlier failure on the queue nothing is copied back: the exit drops the count only
            q.then(failed -> {
                table.exitDynamic(array, failed ? Clause.DELETE : Clause.COPYOUT, false);
                return null;
            });
            return;
        }
        q.download(t.buffer(), array, failed -> {
            table.exitDynamic(array, Clause.DELETE, false);
            return null;
        });
    }

    public static void delete(PresentTable table, Queue q, Object array) {
        q.then(failed -> {
            table.exitDynamic(array, Clause.DELETE, false);
            return null;
        });
    }
}
