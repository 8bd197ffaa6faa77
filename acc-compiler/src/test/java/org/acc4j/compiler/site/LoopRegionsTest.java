package org.acc4j.compiler.site;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.frontend.Inliner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * Implicit data regions around host loops ({@link LoopRegions}): which loops of {@link LoopFixtures} get one, and
 * that the rewritten methods give plain Java's results with every region entered exited once, whatever way control
 * leaves the loop (the condition, a break, a return, an exception thrown in the loop or by a kernel, a labelled
 * continue), also when the runtime declines to make the region.
 */
class LoopRegionsTest {
    private static final Inliner.ClassSource CLASSES = SitesTest::bytes;
    private static final String RUNTIME = "org/acc4j/compiler/site/TestRuntime";

    @AfterEach
    void reset() {
        TestRuntime.declineRegions = false;
        TestRuntime.openRegions = 0;
        TestRuntime.simulateDevice = false;
        TestRuntime.ignoreHooks = false;
        TestRuntime.interpret = false;
    }

    /** The fixtures rewritten with implicit regions, in a loader of their own; notes and installed methods kept. */
    static final class Rewritten extends ClassLoader {
        final List<String> notes = new ArrayList<>();
        final List<String> installed = new ArrayList<>();

        Rewritten() {
            super(LoopRegionsTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (!name.startsWith(LoopFixtures.class.getName())) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    byte[] original = SitesTest.bytes(name.replace('.', '/'));
                    byte[] b;
                    try {
                        b = ClassRewriter.rewrite(original, CLASSES, TestRuntime::register, RUNTIME, w -> {
                            throw new AssertionError(w);
                        }, new ClassRewriter.Loops(LoopRegions.fromClassFiles(CLASSES), notes::add, installed::addAll));
                    } catch (Exception e) {
                        throw new ClassNotFoundException(name, e);
                    }
                    c = defineClass(name, b, 0, b.length);
                }
                return c;
            }
        }
    }

    private static LoopRegions.Result analyze(String method) throws Exception {
        return analyze(LoopFixtures.class, method);
    }

    private static LoopRegions.Result analyze(Class<?> c, String method) throws Exception {
        ClassNode cn = new ClassNode();
        new ClassReader(SitesTest.bytes(c.getName().replace('.', '/'))).accept(cn, 0);
        for (MethodNode mn : cn.methods) {
            if (mn.name.equals(method)) {
                return LoopRegions.analyze(cn, mn, LoopRegions.withClass(cn, LoopRegions.fromClassFiles(CLASSES)),
                        CLASSES);
            }
        }
        throw new AssertionError(method);
    }

    @Test
    void theLoopsThatQualifyAndWhy() throws Exception {
        for (String m : List.of("swap", "whileLoop", "doWhile", "breakOut", "returnInside", "throwInside",
                "kernelThrows", "tryInside", "intSteps", "prints", "freshArrays", "labelled", "switches", "tryFinally",
                "hostRead", "aliasRead", "nested", "readsAndWrites", "readsAll", "writesOnly", "readsOthers",
                "writeThenBreak", "writeThenReturn", "writeThenThrow", "writeFinally", "labelledWrites", "mixedLoop",
                "gridReadsAndWrites")) {
            LoopRegions.Result r = analyze(m);
            assertEquals(1, r.regions().size(), () -> m + ": " + r.notes());
        }
        LoopRegions.Region swap = analyze("swap").regions().get(0);
        assertEquals(List.of("u", "next"), List.of(swap.names()), "the swapped locals both enter");
        assertEquals(List.of("x"), List.of(analyze("freshArrays").regions().get(0).names()),
                "an array the loop allocates is not part of the region");
        assertEquals(List.of("x", "y"), List.of(analyze("labelled").regions().get(0).names()));
        assertRefused("replacesRow", "replaces a row of u on the host");
        assertRefused("copiesArray", "calls System.arraycopy");
        assertRefused("appCall", "calls LoopFixtures.helper");
        assertRefused("fieldOnly", "no array passed to its calls is held in a local");
        assertEquals(List.of("LoopFixtures.sa", "LoopFixtures.sb"),
                List.of(analyze("staticLoop").regions().get(0).names()), "the static arrays the kernel reads");
        assertEquals(List.of("this.a", "this.b"),
                List.of(analyze(LoopFixtures.Grid.class, "run").regions().get(0).names()), "the receiver's fields");
        LoopRegions.Result swapping = analyze(LoopFixtures.Grid.class, "runSwapping");
        assertTrue(swapping.regions().isEmpty() && swapping.notes().get(0).contains("stores an array into the field a"),
                swapping.notes()::toString);
        assertRefused("storesArray", "stores an array into an array");
        assertRefused("locked", "takes a lock");
        LoopRegions.Result nested = analyze("nested");
        assertTrue(nested.notes().isEmpty(), nested.notes()::toString);
        assertEquals(1, nested.regions().size(), "the outer loop, with its read of x");
        assertEquals(1, nested.regions().get(0).accesses().cardinality(), "x[1]");
        assertEquals(2, analyze("aliasRead").regions().get(0).accesses().cardinality(),
                "other may be x: its load and store get hooks");
        assertEquals(0, analyze("swap").regions().get(0).accesses().cardinality());
        assertEquals(0, analyze("freshArrays").regions().get(0).accesses().cardinality(),
                "an array the loop allocates gets no hook");
        // w (from before the loop, of x's type) may be x; steps and counts cannot be, and get none
        assertEquals(4, analyze("readsOthers").regions().get(0).accesses().cardinality(),
                "x[s], and w read twice and written once");
    }

    private static void assertRefused(String method, String why) throws Exception {
        LoopRegions.Result r = analyze(method);
        assertEquals(0, r.regions().size(), method);
        assertTrue(r.notes().size() == 1 && r.notes().get(0).contains(why), () -> method + ": " + r.notes());
    }

    @Test
    void rewrittenLoopsGivePlainJavasResultsAndExitEveryRegion() throws Exception {
        for (boolean decline : new boolean[] {false, true}) {
            TestRuntime.declineRegions = decline;
            Rewritten loader = new Rewritten();
            Class<?> c = Class.forName(LoopFixtures.class.getName(), true, loader);
            assertTrue(loader.installed.contains(LoopFixtures.class.getName().replace('.', '/') + ".scale([DD)V"),
                    loader.installed::toString);
            Random r = new Random(17);
            int n = 9;
            double[][] u = grid(r, n);
            double[][] v = grid(r, n);
            Object plain = LoopFixtures.swap(copy(u), copy(v), n, 5);
            double[][] u2 = copy(u);
            double[][] v2 = copy(v);
            int before = TestRuntime.regionsEntered;
            Object got = invoke(c, "swap", u2, v2, n, 5);
            assertGridEquals((double[][]) plain, (double[][]) got);
            assertSame(v2, got, "five swaps end on the second grid");
            if (!decline) {
                assertEquals(before + 1, TestRuntime.regionsEntered);
                assertSame(u2, TestRuntime.lastRegionArrays[0]);
                assertSame(v2, TestRuntime.lastRegionArrays[1]);
                assertTrue(TestRuntime.lastRegionWhere.startsWith("LoopFixtures.swap, the loop at line"),
                        TestRuntime.lastRegionWhere);
            }
            assertEquals(0, TestRuntime.openRegions);
            for (int k : new int[] {0, 1, 3, 7}) {
                same(c, "whileLoop", r, k);
                same(c, "doWhile", r, k);
                same(c, "breakOut", r, k);
                same(c, "returnInside", r, k);
                same(c, "throwInside", r, k);
                same(c, "kernelThrows", r, k);
                same(c, "tryInside", r, k);
                same(c, "hostRead", r, k);
                same(c, "appCall", r, k);
                same(c, "storesArray", r, k);
                same(c, "nested", r, k);
                same(c, "freshArrays", r, k);
                same(c, "gridRun", r, k);
                same(c, "switches", r, k);
                same(c, "tryFinally", r, k);
                same(c, "locked", r, k);
                same(c, "gridRunSwapping", r, k);
            }
            double[] x = random(r, 16);
            int[] factors = {2, 3, 1, 5};
            double[] px = x.clone();
            LoopFixtures.intSteps(px, factors);
            invoke(c, "intSteps", x, factors);
            assertArrayEquals(px, x);
            double[] y = random(r, 16);
            double[] x3 = random(r, 16);
            double[] px3 = x3.clone();
            double[] py = y.clone();
            LoopFixtures.labelled(px3, py, 4);
            invoke(c, "labelled", x3, y, 4);
            assertArrayEquals(px3, x3);
            assertArrayEquals(py, y);
            StringBuilder plainLog = new StringBuilder();
            StringBuilder log = new StringBuilder();
            double[] x4 = random(r, 16);
            double[] px4 = x4.clone();
            LoopFixtures.prints(px4, 3, plainLog);
            invoke(c, "prints", x4, 3, log);
            assertArrayEquals(px4, x4);
            assertEquals(plainLog.toString(), log.toString());
            double[] sa = random(r, 16);
            double[] sb = random(r, 16);
            System.arraycopy(sa, 0, LoopFixtures.sa, 0, 16);
            System.arraycopy(sb, 0, LoopFixtures.sb, 0, 16);
            LoopFixtures.staticLoop(5);
            java.lang.reflect.Field fa = c.getDeclaredField("sa");
            java.lang.reflect.Field fb = c.getDeclaredField("sb");
            fa.setAccessible(true);
            fb.setAccessible(true);
            double[] rsa = (double[]) fa.get(null);
            System.arraycopy(sa, 0, rsa, 0, 16);
            System.arraycopy(sb, 0, (double[]) fb.get(null), 0, 16);
            invoke(c, "staticLoop", 5);
            assertArrayEquals(LoopFixtures.sa, rsa);
            if (!decline) {
                assertEquals("|org/acc4j/compiler/site/LoopFixtures:sa,sb", TestRuntime.lastRegionFields);
            }
            assertEquals(0, TestRuntime.openRegions, "every region entered was exited");
        }
    }

    /**
     * Host reads and writes inside regions, on a simulated device: the kernels work on device copies of the region's
     * arrays, so the host sees their changes only through the hooks. Every way out of the loop, arrays that are not
     * the region's, every element kind and rows of two-dimensional arrays; each against plain Java, every element.
     */
    @Test
    void hostReadsAndWritesSeeWhatKernelsWroteOnASimulatedDevice() throws Exception {
        TestRuntime.interpret = true;
        for (boolean decline : new boolean[] {false, true}) {
            TestRuntime.declineRegions = decline;
            TestRuntime.simulateDevice = true;
            Rewritten loader = new Rewritten();
            Class<?> c = Class.forName(LoopFixtures.class.getName(), true, loader);
            Random r = new Random(29);
            int launches = TestRuntime.launches;
            int toHost = TestRuntime.unitsToHost;
            int toDevice = TestRuntime.unitsToDevice;
            for (int k : new int[] {0, 1, 3, 7}) {
                for (String m : List.of("readsAndWrites", "readsAll", "writesOnly", "readsOthers", "writeThenBreak",
                        "writeThenReturn", "writeThenThrow", "writeFinally", "labelledWrites", "hostRead", "nested",
                        "whileLoop", "breakOut", "returnInside", "throwInside", "kernelThrows", "tryInside",
                        "tryFinally", "switches")) {
                    same(c, m, r, k);
                }
                int n = 16;
                float[] f = new float[n];
                int[] i = new int[n];
                long[] l = new long[n];
                byte[] b = new byte[n];
                for (int j = 0; j < n; j++) {
                    f[j] = r.nextFloat();
                    i[j] = r.nextInt(100);
                    l[j] = r.nextLong() % 1000;
                    b[j] = (byte) r.nextInt(100);
                }
                float[] pf = f.clone();
                int[] pi = i.clone();
                long[] pl = l.clone();
                byte[] pb = b.clone();
                long plain = LoopFixtures.mixedLoop(pf, pi, pl, pb, k);
                assertEquals(plain, invoke(c, "mixedLoop", f, i, l, b, k), "mixedLoop k=" + k);
                assertArrayEquals(pf, f);
                assertArrayEquals(pi, i);
                assertArrayEquals(pl, l);
                assertArrayEquals(pb, b);
            }
            for (int steps : new int[] {1, 4, 7}) {
                int n = 10;
                double[][] u = grid(r, n);
                double[][] v = grid(r, n);
                double[][] pu = copy(u);
                double[][] pv = copy(v);
                double[][] plain = LoopFixtures.gridReadsAndWrites(pu, pv, n, steps);
                double[][] got = (double[][]) invoke(c, "gridReadsAndWrites", u, v, n, steps);
                assertSame(steps % 2 == 0 ? u : v, got);
                assertGridEquals(pu, u);
                assertGridEquals(pv, v);
            }
            assertEquals(0, TestRuntime.openRegions, "every region entered was exited");
            assertTrue(TestRuntime.launches > launches, "the kernels ran on the simulated device");
            if (!decline) {
                assertTrue(TestRuntime.unitsToHost > toHost && TestRuntime.unitsToDevice > toDevice,
                        "the hooks moved arrays and rows");
            }
        }
    }

    /** The kernels of the fixtures' {@code @Kernels} methods assemble, where ptxas is on the PATH. */
    @Test
    void theFixturesKernelsAssembleWithPtxas() throws Exception {
        java.nio.file.Path ptxas = org.acc4j.compiler.Ptxas.find();
        org.junit.jupiter.api.Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        int assembled = 0;
        for (String m : List.of("step", "scale", "poke", "mixed", "staticSweep")) {
            MethodPlan plan = SitesTest.plan(LoopFixtures.class, m);
            assertTrue(!plan.sites().isEmpty(), m);
            for (MethodPlan.Site site : plan.sites()) {
                for (org.acc4j.compiler.KernelPlan k : site.compiled().method().kernels()) {
                    assertEquals(null, org.acc4j.compiler.Ptxas.assemble(ptxas, k.entry(), k.ptx()), k.entry());
                    assembled++;
                    if (k.unchecked() != null) {
                        assertEquals(null, org.acc4j.compiler.Ptxas.assemble(ptxas, k.unchecked().entry(),
                                k.unchecked().ptx()), k.unchecked().entry());
                        assembled++;
                    }
                }
            }
        }
        assertTrue(assembled >= 5, "kernels assembled: " + assembled);
    }

    /** Without its hooks, the simulated device gives the host stale values: the test above can fail. */
    @Test
    void theSimulatedDeviceNeedsTheHooks() throws Exception {
        TestRuntime.interpret = true;
        TestRuntime.simulateDevice = true;
        TestRuntime.ignoreHooks = true;
        Class<?> c = Class.forName(LoopFixtures.class.getName(), true, new Rewritten());
        double[] x = random(new Random(3), 16);
        double[] px = x.clone();
        double plain = LoopFixtures.readsAndWrites(px, 3);
        assertTrue(plain != (double) invoke(c, "readsAndWrites", x, 3), "a stale read");
    }

    /** {@code method(double[] x, int k)} rewritten against plain Java: its value or exception, and every element of x. */
    private static void same(Class<?> c, String method, Random r, int k) throws Exception {
        double[] x = random(r, 16);
        double[] px = x.clone();
        Object expected;
        Method plain = SitesTest.method(LoopFixtures.class, method);
        try {
            expected = plain.invoke(null, px, k);
        } catch (InvocationTargetException e) {
            expected = e.getCause().getClass();
        }
        Object got;
        try {
            got = invoke(c, method, x, k);
        } catch (InvocationTargetException e) {
            got = e.getCause().getClass();
        }
        assertEquals(expected, got, method + " k=" + k);
        assertArrayEquals(px, x, method + " k=" + k);
        assertEquals(0, TestRuntime.openRegions, method + " k=" + k + ": the region was exited");
    }

    private static Object invoke(Class<?> c, String name, Object... args) throws Exception {
        return SitesTest.method(c, name).invoke(null, args);
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
        return Arrays.stream(g).map(double[]::clone).toArray(double[][]::new);
    }

    private static void assertGridEquals(double[][] expected, double[][] actual) {
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], actual[i], "row " + i);
        }
    }
}
