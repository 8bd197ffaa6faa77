package org.acc4j.compiler.site;

import org.acc4j.Kernels;

/**
 * Host loops around {@code @Kernels} calls, for {@link LoopRegionsTest}: those that may keep their arrays on the
 * device across the calls, and those that may not (the host sees the arrays in between).
 */
final class LoopFixtures {
    static double[] field = new double[8];
    static Object[] holder = new Object[1];
    static int helperCalls;

    private LoopFixtures() {
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
    static void scale(double[] x, double f) {
        for (int i = 0; i < x.length; i++) {
            x[i] = x[i] * f + 1;
        }
    }

    /** Throws Java's exception when {@code at} is outside {@code x}. */
    @Kernels
    static void poke(double[] x, int at) {
        for (int i = 0; i < 4; i++) {
            x[at + i] += 1;
        }
    }

    // ---------------------------------------------------------------- loops that get a region

    static double[][] swap(double[][] u, double[][] next, int n, int steps) {
        for (int s = 0; s < steps; s++) {
            step(u, next, n, 0.2);
            double[][] t = u;
            u = next;
            next = t;
        }
        return u;
    }

    static void whileLoop(double[] x, int k) {
        int s = 0;
        while (s < k) {
            scale(x, 1.5);
            s++;
        }
    }

    static void doWhile(double[] x, int k) {
        int s = 0;
        do {
            scale(x, 0.5);
            s++;
        } while (s < k);
    }

    static int breakOut(double[] x, int k) {
        int s;
        for (s = 0; s < 100; s++) {
            scale(x, 1.01);
            if (s == k) {
                break;
            }
        }
        return s;
    }

    static double returnInside(double[] x, int k) {
        for (int s = 0; ; s++) {
            scale(x, 2);
            if (s == k) {
                return s * 0.5;
            }
        }
    }

    static void throwInside(double[] x, int k) {
        for (int s = 0; s < 10; s++) {
            scale(x, 2);
            if (s == k) {
                throw new IllegalStateException("at " + s);
            }
        }
    }

    /** A kernel that throws inside the loop; the catch around the loop reads the array on the host. */
    static double kernelThrows(double[] x, int k) {
        try {
            for (int s = 0; s < 10; s++) {
                scale(x, 2);
                poke(x, s == k ? x.length : 0);
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            return x[0] + x[x.length - 1];
        }
        return -1;
    }

    static int tryInside(double[] x, int k) {
        int caught = 0;
        for (int s = 0; s < k; s++) {
            try {
                poke(x, s % 2 == 0 ? x.length : 0);
            } catch (ArrayIndexOutOfBoundsException e) {
                caught++;
            }
        }
        return caught;
    }

    static void intSteps(double[] x, int[] factors) {
        for (int s = 0; s < factors.length; s++) {
            scale(x, factors[s]);
        }
    }

    static void prints(double[] x, int k, StringBuilder log) {
        for (int s = 0; s < k; s++) {
            scale(x, 1.25);
            log.append("step ").append(s).append('\n');
        }
    }

    static void freshArrays(double[] x, int k) {
        for (int s = 0; s < k; s++) {
            double[] t = new double[4];
            t[0] = s;
            scale(t, 2);
            scale(x, 2);
            x = x;
        }
    }

    static void labelled(double[] x, double[] y, int k) {
        outer:
        for (int s = 0; s < k; s++) {
            for (int r = 0; r < 3; r++) {
                scale(x, 1.5);
                if (r == s) {
                    continue outer;
                }
                scale(y, 0.5);
            }
        }
    }

    static double switches(double[] x, int k) {
        for (int s = 0; s < 12; s++) {
            switch (s % 4) {
                case 0:
                    scale(x, 1.5);
                    break;
                case 1:
                    scale(x, 0.5);
                    break;
                case 2:
                    if (s > k) {
                        return s;
                    }
                    break;
                default:
                    continue;
            }
            scale(x, 1.25);
        }
        return -1;
    }

    static int finallyCount;

    static void tryFinally(double[] x, int k) {
        for (int s = 0; s < 6; s++) {
            try {
                poke(x, s == k ? x.length : 0);
            } finally {
                finallyCount++;
            }
        }
    }

    static Object lock = new Object();

    static void locked(double[] x, int k) {
        for (int s = 0; s < k; s++) {
            synchronized (lock) {
                scale(x, 2);
            }
        }
    }

    // ---------------------------------------------------------------- loops that do not

    static double hostRead(double[] x, int k) {
        double sum = 0;
        for (int s = 0; s < k; s++) {
            scale(x, 1.1);
            sum += x[0];
        }
        return sum;
    }

    static void appCall(double[] x, int k) {
        for (int s = 0; s < k; s++) {
            scale(x, 1);
            helper();
        }
    }

    static void fieldOnly(int k) {
        for (int s = 0; s < k; s++) {
            scale(field, 2);
        }
    }

    static void storesArray(double[] x, int k) {
        for (int s = 0; s < k; s++) {
            scale(x, 1);
            holder[0] = x;
        }
    }

    static void aliasRead(double[] x, double[] other, int k) {
        for (int s = 0; s < k; s++) {
            scale(x, 3);
            other[1] = other[0];
        }
    }

    /** The outer loop reads on the host; the inner one may still keep its array on the device. */
    static double nested(double[] x, int k) {
        double sum = 0;
        for (int a = 0; a < k; a++) {
            for (int b = 0; b < 3; b++) {
                scale(x, 0.75);
            }
            sum += x[1];
        }
        return sum;
    }

    // ---------------------------------------------------------------- arrays in fields

    static double[] sa = new double[16];
    static double[] sb = new double[16];

    @Kernels
    static void staticSweep() {
        for (int i = 0; i < sa.length; i++) {
            sa[i] = sa[i] * 0.5 + sb[i];
        }
    }

    static void staticLoop(int k) {
        for (int s = 0; s < k; s++) {
            staticSweep();
        }
    }

    /** Arrays in instance fields, and a final @Kernels method on them. */
    static final class Grid {
        double[] a;
        double[] b;
        int sweeps;

        Grid(double[] a, double[] b) {
            this.a = a;
            this.b = b;
        }

        @Kernels
        void relax() {
            for (int i = 0; i < a.length; i++) {
                a[i] = 0.5 * (a[i] + b[i]) + 1;
            }
        }

        void run(int k) {
            for (int s = 0; s < k; s++) {
                relax();
                sweeps++;
            }
        }

        void runSwapping(int k) {
            for (int s = 0; s < k; s++) {
                relax();
                double[] t = a;
                a = b;
                b = t;
            }
        }
    }

    static double gridRun(double[] a, int k) {
        Grid g = new Grid(a, a.clone());
        g.run(k);
        return g.sweeps;
    }

    static double gridRunSwapping(double[] a, int k) {
        Grid g = new Grid(a, a.clone());
        g.runSwapping(k);
        return g.a[0];
    }

    private static void helper() {
        helperCalls++;
    }
}
