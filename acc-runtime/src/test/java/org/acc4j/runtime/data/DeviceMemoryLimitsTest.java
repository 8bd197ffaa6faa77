package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.acc4j.runtime.cache.KernelCache;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.launch.Offloader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Running out of device memory on {@link FakeMemory} with a capacity: explicit data (dynamic and structured entries,
 * {@code @Data} regions) throws {@link OutOfDeviceMemoryException} naming the array, the bytes asked and the bytes
 * free, and leaves nothing allocated by the failing operation; the table stays usable.
 */
class DeviceMemoryLimitsTest {
    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
        assertEquals(0L, memory.bytesInUse());
    }

    static Offloader regions() {
        Device fake = new Device(0, "fake", 9, 0, 132, 2048, 1024, 80L << 30);
        return new Offloader(fake, new KernelCache(), null, null, line -> { }, null);
    }

    private static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian();
        }
        return d;
    }

    @Test
    void dynamicEntryBeyondCapacityNamesArrayBytesAskedAndFree() {
        memory.capacity(10_000);
        double[] small = new double[1000];
        table.enterDynamic(small, Clause.CREATE);
        double[] big = new double[1000];
        OutOfDeviceMemoryException e = assertThrows(OutOfDeviceMemoryException.class,
                () -> table.enterDynamic(big, Clause.COPYIN));
        assertEquals("acc4j: out of device memory: double[1000] needs 8000 bytes (7.8 KiB), but only 2000 bytes (2.0"
                + " KiB) are free of 10000 bytes (9.8 KiB)", e.getMessage());
        assertEquals(8000, e.requested());
        assertEquals(2000, e.free());
        assertEquals(10_000, e.total());
        assertFalse(table.isPresent(big));
        assertEquals(1, memory.live());
        assertEquals(8000L, memory.bytesInUse());
        // freeing makes room again
        table.exitDynamic(small, Clause.DELETE, false);
        table.enterDynamic(big, Clause.COPYIN);
        assertTrue(table.isPresent(big));
        table.exitDynamic(big, Clause.DELETE, false);
    }

    @Test
    void structuredEntryBeyondCapacityChangesNoCount() {
        memory.capacity(4096);
        int[] fits = new int[1000];
        int[] tooBig = new int[1000];
        table.enter(fits, Clause.COPY);
        assertThrows(OutOfDeviceMemoryException.class, () -> table.enter(tooBig, Clause.COPY));
        assertEquals(0, table.structuredCount(tooBig));
        assertEquals(1, table.structuredCount(fits));
        table.exit(fits, Clause.COPY);
        assertEquals(0, memory.live());
    }

    @Test
    void twoDimensionalArrayThatDoesNotFitFreesTheRowsItAllocated() {
        Random r = new Random(71);
        double[][] m = new double[8][];
        for (int i = 0; i < m.length; i++) {
            m[i] = doubles(r, 100);
        }
        double[] shared = m[2];
        table.enterDynamic(shared, Clause.COPYIN);
        long before = memory.bytesInUse();
        int allocationsBefore = memory.allocations();
        // room for the shared row plus five more rows, not eight rows and the table
        memory.capacity(before + 5 * 800 + 100);
        OutOfDeviceMemoryException e = assertThrows(OutOfDeviceMemoryException.class,
                () -> table.enter(m, Clause.COPY));
        assertTrue(e.getMessage().contains("double[100] needs 800 bytes"), e.getMessage());
        assertEquals(before, memory.bytesInUse(), "rows allocated for the failed entry are freed");
        assertEquals(1, memory.live());
        assertTrue(memory.allocations() > allocationsBefore + 4, "the entry got as far as several rows");
        assertFalse(table.isPresent(m));
        assertEquals(0, table.entry(shared).rowReferences(), "the shared row lost the reference it got");
        assertEquals(1, table.dynamicCount(shared));
        // with room, the same array enters, and its rows come back right
        memory.capacity(Long.MAX_VALUE);
        double[][] expected = new double[8][];
        for (int i = 0; i < 8; i++) {
            expected[i] = m[i].clone();
        }
        table.enter(m, Clause.COPY);
        table.exit(m, Clause.COPY);
        for (int i = 0; i < 8; i++) {
            assertArrayEquals(expected[i], m[i]);
        }
        table.exitDynamic(shared, Clause.DELETE, false);
    }

    @Test
    void dataRegionThatDoesNotFitNamesTheArrayAndFreesTheOthers() {
        Random r = new Random(72);
        double[] a = doubles(r, 1000);
        double[] b = doubles(r, 1000);
        double[] c = new double[1000];
        memory.capacity(2 * 8000 + 10);
        Offloader regions = regions();
        OutOfDeviceMemoryException e = assertThrows(OutOfDeviceMemoryException.class,
                () -> regions.enterRegion(RegionFixtures.class, "threeArrays", "([D[D[D)V", null,
                        new Object[] {a, b, c}, table));
        assertEquals("acc4j: out of device memory: double[1000] (the array c named in @Data of"
                + " RegionFixtures.threeArrays) needs 8000 bytes (7.8 KiB), but only 10 bytes are free of 16010 bytes"
                + " (15.6 KiB)", e.getMessage());
        assertEquals(0, memory.live(), "a and b were exited again");
        assertEquals(0, table.size());
        assertArrayEquals(new double[1000], c, "nothing was copied out of a region never entered");
        // with room the region runs
        memory.capacity(3 * 8000);
        Object token = regions.enterRegion(RegionFixtures.class, "threeArrays", "([D[D[D)V", null,
                new Object[] {a, b, c}, table);
        ((FakeMemory.FakeBuffer) table.lookup(c)).kernel(d -> java.util.Arrays.fill((double[]) d, 4.5));
        regions.exitRegion(token, table);
        for (double v : c) {
            assertEquals(4.5, v);
        }
    }
}
