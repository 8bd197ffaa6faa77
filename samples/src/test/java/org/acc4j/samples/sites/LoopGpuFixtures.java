package org.acc4j.samples.sites;

import org.acc4j.Kernels;

/** Host loops around {@code @Kernels} calls, for {@link LoopRegionsGpuTest}. */
final class LoopGpuFixtures {
    private LoopGpuFixtures() {
    }

    @Kernels
    static void step(double[][] u, double[][] next, int n, double alpha) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                next[i][j] = u[i][j] + alpha * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4 * u[i][j]);
            }
        }
    }

    @Kernels
    static void jacobi(double[] a, double[] b, int n) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                a[i * n + j] = 0.25 * (b[(i - 1) * n + j] + b[(i + 1) * n + j] + b[i * n + j - 1] + b[i * n + j + 1]);
            }
        }
    }

    @Kernels
    static double diff(double[] a, double[] b) {
        double err = 0;
        for (int i = 0; i < a.length; i++) {
            err = Math.max(err, Math.abs(a[i] - b[i]));
        }
        return err;
    }

    @Kernels
    static void scale(double[] x, double f) {
        for (int i = 0; i < x.length; i++) {
            x[i] = x[i] * f + 1;
        }
    }

    @Kernels
    static void poke(double[] x, int at) {
        for (int i = 0; i < 4; i++) {
            x[at + i] += 1;
        }
    }

    /** A kernel nest, then a nest that stays on the host (it calls a method the compiler does not take). */
    @Kernels
    static void mixed(double[] x, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] * 0.5 + 1;
        }
        for (int i = 0; i < n; i++) {
            x[i] += Integer.toString(i).length();
        }
    }

    static double[][] heat(double[][] u, double[][] next, int n, int steps) {
        for (int s = 0; s < steps; s++) {
            step(u, next, n, 0.2);
            double[][] t = u;
            u = next;
            next = t;
        }
        return u;
    }

    static double solve(double[] a, double[] b, int n, int iters, double tol) {
        double err = 0;
        for (int it = 0; it < iters; it++) {
            jacobi(a, b, n);
            err = diff(a, b);
            if (err < tol) {
                break;
            }
            double[] s = a;
            a = b;
            b = s;
        }
        return err;
    }

    static double throwing(double[] x, int k) {
        try {
            for (int s = 0; s < 10; s++) {
                scale(x, 1.5);
                poke(x, s == k ? x.length - 2 : 0);
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            return x[0] + x[x.length - 1];
        }
        return -1;
    }

    static void mixedLoop(double[] x, int n, int k) {
        for (int s = 0; s < k; s++) {
            mixed(x, n);
        }
    }

    /** Arrays in instance fields, a final {@code @Kernels} method on them, and a loop calling it. */
    static final class Grid {
        final double[] a;
        final double[] b;
        final int n;

        Grid(double[] a, double[] b, int n) {
            this.a = a;
            this.b = b;
            this.n = n;
        }

        @Kernels
        void relax() {
            for (int i = 1; i < n - 1; i++) {
                a[i] = 0.5 * a[i] + 0.25 * (b[i - 1] + b[i + 1]);
            }
            for (int i = 1; i < n - 1; i++) {
                b[i] = 0.5 * b[i] + 0.25 * (a[i - 1] + a[i + 1]);
            }
        }

        void run(int sweeps) {
            for (int s = 0; s < sweeps; s++) {
                relax();
            }
        }
    }

    static void gridRun(double[] a, double[] b, int sweeps) {
        new Grid(a, b, a.length).run(sweeps);
    }

    /** 1-D relaxation: {@code next} from {@code u} and {@code f}, the ends kept. */
    @Kernels
    static void relax(double[] u, double[] next, double[] f, int n) {
        for (int i = 1; i < n - 1; i++) {
            next[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]) + f[i];
        }
    }

    /** Heat on rows with a line logged every {@code k} steps and a boundary row written each step. */
    static double[][] heatReadsWrites(double[][] u, double[][] next, int n, int steps, int k, StringBuilder log) {
        for (int s = 0; s < steps; s++) {
            step(u, next, n, 0.2);
            double[][] t = u;
            u = next;
            next = t;
            if (s % k == 0) {
                log.append(s).append(' ').append(u[n / 2][n / 2]).append(' ').append(u[1][n - 2]).append('\n');
            }
            for (int j = 0; j < n; j++) {
                u[0][j] = (s % 7) * 0.125 + j * 1e-3;
            }
            next[n - 1][n / 3] = -s;
        }
        return u;
    }

    /** The shape of published numerics code: a print every {@code k} steps, a boundary write each step. */
    static double relaxReadsWrites(double[] u, double[] next, double[] f, int n, int steps, int k, StringBuilder log) {
        double last = 0;
        for (int step = 0; step < steps; step++) {
            relax(u, next, f, n);
            double[] t = u;
            u = next;
            next = t;
            if (step % k == 0) {
                log.append(u[n / 2]).append('\n');
            }
            u[0] = Math.sin(step * 0.01);
            last = u[n - 2];
            if (last > 1e6) {
                break;
            }
        }
        return last;
    }
}
