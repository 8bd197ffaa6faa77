package org.acc4j.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUresult;
import org.junit.jupiter.api.Test;

/** The deferred kernels' bookkeeping, with the context's wait simulated: one wait per settle, named, never silent. */
class PendingTest {
    private final List<String> waits = new ArrayList<>();
    private RuntimeException failWith;
    private final Pending pending = new Pending(waitingFor -> {
        waits.add(waitingFor);
        if (failWith != null) {
            throw failWith;
        }
    });

    @Test
    void nothingQueuedWaitsForNothing() {
        assertFalse(pending.any());
        pending.settle("Acc.updateHost of int[8]");
        assertEquals(List.of(), waits);
    }

    @Test
    void oneSettleWaitsOnceForEveryQueuedKernelAndNamesThem() {
        String a = "kernel step_loop_12 of Heat.step (Heat.java:12)";
        String b = "kernel swap_loop_20 of Heat.swap (Heat.java:20)";
        for (int i = 0; i < 50; i++) {
            pending.add(a);
            pending.add(b);
        }
        assertTrue(pending.any());
        assertEquals(100, pending.launches());
        pending.settle("Acc.updateHost of double[64]");
        assertEquals(List.of("the deferred kernels " + a + ", " + b + " before Acc.updateHost of double[64]"), waits);
        assertFalse(pending.any());
        // a second settle has nothing left to wait for
        pending.settle("Acc.delete of double[64]");
        assertEquals(1, waits.size());
        assertEquals(1, pending.settles());
    }

    @Test
    void manyKernelsAreNamedUpToALimit() {
        for (int i = 0; i < Pending.NAMED + 3; i++) {
            pending.add("kernel k" + i);
        }
        String d = pending.describe();
        assertTrue(d.startsWith("the deferred kernels kernel k0, kernel k1"), d);
        assertTrue(d.endsWith("kernel k" + (Pending.NAMED - 1) + " and others"), d);
    }

    @Test
    void aFailedWaitIsThrownNamingTheKernelsAndLeavesNothingPending() {
        pending.add("kernel scale_loop_7 of Saxpy.scale (Saxpy.java:7)");
        failWith = new DriverException(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize",
                "waiting for the deferred kernel kernel scale_loop_7 of Saxpy.scale (Saxpy.java:7) before a copy");
        DriverException e = assertThrows(DriverException.class, () -> pending.settle("a copy"));
        assertSame(failWith, e);
        assertEquals(List.of("the deferred kernel kernel scale_loop_7 of Saxpy.scale (Saxpy.java:7) before a copy"),
                waits);
        assertFalse(pending.any(), "the fault is reported once, by the settle that met it");
    }

    @Test
    void aWaitTheLauncherMadeItselfOrALostContextClearsThem() {
        pending.add("kernel a");
        pending.settled();
        assertFalse(pending.any());
        pending.add("kernel b");
        pending.forget();
        assertFalse(pending.any());
        pending.settle("shutting down");
        assertEquals(List.of(), waits);
    }
}
