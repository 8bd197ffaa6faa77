package org.acc4j.samples;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.acc4j.Acc;

/**
 * Kernel time of Jacobi, transpose and DGEMM on {@code double[][]} against their flat {@code double[]} forms, with
 * every array present on the device around the calls (so no copy is timed): a rectangular {@code double[][]} (one
 * block on the device, indexed as the flat form is) and a jagged one (odd rows one element longer, so the row table
 * is used, its loads preloaded before the inner loops). The harness first checks that all three forms give the same
 * bits, then times them in interleaved rounds ({@link #time}): a figure is the median over the rounds of a form's mean
 * time per call, the call's own cost (about one launch) included, and a ratio is the median over the rounds of the
 * paired ratio flat time / form's time in that round (1 is flat speed; below 1 slower), with a distribution-free 95%
 * confidence interval of that median, as the multicore harness gives its ratios.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.RowsVsFlat [n [dgemmN [rounds [calls]]]]}
 * (defaults 8192, 2048, 20 rounds, 10 calls a slot; DGEMM a third of the calls).
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

    /**
     * The mean time per call of {@code calls} runs of {@code call}, in ms, up to the end of the last one's kernels (a
     * call on present data may return once its kernel is queued: {@link Acc#waitAll} waits for it).
     */
    private static double slot(int calls, Runnable call) {
        Acc.waitAll();
        long t0 = System.nanoTime();
        for (int c = 0; c < calls; c++) {
            call.run();
        }
        Acc.waitAll();
        return (System.nanoTime() - t0) / 1e6 / calls;
    }

    /**
     * Times the three forms with their arrays present, in {@code rounds} interleaved rounds: each round runs every form
     * for a slot of {@code calls} calls, in an order shuffled per round from a fixed seed, so that neither the device's
     * drift nor a form's place in the round favours one. First every form runs {@link #WARM_CALLS} untimed calls (the
     * JVM compiles the runtime's host path, the launch's block shape is tuned and kept). Returns each form's mean ms
     * per call in each round: {@code [form][round]}, forms flat, rectangular, jagged.
     */
    private static double[][] time(int rounds, int calls, Object[] flatArrays, Object[] rectArrays,
                                   Object[] jaggedArrays, Runnable flat, Runnable rect, Runnable jagged) {
        Acc.copyin(flatArrays);
        Acc.copyin(rectArrays);
        Acc.copyin(jaggedArrays);
        Runnable[] forms = {flat, rect, jagged};
        for (Runnable f : forms) {
            slot(WARM_CALLS, f);
        }
        double[][] t = new double[3][rounds];
        List<Integer> order = new ArrayList<>(List.of(0, 1, 2));
        Random shuffle = new Random(17);
        for (int r = 0; r < rounds; r++) {
            Collections.shuffle(order, shuffle);
            for (int f : order) {
                t[f][r] = slot(calls, forms[f]);
            }
        }
        Acc.delete(flatArrays);
        Acc.delete(rectArrays);
        Acc.delete(jaggedArrays);
        return t;
    }

    /** Untimed calls of each form before the rounds: enough for the JIT and for the block-shape tuner to finish. */
    static final int WARM_CALLS = 60;

    /** The paired ratios flat / form of each round. */
    static double[] ratios(double[][] t, int form) {
        double[] r = new double[t[0].length];
        for (int k = 0; k < r.length; k++) {
            r[k] = t[0][k] / t[form][k];
        }
        return r;
    }

    private static void row(String kernel, String size, double[][] t) {
        double[] rect = ratios(t, 1);
        double[] jag = ratios(t, 2);
        PairedStats.Interval rci = PairedStats.medianIntervalOrExtremes(rect);
        PairedStats.Interval jci = PairedStats.medianIntervalOrExtremes(jag);
        System.out.printf(Locale.ROOT, "| %s | %s | %.3f | %.3f | %.3f [%.3f, %.3f] | %.3f | %.3f [%.3f, %.3f] |%n",
                kernel, size, PairedStats.median(t[0]), PairedStats.median(t[1]), rci.median(), rci.low(), rci.high(),
                PairedStats.median(t[2]), jci.median(), jci.low(), jci.high());
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 8192;
        int dn = args.length > 1 ? Integer.parseInt(args[1]) : 2048;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        int calls = args.length > 3 ? Integer.parseInt(args[3]) : 10;
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
        double[][] jt = time(rounds, calls, new Object[] {js, jd}, new Object[] {rs, rd}, new Object[] {gs, gd},
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
        double[][] tt = time(rounds, calls, new Object[] {ti, to}, new Object[] {ri, ro}, new Object[] {gi, go},
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
        double[][] dt = time(rounds, Math.max(1, calls / 3), new Object[] {a, b, c}, new Object[] {ra, rb, rc},
                new Object[] {ga, gb, gc}, () -> Dgemm.multiply(a, b, c, dn, dn, dn),
                () -> Dgemm.multiply2d(ra, rb, rc, dn, dn, dn), () -> Dgemm.multiply2d(ga, gb, gc, dn, dn, dn));

        System.out.println(ok ? "the double[][] forms give the flat form's bits" : "MISMATCH between the forms");
        System.out.println("| kernel | size | flat ms | rectangular double[][] ms | flat / rectangular [95%] | jagged"
                + " double[][] ms | flat / jagged [95%] |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
        row("Jacobi sweep", n + "²", jt);
        row("transpose (naive)", n + "²", tt);
        row("DGEMM", dn + "²", dt);
        if (!ok) {
            System.exit(1);
        }
    }
}
