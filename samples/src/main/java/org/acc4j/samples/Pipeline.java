package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Kernels;

/**
 * Copy/compute overlap with async queues: a big array in chunks, each chunk {@code updateDeviceAsync(q)}, then the
 * kernel on queue {@code q}, then {@code updateHostAsync(q)}, the chunks spread over 1, 2 or 3 queues, against the
 * same work with no async. Checks every element of both against plain Java before timing anything, then prints the
 * table: each phase alone, their serial sum, the synchronous run and the pipelines (median of {@code reps} runs).
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.Pipeline [n] [reps] [chunks] [iters]}
 * (defaults 2^25 doubles, 5, 16 chunks, 100 iterations per element; 2^18 doubles on the host).
 */
public final class Pipeline {
    private Pipeline() {
    }

    /** {@code iters} steps of a contraction per element: enough work per byte for the kernels to matter. */
    @Kernels(asyncParam = "q")
    static void transform(double[] x, double[] y, int n, int iters, int q) {
        for (int i = 0; i < n; i++) {
            double v = x[i];
            for (int k = 0; k < iters; k++) {
                v = Math.sqrt(v * v + 1.0) * 0.5 + v * 0.25;
            }
            y[i] = v;
        }
    }

    /** The same loop, never offloaded: the reference. */
    static void transformPlain(double[] x, double[] y, int n, int iters) {
        for (int i = 0; i < n; i++) {
            double v = x[i];
            for (int k = 0; k < iters; k++) {
                v = Math.sqrt(v * v + 1.0) * 0.5 + v * 0.25;
            }
            y[i] = v;
        }
    }

    /** Every chunk through {@code queues} queues (chunk c on queue c mod queues), then one wait for all. */
    static void pipelined(double[][] x, double[][] y, int iters, int queues) {
        for (int c = 0; c < x.length; c++) {
            int q = c % queues;
            Acc.updateDeviceAsync(q, x[c]);
            transform(x[c], y[c], x[c].length, iters, q);
            Acc.updateHostAsync(q, y[c]);
        }
        Acc.waitAll();
    }

    /** The same work with no async: each step is done when it returns. */
    static void synchronous(double[][] x, double[][] y, int iters) {
        for (int c = 0; c < x.length; c++) {
            Acc.updateDevice(x[c]);
            transform(x[c], y[c], x[c].length, iters, Acc.ASYNC_SYNC);
            Acc.updateHost(y[c]);
        }
    }

    public static void main(String[] args) {
        boolean gpu = Check.gpu();
        int n = Check.arg(args, 0, gpu ? 1 << 25 : 1 << 18);
        int reps = Check.arg(args, 1, 5);
        int chunks = Math.max(1, Math.min(n, Check.arg(args, 2, 16)));
        int iters = Check.arg(args, 3, 100);
        Random random = new Random(42);
        double[][] x = new double[chunks][];
        double[][] y = new double[chunks][];
        double[][] expected = new double[chunks][];
        for (int c = 0; c < chunks; c++) {
            int len = n / chunks + (c < n % chunks ? 1 : 0);
            x[c] = Check.random(random, len);
            for (int i = 0; i < len; i++) {
                x[c][i] *= 100;
            }
            y[c] = new double[len];
            expected[c] = new double[len];
            transformPlain(x[c], expected[c], len, iters);
        }
        Check.header("pipeline: " + chunks + " chunks, updateDevice -> kernel (" + iters + " iterations per element)"
                + " -> updateHost", n);
        for (int c = 0; c < chunks; c++) {
            Acc.create(x[c], y[c]);
        }
        // every mode checked before any is timed
        boolean ok = true;
        for (int queues = 1; queues <= 3; queues++) {
            clear(y);
            pipelined(x, y, iters, queues);
            ok &= same("pipelined over " + queues + " queue(s)", expected, y);
        }
        clear(y);
        synchronous(x, y, iters);
        ok &= same("synchronous", expected, y);
        if (!ok) {
            Check.verdict("pipeline", false, n);
        }
        double bytes = 2.0 * 8 * n;
        double in = Check.medianMillis(reps, () -> {
            for (double[] chunk : x) {
                Acc.updateDeviceAsync(0, chunk);
            }
            Acc.wait(0);
        });
        double kernels = Check.medianMillis(reps, () -> {
            for (int c = 0; c < chunks; c++) {
                transform(x[c], y[c], x[c].length, iters, 0);
            }
            Acc.wait(0);
        });
        double out = Check.medianMillis(reps, () -> {
            for (double[] chunk : y) {
                Acc.updateHostAsync(0, chunk);
            }
            Acc.wait(0);
        });
        double serialSum = in + kernels + out;
        double sync = Check.medianMillis(reps, () -> synchronous(x, y, iters));
        double[] piped = new double[4];
        for (int queues = 1; queues <= 3; queues++) {
            int qs = queues;
            piped[queues] = Check.medianMillis(reps, () -> pipelined(x, y, iters, qs));
        }
        System.out.printf("  %-58s %10s %10s %12s%n", "phase or mode (all " + chunks + " chunks)", "time", "GB/s",
                "/ serial sum");
        row("copies in only (updateDeviceAsync, 1 queue, pinned)", in, bytes / 2, serialSum);
        row("kernels only (async, 1 queue)", kernels, 0, serialSum);
        row("copies out only (updateHostAsync, 1 queue, pinned)", out, bytes / 2, serialSum);
        row("serial sum of the three phases", serialSum, bytes, serialSum);
        row("synchronous (no async: updateDevice, kernel, updateHost)", sync, bytes, serialSum);
        for (int queues = 1; queues <= 3; queues++) {
            row("pipelined over " + queues + " queue" + (queues > 1 ? "s" : ""), piped[queues], bytes, serialSum);
        }
        if (gpu) {
            System.out.printf("  overlap: 3 queues take %.2f of the serial sum (1.00: none; the lower bound is the"
                    + " slowest phase, %.2f)%n", piped[3] / serialSum, Math.max(in, Math.max(kernels, out)) / serialSum);
        }
        for (int c = 0; c < chunks; c++) {
            Acc.delete(x[c], y[c]);
        }
        Check.verdict("pipeline", true, n);
    }

    private static void row(String mode, double ms, double bytes, double serialSum) {
        System.out.printf("  %-58s %7.3f ms %10s %12.2f%n", mode, ms, bytes > 0 ? String.format("%.1f", bytes / ms / 1e6)
                : "", ms / serialSum);
    }

    private static void clear(double[][] y) {
        for (double[] chunk : y) {
            java.util.Arrays.fill(chunk, Double.NaN);
        }
    }

    private static boolean same(String what, double[][] expected, double[][] actual) {
        boolean ok = true;
        for (int c = 0; c < expected.length; c++) {
            ok &= Check.same(what + ", chunk " + c, expected[c], actual[c]);
        }
        return ok;
    }
}
