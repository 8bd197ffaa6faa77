package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.acc4j.runtime.launch.Offloader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Arrays of boolean, byte, short and char in the present table, on {@link FakeMemory}: what the {@code Acc}
 * routines (copyin, create, updateHost, updateDevice, copyout, delete, isPresent, deviceptr) and {@code @Data}
 * regions do with them, one and two dimensions, rectangular and jagged, rows shared.
 */
class NarrowDataTest {
    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);
    private final Random r = new Random(2027);

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
        assertEquals(0L, memory.bytesInUse());
    }

    private FakeMemory.FakeBuffer device(Object array) {
        return (FakeMemory.FakeBuffer) table.lookup(array);
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    private short[] shorts(int n) {
        short[] s = new short[n];
        for (int i = 0; i < n; i++) {
            s[i] = (short) r.nextInt();
        }
        return s;
    }

    private char[] chars(int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = (char) r.nextInt(65536);
        }
        return c;
    }

    private boolean[] booleans(int n) {
        boolean[] z = new boolean[n];
        for (int i = 0; i < n; i++) {
            z[i] = r.nextBoolean();
        }
        return z;
    }

    @Test
    void dynamicDataOfEachNarrowTypeRoundTrips() {
        Object[] arrays = {bytes(301), shorts(302), chars(303), booleans(304)};
        for (Object a : arrays) {
            Object original = copy(a);
            // Acc.copyin
            table.enterDynamic(a, Clause.COPYIN);
            assertTrue(table.isPresent(a));
            assertEquals(HostArrays.byteSize(a), device(a).bytes());
            assertEquals((long) java.lang.reflect.Array.getLength(a) * (a instanceof short[] || a instanceof char[] ? 2 : 1),
                    device(a).bytes(), HostArrays.describe(a));
            assertTrue(java.util.Objects.deepEquals(original, device(a).contents()), HostArrays.describe(a));
            // a kernel reverses the device copy; Acc.updateHost brings it back
            device(a).kernel(NarrowDataTest::reverse);
            table.updateHost(a);
            Object reversed = copy(original);
            reverse(reversed);
            assertTrue(java.util.Objects.deepEquals(reversed, a), HostArrays.describe(a));
            // the host changes it; Acc.updateDevice sends it
            reverse(a);
            table.updateDevice(a);
            assertTrue(java.util.Objects.deepEquals(original, device(a).contents()), HostArrays.describe(a));
            // Acc.copyout
            device(a).kernel(NarrowDataTest::reverse);
            table.exitDynamic(a, Clause.COPYOUT, false);
            assertFalse(table.isPresent(a));
            assertTrue(java.util.Objects.deepEquals(reversed, a), HostArrays.describe(a));
        }
        assertEquals(4, memory.allocations());
        assertEquals(4, memory.frees());
    }

    @Test
    void createZeroFillsAndDeleteCopiesNothingBack() {
        Object[] arrays = {bytes(5), shorts(5), chars(5), booleans(5)};
        for (Object a : arrays) {
            Object before = copy(a);
            table.enterDynamic(a, Clause.CREATE);
            Object zeros = java.lang.reflect.Array.newInstance(a.getClass().getComponentType(), 5);
            assertTrue(java.util.Objects.deepEquals(zeros, device(a).contents()), "create zero-fills " + HostArrays.describe(a));
            device(a).kernel(NarrowDataTest::reverse);
            table.exitDynamic(a, Clause.DELETE, false);
            assertTrue(java.util.Objects.deepEquals(before, a), "delete copies nothing back: " + HostArrays.describe(a));
        }
        assertEquals(0, memory.uploads());
        assertEquals(0, memory.downloads());
    }

    @Test
    void twoDimensionalNarrowArraysAreRowsAndATable() {
        byte[][] rect = {bytes(7), bytes(7), bytes(7)};
        char[] shared = chars(4);
        char[][] jagged = {chars(1), shared, new char[0], chars(9)};
        char[][] other = {shared, chars(2)};
        boolean[][] flags = {booleans(3), booleans(11)};
        short[][] s = {shorts(2), shorts(5)};
        for (Object a : new Object[] {rect, jagged, other, flags, s}) {
            table.enterDynamic(a, Clause.COPYIN);
        }
        // the shared row is one buffer, listed by both tables
        assertSame(table.lookup(shared), table.lookup(jagged[1]));
        assertEquals(2, table.entry(shared).rowReferences());
        for (Object[] a : new Object[][] {rect, jagged, other, flags, s}) {
            long[] words = ((FakeMemory.FakeBuffer) table.lookup(a)).words();
            assertEquals(2L * (a.length + 1), words.length, "an entry per row and the trailer");
            assertEquals(0xFFFF_FFFFL, words[2 * a.length + 1], "row by row here: the trailer says not one block");
            for (int i = 0; i < a.length; i++) {
                // Acc.deviceptr of a row is what its table entry holds, with the row's length
                assertEquals(device(a[i]).address(), words[2 * i], HostArrays.describe(a) + " row " + i);
                assertEquals(java.lang.reflect.Array.getLength(a[i]), words[2 * i + 1], HostArrays.describe(a) + " row " + i);
                assertEquals(HostArrays.byteSize(a[i]), device(a[i]).bytes());
                assertTrue(java.util.Objects.deepEquals(a[i], device(a[i]).contents()));
            }
        }
        // a kernel negates the flags and rotates the chars; Acc.updateHost copies every row back
        boolean[][] expectedFlags = {flags[0].clone(), flags[1].clone()};
        for (boolean[] row : flags) {
            device(row).kernel(d -> {
                boolean[] z = (boolean[]) d;
                for (int i = 0; i < z.length; i++) {
                    z[i] = !z[i];
                }
            });
        }
        for (boolean[] row : expectedFlags) {
            for (int i = 0; i < row.length; i++) {
                row[i] = !row[i];
            }
        }
        table.updateHost(flags);
        assertArrayEquals(expectedFlags[0], flags[0]);
        assertArrayEquals(expectedFlags[1], flags[1]);
        device(shared).kernel(d -> ((char[]) d)[0] = (char) 0xFFFF);
        table.exitDynamic(jagged, Clause.COPYOUT, false);
        assertTrue(table.isPresent(shared), "still listed by the other table");
        assertEquals(1, table.entry(shared).rowReferences());
        table.exitDynamic(other, Clause.COPYOUT, false);
        assertEquals((char) 0xFFFF, shared[0], "copied back once its last table is gone");
        for (Object a : new Object[] {rect, flags, s}) {
            table.exitDynamic(a, Clause.DELETE, false);
        }
        assertEquals(0, table.size());
    }

    @Test
    void asyncTransfersNameTheNarrowBuffers() {
        short[][] s = {shorts(3), shorts(4)};
        boolean[] z = booleans(6);
        List<PresentTable.Transfer> in = table.copyinTransfers(s);
        assertEquals(2, in.size(), "one upload per row");
        for (PresentTable.Transfer t : in) {
            t.buffer().upload(t.host());
        }
        assertArrayEquals(s[1], (short[]) device(s[1]).contents());
        table.copyinTransfers(z).forEach(t -> t.buffer().upload(t.host()));
        assertArrayEquals(z, (boolean[]) device(z).contents());
        device(z).kernel(d -> ((boolean[]) d)[5] = !((boolean[]) d)[5]);
        boolean last = !z[5];
        PresentTable.Transfer out = table.copyoutTransfer(z);
        assertSame(z, out.host());
        out.buffer().download(out.host());
        assertEquals(last, z[5]);
        table.exitDynamic(z, Clause.DELETE, false);
        table.exitDynamic(s, Clause.DELETE, false);
    }

    @Test
    void aDataRegionNamingNarrowArraysEntersAndExitsThem() {
        Offloader regions = DeviceMemoryLimitsTest.regions();
        byte[] b = bytes(10);
        boolean[][] z = {booleans(3), booleans(4)};
        char[][] c = {chars(5), chars(1)};
        short[] s = shorts(8);
        byte[][] g = {bytes(2), bytes(2)};
        Object[] before = {b.clone(), new boolean[][] {z[0].clone(), z[1].clone()}, null, s.clone(),
            new byte[][] {g[0].clone(), g[1].clone()}};
        Object token = regions.enterRegion(RegionFixtures.class, "narrow", "([B[[Z[[C[S[[B)V", null,
                new Object[] {b, z, c, s, g}, table);
        assertEquals(1 + 3 + 3 + 1 + 3, memory.live(), "b, z's rows and table, c's, s, g's");
        assertArrayEquals(b, (byte[]) device(b).contents());
        assertArrayEquals(z[1], (boolean[]) device(z[1]).contents());
        assertArrayEquals(new byte[2], (byte[]) device(g[0]).contents(), "create zero-fills");
        // the region's kernels: every device copy changes
        device(b).kernel(d -> ((byte[]) d)[0]++);
        device(z[0]).kernel(d -> ((boolean[]) d)[0] = !((boolean[]) d)[0]);
        device(c[0]).kernel(d -> ((char[]) d)[4] = 'q');
        device(s).kernel(d -> java.util.Arrays.fill((short[]) d, (short) -7));
        device(g[1]).kernel(d -> ((byte[]) d)[1] = -128);
        regions.exitRegion(token, table);
        assertArrayEquals((byte[]) before[0], b, "copyin: nothing back");
        assertArrayEquals(((boolean[][]) before[1])[0], z[0], "copyin: nothing back");
        assertEquals('q', c[0][4], "copy: back");
        short[] sevens = new short[8];
        java.util.Arrays.fill(sevens, (short) -7);
        assertArrayEquals(sevens, s, "copyout: back");
        assertArrayEquals(((byte[][]) before[4])[1], g[1], "create: nothing back");
    }

    private static void reverse(Object a) {
        int n = java.lang.reflect.Array.getLength(a);
        for (int i = 0; i < n / 2; i++) {
            Object x = java.lang.reflect.Array.get(a, i);
            java.lang.reflect.Array.set(a, i, java.lang.reflect.Array.get(a, n - 1 - i));
            java.lang.reflect.Array.set(a, n - 1 - i, x);
        }
    }

    private static Object copy(Object a) {
        int n = java.lang.reflect.Array.getLength(a);
        Object c = java.lang.reflect.Array.newInstance(a.getClass().getComponentType(), n);
        System.arraycopy(a, 0, c, 0, n);
        return c;
    }
}
