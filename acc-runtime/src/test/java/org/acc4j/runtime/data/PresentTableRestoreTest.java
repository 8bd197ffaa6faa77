package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PresentTable#restore()} after a destroyed context ({@link FakeMemory#loseContext()}): every old buffer is
 * abandoned and never touched again (no free, no copy), each present array is uploaded from the host into a new
 * buffer with its counts kept, row tables list the rows' new addresses, and reclaimed arrays are dropped.
 */
class PresentTableRestoreTest {
    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
    }

    private static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian();
        }
        return d;
    }

    @Test
    void presentArraysComeBackFromTheHostWithTheirCounts() {
        Random r = new Random(91);
        double[] a = doubles(r, 100);
        double[] host = a.clone();
        table.enterDynamic(a, Clause.COPYIN);
        table.enter(a, Clause.COPY);
        int[] created = new int[10];
        table.enter(created, Clause.CREATE);
        // a kernel changed a on the device; that change is lost with the context
        ((FakeMemory.FakeBuffer) table.lookup(a)).kernel(d -> ((double[]) d)[5] = 99);
        long before = memory.bytesInUse();
        Buffer old = table.lookup(a);
        memory.loseContext();
        assertEquals(2, table.restore());
        assertEquals(2, memory.abandoned());
        assertEquals(before, memory.bytesInUse());
        assertNotEquals(old, table.lookup(a));
        assertArrayEquals(host, (double[]) ((FakeMemory.FakeBuffer) table.lookup(a)).contents());
        assertEquals(1, table.structuredCount(a));
        assertEquals(1, table.dynamicCount(a));
        assertEquals(1, table.structuredCount(created));
        // the exits work as before: copy brings the restored device data back
        ((FakeMemory.FakeBuffer) table.lookup(a)).kernel(d -> ((double[]) d)[7] = -1);
        table.exit(a, Clause.COPY);
        table.exitDynamic(a, Clause.COPYOUT, false);
        host[7] = -1;
        assertArrayEquals(host, a);
        table.exit(created, Clause.CREATE);
        assertEquals(0, table.size());
    }

    @Test
    void rowTablesListTheRowsNewBuffers() {
        Random r = new Random(92);
        double[][] m = new double[6][];
        for (int i = 0; i < m.length; i++) {
            m[i] = doubles(r, 4 + i);
        }
        m[4] = m[1];
        double[][] other = {m[1], doubles(r, 3)};
        table.enterDynamic(m, Clause.COPYIN);
        table.enter(other, Clause.COPYIN);
        int size = table.size();
        memory.loseContext();
        assertEquals(size, table.restore());
        for (double[][] x : List.of(m, other)) {
            long[] words = ((FakeMemory.FakeBuffer) table.lookup(x)).words();
            for (int i = 0; i < x.length; i++) {
                Buffer row = table.lookup(x[i]);
                assertEquals(row.address(), words[2 * i], "row " + i + " address");
                assertEquals(x[i].length, words[2 * i + 1]);
                assertArrayEquals(x[i], (double[]) ((FakeMemory.FakeBuffer) row).contents());
            }
        }
        assertEquals(3, table.entry(m[1]).rowReferences(), "listed twice by m and once by other");
        table.exit(other, Clause.COPYIN);
        table.exitDynamic(m, Clause.DELETE, false);
        assertEquals(0, table.size());
    }

    @Test
    void reclaimedArraysAreDroppedNotRestored() throws InterruptedException {
        double[] kept = new double[3];
        table.enterDynamic(kept, Clause.COPYIN);
        for (int k = 0; k < 20; k++) {
            table.enterDynamic(new double[50], Clause.COPYIN);
            table.enterDynamic(new double[][] {new double[2], new double[3]}, Clause.COPYIN);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        System.gc();
        while (System.nanoTime() < deadline && !allCollected()) {
            System.gc();
            Thread.sleep(10);
        }
        memory.loseContext();
        assertEquals(1, table.restore(), "only the live array is restored");
        assertEquals(1, memory.live());
        assertTrue(table.isPresent(kept));
        table.exitDynamic(kept, Clause.DELETE, false);
    }

    /** Whether the collector has cleared every fresh array entered by the test (only {@code kept} is left). */
    private boolean allCollected() {
        // entries whose arrays died still count in size() until drained; drain by asking
        return table.size() == 1;
    }

    @Test
    void aFailedRestoreLeavesNothingPresent() {
        Random r = new Random(93);
        double[] a = doubles(r, 100);
        double[] b = doubles(r, 100);
        table.enterDynamic(a, Clause.COPYIN);
        table.enterDynamic(b, Clause.COPYIN);
        memory.loseContext();
        memory.capacity(900);
        IllegalStateException e = assertThrows(IllegalStateException.class, table::restore);
        assertTrue(e.getMessage().contains("could not be restored"), e.getMessage());
        assertTrue(e.getCause() instanceof OutOfDeviceMemoryException);
        assertFalse(table.isPresent(a));
        assertFalse(table.isPresent(b));
        assertEquals(0, memory.live());
    }
}
