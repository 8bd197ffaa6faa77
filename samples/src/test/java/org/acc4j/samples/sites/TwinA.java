package org.acc4j.samples.sites;

import org.acc4j.Kernels;

/** One of two classes with a byte-identical {@code @Kernels} method (see {@link TwinsGpuTest}). */
public class TwinA {
    @Kernels
    public static void scale(double[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = a[i] * 3 + 1;
        }
    }
}
