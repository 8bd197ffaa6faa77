package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Two-dimensional arrays in {@link PresentTable}: rows as entries of their own plus a row table, on {@link FakeMemory}. */
class PresentTableRowsTest {

    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
        assertEquals(0L, memory.bytesInUse());
    }

    private FakeMemory.FakeBuffer device(Object array) {
        return (FakeMemory.FakeBuffer) table.lookup(array);
    }

    /** What the row table of {@code array} should hold now: each listed row's address and length. */
    /** Each row's address and length, then the trailer: the block's start and the row length, or 0 and -1. */
    private long[] expectedTable(Object[] rows) {
        long[] words = new long[2 * rows.length + 2];
        for (int i = 0; i < rows.length; i++) {
            words[2 * i] = table.lookup(rows[i]).address();
            words[2 * i + 1] = java.lang.reflect.Array.getLength(rows[i]);
        }
        boolean block = table.entry(rows).isContiguous();
        words[2 * rows.length] = block ? table.lookup(rows[0]).address() : 0;
        words[2 * rows.length + 1] = block ? java.lang.reflect.Array.getLength(rows[0]) : 0xFFFF_FFFFL;
        return words;
    }

    private static void addOne(Object data) {
        double[] x = (double[]) data;
        for (int i = 0; i < x.length; i++) {
            x[i] += 1;
        }
    }

    @Test
    void rectangularCopyEntersEachRowUploadsTheTableOnceAndCopiesEveryRowBack() {
        double[][] a = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
        Entry entry = table.enter(a, Clause.COPY);
        assertTrue(entry.isRowTable());
        assertEquals("double[3][4]", entry.array());
        assertEquals(1, entry.structuredCount());
        assertEquals(4, table.size(), "three rows and the table");
        assertEquals(4, memory.allocations());
        assertEquals(3, memory.uploads());
        assertEquals(1, memory.wordWrites());
        assertEquals(64L, table.lookup(a).bytes(), "three entries and the trailer");
        assertArrayEquals(expectedTable(a), device(a).words());
        for (double[] row : a) {
            Entry r = table.entry(row);
            assertEquals(0, r.structuredCount(), "a row's own counts are its one-dimensional uses");
            assertEquals(0, r.dynamicCount());
            assertEquals(1, r.rowReferences());
            assertFalse(r.isRowTable());
            assertArrayEquals(row, (double[]) device(row).contents());
            device(row).kernel(PresentTableRowsTest::addOne);
        }
        table.exit(a, Clause.COPY);
        assertArrayEquals(new double[][] {{2, 3, 4, 5}, {6, 7, 8, 9}, {10, 11, 12, 13}}, a);
        assertEquals(0, table.size());
        assertEquals(new TransferStats(4, 3 * 32 + 64, 3, 3 * 32, 4, 4), table.transferStats().withoutTimes());
    }

    @Test
    void jaggedRowsListTheirOwnLengthsAndEmptyRowsHaveAddressZero() {
        int[][] a = {{1}, {}, {2, 3, 4}};
        table.enter(a, Clause.COPYIN);
        assertEquals("int[3][]", table.entry(a).array());
        long[] words = device(a).words();
        assertArrayEquals(expectedTable(a), words);
        assertArrayEquals(new long[] {1, 0, 3}, new long[] {words[1], words[3], words[5]});
        assertEquals(0L, words[2], "an empty row has no device memory");
        assertNotEquals(0L, words[0]);
        assertNotEquals(words[0], words[4]);
        assertArrayEquals(new int[] {2, 3, 4}, (int[]) device(a[2]).contents());
        table.exit(a, Clause.COPYIN);
        assertEquals(0, memory.downloads());

        long[][] none = new long[0][];
        table.enter(none, Clause.COPY);
        assertEquals(0L, table.lookup(none).bytes());
        assertEquals(0L, table.lookup(none).address());
        assertEquals("long[0][]", table.entry(none).array());
        table.exit(none, Clause.COPY);
        assertFalse(table.isPresent(none));
    }

    @Test
    void aRowSharedByTwoArraysIsOneBufferAndTheLastReleaseCopiesItBack() {
        double[] shared = {1, 1};
        double[][] a = {{0, 0}, shared};
        double[][] b = {shared, {2, 2}};
        table.enter(a, Clause.COPY);
        table.enter(b, Clause.COPYIN);
        assertEquals(5, memory.allocations(), "three distinct rows and two tables");
        assertEquals(3, memory.uploads(), "the shared row went up once");
        assertEquals(2, table.entry(shared).rowReferences());
        assertEquals(device(a).words()[2], device(b).words()[0], "both tables point at one buffer");
        device(shared).kernel(PresentTableRowsTest::addOne);
        // exit in reverse order of entry, as nested regions do
        table.exit(b, Clause.COPYIN);
        assertTrue(table.isPresent(shared));
        assertEquals(1, table.entry(shared).rowReferences());
        assertFalse(table.isPresent(b[1]));
        assertEquals(0, memory.downloads());
        table.exit(a, Clause.COPY);
        assertArrayEquals(new double[] {2, 2}, shared);
        assertEquals(2, memory.downloads(), "both rows of a came back");
        assertEquals(0, table.size());
    }

    @Test
    void exitOrderDecidesWhoCopiesASharedRowBack() {
        double[] shared = {1};
        double[][] a = {shared};
        double[][] b = {shared};
        table.enter(a, Clause.COPY);
        table.enter(b, Clause.COPYIN);
        device(shared).kernel(PresentTableRowsTest::addOne);
        // a leaves first: its shared row is still listed by b's table, so nothing comes back yet
        table.exit(a, Clause.COPY);
        assertFalse(table.isPresent(a));
        assertTrue(table.isPresent(shared));
        assertEquals(0, memory.downloads());
        // b's copyin exit frees the row without a copy, as for one-dimensional data
        table.exit(b, Clause.COPYIN);
        assertArrayEquals(new double[] {1}, shared);
        assertEquals(0, memory.downloads());
        assertEquals(0, table.size());
    }

    @Test
    void aOneDimensionalArrayThatIsAlsoARowSharesItsBufferAndKeepsItsOwnCounts() {
        double[] row = {3, 4};
        double[][] a = {row, {5, 6}};
        table.enterDynamic(row, Clause.COPYIN);
        Buffer before = table.lookup(row);
        table.enter(a, Clause.COPY);
        assertSame(before, table.lookup(row));
        assertEquals(2, memory.uploads(), "the present row is not uploaded again");
        assertEquals(1, table.dynamicCount(row));
        assertEquals(1, table.entry(row).rowReferences());
        assertEquals(before.address(), device(a).words()[0]);
        device(row).kernel(PresentTableRowsTest::addOne);
        device(a[1]).kernel(PresentTableRowsTest::addOne);
        table.exit(a, Clause.COPY);
        assertArrayEquals(new double[] {6, 7}, a[1]);
        assertArrayEquals(new double[] {3, 4}, row, "still dynamically present: no copy back");
        assertEquals(0, table.entry(row).rowReferences());
        table.exitDynamic(row, Clause.COPYOUT, false);
        assertArrayEquals(new double[] {4, 5}, row);
        assertEquals(0, table.size());
    }

    @Test
    void aRowListedByAPresentTableSurvivesFinalizeOfItsOwnReferences() {
        double[] row = {1};
        double[][] a = {row};
        table.enter(a, Clause.COPYIN);
        table.enterDynamic(row, Clause.COPYIN);
        table.enterDynamic(row, Clause.COPYIN);
        table.exitDynamic(row, Clause.COPYOUT, true);
        assertEquals(0, table.dynamicCount(row));
        assertTrue(table.isPresent(row), "the table still points at it");
        assertFalse(device(row).isClosed());
        assertEquals(0, memory.downloads());
        table.exit(a, Clause.COPYIN);
        assertFalse(table.isPresent(row));
        assertEquals(0, memory.downloads());
    }

    @Test
    void copyoutZeroFillsEveryRowAndWritesEveryRowBack() {
        int[][] a = {{9, 9}, {9, 9, 9}};
        table.enter(a, Clause.COPYOUT);
        assertEquals(0, memory.uploads());
        assertEquals(1, memory.wordWrites(), "the table is uploaded even when the rows are not");
        assertArrayEquals(new int[] {0, 0}, (int[]) device(a[0]).contents());
        device(a[1]).kernel(d -> ((int[]) d)[2] = 7);
        table.exit(a, Clause.COPYOUT);
        assertArrayEquals(new int[][] {{0, 0}, {0, 0, 7}}, a, "unwritten elements come back as zero");
        assertEquals(2, memory.downloads());
    }

    @Test
    void dynamicAndStructuredCountsOfTheOuterArrayFollowTheUsualRules() {
        double[][] a = {{1}, {2}};
        table.enterDynamic(a, Clause.COPYIN);
        table.enterDynamic(a, Clause.CREATE);
        Entry entry = table.enter(a, Clause.COPY);
        assertEquals(1, entry.structuredCount());
        assertEquals(2, entry.dynamicCount());
        assertEquals(2, memory.uploads());
        assertEquals(1, memory.wordWrites(), "entering present data with the same rows rewrites nothing");
        assertEquals(1, table.entry(a[0]).rowReferences(), "one row reference per table, whatever its counts");
        device(a[0]).kernel(PresentTableRowsTest::addOne);
        table.exit(a, Clause.COPY);
        assertEquals(0, memory.downloads(), "dynamic references keep the data on the device");
        table.exitDynamic(a, Clause.COPYOUT, false);
        assertTrue(table.isPresent(a));
        table.exitDynamic(a, Clause.COPYOUT, true);
        assertFalse(table.isPresent(a));
        assertArrayEquals(new double[][] {{2}, {2}}, a);
        assertEquals(0, table.size());

        double[][] b = {{1}};
        table.enterDynamic(b, Clause.COPYIN);
        table.enter(b, Clause.PRESENT);
        table.exitDynamic(b, Clause.DELETE, false);
        assertTrue(table.isPresent(b[0]), "the structured reference holds the table and its rows");
        table.exit(b, Clause.PRESENT);
        assertEquals(2, memory.downloads(), "present and delete never copy back");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> table.enter(b, Clause.PRESENT));
        assertTrue(e.getMessage().contains("double[1][1]") && e.getMessage().contains("not present"), e.getMessage());
        IllegalStateException unbalanced = assertThrows(IllegalStateException.class, () -> table.exit(b, Clause.COPY));
        assertTrue(unbalanced.getMessage().contains("double[1][1]"), unbalanced.getMessage());
    }

    @Test
    void discardDropsTheTableAndItsRowsWithoutCopyingBack() {
        double[] kept = {5};
        double[][] a = {{1}, kept};
        table.enter(kept, Clause.COPYIN);
        table.enter(a, Clause.COPY);
        device(a[0]).kernel(PresentTableRowsTest::addOne);
        table.discard(a);
        assertArrayEquals(new double[] {1}, a[0]);
        assertEquals(0, memory.downloads());
        assertFalse(table.isPresent(a));
        assertFalse(table.isPresent(a[0]));
        assertTrue(table.isPresent(kept));
        assertEquals(0, table.entry(kept).rowReferences());
        table.discard(a);
        table.exit(kept, Clause.COPYIN);
        assertEquals(0, table.size());
    }

    @Test
    void nullRowsAreRejectedNamingTheRowBeforeAnythingIsAllocated() {
        double[][] a = {{1}, null, {3}};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> table.enter(a, Clause.COPYIN));
        assertTrue(e.getMessage().startsWith("row 1 of double[3][] (identity "), e.getMessage());
        assertTrue(e.getMessage().contains("is null"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> table.enterDynamic(a, Clause.CREATE));
        assertEquals(0, memory.allocations());
        assertEquals(0, table.size());

        // a row set to null while present: later entries fail, exits still release what the table lists
        a[1] = new double[] {2};
        table.enter(a, Clause.COPY);
        double[] listed = a[1];
        a[1] = null;
        IllegalArgumentException later = assertThrows(IllegalArgumentException.class, () -> table.enter(a, Clause.COPY));
        assertTrue(later.getMessage().startsWith("row 1 of"), later.getMessage());
        assertThrows(IllegalArgumentException.class, () -> table.updateDevice(a));
        assertEquals(1, table.structuredCount(a), "the failed entry raised no count");
        device(listed).kernel(PresentTableRowsTest::addOne);
        table.updateHost(a);
        assertArrayEquals(new double[] {3}, listed, "update host fills the rows the table lists");
        table.exit(a, Clause.COPY);
        assertEquals(0, table.size());
    }

    @Test
    void rowsReplacedWhilePresentAreEnteredAndTheTableRewritten() {
        double[] old = {1, 1};
        double[][] a = {{0, 0}, old};
        table.enter(a, Clause.COPYIN);
        long oldAddress = table.lookup(old).address();
        device(old).kernel(PresentTableRowsTest::addOne);
        double[] fresh = {7, 7, 7};
        a[1] = fresh;
        table.enter(a, Clause.COPY);
        assertEquals(1, memory.wordWrites(), "the table was written whole once, at the entry");
        assertArrayEquals(expectedTable(a), device(a).words());
        assertEquals(3L, device(a).words()[3]);
        assertNotEquals(oldAddress, device(a).words()[2]);
        assertArrayEquals(new double[] {7, 7, 7}, (double[]) device(fresh).contents(), "entered with copy: uploaded");
        assertFalse(table.isPresent(old), "the replaced row was dropped");
        assertArrayEquals(new double[] {1, 1}, old, "without a copy back");
        // the replaced row's table entry alone was rewritten (16 bytes), not the whole table
        assertEquals(new TransferStats(5, 2 * 16 + 48 + 24 + 16, 0, 0, 4, 1), table.transferStats().withoutTimes());

        // swapping rows allocates nothing but rewrites the table's two entries (each a small copy)
        a[1] = a[0];
        a[0] = fresh;
        table.enterDynamic(a, Clause.CREATE);
        assertEquals(4, memory.allocations());
        assertEquals(1, memory.wordWrites());
        assertArrayEquals(expectedTable(a), device(a).words());

        // a present clause needs a replacing row present; on failure the entry is as it was
        double[] stranger = {9, 9};
        a[1] = stranger;
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> table.enter(a, Clause.PRESENT));
        assertTrue(e.getMessage().startsWith("row 1 of double[2][] (double[2]) is not present"), e.getMessage());
        assertEquals(1, memory.wordWrites());
        assertEquals(2, table.structuredCount(a));
        table.enter(stranger, Clause.COPYIN);
        table.enter(a, Clause.PRESENT);
        assertEquals(2, table.entry(stranger).rowReferences() + table.entry(stranger).structuredCount());

        table.exit(a, Clause.PRESENT);
        table.exit(a, Clause.COPY);
        table.exit(a, Clause.COPYIN);
        assertTrue(table.isPresent(fresh), "the dynamic reference holds the table and its rows");
        table.exitDynamic(a, Clause.DELETE, false);
        table.exit(stranger, Clause.COPYIN);
        assertEquals(0, table.size());
    }

    @Test
    void aRowListedTwiceIsOneBufferWithTwoRowReferences() {
        long[] row = {1, 2};
        long[][] a = {row, {3, 4}, row};
        table.enter(a, Clause.COPY);
        assertEquals(3, memory.allocations());
        assertEquals(2, table.entry(row).rowReferences());
        long[] words = device(a).words();
        assertEquals(words[0], words[4]);
        device(row).kernel(d -> ((long[]) d)[0] = 10);
        table.updateHost(a);
        assertEquals(2, memory.downloads(), "each distinct row once");
        assertArrayEquals(new long[] {10, 2}, row);
        row[1] = 20;
        table.updateDevice(a);
        assertArrayEquals(new long[] {10, 20}, (long[]) device(row).contents());
        table.exit(a, Clause.COPY);
        assertEquals(4, memory.downloads());
        assertFalse(table.isPresent(row));
    }

    @Test
    void updateDeviceEntersReplacedRowsAndUploadsEveryRow() {
        float[][] a = {{1f}, {2f}};
        table.enterDynamic(a, Clause.CREATE);
        float[] fresh = {5f, 6f};
        a[0] = fresh;
        a[1][0] = 3f;
        table.updateDevice(a);
        assertArrayEquals(new float[] {5f, 6f}, (float[]) device(fresh).contents());
        assertArrayEquals(new float[] {3f}, (float[]) device(a[1]).contents());
        assertArrayEquals(expectedTable(a), device(a).words());
        assertThrows(IllegalStateException.class, () -> table.updateHost(new float[1][1]));
        table.exitDynamic(a, Clause.COPYOUT, false);
        assertArrayEquals(new float[][] {{5f, 6f}, {3f}}, a);
    }

    @Test
    void aFailedRowUploadLeavesNothingHeldOrAllocated() {
        int[] present = {1};
        int[][] a = {present, {2}};
        table.enterDynamic(present, Clause.COPYIN);
        memory.failUploads(true);
        assertThrows(IllegalStateException.class, () -> table.enter(a, Clause.COPYIN));
        memory.failUploads(false);
        assertFalse(table.isPresent(a));
        assertFalse(table.isPresent(a[1]));
        assertEquals(0, table.entry(present).rowReferences());
        assertEquals(1, memory.live());
        assertEquals(1, table.size());
        table.exitDynamic(present, Clause.DELETE, false);
    }

    @Test
    void everyLookupTakesTwoDimensionalArrays() {
        char[][] a = {{'x'}};
        assertFalse(table.isPresent(a));
        assertEquals(0, table.structuredCount(a));
        table.enterDynamic(a, Clause.COPYIN);
        assertTrue(table.isPresent(a));
        assertEquals(1, table.dynamicCount(a));
        assertSame(table.entry(a).buffer(), table.lookup(a));
        table.exitDynamic(a, Clause.COPYOUT, true);
        table.exitDynamic(a, Clause.COPYOUT, true);
        assertEquals(0, table.size());
    }
}
