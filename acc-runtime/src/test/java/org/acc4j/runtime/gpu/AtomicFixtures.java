package org.acc4j.runtime.gpu;

import org.acc4j.Acc;
import org.acc4j.Kernels;

/** Kernels with atomic updates, for {@link AtomicsGpuTest}. */
public final class AtomicFixtures {
    private AtomicFixtures() {
    }

    @Kernels
    public static void histogram(int[] bins, long[] wide, double[] sums, int[] data, double[] weight, int n) {
        for (int i = 0; i < n; i++) {
            int b = data[i];
            Acc.atomicAdd(bins, b, 1);
            Acc.atomicAdd(wide, b, (long) i << 20);
            Acc.atomicAdd(sums, b, weight[i]);
        }
    }

    @Kernels
    public static void tickets(int[] counter, int[] tickets, int n) {
        for (int i = 0; i < n; i++) {
            tickets[i] = Acc.atomicAdd(counter, 0, 1);
        }
    }

    @Kernels
    public static void extremes(int[] min, long[] max, int[] ors, int[] owner, int[] won, int[] data, int n) {
        for (int i = 0; i < n; i++) {
            int b = data[i];
            Acc.atomicMin(min, b, i);
            Acc.atomicMax(max, b, (long) i * i);
            Acc.atomicOr(ors, b, 1 << (i & 31));
            won[i] = Acc.atomicCompareAndSet(owner, b, -1, i) ? 1 : 0;
        }
    }

    /** Floating-point extremes per bin, with Java's Math.min/max (NaN wins, -0.0 below 0.0); the old minimum captured. */
    @Kernels
    public static void floatExtremes(float[] fmin, float[] fmax, double[] dmin, double[] dmax, double[] oldMin,
                                     int[] data, double[] values, int n) {
        for (int i = 0; i < n; i++) {
            int b = data[i];
            double v = values[i];
            Acc.atomicMin(fmin, b, (float) v);
            Acc.atomicMax(fmax, b, (float) v);
            oldMin[i] = Acc.atomicMin(dmin, b, v);
            Acc.atomicMax(dmax, b, v);
        }
    }
}
