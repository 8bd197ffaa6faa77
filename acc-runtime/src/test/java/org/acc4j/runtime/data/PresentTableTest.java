package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reference counting and transfers of {@link PresentTable}, on {@link FakeMemory}. */
class PresentTableTest {

    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(java.util.List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
        assertEquals(0L, memory.bytesInUse());
    }

    private FakeMemory.FakeBuffer device(Object array) {
        return (FakeMemory.FakeBuffer) table.lookup(array);
    }

    @Test
    void copyinOfPresentDataOnlyRaisesCounts() {
        double[] a = {1, 2, 3, 4};
        table.enterDynamic(a, Clause.COPYIN);
        assertEquals(1, memory.uploads());
        a[0] = 100;
        Entry entry = table.enter(a, Clause.COPYIN);
        table.enter(a, Clause.COPY);
        assertEquals(2, entry.structuredCount());
        assertEquals(1, entry.dynamicCount());
        assertEquals(1, memory.uploads(), "no transfer for present data");
        assertEquals(1, memory.allocations());
        assertArrayEquals(new double[] {1, 2, 3, 4}, (double[]) device(a).contents());
        table.exit(a, Clause.COPY);
        table.exit(a, Clause.COPYIN);
        assertEquals(0, table.structuredCount(a));
        assertEquals(1, table.dynamicCount(a));
        assertEquals(0, memory.downloads(), "dynamic reference keeps the data on the device");
        assertArrayEquals(new double[] {100, 2, 3, 4}, a);
        assertTrue(table.isPresent(a));
        table.exitDynamic(a, Clause.DELETE, false);
        assertFalse(table.isPresent(a));
    }

    @Test
    void copyRegionInsideDynamicCopyinCopiesBackOnlyAtFinalCopyout() {
        int[] a = {1, 2, 3};
        table.enterDynamic(a, Clause.COPYIN);
        table.enter(a, Clause.COPY);
        device(a).kernel(d -> {
            int[] x = (int[]) d;
            for (int i = 0; i < x.length; i++) {
                x[i] *= 2;
            }
        });
        table.exit(a, Clause.COPY);
        assertArrayEquals(new int[] {1, 2, 3}, a, "region exit must not copy back while dynamically present");
        assertEquals(0, memory.downloads());
        assertTrue(table.isPresent(a));
        table.exitDynamic(a, Clause.COPYOUT, false);
        assertArrayEquals(new int[] {2, 4, 6}, a);
        assertEquals(1, memory.downloads());
        assertFalse(table.isPresent(a));
        assertEquals(0, table.size());
        assertEquals(new TransferStats(1, 12, 1, 12, 1, 1), table.transferStats().withoutTimes());
    }

    @Test
    void copyoutDownloadsWhenBothCountsReachZeroAndZeroFillsOnEntry() {
        int[] a = {9, 9, 9};
        table.enter(a, Clause.COPYOUT);
        assertEquals(0, memory.uploads(), "copyout does not upload");
        assertArrayEquals(new int[] {0, 0, 0}, (int[]) device(a).contents(), "copyout buffers start zeroed");
        device(a).kernel(d -> ((int[]) d)[0] = 5);
        table.exit(a, Clause.COPYOUT);
        assertArrayEquals(new int[] {5, 0, 0}, a, "unwritten copyout elements come back as zero");
        assertEquals(1, memory.downloads());
        assertEquals(0, memory.live());
    }

    @Test
    void copyoutRegionOverDynamicCreateDefersToDynamicDelete() {
        int[] a = {7, 7};
        table.enterDynamic(a, Clause.CREATE);
        table.enter(a, Clause.COPYOUT);
        device(a).kernel(d -> ((int[]) d)[1] = 3);
        table.exit(a, Clause.COPYOUT);
        assertEquals(0, memory.downloads());
        table.exitDynamic(a, Clause.DELETE, false);
        assertEquals(0, memory.downloads(), "delete never copies back");
        assertArrayEquals(new int[] {7, 7}, a);
        assertFalse(table.isPresent(a));
    }

    @Test
    void createZeroFillsAndNeverTransfers() {
        double[] a = {3.5, -1};
        table.enter(a, Clause.CREATE);
        assertEquals(0, memory.uploads());
        assertEquals(1, memory.zeroFills());
        assertArrayEquals(new double[] {0, 0}, (double[]) device(a).contents());
        device(a).kernel(d -> ((double[]) d)[0] = 42);
        table.exit(a, Clause.CREATE);
        assertArrayEquals(new double[] {3.5, -1}, a);
        assertEquals(0, memory.downloads());
        int[] b = {1, 1};
        table.enterDynamic(b, Clause.CREATE);
        assertArrayEquals(new int[] {0, 0}, (int[]) device(b).contents());
        table.exitDynamic(b, Clause.COPYOUT, false);
        assertArrayEquals(new int[] {0, 0}, b, "copyout of created data brings the zeros back");
    }

    @Test
    void presentOnAbsentDataThrowsAClearMessage() {
        double[] a = new double[4];
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> table.enter(a, Clause.PRESENT));
        assertTrue(e.getMessage().contains("double[4]"), e.getMessage());
        assertTrue(e.getMessage().contains("not present"), e.getMessage());
        assertTrue(e.getMessage().contains("Acc.copyin or an enclosing @Data"), e.getMessage());
        assertEquals(0, table.size());
        assertEquals(0, memory.allocations());
        table.enterDynamic(a, Clause.COPYIN);
        Entry entry = table.enter(a, Clause.PRESENT);
        assertEquals(1, entry.structuredCount());
        assertSame(table.lookup(a), entry.buffer());
        table.exit(a, Clause.PRESENT);
        assertEquals(1, memory.uploads());
        assertEquals(0, memory.downloads());
        table.exitDynamic(a, Clause.DELETE, false);
    }

    @Test
    void updateDeviceAndHostMoveDataBothWays() {
        long[] a = {1, 2};
        table.enterDynamic(a, Clause.COPYIN);
        a[1] = 20;
        table.updateDevice(a);
        assertArrayEquals(new long[] {1, 20}, (long[]) device(a).contents());
        device(a).kernel(d -> ((long[]) d)[0] = -5);
        table.updateHost(a);
        assertArrayEquals(new long[] {-5, 20}, a);
        assertEquals(new TransferStats(2, 32, 1, 16, 1, 0), table.transferStats().withoutTimes());
        long[] absent = new long[2];
        IllegalStateException up = assertThrows(IllegalStateException.class, () -> table.updateHost(absent));
        assertTrue(up.getMessage().contains("long[2] is not present"), up.getMessage());
        assertThrows(IllegalStateException.class, () -> table.updateDevice(absent));
        table.exitDynamic(a, Clause.DELETE, true);
    }

    @Test
    void finalizeDropsEveryDynamicReference() {
        int[] a = {1};
        table.enterDynamic(a, Clause.COPYIN);
        table.enterDynamic(a, Clause.COPYIN);
        table.enterDynamic(a, Clause.CREATE);
        assertEquals(3, table.dynamicCount(a));
        assertEquals(1, memory.uploads());
        table.exitDynamic(a, Clause.COPYOUT, false);
        assertEquals(2, table.dynamicCount(a));
        assertEquals(0, memory.downloads());
        device(a).kernel(d -> ((int[]) d)[0] = 8);
        table.exitDynamic(a, Clause.COPYOUT, true);
        assertFalse(table.isPresent(a));
        assertArrayEquals(new int[] {8}, a);
        assertEquals(1, memory.downloads());
    }

    @Test
    void finalizeInsideARegionLeavesDataUntilTheRegionExits() {
        int[] a = {1};
        table.enterDynamic(a, Clause.COPYIN);
        table.enterDynamic(a, Clause.COPYIN);
        table.enter(a, Clause.PRESENT);
        table.exitDynamic(a, Clause.COPYOUT, true);
        assertEquals(0, table.dynamicCount(a));
        assertEquals(1, table.structuredCount(a));
        assertEquals(0, memory.downloads(), "structured reference still holds the data");
        table.exitDynamic(a, Clause.COPYOUT, false);
        assertEquals(1, table.structuredCount(a), "dynamic exit at dynamic count 0 does nothing");
        table.exit(a, Clause.COPY);
        assertEquals(1, memory.downloads());
        assertFalse(table.isPresent(a));
    }

    @Test
    void exitDynamicOfAbsentDataIsANoOp() {
        float[] a = {1f};
        table.exitDynamic(a, Clause.COPYOUT, false);
        table.exitDynamic(a, Clause.DELETE, true);
        assertEquals(0, table.size());
        assertEquals(0, memory.allocations());
        assertEquals(0, memory.downloads());
        assertArrayEquals(new float[] {1f}, a);
    }

    @Test
    void discardDropsAReferenceWithoutCopyingBack() {
        int[] a = {1, 2};
        table.enter(a, Clause.COPY);
        device(a).kernel(d -> ((int[]) d)[0] = 99);
        table.discard(a);
        assertArrayEquals(new int[] {1, 2}, a);
        assertEquals(0, memory.downloads());
        assertFalse(table.isPresent(a));
        table.discard(a);
        assertEquals(0, table.size(), "discard of absent data is ignored");

        int[] b = {3};
        table.enterDynamic(b, Clause.COPYIN);
        table.enter(b, Clause.COPY);
        table.discard(b);
        assertTrue(table.isPresent(b), "dynamic reference remains");
        assertEquals(0, table.structuredCount(b));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> table.discard(b));
        assertTrue(e.getMessage().contains("without a matching structured enter"), e.getMessage());
        table.exitDynamic(b, Clause.DELETE, false);
        assertEquals(0, memory.live());
    }

    @Test
    void unbalancedExitsAreErrors() {
        int[] a = {1};
        IllegalStateException absent = assertThrows(IllegalStateException.class, () -> table.exit(a, Clause.COPY));
        assertTrue(absent.getMessage().contains("int[1]"), absent.getMessage());
        table.enterDynamic(a, Clause.COPYIN);
        IllegalStateException noStructured = assertThrows(IllegalStateException.class,
                () -> table.exit(a, Clause.COPYIN));
        assertTrue(noStructured.getMessage().contains("structured count is 0, dynamic count 1"),
                noStructured.getMessage());
        assertEquals(1, table.dynamicCount(a));
        table.exitDynamic(a, Clause.DELETE, false);
    }

    @Test
    void arraysAreKeyedByIdentityNotEquality() {
        int[] a = {1, 2};
        int[] b = {1, 2};
        table.enter(a, Clause.COPYIN);
        table.enter(b, Clause.COPYIN);
        assertEquals(2, table.size());
        assertNotSame(table.lookup(a), table.lookup(b));
        assertEquals(1, table.structuredCount(a));
        assertEquals(1, table.structuredCount(b));
        table.exit(a, Clause.COPYIN);
        assertFalse(table.isPresent(a));
        assertTrue(table.isPresent(b));
        assertNull(table.lookup(a));
        table.exit(b, Clause.COPYIN);
    }

    @Test
    void rejectsWhatIsNotAPrimitiveArrayOfOneOrTwoDimensions() {
        for (Object bad : new Object[] {null, "text", 3, new String[1], new int[2][2][2], new Object[2][], new Object()}) {
            assertThrows(IllegalArgumentException.class, () -> table.enter(bad, Clause.COPYIN), String.valueOf(bad));
            assertThrows(IllegalArgumentException.class, () -> table.isPresent(bad), String.valueOf(bad));
        }
        int[] a = {1};
        assertThrows(IllegalArgumentException.class, () -> table.enter(a, Clause.DELETE));
        assertThrows(IllegalArgumentException.class, () -> table.enterDynamic(a, Clause.COPY));
        assertThrows(IllegalArgumentException.class, () -> table.exitDynamic(a, Clause.COPY, false));
        assertEquals(0, memory.allocations());
    }

    @Test
    void everyPrimitiveTypeRoundTrips() {
        Object[] arrays = {new byte[] {1, -2}, new short[] {3, -4}, new char[] {'x', 'y'}, new int[] {5, 6},
            new long[] {7L, -8L}, new float[] {1.5f, 2.5f}, new double[] {3.25, 4.5}, new boolean[] {true, false}};
        long bytes = 0;
        for (Object array : arrays) {
            table.enter(array, Clause.COPY);
            bytes += HostArrays.byteSize(array);
        }
        for (Object array : arrays) {
            // play a kernel that copies element 1 over element 0, then copy back
            device(array).kernel(d -> java.lang.reflect.Array.set(d, 0, java.lang.reflect.Array.get(d, 1)));
            Object second = java.lang.reflect.Array.get(array, 1);
            table.exit(array, Clause.COPY);
            assertEquals(second, java.lang.reflect.Array.get(array, 0), HostArrays.describe(array));
            assertEquals(second, java.lang.reflect.Array.get(array, 1), HostArrays.describe(array));
        }
        assertEquals(new TransferStats(8, bytes, 8, bytes, 8, 8), table.transferStats().withoutTimes());
        assertEquals(2 + 4 + 4 + 8 + 16 + 8 + 16 + 2, bytes);
    }

    @Test
    void failedUploadLeavesNoEntryAndNoBuffer() {
        int[] a = {1};
        memory.failUploads(true);
        assertThrows(IllegalStateException.class, () -> table.enter(a, Clause.COPYIN));
        memory.failUploads(false);
        assertFalse(table.isPresent(a));
        assertEquals(1, memory.allocations());
        assertEquals(0, memory.live());
        assertEquals(new TransferStats(0, 0, 0, 0, 1, 1), table.transferStats().withoutTimes());
    }
}
