package org.acc4j.samples.numerics;

import java.util.Random;
import org.acc4j.Kernels;

/**
 * LU factorisation with partial pivoting and the solve that follows, column by column as the LINPACK benchmark's
 * Java versions do: {@code a[j]} holds column j, the pivot column is taken into a local ({@code colK = a[k]}) before
 * the loop over the remaining columns, and the column updates are BLAS-style instance methods with offsets and
 * strides ({@code axpy}, {@code scale}, {@code maxIndex}), none of them final. Nothing for acc4j but
 * {@code @Kernels}: the loop over the remaining columns runs on the device, reading the pivot column while it
 * writes the others (the call checks that the rows it writes, {@code k+1..n-1} of {@code a}, do not include the
 * pivot column's), with {@code axpy} expanded into it; the pivot search, the swap and the scaling stay Java.
 *
 * <p>Run: {@code java Linpack [n]} (default 300): factors a random matrix, solves for a right-hand side made from
 * a known solution, and verifies the normalised residual {@code |A x - b| / (n |A| |x| eps)} is below 10 and the
 * solution within 1e-8 of the known one.
 */
public class Linpack {
    /** Factors the columns {@code a} (n x n) in place; pivot rows into {@code pivot}; the first zero pivot, or -1. */
    @Kernels
    public int factor(double[][] a, int n, int[] pivot) {
        int singular = -1;
        for (int k = 0; k < n - 1; k++) {
            double[] colK = a[k];
            int l = maxIndex(n - k, colK, k, 1) + k;
            pivot[k] = l;
            if (colK[l] == 0) {
                singular = k;
                continue;
            }
            if (l != k) {
                double t = colK[l];
                colK[l] = colK[k];
                colK[k] = t;
            }
            scale(n - k - 1, -1.0 / colK[k], colK, k + 1, 1);
            for (int j = k + 1; j < n; j++) {
                double[] colJ = a[j];
                double t = colJ[l];
                if (l != k) {
                    colJ[l] = colJ[k];
                    colJ[k] = t;
                }
                axpy(n - k - 1, t, colK, k + 1, 1, colJ, k + 1, 1);
            }
        }
        pivot[n - 1] = n - 1;
        if (a[n - 1][n - 1] == 0) {
            singular = n - 1;
        }
        return singular;
    }

    /** Solves {@code A x = b} in place of {@code b} with the factors of {@link #factor}. */
    public void solve(double[][] a, int n, int[] pivot, double[] b) {
        for (int k = 0; k < n - 1; k++) {
            int l = pivot[k];
            double t = b[l];
            if (l != k) {
                b[l] = b[k];
                b[k] = t;
            }
            axpy(n - k - 1, t, a[k], k + 1, 1, b, k + 1, 1);
        }
        for (int k = n - 1; k >= 0; k--) {
            b[k] /= a[k][k];
            axpy(k, -b[k], a[k], 0, 1, b, 0, 1);
        }
    }

    /** {@code y[yOff + i*incY] += alpha * x[xOff + i*incX]} for i in [0, count). */
    void axpy(int count, double alpha, double[] x, int xOff, int incX, double[] y, int yOff, int incY) {
        if (count <= 0 || alpha == 0) {
            return;
        }
        if (incX == 1 && incY == 1) {
            for (int i = 0; i < count; i++) {
                y[yOff + i] += alpha * x[xOff + i];
            }
        } else {
            int ix = incX < 0 ? (1 - count) * incX : 0;
            int iy = incY < 0 ? (1 - count) * incY : 0;
            for (int i = 0; i < count; i++) {
                y[yOff + iy] += alpha * x[xOff + ix];
                ix += incX;
                iy += incY;
            }
        }
    }

    /** {@code x[off + i*inc] *= alpha} for i in [0, count). */
    void scale(int count, double alpha, double[] x, int off, int inc) {
        for (int i = 0; i < count; i++) {
            x[off + i * inc] *= alpha;
        }
    }

    /** The index i in [0, count) of the element of largest magnitude {@code x[off + i*inc]}, the first of ties. */
    int maxIndex(int count, double[] x, int off, int inc) {
        int best = 0;
        double max = Math.abs(x[off]);
        for (int i = 1; i < count; i++) {
            double v = Math.abs(x[off + i * inc]);
            if (v > max) {
                best = i;
                max = v;
            }
        }
        return best;
    }

    /** The columns of a random n x n matrix in [-0.5, 0.5). */
    static double[][] matrix(int n, Random r) {
        double[][] a = new double[n][n];
        for (double[] col : a) {
            for (int i = 0; i < n; i++) {
                col[i] = r.nextDouble() - 0.5;
            }
        }
        return a;
    }

    /** {@code A x} for the columns {@code a}. */
    static double[] times(double[][] a, double[] x) {
        double[] y = new double[a[0].length];
        for (int j = 0; j < a.length; j++) {
            for (int i = 0; i < y.length; i++) {
                y[i] += a[j][i] * x[j];
            }
        }
        return y;
    }

    public static void main(String[] args) {
        int n = Report.arg(args, 0, 300);
        Report.title("Linpack", n + " x " + n);
        Random r = new Random(41);
        double[][] a = matrix(n, r);
        double[][] original = new double[n][];
        for (int j = 0; j < n; j++) {
            original[j] = a[j].clone();
        }
        double[] known = new double[n];
        for (int i = 0; i < n; i++) {
            known[i] = 1.0 + i % 7;
        }
        double[] b = times(a, known);
        int[] pivot = new int[n];
        Linpack lin = new Linpack();
        long t0 = System.nanoTime();
        int singular = lin.factor(a, n, pivot);
        double seconds = (System.nanoTime() - t0) * 1e-9;
        lin.solve(a, n, pivot, b);
        double[] ax = times(original, b);
        double[] rhs = times(original, known);
        double residual = 0;
        double normA = 0;
        double normX = 0;
        double error = 0;
        for (int i = 0; i < n; i++) {
            residual = Math.max(residual, Math.abs(ax[i] - rhs[i]));
            normX = Math.max(normX, Math.abs(b[i]));
            error = Math.max(error, Math.abs(b[i] - known[i]));
            for (int j = 0; j < n; j++) {
                normA = Math.max(normA, Math.abs(original[j][i]));
            }
        }
        double normalised = residual / (n * normA * normX * Math.ulp(1.0));
        Report.checksum(new Checksum().add(a).add(pivot).add(b).add(singular));
        Report.result("residual", normalised);
        System.out.printf("  normalised residual %.3f, largest error %.3e, factor time: %.3f s%n", normalised, error,
                seconds);
        Report.verification(singular >= 0 ? "the matrix is singular at column " + singular
                : !(normalised < 10) ? "the normalised residual " + normalised + " is not below 10"
                : !(error < 1e-8) ? "the solution is off by " + error : null);
    }
}
