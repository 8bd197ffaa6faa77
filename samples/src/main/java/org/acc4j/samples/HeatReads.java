package org.acc4j.samples;

import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;

/**
 * The heat equation of {@link HeatRows} as published numerics code writes its time loop: the host looks at the grid
 * every {@code every} steps and writes a boundary row each step, between the {@code @Kernels} calls. The harness checks
 * every element of both grids and every value the host read against plain Java, bit for bit, then prints a table:
 * <ul>
 *   <li><b>plain Java</b>: the same loop with the step never offloaded;</li>
 *   <li><b>unchanged source</b>: the time loop calling the {@code @Kernels} step. The agent wraps it in an implicit
 *       data region and keeps the host's accesses coherent: a read copies the row it reads to the host once after a
 *       kernel, a write of the boundary row copies that row back to the device before the next call;</li>
 *   <li><b>each call moving its data</b>: the same loop with a call of the application's in it
 *       ({@link HeatRows#progress}), which acc4j does not look into, so there is no implicit region;</li>
 *   <li><b>a {@code @Data} region with whole-grid updates</b>: the loop in a {@code @Data} method, with
 *       {@code Acc.updateHost} before the host's read and {@code Acc.updateDevice} after its write, as the guide would
 *       have it written by hand.</li>
 * </ul>
 * Each form's time is the best of {@code reps} runs of {@code steps} steps; the last column is plain Java's time over
 * the form's (above 1: faster than plain Java).
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.HeatReads [n [steps [reps [every]]]]}
 * (defaults 512, 200, 5, 10).
 */
public final class HeatReads {
    private HeatReads() {
    }

    /** {@link HeatRows#step}: one explicit step on the interior. */
    @Kernels
    static void step(double[][] u, double[][] next, int n, double alpha) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                next[i][j] = u[i][j] + alpha * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4 * u[i][j]);
            }
        }
    }

    /** The boundary value the host writes into row 0 at step {@code s}, column {@code j}. */
    static double boundary(int s, int j) {
        return (s % 7) * 0.125 + j * 1e-3;
    }

    /** The unchanged time loop: a host read every {@code every} steps, a boundary row written each step. */
    static double simulate(double[][] u, double[][] next, int n, int steps, int every, double alpha) {
        double probe = 0;
        for (int s = 0; s < steps; s++) {
            step(u, next, n, alpha);
            double[][] t = u;
            u = next;
            next = t;
            if (s % every == 0) {
                probe += u[n / 2][n / 2];
            }
            for (int j = 0; j < n; j++) {
                u[0][j] = (s % 7) * 0.125 + j * 1e-3;
            }
        }
        return probe;
    }

    /** The same loop with a call acc4j does not look into: no implicit region, each call moves both grids. */
    static double simulateMoving(double[][] u, double[][] next, int n, int steps, int every, double alpha) {
        double probe = 0;
        for (int s = 0; s < steps; s++) {
            step(u, next, n, alpha);
            HeatRows.progress();
            double[][] t = u;
            u = next;
            next = t;
            if (s % every == 0) {
                probe += u[n / 2][n / 2];
            }
            for (int j = 0; j < n; j++) {
                u[0][j] = (s % 7) * 0.125 + j * 1e-3;
            }
        }
        return probe;
    }

    static double resultOfResident;

    /** The loop in a data region, with whole-grid updates around the host's accesses. */
    @Data(copy = {"u", "next"})
    static void simulateResident(double[][] u, double[][] next, int n, int steps, int every, double alpha) {
        double[][] a = u;
        double[][] b = next;
        double probe = 0;
        for (int s = 0; s < steps; s++) {
            step(a, b, n, alpha);
            double[][] t = a;
            a = b;
            b = t;
            Acc.updateHost(a);
            if (s % every == 0) {
                probe += a[n / 2][n / 2];
            }
            for (int j = 0; j < n; j++) {
                a[0][j] = boundary(s, j);
            }
            Acc.updateDevice(a);
        }
        resultOfResident = probe;
    }

    static double plain(double[][] u, double[][] next, int n, int steps, int every, double alpha) {
        double probe = 0;
        for (int s = 0; s < steps; s++) {
            HeatRows.plainStep(u, next, n, alpha);
            double[][] t = u;
            u = next;
            next = t;
            if (s % every == 0) {
                probe += u[n / 2][n / 2];
            }
            for (int j = 0; j < n; j++) {
                u[0][j] = boundary(s, j);
            }
        }
        return probe;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 512;
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int every = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        double alpha = 0.2;
        System.out.println("running on: " + (Acc.onDevice() ? "the device" : "the host"));
        double[][] u0 = HeatRows.grid(n, 42);
        double[][] v0 = HeatRows.grid(n, 43);

        // correctness: both grids, every element, and the values read, against plain Java, odd and even step counts
        int bad = 0;
        for (int k : new int[] {steps, steps + 1}) {
            double[][] pu = HeatRows.copy(u0);
            double[][] pn = HeatRows.copy(v0);
            double probe = plain(pu, pn, n, k, every, alpha);
            double[][] au = HeatRows.copy(u0);
            double[][] an = HeatRows.copy(v0);
            double got = simulate(au, an, n, k, every, alpha);
            double[][] ru = HeatRows.copy(u0);
            double[][] rn = HeatRows.copy(v0);
            simulateResident(ru, rn, n, k, every, alpha);
            double[][] mu = HeatRows.copy(u0);
            double[][] mn = HeatRows.copy(v0);
            double moved = simulateMoving(mu, mn, n, k, every, alpha);
            bad += HeatRows.differences(pu, au) + HeatRows.differences(pn, an) + HeatRows.differences(pu, ru)
                    + HeatRows.differences(pn, rn) + HeatRows.differences(pu, mu) + HeatRows.differences(pn, mn);
            for (double p : new double[] {got, resultOfResident, moved}) {
                bad += Double.doubleToRawLongBits(p) == Double.doubleToRawLongBits(probe) ? 0 : 1;
            }
        }
        System.out.println(bad == 0 ? "all " + (12L * n * n) + " elements and every value read match plain Java"
                : "MISMATCH with plain Java: " + bad + " elements or values read differ");

        double[][] u = HeatRows.copy(u0);
        double[][] next = HeatRows.copy(v0);
        double[] ms = FormTable.bestMillis(reps, () -> plain(u, next, n, steps, every, alpha),
                () -> simulate(u, next, n, steps, every, alpha),
                () -> simulateResident(u, next, n, steps, every, alpha),
                () -> simulateMoving(u, next, n, steps, every, alpha));
        double plainMs = ms[0];
        double callsMs = ms[1];
        double regionMs = ms[2];
        double movingMs = ms[3];
        System.out.printf("heat equation on double[%d][%d], %d steps, the host reading every %d steps and writing a"
                + " boundary row each step%n", n, n, steps, every);
        FormTable table = FormTable.header(steps, plainMs);
        table.row("plain Java", plainMs);
        table.row("unchanged source (an implicit data region, the host's accesses kept coherent)", callsMs);
        table.row("each call moving its data (the loop also calls a method of the application)", movingMs);
        table.row("a @Data region with Acc.updateHost/updateDevice of the grid around the host's accesses", regionMs);
        if (bad != 0) {
            System.exit(1);
        }
    }
}
