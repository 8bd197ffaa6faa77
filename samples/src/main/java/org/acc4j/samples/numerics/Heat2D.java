package org.acc4j.samples.numerics;

import org.acc4j.Kernels;

/**
 * Explicit time stepping of the heat equation on an nx x ny plate whose edges are held at 0, in the manner of the
 * classic MPI heat2D code: {@code u' = u + cx (u[i+1][j] + u[i-1][j] - 2u) + cy (u[i][j+1] + u[i][j-1] - 2u)},
 * from an initial hump {@code i (nx-1-i) j (ny-1-j)} scaled to a peak of 1. Every {@code checkEvery} steps the
 * largest change of the last step is compared with the tolerance and the run stops once it is smaller. The two
 * grids are swapped by reference each step; {@link #run} returns the number of steps taken, whose parity says
 * which grid holds the latest values.
 *
 * <p>Run: {@code java Heat2D [nx [ny [steps]]]} (defaults 64, 64, 20000; checked every 20 steps against 1e-6).
 */
public final class Heat2D {
    private Heat2D() {
    }

    @Kernels
    public static int run(double[] u, double[] w, int nx, int ny, double cx, double cy, int steps, int checkEvery,
                          double tol) {
        double[] a = u;
        double[] b = w;
        for (int step = 1; step <= steps; step++) {
            for (int ix = 1; ix < nx - 1; ix++) {
                for (int iy = 1; iy < ny - 1; iy++) {
                    b[ix * ny + iy] = a[ix * ny + iy]
                            + cx * (a[(ix + 1) * ny + iy] + a[(ix - 1) * ny + iy] - 2.0 * a[ix * ny + iy])
                            + cy * (a[ix * ny + iy + 1] + a[ix * ny + iy - 1] - 2.0 * a[ix * ny + iy]);
                }
            }
            double[] t = a;
            a = b;
            b = t;
            if (step % checkEvery == 0) {
                double diff = 0.0;
                for (int ix = 1; ix < nx - 1; ix++) {
                    for (int iy = 1; iy < ny - 1; iy++) {
                        diff = Math.max(diff, Math.abs(a[ix * ny + iy] - b[ix * ny + iy]));
                    }
                }
                if (diff < tol) {
                    return step;
                }
            }
        }
        return steps;
    }

    /** The initial hump, peak 1, zero on the edges. */
    public static double[] initial(int nx, int ny) {
        double[] u = new double[nx * ny];
        double peak = 0.0;
        for (int ix = 0; ix < nx; ix++) {
            for (int iy = 0; iy < ny; iy++) {
                u[ix * ny + iy] = (double) ix * (nx - ix - 1) * iy * (ny - iy - 1);
                peak = Math.max(peak, u[ix * ny + iy]);
            }
        }
        for (int k = 0; k < u.length; k++) {
            u[k] /= peak;
        }
        return u;
    }

    /** Null when the plate cooled without leaving [0, peak] and the edges stayed at 0. */
    static String verify(double[] start, double[] end, int nx, int ny, int done, int steps) {
        if (done >= steps) {
            return "no steady state within " + steps + " steps";
        }
        double peak0 = 0.0;
        double peak1 = 0.0;
        for (int k = 0; k < end.length; k++) {
            if (!(end[k] >= 0.0 && end[k] <= 1.0)) {
                return "u[" + k + "] = " + end[k] + " is outside [0, 1]";
            }
            peak0 = Math.max(peak0, start[k]);
            peak1 = Math.max(peak1, end[k]);
        }
        for (int ix = 0; ix < nx; ix++) {
            for (int iy = 0; iy < ny; iy++) {
                boolean edge = ix == 0 || iy == 0 || ix == nx - 1 || iy == ny - 1;
                if (edge && end[ix * ny + iy] != 0.0) {
                    return "the edge point (" + ix + ", " + iy + ") changed";
                }
            }
        }
        return peak1 < peak0 ? null : "the peak did not fall: " + peak0 + " -> " + peak1;
    }

    public static void main(String[] args) {
        int nx = Report.arg(args, 0, 64);
        int ny = Report.arg(args, 1, 64);
        int steps = Report.arg(args, 2, 20000);
        double cx = 0.1;
        double cy = 0.1;
        int checkEvery = 20;
        double tol = 1.0e-6;
        double[] start = initial(nx, ny);
        double[] u = start.clone();
        double[] w = start.clone();
        Report.title("Heat2D", nx + " x " + ny + ", at most " + steps + " steps, checked every " + checkEvery);
        long t0 = System.nanoTime();
        int done = run(u, w, nx, ny, cx, cy, steps, checkEvery, tol);
        double seconds = (System.nanoTime() - t0) * 1e-9;
        double[] latest = done % 2 == 0 ? u : w;
        double peak = 0.0;
        for (double x : latest) {
            peak = Math.max(peak, x);
        }
        Report.checksum(new Checksum().add(u).add(w).add(done));
        Report.result("steps", done);
        Report.result("peak", peak);
        System.out.printf("  %d steps, peak %.6e%n", done, peak);
        System.out.printf("  time: %.3f s, %.3f us per step%n", seconds, 1e6 * seconds / Math.max(1, done));
        Report.verification(verify(start, latest, nx, ny, done, steps));
    }
}
