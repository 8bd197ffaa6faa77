package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What {@link HostArrays} says about arrays of one and two dimensions. */
class HostArraysTest {

    @Test
    void ranksAreToldApart() {
        assertTrue(HostArrays.isRank1(new int[1]));
        assertFalse(HostArrays.isRank1(new int[1][1]));
        assertTrue(HostArrays.isRank2(new double[2][]));
        assertFalse(HostArrays.isRank2(new double[2]));
        assertFalse(HostArrays.isRank2(new Object[2][2]));
        assertFalse(HostArrays.isRank2(new int[1][1][1]));
        assertFalse(HostArrays.isRank2(null));
        assertTrue(HostArrays.isDataType(long[][].class));
        assertFalse(HostArrays.isDataType(Integer[].class));
    }

    @Test
    void twoDimensionalArraysAreDescribedAndMeasured() {
        assertEquals("double[37][41]", HostArrays.describe(new double[37][41]));
        assertEquals("float[2][]", HostArrays.describe(new float[][] {{1f}, {1f, 2f}}));
        assertEquals("int[2][]", HostArrays.describe(new int[][] {{1}, null}));
        assertEquals("long[0][]", HostArrays.describe(new long[0][]));
        assertEquals(8, HostArrays.elementBytes(new long[3][]));
        assertEquals(4, HostArrays.elementBytes(new float[0][]));
        long[][] a = {{1}, null, {}};
        assertEquals(3, HostArrays.rows(a));
        assertSame(a[2], HostArrays.row(a, 2));
        assertEquals(1, HostArrays.nullRow(a));
        assertEquals(-1, HostArrays.nullRow(new long[2][2]));
        assertEquals(-1, HostArrays.nullRow(new long[2]));
        assertThrows(IllegalArgumentException.class, () -> HostArrays.rows(new long[2]));
    }

    @Test
    void oneDimensionalMessagesAreUnchanged() {
        assertEquals("double[1048576]", HostArrays.describe(new double[1 << 20]));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HostArrays.length(new int[1][1]));
        assertEquals("expected a one-dimensional primitive array but got int[][] (arrays of objects or of arrays"
                + " are not supported)", e.getMessage());
        IllegalArgumentException data = assertThrows(IllegalArgumentException.class,
                () -> HostArrays.requireData(new int[1][1][1]));
        assertEquals("expected a primitive array of one or two dimensions but got int[][][]", data.getMessage());
        assertSame(HostArrays.requireData(new int[1][1]).getClass(), int[][].class);
    }
}
