package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transfers an async queue makes in place of the present table ({@link PresentTable#copyinTransfers} and the
 * others), on {@link FakeMemory}: the counts change as the synchronous routines change them, and the transfers listed
 * are exactly the copies those routines would make, which the test then makes itself as a queue would.
 */
class PresentTableTransfersTest {
    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);
    private final Random random = new Random(11);

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
    }

    private double[] randomArray(int n) {
        return random.doubles(n, -1, 1).toArray();
    }

    @Test
    void copyinOfAbsentDataListsItsUploadAndCounts() {
        double[] a = randomArray(100);
        List<PresentTable.Transfer> t = table.copyinTransfers(a);
        assertEquals(1, t.size());
        assertSame(a, t.get(0).host());
        assertSame(table.lookup(a), t.get(0).buffer());
        assertEquals(1, table.dynamicCount(a));
        assertEquals(0, memory.uploads(), "the queue uploads, not the table");
        t.get(0).buffer().upload(a);
        assertArrayEquals(a, (double[]) ((FakeMemory.FakeBuffer) table.lookup(a)).contents());
        // present data only gains a count, and nothing is listed
        assertEquals(List.of(), table.copyinTransfers(a));
        assertEquals(2, table.dynamicCount(a));
        table.exitDynamic(a, Clause.DELETE, true);
    }

    @Test
    void copyinOfARank2ArrayListsOnlyItsAbsentRowsOnce() {
        double[] shared = randomArray(8);
        table.enterDynamic(shared, Clause.COPYIN);
        double[] fresh = randomArray(8);
        double[][] m = {fresh, shared, fresh};
        List<PresentTable.Transfer> t = table.copyinTransfers(m);
        assertEquals(1, t.size(), "the present row is not uploaded again, the repeated row once");
        assertSame(fresh, t.get(0).host());
        assertSame(table.lookup(fresh), t.get(0).buffer());
        assertEquals(1, table.dynamicCount(m));
        table.exitDynamic(m, Clause.DELETE, false);
        table.exitDynamic(shared, Clause.DELETE, false);
        assertEquals(0, table.size());
    }

    @Test
    void updatesListEveryDistinctRow() {
        double[] r0 = randomArray(5);
        double[] r1 = randomArray(7);
        double[][] m = {r0, r1, r0};
        table.enterDynamic(m, Clause.COPYIN);
        List<PresentTable.Transfer> up = table.updateDeviceTransfers(m);
        assertEquals(List.of(r0, r1), up.stream().map(PresentTable.Transfer::host).toList());
        List<PresentTable.Transfer> down = table.updateHostTransfers(m);
        assertEquals(List.of(r0, r1), down.stream().map(PresentTable.Transfer::host).toList());
        assertSame(table.lookup(r1), down.get(1).buffer());
        // a replaced row is entered (synchronously) before the uploads are listed
        double[] r2 = randomArray(3);
        m[1] = r2;
        up = table.updateDeviceTransfers(m);
        assertEquals(List.of(r0, r2), up.stream().map(PresentTable.Transfer::host).toList());
        assertTrue(table.isPresent(r2));
        table.exitDynamic(m, Clause.DELETE, false);
        assertEquals(0, table.size());
    }

    @Test
    void updatesOfAbsentDataFailAsTheSynchronousOnes() {
        double[] a = randomArray(4);
        IllegalStateException up = assertThrows(IllegalStateException.class, () -> table.updateDeviceTransfers(a));
        IllegalStateException sync = assertThrows(IllegalStateException.class, () -> table.updateDevice(a));
        assertEquals(sync.getMessage(), up.getMessage());
        assertThrows(IllegalStateException.class, () -> table.updateHostTransfers(a));
    }

    @Test
    void copyoutListsADownloadOnlyWhenItWouldFreeTheArray() {
        double[] a = randomArray(16);
        assertNull(table.copyoutTransfer(a), "absent");
        table.enterDynamic(a, Clause.COPYIN);
        table.enterDynamic(a, Clause.COPYIN);
        assertNull(table.copyoutTransfer(a), "a second dynamic reference");
        table.exitDynamic(a, Clause.COPYOUT, false);
        table.enter(a, Clause.PRESENT);
        assertNull(table.copyoutTransfer(a), "a structured reference");
        table.exit(a, Clause.PRESENT);
        PresentTable.Transfer t = table.copyoutTransfer(a);
        assertSame(table.lookup(a), t.buffer());
        assertEquals(1, table.dynamicCount(a), "nothing changed yet");
        double[] device = (double[]) ((FakeMemory.FakeBuffer) t.buffer()).contents();
        double[] expected = device.clone();
        double[] back = new double[16];
        t.buffer().download(back);
        table.exitDynamic(a, Clause.DELETE, false);
        assertArrayEquals(expected, back);
        assertEquals(0, table.size());
        double[][] m = {randomArray(2)};
        table.enterDynamic(m, Clause.COPYIN);
        assertNull(table.copyoutTransfer(m), "two dimensions exit at the wait");
        table.exitDynamic(m, Clause.DELETE, false);
    }
}
