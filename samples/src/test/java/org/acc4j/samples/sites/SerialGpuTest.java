package org.acc4j.samples.sites;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.compiler.site.ClassRewriter;
import org.acc4j.compiler.site.Rewriter;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Serial nests on the GPU ({@code @Kernels(serial = true)} and an outer loop marked {@code @Loop(seq = true)}),
 * rewritten into launch sites as the agent rewrites them: each runs on one device thread, beside the parallel
 * nests, with every result bit for bit plain Java's (one thread keeps Java's order, float sums included), and a time
 * loop of parallel and serial nests moves each array once each way. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class SerialGpuTest {
    static ClassLoader loader;

    @BeforeAll
    static void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        loader = new ClassLoader(SerialGpuTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                synchronized (getClassLoadingLock(name)) {
                    if (!name.equals(SerialGpuFixtures.class.getName())) {
                        return super.loadClass(name, resolve);
                    }
                    Class<?> c = findLoadedClass(name);
                    if (c == null) {
                        byte[] original = SitesGpuTest.bytes(name.replace('.', '/'));
                        byte[] b;
                        try {
                            b = ClassRewriter.rewrite(original, SitesGpuTest::bytes, AccRuntime::register,
                                    Rewriter.RUNTIME, w -> {
                                        throw new AssertionError(w);
                                    });
                        } catch (Exception e) {
                            throw new ClassNotFoundException(name, e);
                        }
                        b = b == null ? original : b;
                        c = defineClass(name, b, 0, b.length);
                    }
                    return c;
                }
            }
        };
    }

    private static Object call(String name, Object... args) throws Throwable {
        Class<?> c = Class.forName(SerialGpuFixtures.class.getName(), true, loader);
        for (Method m : c.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                m.setAccessible(true);
                try {
                    return m.invoke(null, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        }
        throw new AssertionError(name);
    }

    private static long[] stats(String method) {
        return AccRuntime.get().sites().stats(AccRuntime.get().sites().find(SerialGpuFixtures.class.getName(), method));
    }

    @Test
    void aSeqPrefixSumBetweenParallelNestsStaysOnTheDevice() throws Throwable {
        Random r = new Random(1620);
        int n = 200_003;
        double[] a = SitesGpuTest.random(r, n);
        double[] a2 = a.clone();
        double[] b = new double[n];
        double[] b2 = new double[n];
        double[] c = new double[n];
        double[] c2 = new double[n];
        double v1 = SerialGpuFixtures.pipeline(a, b, c, n, 4);
        double v2 = (double) call("pipeline", a2, b2, c2, n, 4);
        assertEquals(Double.doubleToLongBits(v1), Double.doubleToLongBits(v2));
        assertArrayEquals(a, a2);
        assertArrayEquals(b, b2);
        assertArrayEquals(c, c2);
        long[] s = stats("pipeline");
        assertEquals(12, s[0], "nests run on the device");
        assertEquals(0, s[1], "nests run on the host");
    }

    @Test
    void serialMethodsGiveJavasBits() throws Throwable {
        Random r = new Random(1621);
        int n = 65_537;
        long[] x = r.longs(n).toArray();
        long[] x2 = x.clone();
        long[] y = new long[n];
        long[] y2 = new long[n];
        SerialGpuFixtures.recurrences(x, y, n);
        call("recurrences", x2, y2, n);
        assertArrayEquals(x, x2);
        assertArrayEquals(y, y2);
        assertEquals(2, stats("recurrences")[0], "both nests on the device");

        float[] f = new float[n];
        for (int i = 0; i < n; i++) {
            f[i] = (float) r.nextGaussian();
        }
        int[] k = r.ints(n).toArray();
        float[] sums = new float[n];
        float[] sums2 = new float[n];
        int[] maxes = new int[n];
        int[] maxes2 = new int[n];
        SerialGpuFixtures.scans(f, sums, k, maxes, n);
        call("scans", f, sums2, k, maxes2, n);
        for (int i = 0; i < n; i++) {
            assertEquals(Float.floatToIntBits(sums[i]), Float.floatToIntBits(sums2[i]), "sums element " + i);
        }
        assertArrayEquals(maxes, maxes2);
        assertEquals(2, stats("scans")[0]);
    }
}
