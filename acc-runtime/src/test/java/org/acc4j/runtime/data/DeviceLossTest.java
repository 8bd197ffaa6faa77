package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import jcuda.driver.CUresult;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.DeviceFaultException;
import org.acc4j.runtime.cuda.DeviceLostException;
import org.acc4j.runtime.launch.Guard;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the {@link Guard} does after a sticky fault, with the device simulated ({@link FakeMemory}) and a target that
 * rebuilds or refuses as told: arrays a kernel changed and never copied back are recorded as lost and refused, the
 * rest is restored (a rebuild) or abandoned without a single CUDA call (a lost device), and a lost device refuses
 * every later operation at once.
 */
class DeviceLossTest {
    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);
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

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed or abandoned");
    }

    private static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian();
        }
        return d;
    }

    /** A sticky fault met by {@code what}: the context is gone, as the driver would report it. */
    private DeviceFaultException fault(String what) {
        return assertThrows(DeviceFaultException.class, () -> guard.run(what, () -> {
            memory.loseContext();
            throw new DriverException(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize", "waiting for a kernel");
        }));
    }

    @Test
    void aRebuildRestoresUnchangedArraysAndRefusesChangedOnes() {
        Random r = new Random(61);
        double[] in = doubles(r, 64);
        double[] out = new double[64];
        double[] copiedBack = doubles(r, 8);
        table.enterDynamic(in, Clause.COPYIN);
        table.enterDynamic(out, Clause.CREATE);
        table.enterDynamic(copiedBack, Clause.COPYIN);
        // kernels write out and copiedBack; copiedBack's change reached the host
        table.markWritten(out);
        table.markWritten(copiedBack);
        table.markWritten(new double[3]);
        table.updateHost(copiedBack);

        DeviceFaultException e = fault("K.run");
        assertTrue(e.rebuilt());
        assertEquals(List.of("current", "rebuild"), calls);
        assertEquals(List.of("double[64]"), e.lostArrays());
        assertTrue(e.getMessage().contains("3 arrays present on the device were restored"), e.getMessage());
        assertEquals(1, guard.rebuilds());
        assertNull(guard.lost());
        assertEquals("double[64]", guard.lostArray(out));
        assertNull(guard.lostArray(in));
        assertNull(guard.lostArray(copiedBack));
        assertTrue(table.isPresent(in) && table.isPresent(out));
        // the next work runs
        assertEquals(7, guard.run("next", () -> 7));
        guard.forgetLost(out);
        assertNull(guard.lostArray(out));
        for (Object a : List.of(in, out, copiedBack)) {
            table.exitDynamic(a, Clause.DELETE, false);
        }
    }

    @Test
    void aRefusedRebuildLosesTheDeviceWithoutTouchingIt() {
        Random r = new Random(62);
        double[] a = doubles(r, 100);
        double[] host = a.clone();
        double[][] m = {doubles(r, 5), doubles(r, 7), doubles(r, 9)};
        table.enterDynamic(a, Clause.COPYIN);
        table.enter(m, Clause.COPY);
        table.markWritten(m);
        refuseRebuild = true;

        DeviceFaultException e = fault("the test kernel");
        assertFalse(e.rebuilt());
        assertSame(e, guard.lost());
        assertEquals(List.of("current", "rebuild", "abandon"), calls);
        assertEquals(3, e.lostArrays().size(), "the rows of m: " + e.lostArrays());
        assertTrue(e.getMessage().contains("the device is lost for the rest of this process"), e.getMessage());
        assertTrue(e.getSuppressed()[0].getMessage().contains("cuDevicePrimaryCtxRetain"));
        // nothing is present, and no buffer was freed or copied: all were abandoned
        assertEquals(0, table.size());
        assertEquals(5, memory.abandoned(), "a, m's row table and its 3 rows");
        assertFalse(table.isPresent(a));
        assertArrayEquals(host, a);

        // later work is refused before it runs, naming the fault
        calls.clear();
        DeviceLostException later = assertThrows(DeviceLostException.class, () -> guard.run("Acc.copyin of int[4]",
                () -> {
                    throw new AssertionError("ran on a lost device");
                }));
        assertEquals(List.of(), calls);
        assertNull(later.array());
        assertSame(e, later.getCause());
        assertEquals("acc4j: Acc.copyin of int[4] cannot run on the device: it was lost after a fault in the test"
                + " kernel; the rest of this run is plain Java", later.getMessage());
        // m's rows lost their device-side changes; a is intact on the host
        assertNull(guard.lostArray(a));
        assertEquals("row 0 (double[5]) of double[3][]", guard.lostArray(m));
        assertEquals("double[7]", guard.lostArray(m[1]));
        String refusal = DeviceLostException.array("K.run", guard.lostArray(m), e).getMessage();
        assertTrue(refusal.startsWith("acc4j: K.run refuses row 0 (double[5]) of double[3][]: a kernel had changed it"
                + " on the device, and the change was lost when the device faulted in the test kernel"), refusal);
        guard.forgetLost(m);
        assertNull(guard.lostArray(m));
        assertNull(guard.lostArray(m[2]));
    }

    @Test
    void otherCudaErrorsPassThroughUnchanged() {
        DriverException bad = new DriverException(CUresult.CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel", "launching");
        DriverException e = assertThrows(DriverException.class, () -> guard.run("K.run", () -> {
            throw bad;
        }));
        assertSame(bad, e);
        assertEquals(0, guard.rebuilds());
        assertNull(guard.lost());
    }
}
