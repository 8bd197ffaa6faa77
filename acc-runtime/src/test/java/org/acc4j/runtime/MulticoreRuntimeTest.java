package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.acc4j.Acc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The runtime on the multicore target ({@code -Dacc.device.type=multicore}, {@code -Dacc.num.cores=3}): no GPU is
 * used, the backend names the target and its threads, and the {@code Acc} data routines keep OpenACC's present counts
 * on shared memory (nothing moves).
 */
class MulticoreRuntimeTest {
    @BeforeEach
    void multicore() {
        AccRuntime.get().shutdown();
        System.setProperty("acc.device.type", "multicore");
        System.setProperty("acc.num.cores", "3");
        Acc.install(AccRuntime.get().backend());
        AccRuntime.get().init();
    }

    @AfterEach
    void defaults() {
        AccRuntime.get().shutdown();
        System.clearProperty("acc.device.type");
        System.clearProperty("acc.num.cores");
    }

    @Test
    void theTargetIsNamedWithItsThreads() {
        assertFalse(Acc.onDevice());
        assertEquals(3, AccRuntime.get().multicoreThreads());
        assertEquals("host (multicore, 3 threads)", Acc.deviceName());
    }

    @Test
    void presentCountsFollowOpenAccsRules() {
        double[] a = {1, 2, 3};
        double[] b = new double[5];
        assertFalse(Acc.isPresent(a));
        Acc.copyin(a);
        Acc.copyin(a);
        assertTrue(Acc.isPresent(a));
        Acc.copyout(a);
        assertTrue(Acc.isPresent(a), "one copyin left");
        Acc.delete(a);
        assertFalse(Acc.isPresent(a));
        assertEquals(1.0, a[0], "shared memory: nothing moved");
        Acc.create(b);
        Acc.create(b);
        Acc.deleteFinalize(b);
        assertFalse(Acc.isPresent(b));
        double[][] m = {{1, 2}, {3, 4}};
        Acc.copyin((Object) m);
        assertTrue(Acc.isPresent(m) && Acc.isPresent(m[1]), "a 2D array is present with its rows");
        Acc.copyout((Object) m);
        assertFalse(Acc.isPresent(m) || Acc.isPresent(m[0]));
        Acc.copyinAsync(1, a);
        assertTrue(Acc.isPresent(a), "without a device an async routine acts at once");
        Acc.deleteAsync(1, a);
        assertFalse(Acc.isPresent(a));
    }
}
