package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.runtime.cuda.DeviceFaultException;
import org.acc4j.runtime.gpu.SafetyFixtures;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Faults never poison the JVM: a kernel made to trap (PTX {@code trap;}), launched through the runtime's own kernel
 * cache and guard by a package-private hook, raises a {@link DeviceFaultException} naming the kernel and the CUDA
 * error; the runtime rebuilds its context, the present arrays come back from their host copies (device-side changes
 * not copied back are lost, as documented), and the next kernels (on present data, on fresh data, a reduction) give
 * plain Java's results. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class FaultRecoveryGpuTest {
    static final String TRAP_ENTRY = "acc4j_test_trap";
    /** One thread that executes {@code trap}: a sticky fault of the whole context. */
    static final String TRAP_PTX = """
            .version 7.0
            .target sm_70
            .address_size 64

            .visible .entry acc4j_test_trap()
            {
            \ttrap;
            \tret;
            }
            """;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get());
        // a fresh runtime: nothing present from other tests, so the restored counts are exact
        Acc.shutdown();
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    private static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian();
        }
        return d;
    }

    private static void offload(String name, Object... args) {
        assertTrue(AccRuntime.offload(SafetyFixtures.class, name, SafetyFixtures.descriptor(name), null, args),
                name + " ran on the host");
    }

    @Test
    void aTrappingKernelRebuildsTheDeviceRestoresPresentDataAndTheNextKernelsWork() {
        Random r = new Random(41);
        int n = 100_003;
        double[] a = doubles(r, n);
        double[] aHost = a.clone();
        double[] c = new double[n];
        double[][] m = new double[32][];
        double[][] mHost = new double[32][];
        for (int i = 0; i < m.length; i++) {
            m[i] = doubles(r, 500);
            mHost[i] = m[i].clone();
        }
        Acc.copyin(a);
        Acc.create(c);
        Acc.copyin((Object) m);
        // the device works, and a change on it is copied back
        offload("scale", c, a, 2.0, n);
        Acc.updateHost(c);
        double[] expected = new double[n];
        SafetyFixtures.scale(expected, aHost, 2.0, n);
        assertArrayEquals(expected, c);
        // a change on the device that is never copied back: the fault loses it
        offload("scaleRows", m, 32, 500);
        int rebuilds = AccRuntime.get().rebuildsForTest();

        DeviceFaultException e = assertThrows(DeviceFaultException.class,
                () -> AccRuntime.get().launchForTest(TRAP_PTX, TRAP_ENTRY, true));
        assertTrue(DeviceFaultException.sticky(e.result()), "code " + e.result());
        assertTrue(e.rebuilt(), () -> "the device was not rebuilt: " + trace(e));
        assertEquals(rebuilds + 1, AccRuntime.get().rebuildsForTest());
        String message = e.getMessage();
        assertTrue(message.startsWith("acc4j: the device faulted in the test kernel acc4j_test_trap: cuCtxSynchronize"
                + " failed: CUDA_ERROR_"), message);
        assertTrue(message.contains("waiting for kernel acc4j_test_trap"), message);
        // a, c, m and its 32 rows
        assertTrue(message.contains("The CUDA context was rebuilt and the next call runs normally; 35 arrays present on"
                + " the device were restored from the host's copy, so changes made on the device and not yet copied back"
                + " to the host are lost"), message);

        // present data is still present, as the host had it
        assertTrue(Acc.isPresent(a) && Acc.isPresent(c) && Acc.isPresent(m));
        Acc.updateHost((Object) m);
        for (int i = 0; i < m.length; i++) {
            assertArrayEquals(mHost[i], m[i], "row " + i + ": the lost device change did not come back");
        }
        // the next kernels work: on present data (a was restored from the host), on a rank-2 array, a reduction,
        // fresh data
        offload("scale", c, a, 5.0, n);
        Acc.copyout(c);
        SafetyFixtures.scale(expected, aHost, 5.0, n);
        assertArrayEquals(expected, c);
        offload("scaleRows", m, 32, 500);
        Acc.copyout((Object) m);
        SafetyFixtures.scaleRows(mHost, 32, 500);
        for (int i = 0; i < m.length; i++) {
            assertArrayEquals(mHost[i], m[i], "row " + i);
        }
        Acc.delete(a);
        long[] x = new long[n];
        for (int i = 0; i < n; i++) {
            x[i] = r.nextLong();
        }
        Object[] dot = AccRuntime.offloadValue(SafetyFixtures.class, "dot", "([J[JI)J", null, new Object[] {x, x, n});
        assertEquals(SafetyFixtures.dot(x, x, n), dot[0]);
        double[] p = doubles(r, n);
        double[] q = doubles(r, n);
        double[] s = new double[n];
        offload("vectorAdd", p, q, s, n);
        SafetyFixtures.vectorAdd(p, q, expected, n);
        assertArrayEquals(expected, s);
    }

    @Test
    void aFaultFoundByALaterCallIsRecoveredThere() {
        Random r = new Random(42);
        int n = 4099;
        double[] a = doubles(r, n);
        double[] b = doubles(r, n);
        Acc.copyin(b);
        AccRuntime.get().launchForTest(TRAP_PTX, TRAP_ENTRY, false);
        DeviceFaultException e = assertThrows(DeviceFaultException.class, Acc::waitAll);
        assertTrue(e.getMessage().startsWith("acc4j: the device faulted in Acc.waitAll: cuCtxSynchronize failed:"
                + " CUDA_ERROR_"), e.getMessage());
        assertTrue(e.getMessage().contains("1 array present on the device was restored"), e.getMessage());
        double[] c = new double[n];
        offload("vectorAdd", a, b, c, n);
        double[] expected = new double[n];
        SafetyFixtures.vectorAdd(a, b, expected, n);
        assertArrayEquals(expected, c);
        Acc.delete(b);
    }

    private static String trace(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }
}
