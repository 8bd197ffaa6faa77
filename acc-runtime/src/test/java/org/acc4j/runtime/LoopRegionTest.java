package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link LoopRegion} against a fake device that keeps its own copy of every unit: random sequences of kernel calls
 * (which change only the device copies), host reads (which must see what the kernels wrote) and host writes (which
 * the next kernel and the exit must see), with every element checked against a model of what a plain Java run
 * holds. Also the number of copies: a unit moves at most once each way between two calls.
 */
class LoopRegionTest {
    /** The fake device: a copy per unit, and counts of the copies. */
    private static final class Device implements LoopRegion.Mover {
        final Map<Object, double[]> copies = new IdentityHashMap<>();
        int toHost;
        int toDevice;
        int elementsToDevice;
        RuntimeException failNextUpload;

        void enter(Object array) {
            if (array instanceof double[][] rows) {
                for (double[] row : rows) {
                    copies.put(row, row.clone());
                }
            } else {
                copies.put(array, ((double[]) array).clone());
            }
        }

        @Override
        public void toHost(Object unit) {
            double[] d = copies.get(unit);
            System.arraycopy(d, 0, unit, 0, d.length);
            toHost++;
        }

        @Override
        public void toDevice(Object unit, int from, int to) {
            if (failNextUpload != null) {
                RuntimeException e = failNextUpload;
                failNextUpload = null;
                throw e;
            }
            double[] d = copies.get(unit);
            System.arraycopy(unit, from, d, from, to - from);
            toDevice++;
            elementsToDevice += to - from;
        }
    }

    @Test
    void randomReadsWritesAndCallsMatchAPlainRun() {
        Random r = new Random(41);
        for (int trial = 0; trial < 200; trial++) {
            double[] a = new double[8];
            double[] b = new double[5];
            double[][] g = new double[4][6];
            double[] other = new double[8];
            // what plain Java would hold: the model, one array per unit
            Map<Object, double[]> model = new IdentityHashMap<>();
            List<double[]> units = List.of(a, b, g[0], g[1], g[2], g[3]);
            for (double[] u : units) {
                for (int i = 0; i < u.length; i++) {
                    u[i] = r.nextInt(1000);
                }
                model.put(u, u.clone());
            }
            Device device = new Device();
            device.enter(a);
            device.enter(b);
            device.enter(g);
            LoopRegion region = new LoopRegion("test", List.of(a, b, g), device);
            for (int op = 0; op < 60; op++) {
                double[] u = units.get(r.nextInt(units.size()));
                int i = r.nextInt(u.length);
                switch (r.nextInt(4)) {
                    case 0 -> {
                        // a kernel: it sees every host write, and changes some device copies
                        region.call();
                        for (double[] v : units) {
                            assertArrayEquals(model.get(v), device.copies.get(v), "the kernel sees the host's writes");
                            if (r.nextBoolean()) {
                                int k = r.nextInt(v.length);
                                double x = r.nextInt(1000);
                                device.copies.get(v)[k] = x;
                                model.get(v)[k] = x;
                            }
                        }
                    }
                    case 1 -> {
                        region.read(u);
                        assertEquals(model.get(u)[i], u[i], "a read sees the kernels' writes");
                    }
                    case 2 -> {
                        // a run of writes, next to each other or anywhere
                        boolean near = r.nextBoolean();
                        for (int w = 0, at = i; w < 1 + r.nextInt(3); w++) {
                            at = near ? Math.max(0, Math.min(u.length - 1, at + r.nextInt(3) - 1))
                                    : r.nextInt(u.length);
                            region.write(u, at);
                            double x = -r.nextInt(1000);
                            u[at] = x;
                            model.get(u)[at] = x;
                        }
                    }
                    default -> {
                        // an array that is not the region's, and a store that throws
                        region.read(other);
                        region.write(other, i);
                        other[i] = 1;
                        region.write(u, u.length);
                        region.write(u, -1);
                    }
                }
            }
            // the exit: host-newer units to the device, then every unit back
            region.flush();
            for (double[] u : units) {
                device.toHost(u);
                assertArrayEquals(model.get(u), u, "trial " + trial + ": nothing is lost at the exit");
            }
        }
    }

    @Test
    void aUnitMovesOnceEachWayBetweenCallsAndTheFastPathsMoveNothing() {
        double[] a = new double[1000];
        double[][] g = new double[8][16];
        Device device = new Device();
        device.enter(a);
        device.enter(g);
        LoopRegion region = new LoopRegion("test", List.of(a, g), device);
        for (int i = 0; i < 1000; i++) {
            region.read(a);
            region.write(a, i);
        }
        assertEquals(0, device.toHost + device.toDevice, "before any call nothing moves");
        for (int step = 0; step < 10; step++) {
            region.call();
            for (int i = 0; i < 1000; i++) {
                region.read(a);
                region.read(g[3]);
            }
            for (int j = 0; j < 16; j++) {
                region.write(g[0], j);
            }
        }
        assertEquals(20, device.toHost, "a and g[3] once per step; g[0]'s writes cover a window next to each other");
        assertEquals(10, device.toDevice, "a before the first call, g[0] before each later one");
        region.flush();
        assertEquals(11, device.toDevice, "and g[0] at the exit");
    }

    @Test
    void aStaleArraysWindowHoldsOnlyWhatTheHostWrote() {
        double[] a = {1, 2, 3, 4, 5, 6, 7, 8};
        Device device = new Device();
        device.enter(a);
        LoopRegion region = new LoopRegion("test", List.of(a), device);
        region.call();
        double[] d = device.copies.get(a);
        for (int i = 0; i < 8; i++) {
            d[i] = 10 + i;
        }
        // writes next to each other on a stale array: no copy to the host
        region.write(a, 3);
        a[3] = -3;
        region.write(a, 4);
        a[4] = -4;
        region.write(a, 2);
        a[2] = -2;
        assertEquals(0, device.toHost);
        // a write away from the window: the array comes to the host first, keeping the window
        region.write(a, 7);
        a[7] = -7;
        assertEquals(1, device.toHost);
        assertArrayEquals(new double[] {10, 11, -2, -3, -4, 15, 16, -7}, a);
        region.read(a);
        assertEquals(1, device.toHost, "current until the next call");
        region.call();
        assertArrayEquals(new double[] {10, 11, -2, -3, -4, 15, 16, -7}, d);
        assertEquals(6, device.elementsToDevice, "the window [2, 8)");
        // a read of a stale array with a window keeps the host's elements
        region.write(a, 0);
        a[0] = -100;
        d[0] = 99;
        d[1] = 98;
        region.read(a);
        assertArrayEquals(new double[] {-100, 98, -2, -3, -4, 15, 16, -7}, a);
        region.flush();
        assertEquals(-100, d[0]);
        assertEquals(98, d[1]);
    }

    @Test
    void aFailedUploadLeavesTheRestHostNewer() {
        double[] a = new double[4];
        double[] b = new double[4];
        Device device = new Device();
        device.enter(a);
        device.enter(b);
        LoopRegion region = new LoopRegion("test", List.of(a, b), device);
        region.write(a, 0);
        a[0] = 5;
        region.write(b, 0);
        b[0] = 6;
        device.failNextUpload = new IllegalStateException("refused");
        assertThrows(IllegalStateException.class, region::flush);
        region.flush();
        assertEquals(5, device.copies.get(a)[0]);
        assertEquals(6, device.copies.get(b)[0]);
    }
}
