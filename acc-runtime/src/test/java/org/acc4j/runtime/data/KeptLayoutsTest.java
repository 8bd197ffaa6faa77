package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link KeptLayouts}: a rectangular {@code T[][]} that left the device as a whole block is entered again with no
 * allocation and no row table written when its rows are the same objects, and anew otherwise (a row replaced, a row
 * present meanwhile); the kept memory is bounded and freed when an allocation does not fit. Every test checks the
 * device's rows and the host's elements against what plain Java leaves, call after call.
 */
class KeptLayoutsTest {

    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);
    private final Random random = new Random(20261124);

    @BeforeEach
    void keepLayouts() {
        memory.blocks(true);
        memory.keepsLayouts(true);
    }

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed at the close, kept ones too");
    }

    private double[][] randomRows(int rows, int columns) {
        double[][] a = new double[rows][columns];
        for (double[] row : a) {
            for (int j = 0; j < columns; j++) {
                row[j] = random.nextDouble();
            }
        }
        return a;
    }

    private double[] onDevice(double[] row) {
        double[] out = new double[row.length];
        table.lookup(row).download(out);
        return out;
    }

    /** A call: in with COPY, a kernel doubling every element on the device, out; the host then holds the result. */
    private void call(double[][] a) {
        table.enter(a, Clause.COPY);
        for (double[] row : a) {
            assertArrayEquals(row, onDevice(row), "the device holds the host's rows");
            double[] d = onDevice(row);
            for (int j = 0; j < d.length; j++) {
                d[j] = 2 * d[j] + 1;
            }
            table.lookup(row).upload(d);
        }
        table.exit(a, Clause.COPY);
    }

    private static void twicePlusOne(double[][] a) {
        for (double[] row : a) {
            for (int j = 0; j < row.length; j++) {
                row[j] = 2 * row[j] + 1;
            }
        }
    }

    private static double[][] copy(double[][] a) {
        double[][] c = new double[a.length][];
        for (int i = 0; i < a.length; i++) {
            c[i] = a[i].clone();
        }
        return c;
    }

    @Test
    void theSameRowsAreEnteredAgainWithNothingAllocatedOrRewritten() {
        double[][] a = randomRows(9, 13);
        double[][] expected = copy(a);
        call(a);
        twicePlusOne(expected);
        assertArrayEquals(expected, a);
        int allocations = memory.allocations();
        long[] words = ((FakeMemory.FakeBuffer) lookupTable(a)).words();
        assertEquals(0, table.size(), "kept, not present");
        assertFalse(table.isPresent(a[0]));
        for (int k = 0; k < 3; k++) {
            a[k][k] = -k;
            expected[k][k] = -k;
            call(a);
            twicePlusOne(expected);
            assertArrayEquals(expected, a, "call " + k);
        }
        assertEquals(allocations, memory.allocations(), "no allocation on the later calls");
        table.enter(a, Clause.COPYIN);
        assertArrayEquals(words, ((FakeMemory.FakeBuffer) table.lookup(a)).words(), "the same row table");
        assertTrue(table.entry(a).isContiguous());
        table.exit(a, Clause.COPYIN);
    }

    private Buffer lookupTable(double[][] a) {
        table.enter(a, Clause.COPYIN);
        Buffer b = table.lookup(a);
        table.exit(a, Clause.COPYIN);
        return b;
    }

    @Test
    void aReplacedRowOrARowPresentMeanwhileGivesANewLayout() {
        double[][] a = randomRows(5, 6);
        double[][] expected = copy(a);
        call(a);
        twicePlusOne(expected);
        int allocations = memory.allocations();
        a[2] = randomRows(1, 6)[0];
        expected[2] = a[2].clone();
        call(a);
        twicePlusOne(expected);
        assertArrayEquals(expected, a);
        assertNotEquals(allocations, memory.allocations(), "a replaced row: built anew");

        // a row present on its own between calls: the kept rows cannot come back as they were
        double[] row = a[4];
        table.enter(row, Clause.COPYIN);
        row[0] = 99;
        expected[4][0] = 99;
        table.updateDevice(row);
        call(a);
        twicePlusOne(expected);
        assertTrue(table.isPresent(row), "the row keeps its own entry");
        // still present on its own, the row comes back at its own exit
        table.exit(row, Clause.COPY);
        assertArrayEquals(expected, a);
    }

    @Test
    void createAndCopyoutZeroTheKeptBlockAndAWindowCopiesNothingIn() {
        double[][] a = randomRows(4, 4);
        call(a);
        table.enter(a, Clause.CREATE);
        for (double[] row : a) {
            assertArrayEquals(new double[4], onDevice(row), "create zero-fills");
        }
        table.exit(a, Clause.CREATE);
        double[][] expected = copy(a);
        int uploads = memory.uploads();
        table.enterWritten(a, 1, 3, 1, 3);
        assertEquals(uploads, memory.uploads(), "a window copies nothing in");
        for (int i = 1; i < 3; i++) {
            double[] d = onDevice(a[i]);
            d[1] = 10 * i;
            d[2] = 10 * i + 1;
            expected[i][1] = d[1];
            expected[i][2] = d[2];
            table.lookup(a[i]).upload(d);
        }
        table.windowWritten(a);
        table.exit(a, Clause.COPY);
        assertArrayEquals(expected, a);
    }

    @Test
    void keptMemoryIsBoundedAndGivenBackWhenAnAllocationDoesNotFit() {
        double[][][] arrays = new double[KeptLayouts.MOST + 3][][];
        for (int k = 0; k < arrays.length; k++) {
            arrays[k] = randomRows(3, 100);
            call(arrays[k]);
        }
        assertEquals(2 * KeptLayouts.MOST, memory.live(), "a block and a table per kept layout, no more");
        // an allocation that fits only without the kept layouts
        memory.capacity(memory.bytesInUse() + 1000);
        double[][] big = randomRows(4, 100);
        double[][] expected = copy(big);
        call(big);
        twicePlusOne(expected);
        assertArrayEquals(expected, big);
        memory.capacity(Long.MAX_VALUE);
        // the first arrays were freed, the last kept: all still give Java's results
        for (double[][] a : arrays) {
            double[][] e = copy(a);
            call(a);
            twicePlusOne(e);
            assertArrayEquals(e, a);
        }
    }

    /** One random sequence of calls, row replacements, rows entered alone and windows, on one table. */
    private static double[][][] randomRun(boolean keep, long seed) {
        FakeMemory m = new FakeMemory();
        m.blocks(true);
        m.keepsLayouts(keep);
        Random r = new Random(seed);
        double[][][] arrays = new double[4][][];
        for (int k = 0; k < arrays.length; k++) {
            arrays[k] = new double[3 + k][5];
            for (double[] row : arrays[k]) {
                for (int j = 0; j < row.length; j++) {
                    row[j] = r.nextInt(100);
                }
            }
        }
        try (PresentTable t = new PresentTable(m)) {
            for (int op = 0; op < 400; op++) {
                double[][] a = arrays[r.nextInt(arrays.length)];
                switch (r.nextInt(6)) {
                    case 0, 1 -> {
                        // a call: in, every element doubled plus one on the device, out
                        t.enter(a, Clause.COPY);
                        for (double[] row : a) {
                            double[] d = new double[row.length];
                            t.lookup(row).download(d);
                            for (int j = 0; j < d.length; j++) {
                                d[j] = 2 * d[j] + 1;
                            }
                            t.lookup(row).upload(d);
                        }
                        t.exit(a, Clause.COPY);
                    }
                    case 2 -> {
                        // written over a window: row i gets i + op in columns 1..3
                        t.enterWritten(a, 0, a.length, 1, 4);
                        for (int i = 0; i < a.length; i++) {
                            double[] d = new double[a[i].length];
                            t.lookup(a[i]).download(d);
                            for (int j = 1; j < 4; j++) {
                                d[j] = i + op;
                            }
                            t.lookup(a[i]).upload(d);
                        }
                        t.windowWritten(a);
                        t.exit(a, Clause.COPY);
                    }
                    case 3 -> {
                        // a row replaced, or shared with another array
                        double[][] other = arrays[r.nextInt(arrays.length)];
                        a[r.nextInt(a.length)] = r.nextBoolean() ? other[r.nextInt(other.length)].clone()
                                : other[r.nextInt(other.length)];
                    }
                    case 4 -> {
                        // a row entered on its own, changed on the host and sent, then dropped
                        double[] row = a[r.nextInt(a.length)];
                        t.enter(row, Clause.COPYIN);
                        row[0] += 1000;
                        t.updateDevice(row);
                        t.exit(row, Clause.COPYIN);
                    }
                    default -> {
                        // read on the device and dropped: nothing comes back
                        t.enter(a, Clause.COPYIN);
                        t.exit(a, Clause.COPYIN);
                    }
                }
                assertEquals(0, t.size(), "nothing present between operations");
            }
        }
        assertEquals(0, m.live());
        assertEquals(List.of(), m.violations());
        return arrays;
    }

    @Test
    void randomSequencesGiveTheSameHostArraysWithAndWithoutKeptLayouts() {
        for (long seed = 1; seed <= 20; seed++) {
            double[][][] with = randomRun(true, seed);
            double[][][] without = randomRun(false, seed);
            for (int k = 0; k < with.length; k++) {
                assertArrayEquals(without[k], with[k], "seed " + seed + ", array " + k);
            }
        }
    }
}
