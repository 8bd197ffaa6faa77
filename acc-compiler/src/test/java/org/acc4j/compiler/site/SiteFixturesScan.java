package org.acc4j.compiler.site;

import org.acc4j.Kernels;

/** Scans as launch sites between parallel nests, for {@link ScanSitesTest}. */
final class SiteFixturesScan {
    private SiteFixturesScan() {
    }

    /** Counts per bucket, their exclusive prefix sum (the buckets' offsets), then a nest reading the offsets. */
    @Kernels
    static void offsets(int[] counts, int[] start, int[] end, int n, int steps) {
        for (int t = 0; t < steps; t++) {
            for (int i = 0; i < n; i++) {
                counts[i] = (counts[i] * 7 + t) & 15;
            }
            int s = 0;
            for (int i = 0; i < n; i++) {
                start[i] = s;
                s += counts[i];
            }
            for (int i = 0; i < n; i++) {
                end[i] = start[i] + counts[i];
            }
        }
    }

    /** A running maximum of doubles: exact in any grouping, so no relaxed clause is needed. */
    @Kernels
    static void runningMax(double[] a, double[] m, int n) {
        double s = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            s = Math.max(s, a[i]);
            m[i] = s;
        }
    }
}
