package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link PresentTable#updateDeviceRange}: a window of an array, or of a row of a block, and nothing else. */
class PresentTableRangeTest {
    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(java.util.List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
    }

    @Test
    void aWindowOfAnArrayGoesToTheDeviceAndNothingElse() {
        double[] a = {1, 2, 3, 4, 5, 6};
        table.enter(a, Clause.COPY);
        for (int i = 0; i < a.length; i++) {
            a[i] = -a[i];
        }
        table.updateDeviceRange(a, 2, 4);
        assertArrayEquals(new double[] {1, 2, -3, -4, 5, 6}, (double[]) ((FakeMemory.FakeBuffer) table.lookup(a))
                .contents());
        long before = table.transferStats().bytesToDevice();
        table.updateDeviceRange(a, 5, 5);
        assertEquals(before, table.transferStats().bytesToDevice(), "an empty window moves nothing");
        table.updateDeviceRange(a, -3, 99);
        assertArrayEquals(a, (double[]) ((FakeMemory.FakeBuffer) table.lookup(a)).contents(), "clipped: all of it");
        table.exit(a, Clause.COPY);
    }

    @Test
    void aWindowOfARowOfABlock() {
        memory.blocks(true);
        int[][] g = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
        table.enter(g, Clause.COPY);
        g[1][0] = -5;
        g[1][1] = -6;
        g[1][2] = -7;
        g[2][1] = -10;
        table.updateDeviceRange(g[1], 1, 3);
        // the host's copy back shows what the device holds
        int[][] host = g;
        g[1][0] = 0;
        g[2][1] = 0;
        table.updateHost(g);
        assertArrayEquals(new int[] {5, -6, -7, 8}, host[1]);
        assertArrayEquals(new int[] {9, 10, 11, 12}, host[2]);
        assertArrayEquals(new int[] {1, 2, 3, 4}, host[0]);
        table.exit(g, Clause.COPY);
    }
}
