package org.acc4j.samples.sites;

import org.acc4j.Kernels;

/** Methods with host code around their nests, for the launch-site GPU test. */
public class SiteGpuFixtures {
    public static class Timer {
        final double[] elapsed = new double[4];
        long t0;

        public void start() {
            t0 = System.nanoTime();
        }

        public void stop(int k) {
            elapsed[k] += (System.nanoTime() - t0) * 1e-9;
        }
    }

    @Kernels
    public static double jacobi(double[] a, double[] b, int n, int iters, Timer t) {
        t.start();
        double err = 0;
        for (int it = 0; it < iters; it++) {
            for (int i = 1; i < n - 1; i++) {
                for (int j = 1; j < n - 1; j++) {
                    a[i * n + j] = 0.25 * (b[(i - 1) * n + j] + b[(i + 1) * n + j] + b[i * n + j - 1] + b[i * n + j + 1]);
                }
            }
            err = 0;
            for (int i = 0; i < n * n; i++) {
                err = Math.max(err, Math.abs(a[i] - b[i]));
            }
            double[] s = a;
            a = b;
            b = s;
        }
        t.stop(0);
        return err;
    }

    @Kernels
    public static double sumAndMax(double[] x, int n, double[] out) {
        double sum = 0;
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            sum += x[i];
            max = Math.max(max, x[i]);
        }
        out[0] = sum;
        out[1] = max;
        return max;
    }

    @Kernels
    public static void histogram(int[] data, int[] bins, double[] w, int n) {
        for (int i = 0; i < n; i++) {
            bins[data[i]]++;
        }
        for (int i = 0; i < n; i++) {
            w[i] = w[i] * 2 + bins[data[i]];
        }
        for (int i = 0; i < 3; i++) {
            bins[i] += 1000;
        }
        for (int i = 0; i < n; i++) {
            w[i] += bins[data[i] % 3];
        }
    }

    @Kernels
    public static int lu(double[][] a, int[] pivot) {
        int n = a.length;
        for (int k = 0; k < n; k++) {
            int p = k;
            double best = Math.abs(a[k][k]);
            for (int i = k + 1; i < n; i++) {
                double v = Math.abs(a[i][k]);
                if (v > best) {
                    best = v;
                    p = i;
                }
            }
            pivot[k] = p;
            if (best == 0) {
                return k;
            }
            if (p != k) {
                double[] row = a[p];
                a[p] = a[k];
                a[k] = row;
            }
            double inv = 1.0 / a[k][k];
            for (int i = k + 1; i < n; i++) {
                a[i][k] *= inv;
            }
            for (int i = k + 1; i < n; i++) {
                for (int j = k + 1; j < n; j++) {
                    a[i][j] -= a[i][k] * a[k][j];
                }
            }
        }
        return -1;
    }

    public static class Base {
        protected double[] x;
        protected double[] r;
        protected int n;
    }

    public static class Solver extends Base {
        double rho;
        double alpha;
        final double[] dmaster = new double[4];
        final Timer timer = new Timer();

        public Solver(int n, long seed) {
            this.n = n;
            java.util.Random random = new java.util.Random(seed);
            x = new double[n];
            r = new double[n];
            for (int i = 0; i < n; i++) {
                x[i] = random.nextDouble();
                r[i] = random.nextDouble() - 0.5;
            }
        }

        protected void exchange(double[] u) {
            u[0] = u[n - 1];
        }

        @Kernels
        public double iterate(int iters) {
            double[] tmp = new double[n];
            for (int it = 0; it < iters; it++) {
                timer.start();
                double sum = 0;
                for (int i = 0; i < n; i++) {
                    sum += r[i] * r[i];
                }
                rho = sum;
                dmaster[it % 4] = sum;
                alpha = 1 / (1 + rho);
                for (int i = 0; i < n; i++) {
                    tmp[i] = x[i] + alpha * r[i];
                }
                exchange(tmp);
                for (int i = 0; i < n; i++) {
                    x[i] = tmp[i] * 0.5;
                    r[i] = r[i] * 0.9;
                }
                timer.stop(1);
            }
            return rho + alpha;
        }
    }

    @Kernels
    public static double guarded(double[] a, int n) {
        double s = 0;
        try {
            for (int i = 0; i < n; i += 2) {
                a[i] = a[i] * 3 + 1;
            }
            for (int i = 0; i < n; i++) {
                s = Math.max(s, a[i]);
            }
            a[n + 5] = 1;
        } catch (ArrayIndexOutOfBoundsException e) {
            return -s;
        }
        return s;
    }

    /** A kernel that goes out of bounds on the device after an earlier kernel changed the array. */
    @Kernels
    public static void outOfBounds(double[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = a[i] + 1;
        }
        for (int i = 0; i < n + 1; i++) {
            a[i] = a[i] * 2;
        }
    }
}
