package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Async queues on the GPU: kernels and copies on several queues, every element against the same methods run as plain
 * Java on random inputs (fixed seeds); errors found at the wait; synchronous work after async work. Skips, saying why,
 * where there is no CUDA device.
 */
@Tag("gpu")
class AsyncGpuTest {
    private static final int N = 1_000_003;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @AfterEach
    void drained() {
        if (AccRuntime.get().onDevice()) {
            Acc.waitAll();
        }
    }

    /** Calls a fixture through the runtime as the agent would; asserts it ran on the device; returns its value. */
    private static Object call(String name, Object... args) throws Exception {
        for (Method m : AsyncFixtures.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
                if (m.getReturnType() == void.class) {
                    assertTrue(AccRuntime.offload(AsyncFixtures.class, name, desc, null, args), name + " ran on the host");
                    return null;
                }
                Object[] v = AccRuntime.offloadValue(AsyncFixtures.class, name, desc, null, args);
                assertTrue(v != null, name + " ran on the host");
                return v[0];
            }
        }
        throw new IllegalArgumentException(name);
    }

    private static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian() * 10;
        }
        return d;
    }

    private static void sameBits(String what, double[] expected, double[] actual) {
        for (int i = 0; i < expected.length; i++) {
            assertEquals(Double.doubleToLongBits(expected[i]), Double.doubleToLongBits(actual[i]),
                    what + " element " + i + ": " + expected[i] + " vs " + actual[i]);
        }
    }

    @Test
    void twoQueuesWithIndependentKernelsGiveJavasResults() throws Exception {
        Random r = new Random(61);
        double[] a = doubles(r, N);
        float[] f = new float[N];
        for (int i = 0; i < N; i++) {
            f[i] = (float) r.nextGaussian();
        }
        double[] expectedD = new double[N];
        float[] expectedF = new float[N];
        AsyncFixtures.scaleOn1(a, expectedD, 1.75, N);
        AsyncFixtures.polyOn2(f, expectedF, N);
        // data not present: copied in at the call, back at the wait
        double[] outD = new double[N];
        float[] outF = new float[N];
        call("scaleOn1", a, outD, 1.75, N);
        call("polyOn2", f, outF, N);
        Acc.wait(2);
        for (int i = 0; i < N; i++) {
            assertEquals(Float.floatToIntBits(expectedF[i]), Float.floatToIntBits(outF[i]), "queue 2 element " + i);
        }
        Acc.wait(1);
        sameBits("queue 1", expectedD, outD);
        assertFalse(Acc.isPresent(outD), "the call's data left the device at the wait");
        // data present, moved by async updates on the same queues
        double[] outD2 = new double[N];
        float[] outF2 = new float[N];
        Acc.create(a, outD2, f, outF2);
        Acc.updateDeviceAsync(1, a);
        Acc.updateDeviceAsync(2, f);
        call("scaleOn1", a, outD2, 1.75, N);
        call("polyOn2", f, outF2, N);
        Acc.updateHostAsync(1, outD2);
        Acc.updateHostAsync(2, outF2);
        Acc.waitAll();
        sameBits("queue 1, present data", expectedD, outD2);
        for (int i = 0; i < N; i++) {
            assertEquals(Float.floatToIntBits(expectedF[i]), Float.floatToIntBits(outF2[i]), "queue 2 present " + i);
        }
        Acc.delete(a, outD2, f, outF2);
    }

    @Test
    void aPipelineOverThreeQueuesGivesJavasResult() throws Exception {
        Random r = new Random(62);
        int chunks = 9;
        int len = 300_007;
        double[][] x = new double[chunks][];
        double[][] y = new double[chunks][];
        double[][] expected = new double[chunks][];
        for (int c = 0; c < chunks; c++) {
            x[c] = doubles(r, len);
            y[c] = doubles(r, len);
            expected[c] = y[c].clone();
            AsyncFixtures.axpyOn(x[c], expected[c], -0.5 + c, len, 0);
            Acc.create(x[c], y[c]);
        }
        for (int c = 0; c < chunks; c++) {
            int q = c % 3;
            Acc.updateDeviceAsync(q, x[c], y[c]);
            call("axpyOn", x[c], y[c], -0.5 + c, len, q);
            Acc.updateHostAsync(q, y[c]);
        }
        Acc.waitAll();
        for (int c = 0; c < chunks; c++) {
            sameBits("chunk " + c, expected[c], y[c]);
            Acc.delete(x[c], y[c]);
        }
    }

    @Test
    void stagedUploadsLetTheHostOverwriteAtOnceAndDownloadsLandAtTheWait() throws Exception {
        Random r = new Random(63);
        double[] x = doubles(r, N);
        double[] y = doubles(r, N);
        double[] expected = y.clone();
        AsyncFixtures.axpyOn(x, expected, 3.0, N, 0);
        Acc.create(x, y);
        Acc.updateDeviceAsync(4, x, y);
        double[] yBefore = y.clone();
        // staged at the call: these writes do not reach the device
        java.util.Arrays.fill(x, 1e300);
        call("axpyOn", x, y, 3.0, N, 4);
        Acc.updateHostAsync(4, y);
        Acc.wait(4);
        sameBits("y after the wait", expected, y);
        assertFalse(java.util.Arrays.equals(yBefore, y));
        assertTrue(Acc.asyncTest(4), "a waited queue has no work");
        Acc.delete(x, y);
    }

    @Test
    void asyncTestJoinsACompletedQueue() throws Exception {
        Random r = new Random(64);
        long[] a = new long[N];
        for (int i = 0; i < N; i++) {
            a[i] = r.nextLong();
        }
        long[] expected = a.clone();
        AsyncFixtures.negateOnDefault(expected, N);
        Acc.copyinAsync(Acc.ASYNC_NOVAL, a);
        call("negateOnDefault", a, N);
        Acc.copyoutAsync(Acc.ASYNC_NOVAL, a);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!Acc.asyncTest(Acc.ASYNC_NOVAL)) {
            assertTrue(System.nanoTime() < deadline, "the default queue did not complete in 10 s");
            Thread.onSpinWait();
        }
        assertArrayEquals(expected, a);
        assertFalse(Acc.isPresent(a), "copyoutAsync freed it at the wait");
        assertTrue(Acc.asyncTestAll());
    }

    @Test
    void aBoundsErrorIsThrownByTheWaitAndNothingIsCopiedBack() throws Exception {
        Random r = new Random(65);
        int[] a = r.ints(N).toArray();
        int[] out = new int[N];
        java.util.Arrays.fill(out, 42);
        int[] later = new int[N];
        Acc.copyin(later);
        call("shiftOn3", a, out, N);
        Acc.updateHostAsync(3, later);
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class, () -> Acc.wait(3));
        assertEquals("Index " + N + " out of bounds for length " + N, e.getMessage());
        for (int i = 0; i < N; i++) {
            assertEquals(42, out[i], "element " + i + " was copied back from the failed kernel");
        }
        assertFalse(Acc.isPresent(out));
        // the queue works again after its error
        int[] expected = new int[N - 1];
        AsyncFixtures.shiftOn3(a, expected, N - 1);
        int[] out2 = new int[N - 1];
        call("shiftOn3", a, out2, N - 1);
        Acc.wait(3);
        assertArrayEquals(expected, out2);
        Acc.delete(later);
    }

    @Test
    void aSynchronousCallAfterAsyncWorkSeesItsResults() throws Exception {
        Random r = new Random(66);
        double[] x = doubles(r, N);
        double[] y = doubles(r, N);
        double[] expectedY = y.clone();
        AsyncFixtures.axpyOn(x, expectedY, 0.25, N, 0);
        double[] expectedZ = new double[N];
        AsyncFixtures.doubleIt(expectedY, expectedZ, N);
        Acc.copyin(x, y);
        call("axpyOn", x, y, 0.25, N, 7);
        double[] z = new double[N];
        // synchronous: waits for queue 7 first
        call("doubleIt", y, z, N);
        sameBits("z", expectedZ, z);
        Acc.copyout(y);
        sameBits("y", expectedY, y);
        Acc.delete(x);
    }

    @Test
    void aReductionOnAQueueRunsSynchronouslyWithItsValue() throws Exception {
        Random r = new Random(67);
        int[] ints = r.ints(N, -1000, 1000).toArray();
        double[] a = new double[N];
        for (int i = 0; i < N; i++) {
            a[i] = ints[i];
        }
        // integers in doubles: every order of summing gives the same bits
        assertEquals(AsyncFixtures.sumOn1(a, N), (double) call("sumOn1", a, N));
        assertTrue(Acc.asyncTest(1));
    }
}
