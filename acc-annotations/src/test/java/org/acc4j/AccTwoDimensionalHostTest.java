package org.acc4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.spi.Backend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A two-dimensional array passed alone to a data routine ({@code Acc.copyin(m)} with {@code double[][] m}) reaches the
 * backend as the one array it is, not as its rows (Java would pass it as the {@code Object...} list itself); rows and
 * several arrays are passed as given.
 */
class AccTwoDimensionalHostTest {
    private final List<Object> seen = new ArrayList<>();
    private final Backend before = Acc.install(new Recording(seen));

    @AfterEach
    void restore() {
        Acc.install(before);
    }

    @Test
    void aTwoDimensionalArrayAloneIsOneArray() {
        double[][] m = {new double[10], new double[20]};
        int[][] k = new int[3][4];
        Acc.copyin(m);
        Acc.create(k);
        Acc.updateDevice(m);
        Acc.updateHost(m);
        Acc.copyout(m);
        Acc.delete(k);
        Acc.copyoutFinalize(m);
        Acc.deleteFinalize(k);
        Acc.copyinAsync(1, m);
        Acc.createAsync(1, k);
        Acc.updateDeviceAsync(1, m);
        Acc.updateHostAsync(1, m);
        Acc.copyoutAsync(1, m);
        Acc.deleteAsync(1, k);
        assertEquals(14, seen.size(), seen.toString());
        for (Object o : seen) {
            assertSame(o instanceof int[][] ? k : m, o);
        }
    }

    @Test
    void rowsAndSeveralArraysArePassedAsGiven() {
        double[][] m = {new double[10], new double[20]};
        double[] v = new double[5];
        Acc.copyin(m[0], m[1]);
        Acc.copyin(m, v);
        Object[] listed = {v, m};
        Acc.copyin(listed);
        assertEquals(List.of(m[0], m[1], m, v, v, m), seen);
    }

    /** Records every array each routine receives. */
    private static final class Recording implements Backend {
        private final List<Object> seen;

        Recording(List<Object> seen) {
            this.seen = seen;
        }

        @Override public String name() { return "recording"; }
        @Override public void init() { }
        @Override public void shutdown() { }
        @Override public int deviceCount() { return 0; }
        @Override public boolean onDevice() { return false; }
        @Override public void copyin(Object array) { seen.add(array); }
        @Override public void create(Object array) { seen.add(array); }
        @Override public void copyout(Object array) { seen.add(array); }
        @Override public void delete(Object array) { seen.add(array); }
        @Override public void updateDevice(Object array) { seen.add(array); }
        @Override public void updateHost(Object array) { seen.add(array); }
        @Override public boolean isPresent(Object array) { return true; }
        @Override public void waitAll() { }
        @Override public void copyoutFinalize(Object array) { seen.add(array); }
        @Override public void deleteFinalize(Object array) { seen.add(array); }
        @Override public void copyin(Object array, int queue) { seen.add(array); }
        @Override public void create(Object array, int queue) { seen.add(array); }
        @Override public void copyout(Object array, int queue) { seen.add(array); }
        @Override public void delete(Object array, int queue) { seen.add(array); }
        @Override public void updateDevice(Object array, int queue) { seen.add(array); }
        @Override public void updateHost(Object array, int queue) { seen.add(array); }
    }
}
