package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * The 13-point wave stencil (Wave13pt of the OpenUH paper, section 5.2): one leapfrog step of a fourth-order
 * wave equation on an nx × ny × nz grid, {@code w2 = m0·w1 - w0 + m1·(the 6 neighbours of w1 at distance 1) +
 * m2·(the 6 at distance 2)}, over the points at least two from the boundary. Laid out z first,
 * {@code w[(i*ny + j)*nz + k]}, loops i | j | k: the innermost index is stride-1, as for {@link Laplacian}.
 *
 * <p>In the triple-loop mappings of the OpenUH paper (Tian et al., section 3.1, Figure 7, Table 3), outer | middle |
 * inner loop: {@code default} has no {@code @Loop} (the compiler finds the parallel loops and the coalesced one),
 * {@code Map3_1} gang | gang vector(2) | vector(128), {@code Map3_2} vector(2) | gang vector(4) | gang vector(64),
 * {@code Map3_3} vector(128) | gang vector(2) | gang.
 *
 * <p>Over flat arrays and over rows of z-pencils, {@code w[i*ny + j][k]} (the {@code 2d} methods).
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.Wave13pt [n [reps]]} (an n³ grid;
 * default 256 on a GPU, 128, the paper's size, in plain Java).
 */
public final class Wave13pt {
    static final String[] VARIANTS = {"default (no @Loop)", "Map3_1 gang | gang vector(2) | vector(128)",
        "Map3_2 vector(2) | gang vector(4) | gang vector(64)", "Map3_3 vector(128) | gang vector(2) | gang"};

    private Wave13pt() {
    }

    @Kernels
    static void wave(double[] w0, double[] w1, double[] w2, int nx, int ny, int nz, double m0, double m1, double m2) {
        for (int i = 2; i < nx - 2; i++) {
            for (int j = 2; j < ny - 2; j++) {
                for (int k = 2; k < nz - 2; k++) {
                    int c = (i * ny + j) * nz + k;
                    w2[c] = m0 * w1[c] - w0[c]
                            + m1 * (w1[c - 1] + w1[c + 1] + w1[c - nz] + w1[c + nz] + w1[c - ny * nz] + w1[c + ny * nz])
                            + m2 * (w1[c - 2] + w1[c + 2] + w1[c - 2 * nz] + w1[c + 2 * nz] + w1[c - 2 * ny * nz]
                                    + w1[c + 2 * ny * nz]);
                }
            }
        }
    }

    @Kernels
    static void waveMap3_1(double[] w0, double[] w1, double[] w2, int nx, int ny, int nz, double m0, double m1,
            double m2) {
        for (@Loop(gang = Loop.AUTO) int i = 2; i < nx - 2; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 2; j < ny - 2; j++) {
                for (@Loop(vector = 128) int k = 2; k < nz - 2; k++) {
                    int c = (i * ny + j) * nz + k;
                    w2[c] = m0 * w1[c] - w0[c]
                            + m1 * (w1[c - 1] + w1[c + 1] + w1[c - nz] + w1[c + nz] + w1[c - ny * nz] + w1[c + ny * nz])
                            + m2 * (w1[c - 2] + w1[c + 2] + w1[c - 2 * nz] + w1[c + 2 * nz] + w1[c - 2 * ny * nz]
                                    + w1[c + 2 * ny * nz]);
                }
            }
        }
    }

    @Kernels
    static void waveMap3_2(double[] w0, double[] w1, double[] w2, int nx, int ny, int nz, double m0, double m1,
            double m2) {
        for (@Loop(vector = 2) int i = 2; i < nx - 2; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 4) int j = 2; j < ny - 2; j++) {
                for (@Loop(gang = Loop.AUTO, vector = 64) int k = 2; k < nz - 2; k++) {
                    int c = (i * ny + j) * nz + k;
                    w2[c] = m0 * w1[c] - w0[c]
                            + m1 * (w1[c - 1] + w1[c + 1] + w1[c - nz] + w1[c + nz] + w1[c - ny * nz] + w1[c + ny * nz])
                            + m2 * (w1[c - 2] + w1[c + 2] + w1[c - 2 * nz] + w1[c + 2 * nz] + w1[c - 2 * ny * nz]
                                    + w1[c + 2 * ny * nz]);
                }
            }
        }
    }

    @Kernels
    static void waveMap3_3(double[] w0, double[] w1, double[] w2, int nx, int ny, int nz, double m0, double m1,
            double m2) {
        for (@Loop(vector = 128) int i = 2; i < nx - 2; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 2; j < ny - 2; j++) {
                for (@Loop(gang = Loop.AUTO) int k = 2; k < nz - 2; k++) {
                    int c = (i * ny + j) * nz + k;
                    w2[c] = m0 * w1[c] - w0[c]
                            + m1 * (w1[c - 1] + w1[c + 1] + w1[c - nz] + w1[c + nz] + w1[c - ny * nz] + w1[c + ny * nz])
                            + m2 * (w1[c - 2] + w1[c + 2] + w1[c - 2 * nz] + w1[c + 2 * nz] + w1[c - 2 * ny * nz]
                                    + w1[c + 2 * ny * nz]);
                }
            }
        }
    }

    /** The flat kernel, never offloaded: the reference. */
    static void wavePlain(double[] w0, double[] w1, double[] w2, int nx, int ny, int nz, double m0, double m1,
            double m2) {
        for (int i = 2; i < nx - 2; i++) {
            for (int j = 2; j < ny - 2; j++) {
                for (int k = 2; k < nz - 2; k++) {
                    int c = (i * ny + j) * nz + k;
                    w2[c] = m0 * w1[c] - w0[c]
                            + m1 * (w1[c - 1] + w1[c + 1] + w1[c - nz] + w1[c + nz] + w1[c - ny * nz] + w1[c + ny * nz])
                            + m2 * (w1[c - 2] + w1[c + 2] + w1[c - 2 * nz] + w1[c + 2 * nz] + w1[c - 2 * ny * nz]
                                    + w1[c + 2 * ny * nz]);
                }
            }
        }
    }

    @Kernels
    static void wave2d(double[][] w0, double[][] w1, double[][] w2, int nx, int ny, int nz, double m0, double m1,
            double m2) {
        for (int i = 2; i < nx - 2; i++) {
            for (int j = 2; j < ny - 2; j++) {
                for (int k = 2; k < nz - 2; k++) {
                    int p = i * ny + j;
                    w2[p][k] = m0 * w1[p][k] - w0[p][k]
                            + m1 * (w1[p][k - 1] + w1[p][k + 1] + w1[p - 1][k] + w1[p + 1][k] + w1[p - ny][k] + w1[p + ny][k])
                            + m2 * (w1[p][k - 2] + w1[p][k + 2] + w1[p - 2][k] + w1[p + 2][k] + w1[p - 2 * ny][k]
                                    + w1[p + 2 * ny][k]);
                }
            }
        }
    }

    @Kernels
    static void wave2dMap3_1(double[][] w0, double[][] w1, double[][] w2, int nx, int ny, int nz, double m0,
            double m1, double m2) {
        for (@Loop(gang = Loop.AUTO) int i = 2; i < nx - 2; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 2; j < ny - 2; j++) {
                for (@Loop(vector = 128) int k = 2; k < nz - 2; k++) {
                    int p = i * ny + j;
                    w2[p][k] = m0 * w1[p][k] - w0[p][k]
                            + m1 * (w1[p][k - 1] + w1[p][k + 1] + w1[p - 1][k] + w1[p + 1][k] + w1[p - ny][k] + w1[p + ny][k])
                            + m2 * (w1[p][k - 2] + w1[p][k + 2] + w1[p - 2][k] + w1[p + 2][k] + w1[p - 2 * ny][k]
                                    + w1[p + 2 * ny][k]);
                }
            }
        }
    }

    @Kernels
    static void wave2dMap3_2(double[][] w0, double[][] w1, double[][] w2, int nx, int ny, int nz, double m0,
            double m1, double m2) {
        for (@Loop(vector = 2) int i = 2; i < nx - 2; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 4) int j = 2; j < ny - 2; j++) {
                for (@Loop(gang = Loop.AUTO, vector = 64) int k = 2; k < nz - 2; k++) {
                    int p = i * ny + j;
                    w2[p][k] = m0 * w1[p][k] - w0[p][k]
                            + m1 * (w1[p][k - 1] + w1[p][k + 1] + w1[p - 1][k] + w1[p + 1][k] + w1[p - ny][k] + w1[p + ny][k])
                            + m2 * (w1[p][k - 2] + w1[p][k + 2] + w1[p - 2][k] + w1[p + 2][k] + w1[p - 2 * ny][k]
                                    + w1[p + 2 * ny][k]);
                }
            }
        }
    }

    @Kernels
    static void wave2dMap3_3(double[][] w0, double[][] w1, double[][] w2, int nx, int ny, int nz, double m0,
            double m1, double m2) {
        for (@Loop(vector = 128) int i = 2; i < nx - 2; i++) {
            for (@Loop(gang = Loop.AUTO, vector = 2) int j = 2; j < ny - 2; j++) {
                for (@Loop(gang = Loop.AUTO) int k = 2; k < nz - 2; k++) {
                    int p = i * ny + j;
                    w2[p][k] = m0 * w1[p][k] - w0[p][k]
                            + m1 * (w1[p][k - 1] + w1[p][k + 1] + w1[p - 1][k] + w1[p + 1][k] + w1[p - ny][k] + w1[p + ny][k])
                            + m2 * (w1[p][k - 2] + w1[p][k + 2] + w1[p - 2][k] + w1[p + 2][k] + w1[p - 2 * ny][k]
                                    + w1[p + 2 * ny][k]);
                }
            }
        }
    }

    /** The kernel over rows, never offloaded: the reference. */
    static void wave2dPlain(double[][] w0, double[][] w1, double[][] w2, int nx, int ny, int nz, double m0,
            double m1, double m2) {
        for (int i = 2; i < nx - 2; i++) {
            for (int j = 2; j < ny - 2; j++) {
                for (int k = 2; k < nz - 2; k++) {
                    int p = i * ny + j;
                    w2[p][k] = m0 * w1[p][k] - w0[p][k]
                            + m1 * (w1[p][k - 1] + w1[p][k + 1] + w1[p - 1][k] + w1[p + 1][k] + w1[p - ny][k] + w1[p + ny][k])
                            + m2 * (w1[p][k - 2] + w1[p][k + 2] + w1[p - 2][k] + w1[p + 2][k] + w1[p - 2 * ny][k]
                                    + w1[p + 2 * ny][k]);
                }
            }
        }
    }

    static void waveVariant(int v, double[] w0, double[] w1, double[] w2, int nx, int ny, int nz, double m0,
            double m1, double m2) {
        switch (v) {
            case 0 -> wave(w0, w1, w2, nx, ny, nz, m0, m1, m2);
            case 1 -> waveMap3_1(w0, w1, w2, nx, ny, nz, m0, m1, m2);
            case 2 -> waveMap3_2(w0, w1, w2, nx, ny, nz, m0, m1, m2);
            case 3 -> waveMap3_3(w0, w1, w2, nx, ny, nz, m0, m1, m2);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    static void wave2dVariant(int v, double[][] w0, double[][] w1, double[][] w2, int nx, int ny, int nz, double m0,
            double m1, double m2) {
        switch (v) {
            case 0 -> wave2d(w0, w1, w2, nx, ny, nz, m0, m1, m2);
            case 1 -> wave2dMap3_1(w0, w1, w2, nx, ny, nz, m0, m1, m2);
            case 2 -> wave2dMap3_2(w0, w1, w2, nx, ny, nz, m0, m1, m2);
            case 3 -> wave2dMap3_3(w0, w1, w2, nx, ny, nz, m0, m1, m2);
            default -> throw new IllegalArgumentException("no variant " + v);
        }
    }

    /** Median milliseconds of variant {@code v} on data already on the device (w2 is not copied back). */
    @Data(copyin = {"w0", "w1"}, create = "w2")
    static double timeResident(int v, double[] w0, double[] w1, double[] w2, int nx, int ny, int nz, double m0,
            double m1, double m2, int reps) {
        return Check.medianMillis(reps, () -> {
            waveVariant(v, w0, w1, w2, nx, ny, nz, m0, m1, m2);
            Acc.waitAll();
        });
    }

    @Data(copyin = {"w0", "w1"}, create = "w2")
    static double timeResident2d(int v, double[][] w0, double[][] w1, double[][] w2, int nx, int ny, int nz,
            double m0, double m1, double m2, int reps) {
        return Check.medianMillis(reps, () -> {
            wave2dVariant(v, w0, w1, w2, nx, ny, nz, m0, m1, m2);
            Acc.waitAll();
        });
    }

    public static void main(String[] args) {
        boolean gpu = Check.gpu();
        int n = Check.arg(args, 0, gpu ? 256 : 128);
        int reps = Check.arg(args, 1, gpu ? 5 : 2);
        // fourth-order central differences, Courant number² 0.1: m1 = 0.1·4/3, m2 = -0.1/12, m0 = 2 - 0.1·7.5
        double m1 = 0.4 / 3;
        double m2 = -0.1 / 12;
        double m0 = 2 - 0.75;
        Random random = new Random(13);
        double[] w0 = Check.random(random, n * n * n);
        double[] w1 = Check.random(random, n * n * n);
        double[][] w0rows = Check.rows(w0, n * n, n);
        double[][] w1rows = Check.rows(w1, n * n, n);
        Check.header("13-point wave stencil, z stride-1, loops x | y | z", n + " x " + n + " x " + n);
        double[] expected = new double[n * n * n];
        wavePlain(w0, w1, expected, n, n, n, m0, m1, m2);
        // two reads and one write of each interior point
        double bytes = 24.0 * (n - 4) * (n - 4) * (n - 4);
        boolean ok = true;
        for (int v = 0; v < VARIANTS.length; v++) {
            double[] w2 = new double[n * n * n];
            waveVariant(v, w0, w1, w2, n, n, n, m0, m1, m2);
            ok &= Check.same("wave13pt flat " + VARIANTS[v], expected, w2);
            Check.row("flat " + VARIANTS[v], timeResident(v, w0, w1, w2, n, n, n, m0, m1, m2, reps), bytes);
        }
        for (int v = 0; v < VARIANTS.length; v++) {
            double[][] w2 = new double[n * n][n];
            wave2dVariant(v, w0rows, w1rows, w2, n, n, n, m0, m1, m2);
            ok &= Check.same("wave13pt rows " + VARIANTS[v], expected, w2);
            Check.row("rows " + VARIANTS[v], timeResident2d(v, w0rows, w1rows, w2, n, n, n, m0, m1, m2, reps), bytes);
        }
        System.out.println("  (median of " + reps + " calls on resident data)");
        Check.verdict("wave13pt, " + 2 * VARIANTS.length + " variants", ok, (long) n * n * n);
    }
}
