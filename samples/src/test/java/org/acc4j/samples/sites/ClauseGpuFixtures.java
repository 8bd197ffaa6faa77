package org.acc4j.samples.sites;

import org.acc4j.Acc;
import org.acc4j.Kernels;

/** {@code @Kernels} methods with per-call clauses ({@code if}, {@code default(present)}) and {@code Acc.onDevice()}. */
public class ClauseGpuFixtures {
    boolean useGpu;

    @Kernels(ifParam = "gpu")
    public static void scaled(double[] a, double[] out, boolean gpu) {
        for (int i = 0; i < a.length; i++) {
            out[i] = 2 * a[i] + 1;
        }
    }

    @Kernels(ifField = "useGpu")
    public void shifted(double[] a, double[] out) {
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i] - 3;
        }
    }

    @Kernels(defaultPresent = true)
    public static void present(double[] a, double[] out) {
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i] * a[i];
        }
    }

    @Kernels
    public static void where(int[] flag, double[] a, double[] out) {
        for (int i = 0; i < flag.length; i++) {
            flag[i] = Acc.onDevice() ? 1 : 2;
            out[i] = Acc.onDevice() ? a[i] : -a[i];
        }
    }
}
