package org.acc4j.runtime.gpu;

import org.acc4j.Data;
import org.acc4j.Kernels;

/** Kernels and a data region timed by {@link ProfileGpuTest}; each also runs as plain Java for the reference. */
public final class ProfileFixtures {
    private ProfileFixtures() {
    }

    @Kernels
    static void add(double[] a, double[] b, double[] c, int n) {
        for (int i = 0; i < n; i++) {
            c[i] = a[i] + b[i];
        }
    }

    @Kernels
    static double dot(double[] a, double[] b, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    /** A data region around {@link #add}: a and b stay on the device, a comes back at the end. */
    @Data(copyin = "b", copy = "a")
    static void region(double[] a, double[] b, double[] c, int n) {
        add(a, b, c, n);
    }
}
