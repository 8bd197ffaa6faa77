package org.acc4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.spi.Backend;
import org.junit.jupiter.api.Test;

/** Without the agent, the routines have the host device's semantics. */
class AccHostTest {
    @Test
    void hostDeviceHasSharedMemory() {
        double[] a = {1, 2, 3};
        assertEquals(0, Acc.deviceCount());
        assertFalse(Acc.onDevice());
        assertEquals("host", Acc.deviceName());
        Acc.copyin(a);
        assertTrue(Acc.isPresent(a));
        Acc.updateHost(a);
        Acc.copyout(a);
        Acc.waitAll();
        assertEquals(2.0, a[1]);
    }

    @Test
    void reportSaysThereIsNoProfileWithoutTheAgent() {
        String r = Acc.report();
        assertTrue(r.startsWith("acc4j: no profile is available") && r.contains("without the acc4j agent"), r);
        assertEquals(1, r.lines().count(), r);
    }

    @Test
    void argumentsAreCheckedAsOnTheDevice() {
        assertThrows(NullPointerException.class, () -> Acc.copyin((Object) null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Acc.copyin("not an array"));
        assertTrue(e.getMessage().contains("java.lang.String"));
        assertTrue(Acc.isPresent(new double[2][2]));
        assertThrows(IllegalArgumentException.class, () -> Acc.isPresent(new double[2][2][2]));
    }

    @Test
    void aTwoDimensionalArrayGivenAloneIsOneArrayNotItsRows() {
        List<Object> seen = new ArrayList<>();
        Backend recording = (Backend) Proxy.newProxyInstance(Backend.class.getClassLoader(),
                new Class<?>[] {Backend.class}, (proxy, method, args) -> {
                    if (args != null && args.length > 0 && args[0] != null && args[0].getClass().isArray()) {
                        seen.add(args[0]);
                    }
                    return method.getReturnType() == boolean.class ? Boolean.FALSE : null;
                });
        Backend old = Acc.install(recording);
        try {
            double[][] grid = new double[3][4];
            float[] x = new float[5];
            Acc.copyin(grid);
            Acc.updateDevice(grid);
            Acc.updateHost(grid);
            Acc.copyout(grid);
            Acc.create(grid);
            Acc.delete(grid);
            Acc.copyoutFinalize(grid);
            Acc.deleteFinalize(grid);
            Acc.copyinAsync(Acc.ASYNC_SYNC, grid);
            Acc.updateHostAsync(Acc.ASYNC_SYNC, grid);
            assertEquals(10, seen.size(), "each routine got the grid once: " + seen);
            for (Object a : seen) {
                assertTrue(a == grid, "the grid itself, not a row");
            }
            seen.clear();
            // listed with others: each as listed
            Acc.copyin(grid, x);
            assertEquals(List.of(grid, x), seen);
            seen.clear();
            // an explicit Object[] of rows: the rows
            Acc.copyin((Object[]) new Object[] {grid[0], grid[1]});
            assertEquals(List.of(grid[0], grid[1]), seen);
        } finally {
            Acc.install(old);
        }
    }
}
