package org.acc4j.runtime.data;

import org.acc4j.Kernels;

/** {@code @Kernels} methods with {@code if} and {@code default(present)} clauses, planned as the agent plans them. */
public class ClauseFixtures {
    static boolean staticGpu;
    boolean useGpu;
    int notFlag;

    @Kernels(ifParam = "gpu")
    public static void scaled(double[] a, int n, boolean gpu) {
        for (int i = 0; i < n; i++) {
            a[i] *= 2;
        }
    }

    @Kernels(ifField = "useGpu")
    public void field(double[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] += 1;
        }
    }

    @Kernels(ifField = "staticGpu")
    public static void staticField(double[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] += 1;
        }
    }

    @Kernels(ifParam = "onGpu")
    public static void missing(double[] a, boolean gpu) {
        for (int i = 0; i < a.length; i++) {
            a[i] += 1;
        }
    }

    @Kernels(ifParam = "n")
    public static void notBoolean(double[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] += 1;
        }
    }

    @Kernels(ifField = "notFlag")
    public void notBooleanField(double[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] += 1;
        }
    }

    @Kernels(ifField = "useGpu")
    public static void instanceFieldOfStatic(double[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] += 1;
        }
    }

    @Kernels(ifParam = "gpu", ifField = "useGpu")
    public void both(double[] a, boolean gpu) {
        for (int i = 0; i < a.length; i++) {
            a[i] += 1;
        }
    }

    @Kernels(defaultPresent = true)
    public static void present(double[] a, double[] b) {
        for (int i = 0; i < a.length; i++) {
            b[i] = a[i] + 1;
        }
    }

    @Kernels(async = 1, ifParam = "gpu")
    public static void asyncIf(double[] a, boolean gpu) {
        for (int i = 0; i < a.length; i++) {
            a[i] += 1;
        }
    }

    @Kernels
    public static void where(int[] flag) {
        for (int i = 0; i < flag.length; i++) {
            flag[i] = org.acc4j.Acc.onDevice() ? 1 : 2;
        }
    }
}
