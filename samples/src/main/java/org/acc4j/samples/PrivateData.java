package org.acc4j.samples;

import org.acc4j.Kernels;

/**
 * Arrays allocated in the body of a parallel loop, private to each iteration: a table of powers, a zero-filled
 * array and its clone, and a five-element sorting network (a median filter). The conformance tests compare every
 * output element with plain Java. A subscript known only at run time must be provably within bounds, as
 * {@code (x >>> s) & 3} is.
 */
public final class PrivateData {
    private PrivateData() {
    }

    /** {@code y[i] = sum over k < 6 of (k + 1) x[i]^k}, through a private table of the powers. */
    @Kernels
    public static void powers(double[] x, double[] y, int n) {
        for (int i = 0; i < n; i++) {
            double[] t = new double[6];
            t[0] = 1;
            for (int k = 1; k < t.length; k++) {
                t[k] = t[k - 1] * x[i];
            }
            double s = 0;
            for (int k = 0; k < t.length; k++) {
                s += t[k] * (k + 1);
            }
            y[i] = s;
        }
    }

    /** A zero-filled array partly written under a condition, and a clone of it that is changed. */
    @Kernels
    public static void cloned(int[] a, int[] out, int n) {
        for (int i = 0; i < n; i++) {
            int[] c = new int[3];
            if (a[i] > 0) {
                c[1] = a[i];
            }
            int[] d = c.clone();
            d[2] = d[1] * 2 + c[0];
            out[i] = d[0] + d[1] + d[2] + c[2];
        }
    }

    /** The median of each window of five along a row, by a bubble sort of a private copy of the window. */
    @Kernels
    public static void median5(float[] a, float[] m, int rows, int cols) {
        for (int r = 0; r < rows; r++) {
            for (int j = 0; j < cols; j++) {
                float[] w = new float[5];
                for (int k = 0; k < 5; k++) {
                    w[k] = a[r * (cols + 4) + j + k];
                }
                for (int p = 0; p < 4; p++) {
                    for (int q = 0; q < 4 - p; q++) {
                        if (w[q] > w[q + 1]) {
                            float t = w[q];
                            w[q] = w[q + 1];
                            w[q + 1] = t;
                        }
                    }
                }
                m[r * cols + j] = w[2];
            }
        }
    }

    /** A private histogram of each value's sixteen two-bit digits (plus a three-bit one), weighted into one number. */
    @Kernels
    public static void digits(int[] a, int[] out, int n) {
        for (int i = 0; i < n; i++) {
            int[] h = new int[8];
            for (int k = 0; k < 16; k++) {
                h[(a[i] >>> (2 * k)) & 3]++;
            }
            h[4 + (a[i] >>> 30)] += 5;
            int s = 0;
            for (int k = 0; k < h.length; k++) {
                s = s * 17 + h[k];
            }
            out[i] = s;
        }
    }

    /** A private histogram of each value's four bytes' top bits, summed into a long per value. */
    @Kernels
    public static void nibbles(int[] a, long[] out, int n) {
        for (int i = 0; i < n; i++) {
            long[] h = new long[4];
            for (int b = 0; b < 4; b++) {
                h[b] += (a[i] >>> (8 * b + 4)) & 15;
                h[3 - b] = h[3 - b] * 31 + b;
            }
            out[i] = h[0] + 7 * h[1] + 49 * h[2] + 343 * h[3];
        }
    }
}
