package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.runtime.cuda.DeviceFaultException;
import org.acc4j.runtime.cuda.DeviceLostException;
import org.acc4j.runtime.gpu.SafetyFixtures;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Faults never poison the JVM: a kernel made to trap (PTX {@code trap;}), launched through the runtime's own kernel
 * cache and guard by a package-private hook, raises a {@link DeviceFaultException} naming the kernel and the CUDA
 * error, and the next calls give plain Java's results. Which way depends on the driver:
 * <ul>
 *   <li>it gives a new context: the runtime rebuilds, present arrays come back from their host copies, and the next
 *       kernels run on the device;</li>
 *   <li>it refuses (driver 580 on the H100 does: a sticky fault poisons the process's CUDA state): the device is
 *       lost, and every later {@code @Kernels} call runs as plain Java, the data routines act as on the host.</li>
 * </ul>
 * Either way, an array a kernel had changed on the device and not copied back is refused with a
 * {@link DeviceLostException} until {@code Acc.delete} is called on it. The fault poisons the process on such
 * drivers, so this class runs in a JVM of its own, as one test. Skips, saying why, where
 * there is no CUDA device.
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
        Acc.install(AccRuntime.get().backend());
        // a fresh runtime: nothing present from other tests, so the counts are exact
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

    private static boolean offload(String name, Object... args) {
        return AccRuntime.offload(SafetyFixtures.class, name, SafetyFixtures.descriptor(name), null, args);
    }

    @Test
    void aTrappingKernelFaultsClearlyAndLaterCallsGiveJavasResults() {
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
        assertTrue(offload("scale", c, a, 2.0, n), "scale ran on the host");
        Acc.updateHost(c);
        double[] expected = new double[n];
        SafetyFixtures.scale(expected, aHost, 2.0, n);
        assertArrayEquals(expected, c);
        // a change on the device that is never copied back: the fault loses it
        assertTrue(offload("scaleRows", m, 32, 500), "scaleRows ran on the host");
        int rebuilds = AccRuntime.get().rebuildsForTest();

        // the kernel traps; the runtime waits for it, as it waits for each of its own kernels
        DeviceFaultException e = assertThrows(DeviceFaultException.class,
                () -> AccRuntime.get().launchForTest(TRAP_PTX, TRAP_ENTRY, true));
        String message = e.getMessage();
        System.out.println("the fault: " + message);
        assertTrue(DeviceFaultException.sticky(e.result()), "code " + e.result());
        assertTrue(message.startsWith("acc4j: the device faulted in the test kernel acc4j_test_trap: cuCtxSynchronize"
                + " failed: CUDA_ERROR_"), message);
        assertTrue(message.contains("waiting for kernel acc4j_test_trap"), message);
        // m's 32 rows were changed on the device and never copied back; c's change was
        assertEquals(32, e.lostArrays().size(), e.lostArrays()::toString);
        assertTrue(message.contains("Lost with the device: the changes kernels had made to 32 arrays not yet copied"
                + " back (double[500], "), message);

        if (e.rebuilt()) {
            assertEquals(rebuilds + 1, AccRuntime.get().rebuildsForTest());
            assertTrue(message.contains("The CUDA context was rebuilt and the next call runs normally; 35 arrays present"
                    + " on the device were restored from the host's copy"), message);
            assertTrue(Acc.isPresent(a) && Acc.isPresent(c) && Acc.isPresent(m));
        } else {
            assertTrue(message.contains("so the device is lost for the rest of this process: @Kernels methods run as"
                    + " plain Java from now on"), message);
        }
        boolean device = e.rebuilt();

        // m is refused: by a kernel, by the routines that would copy it
        DeviceLostException refused = assertThrows(DeviceLostException.class, () -> offload("scaleRows", m, 32, 500));
        assertTrue(refused.getMessage().startsWith("acc4j: SafetyFixtures.scaleRows refuses row 0 (double[500]) of"
                + " double[32][500]: a kernel had changed it on the device, and the change was lost"),
                refused.getMessage());
        assertThrows(DeviceLostException.class, () -> Acc.copyout((Object) m));
        assertThrows(DeviceLostException.class, () -> Acc.updateHost(m[3]));
        for (int i = 0; i < m.length; i++) {
            assertArrayEquals(mHost[i], m[i], "row " + i + ": the host copy is as it was before the lost change");
        }
        // Acc.delete says the device copy is not wanted: m may be used again
        Acc.delete((Object) m);

        // the next calls give plain Java's results: on the device after a rebuild, as plain Java after a loss
        assertEquals(device, offload("scale", c, a, 5.0, n));
        if (!device) {
            SafetyFixtures.scale(c, a, 5.0, n);
        }
        Acc.copyout(c);
        SafetyFixtures.scale(expected, aHost, 5.0, n);
        assertArrayEquals(expected, c);
        assertEquals(device, offload("scaleRows", m, 32, 500));
        if (!device) {
            SafetyFixtures.scaleRows(m, 32, 500);
        }
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
        if (device) {
            assertEquals(SafetyFixtures.dot(x, x, n), dot[0]);
        } else {
            assertNull(dot, "a lost device runs the reduction on the host");
        }
        double[] p = doubles(r, n);
        double[] q = doubles(r, n);
        double[] s = new double[n];
        assertEquals(device, offload("vectorAdd", p, q, s, n));
        if (!device) {
            // routines act as on the host, saying nothing and refusing nothing
            Acc.copyin(p);
            Acc.updateDevice(p);
            assertTrue(Acc.isPresent(p));
            Acc.delete(p);
            // a fresh start of the runtime finds the driver still refusing: plain Java, said once
            Acc.shutdown();
            assertFalse(AccRuntime.get().onDevice(), "the driver gave a context again after the loss");
            assertFalse(offload("vectorAdd", p, q, s, n));
        }
    }
}
