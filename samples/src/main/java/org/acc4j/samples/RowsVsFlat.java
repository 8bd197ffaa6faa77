package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;

/**
 * Kernel time of Jacobi, transpose and DGEMM on {@code double[][]} against their flat {@code double[]} forms, with
 * every array present on the device around the calls (so no copy is timed): a rectangular {@code double[][]} (one
 * block on the device, indexed as the flat form is) and a jagged one (odd rows one element longer, so the row table
 * is used, its loads preloaded before the inner loops). Each figure is the best of {@code reps} calls, the call's
 * own cost (about one launch) included. The harness first checks that all three forms give the same bits.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.RowsVsFlat [n [dgemmN [reps]]]}
 * (defaults 8192, 2048, 10). The ratios are flat time over the form's time (1 is flat speed).
 */
public final class RowsVsFlat {
    private RowsVsFlat() {
    }

    private static double[] flat(int m, int n, long seed) {
        Random r = new Random(seed);
        double[] a = new double[m * n];
        for (int i = 0; i < a.length; i++) {
            a[i] = r.nextDouble();
        }
        return a;
    }

    /** The flat array's values row by row; with {@code jagged}, odd rows one element longer (its value unused). */
    private static double[][] rows(double[] flat, int m, int n, boolean jagged) {
        double[][] g = new double[m][];
        for (int i = 0; i < m; i++) {
            g[i] = new double[n + (jagged ? i % 2 : 0)];
            System.arraycopy(flat, i * n, g[i], 0, n);
        }
        return g;
    }

    private static boolean same(double[] flat, double[][] g, int n) {
        for (int i = 0; i < g.length; i++) {
            for (int j = 0; j < n; j++) {
                if (Double.doubleToRawLongBits(flat[i * n + j]) != Double.doubleToRawLongBits(g[i][j])) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The best time of {@code reps} runs of {@code call}, in ms, after two untimed ones. */
    private static double best(int reps, Runnable call) {
        call.run();
        call.run();
        double best = Double.MAX_VALUE;
        for (int r = 0; r < reps; r++) {
            long t0 = System.nanoTime();
            call.run();
            best = Math.min(best, (System.nanoTime() - t0) / 1e6);
        }
        return best;
    }

    /** Times the three forms with their arrays present; returns {flat, rectangular, jagged} ms. */
    private static double[] time(int reps, Object[] flatArrays, Object[] rectArrays, Object[] jaggedArrays,
                                 Runnable flat, Runnable rect, Runnable jagged) {
        Acc.copyin(flatArrays);
        Acc.copyin(rectArrays);
        Acc.copyin(jaggedArrays);
        double[] t = {best(reps, flat), best(reps, rect), best(reps, jagged)};
        Acc.delete(flatArrays);
        Acc.delete(rectArrays);
        Acc.delete(jaggedArrays);
        return t;
    }

    private static void row(String kernel, String size, double[] t) {
        System.out.printf("| %s | %s | %.3f | %.3f | %.2f | %.3f | %.2f |%n", kernel, size, t[0], t[1], t[0] / t[1], t[2],
                t[0] / t[2]);
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 8192;
        int dn = args.length > 1 ? Integer.parseInt(args[1]) : 2048;
        int reps = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        System.out.println("running on: " + (Acc.onDevice() ? "the device" : "the host"));
        boolean ok = true;

        // Jacobi: one sweep src -> dst
        double[] js = flat(n, n, 1);
        double[] jd = js.clone();
        double[][] rs = rows(js, n, n, false);
        double[][] rd = rows(jd, n, n, false);
        double[][] gs = rows(js, n, n, true);
        double[][] gd = rows(jd, n, n, true);
        Jacobi.sweep(js, jd, n, n);
        Jacobi.sweep2d(rs, rd, n, n);
        Jacobi.sweep2d(gs, gd, n, n);
        ok &= same(jd, rd, n) && same(jd, gd, n);
        double[] jt = time(reps, new Object[] {js, jd}, new Object[] {rs, rd}, new Object[] {gs, gd},
                () -> Jacobi.sweep(js, jd, n, n), () -> Jacobi.sweep2d(rs, rd, n, n),
                () -> Jacobi.sweep2d(gs, gd, n, n));

        // transpose: in is n x n
        double[] ti = flat(n, n, 2);
        double[] to = new double[n * n];
        double[][] ri = rows(ti, n, n, false);
        double[][] ro = rows(to, n, n, false);
        double[][] gi = rows(ti, n, n, true);
        double[][] go = rows(to, n, n, true);
        Transpose.transposeNaive(ti, to, n, n);
        Transpose.transpose2dNaive(ri, ro, n, n);
        Transpose.transpose2dNaive(gi, go, n, n);
        ok &= same(to, ro, n) && same(to, go, n);
        double[] tt = time(reps, new Object[] {ti, to}, new Object[] {ri, ro}, new Object[] {gi, go},
                () -> Transpose.transposeNaive(ti, to, n, n), () -> Transpose.transpose2dNaive(ri, ro, n, n),
                () -> Transpose.transpose2dNaive(gi, go, n, n));

        // DGEMM: c = a b, dn x dn
        double[] a = flat(dn, dn, 3);
        double[] b = flat(dn, dn, 4);
        double[] c = new double[dn * dn];
        double[][] ra = rows(a, dn, dn, false);
        double[][] rb = rows(b, dn, dn, false);
        double[][] rc = rows(c, dn, dn, false);
        double[][] ga = rows(a, dn, dn, true);
        double[][] gb = rows(b, dn, dn, true);
        double[][] gc = rows(c, dn, dn, true);
        Dgemm.multiply(a, b, c, dn, dn, dn);
        Dgemm.multiply2d(ra, rb, rc, dn, dn, dn);
        Dgemm.multiply2d(ga, gb, gc, dn, dn, dn);
        ok &= same(c, rc, dn) && same(c, gc, dn);
        double[] dt = time(Math.max(1, reps / 3), new Object[] {a, b, c}, new Object[] {ra, rb, rc},
                new Object[] {ga, gb, gc}, () -> Dgemm.multiply(a, b, c, dn, dn, dn),
                () -> Dgemm.multiply2d(ra, rb, rc, dn, dn, dn), () -> Dgemm.multiply2d(ga, gb, gc, dn, dn, dn));

        System.out.println(ok ? "the double[][] forms give the flat form's bits" : "MISMATCH between the forms");
        System.out.println("| kernel | size | flat ms | rectangular double[][] ms | flat / rectangular | jagged"
                + " double[][] ms | flat / jagged |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
        row("Jacobi sweep", n + "²", jt);
        row("transpose (naive)", n + "²", tt);
        row("DGEMM", dn + "²", dt);
        if (!ok) {
            System.exit(1);
        }
    }
}
