package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Array;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Rectangular two-dimensional arrays laid out as one block in {@link PresentTable}, on {@link FakeMemory} with blocks
 * on: one copy each way, the trailer a kernel indexes them by, rows replaced between calls (the table falls back to
 * row by row, never stale), rows shared between arrays or listed twice (never a block), rows that outlive their
 * table, every element type and sizes that are multiples of nothing, checked element by element.
 */
class PresentTableBlocksTest {

    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);
    private final Random random = new Random(2024);

    @BeforeEach
    void blocksOn() {
        memory.blocks(true);
    }

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
        assertEquals(0L, memory.bytesInUse());
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

    private static double[][] copy(double[][] a) {
        double[][] c = new double[a.length][];
        for (int i = 0; i < a.length; i++) {
            c[i] = a[i].clone();
        }
        return c;
    }

    /** The table as the device holds it: each row's address and length, then the trailer. */
    private long[] words(Object array) {
        return ((FakeMemory.FakeBuffer) table.lookup(array)).words();
    }

    /** What the device holds for {@code row}, read through its own buffer. */
    private Object onDevice(Object row) {
        Object out = Array.newInstance(row.getClass().getComponentType(), Array.getLength(row));
        table.lookup(row).download(out);
        return out;
    }

    @Test
    void aRectangularArrayIsOneBlockMovedByOneCopyEachWay() {
        double[][] a = randomRows(5, 7);
        double[][] host = copy(a);
        Entry entry = table.enter(a, Clause.COPY);
        assertTrue(entry.isContiguous());
        assertEquals(1, memory.blockCopies(), "the rows went up as one copy");
        assertEquals(1, memory.uploads());
        assertEquals(2, memory.allocations(), "the block and the table, nothing per row");
        long start = table.lookup(a[0]).address();
        long[] words = words(a);
        assertEquals(2 * 6, words.length, "five entries and the trailer");
        for (int i = 0; i < 5; i++) {
            assertEquals(start + 56L * i, words[2 * i], "row " + i + " at i * rowBytes");
            assertEquals(7, words[2 * i + 1]);
            assertArrayEquals(host[i], (double[]) onDevice(a[i]), "row " + i + " on the device");
        }
        assertEquals(start, words[10], "trailer: the block's start");
        assertEquals(7, words[11], "trailer: the row length");

        // play a kernel: every element on the device changes
        for (int i = 0; i < 5; i++) {
            double[] changed = new double[7];
            for (int j = 0; j < 7; j++) {
                changed[j] = host[i][j] * 2 + i;
                host[i][j] = changed[j];
            }
            table.lookup(a[i]).upload(changed);
        }
        int before = memory.blockCopies();
        table.exit(a, Clause.COPY);
        assertEquals(before + 1, memory.blockCopies(), "the rows came back as one copy");
        assertArrayEquals(host, a);
        assertEquals(0, table.size());
    }

    @Test
    void everyElementTypeAndShapeRoundTripsElementByElement() {
        Class<?>[] types = {byte[].class, short[].class, char[].class, int[].class, long[].class, float[].class,
                double[].class, boolean[].class};
        for (Class<?> type : types) {
            for (int rows : new int[] {1, 3, 13}) {
                for (int columns : new int[] {1, 7, 33}) {
                    Object[] a = (Object[]) Array.newInstance(type, rows);
                    Object[] expected = (Object[]) Array.newInstance(type, rows);
                    for (int i = 0; i < rows; i++) {
                        a[i] = randomArray(type.getComponentType(), columns);
                        expected[i] = Array.newInstance(type.getComponentType(), columns);
                        System.arraycopy(a[i], 0, expected[i], 0, columns);
                    }
                    String what = type.getSimpleName() + " " + rows + " x " + columns;
                    table.enterDynamic(a, Clause.COPYIN);
                    assertEquals(type != boolean[].class, table.entry(a).isContiguous(),
                            what + ": a block unless boolean");
                    for (Object row : a) {
                        for (int j = 0; j < columns; j++) {
                            // spoil the host copy: the device's values must come back
                            Array.set(row, j, Array.get(randomArray(type.getComponentType(), 1), 0));
                        }
                    }
                    table.updateHost(a);
                    for (int i = 0; i < rows; i++) {
                        for (int j = 0; j < columns; j++) {
                            assertEquals(Array.get(expected[i], j), Array.get(a[i], j), what + " element " + i
                                    + ", " + j);
                        }
                    }
                    table.exitDynamic(a, Clause.DELETE, false);
                }
            }
        }
        assertEquals(0, table.size());
    }

    private Object randomArray(Class<?> element, int n) {
        Object a = Array.newInstance(element, n);
        for (int j = 0; j < n; j++) {
            Object v;
            if (element == byte.class) {
                v = (byte) random.nextInt();
            } else if (element == short.class) {
                v = (short) random.nextInt();
            } else if (element == char.class) {
                v = (char) random.nextInt();
            } else if (element == int.class) {
                v = random.nextInt();
            } else if (element == long.class) {
                v = random.nextLong();
            } else if (element == float.class) {
                v = random.nextFloat();
            } else if (element == double.class) {
                v = random.nextDouble();
            } else {
                v = random.nextBoolean();
            }
            Array.set(a, j, v);
        }
        return a;
    }

    @Test
    void aRowReplacedBetweenCallsIsUploadedAndTheArrayIsNoLongerOneBlock() {
        double[][] a = randomRows(6, 9);
        table.enterDynamic(a, Clause.COPYIN);
        double[] old = a[3];
        double[] fresh = new double[9];
        for (int j = 0; j < 9; j++) {
            fresh[j] = -j - 0.5;
        }
        a[3] = fresh;
        // the next call enters the array: the replaced row is found by identity
        Entry entry = table.enter(a, Clause.COPY);
        assertFalse(entry.isContiguous(), "row 3 lives in a buffer of its own now");
        long[] words = words(a);
        assertEquals(0L, words[12], "trailer: not one block");
        assertEquals(0xFFFF_FFFFL, words[13], "trailer: row length -1");
        assertEquals(table.lookup(fresh).address(), words[6]);
        assertArrayEquals(fresh, (double[]) onDevice(fresh), "the new row was uploaded");
        assertFalse(table.isPresent(old), "the replaced row was dropped");
        for (int i = 0; i < 6; i++) {
            assertEquals(table.lookup(a[i]).address(), words[2 * i], "row " + i);
        }
        double[][] expected = copy(a);
        // a kernel changes row 3 and row 0 on the device
        fresh = fresh.clone();
        fresh[8] = 99;
        table.lookup(a[3]).upload(fresh);
        expected[3][8] = 99;
        double[] row0 = a[0].clone();
        row0[0] = -7;
        table.lookup(a[0]).upload(row0);
        expected[0][0] = -7;
        table.exit(a, Clause.COPY);
        table.updateHost(a);
        assertArrayEquals(expected, a, "row by row, each row from its own place");
        // the old row comes back: it is entered again, and the table lists it
        a[3] = old;
        table.updateDevice(a);
        assertEquals(table.lookup(old).address(), words(a)[6]);
        assertArrayEquals(old, (double[]) onDevice(old));
        table.exitDynamic(a, Clause.DELETE, false);
        assertEquals(0, table.size());
    }

    @Test
    void sharedOrRepeatedRowsAreNeverABlockAndStayOneDeviceCopy() {
        double[][] a = randomRows(4, 5);
        table.enterDynamic(a, Clause.COPYIN);
        assertTrue(table.entry(a).isContiguous());
        // b shares a's row 2: it keeps the row where a's block has it
        double[][] b = {randomRows(1, 5)[0], a[2]};
        table.enterDynamic(b, Clause.COPYIN);
        assertFalse(table.entry(b).isContiguous());
        assertTrue(table.entry(a).isContiguous(), "a keeps its block");
        assertEquals(table.lookup(a[2]).address(), words(b)[2], "one device copy of the shared row");
        assertEquals(0xFFFF_FFFFL, words(b)[5]);
        double[] changed = a[2].clone();
        changed[4] = 1234;
        table.lookup(b[1]).upload(changed);
        double[][] expected = copy(a);
        expected[2][4] = 1234;
        table.updateHost(a);
        assertArrayEquals(expected, a, "a change through b is a change of a");

        // one row listed twice is no block either
        double[] twice = {1, 2, 3};
        double[][] c = {twice, twice};
        table.enterDynamic(c, Clause.COPYIN);
        assertFalse(table.entry(c).isContiguous());
        assertEquals(words(c)[0], words(c)[2]);
        table.exitDynamic(c, Clause.DELETE, false);
        table.exitDynamic(b, Clause.DELETE, false);
        table.exitDynamic(a, Clause.DELETE, false);
        assertEquals(0, table.size());
    }

    @Test
    void aRowPresentOnItsOwnOutlivesItsTableAndKeepsTheBlock() {
        double[][] a = randomRows(3, 4);
        double[][] host = copy(a);
        table.enter(a, Clause.COPYIN);
        table.enterDynamic(a[1], Clause.COPYIN);
        assertSame(table.entry(a[1]), table.entry(a[1]));
        table.exit(a, Clause.COPYIN);
        assertFalse(table.isPresent(a));
        assertTrue(table.isPresent(a[1]));
        assertArrayEquals(host[1], (double[]) onDevice(a[1]), "the block is still there under the row");
        double[] changed = {9, 8, 7, 6};
        table.lookup(a[1]).upload(changed);
        table.exitDynamic(a[1], Clause.COPYOUT, false);
        assertArrayEquals(changed, a[1]);
        assertEquals(0, table.size());
    }

    @Test
    void aFailedBlockUploadLeavesNothingPresentOrAllocated() {
        double[][] a = randomRows(3, 3);
        memory.failUploads(true);
        assertThrows(IllegalStateException.class, () -> table.enter(a, Clause.COPYIN));
        memory.failUploads(false);
        assertEquals(0, table.size());
        assertEquals(0, memory.live());
        table.enter(a, Clause.CREATE);
        assertTrue(table.entry(a).isContiguous());
        assertArrayEquals(new double[3], (double[]) onDevice(a[2]), "create zero-fills the block");
        table.exit(a, Clause.CREATE);
    }

    @Test
    void anEmptyOrJaggedArrayIsNoBlock() {
        double[][] none = new double[0][];
        table.enter(none, Clause.COPY);
        assertFalse(table.entry(none).isContiguous());
        assertEquals(0, words(none).length, "no rows: no trailer");
        table.exit(none, Clause.COPY);
        double[][] jagged = {{1, 2}, {3}};
        table.enter(jagged, Clause.COPY);
        assertFalse(table.entry(jagged).isContiguous());
        assertArrayEquals(new long[] {0, 0xFFFF_FFFFL}, java.util.Arrays.copyOfRange(words(jagged), 4, 6));
        table.exit(jagged, Clause.COPY);
        assertNotEquals(0, memory.allocations());
    }

    @Test
    void afterALostContextABlockComesBackRowByRowFromTheHost() {
        double[][] a = randomRows(4, 6);
        table.enterDynamic(a, Clause.COPYIN);
        assertTrue(table.entry(a).isContiguous());
        double[][] host = copy(a);
        memory.loseContext();
        assertEquals(5, table.restore(), "the array and its four rows");
        assertFalse(table.entry(a).isContiguous(), "each row in a buffer of its own now");
        long[] words = words(a);
        assertEquals(0xFFFF_FFFFL, words[9]);
        for (int i = 0; i < 4; i++) {
            assertEquals(table.lookup(a[i]).address(), words[2 * i]);
            assertArrayEquals(host[i], (double[]) onDevice(a[i]), "row " + i + " from the host");
        }
        assertEquals(1, memory.abandoned() > 0 ? 1 : 0, "the old buffers were abandoned, not freed");
        table.exitDynamic(a, Clause.COPYOUT, false);
        assertArrayEquals(host, a);
    }
}
