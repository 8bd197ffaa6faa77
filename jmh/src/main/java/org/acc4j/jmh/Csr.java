package org.acc4j.jmh;

import java.util.stream.IntStream;
import org.acc4j.Kernels;

/**
 * The CSR sparse matrix-vector product {@code y = A x} ({@code SpmvBench}): an {@code n × n} matrix with
 * {@link #PER_ROW} non-zeros per row at fixed diagonal offsets (wrapping around), its values seeded. Each row's sum
 * runs over its non-zeros in order in every version, so all of them give the same bits.
 */
final class Csr {
    /** The non-zeros' column offsets from the diagonal: a 3D 7-point stencil's on a 64³ grid, and a few far ones. */
    static final int[] OFFSETS = {-4096, -64, -1, 0, 1, 64, 4096, -4097, 4097, -65, 65, -2, 2, 8191, -8191, 12345};
    static final int PER_ROW = OFFSETS.length;

    private Csr() {
    }

    /** {rowPtr, col, val, x, y, n}: the matrix, a seeded x and a zero y. */
    static Object[] arguments(Seeded r, int[] d) {
        if (d.length != 1) {
            throw new IllegalArgumentException("takes one size n, got " + d.length);
        }
        int n = d[0];
        int nnz = Math.multiplyExact(n, PER_ROW);
        int[] rowPtr = new int[n + 1];
        int[] col = new int[nnz];
        for (int i = 0; i < n; i++) {
            rowPtr[i + 1] = rowPtr[i] + PER_ROW;
            for (int k = 0; k < PER_ROW; k++) {
                col[i * PER_ROW + k] = Math.floorMod(i + OFFSETS[k], n);
            }
        }
        return new Object[] {rowPtr, col, r.array(nnz), r.array(n), new double[n], n};
    }

    @Kernels
    static void spmv(int[] rowPtr, int[] col, double[] val, double[] x, double[] y, int n) {
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
                s += val[k] * x[col[k]];
            }
            y[i] = s;
        }
    }

    /** The plain-Java reference (never offloaded). */
    static void spmvPlain(int[] rowPtr, int[] col, double[] val, double[] x, double[] y, int n) {
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
                s += val[k] * x[col[k]];
            }
            y[i] = s;
        }
    }

    /** Parallel streams over the rows. */
    static void spmvStreams(int[] rowPtr, int[] col, double[] val, double[] x, double[] y, int n) {
        IntStream.range(0, n).parallel().forEach(i -> {
            double s = 0;
            for (int k = rowPtr[i]; k < rowPtr[i + 1]; k++) {
                s += val[k] * x[col[k]];
            }
            y[i] = s;
        });
    }
}
