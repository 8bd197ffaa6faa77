package org.acc4j.samples.conformance;

import org.acc4j.Kernels;

/**
 * Short programs in the manner of published Java numerics benchmarks (SciMark's SOR, LU, Monte Carlo and sparse
 * product; Java Grande's Fourier series and IDEA cipher; LINPACK's factorisation with its column {@code daxpy}),
 * written here from the algorithms, with only {@code @Kernels} added as the README says.
 */
public final class NumericsStyle {
    private NumericsStyle() {
    }

    /** SciMark's successive over-relaxation: in place, each sweep row by row (a carried dependence). */
    @Kernels
    public static void sor(double omega, double[][] g, int cycles) {
        int m = g.length;
        int n = g[0].length;
        double omegaOverFour = omega * 0.25;
        double oneMinusOmega = 1.0 - omega;
        int mm1 = m - 1;
        int nm1 = n - 1;
        for (int p = 0; p < cycles; p++) {
            for (int i = 1; i < mm1; i++) {
                double[] gi = g[i];
                double[] gim1 = g[i - 1];
                double[] gip1 = g[i + 1];
                for (int j = 1; j < nm1; j++) {
                    gi[j] = omegaOverFour * (gim1[j] + gip1[j] + gi[j - 1] + gi[j + 1]) + oneMinusOmega * gi[j];
                }
            }
        }
    }

    /** Red-black SOR: each colour's points are independent, so each half sweep is parallel. */
    @Kernels
    public static void sorRedBlack(double omega, double[][] g, int cycles) {
        int m = g.length;
        int n = g[0].length;
        double w4 = omega * 0.25;
        double w1 = 1.0 - omega;
        for (int p = 0; p < cycles; p++) {
            for (int colour = 0; colour < 2; colour++) {
                for (int i = 1; i < m - 1; i++) {
                    for (int j = 1 + (i + colour) % 2; j < n - 1; j += 2) {
                        g[i][j] = w4 * (g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1]) + w1 * g[i][j];
                    }
                }
            }
        }
    }

    /** Red-black SOR with each half sweep's row loop marked independent, as the user knows the colours are. */
    @Kernels
    public static void sorRedBlackMarked(double omega, double[][] g, int cycles) {
        int m = g.length;
        int n = g[0].length;
        double w4 = omega * 0.25;
        double w1 = 1.0 - omega;
        for (int p = 0; p < cycles; p++) {
            for (int colour = 0; colour < 2; colour++) {
                for (@org.acc4j.Loop(independent = true) int i = 1; i < m - 1; i++) {
                    for (int j = 1 + (i + colour) % 2; j < n - 1; j += 2) {
                        g[i][j] = w4 * (g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1]) + w1 * g[i][j];
                    }
                }
            }
        }
    }

    /** SciMark's LU factorisation with partial pivoting, on double[][]; returns 0, or 1 for a zero pivot. */
    @Kernels
    public static int lu(double[][] a, int[] pivot) {
        int n = a.length;
        int m = a[0].length;
        int minMN = Math.min(m, n);
        for (int j = 0; j < minMN; j++) {
            int jp = j;
            double t = Math.abs(a[j][j]);
            for (int i = j + 1; i < m; i++) {
                double ab = Math.abs(a[i][j]);
                if (ab > t) {
                    jp = i;
                    t = ab;
                }
            }
            pivot[j] = jp;
            if (a[jp][j] == 0) {
                return 1;
            }
            if (jp != j) {
                double[] ta = a[j];
                a[j] = a[jp];
                a[jp] = ta;
            }
            if (j < m - 1) {
                double recp = 1.0 / a[j][j];
                for (int k = j + 1; k < m; k++) {
                    a[k][j] *= recp;
                }
            }
            if (j < minMN - 1) {
                for (int ii = j + 1; ii < m; ii++) {
                    double[] aii = a[ii];
                    double[] aj = a[j];
                    double aiiJ = aii[j];
                    for (int jj = j + 1; jj < n; jj++) {
                        aii[jj] -= aiiJ * aj[jj];
                    }
                }
            }
        }
        return 0;
    }

    /** Monte Carlo estimate of pi: each sample's point from a hash of its number, a count of hits. */
    @Kernels
    public static double monteCarlo(int samples, long seed) {
        int under = 0;
        for (int count = 0; count < samples; count++) {
            long h = (count + seed) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 31;
            h *= 0xBF58476D1CE4E5B9L;
            h ^= h >>> 29;
            double x = (h >>> 40) * 0x1.0p-24;
            double y = ((h >>> 16) & 0xFFFFFF) * 0x1.0p-24;
            if (x * x + y * y <= 1.0) {
                under++;
            }
        }
        return ((double) under / samples) * 4.0;
    }

    /** SciMark's sparse product in compressed rows, repeated. */
    @Kernels
    public static void sparseMatmult(double[] y, double[] val, int[] row, int[] col, double[] x, int iterations) {
        int m = row.length - 1;
        for (int reps = 0; reps < iterations; reps++) {
            for (int r = 0; r < m; r++) {
                double sum = 0.0;
                int rowR = row[r];
                int rowRp1 = row[r + 1];
                for (int i = rowR; i < rowRp1; i++) {
                    sum += x[col[i]] * val[i];
                }
                y[r] = sum;
            }
        }
    }

    /** Java Grande's series: Fourier coefficients of (x+1)^x on [0, 2] by the trapezoid rule. */
    @Kernels
    public static void series(double[][] coeffs, int terms, int steps) {
        double omega = Math.PI;
        for (int i = 1; i < terms; i++) {
            double a = trapezoid(0.0, 2.0, steps, omega * i, 1);
            double b = trapezoid(0.0, 2.0, steps, omega * i, 2);
            coeffs[0][i] = a;
            coeffs[1][i] = b;
        }
    }

    private static double trapezoid(double x0, double x1, int nsteps, double omegan, int select) {
        double dx = (x1 - x0) / nsteps;
        double rvalue = function(x0, omegan, select) / 2.0;
        double x = x0;
        if (nsteps != 1) {
            --nsteps;
            while (--nsteps > 0) {
                x += dx;
                rvalue += function(x, omegan, select);
            }
        }
        rvalue = (rvalue + function(x1, omegan, select) / 2.0) * dx;
        return rvalue;
    }

    private static double function(double x, double omegan, int select) {
        switch (select) {
            case 0:
                return Math.pow(x + 1.0, x);
            case 1:
                return Math.pow(x + 1.0, x) * Math.cos(omegan * x);
            default:
                return Math.pow(x + 1.0, x) * Math.sin(omegan * x);
        }
    }

    /** An IDEA-like block cipher (8-byte blocks, 8 rounds of 16-bit mul mod 65537, add and xor) on bytes. */
    @Kernels
    public static void cipher(byte[] text, byte[] out, int[] key) {
        for (int block = 0; block < text.length / 8; block++) {
            int i1 = block * 8;
            int x1 = text[i1] & 0xff;
            x1 |= (text[i1 + 1] & 0xff) << 8;
            int x2 = text[i1 + 2] & 0xff;
            x2 |= (text[i1 + 3] & 0xff) << 8;
            int x3 = text[i1 + 4] & 0xff;
            x3 |= (text[i1 + 5] & 0xff) << 8;
            int x4 = text[i1 + 6] & 0xff;
            x4 |= (text[i1 + 7] & 0xff) << 8;
            int ik = 0;
            for (int round = 0; round < 8; round++) {
                x1 = mul(x1, key[ik++]);
                x2 = (x2 + key[ik++]) & 0xffff;
                x3 = (x3 + key[ik++]) & 0xffff;
                x4 = mul(x4, key[ik++]);
                int t2 = x1 ^ x3;
                t2 = mul(t2, key[ik++]);
                int t1 = (t2 + (x2 ^ x4)) & 0xffff;
                t1 = mul(t1, key[ik++]);
                t2 = (t1 + t2) & 0xffff;
                x1 ^= t1;
                x4 ^= t2;
                t2 ^= x2;
                x2 = x3 ^ t1;
                x3 = t2;
            }
            out[i1] = (byte) x1;
            out[i1 + 1] = (byte) (x1 >>> 8);
            out[i1 + 2] = (byte) x3;
            out[i1 + 3] = (byte) (x3 >>> 8);
            out[i1 + 4] = (byte) x2;
            out[i1 + 5] = (byte) (x2 >>> 8);
            out[i1 + 6] = (byte) x4;
            out[i1 + 7] = (byte) (x4 >>> 8);
        }
    }

    private static int mul(int a, int b) {
        if (a == 0) {
            return (0x10001 - b) & 0xffff;
        }
        if (b == 0) {
            return (0x10001 - a) & 0xffff;
        }
        long p = (long) a * b;
        int lo = (int) (p & 0xffff);
        int hi = (int) (p >>> 16);
        return (lo - hi + (lo < hi ? 1 : 0)) & 0xffff;
    }

    /** LINPACK's dgefa over columns (column {@code j} is {@code a[j]}), with its daxpy on each later column. */
    @Kernels
    public static int dgefa(double[][] a, int n, int[] ipvt) {
        int info = 0;
        for (int k = 0; k < n - 1; k++) {
            double[] colk = a[k];
            int l = idamax(n - k, colk, k) + k;
            ipvt[k] = l;
            if (colk[l] != 0) {
                if (l != k) {
                    double t = colk[l];
                    colk[l] = colk[k];
                    colk[k] = t;
                }
                double t = -1.0 / colk[k];
                dscal(n - (k + 1), t, colk, k + 1);
                for (int j = k + 1; j < n; j++) {
                    double[] colj = a[j];
                    double tj = colj[l];
                    if (l != k) {
                        colj[l] = colj[k];
                        colj[k] = tj;
                    }
                    daxpy(n - (k + 1), tj, colk, k + 1, colj, k + 1);
                }
            } else {
                info = k;
            }
        }
        ipvt[n - 1] = n - 1;
        if (a[n - 1][n - 1] == 0) {
            info = n - 1;
        }
        return info;
    }

    /**
     * dgefa with the pivot column read as {@code a[k][i]} inside the column loop (not through a local taken before
     * it), the row interchange and the update of each column in one parallel loop.
     */
    @Kernels
    public static int dgefaInline(double[][] a, int n, int[] ipvt) {
        int info = 0;
        for (int k = 0; k < n - 1; k++) {
            int l = idamax(n - k, a[k], k) + k;
            ipvt[k] = l;
            if (a[k][l] == 0) {
                info = k;
                continue;
            }
            if (l != k) {
                double t = a[k][l];
                a[k][l] = a[k][k];
                a[k][k] = t;
            }
            double t = -1.0 / a[k][k];
            for (int i = k + 1; i < n; i++) {
                a[k][i] *= t;
            }
            for (int j = k + 1; j < n; j++) {
                double tj = a[j][l];
                if (l != k) {
                    a[j][l] = a[j][k];
                    a[j][k] = tj;
                }
                for (int i = k + 1; i < n; i++) {
                    a[j][i] += tj * a[k][i];
                }
            }
        }
        ipvt[n - 1] = n - 1;
        if (a[n - 1][n - 1] == 0) {
            info = n - 1;
        }
        return info;
    }

    private static int idamax(int n, double[] dx, int dxOff) {
        int itemp = 0;
        if (n < 1) {
            return -1;
        }
        if (n == 1) {
            return 0;
        }
        double dmax = Math.abs(dx[dxOff]);
        for (int i = 1; i < n; i++) {
            double dtemp = Math.abs(dx[i + dxOff]);
            if (dtemp > dmax) {
                itemp = i;
                dmax = dtemp;
            }
        }
        return itemp;
    }

    private static void dscal(int n, double da, double[] dx, int dxOff) {
        for (int i = 0; i < n; i++) {
            dx[i + dxOff] = da * dx[i + dxOff];
        }
    }

    private static void daxpy(int n, double da, double[] dx, int dxOff, double[] dy, int dyOff) {
        if (n > 0 && da != 0) {
            for (int i = 0; i < n; i++) {
                dy[i + dyOff] += da * dx[i + dxOff];
            }
        }
    }

    /** A plain daxpy over columns of a flat column-major matrix: {@code y[:, j] += alpha * x[:, j]}. */
    @Kernels
    public static void daxpyColumns(double alpha, double[] x, double[] y, int rows, int cols) {
        for (int j = 0; j < cols; j++) {
            for (int i = 0; i < rows; i++) {
                y[j * rows + i] += alpha * x[j * rows + i];
            }
        }
    }
}
