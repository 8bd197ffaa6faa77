package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;

/**
 * The heat equation as a newcomer writes it: {@code double[][]} grids, one {@code @Kernels} method for a time step,
 * and the time loop outside it, so that every call takes both grids to the device and back. The harness checks the
 * result against plain Java, every element bit for bit, then prints a table:
 * <ul>
 *   <li><b>plain Java</b>: the same loop with the step never offloaded;</li>
 *   <li><b>unchanged source</b>: the time loop calling the {@code @Kernels} step. Nothing else in the loop sees the
 *       grids, so the agent wraps it in an implicit data region: the grids move once each way for the whole run;</li>
 *   <li><b>each call moving its data</b>: the same loop with a call of the application's in it
 *       ({@link #progress}), which acc4j does not look into, so there is no implicit region: each call moves the
 *       grid it reads in (one rectangular block, one pipelined copy) and only the interior of the grid it writes back
 *       (nothing of that grid goes in);</li>
 *   <li><b>with a data region</b>: the same loop in a {@code @Data} method, as the guide shows it.</li>
 * </ul>
 * Each form's time is the best of {@code reps} runs of {@code steps} steps; the last column is plain Java's time over
 * the form's (above 1: faster than plain Java). With {@code ACC4J_REPORT=1} the agent's profile splits the unchanged
 * form's time into its copies and its kernels.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.HeatRows [n [steps [reps]]]}
 * (defaults 512, 200, 5).
 */
public final class HeatRows {
    private HeatRows() {
    }

    /** One explicit step of {@code u_t = alpha (u_xx + u_yy)} on the interior; the edges stay as they are. */
    @Kernels
    static void step(double[][] u, double[][] next, int n, double alpha) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                next[i][j] = u[i][j] + alpha * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4 * u[i][j]);
            }
        }
    }

    /** {@link #step}, never offloaded: the reference. */
    static void plainStep(double[][] u, double[][] next, int n, double alpha) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                next[i][j] = u[i][j] + alpha * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4 * u[i][j]);
            }
        }
    }

    /** The newcomer's time loop; returns the grid holding the last step. */
    static double[][] simulate(double[][] u, double[][] next, int n, int steps, double alpha) {
        for (int s = 0; s < steps; s++) {
            step(u, next, n, alpha);
            double[][] t = u;
            u = next;
            next = t;
        }
        return u;
    }

    static int stepsDone;

    /** Counts steps: a call of the application's, which keeps the loop around it from an implicit data region. */
    static void progress() {
        stepsDone++;
    }

    /** The newcomer's time loop with a call acc4j does not look into: each step moves both grids. */
    static double[][] simulateMoving(double[][] u, double[][] next, int n, int steps, double alpha) {
        for (int s = 0; s < steps; s++) {
            step(u, next, n, alpha);
            progress();
            double[][] t = u;
            u = next;
            next = t;
        }
        return u;
    }

    /** The same loop in a data region: both grids stay on the device for the whole run. */
    @Data(copy = {"u", "next"})
    static void simulateResident(double[][] u, double[][] next, int n, int steps, double alpha) {
        double[][] a = u;
        double[][] b = next;
        for (int s = 0; s < steps; s++) {
            step(a, b, n, alpha);
            double[][] t = a;
            a = b;
            b = t;
        }
    }

    static double[][] plain(double[][] u, double[][] next, int n, int steps, double alpha) {
        for (int s = 0; s < steps; s++) {
            plainStep(u, next, n, alpha);
            double[][] t = u;
            u = next;
            next = t;
        }
        return u;
    }

    /** A grid of random values from {@code seed}. */
    static double[][] grid(int n, long seed) {
        Random r = new Random(seed);
        double[][] g = new double[n][n];
        for (double[] row : g) {
            for (int j = 0; j < n; j++) {
                row[j] = r.nextDouble();
            }
        }
        return g;
    }

    static double[][] copy(double[][] g) {
        double[][] c = new double[g.length][];
        for (int i = 0; i < g.length; i++) {
            c[i] = g[i].clone();
        }
        return c;
    }

    /** How many elements differ in their bits. */
    static int differences(double[][] expected, double[][] actual) {
        int d = 0;
        for (int i = 0; i < expected.length; i++) {
            for (int j = 0; j < expected[i].length; j++) {
                if (Double.doubleToRawLongBits(expected[i][j]) != Double.doubleToRawLongBits(actual[i][j])) {
                    d++;
                }
            }
        }
        return d;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 512;
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        double alpha = 0.2;
        System.out.println("running on: " + (Acc.onDevice() ? "the device" : "the host"));
        double[][] u0 = grid(n, 42);

        // correctness: both grids, every element, against plain Java, for an odd and an even number of steps
        int bad = 0;
        for (int k : new int[] {steps, steps + 1}) {
            double[][] pu = copy(u0);
            double[][] pn = copy(u0);
            plain(pu, pn, n, k, alpha);
            double[][] au = copy(u0);
            double[][] an = copy(u0);
            simulate(au, an, n, k, alpha);
            double[][] ru = copy(u0);
            double[][] rn = copy(u0);
            simulateResident(ru, rn, n, k, alpha);
            double[][] mu = copy(u0);
            double[][] mn = copy(u0);
            simulateMoving(mu, mn, n, k, alpha);
            bad += differences(pu, au) + differences(pn, an) + differences(pu, ru) + differences(pn, rn)
                    + differences(pu, mu) + differences(pn, mn);
        }
        System.out.println(bad == 0 ? "all " + (12L * n * n) + " elements match plain Java" : "MISMATCH with plain Java: "
                + bad + " elements differ");

        double[][] u = copy(u0);
        double[][] next = copy(u0);
        double[] ms = FormTable.bestMillis(reps, () -> plain(u, next, n, steps, alpha),
                () -> simulate(u, next, n, steps, alpha), () -> simulateResident(u, next, n, steps, alpha),
                () -> simulateMoving(u, next, n, steps, alpha));
        double plainMs = ms[0];
        double callsMs = ms[1];
        double regionMs = ms[2];
        double movingMs = ms[3];
        System.out.printf("heat equation on double[%d][%d], %d steps, the time loop outside the @Kernels call%n", n, n,
                steps);
        FormTable table = FormTable.header(steps, plainMs);
        table.row("plain Java", plainMs);
        table.row("unchanged source (an implicit data region around the time loop)", callsMs);
        table.row("each call moving its data (the loop also calls a method of the application)", movingMs);
        table.row("with a @Data region around the time loop", regionMs);
        if (bad != 0) {
            System.exit(1);
        }
    }
}
