package org.acc4j.compiler.site;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Scans as launch sites: a scan nest between parallel nests is a site of its own, reported as a scan; the rewritten
 * methods give plain Java's results bit for bit on the host path and through the kernel interpreter (the device's
 * grouping), on random inputs from fixed seeds.
 */
class ScanSitesTest {
    @AfterEach
    void reset() {
        TestRuntime.interpret = false;
    }

    @Test
    void aScanBetweenParallelNestsIsASite() throws Exception {
        MethodPlan p = SitesTest.plan(SiteFixturesScan.class, "offsets");
        String report = String.join("\n", PlanReport.lines(p));
        assertEquals(3, p.sites().size(), report);
        assertTrue(report.contains("scan: exclusive + over counts into start"), report);
        MethodPlan q = SitesTest.plan(SiteFixturesScan.class, "runningMax");
        assertTrue(String.join("\n", PlanReport.lines(q)).contains("scan: inclusive max over a into m"),
                () -> String.join("\n", PlanReport.lines(q)));
    }

    @Test
    void rewrittenMethodsGivePlainJavasBitsOnBothPaths() throws Exception {
        for (boolean device : new boolean[] {false, true}) {
            TestRuntime.interpret = device;
            int before = TestRuntime.launches;
            ClassLoader loader = SitesTest.rewritten();
            Class<?> c = Class.forName(SiteFixturesScan.class.getName(), true, loader);
            Random r = new Random(1660);
            int n = 10_007;
            int[] counts = r.ints(n, 0, 100).toArray();
            int[] counts2 = counts.clone();
            int[] start = new int[n];
            int[] start2 = new int[n];
            int[] end = new int[n];
            int[] end2 = new int[n];
            SiteFixturesScan.offsets(counts, start, end, n, 3);
            SitesTest.method(c, "offsets").invoke(null, counts2, start2, end2, n, 3);
            assertArrayEquals(counts, counts2);
            assertArrayEquals(start, start2);
            assertArrayEquals(end, end2);
            double[] a = SitesTest.random(r, n);
            double[] m = new double[n];
            double[] m2 = new double[n];
            SiteFixturesScan.runningMax(a, m, n);
            SitesTest.method(c, "runningMax").invoke(null, a, m2, n);
            assertArrayEquals(m, m2);
            if (device) {
                assertEquals(3 * 3 + 1, TestRuntime.launches - before, "every site ran on the device path");
            } else {
                assertEquals(before, TestRuntime.launches);
            }
        }
    }
}
