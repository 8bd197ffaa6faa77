package org.acc4j.samples.sites;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.compiler.site.RewritingLoader;
import org.acc4j.compiler.site.Rewriter;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Methods with host code around their nests, rewritten into launch sites as the agent rewrites them, on the GPU:
 * every nest that can runs on the device, results equal plain Java (bit for bit where Java defines them, within a
 * bound for reordered float sums), and a time loop moves each array once each way.
 */
@Tag("gpu")
class SitesGpuTest {
    static ClassLoader loader;

    @BeforeAll
    static void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        loader = new RewritingLoader(SitesGpuTest.class.getClassLoader(), SiteGpuFixtures.class.getName(),
                AccRuntime::register, Rewriter.RUNTIME);
    }

    static byte[] bytes(String internalName) {
        return RewritingLoader.bytes(SitesGpuTest.class.getClassLoader(), internalName);
    }

    static Class<?> type(String nested) throws ClassNotFoundException {
        return Class.forName(SiteGpuFixtures.class.getName() + (nested.isEmpty() ? "" : "$" + nested), true, loader);
    }

    static Object call(Object target, Class<?> c, String name, Object... args) throws Throwable {
        for (Method m : c.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                try {
                    return m.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        }
        throw new AssertionError(name);
    }

    static long[] stats(String method) {
        return stats("", method);
    }

    static long[] stats(String nested, String method) {
        return AccRuntime.get().sites().stats(AccRuntime.get().sites().find(SiteGpuFixtures.class.getName()
                + (nested.isEmpty() ? "" : "$" + nested), method));
    }

    static double[] random(Random r, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble();
        }
        return a;
    }

    @Test
    void timeLoopRunsItsNestsOnTheDeviceAndMovesEachArrayOnce() throws Throwable {
        Random r = new Random(1);
        int n = 300;
        double[] a = random(r, n * n);
        double[] b = a.clone();
        double[] a2 = a.clone();
        double[] b2 = a.clone();
        double e1 = SiteGpuFixtures.jacobi(a, b, n, 20, new SiteGpuFixtures.Timer());
        Object timer = type("Timer").getDeclaredConstructor().newInstance();
        double e2 = (double) call(null, type(""), "jacobi", a2, b2, n, 20, timer);
        assertEquals(e1, e2);
        assertArrayEquals(a, a2);
        assertArrayEquals(b, b2);
        long[] s = stats("jacobi");
        assertEquals(40, s[0], "nests run on the device");
        assertEquals(0, s[1], "nests run on the host");
        assertEquals(2, s[2], "arrays moved to the device");
        assertEquals(2, s[3], "arrays moved to the host");
    }

    @Test
    void liveOutsHostNestsObjectsAndTwoDimensionalArrays() throws Throwable {
        Random r = new Random(2);
        Class<?> c = type("");
        double[] x = random(r, 100_003);
        double[] out = new double[2];
        double[] out2 = new double[2];
        double m1 = SiteGpuFixtures.sumAndMax(x, x.length, out);
        assertEquals(m1, (double) call(null, c, "sumAndMax", x, x.length, out2));
        assertEquals(out[1], out2[1]);
        assertEquals(out[0], out2[0], 1e-10 * Math.abs(out[0]));

        int[] data = r.ints(50_000, 0, 61).toArray();
        int[] bins = new int[61];
        int[] bins2 = new int[61];
        double[] w = random(r, 50_000);
        double[] w2 = w.clone();
        SiteGpuFixtures.histogram(data, bins, w, data.length);
        call(null, c, "histogram", data, bins2, w2, data.length);
        assertArrayEquals(bins, bins2);
        assertArrayEquals(w, w2);
        long[] h = stats("histogram");
        assertEquals(4, h[0], "every nest on the device, the histogram's increments atomic (integer adds)");
        assertEquals(0, h[1]);

        double[][] m = new double[200][];
        for (int i = 0; i < m.length; i++) {
            m[i] = random(r, m.length);
        }
        double[][] m2 = Arrays.stream(m).map(double[]::clone).toArray(double[][]::new);
        int[] p = new int[200];
        int[] p2 = new int[200];
        assertEquals(SiteGpuFixtures.lu(m, p), call(null, c, "lu", m2, p2));
        assertArrayEquals(p, p2);
        for (int i = 0; i < m.length; i++) {
            assertArrayEquals(m[i], m2[i], "row " + i);
        }
        assertTrue(stats("lu")[0] >= 2 * 199, "the scaling and the update of each column ran on the device");
        // the pivot read and the row swap of each column move those rows alone, not the matrix (40,000 row copies)
        long[] lu = stats("lu");
        assertTrue(lu[3] <= 5 * m.length, "copies to the host: " + lu[3]);
        assertTrue(lu[2] <= 3 * m.length, "copies to the device: " + lu[2]);

        SiteGpuFixtures.Solver s1 = new SiteGpuFixtures.Solver(70_000, 3);
        Object s2 = type("Solver").getConstructor(int.class, long.class).newInstance(70_000, 3L);
        double f1 = s1.iterate(6);
        double f2 = (double) call(s2, s2.getClass(), "iterate", 6);
        assertEquals(f1, f2, 1e-9 * Math.abs(f1));
        assertEquals(18, stats("Solver", "iterate")[0]);

        double[] q = random(r, 1001);
        double[] q2 = q.clone();
        assertEquals(SiteGpuFixtures.guarded(q, 1001), (double) call(null, c, "guarded", q2, 1001));
        assertArrayEquals(q, q2);
    }

    @Test
    void aBoundsErrorInASiteIsJavasException() throws Throwable {
        double[] a = new double[1000];
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> call(null, type(""), "outOfBounds", a, 1000));
        assertEquals("Index 1000 out of bounds for length 1000", e.getMessage());
        // the first kernel's result reached the host
        for (double v : a) {
            assertTrue(v == 1 || v == 2, "element " + v);
        }
    }
}
