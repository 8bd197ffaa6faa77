package org.acc4j.compiler.site;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Serial nests as launch sites: a nest marked seq, or every nest of a {@code @Kernels(serial = true)} method, is a
 * site with a one-thread kernel beside the parallel ones; the rewritten methods give plain Java's results, bit for
 * bit, on the host path and through the kernel interpreter. A serial nest whose running value is used after it
 * stays on the host and says why.
 */
class SerialSitesTest {
    @AfterEach
    void reset() {
        TestRuntime.interpret = false;
    }

    private static String report(MethodPlan p) {
        return String.join("\n", PlanReport.lines(p));
    }

    @Test
    void aSeqNestBetweenParallelNestsIsASiteOnOneThread() throws Exception {
        MethodPlan p = SitesTest.plan(SiteFixturesSerial.class, "pipeline");
        assertEquals(3, p.sites().size(), () -> report(p));
        assertTrue(report(p).contains("serial: the loop over i and every loop in it run on one device thread"
                + " (@Loop(seq = true) on its outer loop)"), () -> report(p));
        MethodPlan q = SitesTest.plan(SiteFixturesSerial.class, "recurrences");
        assertEquals(2, q.sites().size(), () -> report(q));
        assertTrue(q.nests().stream().allMatch(n -> n.mapping().startsWith("serial")), () -> report(q));
    }

    @Test
    void aRunningValueUsedAfterTheNestKeepsItOnTheHost() throws Exception {
        MethodPlan p = SitesTest.plan(SiteFixturesSerial.class, "totalAfter");
        assertEquals(0, p.sites().size(), () -> report(p));
        assertFalse(p.nests().get(0).offloaded());
        assertTrue(report(p).contains("s is not a reduction"), () -> report(p));
    }

    @Test
    void rewrittenMethodsGivePlainJavasBitsOnBothPaths() throws Exception {
        for (boolean device : new boolean[] {false, true}) {
            TestRuntime.interpret = device;
            int before = TestRuntime.launches;
            ClassLoader loader = SitesTest.rewritten();
            Class<?> c = Class.forName(SiteFixturesSerial.class.getName(), true, loader);
            Random r = new Random(1610);
            int n = 777;
            double[] a = SitesTest.random(r, n);
            double[] a2 = a.clone();
            double[] b = new double[n];
            double[] b2 = new double[n];
            double[] cc = new double[n];
            double[] cc2 = new double[n];
            double v1 = SiteFixturesSerial.pipeline(a, b, cc, n, 3);
            double v2 = (double) SitesTest.method(c, "pipeline").invoke(null, a2, b2, cc2, n, 3);
            assertEquals(Double.doubleToLongBits(v1), Double.doubleToLongBits(v2));
            assertArrayEquals(a, a2);
            assertArrayEquals(b, b2);
            assertArrayEquals(cc, cc2);
            long[] x = r.longs(n).toArray();
            long[] x2 = x.clone();
            long[] y = new long[n];
            long[] y2 = new long[n];
            SiteFixturesSerial.recurrences(x, y, n);
            SitesTest.method(c, "recurrences").invoke(null, x2, y2, n);
            assertArrayEquals(x, x2);
            assertArrayEquals(y, y2);
            long[] t = r.longs(n).toArray();
            long[] u = new long[n];
            long[] u2 = new long[n];
            assertEquals(SiteFixturesSerial.totalAfter(t, u, n), SitesTest.method(c, "totalAfter").invoke(null, t, u2, n));
            assertArrayEquals(u, u2);
            if (device) {
                assertEquals(3 * 3 + 2, TestRuntime.launches - before, "every site ran on the device path");
            } else {
                assertEquals(before, TestRuntime.launches);
            }
        }
    }
}
