package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * Queues that wait on queues on the GPU ({@code @Kernels(async = 3, waitOn = {1, 2})} and {@code Acc.waitAsync}):
 * work queued behind a slow kernel of another queue reads that kernel's results, every element bit for bit equal to
 * the same methods run as plain Java on random inputs (fixed seeds), with the host waiting only for the last queue.
 * Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class QueueWaitsGpuTest {
    private static final int N = 1_000_003;
    private static final int ROUNDS = 4000;

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

    private static void call(String name, Object... args) {
        for (Method m : WaitFixtures.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
                assertTrue(AccRuntime.offload(WaitFixtures.class, name, desc, null, args), name + " ran on the host");
                return;
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
    void aQueueThatWaitsOnTwoReadsTheirResults() {
        Random r = new Random(163);
        double[] a = doubles(r, N);
        double[] x = new double[N];
        double[] y = new double[N];
        double[] z = new double[N];
        double[] ex = new double[N];
        double[] ey = new double[N];
        double[] ez = new double[N];
        WaitFixtures.slowOn1(a, ex, N, ROUNDS);
        WaitFixtures.squareOn2(a, ey, N);
        WaitFixtures.sumOn3After1And2(ex, ey, ez, N);
        for (int rep = 0; rep < 3; rep++) {
            java.util.Arrays.fill(z, 0);
            Acc.copyin(a);
            Acc.create(x, y, z);
            call("slowOn1", a, x, N, ROUNDS);
            call("squareOn2", a, y, N);
            call("sumOn3After1And2", x, y, z, N);
            Acc.updateHostAsync(3, z);
            Acc.wait(3);
            sameBits("z", ez, z);
            Acc.delete(a, x, y, z);
        }
    }

    @Test
    void waitAsyncOrdersAQueueBehindAnotherAndItsWaitJoinsBoth() {
        Random r = new Random(164);
        double[] a = doubles(r, N);
        double[] x = new double[N];
        double[] w = new double[N];
        double[] ex = new double[N];
        double[] ew = new double[N];
        WaitFixtures.slowOn1(a, ex, N, ROUNDS);
        WaitFixtures.negateOn4(ex, ew, N);
        // a synchronous routine waits for every queue: made before the queued work
        Acc.create(w);
        // x is not present: the call on queue 1 copies it back at the wait that joins queue 1's work
        call("slowOn1", a, x, N, ROUNDS);
        Acc.waitAsync(new int[] {1}, 4);
        // queue 4 reads queue 1's device copy of x, present while queue 1's call holds it
        call("negateOn4", x, w, N);
        Acc.updateHostAsync(4, w);
        Acc.wait(4);
        sameBits("w", ew, w);
        sameBits("x, copied back by the wait for the queue that waited on its queue", ex, x);
        Acc.delete(w);
    }
}
