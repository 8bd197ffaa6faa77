package org.acc4j.runtime.gpu;

import org.acc4j.Kernels;

/**
 * {@code @Kernels} methods whose queues wait on other queues ({@code waitOn}), for {@link QueueWaitsGpuTest}; each is
 * also its own plain-Java reference.
 */
final class WaitFixtures {
    private WaitFixtures() {
    }

    /** Slow on purpose (a long sequential loop per element), so that work queued behind it would overtake it. */
    @Kernels(async = 1)
    static void slowOn1(double[] a, double[] x, int n, int rounds) {
        for (int i = 0; i < n; i++) {
            double v = a[i];
            for (int k = 0; k < rounds; k++) {
                v = v * 0.999 + 1.0;
            }
            x[i] = v;
        }
    }

    @Kernels(async = 2)
    static void squareOn2(double[] a, double[] y, int n) {
        for (int i = 0; i < n; i++) {
            y[i] = a[i] * a[i];
        }
    }

    @Kernels(async = 3, waitOn = {1, 2})
    static void sumOn3After1And2(double[] x, double[] y, double[] z, int n) {
        for (int i = 0; i < n; i++) {
            z[i] = x[i] + y[i];
        }
    }

    @Kernels(async = 4)
    static void negateOn4(double[] x, double[] w, int n) {
        for (int i = 0; i < n; i++) {
            w[i] = -x[i];
        }
    }
}
