package org.acc4j.compiler.site;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * Launch sites on methods written as numerics code is: which loops become sites, which stay on the host and why,
 * and that the rewritten methods give plain Java's results, both when every site declines (the host path) and when
 * the sites run their nests through the kernel interpreter (the device path, with its thread mapping and race
 * check). Inputs are random from fixed seeds; every output element is compared.
 */
class SitesTest {
    static final Inliner.ClassSource CLASSES = SitesTest::bytes;

    @AfterEach
    void reset() {
        TestRuntime.interpret = false;
    }

    static byte[] bytes(String internalName) {
        return RewritingLoader.bytes(SitesTest.class.getClassLoader(), internalName);
    }

    static MethodPlan plan(Class<?> c, String method) throws Exception {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes(c.getName().replace('.', '/'))).accept(cn, 0);
        for (MethodNode mn : cn.methods) {
            if (mn.name.equals(method)) {
                return Planner.plan(cn, mn, CLASSES);
            }
        }
        throw new AssertionError("no method " + method);
    }

    /** The fixtures' classes, rewritten to call {@link TestRuntime}, in a loader of their own. */
    static ClassLoader rewritten() {
        return new RewritingLoader(SitesTest.class.getClassLoader(), SiteFixtures.class.getName(), TestRuntime::register,
                "org/acc4j/compiler/site/TestRuntime");
    }

    static Method method(Class<?> c, String name) {
        for (Method m : c.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                m.setAccessible(true);
                return m;
            }
        }
        throw new AssertionError(name);
    }

    static Class<?> rewritten(ClassLoader loader, String simpleName) throws Exception {
        return Class.forName(SiteFixtures.class.getName() + (simpleName.isEmpty() ? "" : "$" + simpleName), true,
                loader);
    }

    static double[] random(Random r, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble();
        }
        return a;
    }

    // ---------------------------------------------------------------- decisions

    @Test
    void timeLoopIsHostCodeAndItsNestsAreSites() throws Exception {
        MethodPlan p = plan(SiteFixtures.class, "jacobi");
        assertEquals(2, p.sites().size(), () -> String.join("\n", PlanReport.lines(p)));
        assertEquals(2, p.nests().size());
        assertTrue(p.nests().stream().allMatch(MethodPlan.Nest::offloaded));
        assertEquals(List.of("err"), p.sites().get(1).liveOuts().stream().map(MethodPlan.Local::name).toList());
        // between the stencil and the reduction the host touches no array: nothing moves
        assertTrue(p.sites().get(0).after().isEmpty(), () -> p.sites().get(0).after().toString());
        String json = PlanReport.json(p);
        assertTrue(json.contains("\"offloaded\":true"), json);
    }

    @Test
    void aRaceAndATrulySequentialSweepStayOnTheHostWithTheirReasons() throws Exception {
        MethodPlan h = plan(SiteFixtures.class, "histogram");
        assertEquals(2, h.nests().size());
        assertFalse(h.nests().get(0).offloaded());
        assertTrue(h.nests().get(1).offloaded(), () -> String.join("\n", PlanReport.lines(h)));
        assertFalse(h.nests().get(0).reasons().isEmpty());
        MethodPlan g = plan(SiteFixtures.class, "gaussSeidel");
        List<MethodPlan.Nest> nests = g.nests();
        assertEquals(2, nests.size(), () -> String.join("\n", PlanReport.lines(g)));
        assertFalse(nests.get(0).offloaded(), "the sweep");
        assertTrue(nests.get(1).offloaded(), "the residual");
    }

    @Test
    void luRunsThePivotSearchAsASearchAndOffloadsTheUpdate() throws Exception {
        MethodPlan p = plan(SiteFixtures.class, "lu");
        String report = String.join("\n", PlanReport.lines(p));
        assertEquals(3, p.nests().size(), report);
        assertTrue(p.nests().get(0).offloaded() && report.contains("a search for the first index of the greatest best"),
                "the pivot search (a max-location search): " + report);
        assertTrue(p.nests().get(1).offloaded(), "the column scaling");
        // the rank-1 update is a 2D nest on the device
        assertTrue(p.nests().get(2).offloaded() && p.nests().get(2).mapping().contains("Map2"), report);
    }

    @Test
    void twoReductionsInOneLoopGiveBackTwoLocals() throws Exception {
        MethodPlan p = plan(SiteFixtures.class, "sumAndMax");
        assertEquals(1, p.sites().size(), () -> String.join("\n", PlanReport.lines(p)));
        assertEquals(List.of("sum", "max"), p.sites().get(0).liveOuts().stream().map(MethodPlan.Local::name).toList());
    }

    @Test
    void objectCodeWithFieldsTimersAndHelpersHasItsNestsOnTheDevice() throws Exception {
        MethodPlan p = plan(SiteFixtures.Solver.class, "iterate");
        String report = String.join("\n", PlanReport.lines(p));
        assertEquals(3, p.sites().size(), report);
        assertTrue(p.nests().stream().allMatch(MethodPlan.Nest::offloaded), report);
        // after the axpy into tmp, the overridable helper gets tmp: it goes back to the host first
        assertTrue(p.sites().get(1).after().stream().anyMatch(e -> !e.write() && e.origin().toString().equals("tmp")),
                report);
    }

    // ---------------------------------------------------------------- results

    @Test
    void rewrittenMethodsGivePlainJavasResultsOnBothPaths() throws Exception {
        for (boolean device : new boolean[] {false, true}) {
            TestRuntime.interpret = device;
            int before = TestRuntime.launches;
            ClassLoader loader = rewritten();
            Class<?> c = rewritten(loader, "");
            // jacobi: max reduction, exact
            Random r = new Random(11);
            int n = 24;
            double[] a = random(r, n * n);
            double[] b = a.clone();
            double[] a2 = a.clone();
            double[] b2 = a.clone();
            double e1 = SiteFixtures.jacobi(a, b, n, 7, new SiteFixtures.Timer());
            Object t = rewritten(loader, "Timer").getDeclaredConstructor().newInstance();
            double e2 = (double) method(c, "jacobi").invoke(null, a2, b2, n, 7, t);
            assertEquals(e1, e2);
            assertArrayEquals(a, a2);
            assertArrayEquals(b, b2);
            // lu on double[][]: exact
            double[][] m = new double[9][];
            for (int i = 0; i < m.length; i++) {
                m[i] = random(r, m.length);
            }
            double[][] m2 = Arrays.stream(m).map(double[]::clone).toArray(double[][]::new);
            int[] piv = new int[9];
            int[] piv2 = new int[9];
            assertEquals(SiteFixtures.lu(m, piv), method(c, "lu").invoke(null, m2, piv2));
            assertArrayEquals(piv, piv2);
            for (int i = 0; i < m.length; i++) {
                assertArrayEquals(m[i], m2[i], "row " + i);
            }
            // histogram: the host nest, then a kernel reading its result
            int[] data = r.ints(500, 0, 17).toArray();
            double[] bins = new double[17];
            double[] bins2 = new double[17];
            double[] w = random(r, 500);
            double[] w2 = w.clone();
            SiteFixtures.histogram(data, bins, w, 500);
            method(c, "histogram").invoke(null, data, bins2, w2, 500);
            assertArrayEquals(bins, bins2);
            assertArrayEquals(w, w2);
            // sums: reordered on the device, within a tight bound
            double[] x = random(r, 1000);
            double[] out = new double[2];
            double[] out2 = new double[2];
            double v1 = SiteFixtures.sumAndMax(x, 1000, out);
            double v2 = (double) method(c, "sumAndMax").invoke(null, x, 1000, out2);
            assertEquals(v1, v2, 1e-12 * Math.abs(v1));
            assertEquals(out[0], out2[0], 1e-12 * Math.abs(out[0]));
            assertEquals(out[1], out2[1]);
            double[] u = random(r, 200);
            double[] u2 = u.clone();
            double[] g = u.clone();
            double[] g2 = u.clone();
            assertEquals(SiteFixtures.heat(u, new double[200], 200, 1e-3, 50),
                    method(c, "heat").invoke(null, u2, new double[200], 200, 1e-3, 50));
            assertArrayEquals(u, u2);
            double[] res = new double[200];
            double[] res2 = new double[200];
            double n1 = SiteFixtures.gaussSeidel(g, res, 200, 5);
            double n2 = (double) method(c, "gaussSeidel").invoke(null, g2, res2, 200, 5);
            assertArrayEquals(g, g2);
            assertArrayEquals(res, res2);
            assertEquals(n1, n2, 1e-12 * n1);
            double[] q = random(r, 301);
            double[] q2 = q.clone();
            assertEquals(SiteFixtures.guarded(q, 301), (double) method(c, "guarded").invoke(null, q2, 301),
                    1e-9);
            assertArrayEquals(q, q2);
            // the solver object: inherited arrays, fields, an overridable helper
            SiteFixtures.Solver s1 = new SiteFixtures.Solver(300, 5);
            Object s2 = rewritten(loader, "Solver").getConstructor(int.class, long.class).newInstance(300, 5L);
            double f1 = s1.iterate(4);
            double f2 = (double) method(s2.getClass(), "iterate").invoke(s2, 4);
            assertEquals(f1, f2, 1e-9 * Math.abs(f1));
            double[] x2 = (double[]) TestRuntime.field(s2.getClass(), "x", s2);
            for (int i = 0; i < 300; i++) {
                assertEquals(s1.x[i], x2[i], 1e-9, "x[" + i + "]");
            }
            if (device) {
                assertTrue(TestRuntime.launches - before >= 10, "sites ran: " + (TestRuntime.launches - before));
            } else {
                assertEquals(before, TestRuntime.launches);
            }
        }
        assertEquals(TestRuntime.calls, TestRuntime.exits, "every call closed its scope");
    }

    /** The stage loop and the twiddle loop are host code; both butterfly loops run on the device at every stage. */
    @Test
    void fftButterfliesRunOnTheDeviceAndGivePlainJavasBits() throws Exception {
        MethodPlan p = plan(SiteFixtures.class, "fft");
        String report = String.join("\n", PlanReport.lines(p));
        assertEquals(2, p.sites().size(), report);
        assertTrue(p.nests().stream().allMatch(MethodPlan.Nest::offloaded), report);
        ClassLoader loader = rewritten();
        Class<?> c = rewritten(loader, "");
        for (boolean device : new boolean[] {false, true}) {
            TestRuntime.interpret = device;
            for (int logn = 1; logn <= 7; logn++) {
                int n = 1 << logn;
                double[] data = random(new Random(100 + logn), 2 * n);
                double[] plain = data.clone();
                int before = TestRuntime.launches;
                SiteFixtures.fft(plain, -1);
                method(c, "fft").invoke(null, data, -1);
                // elementwise butterflies in Java's order of operations: the same bits
                assertArrayEquals(plain, data, "n = " + n + (device ? " on the device" : " on the host"));
                // stage s runs the a = 0 nest once and the a > 0 nest dual - 1 times: n - 1 launches in all
                assertEquals(device ? n - 1 : 0, TestRuntime.launches - before, "launches for n = " + n);
            }
        }
    }

    @Test
    void conditionalValuesStoredTwiceInALoopAreAParallelNest() throws Exception {
        MethodPlan p = plan(SiteFixtures.class, "ternaries");
        assertTrue(p.nests().get(0).offloaded(), () -> String.join("\n", PlanReport.lines(p)));
        TestRuntime.interpret = true;
        int before = TestRuntime.launches;
        Class<?> c = rewritten(rewritten(), "");
        double[] x = random(new Random(3), 999);
        int[] s1 = new int[999];
        int[] s2 = new int[999];
        double[] c1 = new double[999];
        double[] c2 = new double[999];
        SiteFixtures.ternaries(x, s1, c1, 999);
        method(c, "ternaries").invoke(null, x, s2, c2, 999);
        assertArrayEquals(s1, s2);
        assertArrayEquals(c1, c2);
        assertEquals(before + 1, TestRuntime.launches);
    }

    @Test
    void anExceptionInsideTheMethodClosesTheScope() throws Exception {
        Class<?> c = rewritten(rewritten(), "");
        int exits = TestRuntime.exits;
        TestRuntime.interpret = false;
        try {
            method(c, "jacobi").invoke(null, new double[4], new double[4], 4, 1, null);
        } catch (java.lang.reflect.InvocationTargetException e) {
            assertTrue(e.getCause() instanceof NullPointerException);
        }
        assertEquals(exits + 1, TestRuntime.exits);
    }

    @Test
    void everyFixturePlanIsConsistent() throws Exception {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes(SiteFixtures.class.getName().replace('.', '/'))).accept(cn, 0);
        List<String> lines = new ArrayList<>();
        for (MethodNode mn : cn.methods) {
            if (ClassRewriter.kernels(mn)) {
                MethodPlan p = Planner.plan(cn, mn, CLASSES);
                lines.addAll(PlanReport.lines(p));
                for (MethodPlan.Nest nest : p.nests()) {
                    assertTrue(nest.offloaded() == (nest.site() >= 0));
                    assertTrue(nest.offloaded() || !nest.reasons().isEmpty(), nest.toString());
                    assertNotNull(nest.reasons());
                }
            }
        }
        assertFalse(lines.isEmpty());
    }
}
