package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUresult;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.DeviceFaultException;
import org.acc4j.runtime.cuda.DeviceLostException;
import org.acc4j.runtime.data.CudaMemory;
import org.acc4j.runtime.data.PresentTable;
import org.acc4j.runtime.launch.Guard;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one device-loss policy, over a {@link Guard} whose device is simulated: work runs under the guard while the
 * device works; once the device is lost (before or during the work) the host's answer is given instead; a loss that
 * names an array reaches the caller; a fault the device survived reaches the caller too.
 */
class LossPolicyTest {
    private final PresentTable table = new PresentTable(new CudaMemory());
    private final List<String> calls = new ArrayList<>();
    private boolean refuseRebuild;
    private final Guard guard = new Guard(new Guard.Target() {
        @Override
        public void makeCurrent() {
            calls.add("current");
        }

        @Override
        public void rebuild() {
            calls.add("rebuild");
            if (refuseRebuild) {
                throw new DriverException(CUresult.CUDA_ERROR_LAUNCH_FAILED, "cuDevicePrimaryCtxRetain", "retaining again");
            }
        }

        @Override
        public void abandon() {
            calls.add("abandon");
        }
    }, table);
    private final LossPolicy policy = new LossPolicy(guard);

    @AfterEach
    void close() {
        table.close();
    }

    /** A sticky fault in {@code what}: the device is rebuilt, or lost when the rebuild is refused. */
    private DeviceFaultException fault(String what) {
        return assertThrows(DeviceFaultException.class, () -> guard.run(what, () -> {
            throw new DriverException(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize", "waiting for a kernel");
        }));
    }

    @Test
    void aWorkingDeviceRunsTheWorkUnderTheGuard() {
        assertEquals(42, policy.run("Acc.test", () -> {
            calls.add("work");
            return 42;
        }, () -> -1));
        assertEquals(List.of("current", "work"), calls);
        policy.refuseLost("Acc.copyin", new double[3]);
    }

    @Test
    void aLostDeviceGivesTheHostsAnswerWithoutRunningTheWork() {
        refuseRebuild = true;
        DeviceFaultException f = fault("Saxpy.run");
        assertSame(f, guard.lost());
        calls.clear();
        assertEquals(-1, policy.run("Acc.test", () -> {
            calls.add("work");
            return 42;
        }, () -> -1));
        assertEquals(-1, policy.orHost(() -> {
            calls.add("work");
            return 42;
        }, () -> -1));
        assertEquals(List.of(), calls, "nothing runs on a lost device");
    }

    @Test
    void aLossDuringTheWorkGivesTheHostsAnswer() {
        refuseRebuild = true;
        // the work meets the fault that loses the device, then a later guarded step finds it lost
        assertEquals("host", policy.orHost(() -> {
            fault("the first kernel");
            return guard.run("the second kernel", () -> "device");
        }, () -> "host"));
        assertNotNull(guard.lost());
    }

    @Test
    void aLossNamingAnArrayReachesTheCaller() {
        DeviceLostException named = DeviceLostException.array("Saxpy.run", "double[1024] y", null);
        DeviceLostException thrown = assertThrows(DeviceLostException.class, () -> policy.orHost(() -> {
            throw named;
        }, () -> "host"));
        assertSame(named, thrown);
    }

    @Test
    void aFaultTheDeviceSurvivedReachesTheCaller() {
        DeviceFaultException f = assertThrows(DeviceFaultException.class, () -> policy.run("Acc.test", () -> {
            throw new DriverException(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize", "waiting for a kernel");
        }, () -> "host"));
        assertNull(guard.lost(), "rebuilt, not lost");
        assertEquals(List.of("current", "rebuild"), calls);
        assertNotNull(f.getMessage());
    }
}
