package org.acc4j.compiler.site;

import org.acc4j.Kernels;
import org.acc4j.Loop;

/** Methods whose sequential nests run on one device thread between parallel nests, for {@link SerialSitesTest}. */
final class SiteFixturesSerial {
    private SiteFixturesSerial() {
    }

    /** A time loop of host code around a parallel nest, a prefix sum marked seq, and a parallel nest reading it. */
    @Kernels
    static double pipeline(double[] a, double[] b, double[] c, int n, int steps) {
        for (int t = 0; t < steps; t++) {
            for (int i = 0; i < n; i++) {
                a[i] = a[i] * 0.5 + 1;
            }
            double s = 0;
            for (@Loop(seq = true) int i = 0; i < n; i++) {
                s += a[i];
                b[i] = s;
            }
            for (int i = 0; i < n; i++) {
                c[i] = b[i] - a[i];
            }
        }
        return c[n - 1];
    }

    /** Every nest serial: a recurrence and a loop that could run in parallel. */
    @Kernels(serial = true)
    static void recurrences(long[] a, long[] b, int n) {
        for (int i = 1; i < n; i++) {
            a[i] = a[i - 1] * 5 + a[i];
        }
        for (int i = 0; i < n; i++) {
            b[i] = a[i] ^ (a[i] >>> 7);
        }
    }

    /** The running total is used after the nest: not a reduction, so the serial nest stays on the host. */
    @Kernels(serial = true)
    static long totalAfter(long[] a, long[] b, int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i];
            b[i] = s;
        }
        return s;
    }
}
