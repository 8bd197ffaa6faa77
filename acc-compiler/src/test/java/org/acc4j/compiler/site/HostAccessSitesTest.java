package org.acc4j.compiler.site;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Host code between a method's nests that touches single elements and rows of their arrays: the plan leaves those
 * accesses out of the sites' effects, the rewrite calls the runtime before each, and with a simulated device per call
 * ({@link TestRuntime.CallDevice}: kernels work on copies, the host sees them only through the hooks) the rewritten
 * methods give plain Java's results while moving only the rows host code touches. Inputs are random from fixed
 * seeds; every output element is compared.
 */
class HostAccessSitesTest {
    @AfterEach
    void reset() {
        TestRuntime.interpret = false;
        TestRuntime.simulateCalls = false;
        TestRuntime.ignoreHooks = false;
    }

    static ClassLoader rewritten(String fixture) {
        return new RewritingLoader(SitesTest.class.getClassLoader(), fixture, TestRuntime::register, TestRuntime.NAME);
    }

    static double[][] matrix(Random r, int m, int n) {
        double[][] a = new double[m][];
        for (int i = 0; i < m; i++) {
            a[i] = SitesTest.random(r, n);
        }
        return a;
    }

    static double[][] copy(double[][] a) {
        return Arrays.stream(a).map(double[]::clone).toArray(double[][]::new);
    }

    static void assertRows(double[][] expected, double[][] actual) {
        assertEquals(expected.length, actual.length);
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], actual[i], "row " + i);
        }
    }

    @Test
    void luFollowsItsElementReadsAndRowSwapsInsteadOfMovingTheMatrix() throws Exception {
        MethodPlan p = SitesTest.plan(SiteFixtures.class, "lu");
        String report = String.join("\n", PlanReport.lines(p));
        for (MethodPlan.Site s : p.sites()) {
            assertTrue(s.after().isEmpty(), "site at line " + s.line() + " moves whole arrays: " + s.after() + "\n"
                    + report);
        }
        assertTrue(p.accesses().stream().anyMatch(a -> a.kind() == MethodPlan.Access.READ), "a[k][k] is read");
        assertEquals(2, p.accesses().stream().filter(a -> a.kind() == MethodPlan.Access.ROW_STORE).count(),
                "the two stores of the row swap");
        // pivot[k] = p: a write hook on an array no kernel uses
        assertTrue(p.accesses().stream().anyMatch(a -> a.kind() == MethodPlan.Access.WRITE));
    }

    @Test
    void luOnASimulatedDeviceGetsJavasFactorsAndMovesOnlyTheRowsItReads() throws Exception {
        TestRuntime.interpret = true;
        TestRuntime.simulateCalls = true;
        Class<?> c = Class.forName(SiteFixtures.class.getName(), true, rewritten(SiteFixtures.class.getName()));
        Method lu = SitesTest.method(c, "lu");
        int n = 24;
        double[][] a = matrix(new Random(5), n, n);
        double[][] a2 = copy(a);
        int[] piv = new int[n];
        int[] piv2 = new int[n];
        int toHost = TestRuntime.callUnitsToHost;
        int toDevice = TestRuntime.callUnitsToDevice;
        int tables = TestRuntime.rowTablesRebuilt;
        assertEquals(SiteFixtures.lu(a, piv), lu.invoke(null, a2, piv2));
        assertArrayEquals(piv, piv2);
        assertRows(a, a2);
        int down = TestRuntime.callUnitsToHost - toHost;
        int up = TestRuntime.callUnitsToDevice - toDevice;
        // each row goes in once; per column the pivot row and the two swapped rows come back at most; then every row
        assertEquals(n, up, "rows to the device");
        assertTrue(down <= 3 * n + n, "rows to the host: " + down + ", where moving the matrix at each column would be "
                + 2 * n * n);
        assertTrue(TestRuntime.rowTablesRebuilt - tables > 0, "the swaps rebuilt the row table");
        // without the hooks the host reads stale pivots: the hooks are what keeps it right
        TestRuntime.ignoreHooks = true;
        double[][] a3 = copy(a2);
        double[][] a4 = copy(matrix(new Random(5), n, n));
        int[] piv4 = new int[n];
        lu.invoke(null, a4, piv4);
        assertFalse(Arrays.equals(piv, piv4) && Arrays.deepEquals(a, a4), "the simulation needs the hooks");
        assertRows(a2, a3);
    }

    @Test
    void cornersReplacedRowsAndScalarsGiveJavasResults() throws Exception {
        TestRuntime.interpret = true;
        TestRuntime.simulateCalls = true;
        Class<?> c = Class.forName(SiteFixturesHost.class.getName(), true,
                rewritten(SiteFixturesHost.class.getName()));
        Random r = new Random(17);
        int n = 20;
        double[][] u = matrix(r, n, n);
        double[][] v = matrix(r, n, n);
        double[][] u2 = copy(u);
        double[][] v2 = copy(v);
        assertEquals(SiteFixturesHost.corners(u, v, n, 9), SitesTest.method(c, "corners").invoke(null, u2, v2, n, 9));
        assertRows(u, u2);
        assertRows(v, v2);
        for (MethodPlan.Site s : SitesTest.plan(SiteFixturesHost.class, "corners").sites()) {
            assertTrue(s.after().isEmpty(), s.after().toString());
        }

        double[][] a = matrix(r, 6, n);
        double[][] a2 = copy(a);
        double[] row1 = a2[1];
        double[] row2 = a2[2];
        double[] row3 = a2[3];
        assertEquals(SiteFixturesHost.replaceRow(a, n), SitesTest.method(c, "replaceRow").invoke(null, a2, n));
        assertRows(a, a2);
        // the replaced row got the first kernel's values; the swapped rows moved by reference
        assertTrue(a2[1] != row1 && a2[2] == row3 && a2[3] == row2);

        double[] x = SitesTest.random(r, 50);
        double[] y = SitesTest.random(r, 50);
        double[] x2 = x.clone();
        double[] y2 = y.clone();
        assertEquals(SiteFixturesHost.scalars(x, y, 50, 12), SitesTest.method(c, "scalars").invoke(null, x2, y2, 50,
                12));
        assertArrayEquals(x, x2);
        assertArrayEquals(y, y2);
    }
}
