package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * The 7-point stencil of the OpenUH paper's Stencil benchmark (Tian et al., section 5.2): on an nx × ny × nz grid,
 * every interior point of {@code b} becomes {@code alpha} times its value in {@code a} plus {@code beta} times the
 * sum of its six neighbours. The data is laid out x first, {@code a[(k*ny + j)*nx + i]}, while the loops run
 * i (x) outermost and k (z) innermost, as in the paper: the stride-1 index is the OUTER loop's, so the inner loop
 * walks memory with stride nx·ny, and only a mapping that puts the vector on the outer loop (Map3_3) coalesces.
 *
 * <p>In the triple-loop mappings of the OpenUH paper (Tian et al., section 3.1, Figure 7, Table 3), outer | middle |
 * inner loop: {@code default} has no {@code @Loop} (the compiler finds the parallel loops and the coalesced one),
 * {@code Map3_1} gang | gang vector(2) | vector(128), {@code Map3_2} vector(2) | gang vector(4) | gang vector(64),
 * {@code Map3_3} vector(128) | gang vector(2) | gang.
 *
 * <p>Over a flat array and over rows of x-pencils, {@code a[k*ny + j][i]} (the {@code 2d} methods).
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.Stencil [nx ny nz [reps]]}
 * (default 512 × 512 × 64, the paper's size, on a GPU, 256 × 256 × 64 in plain Java).
 */
public final class Stencil {
    static final String[] VARIANTS = {"default (no @Loop)", "Map3_1 gang | gang vector(2) | vector(128)",
        "Map3_2 vector(2) | gang vector(4) | gang vector(64)", "Map3_3 vector(128) | gang vector(2) | gang"};

    private Stencil() {
    }

    @Kernels
    static void stencil(double[] a, double[] b, int nx, int ny, int nz, double alpha, double beta) {
        for (int i = 1; i < nx - 1; i++) {
            for (int j = 1; j < ny - 1; j++) {
                for (int k = 1; k < nz - 1; k++) {
                    int c = (k * ny + j) * nx + i;
                    b[c] = alpha * a[c]
                            + beta * (a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx] + a[c - nx * ny] + a[c + nx * ny]);
                }
            }
        }
    }

    @Kernels
    static void stencilMap3_1(double[] a, double[] b, int nx, int ny, int nz, double alpha, double beta) {
        for (@Loop(gang = Loop.AUTO) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 1; j < ny - 1; j++) {
                for (@Loop(vector = 128) int k = 1; k < nz - 1; k++) {
                    int c = (k * ny + j) * nx + i;
                    b[c] = alpha * a[c]
                            + beta * (a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx] + a[c - nx * ny] + a[c + nx * ny]);
                }
            }
        }
    }

    @Kernels
    static void stencilMap3_2(double[] a, double[] b, int nx, int ny, int nz, double alpha, double beta) {
        for (@Loop(vector = 2) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 4) int j = 1; j < ny - 1; j++) {
                for (@Loop(gang = Loop.AUTO, vector = 64) int k = 1; k < nz - 1; k++) {
                    int c = (k * ny + j) * nx + i;
                    b[c] = alpha * a[c]
                            + beta * (a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx] + a[c - nx * ny] + a[c + nx * ny]);
                }
            }
        }
    }

    @Kernels
    static void stencilMap3_3(double[] a, double[] b, int nx, int ny, int nz, double alpha, double beta) {
        for (@Loop(vector = 128) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 1; j < ny - 1; j++) {
                for (@Loop(gang = Loop.AUTO) int k = 1; k < nz - 1; k++) {
                    int c = (k * ny + j) * nx + i;
                    b[c] = alpha * a[c]
                            + beta * (a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx] + a[c - nx * ny] + a[c + nx * ny]);
                }
            }
        }
    }

    /** The flat kernel, never offloaded: the reference. */
    static void stencilPlain(double[] a, double[] b, int nx, int ny, int nz, double alpha, double beta) {
        for (int i = 1; i < nx - 1; i++) {
            for (int j = 1; j < ny - 1; j++) {
                for (int k = 1; k < nz - 1; k++) {
                    int c = (k * ny + j) * nx + i;
                    b[c] = alpha * a[c]
                            + beta * (a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx] + a[c - nx * ny] + a[c + nx * ny]);
                }
            }
        }
    }

    @Kernels
    static void stencil2d(double[][] a, double[][] b, int nx, int ny, int nz, double alpha, double beta) {
        for (int i = 1; i < nx - 1; i++) {
            for (int j = 1; j < ny - 1; j++) {
                for (int k = 1; k < nz - 1; k++) {
                    int p = k * ny + j;
                    b[p][i] = alpha * a[p][i]
                            + beta * (a[p][i - 1] + a[p][i + 1] + a[p - 1][i] + a[p + 1][i] + a[p - ny][i] + a[p + ny][i]);
                }
            }
        }
    }

    @Kernels
    static void stencil2dMap3_1(double[][] a, double[][] b, int nx, int ny, int nz, double alpha, double beta) {
        for (@Loop(gang = Loop.AUTO) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 1; j < ny - 1; j++) {
                for (@Loop(vector = 128) int k = 1; k < nz - 1; k++) {
                    int p = k * ny + j;
                    b[p][i] = alpha * a[p][i]
                            + beta * (a[p][i - 1] + a[p][i + 1] + a[p - 1][i] + a[p + 1][i] + a[p - ny][i] + a[p + ny][i]);
                }
            }
        }
    }

    @Kernels
    static void stencil2dMap3_2(double[][] a, double[][] b, int nx, int ny, int nz, double alpha, double beta) {
        for (@Loop(vector = 2) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 4) int j = 1; j < ny - 1; j++) {
                for (@Loop(gang = Loop.AUTO, vector = 64) int k = 1; k < nz - 1; k++) {
                    int p = k * ny + j;
                    b[p][i] = alpha * a[p][i]
                            + beta * (a[p][i - 1] + a[p][i + 1] + a[p - 1][i] + a[p + 1][i] + a[p - ny][i] + a[p + ny][i]);
                }
            }
        }
    }

    @Kernels
    static void stencil2dMap3_3(double[][] a, double[][] b, int nx, int ny, int nz, double alpha, double beta) {
        for (@Loop(vector = 128) int i = 1; i < nx - 1; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 1; j < ny - 1; j++) {
                for (@Loop(gang = Loop.AUTO) int k = 1; k < nz - 1; k++) {
                    int p = k * ny + j;
                    b[p][i] = alpha * a[p][i]
                            + beta * (a[p][i - 1] + a[p][i + 1] + a[p - 1][i] + a[p + 1][i] + a[p - ny][i] + a[p + ny][i]);
                }
            }
        }
    }

    /** The kernel over rows, never offloaded: the reference. */
    static void stencil2dPlain(double[][] a, double[][] b, int nx, int ny, int nz, double alpha, double beta) {
        for (int i = 1; i < nx - 1; i++) {
            for (int j = 1; j < ny - 1; j++) {
                for (int k = 1; k < nz - 1; k++) {
                    int p = k * ny + j;
                    b[p][i] = alpha * a[p][i]
                            + beta * (a[p][i - 1] + a[p][i + 1] + a[p - 1][i] + a[p + 1][i] + a[p - ny][i] + a[p + ny][i]);
                }
            }
        }
    }

    static void stencilVariant(int v, double[] a, double[] b, int nx, int ny, int nz, double alpha, double beta) {
        switch (v) {
            case 0 -> stencil(a, b, nx, ny, nz, alpha, beta);
            case 1 -> stencilMap3_1(a, b, nx, ny, nz, alpha, beta);
            case 2 -> stencilMap3_2(a, b, nx, ny, nz, alpha, beta);
            case 3 -> stencilMap3_3(a, b, nx, ny, nz, alpha, beta);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    static void stencil2dVariant(int v, double[][] a, double[][] b, int nx, int ny, int nz, double alpha, double beta) {
        switch (v) {
            case 0 -> stencil2d(a, b, nx, ny, nz, alpha, beta);
            case 1 -> stencil2dMap3_1(a, b, nx, ny, nz, alpha, beta);
            case 2 -> stencil2dMap3_2(a, b, nx, ny, nz, alpha, beta);
            case 3 -> stencil2dMap3_3(a, b, nx, ny, nz, alpha, beta);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    /** Median milliseconds of variant {@code v} on data already on the device (b is not copied back). */
    @Data(copyin = "a", create = "b")
    static double timeResident(int v, double[] a, double[] b, int nx, int ny, int nz, double alpha, double beta,
            int reps) {
        return Check.medianMillis(reps, () -> {
            stencilVariant(v, a, b, nx, ny, nz, alpha, beta);
            Acc.waitAll();
        });
    }

    @Data(copyin = "a", create = "b")
    static double timeResident2d(int v, double[][] a, double[][] b, int nx, int ny, int nz, double alpha,
            double beta, int reps) {
        return Check.medianMillis(reps, () -> {
            stencil2dVariant(v, a, b, nx, ny, nz, alpha, beta);
            Acc.waitAll();
        });
    }

    public static void main(String[] args) {
        boolean gpu = Check.gpu();
        int nx = Check.arg(args, 0, gpu ? 512 : 256);
        int ny = Check.arg(args, 1, gpu ? 512 : 256);
        int nz = Check.arg(args, 2, 64);
        int reps = Check.arg(args, 3, gpu ? 5 : 2);
        double alpha = 0.4;
        double beta = 0.1;
        Random random = new Random(764);
        double[] a = Check.random(random, nx * ny * nz);
        double[][] a2 = Check.rows(a, nz * ny, nx);
        Check.header("7-point stencil, x stride-1, loops x | y | z", nx + " x " + ny + " x " + nz);
        double[] expected = new double[nx * ny * nz];
        stencilPlain(a, expected, nx, ny, nz, alpha, beta);
        // one read and one write of each interior point
        double bytes = 16.0 * (nx - 2) * (ny - 2) * (nz - 2);
        boolean ok = true;
        for (int v = 0; v < VARIANTS.length; v++) {
            double[] b = new double[nx * ny * nz];
            stencilVariant(v, a, b, nx, ny, nz, alpha, beta);
            ok &= Check.same("stencil flat " + VARIANTS[v], expected, b);
            Check.row("flat " + VARIANTS[v], timeResident(v, a, b, nx, ny, nz, alpha, beta, reps), bytes);
        }
        for (int v = 0; v < VARIANTS.length; v++) {
            double[][] b = new double[nz * ny][nx];
            stencil2dVariant(v, a2, b, nx, ny, nz, alpha, beta);
            ok &= Check.same("stencil rows " + VARIANTS[v], expected, b);
            Check.row("rows " + VARIANTS[v], timeResident2d(v, a2, b, nx, ny, nz, alpha, beta, reps), bytes);
        }
        System.out.println("  (median of " + reps + " calls on resident data)");
        Check.verdict("stencil, " + 2 * VARIANTS.length + " variants", ok, (long) nx * ny * nz);
    }
}
