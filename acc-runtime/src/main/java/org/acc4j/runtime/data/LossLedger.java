package org.acc4j.runtime.data;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the present table knows of device loss: which present arrays a kernel may have changed since host and device
 * were last made equal (each entry's device-newer mark, or its rows-newer mark for a two-dimensional array), which
 * arrays a fault then left with a stale host copy, and how the table's device side is rebuilt after a context reset
 * ({@link #restore}) or given up for good ({@link #lose}).
 *
 * <p>Invariants: an array is in the ledger of lost arrays only if a fault came while its device copy was newer than
 * its host copy and before any copy between them; it leaves only by {@link #forget} or when the collector reclaims
 * it (keys are weak). After {@link #restore} every present array's buffer is new and filled from its host array, and
 * every row table lists its rows' new buffers; after {@link #lose} or a failed restore nothing is present.
 *
 * <p>Owned by one {@link PresentTable} and used only under its lock; it has no lock of its own.
 */
final class LossLedger {

    private final Entries entries;
    private final Traffic traffic;
    private final RowTables rows;
    /** Arrays whose device copies a kernel had changed when the device faulted, with their descriptions. */
    private final Map<WeakKey, String> lost = new HashMap<>();

    LossLedger(Entries entries, Traffic traffic, RowTables rows) {
        this.entries = entries;
        this.traffic = traffic;
        this.rows = rows;
    }

    /** See {@link PresentTable#markWritten}. */
    void markWritten(Object array) {
        Entry entry = entries.find(array);
        if (entry == null) {
            return;
        }
        if (entry.rows == null) {
            entry.deviceNewer = true;
        } else {
            entry.rowsNewer = true;
        }
    }

    /** See {@link PresentTable#markLost}. */
    List<String> markLost() {
        List<String> names = new ArrayList<>();
        for (Entry entry : entries.all()) {
            if (entry.rows != null) {
                RowTables.settle(entry);
            }
        }
        for (Entry entry : entries.all()) {
            Object array = entry.key.get();
            if (entry.deviceNewer && array != null) {
                lost.put(new WeakKey(array, null), entry.array());
                names.add(entry.array());
                entry.deviceNewer = false;
            }
        }
        return names;
    }

    /** See {@link PresentTable#lostArray}. */
    String lostArray(Object array) {
        if (lost.isEmpty() || array == null) {
            return null;
        }
        lost.keySet().removeIf(k -> k.get() == null);
        String name = lost.get(new WeakKey(array, null));
        if (name != null || !HostArrays.isRank2(array)) {
            return name;
        }
        Object[] rowsNow = (Object[]) array;
        for (int i = 0; i < rowsNow.length; i++) {
            String row = rowsNow[i] == null ? null : lost.get(new WeakKey(rowsNow[i], null));
            if (row != null) {
                return "row " + i + " (" + row + ") of " + HostArrays.describe(array);
            }
        }
        return null;
    }

    /** See {@link PresentTable#forgetLost}. */
    void forget(Object array) {
        lost.remove(new WeakKey(array, null));
        if (HostArrays.isRank2(array)) {
            for (Object row : (Object[]) array) {
                if (row != null) {
                    lost.remove(new WeakKey(row, null));
                }
            }
        }
    }

    /** See {@link PresentTable#lose}. */
    void lose() {
        traffic.memory().abandon();
        for (Entry entry : entries.all()) {
            entry.buffer.abandon();
            if (entry.block != null) {
                entry.block.buffer.abandon();
                entry.block = null;
            }
        }
        entries.clear();
        // nothing to free: the buffers went with the context
        entries.forgetCollected();
    }

    /** See {@link PresentTable#restore}. */
    int restore() {
        traffic.memory().abandon();
        for (Entry entry : entries.all()) {
            entry.buffer.abandon();
            if (entry.block != null) {
                // the rows come back each in a buffer of its own
                entry.block.buffer.abandon();
                entry.block = null;
            }
            entry.listsBlock = false;
        }
        // reclaimed arrays are found by their cleared keys below
        entries.forgetCollected();
        for (Entry entry : entries.snapshot()) {
            if (entry.key.get() == null) {
                entries.remove(entry);
                if (entry.rows != null) {
                    for (Entry row : entry.rowEntries) {
                        row.rowReferences--;
                    }
                }
            }
        }
        // rows only a reclaimed table listed
        for (Entry entry : entries.snapshot()) {
            if (entry.unused()) {
                entries.remove(entry);
            }
        }
        List<Entry> restored = new ArrayList<>();
        try {
            // rows before the tables that list their addresses
            for (Entry entry : entries.snapshot()) {
                if (entry.rows == null) {
                    // hold the array while it is uploaded; one reclaimed just now is dropped
                    Object array = entry.key.get();
                    if (array == null) {
                        entries.remove(entry);
                        continue;
                    }
                    entry.buffer = traffic.allocate(array);
                    restored.add(entry);
                    traffic.upload(entry, array);
                }
            }
            for (Entry entry : entries.all()) {
                if (entry.rows != null) {
                    entry.buffer = rows.allocateTable(entry.rows.length, entry.array());
                    restored.add(entry);
                    entry.listsBlock = rows.writeTable(entry.buffer, entry.rows, entry.rowEntries, null);
                }
            }
        } catch (RuntimeException e) {
            for (Entry entry : restored) {
                try {
                    traffic.free(entry);
                } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                }
            }
            entries.clear();
            throw new IllegalStateException("acc4j: the present data could not be restored on the device after a"
                    + " fault, so no array is present any more: " + e.getMessage(), e);
        }
        return entries.size();
    }
}
