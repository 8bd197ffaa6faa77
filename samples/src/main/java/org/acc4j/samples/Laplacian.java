package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * A 7-point Laplacian on an nx × ny × nz grid with a coefficient per axis: every interior point of {@code b}
 * becomes {@code cx·(a[i-1] - 2a + a[i+1]) + cy·(...j...) + cz·(...k...)} (the second differences, x first). The
 * data is laid out z first, {@code a[(i*ny + j)*nz + k]}, and the loops run i | j | k, so the innermost index is
 * stride-1: here Map3_1 and Map3_2 coalesce and Map3_3, with only gangs on the inner loop, does not (the OpenUH
 * paper's Laplacian, section 5.2).
 *
 * <p>In the triple-loop mappings of the OpenUH paper (Tian et al., section 3.1, Figure 7, Table 3), outer | middle |
 * inner loop: {@code default} has no {@code @Loop} (the compiler finds the parallel loops and the coalesced one),
 * {@code Map3_1} gang | gang vector(2) | vector(128), {@code Map3_2} vector(2) | gang vector(4) | gang vector(64),
 * {@code Map3_3} vector(128) | gang vector(2) | gang.
 *
 * <p>Over a flat array and over rows of z-pencils, {@code a[i*ny + j][k]} (the {@code 2d} methods).
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.Laplacian [n [reps]]} (an n³ grid;
 * default 256 on a GPU, 128, the paper's size, in plain Java).
 */
public final class Laplacian {
    static final String[] VARIANTS = {"default (no @Loop)", "Map3_1 gang | gang vector(2) | vector(128)",
        "Map3_2 vector(2) | gang vector(4) | gang vector(64)", "Map3_3 vector(128) | gang vector(2) | gang"};

    private Laplacian() {
    }

    @Kernels
    static void laplacian(double[] a, double[] b, int nx, int ny, int nz, double cx, double cy, double cz) {
        for (int i = 1; i < nx - 1; i++) {
            for (int j = 1; j < ny - 1; j++) {
                for (int k = 1; k < nz - 1; k++) {
                    int c = (i * ny + j) * nz + k;
                    b[c] = cx * (a[c - ny * nz] - 2.0 * a[c] + a[c + ny * nz])
                            + cy * (a[c - nz] - 2.0 * a[c] + a[c + nz])
                            + cz * (a[c - 1] - 2.0 * a[c] + a[c + 1]);
                }
            }
        }
    }

    @Kernels
    static void laplacianMap3_1(double[] a, double[] b, int nx, int ny, int nz, double cx, double cy, double cz) {
        for (@Loop(gang = Loop.AUTO) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 1; j < ny - 1; j++) {
                for (@Loop(vector = 128) int k = 1; k < nz - 1; k++) {
                    int c = (i * ny + j) * nz + k;
                    b[c] = cx * (a[c - ny * nz] - 2.0 * a[c] + a[c + ny * nz])
                            + cy * (a[c - nz] - 2.0 * a[c] + a[c + nz])
                            + cz * (a[c - 1] - 2.0 * a[c] + a[c + 1]);
                }
            }
        }
    }

    @Kernels
    static void laplacianMap3_2(double[] a, double[] b, int nx, int ny, int nz, double cx, double cy, double cz) {
        for (@Loop(vector = 2) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 4) int j = 1; j < ny - 1; j++) {
                for (@Loop(gang = Loop.AUTO, vector = 64) int k = 1; k < nz - 1; k++) {
                    int c = (i * ny + j) * nz + k;
                    b[c] = cx * (a[c - ny * nz] - 2.0 * a[c] + a[c + ny * nz])
                            + cy * (a[c - nz] - 2.0 * a[c] + a[c + nz])
                            + cz * (a[c - 1] - 2.0 * a[c] + a[c + 1]);
                }
            }
        }
    }

    @Kernels
    static void laplacianMap3_3(double[] a, double[] b, int nx, int ny, int nz, double cx, double cy, double cz) {
        for (@Loop(vector = 128) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 1; j < ny - 1; j++) {
                for (@Loop(gang = Loop.AUTO) int k = 1; k < nz - 1; k++) {
                    int c = (i * ny + j) * nz + k;
                    b[c] = cx * (a[c - ny * nz] - 2.0 * a[c] + a[c + ny * nz])
                            + cy * (a[c - nz] - 2.0 * a[c] + a[c + nz])
                            + cz * (a[c - 1] - 2.0 * a[c] + a[c + 1]);
                }
            }
        }
    }

    /** The flat kernel, never offloaded: the reference. */
    static void laplacianPlain(double[] a, double[] b, int nx, int ny, int nz, double cx, double cy, double cz) {
        for (int i = 1; i < nx - 1; i++) {
            for (int j = 1; j < ny - 1; j++) {
                for (int k = 1; k < nz - 1; k++) {
                    int c = (i * ny + j) * nz + k;
                    b[c] = cx * (a[c - ny * nz] - 2.0 * a[c] + a[c + ny * nz])
                            + cy * (a[c - nz] - 2.0 * a[c] + a[c + nz])
                            + cz * (a[c - 1] - 2.0 * a[c] + a[c + 1]);
                }
            }
        }
    }

    @Kernels
    static void laplacian2d(double[][] a, double[][] b, int nx, int ny, int nz, double cx, double cy, double cz) {
        for (int i = 1; i < nx - 1; i++) {
            for (int j = 1; j < ny - 1; j++) {
                for (int k = 1; k < nz - 1; k++) {
                    int p = i * ny + j;
                    b[p][k] = cx * (a[p - ny][k] - 2.0 * a[p][k] + a[p + ny][k])
                            + cy * (a[p - 1][k] - 2.0 * a[p][k] + a[p + 1][k])
                            + cz * (a[p][k - 1] - 2.0 * a[p][k] + a[p][k + 1]);
                }
            }
        }
    }

    @Kernels
    static void laplacian2dMap3_1(double[][] a, double[][] b, int nx, int ny, int nz, double cx, double cy, double cz) {
        for (@Loop(gang = Loop.AUTO) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 1; j < ny - 1; j++) {
                for (@Loop(vector = 128) int k = 1; k < nz - 1; k++) {
                    int p = i * ny + j;
                    b[p][k] = cx * (a[p - ny][k] - 2.0 * a[p][k] + a[p + ny][k])
                            + cy * (a[p - 1][k] - 2.0 * a[p][k] + a[p + 1][k])
                            + cz * (a[p][k - 1] - 2.0 * a[p][k] + a[p][k + 1]);
                }
            }
        }
    }

    @Kernels
    static void laplacian2dMap3_2(double[][] a, double[][] b, int nx, int ny, int nz, double cx, double cy, double cz) {
        for (@Loop(vector = 2) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 4) int j = 1; j < ny - 1; j++) {
                for (@Loop(gang = Loop.AUTO, vector = 64) int k = 1; k < nz - 1; k++) {
                    int p = i * ny + j;
                    b[p][k] = cx * (a[p - ny][k] - 2.0 * a[p][k] + a[p + ny][k])
                            + cy * (a[p - 1][k] - 2.0 * a[p][k] + a[p + 1][k])
                            + cz * (a[p][k - 1] - 2.0 * a[p][k] + a[p][k + 1]);
                }
            }
        }
    }

    @Kernels
    static void laplacian2dMap3_3(double[][] a, double[][] b, int nx, int ny, int nz, double cx, double cy, double cz) {
        for (@Loop(vector = 128) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 1; j < ny - 1; j++) {
                for (@Loop(gang = Loop.AUTO) int k = 1; k < nz - 1; k++) {
                    int p = i * ny + j;
                    b[p][k] = cx * (a[p - ny][k] - 2.0 * a[p][k] + a[p + ny][k])
                            + cy * (a[p - 1][k] - 2.0 * a[p][k] + a[p + 1][k])
                            + cz * (a[p][k - 1] - 2.0 * a[p][k] + a[p][k + 1]);
                }
            }
        }
    }

    /** The kernel over rows, never offloaded: the reference. */
    static void laplacian2dPlain(double[][] a, double[][] b, int nx, int ny, int nz, double cx, double cy, double cz) {
        for (int i = 1; i < nx - 1; i++) {
            for (int j = 1; j < ny - 1; j++) {
                for (int k = 1; k < nz - 1; k++) {
                    int p = i * ny + j;
                    b[p][k] = cx * (a[p - ny][k] - 2.0 * a[p][k] + a[p + ny][k])
                            + cy * (a[p - 1][k] - 2.0 * a[p][k] + a[p + 1][k])
                            + cz * (a[p][k - 1] - 2.0 * a[p][k] + a[p][k + 1]);
                }
            }
        }
    }

    static void laplacianVariant(int v, double[] a, double[] b, int nx, int ny, int nz, double cx, double cy,
            double cz) {
        switch (v) {
            case 0 -> laplacian(a, b, nx, ny, nz, cx, cy, cz);
            case 1 -> laplacianMap3_1(a, b, nx, ny, nz, cx, cy, cz);
            case 2 -> laplacianMap3_2(a, b, nx, ny, nz, cx, cy, cz);
            case 3 -> laplacianMap3_3(a, b, nx, ny, nz, cx, cy, cz);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    static void laplacian2dVariant(int v, double[][] a, double[][] b, int nx, int ny, int nz, double cx, double cy,
            double cz) {
        switch (v) {
            case 0 -> laplacian2d(a, b, nx, ny, nz, cx, cy, cz);
            case 1 -> laplacian2dMap3_1(a, b, nx, ny, nz, cx, cy, cz);
            case 2 -> laplacian2dMap3_2(a, b, nx, ny, nz, cx, cy, cz);
            case 3 -> laplacian2dMap3_3(a, b, nx, ny, nz, cx, cy, cz);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    /** Median milliseconds of variant {@code v} on data already on the device (b is not copied back). */
    @Data(copyin = "a", create = "b")
    static double timeResident(int v, double[] a, double[] b, int nx, int ny, int nz, double cx, double cy,
            double cz, int reps) {
        return Check.medianMillis(reps, () -> {
            laplacianVariant(v, a, b, nx, ny, nz, cx, cy, cz);
            Acc.waitAll();
        });
    }

    @Data(copyin = "a", create = "b")
    static double timeResident2d(int v, double[][] a, double[][] b, int nx, int ny, int nz, double cx, double cy,
            double cz, int reps) {
        return Check.medianMillis(reps, () -> {
            laplacian2dVariant(v, a, b, nx, ny, nz, cx, cy, cz);
            Acc.waitAll();
        });
    }

    public static void main(String[] args) {
        boolean gpu = Check.gpu();
        int n = Check.arg(args, 0, gpu ? 256 : 128);
        int reps = Check.arg(args, 1, gpu ? 5 : 2);
        // 1/h² per axis for spacings 1, 1.25 and 0.8
        double cx = 1.0;
        double cy = 0.64;
        double cz = 1.5625;
        Random random = new Random(128);
        double[] a = Check.random(random, n * n * n);
        double[][] a2 = Check.rows(a, n * n, n);
        Check.header("7-point Laplacian, z stride-1, loops x | y | z", n + " x " + n + " x " + n);
        double[] expected = new double[n * n * n];
        laplacianPlain(a, expected, n, n, n, cx, cy, cz);
        // one read and one write of each interior point
        double bytes = 16.0 * (n - 2) * (n - 2) * (n - 2);
        boolean ok = true;
        for (int v = 0; v < VARIANTS.length; v++) {
            double[] b = new double[n * n * n];
            laplacianVariant(v, a, b, n, n, n, cx, cy, cz);
            ok &= Check.same("laplacian flat " + VARIANTS[v], expected, b);
            Check.row("flat " + VARIANTS[v], timeResident(v, a, b, n, n, n, cx, cy, cz, reps), bytes);
        }
        for (int v = 0; v < VARIANTS.length; v++) {
            double[][] b = new double[n * n][n];
            laplacian2dVariant(v, a2, b, n, n, n, cx, cy, cz);
            ok &= Check.same("laplacian rows " + VARIANTS[v], expected, b);
            Check.row("rows " + VARIANTS[v], timeResident2d(v, a2, b, n, n, n, cx, cy, cz, reps), bytes);
        }
        System.out.println("  (median of " + reps + " calls on resident data)");
        Check.verdict("laplacian, " + 2 * VARIANTS.length + " variants", ok, (long) n * n * n);
    }
}
