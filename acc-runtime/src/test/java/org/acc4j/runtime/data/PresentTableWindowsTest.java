package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PresentTable#enterWritten}: a {@code T[][]} that kernels only write, over a window of rows and columns, is
 * one block with nothing copied in, and only the window comes back; elements outside it keep the host's values,
 * whatever the device memory held (the fake memory poisons new buffers). Any other use of the array or of one of its
 * rows makes the block whole first, the window copied to the host before when a kernel wrote it. Each test plays the
 * kernel by writing the device rows and checks every element against what plain Java leaves.
 */
class PresentTableWindowsTest {

    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);
    private final Random random = new Random(20261124);

    @BeforeEach
    void blocksOn() {
        memory.blocks(true);
    }

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
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

    /** What the device holds for {@code row}. */
    private double[] onDevice(double[] row) {
        double[] out = new double[row.length];
        table.lookup(row).download(out);
        return out;
    }

    /**
     * Plays a kernel writing {@code f(i, j) = 1000 i + j + salt} over the window on the device, and into {@code
     * expected} as plain Java would; the device's other elements stay as they are.
     */
    private void kernel(double[][] a, double[][] expected, int r0, int r1, int c0, int c1, double salt) {
        for (int i = r0; i < r1; i++) {
            double[] row = onDevice(a[i]);
            for (int j = c0; j < c1; j++) {
                row[j] = 1000.0 * i + j + salt;
                expected[i][j] = row[j];
            }
            table.lookup(a[i]).upload(row);
        }
    }

    @Test
    void nothingGoesInAndOnlyTheWindowComesBack() {
        double[][] a = randomRows(6, 9);
        double[][] expected = copy(a);
        Entry entry = table.enterWritten(a, 1, 5, 1, 8);
        assertTrue(entry.isContiguous(), "one block");
        assertEquals(0, memory.uploads(), "nothing copied in");
        assertEquals(0, memory.blockCopies());
        kernel(a, expected, 1, 5, 1, 8, 0.5);
        table.windowWritten(a);
        int downloads = memory.downloads();
        table.exit(a, Clause.COPY);
        assertEquals(1, memory.windowCopies(), "the window came back as one copy");
        assertEquals(downloads + 1, memory.downloads());
        assertArrayEquals(expected, a, "the window from the kernel, the edges the host's");
        assertEquals(0, table.size());
    }

    @Test
    void aWindowPastTheArrayIsClippedAndAnEmptyOneCopiesNothing() {
        double[][] a = randomRows(4, 5);
        double[][] expected = copy(a);
        table.enterWritten(a, 2, 40, 0, 50);
        kernel(a, expected, 2, 4, 0, 5, 1.5);
        table.windowWritten(a);
        table.exit(a, Clause.COPY);
        assertArrayEquals(expected, a);

        double[][] b = randomRows(3, 3);
        double[][] same = copy(b);
        table.enterWritten(b, 1, 1, 0, 3);
        int downloads = memory.downloads();
        table.exit(b, Clause.COPY);
        assertEquals(downloads + 1, memory.downloads(), "an empty window is one copy of nothing");
        assertArrayEquals(same, b);
    }

    @Test
    void aDiscardCopiesNothingBack() {
        double[][] a = randomRows(5, 5);
        double[][] host = copy(a);
        table.enterWritten(a, 0, 5, 0, 5);
        kernel(a, copy(a), 0, 5, 0, 5, 2.5);
        table.windowWritten(a);
        int downloads = memory.downloads();
        table.discard(a);
        assertEquals(downloads, memory.downloads(), "a failed call copies nothing back");
        assertArrayEquals(host, a);
    }

    @Test
    void enteredAgainForTheSameWindowItStaysAWindow() {
        double[][] a = randomRows(7, 4);
        double[][] expected = copy(a);
        table.enterWritten(a, 1, 6, 1, 3);
        Entry again = table.enterWritten(a, 1, 6, 1, 3);
        assertEquals(2, again.structuredCount());
        assertEquals(0, memory.uploads(), "still nothing copied in");
        table.checkWindow(a, 1, 6, 1, 3);
        assertEquals(0, memory.uploads(), "the launch's window is the same");
        kernel(a, expected, 1, 6, 1, 3, 3.5);
        table.windowWritten(a);
        table.exit(a, Clause.COPY);
        assertEquals(0, memory.windowCopies(), "still present: nothing back yet");
        table.exit(a, Clause.COPY);
        assertEquals(1, memory.windowCopies());
        assertArrayEquals(expected, a);
    }

    @Test
    void aLaunchWithAnotherWindowMakesTheBlockWholeFirst() {
        double[][] a = randomRows(6, 6);
        double[][] expected = copy(a);
        table.enterWritten(a, 1, 5, 1, 5);
        // the host's values at the launch give another window (or none): the block gets the host's rows
        table.checkWindow(a, 0, 6, 2, 5);
        assertEquals(1, memory.blockCopies(), "the whole array went in as one copy");
        for (int i = 0; i < 6; i++) {
            assertArrayEquals(a[i], onDevice(a[i]), "row " + i);
        }
        kernel(a, expected, 0, 6, 2, 5, 4.5);
        table.windowWritten(a);
        table.exit(a, Clause.COPY);
        assertEquals(0, memory.windowCopies(), "the whole block came back");
        assertArrayEquals(expected, a);

        double[][] b = randomRows(3, 3);
        table.enterWritten(b, 0, 3, 0, 3);
        table.checkWindow(b, -1, -1, -1, -1);
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(b[i], onDevice(b[i]), "not evaluable: the host's rows went in");
        }
        table.exit(b, Clause.COPYIN);
    }

    @Test
    void aRowSharedWithAnotherArrayCompletesTheBlockBeforeItIsRead() {
        double[][] next = randomRows(5, 6);
        double[][] expected = copy(next);
        table.enterWritten(next, 1, 4, 1, 5);
        // another array of the call lists row 2 of next: it reads the host's values there
        double[][] u = {next[2], new double[6], next[0]};
        table.enter(u, Clause.COPYIN);
        assertArrayEquals(next[2], onDevice(next[2]), "the shared row holds the host's values");
        assertArrayEquals(next[0], onDevice(next[0]));
        kernel(next, expected, 1, 4, 1, 5, 5.5);
        table.windowWritten(next);
        table.exit(u, Clause.COPYIN);
        table.exit(next, Clause.COPY);
        assertArrayEquals(expected, next);
    }

    @Test
    void aRowUsedOnItsOwnAfterTheKernelSeesTheKernelsValues() {
        double[][] a = randomRows(4, 7);
        double[][] expected = copy(a);
        table.enterWritten(a, 0, 4, 2, 6);
        kernel(a, expected, 0, 4, 2, 6, 6.5);
        table.windowWritten(a);
        // the row entered on its own: the window goes to the host first, then the host's rows to the device
        table.enter(a[1], Clause.COPYIN);
        assertArrayEquals(expected[1], a[1], "the kernel's values reached the host first");
        assertArrayEquals(expected[1], onDevice(a[1]));
        table.exit(a[1], Clause.COPYIN);
        table.exit(a, Clause.COPY);
        assertArrayEquals(expected, a);
    }

    @Test
    void anUpdateOfTheArrayBeforeTheKernelSendsTheHostsRows() {
        double[][] a = randomRows(3, 4);
        table.enterWritten(a, 0, 3, 1, 3);
        a[1][0] = 42;
        table.updateDevice(a);
        assertArrayEquals(a[1], onDevice(a[1]));
        table.exit(a, Clause.COPYIN);
        assertEquals(42.0, a[1][0]);
    }

    @Test
    void presentOrJaggedArraysArePlainCopies() {
        double[][] a = randomRows(3, 3);
        table.enter(a, Clause.COPYIN);
        int uploads = memory.uploads();
        Entry e = table.enterWritten(a, 0, 3, 0, 3);
        assertEquals(2, e.structuredCount());
        assertEquals(uploads, memory.uploads(), "present: nothing moves");
        table.exit(a, Clause.COPY);
        table.exit(a, Clause.COPYIN);

        double[][] jagged = {new double[3], new double[5], new double[3]};
        jagged[1][4] = 7;
        table.enterWritten(jagged, 0, 3, 0, 3);
        assertTrue(memory.uploads() > uploads, "jagged: copied in as a plain copy");
        assertArrayEquals(jagged[1], onDevice(jagged[1]));
        table.exit(jagged, Clause.COPY);
        assertEquals(7.0, jagged[1][4]);
        assertFalse(table.isPresent(jagged));
    }
}
