package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * 5 × 5 Gaussian blur of an m × n image: every point at least two from the border becomes the weighted sum of its
 * 5 × 5 neighbourhood, with the weights in a 25-element row-major table {@code w} (the binomial one,
 * {@link #weights()}, in {@link #main}); the two outer rings are never written. The sum runs over the table in
 * order, in two sequential inner loops.
 *
 * <p>In the double-loop mappings of the OpenUH paper (Tian et al., section 3.1, Figure 6, Table 2) on the two
 * outer loops ({@code default} has no {@code @Loop}); over flat row-major arrays and over rows.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.Gaussblur [n [reps]]}
 */
public final class Gaussblur {
    static final String[] VARIANTS = Jacobi.VARIANTS;

    private Gaussblur() {
    }

    @Kernels
    static void blur(double[] a, double[] b, double[] w, int m, int n) {
        for (int i = 2; i < m - 2; i++) {
            for (int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[(i + di - 2) * n + j + dj - 2];
                    }
                }
                b[i * n + j] = s;
            }
        }
    }

    @Kernels
    static void blurMap2_1(double[] a, double[] b, double[] w, int m, int n) {
        for (@Loop(gang = Loop.AUTO) int i = 2; i < m - 2; i++) {
            for (@Loop(vector = 128) int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[(i + di - 2) * n + j + dj - 2];
                    }
                }
                b[i * n + j] = s;
            }
        }
    }

    @Kernels
    static void blurMap2_2(double[] a, double[] b, double[] w, int m, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 2; i < m - 2; i++) {
            for (@Loop(vector = 128) int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[(i + di - 2) * n + j + dj - 2];
                    }
                }
                b[i * n + j] = s;
            }
        }
    }

    @Kernels
    static void blurMap2_3(double[] a, double[] b, double[] w, int m, int n) {
        for (@Loop(gang = Loop.AUTO) int i = 2; i < m - 2; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[(i + di - 2) * n + j + dj - 2];
                    }
                }
                b[i * n + j] = s;
            }
        }
    }

    @Kernels
    static void blurMap2_4(double[] a, double[] b, double[] w, int m, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 2; i < m - 2; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[(i + di - 2) * n + j + dj - 2];
                    }
                }
                b[i * n + j] = s;
            }
        }
    }

    /** The flat blur, never offloaded: the reference. */
    static void blurPlain(double[] a, double[] b, double[] w, int m, int n) {
        for (int i = 2; i < m - 2; i++) {
            for (int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[(i + di - 2) * n + j + dj - 2];
                    }
                }
                b[i * n + j] = s;
            }
        }
    }

    @Kernels
    static void blur2d(double[][] a, double[][] b, double[] w, int m, int n) {
        for (int i = 2; i < m - 2; i++) {
            for (int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[i + di - 2][j + dj - 2];
                    }
                }
                b[i][j] = s;
            }
        }
    }

    @Kernels
    static void blur2dMap2_1(double[][] a, double[][] b, double[] w, int m, int n) {
        for (@Loop(gang = Loop.AUTO) int i = 2; i < m - 2; i++) {
            for (@Loop(vector = 128) int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[i + di - 2][j + dj - 2];
                    }
                }
                b[i][j] = s;
            }
        }
    }

    @Kernels
    static void blur2dMap2_2(double[][] a, double[][] b, double[] w, int m, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 2; i < m - 2; i++) {
            for (@Loop(vector = 128) int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[i + di - 2][j + dj - 2];
                    }
                }
                b[i][j] = s;
            }
        }
    }

    @Kernels
    static void blur2dMap2_3(double[][] a, double[][] b, double[] w, int m, int n) {
        for (@Loop(gang = Loop.AUTO) int i = 2; i < m - 2; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[i + di - 2][j + dj - 2];
                    }
                }
                b[i][j] = s;
            }
        }
    }

    @Kernels
    static void blur2dMap2_4(double[][] a, double[][] b, double[] w, int m, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 2) int i = 2; i < m - 2; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 128) int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[i + di - 2][j + dj - 2];
                    }
                }
                b[i][j] = s;
            }
        }
    }

    /** The blur over rows, never offloaded: the reference. */
    static void blur2dPlain(double[][] a, double[][] b, double[] w, int m, int n) {
        for (int i = 2; i < m - 2; i++) {
            for (int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[i + di - 2][j + dj - 2];
                    }
                }
                b[i][j] = s;
            }
        }
    }

    static void blurVariant(int v, double[] a, double[] b, double[] w, int m, int n) {
        switch (v) {
            case 0 -> blur(a, b, w, m, n);
            case 1 -> blurMap2_1(a, b, w, m, n);
            case 2 -> blurMap2_2(a, b, w, m, n);
            case 3 -> blurMap2_3(a, b, w, m, n);
            case 4 -> blurMap2_4(a, b, w, m, n);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    static void blur2dVariant(int v, double[][] a, double[][] b, double[] w, int m, int n) {
        switch (v) {
            case 0 -> blur2d(a, b, w, m, n);
            case 1 -> blur2dMap2_1(a, b, w, m, n);
            case 2 -> blur2dMap2_2(a, b, w, m, n);
            case 3 -> blur2dMap2_3(a, b, w, m, n);
            case 4 -> blur2dMap2_4(a, b, w, m, n);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    /** The 5 × 5 binomial weights (1 4 6 4 1) ⊗ (1 4 6 4 1) / 256, row-major; they sum to 1. */
    static double[] weights() {
        double[] row = {1, 4, 6, 4, 1};
        double[] w = new double[25];
        for (int di = 0; di < 5; di++) {
            for (int dj = 0; dj < 5; dj++) {
                w[di * 5 + dj] = row[di] * row[dj] / 256;
            }
        }
        return w;
    }

    /** Median milliseconds of variant {@code v} on data already on the device (b is not copied back). */
    @Data(copyin = {"a", "w"}, create = "b")
    static double timeResident(int v, double[] a, double[] b, double[] w, int m, int n, int reps) {
        return Check.medianMillis(reps, () -> {
            blurVariant(v, a, b, w, m, n);
            Acc.waitAll();
        });
    }

    @Data(copyin = {"a", "w"}, create = "b")
    static double timeResident2d(int v, double[][] a, double[][] b, double[] w, int m, int n, int reps) {
        return Check.medianMillis(reps, () -> {
            blur2dVariant(v, a, b, w, m, n);
            Acc.waitAll();
        });
    }

    public static void main(String[] args) {
        boolean gpu = Check.gpu();
        int n = Check.arg(args, 0, gpu ? 8192 : 1024);
        int reps = Check.arg(args, 1, gpu ? 5 : 2);
        Random random = new Random(25);
        double[] a = Check.random(random, n * n);
        double[][] a2 = Check.rows(a, n, n);
        double[] w = weights();
        Check.header("Gaussblur 5 x 5", n + " x " + n);
        double[] expected = new double[n * n];
        blurPlain(a, expected, w, n, n);
        // one read and one write of each interior point
        double bytes = 16.0 * (n - 4) * (n - 4);
        boolean ok = true;
        for (int v = 0; v < VARIANTS.length; v++) {
            double[] b = new double[n * n];
            blurVariant(v, a, b, w, n, n);
            ok &= Check.same("gaussblur flat " + VARIANTS[v], expected, b);
            Check.row("flat " + VARIANTS[v], timeResident(v, a, b, w, n, n, reps), bytes);
        }
        for (int v = 0; v < VARIANTS.length; v++) {
            double[][] b = new double[n][n];
            blur2dVariant(v, a2, b, w, n, n);
            ok &= Check.same("gaussblur rows " + VARIANTS[v], expected, b);
            Check.row("rows " + VARIANTS[v], timeResident2d(v, a2, b, w, n, n, reps), bytes);
        }
        System.out.println("  (median of " + reps + " calls on resident data)");
        Check.verdict("gaussblur, " + 2 * VARIANTS.length + " variants", ok, (long) n * n);
    }
}
