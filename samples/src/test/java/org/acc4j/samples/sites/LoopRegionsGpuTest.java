package org.acc4j.samples.sites;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.compiler.site.ClassRewriter;
import org.acc4j.compiler.site.LoopRegions;
import org.acc4j.compiler.site.Rewriter;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Implicit data regions on the GPU: host loops of {@link LoopGpuFixtures}, rewritten as the agent rewrites them, keep
 * their arrays on the device across their calls, and every array ends as plain Java leaves it, element for element,
 * bit for bit: a heat equation on {@code double[][]} with swaps, a Jacobi solver that leaves its loop by a break on a
 * device reduction, a kernel that throws in the loop, a method whose second nest runs on the host between kernels,
 * arrays in the fields of the object whose {@code @Kernels} method the loop calls, and loops whose host code reads and
 * writes elements of the region's arrays between the calls (on rows of a {@code double[][]}, and on a {@code double[]}).
 */
@Tag("gpu")
class LoopRegionsGpuTest {
    static ClassLoader loader;
    static Class<?> rewritten;

    @BeforeAll
    static void device() throws Exception {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        loader = new Rewritten();
        rewritten = Class.forName(LoopGpuFixtures.class.getName(), true, loader);
    }

    /** The fixtures, rewritten as the agent would rewrite them (implicit regions on), in a loader of their own. */
    static final class Rewritten extends ClassLoader {
        Rewritten() {
            super(LoopRegionsGpuTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (!name.startsWith(LoopGpuFixtures.class.getName())) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    byte[] original = SitesGpuTest.bytes(name.replace('.', '/'));
                    byte[] b;
                    try {
                        b = ClassRewriter.rewrite(original, SitesGpuTest::bytes, AccRuntime::register, Rewriter.RUNTIME,
                                w -> {
                                    throw new AssertionError(w);
                                }, new ClassRewriter.Loops(LoopRegions.fromClassFiles(SitesGpuTest::bytes), n -> { },
                                        AccRuntime::installed));
                    } catch (Exception e) {
                        throw new ClassNotFoundException(name, e);
                    }
                    c = defineClass(name, b, 0, b.length);
                }
                return c;
            }
        }
    }

    private static Object call(String name, Object... args) throws Throwable {
        for (java.lang.reflect.Method m : rewritten.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                // the fixtures' loader defines a package of its own: reach them reflectively
                m.setAccessible(true);
                try {
                    return m.invoke(null, args);
                } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        }
        throw new AssertionError(name);
    }

    @Test
    void heatOnRowsKeepsBothGridsOnTheDevice() throws Throwable {
        Random r = new Random(31);
        int n = 131;
        double[][] u0 = grid(r, n);
        for (int steps : new int[] {1, 20, 21}) {
            double[][] pu = copy(u0);
            double[][] pn = copy(u0);
            Object plain = LoopGpuFixtures.heat(pu, pn, n, steps);
            double[][] au = copy(u0);
            double[][] an = copy(u0);
            long made = AccRuntime.loopRegionsMade();
            Object got = call("heat", au, an, n, steps);
            assertEquals(made + 1, AccRuntime.loopRegionsMade(), "the loop got a region");
            assertGrids(pu, au, steps + " steps, first grid");
            assertGrids(pn, an, steps + " steps, second grid");
            assertEquals(plain == pu, got == au, "the same grid is returned");
            assertTrue(!Acc.isPresent(au) && !Acc.isPresent(an), "the region's data left the device");
        }
    }

    @Test
    void heatWithReadsEveryKStepsAndABoundaryWriteEachStep() throws Throwable {
        Random r = new Random(36);
        int n = 257;
        double[][] u0 = grid(r, n);
        double[][] v0 = grid(r, n);
        for (int[] sk : new int[][] {{1, 1}, {30, 7}, {31, 10}}) {
            StringBuilder plainLog = new StringBuilder();
            double[][] pu = copy(u0);
            double[][] pn = copy(v0);
            Object plain = LoopGpuFixtures.heatReadsWrites(pu, pn, n, sk[0], sk[1], plainLog);
            StringBuilder log = new StringBuilder();
            double[][] au = copy(u0);
            double[][] an = copy(v0);
            long made = AccRuntime.loopRegionsMade();
            Object got = call("heatReadsWrites", au, an, n, sk[0], sk[1], log);
            assertEquals(made + 1, AccRuntime.loopRegionsMade(), "the loop got a region despite its host accesses");
            String what = sk[0] + " steps, a line every " + sk[1];
            assertEquals(plainLog.toString(), log.toString(), what + ": the host's reads");
            assertGrids(pu, au, what + ", first grid");
            assertGrids(pn, an, what + ", second grid");
            assertEquals(plain == pu, got == au, "the same grid is returned");
            assertTrue(!Acc.isPresent(au) && !Acc.isPresent(an), "the region's data left the device");
        }
    }

    @Test
    void relaxationWithAPrintAndABoundaryWrite() throws Throwable {
        Random r = new Random(37);
        int n = 100_001;
        double[] u0 = random(r, n);
        double[] f0 = random(r, n);
        for (int f = 0; f < n; f++) {
            f0[f] *= 1e-3;
        }
        for (int[] sk : new int[][] {{1, 1}, {50, 10}, {101, 100}}) {
            StringBuilder plainLog = new StringBuilder();
            double[] pu = u0.clone();
            double[] pv = u0.clone();
            double[] pf = f0.clone();
            double plain = LoopGpuFixtures.relaxReadsWrites(pu, pv, pf, n, sk[0], sk[1], plainLog);
            StringBuilder log = new StringBuilder();
            double[] u = u0.clone();
            double[] v = u0.clone();
            double[] fa = f0.clone();
            long made = AccRuntime.loopRegionsMade();
            double got = (double) call("relaxReadsWrites", u, v, fa, n, sk[0], sk[1], log);
            assertEquals(made + 1, AccRuntime.loopRegionsMade(), "the loop got a region despite its host accesses");
            assertEquals(Double.doubleToRawLongBits(plain), Double.doubleToRawLongBits(got));
            assertEquals(plainLog.toString(), log.toString());
            assertArrayEquals(pu, u);
            assertArrayEquals(pv, v);
            assertArrayEquals(pf, fa);
            assertTrue(!Acc.isPresent(u) && !Acc.isPresent(v) && !Acc.isPresent(fa),
                    "the region's data left the device");
        }
    }

    @Test
    void aSolverThatBreaksOnADeviceReduction() throws Throwable {
        Random r = new Random(32);
        int n = 97;
        for (double tol : new double[] {1e-3, 1e-30}) {
            double[] a0 = random(r, n * n);
            double[] b0 = a0.clone();
            double[] pa = a0.clone();
            double[] pb = b0.clone();
            double plain = LoopGpuFixtures.solve(pa, pb, n, 200, tol);
            double[] a = a0.clone();
            double[] b = b0.clone();
            double got = (double) call("solve", a, b, n, 200, tol);
            assertEquals(Double.doubleToRawLongBits(plain), Double.doubleToRawLongBits(got), "tol " + tol);
            assertArrayEquals(pa, a, "tol " + tol);
            assertArrayEquals(pb, b, "tol " + tol);
        }
    }

    @Test
    void aKernelThatThrowsInTheLoop() throws Throwable {
        Random r = new Random(33);
        for (int k : new int[] {0, 3, 9, 20}) {
            double[] x0 = random(r, 1000);
            double[] px = x0.clone();
            double plain = LoopGpuFixtures.throwing(px, k);
            double[] x = x0.clone();
            double got = (double) call("throwing", x, k);
            assertEquals(plain, got, "k " + k);
            assertArrayEquals(px, x, "k " + k);
            assertTrue(!Acc.isPresent(x), "k " + k + ": the region's data left the device");
        }
    }

    @Test
    void hostNestsBetweenKernelsSeeTheDevicesData() throws Throwable {
        Random r = new Random(34);
        int n = 5000;
        double[] x0 = random(r, n);
        double[] px = x0.clone();
        LoopGpuFixtures.mixedLoop(px, n, 7);
        double[] x = x0.clone();
        call("mixedLoop", x, n, 7);
        assertArrayEquals(px, x);
    }

    @Test
    void arraysInFieldsOfTheObjectWhoseKernelsTheLoopCalls() throws Throwable {
        Random r = new Random(35);
        int n = 100_003;
        double[] a0 = random(r, n);
        double[] b0 = random(r, n);
        double[] pa = a0.clone();
        double[] pb = b0.clone();
        LoopGpuFixtures.gridRun(pa, pb, 9);
        double[] a = a0.clone();
        double[] b = b0.clone();
        long made = AccRuntime.loopRegionsMade();
        call("gridRun", a, b, 9);
        assertEquals(made + 1, AccRuntime.loopRegionsMade(), "the loop got a region for this.a and this.b");
        assertArrayEquals(pa, a);
        assertArrayEquals(pb, b);
    }

    private static double[] random(Random r, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble();
        }
        return a;
    }

    private static double[][] grid(Random r, int n) {
        double[][] g = new double[n][];
        for (int i = 0; i < n; i++) {
            g[i] = random(r, n);
        }
        return g;
    }

    private static double[][] copy(double[][] g) {
        double[][] c = new double[g.length][];
        for (int i = 0; i < g.length; i++) {
            c[i] = g[i].clone();
        }
        return c;
    }

    private static void assertGrids(double[][] expected, double[][] actual, String what) {
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], actual[i], what + ", row " + i);
        }
    }
}
