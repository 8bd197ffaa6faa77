package org.acc4j.compiler.site;

import org.acc4j.Kernels;

/**
 * Methods written the way numerics code is, with host code around their loop nests: the launch-site tests plan,
 * rewrite and run them against their plain forms. Line numbers matter to the tests' expectations: add new fixtures
 * at the end.
 */
public class SiteFixtures {
    /** A timer on an object, as benchmark suites keep them. */
    public static class Timer {
        final double[] elapsed = new double[8];
        final long[] started = new long[8];

        public void start(int k) {
            started[k] = System.nanoTime();
        }

        public void stop(int k) {
            elapsed[k] += (System.nanoTime() - started[k]) * 1e-9;
        }
    }

    /** A time loop around a stencil and a max-reduction, with a swap and a timer. */
    @Kernels
    public static double jacobi(double[] a, double[] b, int n, int iters, Timer t) {
        t.start(0);
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

    /** A convergence test inside the method: stops early. */
    @Kernels
    public static int heat(double[] u, double[] v, int n, double tol, int maxSteps) {
        int step = 0;
        while (step < maxSteps) {
            for (int i = 1; i < n - 1; i++) {
                v[i] = u[i] + 0.1 * (u[i - 1] - 2 * u[i] + u[i + 1]);
            }
            double change = 0;
            for (int i = 1; i < n - 1; i++) {
                change += Math.abs(v[i] - u[i]);
            }
            for (int i = 1; i < n - 1; i++) {
                u[i] = v[i];
            }
            step++;
            if (change < tol) {
                break;
            }
        }
        return step;
    }

    /** Two reductions in one loop: two live-out locals. */
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
        return sum / n + max;
    }

    /**
     * A histogram of {@code double} weights counting down: a race if parallel that no exact strategy takes, so it stays
     * on the host; the scaling loop after it is a kernel.
     */
    @Kernels
    public static void histogram(int[] data, double[] bins, double[] w, int n) {
        for (int i = n - 1; i >= 0; i--) {
            bins[data[i]] += w[i];
        }
        for (int i = 0; i < n; i++) {
            w[i] = w[i] * 2 + bins[data[i]];
        }
    }

    /** An in-place Gauss-Seidel sweep (truly sequential) beside a parallel residual. */
    @Kernels
    public static double gaussSeidel(double[] a, double[] r, int n, int sweeps) {
        for (int s = 0; s < sweeps; s++) {
            for (int i = 1; i < n - 1; i++) {
                a[i] = (a[i - 1] + a[i + 1]) * 0.5;
            }
        }
        double norm = 0;
        for (int i = 1; i < n - 1; i++) {
            r[i] = a[i - 1] - 2 * a[i] + a[i + 1];
            norm += r[i] * r[i];
        }
        return norm;
    }

    /** LU on double[][]: a pivot search with an early return and row swaps on the host, the update as a nest. */
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

    /** A solver object: arrays inherited from a superclass, results stored into fields and array elements. */
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

        /** Overridable: a halo exchange between nests in real codes. */
        protected void exchange(double[] u) {
            u[0] = u[n - 1];
        }

        @Kernels
        public double iterate(int iters) {
            double[] tmp = new double[n];
            for (int it = 0; it < iters; it++) {
                timer.start(1);
                double sum = 0;
                for (int i = 0; i < n; i++) {
                    sum += r[i] * r[i];
                }
                rho = sum;
                dmaster[it % 4] = sum;
                alpha = rho / (1 + sum);
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

    /** A nest inside a try block, and one whose loop has a non-unit, sign-agreeing step. */
    @Kernels
    public static double guarded(double[] a, int n) {
        double s = 0;
        try {
            for (int i = 0; i < n; i += 2) {
                a[i] = a[i] * 3 + 1;
            }
            for (int i = 0; i < n; i++) {
                s += a[i];
            }
        } catch (IllegalStateException e) {
            return -1;
        }
        return s;
    }

    /**
     * SciMark's FFT as it is written: helpers and the stage loop on the host, the butterflies' loops (steps of
     * {@code 2 * dual}, invariant but not constants) the nests.
     */
    @Kernels
    public static void fft(double[] data, int direction) {
        int n = data.length / 2;
        if (n <= 1) {
            return;
        }
        int logn = log2(n);
        bitreverse(data);
        for (int bit = 0, dual = 1; bit < logn; bit++, dual *= 2) {
            double wReal = 1.0;
            double wImag = 0.0;
            double theta = 2.0 * direction * Math.PI / (2.0 * (double) dual);
            double s = Math.sin(theta);
            double t = Math.sin(theta / 2.0);
            double s2 = 2.0 * t * t;
            for (int b = 0; b < n; b += 2 * dual) {
                int i = 2 * b;
                int j = 2 * (b + dual);
                double wdReal = data[j];
                double wdImag = data[j + 1];
                data[j] = data[i] - wdReal;
                data[j + 1] = data[i + 1] - wdImag;
                data[i] += wdReal;
                data[i + 1] += wdImag;
            }
            for (int a = 1; a < dual; a++) {
                double tmpReal = wReal - s * wImag - s2 * wReal;
                double tmpImag = wImag + s * wReal - s2 * wImag;
                wReal = tmpReal;
                wImag = tmpImag;
                for (int b = 0; b < n; b += 2 * dual) {
                    int i = 2 * (b + a);
                    int j = 2 * (b + a + dual);
                    double z1Real = data[j];
                    double z1Imag = data[j + 1];
                    double wdReal = wReal * z1Real - wImag * z1Imag;
                    double wdImag = wReal * z1Imag + wImag * z1Real;
                    data[j] = data[i] - wdReal;
                    data[j + 1] = data[i + 1] - wdImag;
                    data[i] += wdReal;
                    data[i + 1] += wdImag;
                }
            }
        }
    }

    static int log2(int n) {
        int log = 0;
        for (int k = 1; k < n; k *= 2) {
            log++;
        }
        if (n != (1 << log)) {
            throw new IllegalArgumentException("not a power of 2: " + n);
        }
        return log;
    }

    static void bitreverse(double[] data) {
        int n = data.length / 2;
        int j = 0;
        for (int i = 0; i < n - 1; i++) {
            int ii = i << 1;
            int jj = j << 1;
            int k = n >> 1;
            if (i < j) {
                double tmpReal = data[ii];
                double tmpImag = data[ii + 1];
                data[ii] = data[jj];
                data[ii + 1] = data[jj + 1];
                data[jj] = tmpReal;
                data[jj + 1] = tmpImag;
            }
            while (k <= j) {
                j -= k;
                k >>= 1;
            }
            j += k;
        }
    }

    /** Two stores of conditional values in one loop (javac keeps each store's index on the stack across a branch). */
    @Kernels
    public static void ternaries(double[] x, int[] sign, double[] clipped, int n) {
        for (int i = 0; i < n; i++) {
            sign[i] = x[i] > 0.5 ? 1 : -1;
            clipped[i] = x[i] > 0.9 ? 0.9 : x[i];
        }
    }
}
