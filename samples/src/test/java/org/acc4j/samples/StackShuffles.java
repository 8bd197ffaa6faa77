package org.acc4j.samples;

import org.acc4j.Kernels;

/**
 * Kernels whose bytecode copies values on the operand stack: javac's {@code dup}, {@code dup_x2}, {@code dup2} and
 * {@code dup2_x2} for a value both stored and used, on one- and two-slot values.
 */
public final class StackShuffles {
    private StackShuffles() {
    }

    /** {@code b[i] = a[i]++}: dup2 of the array and index, dup_x2 of the old value. */
    @Kernels
    public static void postIncrementInt(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i]++;
        }
    }

    /** As {@link #postIncrementInt} on {@code long}: dup2_x2 of a two-slot value over two one-slot ones. */
    @Kernels
    public static void postIncrementLong(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i]++;
        }
    }

    /** {@code c[i] = b[i] = e}: dup2_x2 of a computed {@code double}, stored twice. */
    @Kernels
    public static void chainedStoreDouble(double[] a, double[] b, double[] c, int n) {
        for (int i = 0; i < n; i++) {
            c[i] = b[i] = a[i] * 2.0 + 1.0;
        }
    }

    /** {@code b[i] = t = e}: dup of a computed value stored into a local and an array; then the local read. */
    @Kernels
    public static void storeThroughLocal(int[] a, int[] b, int[] c, int n) {
        for (int i = 0; i < n; i++) {
            int t;
            b[i] = t = a[i] * 3 - 1;
            c[i] = t + a[i];
        }
    }

    /** {@code ++a[i]} used: dup_x2 of the new value, and a pre-increment of a local read in the same expression. */
    @Kernels
    public static void preIncrements(long[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            int k = i;
            long v = ++a[i];
            b[i] = (int) v + ++k * 2;
        }
    }
}
