package org.acc4j.runtime.gpu;

import org.acc4j.Acc;
import org.acc4j.Kernels;

/** {@code @Kernels} methods on async queues, for {@link AsyncGpuTest}; each is also its own plain-Java reference. */
final class AsyncFixtures {
    private AsyncFixtures() {
    }

    @Kernels(async = 1)
    static void scaleOn1(double[] a, double[] out, double s, int n) {
        for (int i = 0; i < n; i++) {
            out[i] = a[i] * s + Math.sqrt(Math.abs(a[i]));
        }
    }

    @Kernels(async = 2)
    static void polyOn2(float[] a, float[] out, int n) {
        for (int i = 0; i < n; i++) {
            float x = a[i];
            out[i] = (x * x - 3f) * x + 0.5f;
        }
    }

    @Kernels(asyncParam = "q")
    static void axpyOn(double[] x, double[] y, double alpha, int n, int q) {
        for (int i = 0; i < n; i++) {
            y[i] = alpha * x[i] + y[i];
        }
    }

    /** Reads one past the end when {@code n == a.length}: the bounds error must surface at the wait. */
    @Kernels(async = 3)
    static void shiftOn3(int[] a, int[] out, int n) {
        for (int i = 0; i < n; i++) {
            out[i] = a[i + 1] - a[i];
        }
    }

    /** A reduction on a queue: runs synchronously (its result is returned). */
    @Kernels(async = 1)
    static double sumOn1(double[] a, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i];
        }
        return s;
    }

    /** Synchronous: reads what a queue wrote. */
    @Kernels
    static void doubleIt(double[] y, double[] z, int n) {
        for (int i = 0; i < n; i++) {
            z[i] = 2 * y[i];
        }
    }

    /** The default queue. */
    @Kernels(async = Acc.ASYNC_NOVAL)
    static void negateOnDefault(long[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = -a[i] ^ 0x5555L;
        }
    }
}
