package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.acc4j.runtime.launch.Offloader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * No leaks, on {@link FakeMemory} counting live buffers and bytes: 10⁴ region entries with fresh arrays free every
 * buffer at the region's exit (not when the collector gets round to it), arrays dropped while present are freed by
 * the next operation, and closing the table (what {@code Acc.shutdown} does) frees everything.
 */
class PresentTableResourcesTest {
    private static final int ENTRIES = 10_000;

    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
        assertEquals(0L, memory.bytesInUse());
    }

    @Test
    void tenThousandRegionEntriesWithFreshArraysFreeEachBufferAtExit() {
        Random r = new Random(81);
        for (int k = 0; k < ENTRIES; k++) {
            // what a @Kernels call does with implicit data: copyin what it reads, copy what it writes
            double[] x = new double[1 + r.nextInt(64)];
            double[] y = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                x[i] = r.nextGaussian();
                y[i] = r.nextGaussian();
            }
            double[] expected = y.clone();
            for (int i = 0; i < x.length; i++) {
                expected[i] += 2 * x[i];
            }
            table.enter(x, Clause.COPYIN);
            table.enter(y, Clause.COPY);
            ((FakeMemory.FakeBuffer) table.lookup(y)).kernel(d -> {
                double[] dy = (double[]) d;
                for (int i = 0; i < dy.length; i++) {
                    dy[i] += 2 * x[i];
                }
            });
            table.exit(y, Clause.COPY);
            table.exit(x, Clause.COPYIN);
            assertArrayEquals(expected, y);
            assertEquals(0, memory.live(), "entry " + k + " left a buffer behind");
        }
        assertEquals(2 * ENTRIES, memory.allocations());
        assertEquals(2 * ENTRIES, memory.frees());
    }

    @Test
    void tenThousandDataRegionsWithFreshArraysLeaveNothing() {
        Offloader regions = DeviceMemoryLimitsTest.regions();
        Random r = new Random(82);
        for (int k = 0; k < ENTRIES; k++) {
            double[] a = {r.nextDouble()};
            double[] b = {r.nextDouble()};
            double[] c = new double[1];
            Object token = regions.enterRegion(RegionFixtures.class, "threeArrays", "([D[D[D)V", null,
                    new Object[] {a, b, c}, table);
            assertEquals(3, memory.live());
            regions.exitRegion(token, table);
            assertEquals(0, memory.live(), "region " + k + " left a buffer behind");
            double[][] m = {{r.nextDouble(), 1}, {2, 3}};
            double[] row0 = m[0].clone();
            token = regions.enterRegion(RegionFixtures.class, "matrix", "([[D[F)V", null,
                    new Object[] {m, new float[3]}, table);
            assertEquals(4, memory.live(), "two rows, their table and t");
            regions.exitRegion(token, table);
            assertArrayEquals(row0, m[0]);
            assertEquals(0, memory.live(), "region " + k + " left a buffer behind");
        }
    }

    @Test
    void arraysDroppedWhilePresentAreFreedByTheNextOperation() throws InterruptedException {
        Random r = new Random(83);
        java.util.List<double[]> held = new java.util.ArrayList<>();
        for (int k = 0; k < 100; k++) {
            // copied in and never deleted, then dropped (held until counted, or a GC could free some already)
            double[] a = new double[1 + r.nextInt(100)];
            held.add(a);
            table.enterDynamic(a, Clause.COPYIN);
        }
        assertEquals(100, memory.live());
        held.clear();
        int[] kept = new int[7];
        table.enterDynamic(kept, Clause.CREATE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (memory.live() > 1 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
            table.isPresent(kept);
        }
        assertEquals(1, memory.live(), "the dropped arrays' buffers were freed");
        assertEquals(28L, memory.bytesInUse());
        assertTrue(table.isPresent(kept));
    }

    @Test
    void closeFreesEveryKindOfEntry() {
        Random r = new Random(84);
        double[][] m = new double[5][];
        for (int i = 0; i < m.length; i++) {
            m[i] = new double[3 + i];
        }
        float[] f = new float[100];
        long[] l = new long[50];
        int[] shared = new int[9];
        table.enterDynamic(m, Clause.COPYIN);
        table.enter(m, Clause.COPY);
        table.enter(f, Clause.CREATE);
        table.enterDynamic(l, Clause.CREATE);
        table.enter(l, Clause.COPYOUT);
        table.enter(shared, Clause.COPYIN);
        table.enterDynamic(shared, Clause.COPYIN);
        double[] garbage = new double[r.nextInt(10) + 1];
        table.enterDynamic(garbage, Clause.COPYIN);
        // five rows, the row table, f, l, shared and garbage
        assertEquals(10, memory.live());
        assertTrue(memory.bytesInUse() > 0);
        table.close();
        assertEquals(0, memory.live());
        assertEquals(0L, memory.bytesInUse());
        assertEquals(0, memory.downloads(), "closing copies nothing back");
        assertFalse(table.isPresent(f));
    }
}
