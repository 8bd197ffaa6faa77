package org.acc4j.samples.sites;

import org.acc4j.Kernels;
import org.acc4j.Loop;

/** Serial nests beside parallel ones, for {@link SerialGpuTest}; each method is also its own plain-Java reference. */
final class SerialGpuFixtures {
    private SerialGpuFixtures() {
    }

    /** A time loop around a parallel nest, a prefix sum marked seq (one device thread), and a parallel nest. */
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

    /** Every nest on one thread: a recurrence in place and a loop that could be parallel. */
    @Kernels(serial = true)
    static void recurrences(long[] a, long[] b, int n) {
        for (int i = 1; i < n; i++) {
            a[i] = a[i - 1] * 5 + a[i];
        }
        for (int i = 0; i < n; i++) {
            b[i] = a[i] ^ (a[i] >>> 7);
        }
    }

    /** An inclusive float prefix sum and an exclusive int max scan, on one thread, in Java's order. */
    @Kernels(serial = true)
    static void scans(float[] a, float[] sums, int[] k, int[] maxes, int n) {
        float s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i];
            sums[i] = s;
        }
        int m = Integer.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            maxes[i] = m;
            m = Math.max(m, k[i]);
        }
    }
}
