package org.acc4j.runtime.data;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import org.acc4j.runtime.data.PresentTable.Transfer;

/**
 * The copies an async queue makes in place of the present table: for {@code copyin}, {@code copyout} and both
 * updates, the counts change (or, for {@code copyout}, are left for the wait to change) exactly as the synchronous
 * routines change them, and the list returned holds exactly the copies those routines would have made, each a
 * buffer and the host array or row it mirrors, for the caller to queue.
 *
 * <p>Invariants: every buffer listed belongs to an entry present when the list is returned; a two-dimensional array
 * lists each distinct row once; rows replaced since a row table was written are entered synchronously before the
 * list is made, so a listed buffer is never one the table is about to let go of.
 *
 * <p>Owned by one {@link PresentTable} and used only under its lock; it has no lock of its own.
 */
final class TransferPlans {

    private final PresentTable table;
    private final Entries entries;
    private final RowTables rows;

    TransferPlans(PresentTable table, Entries entries, RowTables rows) {
        this.table = table;
        this.entries = entries;
        this.rows = rows;
    }

    /** See {@link PresentTable#updateDeviceTransfers}; {@code entry} is {@code array}'s. */
    List<Transfer> updateDevice(Entry entry, Object array) {
        if (entry.rows == null) {
            return List.of(new Transfer(entry.buffer, array));
        }
        rows.refresh(entry, array, Clause.CREATE);
        return rowTransfers(entry);
    }

    /** See {@link PresentTable#updateHostTransfers}; {@code entry} is {@code array}'s. */
    List<Transfer> updateHost(Entry entry, Object array) {
        return entry.rows == null ? List.of(new Transfer(entry.buffer, array)) : rowTransfers(entry);
    }

    /** See {@link PresentTable#copyinTransfers}. */
    List<Transfer> copyin(Object array) {
        if (entries.find(array) != null) {
            table.enterDynamic(array, Clause.COPYIN);
            return List.of();
        }
        List<Object> fresh = new ArrayList<>();
        if (HostArrays.isRank2(array)) {
            IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>();
            for (Object row : RowTables.currentRows(array)) {
                if (entries.find(row) == null && seen.put(row, Boolean.TRUE) == null) {
                    fresh.add(row);
                }
            }
        } else {
            fresh.add(array);
        }
        table.enterDynamic(array, Clause.CREATE);
        List<Transfer> transfers = new ArrayList<>();
        for (Object a : fresh) {
            transfers.add(new Transfer(entries.find(a).buffer, a));
        }
        return transfers;
    }

    /** See {@link PresentTable#copyoutTransfer}. */
    Transfer copyout(Object array) {
        Entry entry = entries.find(array);
        if (entry == null || entry.rows != null || entry.dynamic != 1 || entry.structured != 0
                || entry.rowReferences != 0) {
            return null;
        }
        return new Transfer(entry.buffer, array);
    }

    private static List<Transfer> rowTransfers(Entry entry) {
        List<Transfer> transfers = new ArrayList<>();
        for (int i : RowTables.distinctRows(entry)) {
            transfers.add(new Transfer(entry.rowEntries[i].buffer, entry.rows[i]));
        }
        return transfers;
    }
}
