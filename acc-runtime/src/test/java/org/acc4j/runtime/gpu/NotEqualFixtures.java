package org.acc4j.runtime.gpu;

import org.acc4j.Kernels;
import org.acc4j.Loop;

/** Loops tested with {@code !=}, run on the GPU by {@link NotEqualGpuTest} and, unchanged, as plain Java. */
public final class NotEqualFixtures {
    private NotEqualFixtures() {
    }

    /** A parallel loop without clauses. */
    @Kernels
    public static void up(double[] c, double[] a, double[] b, int n) {
        for (int i = 0; i != n; i++) {
            c[i] = a[i] * b[i] + i;
        }
    }

    /** Downward by 3 to a bound three steps past 0 at most, mapped by the user. */
    @Kernels
    public static void down3(int[] a, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 256) int i = n - 1; i != (n - 1) % 3 - 3; i -= 3) {
            a[i] = a[i] * 7 + i;
        }
    }

    /** A 2D nest without clauses, j downward (the disjointness of a[i*cols + j] is checked at launch). */
    @Kernels
    public static void nest2D(double[] a, double[] b, int rows, int cols) {
        for (int i = 0; i != rows; i++) {
            for (int j = cols - 1; j != -1; j--) {
                a[i * cols + j] = b[i * cols + j] * 0.5 + b[((i + 1) % rows) * cols + j] - j;
            }
        }
    }

    /** Two collapsed {@code !=} loops, the inner one upward by 2. */
    @Kernels
    public static void collapsed(float[] a, float[] b, int rows, int cols) {
        for (@Loop(collapse = 2, gang = Loop.AUTO, vector = 128) int i = 0; i != rows; i++) {
            for (int j = 0; j != 2 * cols; j += 2) {
                a[i * 2 * cols + j] = b[j * rows + i] * 2f - 1f;
            }
        }
    }

    /** A sequential {@code !=} loop in each thread that wraps around through Integer.MAX_VALUE, as Java's does. */
    @Kernels
    public static void wrapping(long[] out, int n, int start) {
        for (int i = 0; i != n; i++) {
            long s = out[i];
            for (int k = start + i; k != start + i + 5; k++) {
                s = s * 3 + k;
            }
            out[i] = s;
        }
    }

    /**
     * Steps of 2^30: from Integer.MIN_VALUE to 0 two whole steps (offloaded); from 0 to Integer.MIN_VALUE Java's loop
     * wraps around after two iterations (the call runs on the host, with the reason).
     */
    @Kernels
    public static void quarters(int[] a, int lo, int hi) {
        for (@Loop(independent = true) int i = lo; i != hi; i += 1 << 30) {
            a[i >>> 30] += 1 + (i >> 29);
        }
    }
}
