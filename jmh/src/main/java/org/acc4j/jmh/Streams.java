package org.acc4j.jmh;

import java.util.stream.IntStream;

/**
 * The samples' plain loop nests with their outermost loop as a parallel {@link IntStream} over all cores: the same
 * loop order and the same arithmetic per element as the reference, so the results are the same bit for bit (the
 * benchmark checks that). This is what a Java programmer gets from one line of change to the serial code.
 */
final class Streams {
    private Streams() {
    }

    /** The parallel version of {@code sample}'s flat kernel, taking the reference's arguments. */
    static java.util.function.Consumer<Object[]> of(String sample) {
        return switch (sample) {
            case "jacobi" -> a -> jacobi((double[]) a[0], (double[]) a[1], (int) a[2], (int) a[3]);
            case "dgemm" -> a -> dgemm((double[]) a[0], (double[]) a[1], (double[]) a[2], (int) a[3], (int) a[4],
                    (int) a[5]);
            case "gaussblur" -> a -> gaussblur((double[]) a[0], (double[]) a[1], (double[]) a[2], (int) a[3],
                    (int) a[4]);
            case "copy" -> a -> copy((double[]) a[0], (double[]) a[1], (int) a[2], (int) a[3]);
            case "transpose" -> a -> transpose((double[]) a[0], (double[]) a[1], (int) a[2], (int) a[3]);
            case "vectoradd" -> a -> vectorAdd((double[]) a[0], (double[]) a[1], (double[]) a[2], (int) a[3]);
            case "stencil" -> a -> stencil((double[]) a[0], (double[]) a[1], (int) a[2], (int) a[3], (int) a[4],
                    (double) a[5], (double) a[6]);
            case "laplacian" -> a -> laplacian((double[]) a[0], (double[]) a[1], (int) a[2], (int) a[3], (int) a[4],
                    (double) a[5], (double) a[6], (double) a[7]);
            case "wave13pt" -> a -> wave13pt((double[]) a[0], (double[]) a[1], (double[]) a[2], (int) a[3], (int) a[4],
                    (int) a[5], (double) a[6], (double) a[7], (double) a[8]);
            default -> throw new IllegalArgumentException("no parallel-streams version of " + sample);
        };
    }

    /** Elements per chunk of the parallel dot product: fixed, so that its result does not depend on the core count. */
    static final int DOT_CHUNK = 1 << 16;

    /**
     * The dot product over all cores: {@code x} and {@code y} cut into chunks of {@link #DOT_CHUNK} elements, each
     * chunk summed left to right by one task, the chunks' sums then added left to right. A floating-point sum in
     * another order than the serial loop's rounds differently (both are within n roundings of the exact value, the
     * usual bound |error| <= (n-1) u sum|x_i y_i| with u = 2^-53), so this cannot match {@code Dot.dotPlain} bit for
     * bit; its order is fixed, though, so {@link #dotInOrder} reproduces its bits serially and the benchmark checks
     * it against that. {@code DoubleStream.sum()} would not do: its split points follow the pool's parallelism and
     * it compensates (Kahan), so no serial loop reproduces it. The JIT does not reorder either loop (Java's
     * floating-point addition is not reassociated).
     */
    static double dot(double[] x, double[] y, int n) {
        int chunks = (int) ((n + (long) DOT_CHUNK - 1) / DOT_CHUNK);
        double[] partial = new double[chunks];
        IntStream.range(0, chunks).parallel().forEach(c -> partial[c] = dotChunk(x, y, c * DOT_CHUNK,
                (int) Math.min(n, (long) (c + 1) * DOT_CHUNK)));
        double s = 0.0;
        for (double p : partial) {
            s += p;
        }
        return s;
    }

    /** {@link #dot}'s sum in {@link #dot}'s order, on one thread: the plain Java its result is checked against. */
    static double dotInOrder(double[] x, double[] y, int n) {
        double s = 0.0;
        for (int c = 0; (long) c * DOT_CHUNK < n; c++) {
            s += dotChunk(x, y, c * DOT_CHUNK, (int) Math.min(n, (long) (c + 1) * DOT_CHUNK));
        }
        return s;
    }

    private static double dotChunk(double[] x, double[] y, int from, int to) {
        double s = 0.0;
        for (int i = from; i < to; i++) {
            s += x[i] * y[i];
        }
        return s;
    }

    static void jacobi(double[] src, double[] dst, int m, int n) {
        IntStream.range(1, m - 1).parallel().forEach(i -> {
            for (int j = 1; j < n - 1; j++) {
                dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1]
                        + src[i * n + j + 1]);
            }
        });
    }

    static void dgemm(double[] a, double[] b, double[] c, int m, int n, int p) {
        IntStream.range(0, m).parallel().forEach(i -> {
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i * p + k] * b[k * n + j];
                }
                c[i * n + j] = s;
            }
        });
    }

    static void gaussblur(double[] a, double[] b, double[] w, int m, int n) {
        IntStream.range(2, m - 2).parallel().forEach(i -> {
            for (int j = 2; j < n - 2; j++) {
                double s = 0.0;
                for (int di = 0; di < 5; di++) {
                    for (int dj = 0; dj < 5; dj++) {
                        s += w[di * 5 + dj] * a[(i + di - 2) * n + j + dj - 2];
                    }
                }
                b[i * n + j] = s;
            }
        });
    }

    static void copy(double[] in, double[] out, int rows, int cols) {
        IntStream.range(0, rows).parallel().forEach(r -> {
            for (int c = 0; c < cols; c++) {
                out[r * cols + c] = in[r * cols + c];
            }
        });
    }

    static void transpose(double[] in, double[] out, int rows, int cols) {
        IntStream.range(0, rows).parallel().forEach(r -> {
            for (int c = 0; c < cols; c++) {
                out[c * rows + r] = in[r * cols + c];
            }
        });
    }

    static void vectorAdd(double[] a, double[] b, double[] c, int n) {
        IntStream.range(0, n).parallel().forEach(i -> c[i] = a[i] + b[i]);
    }

    static void stencil(double[] a, double[] b, int nx, int ny, int nz, double alpha, double beta) {
        IntStream.range(1, nx - 1).parallel().forEach(i -> {
            for (int j = 1; j < ny - 1; j++) {
                for (int k = 1; k < nz - 1; k++) {
                    int c = (k * ny + j) * nx + i;
                    b[c] = alpha * a[c]
                            + beta * (a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx] + a[c - nx * ny] + a[c + nx * ny]);
                }
            }
        });
    }

    static void laplacian(double[] a, double[] b, int nx, int ny, int nz, double cx, double cy, double cz) {
        IntStream.range(1, nx - 1).parallel().forEach(i -> {
            for (int j = 1; j < ny - 1; j++) {
                for (int k = 1; k < nz - 1; k++) {
                    int c = (i * ny + j) * nz + k;
                    b[c] = cx * (a[c - ny * nz] - 2.0 * a[c] + a[c + ny * nz])
                            + cy * (a[c - nz] - 2.0 * a[c] + a[c + nz])
                            + cz * (a[c - 1] - 2.0 * a[c] + a[c + 1]);
                }
            }
        });
    }

    static void wave13pt(double[] w0, double[] w1, double[] w2, int nx, int ny, int nz, double m0, double m1,
            double m2) {
        IntStream.range(2, nx - 2).parallel().forEach(i -> {
            for (int j = 2; j < ny - 2; j++) {
                for (int k = 2; k < nz - 2; k++) {
                    int c = (i * ny + j) * nz + k;
                    w2[c] = m0 * w1[c] - w0[c]
                            + m1 * (w1[c - 1] + w1[c + 1] + w1[c - nz] + w1[c + nz] + w1[c - ny * nz] + w1[c + ny * nz])
                            + m2 * (w1[c - 2] + w1[c + 2] + w1[c - 2 * nz] + w1[c + 2 * nz] + w1[c - 2 * ny * nz]
                                    + w1[c + 2 * ny * nz]);
                }
            }
        });
    }
}
