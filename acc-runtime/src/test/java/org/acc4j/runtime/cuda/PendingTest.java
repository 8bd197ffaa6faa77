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

    /** Marks recorded and waited for, as "record 0", "await 1", ...; {@code failAwait} makes a wait fail. */
    private static final class FakeMarks implements Pending.Marks {
        final List<String> log = new ArrayList<>();
        RuntimeException failAwait;

        @Override
        public void record(int mark) {
            log.add("record " + mark);
        }

        @Override
        public void await(int mark) {
            log.add("await " + mark);
            if (failAwait != null) {
                throw failAwait;
            }
        }

        @Override
        public void abandon() {
            log.add("abandon");
        }

        @Override
        public void close() {
            log.add("close");
        }
    }

    @Test
    void eachDeferredLaunchWaitsForTheOneBeforeIt() {
        FakeMarks marks = new FakeMarks();
        Pending p = new Pending(waits::add, marks);
        p.add("kernel a");
        assertEquals(List.of("record 0"), marks.log, "the first launch waits for nothing");
        p.add("kernel a");
        p.add("kernel a");
        assertEquals(List.of("record 0", "record 1", "await 0", "record 0", "await 1"), marks.log,
                "the host is at most one launch ahead");
        assertTrue(p.any(), "the last launch is still pending");
        p.settle("Acc.updateHost of double[8]");
        assertEquals(1, waits.size());
        marks.log.clear();
        p.add("kernel b");
        assertEquals(List.of("record 1"), marks.log, "after a settle the launch before it is done: no wait");
        p.forget();
        p.add("kernel c");
        assertEquals(List.of("record 1", "abandon", "record 0"), marks.log,
                "a lost context's marks are forgotten, and nothing is waited for through them");
        p.settle("shutting down");
        p.close();
        assertEquals("close", marks.log.get(marks.log.size() - 1));
    }

    @Test
    void aFailedWaitForTheLaunchBeforeIsThrownNamingTheKernels() {
        FakeMarks marks = new FakeMarks();
        Pending p = new Pending(waitingFor -> {
            waits.add(waitingFor);
            throw new DriverException(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize", waitingFor);
        }, marks);
        p.add("kernel a");
        marks.failAwait = new DriverException(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "cuEventSynchronize", "a mark");
        DriverException e = assertThrows(DriverException.class, () -> p.add("kernel b"));
        assertEquals("cuCtxSynchronize", e.call(), "the context's wait names the kernels");
        assertEquals(List.of("the deferred kernels kernel a, kernel b before the deferred launch of kernel b"), waits);
        assertFalse(p.any());
    }
}
