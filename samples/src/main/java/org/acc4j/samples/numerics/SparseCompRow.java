package org.acc4j.samples.numerics;

import java.util.Arrays;
import java.util.Random;
import org.acc4j.Kernels;

/**
 * Sparse matrix times vector in compressed row storage, in the manner of SciMark's SparseCompRow: the product is
 * repeated {@code numIterations} times (the benchmark's timing loop), each time overwriting {@code y}. Each row
 * of the N x N matrix holds nz / N entries at distinct random columns.
 *
 * <p>Run: {@code java SparseCompRow [N [nz [iterations]]]} (defaults 1000, 5000, 200: SciMark's small problem).
 */
public final class SparseCompRow {
    static final long SEED = 101010L;

    private SparseCompRow() {
    }

    @Kernels
    public static void matmult(double[] y, double[] val, int[] row, int[] col, double[] x, int numIterations) {
        int m = row.length - 1;
        for (int reps = 0; reps < numIterations; reps++) {
            for (int r = 0; r < m; r++) {
                double sum = 0.0;
                int rowR = row[r];
                int rowRp1 = row[r + 1];
                for (int i = rowR; i < rowRp1; i++) {
                    sum += x[col[i]] * val[i];
                }
                y[r] = sum;
            }
        }
    }

    /** Null when w . y equals (A^T w) . x, the transposed product computed by scattering, to 1e-12 relative. */
    static String verify(double[] y, double[] val, int[] row, int[] col, double[] x, Random random) {
        int n = row.length - 1;
        double[] w = new double[n];
        for (int i = 0; i < n; i++) {
            w[i] = random.nextDouble() * 2.0 - 1.0;
        }
        double[] atw = new double[x.length];
        for (int r = 0; r < n; r++) {
            for (int i = row[r]; i < row[r + 1]; i++) {
                atw[col[i]] += val[i] * w[r];
            }
        }
        double left = 0.0;
        double right = 0.0;
        double scale = 0.0;
        for (int i = 0; i < n; i++) {
            left += w[i] * y[i];
            scale += Math.abs(w[i] * y[i]);
        }
        for (int j = 0; j < x.length; j++) {
            right += atw[j] * x[j];
        }
        return Math.abs(left - right) <= 1.0e-12 * scale ? null : "w . Ax = " + left + " but (A^T w) . x = " + right;
    }

    public static void main(String[] args) {
        int n = Report.arg(args, 0, 1000);
        int nz = Report.arg(args, 1, 5000);
        int cycles = Report.arg(args, 2, 200);
        Random random = new Random(SEED);
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = random.nextDouble();
        }
        int nr = Math.max(1, Math.min(n, nz / n));
        int[] row = new int[n + 1];
        int[] col = new int[n * nr];
        double[] val = new double[n * nr];
        int[] perm = new int[n];
        for (int i = 0; i < n; i++) {
            perm[i] = i;
        }
        for (int r = 0; r < n; r++) {
            row[r] = r * nr;
            for (int k = 0; k < nr; k++) {
                int pick = k + random.nextInt(n - k);
                int t = perm[k];
                perm[k] = perm[pick];
                perm[pick] = t;
            }
            int[] cols = Arrays.copyOf(perm, nr);
            Arrays.sort(cols);
            for (int k = 0; k < nr; k++) {
                col[r * nr + k] = cols[k];
                val[r * nr + k] = random.nextDouble();
            }
        }
        row[n] = n * nr;
        double[] y = new double[n];
        Report.title("SparseCompRow", "N = " + n + ", nz = " + (n * nr) + ", " + cycles + " iterations");
        long t0 = System.nanoTime();
        matmult(y, val, row, col, x, cycles);
        double seconds = (System.nanoTime() - t0) * 1e-9;
        double norm = 0.0;
        for (double v : y) {
            norm = Math.max(norm, Math.abs(v));
        }
        Report.checksum(new Checksum().add(y).add(x).add(val).add(row).add(col));
        Report.result("ymax", norm);
        System.out.printf("  max |y| = %.6e%n", norm);
        System.out.printf("  time: %.3f s, %.3f us per product, %.1f MFLOP/s%n", seconds, 1e6 * seconds / Math.max(1, cycles),
                2.0 * n * nr * cycles / seconds * 1e-6);
        Report.verification(verify(y, val, row, col, x, random));
    }
}
