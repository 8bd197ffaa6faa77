package org.acc4j.runtime.data;

import org.acc4j.Kernels;

/** A {@code @Kernels} method as the per-call harness calls it, planned as the agent plans it. */
public class CallFixtures {
    @Kernels
    public static void addOne(double[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = a[i] + 1.0;
        }
    }

    /** A second method, called from inside a call of the first in the tests (calls nest). */
    @Kernels
    public static void scale(double[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = a[i] * 2.0;
        }
    }
}
