package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;

/**
 * Jacobi with its iteration loop inside the {@code @Kernels} method, as solvers are written: the sweep is a launch
 * site, the loop and the swap of the two grids stay Java, and the grids stay on the device for the whole call (each
 * moves once each way). The harness checks the result against plain Java bit for bit, then times:
 * <ul>
 *   <li><b>in the method</b>: a call's time per iteration with both grids present around the call
 *       ({@code Acc.copyin}), so that the call's one copy of each grid each way is not in it;</li>
 *   <li><b>resident</b>: the same sweep as a {@code @Kernels} method of its own, called k times inside a
 *       {@code @Data} region that keeps both grids present (the benchmark suite's kernel-only figure);</li>
 *   <li><b>with transfers</b>: one call of k iterations, copies included.</li>
 * </ul>
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.JacobiInMethod [n [k [reps]]]}
 * (defaults 8192, 100, 5).
 */
public final class JacobiInMethod {
    private JacobiInMethod() {
    }

    /** {@code iters} sweeps, alternating the grids; the grid written last is {@code a} when iters is even. */
    @Kernels
    static void solve(double[] a, double[] b, int n, int iters) {
        for (int it = 0; it < iters; it++) {
            for (int i = 1; i < n - 1; i++) {
                for (int j = 1; j < n - 1; j++) {
                    b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
                }
            }
            double[] t = a;
            a = b;
            b = t;
        }
    }

    /** With a convergence test: the largest change of each sweep, a reduction, decides when to stop. */
    @Kernels
    static int converge(double[] a, double[] b, int n, int maxIters, double tol) {
        int it = 0;
        while (it < maxIters) {
            for (int i = 1; i < n - 1; i++) {
                for (int j = 1; j < n - 1; j++) {
                    b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
                }
            }
            double change = 0;
            for (int i = 0; i < n * n; i++) {
                change = Math.max(change, Math.abs(b[i] - a[i]));
            }
            double[] t = a;
            a = b;
            b = t;
            it++;
            if (change < tol) {
                break;
            }
        }
        return it;
    }

    @Kernels
    static void sweep(double[] a, double[] b, int n) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
            }
        }
    }

    @Data(copy = {"a", "b"})
    static void resident(double[] a, double[] b, int n, int iters) {
        for (int it = 0; it < iters; it++) {
            if (it % 2 == 0) {
                sweep(a, b, n);
            } else {
                sweep(b, a, n);
            }
        }
    }

    /** The same as {@link #solve}, never rewritten: the reference. */
    static void plain(double[] a, double[] b, int n, int iters) {
        for (int it = 0; it < iters; it++) {
            for (int i = 1; i < n - 1; i++) {
                for (int j = 1; j < n - 1; j++) {
                    b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
                }
            }
            double[] t = a;
            a = b;
            b = t;
        }
    }

    /** How many elements differ in their bits. */
    static int differences(double[] expected, double[] actual) {
        int d = 0;
        for (int i = 0; i < expected.length; i++) {
            if (Double.doubleToRawLongBits(expected[i]) != Double.doubleToRawLongBits(actual[i])) {
                d++;
            }
        }
        return d;
    }

    /** Milliseconds of one call of {@link #solve}, its transfers included. */
    static double timeOneCall(double[] a, double[] b, int n, int k) {
        long t0 = System.nanoTime();
        solve(a, b, n, k);
        return (System.nanoTime() - t0) / 1e6;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 8192;
        int k = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        System.out.println("running on: " + (Acc.onDevice() ? "the device" : "the host"));
        Random r = new Random(42);
        double[] a0 = new double[n * n];
        for (int i = 0; i < a0.length; i++) {
            a0[i] = r.nextDouble();
        }
        // correctness on a smaller grid, every element, both methods
        int m = Math.min(n, 513);
        double[] x = java.util.Arrays.copyOf(a0, m * m);
        double[] y = x.clone();
        double[] px = x.clone();
        double[] py = x.clone();
        solve(x, y, m, 7);
        plain(px, py, m, 7);
        int bad = differences(px, x) + differences(py, y);
        double[] cx = java.util.Arrays.copyOf(a0, m * m);
        double[] cy = cx.clone();
        int its = converge(cx, cy, m, 40, 1e-3);
        double[] qx = java.util.Arrays.copyOf(a0, m * m);
        double[] qy = qx.clone();
        plain(qx, qy, m, its);
        bad += differences(qx, cx) + differences(qy, cy);
        System.out.println(bad == 0 ? "all " + (4 * m * m) + " elements match plain Java (" + its
                + " iterations to converge)" : "MISMATCH with plain Java");
        double[] a = a0.clone();
        double[] b = a0.clone();
        solve(a, b, n, 2);
        resident(a, b, n, 2);
        double inMethod = Double.MAX_VALUE;
        double res = Double.MAX_VALUE;
        double total = Double.MAX_VALUE;
        for (int rep = 0; rep < reps; rep++) {
            // a call of this class's in the loop, so that each call moves its grids (no implicit data region)
            total = Math.min(total, timeOneCall(a, b, n, k));
        }
        // both grids present around the calls: what a call's iterations cost, with no transfer in it
        Acc.copyin(a);
        Acc.copyin(b);
        for (int rep = 0; rep < reps; rep++) {
            Acc.waitAll();
            long p0 = System.nanoTime();
            solve(a, b, n, k);
            Acc.waitAll();
            inMethod = Math.min(inMethod, (System.nanoTime() - p0) / 1e6 / k);
            long r0 = System.nanoTime();
            resident(a, b, n, k);
            Acc.waitAll();
            res = Math.min(res, (System.nanoTime() - r0) / 1e6 / k);
        }
        Acc.copyout(a);
        Acc.copyout(b);
        System.out.printf("jacobi %d x %d, %d iterations inside the method: %.3f ms per iteration; resident sweep"
                + " in a data region: %.3f ms; ratio %.2f; one call with its transfers: %.1f ms%n", n, n, k, inMethod,
                res, res / inMethod, total);
        if (bad != 0) {
            System.exit(1);
        }
    }
}
