package org.acc4j.runtime;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.acc4j.runtime.data.HostArrays;

/**
 * One open implicit data region of a host loop ({@link LoopData}): its arrays, and which side holds the newer copy of
 * each, so that the host may read and write their elements between the loop's {@code @Kernels} calls.
 *
 * <p>The unit of coherence is a one-dimensional array: an array of the region, or a row of one of its
 * two-dimensional arrays (its rows are present on their own, slices of the array's device copy). A call may change
 * the device copy of every unit (conservatively: the calls' own records of what they write stay in the present
 * table); the host's first element read of a unit after a call copies that unit to the host, once. A host element
 * write first does the same, then marks the unit host-newer; before the next call every host-newer unit is copied to
 * the device. At the exit, host-newer units are copied to the device before the region's copy to the host, so that
 * nothing either side wrote is lost.
 *
 * <p>The loop's frame holds the region in a local: one thread uses it, and it has no lock. Its fast paths, a read of
 * the unit read last or while no unit is stale, and a write to the unit written last, read a field or two.
 */
final class LoopRegion {
    /** How units move; on the GPU, the present table's {@code update host} and {@code update device}. */
    interface Mover {
        void toHost(Object unit);

        void toDevice(Object unit);
    }

    /** A unit: when its host copy was last made current ({@code clean}, a count of calls), and whether it was written. */
    private static final class Unit {
        final Object array;
        int clean;
        boolean written;

        Unit(Object array) {
            this.array = array;
        }
    }

    final String where;
    /** The arrays entered, in order. */
    final List<Object> arrays;
    final AtomicBoolean done = new AtomicBoolean();
    private final Mover mover;
    private final Map<Object, Unit> units = new IdentityHashMap<>();
    private final List<Unit> written = new ArrayList<>();
    /** Calls so far: a unit whose {@code clean} is less may be stale on the host. */
    private int calls;
    /** Units made current since the last call; all of them when it equals their number. */
    private int current;
    private boolean allCurrent = true;
    private Object lastRead;
    private Object lastWritten;
    /** Units copied each way, for reports and tests. */
    private long toHost;
    private long toDevice;

    LoopRegion(String where, List<Object> arrays, Mover mover) {
        this.where = where;
        this.arrays = arrays;
        this.mover = mover;
        for (Object a : arrays) {
            if (HostArrays.isRank2(a)) {
                for (Object row : (Object[]) a) {
                    if (row != null) {
                        units.putIfAbsent(row, new Unit(row));
                    }
                }
            } else {
                units.putIfAbsent(a, new Unit(a));
            }
        }
    }

    /** Before the host reads an element of {@code array}: its host copy is made current if it is a stale unit. */
    void read(Object array) {
        if (array == lastRead || allCurrent) {
            return;
        }
        refresh(array);
        lastRead = array;
    }

    /** Before the host writes an element of {@code array}: current, then host-newer until the next call. */
    void write(Object array) {
        if (array == lastWritten) {
            return;
        }
        Unit u = refresh(array);
        if (u != null && !u.written) {
            u.written = true;
            written.add(u);
        }
        lastWritten = array;
        lastRead = array;
    }

    private Unit refresh(Object array) {
        Unit u = units.get(array);
        if (u == null || u.clean == calls) {
            return u;
        }
        mover.toHost(u.array);
        toHost++;
        u.clean = calls;
        if (++current == units.size()) {
            allCurrent = true;
        }
        return u;
    }

    /** Before a {@code @Kernels} call: host-newer units go to the device; afterwards any unit may be stale. */
    void call() {
        flush();
        calls++;
        current = 0;
        allCurrent = units.isEmpty();
        lastRead = null;
    }

    /** Copies the host-newer units to the device (before a call, and at the exit). */
    void flush() {
        if (written.isEmpty()) {
            return;
        }
        // a unit leaves the list once it is on the device: a failed copy leaves the rest host-newer
        while (!written.isEmpty()) {
            Unit u = written.get(written.size() - 1);
            mover.toDevice(u.array);
            toDevice++;
            u.written = false;
            written.remove(written.size() - 1);
        }
        lastWritten = null;
    }

    long unitsToHost() {
        return toHost;
    }

    long unitsToDevice() {
        return toDevice;
    }
}
