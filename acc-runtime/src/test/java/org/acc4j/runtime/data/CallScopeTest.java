package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.acc4j.compiler.site.Effect;
import org.acc4j.compiler.site.Origin;
import org.acc4j.runtime.launch.CallScope;
import org.junit.jupiter.api.Test;

/**
 * The implicit data region of a call with launch sites, on fake device memory: what moves, and when.
 */
class CallScopeTest {
    static final Effect READ_0 = new Effect(false, new Origin.Local(0, 0, "x"), false);
    static final Effect WRITE_0 = new Effect(true, new Origin.Local(0, 0, "x"), false);

    PresentTable table = new PresentTable(new FakeMemory());

    long up() {
        return table.transferStats().copiesToDevice();
    }

    long down() {
        return table.transferStats().copiesToHost();
    }

    @Test
    void aTimeLoopWithASwapMovesEachArrayOnceEachWay() {
        double[] a = new double[100];
        double[] b = new double[100];
        CallScope s = new CallScope(table, getClass().getClassLoader());
        for (int it = 0; it < 50; it++) {
            s.adopt(a, "a", Clause.COPYIN);
            s.adopt(b, "b", Clause.COPY);
            s.written(b);
            s.host(List.of(), new Object[0], getClass());
            double[] t = a;
            a = b;
            b = t;
        }
        s.close();
        assertEquals(2, up());
        assertEquals(2, down());
        assertFalse(table.isPresent(a));
        assertFalse(table.isPresent(b));
    }

    @Test
    void hostCodeReadingAKernelsResultGetsItAndItsWriteGoesBack() {
        double[] x = new double[10];
        CallScope s = new CallScope(table, getClass().getClassLoader());
        s.adopt(x, "x", Clause.COPY);
        s.written(x);
        // host code reads x: copied to the host, once
        s.host(List.of(READ_0), new Object[] {x}, getClass());
        s.host(List.of(READ_0), new Object[] {x}, getClass());
        assertEquals(1, down());
        // host code writes x: the next kernel gets it again
        s.host(List.of(WRITE_0), new Object[] {x}, getClass());
        s.adopt(x, "x", Clause.COPY);
        assertEquals(2, up());
        // nothing changed on the device since: nothing comes back at the end
        s.close();
        assertEquals(1, down());
    }

    @Test
    void aNestRunOnTheHostWritesBackToAnArrayPresentAroundTheCall() {
        double[] x = new double[10];
        table.enterDynamic(x, Clause.COPYIN);
        long before = up();
        CallScope s = new CallScope(table, getClass().getClassLoader());
        // the nest runs on the host for this call (an aliasing check refused it) and writes x, never entered
        s.host(List.of(WRITE_0), new Object[] {x}, getClass());
        s.close();
        // x stays present: its device copy takes the host's values, so a later copyout brings those back
        assertEquals(before + 1, up());
        assertEquals(true, table.isPresent(x));
    }

    @Test
    void aNestedCallsResultsReachTheCallersHostCode() {
        double[] x = new double[10];
        CallScope outer = new CallScope(table, getClass().getClassLoader());
        outer.adopt(x, "x", Clause.COPY);
        CallScope inner = new CallScope(table, getClass().getClassLoader());
        inner.adopt(x, "x", Clause.COPY);
        inner.written(x);
        inner.close(outer);
        // still present for the caller, and newer on the device: the caller's host read brings it back
        assertEquals(0, down());
        outer.host(List.of(READ_0), new Object[] {x}, getClass());
        assertEquals(1, down());
        // the caller's next kernel does not overwrite the device's copy with a stale host one
        outer.adopt(x, "x", Clause.COPY);
        assertEquals(1, up());
        outer.close();
        assertFalse(table.isPresent(x));
    }

    @Test
    void anArrayPresentAroundTheCallStaysAndGetsTheHostsChanges() {
        double[] x = new double[10];
        table.enterDynamic(x, Clause.COPYIN);
        CallScope s = new CallScope(table, getClass().getClassLoader());
        s.adopt(x, "x", Clause.COPY);
        s.host(List.of(WRITE_0), new Object[] {x}, getClass());
        s.close();
        // uploaded at Acc.copyin, then again because host code changed it during the call
        assertEquals(2, up());
        assertEquals(0, down());
        assertEquals(1, table.dynamicCount(x));
    }

    @Test
    void aGridTheKernelsOnlyWriteGoesInEmptyAndOnlyItsWindowComesBack() {
        FakeMemory memory = new FakeMemory();
        memory.blocks(true);
        memory.keepsLayouts(true);
        PresentTable t = new PresentTable(memory);
        double[][] u = new double[6][8];
        double[][] next = new double[6][8];
        for (int i = 0; i < 6; i++) {
            for (int j = 0; j < 8; j++) {
                u[i][j] = i + 0.5 * j;
                next[i][j] = -1 - i - j;
            }
        }
        double[][] before = new double[6][];
        for (int i = 0; i < 6; i++) {
            before[i] = next[i].clone();
        }
        for (int call = 0; call < 3; call++) {
            CallScope s = new CallScope(t, getClass().getClassLoader());
            s.adopt(u, "u", Clause.COPYIN);
            assertEquals(true, s.adoptWritten(next, "next", 1, 5, 1, 7));
            assertEquals(false, s.adoptWritten(next, "next", 1, 5, 1, 7), "in the scope already");
            // play the kernel: the interior of next gets u's values
            for (int i = 1; i < 5; i++) {
                double[] row = new double[8];
                t.lookup(next[i]).download(row);
                System.arraycopy(u[i], 1, row, 1, 6);
                t.lookup(next[i]).upload(row);
            }
            t.windowWritten(next);
            s.written(next);
            s.close();
            assertEquals(call + 1, memory.windowCopies(), "the window came back, call " + call);
            for (int i = 0; i < 6; i++) {
                for (int j = 0; j < 8; j++) {
                    boolean interior = i >= 1 && i < 5 && j >= 1 && j < 7;
                    assertEquals(interior ? u[i][j] : before[i][j], next[i][j], "[" + i + "][" + j + "]");
                }
            }
        }
        assertEquals(3, memory.blockCopies() - memory.windowCopies(), "u went in once a call, next never");
        // present already: adopted plainly
        t.enter(next, Clause.COPYIN);
        CallScope s = new CallScope(t, getClass().getClassLoader());
        assertEquals(false, s.adoptWritten(next, "next", 1, 5, 1, 7));
        s.close();
        t.exit(next, Clause.COPYIN);
        t.close();
        assertEquals(0, memory.live());
    }

    /** Plays a kernel that doubles every element of {@code a}'s device copy (and checks the host copy is untouched). */
    static void doubleOnTheDevice(PresentTable t, double[][] a) {
        for (double[] row : a) {
            double[] d = new double[row.length];
            t.lookup(row).download(d);
            for (int j = 0; j < d.length; j++) {
                d[j] *= 2;
            }
            t.lookup(row).upload(d);
        }
    }

    @Test
    void hostCodeReadingOneElementOfAMatrixMovesItsRowAndASwapMovesNoRow() {
        for (boolean blocks : new boolean[] {false, true}) {
            FakeMemory memory = new FakeMemory();
            memory.blocks(blocks);
            PresentTable t = new PresentTable(memory);
            double[][] a = new double[8][16];
            for (int i = 0; i < 8; i++) {
                for (int j = 0; j < 16; j++) {
                    a[i][j] = 100 * i + j;
                }
            }
            double[][] expected = new double[8][];
            for (int i = 0; i < 8; i++) {
                expected[i] = a[i].clone();
            }
            CallScope s = new CallScope(t, getClass().getClassLoader());
            s.adopt(a, "a", Clause.COPY);
            doubleOnTheDevice(t, a);
            s.written(a);
            long down = t.transferStats().copiesToHost();
            long upBytes = t.transferStats().bytesToDevice();
            // host code reads a[3][5]: row 3 alone comes back, once
            s.hostRead(a[3]);
            s.hostRead(a[3]);
            assertEquals(down + 1, t.transferStats().copiesToHost());
            assertEquals(600 + 10, a[3][5]);
            assertEquals(400, a[4][0], "row 4 stays where it is");
            // rows 3 and 5 swapped by reference: the replaced row 5 comes back (it may be kept elsewhere)
            s.hostRowStore(a, 3, a[5]);
            s.hostRowStore(a, 5, a[3]);
            double[] r3 = a[3];
            a[3] = a[5];
            a[5] = r3;
            assertEquals(down + 2, t.transferStats().copiesToHost());
            // host code writes one element of row 0: its window alone goes before the next kernel
            s.hostWrite(a[0], 2);
            a[0][2] = -1;
            s.adopt(a, "a", Clause.COPY);
            long moved = t.transferStats().bytesToDevice() - upBytes;
            assertTrue(moved <= Double.BYTES + 3 * PresentTable.ROW_ENTRY_BYTES,
                    "the window and the two table entries (and the trailer), no row: " + moved + " bytes");
            doubleOnTheDevice(t, a);
            s.written(a);
            s.close();
            double[] e3 = expected[3];
            expected[3] = expected[5];
            expected[5] = e3;
            for (int i = 0; i < 8; i++) {
                for (int j = 0; j < 16; j++) {
                    double want = i == 0 && j == 2 ? -2 : 4 * expected[i][j];
                    assertEquals(want, a[i][j], "blocks " + blocks + " a[" + i + "][" + j + "]");
                }
            }
            assertFalse(t.isPresent(a));
            t.close();
            assertEquals(0, memory.live());
        }
    }

    @Test
    void manyRowsReadOnTheHostComeAsOneCopyAndAReplacedRowKeepsItsValues() {
        FakeMemory memory = new FakeMemory();
        memory.blocks(true);
        PresentTable table = new PresentTable(memory);
        double[][] a = new double[64][4];
        for (int i = 0; i < 64; i++) {
            java.util.Arrays.fill(a[i], i);
        }
        CallScope s = new CallScope(table, getClass().getClassLoader());
        s.adopt(a, "a", Clause.COPY);
        doubleOnTheDevice(table, a);
        s.written(a);
        long down = table.transferStats().copiesToHost();
        for (int i = 0; i < 64; i++) {
            s.hostRead(a[i]);
            assertEquals(2 * i, a[i][0]);
        }
        long rows = table.transferStats().copiesToHost() - down;
        assertTrue(rows <= CallScope.ROWS_ONE_BY_ONE + 1, "rows one by one, then the block: " + rows);
        doubleOnTheDevice(table, a);
        s.written(a);
        double[] old = a[7];
        double[] fresh = new double[4];
        s.hostRowStore(a, 7, fresh);
        a[7] = fresh;
        s.adopt(a, "a", Clause.COPY);
        doubleOnTheDevice(table, a);
        s.written(a);
        s.close();
        assertEquals(28, old[0], "the replaced row holds the kernel's values");
        assertEquals(0, a[7][0], "the new row went in and came back doubled: 0");
        assertEquals(8 * 10, a[10][0]);
    }

    @Test
    void hostCodeAlternatingBetweenArraysStaysOnTheFastPathsUntilAKernel() {
        double[][] a = new double[4][8];
        double[] x = new double[8];
        double[] y = new double[8];
        int[] notPresent = new int[8];
        CallScope s = new CallScope(table, getClass().getClassLoader());
        s.adopt(a, "a", Clause.COPY);
        s.adopt(x, "x", Clause.COPY);
        s.adopt(y, "y", Clause.COPY);
        s.written(a);
        s.written(x);
        for (Object u : new Object[] {a[0], a[1], x, y}) {
            assertFalse(s.readNeedsNothing(u) && u != y, "a unit a kernel wrote, before its first read");
            s.hostRead(u);
        }
        for (int i = 0; i < 8; i++) {
            for (Object u : new Object[] {a[0], a[1], x, y}) {
                assertTrue(s.readNeedsNothing(u), "read again, no kernel since");
            }
        }
        s.hostWrite(x, 0);
        s.hostWrite(y, 0);
        s.hostWrite(notPresent, 0);
        for (int i = 1; i < 8; i++) {
            assertTrue(s.writeNeedsNothing(x, i) && s.writeNeedsNothing(y, i) && s.writeNeedsNothing(notPresent, i),
                    "writes next to their windows, and to an array with no device copy");
        }
        long up = up();
        s.adopt(x, "x", Clause.COPY);
        assertEquals(up + 2, up(), "the windows of x and y");
        assertFalse(s.writeNeedsNothing(notPresent, 0), "an entry may have made it present: looked at again");
        s.written(a);
        assertFalse(s.readNeedsNothing(a[0]), "a kernel wrote a since");
        s.close();
    }
}
