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

    // ---------------------------------------------------------------- loops that get a region, with host accesses

    static double hostRead(double[] x, int k) {
        double sum = 0;
        for (int s = 0; s < k; s++) {
            scale(x, 1.1);
            sum += x[0];
        }
        return sum;
    }

    // ---------------------------------------------------------------- loops that do not

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
        // other may be x: its accesses get the hooks too
        for (int s = 0; s < k; s++) {
            scale(x, 3);
            other[1] = other[0];
        }
    }

    /** The outer loop reads on the host between inner loops of calls. */
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

    // ---------------------------------------------------------------- host reads and writes in a region

    /** A read every other step and a boundary write every step, as in a heat solver's time loop. */
    static double readsAndWrites(double[] x, int k) {
        double seen = 0;
        for (int s = 0; s < 6; s++) {
            scale(x, 1.25);
            if (s % 2 == 0) {
                seen += x[k];
            }
            x[0] = s * 0.5;
        }
        return seen;
    }

    /** Every element read on the host after each call, by a host loop. */
    static double readsAll(double[] x, int k) {
        double sum = 0;
        for (int s = 0; s < k; s++) {
            scale(x, 0.5);
            for (int i = 0; i < x.length; i++) {
                sum += x[i] * (i + 1);
            }
        }
        return sum;
    }

    /** Host writes (each a read first) before each call; the last ones after the last call. */
    static void writesOnly(double[] x, int k) {
        for (int s = 0; s < 4; s++) {
            for (int i = 0; i <= k; i++) {
                x[i] = x[i] * 0.5 + s;
            }
            scale(x, 1.5);
            x[x.length - 1] = -s;
        }
    }

    /** Reads and writes of arrays that are not the region's: one from before the loop, one of another type. */
    static double readsOthers(double[] x, int k) {
        double[] w = new double[x.length];
        int[] steps = {3, 1, 4, 1, 5, 9};
        long[] counts = new long[2];
        double sum = 0;
        for (int s = 0; s < 6; s++) {
            scale(x, 1.0 + steps[s] * 0.1);
            w[s] = x[s] + w[(s + k) % w.length];
            counts[s % 2] += steps[s];
            sum += w[s];
        }
        return sum + counts[0] + counts[1];
    }

    /** A write, then a break on a value read on the host: the write must reach the array. */
    static double writeThenBreak(double[] x, int k) {
        for (int s = 0; s < 10; s++) {
            scale(x, 1.5);
            x[3] = s;
            if (x[k] > 4 || s == k) {
                break;
            }
        }
        return x[2];
    }

    /** A write, then a return of a host read. */
    static double writeThenReturn(double[] x, int k) {
        for (int s = 0; ; s++) {
            scale(x, 0.75);
            x[s % x.length] += 2;
            if (s == k + 2) {
                return x[k] + x[(s + 1) % x.length];
            }
        }
    }

    /** A write, then an exception: the write must reach the array. */
    static void writeThenThrow(double[] x, int k) {
        for (int s = 0; s < 10; s++) {
            scale(x, 2);
            x[1] = -x[k];
            if (s == k) {
                throw new IllegalStateException("at " + s);
            }
        }
    }

    /** Writes and reads around a kernel that throws, and in a finally block. */
    static double writeFinally(double[] x, int k) {
        double seen = 0;
        for (int s = 0; s < 6; s++) {
            try {
                x[2] = s;
                poke(x, s == k ? x.length : 0);
            } catch (ArrayIndexOutOfBoundsException e) {
                seen += x[2] + x[3];
            } finally {
                x[5] += 1;
            }
        }
        return seen;
    }

    /** Host accesses before a labelled continue. */
    static double labelledWrites(double[] x, int k) {
        double seen = 0;
        outer:
        for (int s = 0; s < 4; s++) {
            for (int r = 0; r < 3; r++) {
                scale(x, 1.5);
                x[r] = s - r;
                if (r == s % 3) {
                    seen += x[k];
                    continue outer;
                }
                scale(x, 0.5);
            }
        }
        return seen;
    }

    /** Elements of every primitive kind through float, int, long and byte arrays. */
    @Kernels
    static void mixed(float[] f, int[] i, long[] l, byte[] b) {
        for (int j = 0; j < f.length; j++) {
            f[j] = f[j] * 0.5f + i[j];
            i[j] = i[j] * 3 + 1;
            l[j] = l[j] * 2 + b[j];
            b[j] = (byte) (b[j] + 1);
        }
    }

    static long mixedLoop(float[] f, int[] i, long[] l, byte[] b, int k) {
        long seen = 0;
        for (int s = 0; s < 5; s++) {
            mixed(f, i, l, b);
            seen += i[k] + l[k] + b[k] + (long) f[k];
            i[0] = s;
            l[1] = -s;
            f[2] = s * 0.25f;
            b[3] = (byte) s;
        }
        return seen;
    }

    /** A heat-like loop on rows: a swap, a read of the middle, a boundary row written each step. */
    static double[][] gridReadsAndWrites(double[][] u, double[][] next, int n, int steps) {
        double seen = 0;
        for (int s = 0; s < steps; s++) {
            step(u, next, n, 0.2);
            double[][] t = u;
            u = next;
            next = t;
            if (s % 2 == 0) {
                seen += u[n / 2][n / 2];
            }
            for (int j = 0; j < n; j++) {
                u[0][j] = s + j * 0.5;
            }
            next[n - 1][1] = seen;
        }
        return u;
    }

    /** Replacing a row of a region array keeps the loop out of a region. */
    static void replacesRow(double[][] u, double[][] next, int n) {
        for (int s = 0; s < 3; s++) {
            step(u, next, n, 0.2);
            u[1] = new double[n];
        }
    }

    /** A whole-array copy through the platform keeps the loop out of a region. */
    static void copiesArray(double[] x, double[] y, int k) {
        for (int s = 0; s < k; s++) {
            scale(x, 1.5);
            System.arraycopy(x, 0, y, 0, 4);
        }
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
