package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * c = a · b in double precision, a m × p, b p × n, c m × n: rows i and columns j of c are parallel, and each
 * element is a sequential sum over k into a local {@code s} (k = 0, 1, ... in order, so that the result is the
 * plain Java one bit for bit).
 *
 * <p>In the double-loop mappings of the OpenUH paper (Tian et al., section 3.1, Figure 6, Table 2), on the i and j
 * loops only ({@code default} has no {@code @Loop}); over flat row-major arrays and over rows. The paper finds
 * Map2_2 and Map2_4 fastest here: more threads per block to hide the latency of the k loop's loads.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.Dgemm [n [reps]]}. For n ≤ 1024
 * every element is compared with the plain product; above that 100,000 seeded random elements are compared with a
 * plain dot product, since the plain product of n = 4096 takes minutes.
 */
public final class Dgemm {
    static final String[] VARIANTS = Jacobi.VARIANTS;
    /** Above this size the check samples elements instead of computing the whole plain product. */
    static final int FULL_CHECK_MAX = 1024;
    static final int SAMPLES = 100_000;

    private Dgemm() {
    }

    @Kernels
    static void multiply(double[] a, double[] b, double[] c, int m, int n, int p) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i * p + k] * b[k * n + j];
                }
                c[i * n + j] = s;
            }
        }
    }

    @Kernels
    static void multiplyMap2_1(double[] a, double[] b, double[] c, int m, int n, int p) {
        for (@Loop(gang = Loop.AUTO) int i = 0; i < m; i++) {
            for (@Loop(vector = 128) int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i * p + k] * b[k * n + j];
                }
                c[i * n + j] = s;
            }
        }
    }

    @Kernels
    static void multiplyMap2_2(double[] a, double[] b, double[] c, int m, int n, int p) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 0; i < m; i++) {
            for (@Loop(vector = 128) int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i * p + k] * b[k * n + j];
                }
                c[i * n + j] = s;
            }
        }
    }

    @Kernels
    static void multiplyMap2_3(double[] a, double[] b, double[] c, int m, int n, int p) {
        for (@Loop(gang = Loop.AUTO) int i = 0; i < m; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i * p + k] * b[k * n + j];
                }
                c[i * n + j] = s;
            }
        }
    }

    @Kernels
    static void multiplyMap2_4(double[] a, double[] b, double[] c, int m, int n, int p) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 0; i < m; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i * p + k] * b[k * n + j];
                }
                c[i * n + j] = s;
            }
        }
    }

    /** The flat product, never offloaded: the reference. */
    static void multiplyPlain(double[] a, double[] b, double[] c, int m, int n, int p) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i * p + k] * b[k * n + j];
                }
                c[i * n + j] = s;
            }
        }
    }

    @Kernels
    static void multiply2d(double[][] a, double[][] b, double[][] c, int m, int n, int p) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i][k] * b[k][j];
                }
                c[i][j] = s;
            }
        }
    }

    @Kernels
    static void multiply2dMap2_1(double[][] a, double[][] b, double[][] c, int m, int n, int p) {
        for (@Loop(gang = Loop.AUTO) int i = 0; i < m; i++) {
            for (@Loop(vector = 128) int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i][k] * b[k][j];
                }
                c[i][j] = s;
            }
        }
    }

    @Kernels
    static void multiply2dMap2_2(double[][] a, double[][] b, double[][] c, int m, int n, int p) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 0; i < m; i++) {
            for (@Loop(vector = 128) int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i][k] * b[k][j];
                }
                c[i][j] = s;
            }
        }
    }

    @Kernels
    static void multiply2dMap2_3(double[][] a, double[][] b, double[][] c, int m, int n, int p) {
        for (@Loop(gang = Loop.AUTO) int i = 0; i < m; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i][k] * b[k][j];
                }
                c[i][j] = s;
            }
        }
    }

    @Kernels
    static void multiply2dMap2_4(double[][] a, double[][] b, double[][] c, int m, int n, int p) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 0; i < m; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i][k] * b[k][j];
                }
                c[i][j] = s;
            }
        }
    }

    /** The product over rows, never offloaded: the reference. */
    static void multiply2dPlain(double[][] a, double[][] b, double[][] c, int m, int n, int p) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i][k] * b[k][j];
                }
                c[i][j] = s;
            }
        }
    }

    static void multiplyVariant(int v, double[] a, double[] b, double[] c, int m, int n, int p) {
        switch (v) {
            case 0 -> multiply(a, b, c, m, n, p);
            case 1 -> multiplyMap2_1(a, b, c, m, n, p);
            case 2 -> multiplyMap2_2(a, b, c, m, n, p);
            case 3 -> multiplyMap2_3(a, b, c, m, n, p);
            case 4 -> multiplyMap2_4(a, b, c, m, n, p);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    static void multiply2dVariant(int v, double[][] a, double[][] b, double[][] c, int m, int n, int p) {
        switch (v) {
            case 0 -> multiply2d(a, b, c, m, n, p);
            case 1 -> multiply2dMap2_1(a, b, c, m, n, p);
            case 2 -> multiply2dMap2_2(a, b, c, m, n, p);
            case 3 -> multiply2dMap2_3(a, b, c, m, n, p);
            case 4 -> multiply2dMap2_4(a, b, c, m, n, p);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    /** Median milliseconds of variant {@code v} on data already on the device (c is not copied back). */
    @Data(copyin = {"a", "b"}, create = "c")
    static double timeResident(int v, double[] a, double[] b, double[] c, int m, int n, int p, int reps) {
        return Check.medianMillis(reps, () -> {
            multiplyVariant(v, a, b, c, m, n, p);
            Acc.waitAll();
        });
    }

    @Data(copyin = {"a", "b"}, create = "c")
    static double timeResident2d(int v, double[][] a, double[][] b, double[][] c, int m, int n, int p, int reps) {
        return Check.medianMillis(reps, () -> {
            multiply2dVariant(v, a, b, c, m, n, p);
            Acc.waitAll();
        });
    }

    /** The elements of c to compare, as flat indices, and their plain values. */
    record Expected(int[] at, double[] values) {
        /** The elements of {@code c} at {@link #at}. */
        double[] pick(double[] c) {
            double[] picked = new double[at.length];
            for (int e = 0; e < at.length; e++) {
                picked[e] = c[at[e]];
            }
            return picked;
        }
    }

    /**
     * All elements for n ≤ {@link #FULL_CHECK_MAX}, else {@link #SAMPLES} seeded random ones, each a plain dot
     * product summed in the kernels' order.
     */
    static Expected expected(double[] a, double[] b, int n, long seed) {
        if (n <= FULL_CHECK_MAX) {
            double[] c = new double[n * n];
            multiplyPlain(a, b, c, n, n, n);
            return new Expected(java.util.stream.IntStream.range(0, n * n).toArray(), c);
        }
        Random random = new Random(seed);
        int[] at = new int[SAMPLES];
        double[] values = new double[SAMPLES];
        for (int e = 0; e < SAMPLES; e++) {
            int i = random.nextInt(n);
            int j = random.nextInt(n);
            double s = 0.0;
            for (int k = 0; k < n; k++) {
                s += a[i * n + k] * b[k * n + j];
            }
            at[e] = i * n + j;
            values[e] = s;
        }
        return new Expected(at, values);
    }

    public static void main(String[] args) {
        boolean gpu = Check.gpu();
        int n = Check.arg(args, 0, gpu ? 4096 : 512);
        int reps = Check.arg(args, 1, gpu ? 5 : 2);
        Random random = new Random(2048);
        double[] a = Check.random(random, n * n);
        double[] b = Check.random(random, n * n);
        double[][] a2 = Check.rows(a, n, n);
        double[][] b2 = Check.rows(b, n, n);
        Check.header("DGEMM c = a * b", n + " x " + n);
        Expected expected = expected(a, b, n, 4096);
        int checked = expected.at().length;
        System.out.println(n <= FULL_CHECK_MAX ? "  checking every element against the plain product"
                : "  checking " + checked + " seeded random elements of c against a plain dot product each"
                        + " (n > " + FULL_CHECK_MAX + ": the whole plain product would take minutes)");
        double flops = 2.0 * n * n * n;
        boolean ok = true;
        for (int v = 0; v < VARIANTS.length; v++) {
            double[] c = new double[n * n];
            multiplyVariant(v, a, b, c, n, n, n);
            ok &= Check.same("dgemm flat " + VARIANTS[v], expected.values(), expected.pick(c));
            Check.rowFlops("flat " + VARIANTS[v], timeResident(v, a, b, c, n, n, n, reps), flops);
        }
        for (int v = 0; v < VARIANTS.length; v++) {
            double[][] c = new double[n][n];
            multiply2dVariant(v, a2, b2, c, n, n, n);
            ok &= Check.same("dgemm rows " + VARIANTS[v], expected.values(), expected.pick(Check.flat(c)));
            Check.rowFlops("rows " + VARIANTS[v], timeResident2d(v, a2, b2, c, n, n, n, reps), flops);
        }
        System.out.println("  (median of " + reps + " calls on resident data)");
        Check.verdict("dgemm, " + 2 * VARIANTS.length + " variants" + (n <= FULL_CHECK_MAX ? "" : ", sampled"), ok,
                checked);
    }
}
