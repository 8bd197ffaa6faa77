package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * Jacobi relaxation on an m × n grid: each sweep sets every interior point of {@code dst} to the mean of its four
 * neighbours in {@code src}; the boundary is never written. A {@link Data} region ({@link #iterate}) keeps both
 * grids on the device while it alternates the sweep a → b and b → a.
 *
 * <p>The sweep comes in the double-loop mappings of the OpenUH paper (Tian et al., "Compiling a High-level
 * Directive-Based Programming Model for GPGPUs", section 3.1, Figure 6, Table 2): {@code default} has no
 * {@code @Loop} (the compiler finds the parallel loops and the coalesced one), {@code Map2_1} gang | vector(128),
 * {@code Map2_2} gang vector(2) | vector(128), {@code Map2_3} gang | gang vector(128), {@code Map2_4}
 * gang vector(2) | gang vector(128) (outer | inner loop); each over a flat row-major array ({@code a[i*n + j]})
 * and over rows ({@code a[i][j]}).
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.Jacobi [n [iterations [reps]]]}
 * (an iteration is two sweeps).
 */
public final class Jacobi {
    static final String[] VARIANTS = {"default (no @Loop)", "Map2_1 gang | vector(128)",
        "Map2_2 gang vector(2) | vector(128)", "Map2_3 gang | gang vector(128)",
        "Map2_4 gang vector(2) | gang vector(128)"};

    private Jacobi() {
    }

    @Kernels
    static void sweep(double[] src, double[] dst, int m, int n) {
        for (int i = 1; i < m - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1]
                        + src[i * n + j + 1]);
            }
        }
    }

    @Kernels
    static void sweepMap2_1(double[] src, double[] dst, int m, int n) {
        for (@Loop(gang = Loop.AUTO) int i = 1; i < m - 1; i++) {
            for (@Loop(vector = 128) int j = 1; j < n - 1; j++) {
                dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1]
                        + src[i * n + j + 1]);
            }
        }
    }

    @Kernels
    static void sweepMap2_2(double[] src, double[] dst, int m, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 1; i < m - 1; i++) {
            for (@Loop(vector = 128) int j = 1; j < n - 1; j++) {
                dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1]
                        + src[i * n + j + 1]);
            }
        }
    }

    @Kernels
    static void sweepMap2_3(double[] src, double[] dst, int m, int n) {
        for (@Loop(gang = Loop.AUTO) int i = 1; i < m - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 1; j < n - 1; j++) {
                dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1]
                        + src[i * n + j + 1]);
            }
        }
    }

    @Kernels
    static void sweepMap2_4(double[] src, double[] dst, int m, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 1; i < m - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 1; j < n - 1; j++) {
                dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1]
                        + src[i * n + j + 1]);
            }
        }
    }

    /** The flat sweep, never offloaded: the reference. */
    static void sweepPlain(double[] src, double[] dst, int m, int n) {
        for (int i = 1; i < m - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1]
                        + src[i * n + j + 1]);
            }
        }
    }

    @Kernels
    static void sweep2d(double[][] src, double[][] dst, int m, int n) {
        for (int i = 1; i < m - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                dst[i][j] = 0.25 * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]);
            }
        }
    }

    @Kernels
    static void sweep2dMap2_1(double[][] src, double[][] dst, int m, int n) {
        for (@Loop(gang = Loop.AUTO) int i = 1; i < m - 1; i++) {
            for (@Loop(vector = 128) int j = 1; j < n - 1; j++) {
                dst[i][j] = 0.25 * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]);
            }
        }
    }

    @Kernels
    static void sweep2dMap2_2(double[][] src, double[][] dst, int m, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 1; i < m - 1; i++) {
            for (@Loop(vector = 128) int j = 1; j < n - 1; j++) {
                dst[i][j] = 0.25 * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]);
            }
        }
    }

    @Kernels
    static void sweep2dMap2_3(double[][] src, double[][] dst, int m, int n) {
        for (@Loop(gang = Loop.AUTO) int i = 1; i < m - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 1; j < n - 1; j++) {
                dst[i][j] = 0.25 * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]);
            }
        }
    }

    @Kernels
    static void sweep2dMap2_4(double[][] src, double[][] dst, int m, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 1; i < m - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 1; j < n - 1; j++) {
                dst[i][j] = 0.25 * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]);
            }
        }
    }

    /** The sweep over rows, never offloaded: the reference. */
    static void sweep2dPlain(double[][] src, double[][] dst, int m, int n) {
        for (int i = 1; i < m - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                dst[i][j] = 0.25 * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]);
            }
        }
    }

    /** Variant {@code v} of {@link #VARIANTS} over flat arrays. */
    static void sweepVariant(int v, double[] src, double[] dst, int m, int n) {
        switch (v) {
            case 0 -> sweep(src, dst, m, n);
            case 1 -> sweepMap2_1(src, dst, m, n);
            case 2 -> sweepMap2_2(src, dst, m, n);
            case 3 -> sweepMap2_3(src, dst, m, n);
            case 4 -> sweepMap2_4(src, dst, m, n);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    /** Variant {@code v} of {@link #VARIANTS} over rows. */
    static void sweep2dVariant(int v, double[][] src, double[][] dst, int m, int n) {
        switch (v) {
            case 0 -> sweep2d(src, dst, m, n);
            case 1 -> sweep2dMap2_1(src, dst, m, n);
            case 2 -> sweep2dMap2_2(src, dst, m, n);
            case 3 -> sweep2dMap2_3(src, dst, m, n);
            case 4 -> sweep2dMap2_4(src, dst, m, n);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    /**
     * {@code iterations} times a → b then b → a, with both grids on the device throughout. {@code b} must start
     * with the boundary of {@code a} (it is read back into {@code a}'s interior); only {@code a} is copied back.
     */
    @Data(copy = "a", copyin = "b")
    static void iterate(int v, double[] a, double[] b, int m, int n, int iterations) {
        for (int t = 0; t < iterations; t++) {
            sweepVariant(v, a, b, m, n);
            sweepVariant(v, b, a, m, n);
        }
    }

    /** {@link #iterate} over rows. */
    @Data(copy = "a", copyin = "b")
    static void iterate2d(int v, double[][] a, double[][] b, int m, int n, int iterations) {
        for (int t = 0; t < iterations; t++) {
            sweep2dVariant(v, a, b, m, n);
            sweep2dVariant(v, b, a, m, n);
        }
    }

    /** {@link #iterate} with the reference sweep. */
    static void iteratePlain(double[] a, double[] b, int m, int n, int iterations) {
        for (int t = 0; t < iterations; t++) {
            sweepPlain(a, b, m, n);
            sweepPlain(b, a, m, n);
        }
    }

    /** Median milliseconds of {@link #iterate} on data already on the device (nothing is copied back). */
    @Data(copyin = {"a", "b"})
    static double timeResident(int v, double[] a, double[] b, int m, int n, int iterations, int reps) {
        return Check.medianMillis(reps, () -> {
            iterate(v, a, b, m, n, iterations);
            Acc.waitAll();
        });
    }

    /** {@link #timeResident} over rows. */
    @Data(copyin = {"a", "b"})
    static double timeResident2d(int v, double[][] a, double[][] b, int m, int n, int iterations, int reps) {
        return Check.medianMillis(reps, () -> {
            iterate2d(v, a, b, m, n, iterations);
            Acc.waitAll();
        });
    }

    public static void main(String[] args) {
        boolean gpu = Check.gpu();
        int n = Check.arg(args, 0, gpu ? 8192 : 1024);
        int iterations = Check.arg(args, 1, 10);
        int reps = Check.arg(args, 2, gpu ? 5 : 2);
        Random random = new Random(2013);
        double[] a0 = Check.random(random, n * n);
        Check.header("Jacobi 2D, 5-point", n + " x " + n + ", " + 2 * iterations + " sweeps per call");
        double[] expected = a0.clone();
        iteratePlain(expected, a0.clone(), n, n, iterations);
        // per sweep: one read and one write of each interior point
        double bytes = 16.0 * (n - 2) * (n - 2);
        boolean ok = true;
        // every variant is checked (and the runtime's host code warmed up) before any is timed, so that the first
        // variant timed does not pay for the JVM's warm-up
        double[][] flat = new double[VARIANTS.length][];
        for (int v = 0; v < VARIANTS.length; v++) {
            double[] a = a0.clone();
            iterate(v, a, a0.clone(), n, n, iterations);
            ok &= Check.same("jacobi flat " + VARIANTS[v], expected, a);
            flat[v] = a;
        }
        double[][][] rows = new double[VARIANTS.length][][];
        for (int v = 0; v < VARIANTS.length; v++) {
            double[][] a = Check.rows(a0, n, n);
            iterate2d(v, a, Check.rows(a0, n, n), n, n, iterations);
            ok &= Check.same("jacobi rows " + VARIANTS[v], expected, a);
            rows[v] = a;
        }
        for (int v = 0; v < VARIANTS.length; v++) {
            double ms = timeResident(v, flat[v], a0.clone(), n, n, iterations, reps) / (2 * iterations);
            Check.row("flat " + VARIANTS[v], ms, bytes);
        }
        for (int v = 0; v < VARIANTS.length; v++) {
            double ms = timeResident2d(v, rows[v], Check.rows(a0, n, n), n, n, iterations, reps) / (2 * iterations);
            Check.row("rows " + VARIANTS[v], ms, bytes);
        }
        System.out.println("  (times per sweep, median of " + reps + " calls on resident data)");
        Check.verdict("jacobi, " + 2 * VARIANTS.length + " variants", ok, (long) n * n);
    }
}
