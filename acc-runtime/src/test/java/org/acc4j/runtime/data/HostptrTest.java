package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.acc4j.Acc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PresentTable#hostArray}, the table's half of {@code Acc.hostptr}, on {@link FakeMemory}: the inverse of the
 * device address of every present array, rows and row tables included; and {@code Acc.hostptr} without the agent.
 */
class HostptrTest {

    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(java.util.List.of(), memory.violations());
    }

    @Test
    void everyPresentArrayIsFoundByItsAddress() {
        Object[] arrays = {new double[5], new int[3], new long[7], new float[2], new byte[9], new short[4],
                new char[6], new boolean[8]};
        for (Object a : arrays) {
            table.enterDynamic(a, Clause.COPYIN);
        }
        for (Object a : arrays) {
            assertSame(a, table.hostArray(table.lookup(a).address()));
        }
        double[][] m = {{1, 2}, {3, 4, 5}};
        table.enterDynamic(m, Clause.COPYIN);
        assertSame(m, table.hostArray(table.lookup(m).address()), "a two-dimensional array by its row table");
        assertSame(m[1], table.hostArray(table.lookup(m[1]).address()), "a row by its own copy");
        for (Object a : arrays) {
            table.exitDynamic(a, Clause.DELETE, false);
        }
        table.exitDynamic(m, Clause.DELETE, false);
    }

    @Test
    void anAddressInsideACopyOrNowhereIsRefused() {
        double[] a = new double[16];
        table.enterDynamic(a, Clause.COPYIN);
        long at = table.lookup(a).address();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> table.hostArray(at + 16));
        assertTrue(e.getMessage().contains("it is byte 16 of the copy of double[16]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> table.hostArray(at + 4096));
        assertTrue(e.getMessage().startsWith("0x" + Long.toHexString(at + 4096) + " is not the device address of a"
                + " present array: no present array's copy starts or lies there"), e.getMessage());
        table.exitDynamic(a, Clause.DELETE, false);
        assertThrows(IllegalArgumentException.class, () -> table.hostArray(at), "gone once deleted");
        int[] empty = new int[0];
        table.enterDynamic(empty, Clause.COPYIN);
        assertThrows(IllegalArgumentException.class, () -> table.hostArray(0), "an empty copy has no address");
        table.exitDynamic(empty, Clause.DELETE, false);
    }

    @Test
    void withoutTheAgentNoAddressIsADeviceCopy() {
        double[] a = {1, 2};
        Acc.copyin(a);
        assertEquals(0, Acc.deviceptr(a));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Acc.hostptr(0));
        assertTrue(e.getMessage().startsWith("acc4j: Acc.hostptr(0x0): not the device address of a present array"),
                e.getMessage());
    }
}
