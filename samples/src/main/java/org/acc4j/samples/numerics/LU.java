package org.acc4j.samples.numerics;

import java.util.Random;
import org.acc4j.Kernels;

/**
 * LU factorisation with partial pivoting on a {@code double[][]}, in the manner of SciMark's LU: for each column,
 * find the pivot, stop with 1 if it is zero (a singular matrix), swap the rows by reference, scale the column below
 * the diagonal and apply the rank-1 update to the trailing submatrix. A holds L (unit diagonal, below) and U
 * afterwards; {@code pivot[j]} is the row swapped with row j.
 *
 * <p>Run: {@code java LU [N [cycles]]} (defaults 100, 20: SciMark's small problem).
 */
public final class LU {
    static final long SEED = 7L;

    private LU() {
    }

    /** Factors A in place; returns 0, or 1 when a pivot is exactly zero (A is then partly factored). */
    @Kernels
    public static int factor(double[][] A, int[] pivot) {
        int M = A.length;
        int N = A[0].length;
        int minMN = Math.min(M, N);
        for (int j = 0; j < minMN; j++) {
            // the largest magnitude in column j at or below the diagonal
            int jp = j;
            double t = Math.abs(A[j][j]);
            for (int i = j + 1; i < M; i++) {
                double ab = Math.abs(A[i][j]);
                if (ab > t) {
                    jp = i;
                    t = ab;
                }
            }
            pivot[j] = jp;
            if (A[jp][j] == 0) {
                return 1;
            }
            if (jp != j) {
                double[] tA = A[j];
                A[j] = A[jp];
                A[jp] = tA;
            }
            if (j < M - 1) {
                double recp = 1.0 / A[j][j];
                for (int k = j + 1; k < M; k++) {
                    A[k][j] *= recp;
                }
            }
            if (j < minMN - 1) {
                for (int ii = j + 1; ii < M; ii++) {
                    double[] Aii = A[ii];
                    double[] Aj = A[j];
                    double AiiJ = Aii[j];
                    for (int jj = j + 1; jj < N; jj++) {
                        Aii[jj] -= AiiJ * Aj[jj];
                    }
                }
            }
        }
        return 0;
    }

    /** Solves LU x = P b in place in b, after {@link #factor} returned 0. */
    public static void solve(double[][] LU, int[] pivot, double[] b) {
        int n = LU.length;
        for (int i = 0; i < n; i++) {
            double t = b[pivot[i]];
            b[pivot[i]] = b[i];
            b[i] = t;
        }
        for (int i = 1; i < n; i++) {
            double sum = b[i];
            for (int j = 0; j < i; j++) {
                sum -= LU[i][j] * b[j];
            }
            b[i] = sum;
        }
        for (int i = n - 1; i >= 0; i--) {
            double sum = b[i];
            for (int j = i + 1; j < n; j++) {
                sum -= LU[i][j] * b[j];
            }
            b[i] = sum / LU[i][i];
        }
    }

    /** max |(P A - L U)(i, j)| / max |A(i, j)|, for a factored square matrix. */
    public static double reconstructionError(double[][] A, double[][] LU, int[] pivot) {
        int n = A.length;
        double[][] PA = new double[n][];
        for (int i = 0; i < n; i++) {
            PA[i] = A[i].clone();
        }
        for (int j = 0; j < n; j++) {
            double[] t = PA[j];
            PA[j] = PA[pivot[j]];
            PA[pivot[j]] = t;
        }
        double err = 0.0;
        double scale = 0.0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k <= Math.min(i, j); k++) {
                    s += (k == i ? 1.0 : LU[i][k]) * LU[k][j];
                }
                err = Math.max(err, Math.abs(PA[i][j] - s));
                scale = Math.max(scale, Math.abs(A[i][j]));
            }
        }
        return err / scale;
    }

    public static double[][] randomMatrix(int m, int n, Random random) {
        double[][] A = new double[m][n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                A[i][j] = random.nextDouble();
            }
        }
        return A;
    }

    public static void main(String[] args) {
        int n = Report.arg(args, 0, 100);
        int cycles = Report.arg(args, 1, 20);
        Random random = new Random(SEED);
        double[][] A = randomMatrix(n, n, random);
        double[][] lu = new double[n][];
        int[] pivot = new int[n];
        Report.title("LU", n + " x " + n + ", " + cycles + " factorisations");
        int status = 0;
        long t0 = System.nanoTime();
        for (int c = 0; c < cycles; c++) {
            for (int i = 0; i < n; i++) {
                lu[i] = A[i].clone();
            }
            status = factor(lu, pivot);
        }
        double seconds = (System.nanoTime() - t0) * 1e-9;
        double[] b = new double[n];
        for (int i = 0; i < n; i++) {
            b[i] = random.nextDouble();
        }
        double[] x = b.clone();
        solve(lu, pivot, x);
        double residual = 0.0;
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int j = 0; j < n; j++) {
                s += A[i][j] * x[j];
            }
            residual = Math.max(residual, Math.abs(s - b[i]));
        }
        double recon = reconstructionError(A, lu, pivot);
        Report.checksum(new Checksum().add(lu).add(pivot).add(status).add(x));
        Report.result("status", status);
        Report.result("reconstruction", recon);
        Report.result("residual", residual);
        System.out.printf("  max |PA - LU| / max |A| = %.3e, max |Ax - b| = %.3e%n", recon, residual);
        System.out.printf("  time: %.3f s, %.3f ms per factorisation, %.1f MFLOP/s%n", seconds, 1e3 * seconds / Math.max(1, cycles),
                2.0 / 3.0 * n * n * n * cycles / seconds * 1e-6);
        String failure = status != 0 ? "factor returned " + status + " for a random matrix"
                : !(recon < 1.0e-13 * n) ? "P A differs from L U by " + recon
                : !(residual < 1.0e-10 * n) ? "the solve's residual is " + residual : null;
        Report.verification(failure);
    }
}
