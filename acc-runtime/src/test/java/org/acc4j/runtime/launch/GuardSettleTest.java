package org.acc4j.runtime.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUresult;
import org.acc4j.runtime.cuda.DeviceFaultException;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.Pending;
import org.acc4j.runtime.data.Buffer;
import org.acc4j.runtime.data.DeviceMemory;
import org.acc4j.runtime.data.PresentTable;
import org.junit.jupiter.api.Test;

/**
 * The guard as the choke point of deferred kernels, with the device simulated: every operation through {@link
 * Guard#run} waits for them first, a call through {@link Guard#call} does not, and a fault they met is handled as any
 * sticky fault is, its message naming them.
 */
class GuardSettleTest {
    private final List<String> log = new ArrayList<>();
    private boolean faulty;
    private final Pending pending = new Pending(waitingFor -> {
        log.add("wait: " + waitingFor);
        if (faulty) {
            throw new DriverException(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize",
                    "waiting for " + waitingFor);
        }
    });
    /** Nothing is present in these tests: the table only sees the rebuild. */
    private final PresentTable table = new PresentTable(new DeviceMemory() {
        @Override
        public Buffer allocate(Object hostArray) {
            throw new AssertionError("nothing is allocated");
        }

        @Override
        public Buffer allocateRaw(long bytes, String what) {
            throw new AssertionError("nothing is allocated");
        }

        @Override
        public long bytesInUse() {
            return 0;
        }
    });
    private final Guard guard = new Guard(new Guard.Target() {
        @Override
        public void makeCurrent() {
        }

        @Override
        public void rebuild() {
            log.add("rebuild");
            pending.forget();
        }

        @Override
        public void abandon() {
            log.add("abandon");
        }

        @Override
        public void settle(String what) {
            pending.settle(what);
        }
    }, table);

    @Test
    void anOperationWaitsForTheDeferredKernelsAndACallDoesNot() {
        pending.add("kernel step_loop_9 of Heat.step (Heat.java:9)");
        guard.call("Heat.step", () -> {
            log.add("call");
            pending.add("kernel step_loop_9 of Heat.step (Heat.java:9)");
            return null;
        });
        assertEquals(List.of("call"), log, "a call queues behind them in stream order");
        guard.run("Acc.updateHost of double[100]", () -> {
            log.add("copy");
            return null;
        });
        assertEquals(List.of("call", "wait: the deferred kernel kernel step_loop_9 of Heat.step (Heat.java:9) before"
                + " Acc.updateHost of double[100]", "copy"), log);
        assertFalse(pending.any());
        guard.run("Acc.waitAll", () -> null);
        assertEquals(3, log.size(), "nothing left to wait for");
    }

    @Test
    void aFaultTheWaitMeetsIsTheDevicesFaultNamingTheDeferredKernels() {
        pending.add("kernel scale_loop_4 of Saxpy.scale (Saxpy.java:4)");
        faulty = true;
        List<String> ran = new ArrayList<>();
        DeviceFaultException e = assertThrows(DeviceFaultException.class, () -> guard.run("Acc.updateHost of float[8]",
                () -> {
                    ran.add("copy");
                    return null;
                }));
        assertTrue(e.getMessage().contains("kernel scale_loop_4 of Saxpy.scale (Saxpy.java:4)"), e.getMessage());
        assertTrue(e.getMessage().contains("Acc.updateHost of float[8]"), e.getMessage());
        assertTrue(e.rebuilt());
        assertEquals(List.of(), ran, "the operation does not run on a faulted device");
        assertFalse(pending.any());
        // the next operation works
        faulty = false;
        assertEquals("ok", guard.run("Acc.updateHost of float[8]", () -> "ok"));
    }
}
