package org.acc4j.runtime.launch;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.runtime.data.HostArrays;
import org.acc4j.runtime.data.PresentTable;

/**
 * What host code's own element accesses between a call's kernels need moved ({@link CallScope}): the rewrite calls
 * the runtime before each element load and store of a primitive array, and before each store of a row into a
 * two-dimensional one, outside the nests. The unit is a one-dimensional array: an array of the call, or a row of a
 * two-dimensional one (the present table holds each row as an entry of its own).
 * <ul>
 *   <li><b>Reads.</b> A one-dimensional array a kernel wrote comes to the host whole at its first read. A row of a
 *       two-dimensional array a kernel wrote comes alone, once after each kernel that wrote the array: an LU
 *       factorisation reading its pivot moves one row, not the matrix. After {@value #ROWS_ONE_BY_ONE} rows of an
 *       array that is one block on the device, the rest comes as one copy (host code reading the whole array pays
 *       one copy, not one per row).</li>
 *   <li><b>Writes.</b> The host keeps, per unit, the window of elements it wrote (the least and the greatest index);
 *       before the next kernel, and before anything copies the unit's array to the host, only the window goes to the
 *       device. A unit a kernel wrote is brought to the host before its first write, so a window never holds stale
 *       elements.</li>
 *   <li><b>Rows stored.</b> A row stored into a two-dimensional array (a swap of rows by reference, or a new row)
 *       first brings the row it replaces to the host, if a kernel wrote it, so that the replaced row object holds
 *       its values wherever host code keeps it; the array's row table is rebuilt before the next kernel that uses
 *       the array, moving no row that is present already ({@link PresentTable#refreshRows}).</li>
 * </ul>
 * The fast paths (no array newer on the device; the unit read last, with no kernel since; a write next to the window
 * of the unit written last) read a field or two and take no lock. Like its scope, it belongs to one call on one
 * thread; its slow paths run under the device lock.
 */
final class HostUnits {
    /** Rows of one array brought to the host one by one before the rest comes as one copy. */
    static final int ROWS_ONE_BY_ONE = 16;

    /** A two-dimensional array a kernel wrote: when (a count of such writes), and rows brought back since. */
    private static final class Owner {
        int writtenAt;
        int pulled;
        boolean indexed;
    }

    /** A row on more than one device-newer array's table. */
    private static final Object SHARED = new Object();

    private final CallScope scope;
    /** Kernel writes of two-dimensional arrays so far: a row is stale when its owner was written after it was clean. */
    private int epoch;
    private final Map<Object, Owner> owners = new IdentityHashMap<>();
    private final Map<Object, Object> rowOwner = new IdentityHashMap<>();
    private final Map<Object, Integer> cleanAt = new IdentityHashMap<>();
    /** Host-written windows {@code [lo, hi)} of present units, to go to the device. */
    private final Map<Object, int[]> windows = new IdentityHashMap<>();
    /** Two-dimensional arrays whose rows host code stored into: their row tables are rebuilt before a kernel. */
    private final List<Object> rowsChanged = new ArrayList<>();
    /** The units read last (a few, for host code alternating between arrays), current since kernel write {@link #kernels}. */
    private final Object[] recentReads = new Object[4];
    private int recentReadsAt = -1;
    private int nextRecent;
    /** Kernel writes so far: a unit found current stays so until the next. */
    private int kernels;
    private Object lastWritten;
    private int[] lastWindow;
    private int lastWrittenGeneration = -1;
    /**
     * Counts kernel writes and kernels' entries: what a write's fast path learnt holds while it is unchanged (a kernel
     * may make a unit stale, an entry may make an array present).
     */
    private int generation;
    /** Units a read found current, and arrays a write found without a device copy, with the generation then. */
    private final Map<Object, int[]> readCurrent = new IdentityHashMap<>();
    private final Map<Object, int[]> noCopy = new IdentityHashMap<>();

    HostUnits(CallScope scope) {
        this.scope = scope;
    }

    void clear() {
        epoch = 0;
        generation = 0;
        kernels = 0;
        java.util.Arrays.fill(recentReads, null);
        recentReadsAt = -1;
        readCurrent.clear();
        noCopy.clear();
        owners.clear();
        rowOwner.clear();
        cleanAt.clear();
        windows.clear();
        rowsChanged.clear();
        lastWritten = null;
        lastWindow = null;
        lastWrittenGeneration = -1;
    }

    /** After a kernel wrote {@code array}. */
    void written(Object array) {
        generation++;
        kernels++;
        if (HostArrays.isRank2(array)) {
            Owner o = owners.computeIfAbsent(array, a -> new Owner());
            o.writtenAt = ++epoch;
            o.pulled = 0;
        }
    }

    /** The array's whole host copy is about to be made current: its rows are clean. */
    void wholeOnHost(Object array) {
        Owner o = owners.remove(array);
        if (o != null && o.indexed) {
            rowOwner.clear();
            for (Owner other : owners.values()) {
                other.indexed = false;
            }
        }
    }

    boolean readNeedsNothing(Object array) {
        if (array == null || !scope.anyDeviceNewer()) {
            return true;
        }
        Object[] r = recentReads;
        if (recentReadsAt == kernels && (array == r[0] || array == r[1] || array == r[2] || array == r[3])) {
            return true;
        }
        int[] g = readCurrent.get(array);
        if (g != null && g[0] == kernels) {
            recent(array);
            return true;
        }
        return false;
    }

    /** Notes a unit current until the next kernel write. */
    private void recent(Object array) {
        if (recentReadsAt != kernels) {
            java.util.Arrays.fill(recentReads, null);
            recentReadsAt = kernels;
        }
        recentReads[nextRecent] = array;
        nextRecent = (nextRecent + 1) & 3;
    }

    /** Before host code reads an element of {@code array}: its host copy is made current if a kernel wrote it. */
    void read(Object array) {
        if (readNeedsNothing(array)) {
            return;
        }
        if (scope.isDeviceNewer(array)) {
            if (!HostArrays.isRank2(array)) {
                scope.wholeToHost(array, "read on the host");
            }
        } else {
            Owner o = staleOwner(array);
            if (o != null) {
                pull(array, o);
            }
        }
        recent(array);
        readCurrent.computeIfAbsent(array, a -> new int[1])[0] = kernels;
    }

    boolean writeNeedsNothing(Object array, int index) {
        int[] w = lastWindow;
        if (array == lastWritten && lastWrittenGeneration == generation
                && (w == null || index >= w[0] - 1 && index <= w[1] && grow(w, index, array))) {
            return true;
        }
        if (array == null) {
            return true;
        }
        // a unit with a window is current on the host (windows go to the device before any kernel)
        w = windows.get(array);
        if (w != null && index >= w[0] - 1 && index <= w[1] && grow(w, index, array)) {
            lastWritten = array;
            lastWindow = w;
            lastWrittenGeneration = generation;
            return true;
        }
        int[] g = noCopy.get(array);
        if (g != null && g[0] == generation) {
            lastWritten = array;
            lastWindow = null;
            lastWrittenGeneration = generation;
            return true;
        }
        return false;
    }

    /** Before host code writes element {@code index} of {@code array}: the unit's window grows to hold it. */
    void write(Object array, int index) {
        if (array == null || writeNeedsNothing(array, index)) {
            return;
        }
        read(array);
        lastWritten = array;
        lastWrittenGeneration = generation;
        PresentTable table = scope.table();
        if (!table.isPresent(array) || HostArrays.isRank2(array)) {
            // no device copy to keep current
            lastWindow = null;
            noCopy.computeIfAbsent(array, a -> new int[1])[0] = generation;
            return;
        }
        int length = HostArrays.length(array);
        if (index < 0 || index >= length) {
            // a store that throws
            lastWindow = null;
            lastWritten = null;
            return;
        }
        int[] w = windows.computeIfAbsent(array, a -> new int[] {index, index + 1});
        grow(w, index, array);
        lastWindow = w;
    }

    private static boolean grow(int[] w, int index, Object array) {
        if (index < w[0]) {
            w[0] = Math.max(0, index);
        } else if (index >= w[1]) {
            w[1] = Math.min(index + 1, HostArrays.length(array));
        }
        return true;
    }

    /** Before host code stores {@code row} at {@code index} of the two-dimensional {@code array}. */
    void rowStore(Object array, int index, Object row) {
        if (!(array instanceof Object[] rows) || index < 0 || index >= rows.length) {
            return;
        }
        if (!scope.inScope(array) && !scope.table().isPresent(array)) {
            return;
        }
        Object old = rows[index];
        if (old != null) {
            read(old);
        }
        if (!rowsChanged.contains(array)) {
            rowsChanged.add(array);
        }
        Owner o = owners.get(array);
        if (o != null && o.indexed && row != null) {
            // the row it gains is indexed now (the one it loses stays: clean now, and skipped once not present)
            Object was = rowOwner.putIfAbsent(row, array);
            if (was != null && was != array) {
                rowOwner.put(row, SHARED);
            }
        }
    }

    /**
     * Before a kernel that uses {@code array}: every window goes to the device, and the row table of {@code array} is
     * rebuilt if host code stored rows into it.
     */
    void beforeKernel(Object array) {
        if (!windows.isEmpty()) {
            flush();
        }
        // the array may become present now: the next write looks again
        generation++;
        lastWritten = null;
        lastWindow = null;
        if (!rowsChanged.isEmpty() && rowsChanged.remove(array) && scope.table().isPresent(array)) {
            scope.table().refreshRows(array);
            scope.movedToDevice(array, "its row table: rows stored on the host");
        }
    }

    /** The host-written windows to the device (before a kernel, before a copy to the host, at the call's end). */
    void flush() {
        if (windows.isEmpty()) {
            return;
        }
        PresentTable table = scope.table();
        // a unit leaves the map once its window is on the device: a failed copy leaves the rest host-newer
        List<Object> done = new ArrayList<>();
        try {
            for (Map.Entry<Object, int[]> e : windows.entrySet()) {
                Object unit = e.getKey();
                int[] w = e.getValue();
                if (table.isPresent(unit)) {
                    table.updateDeviceRange(unit, w[0], w[1]);
                    scope.movedToDevice(unit, "elements " + w[0] + ".." + (w[1] - 1) + " written on the host");
                }
                done.add(unit);
            }
        } finally {
            for (Object u : done) {
                windows.remove(u);
            }
            lastWritten = null;
            lastWindow = null;
        }
    }

    /** The device-newer two-dimensional array whose stale row {@code row} is, or null. */
    private Owner staleOwner(Object row) {
        if (owners.isEmpty()) {
            return null;
        }
        Object owner = rowOwner.get(row);
        if (owner == null) {
            if (!index()) {
                return null;
            }
            owner = rowOwner.get(row);
        }
        if (owner == null) {
            return null;
        }
        Integer clean = cleanAt.get(row);
        int c = clean == null ? 0 : clean;
        if (owner != SHARED) {
            Owner o = owners.get(owner);
            return o != null && scope.isDeviceNewer(owner) && o.writtenAt > c ? o : null;
        }
        // a row of several arrays' tables: stale when any of them was written after it was clean
        for (Map.Entry<Object, Owner> e : owners.entrySet()) {
            if (e.getValue().writtenAt > c && scope.isDeviceNewer(e.getKey()) && holds(e.getKey(), row)) {
                return e.getValue();
            }
        }
        return null;
    }

    /** Indexes the rows of owners not indexed yet; false when there were none. */
    private boolean index() {
        boolean any = false;
        for (Map.Entry<Object, Owner> e : owners.entrySet()) {
            Owner o = e.getValue();
            if (o.indexed) {
                continue;
            }
            o.indexed = true;
            any = true;
            for (Object r : (Object[]) e.getKey()) {
                if (r != null) {
                    Object was = rowOwner.putIfAbsent(r, e.getKey());
                    if (was != null && was != e.getKey()) {
                        rowOwner.put(r, SHARED);
                    }
                }
            }
        }
        return any;
    }

    private static boolean holds(Object array, Object row) {
        for (Object r : (Object[]) array) {
            if (r == row) {
                return true;
            }
        }
        return false;
    }

    /** A stale row to the host: alone, or with the rest of its array after {@value #ROWS_ONE_BY_ONE} rows. */
    private void pull(Object row, Owner o) {
        Object array = null;
        for (Map.Entry<Object, Owner> e : owners.entrySet()) {
            if (e.getValue() == o) {
                array = e.getKey();
                break;
            }
        }
        if (++o.pulled > ROWS_ONE_BY_ONE && array != null && scope.table().listsOneBlock(array)) {
            scope.wholeToHost(array, "rows read on the host");
            return;
        }
        PresentTable table = scope.table();
        if (table.isPresent(row)) {
            int[] w = windows.remove(row);
            if (w != null) {
                table.updateDeviceRange(row, w[0], w[1]);
            }
            table.updateHost(row);
            scope.movedToHost(row, "a row read on the host");
        }
        cleanAt.put(row, epoch);
    }
}
