package org.acc4j.runtime.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.Colouring;
import org.acc4j.runtime.data.Buffer;
import org.acc4j.runtime.data.DeviceMemory;
import org.acc4j.runtime.data.PresentTable;
import org.junit.jupiter.api.Test;

/**
 * The launcher's colourings ({@link ColourLaunch}): kept while the loop's bounds and index arrays are unchanged, made
 * again on any change (a new array, an element changed, other bounds), the order kept present while kept and released
 * when replaced, and every colouring valid: no two iterations of a colour share an element.
 */
class ColourLaunchTest {
    /** Device memory on the heap, counting uploads. */
    private static final class HeapMemory implements DeviceMemory {
        int uploads;
        long inUse;
        long next = 256;

        @Override
        public Buffer allocate(Object hostArray) {
            long bytes = (long) java.lang.reflect.Array.getLength(hostArray) * 4;
            return buffer(bytes);
        }

        @Override
        public Buffer allocateRaw(long bytes, String what) {
            return buffer(bytes);
        }

        private Buffer buffer(long bytes) {
            inUse += bytes;
            long address = next;
            next += 256 + bytes;
            return new Buffer() {
                private boolean closed;

                @Override
                public long bytes() {
                    return bytes;
                }

                @Override
                public long address() {
                    return address;
                }

                @Override
                public void upload(Object hostArray) {
                    uploads++;
                }

                @Override
                public void download(Object hostArray) {
                }

                @Override
                public void writeLongs(long[] values) {
                }

                @Override
                public void zero() {
                }

                @Override
                public void abandon() {
                    closed = true;
                }

                @Override
                public void close() {
                    if (!closed) {
                        closed = true;
                        inUse -= bytes;
                    }
                }
            };
        }

        @Override
        public long bytesInUse() {
            return inUse;
        }
    }

    private static void valid(Colouring c, int lo, int hi, int[]... maps) {
        boolean[] seen = new boolean[hi - lo];
        for (int colour = 0; colour < c.colours(); colour++) {
            java.util.Set<Integer> cells = new java.util.HashSet<>();
            for (int j = c.start(colour); j < c.end(colour); j++) {
                int e = c.order()[j];
                assertFalse(seen[e - lo], "iteration " + e + " twice");
                seen[e - lo] = true;
                java.util.Set<Integer> mine = new java.util.HashSet<>();
                for (int[] m : maps) {
                    mine.add(m[e]);
                }
                for (int cell : mine) {
                    assertTrue(cells.add(cell), "colour " + colour + " meets at " + cell);
                }
            }
        }
        for (boolean s : seen) {
            assertTrue(s);
        }
    }

    @Test
    void aColouringIsKeptWhileTheMapsAreUnchangedAndMadeAgainOtherwise() {
        HeapMemory memory = new HeapMemory();
        PresentTable table = new PresentTable(memory);
        List<String> report = new ArrayList<>();
        ColourLaunch launch = new ColourLaunch(table, report::add);
        Random r = new Random(3);
        int n = 5000;
        int[] c1 = r.ints(n, 0, 900).toArray();
        int[] c2 = r.ints(n, 0, 900).toArray();
        Colouring a = launch.colouring("k", "here", 0, n, 900, new int[][] {c1, c2});
        valid(a, 0, n, c1, c2);
        assertTrue(table.isPresent(a.order()));
        assertEquals(1, memory.uploads);
        assertEquals(1, report.size());
        assertTrue(report.get(0).startsWith("here: colour by colour: " + a.colours() + " colours over 5000 iterations, "
                + a.colours() + " launches a call"), report.get(0));
        // unchanged: the same colouring, nothing copied
        assertSame(a, launch.colouring("k", "here", 0, n, 900, new int[][] {c1, c2}));
        assertEquals(1, memory.uploads);
        // one element changed: coloured again, the old order released
        c2[4321] = (c2[4321] + 1) % 900;
        Colouring b = launch.colouring("k", "here", 0, n, 900, new int[][] {c1, c2});
        assertNotSame(a, b);
        valid(b, 0, n, c1, c2);
        assertFalse(table.isPresent(a.order()));
        assertTrue(table.isPresent(b.order()));
        assertTrue(report.get(1).endsWith("(again: the loop's bounds or index arrays changed)"), report.get(1));
        // the same contents in another array, and other bounds: coloured again
        assertNotSame(b, launch.colouring("k", "here", 0, n, 900, new int[][] {c1.clone(), c2}));
        Colouring part = launch.colouring("k", "here", 100, 200, 900, new int[][] {c1, c2});
        assertEquals(100, part.order().length);
        valid(part, 100, 200, c1, c2);
    }

    @Test
    void presentMapsAreTrustedUntilTheirDeviceCopyMayChange() {
        HeapMemory memory = new HeapMemory();
        PresentTable table = new PresentTable(memory);
        ColourLaunch launch = new ColourLaunch(table, null);
        int[] c1 = {0, 1, 2, 3, 0, 1};
        table.enter(c1, org.acc4j.runtime.data.Clause.COPYIN);
        Colouring a = launch.colouring("k", "here", 0, 6, 4, new int[][] {c1});
        assertEquals(2, a.colours());
        assertSame(a, launch.colouring("k", "here", 0, 6, 4, new int[][] {c1}));
        // changed on the host only: the kernels read the device copy, which the colouring still fits
        c1[4] = 3;
        assertSame(a, launch.colouring("k", "here", 0, 6, 4, new int[][] {c1}));
        // an update of the device: compared, and coloured again
        table.updateDevice(c1);
        Colouring b = launch.colouring("k", "here", 0, 6, 4, new int[][] {c1});
        assertNotSame(a, b);
        valid(b, 0, 6, c1);
        assertSame(b, launch.colouring("k", "here", 0, 6, 4, new int[][] {c1}));
        // a queued routine: compared again
        c1[0] = 2;
        launch.queued(c1);
        Colouring d = launch.colouring("k", "here", 0, 6, 4, new int[][] {c1});
        assertNotSame(b, d);
        valid(d, 0, 6, c1);
        // a kernel wrote it while present: no colouring from the host until it leaves the device
        launch.written(c1);
        assertTrue(launch.deviceOnly(c1).startsWith("a kernel wrote it on the device"), launch.deviceOnly(c1));
        table.exit(c1, org.acc4j.runtime.data.Clause.COPYIN);
        assertEquals(null, launch.deviceOnly(c1));
        assertSame(d, launch.colouring("k", "here", 0, 6, 4, new int[][] {c1}));
    }

    @Test
    void aChangeAnywhereInALongMapIsSeen() {
        ColourLaunch launch = new ColourLaunch(new PresentTable(new HeapMemory()), null);
        int n = 3 * (1 << 20) + 17;
        int[] c1 = new int[n];
        for (int i = 0; i < n; i++) {
            c1[i] = i / 2;
        }
        Colouring a = launch.colouring("k", "here", 0, n, n, new int[][] {c1});
        assertEquals(2, a.colours());
        assertSame(a, launch.colouring("k", "here", 0, n, n, new int[][] {c1}));
        c1[n - 1] = 0;
        Colouring b = launch.colouring("k", "here", 0, n, n, new int[][] {c1});
        assertNotSame(a, b);
        valid(b, 0, n, c1);
        c1[5] = 7;
        assertNotSame(b, launch.colouring("k", "here", 0, n, n, new int[][] {c1}));
    }

    @Test
    void tooManyColoursAreNamed() {
        ColourLaunch launch = new ColourLaunch(new PresentTable(new HeapMemory()), null);
        int[] star = new int[100];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> launch.colouring("k", "here", 0, 100, 1, new int[][] {star}));
        assertEquals("iteration 64 needs more than 64 colours", e.getMessage());
    }

    @Test
    void valuesOutOfRangeAreLeftToTheBoundsCheck() {
        ColourLaunch launch = new ColourLaunch(new PresentTable(new HeapMemory()), null);
        int[] c1 = {0, -3, 5, 1_000_000_000, 0};
        Colouring c = launch.colouring("k", "here", 0, 5, 6, new int[][] {c1});
        assertEquals(2, c.colours());
        assertEquals(5, c.order().length);
        // no iteration: no colour, nothing held
        assertEquals(0, launch.colouring("k", "here", 3, 3, 6, new int[][] {c1}).colours());
    }
}
