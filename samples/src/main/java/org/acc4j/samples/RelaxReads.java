package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Kernels;

/**
 * A one-dimensional relaxation with the time loop of published numerics code: a {@code @Kernels} sweep each step,
 * the host looking at the middle of the grid every {@code every} steps and writing the left boundary each step. The
 * harness checks every element and every value the host read against plain Java, bit for bit, then prints a table:
 * <ul>
 *   <li><b>plain Java</b>: the same loop with the sweep never offloaded;</li>
 *   <li><b>unchanged source</b>: the loop calling the {@code @Kernels} sweep, in an implicit data region whose host
 *       accesses are kept coherent: the read copies the grid to the host every {@code every} steps, the boundary
 *       write sends one element to the device before the next sweep;</li>
 *   <li><b>each call moving its data</b>: the same loop with a call of the application's in it ({@link #progress}),
 *       so that there is no implicit region.</li>
 * </ul>
 * Each form's time is the best of {@code reps} runs; the last column is plain Java's time over the form's.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.RelaxReads [n [steps [reps [every]]]]}
 * (defaults 4194304, 200, 5, 100).
 */
public final class RelaxReads {
    private RelaxReads() {
    }

    /** One sweep: {@code next} from {@code u} and the source {@code f}, the ends kept. */
    @Kernels
    static void relax(double[] u, double[] next, double[] f, int n) {
        for (int i = 1; i < n - 1; i++) {
            next[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]) + f[i];
        }
    }

    /** {@link #relax}, never offloaded. */
    static void plainRelax(double[] u, double[] next, double[] f, int n) {
        for (int i = 1; i < n - 1; i++) {
            next[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]) + f[i];
        }
    }

    static double simulate(double[] u, double[] next, double[] f, int n, int steps, int every) {
        double probe = 0;
        for (int step = 0; step < steps; step++) {
            relax(u, next, f, n);
            double[] t = u;
            u = next;
            next = t;
            if (step % every == 0) {
                probe += u[n / 2];
            }
            u[0] = Math.sin(step * 0.01);
        }
        return probe;
    }

    static int stepsDone;

    /** A call of the application's, which keeps the loop around it from an implicit data region. */
    static void progress() {
        stepsDone++;
    }

    static double simulateMoving(double[] u, double[] next, double[] f, int n, int steps, int every) {
        double probe = 0;
        for (int step = 0; step < steps; step++) {
            relax(u, next, f, n);
            progress();
            double[] t = u;
            u = next;
            next = t;
            if (step % every == 0) {
                probe += u[n / 2];
            }
            u[0] = Math.sin(step * 0.01);
        }
        return probe;
    }

    static double plain(double[] u, double[] next, double[] f, int n, int steps, int every) {
        double probe = 0;
        for (int step = 0; step < steps; step++) {
            plainRelax(u, next, f, n);
            double[] t = u;
            u = next;
            next = t;
            if (step % every == 0) {
                probe += u[n / 2];
            }
            u[0] = Math.sin(step * 0.01);
        }
        return probe;
    }

    static double[] random(int n, long seed, double scale) {
        Random r = new Random(seed);
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble() * scale;
        }
        return a;
    }

    static int differences(double[] expected, double[] actual) {
        int d = 0;
        for (int i = 0; i < expected.length; i++) {
            d += Double.doubleToRawLongBits(expected[i]) == Double.doubleToRawLongBits(actual[i]) ? 0 : 1;
        }
        return d;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 4_194_304;
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int every = args.length > 3 ? Integer.parseInt(args[3]) : 100;
        System.out.println("running on: " + (Acc.onDevice() ? "the device" : "the host"));
        double[] u0 = random(n, 42, 1);
        double[] f = random(n, 43, 1e-3);

        int bad = 0;
        for (int k : new int[] {steps, steps + 1}) {
            double[] pu = u0.clone();
            double[] pn = u0.clone();
            double probe = plain(pu, pn, f, n, k, every);
            double[] au = u0.clone();
            double[] an = u0.clone();
            double got = simulate(au, an, f, n, k, every);
            double[] mu = u0.clone();
            double[] mn = u0.clone();
            double moved = simulateMoving(mu, mn, f, n, k, every);
            bad += differences(pu, au) + differences(pn, an) + differences(pu, mu) + differences(pn, mn);
            bad += Double.doubleToRawLongBits(probe) == Double.doubleToRawLongBits(got) ? 0 : 1;
            bad += Double.doubleToRawLongBits(probe) == Double.doubleToRawLongBits(moved) ? 0 : 1;
        }
        System.out.println(bad == 0 ? "all " + (8L * n) + " elements and every value read match plain Java"
                : "MISMATCH with plain Java: " + bad + " elements or values read differ");

        double[] u = u0.clone();
        double[] next = u0.clone();
        double[] ms = FormTable.bestMillis(reps, () -> plain(u, next, f, n, steps, every),
                () -> simulate(u, next, f, n, steps, every), () -> simulateMoving(u, next, f, n, steps, every));
        double plainMs = ms[0];
        double callsMs = ms[1];
        double movingMs = ms[2];
        System.out.printf("relaxation on double[%d], %d steps, the host reading every %d steps and writing the"
                + " boundary each step%n", n, steps, every);
        FormTable table = FormTable.header(steps, plainMs);
        table.row("plain Java", plainMs);
        table.row("unchanged source (an implicit data region, the host's accesses kept coherent)", callsMs);
        table.row("each call moving its data (the loop also calls a method of the application)", movingMs);
        if (bad != 0) {
            System.exit(1);
        }
    }
}
