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
 * table), after which every unit is stale on the host. The host's first element read of a stale unit copies it to the
 * host, once. A host write marks the window of elements it wrote (the least and the greatest index, plus one); before
 * the next call, and at the exit before the region's copy to the host, only that window goes to the device.
 *
 * <p>Invariant: every element of a unit outside its window is at least as new on the device as on the host; inside
 * the window the host holds the newest value. A stale unit's window therefore holds only elements the host wrote: a
 * write next to it or inside it grows it, and a write elsewhere first copies the unit to the host (keeping the
 * window's elements), which makes any window right. A copy to the host keeps the window's elements likewise.
 *
 * <p>The loop's frame holds the region in a local: one thread uses it, and it has no lock. Its fast paths, a read of
 * the unit read last or while no unit is stale, and a write to the unit written last, read a field or two.
 */
final class LoopRegion {
    /** How units move; on the GPU, the present table's {@code update host} and {@code update device}. */
    interface Mover {
        void toHost(Object unit);

        /** Elements {@code [from, to)} of {@code unit} to the device. */
        void toDevice(Object unit, int from, int to);
    }

    /** A unit: when its host copy was last made current (a count of calls), and the window the host wrote. */
    private static final class Unit {
        final Object array;
        final int length;
        int clean;
        /** The host-written window {@code [lo, hi)}; empty when {@code lo >= hi}. */
        int lo;
        int hi;
        /** Whether it is on the list of units with a window. */
        boolean written;

        Unit(Object array) {
            this.array = array;
            this.length = java.lang.reflect.Array.getLength(array);
        }

        void grow(int index) {
            if (lo >= hi) {
                lo = index;
                hi = index + 1;
            } else if (index < lo) {
                lo = index;
            } else if (index >= hi) {
                hi = index + 1;
            }
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
    /** An array the host may read as it is until the next call. */
    private Object lastRead;
    /** The array written last since the last call, and its unit (null for an array not the region's). */
    private Object lastWritten;
    private Unit lastUnit;

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
        Unit u = units.get(array);
        if (u != null) {
            refresh(u);
        }
        lastRead = array;
    }

    /** Before the host writes element {@code index} of {@code array}: the unit's window grows to hold it. */
    void write(Object array, int index) {
        Unit u = lastUnit;
        if (array == lastWritten && (u == null || u.clean == calls || index >= u.lo - 1 && index <= u.hi)) {
            if (u != null && index >= 0 && index < u.length) {
                u.grow(index);
            }
            return;
        }
        u = units.get(array);
        if (u == null) {
            // not the region's: its writes need nothing
            lastWritten = array;
            lastUnit = null;
            return;
        }
        if (index < 0 || index >= u.length) {
            // a store that throws
            return;
        }
        if (u.clean != calls && u.lo < u.hi && (index < u.lo - 1 || index > u.hi)) {
            // the window would take in stale elements: the whole unit to the host first
            refresh(u);
        }
        u.grow(index);
        if (!u.written) {
            u.written = true;
            written.add(u);
        }
        lastWritten = array;
        lastUnit = u;
    }

    /** A stale unit's host copy made current, keeping the elements the host wrote. */
    private void refresh(Unit u) {
        if (u.clean == calls) {
            return;
        }
        Object kept = null;
        if (u.lo < u.hi) {
            kept = java.lang.reflect.Array.newInstance(u.array.getClass().getComponentType(), u.hi - u.lo);
            System.arraycopy(u.array, u.lo, kept, 0, u.hi - u.lo);
        }
        mover.toHost(u.array);
        if (kept != null) {
            System.arraycopy(kept, 0, u.array, u.lo, u.hi - u.lo);
        }
        u.clean = calls;
        if (++current == units.size()) {
            allCurrent = true;
        }
    }

    /** Before a {@code @Kernels} call: the windows go to the device; afterwards any unit may be stale. */
    void call() {
        flush();
        calls++;
        current = 0;
        allCurrent = units.isEmpty();
        lastRead = null;
    }

    /** Copies the host-written windows to the device (before a call, and at the exit). */
    void flush() {
        // a unit leaves the list once its window is on the device: a failed copy leaves the rest host-newer
        while (!written.isEmpty()) {
            Unit u = written.get(written.size() - 1);
            mover.toDevice(u.array, u.lo, u.hi);
            u.lo = 0;
            u.hi = 0;
            u.written = false;
            written.remove(written.size() - 1);
        }
        lastWritten = null;
        lastUnit = null;
    }
}
