package org.acc4j.samples;

import org.acc4j.Kernels;

/** Kernels on two-dimensional arrays of every element type, for {@link RowsGpuTest}; run plainly they are the reference. */
public final class RowKernels {
    private RowKernels() {
    }

    @Kernels
    public static void jacobi(double[][] a, double[][] b, int m, int n) {
        for (int i = 1; i < m - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
            }
        }
    }

    @Kernels
    public static void transpose(double[][] out, double[][] in, int rows, int cols) {
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                out[j][i] = in[i][j];
            }
        }
    }

    @Kernels
    public static void dgemm(double[][] a, double[][] b, double[][] c, int n) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int k = 0; k < n; k++) {
                    s += a[i][k] * b[k][j];
                }
                c[i][j] = s;
            }
        }
    }

    /** Each row as long as the row says (rectangular or jagged). */
    @Kernels
    public static void twice(double[][] a, double[][] b, int m) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < a[i].length; j++) {
                b[i][j] = 2 * a[i][j] + i;
            }
        }
    }

    /** Two arrays read together: they may share rows. */
    @Kernels
    public static void sum(double[][] a, double[][] c, double[][] out, int m, int n) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                out[i][j] = a[i][j] - 3 * c[i][j];
            }
        }
    }

    @Kernels
    public static void floats(float[][] a, float[][] b, int m, int n) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                b[i][j] = a[i][j] * 3 + i - j;
            }
        }
    }

    @Kernels
    public static void ints(int[][] a, int[][] b, int m, int n) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                b[i][j] = a[i][j] * 3 + i - j;
            }
        }
    }

    @Kernels
    public static void longs(long[][] a, long[][] b, int m, int n) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                b[i][j] = a[i][j] * 3 + i - j;
            }
        }
    }

    @Kernels
    public static void shorts(short[][] a, short[][] b, int m, int n) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                b[i][j] = (short) (a[i][j] * 3 + i - j);
            }
        }
    }

    @Kernels
    public static void bytes(byte[][] a, byte[][] b, int m, int n) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                b[i][j] = (byte) (a[i][j] * 3 + i - j);
            }
        }
    }

    @Kernels
    public static void chars(char[][] a, char[][] b, int m, int n) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                b[i][j] = (char) (a[i][j] * 3 + i - j);
            }
        }
    }
}
