package org.acc4j.samples;

import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * Reductions into array elements over a small constant range (OpenACC's array reductions), and reductions into a
 * local of each outer iteration (a row's sum or maximum). Each is plain Java with {@code @Kernels}; the
 * conformance tests compare every output element with plain Java.
 */
public final class ArrayReduce {
    private ArrayReduce() {
    }

    /** A count, a sum and a sum of squares into three elements of one array. */
    @Kernels
    public static void moments(int[] x, long[] c, int n) {
        for (int i = 0; i < n; i++) {
            c[0] += 1;
            c[1] += x[i];
            c[2] += (long) x[i] * x[i];
        }
    }

    /** Eight bins, each adding a two-bit field of every value: {@code for k < 8: c[k] += ...}. */
    @Kernels
    public static void fields(int[] x, int[] c, int n) {
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 8; k++) {
                c[k] += (x[i] >> (2 * k)) & 3;
            }
        }
    }

    /** Minima and maxima of shifted values into four elements each, bit parities and a difference. */
    @Kernels
    public static void extremes(long[] x, long[] lo, long[] hi, int[] bits, int[] diff, int n) {
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 4; k++) {
                lo[k] = Math.min(lo[k], x[i] >> k);
                hi[k + 1] = Math.max(x[i] * k, hi[k + 1]);
            }
            bits[0] ^= (int) x[i];
            bits[1] |= (int) (x[i] >>> 40);
            bits[2] &= (int) x[i] | 0x0F0F0F0F;
            diff[2] -= (int) x[i];
        }
    }

    /** Largest and smallest value of each of four float channels, and their magnitudes' maximum as doubles. */
    @Kernels
    public static void channels(float[] x, float[] hi, float[] lo, double[] mag, int n) {
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 4; k++) {
                hi[k] = Math.max(hi[k], x[4 * i + k]);
                lo[k] = Math.min(x[4 * i + k], lo[k]);
            }
            mag[0] = Math.max(mag[0], Math.abs((double) x[4 * i]));
            mag[1] = Math.min(mag[1], -x[4 * i + 1]);
        }
    }

    /** A 2D nest, parallel in both loops, into three elements. */
    @Kernels
    public static void moments2d(int[] a, long[] c, int m, int n) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                int v = a[i * n + j];
                c[0] += 1;
                c[1] += v;
                c[2] += (long) v * v;
            }
        }
    }

    /** Row sums: {@code s} is a local of each row, accumulated by the inner loop (sequential in each thread). */
    @Kernels
    public static void rowSums(double[] a, double[] r, int m, int n) {
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int j = 0; j < n; j++) {
                s += a[i * n + j];
            }
            r[i] = s;
        }
    }

    /** Row maxima and scaled sums named in the inner loop's reduction clause. */
    @Kernels
    public static void rowMaxSum(float[] a, float[] r, long[] t, int m, int n) {
        for (@Loop(gang = Loop.AUTO) int i = 0; i < m; i++) {
            float mx = Float.NEGATIVE_INFINITY;
            long sum = 0;
            for (@Loop(reduction = "max:mx, +:sum") int j = 0; j < n; j++) {
                mx = Math.max(mx, a[i * n + j]);
                sum += (long) (a[i * n + j] * 1000);
            }
            r[i] = mx;
            t[i] = sum;
        }
    }

    /**
     * A weighted sum, a sum of squares and a signed sum into three elements of a {@code double} array, which the
     * reduction clause naming {@code c} allows to add in any order (atomic adds on the device, within the bound of a
     * reordered sum of Java's).
     */
    @Kernels
    public static void weightedSums(double[] x, double[] w, double[] c, int n) {
        for (@Loop(reduction = "+:c") int i = 0; i < n; i++) {
            c[0] += w[i] * x[i];
            c[1] += x[i] * x[i];
            c[2] -= x[i];
        }
    }

    /**
     * Row sums as OpenACC's gang loop around a vector reduction loop: the inner loop mapped to vector makes each row's
     * sum a vector reduction (a group of lanes per row, in another order than Java's).
     */
    @Kernels
    public static void rowSumsVector(double[] a, double[] r, int m, int n) {
        for (@Loop(gang = Loop.AUTO) int i = 0; i < m; i++) {
            double s = 0;
            for (@Loop(vector = 128, reduction = "+:s") int j = 0; j < n; j++) {
                s += a[i * n + j];
            }
            r[i] = s;
        }
    }
}
