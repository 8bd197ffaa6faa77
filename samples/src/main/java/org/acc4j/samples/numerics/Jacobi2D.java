package org.acc4j.samples.numerics;

import org.acc4j.Kernels;

/**
 * Jacobi iteration for Laplace's equation on an m x n grid, in the manner of the classic OpenACC teaching code:
 * each sweep replaces every interior point by the mean of its four neighbours, tracks the largest change, and
 * stops once that change falls below the tolerance. The boundary is fixed: 1 along the top row, 0 elsewhere.
 * The two grids are swapped by reference after each sweep; the solver leaves the latest in {@link #u}.
 *
 * <p>Run: {@code java Jacobi2D [m [n [maxIter]]]} (defaults 64, 64, 10000; tolerance 1e-5).
 */
public class Jacobi2D {
    protected final int m;
    protected final int n;
    protected final double tol;
    protected final int maxIter;
    protected double[] u;
    protected double[] unew;
    protected int iterations;
    protected double error;

    public Jacobi2D(int m, int n, double tol, int maxIter) {
        this.m = m;
        this.n = n;
        this.tol = tol;
        this.maxIter = maxIter;
        u = new double[m * n];
        unew = new double[m * n];
        for (int j = 0; j < n; j++) {
            u[j] = 1.0;
            unew[j] = 1.0;
        }
    }

    @Kernels
    public void solve() {
        double[] a = u;
        double[] b = unew;
        double err = Double.MAX_VALUE;
        int iter = 0;
        while (iter < maxIter) {
            err = 0.0;
            for (int i = 1; i < m - 1; i++) {
                for (int j = 1; j < n - 1; j++) {
                    double next = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
                    err = Math.max(err, Math.abs(next - a[i * n + j]));
                    b[i * n + j] = next;
                }
            }
            double[] t = a;
            a = b;
            b = t;
            iter++;
            if (err < tol) {
                break;
            }
        }
        u = a;
        unew = b;
        iterations = iter;
        error = err;
    }

    /** The largest |4 u(i,j) - (sum of the four neighbours)| over the interior. */
    public double residual() {
        double res = 0.0;
        for (int i = 1; i < m - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                double d = 4.0 * u[i * n + j] - u[(i - 1) * n + j] - u[(i + 1) * n + j] - u[i * n + j - 1] - u[i * n + j + 1];
                res = Math.max(res, Math.abs(d));
            }
        }
        return res;
    }

    /** Null when the iteration converged, the residual is small and the maximum principle holds. */
    public String verify() {
        if (!(error < tol) || iterations >= maxIter) {
            return "no convergence: change " + error + " after " + iterations + " iterations";
        }
        double res = residual();
        if (!(res < 8 * tol)) {
            return "the residual " + res + " is not below 8 * tol";
        }
        for (int i = 1; i < m - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                if (!(u[i * n + j] >= 0.0 && u[i * n + j] <= 1.0)) {
                    return "u(" + i + ", " + j + ") = " + u[i * n + j] + " is outside the boundary's range [0, 1]";
                }
            }
        }
        return null;
    }

    public Checksum checksum() {
        return new Checksum().add(u).add(unew).add(iterations).add(error);
    }

    public static void main(String[] args) {
        int m = Report.arg(args, 0, 64);
        int n = Report.arg(args, 1, 64);
        int maxIter = Report.arg(args, 2, 10000);
        Jacobi2D jacobi = new Jacobi2D(m, n, 1.0e-5, maxIter);
        Report.title("Jacobi2D", m + " x " + n + ", tolerance " + jacobi.tol + ", at most " + maxIter + " iterations");
        long t0 = System.nanoTime();
        jacobi.solve();
        double seconds = (System.nanoTime() - t0) * 1e-9;
        Report.checksum(jacobi.checksum());
        Report.result("iterations", jacobi.iterations);
        Report.result("error", jacobi.error);
        System.out.printf("  %d iterations, last change %.6e, residual %.6e%n", jacobi.iterations, jacobi.error,
                jacobi.residual());
        System.out.printf("  time: %.3f s, %.3f us per iteration%n", seconds, 1e6 * seconds / Math.max(1, jacobi.iterations));
        Report.verification(jacobi.verify());
    }
}
