package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sixteen Java threads calling mixed kernels at once (vector add, SAXPY, an exact dot-product reduction, a Jacobi
 * sweep, a data region over two kernels, and present data through the {@code Acc} routines), each on its own random
 * inputs, every element compared with plain Java. Every thread is new to CUDA, so this also checks that the context
 * is made current on each. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class ThreadsGpuTest {
    private static final int THREADS = 16;
    private static final int ITERATIONS = 60;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @Test
    void sixteenThreadsRunMixedKernelsCorrectly() throws Exception {
        Random seeds = new Random(2024);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        int[] calls = new int[THREADS];
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long seed = seeds.nextLong();
                int id = t;
                done.add(pool.submit(() -> {
                    start.await();
                    Random r = new Random(seed);
                    for (int k = 0; k < ITERATIONS; k++) {
                        calls[id] += iteration(r, "thread " + id + " iteration " + k);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(540, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        for (int t = 0; t < THREADS; t++) {
            assertTrue(calls[t] >= ITERATIONS, "thread " + t + " ran " + calls[t] + " kernels");
        }
    }

    /** One random kernel (or region) on fresh random inputs, checked; returns the kernels it ran on the device. */
    private static int iteration(Random r, String where) {
        int n = 1 + r.nextInt(200_000);
        switch (r.nextInt(6)) {
            case 0 -> {
                double[] a = doubles(r, n);
                double[] b = doubles(r, n);
                double[] c = new double[n];
                double[] expected = new double[n];
                SafetyFixtures.vectorAdd(a, b, expected, n);
                offload(where, "vectorAdd", a, b, c, n);
                assertArrayEquals(expected, c, where + ": vectorAdd");
                return 1;
            }
            case 1 -> {
                float alpha = (float) r.nextGaussian();
                float[] x = floats(r, n);
                float[] y = floats(r, n);
                float[] expected = y.clone();
                SafetyFixtures.saxpy(alpha, x, expected, n);
                offload(where, "saxpy", alpha, x, y, n);
                assertArrayEquals(expected, y, where + ": saxpy");
                return 1;
            }
            case 2 -> {
                long[] a = longs(r, n);
                long[] b = longs(r, n);
                Object[] got = AccRuntime.offloadValue(SafetyFixtures.class, "dot", SafetyFixtures.descriptor("dot"),
                        null, new Object[] {a, b, n});
                assertNotNull(got, where + ": dot ran on the host");
                assertEquals(SafetyFixtures.dot(a, b, n), got[0], where + ": dot");
                return 1;
            }
            case 3 -> {
                int side = 3 + r.nextInt(400);
                double[] in = doubles(r, side * side);
                double[] out = doubles(r, side * side);
                double[] expected = out.clone();
                SafetyFixtures.jacobi(expected, in, side);
                offload(where, "jacobi", out, in, side);
                assertArrayEquals(expected, out, where + ": jacobi");
                return 1;
            }
            case 4 -> {
                double[] x = doubles(r, n);
                double[] tmp = new double[n];
                double[] y = new double[n];
                double[] expected = new double[n];
                SafetyFixtures.pipeline(x, new double[n], expected, n);
                Object token = AccRuntime.enterData(SafetyFixtures.class, "pipeline",
                        SafetyFixtures.descriptor("pipeline"), null, new Object[] {x, tmp, y, n});
                try {
                    offload(where, "scale", tmp, x, 3.0, n);
                    offload(where, "vectorAdd", tmp, x, y, n);
                } finally {
                    AccRuntime.exitData(token);
                }
                assertArrayEquals(expected, y, where + ": data region");
                assertArrayEquals(new double[n], tmp, where + ": tmp is create, never copied back");
                return 2;
            }
            default -> {
                double s = r.nextGaussian();
                double[] a = doubles(r, n);
                double[] c = new double[n];
                double[] expected = new double[n];
                SafetyFixtures.scale(expected, a, s, n);
                Acc.copyin(a);
                Acc.create(c);
                offload(where, "scale", c, a, s, n);
                assertArrayEquals(new double[n], c, where + ": c stays on the device until copyout");
                Acc.copyout(c);
                Acc.delete(a);
                assertArrayEquals(expected, c, where + ": present data");
                assertTrue(!Acc.isPresent(a) && !Acc.isPresent(c), where + ": left present");
                return 1;
            }
        }
    }

    private static void offload(String where, String name, Object... args) {
        assertTrue(AccRuntime.offload(SafetyFixtures.class, name, SafetyFixtures.descriptor(name), null, args),
                where + ": " + name + " ran on the host");
    }

    static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian() * 10;
        }
        return d;
    }

    static float[] floats(Random r, int n) {
        float[] d = new float[n];
        for (int i = 0; i < n; i++) {
            d[i] = (float) r.nextGaussian();
        }
        return d;
    }

    static long[] longs(Random r, int n) {
        long[] d = new long[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextLong();
        }
        return d;
    }
}
