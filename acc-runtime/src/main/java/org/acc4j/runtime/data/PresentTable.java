package org.acc4j.runtime.data;

import java.util.List;
import org.acc4j.compiler.plan.Abi;

/**
 * Which host arrays have device copies, with OpenACC 2.5+ reference counting.
 *
 * <p>Each present array has one {@link Entry}: its device {@link Buffer}, a <em>structured</em>
 * count (data regions and compute constructs: {@link #enter}/{@link #exit}) and a
 * <em>dynamic</em> count ({@code enter data}/{@code exit data}: {@link #enterDynamic}/{@link
 * #exitDynamic}). Data moves only when an array first becomes present (upload for {@code copyin}
 * and {@code copy}, zero-fill for {@code create} and {@code copyout}, so unwritten elements of a
 * copyout array come back as zero) and when both counts reach zero (download for {@code copy}
 * and {@code copyout} on that final exit), plus explicit updates. Entering data that is already
 * present only raises a count.
 *
 * <p>Arrays are keyed by identity, never by {@code equals}, and held weakly: a host array that
 * becomes unreachable while present has its buffer freed at the next operation on this table
 * (or by {@link #drainCollected()}), on the caller's thread, never on a GC thread, because
 * freeing needs the CUDA context current. Entries never reference their array.
 *
 * <p><b>Two-dimensional arrays.</b> A {@code double[][]} (any primitive element; rectangular or jagged) is
 * present as its rows plus a <em>row table</em>: a raw buffer of {@value #ROW_ENTRY_BYTES} bytes per row,
 * holding the row's device address (u64 at offset 0) and length (s32 at offset 8, then 4 zero bytes), which
 * is what a kernel receives for the array. The outer array has an entry of its own, with its own counts,
 * whose buffer is the table. Each row is an ordinary entry in its own right: a row shared by two
 * two-dimensional arrays, or also used as a one-dimensional array, is one device buffer. Besides its own
 * structured and dynamic counts a row has {@linkplain Entry#rowReferences() row references}, one per
 * place a present row table lists it; a row is freed only when all three are zero, so a table never
 * points at freed memory (and an {@code exit data finalize} on a row cannot free it under a table).
 * <ul>
 *   <li>When the outer array becomes present, each row is entered with the same clause (uploaded or
 *       zero-filled if it was absent, only referenced if present), then the table is filled and uploaded
 *       once. A null row is rejected with {@link IllegalArgumentException} naming its index, before
 *       anything is allocated.</li>
 *   <li>Every later entry of the present outer array ({@link #enter}, {@link #enterDynamic}) and {@link
 *       #updateDevice} compare its rows with the table's by identity. Rows replaced since are entered with
 *       that entry's clause (a {@code present} clause needs them present), the table is rewritten and
 *       uploaded again, and the replaced rows lose their row reference <em>without being copied back</em>:
 *       the device copy of the array now follows the host's rows. Unchanged rows cost nothing.</li>
 *   <li>When the outer array's counts both reach zero its table is freed and each of its rows loses a row
 *       reference; a row whose counts are then all zero is copied back if the exit clause copies out (into
 *       the row object the table listed) and freed. {@link #updateHost} copies back every listed row.</li>
 * </ul>
 * An outer entry references its rows (never the outer array), so rows stay reachable while listed.
 *
 * <p>A rectangular array that leaves the device as one whole block keeps its block, row table and entries out of the
 * table for its next entry with the same row objects ({@code KeptLayouts}): that entry allocates nothing and writes
 * no row table. A two-dimensional array that kernels only write over a rectangle may be entered with that window
 * ({@link #enterWritten}): nothing is copied in, and only the window comes back.
 *
 * <p>This class keeps the counts and releases; the rest is done by package-private classes, each owning one
 * concern: {@code Entries} (the weakly keyed entries and the reclamation of collected arrays), {@code RowTables}
 * (two-dimensional arrays: row tables, row references, blocks), {@code LossLedger} (what a device loss leaves stale,
 * restore), {@code TransferPlans} (the copies an async queue makes in place of the table) and {@code Traffic} (every
 * allocation, free and copy, counted).
 *
 * <p>Thread-safe: every operation holds the table's lock (its monitor), transfers included. The classes above have
 * no lock of their own and are only called under it, so there is one lock and no order to keep. After {@link
 * #close()} (idempotent, frees every buffer) data operations throw {@link IllegalStateException} and queries see an
 * empty table.
 */
public final class PresentTable implements AutoCloseable {

    /** Bytes per row-table entry: u64 device address, s32 length, 4 bytes padding. */
    public static final int ROW_ENTRY_BYTES = Abi.ROW_ENTRY_BYTES;

    /** A copy an async queue makes in place of the table: a buffer and the host array (or row) it mirrors. */
    public record Transfer(Buffer buffer, Object host) {
    }

    private final Entries entries = new Entries(this);
    private final Traffic traffic;
    private final RowTables rows;
    private final KeptLayouts kept;
    private final LossLedger ledger;
    private final TransferPlans plans;
    /** How many entries have a {@linkplain Entry#window window}: none, and no operation looks for one. */
    private int windows;
    private boolean closed;

    /** A table that takes buffers from {@code memory}. */
    public PresentTable(DeviceMemory memory) {
        if (memory == null) {
            throw new IllegalArgumentException("device memory must not be null");
        }
        this.traffic = new Traffic(memory);
        this.kept = new KeptLayouts(entries, traffic);
        traffic.pressure(kept::freeAll);
        this.rows = new RowTables(this, entries, traffic, kept);
        this.ledger = new LossLedger(entries, traffic, rows);
        this.plans = new TransferPlans(this, entries, rows);
    }

    /**
     * Structured entry (data region or compute construct). Present data has its structured count
     * raised, with no transfer (a two-dimensional array's replaced rows excepted, see the class
     * comment). Absent data is allocated with count 1 and uploaded for COPYIN and COPY, zero-filled
     * for CREATE and COPYOUT.
     *
     * @param clause COPYIN, COPYOUT, COPY, CREATE or PRESENT
     * @throws IllegalStateException    for PRESENT when the array (or a replaced row) is not present
     * @throws IllegalArgumentException for DELETE, an array that is not primitive of one or two
     *                                  dimensions, or a two-dimensional array with a null row
     */
    public synchronized Entry enter(Object array, Clause clause) {
        prepare(array);
        if (clause == null || clause == Clause.DELETE) {
            throw new IllegalArgumentException("enter takes copyin, copyout, copy, create or present, not " + clause);
        }
        Entry entry = entries.find(array);
        if (entry != null) {
            rows.refresh(entry, array, clause);
            entry.structured++;
            return entry;
        }
        if (clause == Clause.PRESENT) {
            throw new IllegalStateException(HostArrays.describe(array) + " (identity "
                    + Integer.toHexString(System.identityHashCode(array)) + ") is not present on the device:"
                    + " a present clause needs it copied in first; use Acc.copyin or an enclosing @Data");
        }
        entry = create(array, clause);
        entry.structured = 1;
        return entry;
    }

    /**
     * Structured entry, as {@link #enter enter(array, COPY)}, of a two-dimensional array that the kernels about to
     * run only write, every element of rows {@code [firstRow, endRow)} and columns {@code [firstColumn, endColumn)}
     * and no other: when it is absent and becomes one block, nothing is copied in, and its exit with a copying clause
     * copies back only that window, so the host's other elements are never touched. Until then the block holds
     * nothing but the window: any other use of the array or of one of its rows (another table listing a row, a row
     * entered or updated on its own, the array entered or updated again) first makes the block whole, copying the
     * window back if a kernel wrote it ({@link #windowWritten}) and then the host's rows in. Otherwise (present
     * already, jagged, rows present on their own) it is {@code enter(array, COPY)}.
     */
    public synchronized Entry enterWritten(Object array, long firstRow, long endRow, long firstColumn,
                                           long endColumn) {
        prepare(array, true);
        Entry present = entries.find(array);
        if (present != null && present.window != null && sameWindow(present, firstRow, endRow, firstColumn,
                endColumn)) {
            // entered again for the same kernels' window (a launch inside the call that entered it)
            present.structured++;
            return present;
        }
        if (!HostArrays.isRank2(array) || present != null) {
            return enter(array, Clause.COPY);
        }
        Entry entry = rows.createWritten(array, firstRow, endRow, firstColumn, endColumn);
        if (entry == null) {
            return enter(array, Clause.COPY);
        }
        windows++;
        entry.structured = 1;
        return entry;
    }

    /**
     * Before a kernel that writes {@code array} runs: when {@code array} was {@linkplain #enterWritten entered with a
     * window} and {@code firstRow..endColumn} (the window the host's values at this launch give, all -1 when they
     * cannot be evaluated) are not that window, the block is made whole first (see {@link #enterWritten}), so that
     * nothing the kernel does not write is copied back unset.
     */
    public synchronized void checkWindow(Object array, long firstRow, long endRow, long firstColumn, long endColumn) {
        Entry entry = windows == 0 ? null : entries.find(array);
        if (entry == null || entry.window == null) {
            return;
        }
        if (!sameWindow(entry, firstRow, endRow, firstColumn, endColumn)) {
            complete(entry);
        }
    }

    private static boolean sameWindow(Entry entry, long firstRow, long endRow, long firstColumn, long endColumn) {
        Object[] r = entry.rows;
        int columns = HostArrays.length(r[0]);
        int[] w = entry.window;
        return firstRow >= 0 && w[0] == clip(firstRow, r.length) && w[1] == clip(endRow, r.length)
                && w[2] == clip(firstColumn, columns) && w[3] == clip(endColumn, columns);
    }

    /** After a kernel wrote the window of {@code array} (see {@link #enterWritten}); anything else is ignored. */
    public synchronized void windowWritten(Object array) {
        Entry entry = windows == 0 ? null : entries.find(array);
        if (entry != null && entry.window != null) {
            entry.windowWritten = true;
        }
    }

    private static int clip(long v, int limit) {
        return (int) Math.max(0, Math.min(v, limit));
    }

    /** Makes a windowed block whole ({@link RowTables#complete}). */
    private void complete(Entry entry) {
        rows.complete(entry);
        windows--;
    }

    /**
     * Before any operation on {@code array} but the structured exit of a windowed array itself: a window that
     * {@code array} is, or is a row of, is made whole.
     */
    private void completeWindows(Object array, boolean exiting) {
        if (windows == 0) {
            return;
        }
        Entry entry = entries.find(array);
        if (entry == null) {
            return;
        }
        if (entry.window != null && !exiting) {
            complete(entry);
        } else if (entry.rows == null) {
            Entry owner = RowTables.windowedBy(entry);
            if (owner != null) {
                complete(owner);
            }
        }
    }

    /**
     * Structured exit: lowers the structured count; when both counts are then zero, downloads for
     * COPY and COPYOUT, frees the buffer and removes the entry. For a two-dimensional array the rows
     * its table lists are released as the class comment says; the host's rows now are not looked at.
     *
     * @throws IllegalStateException when the array is absent or has no structured reference
     */
    public synchronized void exit(Object array, Clause clause) {
        prepare(array, true);
        if (clause == null || clause == Clause.DELETE) {
            throw new IllegalArgumentException("exit takes copyin, copyout, copy, create or present, not " + clause);
        }
        Entry entry = requireStructured(array, "exit");
        entry.structured--;
        if (entry.unused()) {
            release(entry, clause.downloadsOnExit() ? array : null);
        }
    }

    /**
     * Drops a structured reference without copying back (for a failed kernel whose results must
     * not reach the host); frees when both counts reach zero. An absent array is ignored, so
     * failure paths may call this for every array they might have entered.
     *
     * @throws IllegalStateException when the array is present without a structured reference
     */
    public synchronized void discard(Object array) {
        prepare(array, true);
        if (entries.find(array) == null) {
            return;
        }
        Entry entry = requireStructured(array, "discard");
        entry.structured--;
        if (entry.unused()) {
            release(entry, null);
        }
    }

    /**
     * Dynamic entry ({@code enter data}, {@code Acc.copyin}/{@code Acc.create}): present data has
     * its dynamic count raised (a two-dimensional array's replaced rows entered), absent data is
     * allocated with dynamic count 1 and uploaded (COPYIN) or zero-filled (CREATE).
     */
    public synchronized Entry enterDynamic(Object array, Clause clause) {
        prepare(array);
        if (clause != Clause.COPYIN && clause != Clause.CREATE) {
            throw new IllegalArgumentException("enterDynamic takes copyin or create, not " + clause);
        }
        Entry entry = entries.find(array);
        if (entry == null) {
            entry = create(array, clause);
        } else {
            rows.refresh(entry, array, clause);
        }
        entry.dynamic++;
        return entry;
    }

    /**
     * Dynamic exit ({@code exit data}, {@code Acc.copyout}/{@code Acc.delete}): lowers the dynamic
     * count, or sets it to zero when {@code finalize}; when both counts are then zero, downloads
     * for COPYOUT and frees. An absent array, or one whose dynamic count is already zero, is left
     * alone, as OpenACC specifies. A row still listed by a present row table stays on the device.
     */
    public synchronized void exitDynamic(Object array, Clause clause, boolean finalize) {
        prepare(array);
        if (clause != Clause.COPYOUT && clause != Clause.DELETE) {
            throw new IllegalArgumentException("exitDynamic takes copyout or delete, not " + clause);
        }
        Entry entry = entries.find(array);
        if (entry == null || entry.dynamic == 0) {
            return;
        }
        entry.dynamic = finalize ? 0 : entry.dynamic - 1;
        if (entry.unused()) {
            release(entry, clause.downloadsOnExit() ? array : null);
        }
    }

    /**
     * Copies the host array to its device copy ({@code update device}). For a two-dimensional array:
     * enters rows replaced since the table was built (see the class comment), then uploads every row.
     */
    public synchronized void updateDevice(Object array) {
        prepare(array);
        Entry entry = requirePresent(array, "update device");
        if (entry.rows == null) {
            traffic.upload(entry, array);
            return;
        }
        rows.refresh(entry, array, Clause.CREATE);
        rows.upload(entry);
    }

    /**
     * Rebuilds the row table of a present two-dimensional array after the host stored rows into it (a swap of rows
     * by reference, a new row): rows present already are listed again and move nothing, rows new to the table are
     * entered and copied in (see the class comment). Nothing happens when its rows are the table's.
     */
    public synchronized void refreshRows(Object array) {
        prepare(array);
        Entry entry = requirePresent(array, "a row table's rebuild");
        rows.refresh(entry, array, Clause.COPYIN);
    }

    /**
     * Copies elements {@code [from, to)} of a present one-dimensional array (an array, or a row of a present
     * two-dimensional one) to its device copy, the others staying as they are there: {@code update device} of a
     * window. A {@code boolean[]}, a two-dimensional array or a window covering the whole array is
     * {@link #updateDevice}; an empty window copies nothing.
     */
    public synchronized void updateDeviceRange(Object array, int from, int to) {
        prepare(array);
        Entry entry = requirePresent(array, "update device");
        int length = HostArrays.length(array);
        int lo = Math.max(0, from);
        int hi = Math.min(length, to);
        if (entry.rows != null || array instanceof boolean[] || lo == 0 && hi == length) {
            updateDevice(array);
        } else if (lo < hi) {
            traffic.uploadRange(entry, array, lo, hi);
        }
    }

    /**
     * Copies the device copy back into the host array ({@code update host}). For a two-dimensional
     * array: downloads every row the table lists into that row object.
     */
    public synchronized void updateHost(Object array) {
        prepare(array);
        Entry entry = requirePresent(array, "update host");
        if (entry.rows == null) {
            traffic.download(entry, array);
            return;
        }
        rows.download(entry);
    }

    /**
     * {@link #updateDevice} for an async queue: the uploads it would make, for the caller to queue. For a
     * two-dimensional array, rows replaced since the table was built are entered first (as {@link #updateDevice}
     * does, synchronously), then each distinct row is one transfer.
     */
    public synchronized List<Transfer> updateDeviceTransfers(Object array) {
        prepare(array);
        return plans.updateDevice(requirePresent(array, "update device"), array);
    }

    /** {@link #updateHost} for an async queue: the downloads it would make (each distinct row of a rank-2 array). */
    public synchronized List<Transfer> updateHostTransfers(Object array) {
        prepare(array);
        return plans.updateHost(requirePresent(array, "update host"), array);
    }

    /**
     * {@link #enterDynamic enterDynamic(array, COPYIN)} for an async queue: raises the dynamic count as it does, and
     * returns the uploads it would make for the caller to queue (an array, or the rows of a rank-2 array, that were
     * absent are allocated and zero-filled now). Present data only gains a count (a rank-2 array's replaced rows are
     * entered synchronously), and the list is empty.
     */
    public synchronized List<Transfer> copyinTransfers(Object array) {
        prepare(array);
        return plans.copyin(array);
    }

    /**
     * For {@code copyout} on an async queue: the download that {@link #exitDynamic exitDynamic(array, COPYOUT,
     * false)} would make if it ran now, when it would release a one-dimensional array (the last dynamic reference,
     * no structured one); null otherwise (absent, still referenced, or two-dimensional). Changes nothing: the caller
     * queues the download and exits with {@link Clause#DELETE} at the wait.
     */
    public synchronized Transfer copyoutTransfer(Object array) {
        prepare(array);
        return plans.copyout(array);
    }

    /**
     * A launch is being prepared on this thread, up to {@link #endCall}: a two-dimensional array found unchanged (its
     * host rows its table's) is not scanned again in it, by this thread. Nothing else changes.
     */
    public synchronized void beginCall() {
        rows.beginCall();
    }

    /** The launch of {@link #beginCall} is over. */
    public synchronized void endCall() {
        rows.endCall();
    }

    /**
     * The shortest row's length of {@code array} when it is a present two-dimensional array whose rows are, right
     * now, the very row objects its table lists; else -1. Java arrays never change length, so the length found when
     * the table was written holds: a launch needs to read no row. The test compares the host's outer array with the
     * table's copy of it by identity and touches no row object; a row replaced since gives -1, and the caller looks
     * at the rows themselves.
     */
    public synchronized int leastRowLength(Object array) {
        return closed ? -1 : rows.leastRowLength(array);
    }

    /**
     * Whether {@code array} is a present two-dimensional array whose rows are, right now, its table's (see {@link
     * #leastRowLength}), each listed once and by no other present table, none present on its own: its rows then
     * cannot be one another or another bound array's row, unless that array is one {@link #listedAsRow} finds. For
     * one block this holds by construction; for other layouts each row's entry is looked at (not the row itself).
     */
    public synchronized boolean ownRows(Object array) {
        return !closed && rows.ownRows(array);
    }

    /**
     * Whether {@code array}, a one-dimensional array, is listed as a row by a present row table. One that is not
     * cannot be a row of an array {@link #ownRows} vouches for, since such an array's rows are all listed.
     */
    public synchronized boolean listedAsRow(Object array) {
        return !closed && rows.listedAsRow(array);
    }

    /** Whether {@code array} is a present two-dimensional array whose table lists its block's rows in order. */
    public synchronized boolean listsOneBlock(Object array) {
        Entry entry = closed ? null : entries.find(array);
        return entry != null && entry.rows != null && entry.block != null && entry.listsBlock;
    }

    /** Whether {@code array} has a device copy. */
    public synchronized boolean isPresent(Object array) {
        return lookup(array) != null;
    }

    /**
     * The buffer of {@code array} (a two-dimensional array's row table), or null when it is not
     * present.
     */
    public synchronized Buffer lookup(Object array) {
        Entry entry = entry(array);
        return entry == null ? null : entry.buffer;
    }

    /**
     * The host array whose device copy starts at {@code address} (OpenACC's {@code acc_hostptr}): the inverse of
     * {@link #lookup}{@code (array).address()}. A two-dimensional array is found by its row table's address; a
     * present row by its own.
     *
     * @throws IllegalArgumentException when no present array's copy starts there, saying whether the address
     *                                  falls inside one (Java has no interior pointers to give back)
     */
    public synchronized Object hostArray(long address) {
        drainCollected();
        String inside = null;
        for (Entry entry : entries.all()) {
            Buffer b = entry.buffer;
            Object array = entry.key.get();
            if (array == null || b.bytes() == 0) {
                continue;
            }
            if (b.address() == address) {
                return array;
            }
            if (address > b.address() && address - b.address() < b.bytes()) {
                inside = " (it is byte " + (address - b.address()) + " of the copy of " + entry.array()
                        + ", which starts at 0x" + Long.toHexString(b.address())
                        + ": Acc.hostptr takes the address Acc.deviceptr gives)";
            }
        }
        throw new IllegalArgumentException("0x" + Long.toHexString(address) + " is not the device address of a present"
                + " array" + (inside != null ? inside : ": no present array's copy starts or lies there (an array"
                + " not present, or one of length 0, has no device address)"));
    }

    /** The entry of {@code array}, or null when it is not present. */
    public synchronized Entry entry(Object array) {
        HostArrays.requireData(array);
        drainCollected();
        return entries.find(array);
    }

    /** The structured count of {@code array}, 0 when absent. */
    public synchronized int structuredCount(Object array) {
        Entry entry = entry(array);
        return entry == null ? 0 : entry.structured;
    }

    /** The dynamic count of {@code array}, 0 when absent. */
    public synchronized int dynamicCount(Object array) {
        Entry entry = entry(array);
        return entry == null ? 0 : entry.dynamic;
    }

    /**
     * Number of entries (after freeing those collected): a present two-dimensional array counts
     * one, and each distinct row one more.
     */
    public synchronized int size() {
        drainCollected();
        return entries.size();
    }

    /**
     * Sets the listener told of every copy from now on (the time profile), or removes it with null. Without
     * one a copy costs two clock reads more than the copy itself.
     */
    public void listener(TransferListener listener) {
        traffic.listener(listener);
    }

    /**
     * Frees the layouts kept for two-dimensional arrays that left the device (their blocks and row tables, see the
     * class comment); returns whether there was one. An allocation that does not fit does this by itself.
     */
    public synchronized boolean freeKept() {
        return kept.freeAll();
    }

    /** Transfers and allocations so far, row tables included. */
    public synchronized TransferStats transferStats() {
        return traffic.stats();
    }

    /**
     * Frees the buffers of arrays the garbage collector has reclaimed; needs the CUDA context
     * current on this thread. Every table operation does this first. A reclaimed two-dimensional
     * array releases its rows without copying them back.
     *
     * @return how many arrays were freed (rows released with them not counted)
     */
    public synchronized int drainCollected() {
        int freed = 0;
        RuntimeException failure = null;
        for (Entry entry = entries.nextCollected(); entry != null; entry = entries.nextCollected()) {
            try {
                release(entry, null);
                freed++;
            } catch (RuntimeException e) {
                failure = Traffic.chain(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return freed;
    }

    /**
     * Rebuilds the device side after the context that held every buffer was destroyed (a sticky fault, then {@code
     * Context.reset}): each buffer is abandoned, not freed; each present array gets a new buffer filled from the host
     * array as it is now, and each two-dimensional array a new row table listing its rows' new buffers. Counts are
     * kept; arrays the collector reclaimed are dropped. Device-side changes not yet copied back are therefore lost.
     * If a buffer cannot be made again, every entry is dropped (nothing stays present) and the failure is thrown.
     * Needs the new context current on this thread.
     *
     * @return how many arrays (rows and two-dimensional arrays each counted) are present again
     */
    public synchronized int restore() {
        if (closed) {
            return 0;
        }
        // every buffer is filled from the host again: a window no longer stands apart from the rest
        for (Entry entry : entries.all()) {
            if (entry.window != null) {
                RowTables.dropWindow(entry);
            }
        }
        windows = 0;
        kept.abandonAll();
        return ledger.restore();
    }

    /**
     * Records that a kernel about to run may write {@code array}'s device copy (every row of a two-dimensional
     * array), so that a fault before its next copy to the host can say the change is lost ({@link #markLost}).
     * An absent array is ignored.
     */
    public synchronized void markWritten(Object array) {
        ledger.markWritten(array);
    }

    /**
     * After a sticky fault, before the device side is {@linkplain #restore() restored} or {@linkplain #lose() lost}:
     * every present array a kernel may have changed since its last copy to or from the host is recorded as lost,
     * since its host copy is stale (see {@link #lostArray}).
     *
     * @return their descriptions, such as {@code double[1024]}, in no particular order
     */
    public synchronized List<String> markLost() {
        return ledger.markLost();
    }

    /**
     * The device is gone for the rest of the process (a sticky fault the driver does not let the runtime recover
     * from): every buffer is abandoned, not freed, and nothing is present any more. Call {@link #markLost} first.
     * Needs no context.
     */
    public synchronized void lose() {
        windows = 0;
        kept.abandonAll();
        ledger.lose();
    }

    /**
     * The description of {@code array} (or of its first row) if a fault lost its device-side changes
     * ({@link #markLost}), else null; a two-dimensional array is looked at with its rows as they are now.
     */
    public synchronized String lostArray(Object array) {
        return ledger.lostArray(array);
    }

    /**
     * Forgets that {@code array} (and its rows) lost device-side changes: the user's {@code Acc.delete}, saying the
     * device copy is not wanted, after giving the host copy the values it needs.
     */
    public synchronized void forgetLost(Object array) {
        ledger.forget(array);
    }

    /** Frees every buffer (without copying back); later calls do nothing. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        try {
            kept.freeAll();
        } catch (RuntimeException e) {
            failure = e;
        }
        for (Entry entry : entries.snapshot()) {
            entry.key.clear();
            try {
                traffic.free(entry);
            } catch (RuntimeException e) {
                failure = Traffic.chain(failure, e);
            }
        }
        entries.clear();
        // nothing to free for keys already queued: their entries were closed above
        entries.forgetCollected();
        try {
            traffic.memory().close();
        } catch (RuntimeException e) {
            failure = Traffic.chain(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Checks the table is open and the array supported, frees collected arrays, then completes windows it uses. */
    private void prepare(Object array) {
        prepare(array, false);
    }

    private void prepare(Object array, boolean exiting) {
        if (closed) {
            throw new IllegalStateException("the present table is closed");
        }
        HostArrays.requireData(array);
        drainCollected();
        completeWindows(array, exiting);
    }

    private Entry requirePresent(Object array, String operation) {
        Entry entry = entries.find(array);
        if (entry == null) {
            throw new IllegalStateException(HostArrays.describe(array) + " is not present on the device at "
                    + operation + ": use Acc.copyin or an enclosing @Data first");
        }
        return entry;
    }

    private Entry requireStructured(Object array, String operation) {
        Entry entry = entries.find(array);
        if (entry == null) {
            throw new IllegalStateException(operation + " of " + HostArrays.describe(array)
                    + ", which is not present on the device (no matching enter)");
        }
        if (entry.structured == 0) {
            throw new IllegalStateException(operation + " of " + HostArrays.describe(array)
                    + " without a matching structured enter (structured count is 0, dynamic count "
                    + entry.dynamic + ")");
        }
        return entry;
    }

    /** Allocates and initialises a new entry with every count 0, then records it; a row's entry too. */
    Entry create(Object array, Clause clause) {
        if (HostArrays.isRank2(array)) {
            return rows.create(array, clause);
        }
        Buffer buffer = traffic.allocate(array);
        try {
            if (clause.uploadsOnEntry()) {
                traffic.upload(buffer, array);
            } else {
                buffer.zero();
            }
        } catch (RuntimeException e) {
            // the entry was never recorded: free the buffer here
            throw traffic.freeing(buffer, e);
        }
        return entries.record(array, buffer, null, null);
    }

    /**
     * Removes the entry and frees its buffer (even when a download fails); a row's entry too. Unless {@code
     * downloadTo} is null, a one-dimensional entry is first downloaded into it; a two-dimensional entry's rows each
     * lose a row reference, and those then unused are released in turn, copied back into the row objects the table
     * listed unless {@code downloadTo} is null (as one copy when the array leaves as a whole block).
     */
    void release(Entry entry, Object downloadTo) {
        boolean rank2 = entry.rows != null;
        if (rank2) {
            // rows that stay present (listed elsewhere, or present on their own) keep their state
            RowTables.settle(entry);
        }
        boolean windowed = rank2 && entry.window != null;
        boolean whole = rank2 && (windowed || rows.leavesAsBlock(entry));
        // a whole block may be kept for the array's next entry: out of the table, its key kept
        boolean keep = whole && kept.wanted(entry);
        if (!keep) {
            entries.remove(entry);
        }
        RuntimeException failure = null;
        boolean wholeBlock = downloadTo != null && whole;
        try {
            if (downloadTo != null && !rank2) {
                traffic.download(entry, downloadTo);
            } else if (windowed && downloadTo != null) {
                // only the window is on the device: it alone comes back, the host's other elements stay
                rows.downloadWindow(entry);
            } else if (wholeBlock) {
                // every row leaves the device with this table: one copy back instead of one per row
                rows.downloadBlock(entry);
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        if (windowed) {
            RowTables.dropWindow(entry);
            windows--;
        }
        if (keep && failure == null) {
            kept.keep(entry);
            return;
        }
        if (keep) {
            entries.remove(entry);
        }
        try {
            traffic.free(entry);
        } catch (RuntimeException e) {
            failure = Traffic.chain(failure, e);
        }
        if (rank2) {
            failure = rows.unholdAll(entry, downloadTo != null && !wholeBlock, failure);
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public synchronized String toString() {
        return "PresentTable[" + entries.size() + " arrays" + (closed ? ", closed" : "") + "]";
    }
}
